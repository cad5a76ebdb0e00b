/* arenasim.c — the public C API (arenasim.h): options turned into the driver's choices (driver/driver.h,
 * driver/run.h), the same stages, defaults and checks as the command, and the results read back. */
#include "api/arenasim.h"

#include "base/error.h"
#include "base/version.h"
#include "driver/driver.h"
#include "driver/driver-structured.h"
#include "driver/entries.h"
#include "driver/generate.h"
#include "driver/range.h"
#include "driver/run.h"
#include "model/onnx.h"
#include "plan/verify.h"
#include "memory/training.h"
#include "report/peak.h"
#include "report/report-range.h"
#include "strategies/registry.h"
#include "structured/structured-json.h"
#include "trace/trace-tiers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A model's trace for one set of trace choices (order, sharing, layout, pins, bins, ...). */
typedef struct {
    PipelineResult built;
    char *order, *alias;
    TrainingRoles *training; /* a training step's roles, or NULL */
} Traced;

struct arenasim_model {
    gint refs;             /* the handle and each plan made from it */
    char *source;
    Model *model;          /* NULL for a trace */
    GPtrArray *inputs;     /* TensorData* of options.inputs, or NULL */
    char *dims;            /* the report's dims: "seq=128,batch=1" or "-" */
    Trace *trace;          /* a trace file's or one built in memory (NULL for a model) */
    gboolean built_here;   /* arenasim_trace_new: buffers may be added until the first plan */
    gboolean planned;
    GHashTable *traced;    /* trace choices (text) -> Traced* */
};

struct arenasim_plan {
    arenasim_model *m;     /* a reference */
    const Traced *traced;  /* the model's trace it was planned on (NULL for a trace) */
    const Trace *trace;
    Plan *plan;
    gboolean for_run;      /* planned with options.run (Transpose as a copy) */
    const PlaceStrategy *strategy; /* and how it was placed (the peak witness places variants of the trace alike) */
    PlaceOptions place;
    Trace *own_trace;      /* a tiered plan's trace: the model's with the tiers given and the plan's tiers as bins */
    ReportRow tiers;       /* a tiered plan's tiers (report_row_fill) */
};

void arenasim_options_init(arenasim_options *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->verify = 1;
    o->seed = -1;
    o->search_max = -1;
}

void arenasim_run_options_init(arenasim_run_options *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->rtol = o->atol = -1;
}

static void set_error(char **error, GError *e)
{
    if (error)
        *error = g_strdup(e ? e->message : "unknown error");
    g_clear_error(&e);
}

static gboolean usage(GError **error, const char *message)
{
    g_set_error_literal(error, SIM_ERROR, SIM_ERROR_USAGE, message);
    return FALSE;
}

/* The caller's options as this library's struct: the fields within the size it was compiled with, the
 * defaults after them (arenasim.h: options that grow). */
static gboolean options_of(const void *given, size_t given_size, void *out, size_t size, void (*init)(void *),
                           GError **error)
{
    init(out);
    if (!given)
        return TRUE;
    if (given_size < sizeof(size_t))
        return usage(error, "options: size is not set (call the options' _init function first)");
    memcpy(out, given, MIN(given_size, size));
    *(size_t *)out = size;
    return TRUE;
}

static gboolean is_model(const char *path)
{
    return g_str_has_suffix(path, ".onnx");
}

static arenasim_model *handle_new(const char *source)
{
    arenasim_model *m = g_new0(arenasim_model, 1);
    m->refs = 1;
    m->source = g_strdup(source);
    m->dims = g_strdup("-");
    return m;
}

static void traced_free(gpointer data)
{
    Traced *t = data;
    pipeline_result_clear(&t->built);
    g_free(t->order);
    g_free(t->alias);
    training_roles_free(t->training);
    g_free(t);
}

static void handle_unref(arenasim_model *m)
{
    if (!m || --m->refs > 0)
        return;
    if (m->traced)
        g_hash_table_unref(m->traced);
    if (m->model)
        model_free(m->model);
    if (m->inputs)
        g_ptr_array_unref(m->inputs);
    trace_free(m->trace);
    g_free(m->source);
    g_free(m->dims);
    g_free(m);
}

/* What a trace file cannot take: the choices that shape a trace from a model (as the command refuses them). */
static gboolean fits_trace(const arenasim_options *o, GError **error)
{
    if (o->dims || o->bounds || o->fuse || o->weights || o->io || o->transpose || o->pad_last || o->align ||
        o->alias || o->pins || o->strict_runtime || o->scratch || o->bins || o->inputs || o->allow_unknown_ops)
        return usage(error, "dims, bounds, fuse, weights, io, transpose, pad_last, align, alias, pins, bins, inputs, "
                            "scratch, strict_runtime and allow_unknown_ops shape a trace from a model: a trace has its "
                            "own");
    return TRUE;
}

