/* options.c — the command line into one Job (job.h): GOption's table, then every check that needs no file
 * and every name resolved against the registry, so a usage error (exit 2) comes before any work. */
#include "base/escape.h"
#include "cli/cli-options.h"
#include "cli/interrupt.h"
#include "cli/job.h"
#include "driver/driver.h"
#include "driver/entries.h"
#include "driver/generate.h"
#include "driver/range.h"
#include "strategies/registry.h"
#include "structured/structured-json.h"
#include "trace/trace-tiers.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What GOption fills; read once by resolve() and then dropped. */
typedef struct {
    char *graph_path, *trace_path, *trace_out, *solution_out, *bins_path, *chrome_trace, *plot, *plot_out, *html;
    char *check_solution, *pool;
    char *from, *plot_x, *plot_y, *plot_title, *facet, *window_steps, *window_addresses;
    char **dims, **bounds, **pins, **where, **kv, **graphs;
    char *strategy, *format, *weights, *io, *transpose, *alias, *fuse, *order, *orders, *tiers;
    gint64 order_budget, order_work, seed, search_max, budget_work, kv_capacity, generate;
    gdouble order_seconds, budget;
    gboolean progress;
    gint64 pad_last, align;
    gboolean info, allow_unknown_ops, cli_list_ops, list, version, compare, map, ascii, wide, verbose, no_verify,
        strict_runtime, scratch, range_check, range_every, range_one_plan;
    gboolean run, check, poison, allow_degenerate;
    gint64 repeat;
    gint64 threads;
    char *profile, *phases, *search_engines, *inputs, *expect, *dump_outputs, *kernels, *layouts, *winograd, *skinny;
    gdouble rtol, atol;
    const CliStrict *given; /* which options were on the command line */
} RawOptions;

static void raw_clear(RawOptions *o)
{
    char **strings[] = {&o->graph_path, &o->trace_path, &o->trace_out, &o->solution_out, &o->bins_path, &o->chrome_trace, &o->html, &o->plot,
                        &o->plot_out, &o->from, &o->plot_x, &o->plot_y, &o->plot_title, &o->strategy, &o->format,
                        &o->weights, &o->io, &o->transpose, &o->alias, &o->fuse, &o->order, &o->orders, &o->profile, &o->phases,
                        &o->search_engines, &o->inputs, &o->expect, &o->dump_outputs, &o->facet, &o->window_steps,
                        &o->window_addresses, &o->kernels, &o->layouts, &o->winograd, &o->skinny, &o->tiers,
                        &o->check_solution, &o->pool};
    for (gsize k = 0; k < G_N_ELEMENTS(strings); k++)
        g_clear_pointer(strings[k], g_free);
    g_clear_pointer(&o->dims, g_strfreev);
    g_clear_pointer(&o->bounds, g_strfreev);
    g_clear_pointer(&o->pins, g_strfreev);
    g_clear_pointer(&o->where, g_strfreev);
    g_clear_pointer(&o->kv, g_strfreev);
    g_clear_pointer(&o->graphs, g_strfreev);
}

/* A usage error naming a registry lookup that failed, with the known names. */
static int unknown_name(const char *what, const char *name, char *known)
{
    char *msg = g_strdup_printf("unknown %s '%s' (one of: %s)", what, name, known);
    int r = cli_usage_error(msg);
    g_free(msg);
    g_free(known);
    return r;
}

static int gerror_usage(GError *error, const char *prefix)
{
    char *msg = prefix ? g_strdup_printf("%s: %s", prefix, error->message) : g_strdup(error->message);
    int r = cli_usage_error(msg);
    g_free(msg);
    g_error_free(error);
    return r;
}

/* --out FILE: a picture format gnuplot can write (by the name). */
static int check_plot_out(const char *path)
{
    GError *error = NULL;
    if (gnuplot_path_check(path, &error))
        return -1;
    char *prefix = g_strdup_printf("--out %s", path);
    int r = gerror_usage(error, prefix);
    g_free(prefix);
    return r;
}

static gboolean kind_of_table(const PlotKindRow *k) { return k->draw_table != NULL; }
static gboolean kind_of_range(const PlotKindRow *k) { return k->draw_range != NULL; }

/* --from TABLE --plot compare|sweep: only the drawing options count. */
static int resolve_table_plot(const RawOptions *o, Job *job)
{
    if (!o->plot || !o->plot_out)
        return cli_usage_error("--from FILE.csv is drawn with --plot compare|sweep --out FILE.png|svg|pdf");
    if (!(job->plot_kind = plot_kind_find(o->plot)) || !job->plot_kind->draw_table) {
        char *kinds = plot_kind_names(kind_of_table, "--plot ", " or "), *msg = g_strdup_printf("--from draws a result table: %s", kinds);
        int status = cli_usage_error(msg);
        g_free(msg);
        g_free(kinds);
        return status;
    }
    if (o->graph_path || o->trace_path || o->compare || o->orders || o->info || o->chrome_trace || o->html || o->trace_out ||
        o->solution_out)
        return cli_usage_error("--from draws an existing table: drop --graph, --trace, --compare, --orders, --info, "
                           "--chrome-trace, --trace-out and --solution-out");
    if (job->plot_kind->needs && !o->plot_x) {
        char *msg = g_strdup_printf("--plot %s needs %s", job->plot_kind->name, job->plot_kind->needs);
        int status = cli_usage_error(msg);
        g_free(msg);
        return status;
    }
    int status;
    if ((status = check_plot_out(o->plot_out)) >= 0)
        return status;
    job->kind = JOB_TABLE_PLOT;
    job->plot = TRUE;
    return -1;
}

