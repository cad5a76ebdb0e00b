/* run.c — the --run report, --profile and --check (see run.h). */
#include "cli/run.h"
#include "memory/pipeline.h"
#include "exec/kernel-table.h"
#include "exec/check.h"
#include "plan/place.h"
#include "cli/zoo.h"
#include "report/csv-table.h"
#include "base/files.h"
#include "ops/ops.h"
#include "strategies/registry.h"
#include "base/escape.h"
#include "base/units.h"

#include <glib/gstdio.h>
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

/* The reference run, with the data set's inputs when given (exec/check.h). */
static gboolean reference_run(ExecReference *r, const Model *m, const GPtrArray *schedule, const LayoutOptions *layout,
                              gboolean poison, ExecWeights *weights, const GPtrArray *inputs, GError **error)
{
    return exec_reference_new(r, m, schedule, layout, registry_place_baseline(), weights, error) &&
           (!inputs || zoo_set_inputs(r->e, m, inputs, error)) && executor_run(r->e, poison, error);
}

/* Each output's statistics on the text report; with --check, a degenerate output is an error unless allowed. */
static gboolean report_outputs(FILE *out, const RunOptions *o, const Executor *e, GError **error)
{
    gboolean ok = TRUE;
    gsize elements = 0;
    for (guint k = 0; k < executor_output_count(e); k++) {
        const char *name;
        const ExecTensor *x = executor_output(e, k, &name);
        ExecOutputStats st = exec_output_stats(x);
        if (o->format->prose) {
            char *safe = escape_terminal(name);
            fprintf(out, "%-14s '%s' %s: %" G_GSIZE_FORMAT " elements, %" G_GSIZE_FORMAT " NaN, %" G_GSIZE_FORMAT
                    " infinite", k ? "" : "outputs", safe, dtype_name(x->dtype), x->count, st.nan, st.inf);
            if (st.finite)
                fprintf(out, ", from %.6g to %.6g", st.min, st.max);
            fprintf(out, "%s\n", st.degenerate ? " (degenerate)" : "");
            g_free(safe);
        }
        if (ok && st.degenerate && o->check && !o->allow_degenerate) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "--check: output '%s' is %s, which a check cannot tell from "
                        "a right answer: give inputs that exercise the model (--inputs), or --allow-degenerate", name,
                        st.nan == x->count ? "NaN everywhere" : "one value everywhere");
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

typedef struct {
    const char *op;
    double seconds;
    guint nodes;
    guint library_nodes;    /* run by a library's kernels (exec_set_kernels) */
    guint64 prepared_bytes; /* the weights it packed for them */
} OpTime;

static gint by_time(gconstpointer a, gconstpointer b)
{
    const OpTime *x = a, *y = b;
    return x->seconds > y->seconds ? -1 : x->seconds < y->seconds ? 1 : strcmp(x->op, y->op);
}

static gboolean write_profile(const char *path, const GPtrArray *schedule, const double *node_median, GError **error)
{
    GString *s = g_string_new("step,node,op,seconds\n");
    for (guint k = 0; k < schedule->len; k++) {
        const Node *n = schedule->pdata[k];
        char *name = csv_table_quote(*n->name ? n->name : n->label), *op = csv_table_quote(n->op_type);
        g_string_append_printf(s, "%u,%s,%s,%.9f\n", k, name, op, node_median[k]);
        g_free(name);
        g_free(op);
    }
    gboolean ok = sim_write_file(path, s->str, s->len, error);
    g_string_free(s, TRUE);
    return ok;
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

/* The ops the op table lets fold into the kernel before them, in KernelEpilogue order: "Relu/Clip/...". */
static char *folding_ops(void)
{
    gsize count;
    const KernelRow *rows = kernel_table(&count);
    GString *s = g_string_new(NULL);
    for (int kind = EPILOGUE_NONE + 1; kind < EPILOGUE_KINDS; kind++)
        for (gsize k = 0; k < count; k++)
            if ((int)rows[k].folds_as == kind)
                g_string_append_printf(s, "%s%s", s->len ? "/" : "", rows[k].name);
    return g_string_free(s, FALSE);
}

/* The ops they fold into (the table's .epilogue rows, sim's own fused forms left out): "Add, Conv or MatMul". */
static char *folding_into(void)
{
    gsize count;
    const KernelRow *rows = kernel_table(&count);
    GPtrArray *names = g_ptr_array_new();
    for (gsize k = 0; k < count; k++)
        if (rows[k].epilogue && !rows[k].internal)
            g_ptr_array_add(names, (gpointer)rows[k].name);
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < names->len; k++)
        g_string_append_printf(s, "%s%s", k == 0 ? "" : k + 1 == names->len ? " or " : ", ", (const char *)names->pdata[k]);
    g_ptr_array_unref(names);
    return g_string_free(s, FALSE);
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

guint run_open_kernels(const RunOptions *o, GError **error)
{
    exec_set_layouts(o->layouts);
    exec_set_winograd(o->winograd);
    exec_set_skinny(o->skinny);
    return exec_set_kernels(o->kernels, error) ? exec_set_threads(MAX(o->threads, 1), error) : 0;
}

/* --compare --run: each plan run --repeat times in its own arena and, with --check, compared with one
 * reference run made once for all of them; one row each (strategy, runs, median, arena, check). A plan
 * identical to an earlier one is not run again: its row repeats that one's figures, and its check says
 * whose plan it is. */
gboolean run_execute_each(FILE *out, const RunOptions *o, const Model *m, const GPtrArray *schedule,
                          const AliasMap *aliases, const Trace *t, const Plan *const *plans,
                          const PlaceStrategy *const *strategies, guint count, GError **error)
{
    guint threads = run_open_kernels(o, error);
    guint repeat = MAX(o->repeat, 1), steps = schedule->len;
    if (!threads)
        return FALSE;
    ExecReference ref = {0};
    ExecWeights *weights = exec_weights_new(m); /* filled once for the reference and every plan */
    gboolean ok = !o->check || reference_run(&ref, m, schedule, &aliases->layout, o->poison, weights, o->inputs, error);
    if (ok && o->check && o->format->prose)
        fprintf(out, "\nreference      the run with nothing shared:\n");
    if (ok && o->check)
        ok = report_outputs(out, o, ref.e, error);
    GPtrArray *cells = g_ptr_array_new_with_free_func(g_free);
    double *totals = g_new0(double, repeat + 1);
    const char *checked = !o->check ? "not checked" : o->poison ? "bit for bit, with poison" : "bit for bit";
    GError *first_difference = NULL; /* a plan whose outputs differ: the others still run, then this fails */
    for (guint k = 0; ok && k < count; k++) {
        gint same = same_plan_before(plans, k, trace_count(t));
        if (same >= 0) { /* copies first: adding to cells may move its array */
            const char *const *row = (const char *const *)cells->pdata + (gsize)same * 5;
            char *copied[5] = {g_strdup(strategies[k]->name), g_strdup(row[1]), g_strdup(row[2]), g_strdup(row[3]),
                               g_strdup_printf("%s (%s's plan)", row[4], strategies[same]->name)};
            for (guint c = 0; c < 5; c++)
                g_ptr_array_add(cells, copied[c]);
            continue;
        }
        Executor *e = executor_new_sharing(m, schedule, aliases, t, plans[k], weights, error);
        ok = e && (!o->inputs || zoo_set_inputs(e, m, o->inputs, error)) &&
             run_timed(e, repeat, steps, o->poison, totals, NULL, error);
        gsize elements = 0;
        GError *differs = NULL;
        if (ok && o->check && !exec_outputs_equal(e, ref.e, &elements, &differs))
            hint_transpose_views(schedule, aliases, &differs);
        if (ok) {
            g_ptr_array_add(cells, g_strdup(strategies[k]->name));
            g_ptr_array_add(cells, g_strdup_printf("%u", repeat));
            g_ptr_array_add(cells, g_strdup_printf("%.9f", median(totals, repeat)));
            g_ptr_array_add(cells, g_strdup_printf("%" G_GUINT64_FORMAT, executor_arena_bytes(e)));
            g_ptr_array_add(cells, g_strdup(differs ? differs->message : checked));
        } else {
            hint_transpose_views(schedule, aliases, error);
        }
        if (differs || !ok)
            g_prefix_error(differs ? &differs : error, "strategy %s: ", strategies[k]->name);
        if (differs && !first_difference)
            first_difference = differs;
        else if (differs)
            g_error_free(differs);
        executor_free(e);
    }
    if (ok && o->format->prose) {
        fprintf(out, "\nrun            every plan, %u run%s each, %u thread%s\n", repeat, repeat == 1 ? "" : "s", threads,
                threads == 1 ? "" : "s");
        fprintf(out, "%-18s %12s %16s  %s\n", "strategy", "median ms", "arena (B)", "check");
        for (guint k = 0; k < count; k++) {
            const char *const *row = (const char *const *)cells->pdata + (gsize)k * 5;
            fprintf(out, "%-18s %12.3f %16s  %s\n", row[0], g_ascii_strtod(row[2], NULL) * 1e3, row[3], row[4]);
        }
    } else if (ok) {
        const char *cols[] = {"strategy", "runs", "median_seconds", "arena_bytes", "check"};
        const gboolean numbers[] = {FALSE, TRUE, TRUE, TRUE, FALSE};
        fprintf(out, "\n");
        report_print_table(out, o->format, cols, numbers, 5, (const char *const *)cells->pdata, count);
    }
    g_ptr_array_unref(cells);
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

gboolean run_execute(FILE *out, const RunOptions *o, const Model *m, const GPtrArray *schedule, const AliasMap *aliases,
                     const Trace *t, const Plan *plan, GError **error)
{
    guint threads = run_open_kernels(o, error);
    ExecWeights *weights = exec_weights_new(m); /* filled once for the plan's run and the reference's */
    Executor *e = threads ? executor_new_sharing(m, schedule, aliases, t, plan, weights, error) : NULL;
    if (!e) {
        exec_weights_free(weights);
        return FALSE;
    }
    guint repeat = MAX(o->repeat, 1), steps = schedule->len;
    double *per_node = g_new0(double, (gsize)repeat * steps + 1), *totals = g_new0(double, repeat + 1);
    gboolean ok = (!o->inputs || zoo_set_inputs(e, m, o->inputs, error)) &&
                  run_timed(e, repeat, steps, o->poison, totals, per_node, error);
    ExecReference ref = {0};
    gsize elements = 0;
    if (ok && o->check)
        ok = reference_run(&ref, m, schedule, &aliases->layout, o->poison, weights, o->inputs, error) &&
             exec_outputs_equal(e, ref.e, &elements, error);
    if (!ok)
        hint_transpose_views(schedule, aliases, error);
    ZooExpect expect = {0};
    if (ok && o->expect_dir)
        ok = zoo_expect_outputs(e, o->expect_dir, o->rtol, o->atol, &expect, error);
    if (ok && o->dump_dir)
        ok = zoo_write_outputs(e, o->dump_dir, error);
    if (ok && o->format->prose)
        fprintf(out, "\n");
    if (ok)
        ok = report_outputs(out, o, e, error);
    double *node_median = g_new0(double, steps + 1);
    for (guint s = 0; ok && s < steps; s++)
        node_median[s] = median(per_node + (gsize)s * repeat, repeat);
    if (ok && o->profile_path)
        ok = write_profile(o->profile_path, schedule, node_median, error);
    if (ok) {
        GHashTable *by_op = g_hash_table_new(g_str_hash, g_str_equal);
        GArray *ops = g_array_new(FALSE, FALSE, sizeof(OpTime));
        const char *library = NULL;
        guint library_nodes = 0, winograd_nodes = 0, winograd_f4 = 0, skinny_nodes = 0;
        for (guint s = 0; s < steps; s++) {
            const Node *n = schedule->pdata[s];
            guint k = GPOINTER_TO_UINT(g_hash_table_lookup(by_op, n->op_type));
            if (!k) {
                OpTime row = {n->op_type, 0, 0, 0, 0};
                g_array_append_val(ops, row);
                k = ops->len;
                g_hash_table_insert(by_op, n->op_type, GUINT_TO_POINTER(k));
            }
            OpTime *row = &g_array_index(ops, OpTime, k - 1);
            guint64 packed = 0;
            const char *by = executor_step_library(e, s, &packed);
            row->seconds += node_median[s];
            row->nodes++;
            row->library_nodes += by != NULL;
            row->prepared_bytes += packed;
            library = library ? library : by;
            library_nodes += by != NULL;
            const char *algorithm = executor_step_algorithm(e, s);
            winograd_nodes += algorithm && strstr(algorithm, "Winograd");
            winograd_f4 += algorithm && strstr(algorithm, "F(4x4");
            skinny_nodes += algorithm && strstr(algorithm, "skinny");
        }
        g_array_sort(ops, by_time);
        double total = median(totals, repeat), sum = 0;
        for (guint k = 0; k < ops->len; k++)
            sum += g_array_index(ops, OpTime, k).seconds;
        char *arena = sim_format_bytes(executor_arena_bytes(e));
        if (o->format->prose) {
            fprintf(out, "\nrun            %u run%s, median %.3f ms per run, in an arena of %s, %u thread%s\n", repeat,
                    repeat == 1 ? "" : "s", total * 1e3, arena, threads, threads == 1 ? "" : "s");
            guint copies, folded = executor_folded_steps(e, &copies);
            if (folded) {
                char *folding = folding_ops(), *into = folding_into();
                if (copies)
                    fprintf(out, "fused          %u %s steps run inside the %s before them (%u in place on its "
                            "output, %u copied from it to their own bytes)\n", folded, folding, into, folded - copies, copies);
                else
                    fprintf(out, "fused          %u %s steps run inside the %s before them (in place on its output)\n",
                            folded, folding, into);
                g_free(folding);
                g_free(into);
            }
            if (executor_once_steps(e))
                fprintf(out, "constants      %u steps that compute constants (--fuse's constant-fold) ran in the first run "
                        "only, as ONNX Runtime computes them when its session starts\n", executor_once_steps(e));
            if (executor_blocked_tensors(e))
                fprintf(out, "layouts        %u tensors lie channel-blocked between the kernels that read and write "
                        "them so (--layouts)\n", executor_blocked_tensors(e));
            if (executor_random_weights(e))
                fprintf(out, "weights        %u initializers without data got pseudo-random values\n",
                        executor_random_weights(e));
            if (library)
                fprintf(out, "kernels        %s ran %u of the %u steps (the 'library' column)\n", library, library_nodes,
                        steps);
            if (winograd_nodes) {
                /* "9 of its convolutions by Winograd's minimal filtering: 1 by F(2x2,3x3), 8 by F(4x4,3x3)" */
                guint f2 = winograd_nodes - winograd_f4;
                char *by2 = f2 ? g_strdup_printf(" %u by F(2x2,3x3)%s", f2, winograd_f4 ? "," : "") : g_strdup(""),
                     *by4 = winograd_f4 ? g_strdup_printf(" %u by F(4x4,3x3)", winograd_f4) : g_strdup("");
                fprintf(out, "winograd       %u of its convolutions by Winograd's minimal filtering:%s%s (--winograd)\n",
                        winograd_nodes, by2, by4);
                g_free(by2);
                g_free(by4);
            }
            if (skinny_nodes)
                fprintf(out, "skinny         %u products of at most 16 rows on our own kernel, over weights packed once "
                        "in 16-column panels (--skinny)\n", skinny_nodes);
            if (executor_prepared_bytes(e)) {
                char *packed = sim_format_bytes(executor_prepared_bytes(e));
                fprintf(out, "packed         %s of weights packed once into the layouts their kernels read, the "
                        "executor's own memory beside the arena\n", packed);
                g_free(packed);
            }
            if (o->check)
                fprintf(out, "check          %u outputs (%" G_GSIZE_FORMAT " elements) equal the reference run (nothing "
                        "shared) bit for bit%s\n", executor_output_count(e), elements, o->poison ? ", with poison" : "");
            if (o->expect_dir) {
                char *safe = escape_terminal(o->expect_dir);
                fprintf(out, "expect         %u outputs within rtol %g and atol %g of %s (largest error %.3g, %.3g "
                        "relative; the closest call: %.3g of the tolerance)\n", executor_output_count(e), o->rtol,
                        o->atol, safe, expect.max_abs, expect.max_rel, expect.worst);
                g_free(safe);
            }
            fprintf(out, "\nop type                  nodes   median ms   share  library\n");
            for (guint k = 0; k < ops->len; k++) {
                const OpTime *row = &g_array_index(ops, OpTime, k);
                fprintf(out, "%-24s %5u  %10.3f  %5.1f%%  %s\n", row->op, row->nodes, row->seconds * 1e3,
                        sum > 0 ? 100.0 * row->seconds / sum : 0.0,
                        !row->library_nodes ? "" : row->library_nodes == row->nodes ? "all" : "some");
            }
        } else {
            /* After the plan's row, a blank line and the timing table: one row per op type, then "total". */
            const char *names[] = {"op", "nodes", "median_seconds", "share_pct", "threads", "library_nodes",
                                   "packed_bytes"};
            const gboolean numbers[] = {FALSE, TRUE, TRUE, TRUE, TRUE, TRUE, TRUE};
            GPtrArray *cells = g_ptr_array_new_with_free_func(g_free);
            for (guint k = 0; k <= ops->len; k++) {
                const OpTime *row = k < ops->len ? &g_array_index(ops, OpTime, k) : NULL;
                g_ptr_array_add(cells, g_strdup(row ? row->op : "total"));
                g_ptr_array_add(cells, g_strdup_printf("%u", row ? row->nodes : steps));
                g_ptr_array_add(cells, g_strdup_printf("%.9f", row ? row->seconds : total));
                g_ptr_array_add(cells, g_strdup_printf("%.2f", row ? (sum > 0 ? 100.0 * row->seconds / sum : 0.0) : 100.0));
                g_ptr_array_add(cells, g_strdup_printf("%u", threads));
                g_ptr_array_add(cells, g_strdup_printf("%u", row ? row->library_nodes : library_nodes));
                g_ptr_array_add(cells, g_strdup_printf("%" G_GUINT64_FORMAT, row ? row->prepared_bytes
                                                                                  : executor_prepared_bytes(e)));
            }
            fprintf(out, "\n");
            report_print_table(out, o->format, names, numbers, 7, (const char *const *)cells->pdata, ops->len + 1);
            g_ptr_array_unref(cells);
        }
        g_free(arena);
        g_array_unref(ops);
        g_hash_table_unref(by_op);
    }
    exec_reference_clear(&ref);
    if (ok && o->node_seconds) {
        *o->node_seconds = node_median;
        node_median = NULL;
    }
    g_free(node_median);
    g_free(per_node);
    g_free(totals);
    executor_free(e);
    exec_weights_free(weights);
    return ok;
}
