/* fstime: file read/write/copy through the page cache (UnixBench "File Copy").
 *
 * Usage:  fstime MODE ITERATIONS BUFSIZE MAXBLOCKS DIR
 *   MODE       copy | read | write
 *   BUFSIZE    bytes per read()/write(), 256..8192
 *   MAXBLOCKS  file size in KiB (UnixBench: 1024/2000, 256/500, 4096/8000)
 *   DIR        where the two work files DIR/osmark-fs-<pid>-a and -b live
 *
 * One op = one BUFSIZE-byte read() from file a followed by one BUFSIZE-byte
 * write() to file b (copy), one BUFSIZE-byte read() from file a (read), or
 * one BUFSIZE-byte write() to file a (write). The Python side computes
 * KiB/s = ops * BUFSIZE / 1024 / seconds; the result line carries
 * "bufsize" for that.
 *
 * Set-up (untimed): create both files (O_RDWR|O_CREAT|O_TRUNC, 0600),
 * write file a to MAXBLOCKS*1024/BUFSIZE blocks of BUFSIZE bytes, and for
 * read and copy read it through once, which pulls it into the page cache
 * as UnixBench's priming passes do.
 *
 * Timed region: the loop only, i.e. ITERATIONS ops plus the rewinds:
 *   write: after every MAXBLOCKS*1024/BUFSIZE writes, lseek(a, 0);
 *   read:  the read() that hits EOF and the lseek(a, 0) that follows;
 *   copy:  the read() that hits EOF of a, then lseek(a, 0) and lseek(b, 0),
 *          so b is overwritten in place and never grows past a's size.
 * No sync(), fsync() or sleep anywhere: like UnixBench this measures the
 * system calls and the page-cache copies, not the storage device.
 * Both files are unlinked after the loop, and on any failure (an atexit
 * handler covers osm_die, e.g. a missing start byte).
 */
#include "common.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>

#define MIN_BUFSIZE 256
#define MAX_BUFSIZE 8192
#define MAX_MAXBLOCKS (64LL * 1024 * 1024) /* 64 GiB */

static const char usage_text[] =
    "fstime copy|read|write ITERATIONS BUFSIZE(256..8192) MAXBLOCKS(KiB) DIR";

/* Static, not malloc'd: UnixBench found a malloc'd buffer slower. */
static _Alignas(64) char buf[MAX_BUFSIZE];

static char path_a[PATH_MAX];
static char path_b[PATH_MAX];
static volatile sig_atomic_t made_a, made_b;

static void remove_files(void)
{
    if (made_a)
        unlink(path_a);
    if (made_b)
        unlink(path_b);
    made_a = made_b = 0;
}

/* SIGINT/SIGTERM/SIGHUP (a driver's timeout, Ctrl-C): remove the work
 * files, then die of the same signal. unlink() is async-signal-safe. */
static void on_fatal_signal(int sig)
{
    if (made_a)
        unlink(path_a);
    if (made_b)
        unlink(path_b);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Unlinks the work files, then dies with the message (and errno if set). */
__attribute__((format(printf, 1, 2), noreturn, cold)) static void fail(const char *fmt, ...)
{
    int saved = errno;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    remove_files();
    errno = saved;
    osm_die("fstime: %s", msg);
    exit(1);
}

static long long parse_range(const char *s, long long lo, long long hi)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        osm_usage(usage_text);
    return v;
}

/* Called when write() did not return n: returns (so the caller retries)
 * only after EINTR; a short write or any other error is fatal. */
__attribute__((noinline)) static void write_trouble(ssize_t w, const char *which, size_t n)
{
    if (w < 0 && errno == EINTR)
        return;
    if (w >= 0) {
        errno = 0;
        fail("short write on file %s (%zd of %zu bytes)", which, w, n);
    }
    fail("write file %s", which);
}

/* Slow path of a read that did not return n bytes at once (got bytes so
 * far, or -1). Returns n for a full block, 0 for EOF at a block boundary;
 * EOF inside a block means the file changed size under us, an error. */
__attribute__((noinline)) static ssize_t finish_read(int fd, ssize_t got, size_t n)
{
    size_t have = 0;
    if (got < 0) {
        if (errno != EINTR)
            fail("read file a");
    } else {
        if (got == 0)
            return 0;
        have = (size_t)got;
    }
    while (have < n) {
        ssize_t r = read(fd, buf + have, n - have);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            fail("read file a");
        }
        if (r == 0) {
            if (have == 0)
                return 0;
            errno = 0;
            fail("file a ended inside a block (%zu of %zu bytes): it changed size", have, n);
        }
        have += (size_t)r;
    }
    return (ssize_t)n;
}