/* Which combinations make sense, before anything is looked up. */
static int check_combinations(const RawOptions *o)
{
    if (o->graph_path && o->trace_path)
        return cli_usage_error("--graph and --trace exclude each other: plan a model or a trace");
    if (!o->graph_path && !o->trace_path)
        return cli_usage_error("no input: use --graph FILE or --trace FILE");
    if (o->info && o->trace_path)
        return cli_usage_error("--info summarises a model: use it with --graph");
    if (o->info && (o->compare || o->map || o->ascii))
        return cli_usage_error("--info prints the graph summary; --compare, --map and --ascii need a plan");
    if (o->trace_path && (o->dims || o->bounds || o->fuse || o->weights || o->io || o->transpose || o->pad_last || o->align || o->alias || o->pins ||
                          o->strict_runtime || o->scratch || o->bins_path || o->kv || cli_strict_given(o->given, "kv-capacity")))
        return cli_usage_error("--dim, --bound, --fuse, --weights, --io, --transpose, --pad-last, --align, --alias, --pin, --bins, --scratch, "
                           "--kv, --kv-capacity and --strict-runtime shape a trace from a model: use them with --graph");
    if (cli_strict_given(o->given, "kv-capacity") && o->kv_capacity <= 0)
        return cli_usage_error("--kv-capacity takes a positive number of tokens");
    if (o->tiers &&
        ((o->graphs && g_strv_length(o->graphs) > 1) || cli_strict_given(o->given, "generate") || o->orders))
        return cli_usage_error("--tiers plans one trace: not with several --graph, --generate or --orders");
    if (o->tiers && o->compare && (o->run || o->html || o->plot || o->chrome_trace))
        return cli_usage_error("--compare --tiers reports each strategy's tiers; --run and the pictures take one "
                               "plan's (drop --compare)");
    if (o->kv && !cli_strict_given(o->given, "kv-capacity"))
        return cli_usage_error("--kv names the cache pairs that --kv-capacity N plans: give both");
    if (!o->plot != !o->plot_out)
        return cli_usage_error("--plot KIND and --out FILE go together");
    if (o->plot_x || o->plot_y || o->where || o->facet)
        return cli_usage_error("--x, --y, --where and --facet shape --plot compare and --plot sweep (with --from)");
    if (o->plot_title && !o->plot)
        return cli_usage_error("--title names the picture of --plot");
    if ((o->window_steps || o->window_addresses) && !(o->plot && !strcmp(o->plot, "layout")))
        return cli_usage_error("--steps and --addresses choose a part of --plot layout");
    if ((o->html) && (o->info || o->orders))
        return cli_usage_error("--html draws the plans of one order: drop --info and --orders");
    if ((o->plot || o->chrome_trace) && (o->info || o->orders))
        return cli_usage_error("--plot and --chrome-trace draw the plan of one order: drop --info and --orders");
    if ((o->check || o->poison || o->repeat || o->profile || o->threads || o->kernels || o->layouts || o->winograd || o->skinny || o->inputs || o->expect ||
         o->dump_outputs || o->allow_degenerate || cli_strict_given(o->given, "rtol") ||
         cli_strict_given(o->given, "atol")) && !o->run && !(cli_strict_given(o->given, "generate") && !o->check &&
                                                             !o->repeat && !o->profile &&
                                                             !o->dump_outputs && !o->allow_degenerate &&
                                                             !cli_strict_given(o->given, "rtol") &&
                                                             !cli_strict_given(o->given, "atol")))
        return cli_usage_error("--check, --poison, --repeat, --profile, --threads, --kernels, --layouts, --winograd, --skinny, --inputs, --expect, "
                               "--dump-outputs, --rtol, --atol and --allow-degenerate go with --run (--generate takes "
                               "--inputs, --expect, --poison and the kernels' choices)");
    if (o->compare && (o->expect || o->dump_outputs))
        return cli_usage_error("--expect and --dump-outputs read or write one plan's outputs: drop --compare");
    if ((cli_strict_given(o->given, "rtol") && !(o->rtol >= 0 && o->rtol < 1e9)) ||
        (cli_strict_given(o->given, "atol") && !(o->atol >= 0 && o->atol < 1e300)))
        return cli_usage_error("--rtol and --atol take finite numbers, 0 or more");
    if (o->run && (!o->graph_path || o->orders || o->info))
        return cli_usage_error("--run executes the plans of a model: use it with --graph and one --strategy (or --compare)");
    if (o->compare && o->profile)
        return cli_usage_error("--profile writes one plan's per-node times: drop --compare");
    if (cli_strict_given(o->given, "repeat") && (o->repeat < 1 || o->repeat > 100000))
        return cli_usage_error("--repeat takes a count from 1 to 100,000");
    if (cli_strict_given(o->given, "threads") && (o->threads < 1 || o->threads > 1024))
        return cli_usage_error("--threads takes a count from 1 to 1,024");
    if (o->solution_out && (o->compare || o->info))
        return cli_usage_error("--solution-out writes one plan: drop --compare and --info");
    gboolean structured = structured_json_is_problem_path(o->trace_path);
    if (o->pool && !structured)
        return cli_usage_error("--pool projects one pool of a structured problem: use it with --trace FILE.json");
    if (o->check_solution && (!structured || o->pool))
        return cli_usage_error("--check-solution checks a solution envelope against its structured problem: use it "
                               "with --trace FILE.json (without --pool)");
    if (structured && !o->pool && o->solution_out && !g_str_has_suffix(o->solution_out, ".json"))
        return cli_usage_error("--solution-out writes a structured problem's solution envelope: name the file "
                               "FILE.json");
    if ((!structured || o->pool) && o->solution_out && !g_str_has_suffix(o->solution_out, ".csv"))
        return cli_usage_error("--solution-out writes MiniMalloc's CSV: name the file FILE.csv");
    if (o->compare && o->strategy && !o->orders)
        return cli_usage_error("--compare runs every strategy: drop --strategy (or compare orders with --orders)");
    if (o->trace_path && (o->order || o->orders))
        return cli_usage_error("--order and --orders schedule a model: use them with --graph");
    if (o->orders && !o->compare)
        return cli_usage_error("--orders lists the orders --compare runs: add --compare");
    if (o->orders && o->order)
        return cli_usage_error("--orders runs every listed order: drop --order");
    return -1;
}

static int resolve_plot(const RawOptions *o, Job *job)
{
    if (o->window_steps || o->window_addresses) {
        const char *specs[] = {o->window_steps, o->window_addresses};
        guint64 lo[2] = {0, 0}, hi[2] = {0, 0};
        for (guint k = 0; k < 2; k++) {
            if (!specs[k])
                continue;
            char *end = NULL;
            const char *colon = strchr(specs[k], ':');
            gboolean ok = colon && g_ascii_isdigit(specs[k][0]) && g_ascii_isdigit(colon[1]);
            if (ok) {
                lo[k] = g_ascii_strtoull(specs[k], &end, 10);
                ok = end == colon;
                hi[k] = ok ? g_ascii_strtoull(colon + 1, &end, 10) : 0;
                ok = ok && !*end && hi[k] >= lo[k] && (k == 1 ? hi[k] > lo[k] : hi[k] <= G_MAXUINT);
            }
            if (!ok)
                return cli_usage_error(k == 0 ? "--steps takes FIRST:LAST, two step numbers, FIRST <= LAST"
                                          : "--addresses takes LOW:HIGH, two byte offsets, LOW < HIGH");
        }
        job->layout_window = (LayoutWindow){o->window_steps != NULL, (guint)lo[0], (guint)hi[0], lo[1], hi[1]};
    }
    if (!o->plot)
        return -1;
    int status;
    char *msg = NULL;
    if (!(job->plot_kind = plot_kind_find(o->plot))) {
        char *kinds = plot_kind_names(NULL, "", " or ");
        msg = g_strdup_printf("--plot takes %s", kinds);
        g_free(kinds);
    } else if (job->plot_kind->draw_table) {
        char *kinds = plot_kind_names(kind_of_table, "--plot ", " and ");
        msg = g_strdup_printf("%s draw a result table: give it with --from FILE.csv", kinds);
        g_free(kinds);
    } else if (job->plot_kind->one_plan && o->compare) {
        msg = g_strdup_printf("--plot %s draws one plan: drop --compare", job->plot_kind->name);
    }
    if (msg) {
        status = cli_usage_error(msg);
        g_free(msg);
        return status;
    }
    if ((status = check_plot_out(o->plot_out)) >= 0)
        return status;
    job->plot = TRUE;
    return -1;
}

