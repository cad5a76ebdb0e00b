/* driver.c — a model or a trace to verified plans (see driver.h). */
#include "driver/driver.h"
#include "driver/zoo.h"
#include "base/error.h"
#include "model/onnx.h"
#include "plan/place.h"
#include "plan/verify.h"
#include "strategies/registry.h"
#include "trace/trace-tiers.h"

#include <string.h>

PlaceOptions driver_place_options(gboolean strategy_named, guint64 budget_work, double budget_seconds)
{
    PlaceOptions o = registry_place_options();
    if (!strategy_named && !budget_work && budget_seconds <= 0) {
        o.budget_work = PLACE_DEFAULT_WORK; /* the default strategy's own budget (registry.h) */
        o.budget_seconds = DRIVER_SECONDS_MAX;
    }
    if (budget_work) { /* work alone bounds the run, the same on any machine: no clock unless seconds are given */
        o.budget_work = budget_work;
        o.budget_seconds = DRIVER_SECONDS_MAX;
    }
    if (budget_seconds > 0)
        o.budget_seconds = budget_seconds;
    return o;
}

static gboolean usage(GError **error, const char *message)
{
    g_set_error_literal(error, SIM_ERROR, SIM_ERROR_USAGE, message);
    return FALSE;
}

static gboolean one_of(const char *value, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(value, *names))
            return TRUE;
    return FALSE;
}

gboolean driver_layout(const DriverLayout *c, LayoutOptions *out, GError **error)
{
    *out = (LayoutOptions)LAYOUT_DEFAULTS;
    if (c->pad_last > (1 << 20))
        return usage(error, "pad-last takes a positive multiple (1 for no padding)");
    if (c->align && ((c->align & (c->align - 1)) || c->align > (1 << 30)))
        return usage(error, "align takes a power of two");
    if (c->weights && !one_of(c->weights, (const char *const[]){"arena", "outside", NULL}))
        return usage(error, "weights takes arena or outside");
    if (c->io && !one_of(c->io, (const char *const[]){"arena", "outside", "inputs-outside", NULL}))
        return usage(error, "io takes arena, outside or inputs-outside");
    if (c->transpose && !one_of(c->transpose, (const char *const[]){"view", "move", NULL}))
        return usage(error, "transpose takes view or move");
    if (c->pad_last)
        out->pad_last = c->pad_last;
    if (c->align)
        out->align = c->align;
    out->weights_in_arena = c->weights && !strcmp(c->weights, "arena");
    out->inputs_outside = c->io && strcmp(c->io, "arena");
    out->outputs_outside = c->io && !strcmp(c->io, "outside");
    /* A Transpose view is what the seeds plan, but a dense kernel reading it as a view computes wrong values
     * when its input is read again (docs/executor.md): a run plans it as a move unless told otherwise, so
     * the default run computes the model's values. */
    out->transpose_moves = c->transpose ? !strcmp(c->transpose, "move") : c->run;
    return TRUE;
}

gboolean driver_search_engines(const char *name, SearchEngines *out, GError **error)
{
    static const struct { const char *name; SearchEngines engines; } rows[] = {
        {"both", SEARCH_ENGINES_BOTH}, {"skyline", SEARCH_ENGINES_SKYLINE}, {"sections", SEARCH_ENGINES_SECTIONS},
        {"guided", SEARCH_ENGINES_GUIDED}};
    for (guint k = 0; k < G_N_ELEMENTS(rows); k++)
        if (!name || !strcmp(name, rows[k].name)) {
            *out = rows[k].engines;
            return TRUE;
        }
    return usage(error, "search-engines takes skyline, sections, guided or both");
}

/* "GridSample (2), Foo (1)": the graph's nodes no op row knows, by op in first-met order; NULL when none. */
static char *unknown_ops_text(const Graph *g)
{
    GPtrArray *names = g_ptr_array_new();
    GHashTable *count = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint k = 0; k < g->nodes->len; k++) {
        const Node *n = g->nodes->pdata[k];
        if (n->op)
            continue;
        guint c = GPOINTER_TO_UINT(g_hash_table_lookup(count, n->op_type));
        if (!c)
            g_ptr_array_add(names, n->op_type);
        g_hash_table_insert(count, n->op_type, GUINT_TO_POINTER(c + 1));
    }
    GString *s = names->len ? g_string_new(NULL) : NULL;
    for (guint k = 0; k < names->len; k++)
        g_string_append_printf(s, "%s%s (%u)", k ? ", " : "", (const char *)names->pdata[k],
                               GPOINTER_TO_UINT(g_hash_table_lookup(count, names->pdata[k])));
    g_hash_table_unref(count);
    g_ptr_array_unref(names);
    return s ? g_string_free(s, FALSE) : NULL;
}