static gboolean load_model(arenasim_model *m, const arenasim_options *o, GError **error)
{
    if (o->fuse && !fuse_kind_known(o->fuse)) {
        char *kinds = fuse_kind_names(", ");
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "fuse takes %s, not '%s'", kinds, o->fuse);
        g_free(kinds);
        return FALSE;
    }
    ShapeOptions shape;
    shape_options_init(&shape);
    shape.allow_unknown_ops = o->allow_unknown_ops != 0;
    gboolean ok = TRUE;
    for (const char *const *d = o->dims; ok && d && *d; d++)
        ok = range_spec_is_range(*d) ? usage(error, "dims: a range (NAME=LO:HI) is planned by arenasim_range_file")
                                     : shape_options_add_dim(&shape, *d, error);
    for (const char *const *b = o->bounds; ok && b && *b; b++)
        ok = shape_options_add_bound(&shape, *b, error);
    DriverModel loaded = {0};
    ok = ok && driver_model_load(m->source, o->inputs, &shape, o->fuse, NULL, &loaded, error);
    shape_options_clear(&shape);
    m->model = g_steal_pointer(&loaded.model);
    m->inputs = g_steal_pointer(&loaded.inputs);
    GString *dims = g_string_new(NULL);
    for (const char *const *d = o->dims; d && *d; d++)
        g_string_append_printf(dims, "%s%s", dims->len ? "," : "", *d);
    if (loaded.bound_dims)
        g_string_append_printf(dims, "%s%s", dims->len ? "," : "", loaded.bound_dims);
    g_free(m->dims);
    m->dims = dims->len ? g_string_free(dims, FALSE) : (g_string_free(dims, TRUE), g_strdup("-"));
    driver_model_clear(&loaded);
    m->traced = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, traced_free);
    return ok;
}

static void pool_usage(GError **e)
{
    usage(e, "options.pool projects a pool of a structured problem (FILE.json)");
}

/* A structured problem as a model: one pool's capacity-free projection (options.pool). */
static gboolean structured_trace(arenasim_model *m, const char *path, const arenasim_options *o, GError **e)
{
    if (!o->pool)
        return usage(e, "a structured problem (FILE.json) is planned by arenasim_structured_plan; set options.pool to "
                        "load one pool's projection as a trace");
    GError *inner = NULL;
    m->trace = driver_structured_core(path, o->pool, &inner);
    if (!m->trace) { /* the driver's message names the file already */
        g_set_error_literal(e, inner->domain, inner->code, inner->message + (g_str_has_prefix(inner->message, path)
                                                                                 ? strlen(path) + 2 : 0));
        g_error_free(inner);
    }
    return m->trace != NULL;
}

arenasim_model *arenasim_model_load(const char *path, const arenasim_options *options, char **error)
{
    arenasim_options o;
    GError *e = NULL;
    if (error)
        *error = NULL;
    if (!options_of(options, options ? options->size : 0, &o, sizeof o, (void (*)(void *))arenasim_options_init,
                    &e) ||
        (!path && !usage(&e, "no file given"))) {
        set_error(error, e);
        return NULL;
    }
    arenasim_model *m = handle_new(path);
    gboolean structured = structured_json_is_problem_path(path);
    if (o.pool && !structured)
        pool_usage(&e);
    gboolean ok = !e && (is_model(path)   ? load_model(m, &o, &e)
                         : structured     ? fits_trace(&o, &e) && structured_trace(m, path, &o, &e)
                                          : fits_trace(&o, &e) && (m->trace = trace_read_file(path, &e)) != NULL);
    if (!ok) {
        g_prefix_error(&e, "%s: ", path);
        set_error(error, e);
        handle_unref(m);
        return NULL;
    }
    return m;
}

void arenasim_model_free(arenasim_model *m)
{
    handle_unref(m);
}

arenasim_model *arenasim_trace_new(void)
{
    arenasim_model *m = handle_new("trace");
    m->trace = trace_new("trace");
    m->built_here = TRUE;
    return m;
}

int arenasim_trace_add(arenasim_model *t, const char *name, uint64_t size, uint32_t first, uint32_t last,
                       uint64_t align, char **error)
{
    GError *e = NULL;
    if (error)
        *error = NULL;
    if (!t->built_here || t->planned)
        usage(&e, t->built_here ? "trace: planned already, so no buffer can be added" :
                                  "trace: buffers are added to a trace made by arenasim_trace_new");
    else if (!name || !*name || strchr(name, '\n'))
        usage(&e, "trace: a buffer needs a name of one line");
    else if (size == 0 || first > last)
        g_set_error(&e, SIM_ERROR, SIM_ERROR_USAGE, "trace: buffer '%s' needs a size and first <= last", name);
    else if (align & (align - 1))
        g_set_error(&e, SIM_ERROR, SIM_ERROR_USAGE, "trace: buffer '%s': align takes a power of two", name);
    if (e) {
        set_error(error, e);
        return -1;
    }
    trace_add(t->trace, name, size, align ? align : 1, first, last);
    if (last + 1 > t->trace->steps)
        t->trace->steps = last + 1;
    return 0;
}

/* The options' trace choices as a recipe: the order (*best: "best", the file's standing in; or "optimal" with a
 * portfolio, itself first among the candidates), its budgets, the
 * layout, the pins, parsed into `pins`, and the KV cache into `kv` (the caller's, which the recipe points to). */
