/* uring: what io_uring's batching saves, against plain system calls, in ns
 * per operation.
 *
 * Usage: uring MODE ITERATIONS [PARAM ...]   (protocol: see common.h)
 *
 * No liburing: the ring is set up with the raw io_uring_setup(2) and
 * io_uring_enter(2) system calls and mmap(2) of the SQ ring, the CQ ring and
 * the SQE array (<linux/io_uring.h>). The ring is created with no setup
 * flags (no SQPOLL, no DEFER_TASKRUN): the default an application gets. Its
 * size is BATCH rounded up to a power of two. The SQ index array is filled
 * with the identity once at set-up (slot i -> SQE i), as liburing does.
 * Our side of the ring protocol: SQ tail is published with a store-release,
 * CQ tail is read with a load-acquire, CQ head is released with a
 * store-release.
 *
 * One op, per mode, and exactly what lies inside the timed region (the loop
 * between the two osm_now_ns() reads; set-up and clean-up are outside). For
 * the ring modes ITERATIONS counts batches (io_uring_enter calls) and the
 * result's ops is ITERATIONS * BATCH, so the engine's figure is ns per op:
 *
 *   nop BATCH         one op = one IORING_OP_NOP. Per batch: fill BATCH
 *                     SQEs (opcode, user_data), publish the SQ tail, one
 *                     io_uring_enter(to_submit=BATCH, min_complete=BATCH,
 *                     IORING_ENTER_GETEVENTS), then reap the BATCH CQEs
 *                     (check res == 0, fold user_data) and advance the CQ
 *                     head. Timed: all of that.
 *   read BATCH DIR    one op = one buffered 4 KiB IORING_OP_READ at a random
 *                     4 KiB-aligned offset of DIR/osmark-uring.dat (16 MiB,
 *                     created at set-up if missing or wrong, and read through
 *                     once so it is in the page cache). Each read of a batch
 *                     has its own 4 KiB buffer (BATCH buffers, as a real
 *                     application would have). Per batch: draw BATCH offsets
 *                     (xorshift64), fill the SQEs, one io_uring_enter as
 *                     above, reap the CQEs (check res == 4096 and that the
 *                     buffer holds the page it asked for, fold it). Timed:
 *                     all of that.
 *   syscall-nop       one op = one syscall(SYS_getppid): the plain-syscall
 *                     counterpart of a NOP. Both do no I/O; getppid() is the
 *                     conventional "empty" system call (perf bench syscall
 *                     basic, os.syscall) and costs only the kernel entry and
 *                     exit plus an RCU read of the parent's pid, so
 *                     nop.b1 - syscall-nop is what io_uring's request
 *                     bookkeeping adds to one kernel crossing. Timed: the
 *                     loop and the raw syscall.
 *   syscall-read DIR  one op = one pread() of 4 KiB into one buffer at the
 *                     same random offsets (same xorshift64 seed) of the same
 *                     cached file; checks the byte count and the page, folds
 *                     it. Timed: the loop, the offset draw and the pread.
 *
 * Each 4 KiB page p of the file starts with the 64-bit value p, so every read
 * is checked (a wrong page is a failure, exit 1). The file is left in DIR for
 * the next sample: the engine removes DIR at the end of the test.
 *
 * Where io_uring cannot be used (ENOSYS: not built in, or a seccomp filter;
 * EPERM: sysctl kernel.io_uring_disabled, its group, a seccomp filter or an
 * LSM; ENOMEM: RLIMIT_MEMLOCK on kernels before 5.12) the kernel exits with
 * status 3 and the reason and its fix: the result is `skipped`.
 */
#include "common.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter 426
#endif

#define USAGE                                                                 \
    "uring MODE ITERATIONS [PARAM...]\n"                                      \
    "  MODE: nop BATCH | read BATCH DIR | syscall-nop | syscall-read DIR\n"   \
    "  BATCH: 1..4096 operations per io_uring_enter"

#define MAX_BATCH 4096
#define PAGE 4096u
#define FILE_BYTES (16u * 1024u * 1024u)
#define FILE_PAGES (FILE_BYTES / PAGE)
#define FILE_NAME "osmark-uring.dat"
#define SEED 0x9e3779b97f4a7c15ull
#define SYSCTL "/proc/sys/kernel/io_uring_disabled"

/* ------------------------------------------------------------------ */
/* parameters                                                          */

#define parse_ll(s, lo, hi) osm_parse_ll((s), (lo), (hi), USAGE)

static void want_argc(int argc, int n)
{
    if (argc != n)
        osm_usage(USAGE);
}

/* The random page sequence both read modes share. */
static inline uint64_t next_page(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return (x >> 20) % FILE_PAGES;
}

