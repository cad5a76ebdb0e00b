/* arenasim.c — the public C API (arenasim.h) over the library's rooms: the same stages, defaults and
 * registry as the command (sim/cli), through the one pipeline call (memory/pipeline.h). */
#include "api/arenasim.h"

#include "base/error.h"
#include "base/version.h"
#include "driver/driver.h"
#include "driver/run.h"
#include "model/onnx.h"
#include "plan/verify.h"
#include "strategies/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arenasim_plan {
    char *source;
    Model *model;        /* NULL for a trace file */
    PipelineResult built; /* a model's order, alias map and trace */
    Trace *trace;        /* built.trace, or the trace file's */
    Plan *plan;
    char *alias, *order, *dims;
    gboolean for_run;    /* planned with options.run (Transpose as a copy) */
};

void arenasim_options_init(arenasim_options *o)
{
    memset(o, 0, sizeof *o);
    o->verify = 1;
}

static void set_error(char **error, GError *e)
{
    if (error)
        *error = g_strdup(e ? e->message : "unknown error");
    g_clear_error(&e);
}

static gboolean is_model(const char *path)
{
    return g_str_has_suffix(path, ".onnx");
}

/* "seq=128,batch=1" from the bindings, or "-" (the report's dims column). */
static char *dims_text(const char *const *dims)
{
    if (!dims || !*dims)
        return g_strdup("-");
    return g_strjoinv(",", (char **)dims);
}

static gboolean plan_model(arenasim_plan *p, const arenasim_options *o, const OrderStrategy *order, GError **error)
{
    ShapeOptions shape;
    shape_options_init(&shape);
    gboolean ok = TRUE;
    for (const char *const *d = o->dims; ok && d && *d; d++)
        ok = shape_options_add_dim(&shape, *d, error);
    DriverModel loaded = {0};
    ok = ok && driver_model_load(p->source, NULL, &shape, o->fuse, NULL, &loaded, error);
    shape_options_clear(&shape);
    p->model = g_steal_pointer(&loaded.model);
    driver_model_clear(&loaded);
    if (!ok)
        return FALSE;
    PipelineRecipe recipe = {.order = order, .layout = LAYOUT_DEFAULTS};
    if (o->align)
        recipe.layout.align = o->align;
    recipe.layout.transpose_moves = o->run != 0;
    ok = driver_trace(p->model->graph, &recipe, p->alias, NULL, &p->built, error);
    p->trace = p->built.trace;
    return ok;
}

arenasim_plan *arenasim_plan_file(const char *path, const arenasim_options *options, char **error)
{
    arenasim_options defaults;
    arenasim_options_init(&defaults);
    const arenasim_options *o = options ? options : &defaults;
    GError *e = NULL;
    if (error)
        *error = NULL;
    if (!path) {
        set_error(error, g_error_new(SIM_ERROR, SIM_ERROR_USAGE, "no file given"));
        return NULL;
    }
    const PlaceStrategy *strategy = registry_place_find(o->strategy ? o->strategy : PLACE_DEFAULT_STRATEGY);
    const OrderStrategy *order = registry_order_find(o->order ? o->order : "file");
    if (!strategy || !order) {
        char *known = strategy ? registry_order_names() : registry_place_names();
        set_error(error, g_error_new(SIM_ERROR, SIM_ERROR_USAGE, "unknown %s '%s' (one of: %s)",
                                     strategy ? "order" : "strategy", strategy ? o->order : o->strategy, known));
        g_free(known);
        return NULL;
    }
    if (o->fuse && !fuse_kind_known(o->fuse)) {
        char *kinds = fuse_kind_names(", ");
        set_error(error, g_error_new(SIM_ERROR, SIM_ERROR_USAGE, "fuse takes %s, not '%s'", kinds, o->fuse));
        g_free(kinds);
        return NULL;
    }
    if (o->align && (o->align & (o->align - 1))) {
        set_error(error, g_error_new(SIM_ERROR, SIM_ERROR_USAGE, "align takes a power of two"));
        return NULL;
    }
    if (!(o->budget_seconds >= 0 && o->budget_seconds <= DRIVER_SECONDS_MAX)) { /* NaN too */
        set_error(error, g_error_new(SIM_ERROR, SIM_ERROR_USAGE, "budget_seconds takes 0 to 31,536,000"));
        return NULL;
    }
    arenasim_plan *p = g_new0(arenasim_plan, 1);
    p->source = g_strdup(path);
    p->alias = g_strdup(is_model(path) ? (o->alias ? o->alias : "all") : "none");
    p->order = g_strdup(is_model(path) ? order->name : "file");
    p->dims = dims_text(o->dims);
    p->for_run = o->run != 0;
    gboolean ok = is_model(path) ? plan_model(p, o, order, &e) : (p->trace = trace_read_file(path, &e)) != NULL;
    /* The budgets as the command sets them (driver.h). */
    PlaceOptions place = driver_place_options(o->strategy != NULL, o->budget_work, o->budget_seconds);
    ok = ok && (p->plan = driver_plan(strategy, p->trace, &place, o->verify, NULL, &e));
    if (!ok) {
        g_prefix_error(&e, "%s: ", path);
        set_error(error, e);
        arenasim_plan_free(p);
        return NULL;
    }
    return p;
}