static gboolean trace_recipe(const arenasim_options *o, gboolean portfolio, PipelineRecipe *recipe, gboolean *best,
                             GHashTable *pins, KvRequest *kv, GError **error)
{
    const OrderStrategy *order;
    if (!driver_order_find(o->order, portfolio, &order, best, error))
        return FALSE;
    if (portfolio && order->exhaustive) /* optimal: the exact order, unless a heuristic order's plan is smaller */
        *best = TRUE;
    if (!(o->order_seconds >= 0 && o->order_seconds <= DRIVER_SECONDS_MAX)) /* NaN too */
        return usage(error, "order_seconds takes 0 to 31,536,000");
    DriverLayout choice = {.pad_last = o->pad_last, .align = o->align, .weights = o->weights, .io = o->io,
                           .transpose = o->transpose, .run = o->run != 0};
    *recipe = (PipelineRecipe){.order = order, .order_budget_states = o->order_budget,
                               .order_seconds = o->order_seconds, .strict_runtime = o->strict_runtime != 0,
                               .scratch = o->scratch != 0, .pins = pins};
    if (o->kv && !o->kv_capacity)
        return usage(error, "kv names the cache pairs that kv_capacity plans: give both");
    *kv = (KvRequest){.capacity = o->kv_capacity, .patterns = o->kv};
    recipe->kv = o->kv_capacity ? kv : NULL;
    gboolean ok = driver_layout(&choice, &recipe->layout, error);
    for (const char *const *p = o->pins; ok && p && *p; p++)
        ok = alias_pins_parse(pins, *p, error);
    return ok;
}

/* The model's trace for the options' trace choices: an earlier plan's when they are the same, else traced. */
static const Traced *model_trace(arenasim_model *m, const arenasim_options *o, const PlaceStrategy *s,
                                 const PlaceOptions *place, GError **error)
{
    gboolean best = FALSE; /* the order whose plan is smallest, chosen below */
    PipelineRecipe recipe = {0};
    const char *alias = o->alias ? o->alias : "all";
    GHashTable *pins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    KvRequest kv;
    gboolean ok = trace_recipe(o, !o->tiers, &recipe, &best, pins, &kv, error); /* best by default, but with tiers */
    if (ok && !best) /* a file out of topological order: ordered topologically unless told */
        recipe.order = driver_order_for(m->model->graph, recipe.order, o->order != NULL);
    const OrderStrategy *order = recipe.order;
    OrderProblem *problem = NULL; /* the best order's, kept for the trace (an exact order is found once) */
    if (ok && best)
        ok = (order = recipe.order = driver_best_order(m->model->graph, &recipe, alias, o->alias != NULL, &alias,
                                                       o->bins, s, place, o->order_work, &problem, NULL, NULL, NULL,
                                                       error)) != NULL;
    if (!ok) {
        if (problem)
            order_problem_free(problem);
        g_hash_table_unref(pins);
        return NULL;
    }
    GString *key = g_string_new(NULL);
    g_string_append_printf(key, "%s\n%s\n%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d %d %d %d %d %d %d %"
                           G_GUINT64_FORMAT " %.17g\n%s\n", order->name, alias, recipe.layout.pad_last,
                           recipe.layout.align, recipe.layout.weights_in_arena, recipe.layout.inputs_outside,
                           recipe.layout.outputs_outside, recipe.layout.transpose_moves, recipe.strict_runtime,
                           recipe.scratch, o->run != 0, recipe.order_budget_states, recipe.order_seconds,
                           o->bins ? o->bins : "");
    for (const char *const *p = o->pins; p && *p; p++)
        g_string_append_printf(key, "%s\n", *p);
    g_string_append_printf(key, "kv %" G_GUINT64_FORMAT "\n", o->kv_capacity);
    for (const char *const *p = o->kv; p && *p; p++)
        g_string_append_printf(key, "%s\n", *p);
    const Traced *found = g_hash_table_lookup(m->traced, key->str);
    if (found) {
        if (problem)
            order_problem_free(problem);
        g_hash_table_unref(pins);
        g_string_free(key, TRUE);
        return found;
    }
    Traced *t = g_new0(Traced, 1);
    t->order = g_strdup(order->name);
    t->alias = g_strdup(alias);
    t->built.problem = problem;
    ok = ok && training_roles_read(m->model, &t->training, error) &&
         driver_trace(m->model->graph, &recipe, alias, o->bins, &t->built, error);
    g_hash_table_unref(pins);
    if (!ok) {
        traced_free(t);
        g_string_free(key, TRUE);
        return NULL;
    }
    g_hash_table_insert(m->traced, g_string_free(key, FALSE), t);
    return t;
}

/* The placement options: the budgets as the command sets them (driver.h), the search's seed, size and engines. */
static gboolean place_options(const arenasim_options *o, PlaceOptions *place, GError **error)
{
    if (!(o->budget_seconds >= 0 && o->budget_seconds <= DRIVER_SECONDS_MAX)) /* NaN too */
        return usage(error, "budget_seconds takes 0 to 31,536,000");
    if (o->seed < -1 || o->seed > G_MAXUINT32 || o->search_max < -1 || o->search_max > G_MAXUINT32)
        return usage(error, "seed and search_max take numbers from 0 to 4,294,967,295 (-1: the default)");
    *place = driver_place_options(o->strategy != NULL, o->budget_work, o->budget_seconds);
    if (o->seed >= 0)
        place->seed = (guint32)o->seed;
    if (o->search_max >= 0)
        place->search_max = (guint)o->search_max;
    return driver_search_engines(o->search_engines, &place->search_engines, error);
}

