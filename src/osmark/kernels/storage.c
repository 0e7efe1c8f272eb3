/* storage: I/O in a directory the user names (the disk or filesystem under
 * test): sequential and 4-KiB random I/O, fsync latency, small-file
 * transactions.
 *
 * Usage: storage MODE ITERATIONS PARAM...   (protocol: see common.h)
 *
 * The data file. seq-* and rand-* use DIR/osmark-io-<MIB>m.dat, MIB MiB of
 * pseudo-random bytes. Set-up creates it when it is missing or has the wrong
 * size (written under a temporary name in 1-MiB blocks, fsync'ed, renamed
 * into place) and otherwise reuses it: the engine runs every sample of one
 * test in the same DIR, so the file is written once per test, and the
 * engine removes DIR when the test ends. This file and the small-file pool
 * are what a run leaves for the next sample; every other file (temporary
 * data file, fsync file) is unlinked on exit.
 *
 * O_DIRECT. The data file is opened with O_DIRECT and one aligned 4-KiB
 * pread is tried. Where the filesystem refuses O_DIRECT (open or that read
 * fails with EINVAL) or ignores it (tmpfs, ramfs: the page cache is the
 * storage), the kernel falls back to buffered I/O and says so with
 * "direct": 0 on the result line ("direct": 1 otherwise). Buffered reads:
 * the file's pages are dropped with fsync + posix_fadvise(DONTNEED) in
 * set-up, before the timed region. Buffered writes: one fsync() of the
 * file at the end of the loop, inside the timed region.
 *
 * Modes, one op each, and exactly what is timed (the loop between two
 * osm_now_ns() reads; set-up and clean-up are outside):
 *
 *   seq-read DIR MIB     one op = pread() of the next 1-MiB block of the
 *                        data file, from offset 0 on, wrapping at its end;
 *                        timed: the preads (and one byte folded per block).
 *   seq-write DIR MIB    one op = pwrite() of a 1-MiB block (its first 8
 *                        bytes stamped with the op number) over the next
 *                        block of the data file, from offset 0 on, wrapping;
 *                        timed: the pwrites (+ the final fsync if buffered).
 *   rand-read DIR MIB QD [ENGINE]
 *   rand-write DIR MIB QD [ENGINE]
 *                        one op = one 4-KiB pread()/pwrite() at a 4-KiB-
 *                        aligned offset drawn uniformly over the data file
 *                        (xorshift64*, seeded from the clock so each sample
 *                        touches other blocks); writes stamp the op number
 *                        into their block first; no fsync with O_DIRECT.
 *                        QD 1: one loop of pread/pwrite ("engine": "psync").
 *                        QD > 1: QD I/Os kept in flight. ENGINE auto (the
 *                        default) uses io_uring (raw io_uring_setup/
 *                        io_uring_enter; fio's set-up flags COOP_TASKRUN,
 *                        SINGLE_ISSUER, DEFER_TASKRUN where the kernel has
 *                        them; IORING_OP_READ/WRITE, else READV/WRITEV; no
 *                        SQPOLL, no registered files or buffers; each
 *                        I/O submitted on its own the moment its slot
 *                        frees, as fio's default iodepth_batch_submit=1,
 *                        so QD I/Os are in flight all the time) and falls
 *                        back to threads when io_uring_setup fails (ENOSYS,
 *                        EPERM from seccomp or kernel.io_uring_disabled);
 *                        "threads" = QD threads, each claiming ops from a
 *                        shared counter and doing pread/pwrite; "io_uring"
 *                        insists (exit 3 when it is blocked). The result
 *                        says "engine": "io_uring" | "threads" | "psync".
 *                        timed: from the first submission to the last
 *                        completion (threads: created in set-up, released
 *                        and joined inside the timed region).
 *   fsync DIR PCT CAP_MIB
 *                        one op = pwrite() of 4 KiB at the end of
 *                        DIR/osmark-fsync-<pid>.dat (buffered) + fsync().
 *                        Every op is timed on its own; seconds = the sum of
 *                        the ops' times; "value" = the PCT-th percentile
 *                        (nearest rank) in µs, plus p50_us, p99_us, max_us.
 *                        At least 100 ops run whatever ITERATIONS says (a
 *                        p99 needs them); ops reports how many ran. When the
 *                        file reaches CAP_MIB it is truncated to 0 and
 *                        fsync'ed between two ops, outside the timed ops.
 *   smallfiles DIR NFILES SUBDIRS
 *                        PostMark-style, on a pool of files in
 *                        DIR/osmark-sf-pool/dNN (SUBDIRS of them). Set-up
 *                        reuses the pool an earlier sample of the test left
 *                        (it is rescanned: names and sizes) or, when there
 *                        is none or it is unsound, creates NFILES files of
 *                        512 B - 16 KiB (sizes from a fixed seed); like the
 *                        data file, the pool stays for the next sample and
 *                        the engine removes it with DIR. (Rebuilding it per
 *                        sample would add thousands of creates and deletes
 *                        between samples, and ext4's search past recently
 *                        deleted inodes would make each sample slower than
 *                        the last.) One op = one transaction chosen at
 *                        random (fixed seed), each a quarter of the time:
 *                        create (open O_CREAT|O_EXCL, write 512 B - 16 KiB,
 *                        close), append (open O_APPEND, write 512 B - 4 KiB,
 *                        close; files stop growing at 32 KiB), read (open,
 *                        read the whole file, close) or delete (unlink), on
 *                        a random file of the pool. The pool stays between
 *                        NFILES/2 and 2*NFILES files (a create at the top
 *                        becomes a delete and vice versa). Buffered, no
 *                        fsync: timed is the transactions' system calls,
 *                        i.e. the filesystem's page-cache and metadata
 *                        paths, not writeback.
 *
 * Extra fields: "direct", "engine", "qd", "bytes" (per op) as they apply.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/vfs.h>

#define USAGE                                                                  \
    "storage MODE ITERATIONS PARAM...\n"                                       \
    "  MODE: seq-read DIR MIB | seq-write DIR MIB\n"                           \
    "        | rand-read DIR MIB QD [auto|io_uring|threads]\n"                 \
    "        | rand-write DIR MIB QD [auto|io_uring|threads]\n"                \
    "        | fsync DIR PERCENTILE CAP_MIB | smallfiles DIR NFILES SUBDIRS"

#define MIB (1024u * 1024u)
#define BLOCK 4096u
#define MAX_QD 1024
#define FSYNC_MIN_OPS 100

/* ------------------------------------------------------------------ */
/* helpers                                                             */

