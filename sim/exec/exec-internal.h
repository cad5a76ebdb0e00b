/* exec-internal.h — the executor's state, shared by the three files that build and run it and by no other:
 * exec-prepare.c (prepare: the schedule's checks, the steps' folds and marks, the executor's life), exec-bind.c (bind:
 * every tensor to its bytes, weights and inputs filled) and exec-run.c (run: the steps in order, timed). */
#ifndef SIM_EXEC_INTERNAL_H
#define SIM_EXEC_INTERNAL_H

#include "exec/exec.h"
#include "exec/kernel.h"

/* A data-dependent step's last run-time inference (exec-run.c, runtime_shapes): the inputs' run-time dims and the
 * contents it read, as one key of bytes, and the output dims it gave. The same key gives the same dims (inference is a
 * function of them), so a step whose inputs' shapes and read contents did not change since the last run infers
 * nothing. */
typedef struct {
    guint8 *key, *next; /* the last inference's key; the one being built */
    gsize key_len, key_size, next_len, next_size;
    gint64 *out; /* each output's dims in turn (its rank in the plan), for those inference gave */
    gsize out_len, out_size;
    gboolean valid;
} ShapeMemo;

/* A data-dependent step on its library kernel (exec-run.c, library_fits): the dims of every tensor of the call its
 * prepared state was made for, and how many times the shapes changed. */
typedef struct {
    gint64 *dims;
    gsize len;
    guint remade;
} LibraryShapes;

struct Executor {
    const Graph *g;
    ExecOptions options;
    const char *model_dir; /* external data paths are relative to it */
    gint64 opset;
    const GPtrArray *schedule;
    const Trace *t;
    const Plan *plan;
    guint8 **arena;        /* per bin, 64-byte aligned */
    gboolean borrowed;     /* the arena is another's (executor_new_in): never poisoned whole, never freed here */
    GHashTable *held;      /* graph input names whose bytes are the arena's (not filled), or NULL */
    guint64 arena_bytes;
    ExecTensor *tensors;   /* per tensor id */
    guint8 **own;          /* per tensor id: memory of its own (outside the arena), or NULL */
    guint8 **source;       /* per tensor id: bytes copied in before every run (inputs, weights in the arena) */
    gboolean *view_of_input; /* per tensor id: a noop view of a tensor outside the arena, bound when it runs */
    GPtrArray **dying;     /* per step: trace buffer ids whose last step it is (poisoned after it) */
    double *seconds;       /* per step */
    KernelEpilogue *epilogue; /* per step: the next step's activation (.folds_as) folded into this one (fold_epilogues) */
    float *epilogue_lo, *epilogue_hi;
    const float **epilogue_bias; /* per step: a folded BiasGelu's bias values (its count in epilogue_bias_n) */
    gsize *epilogue_bias_n;
    gboolean *folded;      /* per step: folded into the step before; does not run */
    gboolean *fold_copy;   /* per folded step: copies its input (activated by the step before) to its output */
    gboolean *widened;     /* per step: runs on float32 copies of its 16-bit float tensors (run_widened) */
    float **wide_weights;  /* per tensor id: a 16-bit float weight's float32 copy, made at its first use, or NULL */
    float *wide_scratch;   /* the other float32 copies of a widened step, kept from step to step (grown as needed) */
    gsize wide_scratch_n;
    gboolean *dynamic;     /* per step: reads or writes data-dependent tensors (its shapes are inferred as it runs) */
    ShapeMemo *shape_memo; /* per step: its last run-time inference, what it read and what it gave (runtime_shapes) */
    const struct KernelRow **rows; /* per step: its op's kernel row, or NULL */
    guint *needs;          /* a guarded step s runs only when the tensors needs[needs_at[s] .. needs_at[s + 1]) (ids:
                              its bound inputs, unless its row reads what was computed, and its implicit inputs) were */
    gsize *needs_at;
    Value **run_values;    /* per tensor: its contents as the last run-time inference read them (runtime_shapes),
                              kept from step to step and run to run (NULL until one is read) */
    gboolean *once;        /* per step: computes constants into memory of its own: runs in the first run only (mark_once) */
    guint once_steps;
    gboolean *has_folded_on; /* per step: an output is the condition of an If folded at plan time (checked every run) */
    guint runs;            /* runs so far */
    gboolean guarded;      /* some step is guarded (an If's branch): steps run only when their guard and inputs say so */
    gboolean *computed;    /* per tensor id, while running a guarded schedule: computed (or given) in this run */
    KernelWorkspace *workspace; /* the kernels' temporaries, kept from step to step */
    KernelPrepared *prepared;   /* per step: what its library kernel keeps (KernelCall.prepared) */
    LibraryShapes *library_shapes; /* per data-dependent step: the shapes its library kernel was prepared for */
    guint blocked;              /* tensors laid out channel-blocked (exec/layout.h) */
    guint random_weights;
    ExecWeights *weights;  /* lends weights and constants (executor_new_sharing), or NULL; its copies in
                              own/source are the lender's, not freed here */
};

/* Weights and constants filled once, lent to every executor of one model: read-only while lent (kernels
 * never write a weight: in-place reuse only takes dying activations, and poison only arena buffers). */
struct ExecWeights {
    const Graph *g;
    guint8 **data;     /* per tensor id, or NULL */
    gboolean *random;  /* per tensor id: filled with pseudo-random values */
};

/* Whether t holds 16-bit floats (FLOAT16, BFLOAT16): its step runs on float32 copies. */
static inline gboolean is_16bit_float(const ExecTensor *t)
{
    return t && kernel_is_16bit_float(t->dtype);
}

/* Memory for --run: zeroed, aligned, from big_alloc; NULL with an error naming `what` when the system refuses. */
void *exec_alloc(guint64 bytes, const char *what, GError **error);
/* Binds every tensor of the graph to its bytes: arena tensors at their planned offsets, the rest (weights,
 * inputs outside the arena, tensors the plan left out) in memory of their own, filled. */
gboolean exec_bind(Executor *e, const AliasMap *m, GError **error);

#endif
