/* run.c — a plan run, timed and checked, its results as data (see run.h). */
#include "driver/run.h"
#include "memory/pipeline.h"
#include "ops/ops.h"
#include "strategies/registry.h"

#include <math.h>
#include <string.h>

static gint compare_doubles(gconstpointer a, gconstpointer b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, guint n)
{
    qsort(v, n, sizeof(double), (int (*)(const void *, const void *))compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The reference run, with the run's executor options and the data set's inputs when given (exec/check.h). */
static gboolean reference_run(ExecReference *r, const RunOptions *o, const Model *m, const GPtrArray *schedule,
                              const LayoutOptions *layout, ExecWeights *weights, GError **error)
{
    return exec_reference_new(r, m, schedule, layout, registry_place_baseline(), &o->exec, weights, error) &&
           (!o->inputs || zoo_set_inputs(r->e, m, o->inputs, error)) && executor_run(r->e, o->poison, error);
}

/* The executor's outputs as data, then the check policy: with check, an output a check cannot tell from a right
 * answer (NaN or one value everywhere), or every output empty, is an error unless allowed. */
static gboolean take_outputs(const RunOptions *o, const Executor *e, GArray **outputs, GError **error)
{
    *outputs = g_array_new(FALSE, FALSE, sizeof(RunOutput));
    gboolean ok = TRUE;
    gsize elements = 0;
    for (guint k = 0; k < executor_output_count(e); k++) {
        RunOutput y;
        const ExecTensor *x = executor_output(e, k, &y.name);
        y.dtype = x->dtype;
        y.count = x->count;
        y.stats = exec_output_stats(x);
        g_array_append_val(*outputs, y);
        if (ok && y.stats.degenerate && o->check && !o->allow_degenerate) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "--check: output '%s' is %s, which a check cannot tell from "
                        "a right answer: give inputs that exercise the model (--inputs), or --allow-degenerate", y.name,
                        y.stats.nan == x->count ? "NaN everywhere" : "one value everywhere");
            ok = FALSE;
        }
        elements += x->count;
    }
    /* data-dependent outputs may all come out empty (a detector that finds nothing): nothing was checked */
    if (ok && !elements && executor_output_count(e) && o->check && !o->allow_degenerate) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "--check: every output is empty, which a check cannot tell from "
                    "a right answer: give inputs that exercise the model (--inputs), or --allow-degenerate");
        ok = FALSE;
    }
    return ok;
}

static gint by_time(gconstpointer a, gconstpointer b)
{
    const RunOpTime *x = a, *y = b;
    return x->seconds > y->seconds ? -1 : x->seconds < y->seconds ? 1 : strcmp(x->op, y->op);
}

/* A Transpose sharing its input's bytes (the seeds' metadata-only Transpose) is honoured by the executor
 * only when nothing reads those bytes afterwards; name the first such node when a check fails. */
static void hint_transpose_views(const GPtrArray *schedule, const AliasMap *aliases, GError **error)
{
    if (!error || !*error || aliases->layout.transpose_moves)
        return;
    for (guint s = 0; s < schedule->len; s++) {
        const Node *n = schedule->pdata[s];
        const Tensor *y = node_output(n, 0);
        if (n->op && n->op->moves_data && y && aliases->link[y->id].parent >= 0) {
            char *msg = g_strdup_printf("%s (node %s shares its input's bytes as a metadata view, as the seeds plan "
                                        "Transpose; a dense kernel moves the data: plan with --transpose move)",
                                        (*error)->message, n->label);
            g_free((*error)->message);
            (*error)->message = msg;
            return;
        }
    }
}

/* Runs e `repeat` times: totals[r] gets run r's seconds (the sum of its steps'), per_node (when not NULL)
 * [s * repeat + r] step s's. */
static gboolean run_timed(Executor *e, guint repeat, guint steps, gboolean poison, double *totals, double *per_node,
                          GError **error)
{
    for (guint r = 0; r < repeat; r++) {
        if (!executor_run(e, poison, error))
            return FALSE;
        totals[r] = 0;
        for (guint s = 0; s < steps; s++) {
            if (per_node)
                per_node[(gsize)s * repeat + r] = executor_node_seconds(e, s);
            totals[r] += executor_node_seconds(e, s);
        }
    }
    return TRUE;
}

/* An earlier plan of the list with every buffer at the same offset (the arena compared first, as a quick
 * filter), or -1: strategies often agree, and one plan runs the same however many strategies found it. */
static gint same_plan_before(const Plan *const *plans, guint k, guint buffers)
{
    for (guint j = 0; j < k; j++)
        if (plans[j]->arena == plans[k]->arena &&
            (buffers == 0 || memcmp(plans[j]->offsets, plans[k]->offsets, buffers * sizeof(guint64)) == 0))
            return (gint)j;
    return -1;
}

