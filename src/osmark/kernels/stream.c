/* stream: McCalpin's STREAM kernels (Copy, Scale, Add, Triad), one per mode,
 * on arrays of doubles far larger than the caches: sustained memory bandwidth.
 *
 * Usage: stream MODE ITERATIONS [ARRAY_SIZE]   (protocol: see common.h)
 *   MODE        copy | scale | add | triad
 *   ARRAY_SIZE  bytes per array: a number with an optional K, M or G suffix
 *               (binary), or "auto" (the default): 4 x the last-level cache of
 *               CPU 0, read from /sys/devices/system/cpu/cpu0/cache/index*
 *               (the highest level that is not an instruction cache; 32 MiB
 *               if sysfs says nothing). That is STREAM's rule (each array at
 *               least 4x the cache one thread can fill); N copies of the test
 *               each allocate their own arrays, so together they also cover
 *               every last-level cache of the machine.
 *
 * Set-up (untimed): three arrays a, b, c of N = ARRAY_SIZE / 8 doubles in one
 * page-aligned anonymous mapping, each starting 4 KiB after the end of the one
 * before (as STREAM's OFFSET, and as malloc() happens to place them: no two
 * arrays a multiple of a large power of two apart, which would make them
 * collide in address-indexed caches and predictors); pages as the system's
 * THP policy gives them (no madvise). Every element is written (a = 1, b = 2,
 * c = 3), so all pages are faulted in and every line has been touched before
 * the start barrier.
 *
 * One op batch = one pass over the arrays, j = 0 .. N-1, with q = 3.0:
 *   copy   c[j] = a[j]              counted 2 x 8 bytes per element
 *   scale  b[j] = q * c[j]          counted 2 x 8 bytes per element
 *   add    c[j] = a[j] + b[j]       counted 3 x 8 bytes per element
 *   triad  a[j] = b[j] + q * c[j]   counted 3 x 8 bytes per element
 * Timed: ITERATIONS such passes back to back (each pass a plain compiled loop
 * in its own function; the compiler may vectorise it, but Copy is kept a loop:
 * its replacement by a memcpy() call is disabled, so all four use the same
 * ordinary cached stores). Reported ops = ITERATIONS x N x bytes per element:
 * STREAM's byte counting, where each array element read or written counts 8
 * bytes once and the write-allocate read of a stored line is not counted.
 * Unlike STREAM, the figure is the mean over the sample's passes (the engine
 * takes the median of samples), not the best of 10 passes.
 *
 * When the three arrays exceed MemAvailable the kernel exits 3 (a skip, with
 * the reason) instead of pushing the machine into swap or the OOM killer.
 *
 * After the timed loop (untimed) a strided sample of the destination array
 * is checked against the expected value; a mismatch is a failure (exit 1).
 * "bytes_per_array" is added to the result line.
 */
#include "common.h"

#include <sys/mman.h>

#define USAGE                                                                 \
    "stream MODE ITERATIONS [ARRAY_SIZE]\n"                                   \
    "  MODE: copy | scale | add | triad\n"                                    \
    "  ARRAY_SIZE: bytes per array, e.g. 64K, 128M (default auto: 4 x LLC)"

#define FALLBACK_LLC (32ull << 20)
#define MIN_ELEMENTS 1024ull
#define SCALAR 3.0
#define ARRAY_GAP 4096u /* bytes between the end of one array and the next */

/* Keeps Copy an element loop: gcc would turn it into memcpy() (which may use
 * non-temporal stores), clang likewise through its loop-idiom pass. */
#if defined(__clang__)
#define OSM_PLAIN_LOOP __attribute__((noinline, no_builtin("memcpy")))
#elif defined(__GNUC__)
#define OSM_PLAIN_LOOP __attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))
#else
#define OSM_PLAIN_LOOP
#endif

/* "128M", "65536", "32768K" -> bytes; 0 when malformed or out of range. */
#define parse_bytes osm_parse_bytes

static int read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* The size of the highest-level data/unified cache CPU 0 has, from sysfs. */
static unsigned long long llc_bytes(void)
{
    unsigned long long best = 0;
    long best_level = -1;
    for (int i = 0; i < 32; i++) {
        char path[128], level[32], type[32], size[32];
        const char *dir = "/sys/devices/system/cpu/cpu0/cache";
        snprintf(path, sizeof path, "%s/index%d/level", dir, i);
        if (!read_line(path, level, sizeof level))
            continue;
        snprintf(path, sizeof path, "%s/index%d/type", dir, i);
        if (read_line(path, type, sizeof type) && strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "%s/index%d/size", dir, i);
        if (!read_line(path, size, sizeof size))
            continue;
        long lv = strtol(level, NULL, 10);
        unsigned long long bytes = parse_bytes(size);
        if (bytes && lv > best_level) {
            best_level = lv;
            best = bytes;
        }
    }
    return best ? best : FALLBACK_LLC;
}

/* MemAvailable from /proc/meminfo in bytes, or 0 when unknown. */
static unsigned long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return kib * 1024ull;
}

