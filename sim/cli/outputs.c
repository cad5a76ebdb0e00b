/* outputs.c — what the command writes besides the report rows: the listings (--list, --list-ops), the
 * aliasing summary, the pictures (--plot; --from TABLE), the Chrome trace, and the run's report rows'
 * sharing columns. The pipeline (pipeline.c) calls these; each returns an exit status or a gboolean. */
#include "cli/outputs.h"
#include "base/escape.h"
#include "base/units.h"
#include "driver/driver.h"
#include "ops/ops.h"
#include "report/chrome-trace.h"
#include "report/html-view.h"
#include "report/csv-table.h"
#include "report/plot-table.h"
#include "strategies/registry.h"

#include <stdio.h>
#include <string.h>

void cli_list_ops(void)
{
    gsize count;
    const OpInfo *ops = op_table(&count);
    for (gsize k = 0; k < count; k++)
        printf("%-24s %s\n", ops[k].name, op_class_name(ops[k].op_class));
    ops = op_table_microsoft(&count);
    for (gsize k = 0; k < count; k++)
        printf(OP_DOMAIN_MICROSOFT ".%-24s %s\n", ops[k].name, op_class_name(ops[k].op_class));
}

void cli_list_strategies(void)
{
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    printf("placement strategies (--strategy):\n");
    for (guint k = 0; k < count; k++)
        printf("  %-18s %s%s%s\n", all[k]->name, all[k]->summary, all[k]->plan_tiers ? " [--tiers]" : "",
               place_strategy_budgeted(all[k]) ? " [--budget]" : "");
    printf("structured problem strategies (--strategy with --trace FILE.json; the first is the default):\n");
    for (guint k = 0; registry_structured[k]; k++)
        printf("  %-18s %s\n", registry_structured[k]->name, registry_structured[k]->description);
    const OrderStrategy *const *orders = registry_order_strategies(&count);
    printf("operator orders (--order, --orders):\n");
    for (guint k = 0; k < count; k++)
        printf("  %-18s %s\n", orders[k]->name, orders[k]->summary);
    const AliasStrategy *const *aliases = registry_alias_strategies(&count);
    printf("alias strategies (--alias, applied in this order):\n");
    for (guint k = 0; k < count; k++)
        printf("  %-18s %s\n", aliases[k]->name, aliases[k]->summary);
}

/* The exact order's proof, after its report: how far from the bound, and how it knows. */
static void print_order_proof(const Job *job)
{
    const OrderOutcome *o = job->order_problem ? job->order_problem->outcome : NULL;
    if (!o || !o->known || !(job->order_exact || (job->order->exhaustive && !job->order_best)))
        return; /* (said too when a heuristic order's plan was kept: it is about the orders' live bytes) */
    char *peak = sim_format_bytes(o->peak), *bound = sim_format_bytes(o->bound);
    if (!o->states)
        printf("%sorder proof    peak live %s, the least any order can have: the best heuristic order holds no more "
               "than every order must at some step (no search)\n", job->format->block, peak);
    else
        printf("%sorder proof    peak live %s, the least any order can have: a search of %" G_GUINT64_FORMAT
               " states found no order below it (every order must hold %s at some step)\n", job->format->block, peak,
               o->states, bound);
    g_free(peak);
    g_free(bound);
}

void cli_print_order_best(const Job *job)
{
    if (job->format->notes)
        print_order_proof(job);
    if (job->order_fell_back && job->format->notes)
        printf("%sorder          %s; --order file refuses it\n", job->format->block,
               job->order_best ? DRIVER_ORDER_NOT_TOPOLOGICAL_BEST : DRIVER_ORDER_NOT_TOPOLOGICAL);
    if (!job->order_said || !job->format->notes)
        return;
    char *skipped = job->order_skipped ? g_strdup_printf("; %u more left out by the work budget (plans times nodes "
                                                         "within %" G_GUINT64_FORMAT ")", job->order_skipped,
                                                         job->order_work ? job->order_work : DRIVER_BEST_WORK)
                                       : g_strdup("");
    if (job->order_named || job->verbose)
        printf("%sorder best     %s with --alias %s kept: the smallest arena of the orders (%s)%s%s%s, "
               "each traced and placed by %s: %s%s\n", job->format->block, job->order->name, job->alias,
               job->order_exact ? "optimal first, then every heuristic one" : "all but optimal",
               job->alias_named ? "" : " and sharing sets (all, ", job->alias_named ? "" : registry_alias_short_list(),
               job->alias_named ? "" : ")", job->strategy->name, job->order_said->str, skipped);
    else /* the default: which plan was kept, in a line */
        printf("%sorder chosen   %s with --alias %s: the smallest arena of %u plan%s (orders%s; --verbose lists "
               "them)%s; --order NAME plans one order\n", job->format->block, job->order->name, job->alias,
               job->order_made, job->order_made == 1 ? "" : "s", job->alias_named ? "" : " and sharing sets", skipped);
    g_free(skipped);
}

