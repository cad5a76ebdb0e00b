/* run.h — `sim --run`: executes a plan with the executor (exec.h) --repeat times, reports the median
 * total time, per op type, and the arena it ran in; --profile writes the per-node table; --check runs the
 * same graph again with nothing shared (`--alias none`, `naive`: every tensor its own bytes) and requires
 * every graph output to be equal bit for bit, naming the first differing output and element otherwise;
 * --poison makes early reuse visible (exec.h). With --compare, every strategy's plan is run and checked
 * against one reference run (run_execute_each). */
#ifndef SIM_RUN_H
#define SIM_RUN_H

#include "exec/exec.h"
#include "report/report.h"

typedef struct {
    guint repeat;            /* runs; the report gives medians */
    guint threads;           /* the kernels' threads (exec_set_threads); 0 means 1 */
    ExecKernels kernels;     /* whose kernels run the ops a library has (exec_set_kernels) */
    ExecLayouts layouts;     /* how activations lie between oneDNN's kernels (exec_set_layouts) */
    gboolean winograd;       /* Winograd convolutions allowed (exec_set_winograd) */
    gboolean skinny;         /* the skinny products on our kernel (exec_set_skinny) */
    gboolean check, poison;
    const char *profile_path; /* per-node CSV, or NULL */
    ReportFormat format;
    double **node_seconds;   /* if not NULL: receives the median seconds per step (g_free it) */
    const GPtrArray *inputs; /* TensorData* for the graph inputs (zoo.h), or NULL: generated ones */
    const char *expect_dir, *dump_dir; /* --expect, --dump-outputs (zoo.h), or NULL */
    double rtol, atol;
    gboolean allow_degenerate; /* --check passes an output that is all NaN or one value everywhere */
} RunOptions;

/* The run's kernels and their threads (exec.h), set before anything runs: a pool the system cannot start is
 * one line before the plan's report, not after it. The count in force, 0 with an error. */
guint run_open_kernels(const RunOptions *o, GError **error);
gboolean run_execute(FILE *out, const RunOptions *o, const Model *m, const GPtrArray *schedule, const AliasMap *aliases,
                     const Trace *t, const Plan *plan, GError **error);
/* --compare --run: every plan (plans[k] by strategies[k]) run --repeat times, and with --check compared with
 * one reference run; a table of strategy, runs, median seconds, arena bytes and check (a plan whose outputs
 * differ gets the difference there, the rest still run, and the call fails with the first difference). A plan
 * that cannot run stops it; the error names its strategy. */
gboolean run_execute_each(FILE *out, const RunOptions *o, const Model *m, const GPtrArray *schedule,
                          const AliasMap *aliases, const Trace *t, const Plan *const *plans,
                          const PlaceStrategy *const *strategies, guint count, GError **error);

#endif
