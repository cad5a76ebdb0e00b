/* main.c — the `sim` command: parse options, load a model (inferring every shape) or a trace, then run
 * the job: the graph summary (--info), one strategy's plan (the default), or every strategy side by side
 * (--compare). Every plan goes through the verifier unless --no-verify. Errors a user can cause end as
 * one line `sim: FILE: what is wrong` and exit 1; usage errors exit 2. */
#include "memory/alias.h"
#include "memory/bins.h"
#include "report/chrome-trace.h"
#include "cli/cli-options.h"
#include "base/files.h"
#include "model/graph.h"
#include "report/info.h"
#include "memory/liveness.h"
#include "model/onnx.h"
#include "ops/ops.h"
#include "cli/phases.h"
#include "plan/place.h"
#include "report/plot.h"
#include "report/plot-table.h"
#include "cli/run.h"
#include "strategies/registry.h"
#include "report/report.h"
#include "ops/shape.h"
#include "plan/verify.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *graph_path, *trace_path, *trace_out, *bins_path, *chrome_trace, *plot, *plot_out;
    char *from, *plot_x, *plot_y, *plot_title;
    char **dims, **pins;
    char *strategy, *format, *weights, *io, *transpose, *alias, *order, *orders;
    gint64 order_budget, seed, search_max;
    gdouble order_seconds, budget;
    gint64 pad_last, align;
    gboolean info, allow_unknown_ops, list_ops, list, version, compare, map, ascii, no_verify, strict_runtime, scratch;
    gboolean run, check, poison;
    gint64 repeat;
    char *profile, *phases;
    const CliStrict *given; /* which options were on the command line */
} CliOptions;

static int usage_error(const char *message)
{
    fprintf(stderr, "sim: %s (see sim --help)\n", message);
    return 2;
}

static int file_error(const char *path, const GError *error)
{
    /* Trace errors already carry FILE:LINE. */
    if (g_str_has_prefix(error->message, path))
        fprintf(stderr, "sim: %s\n", error->message);
    else
        fprintf(stderr, "sim: %s: %s\n", path, error->message);
    return 1;
}

static void list_ops(void)
{
    gsize count;
    const OpInfo *ops = op_table(&count);
    for (gsize k = 0; k < count; k++)
        printf("%-24s %s\n", ops[k].name, op_class_name(ops[k].op_class));
}

static void list_strategies(void)
{
    guint count;
    const PlaceStrategy *const *all = place_strategies(&count);
    printf("placement strategies (--strategy):\n");
    for (guint k = 0; k < count; k++)
        printf("  %-18s %s\n", all[k]->name, all[k]->summary);
    const OrderStrategy *const *orders = order_strategies(&count);
    printf("operator orders (--order, --orders):\n");
    for (guint k = 0; k < count; k++)
        printf("  %-18s %s\n", orders[k]->name, orders[k]->summary);
    const AliasStrategy *const *aliases = alias_strategies(&count);
    printf("alias strategies (--alias, applied in this order):\n");
    for (guint k = 0; k < count; k++)
        printf("  %-18s %s\n", aliases[k]->name, aliases[k]->summary);
}

static Model *load_model(const char *path, const ShapeOptions *shape_options, GError **error)
{
    Model *m = onnx_read_file(path, error);
    phases_mark("load");
    if (m && !shape_infer(m, shape_options, error)) {
        model_free(m);
        m = NULL;
    }
    phases_mark("shapes");
    return m;
}

/* The run's inputs, checked: which source, which strategies, which layout. */
typedef struct {
    ReportFormat format;
    PlotKind plot;
    LayoutOptions layout;
    GHashTable *pins;
    PlaceOptions place;
    const OrderStrategy *order;
    OrderProblem *order_problem;
    GPtrArray *schedule; /* the order the trace was made in (the alias map points to it) */
    AliasMap *aliases;   /* what sharing the graph's trace has (NULL for a trace file) */
    guint64 no_alias_bytes;
    const PlaceStrategy *strategy;
    char *dims_text;
    const Model *model;  /* the graph's model (NULL for a trace file), for --run */
} Job;