/* A usage error of the driver's ("align takes ..."), as the command names the option ("--align takes ..."). */
static int driver_usage(GError *error)
{
    char *message = g_strconcat("--", error->message, NULL);
    int status = cli_usage_error(message);
    g_free(message);
    g_error_free(error);
    return status;
}

/* --pad-last, --align, --weights, --io, --transpose (driver.h), and --fuse. */
static int resolve_layout(const RawOptions *o, Job *job)
{
    if (cli_strict_given(o->given, "pad-last") && o->pad_last < 1)
        return cli_usage_error("--pad-last takes a positive multiple (1 for no padding)");
    if (cli_strict_given(o->given, "align") && o->align < 1)
        return cli_usage_error("--align takes a power of two");
    DriverLayout choice = {.pad_last = (guint64)MAX(o->pad_last, 0), .align = (guint64)MAX(o->align, 0),
                           .weights = o->weights, .io = o->io, .transpose = o->transpose, .run = o->run};
    GError *error = NULL;
    if (!driver_layout(&choice, &job->layout, &error))
        return driver_usage(error);
    if (o->fuse && !fuse_kind_known(o->fuse)) {
        char *kinds = fuse_kind_names(", "), *message = g_strdup_printf("--fuse takes %s", kinds);
        int status = cli_usage_error(message);
        g_free(message);
        g_free(kinds);
        return status;
    }
    job->fuse = g_strdup(o->fuse ? o->fuse : "none");
    return -1;
}

G_STATIC_ASSERT(PLACE_DEFAULT_WORK == 20000); /* --strategy's help says so */

/* --strategy, --order, --orders, --alias against the registry; the budgets and knobs of the strategies. */
static int resolve_strategies(const RawOptions *o, Job *job)
{
    GError *error = NULL;
    if (o->tiers && !(job->tiers = trace_tiers_parse(o->tiers, &error)))
        return gerror_usage(error, NULL);
    job->strategy_named = o->strategy != NULL;
    job->strategy = registry_place_find(o->strategy ? o->strategy
                                       : o->tiers ? PLACE_TIERED_STRATEGY
                                                  : PLACE_DEFAULT_STRATEGY);
    if (!job->strategy)
        return unknown_name("strategy", o->strategy, registry_place_names());
    if (o->tiers && !job->strategy->plan_tiers && !o->compare) { /* the registry's tier-aware strategies */
        guint count;
        const PlaceStrategy *const *all = registry_place_strategies(&count);
        GString *names = g_string_new(NULL);
        for (guint k = 0; k < count; k++)
            if (all[k]->plan_tiers)
                g_string_append_printf(names, "%s%s", names->len ? ", " : "", all[k]->name);
        char *msg = g_strdup_printf("--tiers leaves each buffer's tier to the strategy: name one that chooses tiers "
                                    "(%s)", names->str);
        int status = cli_usage_error(msg);
        g_free(msg);
        g_string_free(names, TRUE);
        return status;
    }
    /* best (named, or by default for one plan): chosen once the model is loaded */
    if (!driver_order_find(o->order, !o->orders && !o->tiers, &job->order, &job->order_best, &error))
        return gerror_usage(error, NULL);
    job->order_named = o->order != NULL;
    /* --order optimal on one model's plan: the exact order, unless a heuristic order's plan is smaller */
    job->order_exact = job->order->exhaustive && !o->orders && !o->tiers;
    job->order_best = job->order_best || job->order_exact;
    job->alias = g_strdup(o->alias ? o->alias : "all");
    job->alias_named = o->alias != NULL;
    if (!registry_alias_list_check(job->alias, &error))
        return gerror_usage(error, NULL);
    if (o->orders) {
        job->orders = g_ptr_array_new();
        if (!registry_order_list_parse(o->orders, job->orders, &error))
            return gerror_usage(error, NULL);
    }
    if ((cli_strict_given(o->given, "order-budget") && o->order_budget < 1) ||
        (cli_strict_given(o->given, "order-work") && o->order_work < 1) ||
        (cli_strict_given(o->given, "order-seconds") && o->order_seconds <= 0))
        return cli_usage_error("--order-budget, --order-work and --order-seconds take positive numbers");
    /* Seconds become microseconds in 64 bits: past a year nothing is meant, and past 9.2e12 they overflow. */
    if (o->order_seconds > DRIVER_SECONDS_MAX || o->budget > DRIVER_SECONDS_MAX)
        return cli_usage_error("--budget and --order-seconds take at most 31,536,000 seconds (a year)");
    job->order_budget_states = o->order_budget > 0 ? (guint64)o->order_budget : 0;
    job->order_work = o->order_work > 0 ? (guint64)o->order_work : 0;
    job->order_seconds = o->order_seconds > 0 ? o->order_seconds : 0;
    if (cli_strict_given(o->given, "budget") && o->budget <= 0)
        return cli_usage_error("--budget takes a positive number of seconds");
    if (o->search_max < 0 || o->search_max > G_MAXUINT32 || o->seed < 0 || o->seed > G_MAXUINT32)
        return cli_usage_error("--search-max and --seed take numbers from 0 to 4,294,967,295");
    if (cli_strict_given(o->given, "budget-work") && o->budget_work < 1)
        return cli_usage_error("--budget-work takes a positive number (search nodes; a climb step costs one per buffer)");
    job->place = driver_place_options(o->strategy != NULL,
                                      cli_strict_given(o->given, "budget-work") ? (guint64)o->budget_work : 0,
                                      cli_strict_given(o->given, "budget") ? o->budget : 0);
    if (cli_strict_given(o->given, "search-max"))
        job->place.search_max = (guint)o->search_max;
    if (cli_strict_given(o->given, "seed"))
        job->place.seed = (guint32)o->seed;
    GError *engines = NULL;
    if (!driver_search_engines(o->search_engines, &job->place.search_engines, &engines))
        return driver_usage(engines);
    job->place.stop = interrupt_flag();
    if (o->progress || isatty(STDERR_FILENO))
        job->place.progress = interrupt_print_progress;
    return -1;
}

