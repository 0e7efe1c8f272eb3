/* whetstone: double-precision Whetstone (Curnow and Wichmann, 1972), in the
 * structure of Roy Longbottom's C version (1996) that UnixBench builds as
 * whetstone-double (whets.c -DDP).
 *
 *   whetstone run N
 *
 * One op = one pass of the eight modules with x100 = 100 (xtra = 1 in
 * whets.c terms). Loop counts per pass, with their module in whets.c:
 *   N1  n1 = 12*x100                              array elements, 4 statements
 *   N2  n2 = 14*x100                              array as parameter (pa: 6 x 4 statements)
 *   N3  n3 = 345*x100                             conditional jumps
 *   N4  n4 = 210*x100                             integer arithmetic
 *   N5  n5 = 32*x100 (i runs 1..n5-1)             trig functions (sin, cos, atan)
 *   N6  n6 = 899*x100                             procedure calls (p3)
 *   N7  n7 = 616*x100                             array references (po)
 *   N8  n8 = 93*x100                              standard functions (sqrt, exp, log)
 * One pass is credited as x100 * 100000 = 10 million Whetstone instructions,
 * so the Python side computes
 *     MWIPS = 10 * ops / seconds
 * (whets.c: MWIPS = xtra * x100 / (10 * TimeUsed) with x100 = 100).
 *
 * Timed region: only the N passes. As with xtra in whets.c, each module runs
 * its N repetitions before the next module starts; one pair of clock reads
 * brackets all eight modules.
 *
 * One difference from UnixBench's build, which makes this kernel's MWIPS
 * lower than whets.c's on the same machine (about 5 %, gcc 12 on AMD EPYC):
 * N4 starts from j, k, l = 1, 2, 3 read through a volatile. With literal
 * starting values gcc proves that j, k, l never change and deletes the
 * module, as it does in UnixBench's build; here the work really runs.
 * (whets.c runs N1 ten times for timer resolution and credits its time once;
 * with one clock pair around the whole pass, N1 simply runs once here.)
 *
 * check = the sum of the eight module results (whets.c's Check), times 1e6,
 * as a two's-complement integer. A non-finite result is a runtime failure.
 */
#include "common.h"

#include <limits.h>
#include <math.h>

#define USAGE "whetstone run ITERATIONS"

/* Starting values of module N4, opaque to the optimiser. */
static volatile long whet_jkl[3] = {1, 2, 3};

static void pa(double e[4], double t, double t2)
{
    for (long j = 0; j < 6; j++) {
        e[0] = (e[0] + e[1] + e[2] - e[3]) * t;
        e[1] = (e[0] + e[1] - e[2] + e[3]) * t;
        e[2] = (e[0] - e[1] + e[2] + e[3]) * t;
        e[3] = (-e[0] + e[1] + e[2] + e[3]) / t2;
    }
}

static void po(double e1[4], long j, long k, long l)
{
    e1[j] = e1[k];
    e1[k] = e1[l];
    e1[l] = e1[j];
}

static void p3(double *x, double *y, double *z, double t, double t1, double t2)
{
    *x = *y;
    *y = *z;
    *x = t * (*x + *y);
    *y = t1 * (*x + *y);
    *z = (*x + *y) / t2;
}

/* Runs xtra passes, module by module; returns the sum of the module
 * results (whets.c's Check) and stores each module's result in res[1..8]. */