static int check_options(const CliOptions *o, Job *job)
{
    if (o->graph_path && o->trace_path)
        return usage_error("--graph and --trace exclude each other: plan a model or a trace");
    if (!o->graph_path && !o->trace_path)
        return usage_error("no input: use --graph FILE or --trace FILE");
    if (o->info && o->trace_path)
        return usage_error("--info summarises a model: use it with --graph");
    if (o->info && (o->compare || o->map || o->ascii))
        return usage_error("--info prints the graph summary; --compare, --map and --ascii need a plan");
    if (o->trace_path && (o->dims || o->weights || o->io || o->transpose || o->pad_last || o->align || o->alias || o->pins || o->strict_runtime ||
                          o->scratch || o->bins_path))
        return usage_error("--dim, --weights, --io, --transpose, --pad-last, --align, --alias, --pin, --bins, --scratch and --strict-runtime "
                           "shape a trace from a model: use them with --graph");
    if (!o->plot != !o->plot_out)
        return usage_error("--plot KIND and --out FILE go together");
    if (o->plot && !plot_kind_parse(o->plot, &job->plot))
        return usage_error("--plot takes timeline, layout, compare or sweep");
    if (o->plot && (job->plot == PLOT_COMPARE || job->plot == PLOT_SWEEP))
        return usage_error("--plot compare and --plot sweep draw a result table: give it with --from FILE.csv");
    if (o->plot_x || o->plot_y || o->plot_title)
        return usage_error("--x, --y and --title shape --plot compare and --plot sweep (with --from)");
    if (o->plot && job->plot == PLOT_LAYOUT && o->compare)
        return usage_error("--plot layout draws one plan: drop --compare");
    if ((o->plot || o->chrome_trace) && (o->info || o->orders))
        return usage_error("--plot and --chrome-trace draw the plan of one order: drop --info and --orders");
    GError *plot_error = NULL;
    if (o->plot_out && !plot_path_check(o->plot_out, &plot_error)) {
        char *msg = g_strdup_printf("--out %s: %s", o->plot_out, plot_error->message);
        int r = usage_error(msg);
        g_free(msg);
        g_error_free(plot_error);
        return r;
    }
    if ((o->check || o->poison || o->repeat || o->profile) && !o->run)
        return usage_error("--check, --poison, --repeat and --profile go with --run");
    if (o->run && (!o->graph_path || o->compare || o->orders || o->info))
        return usage_error("--run executes one plan of a model: use it with --graph and one --strategy");
    if (cli_strict_given(o->given, "repeat") && (o->repeat < 1 || o->repeat > 100000))
        return usage_error("--repeat takes a count from 1 to 100,000");
    if (o->compare && o->chrome_trace)
        return usage_error("--chrome-trace draws one plan: drop --compare");
    if (o->compare && o->strategy && !o->orders)
        return usage_error("--compare runs every strategy: drop --strategy (or compare orders with --orders)");
    if (!report_format_parse(o->format ? o->format : "text", &job->format))
        return usage_error("--format takes text, md, csv or json");
    job->strategy = place_strategy_find(o->strategy ? o->strategy : "bestfit");
    if (!job->strategy) {
        char *names = place_strategy_names();
        char *msg = g_strdup_printf("unknown strategy '%s' (one of: %s)", o->strategy, names);
        int r = usage_error(msg);
        g_free(msg);
        g_free(names);
        return r;
    }
    LayoutOptions defaults = LAYOUT_DEFAULTS;
    job->layout = defaults;
    if (cli_strict_given(o->given, "pad-last") && (o->pad_last < 1 || o->pad_last > (1 << 20)))
        return usage_error("--pad-last takes a positive multiple (1 for no padding)");
    if (cli_strict_given(o->given, "align") && (o->align < 1 || (o->align & (o->align - 1)) || o->align > (1 << 30)))
        return usage_error("--align takes a power of two");
    if (o->pad_last)
        job->layout.pad_last = (guint64)o->pad_last;
    if (o->align)
        job->layout.align = (guint64)o->align;
    if (o->weights && strcmp(o->weights, "arena") && strcmp(o->weights, "outside"))
        return usage_error("--weights takes arena or outside");
    job->layout.weights_in_arena = o->weights && !strcmp(o->weights, "arena");
    if (o->io && strcmp(o->io, "arena") && strcmp(o->io, "outside") && strcmp(o->io, "inputs-outside"))
        return usage_error("--io takes arena, outside or inputs-outside");
    job->layout.inputs_outside = o->io && strcmp(o->io, "arena");
    job->layout.outputs_outside = o->io && !strcmp(o->io, "outside");
    if (o->transpose && strcmp(o->transpose, "view") && strcmp(o->transpose, "move"))
        return usage_error("--transpose takes view or move");
    job->layout.transpose_moves = o->transpose && !strcmp(o->transpose, "move");
    job->order = order_strategy_find(o->order ? o->order : "file");
    if (!job->order) {
        char *names = order_strategy_names();
        char *msg = g_strdup_printf("unknown order '%s' (one of: %s)", o->order, names);
        int r = usage_error(msg);
        g_free(msg);
        g_free(names);
        return r;
    }
    GError *name_error = NULL;
    if (o->alias && !alias_list_check(o->alias, &name_error)) { /* every name resolved before any work: exit 2 */
        int r = usage_error(name_error->message);
        g_error_free(name_error);
        return r;
    }
    if (o->orders && strcmp(o->orders, "all")) {
        char **names = g_strsplit(o->orders, ",", -1);
        for (char **n = names; *n; n++)
            if (!order_strategy_find(g_strstrip(*n))) {
                char *msg = g_strdup_printf("unknown order '%s' in --orders", *n);
                int r = usage_error(msg);
                g_free(msg);
                g_strfreev(names);
                return r;
            }
        g_strfreev(names);
    }
    if (o->trace_path && (o->order || o->orders))
        return usage_error("--order and --orders schedule a model: use them with --graph");
    if (o->orders && !o->compare)
        return usage_error("--orders lists the orders --compare runs: add --compare");
    if (o->orders && o->order)
        return usage_error("--orders runs every listed order: drop --order");
    if ((cli_strict_given(o->given, "order-budget") && o->order_budget < 1) ||
        (cli_strict_given(o->given, "order-seconds") && o->order_seconds <= 0))
        return usage_error("--order-budget and --order-seconds take positive numbers");
    PlaceOptions place_defaults = PLACE_OPTIONS_DEFAULTS;
    job->place = place_defaults;
    job->place.portfolio = place_registry;
    if (cli_strict_given(o->given, "budget") && o->budget <= 0)
        return usage_error("--budget takes a positive number of seconds");
    if (o->search_max < 0 || o->search_max > G_MAXUINT32 || o->seed < 0 || o->seed > G_MAXUINT32)
        return usage_error("--search-max and --seed take numbers from 0 to 4,294,967,295");
    if (cli_strict_given(o->given, "budget"))
        job->place.budget_seconds = o->budget;
    if (cli_strict_given(o->given, "search-max"))
        job->place.search_max = (guint)o->search_max;
    if (cli_strict_given(o->given, "seed"))
        job->place.seed = (guint32)o->seed;
    job->dims_text = o->dims ? g_strjoinv(",", o->dims) : g_strdup("-");
    job->pins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    for (char **p = o->pins; p && *p; p++) {
        GError *error = NULL;
        if (!alias_pins_parse(job->pins, *p, &error)) {
            int r = usage_error(error->message);
            g_error_free(error);
            return r;
        }
    }
    return 0;
}

