/* dhry: Dhrystone 2.1 (R. P. Weicker, 1988), register-variables variant, as
 * UnixBench's dhry2reg ("Dhrystone 2 using register variables").
 *
 *   dhry run N
 *
 * One op = one Dhrystone iteration: one pass of the Run_Index loop body
 * (Proc_5, Proc_4, the strcpy and Func_2, the Proc_7 loop, Proc_8, Proc_1,
 * the Func_1 loop with its Proc_6 branch, and the Proc_2/Proc_3 tail).
 * ops = N, so ops/seconds is UnixBench's "lps" figure.
 *
 * Timed region: only the N iterations. Allocating and initialising the two
 * records, the strings and the arrays happens before the start barrier;
 * checking Dhrystone's published final values happens after the second
 * clock read. Run_Index is volatile so that no compiler (LTO included, see
 * UnixBench #121) can delete or collapse the loop.
 *
 * N is limited to INT_MAX - 10: Arr_2_Glob[8][7] is an int that grows by one
 * per iteration (its final value must be N + 10).
 *
 * This file holds main and Proc_1..Proc_5 (dhry_1.c in the original);
 * dhry_procs.c holds the rest, in its own translation unit.
 */
#include "common.h"
#include "dhry.h"

#include <limits.h>

#define USAGE "dhry run ITERATIONS   (1 <= ITERATIONS <= INT_MAX - 10)"

Rec_Pointer Ptr_Glob;
Rec_Pointer Next_Ptr_Glob;
int Int_Glob;
Boolean Bool_Glob;
char Ch_1_Glob;
char Ch_2_Glob;
Arr_1_Dim Arr_1_Glob;
Arr_2_Dim Arr_2_Glob;

void Proc_1(REG Rec_Pointer Ptr_Val_Par);
void Proc_2(One_Fifty *Int_Par_Ref);
void Proc_3(Rec_Pointer *Ptr_Ref_Par);
void Proc_4(void);
void Proc_5(void);

void Proc_1(REG Rec_Pointer Ptr_Val_Par)
{
    REG Rec_Pointer Next_Record = Ptr_Val_Par->Ptr_Comp;

    *Ptr_Val_Par->Ptr_Comp = *Ptr_Glob; /* structure assignment */
    Ptr_Val_Par->variant.var_1.Int_Comp = 5;
    Next_Record->variant.var_1.Int_Comp = Ptr_Val_Par->variant.var_1.Int_Comp;
    Next_Record->Ptr_Comp = Ptr_Val_Par->Ptr_Comp;
    Proc_3(&Next_Record->Ptr_Comp);
    if (Next_Record->Discr == Ident_1) {
        Next_Record->variant.var_1.Int_Comp = 6;
        Proc_6(Ptr_Val_Par->variant.var_1.Enum_Comp, &Next_Record->variant.var_1.Enum_Comp);
        Next_Record->Ptr_Comp = Ptr_Glob->Ptr_Comp;
        Proc_7(Next_Record->variant.var_1.Int_Comp, 10, &Next_Record->variant.var_1.Int_Comp);
    } else {
        *Ptr_Val_Par = *Ptr_Val_Par->Ptr_Comp;
    }
}

void Proc_2(One_Fifty *Int_Par_Ref)
{
    One_Fifty Int_Loc;
    /* Dhrystone leaves Enum_Loc uninitialised (Ch_1_Glob is always 'A' here,
     * so the loop body sets it at once); the initialiser keeps every gcc
     * version free of -Wmaybe-uninitialized and changes no result. */
    Enumeration Enum_Loc = Ident_2;

    Int_Loc = *Int_Par_Ref + 10;
    do {
        if (Ch_1_Glob == 'A') {
            Int_Loc -= 1;
            *Int_Par_Ref = Int_Loc - Int_Glob;
            Enum_Loc = Ident_1;
        }
    } while (Enum_Loc != Ident_1);
}

void Proc_3(Rec_Pointer *Ptr_Ref_Par)
{
    if (Ptr_Glob != NULL)
        *Ptr_Ref_Par = Ptr_Glob->Ptr_Comp;
    Proc_7(10, Int_Glob, &Ptr_Glob->variant.var_1.Int_Comp);
}

