/* pipe: pipe throughput inside one process (UnixBench "Pipe Throughput").
 *
 * Usage:  pipe run ITERATIONS
 *
 * One op = one write() of 512 bytes into a pipe followed by one read() of
 * those 512 bytes back out of the same pipe, in the same process. The pipe
 * never holds more than 512 bytes, so neither call blocks and there is no
 * context switch: this measures the two system calls and the two copies.
 *
 * Timed region: the loop of ITERATIONS write+read pairs only; the pipe is
 * created before the start barrier.
 */
#include "common.h"

#define CHUNK 512

static const char usage_text[] = "pipe run ITERATIONS";

static _Alignas(64) char buf[CHUNK];

/* Slow path: the read returned less than CHUNK (or failed). Reads the rest;
 * the pipe holds exactly what was just written, so EOF is an error. */
__attribute__((noinline, cold)) static void finish_read(int fd, ssize_t got)
{
    size_t have = got > 0 ? (size_t)got : 0;
    if (got < 0 && errno != EINTR)
        osm_die("pipe: read");
    while (have < CHUNK) {
        ssize_t r = read(fd, buf + have, CHUNK - have);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            osm_die("pipe: read");
        }
        if (r == 0) {
            errno = 0;
            osm_die("pipe: unexpected EOF");
        }
        have += (size_t)r;
    }
}

__attribute__((noinline, cold)) static void write_trouble(ssize_t w)
{
    if (w < 0 && errno == EINTR)
        return;
    if (w >= 0) {
        errno = 0;
        osm_die("pipe: short write (%zd of %d bytes)", w, CHUNK);
    }
    osm_die("pipe: write");
}

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, usage_text);
    if (argc != 3 || strcmp(argv[1], "run") != 0)
        osm_usage(usage_text);

    int p[2];
    if (pipe(p) != 0)
        osm_die("pipe: pipe");
    for (int i = 0; i < CHUNK; i++)
        buf[i] = (char)(i * 31 + 7);

    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        ssize_t w;
        while ((w = write(p[1], buf, CHUNK)) != CHUNK)
            write_trouble(w);
        ssize_t r = read(p[0], buf, CHUNK);
        if (r != CHUNK)
            finish_read(p[0], r);
    }
    uint64_t t1 = osm_now_ns();

    osm_sink = (uint64_t)n * CHUNK;
    osm_report(n, t1 - t0, osm_sink + (unsigned char)buf[CHUNK - 1], "");
    return 0;
}
