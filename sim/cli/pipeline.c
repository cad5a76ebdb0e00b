/* pipeline.c — a planning job from input to output: load the model and infer its shapes (or read a trace),
 * order, liveness, sharing, trace; then the no-reuse baseline, the chosen strategy (or every one, or one
 * under every order), the verifier, the report, --run, and the files asked for. Each stage marks its
 * phase (--phases). */
#include "cli/job.h"
#include "cli/interrupt.h"
#include "cli/outputs.h"
#include "cli/phases.h"
#include "cli/run-print.h"
#include "driver/driver.h"
#include "driver/driver-structured.h"
#include "driver/entries.h"
#include "driver/generate.h"
#include "driver/range.h"
#include "exec/exec.h"
#include "report/chrome-trace.h"
#include "report/info.h"
#include "strategies/registry.h"

#include "report/peak.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

static gboolean load_model(Job *job, GError **error)
{
    /* --fuse: the graph the runtime runs (not for --info, which summarises the file) */
    DriverModel loaded;
    gboolean ok = driver_model_load(job->graph_path, job->inputs_dir, &job->shape,
                                    job->kind == JOB_INFO ? NULL : job->fuse, phases_mark, &loaded, error);
    job->model = g_steal_pointer(&loaded.model);
    if (job->model && job->order) { /* a file out of topological order: ordered topologically unless told */
        const OrderStrategy *order = driver_order_for(job->model->graph, job->order, job->order_named);
        job->order_fell_back = order != job->order;
        if (!job->order_best) /* else the file's order is one candidate, which fails, among the others */
            job->order = order;
    }
    job->inputs = g_steal_pointer(&loaded.inputs);
    job->run_options.inputs = job->inputs; /* a run's inputs: the data set's */
    job->unknown_ops = g_steal_pointer(&loaded.unknown_ops);
    job->fused = loaded.fused; /* taken over */
    memset(&loaded.fused, 0, sizeof loaded.fused);
    if (loaded.bound_dims) { /* the report's dims: those given, then those the data bound */
        char *text = strcmp(job->dims_text, "-") ? g_strjoin(",", job->dims_text, loaded.bound_dims, NULL)
                                                 : g_strdup(loaded.bound_dims);
        g_free(job->dims_text);
        job->dims_text = text;
    }
    driver_model_clear(&loaded);
    return ok;
}

/* The job's trace choices as a pipeline recipe (memory/pipeline.h): order, budgets, layout, pins, strict runtime,
 * scratch and the KV cache. */
static PipelineRecipe job_recipe(Job *job)
{
    return (PipelineRecipe){.order = job->order, .order_budget_states = job->order_budget_states,
                            .order_seconds = job->order_seconds, .layout = job->layout, .pins = job->pins,
                            .strict_runtime = job->strict_runtime, .scratch = job->scratch,
                            .kv = job->kv.capacity ? &job->kv : NULL};
}

/* Graph to trace: the job's choices as a pipeline recipe (memory/pipeline.h), the stages' results kept in
 * the job for the report, --run and the outputs. The trace is the caller's. */
static Trace *graph_trace(Job *job, GError **error)
{
    PipelineRecipe recipe = job_recipe(job);
    recipe.mark = phases_mark;
    if (!job->training && !training_roles_read(job->model, &job->training, error))
        return NULL;
    if (job->order_best && !job->order_said) { /* --order best: each order traced and placed, the smallest kept */
        job->order_said = g_string_new(NULL);
        const char *kept = NULL;
        const OrderStrategy *best = driver_best_order(job->model->graph, &recipe, job->alias, job->alias_named, &kept,
                                                      job->bins_path, job->strategy, &job->place, job->order_work,
                                                      &job->order_problem, job->order_said,
                                                      &job->order_made, &job->order_skipped, error);
        if (!best)
            return NULL;
        recipe.order = job->order = best;
        if (kept != job->alias) {
            char *was = job->alias;
            job->alias = g_strdup(kept);
            g_free(was);
        }
    }
    PipelineResult built = {.problem = job->order_problem, .schedule = job->schedule, .aliases = job->aliases};
    gboolean ok = driver_trace(job->model->graph, &recipe, job->alias, job->bins_path, &built, error);
    Trace *t = built.trace;
    job->order_problem = built.problem;
    job->schedule = built.schedule;
    job->aliases = built.aliases;
    job->no_alias_bytes = built.no_alias_bytes;
    return ok ? t : NULL;
}