/* ------------------------------------------------------------------ */
/* the ring                                                            */

struct ring {
    int fd;
    unsigned entries;
    /* SQ */
    unsigned *sq_tail, *sq_mask, *sq_array;
    struct io_uring_sqe *sqes;
    unsigned sq_local_tail;
    /* CQ */
    unsigned *cq_head, *cq_tail, *cq_mask;
    struct io_uring_cqe *cqes;
};

static int read_sysctl(void)
{
    FILE *f = fopen(SYSCTL, "r");
    if (!f)
        return -1;
    int v = -1;
    if (fscanf(f, "%d", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

/* io_uring_setup failed with errno `err`: say why and how to fix it (exit 3),
 * or fail (exit 1) for errors that are not about this system's policy. */
static void setup_failed(int err)
{
    if (err == ENOSYS)
        osm_unsupported(
            "io_uring is not available (io_uring_setup: ENOSYS): the kernel lacks "
            "CONFIG_IO_URING or a seccomp filter (a container's default profile) blocks it: "
            "use a kernel with io_uring, or allow io_uring_setup/io_uring_enter in the "
            "seccomp profile (docker run --security-opt seccomp=unconfined)");
    if (err == EPERM || err == EACCES) {
        int v = read_sysctl();
        if (v == 2)
            osm_unsupported("io_uring is disabled by sysctl kernel.io_uring_disabled=2: "
                            "sysctl -w kernel.io_uring_disabled=0 (as root) to measure it");
        if (v == 1)
            osm_unsupported(
                "io_uring is restricted by sysctl kernel.io_uring_disabled=1 and this user is "
                "not in the group kernel.io_uring_group: add the user to that group, or "
                "sysctl -w kernel.io_uring_disabled=0 (as root)");
        osm_unsupported("io_uring is blocked (io_uring_setup: %s) by a seccomp filter or a "
                        "security module: allow io_uring_setup/io_uring_enter in the "
                        "container's seccomp profile or the LSM policy",
                        err == EPERM ? "EPERM" : "EACCES");
    }
    if (err == ENOMEM)
        osm_unsupported("io_uring cannot lock its rings in memory (io_uring_setup: ENOMEM, "
                        "RLIMIT_MEMLOCK on kernels before 5.12): raise it (ulimit -l unlimited)");
    errno = err;
    osm_die("uring: io_uring_setup");
}

static void *map_ring(int fd, size_t size, off_t offset, const char *what)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
    if (p == MAP_FAILED)
        osm_die("uring: mmap of the %s", what);
    return p;
}

static void ring_init(struct ring *r, unsigned batch)
{
    unsigned entries = 1;
    while (entries < batch)
        entries <<= 1;
    struct io_uring_params p;
    memset(&p, 0, sizeof(p));
    int fd = (int)syscall(__NR_io_uring_setup, entries, &p);
    if (fd < 0)
        setup_failed(errno);
    r->fd = fd;
    r->entries = p.sq_entries;
    if (p.sq_entries < batch || p.cq_entries < batch) {
        errno = 0;
        osm_die("uring: ring has %u SQ / %u CQ entries, fewer than the batch %u",
                p.sq_entries, p.cq_entries, batch);
    }

    size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    unsigned char *sq, *cq;
    if (p.features & IORING_FEAT_SINGLE_MMAP) {
        size_t size = sq_size > cq_size ? sq_size : cq_size;
        sq = cq = map_ring(fd, size, IORING_OFF_SQ_RING, "rings");
    } else {
        sq = map_ring(fd, sq_size, IORING_OFF_SQ_RING, "SQ ring");
        cq = map_ring(fd, cq_size, IORING_OFF_CQ_RING, "CQ ring");
    }
    r->sqes = map_ring(fd, p.sq_entries * sizeof(struct io_uring_sqe), IORING_OFF_SQES,
                       "SQE array");
    r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
    r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    r->sq_array = (unsigned *)(sq + p.sq_off.array);
    r->cq_head = (unsigned *)(cq + p.cq_off.head);
    r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
    r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
    r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    r->sq_local_tail = *r->sq_tail;
    for (unsigned i = 0; i < p.sq_entries; i++)
        r->sq_array[i] = i; /* identity: SQ slot i holds SQE i */
    memset(r->sqes, 0, p.sq_entries * sizeof(struct io_uring_sqe));
}

/* The next free SQE (the caller queues at most `entries` before submitting). */
static inline struct io_uring_sqe *ring_sqe(struct ring *r)
{
    return &r->sqes[r->sq_local_tail++ & *r->sq_mask];
}

/* Publish the queued SQEs, submit `n` of them and wait until `n` CQEs are
 * there: normally one io_uring_enter; more only after EINTR or a short
 * submit. */
static void ring_submit_wait(struct ring *r, unsigned n)
{
    __atomic_store_n(r->sq_tail, r->sq_local_tail, __ATOMIC_RELEASE);
    unsigned submitted = 0;
    for (;;) {
        unsigned ready = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) - *r->cq_head;
        if (submitted == n && ready >= n)
            return;
        int ret = (int)syscall(__NR_io_uring_enter, r->fd, n - submitted, n - ready,
                               IORING_ENTER_GETEVENTS, NULL, 0);
        if (ret < 0) {
            if (errno == EINTR)
                continue;
            osm_die("uring: io_uring_enter");
        }
        if (ret == 0 && submitted < n) {
            errno = 0;
            osm_die("uring: io_uring_enter submitted nothing");
        }
        submitted += (unsigned)ret;
    }
}

/* ------------------------------------------------------------------ */
/* the file                                                            */

/* Opens DIR/osmark-uring.dat (creating it, page p starting with the 64-bit
 * value p, if it is missing or wrong) and reads it through once so that it
 * is in the page cache. */
static int open_file(const char *dir)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    int len = snprintf(path, sizeof(path), "%s/" FILE_NAME, dir);
    int len2 = snprintf(tmp, sizeof(tmp), "%s/." FILE_NAME ".%ld", dir, (long)getpid());
    if (len < 0 || (size_t)len >= sizeof(path) || len2 < 0 || (size_t)len2 >= sizeof(tmp)) {
        errno = 0;
        osm_die("uring: directory name too long: %s", dir);
    }
    unsigned char *page = aligned_alloc(PAGE, PAGE);
    if (!page)
        osm_die("uring: out of memory");

    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            struct stat st;
            int good = fstat(fd, &st) == 0 && st.st_size == (off_t)FILE_BYTES;
            for (uint64_t p = 0; good && p < FILE_PAGES; p++) {
                uint64_t mark;
                good = pread(fd, page, PAGE, (off_t)(p * PAGE)) == (ssize_t)PAGE &&
                       (memcpy(&mark, page, sizeof(mark)), mark == p);
            }
            if (good) {
                free(page);
                return fd;
            }
            close(fd);
        } else if (errno != ENOENT) {
            osm_die("uring: cannot open %s", path);
        }
        if (attempt == 1)
            break;
        /* (Re)create it under a temporary name, then rename it into place. */
        int wfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (wfd < 0)
            osm_die("uring: cannot create %s", tmp);
        for (uint64_t p = 0; p < FILE_PAGES; p++) {
            for (unsigned i = 0; i < PAGE; i++)
                page[i] = (unsigned char)((p * 131u + i * 7u) % 255u + 1u);
            memcpy(page, &p, sizeof(p));
            if (pwrite(wfd, page, PAGE, (off_t)(p * PAGE)) != (ssize_t)PAGE)
                osm_die("uring: writing %s", tmp);
        }
        if (close(wfd) != 0 || rename(tmp, path) != 0)
            osm_die("uring: creating %s", path);
    }
    errno = 0;
    osm_die("uring: %s does not read back as written", path);
    return -1;
}