void cli_print_aliasing(const Job *job)
{
    if (!job->aliases)
        return;
    guint64 saved[SHARE_KIND_COUNT];
    const char *names[SHARE_KIND_COUNT];
    alias_savings(job->aliases, saved);
    for (guint k = 0; k < SHARE_KIND_COUNT; k++)
        names[k] = alias_share_kind_name(k);
    /* the fallbacks: one a line with --verbose, else those of one kind and reason to a line */
    GPtrArray *lines = job->verbose ? alias_fallback_notes(job->aliases) : alias_fallback_summary(job->aliases);
    report_aliasing(stdout, job->format, job->aliases->aliased_ops, job->aliases->copied_ops, saved, names,
                    SHARE_KIND_COUNT, lines, job->aliases->fallbacks->len);
    g_ptr_array_unref(lines);
    cli_print_fusion(job);
    cli_print_bounds(job);
}

void cli_print_fusion(const Job *job)
{
    if (!job->fused.applied || !job->format->notes)
        return;
    guint count;
    const FuseRule *rules = fuse_rule_table(&count);
    printf("\n%s%-16s %6s  %s\n", job->format->block, "fusion (--fuse)", "sites", "intermediates removed");
    guint idle = 0; /* rules of the kind that fused nothing: one line for them all, unless --verbose */
    for (guint k = 0; k < count; k++) {
        if (!fuse_rule_in_kind(&rules[k], job->fused.kind))
            continue;
        if (!job->fused.sites[k] && !job->verbose) {
            idle++;
            continue;
        }
        char *bytes = sim_format_bytes(job->fused.bytes[k]);
        printf("%s%-16s %6u  %s%s\n", job->format->block, rules[k].name, job->fused.sites[k],
               rules[k].expands && job->fused.bytes[k] ? "added: " : "", bytes);
        g_free(bytes);
    }
    if (idle)
        printf("%s%u other rule%s of --fuse %s fused nothing here (--verbose lists them)\n", job->format->block, idle,
               idle == 1 ? "" : "s", job->fused.kind);
}

guint job_bounded_tensors(const Job *job)
{
    guint count = 0;
    for (guint k = 0; job->model && k < job->model->graph->tensors->len; k++)
        count += ((const Tensor *)job->model->graph->tensors->pdata[k])->bound_why != NULL;
    return count;
}

void cli_print_bounds(const Job *job)
{
    guint count = job_bounded_tensors(job);
    if (!count || !job->format->notes)
        return;
    printf("\nupper-bound plan: %u data-dependent tensor%s planned at %s bound%s (a run may use less; --bound NAME=MAX "
           "plans one smaller):\n", count, count == 1 ? "" : "s", count == 1 ? "its" : "their", count == 1 ? "" : "s");
    for (guint k = 0; k < job->model->graph->tensors->len; k++) {
        const Tensor *t = job->model->graph->tensors->pdata[k];
        if (!t->bound_why)
            continue;
        char *name = escape_terminal(t->name), *dims = graph_dims_to_string(t->rank, t->dims);
        printf("%s'%s' %s %s, dimension %d: %s\n", job->format->item, name, dtype_name(t->dtype),
               dims, t->bound_axis, t->bound_why);
        g_free(name);
        g_free(dims);
    }
}