static void mark_stage(void (*mark)(const char *phase), const char *phase)
{
    if (mark)
        mark(phase);
}

gboolean driver_model_load(const char *path, const char *inputs_dir, ShapeOptions *shape, const char *fuse,
                           void (*mark)(const char *phase), DriverModel *out, GError **error)
{
    memset(out, 0, sizeof *out);
    out->model = onnx_read_file(path, error);
    mark_stage(mark, "load");
    if (!out->model)
        return FALSE;
    /* the data set's tensors, whose shapes bind the symbolic dimensions `shape` left unbound */
    if (inputs_dir) {
        GString *bound = g_string_new(NULL);
        gboolean read = (out->inputs = zoo_read_inputs(out->model, inputs_dir, error)) &&
                        zoo_bind_dims(out->model, out->inputs, shape, bound, error);
        out->bound_dims = bound->len ? g_strdup(bound->str) : NULL;
        g_string_free(bound, TRUE);
        if (!read)
            return FALSE;
    }
    gboolean ok = shape_infer(out->model, shape, error);
    mark_stage(mark, "shapes");
    if (ok) /* the ops --allow-unknown-ops planned from value_info: the report names them */
        out->unknown_ops = unknown_ops_text(out->model->graph);
    if (ok && fuse && strcmp(fuse, "none")) { /* the graph the runtime runs */
        ok = fuse_apply(out->model, fuse, &out->fused, error);
        mark_stage(mark, "fuse");
    }
    return ok;
}

void driver_model_clear(DriverModel *m)
{
    if (m->model)
        model_free(m->model);
    if (m->inputs)
        g_ptr_array_unref(m->inputs);
    g_free(m->bound_dims);
    g_free(m->unknown_ops);
    fuse_report_clear(&m->fused);
    memset(m, 0, sizeof *m);
}

gboolean driver_trace(const Graph *g, const PipelineRecipe *recipe, const char *alias, const char *bins_path,
                      PipelineResult *out, GError **error)
{
    BinRules *bins = NULL;
    if (bins_path && !(bins = bins_read_file(bins_path, error)))
        return FALSE;
    const AliasStrategy **aliases = registry_alias_list_resolve(alias ? alias : "all", error);
    gboolean ok = aliases != NULL;
    if (ok) {
        PipelineRecipe r = *recipe;
        r.aliases = aliases;
        r.bins = bins;
        if (!r.incumbents)
            r.incumbents = registry_order;
        ok = pipeline_trace(g, &r, out, error);
    }
    g_free(aliases);
    bins_free(bins);
    return ok;
}

Plan *driver_plan(const PlaceStrategy *s, Trace *t, const PlaceOptions *options, gboolean verify,
                  void (*mark)(const char *phase), GError **error)
{
    Plan *plan = place_run_with(s, t, options, error);
    mark_stage(mark, "place");
    if (!plan)
        return NULL;
    plan_tiers_apply(plan, t); /* a tiered plan's tiers become the trace's bins: one arena each */
    gboolean verified = !verify || verify_plan(t, plan, error); /* its own phase: --phases times it apart */
    if (verify)
        mark_stage(mark, "verify");
    if (!verified) {
        g_prefix_error(error, "strategy %s: ", s->name);
        plan_free(plan);
        return NULL;
    }
    return plan;
}

static gboolean bins_fit(const BinRules *bins, const char *bins_path, gboolean tiers, GError **error)
{
    if (!bins_name_tiers(bins) && tiers) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: with --tiers a bins file names tiers ('sram name=GLOB'), "
                    "not bin numbers", bins_path);
        return FALSE;
    }
    if (bins_name_tiers(bins) && !tiers) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: the bins file names tiers ('%s'): give them with --tiers",
                    bins_path, bins_tier_name(bins, 1));
        return FALSE;
    }
    return TRUE;
}

gboolean driver_bins_check(const char *bins_path, gboolean tiers, GError **error)
{
    BinRules *bins = bins_path ? bins_read_file(bins_path, error) : NULL;
    gboolean ok = !bins_path || (bins && bins_fit(bins, bins_path, tiers, error));
    bins_free(bins);
    return ok;
}

/* A bins file that names tiers: each buffer of a named bin held to that tier, its bin left for the plan. */
static gboolean tiers_from_bins(Trace *t, const char *bins_path, GError **error)
{
    BinRules *bins = bins_read_file(bins_path, error);
    if (!bins)
        return FALSE;
    gboolean ok = bins_fit(bins, bins_path, t->tiers != NULL, error);
    for (guint k = 0; ok && t->tiers && k < trace_count(t); k++) {
        TraceBuffer *b = trace_buffer(t, k);
        const char *name = bins_tier_name(bins, b->bin);
        gint tier = name ? trace_tiers_find(t->tiers, name) : -1;
        if (name && tier < 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: no tier '%s' in --tiers", bins_path, name);
            ok = FALSE;
        } else if (name) {
            b->tiers = 1u << tier;
        }
        b->bin = 0;
    }
    bins_free(bins);
    return ok;
}

