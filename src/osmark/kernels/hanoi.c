/* hanoi: Towers of Hanoi, as UnixBench's hanoi test (recursive mov(), 10
 * disks by default).
 *
 *   hanoi run N [DISKS]      DISKS = 1..32, default 10
 *
 * One op = one complete recursive solution of the DISKS-disk puzzle: all
 * disks go from one peg to another, 2^DISKS - 1 single-disk moves. Each move
 * really pops a disk off one peg array and pushes it onto another, and bumps
 * a move counter. Solution k moves the tower from peg k%3 to peg (k+1)%3, so
 * every solution starts from where the previous one left off.
 * ops = N.
 *
 * Timed region: only the N solutions. Setting up the pegs happens before the
 * start barrier; the checks happen after the second clock read: the move
 * count must equal N * (2^DISKS - 1) and the tower must be complete and in
 * order on peg N%3, else exit 1.
 *
 * check = total moves made (modulo 2^64).
 */
#include "common.h"

#define USAGE "hanoi run ITERATIONS [DISKS]   (DISKS 1..32, default 10)"
#define MAX_DISKS 32

/* Three pegs, each a stack of disk sizes (1 = smallest), plus heights. */
static int peg[3][MAX_DISKS];
static int height[3];
static uint64_t moves;

static void move_one(int from, int to)
{
    int disk = peg[from][--height[from]];
    peg[to][height[to]++] = disk;
    moves++;
}

/* Moves the top n disks from peg `from` to peg `to`. */
static void mov(int n, int from, int to)
{
    if (n == 1) {
        move_one(from, to);
        return;
    }
    int other = 3 - from - to;
    mov(n - 1, from, other);
    mov(1, from, to);
    mov(n - 1, other, to);
}

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, USAGE);
    if (argc > 4 || strcmp(argv[1], "run") != 0)
        osm_usage(USAGE);
    int disks = 10;
    if (argc == 4) {
        char *end = NULL;
        errno = 0;
        long d = strtol(argv[3], &end, 10);
        if (errno || end == argv[3] || *end != '\0' || d < 1 || d > MAX_DISKS)
            osm_usage(USAGE);
        disks = (int)d;
    }

    /* Set-up: the whole tower on peg 0, largest at the bottom. */
    for (int i = 0; i < disks; i++)
        peg[0][i] = disks - i;
    height[0] = disks;
    height[1] = height[2] = 0;
    moves = 0;

    osm_ready();
    uint64_t t0 = osm_now_ns();
    volatile long long k;
    int from = 0;
    for (k = 0; k < n; k++) {
        int to = from == 2 ? 0 : from + 1;
        mov(disks, from, to);
        from = to;
    }
    uint64_t t1 = osm_now_ns();

    uint64_t per_solution = (1ull << disks) - 1;
    uint64_t expected = (uint64_t)n * per_solution;
    if (moves != expected) {
        errno = 0;
        osm_die("hanoi: %llu moves made, expected %llu", (unsigned long long)moves,
                (unsigned long long)expected);
    }
    int last = (int)(n % 3);
    int ok = height[last] == disks && height[(last + 1) % 3] == 0 && height[(last + 2) % 3] == 0;
    for (int i = 0; ok && i < disks; i++)
        ok = peg[last][i] == disks - i;
    if (!ok) {
        errno = 0;
        osm_die("hanoi: the tower did not end up complete on peg %d", last);
    }

    osm_sink = moves;
    osm_report(n, t1 - t0, moves, "");
    return 0;
}