/* The options, the strategy and its placement options, before any file is read: errors name the option. */
static gboolean plan_choices(const arenasim_options *given, arenasim_options *o, const PlaceStrategy **strategy,
                             PlaceOptions *place, GError **error)
{
    if (!options_of(given, given ? given->size : 0, o, sizeof *o, (void (*)(void *))arenasim_options_init, error) ||
        !place_options(o, place, error))
        return FALSE;
    const char *fallback = o->tiers ? PLACE_TIERED_STRATEGY : PLACE_DEFAULT_STRATEGY;
    if (!(*strategy = registry_place_find(o->strategy ? o->strategy : fallback))) {
        char *known = registry_place_names();
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "unknown strategy '%s' (one of: %s)", o->strategy, known);
        g_free(known);
        return FALSE;
    }
    return TRUE;
}

arenasim_plan *arenasim_model_plan(arenasim_model *m, const arenasim_options *options, char **error)
{
    arenasim_options o;
    GError *e = NULL;
    if (error)
        *error = NULL;
    const PlaceStrategy *strategy = NULL;
    PlaceOptions place;
    if (!plan_choices(options, &o, &strategy, &place, &e)) {
        set_error(error, e);
        return NULL;
    }
    const Traced *traced = NULL;
    gboolean ok = driver_bins_check(o.bins, o.tiers != NULL, &e);
    if (ok && m->model)
        ok = (traced = model_trace(m, &o, strategy, &place, &e)) != NULL;
    else if (ok)
        ok = o.order ? usage(&e, "order: a trace has its own steps") : o.run ? usage(&e, "run: a trace has no kernels")
                                                                             : fits_trace(&o, &e);
    /* a tiered plan gets a trace of its own: its tiers become that trace's bins, and the model's trace, which other
     * plans share, keeps none */
    GArray *tiers = ok && o.tiers ? trace_tiers_parse(o.tiers, &e) : NULL;
    ok = ok && (!o.tiers || tiers);
    Trace *own = ok && tiers ? trace_copy(traced ? traced->built.trace : m->trace) : NULL;
    ok = ok && (!own || driver_tiers_attach(own, tiers, o.bins, &e));
    if (tiers)
        g_array_unref(tiers);
    Trace *trace = own ? own : (Trace *)(traced ? traced->built.trace : m->trace);
    Plan *plan = ok ? driver_plan(strategy, trace, &place, o.verify, NULL, &e) : NULL;
    if (!plan) {
        trace_free(own);
        g_prefix_error(&e, "%s: ", m->source);
        set_error(error, e);
        return NULL;
    }
    m->planned = TRUE;
    m->refs++;
    arenasim_plan *p = g_new0(arenasim_plan, 1);
    *p = (arenasim_plan){.m = m, .traced = traced, .trace = trace, .plan = plan, .for_run = o.run != 0,
                         .strategy = strategy, .place = place, .own_trace = own};
    if (own)
        report_row_fill(&p->tiers, own, plan);
    return p;
}

arenasim_plan *arenasim_plan_file(const char *path, const arenasim_options *options, char **error)
{
    arenasim_options o;
    const PlaceStrategy *strategy;
    PlaceOptions place;
    GError *e = NULL;
    if (!plan_choices(options, &o, &strategy, &place, &e)) { /* before the file is read */
        if (error)
            *error = NULL;
        set_error(error, e);
        return NULL;
    }
    arenasim_model *m = arenasim_model_load(path, options, error);
    arenasim_plan *p = m ? arenasim_model_plan(m, options, error) : NULL;
    handle_unref(m);
    return p;
}

void arenasim_plan_free(arenasim_plan *p)
{
    if (!p)
        return;
    plan_free(p->plan);
    trace_free(p->own_trace);
    handle_unref(p->m);
    g_free(p);
}

size_t arenasim_plan_tier_count(const arenasim_plan *p)
{
    return p->tiers.tiers;
}

int arenasim_plan_tier(const arenasim_plan *p, size_t k, arenasim_tier *out)
{
    if (k >= p->tiers.tiers)
        return -1;
    const ReportTier *t = &p->tiers.tier[k];
    *out = (arenasim_tier){.name = t->name, .capacity = t->capacity, .arena = t->arena, .buffers = t->buffers,
                           .reads = t->reads, .writes = t->writes, .cost = t->cost};
    return 0;
}

double arenasim_plan_tier_cost(const arenasim_plan *p)
{
    return p->tiers.tier_cost;
}

