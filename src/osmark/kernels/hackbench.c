/* hackbench: a scheduler stress in the manner of `perf bench sched messaging`
 * (process mode, socketpairs, 100-byte messages), written for osmark.
 *
 * Usage: hackbench process ITERATIONS GROUPS LOOPS   (protocol: see common.h)
 *
 * One op is one whole message exchange:
 *   - GROUPS groups, each of 20 receiver and 20 sender processes. Every
 *     receiver owns one AF_UNIX SOCK_STREAM socketpair; all 20 senders of its
 *     group write into the other end of it.
 *   - Each sender sends LOOPS rounds; in a round it writes one 100-byte
 *     message to each of the 20 receivers of its group, in order (a partial
 *     write is completed before the next message).
 *   - Each receiver reads 20 * LOOPS messages, each with read() calls of at
 *     most the rest of that message (100 bytes at most per read), and checks
 *     the bytes; then it exits.
 *   So one op moves GROUPS * 20 * 20 * LOOPS messages of 100 bytes.
 *
 * Set-up (outside the timed region), for every op: the socketpairs, the
 * fork() of all 40 * GROUPS processes, and waiting until every child has
 * written its "ready" byte and blocks on the start pipe.
 * Timed (as perf times it): closing the start pipe's write end, which
 * releases every sender and receiver at once, up to the last waitpid() of
 * all 40 * GROUPS children -- the whole exchange and the children's exit.
 *
 * The result line adds "value": mean seconds per exchange (the figure
 * `perf bench sched messaging -g GROUPS -l LOOPS` prints as "Total time"),
 * and "messages": messages per exchange.
 */
#include "common.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#define USAGE                                                                 \
    "hackbench process ITERATIONS GROUPS LOOPS\n"                             \
    "  GROUPS: groups of 20 senders + 20 receivers (1..1000)\n"               \
    "  LOOPS:  messages each sender sends to each receiver (1..10000000)"

#define FDS_PER_GROUP 20
#define MESSAGE_BYTES 100
#define FILL 'S'

static pid_t *children;
static int n_children;
/* The parent's ends of the control pipes, which no child may keep open. */
static int ready_rd = -1, start_wr = -1;

#define parse_ll(s, lo, hi) osm_parse_ll((s), (lo), (hi), USAGE)

/* Kill every child forked so far, then fail. */
static void die_killing(const char *what)
{
    int saved = errno;
    for (int i = 0; i < n_children; i++)
        if (children[i] > 0)
            kill(children[i], SIGKILL);
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
        ;
    errno = saved;
    osm_die("%s", what);
}

static void write_all(int fd, const char *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, buf + done, len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        done += (size_t)n;
    }
}

/* Tell the parent this child is set up, then block until the start pipe
 * reaches end-of-file (the parent closed its write end). */