/* --dim, --bound and --pin. */
static int resolve_bindings(const RawOptions *o, Job *job)
{
    GError *error = NULL;
    job->shape.allow_unknown_ops = o->allow_unknown_ops;
    job->shape.partial = o->info; /* the summary works before every dimension is bound */
    GString *fixed = g_string_new(NULL);
    gboolean ok = range_dims_split((const char *const *)o->dims, &job->shape, job->ranges, fixed, &error);
    job->dims_text = fixed->len ? g_string_free(fixed, FALSE) : (g_string_free(fixed, TRUE), g_strdup("-"));
    if (!ok)
        return gerror_usage(error, NULL);
    for (char **b = o->bounds; b && *b; b++)
        if (!shape_options_add_bound(&job->shape, *b, &error))
            return gerror_usage(error, NULL);
    for (char **p = o->pins; p && *p; p++)
        if (!alias_pins_parse(job->pins, *p, &error))
            return gerror_usage(error, NULL);
    return -1;
}

static const char generate_usage[] = "--generate N runs a greedy generation: 1 to 4,096 tokens, two --graph (the "
                                     "prefill, then the decode step), --kv-capacity and --inputs DIR (the prompt)";

/* Several --graph: entry points in one arena (driver/entries.h), each with its own dims (--dim ENTRY:NAME=VALUE);
 * with --generate, a generation run in it (driver/generate.h). */
static int resolve_entries(const RawOptions *o, Job *job)
{
    guint n = o->graphs ? g_strv_length(o->graphs) : 0;
    if (n < 2)
        return cli_strict_given(o->given, "generate") ? cli_usage_error(generate_usage) : -1;
    if (n > ENTRIES_MAX)
        return cli_usage_error("--graph: at most 16 models planned in one arena");
    if (o->info || o->compare || o->orders || o->run || o->map || o->ascii || o->html || o->chrome_trace ||
        o->trace_out || o->solution_out || (o->inputs && !cli_strict_given(o->given, "generate")) || o->plot ||
        o->wide || o->pins || o->range_check || o->range_every || o->range_one_plan ||
        (job->order_best && job->order_named && !job->order_exact))
        return cli_usage_error("several --graph plan entry points in one arena and report it: --info, --compare, "
                               "--orders, --order best, --run, --map, --ascii, --html, --chrome-trace, --trace-out, "
                               "--solution-out, --inputs, --plot, --pin, --wide and --range-* are for one model");
    job->order_best = job->order_exact = FALSE; /* entry points share one order: the file's unless named */
    job->entry_paths = g_strdupv(o->graphs);
    job->entry_names = g_new0(char *, n + 1);
    job->entry_shapes = g_new0(ShapeOptions, n);
    for (guint k = 0; k < n; k++) {
        shape_options_init(&job->entry_shapes[k]);
        job->entry_shapes[k].allow_unknown_ops = o->allow_unknown_ops;
    }
    GError *error = NULL;
    if (!entries_bind((const char *const *)o->graphs, n, (const char *const *)o->dims, (const char *const *)o->bounds,
                      job->entry_names, job->entry_shapes, &error))
        return gerror_usage(error, NULL);
    job->kind = JOB_ENTRIES;
    if (cli_strict_given(o->given, "generate")) {
        if (n != 2 || !o->inputs || !cli_strict_given(o->given, "kv-capacity") || o->generate < 1 ||
            o->generate > GENERATE_MAX_TOKENS)
            return cli_usage_error(generate_usage);
        job->generate = (guint)o->generate;
        job->kind = JOB_GENERATE;
    }
    return -1;
}

/* A range of dims (--dim NAME=LO:HI) plans every point and reports functions: what is for one binding's plan goes. */
static int check_range(const RawOptions *o, Job *job)
{
    if (job->plot && !job->plot_kind->draw_range != !job->ranges->len) {
        char *kinds = plot_kind_names(kind_of_range, "--plot ", " or ");
        char *msg = job->ranges->len
                        ? g_strdup_printf("a range of dims is drawn by %s", kinds)
                        : g_strdup_printf("--plot %s draws a range of dims: give one with --dim NAME=LO:HI",
                                          job->plot_kind->name);
        int status = cli_usage_error(msg);
        g_free(msg);
        g_free(kinds);
        return status;
    }
    if (!job->ranges->len)
        return o->range_check || o->range_every || o->range_one_plan
                   ? cli_usage_error("--range-check, --range-every and --range-one-plan shape a range of dims: give one "
                                     "with --dim NAME=LO:HI")
                   : -1;
    if (o->info || o->compare || o->orders || o->run || o->map || o->ascii || o->html || o->chrome_trace ||
        o->trace_out || o->solution_out || o->inputs || o->no_verify || o->wide)
        return cli_usage_error("--dim NAME=LO:HI plans every point of a range and reports its functions: --info, "
                               "--compare, --orders, --run, --map, --ascii, --html, --chrome-trace, --trace-out, "
                               "--solution-out, --inputs, --no-verify and --wide are for one binding");
    if (job->order_best && job->order_named && !job->order_exact)
        return cli_usage_error("--order best chooses an order for one binding: with a range of dims, name one order");
    job->order_best = job->order_exact = FALSE; /* every point in one order: the file's unless named */
    GError *error = NULL;
    gsize points;
    const ReportRangeDim *dims = (const ReportRangeDim *)job->ranges->data;
    if (!range_dims_check(dims, job->ranges->len, job->shape.dims, &points, &error))
        return gerror_usage(error, NULL);
    return -1;
}

static gboolean format_widens(ReportFormat f) { return f->widens; }
static gboolean format_whole(ReportFormat f) { return !f->widens && !f->prose; } /* every column, always */

/* The formats `keep` takes (NULL: all), as "a, b and c" with `last` before the last one. Newly allocated. */
static char *formats_where(gboolean (*keep)(ReportFormat f), const char *last)
{
    char *all = report_format_names(), **names = g_strsplit(all, ", ", -1);
    g_free(all);
    GPtrArray *kept = g_ptr_array_new();
    for (char **n = names; *n; n++)
        if (!keep || keep(report_format_find(*n)))
            g_ptr_array_add(kept, *n);
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < kept->len; k++)
        g_string_append_printf(s, "%s%s", k == 0 ? "" : k + 1 == kept->len ? last : ", ", (char *)kept->pdata[k]);
    g_ptr_array_unref(kept);
    g_strfreev(names);
    return g_string_free(s, FALSE);
}

/* A structured problem (--trace FILE.json without --pool): its strategy, work budget and files; the options of
 * the graph and trace pipeline have nothing to act on. */