/* Plans with one strategy, verifies (unless --no-verify), fills the report row. */
static Plan *plan_one(const Job *job, const PlaceStrategy *s, Trace *t, ReportRow *row, GError **error)
{
    interrupt_catch(); /* Ctrl-C while planning: the search stops with its best plan */
    Plan *plan = driver_plan(s, t, &job->place, job->verify, phases_mark, error);
    interrupt_release();
    if (plan)
        driver_report_fill(row, t, plan, job->verify, job->graph_path != NULL);
    if (plan && job->training && job->aliases)
        training_account(job->training, job->aliases, t, &row->training);
    return plan;
}

/* --compare: every strategy of the registry on the same trace, one table (and one picture); with --run,
 * every plan run (and checked against one reference run). */
static int run_compare(const Job *job, Trace *t)
{
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    ReportRow *rows = g_new0(ReportRow, count);
    Plan **plans = g_new0(Plan *, count);
    GError *error = NULL;
    int status = 0;
    if (job->chrome_trace && !chrome_trace_fits(trace_count(t), count, &error)) /* before planning, not after */
        status = cli_file_error(job->chrome_trace, error);
    guint planned = 0; /* with tiers, the strategies that choose them */
    GPtrArray *refused = g_ptr_array_new_with_free_func(g_free); /* refusals of strategies left out */
    for (guint k = 0; k < count && !status; k++) {
        if (t->tiers && !all[k]->plan_tiers)
            continue;
        rows[planned] = job_report_row(job);
        if ((plans[planned] = plan_one(job, all[k], t, &rows[planned], &error))) {
            planned++;
        } else if (g_error_matches(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED) && !job->run) {
            /* a strategy's limit, not a fault: the others compared; a refusal by every one is the input's */
            g_ptr_array_add(refused, g_strdup(error->message));
            g_clear_error(&error);
        } else {
            status = cli_file_error(job->source, error);
        }
    }
    for (guint k = 0; !status && k < refused->len; k++)
        if (planned)
            cli_error_line(job->source, refused->pdata[k], " (left out of the comparison)");
    if (!status && !planned && refused->len) /* said once: every strategy refused the input for one reason */
        cli_error_line(job->source, refused->pdata[refused->len - 1], "");
    status = !status && !planned && refused->len ? 1 : status;
    g_ptr_array_unref(refused);
    count = planned;
    if (!status) {
        report_print(stdout, job->format, job->wide, rows, count);
        cli_print_order_best(job);
        cli_print_aliasing(job);
        if (job->format->notes && job->format->peak) { /* the trace's peak: every strategy's lower bound */
            PeakWitness *peak = peak_witness_new(t, job->model ? job->model->graph : NULL, job->schedule, job->aliases);
            peak_witness_print(stdout, job->format->block, t, peak, job->verbose ? 0 : 8);
            peak_witness_free(peak);
        }
        if (job->html_out && !status && !cli_write_html(job, t, (const Plan *const *)plans, count, &error))
            status = cli_file_error(job->html_out, error);
        if (job->plot && !cli_write_plot(job, t, (const Plan *const *)plans, count, &error))
            status = cli_file_error(job->plot_out, error);
        if (!status && job->chrome_trace && !cli_write_chrome_trace(job, t, (const Plan *const *)plans, count, NULL, &error))
            status = cli_file_error(job->chrome_trace, error);
    }
    if (!status && job->run) {
        RunEachOutcome ran;
        gboolean ok = run_plans(&job->run_options, job->model, job->schedule, job->aliases, t,
                                (const Plan *const *)plans, all, count, &ran, &error);
        cli_print_run_each(stdout, job->format, &ran);
        run_each_outcome_clear(&ran);
        if (!ok)
            status = cli_file_error(job->graph_path, error);
        phases_mark("run");
    }
    for (guint k = 0; k < count; k++)
        plan_free(plans[k]);
    g_free(plans);
    g_free(rows);
    g_clear_error(&error);
    return status;
}

