/* run-print.c — the --run report and --profile (see run-print.h). */
#include "cli/run-print.h"
#include "base/escape.h"
#include "base/files.h"
#include "base/units.h"
#include "exec/kernel-table.h"
#include "report/csv-table.h"

#include <string.h>

gboolean cli_write_profile(const char *path, const GPtrArray *schedule, const double *node_seconds, GError **error)
{
    GString *s = g_string_new("step,node,op,seconds\n");
    for (guint k = 0; k < schedule->len; k++) {
        const Node *n = schedule->pdata[k];
        char *name = csv_table_quote(*n->name ? n->name : n->label), *op = csv_table_quote(n->op_type);
        g_string_append_printf(s, "%u,%s,%s,%.9f\n", k, name, op, node_seconds[k]);
        g_free(name);
        g_free(op);
    }
    gboolean ok = sim_write_file(path, s->str, s->len, error);
    g_string_free(s, TRUE);
    return ok;
}

/* Each output's statistics, on the text report only. */
static void print_outputs(FILE *out, ReportFormat format, const GArray *outputs)
{
    for (guint k = 0; format->prose && k < outputs->len; k++) {
        const RunOutput *y = &g_array_index(outputs, RunOutput, k);
        char *safe = escape_terminal(y->name);
        fprintf(out, "%-14s '%s' %s: %" G_GSIZE_FORMAT " elements, %" G_GSIZE_FORMAT " NaN, %" G_GSIZE_FORMAT
                " infinite", k ? "" : "outputs", safe, dtype_name(y->dtype), y->count, y->stats.nan, y->stats.inf);
        if (y->stats.finite)
            fprintf(out, ", from %.6g to %.6g", y->stats.min, y->stats.max);
        fprintf(out, "%s\n", y->stats.degenerate ? " (degenerate)" : "");
        g_free(safe);
    }
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
        g_string_append_printf(s, "%s%s", k == 0 ? "" : k + 1 == names->len ? " or " : ", ",
                               (const char *)names->pdata[k]);
    g_ptr_array_unref(names);
    return g_string_free(s, FALSE);
}

static const char *plural(guint n) { return n == 1 ? "" : "s"; }

/* The prose lines after the outputs: the run, then what the executor did beside the kernels, the check and
 * the comparison with the expected outputs. */
static void print_run_lines(FILE *out, const RunOptions *o, const RunOutcome *r)
{
    char *arena = sim_format_bytes(r->arena_bytes);
    fprintf(out, "\nrun            %u run%s, median %.3f ms per run, in an arena of %s, %u thread%s\n", r->repeat,
            plural(r->repeat), r->median_seconds * 1e3, arena, r->threads, plural(r->threads));
    g_free(arena);
    if (r->folded) {
        char *folding = folding_ops(), *into = folding_into();
        if (r->folded_copies)
            fprintf(out, "fused          %u %s steps run inside the %s before them (%u in place on its output, %u "
                    "copied from it to their own bytes)\n", r->folded, folding, into, r->folded - r->folded_copies,
                    r->folded_copies);
        else
            fprintf(out, "fused          %u %s steps run inside the %s before them (in place on its output)\n",
                    r->folded, folding, into);
        g_free(folding);
        g_free(into);
    }
    if (r->once_steps)
        fprintf(out, "constants      %u steps that compute constants (--fuse's constant-fold) ran in the first run "
                "only, as ONNX Runtime computes them when its session starts\n", r->once_steps);
    if (r->blocked_tensors)
        fprintf(out, "layouts        %u tensors lie channel-blocked between the kernels that read and write them so "
                "(--layouts)\n", r->blocked_tensors);
    if (r->random_weights)
        fprintf(out, "weights        %u initializers without data got pseudo-random values\n", r->random_weights);
    if (r->library)
        fprintf(out, "kernels        %s ran %u of the %u steps (the 'library' column)\n", r->library, r->library_nodes,
                r->steps);
    if (r->winograd_nodes) {
        /* "9 of its convolutions by Winograd's minimal filtering: 1 by F(2x2,3x3), 8 by F(4x4,3x3)" */
        guint f2 = r->winograd_nodes - r->winograd_f4;
        char *by2 = f2 ? g_strdup_printf(" %u by F(2x2,3x3)%s", f2, r->winograd_f4 ? "," : "") : g_strdup(""),
             *by4 = r->winograd_f4 ? g_strdup_printf(" %u by F(4x4,3x3)", r->winograd_f4) : g_strdup("");
        fprintf(out, "winograd       %u of its convolutions by Winograd's minimal filtering:%s%s (--winograd)\n",
                r->winograd_nodes, by2, by4);
        g_free(by2);
        g_free(by4);
    }
    if (r->skinny_nodes)
        fprintf(out, "skinny         %u products of at most 16 rows on our own kernel, over weights packed once in "
                "16-column panels (--skinny)\n", r->skinny_nodes);
    if (r->prepared_bytes) {
        char *packed = sim_format_bytes(r->prepared_bytes);
        fprintf(out, "packed         %s of weights packed once into the layouts their kernels read, the executor's "
                "own memory beside the arena\n", packed);
        g_free(packed);
    }
    if (o->check)
        fprintf(out, "check          %u outputs (%" G_GSIZE_FORMAT " elements) equal the reference run (nothing "
                "shared) bit for bit%s\n", r->outputs->len, r->checked_elements, o->poison ? ", with poison" : "");
    if (o->expect_dir) {
        char *safe = escape_terminal(o->expect_dir);
        fprintf(out, "expect         %u outputs within rtol %g and atol %g of %s (largest error %.3g, %.3g relative; "
                "the closest call: %.3g of the tolerance)\n", r->outputs->len, o->rtol, o->atol, safe,
                r->expect.max_abs, r->expect.max_rel, r->expect.worst);
        g_free(safe);
    }
}