static int resolve_structured(RawOptions *o, Job *job)
{
    if (o->map || o->ascii || o->wide || o->plot || o->html || o->chrome_trace || o->trace_out ||
        o->bins_path || o->tiers || o->run || o->no_verify || o->verbose || cli_strict_given(o->given, "budget") ||
        o->search_engines || cli_strict_given(o->given, "search-max") || cli_strict_given(o->given, "seed") ||
        o->profile || o->inputs || o->expect || o->dump_outputs)
        return cli_usage_error("a structured problem (--trace FILE.json) takes --strategy or --compare, --budget-work, "
                               "--format, --solution-out, --check-solution, --phases and --pool (its pools as ordinary "
                               "traces)");
    if (o->check_solution && (o->strategy || cli_strict_given(o->given, "budget-work") || o->solution_out ||
                              o->compare))
        return cli_usage_error("--check-solution checks a placement someone made: drop --strategy, --compare, "
                               "--budget-work and --solution-out");
    job->structured = o->strategy ? registry_structured_find(o->strategy) : registry_structured[0];
    if (!job->structured)
        return unknown_name("strategy for structured problems", o->strategy, registry_structured_names());
    job->structured_options = registry_structured_options();
    if (cli_strict_given(o->given, "budget-work")) {
        if (o->budget_work < 1)
            return cli_usage_error("--budget-work takes a positive number (the search's nodes)");
        job->structured_options.budget_work = (guint64)o->budget_work;
    }
    job->kind = JOB_STRUCTURED;
    job->structured_compare = o->compare;
    job->trace_path = g_steal_pointer(&o->trace_path);
    job->source = job->trace_path;
    job->solution_out = g_steal_pointer(&o->solution_out);
    job->check_solution = g_steal_pointer(&o->check_solution);
    job->phases_path = g_steal_pointer(&o->phases);
    return -1;
}

/* Everything a planning job needs, checked and looked up; moves the paths into the job. */
static int resolve(RawOptions *o, Job *job)
{
    int status;
    if ((status = check_combinations(o)) >= 0 || (status = resolve_plot(o, job)) >= 0)
        return status;
    if (!(job->format = report_format_find(o->format ? o->format : "text"))) {
        char *names = formats_where(NULL, " or "), *msg = g_strdup_printf("--format takes %s", names);
        status = cli_usage_error(msg);
        g_free(msg);
        g_free(names);
        return status;
    }
    if (o->wide && !job->format->widens) {
        char *wide = formats_where(format_widens, " or "), *whole = formats_where(format_whole, " and ");
        char *msg = g_strdup_printf("--wide widens --format %s (%s always have every column)", wide, whole);
        status = cli_usage_error(msg);
        g_free(msg);
        g_free(wide);
        g_free(whole);
        return status;
    }
    if (structured_json_is_problem_path(o->trace_path) && !o->pool)
        return resolve_structured(o, job);
    job->structured_pool = g_steal_pointer(&o->pool);
    gboolean entries = (o->graphs && g_strv_length(o->graphs) > 1) || cli_strict_given(o->given, "generate");
    if ((status = resolve_strategies(o, job)) >= 0 || (status = resolve_layout(o, job)) >= 0 ||
        (entries ? (status = resolve_entries(o, job)) >= 0
                 : (status = resolve_bindings(o, job)) >= 0 || (status = check_range(o, job)) >= 0))
        return status;
    if (cli_strict_given(o->given, "order-work") && (!job->order_best || !o->graph_path))
        return cli_usage_error("--order-work bounds the orders the default (best) tries on a model: not with --trace, "
                               "--order NAME, --orders, --tiers, a range of dims or several --graph");
    job->kind = entries            ? job->kind
                : job->ranges->len ? JOB_RANGE
                : o->info          ? JOB_INFO
                : o->orders        ? JOB_ORDERS
                : o->compare       ? JOB_COMPARE
                                   : JOB_PLAN;
    job->range_check = o->range_check;
    job->range_every = o->range_every;
    job->range_one_plan = o->range_one_plan;
    job->verify = !o->no_verify;
    job->map = o->map;
    job->ascii = o->ascii;
    job->wide = o->wide;
    job->verbose = o->verbose;
    job->strict_runtime = o->strict_runtime;
    job->scratch = o->scratch;
    job->kv_patterns = g_strdupv(o->kv);
    job->kv = (KvRequest){.capacity = (guint64)MAX(o->kv_capacity, 0), .patterns = (const char *const *)job->kv_patterns};
    job->run = o->run;
    run_options_init(&job->run_options); /* the driver's defaults, then what was given */
    job->run_options.check = o->check;
    job->run_options.poison = o->poison;
    if (o->repeat)
        job->run_options.repeat = (guint)o->repeat;
    if (o->threads)
        job->run_options.threads = (guint)o->threads;
    GError *choices = NULL;
    if (!run_exec_choices(&job->run_options.exec, o->kernels, o->layouts, o->winograd, o->skinny, &choices))
        return driver_usage(choices);
    job->graph_path = g_steal_pointer(&o->graph_path);
    job->trace_path = g_steal_pointer(&o->trace_path);
    job->source = job->graph_path ? job->graph_path : job->trace_path;
    job->bins_path = g_steal_pointer(&o->bins_path);
    job->chrome_trace = g_steal_pointer(&o->chrome_trace);
    job->html_out = g_steal_pointer(&o->html);
    job->trace_out = g_steal_pointer(&o->trace_out);
    job->solution_out = g_steal_pointer(&o->solution_out);
    job->profile_path = g_steal_pointer(&o->profile);
    job->phases_path = g_steal_pointer(&o->phases);
    job->inputs_dir = g_steal_pointer(&o->inputs);
    job->expect_dir = g_steal_pointer(&o->expect);
    job->dump_dir = g_steal_pointer(&o->dump_outputs);
    if (cli_strict_given(o->given, "rtol"))
        job->run_options.rtol = o->rtol;
    if (cli_strict_given(o->given, "atol"))
        job->run_options.atol = o->atol;
    job->run_options.allow_degenerate = o->allow_degenerate;
    job->run_options.expect_dir = job->expect_dir;
    job->run_options.dump_dir = job->dump_dir;
    return -1;
}