/* One mapping for the three arrays, each ARRAY_GAP bytes after the end of the one
 * before (STREAM's OFFSET): arrays a multiple of a large power of two apart make a[j],
 * b[j] and c[j] collide in address-indexed structures (cache sets, AMD's L1 way
 * predictor, TLB sets) and cost bandwidth that has nothing to do with memory. */
static double *map_arrays(size_t array_bytes, size_t *stride, size_t *total)
{
    *stride = array_bytes + ARRAY_GAP;
    *total = 3 * *stride;
    void *p = mmap(NULL, *total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        osm_die("stream: mmap of %zu bytes", *total);
    return p;
}

OSM_PLAIN_LOOP static void pass_copy(double *restrict c, const double *restrict a, size_t n)
{
    for (size_t j = 0; j < n; j++)
        c[j] = a[j];
}

OSM_PLAIN_LOOP static void pass_scale(double *restrict b, const double *restrict c, size_t n)
{
    const double q = SCALAR;
    for (size_t j = 0; j < n; j++)
        b[j] = q * c[j];
}

OSM_PLAIN_LOOP static void pass_add(double *restrict c, const double *restrict a,
                                    const double *restrict b, size_t n)
{
    for (size_t j = 0; j < n; j++)
        c[j] = a[j] + b[j];
}

OSM_PLAIN_LOOP static void pass_triad(double *restrict a, const double *restrict b,
                                      const double *restrict c, size_t n)
{
    const double q = SCALAR;
    for (size_t j = 0; j < n; j++)
        a[j] = b[j] + q * c[j];
}

enum mode { COPY, SCALE, ADD, TRIAD };

int main(int argc, char **argv)
{
    long long iterations = osm_iterations(argc, argv, 3, USAGE);
    if (argc > 4)
        osm_usage(USAGE);
    enum mode mode;
    unsigned words; /* 8-byte words counted per element */
    if (strcmp(argv[1], "copy") == 0) {
        mode = COPY, words = 2;
    } else if (strcmp(argv[1], "scale") == 0) {
        mode = SCALE, words = 2;
    } else if (strcmp(argv[1], "add") == 0) {
        mode = ADD, words = 3;
    } else if (strcmp(argv[1], "triad") == 0) {
        mode = TRIAD, words = 3;
    } else {
        osm_usage(USAGE);
        return 2;
    }

    unsigned long long bytes;
    if (argc < 4 || strcmp(argv[3], "auto") == 0) {
        bytes = 4 * llc_bytes();
    } else {
        bytes = parse_bytes(argv[3]);
        if (bytes < MIN_ELEMENTS * sizeof(double) || bytes > (1ull << 40))
            osm_usage(USAGE);
    }
    size_t n = (size_t)(bytes / sizeof(double));
    size_t array_bytes = n * sizeof(double);
    unsigned long long avail = mem_available();
    if (avail && 3ull * array_bytes > avail)
        osm_unsupported("stream: 3 arrays of %zu MiB need more than the %llu MiB of "
                        "available memory: free memory or run fewer copies",
                        array_bytes >> 20, avail >> 20);

    size_t stride, total;
    char *base = (char *)map_arrays(array_bytes, &stride, &total);
    double *a = (double *)base;
    double *b = (double *)(base + stride);
    double *c = (double *)(base + 2 * stride);
    for (size_t j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 3.0;
    }

    double *dest;
    double expect;
    switch (mode) {
    case COPY: dest = c, expect = 1.0; break;
    case SCALE: dest = b, expect = SCALAR * 3.0; break;
    case ADD: dest = c, expect = 1.0 + 2.0; break;
    default: dest = a, expect = 2.0 + SCALAR * 3.0; break;
    }

    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < iterations; i++) {
        switch (mode) {
        case COPY: pass_copy(c, a, n); break;
        case SCALE: pass_scale(b, c, n); break;
        case ADD: pass_add(c, a, b, n); break;
        case TRIAD: pass_triad(a, b, c, n); break;
        }
        asm volatile("" : : "r"(a), "r"(b), "r"(c) : "memory");
    }
    uint64_t t1 = osm_now_ns();

    /* Untimed: every 512th element (one per 4 KiB) and the last hold the result. */
    double sum = 0.0;
    size_t checked = 0;
    for (size_t j = 0; j < n; j += 512, checked++)
        sum += dest[j];
    sum += dest[n - 1];
    checked++;
    if (sum != expect * (double)checked) {
        errno = 0;
        osm_die("stream: %s result check failed (sum %.17g, expected %.17g)", argv[1], sum,
                expect * (double)checked);
    }
    osm_sink = (uint64_t)sum;

    char extra[64];
    snprintf(extra, sizeof extra, ", \"bytes_per_array\": %zu", array_bytes);
    osm_report(iterations * (long long)(words * sizeof(double)) * (long long)n, t1 - t0,
               (uint64_t)sum, extra);
    munmap(base, total);
    return 0;
}