/* Graph to trace: the schedule from the order strategy, then the alias strategies chosen with --alias. */
static Trace *graph_trace(const CliOptions *o, Job *job, const Model *m, GError **error)
{
    const Graph *g = m->graph;
    if (!job->order_problem) {
        job->order_problem = order_problem_new(g, &job->layout, error);
        if (!job->order_problem)
            return NULL;
        job->order_problem->incumbents = order_registry;
        if (o->order_budget)
            job->order_problem->budget_states = (guint64)o->order_budget;
        if (o->order_seconds > 0)
            job->order_problem->budget_seconds = o->order_seconds;
    }
    if (job->schedule)
        g_ptr_array_unref(job->schedule);
    alias_map_free(job->aliases);
    job->aliases = NULL;
    job->no_alias_bytes = 0;
    job->schedule = order_schedule(job->order, job->order_problem, error);
    phases_mark("order");
    if (!job->schedule)
        return NULL;
    job->aliases = alias_map_new(g, job->schedule, &job->layout, NULL, job->pins, error);
    phases_mark("liveness");
    if (!job->aliases)
        return NULL;
    if (o->bins_path) {
        BinRules *rules = bin_rules_read_file(o->bins_path, error);
        if (!rules)
            return NULL;
        guint *bins = bin_rules_assign(rules, g, job->aliases->bytes);
        memcpy(job->aliases->bin, bins, g->tensors->len * sizeof(guint));
        g_free(bins);
        bin_rules_free(rules);
    }
    job->aliases->strict_runtime = o->strict_runtime;
    job->aliases->scratch = o->scratch;
    for (guint k = 0; k < g->tensors->len; k++)
        job->no_alias_bytes += job->aliases->bytes[k];
    gboolean shared = alias_apply_list(job->aliases, o->alias ? o->alias : "all", error);
    phases_mark("sharing");
    if (!shared)
        return NULL;
    Trace *t = trace_from_alias_map(job->aliases, job->pins, error);
    phases_mark("trace");
    return t;
}

static void print_aliasing(const Job *job)
{
    if (!job->aliases)
        return;
    guint64 saved[SHARE_KIND_COUNT];
    const char *names[SHARE_KIND_COUNT];
    alias_savings(job->aliases, saved);
    for (guint k = 0; k < SHARE_KIND_COUNT; k++)
        names[k] = share_kind_name(k);
    report_aliasing(stdout, job->format, job->aliases->aliased_ops, job->aliases->copied_ops, saved, names,
                    SHARE_KIND_COUNT, job->aliases->notes);
}

/* The row's per-kind savings and fallback count (zero for a trace file: no graph, no sharing decisions). */
static void row_set_sharing(ReportRow *row, const Job *job)
{
    memset(row->saved, 0, sizeof row->saved);
    row->fallbacks = 0;
    if (!job->aliases)
        return;
    alias_savings(job->aliases, row->saved);
    row->fallbacks = job->aliases->notes->len;
}