double arenasim_plan_tier_bound(const arenasim_plan *p)
{
    return p->tiers.tier_bound;
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

/* The run options as the driver takes them, with the command's words for what it refuses. */
static gboolean run_options(const arenasim_run_options *o, RunOptions *run, GError **error)
{
    run_options_init(run);
    if (!run_exec_choices(&run->exec, o->kernels, o->layouts, o->winograd, o->skinny, error))
        return FALSE;
    if (o->repeat > 100000)
        return usage(error, "repeat takes a count from 1 to 100,000");
    if (!(o->rtol < 1e9) || !(o->atol < 1e300)) /* NaN too */
        return usage(error, "rtol and atol take finite numbers, 0 or more (negative: the default)");
    if (o->repeat)
        run->repeat = o->repeat;
    if (o->threads)
        run->threads = o->threads;
    run->check = o->check != 0;
    run->poison = o->poison != 0;
    run->expect_dir = o->expect;
    run->dump_dir = o->dump_outputs;
    if (o->rtol >= 0)
        run->rtol = o->rtol;
    if (o->atol >= 0)
        run->atol = o->atol;
    run->allow_degenerate = o->allow_degenerate != 0;
    return TRUE;
}

int arenasim_plan_run_with(const arenasim_plan *p, const arenasim_run_options *options, arenasim_run_result *result,
                           char **error)
{
    GError *e = NULL;
    if (error)
        *error = NULL;
    arenasim_run_options o;
    RunOptions run;
    gboolean ok = options_of(options, options ? options->size : 0, &o, sizeof o,
                             (void (*)(void *))arenasim_run_options_init, &e) &&
                  run_options(&o, &run, &e);
    if (ok && (!p->m->model || !p->for_run))
        ok = usage(&e, !p->m->model ? "a trace has no kernels to run"
                                    : "plan it to run first (arenasim_options.run): a Transpose planned as a view "
                                      "cannot be read by the kernels after it");
    /* The command's run and its one check policy (driver/run.h). */
    RunOutcome ran = {0};
    run.inputs = p->m->inputs;
    ok = ok && run_plan(&run, p->m->model, p->traced->built.schedule, p->traced->built.aliases, p->trace, p->plan,
                        &ran, &e);
    if (ok && result && result->size >= sizeof(size_t)) {
        arenasim_run_result r = {.size = sizeof r, .median_seconds = ran.median_seconds, .arena_bytes = ran.arena_bytes,
                                 .checked_elements = ran.checked_elements, .max_abs_error = ran.expect.max_abs,
                                 .max_rel_error = ran.expect.max_rel};
        gsize within = MIN(result->size, sizeof r) - sizeof(size_t); /* the fields the caller knows */
        memcpy((char *)result + sizeof(size_t), (char *)&r + sizeof(size_t), within);
    }
    run_outcome_clear(&ran);
    if (ok)
        return 0;
    g_prefix_error(&e, "%s: ", p->m->source);
    set_error(error, e);
    return -1;
}

int arenasim_plan_run(const arenasim_plan *p, int check, char **error)
{
    arenasim_run_options o;
    arenasim_run_options_init(&o);
    o.check = o.poison = check != 0;
    return arenasim_plan_run_with(p, &o, NULL, error);
}

struct arenasim_range {
    ReportRange report;
    char *graph, *fixed, *order, *strategy, *alias; /* the report's strings */
};

/* A dims list for a range: the ranges into dims, the values into shape (NULL-terminated list; error names the
 * first bad one). */

arenasim_range *arenasim_range_file(const char *path, const arenasim_options *options, char **error)
{
    arenasim_options o;
    GError *e = NULL;
    if (error)
        *error = NULL;
    const PlaceStrategy *strategy = NULL;
    PlaceOptions place;
    gboolean best = FALSE;
    ShapeOptions shape;
    shape_options_init(&shape);
    GArray *dims = g_array_new(FALSE, TRUE, sizeof(ReportRangeDim));
    g_array_set_clear_func(dims, range_dim_clear);
    GString *fixed = g_string_new(NULL);
    GHashTable *pins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    PipelineRecipe recipe = {0};
    KvRequest kv;
    gboolean ok = plan_choices(options, &o, &strategy, &place, &e) && (path || usage(&e, "no file given")) &&
                  (is_model(path) || usage(&e, "a range of dims plans a model (.onnx), not a trace")) &&
                  (!o.fuse || fuse_kind_known(o.fuse) || usage(&e, "fuse: unknown kind")) &&
                  (!o.inputs || usage(&e, "inputs bind one binding's dims: not with a range")) &&
                  (o.verify || usage(&e, "verify: a range verifies every plan it moves")) &&
                  trace_recipe(&o, FALSE, &recipe, &best, pins, &kv, &e) &&
                  (!best || usage(&e, "order \"best\" chooses an order for one binding: with a range, name one")) &&
                  range_dims_split(o.dims, &shape, dims, fixed, &e) &&
                  (dims->len || usage(&e, "dims: a range needs at least one \"NAME=LO:HI\" (arenasim_plan_file plans "
                                          "one binding)"));
    for (const char *const *b = o.bounds; ok && b && *b; b++)
        ok = shape_options_add_bound(&shape, *b, &e);
    shape.allow_unknown_ops = o.allow_unknown_ops != 0;
    arenasim_range *r = g_new0(arenasim_range, 1);
    if (ok) {
        r->graph = g_strdup(path);
        r->fixed = fixed->len ? g_strdup(fixed->str) : g_strdup("-");
        r->order = g_strdup(recipe.order->name);
        r->strategy = g_strdup(strategy->name);
        r->alias = g_strdup(o.alias ? o.alias : "all");
        r->report = (ReportRange){.graph = r->graph, .fixed = r->fixed, .order = r->order, .strategy = r->strategy,
                                  .alias = r->alias};
        RangeJob job = {.path = path, .shape = &shape, .fuse = o.fuse, .recipe = &recipe, .alias = r->alias,
                        .bins_path = o.bins, .strategy = strategy, .place = &place, .check = o.range_check != 0,
                        .every = o.range_every != 0, .one_plan = o.range_one_plan != 0,
                        .dims = (const ReportRangeDim *)dims->data, .ndims = dims->len};
        ok = range_plan(&job, &r->report, &e);
    }
    shape_options_clear(&shape);
    g_array_unref(dims);
    g_string_free(fixed, TRUE);
    g_hash_table_unref(pins);
    if (!ok) {
        if (path && !g_error_matches(e, SIM_ERROR, SIM_ERROR_USAGE))
            g_prefix_error(&e, "%s: ", path);
        set_error(error, e);
        arenasim_range_free(r);
        return NULL;
    }
    return r;
}

void arenasim_range_free(arenasim_range *r)
{
    if (!r)
        return;
    report_range_clear(&r->report);
    g_free(r->graph);
    g_free(r->fixed);
    g_free(r->order);
    g_free(r->strategy);
    g_free(r->alias);
    g_free(r);
}

size_t arenasim_range_dim_count(const arenasim_range *r)
{
    return r->report.ndims;
}

const char *arenasim_range_dim_name(const arenasim_range *r, size_t k)
{
    return k < r->report.ndims ? r->report.dims[k].name : NULL;
}

/* The point's index in the grid, or FALSE when values is not a point of it. */
static gboolean range_index(const arenasim_range *r, const int64_t *values, gsize *at)
{
    *at = 0;
    for (guint d = 0; d < r->report.ndims; d++) {
        const ReportRangeDim *dim = &r->report.dims[d];
        if (values[d] < dim->lo || values[d] > dim->hi || (values[d] - dim->lo) % dim->step)
            return FALSE;
        *at = *at * (gsize)((dim->hi - dim->lo) / dim->step + 1) + (gsize)((values[d] - dim->lo) / dim->step);
    }
    return TRUE;
}

int arenasim_range_arena_at(const arenasim_range *r, const int64_t *values, uint64_t *out)
{
    gsize at;
    if (!range_index(r, values, &at))
        return -1;
    *out = r->report.arena[at];
    return 0;
}

int arenasim_range_lower_bound_at(const arenasim_range *r, const int64_t *values, uint64_t *out)
{
    gsize at;
    if (!range_index(r, values, &at))
        return -1;
    *out = r->report.lower_bound[at];
    return 0;
}

/* What a report writer prints into f, as a string freed with arenasim_free. */
static char *printed(void (*write)(FILE *f, gconstpointer data), gconstpointer data)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    write(f, data);
    fclose(f);
    char *out = g_strndup(text, len); /* freed with arenasim_free (g_free), whatever malloc made it */
    free(text);
    return out;
}

