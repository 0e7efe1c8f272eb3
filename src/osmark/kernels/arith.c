/* arith: UnixBench's arithmetic tests (arith.c: arithoh, short, int, long,
 * float, double).
 *
 *   arith MODE N      MODE = arithoh | short | int | long | float | double
 *
 * One op = one call of the "dumb stuff" function for the mode's type:
 *     z = 0;
 *     for (i = 2; i <= 101; i++) { x = i; y = x * x; z += y / (y - 1); }
 * with x, y, z of that type (the sum of i*i/(i*i-1) for i = 2..101). For
 * arithoh the called function has an empty body, so it measures the call
 * and loop overhead only (what UnixBench's arithoh amounts to: its empty
 * i-loop is deleted by any optimising compiler).
 * ops = N.
 *
 * Timed region: only the N calls. Each function is noinline (and noipa on
 * gcc, so that interprocedural analysis cannot mark it const and hoist the
 * call out of the loop); the loop bounds 2 and 101 are read from volatiles
 * on every call so the sum cannot be folded at compile time; the call loop
 * counter is volatile and every result is added into a volatile accumulator.
 * This avoids the classic defect (UnixBench #10: gcc deleted the loop).
 *
 * check = the accumulated sum of the returned z values (integer types:
 * modulo 2^64; float types: rounded to an integer).
 */
#include "common.h"

#include <math.h>

#define USAGE "arith arithoh|short|int|long|float|double ITERATIONS"

#if defined(__GNUC__) && !defined(__clang__)
#define ARITH_NOINLINE __attribute__((noinline, noipa))
#else
#define ARITH_NOINLINE __attribute__((noinline))
#endif

/* Loop bounds, read on every call. */
static volatile int arith_first = 2;
static volatile int arith_last = 101;

/* One "dumb stuff" function per type. */
#define DEFINE_DUMB(NAME, TYPE)                                                                    \
    static ARITH_NOINLINE TYPE dumb_##NAME(void)                                                   \
    {                                                                                              \
        TYPE x, y, z = 0;                                                                          \
        int first = arith_first, last = arith_last;                                                \
        for (int i = first; i <= last; i++) {                                                      \
            x = (TYPE)i;                                                                           \
            y = (TYPE)(x * x);                                                                     \
            z = (TYPE)(z + y / (y - 1));                                                           \
        }                                                                                          \
        return z;                                                                                  \
    }

DEFINE_DUMB(short, short)
DEFINE_DUMB(int, int)
DEFINE_DUMB(long, long)
DEFINE_DUMB(float, float)
DEFINE_DUMB(double, double)

/* arithoh: the call with an empty body. */
static ARITH_NOINLINE int dumb_arithoh(void)
{
    return 0;
}

/* The timed loop for one type; ACC is the type of the volatile accumulator
 * (uint64_t for integer types so that wrap-around is defined, double for
 * floating types). */
#define DEFINE_RUN(NAME, ACC)                                                                      \
    static uint64_t run_##NAME(long long n, uint64_t *elapsed)                                     \
    {                                                                                              \
        volatile ACC acc = 0;                                                                      \
        volatile long long k;                                                                      \
        uint64_t t0 = osm_now_ns();                                                                \
        for (k = 0; k < n; k++)                                                                    \
            acc += (ACC)dumb_##NAME();                                                             \
        uint64_t t1 = osm_now_ns();                                                                \
        *elapsed = t1 - t0;                                                                        \
        return (uint64_t)(int64_t)llround((double)acc);                                            \
    }

/* Integer accumulators return the exact sum instead of going through double. */
#define DEFINE_RUN_INT(NAME)                                                                       \
    static uint64_t run_##NAME(long long n, uint64_t *elapsed)                                     \
    {                                                                                              \
        volatile uint64_t acc = 0;                                                                 \
        volatile long long k;                                                                      \
        uint64_t t0 = osm_now_ns();                                                                \
        for (k = 0; k < n; k++)                                                                    \
            acc += (uint64_t)(int64_t)dumb_##NAME();                                               \
        uint64_t t1 = osm_now_ns();                                                                \
        *elapsed = t1 - t0;                                                                        \
        return acc;                                                                                \
    }

DEFINE_RUN_INT(arithoh)
DEFINE_RUN_INT(short)
DEFINE_RUN_INT(int)
DEFINE_RUN_INT(long)
DEFINE_RUN(float, double)
DEFINE_RUN(double, double)

static const struct {
    const char *name;
    uint64_t (*run)(long long, uint64_t *);
} modes[] = {
    {"arithoh", run_arithoh}, {"short", run_short},   {"int", run_int},
    {"long", run_long},       {"float", run_float},   {"double", run_double},
};

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, USAGE);
    if (argc != 3)
        osm_usage(USAGE);

    uint64_t (*run)(long long, uint64_t *) = NULL;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        if (strcmp(argv[1], modes[m].name) == 0)
            run = modes[m].run;
    if (!run)
        osm_usage(USAGE);

    osm_ready();
    uint64_t elapsed = 0;
    uint64_t check = run(n, &elapsed);
    osm_sink = check;
    osm_report(n, elapsed, check, "");
    return 0;
}
