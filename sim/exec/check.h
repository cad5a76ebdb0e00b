/* check.h — what a run is checked against (`sim --run --check`, arenasim_plan_run): the reference run (the
 * same graph, schedule and layout, nothing shared, every buffer its own slot), outputs compared byte for
 * byte, and what an output holds (NaN and infinity counts, its range, whether it is degenerate). */
#ifndef SIM_EXEC_CHECK_H
#define SIM_EXEC_CHECK_H

#include "exec/exec.h"
#include "plan/plan.h"

typedef struct {
    AliasMap *aliases;
    Trace *t;
    Plan *plan;
    Executor *e;
} ExecReference;

/* The reference's executor, bound but not run (the caller sets inputs, then executor_run): `baseline` is
 * the no-reuse strategy (the registry's, handed down), `options` the executor's (NULL: the defaults). FALSE
 * with *error set; clear it either way. */
gboolean exec_reference_new(ExecReference *r, const Model *m, const GPtrArray *schedule, const LayoutOptions *layout,
                            const PlaceStrategy *baseline, const ExecOptions *options, ExecWeights *weights,
                            GError **error);
void exec_reference_clear(ExecReference *r);

/* What an output holds; degenerate: every element NaN, or one value everywhere, which a check cannot tell
 * from a right answer. */
typedef struct {
    gsize nan, inf, finite;
    double min, max;
    gboolean degenerate;
} ExecOutputStats;
ExecOutputStats exec_output_stats(const ExecTensor *x);

/* Every graph output of a equal to b's, byte for byte; the first difference is named. *elements: how many
 * were compared. */
gboolean exec_outputs_equal(const Executor *a, const Executor *b, gsize *elements, GError **error);

#endif
