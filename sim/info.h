/* info.h — the graph summary printed by `sim --info`: model, opsets, nodes by op type, tensors by
 * kind, weight and activation bytes, the largest tensor, and whether any shape stayed unknown. */
#ifndef SIM_INFO_H
#define SIM_INFO_H

#include "graph.h"

#include <stdio.h>

typedef struct {
    guint n_nodes;
    guint tensors_by_kind[TENSOR_KIND_COUNT];
    guint64 bytes_by_kind[TENSOR_KIND_COUNT];
    guint n_unknown_shapes;
    const Tensor *largest; /* the largest non-weight, non-constant tensor */
} GraphStats;

void graph_stats(const Graph *g, GraphStats *out);
void info_print(FILE *out, const Model *m, const char *path);

#endif