ReportRow job_report_row(const Job *job)
{
    ReportRow row = driver_report_row(job->source, job->dims_text, job->graph_path ? job->order->name : "file",
                                      job->graph_path ? job->alias : "none", job->aliases, job->no_alias_bytes);
    row.strategy = job->strategy->name;
    row.bounded = job_bounded_tensors(job);
    row.unknown_ops = job->unknown_ops;
    return row;
}

gboolean cli_write_chrome_trace(const Job *job, const Trace *t, const Plan *const *plans, guint count, const double *seconds,
                            GError **error)
{
    const char **names = g_new0(const char *, t->steps + 1), **types = g_new0(const char *, t->steps + 1);
    for (guint s = 0; job->schedule && s < job->schedule->len && s < t->steps; s++) {
        const Node *node = g_ptr_array_index(job->schedule, s);
        names[s] = node->name && *node->name ? node->name : node->op_type;
        types[s] = node->op_type;
    }
    const char *strategy = count == 1 ? plans[0]->strategy->name : "every strategy";
    char *title = job->graph_path ? g_strdup_printf("%s: %s, order %s, alias %s", job->graph_path, strategy,
                                                    job->order->name, job->alias)
                                  : g_strdup_printf("%s: %s", job->trace_path, strategy);
    ChromeTraceLabels labels = {.title = title, .op_names = names, .op_types = types, .seconds = seconds};
    gboolean ok = chrome_trace_write(job->chrome_trace, t, plans, count, &labels, error);
    g_free(title);
    g_free(names);
    g_free(types);
    return ok;
}

gboolean cli_write_html(const Job *job, const Trace *t, const Plan *const *plans, guint count, GError **error)
{
    char *title = job->graph_path ? g_strdup_printf("%s (dims %s), order %s, alias %s", job->graph_path, job->dims_text,
                                                    job->order->name, job->alias)
                                  : g_strdup(job->trace_path);
    char **about = job->aliases ? alias_buffer_about(job->aliases, t) : NULL;
    gboolean ok = html_view_write(job->html_out, title, t, plans, count, (const char *const *)about, error);
    g_strfreev(about);
    g_free(title);
    return ok;
}

gboolean cli_write_plot(const Job *job, const Trace *t, const Plan *const *plans, guint count, GError **error)
{
    const char *strategy = count == 1 ? plans[0]->strategy->name : "every strategy";
    char *title = job->plot_title ? g_strdup(job->plot_title)
                  : job->graph_path ? g_strdup_printf("%s (dims %s), order %s, alias %s: %s", job->graph_path,
                                                      job->dims_text, job->order->name, job->alias, strategy)
                                    : g_strdup_printf("%s: %s", job->trace_path, strategy);
    gboolean ok = job->plot_kind->draw_plans(job->plot_out, title, t, plans, count, &job->layout_window, error);
    g_free(title);
    return ok;
}

int cli_table_plot(const Job *job)
{
    GError *error = NULL;
    CsvTable *table = csv_table_read(job->table_path, &error);
    if (!table)
        return cli_file_error(job->table_path, error);
    csv_table_drop_empty(table, "arena_bytes"); /* rows of orders that could not run: nothing to draw */
    for (char **w = job->plot_where; w && *w; w++)
        if (!csv_table_where(table, *w, &error)) {
            csv_table_free(table);
            return cli_file_error(job->table_path, error);
        }
    const PlotKindRow *kind = job->plot_kind;
    TablePlotOptions options = {.table_path = job->table_path, .x = job->plot_x, .title = job->plot_title,
                                .y = job->plot_y ? job->plot_y : kind->default_y};
    gboolean ok = job->plot_facet ? plot_table_facets(job->plot_out, table, &options, job->plot_facet, kind->bars, &error)
                                  : kind->draw_table(job->plot_out, table, &options, &error);
    csv_table_free(table);
    /* What is wrong in the table is said against the table; a failed drawing against the picture. */
    int status = ok ? 0 : cli_file_error(error && error->domain == SIM_ERROR && error->code == SIM_ERROR_IO ? job->plot_out
                                                                                                      : job->table_path,
                                     error);
    g_clear_error(&error);
    return status;
}