/* --chrome-trace: the plan as trace events, each step named by the node the schedule runs there. */
static gboolean write_chrome_trace(const CliOptions *o, const Job *job, const Trace *t, const Plan *plan,
                                   const double *seconds, GError **error)
{
    const char **names = g_new0(const char *, t->steps), **types = g_new0(const char *, t->steps);
    for (guint s = 0; job->schedule && s < job->schedule->len && s < t->steps; s++) {
        const Node *node = g_ptr_array_index(job->schedule, s);
        names[s] = node->name && *node->name ? node->name : node->op_type;
        types[s] = node->op_type;
    }
    char *title = o->graph_path ? g_strdup_printf("%s: %s, order %s, alias %s", o->graph_path, plan->strategy->name,
                                                  job->order->name, o->alias ? o->alias : "all")
                                : g_strdup_printf("%s: %s", o->trace_path, plan->strategy->name);
    ChromeTraceLabels labels = {.title = title, .op_names = names, .op_types = types, .seconds = seconds};
    gboolean ok = chrome_trace_write(o->chrome_trace, t, plan, &labels, error);
    g_free(title);
    g_free(names);
    g_free(types);
    return ok;
}

/* --plot: the plans of one trace in one picture, titled by graph, dims, order and strategy. */
static gboolean write_plot(const CliOptions *o, const Job *job, const Trace *t, const Plan *const *plans, guint count,
                           GError **error)
{
    const char *strategy = count == 1 ? plans[0]->strategy->name : "every strategy";
    char *title = o->graph_path ? g_strdup_printf("%s (dims %s), order %s, alias %s: %s", o->graph_path,
                                                  job->dims_text ? job->dims_text : "-", job->order->name,
                                                  o->alias ? o->alias : "all", strategy)
                                : g_strdup_printf("%s: %s", o->trace_path, strategy);
    gboolean ok = job->plot == PLOT_LAYOUT ? plot_layout(o->plot_out, title, t, plans[0], error)
                                           : plot_timeline(o->plot_out, title, t, plans, count, error);
    g_free(title);
    return ok;
}

/* --from TABLE --plot compare|sweep: a picture of a result table, no planning. */
static int run_table_plot(const CliOptions *o)
{
    PlotKind kind;
    if (!o->plot || !o->plot_out)
        return usage_error("--from FILE.csv is drawn with --plot compare|sweep --out FILE.png|svg");
    if (!plot_kind_parse(o->plot, &kind) || (kind != PLOT_COMPARE && kind != PLOT_SWEEP))
        return usage_error("--from draws a result table: --plot compare or --plot sweep");
    if (o->graph_path || o->trace_path || o->compare || o->orders || o->info || o->chrome_trace || o->trace_out)
        return usage_error("--from draws an existing table: drop --graph, --trace, --compare, --orders, --info, "
                           "--chrome-trace and --trace-out");
    if (kind == PLOT_SWEEP && !o->plot_x)
        return usage_error("--plot sweep needs --x NAME: a column or a --dim name of the table");
    GError *error = NULL;
    if (!plot_path_check(o->plot_out, &error)) {
        char *msg = g_strdup_printf("--out %s: %s", o->plot_out, error->message);
        int r = usage_error(msg);
        g_free(msg);
        g_error_free(error);
        return r;
    }
    CsvTable *table = csv_table_read(o->from, &error);
    if (!table)
        return file_error(o->from, error);
    TablePlotOptions options = {.table_path = o->from, .x = o->plot_x, .title = o->plot_title,
                                .y = o->plot_y ? o->plot_y : kind == PLOT_COMPARE ? "ratio" : "arena_bytes"};
    gboolean ok = kind == PLOT_COMPARE ? plot_compare(o->plot_out, table, &options, &error)
                                       : plot_sweep(o->plot_out, table, &options, &error);
    csv_table_free(table);
    /* What is wrong in the table is said against the table; a failed drawing against the picture. */
    int status = ok ? 0 : file_error(error && error->code == 2 ? o->plot_out : o->from, error);
    g_clear_error(&error);
    return status;
}

/* Plans with one strategy, verifies, fills a report row. */
static Plan *plan_one(const PlaceStrategy *s, const Trace *t, const PlaceOptions *options, gboolean verify,
                      guint64 naive, ReportRow *row, GError **error)
{
    Plan *plan = place_run_with(s, t, options, error);
    phases_mark("place");
    if (!plan)
        return NULL;
    gboolean verified = !verify || verify_plan(t, plan, error);
    if (verify)
        phases_mark("verify");
    if (!verified) {
        g_prefix_error(error, "strategy %s: ", s->name);
        plan_free(plan);
        return NULL;
    }
    row->strategy = s->name;
    row->verified = verify;
    report_row_fill(row, t, plan, naive);
    return plan;
}