#define parse_ll(s, lo, hi) osm_parse_ll((s), (lo), (hi), USAGE)

static const char *want_dir(const char *s)
{
    if (s[0] == '\0')
        osm_usage(USAGE);
    return s;
}

/* xorshift64*: cheap, good enough to spread offsets and choose transactions. */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n) without a division (n < 2^32 here). */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
    return (uint64_t)(((__uint128_t)rng_next(s) * n) >> 64);
}

static uint64_t clock_seed(void)
{
    uint64_t s = osm_now_ns() ^ ((uint64_t)getpid() << 32) ^ 0x9E3779B97F4A7C15ull;
    return s ? s : 1;
}

static void *aligned_buffer(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, BLOCK, size) != 0)
        osm_die("storage: cannot allocate %zu bytes", size);
    return p;
}

static void fill_random(unsigned char *buf, size_t size, uint64_t *seed)
{
    for (size_t i = 0; i + 8 <= size; i += 8) {
        uint64_t v = rng_next(seed);
        memcpy(buf + i, &v, 8);
    }
}

static void write_all(int fd, const void *buf, size_t size, off_t off, const char *what)
{
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fd, (const char *)buf + done, size - done, off + (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            osm_die("storage: writing %s", what);
        done += (size_t)w;
    }
}

static void fsync_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd); /* best effort: some filesystems refuse fsync on a directory */
        close(dfd);
    }
}

/* ------------------------------------------------------------------ */
/* the data file                                                       */

static char data_path[4096];
static char tmp_path[4096];

static void remove_tmp(void)
{
    if (tmp_path[0])
        unlink(tmp_path);
}

/* Does this filesystem keep file data only in the page cache (O_DIRECT is a no-op)? */
static int memory_backed(int fd)
{
    struct statfs sf;
    if (fstatfs(fd, &sf) != 0)
        return 0;
    return sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC;
}