gboolean driver_tiers_attach(Trace *t, const GArray *tiers, const char *bins_path, GError **error)
{
    if (tiers) {
        if (t->tiers)
            g_array_unref(t->tiers);
        t->tiers = trace_tiers_copy(tiers);
    }
    if (bins_path && !tiers_from_bins(t, bins_path, error))
        return FALSE;
    if (t->tiers && !trace_validate(t, error))
        return FALSE;
    for (guint k = 0; !t->tiers && k < trace_count(t); k++)
        if (trace_buffer(t, k)->tiers) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "buffer %u '%s' is held to a tier, and no tiers are given "
                        "(--tiers SPEC)", k, trace_buffer(t, k)->name);
            return FALSE;
        }
    return TRUE;
}

const OrderStrategy *driver_order_for(const Graph *g, const OrderStrategy *order, gboolean named)
{
    if (named || strcmp(order->name, "file") || g->file_order_is_topological)
        return order;
    return registry_order_find("topo");
}

gboolean driver_order_find(const char *name, gboolean portfolio, const OrderStrategy **order, gboolean *best,
                           GError **error)
{
    *best = name ? !strcmp(name, DRIVER_ORDER_BEST) : portfolio;
    *order = registry_order_find(*best || !name ? "file" : name);
    if (!*order) {
        char *known = registry_order_names();
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "unknown order '%s' (one of: %s, " DRIVER_ORDER_BEST ")", name,
                    known);
        g_free(known);
    }
    return *order != NULL;
}

const OrderStrategy *driver_best_order(const Graph *g, const PipelineRecipe *recipe, const char *alias,
                                       gboolean alias_named, const char **alias_kept, const char *bins_path,
                                       const PlaceStrategy *s, const PlaceOptions *options, guint64 work,
                                       OrderProblem **problem_io, GString *said, guint *made, guint *skipped,
                                       GError **error)
{
    work = work ? work : DRIVER_BEST_WORK;
    guint count, tried = 0, counted = 0, left_out = 0;
    guint64 nodes = MAX(g->nodes->len, 1);
    const OrderStrategy *const *registry = registry_order_strategies(&count);
    /* the candidates: an exhaustive order asked for first, then every order that is not exhaustive */
    const OrderStrategy **orders = g_new(const OrderStrategy *, count + 1);
    const OrderStrategy *exact = recipe->order && recipe->order->exhaustive ? recipe->order : NULL;
    guint candidates = 0;
    if (exact)
        orders[candidates++] = exact;
    for (guint k = 0; k < count; k++)
        if (!registry[k]->exhaustive)
            orders[candidates++] = registry[k];
    const OrderStrategy *best = NULL;
    guint64 best_arena = G_MAXUINT64;
    GError *last = NULL;
    /* one problem for every order of the graph: it does not depend on the sharing (and it keeps the exhaustive
     * order's result, so the second sharing set and the caller's plan do not search again) */
    OrderProblem *problem = problem_io ? *problem_io : NULL;
    /* the sharing asked for; unless named, also the sets that lengthen no lifetime (docs/usage.md) */
    const char *shorter = registry_alias_short_list();
    const char *sets[] = {alias, alias_named || !strcmp(alias, shorter) ? NULL : shorter};
    *alias_kept = alias;
    for (guint a = 0; a < G_N_ELEMENTS(sets) && sets[a]; a++) {
        gboolean first = TRUE;
        for (guint k = 0; k < candidates; k++) {
            if (orders[k] != exact) { /* the exact order aside, so it never takes a heuristic's place */
                if (counted && (guint64)(counted + 1) * nodes > work) { /* counted work, not seconds */
                    left_out++;
                    continue;
                }
                counted++;
            }
            tried++;
            PipelineRecipe r = *recipe;
            r.order = orders[k];
            r.schedule = NULL;
            r.mark = NULL;
            PipelineResult built = {.problem = problem};
            GError *e = NULL;
            Plan *plan = driver_trace(g, &r, sets[a], bins_path, &built, &e) ? place_run_with(s, built.trace, options,
                                                                                               &e)
                                                                              : NULL;
            problem = g_steal_pointer(&built.problem);
            if (plan) {
                if (said) {
                    char *bytes = g_strdup_printf("%" G_GUINT64_FORMAT, plan->arena);
                    if (first && a)
                        g_string_append_printf(said, "; with --alias %s: ", sets[a]);
                    g_string_append_printf(said, "%s%s %s B", first ? "" : ", ", orders[k]->name, bytes);
                    g_free(bytes);
                    first = FALSE;
                }
                if (plan->arena < best_arena) {
                    best_arena = plan->arena;
                    best = orders[k];
                    *alias_kept = sets[a];
                }
            } else {
                g_clear_error(&last);
                last = g_steal_pointer(&e);
            }
            gboolean placed = plan != NULL;
            plan_free(plan);
            pipeline_result_clear(&built);
            g_clear_error(&e);
            if (!placed && orders[k] == exact) { /* the order asked for failed: its error, not another order */
                best = NULL;
                a = G_N_ELEMENTS(sets);
                break;
            }
        }
    }
    g_free(orders);
    if (problem_io)
        *problem_io = problem;
    else if (problem)
        order_problem_free(problem);
    if (made)
        *made = tried;
    if (skipped)
        *skipped = left_out;
    if (!best) /* what stopped the last order: the input's fault, as one order would say it */
        g_propagate_error(error, last ? last : g_error_new_literal(SIM_ERROR, SIM_ERROR_GRAPH, "no order made a plan"));
    else
        g_clear_error(&last);
    return best;
}

