/* info.h — the graph summary printed by `sim --info`: model, opsets, nodes by op type, tensors by
 * kind, weight and activation bytes, the largest tensor, and whether any shape stayed unknown. */
#ifndef SIM_INFO_H
#define SIM_INFO_H

#include "model/graph.h"
#include "report/report.h"

#include <stdio.h>

typedef struct {
    guint n_nodes;
    guint tensors_by_kind[TENSOR_KIND_COUNT];
    guint64 bytes_by_kind[TENSOR_KIND_COUNT];
    guint n_unknown_shapes;
    const Tensor *largest; /* the largest non-weight, non-constant tensor */
} GraphStats;

void info_graph_stats(const Graph *g, GraphStats *out);
/* text: the summary for people; md, csv, json: one row with stable columns (docs/report-format.md), the op
 * counts as `ops` ("Conv=8 Relu=8 ...", most frequent first). */
void info_print(FILE *out, ReportFormat f, const Model *m, const char *path);

#endif