void run_options_init(RunOptions *o)
{
    /* rtol: the ONNX backend tests' (onnx/backend/test/case: 1e-3); atol: torch.testing's for float32 (1e-5), as
     * float32 reassociation leaves errors near the output's ulp on its elements near 0 (1e-6 on outputs of
     * magnitude 1-40: the backend tests' 1e-7 refused correct runs of convnext and a diffusion UNet) */
    *o = (RunOptions){.repeat = 1, .threads = 1, .exec = EXEC_OPTIONS_DEFAULTS, .rtol = 1e-3, .atol = 1e-5};
}

/* Which of two names `value` is: 0 or 1; -1 (with the usage error "WHAT takes A or B") when neither. */
static int one_of_two(const char *value, const char *what, const char *a, const char *b, GError **error)
{
    if (!strcmp(value, a) || !strcmp(value, b))
        return strcmp(value, a) != 0;
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s takes %s or %s", what, a, b);
    return -1;
}

gboolean run_exec_choices(ExecOptions *out, const char *kernels, const char *layouts, const char *winograd,
                          const char *skinny, GError **error)
{
    int k = kernels ? one_of_two(kernels, "kernels", "onednn", "own", error) : 0;
    int l = k >= 0 && layouts ? one_of_two(layouts, "layouts", "blocked", "plain", error) : 0;
    int w = k >= 0 && l >= 0 && winograd ? one_of_two(winograd, "winograd", "auto", "off", error) : 0;
    int s = k >= 0 && l >= 0 && w >= 0 && skinny ? one_of_two(skinny, "skinny", "auto", "off", error) : 0;
    if (k < 0 || l < 0 || w < 0 || s < 0)
        return FALSE;
    if (kernels)
        out->kernels = k ? EXEC_KERNELS_OWN : EXEC_KERNELS_ONEDNN;
    if (layouts)
        out->layouts = l ? EXEC_LAYOUTS_PLAIN : EXEC_LAYOUTS_BLOCKED;
    if (winograd)
        out->winograd = !w;
    if (skinny)
        out->skinny = !s;
    return TRUE;
}

guint run_open_kernels(const RunOptions *o, GError **error)
{
    return exec_set_threads(MAX(o->threads, 1), o->exec.kernels, error);
}


gboolean run_plans(const RunOptions *o, const Model *m, const GPtrArray *schedule, const AliasMap *aliases,
                   const Trace *t, const Plan *const *plans, const PlaceStrategy *const *strategies, guint count,
                   RunEachOutcome *r, GError **error)
{
    memset(r, 0, sizeof *r);
    guint threads = run_open_kernels(o, error);
    guint repeat = MAX(o->repeat, 1), steps = schedule->len;
    if (!threads)
        return FALSE;
    r->repeat = repeat;
    r->threads = threads;
    ExecReference ref = {0};
    ExecWeights *weights = exec_weights_new(m); /* filled once for the reference and every plan */
    gboolean ok = !o->check || reference_run(&ref, o, m, schedule, &aliases->layout, weights, error);
    if (ok && o->check)
        ok = take_outputs(o, ref.e, &r->reference, error);
    RunEachRow *rows = g_new0(RunEachRow, count + 1);
    double *totals = g_new0(double, repeat + 1);
    const char *checked = !o->check ? "not checked" : o->poison ? "bit for bit, with poison" : "bit for bit";
    GError *first_difference = NULL; /* a plan whose outputs differ: the others still run, then this fails */
    for (guint k = 0; ok && k < count; k++) {
        gint same = same_plan_before(plans, k, trace_count(t));
        if (same >= 0) {
            rows[k] = rows[same];
            rows[k].strategy = strategies[k]->name;
            rows[k].check = g_strdup_printf("%s (%s's plan)", rows[same].check, strategies[same]->name);
            continue;
        }
        Executor *e = executor_new_sharing(m, schedule, aliases, t, plans[k], &o->exec, weights, error);
        ok = e && (!o->inputs || zoo_set_inputs(e, m, o->inputs, error)) &&
             run_timed(e, repeat, steps, o->poison, totals, NULL, error);
        gsize elements = 0;
        GError *differs = NULL;
        if (ok && o->check && !exec_outputs_equal(e, ref.e, &elements, &differs))
            hint_transpose_views(schedule, aliases, &differs);
        if (ok)
            rows[k] = (RunEachRow){.strategy = strategies[k]->name, .median_seconds = median(totals, repeat),
                                   .arena_bytes = executor_arena_bytes(e),
                                   .check = g_strdup(differs ? differs->message : checked)};
        else
            hint_transpose_views(schedule, aliases, error);
        if (differs || !ok)
            g_prefix_error(differs ? &differs : error, "strategy %s: ", strategies[k]->name);
        if (differs && !first_difference)
            first_difference = differs;
        else if (differs)
            g_error_free(differs);
        executor_free(e);
    }
    r->rows = rows; /* every row once they all ran (g_new0: the rest have no check to free) */
    r->count = ok ? count : 0;
    if (!ok)
        for (guint k = 0; k < count; k++)
            g_free(rows[k].check);
    g_free(totals);
    exec_reference_clear(&ref);
    exec_weights_free(weights);
    if (ok && first_difference) {
        g_propagate_error(error, first_difference);
        return FALSE;
    }
    if (first_difference)
        g_error_free(first_difference);
    return ok;
}

