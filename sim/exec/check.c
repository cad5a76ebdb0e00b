/* check.c — the reference run and the output comparisons (check.h). */
#include "exec/check.h"

#include "base/error.h"
#include "memory/pipeline.h"
#include "plan/place.h"

#include <math.h>
#include <string.h>

gboolean exec_reference_new(ExecReference *r, const Model *m, const GPtrArray *schedule, const LayoutOptions *layout,
                            const PlaceStrategy *baseline, const ExecOptions *options, ExecWeights *weights,
                            GError **error)
{
    memset(r, 0, sizeof *r);
    r->aliases = pipeline_alias_trace(m->graph, schedule, layout, NULL, NULL, &r->t, error); /* nothing shared */
    if (!r->aliases || !(r->plan = place_run(baseline, r->t, error)))
        return FALSE;
    r->e = executor_new_sharing(m, schedule, r->aliases, r->t, r->plan, options, weights, error);
    return r->e != NULL;
}

void exec_reference_clear(ExecReference *r)
{
    executor_free(r->e);
    plan_free(r->plan);
    trace_free(r->t);
    alias_map_free(r->aliases);
    memset(r, 0, sizeof *r);
}

ExecOutputStats exec_output_stats(const ExecTensor *x)
{
    ExecOutputStats st = {0, 0, 0, INFINITY, -INFINITY, FALSE};
    gboolean floats = dtype_is_float(x->dtype);
    for (gsize k = 0; k < x->count; k++) {
        double v = floats ? kernel_elem_get_f(x, k) : (double)kernel_elem_get_i(x, k);
        if (isnan(v))
            st.nan++;
        else if (isinf(v))
            st.inf++;
        else {
            st.finite++;
            st.min = MIN(st.min, v);
            st.max = MAX(st.max, v);
        }
    }
    st.degenerate = x->count > 1 && (st.nan == x->count || (st.finite == x->count && st.min == st.max));
    return st;
}

gboolean exec_outputs_equal(const Executor *a, const Executor *b, gsize *elements, GError **error)
{
    *elements = 0;
    for (guint k = 0; k < executor_output_count(a); k++) {
        const char *name;
        const ExecTensor *x = executor_output(a, k, &name), *y = executor_output(b, k, &name);
        gsize size = dtype_size(x->dtype);
        *elements += x->count;
        if (!x->count || !memcmp(x->data, y->data, x->count * size))
            continue;
        for (gsize j = 0; j < x->count; j++)
            if (memcmp((const char *)x->data + j * size, (const char *)y->data + j * size, size)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                            "--check: output '%s' differs from the reference run (nothing shared, naive) at element %"
                            G_GSIZE_FORMAT ": %.9g here, %.9g there", name, j, kernel_elem_get_f(x, j), kernel_elem_get_f(y, j));
                return FALSE;
            }
    }
    return TRUE;
}