static void *alloc_buffers(size_t count)
{
    unsigned char *b = aligned_alloc(PAGE, count * PAGE);
    if (!b)
        osm_die("uring: out of memory");
    memset(b, 0, count * PAGE); /* touched: no page faults in the timed loop */
    return b;
}

static inline uint64_t page_mark(const unsigned char *buf)
{
    uint64_t mark;
    memcpy(&mark, buf, sizeof(mark));
    return mark;
}

static void bad_read(long long res, uint64_t want, uint64_t got)
{
    errno = 0;
    osm_die("uring: read returned %lld for page %llu (holding page %llu)", res,
            (unsigned long long)want, (unsigned long long)got);
}

/* ------------------------------------------------------------------ */
/* modes                                                               */

static void report_batches(long long n, unsigned batch, uint64_t ns, uint64_t check)
{
    char extra[64];
    snprintf(extra, sizeof(extra), ", \"batch\": %u", batch);
    osm_report(n * (long long)batch, ns, check, extra);
}

static void run_nop(long long n, unsigned batch)
{
    struct ring r;
    ring_init(&r, batch);
    osm_ready();
    uint64_t acc = 0, tag = 0;
    uint64_t t0 = osm_now_ns();
    for (long long it = 0; it < n; it++) {
        for (unsigned i = 0; i < batch; i++) {
            struct io_uring_sqe *sqe = ring_sqe(&r);
            sqe->opcode = IORING_OP_NOP;
            sqe->user_data = ++tag;
        }
        ring_submit_wait(&r, batch);
        unsigned head = *r.cq_head;
        for (unsigned i = 0; i < batch; i++, head++) {
            const struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];
            if (cqe->res != 0) {
                errno = -cqe->res;
                osm_die("uring nop: completion");
            }
            acc += cqe->user_data;
        }
        __atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
    }
    uint64_t t1 = osm_now_ns();
    osm_sink = acc;
    report_batches(n, batch, t1 - t0, acc);
}