static int run_plan(const CliOptions *o, const Job *job, const Trace *t)
{
    const char *source = o->graph_path ? o->graph_path : o->trace_path;
    GError *error = NULL;
    int status = 0;
    Plan *naive = place_run(place_strategy_baseline(), t, &error);
    phases_mark("naive");
    if (!naive) {
        status = file_error(source, error);
        g_error_free(error);
        return status;
    }
    ReportRow base = {.graph = source, .dims = job->dims_text, .order = o->graph_path ? job->order->name : "file",
                      .alias = o->graph_path ? (o->alias ? o->alias : "all") : "none",
                      .no_alias_bytes = job->no_alias_bytes};
    row_set_sharing(&base, job);
    if (o->compare) {
        guint count;
        const PlaceStrategy *const *all = place_strategies(&count);
        ReportRow *rows = g_new0(ReportRow, count);
        Plan **plans = g_new0(Plan *, count);
        for (guint k = 0; k < count && !status; k++) {
            rows[k] = base;
            plans[k] = plan_one(all[k], t, &job->place, !o->no_verify, naive->arena, &rows[k], &error);
            if (!plans[k])
                status = file_error(source, error);
        }
        for (guint k = 0; k < count && !status; k++)
            rows[k].no_alias_bytes = o->graph_path ? job->no_alias_bytes : rows[k].trace_bytes;
        if (!status) {
            report_print(stdout, job->format, rows, count);
            print_aliasing(job);
            if (o->plot && !write_plot(o, job, t, (const Plan *const *)plans, count, &error))
                status = file_error(o->plot_out, error);
        }
        for (guint k = 0; k < count; k++)
            plan_free(plans[k]);
        g_free(plans);
        g_free(rows);
    } else {
        ReportRow row = base;
        Plan *plan = plan_one(job->strategy, t, &job->place, !o->no_verify, naive->arena, &row, &error);
        if (!plan) {
            status = file_error(source, error);
        } else {
            if (!o->graph_path)
                row.no_alias_bytes = row.trace_bytes;
            if (o->map) {
                row.map_trace = t;
                row.map_offsets = plan->offsets;
            }
            report_print(stdout, job->format, &row, 1);
            print_aliasing(job);
            if (o->map)
                report_map(stdout, job->format, t, plan->offsets);
            if (o->ascii)
                report_ascii(stdout, t, plan, 100, 32);
            double *seconds = NULL; /* measured per step, when --run: the Chrome trace's span lengths */
            RunOptions run = {.repeat = (guint)MAX(o->repeat, 1), .check = o->check, .poison = o->poison,
                              .profile_path = o->profile, .format = job->format, .node_seconds = &seconds};
            phases_mark("report");
            if (o->run &&
                !run_execute(stdout, &run, job->model, job->schedule, job->aliases, t, plan, &error))
                status = file_error(error && error->domain == SIM_ERROR && error->code == SIM_ERROR_IO ? o->profile : o->graph_path, error);
            if (o->run)
                phases_mark("run");
            if (!status && o->chrome_trace && !write_chrome_trace(o, job, t, plan, seconds, &error))
                status = file_error(o->chrome_trace, error);
            if (!status && o->plot && !write_plot(o, job, t, (const Plan *const *)&plan, 1, &error))
                status = file_error(o->plot_out, error);
            g_free(seconds);
        }
        plan_free(plan);
    }
    plan_free(naive);
    g_clear_error(&error);
    return status;
}

/* --compare --orders: the chosen strategy under every listed order, one row each. */
static int run_orders(const CliOptions *o, Job *job, const Model *m)
{
    guint count;
    const OrderStrategy *const *all = order_strategies(&count);
    GPtrArray *chosen = g_ptr_array_new();
    if (!strcmp(o->orders, "all")) {
        for (guint k = 0; k < count; k++)
            g_ptr_array_add(chosen, (gpointer)all[k]);
    } else {
        char **names = g_strsplit(o->orders, ",", -1);
        for (char **n = names; *n; n++) {
            const OrderStrategy *s = order_strategy_find(g_strstrip(*n));
            if (!s) {
                char *msg = g_strdup_printf("unknown order '%s' in --orders", *n);
                int r = usage_error(msg);
                g_free(msg);
                g_strfreev(names);
                g_ptr_array_unref(chosen);
                return r;
            }
            g_ptr_array_add(chosen, (gpointer)s);
        }
        g_strfreev(names);
    }
    ReportRow *rows = g_new0(ReportRow, chosen->len);
    GPtrArray *keep = g_ptr_array_new_with_free_func((GDestroyNotify)plan_free);
    int status = 0;
    GError *error = NULL;
    guint done = 0;
    for (guint k = 0; k < chosen->len && !status; k++) {
        job->order = chosen->pdata[k];
        Trace *t = graph_trace(o, job, m, &error);
        Plan *naive = t ? place_run(place_strategy_baseline(), t, &error) : NULL;
        Plan *plan = naive ? plan_one(job->strategy, t, &job->place, !o->no_verify, naive->arena, &rows[k], &error) : NULL;
        if (!plan) {
            /* An order that cannot run here (optimal past its budget, file on an unsorted file) gets a row saying so. */
            rows[k] = (ReportRow){.graph = o->graph_path, .dims = job->dims_text, .order = job->order->name,
                                  .strategy = job->strategy->name, .alias = o->alias ? o->alias : "all"};
            fprintf(stderr, "sim: %s: %s\n", o->graph_path, error->message);
            g_clear_error(&error);
        } else {
            rows[k].graph = o->graph_path;
            rows[k].dims = job->dims_text;
            rows[k].order = job->order->name;
            rows[k].alias = o->alias ? o->alias : "all";
            rows[k].no_alias_bytes = job->no_alias_bytes;
            row_set_sharing(&rows[k], job);
            done++;
            g_ptr_array_add(keep, plan);
        }
        plan_free(naive);
        trace_free(t);
    }
    if (!done)
        status = 1;
    else
        report_print(stdout, job->format, rows, chosen->len);
    g_ptr_array_unref(keep);
    g_free(rows);
    g_ptr_array_unref(chosen);
    return status;
}