/* Writes DIR/osmark-io-<MIB>m.dat unless it is there with the right size. */
static void ensure_data_file(const char *dir, long long mib)
{
    if ((size_t)snprintf(data_path, sizeof(data_path), "%s/osmark-io-%lldm.dat", dir, mib) >=
        sizeof(data_path))
        osm_usage(USAGE);
    off_t size = (off_t)mib * MIB;
    struct stat st;
    if (stat(data_path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == size)
        return;
    snprintf(tmp_path, sizeof(tmp_path), "%s/.osmark-io-%d.tmp", dir, (int)getpid());
    atexit(remove_tmp);
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
    int direct = fd >= 0;
    if (fd < 0 && errno == EINVAL)
        fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        osm_die("storage: cannot create %s", tmp_path);
    unsigned char *buf = aligned_buffer(MIB);
    uint64_t seed = 0x0DDB1A5E5BAD5EEDull;
    for (long long c = 0; c < mib; c++) {
        fill_random(buf, MIB, &seed);
        ssize_t w = pwrite(fd, buf, MIB, (off_t)c * MIB);
        if (w < 0 && errno == EINVAL && direct && c == 0) {
            /* opened with O_DIRECT but the filesystem refuses the I/O */
            close(fd);
            fd = open(tmp_path, O_WRONLY | O_TRUNC, 0644);
            if (fd < 0)
                osm_die("storage: cannot reopen %s", tmp_path);
            direct = 0;
            w = pwrite(fd, buf, MIB, 0);
        }
        if (w != (ssize_t)MIB)
            write_all(fd, buf + (w > 0 ? w : 0), MIB - (size_t)(w > 0 ? w : 0),
                      (off_t)c * MIB + (w > 0 ? w : 0), tmp_path);
    }
    free(buf);
    if (fsync(fd) != 0)
        osm_die("storage: fsync %s", tmp_path);
    close(fd);
    if (rename(tmp_path, data_path) != 0)
        osm_die("storage: rename %s to %s", tmp_path, data_path);
    tmp_path[0] = '\0';
    fsync_dir(dir);
}

/* Opens the data file, O_DIRECT if the filesystem honours it; *direct says which. */
static int open_data_file(int flags, int *direct)
{
    unsigned char *probe = aligned_buffer(BLOCK);
    int fd = open(data_path, flags | O_DIRECT);
    *direct = 1;
    if (fd >= 0 && memory_backed(fd)) {
        close(fd);
        fd = -1;
        errno = EINVAL;
    }
    if (fd >= 0 && pread(fd, probe, BLOCK, 0) != (ssize_t)BLOCK) {
        if (errno != EINVAL)
            osm_die("storage: reading %s", data_path);
        close(fd);
        fd = -1;
        errno = EINVAL;
    }
    if (fd < 0) {
        if (errno != EINVAL)
            osm_die("storage: cannot open %s", data_path);
        *direct = 0;
        fd = open(data_path, flags);
        if (fd < 0)
            osm_die("storage: cannot open %s", data_path);
        /* Start from cold: written back and out of the page cache. */
        if (fsync(fd) != 0)
            osm_die("storage: fsync %s", data_path);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    }
    free(probe);
    return fd;
}

/* ------------------------------------------------------------------ */
/* sequential                                                          */

static void run_seq(long long n, const char *dir, long long mib, int write)
{
    ensure_data_file(dir, mib);
    int direct;
    int fd = open_data_file(write ? O_RDWR : O_RDONLY, &direct);
    if (!direct)
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    unsigned char *buf = aligned_buffer(MIB);
    uint64_t seed = clock_seed();
    fill_random(buf, MIB, &seed);
    off_t size = (off_t)mib * MIB, off = 0;
    uint64_t acc = 0;

    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        ssize_t r;
        if (write) {
            memcpy(buf, &i, sizeof(i));
            r = pwrite(fd, buf, MIB, off);
        } else {
            r = pread(fd, buf, MIB, off);
        }
        if (r != (ssize_t)MIB)
            osm_die("storage seq-%s: %s at offset %lld returned %zd", write ? "write" : "read",
                    write ? "pwrite" : "pread", (long long)off, r);
        acc += buf[(size_t)i & (MIB - 1)];
        off += MIB;
        if (off >= size)
            off = 0;
    }
    if (write && !direct && fsync(fd) != 0)
        osm_die("storage seq-write: fsync");
    uint64_t t1 = osm_now_ns();

    close(fd);
    free(buf);
    osm_sink = acc;
    char extra[96];
    snprintf(extra, sizeof(extra), ", \"direct\": %d, \"bytes\": %u", direct, MIB);
    osm_report(n, t1 - t0, acc, extra);
}

/* ------------------------------------------------------------------ */
/* random: psync (QD 1)                                                */

struct rand_job {
    int fd;
    int write;
    uint64_t blocks; /* 4-KiB blocks in the file */
    long long n;     /* ops in all */
};

/* One 4-KiB read or write at a random aligned offset (op i): the work of both the QD1
 * loop and each thread of the threaded QD32 path. Returns a byte of the block. */
static inline unsigned rand_op(const struct rand_job *job, unsigned char *buf,
                               uint64_t *seed, long long i)
{
    off_t off = (off_t)(rng_below(seed, job->blocks) * BLOCK);
    if (job->write)
        memcpy(buf, &i, sizeof(i)); /* no two writes alike (as fio's scramble_buffers) */
    ssize_t r = job->write ? pwrite(job->fd, buf, BLOCK, off)
                           : pread(job->fd, buf, BLOCK, off);
    if (r != (ssize_t)BLOCK)
        osm_die("storage rand: %s at offset %lld returned %zd",
                job->write ? "pwrite" : "pread", (long long)off, r);
    return buf[(size_t)i & (BLOCK - 1)];
}

static uint64_t rand_psync(const struct rand_job *job, uint64_t *elapsed)
{
    unsigned char *buf = aligned_buffer(BLOCK);
    uint64_t seed = clock_seed();
    fill_random(buf, BLOCK, &seed);
    uint64_t acc = 0;
    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < job->n; i++)
        acc += rand_op(job, buf, &seed, i);
    *elapsed = osm_now_ns() - t0;
    free(buf);
    return acc;
}