void run_each_outcome_clear(RunEachOutcome *r)
{
    for (guint k = 0; k < r->count; k++)
        g_free(r->rows[k].check);
    g_free(r->rows);
    if (r->reference)
        g_array_unref(r->reference);
    memset(r, 0, sizeof *r);
}

/* Each step's median into r->node_seconds, and per op type (r->ops, the slowest first), with the counts of the
 * steps a library, Winograd or the skinny kernel ran, and what the executor did beside the kernels. */
static void collect_times(const Executor *e, const GPtrArray *schedule, double *per_node, double *totals,
                          RunOutcome *r)
{
    guint repeat = r->repeat, steps = r->steps;
    r->node_seconds = g_new0(double, steps + 1);
    for (guint s = 0; s < steps; s++)
        r->node_seconds[s] = median(per_node + (gsize)s * repeat, repeat);
    r->median_seconds = median(totals, repeat);
    GHashTable *by_op = g_hash_table_new(g_str_hash, g_str_equal);
    r->ops = g_array_new(FALSE, FALSE, sizeof(RunOpTime));
    for (guint s = 0; s < steps; s++) {
        const Node *n = schedule->pdata[s];
        guint k = GPOINTER_TO_UINT(g_hash_table_lookup(by_op, n->op_type));
        if (!k) {
            RunOpTime row = {n->op_type, 0, 0, 0, 0};
            g_array_append_val(r->ops, row);
            k = r->ops->len;
            g_hash_table_insert(by_op, n->op_type, GUINT_TO_POINTER(k));
        }
        RunOpTime *row = &g_array_index(r->ops, RunOpTime, k - 1);
        guint64 packed = 0;
        const char *by = executor_step_library(e, s, &packed);
        row->seconds += r->node_seconds[s];
        row->nodes++;
        row->library_nodes += by != NULL;
        row->prepared_bytes += packed;
        r->library = r->library ? r->library : by;
        r->library_nodes += by != NULL;
        const char *algorithm = executor_step_algorithm(e, s);
        r->winograd_nodes += algorithm && strstr(algorithm, "Winograd");
        r->winograd_f4 += algorithm && strstr(algorithm, "F(4x4");
        r->skinny_nodes += algorithm && strstr(algorithm, "skinny");
    }
    g_array_sort(r->ops, by_time);
    g_hash_table_unref(by_op);
    r->folded = executor_folded_steps(e, &r->folded_copies);
    r->once_steps = executor_once_steps(e);
    r->blocked_tensors = executor_blocked_tensors(e);
    r->random_weights = executor_random_weights(e);
    r->arena_bytes = executor_arena_bytes(e);
    r->prepared_bytes = executor_prepared_bytes(e);
}

gboolean run_plan(const RunOptions *o, const Model *m, const GPtrArray *schedule, const AliasMap *aliases,
                  const Trace *t, const Plan *plan, RunOutcome *r, GError **error)
{
    memset(r, 0, sizeof *r);
    guint threads = run_open_kernels(o, error);
    ExecWeights *weights = exec_weights_new(m); /* filled once for the plan's run and the reference's */
    Executor *e = threads ? executor_new_sharing(m, schedule, aliases, t, plan, &o->exec, weights, error) : NULL;
    if (!e) {
        exec_weights_free(weights);
        return FALSE;
    }
    r->repeat = MAX(o->repeat, 1);
    r->threads = threads;
    r->steps = schedule->len;
    double *per_node = g_new0(double, (gsize)r->repeat * r->steps + 1), *totals = g_new0(double, r->repeat + 1);
    gboolean ok = (!o->inputs || zoo_set_inputs(e, m, o->inputs, error)) &&
                  run_timed(e, r->repeat, r->steps, o->poison, totals, per_node, error);
    ExecReference ref = {0};
    if (ok && o->check)
        ok = reference_run(&ref, o, m, schedule, &aliases->layout, weights, error) &&
             exec_outputs_equal(e, ref.e, &r->checked_elements, error);
    if (!ok)
        hint_transpose_views(schedule, aliases, error);
    if (ok && o->expect_dir)
        ok = zoo_expect_outputs(e, o->expect_dir, o->rtol, o->atol, &r->expect, error);
    if (ok && o->dump_dir)
        ok = zoo_write_outputs(e, o->dump_dir, error);
    if (ok)
        ok = take_outputs(o, e, &r->outputs, error);
    if (ok)
        collect_times(e, schedule, per_node, totals, r);
    exec_reference_clear(&ref);
    g_free(per_node);
    g_free(totals);
    executor_free(e);
    exec_weights_free(weights);
    return ok;
}

void run_outcome_clear(RunOutcome *r)
{
    g_free(r->node_seconds);
    if (r->ops)
        g_array_unref(r->ops);
    if (r->outputs)
        g_array_unref(r->outputs);
    memset(r, 0, sizeof *r);
}