int job_from_args(Job *job, int argc, char **argv)
{
    RawOptions o = {0};
    g_autofree char *fuse_help = fuse_kind_help(), *fuse_kinds = fuse_kind_names("|"); /* the kinds' table */
    GOptionEntry entries[] = {
        {"graph", 'g', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.graphs,
         "The ONNX model to plan; given more than once, entry points planned in one arena (a prefill and a decode "
         "step: their KV caches one buffer each, each model's other buffers in its own steps)", "FILE"},
        {"trace", 't', 0, G_OPTION_ARG_FILENAME, &o.trace_path,
         "A trace to plan instead of a model: our text format, or MiniMalloc CSV (.csv)", "FILE"},
        {"strategy", 's', 0, G_OPTION_ARG_STRING, &o.strategy, "Placement strategy (default best on a work budget of 20,000; see --list)", "NAME"}, /* PLACE_DEFAULT_WORK */
        {"compare", 'c', 0, G_OPTION_ARG_NONE, &o.compare, "Run every strategy on the same trace, one table", NULL},
        {"order", 'o', 0, G_OPTION_ARG_STRING, &o.order,
         "Operator order (see --list), or best (the default for one plan): every order but optimal and two sharing "
         "sets placed, the smallest arena kept (optimal on one plan: it first, beside those)",
         "NAME"},
        {"orders", 0, 0, G_OPTION_ARG_STRING, &o.orders,
         "With --compare: the strategy (--strategy, default best) under each order: all or a comma list", "LIST"},
        {"order-work", 0, 0, G_OPTION_ARG_INT64, &o.order_work,
         "The default order's budget: plans made (orders x sharing sets) times the graph's nodes (default 1,000,000)",
         "N"},
        {"order-budget", 0, 0, G_OPTION_ARG_INT64, &o.order_budget,
         "States the optimal order may explore before it gives up (default 2,000,000)", "STATES"},
        {"order-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &o.order_seconds,
         "Seconds the optimal order may run before it gives up (default 10)", "S"},
        {"list", 'l', 0, G_OPTION_ARG_NONE, &o.list, "List the strategies with a one-line summary each", NULL},
        {"budget", 0, 0, G_OPTION_ARG_DOUBLE, &o.budget,
         "Seconds search and climb may take, best in all (default 10); Ctrl-C ends a search early with its best plan", "S"},
        {"budget-work", 0, 0, G_OPTION_ARG_INT64, &o.budget_work,
         "Work search, minimalloc and climb may do, best in all, instead of seconds: N search nodes, or N / buffers "
         "climb steps (the same plan on any machine, however busy)", "N"},
        {"progress", 0, 0, G_OPTION_ARG_NONE, &o.progress,
         "A line a second on stderr from a long search: best arena, lower bound, nodes/s (always when stderr is a terminal)",
         NULL},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "Seed of climb's random choices (default 1)", "N"},
        {"search-max", 0, 0, G_OPTION_ARG_INT64, &o.search_max,
         "best runs search on problems of at most N buffers (default 1000)", "N"},
        {"search-engines", 0, 0, G_OPTION_ARG_STRING, &o.search_engines,
         "search's restarts: its skyline search, MiniMalloc's with our inferences (sections), the skyline guided by "
         "the best plan so far alone (guided), or all of them (both, the default)",
         "skyline|sections|guided|both"},
        {"dim", 'd', 0, G_OPTION_ARG_STRING_ARRAY, &o.dims,
         "Bind a symbolic dimension (repeatable), e.g. --dim batch=1 --dim seq=128; or plan a range of it, "
         "NAME=LO:HI or NAME=LO:HI:STEP: the arena as a function of the dims, and plans that hold over the range",
         "NAME=VALUE"},
        {"bound", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.bounds,
         "Plan a data-dependent tensor (NonZero's, NonMaxSuppression's, ...) with its data-dependent dimension at "
         "most MAX instead of the most its op can give (repeatable; a run past it stops with an error)", "NAME=MAX"},
        {"fuse", 0, 0, G_OPTION_ARG_STRING, &o.fuse, fuse_help, fuse_kinds},
        {"transpose", 0, 0, G_OPTION_ARG_STRING, &o.transpose,
         "Transpose as a metadata view sharing its input's bytes (view: the seeds' rule, the default) or as a data "
         "move that may only overwrite a dying input (move: what a dense-kernel runtime can honour; the default with --run)",
         "view|move"},
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
         "Alias strategies: all (default), none, or a comma list of them (see --list)", "LIST"},
        {"pin", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.pins,
         "Pre-allocate tensor NAME at byte OFFSET (repeatable); pins propagate through noop chains", "NAME=OFFSET"},
        {"generate", 0, 0, G_OPTION_ARG_INT64, &o.generate,
         "With two --graph (a prefill, then a decode step), --kv-capacity and --inputs DIR (the prompt): run a greedy "
         "generation of N tokens inside one plan, the caches kept in the arena from step to step (--expect DIR: "
         "the tokens expected, DIR/output_0.pb)", "N"},
        {"kv", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.kv,
         "With --kv-capacity: a KV cache pair, the past (a graph input) and the present (a graph output), one '*' in "
         "each standing for the same text (repeatable; without it every Concat of a graph input making a graph output)",
         "PAST=PRESENT"},
        {"tiers", 0, 0, G_OPTION_ARG_STRING, &o.tiers,
         "Memory tiers, fastest first, NAME[=CAPACITY][:READ[/WRITE]] comma-separated (sram=256KiB,dram): each "
         "buffer's tier is the plan's choice, its cost the bytes it moves times the tier's costs (default strategy "
         "tiered)", "SPEC"},
        {"kv-capacity", 0, 0, G_OPTION_ARG_INT64, &o.kv_capacity,
         "Plan each KV cache pair as one buffer of N tokens along its Concat axis, live for the whole step: the past "
         "lies at its start and the Concat grows it in place", "N"},
        {"strict-runtime", 0, 0, G_OPTION_ARG_NONE, &o.strict_runtime,
         "A Gather/Slice/Concat/Split that cannot alias is an error (the seed's texts), not a copy", NULL},
        {"bins", 0, 0, G_OPTION_ARG_FILENAME, &o.bins_path,
         "Memory bins: lines 'BIN name=GLOB' or 'BIN size>=BYTES'; each bin is its own arena", "FILE"},
        {"scratch", 0, 0, G_OPTION_ARG_NONE, &o.scratch,
         "Add kernel workspace from the op table (Conv's im2col) as single-step buffers", NULL},
        {"plot", 0, 0, G_OPTION_ARG_STRING, &o.plot,
         "Draw the plan with gnuplot: timeline (live and spanned bytes per step; with --compare every plan) or "
         "layout (the plan as rectangles, step across, address up)", "KIND"},
        {"out", 0, 0, G_OPTION_ARG_FILENAME, &o.plot_out, "Where --plot draws: FILE.png, FILE.svg or FILE.pdf", "FILE"},
        {"from", 0, 0, G_OPTION_ARG_FILENAME, &o.from,
         "Draw a result table (the CSV of --format csv or bench/sweep.py) instead of planning: --plot compare "
         "(bars of arena / lower bound, a cluster per graph, a bar per strategy) or --plot sweep (a metric against --x)",
         "FILE.csv"},
        {"x", 0, 0, G_OPTION_ARG_STRING, &o.plot_x, "--plot sweep: the swept parameter, a column or a --dim name (e.g. seq)",
         "NAME"},
        {"y", 0, 0, G_OPTION_ARG_STRING, &o.plot_y,
         "--plot compare|sweep: the metric, a numeric column or ratio (arena / lower bound); default ratio for compare, "
         "arena_bytes for sweep", "COLUMN"},
        {"where", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.where,
         "--from: draw only the rows whose COLUMN is VALUE (repeatable; a graph also by its file name without .onnx)",
         "COLUMN=VALUE"},
        {"steps", 0, 0, G_OPTION_ARG_STRING, &o.window_steps, "--plot layout: draw only steps FIRST to LAST", "FIRST:LAST"},
        {"addresses", 0, 0, G_OPTION_ARG_STRING, &o.window_addresses,
         "--plot layout: draw only the addresses LOW to HIGH (bytes, HIGH excluded)", "LOW:HIGH"},
        {"facet", 0, 0, G_OPTION_ARG_STRING, &o.facet,
         "--from: small multiples, a panel per value of COLUMN (e.g. alias, order), every panel on the same y axis",
         "COLUMN"},
        {"title", 0, 0, G_OPTION_ARG_STRING, &o.plot_title, "--plot: the picture's title (default: says what was planned)",
         "TEXT"},
        {"html", 0, 0, G_OPTION_ARG_FILENAME, &o.html,
         "Write the plan (with --compare: every plan, side by side) as one self-contained HTML page to explore in a "
         "browser: buffers as rectangles, hover for details, zoom and pan", "FILE.html"},
        {"chrome-trace", 0, 0, G_OPTION_ARG_FILENAME, &o.chrome_trace,
         "Write the plan (with --compare: every plan, each its own process) as Chrome trace events (ui.perfetto.dev, "
         "chrome://tracing): ops and bytes per step, every buffer on a lane",
         "FILE"},
        {"run", 0, 0, G_OPTION_ARG_NONE, &o.run,
         "Execute the plan: real kernels (OpenBLAS) inside one arena of the planned size, every tensor at its planned "
         "offset; reports the median time per op type (with --compare: every strategy's plan, a row each)", NULL},
        {"repeat", 0, 0, G_OPTION_ARG_INT64, &o.repeat, "--run: runs to take the median of (default 1)", "N"},
        {"threads", 0, 0, G_OPTION_ARG_INT64, &o.threads,
         "--run: threads the kernels may use, in one pool (oneDNN's, or OpenBLAS's with --kernels own; default 1, "
         "whatever OPENBLAS_NUM_THREADS or OMP_NUM_THREADS say)", "N"},
        {"kernels", 0, 0, G_OPTION_ARG_STRING, &o.kernels,
         "--run: the kernels of Conv, MatMul and Gemm (and their fused forms): oneDNN's, with constant weights packed "
         "once (onednn, the default), or our own (own: im2col and OpenBLAS); every other op runs on our own",
         "onednn|own"},
        {"layouts", 0, 0, G_OPTION_ARG_STRING, &o.layouts,
         "--run, with oneDNN's kernels: activations whose writer and readers all take oneDNN's channel-blocked layout "
         "lie in it (blocked, the default: no reorder around each convolution; the same bytes as row-major when the "
         "channels are a multiple of 16), or every tensor row-major (plain)", "blocked|plain"},
        {"winograd", 0, 0, G_OPTION_ARG_STRING, &o.winograd,
         "--run, with oneDNN's kernels: 3x3 stride-1 convolutions by Winograd's minimal filtering, F(2x2,3x3) or "
         "F(4x4,3x3) by the shape, where it is the faster (auto, the default: maps of 13x13 and more, 16 input "
         "channels or more; oneDNN has it on AVX-512), or every convolution direct (off)", "auto|off"},
        {"skinny", 0, 0, G_OPTION_ARG_STRING, &o.skinny,
         "--run, with oneDNN's kernels: products of at most 16 rows over constant weights (a short sequence's "
         "MatMul, a classifier's Gemm) on our own kernel, which reads the weights once in order from 16-column "
         "panels packed at the first run (auto, the default, on CPUs with AVX-512 or AVX2), or on oneDNN's (off)",
         "auto|off"},
        {"check", 0, 0, G_OPTION_ARG_NONE, &o.check,
         "--run: run again with nothing shared (--alias none, naive) and require equal outputs, bit for bit (with "
         "--compare: one such run checks every plan)", NULL},
        {"poison", 0, 0, G_OPTION_ARG_NONE, &o.poison,
         "--run: fill the arena, and every buffer when it dies, with NaN bytes, so early reuse shows", NULL},
        {"profile", 0, 0, G_OPTION_ARG_FILENAME, &o.profile, "--run: write the per-node times (median) as CSV", "FILE"},
        {"inputs", 0, 0, G_OPTION_ARG_FILENAME, &o.inputs,
         "--run: the graph inputs from a model-zoo test data set (DIR/input_K.pb, or DIR/test_data_set_0/...); "
         "their shapes bind the symbolic dimensions", "DIR"},
        {"expect", 0, 0, G_OPTION_ARG_FILENAME, &o.expect,
         "--run: compare the outputs with DIR/output_K.pb (e.g. torch's own), within --rtol and --atol", "DIR"},
        {"dump-outputs", 0, 0, G_OPTION_ARG_FILENAME, &o.dump_outputs,
         "--run: write the outputs as DIR/output_K.pb (the model zoo's layout)", "DIR"},
        {"rtol", 0, 0, G_OPTION_ARG_DOUBLE, &o.rtol, "--expect: relative tolerance (default 1e-3)", "R"},
        {"atol", 0, 0, G_OPTION_ARG_DOUBLE, &o.atol, "--expect: absolute tolerance (default 1e-5)", "A"},
        {"allow-degenerate", 0, 0, G_OPTION_ARG_NONE, &o.allow_degenerate,
         "--check: pass an output that is all NaN or one value everywhere (by default such an output fails: it "
         "proves nothing)", NULL},
        {"phases", 0, 0, G_OPTION_ARG_FILENAME, &o.phases,
         "Write where the run's time and memory went: one CSV row per phase (load, shapes, order, liveness, sharing, "
         "trace, place, verify, report, run, output) with its seconds and the peak resident set at its end", "FILE"},
        {"trace-out", 0, 0, G_OPTION_ARG_FILENAME, &o.trace_out,
         "Write the trace (text format, or MiniMalloc CSV when FILE ends in .csv)", "FILE"},
        {"solution-out", 0, 0, G_OPTION_ARG_FILENAME, &o.solution_out,
         "Write the plan as a MiniMalloc solution, id,lower,upper,size[,alignment],offset (the input's own ids and "
         "time points; sim --trace FILE.csv verifies it); for a structured problem (--trace FILE.json), its "
         "schema-v1 solution envelope FILE.json", "FILE.csv|FILE.json"},
        {"check-solution", 0, 0, G_OPTION_ARG_FILENAME, &o.check_solution,
         "With --trace FILE.json: check a schema-v1 solution envelope against the problem (its fingerprint, then every "
         "rule) and report its objective, instead of placing", "FILE.json"},
        {"pool", 0, 0, G_OPTION_ARG_STRING, &o.pool,
         "With --trace FILE.json: plan the capacity-free projection of this pool (name or id) as an ordinary trace",
         "POOL"},
        {"format", 'f', 0, G_OPTION_ARG_STRING, &o.format, "Report format: text (default), md, csv, json", "FMT"},
        {"wide", 0, 0, G_OPTION_ARG_NONE, &o.wide,
         "--format md: every column in exact bytes (csv's columns), not the compact table", NULL},
        {"verbose", 'v', 0, G_OPTION_ARG_NONE, &o.verbose,
         "Every line of the notes after the report: each fallback, each fusion rule, each buffer live at the peak "
         "(without it: fallbacks of one reason on one line, rules that fused nothing as one line, the 8 largest)", NULL},
        {"map", 0, 0, G_OPTION_ARG_NONE, &o.map, "Print the plan, one buffer a line: offset size name first last", NULL},
        {"ascii", 0, 0, G_OPTION_ARG_NONE, &o.ascii, "Draw the plan in characters: time across, address down", NULL},
        {"no-verify", 0, 0, G_OPTION_ARG_NONE, &o.no_verify, "Skip the plan verifier", NULL},
        {"range-check", 0, 0, G_OPTION_ARG_NONE, &o.range_check,
         "With --dim NAME=LO:HI: also load and place every point on its own, and compare its arena and sizes with the "
         "function's", NULL},
        {"range-every", 0, 0, G_OPTION_ARG_NONE, &o.range_every,
         "With --dim NAME=LO:HI: load and trace every point, none sized between loaded points", NULL},
        {"range-one-plan", 0, 0, G_OPTION_ARG_NONE, &o.range_one_plan,
         "With --dim NAME=LO:HI: one plan for every point, the points of other structures loaded with its buffers kept "
         "apart", NULL},
        {"info", 'i', 0, G_OPTION_ARG_NONE, &o.info,
         "Print the graph summary instead of planning: opsets, nodes by op type, tensors by kind, weight and "
         "activation bytes, the largest tensor", NULL},
        {"allow-unknown-ops", 0, 0, G_OPTION_ARG_NONE, &o.allow_unknown_ops,
         "Accept ops missing from the op table when the file's value_info gives their output shapes", NULL},
        {"list-ops", 0, 0, G_OPTION_ARG_NONE, &o.cli_list_ops, "List the op table: every known op and its class", NULL},
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
             "  sim --trace graphs/solution.csv --strategy greedy-size --map\n"
             "  sim --graph graphs/gpt2.onnx --info\n");
    job->pins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    job->ranges = g_array_new(FALSE, TRUE, sizeof(ReportRangeDim));
    g_array_set_clear_func(job->ranges, range_dim_clear);
    shape_options_init(&job->shape);
    GError *error = NULL;
    int status = -1;
    gboolean parsed = g_option_context_parse(ctx, &argc, &argv, &error);
    if (parsed && o.graphs && o.graphs[0]) /* the first model; more make entry points (resolve_entries) */
        o.graph_path = g_strdup(o.graphs[0]);
    if (!parsed) {
        status = gerror_usage(error, NULL);
    } else if (argc > 1) {
        char *msg = g_strdup_printf("unexpected argument '%s'", argv[1]);
        status = cli_usage_error(msg);
        g_free(msg);
    } else if (o.version) {
        job->kind = JOB_VERSION;
    } else if (o.cli_list_ops) {
        job->kind = JOB_LIST_OPS;
    } else if (o.list) {
        job->kind = JOB_LIST;
    } else if (o.from) {
        status = resolve_table_plot(&o, job);
        job->table_path = g_steal_pointer(&o.from);
        job->plot_where = g_steal_pointer(&o.where);
        job->plot_facet = g_steal_pointer(&o.facet);
    } else {
        status = resolve(&o, job);
    }
    if (status < 0 && job->plot) {
        job->plot_out = g_steal_pointer(&o.plot_out);
        job->plot_x = g_steal_pointer(&o.plot_x);
        job->plot_y = g_steal_pointer(&o.plot_y);
        job->plot_title = g_steal_pointer(&o.plot_title);
    }
    raw_clear(&o);
    g_option_context_free(ctx);
    cli_strict_free(strict);
    return status;
}