/* ------------------------------------------------------------------ */
/* random: threads                                                     */

struct rand_threads {
    const struct rand_job *job;
    atomic_llong next; /* the next op to claim */
    pthread_barrier_t start;
    uint64_t acc[MAX_QD];
};

struct rand_thread_arg {
    struct rand_threads *shared;
    int index;
};

static void *rand_thread(void *p)
{
    struct rand_thread_arg *arg = p;
    struct rand_threads *sh = arg->shared;
    const struct rand_job *job = sh->job;
    unsigned char *buf = aligned_buffer(BLOCK);
    uint64_t seed = clock_seed() + (uint64_t)arg->index * 0x9E3779B97F4A7C15ull;
    if (!seed)
        seed = 1;
    fill_random(buf, BLOCK, &seed);
    uint64_t acc = 0;
    pthread_barrier_wait(&sh->start);
    for (;;) {
        long long i = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed);
        if (i >= job->n)
            break;
        acc += rand_op(job, buf, &seed, i);
    }
    sh->acc[arg->index] = acc;
    free(buf);
    return NULL;
}

static uint64_t rand_threads(const struct rand_job *job, int qd, uint64_t *elapsed)
{
    static struct rand_threads sh;
    static struct rand_thread_arg args[MAX_QD];
    static pthread_t tids[MAX_QD];
    sh.job = job;
    atomic_init(&sh.next, 0);
    if (pthread_barrier_init(&sh.start, NULL, (unsigned)qd + 1) != 0)
        osm_die("storage rand: pthread_barrier_init");
    for (int t = 0; t < qd; t++) {
        args[t] = (struct rand_thread_arg){&sh, t};
        int err = pthread_create(&tids[t], NULL, rand_thread, &args[t]);
        if (err) {
            errno = err;
            osm_die("storage rand: pthread_create");
        }
    }
    osm_ready();
    uint64_t t0 = osm_now_ns();
    pthread_barrier_wait(&sh.start);
    for (int t = 0; t < qd; t++)
        pthread_join(tids[t], NULL);
    *elapsed = osm_now_ns() - t0;
    uint64_t acc = 0;
    for (int t = 0; t < qd; t++)
        acc += sh.acc[t];
    return acc;
}

/* ------------------------------------------------------------------ */
/* random: io_uring (raw system calls, no liburing)                    */

#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

struct uring {
    int fd;
    int nonvectored; /* IORING_OP_READ/WRITE (5.6+), else READV/WRITEV */
    unsigned *sq_tail, *sq_mask, *sq_array;
    unsigned *cq_head, *cq_tail, *cq_mask;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqes;
};

/* Does this kernel's io_uring have IORING_OP_READ and IORING_OP_WRITE? */
static int uring_has_plain_rw(int fd)
{
    size_t size = sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op);
    struct io_uring_probe *probe = calloc(1, size);
    int ok = 0;
    if (probe && syscall(__NR_io_uring_register, fd, IORING_REGISTER_PROBE, probe, 256) == 0 &&
        probe->ops_len > IORING_OP_WRITE)
        ok = (probe->ops[IORING_OP_READ].flags & IO_URING_OP_SUPPORTED) &&
             (probe->ops[IORING_OP_WRITE].flags & IO_URING_OP_SUPPORTED);
    free(probe);
    return ok;
}

/* 0 on success, else the errno of io_uring_setup or mmap. The set-up flags are fio's
 * (one thread submits and reaps: completions run as task work when it waits, no IPIs);
 * a kernel that lacks one is asked again without it. */
static int uring_init(struct uring *u, unsigned entries)
{
    static const unsigned tries[] = {
        IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
        IORING_SETUP_COOP_TASKRUN,
        0,
    };
    struct io_uring_params p;
    int fd = -1;
    for (size_t t = 0; t < sizeof(tries) / sizeof(tries[0]) && fd < 0; t++) {
        memset(&p, 0, sizeof(p));
        p.flags = tries[t];
        fd = (int)syscall(__NR_io_uring_setup, entries, &p);
        if (fd < 0 && errno != EINVAL)
            return errno;
    }
    if (fd < 0)
        return errno;
    size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    int single = (p.features & IORING_FEAT_SINGLE_MMAP) != 0;
    if (single && cq_size > sq_size)
        sq_size = cq_size;
    char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
                    IORING_OFF_SQ_RING);
    if (sq == MAP_FAILED) {
        int e = errno;
        close(fd);
        return e;
    }
    char *cq = sq;
    if (!single) {
        cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
                  IORING_OFF_CQ_RING);
        if (cq == MAP_FAILED) {
            int e = errno;
            close(fd);
            return e;
        }
    }
    void *sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
                      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
    if (sqes == MAP_FAILED) {
        int e = errno;
        close(fd);
        return e;
    }
    u->fd = fd;
    u->nonvectored = uring_has_plain_rw(fd);
    u->sq_tail = (unsigned *)(sq + p.sq_off.tail);
    u->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    u->sq_array = (unsigned *)(sq + p.sq_off.array);
    u->cq_head = (unsigned *)(cq + p.cq_off.head);
    u->cq_tail = (unsigned *)(cq + p.cq_off.tail);
    u->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
    u->sqes = sqes;
    u->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    return 0;
}

