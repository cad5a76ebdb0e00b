/* order-ort.c — the order ONNX Runtime runs a graph in (its GraphViewer's default execution order), rebuilt
 * from its description: a depth-first walk backwards from the leaves (nodes no other node reads), the leaves
 * stacked in file order so the last is walked first; at each node its producers are stacked in ascending file
 * order (so the latest-defined producer is walked first); a node is emitted when the walk leaves it, after
 * everything it reads. With `ort` placement it is ORT's plan of the file's graph at graph optimisation level
 * "disabled", step for step (bench/peers.sh checks it against the node events of ORT's profile). */
#include "memory/order.h"

typedef struct {
    guint node;
    gboolean leave; /* the walk leaves `node` here: emit it */
} Entry;

static gboolean ort_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    /* producers per node, from the successor lists (one entry per edge, as ORT keeps one per input slot) */
    guint *count = g_new0(guint, p->n + 1), *start = g_new0(guint, p->n + 2);
    guint64 edges = 0;
    for (guint k = 0; k < p->n; k++)
        for (guint j = 0; j < p->succs[k]->len; j++) {
            count[g_array_index(p->succs[k], guint, j)]++;
            edges++;
        }
    for (guint k = 0; k < p->n; k++)
        start[k + 1] = start[k] + count[k];
    guint *preds = g_new(guint, edges + 1), *fill = g_memdup2(start, (p->n + 1) * sizeof(guint));
    for (guint k = 0; k < p->n; k++) /* k ascending: each node's producers arrive sorted, as ORT sorts them */
        for (guint j = 0; j < p->succs[k]->len; j++)
            preds[fill[g_array_index(p->succs[k], guint, j)]++] = k;
    g_free(fill);
    /* the stack holds at most every node twice (entered and leaving) plus every edge */
    GArray *stack = g_array_sized_new(FALSE, FALSE, sizeof(Entry), p->n * 2 + (guint)MIN(edges, G_MAXUINT / 4));
    gboolean *visited = g_new0(gboolean, p->n + 1);
    guint done = 0;
    /* Nodes that read and write no buffer and read no node (Constant, an Identity of a weight) are not nodes
     * ORT runs: it turns them into initializers when it loads the graph. They go first, in file order. */
    for (guint k = 0; k < p->n; k++)
        if (!count[k] && !p->inputs[k]->len && !p->outputs[k]->len) {
            visited[k] = TRUE;
            order[done++] = k;
        }
    for (guint k = 0; k < p->n; k++)
        if (!p->succs[k]->len && !visited[k])
            g_array_append_val(stack, ((Entry){k, FALSE}));
    while (stack->len) {
        Entry e = g_array_index(stack, Entry, stack->len - 1);
        g_array_set_size(stack, stack->len - 1);
        if (e.leave) {
            order[done++] = e.node;
            continue;
        }
        if (visited[e.node])
            continue;
        visited[e.node] = TRUE;
        g_array_append_val(stack, ((Entry){e.node, TRUE}));
        for (guint j = start[e.node]; j < start[e.node] + count[e.node]; j++)
            if (!visited[preds[j]])
                g_array_append_val(stack, ((Entry){preds[j], FALSE}));
    }
    g_array_unref(stack);
    g_free(visited);
    g_free(preds);
    g_free(start);
    g_free(count);
    return TRUE;
}

const OrderStrategy order_ort = {
    .name = "ort",
    .summary = "ONNX Runtime's default execution order: depth-first back from the leaves, file order breaking ties",
    .order = ort_order,
};