/* One strategy: the report, the map, the ASCII plan, --run, the Chrome trace and the picture. */
static int run_single(const Job *job, Trace *t)
{
    GError *error = NULL;
    ReportRow row = job_report_row(job);
    Plan *plan = plan_one(job, job->strategy, t, &row, &error);
    if (!plan) {
        int status = cli_file_error(job->source, error);
        g_error_free(error);
        return status;
    }
    if (job->map) {
        row.map_trace = t;
        row.map_offsets = plan->offsets;
    }
    gboolean report = !(job->map && job->format->map_alone); /* --map --format csv: the map is the one CSV on stdout */
    /* why the arena is what it is: the step of the lower bound and what is live there (json: in the row); its lifts
     * are placements, so only where the format shows it */
    PeakWitness *peak = NULL;
    if (report && job->format->peak) {
        peak = peak_witness_new(t, job->model ? job->model->graph : NULL, job->schedule, job->aliases);
        driver_peak_lift(peak, t, job->aliases, job->strategy, &job->place);
        row.peak = peak;
        row.peak_trace = t;
    }
    if (report) {
        report_print(stdout, job->format, job->wide, &row, 1);
        cli_print_order_best(job);
        cli_print_aliasing(job);
        if (peak && job->format->notes)
            peak_witness_print(stdout, job->format->block, t, peak, job->verbose ? 0 : 8);
    }
    peak_witness_free(peak);
    if (job->map)
        report_map(stdout, job->format, t, plan->offsets);
    if (job->ascii)
        report_ascii(stdout, t, plan, 100, 32);
    phases_mark("report");
    int status = 0;
    RunOutcome ran = {0}; /* with --run; its seconds per step are the Chrome trace's span lengths */
    if (job->run) {
        gboolean ok = run_plan(&job->run_options, job->model, job->schedule, job->aliases, t, plan, &ran, &error);
        cli_print_run(stdout, job->format, &job->run_options, &ran);
        if (!ok) /* an I/O error names its own file (--expect, --dump-outputs) */
            status = cli_file_error(g_error_matches(error, SIM_ERROR, SIM_ERROR_IO) ? NULL : job->graph_path, error);
        else if (job->profile_path && !cli_write_profile(job->profile_path, job->schedule, ran.node_seconds, &error))
            status = cli_file_error(job->profile_path, error);
        phases_mark("run");
    }
    double *seconds = ran.node_seconds;
    if (!status && job->solution_out && !trace_write_file(t, plan->offsets, job->solution_out, &error))
        status = cli_file_error(job->solution_out, error);
    if (!status && job->chrome_trace && !cli_write_chrome_trace(job, t, (const Plan *const *)&plan, 1, seconds, &error))
        status = cli_file_error(job->chrome_trace, error);
    if (!status && job->plot && !cli_write_plot(job, t, (const Plan *const *)&plan, 1, &error))
        status = cli_file_error(job->plot_out, error);
    if (!status && job->html_out && !cli_write_html(job, t, (const Plan *const *)&plan, 1, &error))
        status = cli_file_error(job->html_out, error);
    run_outcome_clear(&ran);
    plan_free(plan);
    g_clear_error(&error);
    return status;
}

/* --compare --orders: the chosen strategy under every listed order, one row each. An order that cannot run
 * here (optimal past its budget) gets a row saying so; the run fails only when none could. */
static int run_orders(Job *job)
{
    ReportRow *rows = g_new0(ReportRow, job->orders->len);
    GPtrArray *keep = g_ptr_array_new_with_free_func((GDestroyNotify)plan_free);
    GPtrArray *details = g_ptr_array_new_with_free_func(g_free);
    GError *error = NULL;
    guint done = 0;
    for (guint k = 0; k < job->orders->len; k++) {
        job->order = job->orders->pdata[k];
        Trace *t = graph_trace(job, &error);
        rows[k] = job_report_row(job);
        Plan *plan = t ? plan_one(job, job->strategy, t, &rows[k], &error) : NULL;
        if (!plan) {
            char *detail = g_strdup_printf("failed: %s", error->message);
            g_ptr_array_add(details, detail);
            rows[k] = (ReportRow){.graph = job->graph_path, .dims = job->dims_text, .order = job->order->name,
                                  .strategy = job->strategy->name, .alias = job->alias, .detail = detail};
            cli_error_line(job->graph_path, error->message, "");
            g_clear_error(&error);
        } else {
            done++;
            g_ptr_array_add(keep, plan);
        }
        trace_free(t);
    }
    if (done)
        report_print(stdout, job->format, job->wide, rows, job->orders->len);
    g_ptr_array_unref(keep);
    g_ptr_array_unref(details);
    g_free(rows);
    return done ? 0 : 1;
}

