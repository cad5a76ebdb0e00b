/* pipeline.c — graph to trace in one call (pipeline.h). */
#include "memory/pipeline.h"

#include <string.h>

static void mark(const PipelineRecipe *r, const char *phase)
{
    if (r->mark)
        r->mark(phase);
}

gboolean pipeline_trace(const Graph *g, const PipelineRecipe *r, PipelineResult *out, GError **error)
{
    if (!out->problem && !r->schedule) {
        if (!(out->problem = order_problem_new(g, &r->layout, error)))
            return FALSE;
        out->problem->incumbents = r->incumbents;
        if (r->order_budget_states)
            out->problem->budget_states = r->order_budget_states;
        if (r->order_seconds > 0)
            out->problem->budget_seconds = r->order_seconds;
    }
    g_clear_pointer(&out->trace, trace_free);
    g_clear_pointer(&out->aliases, alias_map_free);
    g_clear_pointer(&out->schedule, g_ptr_array_unref);
    out->no_alias_bytes = 0;
    out->schedule = r->schedule ? g_ptr_array_ref((GPtrArray *)r->schedule) : order_schedule(r->order, out->problem, error);
    mark(r, "order");
    if (!out->schedule)
        return FALSE;
    out->aliases = alias_map_new(g, out->schedule, &r->layout, NULL, r->pins, error);
    mark(r, "liveness");
    if (!out->aliases)
        return FALSE;
    if (r->bins) {
        guint *bins = bins_assign(r->bins, g, out->aliases->bytes);
        memcpy(out->aliases->bin, bins, g->tensors->len * sizeof(guint));
        g_free(bins);
    }
    out->aliases->strict_runtime = r->strict_runtime;
    out->aliases->keep_apart = r->keep_apart;
    out->aliases->scratch = r->scratch;
    if (r->kv && !kv_apply(out->aliases, r->kv, error)) {
        mark(r, "sharing");
        return FALSE;
    }
    for (guint k = 0; k < g->tensors->len; k++)
        out->no_alias_bytes += out->aliases->bytes[k];
    for (const AliasStrategy *const *a = r->aliases; a && *a; a++)
        if (!(*a)->apply(out->aliases, error)) {
            mark(r, "sharing");
            return FALSE;
        }
    mark(r, "sharing");
    out->trace = alias_map_to_trace(out->aliases, r->pins, error);
    mark(r, "trace");
    return out->trace != NULL;
}

AliasMap *pipeline_alias_trace(const Graph *g, const GPtrArray *schedule, const LayoutOptions *layout,
                               const AliasStrategy *const *aliases, GHashTable *pins, Trace **trace, GError **error)
{
    PipelineRecipe recipe = {.schedule = schedule, .layout = *layout, .pins = pins, .aliases = aliases};
    PipelineResult built = {0};
    AliasMap *m = NULL;
    *trace = NULL;
    if (pipeline_trace(g, &recipe, &built, error)) {
        m = built.aliases;
        *trace = built.trace;
        built.aliases = NULL;
        built.trace = NULL;
    }
    pipeline_result_clear(&built);
    return m;
}

void pipeline_result_clear(PipelineResult *out)
{
    g_clear_pointer(&out->trace, trace_free);
    g_clear_pointer(&out->aliases, alias_map_free);
    g_clear_pointer(&out->schedule, g_ptr_array_unref);
    g_clear_pointer(&out->problem, order_problem_free);
    out->no_alias_bytes = 0;
}