static int run(const CliOptions *o)
{
    Job job = {0};
    GError *error = NULL;
    Model *m = NULL;
    Trace *t = NULL;
    ShapeOptions shape_options;
    shape_options_init(&shape_options);
    int status = check_options(o, &job); /* on failure, fall through to the cleanup below */
    shape_options.allow_unknown_ops = o->allow_unknown_ops;
    for (char **d = o->dims; d && *d && !status; d++)
        if (!shape_options_add_dim(&shape_options, *d, &error))
            status = usage_error(error->message);
    if (!status && o->graph_path) {
        m = load_model(o->graph_path, &shape_options, &error);
        job.model = m;
        if (!m)
            status = file_error(o->graph_path, error);
        else if (o->info)
            info_print(stdout, job.format, m, o->graph_path);
        else if (o->orders)
            status = run_orders(o, &job, m);
        else if (!(t = graph_trace(o, &job, m, &error)))
            status = file_error(o->graph_path, error);
    } else if (!status) {
        t = trace_read_file(o->trace_path, &error);
        phases_mark("load");
        if (!t)
            status = file_error(o->trace_path, error);
    }
    if (!status && t && o->trace_out && !trace_write_file(t, NULL, o->trace_out, &error))
        status = file_error(o->trace_out, error);
    if (!status && t)
        status = run_plan(o, &job, t);
    phases_mark("output"); /* the rest: --compare's report, pictures, --chrome-trace, --trace-out */
    if (!status && o->phases && !phases_write(o->phases, &error))
        status = file_error(o->phases, error);
    if (status && o->trace_out && t) /* a failed run leaves no output behind */
        g_unlink(o->trace_out);
    g_clear_error(&error);
    trace_free(t);
    model_free(m);
    shape_options_clear(&shape_options);
    alias_map_free(job.aliases);
    if (job.schedule)
        g_ptr_array_unref(job.schedule);
    order_problem_free(job.order_problem);
    if (job.pins)
        g_hash_table_unref(job.pins);
    g_free(job.dims_text);
    return status;
}