static void range_json(FILE *f, gconstpointer r)
{
    report_range_print(f, report_format_find("json"), r);
}

char *arenasim_range_report_json(const arenasim_range *r)
{
    return printed(range_json, &r->report);
}

/* What entry points planned together take from the options (arenasim_entries_plan, arenasim_generate): the
 * strategy and its budgets, the trace recipe with its KV cache, each entry's name and dims. */
typedef struct {
    arenasim_options o;
    const PlaceStrategy *strategy;
    PlaceOptions place;
    PipelineRecipe recipe;
    KvRequest kv;
    GHashTable *pins;
    guint n;
    char **names;
    ShapeOptions *shapes;
    EntrySpec *specs;
    char *order, *alias; /* the report's strings */
} EntriesChoices;

static gboolean entries_choices(const arenasim_options *options, const char *const *paths, EntriesChoices *c,
                                GError **error)
{
    gboolean best = FALSE;
    c->n = paths ? g_strv_length((char **)paths) : 0;
    c->pins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    c->names = g_new0(char *, c->n + 1);
    c->shapes = g_new0(ShapeOptions, MAX(c->n, 1));
    c->specs = g_new0(EntrySpec, MAX(c->n, 1));
    for (guint k = 0; k < c->n; k++)
        shape_options_init(&c->shapes[k]);
    gboolean ok = plan_choices(options, &c->o, &c->strategy, &c->place, error) &&
                  ((c->n >= 2 && c->n <= ENTRIES_MAX) || usage(error, "paths: 2 to 16 models planned in one arena")) &&
                  (!c->o.fuse || fuse_kind_known(c->o.fuse) || usage(error, "fuse: unknown kind")) &&
                  ((!c->o.pins && !c->o.run) || usage(error, "pins and run are for one model's plan")) &&
                  trace_recipe(&c->o, FALSE, &c->recipe, &best, c->pins, &c->kv, error) &&
                  (!best || usage(error, "order \"best\" chooses an order for one model: with entry points, name one"));
    for (guint k = 0; ok && k < c->n; k++)
        ok = is_model(paths[k]) || usage(error, "entry points are models (.onnx), not traces");
    for (guint k = 0; k < c->n; k++)
        c->shapes[k].allow_unknown_ops = c->o.allow_unknown_ops != 0;
    ok = ok && entries_bind(paths, c->n, c->o.dims, c->o.bounds, c->names, c->shapes, error);
    for (guint k = 0; ok && k < c->n; k++)
        c->specs[k] = (EntrySpec){paths[k], c->names[k], &c->shapes[k]};
    if (ok) {
        c->order = g_strdup(c->recipe.order->name);
        c->alias = g_strdup(c->o.alias ? c->o.alias : "all");
    }
    return ok;
}