/* Queues one read or write of iov (made visible to the kernel by uring_enter). */
static void uring_queue(struct uring *u, int fd, int write, struct iovec *iov, off_t off,
                        uint64_t tag)
{
    unsigned tail = *u->sq_tail; /* only this thread writes the tail */
    unsigned idx = tail & *u->sq_mask;
    struct io_uring_sqe *sqe = &u->sqes[idx];
    memset(sqe, 0, sizeof(*sqe));
    sqe->fd = fd;
    sqe->off = (uint64_t)off;
    sqe->user_data = tag;
    if (u->nonvectored) {
        sqe->opcode = write ? IORING_OP_WRITE : IORING_OP_READ;
        sqe->addr = (uint64_t)(uintptr_t)iov->iov_base;
        sqe->len = (unsigned)iov->iov_len;
    } else {
        sqe->opcode = write ? IORING_OP_WRITEV : IORING_OP_READV;
        sqe->addr = (uint64_t)(uintptr_t)iov;
        sqe->len = 1;
    }
    u->sq_array[idx] = idx;
    __atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/* Submits `submit` queued SQEs and waits until `wait` completions are there. GETEVENTS
 * always: with DEFER_TASKRUN that is what posts finished I/Os to the CQ ring. */
static void uring_enter(struct uring *u, unsigned submit, unsigned wait)
{
    for (;;) {
        long r = syscall(__NR_io_uring_enter, u->fd, submit, wait, IORING_ENTER_GETEVENTS,
                         NULL, 0);
        if (r >= 0) {
            if ((unsigned)r >= submit)
                return;
            submit -= (unsigned)r; /* the kernel took part of them: hand in the rest */
            continue;
        }
        if (errno != EINTR && errno != EAGAIN && errno != EBUSY)
            osm_die("storage rand: io_uring_enter");
    }
}

static uint64_t rand_uring(struct uring *u, const struct rand_job *job, int qd,
                           uint64_t *elapsed)
{
    unsigned char *bufs = aligned_buffer((size_t)qd * BLOCK);
    struct iovec *iov = calloc((size_t)qd, sizeof(*iov));
    if (!iov)
        osm_die("storage rand: calloc");
    uint64_t seed = clock_seed();
    fill_random(bufs, (size_t)qd * BLOCK, &seed);
    for (int s = 0; s < qd; s++)
        iov[s] = (struct iovec){bufs + (size_t)s * BLOCK, BLOCK};
    uint64_t acc = 0;
    long long submitted = 0, completed = 0;

    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (int s = 0; s < qd && submitted < job->n; s++, submitted++) {
        uring_queue(u, job->fd, job->write, &iov[s],
                    (off_t)(rng_below(&seed, job->blocks) * BLOCK), (uint64_t)s);
        uring_enter(u, 1, 0);
    }
    while (completed < job->n) {
        unsigned head = *u->cq_head;
        if (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE)) {
            uring_enter(u, 0, 1); /* nothing completed yet: wait for one */
            continue;
        }
        struct io_uring_cqe *cqe = &u->cqes[head & *u->cq_mask];
        int slot = (int)cqe->user_data;
        int res = cqe->res;
        __atomic_store_n(u->cq_head, head + 1, __ATOMIC_RELEASE);
        if (res != (int)BLOCK) {
            errno = res < 0 ? -res : 0;
            osm_die("storage rand: io_uring %s returned %d", job->write ? "write" : "read",
                    res);
        }
        acc += bufs[(size_t)slot * BLOCK + ((size_t)completed & (BLOCK - 1))];
        completed++;
        if (submitted < job->n) { /* the slot is free: its next I/O goes in at once */
            if (job->write)
                memcpy(iov[slot].iov_base, &submitted, sizeof(submitted));
            uring_queue(u, job->fd, job->write, &iov[slot],
                        (off_t)(rng_below(&seed, job->blocks) * BLOCK), (uint64_t)slot);
            submitted++;
            uring_enter(u, 1, 0);
        }
    }
    *elapsed = osm_now_ns() - t0;
    free(iov);
    free(bufs);
    return acc;
}

/* ------------------------------------------------------------------ */