int main(int argc, char **argv)
{
    CliOptions o = {0};
    GOptionEntry entries[] = {
        {"graph", 'g', 0, G_OPTION_ARG_FILENAME, &o.graph_path, "The ONNX model to plan", "FILE"},
        {"trace", 't', 0, G_OPTION_ARG_FILENAME, &o.trace_path,
         "A trace to plan instead of a model: our text format, or MiniMalloc CSV (.csv)", "FILE"},
        {"strategy", 's', 0, G_OPTION_ARG_STRING, &o.strategy, "Placement strategy (default bestfit; see --list)", "NAME"},
        {"compare", 'c', 0, G_OPTION_ARG_NONE, &o.compare, "Run every strategy on the same trace, one table", NULL},
        {"order", 'o', 0, G_OPTION_ARG_STRING, &o.order, "Operator order (default file; see --list)", "NAME"},
        {"orders", 0, 0, G_OPTION_ARG_STRING, &o.orders,
         "With --compare: the strategy (--strategy, default bestfit) under each order: all or a comma list", "LIST"},
        {"order-budget", 0, 0, G_OPTION_ARG_INT64, &o.order_budget,
         "States the optimal order may explore before it gives up (default 2,000,000)", "STATES"},
        {"order-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &o.order_seconds,
         "Seconds the optimal order may run before it gives up (default 10)", "S"},
        {"list", 'l', 0, G_OPTION_ARG_NONE, &o.list, "List the strategies with a one-line summary each", NULL},
        {"budget", 0, 0, G_OPTION_ARG_DOUBLE, &o.budget, "Seconds search and climb may take (default 10)", "S"},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "Seed of climb's random choices (default 1)", "N"},
        {"search-max", 0, 0, G_OPTION_ARG_INT64, &o.search_max,
         "best runs search on problems of at most N buffers (default 1000)", "N"},
        {"dim", 'd', 0, G_OPTION_ARG_STRING_ARRAY, &o.dims,
         "Bind a symbolic dimension (repeatable), e.g. --dim batch=1 --dim seq=128", "NAME=VALUE"},
        {"transpose", 0, 0, G_OPTION_ARG_STRING, &o.transpose,
         "Transpose as a metadata view sharing its input's bytes (view, the seeds' default) or as a data move that "
         "may only overwrite a dying input (move: what a dense-kernel runtime, and --run, can honour)", "view|move"},
        {"io", 0, 0, G_OPTION_ARG_STRING, &o.io,
         "Graph inputs and outputs: in the arena (default, as TFLite plans them), outside it (the caller's buffers), or "
         "inputs-outside (the caller's inputs, outputs allocated by the runtime: ONNX Runtime's model)",
         "arena|outside|inputs-outside"},
        {"weights", 0, 0, G_OPTION_ARG_STRING, &o.weights,
         "Weights and constants: outside the arena (default) or in it (arena), live throughout", "outside|arena"},
        {"pad-last", 0, 0, G_OPTION_ARG_INT64, &o.pad_last,
         "Round every tensor's last dimension up to a multiple of N (the seeds' NHWC layout uses 64; default 1)", "N"},
        {"align", 0, 0, G_OPTION_ARG_INT64, &o.align, "Align every buffer offset to A bytes (default 64)", "A"},
        {"alias", 'a', 0, G_OPTION_ARG_STRING, &o.alias,
         "Alias strategies: all (default), none, or a comma list of concat-dedup, runtime, noop, inplace", "LIST"},
        {"pin", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.pins,
         "Pre-allocate tensor NAME at byte OFFSET (repeatable); pins propagate through noop chains", "NAME=OFFSET"},
        {"strict-runtime", 0, 0, G_OPTION_ARG_NONE, &o.strict_runtime,
         "A Gather/Slice/Concat/Split that cannot alias is an error (the seed's texts), not a copy", NULL},
        {"bins", 0, 0, G_OPTION_ARG_FILENAME, &o.bins_path,
         "Memory bins: lines 'BIN name=GLOB' or 'BIN size>=BYTES'; each bin is its own arena", "FILE"},
        {"scratch", 0, 0, G_OPTION_ARG_NONE, &o.scratch,
         "Add kernel workspace from the op table (Conv's im2col) as single-step buffers", NULL},
        {"plot", 0, 0, G_OPTION_ARG_STRING, &o.plot,
         "Draw the plan with gnuplot: timeline (live and spanned bytes per step; with --compare every plan) or "
         "layout (the plan as rectangles, step across, address up)", "KIND"},
        {"out", 0, 0, G_OPTION_ARG_FILENAME, &o.plot_out, "Where --plot draws: FILE.png or FILE.svg", "FILE"},
        {"from", 0, 0, G_OPTION_ARG_FILENAME, &o.from,
         "Draw a result table (the CSV of --format csv or bench/sweep.sh) instead of planning: --plot compare "
         "(bars of arena / lower bound, a cluster per graph, a bar per strategy) or --plot sweep (a metric against --x)",
         "FILE.csv"},
        {"x", 0, 0, G_OPTION_ARG_STRING, &o.plot_x, "--plot sweep: the swept parameter, a column or a --dim name (e.g. seq)",
         "NAME"},
        {"y", 0, 0, G_OPTION_ARG_STRING, &o.plot_y,
         "--plot compare|sweep: the metric, a numeric column or ratio (arena / lower bound); default ratio for compare, "
         "arena_bytes for sweep", "COLUMN"},
        {"title", 0, 0, G_OPTION_ARG_STRING, &o.plot_title, "--plot compare|sweep: the picture's title", "TEXT"},
        {"chrome-trace", 0, 0, G_OPTION_ARG_FILENAME, &o.chrome_trace,
         "Write the plan as Chrome trace events (ui.perfetto.dev, chrome://tracing): ops and live bytes per step",
         "FILE"},
        {"run", 0, 0, G_OPTION_ARG_NONE, &o.run,
         "Execute the plan: real kernels (OpenBLAS) inside one arena of the planned size, every tensor at its planned "
         "offset; reports the median time per op type", NULL},
        {"repeat", 0, 0, G_OPTION_ARG_INT64, &o.repeat, "--run: runs to take the median of (default 1)", "N"},
        {"check", 0, 0, G_OPTION_ARG_NONE, &o.check,
         "--run: run again with nothing shared (--alias none, naive) and require equal outputs, bit for bit", NULL},
        {"poison", 0, 0, G_OPTION_ARG_NONE, &o.poison,
         "--run: fill the arena, and every buffer when it dies, with NaN bytes, so early reuse shows", NULL},
        {"profile", 0, 0, G_OPTION_ARG_FILENAME, &o.profile, "--run: write the per-node times (median) as CSV", "FILE"},
        {"phases", 0, 0, G_OPTION_ARG_FILENAME, &o.phases,
         "Write where the run's time and memory went: one CSV row per phase (load, shapes, order, liveness, sharing, "
         "trace, naive, place, verify, report, run, output) with its seconds and the peak resident set at its end", "FILE"},
        {"trace-out", 0, 0, G_OPTION_ARG_FILENAME, &o.trace_out,
         "Write the trace (text format, or MiniMalloc CSV when FILE ends in .csv)", "FILE"},
        {"format", 'f', 0, G_OPTION_ARG_STRING, &o.format, "Report format: text (default), md, csv, json", "FMT"},
        {"map", 0, 0, G_OPTION_ARG_NONE, &o.map, "Print the plan, one buffer a line: offset size name first last", NULL},
        {"ascii", 0, 0, G_OPTION_ARG_NONE, &o.ascii, "Draw the plan in characters: time across, address down", NULL},
        {"no-verify", 0, 0, G_OPTION_ARG_NONE, &o.no_verify, "Skip the plan verifier", NULL},
        {"info", 'i', 0, G_OPTION_ARG_NONE, &o.info,
         "Print the graph summary instead of planning: opsets, nodes by op type, tensors by kind, weight and "
         "activation bytes, the largest tensor", NULL},
        {"allow-unknown-ops", 0, 0, G_OPTION_ARG_NONE, &o.allow_unknown_ops,
         "Accept ops missing from the op table when the file's value_info gives their output shapes", NULL},
        {"list-ops", 0, 0, G_OPTION_ARG_NONE, &o.list_ops, "List the op table: every known op and its class", NULL},
        {"version", 0, 0, G_OPTION_ARG_NONE, &o.version, "Print the version", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("— memory-arena planning simulator for ML inference graphs");
    GOptionGroup *main_group;
    CliStrict *strict = cli_strict_new(entries, &main_group);
    o.given = strict;
    g_option_context_set_main_group(ctx, main_group);
    g_option_context_set_description(
        ctx, "Loads an ONNX model (inferring every shape) or a trace, turns tensors into buffers with lifetimes,\n"
             "places them with a strategy, verifies the plan and reports the arena against the lower bound.\n"
             "Errors: one line 'sim: FILE: what is wrong' on stderr, exit 1; usage errors exit 2.\n"
             "Examples:\n"
             "  sim --strategy bestfit --graph graphs/gpt2.onnx\n"
             "  sim --compare --graph graphs/gpt2.onnx --format md\n"
             "  sim --trace plan.csv --strategy greedy-size --map\n"
             "  sim --graph graphs/gpt2.onnx --info\n");
    GError *error = NULL;
    int status = 0;
    phases_mark("startup"); /* the clock starts here; the next mark ends option parsing */
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        status = usage_error(error->message);
        g_error_free(error);
    } else if (argc > 1) {
        char *msg = g_strdup_printf("unexpected argument '%s'", argv[1]);
        status = usage_error(msg);
        g_free(msg);
    } else if (o.version) {
        printf("sim (arenasim) 0.2\n");
    } else if (o.list_ops) {
        list_ops();
    } else if (o.list) {
        list_strategies();
    } else if (o.from) {
        status = run_table_plot(&o);
    } else {
        status = run(&o);
    }
    /* Every report goes to stdout: a write that failed there (a full disk, a closed pipe) is an error too. */
    GError *out_error = NULL;
    if (!sim_stdout_finish(&out_error)) {
        fprintf(stderr, "sim: stdout: %s\n", out_error->message);
        g_error_free(out_error);
        status = status ? status : 1;
    }
    g_free(o.graph_path);
    g_free(o.trace_path);
    g_free(o.trace_out);
    g_free(o.chrome_trace);
    g_free(o.plot);
    g_free(o.plot_out);
    g_free(o.from);
    g_free(o.plot_x);
    g_free(o.plot_y);
    g_free(o.plot_title);
    g_free(o.bins_path);
    g_free(o.strategy);
    g_free(o.format);
    g_free(o.weights);
    g_free(o.profile);
    g_free(o.phases);
    g_free(o.io);
    g_free(o.transpose);
    g_strfreev(o.dims);
    g_strfreev(o.pins);
    g_free(o.alias);
    g_free(o.order);
    g_free(o.orders);
    g_option_context_free(ctx);
    cli_strict_free(strict);
    return status;
}
