/* liveness.h — from a graph and a schedule to a trace: one buffer per tensor that needs memory, with
 * its physical size (layout model of 000_c324d345f708b909.txt: the last dimension rounded up to a
 * multiple of --pad-last) and its lifetime — born at its producer's step, dead after its last
 * consumer's step; graph inputs from step 0, graph outputs to the end; weights and constants outside
 * the arena unless asked in (then live throughout, as 002_b197cfd4d0789788.txt plans them). */
#ifndef SIM_LIVENESS_H
#define SIM_LIVENESS_H

#include "graph.h"
#include "trace.h"

typedef struct {
    guint64 pad_last;          /* round the last dimension up to a multiple of this (1: no padding) */
    guint64 align;             /* offset alignment of every buffer */
    gboolean weights_in_arena; /* weights and constants get buffers too, live for the whole run */
} LayoutOptions;

#define LAYOUT_DEFAULTS {.pad_last = 1, .align = 64, .weights_in_arena = FALSE}

/* Bytes a tensor occupies under the layout (padding included); FALSE on overflow. */
gboolean tensor_physical_bytes(const Tensor *t, guint64 pad_last, guint64 *out);

/* schedule: Node* in execution order (every node once, a topological order). */
Trace *trace_from_graph(const Graph *g, const GPtrArray *schedule, const LayoutOptions *o, GError **error);

#endif