static void entries_choices_clear(EntriesChoices *c)
{
    for (guint k = 0; k < c->n; k++)
        shape_options_clear(&c->shapes[k]);
    g_free(c->shapes);
    g_free(c->specs);
    g_strfreev(c->names);
    if (c->pins)
        g_hash_table_unref(c->pins);
    g_free(c->order);
    g_free(c->alias);
}

struct arenasim_entries {
    ReportEntries report;
    EntriesChoices choices; /* the report's strings are its */
};

arenasim_entries *arenasim_entries_plan(const char *const *paths, const arenasim_options *options, char **error)
{
    GError *e = NULL;
    if (error)
        *error = NULL;
    arenasim_entries *r = g_new0(arenasim_entries, 1);
    report_entries_init(&r->report);
    EntriesChoices *c = &r->choices;
    gboolean ok = entries_choices(options, paths, c, &e) &&
                  (!c->o.inputs || usage(&e, "inputs: a prompt is for arenasim_generate"));
    if (ok) {
        r->report = (ReportEntries){.order = c->order, .strategy = c->strategy->name, .alias = c->alias,
                                    .entries = r->report.entries};
        EntriesJob job = {.entries = c->specs, .n = c->n, .fuse = c->o.fuse, .recipe = &c->recipe, .alias = c->alias,
                          .bins_path = c->o.bins, .strategy = c->strategy, .place = &c->place,
                          .verify = c->o.verify != 0};
        ok = entries_plan(&job, &r->report, NULL, NULL, NULL, &e);
    }
    if (!ok) {
        set_error(error, e);
        arenasim_entries_free(r);
        return NULL;
    }
    return r;
}

void arenasim_entries_free(arenasim_entries *e)
{
    if (!e)
        return;
    report_entries_clear(&e->report);
    entries_choices_clear(&e->choices);
    g_free(e);
}

uint64_t arenasim_entries_arena_bytes(const arenasim_entries *e) { return e->report.arena; }
uint64_t arenasim_entries_lower_bound_bytes(const arenasim_entries *e) { return e->report.lower_bound; }
uint64_t arenasim_entries_state_bytes(const arenasim_entries *e) { return e->report.state_bytes; }

static void entries_json(FILE *f, gconstpointer r)
{
    report_entries_print(f, report_format_find("json"), r);
}

char *arenasim_entries_report_json(const arenasim_entries *e)
{
    return printed(entries_json, &e->report);
}

struct arenasim_generation {
    GenerateResult result;
    EntriesChoices choices; /* the report's strings are its */
};

arenasim_generation *arenasim_generate(const char *prefill, const char *decode, uint32_t tokens,
                                       const arenasim_options *options, const arenasim_run_options *run_given,
                                       char **error)
{
    arenasim_run_options ro;
    RunOptions run;
    GError *e = NULL;
    if (error)
        *error = NULL;
    arenasim_generation *g = g_new0(arenasim_generation, 1);
    generate_result_init(&g->result);
    EntriesChoices *c = &g->choices;
    gboolean ok = ((prefill && decode) || usage(&e, "no file given")) &&
                  entries_choices(options, (const char *const[]){prefill, decode, NULL}, c, &e) &&
                  options_of(run_given, run_given ? run_given->size : 0, &ro, sizeof ro,
                             (void (*)(void *))arenasim_run_options_init, &e) &&
                  run_options(&ro, &run, &e) &&
                  (c->o.inputs || usage(&e, "inputs: the prompt, a model-zoo folder, is needed")) &&
                  (c->o.kv_capacity || usage(&e, "kv_capacity: the caches' capacity is needed")) &&
                  run_open_kernels(&run, &e);
    if (ok) {
        g->result.plan.order = c->order;
        g->result.plan.strategy = c->strategy->name;
        g->result.plan.alias = c->alias;
        GenerateJob job = {.prefill = c->specs[0], .decode = c->specs[1], .tokens = tokens,
                           .inputs_dir = c->o.inputs, .expect_dir = run.expect_dir, .fuse = c->o.fuse,
                           .recipe = &c->recipe, .alias = c->alias, .bins_path = c->o.bins, .strategy = c->strategy,
                           .place = &c->place, .exec = run.exec, .poison = run.poison};
        ok = generate_run(&job, &g->result, &e);
    }
    if (!ok) {
        set_error(error, e);
        arenasim_generation_free(g);
        return NULL;
    }
    return g;
}

void arenasim_generation_free(arenasim_generation *g)
{
    if (!g)
        return;
    generate_result_clear(&g->result);
    entries_choices_clear(&g->choices);
    g_free(g);
}

size_t arenasim_generation_token_count(const arenasim_generation *g) { return g->result.tokens->len; }

int64_t arenasim_generation_token(const arenasim_generation *g, size_t k)
{
    return k < g->result.tokens->len ? g_array_index(g->result.tokens, gint64, k) : -1;
}

uint32_t arenasim_generation_matched(const arenasim_generation *g) { return g->result.matched; }
uint64_t arenasim_generation_arena_bytes(const arenasim_generation *g) { return g->result.plan.arena; }

static void generation_json(FILE *f, gconstpointer data)
{
    ReportGenerate rg = generate_report(data);
    report_generate_print(f, report_format_find("json"), &rg);
}