/* --dim NAME=LO:HI: every point planned by the driver (driver/range.h), its functions reported. */
static int run_range(Job *job)
{
    PipelineRecipe recipe = job_recipe(job);
    RangeJob range = {.path = job->graph_path, .shape = &job->shape, .fuse = job->fuse, .recipe = &recipe,
                      .alias = job->alias, .bins_path = job->bins_path, .strategy = job->strategy, .place = &job->place,
                      .check = job->range_check, .every = job->range_every, .one_plan = job->range_one_plan,
                      .dims = (const ReportRangeDim *)job->ranges->data, .ndims = job->ranges->len};
    ReportRange report = {.graph = job->graph_path, .fixed = job->dims_text, .order = job->order->name,
                          .strategy = job->strategy->name, .alias = job->alias};
    GError *error = NULL;
    interrupt_catch(); /* Ctrl-C: a search stops with its best plan, point by point */
    gboolean ok = range_plan(&range, &report, &error);
    interrupt_release();
    phases_mark("range");
    int status = 0;
    if (ok)
        report_range_print(stdout, job->format, &report);
    else
        status = cli_file_error(job->graph_path, error);
    phases_mark("report");
    if (!status && job->plot) {
        char *title = job->plot_title ? g_strdup(job->plot_title)
                                      : g_strdup_printf("%s (dims %s), order %s, alias %s: %s, arena against %s",
                                                        job->graph_path, job->dims_text, job->order->name, job->alias,
                                                        job->strategy->name, report.dims[report.ndims - 1].name);
        if (!job->plot_kind->draw_range(job->plot_out, title, &report, &error))
            status = cli_file_error(job->plot_out, error);
        g_free(title);
        phases_mark("output");
    }
    if (!status && job->phases_path && !phases_write(job->phases_path, &error))
        status = cli_file_error(job->phases_path, error);
    g_clear_error(&error);
    report_range_clear(&report);
    return status;
}

/* Several --graph: entry points planned in one arena by the driver (driver/entries.h), reported. */
static int run_entries(Job *job)
{
    PipelineRecipe recipe = job_recipe(job);
    guint n = g_strv_length(job->entry_paths);
    EntrySpec *specs = g_new0(EntrySpec, n);
    for (guint k = 0; k < n; k++)
        specs[k] = (EntrySpec){job->entry_paths[k], job->entry_names[k], &job->entry_shapes[k]};
    EntriesJob ej = {.entries = specs, .n = n, .fuse = job->fuse, .recipe = &recipe, .alias = job->alias,
                     .bins_path = job->bins_path, .strategy = job->strategy, .place = &job->place,
                     .verify = job->verify};
    ReportEntries report;
    report_entries_init(&report);
    report.order = job->order->name;
    report.strategy = job->strategy->name;
    report.alias = job->alias;
    GError *error = NULL;
    int status = 0;
    if (entries_plan(&ej, &report, NULL, NULL, NULL, &error))
        report_entries_print(stdout, job->format, &report);
    else
        status = cli_file_error(NULL, error); /* it names the entry's file */
    g_clear_error(&error);
    report_entries_clear(&report);
    g_free(specs);
    return status;
}

/* --generate N: a greedy generation run inside one plan by the driver (driver/generate.h), reported; exit 1 when
 * a token differs from the expected ones. */
static int run_generate(Job *job)
{
    PipelineRecipe recipe = job_recipe(job);
    GenerateJob gj = {.prefill = {job->entry_paths[0], job->entry_names[0], &job->entry_shapes[0]},
                      .decode = {job->entry_paths[1], job->entry_names[1], &job->entry_shapes[1]},
                      .tokens = job->generate, .inputs_dir = job->inputs_dir, .expect_dir = job->expect_dir,
                      .fuse = job->fuse, .recipe = &recipe, .alias = job->alias, .bins_path = job->bins_path,
                      .strategy = job->strategy, .place = &job->place, .exec = job->run_options.exec,
                      .poison = job->run_options.poison};
    GenerateResult result;
    generate_result_init(&result);
    result.plan.order = job->order->name;
    result.plan.strategy = job->strategy->name;
    result.plan.alias = job->alias;
    GError *error = NULL;
    int status = 0;
    if (run_open_kernels(&job->run_options, &error) && generate_run(&gj, &result, &error)) {
        ReportGenerate g = generate_report(&result);
        report_generate_print(stdout, job->format, &g);
        if (result.expected->len && result.matched < MIN(result.tokens->len, result.expected->len)) {
            cli_error_line(job->expect_dir, "the tokens differ from those expected", "");
            status = 1;
        }
    } else {
        status = cli_file_error(NULL, error);
    }
    g_clear_error(&error);
    generate_result_clear(&result);
    return status;
}