void Proc_4(void)
{
    Boolean Bool_Loc;

    Bool_Loc = Ch_1_Glob == 'A';
    Bool_Glob = Bool_Loc | Bool_Glob;
    Ch_2_Glob = 'B';
}

void Proc_5(void)
{
    Ch_1_Glob = 'A';
    Bool_Glob = Dhry_False;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t len)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < len; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int bad;

static void expect_int(const char *what, long long got, long long want)
{
    if (got != want) {
        fprintf(stderr, "dhry: %s = %lld, expected %lld\n", what, got, want);
        bad = 1;
    }
}

static void expect_str(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "dhry: %s = \"%s\", expected \"%s\"\n", what, got, want);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    One_Fifty Int_1_Loc;
    REG One_Fifty Int_2_Loc;
    One_Fifty Int_3_Loc;
    REG char Ch_Index;
    Enumeration Enum_Loc;
    Str_30 Str_1_Loc;
    Str_30 Str_2_Loc;
    REG volatile long Run_Index;
    REG long Number_Of_Runs;

    long long n = osm_iterations(argc, argv, 3, USAGE);
    if (argc != 3 || strcmp(argv[1], "run") != 0 || n > INT_MAX - 10)
        osm_usage(USAGE);
    Number_Of_Runs = (long)n;

    /* Set-up (untimed). */
    Next_Ptr_Glob = malloc(sizeof(Rec_Type));
    Ptr_Glob = malloc(sizeof(Rec_Type));
    if (!Next_Ptr_Glob || !Ptr_Glob)
        osm_die("dhry: malloc");
    memset(Next_Ptr_Glob, 0, sizeof(Rec_Type));
    memset(Ptr_Glob, 0, sizeof(Rec_Type));

    Ptr_Glob->Ptr_Comp = Next_Ptr_Glob;
    Ptr_Glob->Discr = Ident_1;
    Ptr_Glob->variant.var_1.Enum_Comp = Ident_3;
    Ptr_Glob->variant.var_1.Int_Comp = 40;
    strcpy(Ptr_Glob->variant.var_1.Str_Comp, "DHRYSTONE PROGRAM, SOME STRING");
    strcpy(Str_1_Loc, "DHRYSTONE PROGRAM, 1'ST STRING");
    Arr_2_Glob[8][7] = 10;

    /* Values the loop always assigns before use; set so that the compiler
     * sees them initialised on every path. */
    Int_1_Loc = Int_2_Loc = Int_3_Loc = 0;
    Enum_Loc = Ident_1;
    Str_2_Loc[0] = '\0';

    osm_ready();
    uint64_t t0 = osm_now_ns();

    for (Run_Index = 1; Run_Index <= Number_Of_Runs; ++Run_Index) {
        Proc_5();
        Proc_4();
        /* Ch_1_Glob == 'A', Ch_2_Glob == 'B', Bool_Glob == true */
        Int_1_Loc = 2;
        Int_2_Loc = 3;
        strcpy(Str_2_Loc, "DHRYSTONE PROGRAM, 2'ND STRING");
        Enum_Loc = Ident_2;
        Bool_Glob = !Func_2(Str_1_Loc, Str_2_Loc);
        /* Bool_Glob == 1 */
        while (Int_1_Loc < Int_2_Loc) { /* loop body executed once */
            Int_3_Loc = 5 * Int_1_Loc - Int_2_Loc;
            /* Int_3_Loc == 7 */
            Proc_7(Int_1_Loc, Int_2_Loc, &Int_3_Loc);
            /* Int_3_Loc == 7 */
            Int_1_Loc += 1;
        }
        /* Int_1_Loc == 3, Int_2_Loc == 3, Int_3_Loc == 7 */
        Proc_8(Arr_1_Glob, Arr_2_Glob, Int_1_Loc, Int_3_Loc);
        /* Int_Glob == 5 */
        Proc_1(Ptr_Glob);
        for (Ch_Index = 'A'; Ch_Index <= Ch_2_Glob; ++Ch_Index) {
            /* loop body executed twice */
            if (Enum_Loc == Func_1(Ch_Index, 'C')) {
                /* then-part not executed */
                Proc_6(Ident_1, &Enum_Loc);
                strcpy(Str_2_Loc, "DHRYSTONE PROGRAM, 3'RD STRING");
                Int_2_Loc = (int)Run_Index;
                Int_Glob = (int)Run_Index;
            }
        }
        /* Int_1_Loc == 3, Int_2_Loc == 3, Int_3_Loc == 7 */
        Int_2_Loc = Int_2_Loc * Int_1_Loc;
        Int_1_Loc = Int_2_Loc / Int_3_Loc;
        Int_2_Loc = 7 * (Int_2_Loc - Int_3_Loc) - Int_1_Loc;
        /* Int_1_Loc == 1, Int_2_Loc == 13, Int_3_Loc == 7 */
        Proc_2(&Int_1_Loc);
        /* Int_1_Loc == 5 */
    }

    uint64_t t1 = osm_now_ns();

    /* Dhrystone 2.1's published final values ("should be" lines). */
    expect_int("Int_Glob", Int_Glob, 5);
    expect_int("Bool_Glob", Bool_Glob, 1);
    expect_int("Ch_1_Glob", Ch_1_Glob, 'A');
    expect_int("Ch_2_Glob", Ch_2_Glob, 'B');
    expect_int("Arr_1_Glob[8]", Arr_1_Glob[8], 7);
    expect_int("Arr_2_Glob[8][7]", Arr_2_Glob[8][7], (long long)Number_Of_Runs + 10);
    expect_int("Ptr_Glob->Discr", Ptr_Glob->Discr, 0);
    expect_int("Ptr_Glob->Enum_Comp", Ptr_Glob->variant.var_1.Enum_Comp, 2);
    expect_int("Ptr_Glob->Int_Comp", Ptr_Glob->variant.var_1.Int_Comp, 17);
    expect_str("Ptr_Glob->Str_Comp", Ptr_Glob->variant.var_1.Str_Comp,
               "DHRYSTONE PROGRAM, SOME STRING");
    expect_int("Next_Ptr_Glob->Discr", Next_Ptr_Glob->Discr, 0);
    expect_int("Next_Ptr_Glob->Enum_Comp", Next_Ptr_Glob->variant.var_1.Enum_Comp, 1);
    expect_int("Next_Ptr_Glob->Int_Comp", Next_Ptr_Glob->variant.var_1.Int_Comp, 18);
    expect_str("Next_Ptr_Glob->Str_Comp", Next_Ptr_Glob->variant.var_1.Str_Comp,
               "DHRYSTONE PROGRAM, SOME STRING");
    expect_int("Int_1_Loc", Int_1_Loc, 5);
    expect_int("Int_2_Loc", Int_2_Loc, 13);
    expect_int("Int_3_Loc", Int_3_Loc, 7);
    expect_int("Enum_Loc", Enum_Loc, 1);
    expect_str("Str_1_Loc", Str_1_Loc, "DHRYSTONE PROGRAM, 1'ST STRING");
    expect_str("Str_2_Loc", Str_2_Loc, "DHRYSTONE PROGRAM, 2'ND STRING");
    if (bad) {
        errno = 0;
        osm_die("dhry: wrong final values (the benchmark was miscompiled)");
    }

    /* check folds the globals and locals the loop produced. */
    uint64_t check = 1469598103934665603ull;
    check = fnv1a(check, Str_1_Loc, strlen(Str_1_Loc));
    check = fnv1a(check, Str_2_Loc, strlen(Str_2_Loc));
    check = check * 31 + (uint64_t)(int64_t)Int_Glob;
    check = check * 31 + (uint64_t)(int64_t)Arr_2_Glob[8][7];
    check = check * 31 + (uint64_t)(int64_t)Arr_1_Glob[8];
    check = check * 31 + (uint64_t)(int64_t)(Int_1_Loc + Int_2_Loc + Int_3_Loc);
    check = check * 31 + (uint64_t)(int64_t)Next_Ptr_Glob->variant.var_1.Int_Comp;
    osm_sink = check;

    free(Ptr_Glob);
    free(Next_Ptr_Glob);
    osm_report(n, t1 - t0, check, "");
    return 0;
}
