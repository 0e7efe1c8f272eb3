/* memlat: load-to-use latency by working-set size, with a randomised pointer
 * chase that no hardware prefetcher can predict.
 *
 * Usage: memlat chase ITERATIONS SIZE [PAGES]   (protocol: see common.h)
 *   SIZE   working-set bytes: a number with an optional K, M or G suffix
 *          (binary); at least two 64-byte nodes
 *   PAGES  4k (the default): the set is mmap'd with MADV_NOHUGEPAGE, so it
 *          lives in 4-KiB pages whatever the THP policy, and the figure at
 *          sizes past the TLBs' reach (a few MiB) includes TLB misses and
 *          page walks, as a program's random accesses to plain memory would;
 *          thp: MADV_HUGEPAGE instead (2-MiB pages where the kernel grants
 *          them), to see the cost without most TLB misses
 *
 * Set-up (untimed): SIZE / 64 nodes of 64 bytes (one cache line each, the
 * link in the first 8 bytes) are linked into one random cycle: a uniformly
 * random cyclic permutation (Sattolo's shuffle, fixed seed) of the node
 * indices, so the next node is anywhere in the set and every node is visited
 * once per lap. The links are written sequentially (that also faults every
 * page in), then min(nodes, 256 Ki) loads of the chase warm the caches.
 *
 * One op = one dependent load, p = *p: its address comes from the previous
 * load, so loads cannot overlap and the time per load is the latency of the
 * level of the memory hierarchy the set fits in (L1, L2, L3, DRAM), plus the
 * address translation. Timed: ITERATIONS x 1024 loads (the loop is unrolled
 * 16 times; its counter work overlaps the loads). Reported ops = loads, so
 * the engine's latency kind gives ns per load.
 * Check: the index of the node the chase ended on.
 */
#include "common.h"

#include <limits.h>
#include <sys/mman.h>

#define USAGE                                                                 \
    "memlat chase ITERATIONS SIZE [PAGES]\n"                                  \
    "  SIZE: working-set bytes, e.g. 4K, 64M (at least 128)\n"                \
    "  PAGES: 4k (default) | thp"

#define LINE 64u
#define LOADS_PER_ITERATION 1024
#define WARM_LOADS (256u * 1024u)

struct node {
    struct node *next;
    char pad[LINE - sizeof(struct node *)];
};

/* "64M", "4096", "4K" -> bytes; 0 when malformed or out of range. */
#define parse_bytes osm_parse_bytes

/* splitmix64: a small, fast, well-mixed generator; the seed is fixed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound), by the multiply-shift method (bias < 2^-32 here). */
static uint32_t rng_below(uint32_t bound)
{
    return (uint32_t)(((unsigned __int128)rng_next() * bound) >> 64);
}

#define STEP p = p->next;
#define STEP16 STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP

static struct node *chase(struct node *p, long long rounds16)
{
    for (long long i = 0; i < rounds16; i++) {
        STEP16
    }
    return p;
}

int main(int argc, char **argv)
{
    long long iterations = osm_iterations(argc, argv, 4, USAGE);
    if (strcmp(argv[1], "chase") != 0 || argc > 5)
        osm_usage(USAGE);
    unsigned long long bytes = parse_bytes(argv[3]);
    if (bytes < 2 * LINE || bytes > (1ull << 40))
        osm_usage(USAGE);
    int huge = 0;
    if (argc == 5) {
        if (strcmp(argv[4], "thp") == 0)
            huge = 1;
        else if (strcmp(argv[4], "4k") != 0)
            osm_usage(USAGE);
    }
    if (iterations > LLONG_MAX / LOADS_PER_ITERATION)
        osm_usage(USAGE);
    unsigned long long count = bytes / LINE;
    if (count > UINT32_MAX)
        osm_usage(USAGE);
    uint32_t n = (uint32_t)count;
    size_t map_bytes = (size_t)n * LINE;

    struct node *nodes = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (nodes == MAP_FAILED)
        osm_die("memlat: mmap of %zu bytes", map_bytes);
    if (madvise(nodes, map_bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0 && huge)
        osm_unsupported("memlat: madvise(MADV_HUGEPAGE) failed (%s): the kernel lacks "
                        "transparent huge pages; use PAGES=4k", strerror(errno));

    /* succ[i] = the node after node i: Sattolo's shuffle of the identity gives a
     * uniformly random permutation made of a single cycle through all n nodes. */
    uint32_t *succ = malloc((size_t)n * sizeof *succ);
    if (!succ)
        osm_die("memlat: malloc of the permutation");
    for (uint32_t i = 0; i < n; i++)
        succ[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = rng_below(i); /* j < i: never a fixed point, so one cycle */
        uint32_t t = succ[i];
        succ[i] = succ[j];
        succ[j] = t;
    }
    for (uint32_t i = 0; i < n; i++)
        nodes[i].next = &nodes[succ[i]];
    free(succ);

    struct node *p = chase(&nodes[0], (long long)((n < WARM_LOADS ? n : WARM_LOADS) + 15) / 16);

    osm_ready();
    uint64_t t0 = osm_now_ns();
    p = chase(p, iterations * (LOADS_PER_ITERATION / 16));
    uint64_t t1 = osm_now_ns();

    uint64_t index = (uint64_t)(p - nodes);
    osm_sink = index;
    char extra[64];
    snprintf(extra, sizeof extra, ", \"nodes\": %u, \"bytes\": %zu", n, map_bytes);
    osm_report(iterations * LOADS_PER_ITERATION, t1 - t0, index, extra);
    munmap(nodes, map_bytes);
    return 0;
}
