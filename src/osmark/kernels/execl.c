/* execl: how fast a process can replace its own image (UnixBench "Execl Throughput").
 *
 * Usage:  execl run ITERATIONS
 *
 * One op = one execl() of this program's own binary; the PID never changes.
 *
 * The first image does the set-up (finds its own path with readlink on
 * /proc/self/exe), waits at the start barrier (osm_ready), reads t0 and
 * then calls execl() on itself with the state in argv:
 *     execl chain REMAINING T0_NS TOTAL PID SELFPATH
 * Every chained image decrements REMAINING and calls execl() again; the
 * image that finds REMAINING == 0 reads the clock and reports ops = TOTAL.
 *
 * Timed region: from t0 (in the first image, just after the start signal)
 * to the clock read at the top of main() in the last image. It holds
 * exactly ITERATIONS execl() calls, each with the kernel's image teardown,
 * the load and dynamic linking of the new image, libc start-up and the few
 * argv conversions (plus one getpid() check) main() does before the next
 * execl(). Exit of the last
 * image and the result printing are outside it. CLOCK_MONOTONIC is
 * system-wide, so a t0 carried across exec is valid.
 *
 * Like UnixBench, the binary is made "not tiny" on purpose: an 8 KiB bss
 * array and a few kilobytes of code that is never called. Nothing of that
 * is touched on the hot path.
 */
#include "common.h"

#include <limits.h>
#include <sys/types.h>

/* ---- ballast: never touched, never called --------------------------- */

char osm_execl_bss[8 * 1024];

struct ballast_node {
    struct ballast_node *next;
    unsigned key;
    char name[24];
};

__attribute__((used, noinline)) static unsigned ballast_crc32(const unsigned char *p, size_t n)
{
    unsigned table[256];
    for (unsigned i = 0; i < 256; i++) {
        unsigned c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    unsigned crc = 0xFFFFFFFFu;
    while (n--)
        crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

__attribute__((used, noinline)) static void ballast_sort(int *a, size_t n)
{
    /* Shell sort with Knuth's gaps. */
    size_t gap = 1;
    while (gap < n / 3)
        gap = gap * 3 + 1;
    for (; gap > 0; gap /= 3) {
        for (size_t i = gap; i < n; i++) {
            int v = a[i];
            size_t j = i;
            while (j >= gap && a[j - gap] > v) {
                a[j] = a[j - gap];
                j -= gap;
            }
            a[j] = v;
        }
    }
}

/* A tiny recursive-descent evaluator for + - * / ( ) over integers. */
static long ballast_expr(const char **s);

static void ballast_skip(const char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
}

static long ballast_atom(const char **s)
{
    ballast_skip(s);
    if (**s == '(') {
        (*s)++;
        long v = ballast_expr(s);
        ballast_skip(s);
        if (**s == ')')
            (*s)++;
        return v;
    }
    if (**s == '-') {
        (*s)++;
        return -ballast_atom(s);
    }
    long v = 0;
    while (**s >= '0' && **s <= '9') {
        v = v * 10 + (**s - '0');
        (*s)++;
    }
    return v;
}

static long ballast_term(const char **s)
{
    long v = ballast_atom(s);
    for (;;) {
        ballast_skip(s);
        char op = **s;
        if (op != '*' && op != '/' && op != '%')
            return v;
        (*s)++;
        long r = ballast_atom(s);
        if (op == '*')
            v *= r;
        else if (r != 0)
            v = (op == '/') ? v / r : v % r;
    }
}

static long ballast_expr(const char **s)
{
    long v = ballast_term(s);
    for (;;) {
        ballast_skip(s);
        char op = **s;
        if (op != '+' && op != '-')
            return v;
        (*s)++;
        long r = ballast_term(s);
        v = (op == '+') ? v + r : v - r;
    }
}

__attribute__((used, noinline)) static long ballast_eval(const char *text)
{
    return ballast_expr(&text);
}

__attribute__((used, noinline)) static struct ballast_node *
ballast_insert(struct ballast_node *head, struct ballast_node *node)
{
    struct ballast_node **pp = &head;
    while (*pp && (*pp)->key < node->key)
        pp = &(*pp)->next;
    node->next = *pp;
    *pp = node;
    return head;
}

__attribute__((used, noinline)) static size_t ballast_base64(const unsigned char *in, size_t n,
                                                             char *out)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = (i + 1 < n) ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = (i + 2 < n) ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

__attribute__((used, noinline)) static int ballast_wordcount(const char *text, size_t *lines,
                                                             size_t *words, size_t *chars)
{
    int in_word = 0;
    *lines = *words = *chars = 0;
    for (; *text; text++) {
        (*chars)++;
        if (*text == '\n')
            (*lines)++;
        if (*text == ' ' || *text == '\n' || *text == '\t') {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            (*words)++;
        }
    }
    return (int)(*words & 0x7fffffff);
}

__attribute__((used, noinline)) static void ballast_matmul(const double *a, const double *b,
                                                           double *c, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

/* ---- the kernel ------------------------------------------------------ */

static const char usage_text[] = "execl run ITERATIONS";

/* Parses a non-negative decimal integer; -1 on error. */
static long long parse_count(const char *s)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < 0)
        return -1;
    return v;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end != '\0' || s[0] == '-')
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* A chained image: argv = execl chain REMAINING T0_NS TOTAL PID SELFPATH */
static int chain(int argc, char **argv)
{
    if (argc != 7)
        osm_usage(usage_text);
    long long remaining = parse_count(argv[2]);
    uint64_t t0, total, pid;
    if (remaining < 0 || parse_u64(argv[3], &t0) || parse_u64(argv[4], &total) ||
        parse_u64(argv[5], &pid) || total < 1 || (uint64_t)remaining >= total)
        osm_usage(usage_text);
    /* Only a chain started by "execl run" in this very process is valid. */
    if ((uint64_t)getpid() != pid)
        osm_usage(usage_text);

    if (remaining == 0) {
        uint64_t t1 = osm_now_ns();
        osm_sink = total;
        osm_report((long long)total, t1 - t0, osm_sink + pid, "");
        return 0;
    }

    char next[24];
    snprintf(next, sizeof next, "%lld", remaining - 1);
    execl(argv[6], argv[6], "chain", next, argv[3], argv[4], argv[5], argv[6], (char *)NULL);
    osm_die("execl: execl %s", argv[6]);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "chain") == 0)
        return chain(argc, argv);

    long long n = osm_iterations(argc, argv, 3, usage_text);
    if (argc != 3 || strcmp(argv[1], "run") != 0)
        osm_usage(usage_text);

    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len < 0)
        osm_die("execl: readlink /proc/self/exe");
    if ((size_t)len >= sizeof self - 1) {
        errno = 0;
        osm_die("execl: own path too long");
    }
    self[len] = '\0';
    if (access(self, X_OK) != 0)
        osm_die("execl: %s", self);

    char remaining[24], total[24], pid[24], t0s[24];
    snprintf(remaining, sizeof remaining, "%lld", n - 1);
    snprintf(total, sizeof total, "%lld", n);
    snprintf(pid, sizeof pid, "%llu", (unsigned long long)getpid());
    fflush(stdout);

    osm_ready();
    uint64_t t0 = osm_now_ns();
    snprintf(t0s, sizeof t0s, "%llu", (unsigned long long)t0);
    execl(self, self, "chain", remaining, t0s, total, pid, self, (char *)NULL);
    osm_die("execl: execl %s", self);
    return 1;
}
