/* run.h — a plan run by the executor (exec.h) in its own arena, --repeat times, and checked: the run driver and
 * its check policy, one for the command, the C API and Python. With `check` the same graph runs again with
 * nothing shared (`--alias none`, `naive`: every tensor its own bytes) and every graph output must equal it bit
 * for bit (the first differing output and element are named); `poison` makes early reuse visible (exec.h); and a
 * check never passes outputs it cannot tell from a right answer (NaN or one value everywhere, or every output
 * empty) unless they are allowed. Inputs, expected outputs and dumps are in the model zoo's layout (zoo.h).
 * Results are data; the front ends print them. */
#ifndef SIM_DRIVER_RUN_H
#define SIM_DRIVER_RUN_H

#include "driver/zoo.h"
#include "exec/check.h"
#include "exec/exec.h"
#include "plan/place.h"

typedef struct {
    guint repeat;            /* runs; the results give medians; 0 means 1 */
    guint threads;           /* the kernels' threads, the process's pool (exec_set_threads); 0 means 1 */
    ExecOptions exec;        /* the executors' kernels, layouts, Winograd and skinny choices (exec.h) */
    gboolean check, poison;
    const GPtrArray *inputs; /* TensorData* for the graph inputs (zoo.h), or NULL: generated ones */
    const char *expect_dir, *dump_dir; /* --expect, --dump-outputs (zoo.h), or NULL */
    double rtol, atol;
    gboolean allow_degenerate; /* a check passes outputs that are all NaN, one value everywhere or all empty */
} RunOptions;

/* The defaults, as `sim --run` has them: one run on one thread, oneDNN's kernels in blocked layouts, Winograd and
 * the skinny kernel allowed, no check, and the tolerance of --expect: rtol 1e-3 (the ONNX backend tests') and
 * atol 1e-5 (torch.testing's for float32). */
void run_options_init(RunOptions *o);

/* The executor's choices by the names the command's flags and the API's fields give them (NULL: leave it):
 * kernels "onednn" or "own", layouts "blocked" or "plain", winograd and skinny "auto" or "off". FALSE with a
 * usage error naming the choice without its dashes ("kernels takes onednn or own"). */
gboolean run_exec_choices(ExecOptions *out, const char *kernels, const char *layouts, const char *winograd,
                          const char *skinny, GError **error);

/* One op type's share of a run. */
typedef struct {
    const char *op;
    double seconds;          /* the sum of its steps' medians */
    guint nodes;
    guint library_nodes;     /* run by a library's kernels (ExecOptions.kernels) */
    guint64 prepared_bytes;  /* the weights it packed for them */
} RunOpTime;

/* A graph output as the run left it. */
typedef struct {
    const char *name;        /* the graph's; lives as long as the model */
    DType dtype;
    gsize count;
    ExecOutputStats stats;
} RunOutput;

typedef struct {
    guint repeat, threads, steps;
    double median_seconds;   /* a whole run's */
    double *node_seconds;    /* each step's median (steps of them) */
    GArray *ops;             /* RunOpTime per op type, the slowest first */
    const char *library;     /* the library whose kernels ran steps, or NULL */
    guint library_nodes, winograd_nodes, winograd_f4, skinny_nodes;
    guint folded, folded_copies; /* steps run inside the kernel before them, and of those copied out */
    guint once_steps, blocked_tensors, random_weights;
    guint64 arena_bytes, prepared_bytes;
    GArray *outputs;         /* RunOutput: set once the run (and its check and expect) passed, also when the
                                check policy then refused them (NULL before) */
    gsize checked_elements;  /* with check: the elements compared with the reference */
    ZooExpect expect;        /* with expect_dir: how far off the outputs were */
} RunOutcome;

/* --compare --run: one plan's row. */
typedef struct {
    const char *strategy;
    double median_seconds;
    guint64 arena_bytes;
    char *check;             /* "bit for bit", "not checked", the difference, or "... (X's plan)" */
} RunEachRow;

typedef struct {
    guint repeat, threads;
    GArray *reference;       /* RunOutput of the reference run (with check), or NULL */
    RunEachRow *rows;        /* one per plan, once every plan ran */
    guint count;
} RunEachOutcome;

/* The run's kernels and their threads (exec.h), set before anything runs: a pool the system cannot start is
 * one line before a front end reports the plan, not after it. The count in force, 0 with an error. */
guint run_open_kernels(const RunOptions *o, GError **error);

/* Runs the plan `repeat` times, checks it (as above), compares with expect_dir and writes dump_dir; *r is the
 * caller's to clear (run_outcome_clear), filled as far as the run went. */
gboolean run_plan(const RunOptions *o, const Model *m, const GPtrArray *schedule, const AliasMap *aliases,
                  const Trace *t, const Plan *plan, RunOutcome *r, GError **error);
void run_outcome_clear(RunOutcome *r);

/* --compare --run: every plan (plans[k] by strategies[k]) run `repeat` times, and with check compared with one
 * reference run made once for all of them. A plan identical to an earlier one is not run again: its row
 * repeats that one's figures, and its check says whose plan it is. A plan whose outputs differ gets the
 * difference in its row, the rest still run, and the call fails with the first difference; a plan that cannot
 * run stops it (the error names its strategy). */
gboolean run_plans(const RunOptions *o, const Model *m, const GPtrArray *schedule, const AliasMap *aliases,
                   const Trace *t, const Plan *const *plans, const PlaceStrategy *const *strategies, guint count,
                   RunEachOutcome *r, GError **error);
void run_each_outcome_clear(RunEachOutcome *r);

#endif