static void run_rand(long long n, const char *dir, long long mib, int qd, const char *engine,
                     int write)
{
    ensure_data_file(dir, mib);
    int direct;
    int fd = open_data_file(write ? O_RDWR : O_RDONLY, &direct);
    if (!direct)
        posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    struct rand_job job = {fd, write, (uint64_t)mib * (MIB / BLOCK), n};
    uint64_t elapsed = 0, acc;
    const char *used;
    char why[160] = "";

    if (qd == 1) {
        used = "psync";
        acc = rand_psync(&job, &elapsed);
    } else {
        struct uring u = {0};
        int err = strcmp(engine, "threads") == 0 ? -1 : uring_init(&u, (unsigned)qd);
        if (err > 0 && strcmp(engine, "io_uring") == 0) {
            errno = err;
            osm_unsupported("io_uring is not available here (io_uring_setup: %s): use "
                            "ENGINE auto or threads, or allow io_uring (seccomp, sysctl "
                            "kernel.io_uring_disabled=0)", strerror(err));
        }
        if (err == 0) {
            used = "io_uring";
            acc = rand_uring(&u, &job, qd, &elapsed);
        } else {
            used = "threads";
            if (err > 0)
                snprintf(why, sizeof(why), ", \"io_uring_error\": \"%s\"", strerror(err));
            acc = rand_threads(&job, qd, &elapsed);
        }
    }
    /* Buffered writes are only done once they are on the device. */
    if (write && !direct) {
        uint64_t f0 = osm_now_ns();
        if (fsync(fd) != 0)
            osm_die("storage rand-write: fsync");
        elapsed += osm_now_ns() - f0;
    }
    close(fd);
    osm_sink = acc;
    char extra[320];
    snprintf(extra, sizeof(extra), ", \"direct\": %d, \"engine\": \"%s\", \"qd\": %d, "
             "\"bytes\": %u%s", direct, used, qd, BLOCK, why);
    osm_report(n, elapsed, acc, extra);
}

/* ------------------------------------------------------------------ */
/* fsync latency                                                       */

static char fsync_path[4096];

