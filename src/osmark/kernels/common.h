/* Shared protocol of osmark's native kernels.
 *
 * Invocation:  KERNEL MODE ITERATIONS [PARAM ...]
 *   MODE        which loop to run (a kernel with one loop accepts "run")
 *   ITERATIONS  how many loop units to time (>= 1)
 *   PARAM       kernel-specific positional parameters
 *
 * With OSMARK_SYNC=1 in the environment, the kernel does all its set-up,
 * prints "ready\n" on stdout and blocks until one byte arrives on stdin, so
 * that N concurrent copies start their timed loops together.
 *
 * The timed region is only the loop: it is bracketed by CLOCK_MONOTONIC
 * reads taken after the start signal. The result is one JSON line on stdout:
 *   {"ops": N, "seconds": S, "check": C, ...}
 * where ops counts loop units, seconds is the elapsed wall time of the loop
 * and check is a value derived from the work (it keeps the optimiser from
 * deleting the loop, and lets a test see that the work happened).
 *
 * A kernel whose figure is not ops/seconds (a latency percentile, a duration) adds
 * "value": X to the line; the spec's kind "reported" uses it.
 *
 * Exit status: 0 ok, 1 runtime failure (message on stderr), 2 bad usage,
 * 3 not supported on this system (the reason on stderr's last line: a skip).
 */
#ifndef OSMARK_COMMON_H
#define OSMARK_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Results are stored here so that no optimiser can prove the work unused. */
static volatile uint64_t osm_sink;

static inline uint64_t osm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void osm_die(const char *fmt, ...)
{
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (saved)
        fprintf(stderr, ": %s", strerror(saved));
    fputc('\n', stderr);
    exit(1);
}

/* This system cannot run the kernel (io_uring blocked, ...): the result is a skip. */
static void osm_unsupported(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(3);
}

static void osm_usage(const char *usage)
{
    fprintf(stderr, "usage: %s\n", usage);
    exit(2);
}

/* Parses "MODE ITERATIONS"; returns the iteration count. */
static long long osm_iterations(int argc, char **argv, int min_argc, const char *usage)
{
    if (argc < min_argc || argc < 3)
        osm_usage(usage);
    char *end = NULL;
    errno = 0;
    long long n = strtoll(argv[2], &end, 10);
    if (errno || end == argv[2] || *end != '\0' || n < 1)
        osm_usage(usage);
    return n;
}

/* A whole decimal integer in [lo, hi]; anything else is bad usage (exit 2). */
static inline long long osm_parse_ll(const char *s, long long lo, long long hi,
                                     const char *usage)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        osm_usage(usage);
    return v;
}

/* A byte count with an optional binary suffix (4K, 64M, 1G); 0 when malformed. */
static inline unsigned long long osm_parse_bytes(const char *s)
{
    char *end = NULL;
    errno = 0;
    if (*s < '0' || *s > '9')
        return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: return 0;
    }
    if (*end != '\0' || v > (UINT64_MAX >> shift))
        return 0;
    return v << shift;
}

/* Pins the calling process to cpu and checks that it took effect.
 * Returns 0, or -1 with a message in msg. */
static inline int osm_pin_self(int cpu, char *msg, size_t msglen)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        snprintf(msg, msglen, "cannot pin to CPU %d (sched_setaffinity: %s)", cpu,
                 strerror(errno));
        return -1;
    }
    cpu_set_t got;
    CPU_ZERO(&got);
    if (sched_getaffinity(0, sizeof(got), &got) != 0) {
        snprintf(msg, msglen, "cannot pin to CPU %d (sched_getaffinity: %s)", cpu,
                 strerror(errno));
        return -1;
    }
    if (CPU_COUNT(&got) != 1 || !CPU_ISSET(cpu, &got)) {
        snprintf(msg, msglen,
                 "cannot pin to CPU %d: affinity mask has %d CPUs after setting", cpu,
                 CPU_COUNT(&got));
        return -1;
    }
    int now = sched_getcpu();
    if (now != cpu) {
        snprintf(msg, msglen, "cannot pin to CPU %d: running on CPU %d after pinning",
                 cpu, now);
        return -1;
    }
    return 0;
}

/* The start barrier: a no-op unless OSMARK_SYNC=1. */
static void osm_ready(void)
{
    const char *sync = getenv("OSMARK_SYNC");
    if (!sync || strcmp(sync, "1") != 0)
        return;
    if (write(STDOUT_FILENO, "ready\n", 6) != 6)
        osm_die("ready: write");
    char go;
    ssize_t r;
    do {
        r = read(STDIN_FILENO, &go, 1);
    } while (r < 0 && errno == EINTR);
    if (r != 1) {
        errno = 0;
        osm_die("ready: no start signal on stdin");
    }
}

/* Prints the result line; extra is either "" or starts with ",". */
static void osm_report(long long ops, uint64_t elapsed_ns, uint64_t check, const char *extra)
{
    printf("{\"ops\": %lld, \"seconds\": %.9f, \"check\": %llu%s}\n", ops,
           (double)elapsed_ns / 1e9, (unsigned long long)check, extra ? extra : "");
    fflush(stdout);
}

#endif
