/* ort-shapes.h — the shapes ONNX Runtime knows before it runs a graph: ONNX shape inference as ORT runs it when
 * it loads the graph, dim by dim, for the `ort` alias rule (alias-ort.c), whose in-place and reuse decisions
 * compare these shapes and not the run's. */
#ifndef STRATEGIES_ORT_SHAPES_H
#define STRATEGIES_ORT_SHAPES_H

#include "model/graph.h"

/* A dim as ORT knows it: a number (>= 0), a symbol (ORT_DIM_SYMBOL(k): the k-th dim_param of the graph's
 * inputs, carried unchanged), or ORT_DIM_UNKNOWN (computed from a symbol, or from a value only running has). */
#define ORT_DIM_UNKNOWN G_MININT64
#define ORT_DIM_SYMBOL(k) (-(gint64)(k) - 1)
#define ORT_DIM_IS_SYMBOL(d) ((d) < 0 && (d) != ORT_DIM_UNKNOWN)

typedef struct {
    guint n;      /* tensors */
    gint64 **dims; /* per tensor id: its rank's dims as ORT knows them, or NULL when it knows nothing */
} OrtShapes;

/* Infers every tensor of g in `schedule` order (producers first). */
OrtShapes *ort_shapes_infer(const Graph *g, const GPtrArray *schedule);
void ort_shapes_free(OrtShapes *s);
/* Whether ORT knows every dim of t (numbers or symbols). */
gboolean ort_shapes_complete(const OrtShapes *s, const Tensor *t);
/* Whether ORT sees a and b as the same shape: complete, equal dim by dim (a symbol equals only itself). */
gboolean ort_shapes_equal(const OrtShapes *s, const Tensor *a, const Tensor *b);

#endif
