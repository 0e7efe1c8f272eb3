/* Dhrystone 2.1 (R. P. Weicker, 1988), "register variables" variant.
 *
 * Shared declarations of the two translation units: dhry.c holds the main
 * loop and Proc_1..Proc_5, dhry_procs.c holds Proc_6..Proc_8 and
 * Func_1..Func_3. They stay separate so that, as in the original split
 * (dhry_1.c / dhry_2.c), nothing is inlined across them without LTO.
 *
 * REG is "register", as in UnixBench's dhry2reg (-DREG=register). It marks
 * exactly the variables that Dhrystone 2.1 declares with REG.
 */
#ifndef OSMARK_DHRY_H
#define OSMARK_DHRY_H

#include <string.h>

#ifndef REG
#define REG register
#endif

#define Dhry_False 0
#define Dhry_True 1

typedef enum { Ident_1, Ident_2, Ident_3, Ident_4, Ident_5 } Enumeration;

typedef int One_Thirty;
typedef int One_Fifty;
typedef char Capital_Letter;
typedef int Boolean;
typedef char Str_30[31];
typedef int Arr_1_Dim[50];
typedef int Arr_2_Dim[50][50];

typedef struct record {
    struct record *Ptr_Comp;
    Enumeration Discr;
    union {
        struct {
            Enumeration Enum_Comp;
            int Int_Comp;
            char Str_Comp[31];
        } var_1;
        struct {
            Enumeration E_Comp_2;
            char Str_2_Comp[31];
        } var_2;
        struct {
            char Ch_1_Comp;
            char Ch_2_Comp;
        } var_3;
    } variant;
} Rec_Type, *Rec_Pointer;

/* Global state, defined in dhry.c. */
extern Rec_Pointer Ptr_Glob;
extern Rec_Pointer Next_Ptr_Glob;
extern int Int_Glob;
extern Boolean Bool_Glob;
extern char Ch_1_Glob;
extern char Ch_2_Glob;
extern Arr_1_Dim Arr_1_Glob;
extern Arr_2_Dim Arr_2_Glob;

/* dhry_procs.c */
void Proc_6(Enumeration Enum_Val_Par, Enumeration *Enum_Ref_Par);
void Proc_7(One_Fifty Int_1_Par_Val, One_Fifty Int_2_Par_Val, One_Fifty *Int_Par_Ref);
void Proc_8(Arr_1_Dim Arr_1_Par_Ref, Arr_2_Dim Arr_2_Par_Ref, int Int_1_Par_Val,
            int Int_2_Par_Val);
Enumeration Func_1(Capital_Letter Ch_1_Par_Val, Capital_Letter Ch_2_Par_Val);
Boolean Func_2(Str_30 Str_1_Par_Ref, Str_30 Str_2_Par_Ref);
Boolean Func_3(Enumeration Enum_Par_Val);

#endif