static void child_ready(int ready_fd, int start_fd)
{
    char byte = 'r';
    write_all(ready_fd, &byte, 1);
    close(ready_fd);
    ssize_t n;
    do {
        n = read(start_fd, &byte, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 0)
        _exit(1);
    close(start_fd);
}

static void sender(const int *out_fds, long long loops, int ready_fd, int start_fd)
{
    char message[MESSAGE_BYTES];
    memset(message, FILL, sizeof message);
    child_ready(ready_fd, start_fd);
    for (long long round = 0; round < loops; round++)
        for (int r = 0; r < FDS_PER_GROUP; r++)
            write_all(out_fds[r], message, sizeof message);
    _exit(0);
}

static void receiver(int in_fd, long long loops, int ready_fd, int start_fd)
{
    char message[MESSAGE_BYTES];
    long long messages = (long long)FDS_PER_GROUP * loops;
    child_ready(ready_fd, start_fd);
    for (long long m = 0; m < messages; m++) {
        size_t done = 0;
        while (done < MESSAGE_BYTES) {
            ssize_t n = read(in_fd, message + done, MESSAGE_BYTES - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(1);  /* error, or end-of-file before all messages */
            done += (size_t)n;
        }
        if (message[0] != FILL || message[MESSAGE_BYTES - 1] != FILL)
            _exit(2);
    }
    _exit(0);
}

static pid_t spawn(void)
{
    pid_t pid = fork();
    if (pid < 0)
        die_killing("fork (too many processes? lower GROUPS or raise ulimit -u)");
    if (pid > 0) {
        children[n_children++] = pid;
    } else {
        close(ready_rd);
        close(start_wr);
    }
    return pid;
}

/* Forks one group: 20 receivers (each with its socketpair), then 20 senders
 * that hold the write ends of all 20; the parent keeps none of them. */
static void fork_group(long long loops, int ready_fd, int start_fd)
{
    int out_fds[FDS_PER_GROUP];
    for (int r = 0; r < FDS_PER_GROUP; r++) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0)
            die_killing("socketpair");
        if (spawn() == 0) {
            close(pair[1]);
            for (int k = 0; k < r; k++)
                close(out_fds[k]);
            receiver(pair[0], loops, ready_fd, start_fd);
        }
        close(pair[0]);
        out_fds[r] = pair[1];
    }
    for (int s = 0; s < FDS_PER_GROUP; s++)
        if (spawn() == 0)
            sender(out_fds, loops, ready_fd, start_fd);
    for (int r = 0; r < FDS_PER_GROUP; r++)
        close(out_fds[r]);
}

/* One exchange; returns its timed nanoseconds. The first call passes through
 * the engine's start barrier once all its processes are ready. */
static uint64_t exchange(long long groups, long long loops, int first)
{
    int ready[2], start[2];
    if (pipe(ready) < 0 || pipe(start) < 0)
        osm_die("pipe");
    ready_rd = ready[0];
    start_wr = start[1];
    n_children = 0;
    for (long long g = 0; g < groups; g++)
        fork_group(loops, ready[1], start[0]);
    close(ready[1]);
    close(start[0]);
    for (int i = 0; i < n_children; i++) {
        char byte;
        ssize_t n;
        do {
            n = read(ready[0], &byte, 1);
        } while (n < 0 && errno == EINTR);
        if (n != 1) {
            errno = 0;
            die_killing("a child died before it was ready");
        }
    }
    close(ready[0]);
    if (first)
        osm_ready();

    uint64_t t0 = osm_now_ns();
    close(start[1]);  /* end-of-file on the start pipe: everyone goes */
    int failed = 0;
    for (int reaped = 0; reaped < n_children;) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            die_killing("waitpid");
        }
        reaped++;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    uint64_t t1 = osm_now_ns();

    if (failed) {
        errno = 0;
        fprintf(stderr, "%d of %d children failed\n", failed, n_children);
        osm_die("hackbench: message exchange failed");
    }
    return t1 - t0;
}

int main(int argc, char **argv)
{
    long long iterations = osm_iterations(argc, argv, 5, USAGE);
    if (argc != 5 || strcmp(argv[1], "process") != 0)
        osm_usage(USAGE);
    long long groups = parse_ll(argv[3], 1, 1000);
    long long loops = parse_ll(argv[4], 1, 10000000);

    children = calloc((size_t)groups * 2 * FDS_PER_GROUP, sizeof *children);
    if (!children)
        osm_die("calloc");
    signal(SIGPIPE, SIG_IGN);  /* a dead receiver shows as EPIPE, then a failed child */

    uint64_t total = 0;
    for (long long i = 0; i < iterations; i++)
        total += exchange(groups, loops, i == 0);

    long long messages = groups * FDS_PER_GROUP * FDS_PER_GROUP * loops;
    uint64_t check = (uint64_t)messages * MESSAGE_BYTES * (uint64_t)iterations;
    osm_sink = check;
    char extra[128];
    snprintf(extra, sizeof extra, ", \"value\": %.9f, \"messages\": %lld",
             (double)total / 1e9 / (double)iterations, messages);
    osm_report(iterations, total, check, extra);
    return 0;
}
