/* exec.h — the executor: runs a graph's nodes in the schedule's order with real kernels (sim/exec/kernels/)
 * inside one planned arena. Every tensor the trace placed is bound to its plan offset (through the alias
 * map: views, in-place outputs and concat/split layouts share bytes exactly as planned); weights,
 * constants and the caller's inputs/outputs outside the arena get their own memory. Weight values come
 * from the file (raw or typed initializer data, external data next to the model, Constant values); an
 * initializer without data (the
 * corpus's torch exports keep shapes only) gets deterministic pseudo-random values, and the count is
 * reported. Inputs are deterministic and follow the graph: floats uniform in [-1, 1); integer ids that
 * index a table (a Gather's indices) inside it; masks ones with their last quarter zeros; positions counting
 * up; other integers zero.
 * With `poison`, the arena is filled with 0xFF bytes (a NaN pattern) before the run and every buffer
 * when it dies, so a plan that reuses memory too early changes the outputs instead of passing by luck. */
#ifndef SIM_EXEC_H
#define SIM_EXEC_H

#include "memory/alias.h"
#include "exec/kernel.h"
#include "plan/plan.h"

typedef struct Executor Executor;
/* Weights and constants filled once and lent to several executors of the same model (--compare --run: one
 * fill for every plan, not one each). Free it after the executors it lent to. */
typedef struct ExecWeights ExecWeights;
ExecWeights *exec_weights_new(const Model *m);
void exec_weights_free(ExecWeights *w);

/* Which kernels run the ops a library has (exec/onednn.h: Conv, MatMul, Gemm and their fused forms): oneDNN's
 * (the default), or our own everywhere. The other ops always run on our own kernels. */
typedef enum { EXEC_KERNELS_ONEDNN, EXEC_KERNELS_OWN } ExecKernels;
/* How activations lie between oneDNN's kernels (exec/layout.h): channel-blocked where every kernel that writes
 * and reads one takes that layout (the default), or row-major everywhere, each blocked convolution reordering
 * its input and output. */
typedef enum { EXEC_LAYOUTS_BLOCKED, EXEC_LAYOUTS_PLAIN } ExecLayouts;

/* An executor's choices, its own (two executors with different options run side by side in one process). */
typedef struct {
    ExecKernels kernels;
    ExecLayouts layouts;
    gboolean winograd;  /* oneDNN's 3 x 3 stride-1 convolutions may use Winograd's minimal filtering where it is
                           the faster (exec/kernels/onednn.c says where); else all run direct */
    gboolean skinny;    /* the products of at most 16 rows over constant weights (MatMul, FusedMatMul and Gemm at a
                           short sequence, a classifier's head) run on our own kernel over the weights packed once
                           in 16-column panels (exec/kernels/skinny.h; on CPUs with AVX-512 or AVX2), else on
                           oneDNN's. Both choices depend on shapes only, so a run and its check reference agree. */
} ExecOptions;
#define EXEC_OPTIONS_DEFAULTS {EXEC_KERNELS_ONEDNN, EXEC_LAYOUTS_BLOCKED, TRUE, TRUE}

/* Whether the executor can run every step of the schedule: a kernel for each op (or outputs folded at plan time)
 * that takes its inputs as planned (kernel_row_check), and the bytes all steps read and write together within
 * the run's total (2^38, or ARENASIM_RUN_WORK=BYTES). executor_new asks it too; a front end asks before it
 * reports a plan it will run. */
gboolean exec_check_schedule(const GPtrArray *schedule, GError **error);
/* Binds every tensor; fails (naming the node) when exec_check_schedule does, when the layout pads tensors (the
 * kernels assume dense row-major tensors: --pad-last 1), or when the arena does not fit the run's memory. */
Executor *executor_new(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                       const Plan *plan, GError **error);
/* The same with these options (NULL: the defaults), its weights and constants borrowed from (or filled into,
 * then lent by) `weights` (or NULL: its own). executor_new is this with the defaults and its own weights. */
Executor *executor_new_sharing(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                               const Plan *plan, const ExecOptions *options, ExecWeights *weights, GError **error);
/* An executor bound into an arena it does not hold (`arena`: per bin of the plan, at least its bytes, borrowed): entry
 * points run one after another against the same state (driver/generate.h). The arena is never poisoned whole (only
 * dying buffers, with `poison`), and the graph inputs named in `held` (or NULL) are not filled: their bytes are
 * the arena's (a KV cache's past, left there by the entry before). */
Executor *executor_new_in(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                          const Plan *plan, const ExecOptions *options, guint8 *const *arena, GHashTable *held,
                          GError **error);
/* Memory for a plan's arena that executors borrow (executor_new_in): per bin, zeroed; NULL with an error when the
 * system refuses. exec_arena_free frees it (bins: the plan's). */
guint8 **exec_arena_new(const Plan *plan, GError **error);
void exec_arena_free(guint8 **arena, guint bins);
/* The values a graph input takes in every run from now on (instead of pseudo-random ones): raw bytes of
 * its dtype and element count. */
gboolean executor_set_input(Executor *e, const char *name, const TensorData *d, GError **error);
/* One run over the schedule; node k's time goes to executor_node_seconds. */
gboolean executor_run(Executor *e, gboolean poison, GError **error);
double executor_node_seconds(const Executor *e, guint step);
guint executor_output_count(const Executor *e);
const ExecTensor *executor_output(const Executor *e, guint k, const char **name);
/* Steps that compute constants (--fuse's constant-fold) into memory of the executor's own: they run in its
 * first run only, as ONNX Runtime computes them once when its session starts. */
guint executor_once_steps(const Executor *e);
/* Initializers that had no data and got pseudo-random values. */
guint executor_random_weights(const Executor *e);
/* Steps folded into the step before them (an activation the op table lets fold, applied by the Conv or Add that
 * writes its input); *copies (if not NULL): how many of them copy that input to their own output, not in place. */
guint executor_folded_steps(const Executor *e, guint *copies);
/* How many of its tensors lie channel-blocked (ExecOptions.layouts). */
guint executor_blocked_tensors(const Executor *e);
guint64 executor_arena_bytes(const Executor *e);
/* Memory the executor holds of its own beyond the arena and the weights' own copies: weights packed for a
 * library's kernels (as ONNX Runtime reports its prepacked weights). */
guint64 executor_prepared_bytes(const Executor *e);
/* The library that ran step `step` ("oneDNN 2.6.3"), or NULL when our own kernel did (or it has not run);
 * *bytes (if not NULL): the weights it packed for that step. */
const char *executor_step_library(const Executor *e, guint step, guint64 *bytes);
/* The algorithm that library chose for step `step` where it has several ("Winograd F(4x4,3x3)":
 * ExecOptions.winograd), NULL for its only or direct one. */
const char *executor_step_algorithm(const Executor *e, guint step);
void executor_free(Executor *e);
/* The threads the kernels may use from now on, in one pool: oneDNN's OpenMP team with oneDNN's kernels
 * (OpenBLAS then runs on the calling thread), else OpenBLAS's; our own kernels run on the calling thread. The
 * pool is the process's (the libraries hold it), the one setting here that is not an executor's. Opens OpenBLAS
 * (exec/blas.h) and oneDNN if they are not yet; returns the count in force, 0 with an error when one cannot be
 * loaded or the system will not start the threads. One thread unless this says otherwise: OPENBLAS_NUM_THREADS
 * does not decide it. */
guint exec_set_threads(guint n, ExecKernels kernels, GError **error);

#endif
