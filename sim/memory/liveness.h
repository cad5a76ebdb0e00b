/* liveness.h — from a graph and a schedule to a trace: one buffer per tensor that needs memory, with
 * its physical size (layout model of docs/spec.md §2: the last dimension rounded up to a
 * multiple of --pad-last) and its lifetime — born at its producer's step, dead after its last
 * consumer's step; graph inputs from step 0, graph outputs to the end; weights and constants outside
 * the arena unless asked in (then live throughout, as docs/spec.md §3 plans them); graph inputs
 * and outputs outside it when asked (the caller's buffers, as ONNX Runtime treats them). */
#ifndef SIM_LIVENESS_H
#define SIM_LIVENESS_H

#include "model/graph.h"
#include "trace/trace.h"

typedef struct {
    guint64 pad_last;          /* round the last dimension up to a multiple of this (1: no padding) */
    guint64 align;             /* offset alignment of every buffer */
    gboolean weights_in_arena; /* weights and constants get buffers too, live for the whole run */
    gboolean inputs_outside;   /* graph inputs live in the caller's buffers, not the arena (as ORT takes them) */
    gboolean outputs_outside;  /* graph outputs too (written into buffers the caller provides) */
    gboolean transpose_moves;  /* Transpose moves data (a dense kernel), not a metadata view as the seeds have it */
} LayoutOptions;

#define LAYOUT_DEFAULTS {.pad_last = 1, .align = 64, .weights_in_arena = FALSE}

/* Whether a node's output is a view of its input's bytes: the op table's noop rows, except those whose
 * kernel moves data (Transpose) under transpose_moves. */
gboolean liveness_node_is_view(const Node *n, const LayoutOptions *o);
/* Whether a tensor gets a buffer in the arena under the layout (its size aside). */
gboolean liveness_tensor_in_arena(const Tensor *t, const LayoutOptions *o);

/* Bytes a tensor occupies under the layout (padding included); FALSE on overflow. */
gboolean liveness_physical_bytes(const Tensor *t, guint64 pad_last, guint64 *out);

/* Every tensor's physical bytes (0: no buffer) and own lifetime [birth, death] under a schedule. */
typedef struct {
    guint steps;
    gint *step_of;        /* node index -> step */
    guint64 *bytes;       /* per tensor id */
    guint *birth, *death; /* per tensor id, valid where bytes > 0 */
} Lifetimes;

/* schedule: Node* in execution order (every node once, a topological order). */
gboolean liveness_compute(const Graph *g, const GPtrArray *schedule, const LayoutOptions *o, Lifetimes *out,
                           GError **error);
void liveness_clear(Lifetimes *l);


#endif