/* --compare on a structured problem: every structured strategy's validated placement, one table. */
static int run_structured_compare(Job *job)
{
    guint n = 0;
    while (registry_structured[n])
        n++;
    DriverStructured *r = g_new0(DriverStructured, n);
    ReportStructured *rows = g_new0(ReportStructured, n);
    GError *error = NULL;
    int status = 0;
    for (guint k = 0; k < n && !status; k++) {
        DriverStructuredJob sj = {.path = job->trace_path, .strategy = registry_structured[k],
                                  .options = job->structured_options};
        if (driver_structured_plan(&sj, &r[k], &error))
            rows[k] = r[k].report;
        else
            status = cli_file_error(job->trace_path, error);
    }
    phases_mark("place");
    if (!status)
        report_structured_compare(stdout, job->format, rows, n);
    phases_mark("output");
    if (!status && job->phases_path && !phases_write(job->phases_path, &error))
        status = cli_file_error(job->phases_path, error);
    g_clear_error(&error);
    for (guint k = 0; k < n; k++)
        driver_structured_clear(&r[k]);
    g_free(rows);
    g_free(r);
    return status;
}

/* A structured problem: placed (or a solution checked), validated, reported; the solution envelope written. */
static int run_structured(Job *job)
{
    if (job->structured_compare)
        return run_structured_compare(job);
    DriverStructuredJob sj = {.path = job->trace_path, .strategy = job->structured, .options = job->structured_options,
                              .solution = job->check_solution};
    DriverStructured r;
    GError *error = NULL;
    int status = 0;
    if (!driver_structured_plan(&sj, &r, &error))
        status = cli_file_error(job->trace_path, error);
    phases_mark("place");
    if (!status)
        report_structured_print(stdout, job->format, &r.report);
    if (!status && job->solution_out && !driver_structured_write_solution(&r, job->solution_out, &error))
        status = cli_file_error(job->solution_out, error);
    phases_mark("output");
    if (!status && job->phases_path && !phases_write(job->phases_path, &error))
        status = cli_file_error(job->phases_path, error);
    g_clear_error(&error);
    driver_structured_clear(&r);
    return status;
}

int job_run(Job *job)
{
    if (job->kind == JOB_STRUCTURED)
        return run_structured(job);
    if (job->kind == JOB_RANGE)
        return run_range(job);
    if (job->kind == JOB_ENTRIES)
        return run_entries(job);
    if (job->kind == JOB_GENERATE)
        return run_generate(job);
    GError *error = NULL;
    Trace *t = NULL;
    int status = 0;
    if (job->graph_path) {
        if (!load_model(job, &error))
            status = cli_file_error(job->graph_path, error);
        else if (job->kind == JOB_INFO)
            info_print(stdout, job->format, job->model, job->graph_path);
        else if (job->kind == JOB_ORDERS)
            status = run_orders(job);
        else if (!(t = graph_trace(job, &error)))
            status = cli_file_error(job->graph_path, error);
        else if (job->run && !exec_check_schedule(job->schedule, &error)) /* before a report of a plan it cannot run */
            status = cli_file_error(job->graph_path, error);
    } else {
        t = job->structured_pool ? driver_structured_core(job->trace_path, job->structured_pool, &error)
                                 : trace_read_file(job->trace_path, &error);
        phases_mark("load");
        if (!t)
            status = cli_file_error(job->trace_path, error);
    }
    /* --tiers, or the trace file's own */
    if (!status && t && !driver_tiers_attach(t, job->tiers, job->bins_path, &error))
        status = cli_file_error(job->source, error);
    if (!status && t && t->tiers && !job->strategy_named && !job->strategy->plan_tiers)
        job->strategy = registry_place_find(PLACE_TIERED_STRATEGY);
    if (!status && t && job->run) { /* and its kernels' threads, which the system may refuse */
        if (!run_open_kernels(&job->run_options, &error))
            status = cli_file_error(NULL, error);
    }
    if (!status && t)
        status = job->kind == JOB_COMPARE ? run_compare(job, t) : run_single(job, t);
    /* --trace-out only once everything else has succeeded: a failed run leaves no output behind without
     * removing anything, since what the path names may be the user's own file, a device or the input. */
    if (!status && t && job->trace_out && !trace_write_file(t, NULL, job->trace_out, &error))
        status = cli_file_error(job->trace_out, error);
    phases_mark("output"); /* the rest: --compare's report, pictures, --chrome-trace, --trace-out */
    if (!status && job->phases_path && !phases_write(job->phases_path, &error))
        status = cli_file_error(job->phases_path, error);
    g_clear_error(&error);
    trace_free(t);
    return status;
}