void arenasim_plan_free(arenasim_plan *p)
{
    if (!p)
        return;
    if (p->trace != p->built.trace)
        trace_free(p->trace);
    pipeline_result_clear(&p->built);
    if (p->model)
        model_free(p->model);
    if (p->plan)
        plan_free(p->plan);
    g_free(p->source);
    g_free(p->alias);
    g_free(p->order);
    g_free(p->dims);
    g_free(p);
}

uint64_t arenasim_plan_arena_bytes(const arenasim_plan *p)
{
    return p->plan->arena;
}

uint64_t arenasim_plan_lower_bound_bytes(const arenasim_plan *p)
{
    return p->plan->lower_bound;
}

uint64_t arenasim_plan_naive_bytes(const arenasim_plan *p)
{
    return p->plan->naive_arena;
}

const char *arenasim_plan_strategy(const arenasim_plan *p)
{
    return p->plan->strategy->name;
}

const char *arenasim_plan_detail(const arenasim_plan *p)
{
    return p->plan->detail ? p->plan->detail : "";
}

uint32_t arenasim_plan_steps(const arenasim_plan *p)
{
    return p->trace->steps;
}

size_t arenasim_plan_buffer_count(const arenasim_plan *p)
{
    return trace_count(p->trace);
}

int arenasim_plan_buffer(const arenasim_plan *p, size_t k, arenasim_buffer *out)
{
    if (k >= trace_count(p->trace))
        return -1;
    const TraceBuffer *b = trace_buffer(p->trace, (guint)k);
    *out = (arenasim_buffer){.name = b->name, .offset = p->plan->offsets[k], .size = b->size, .first = b->first,
                             .last = b->last, .bin = b->bin};
    return 0;
}

int arenasim_plan_verify(const arenasim_plan *p, char **error)
{
    GError *e = NULL;
    if (error)
        *error = NULL;
    if (verify_plan(p->trace, p->plan, &e))
        return 0;
    set_error(error, e);
    return -1;
}

int arenasim_plan_run(const arenasim_plan *p, int check, char **error)
{
    GError *e = NULL;
    if (error)
        *error = NULL;
    if (!p->model || !p->for_run) {
        set_error(error, g_error_new(SIM_ERROR, SIM_ERROR_USAGE, "%s: %s", p->source,
                                     !p->model ? "a trace has no kernels to run"
                                               : "plan it to run first (arenasim_options.run): a Transpose planned as a "
                                                 "view cannot be read by the kernels after it"));
        return -1;
    }
    /* The command's run and its one check policy (driver/run.h), as `sim --run --check --poison` runs them. */
    RunOptions run;
    run_options_init(&run);
    run.check = run.poison = check != 0;
    RunOutcome ran;
    gboolean ok = run_plan(&run, p->model, p->built.schedule, p->built.aliases, p->trace, p->plan, &ran, &e);
    run_outcome_clear(&ran);
    if (ok)
        return 0;
    g_prefix_error(&e, "%s: ", p->source);
    set_error(error, e);
    return -1;
}

char *arenasim_plan_report_json(const arenasim_plan *p)
{
    ReportRow row = driver_report_row(p->source, p->dims, p->order, p->alias, p->built.aliases,
                                      p->built.no_alias_bytes);
    driver_report_fill(&row, p->trace, p->plan, TRUE, p->model != NULL);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    report_print(f, report_format_find("json"), FALSE, &row, 1);
    fclose(f);
    char *out = g_strndup(text, len); /* freed with arenasim_free (g_free), whatever malloc made it */
    free(text);
    return out;
}

const char *const *arenasim_names(arenasim_list which)
{
    static const char *strategies[64], *orders[64], *aliases[64];
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        guint n = 0;
        const PlaceStrategy *const *s = registry_place_strategies(&n);
        for (guint k = 0; k < n && k < 63; k++)
            strategies[k] = s[k]->name;
        const OrderStrategy *const *os = registry_order_strategies(&n);
        for (guint k = 0; k < n && k < 63; k++)
            orders[k] = os[k]->name;
        const AliasStrategy *const *as = registry_alias_strategies(&n);
        for (guint k = 0; k < n && k < 63; k++)
            aliases[k] = as[k]->name;
        g_once_init_leave(&done, 1);
    }
    return which == ARENASIM_ORDERS ? orders : which == ARENASIM_ALIASES ? aliases : strategies;
}

const char *arenasim_version(void)
{
    return SIM_VERSION;
}

void arenasim_free(void *p)
{
    g_free(p);
}