static void remove_fsync_file(void)
{
    if (fsync_path[0])
        unlink(fsync_path);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array: the ceil(pct/100 * n)-th value. */
static uint64_t percentile(const uint64_t *sorted, long long n, int pct)
{
    long long rank = ((long long)pct * n + 99) / 100;
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

static void run_fsync(long long n, const char *dir, int pct, long long cap_mib)
{
    if (n < FSYNC_MIN_OPS)
        n = FSYNC_MIN_OPS;
    if ((size_t)snprintf(fsync_path, sizeof(fsync_path), "%s/osmark-fsync-%d.dat", dir,
                         (int)getpid()) >= sizeof(fsync_path))
        osm_usage(USAGE);
    atexit(remove_fsync_file);
    int fd = open(fsync_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        osm_die("storage fsync: cannot create %s", fsync_path);
    if (fsync(fd) != 0)
        osm_die("storage fsync: fsync %s", fsync_path);
    fsync_dir(dir);
    uint64_t *lat = malloc((size_t)n * sizeof(*lat));
    unsigned char *buf = aligned_buffer(BLOCK);
    uint64_t seed = clock_seed();
    fill_random(buf, BLOCK, &seed);
    off_t cap = (off_t)cap_mib * MIB, off = 0;
    if (!lat)
        osm_die("storage fsync: malloc");

    osm_ready();
    uint64_t total = 0;
    for (long long i = 0; i < n; i++) {
        if (off + (off_t)BLOCK > cap) { /* not timed: start the file again */
            if (ftruncate(fd, 0) != 0 || fsync(fd) != 0)
                osm_die("storage fsync: truncating %s", fsync_path);
            off = 0;
        }
        memcpy(buf, &i, sizeof(i));
        uint64_t t0 = osm_now_ns();
        if (pwrite(fd, buf, BLOCK, off) != (ssize_t)BLOCK)
            osm_die("storage fsync: pwrite %s", fsync_path);
        if (fsync(fd) != 0)
            osm_die("storage fsync: fsync %s", fsync_path);
        uint64_t t1 = osm_now_ns();
        lat[i] = t1 - t0;
        total += t1 - t0;
        off += BLOCK;
    }

    close(fd);
    remove_fsync_file();
    fsync_path[0] = '\0';
    qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
    double value = (double)percentile(lat, n, pct) / 1e3;
    char extra[256];
    snprintf(extra, sizeof(extra),
             ", \"value\": %.3f, \"percentile\": %d, \"p50_us\": %.3f, \"p99_us\": %.3f, "
             "\"max_us\": %.3f, \"bytes\": %u",
             value, pct, (double)percentile(lat, n, 50) / 1e3,
             (double)percentile(lat, n, 99) / 1e3, (double)lat[n - 1] / 1e3, BLOCK);
    osm_report(n, total, total, extra);
    free(lat);
    free(buf);
}

/* ------------------------------------------------------------------ */
/* small files                                                         */

#define SF_MIN 512u
#define SF_MAX 16384u
#define SF_APPEND_MAX 4096u
#define SF_FILE_CAP 32768u

static char sf_root[4096];
static int *sf_dirs;
static int sf_ndirs;
static uint32_t *sf_ids;   /* live files, by id */
static uint32_t *sf_sizes; /* their sizes */
static long long sf_count, sf_cap;

static void sf_name(char *name, size_t size, uint32_t id)
{
    snprintf(name, size, "f%08u", id);
}

/* Removes DIR/osmark-sf-pool and everything in it (what a previous run left). */
static void sf_remove_tree(void)
{
    for (int d = 0; d < 100; d++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/d%02d", sf_root, d);
        DIR *dir = opendir(path);
        if (!dir)
            continue;
        struct dirent *e;
        while ((e = readdir(dir)) != NULL)
            if (e->d_name[0] != '.')
                unlinkat(dirfd(dir), e->d_name, 0);
        closedir(dir);
        rmdir(path);
    }
    if (rmdir(sf_root) != 0 && errno != ENOENT)
        osm_die("storage smallfiles: cannot remove the old pool %s", sf_root);
}

/* Reads the pool a previous sample of this test left; 0 when it is not a valid pool
 * of these parameters (then it is rebuilt). */
static int sf_scan(uint32_t *next_id)
{
    sf_count = 0;
    *next_id = 0;
    for (int d = 0; d < sf_ndirs; d++) {
        int fd = dup(sf_dirs[d]);
        DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
        if (!dir)
            return 0;
        struct dirent *e;
        int ok = 1;
        while (ok && (e = readdir(dir)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char *end = NULL;
            unsigned long id = strtoul(e->d_name + 1, &end, 10);
            struct stat st;
            ok = e->d_name[0] == 'f' && *end == '\0' && id < UINT32_MAX &&
                 id % (unsigned long)sf_ndirs == (unsigned long)d && sf_count < sf_cap &&
                 fstatat(dirfd(dir), e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode) &&
                 st.st_size <= (off_t)SF_FILE_CAP;
            if (ok) {
                sf_ids[sf_count] = (uint32_t)id;
                sf_sizes[sf_count++] = (uint32_t)st.st_size;
                if ((uint32_t)id >= *next_id)
                    *next_id = (uint32_t)id + 1;
            }
        }
        closedir(dir);
        if (!ok)
            return 0;
    }
    return sf_count >= 1;
}

static void sf_open_dirs(int create)
{
    if (create && mkdir(sf_root, 0755) != 0)
        osm_die("storage smallfiles: mkdir %s", sf_root);
    for (int d = 0; d < sf_ndirs; d++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/d%02d", sf_root, d);
        if (create && mkdir(path, 0755) != 0)
            osm_die("storage smallfiles: mkdir %s", path);
        sf_dirs[d] = open(path, O_RDONLY | O_DIRECTORY);
        if (sf_dirs[d] < 0 && create)
            osm_die("storage smallfiles: open %s", path);
    }
}

static void sf_close_dirs(void)
{
    for (int d = 0; d < sf_ndirs; d++) {
        if (sf_dirs[d] >= 0)
            close(sf_dirs[d]);
        sf_dirs[d] = -1;
    }
}

static void sf_create(uint32_t id, uint32_t size, const unsigned char *data)
{
    char name[32];
    sf_name(name, sizeof(name), id);
    int fd = openat(sf_dirs[id % (uint32_t)sf_ndirs], name, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        osm_die("storage smallfiles: create %s", name);
    if (write(fd, data, size) != (ssize_t)size)
        osm_die("storage smallfiles: write %s", name);
    close(fd);
}

static void run_smallfiles(long long n, const char *dir, long long nfiles, int ndirs)
{
    if ((size_t)snprintf(sf_root, sizeof(sf_root), "%s/osmark-sf-pool", dir) >=
        sizeof(sf_root) - 32)
        osm_usage(USAGE);
    sf_ndirs = ndirs;
    sf_cap = 2 * nfiles;
    sf_dirs = malloc((size_t)ndirs * sizeof(int));
    sf_ids = malloc((size_t)sf_cap * sizeof(uint32_t));
    sf_sizes = malloc((size_t)sf_cap * sizeof(uint32_t));
    unsigned char *data = aligned_buffer(SF_FILE_CAP);
    if (!sf_dirs || !sf_ids || !sf_sizes)
        osm_die("storage smallfiles: malloc");
    for (int d = 0; d < ndirs; d++)
        sf_dirs[d] = -1;
    uint64_t seed = 0x5EED0F5A11F11E5ull; /* fixed: the same pool and transactions each run */
    fill_random(data, SF_FILE_CAP, &seed);
    long long low = nfiles / 2 > 0 ? nfiles / 2 : 1;
    uint32_t next_id = 0;

    /* The pool persists across the samples of a test, like the data file: reuse it if
     * it is there and sound, else build it. */
    sf_open_dirs(0);
    int reused = sf_scan(&next_id) && sf_count >= low;
    if (!reused) {
        sf_close_dirs();
        sf_remove_tree();
        sf_open_dirs(1);
        sf_count = 0;
        next_id = 0;
        for (long long i = 0; i < nfiles; i++) {
            uint32_t size = SF_MIN + (uint32_t)rng_below(&seed, SF_MAX - SF_MIN + 1);
            sf_create(next_id, size, data);
            sf_ids[sf_count] = next_id++;
            sf_sizes[sf_count++] = size;
        }
    }
    long long counts[4] = {0, 0, 0, 0};
    uint64_t acc = 0;

    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        int op = (int)rng_below(&seed, 4); /* 0 create, 1 append, 2 read, 3 delete */
        if (op == 0 && sf_count >= sf_cap)
            op = 3;
        else if (op == 3 && sf_count <= low)
            op = 0;
        long long k = op == 0 ? 0 : (long long)rng_below(&seed, (uint64_t)sf_count);
        char name[32];
        if (op == 1 && sf_sizes[k] >= SF_FILE_CAP)
            op = 2; /* full-grown: read it instead */
        counts[op]++;
        if (op == 0) {
            uint32_t size = SF_MIN + (uint32_t)rng_below(&seed, SF_MAX - SF_MIN + 1);
            sf_create(next_id, size, data);
            sf_ids[sf_count] = next_id++;
            sf_sizes[sf_count++] = size;
            acc += size;
            continue;
        }
        uint32_t id = sf_ids[k];
        int dfd = sf_dirs[id % (uint32_t)sf_ndirs];
        sf_name(name, sizeof(name), id);
        if (op == 1) {
            uint32_t add = SF_MIN + (uint32_t)rng_below(&seed, SF_APPEND_MAX - SF_MIN + 1);
            if (sf_sizes[k] + add > SF_FILE_CAP)
                add = SF_FILE_CAP - sf_sizes[k];
            int fd = openat(dfd, name, O_WRONLY | O_APPEND);
            if (fd < 0 || write(fd, data, add) != (ssize_t)add)
                osm_die("storage smallfiles: append %s", name);
            close(fd);
            sf_sizes[k] += add;
            acc += add;
        } else if (op == 2) {
            int fd = openat(dfd, name, O_RDONLY);
            if (fd < 0)
                osm_die("storage smallfiles: open %s", name);
            ssize_t r, got = 0;
            while ((r = read(fd, data, SF_FILE_CAP)) > 0)
                got += r;
            if (r < 0 || got != (ssize_t)sf_sizes[k])
                osm_die("storage smallfiles: read %s", name);
            close(fd);
            acc += (uint64_t)got + data[(size_t)i & (SF_FILE_CAP - 1)];
        } else {
            if (unlinkat(dfd, name, 0) != 0)
                osm_die("storage smallfiles: unlink %s", name);
            sf_ids[k] = sf_ids[sf_count - 1];
            sf_sizes[k] = sf_sizes[--sf_count];
        }
    }
    uint64_t t1 = osm_now_ns();

    sf_close_dirs();
    osm_sink = acc;
    char extra[240];
    snprintf(extra, sizeof(extra),
             ", \"creates\": %lld, \"appends\": %lld, \"reads\": %lld, \"deletes\": %lld, "
             "\"files\": %lld, \"pool_reused\": %d",
             counts[0], counts[1], counts[2], counts[3], sf_count, reused);
    osm_report(n, t1 - t0, acc, extra);
    free(data);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 4, USAGE);
    const char *mode = argv[1];
    /* the data file's size: 1 MiB .. 1 TiB */
    if (strcmp(mode, "seq-read") == 0 || strcmp(mode, "seq-write") == 0) {
        if (argc != 5)
            osm_usage(USAGE);
        run_seq(n, want_dir(argv[3]), parse_ll(argv[4], 1, 1048576), mode[4] == 'w');
    } else if (strcmp(mode, "rand-read") == 0 || strcmp(mode, "rand-write") == 0) {
        if (argc != 6 && argc != 7)
            osm_usage(USAGE);
        const char *engine = argc == 7 ? argv[6] : "auto";
        if (strcmp(engine, "auto") != 0 && strcmp(engine, "io_uring") != 0 &&
            strcmp(engine, "threads") != 0)
            osm_usage(USAGE);
        run_rand(n, want_dir(argv[3]), parse_ll(argv[4], 1, 1048576),
                 (int)parse_ll(argv[5], 1, MAX_QD), engine, mode[5] == 'w');
    } else if (strcmp(mode, "fsync") == 0) {
        if (argc != 6)
            osm_usage(USAGE);
        run_fsync(n, want_dir(argv[3]), (int)parse_ll(argv[4], 1, 100),
                  parse_ll(argv[5], 1, 1048576));
    } else if (strcmp(mode, "smallfiles") == 0) {
        if (argc != 6)
            osm_usage(USAGE);
        run_smallfiles(n, want_dir(argv[3]), parse_ll(argv[4], 1, 1000000),
                       (int)parse_ll(argv[5], 1, 100));
    } else {
        osm_usage(USAGE);
    }
    return 0;
}