void driver_peak_lift(PeakWitness *w, const Trace *t, const AliasMap *aliases, const PlaceStrategy *s,
                      const PlaceOptions *options)
{
    /* each lift a whole placement: the first DRIVER_PEAK_LIFTS refusals of a peak, each placement at most a
     * second when the strategy is bounded by seconds (a work budget stays as it is: the same on any machine) */
    PlaceOptions bounded = *options;
    bounded.budget_seconds = MIN(bounded.budget_seconds, 1.0);
    bounded.progress = NULL; /* the plan's own search said its progress */
    for (guint k = 0; w && aliases && trace_count(t) <= DRIVER_PEAK_LIFT_BUFFERS && k < w->bins->len; k++) {
        PeakBin *p = &g_array_index(w->bins, PeakBin, k);
        for (guint j = 0; j < p->refused->len && j < DRIVER_PEAK_LIFTS; j++) {
            PeakRefusal *r = &g_array_index(p->refused, PeakRefusal, j);
            const AliasFallback *f = r->fallback;
            const Tensor *in = f->node->inputs->len ? node_input(f->node, 0) : NULL;
            const char *parent = NULL;
            if (in && in->id >= 0) {
                gint root = alias_root(aliases, in->id, NULL);
                parent = root >= 0 ? ((const Tensor *)aliases->g->tensors->pdata[root])->name : NULL;
            }
            const TraceBuffer *child = trace_buffer(t, r->buffer);
            Trace *again = trace_new(t->source);
            again->steps = t->steps;
            for (guint b = 0; b < trace_count(t); b++) {
                if (b == r->buffer)
                    continue;
                const TraceBuffer *from = trace_buffer(t, b);
                guint id = trace_add(again, from->name, from->size, from->align, from->first, from->last);
                TraceBuffer *to = trace_buffer(again, id);
                char *name = to->name;
                *to = *from;
                to->name = name;
                if (parent && !strcmp(from->name, parent) && from->bin == child->bin) { /* the bytes it would share */
                    to->first = MIN(to->first, child->first);
                    to->last = MAX(to->last, child->last);
                    to->size = MAX(to->size, child->size);
                }
            }
            GError *error = NULL;
            Plan *plan = trace_count(again) ? place_run_with(s, again, &bounded, &error) : NULL;
            r->arena_shared = plan ? plan->arena : 0;
            plan_free(plan);
            g_clear_error(&error);
            trace_free(again);
        }
    }
}

ReportRow driver_report_row(const char *source, const char *dims, const char *order, const char *alias,
                            const AliasMap *aliases, guint64 no_alias_bytes)
{
    ReportRow row = {.graph = source, .dims = dims, .order = order, .alias = alias, .no_alias_bytes = no_alias_bytes};
    if (aliases) {
        alias_savings(aliases, row.saved);
        row.fallbacks = aliases->fallbacks->len;
        row.kv_pairs = aliases->kv_pairs;
        row.kv_capacity = aliases->kv_capacity;
        row.kv_bytes = aliases->kv_bytes;
    }
    return row;
}

void driver_report_fill(ReportRow *row, const Trace *t, const Plan *plan, gboolean verified, gboolean from_model)
{
    row->strategy = plan->strategy->name;
    row->verified = verified;
    report_row_fill(row, t, plan);
    if (!from_model)
        row->no_alias_bytes = row->trace_bytes;
}
