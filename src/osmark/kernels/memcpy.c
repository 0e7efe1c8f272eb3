/* memcpy: bandwidth of the C library's memcpy() by block size.
 *
 * Usage: memcpy run ITERATIONS BLOCK   (protocol: see common.h)
 *   BLOCK  bytes per call: a number with an optional K, M or G suffix (binary)
 *
 * Set-up (untimed): a source and a destination buffer of exactly BLOCK bytes
 * each (64-byte aligned; page aligned from 4 KiB up), the source filled with
 * a byte pattern, the destination written once by a first memcpy() so every
 * page is faulted in and both buffers are in the caches they fit in.
 *
 * One op batch = one memcpy(dst, src, BLOCK) call, always between the same two
 * buffers (what `perf bench mem memcpy -f default` does), made through a pointer
 * to the function the dynamic linker chose (glibc's variant for this CPU), as
 * perf does, rather than through the PLT stub a plain call goes through (at
 * 64 B that stub's indirect jump is ~10 % of the time). A block that fits a
 * cache level twice over is copied within that level, so small blocks measure
 * in-cache copy speed plus the per-call overhead (at 64 B mostly the call),
 * and only blocks far larger than the last-level cache measure memory. Timed:
 * ITERATIONS calls back to back, each followed by an empty asm statement that
 * clobbers memory so no call can be merged or dropped. Reported ops = bytes
 * copied = ITERATIONS x BLOCK (each byte counted once, not as a read plus a
 * write), as perf bench counts (its default output is in GiB/s, 2^30 B/s).
 *
 * After the timed loop (untimed) the destination is compared with the source;
 * a difference is a failure (exit 1). Check: a byte of the destination.
 */
#include "common.h"

#include <limits.h>

#define USAGE                                                                 \
    "memcpy run ITERATIONS BLOCK\n"                                           \
    "  BLOCK: bytes per call, e.g. 64, 4K, 16M"

/* "16M", "64", "4K" -> bytes; 0 when malformed or out of range. */
#define parse_bytes osm_parse_bytes

typedef void *(*copy_fn)(void *, const void *, size_t);

/* Read through a volatile, so the compiler can neither inline nor specialise the call. */
static copy_fn volatile memcpy_address = memcpy;

static unsigned char *buffer(size_t bytes)
{
    size_t align = bytes >= 4096 ? 4096 : 64;
    size_t rounded = (bytes + align - 1) / align * align;
    unsigned char *p = aligned_alloc(align, rounded);
    if (!p)
        osm_die("memcpy: cannot allocate %zu bytes", bytes);
    return p;
}

int main(int argc, char **argv)
{
    long long iterations = osm_iterations(argc, argv, 4, USAGE);
    if (strcmp(argv[1], "run") != 0 || argc != 4)
        osm_usage(USAGE);
    unsigned long long block = parse_bytes(argv[3]);
    if (block < 1 || block > (1ull << 40))
        osm_usage(USAGE);
    if ((unsigned long long)iterations > (unsigned long long)LLONG_MAX / block)
        osm_usage(USAGE);
    size_t n = (size_t)block;

    unsigned char *src = buffer(n);
    unsigned char *dst = buffer(n);
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    copy_fn copy = memcpy_address;
    copy(dst, src, n);

    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < iterations; i++) {
        copy(dst, src, n);
        asm volatile("" : : "r"(dst), "r"(src) : "memory");
    }
    uint64_t t1 = osm_now_ns();

    if (memcmp(dst, src, n) != 0) {
        errno = 0;
        osm_die("memcpy: the destination differs from the source");
    }
    uint64_t check = dst[n / 2];
    osm_sink = check;
    osm_report(iterations * (long long)n, t1 - t0, check, "");
    free(src);
    free(dst);
    return 0;
}