char *arenasim_generation_report_json(const arenasim_generation *g)
{
    return printed(generation_json, &g->result);
}

static void row_json(FILE *f, gconstpointer row)
{
    report_print(f, report_format_find("json"), FALSE, row, 1);
}

char *arenasim_plan_report_json(const arenasim_plan *p)
{
    const Traced *t = p->traced;
    ReportRow row = driver_report_row(p->m->source, p->m->dims, t ? t->order : "file", t ? t->alias : "none",
                                      t ? t->built.aliases : NULL, t ? t->built.no_alias_bytes : 0);
    driver_report_fill(&row, p->trace, p->plan, TRUE, t != NULL);
    if (t && t->training)
        training_account(t->training, t->built.aliases, p->trace, &row.training);
    PeakWitness *peak = peak_witness_new(p->trace, p->m->model ? p->m->model->graph : NULL,
                                         t ? t->built.schedule : NULL, t ? t->built.aliases : NULL);
    driver_peak_lift(peak, p->trace, t ? t->built.aliases : NULL, p->strategy, &p->place);
    row.peak = peak;
    row.peak_trace = p->trace;
    char *out = printed(row_json, &row);
    peak_witness_free(peak);
    return out;
}

struct arenasim_structured {
    DriverStructured r;
};

arenasim_structured *arenasim_structured_plan(const char *path, const arenasim_options *options, const char *solution,
                                              char **error)
{
    arenasim_options o;
    GError *e = NULL;
    if (error)
        *error = NULL;
    if (!options_of(options, options ? options->size : 0, &o, sizeof o, (void (*)(void *))arenasim_options_init,
                    &e) ||
        (!path && !usage(&e, "no file given"))) {
        set_error(error, e);
        return NULL;
    }
    DriverStructuredJob job = {.path = path, .options = registry_structured_options(), .solution = solution};
    job.options.budget_work = o.budget_work;
    job.strategy = o.strategy ? registry_structured_find(o.strategy) : registry_structured[0];
    if (!job.strategy) {
        char *names = registry_structured_names();
        g_set_error(&e, SIM_ERROR, SIM_ERROR_USAGE, "unknown strategy for structured problems '%s' (one of: %s)",
                    o.strategy, names);
        g_free(names);
        set_error(error, e);
        return NULL;
    }
    arenasim_structured *s = g_new0(arenasim_structured, 1);
    if (!driver_structured_plan(&job, &s->r, &e)) {
        set_error(error, e);
        arenasim_structured_free(s);
        return NULL;
    }
    return s;
}

void arenasim_structured_free(arenasim_structured *s)
{
    if (!s)
        return;
    driver_structured_clear(&s->r);
    g_free(s);
}

uint64_t arenasim_structured_term(const arenasim_structured *s, const char *term)
{
    for (guint t = 0; term && t < STRUCTURED_TERMS; t++)
        if (!strcmp(term, structured_term_name((StructuredTerm)t)))
            return s->r.objective.value[t];
    return UINT64_MAX;
}

int arenasim_structured_fits(const arenasim_structured *s)
{
    return s->r.objective.value[STRUCTURED_OVERFLOW] == 0;
}

int arenasim_structured_proven(const arenasim_structured *s)
{
    return s->r.report.proven;
}

uint64_t arenasim_structured_work(const arenasim_structured *s)
{
    return s->r.report.work;
}

const char *arenasim_structured_fingerprint(const arenasim_structured *s)
{
    return s->r.problem->fingerprint;
}

size_t arenasim_structured_buffer_count(const arenasim_structured *s)
{
    return s->r.problem->buffers->len;
}

int arenasim_structured_buffer(const arenasim_structured *s, size_t k, uint32_t *id, uint32_t *pool, uint64_t *offset)
{
    const StructuredProblem *p = s->r.problem;
    if (k >= p->buffers->len)
        return -1;
    if (id)
        *id = g_array_index(p->buffers, StructuredBuffer, k).id;
    if (pool)
        *pool = g_array_index(p->pools, StructuredPool, s->r.place[k].pool).id;
    if (offset)
        *offset = s->r.place[k].offset;
    return 0;
}

int arenasim_structured_write_solution(const arenasim_structured *s, const char *path, char **error)
{
    GError *e = NULL;
    if (error)
        *error = NULL;
    if (!path) {
        usage(&e, "no file given");
    } else if (!driver_structured_write_solution(&s->r, path, &e)) {
        /* the message names the path */
    }
    if (e) {
        set_error(error, e);
        return -1;
    }
    return 0;
}

const char *const *arenasim_names(arenasim_list which)
{
    static const char *strategies[64], *orders[64], *aliases[64], *structured[64];
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
        for (guint k = 0; registry_structured[k] && k < 63; k++)
            structured[k] = registry_structured[k]->name;
        g_once_init_leave(&done, 1);
    }
    return which == ARENASIM_ORDERS                  ? orders
           : which == ARENASIM_ALIASES               ? aliases
           : which == ARENASIM_STRUCTURED_STRATEGIES ? structured
                                                     : strategies;
}

const char *arenasim_version(void)
{
    return SIM_VERSION;
}

void arenasim_free(void *p)
{
    g_free(p);
}