static double whetstones(long xtra, long x100, double res[9])
{
    const long n1 = 12 * x100;
    const long n2 = 14 * x100;
    const long n3 = 345 * x100;
    const long n4 = 210 * x100;
    const long n5 = 32 * x100;
    const long n6 = 899 * x100;
    const long n7 = 616 * x100;
    const long n8 = 93 * x100;

    const double t0 = 0.49999975;
    const double t1 = 0.50000025;
    const double t2 = 2.0;
    double t = t0;

    double e1[4], x, y, z;
    long i, j, k, l;
    volatile long ix; /* the pass counter: cannot be collapsed */

    /* N1: array elements */
    e1[0] = 1.0;
    e1[1] = -1.0;
    e1[2] = -1.0;
    e1[3] = -1.0;
    for (ix = 0; ix < xtra; ix++) {
        for (i = 0; i < n1; i++) {
            e1[0] = (e1[0] + e1[1] + e1[2] - e1[3]) * t;
            e1[1] = (e1[0] + e1[1] - e1[2] + e1[3]) * t;
            e1[2] = (e1[0] - e1[1] + e1[2] + e1[3]) * t;
            e1[3] = (-e1[0] + e1[1] + e1[2] + e1[3]) * t;
        }
        t = 1.0 - t;
    }
    t = t0;
    res[1] = e1[3];

    /* N2: array as parameter */
    for (ix = 0; ix < xtra; ix++) {
        for (i = 0; i < n2; i++)
            pa(e1, t, t2);
        t = 1.0 - t;
    }
    t = t0;
    res[2] = e1[3];

    /* N3: conditional jumps */
    j = 1;
    for (ix = 0; ix < xtra; ix++) {
        for (i = 0; i < n3; i++) {
            if (j == 1)
                j = 2;
            else
                j = 3;
            if (j > 2)
                j = 0;
            else
                j = 1;
            if (j < 1)
                j = 1;
            else
                j = 0;
        }
    }
    res[3] = (double)j;

    /* N4: integer arithmetic. j, k, l start at 1, 2, 3 as in whets.c, but
     * read through a volatile: with literal starting values gcc's constant
     * propagation proves j, k, l never change and deletes the whole module
     * (which is what UnixBench's own build gets). */
    j = whet_jkl[0];
    k = whet_jkl[1];
    l = whet_jkl[2];
    for (ix = 0; ix < xtra; ix++) {
        for (i = 0; i < n4; i++) {
            j = j * (k - j) * (l - k);
            k = l * k - (l - j) * k;
            l = (l - k) * (k + j);
            e1[l - 2] = (double)(j + k + l);
            e1[k - 2] = (double)(j * k * l);
        }
    }
    res[4] = e1[0] + e1[1];

    /* N5: trig functions */
    x = 0.5;
    y = 0.5;
    for (ix = 0; ix < xtra; ix++) {
        for (i = 1; i < n5; i++) {
            x = t * atan(t2 * sin(x) * cos(x) / (cos(x + y) + cos(x - y) - 1.0));
            y = t * atan(t2 * sin(y) * cos(y) / (cos(x + y) + cos(x - y) - 1.0));
        }
        t = 1.0 - t;
    }
    t = t0;
    res[5] = y;

    /* N6: procedure calls */
    x = 1.0;
    y = 1.0;
    z = 1.0;
    for (ix = 0; ix < xtra; ix++) {
        for (i = 0; i < n6; i++)
            p3(&x, &y, &z, t, t1, t2);
    }
    res[6] = z;

    /* N7: array references */
    j = 0;
    k = 1;
    l = 2;
    e1[0] = 1.0;
    e1[1] = 2.0;
    e1[2] = 3.0;
    for (ix = 0; ix < xtra; ix++) {
        for (i = 0; i < n7; i++)
            po(e1, j, k, l);
    }
    res[7] = e1[2];

    /* N8: standard functions */
    x = 0.75;
    for (ix = 0; ix < xtra; ix++) {
        for (i = 0; i < n8; i++)
            x = sqrt(exp(log(x) / t1));
    }
    res[8] = x;

    double sum = 0.0;
    for (int s = 1; s <= 8; s++)
        sum += res[s];
    return sum;
}

/* -ffast-math makes isfinite() unreliable, so look at the exponent bits. */
static int finite_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return ((b >> 52) & 0x7ff) != 0x7ff;
}

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, USAGE);
    if (argc != 3 || strcmp(argv[1], "run") != 0 || n > LONG_MAX)
        osm_usage(USAGE);

    double res[9] = {0};

    osm_ready();
    uint64_t t0 = osm_now_ns();
    double sum = whetstones((long)n, 100, res);
    uint64_t t1 = osm_now_ns();

    for (int s = 1; s <= 8; s++) {
        if (!finite_bits(res[s])) {
            errno = 0;
            osm_die("whetstone: module N%d gave a non-finite result", s);
        }
    }
    double scaled = sum * 1e6;
    if (!finite_bits(scaled) || fabs(scaled) > 9.0e18) {
        errno = 0;
        osm_die("whetstone: check out of range");
    }
    uint64_t check = (uint64_t)(int64_t)llround(scaled);
    osm_sink = check;
    osm_report(n, t1 - t0, check, "");
    return 0;
}