static void rewind_fd(int fd, const char *which)
{
    if (lseek(fd, 0, SEEK_SET) != 0)
        fail("lseek file %s", which);
}

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 6, usage_text);
    if (argc != 6)
        osm_usage(usage_text);
    enum { COPY, READ, WRITE } mode;
    if (strcmp(argv[1], "copy") == 0)
        mode = COPY;
    else if (strcmp(argv[1], "read") == 0)
        mode = READ;
    else if (strcmp(argv[1], "write") == 0)
        mode = WRITE;
    else
        osm_usage(usage_text);
    const size_t bufsize = (size_t)parse_range(argv[3], MIN_BUFSIZE, MAX_BUFSIZE);
    const long long maxblocks = parse_range(argv[4], 1, MAX_MAXBLOCKS);
    const long long max_buffs = maxblocks * 1024 / (long long)bufsize;
    if (max_buffs < 1)
        osm_usage(usage_text);
    const char *dir = argv[5];
    if (dir[0] == '\0')
        osm_usage(usage_text);
    long pid = (long)getpid();
    int la = snprintf(path_a, sizeof path_a, "%s/osmark-fs-%ld-a", dir, pid);
    int lb = snprintf(path_b, sizeof path_b, "%s/osmark-fs-%ld-b", dir, pid);
    if (la < 0 || lb < 0 || (size_t)la >= sizeof path_a || (size_t)lb >= sizeof path_b)
        osm_usage(usage_text);

    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (char)('a' + i % 26);
    /* Past a file-size limit, write() must fail (and the files be removed)
     * rather than SIGXFSZ killing us with the files left behind. */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGINT, on_fatal_signal);
    signal(SIGTERM, on_fatal_signal);
    signal(SIGHUP, on_fatal_signal);

    /* Any exit (osm_die included, e.g. no start byte at the barrier)
     * removes the work files. */
    if (atexit(remove_files) != 0) {
        errno = 0;
        osm_die("fstime: atexit");
    }
    /* Flags first, so that a signal right after open() still cleans up. */
    made_a = 1;
    int fa = open(path_a, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fa < 0)
        fail("open %s", path_a);
    made_b = 1;
    int fb = open(path_b, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fb < 0)
        fail("open %s", path_b);

    /* Set-up: write file a, then (read, copy) read it through once. */
    for (long long k = 0; k < max_buffs; k++) {
        ssize_t w;
        while ((w = write(fa, buf, bufsize)) != (ssize_t)bufsize)
            write_trouble(w, "a", bufsize);
    }
    rewind_fd(fa, "a");
    if (mode != WRITE) {
        long long blocks = 0;
        for (;;) {
            ssize_t r = read(fa, buf, bufsize);
            if (r != (ssize_t)bufsize)
                r = finish_read(fa, r, bufsize);
            if (r == 0)
                break;
            blocks++;
        }
        if (blocks != max_buffs) {
            errno = 0;
            fail("file a has %lld blocks, expected %lld", blocks, max_buffs);
        }
        rewind_fd(fa, "a");
    }

    osm_ready();
    uint64_t t0 = osm_now_ns();
    switch (mode) {
    case WRITE: {
        long long left = max_buffs;
        for (long long i = 0; i < n; i++) {
            ssize_t w;
            while ((w = write(fa, buf, bufsize)) != (ssize_t)bufsize)
                write_trouble(w, "a", bufsize);
            if (--left == 0) {
                rewind_fd(fa, "a");
                left = max_buffs;
            }
        }
        break;
    }
    case READ:
        for (long long i = 0; i < n;) {
            ssize_t r = read(fa, buf, bufsize);
            if (r != (ssize_t)bufsize) {
                r = finish_read(fa, r, bufsize);
                if (r == 0) {
                    rewind_fd(fa, "a");
                    continue;
                }
            }
            i++;
        }
        break;
    case COPY:
        for (long long i = 0; i < n;) {
            ssize_t r = read(fa, buf, bufsize);
            if (r != (ssize_t)bufsize) {
                r = finish_read(fa, r, bufsize);
                if (r == 0) {
                    rewind_fd(fa, "a");
                    rewind_fd(fb, "b");
                    continue;
                }
            }
            ssize_t w;
            while ((w = write(fb, buf, bufsize)) != (ssize_t)bufsize)
                write_trouble(w, "b", bufsize);
            i++;
        }
        break;
    }
    uint64_t t1 = osm_now_ns();

    close(fa);
    close(fb);
    remove_files();

    osm_sink = (uint64_t)n * bufsize;
    uint64_t check = osm_sink + (unsigned char)buf[bufsize - 1];
    char extra[48];
    snprintf(extra, sizeof extra, ", \"bufsize\": %zu", bufsize);
    osm_report(n, t1 - t0, check, extra);
    return 0;
}