void job_clear(Job *job)
{
    char **strings[] = {&job->graph_path, &job->trace_path, &job->bins_path, &job->table_path, &job->dims_text,
                        &job->alias, &job->fuse, &job->plot_out, &job->plot_x, &job->plot_y, &job->plot_title,
                        &job->chrome_trace, &job->html_out, &job->trace_out, &job->solution_out, &job->phases_path,
                        &job->profile_path, &job->inputs_dir, &job->expect_dir, &job->dump_dir, &job->plot_facet,
                        &job->unknown_ops, &job->check_solution, &job->structured_pool};
    for (gsize k = 0; k < G_N_ELEMENTS(strings); k++)
        g_clear_pointer(strings[k], g_free);
    g_clear_pointer(&job->inputs, g_ptr_array_unref);
    g_clear_pointer(&job->plot_where, g_strfreev);
    shape_options_clear(&job->shape);
    fuse_report_clear(&job->fused);
    g_clear_pointer(&job->orders, g_ptr_array_unref);
    g_clear_pointer(&job->pins, g_hash_table_unref);
    g_clear_pointer(&job->kv_patterns, g_strfreev);
    g_clear_pointer(&job->tiers, g_array_unref);
    for (guint k = 0; job->entry_shapes && job->entry_paths[k]; k++)
        shape_options_clear(&job->entry_shapes[k]);
    g_clear_pointer(&job->entry_shapes, g_free);
    g_clear_pointer(&job->entry_names, g_strfreev);
    g_clear_pointer(&job->entry_paths, g_strfreev);
    g_clear_pointer(&job->ranges, g_array_unref);
    g_clear_pointer(&job->model, model_free);
    g_clear_pointer(&job->order_problem, order_problem_free);
    if (job->order_said)
        g_string_free(g_steal_pointer(&job->order_said), TRUE);
    g_clear_pointer(&job->schedule, g_ptr_array_unref);
    g_clear_pointer(&job->aliases, alias_map_free);
    g_clear_pointer(&job->training, training_roles_free);
}

void cli_error_line(const char *path, const char *message, const char *suffix)
{
    /* Names and paths come from strangers: escaped (base/escape.h) so the line stays one line and the
     * terminal acts on nothing in it. */
    char *text = path ? g_strconcat(path, ": ", message, suffix, NULL) : g_strconcat(message, suffix, NULL);
    char *safe = escape_terminal(text);
    fprintf(stderr, "sim: %s\n", safe);
    g_free(safe);
    g_free(text);
}

int cli_usage_error(const char *message)
{
    cli_error_line(NULL, message, " (see sim --help)");
    return 2;
}

int cli_file_error(const char *path, const GError *error)
{
    /* Trace errors already carry FILE:LINE. */
    cli_error_line(path && g_str_has_prefix(error->message, path) ? NULL : path, error->message, "");
    return 1;
}