static void run_read(long long n, unsigned batch, const char *dir)
{
    int fd = open_file(dir);
    struct ring r;
    ring_init(&r, batch);
    unsigned char *bufs = alloc_buffers(batch);

    /* One read before the clock: a kernel without IORING_OP_READ (before 5.6)
     * answers EINVAL, a skip rather than a failure. */
    struct io_uring_sqe *probe = ring_sqe(&r);
    probe->opcode = IORING_OP_READ;
    probe->fd = fd;
    probe->addr = (uint64_t)(uintptr_t)bufs;
    probe->len = PAGE;
    probe->off = 0;
    probe->user_data = 0;
    ring_submit_wait(&r, 1);
    const struct io_uring_cqe *first = &r.cqes[*r.cq_head & *r.cq_mask];
    if (first->res == -EINVAL || first->res == -EOPNOTSUPP)
        osm_unsupported("io_uring has no IORING_OP_READ on this kernel (it came in 5.6): "
                        "use a newer kernel to measure io_uring reads");
    if (first->res != (int)PAGE) {
        errno = first->res < 0 ? -first->res : 0;
        osm_die("uring read: first read returned %d", first->res);
    }
    __atomic_store_n(r.cq_head, *r.cq_head + 1, __ATOMIC_RELEASE);

    osm_ready();
    uint64_t acc = 0, state = SEED;
    uint64_t t0 = osm_now_ns();
    for (long long it = 0; it < n; it++) {
        for (unsigned i = 0; i < batch; i++) {
            uint64_t pg = next_page(&state);
            struct io_uring_sqe *sqe = ring_sqe(&r);
            sqe->opcode = IORING_OP_READ;
            sqe->fd = fd;
            sqe->addr = (uint64_t)(uintptr_t)(bufs + (size_t)i * PAGE);
            sqe->len = PAGE;
            sqe->off = pg * PAGE;
            sqe->user_data = pg << 16 | i;
        }
        ring_submit_wait(&r, batch);
        unsigned head = *r.cq_head;
        for (unsigned i = 0; i < batch; i++, head++) {
            const struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];
            uint64_t want = cqe->user_data >> 16;
            uint64_t got = page_mark(bufs + (size_t)(cqe->user_data & 0xffff) * PAGE);
            if (cqe->res != (int)PAGE || got != want)
                bad_read(cqe->res, want, got);
            acc += got;
        }
        __atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
    }
    uint64_t t1 = osm_now_ns();
    osm_sink = acc;
    close(fd);
    report_batches(n, batch, t1 - t0, acc);
}

static void run_syscall_nop(long long n)
{
    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++)
        acc += (uint64_t)syscall(SYS_getppid);
    uint64_t t1 = osm_now_ns();
    osm_sink = acc;
    osm_report(n, t1 - t0, acc, "");
}

static void run_syscall_read(long long n, const char *dir)
{
    int fd = open_file(dir);
    unsigned char *buf = alloc_buffers(1);
    osm_ready();
    uint64_t acc = 0, state = SEED;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        uint64_t pg = next_page(&state);
        ssize_t got = pread(fd, buf, PAGE, (off_t)(pg * PAGE));
        uint64_t mark = page_mark(buf);
        if (got != (ssize_t)PAGE || mark != pg)
            bad_read(got, pg, mark);
        acc += mark;
    }
    uint64_t t1 = osm_now_ns();
    osm_sink = acc;
    close(fd);
    osm_report(n, t1 - t0, acc, "");
}

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, USAGE);
    const char *mode = argv[1];
    if (strcmp(mode, "nop") == 0) {
        want_argc(argc, 4);
        run_nop(n, (unsigned)parse_ll(argv[3], 1, MAX_BATCH));
    } else if (strcmp(mode, "read") == 0) {
        want_argc(argc, 5);
        run_read(n, (unsigned)parse_ll(argv[3], 1, MAX_BATCH), argv[4]);
    } else if (strcmp(mode, "syscall-nop") == 0) {
        want_argc(argc, 3);
        run_syscall_nop(n);
    } else if (strcmp(mode, "syscall-read") == 0) {
        want_argc(argc, 4);
        run_syscall_read(n, argv[3]);
    } else {
        osm_usage(USAGE);
    }
    return 0;
}
