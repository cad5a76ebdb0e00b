/* pipeline.h — graph to trace in one call: the schedule from an order, the alias map with its bins, pins,
 * strict-runtime and scratch choices, the alias strategies applied in turn, then the trace. The command,
 * the public API (sim/api/arenasim.h) and the tests build a recipe and call this instead of assembling
 * the stages by hand. The recipe holds resolved descriptors (strategies/registry.h resolves names), so
 * this room needs no registry. */
#ifndef SIM_MEMORY_PIPELINE_H
#define SIM_MEMORY_PIPELINE_H

#include "memory/alias.h"
#include "memory/bins.h"
#include "memory/kv.h"
#include "memory/order.h"

typedef struct {
    const OrderStrategy *order;              /* the operator order, unless `schedule` is given */
    const GPtrArray *schedule;               /* a schedule to use as it is (Node*, borrowed), or NULL */
    const OrderStrategy *const *incumbents;  /* what the exact order starts from (NULL-terminated) or NULL */
    guint64 order_budget_states;             /* 0: order.c's default */
    double order_seconds;                    /* 0: order.c's default */
    LayoutOptions layout;
    GHashTable *pins;                        /* tensor name -> offset text, or NULL */
    const BinRules *bins;                    /* memory bins, or NULL */
    gboolean strict_runtime, scratch;
    GHashTable *keep_apart;                  /* tensor names that keep buffers of their own (AliasMap), or NULL */
    const KvRequest *kv;                     /* a KV cache planned at capacity (memory/kv.h), or NULL */
    const AliasStrategy *const *aliases;     /* applied in this order (NULL-terminated), or NULL: none */
    void (*mark)(const char *phase);         /* called after each stage (the command's --phases), or NULL */
} PipelineRecipe;

/* What one call builds; the caller owns it (pipeline_result_clear). */
typedef struct {
    OrderProblem *problem;   /* kept so that another order of the same graph reuses it (NULL with a schedule) */
    GPtrArray *schedule;     /* the order the trace was made in (the alias map points to it) */
    AliasMap *aliases;
    Trace *trace;
    guint64 no_alias_bytes;  /* every tensor its own bytes: the bytes before any sharing */
} PipelineResult;

/* Graph to trace by the recipe. `out` may hold an earlier call's problem for the same graph and layout
 * (it is reused); its schedule, aliases and trace are replaced. FALSE with *error set on failure (what
 * was built stays in `out` for the caller to clear). */
gboolean pipeline_trace(const Graph *g, const PipelineRecipe *r, PipelineResult *out, GError **error);
void pipeline_result_clear(PipelineResult *out);

/* The alias map and trace of a graph in the given schedule, with the alias strategies given, the layout
 * and pins: pipeline_trace for callers that keep only those two (the executor's reference run, tests).
 * Returns the map (the trace in *trace), both the caller's; NULL on failure. */
AliasMap *pipeline_alias_trace(const Graph *g, const GPtrArray *schedule, const LayoutOptions *layout,
                               const AliasStrategy *const *aliases, GHashTable *pins, Trace **trace, GError **error);

#endif
