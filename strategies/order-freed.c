/* order-freed.c — the design log's v1 (003_ed2891d3a8e55e79.txt): Kahn's algorithm with a max-heap,
 * priority = bytes the node frees, computed once when the node becomes ready and never updated (its
 * documented staleness: a score can only be an under-estimate). */
#include "order.h"

static gboolean freed_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    guint *preds = g_memdup2(p->n_preds, (p->n + 1) * sizeof(guint));
    guint *remaining = g_memdup2(p->root_uses, (p->n_roots + 1) * sizeof(guint)), placed = 0;
    ScoreHeap heap;
    heap_init(&heap);
    for (guint k = 0; k < p->n; k++)
        if (!preds[k])
            heap_push(&heap, (gint64)order_freed_bytes(p, k, remaining, FALSE), k, 0);
    HeapItem it;
    while (heap_pop(&heap, &it)) {
        guint k = it.node;
        order[placed++] = k;
        for (guint i = 0; i < p->inputs[k]->len; i++)
            remaining[g_array_index(p->inputs[k], RootUse, i).root]--;
        for (guint j = 0; j < p->succs[k]->len; j++) {
            guint s = g_array_index(p->succs[k], guint, j);
            if (--preds[s] == 0)
                heap_push(&heap, (gint64)order_freed_bytes(p, s, remaining, FALSE), s, 0);
        }
    }
    heap_clear(&heap);
    g_free(preds);
    g_free(remaining);
    return TRUE;
}

const OrderStrategy order_freed = {
    .name = "freed",
    .summary = "v1: max-heap on bytes freed, scored once at push (design log)",
    .order = freed_order,
};