void cli_print_run(FILE *out, ReportFormat format, const RunOptions *o, const RunOutcome *r)
{
    if (!r->outputs)
        return;
    if (format->prose) {
        fprintf(out, "\n");
        print_outputs(out, format, r->outputs);
    }
    if (!r->ops) /* the check refused the outputs */
        return;
    double sum = 0;
    for (guint k = 0; k < r->ops->len; k++)
        sum += g_array_index(r->ops, RunOpTime, k).seconds;
    if (format->prose) {
        print_run_lines(out, o, r);
        fprintf(out, "\nop type                  nodes   median ms   share  library\n");
        for (guint k = 0; k < r->ops->len; k++) {
            const RunOpTime *row = &g_array_index(r->ops, RunOpTime, k);
            fprintf(out, "%-24s %5u  %10.3f  %5.1f%%  %s\n", row->op, row->nodes, row->seconds * 1e3,
                    sum > 0 ? 100.0 * row->seconds / sum : 0.0,
                    !row->library_nodes ? "" : row->library_nodes == row->nodes ? "all" : "some");
        }
        return;
    }
    /* After the plan's row, a blank line and the timing table: one row per op type, then "total". */
    const char *names[] = {"op", "nodes", "median_seconds", "share_pct", "threads", "library_nodes", "packed_bytes"};
    const gboolean numbers[] = {FALSE, TRUE, TRUE, TRUE, TRUE, TRUE, TRUE};
    GPtrArray *cells = g_ptr_array_new_with_free_func(g_free);
    for (guint k = 0; k <= r->ops->len; k++) {
        const RunOpTime *row = k < r->ops->len ? &g_array_index(r->ops, RunOpTime, k) : NULL;
        g_ptr_array_add(cells, g_strdup(row ? row->op : "total"));
        g_ptr_array_add(cells, g_strdup_printf("%u", row ? row->nodes : r->steps));
        g_ptr_array_add(cells, g_strdup_printf("%.9f", row ? row->seconds : r->median_seconds));
        g_ptr_array_add(cells, g_strdup_printf("%.2f", row ? (sum > 0 ? 100.0 * row->seconds / sum : 0.0) : 100.0));
        g_ptr_array_add(cells, g_strdup_printf("%u", r->threads));
        g_ptr_array_add(cells, g_strdup_printf("%u", row ? row->library_nodes : r->library_nodes));
        g_ptr_array_add(cells, g_strdup_printf("%" G_GUINT64_FORMAT, row ? row->prepared_bytes : r->prepared_bytes));
    }
    fprintf(out, "\n");
    report_print_table(out, format, names, numbers, 7, (const char *const *)cells->pdata, r->ops->len + 1);
    g_ptr_array_unref(cells);
}

void cli_print_run_each(FILE *out, ReportFormat format, const RunEachOutcome *r)
{
    if (r->reference && format->prose) {
        fprintf(out, "\nreference      the run with nothing shared:\n");
        print_outputs(out, format, r->reference);
    }
    if (!r->count)
        return;
    if (format->prose) {
        fprintf(out, "\nrun            every plan, %u run%s each, %u thread%s\n", r->repeat, plural(r->repeat),
                r->threads, plural(r->threads));
        fprintf(out, "%-18s %12s %16s  %s\n", "strategy", "median ms", "arena (B)", "check");
        for (guint k = 0; k < r->count; k++) {
            char *arena = g_strdup_printf("%" G_GUINT64_FORMAT, r->rows[k].arena_bytes);
            fprintf(out, "%-18s %12.3f %16s  %s\n", r->rows[k].strategy, r->rows[k].median_seconds * 1e3, arena,
                    r->rows[k].check);
            g_free(arena);
        }
        return;
    }
    const char *cols[] = {"strategy", "runs", "median_seconds", "arena_bytes", "check"};
    const gboolean numbers[] = {FALSE, TRUE, TRUE, TRUE, FALSE};
    GPtrArray *cells = g_ptr_array_new_with_free_func(g_free);
    for (guint k = 0; k < r->count; k++) {
        g_ptr_array_add(cells, g_strdup(r->rows[k].strategy));
        g_ptr_array_add(cells, g_strdup_printf("%u", r->repeat));
        g_ptr_array_add(cells, g_strdup_printf("%.9f", r->rows[k].median_seconds));
        g_ptr_array_add(cells, g_strdup_printf("%" G_GUINT64_FORMAT, r->rows[k].arena_bytes));
        g_ptr_array_add(cells, g_strdup(r->rows[k].check));
    }
    fprintf(out, "\n");
    report_print_table(out, format, cols, numbers, 5, (const char *const *)cells->pdata, r->count);
    g_ptr_array_unref(cells);
}
