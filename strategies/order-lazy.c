/* order-lazy.c — the design log's v2, its chosen one (003_ed2891d3a8e55e79.txt): Kahn's algorithm with a
 * max-heap, priority = bytes freed - bytes allocated + an in-place bonus (output / 8 when a consumer can
 * take the output in place); on pop the score is recomputed with the current consumer counts and the node
 * is pushed back if it changed. Alias-aware (counts at noop roots) and duplicate inputs count once, both
 * by the order problem's construction. */
#include "order.h"

static gint64 lazy_score(const OrderProblem *p, guint k, const guint *remaining)
{
    return (gint64)order_freed_bytes(p, k, remaining, FALSE) - (gint64)p->alloc_bytes[k] + (gint64)p->inplace_bonus[k];
}

static gboolean lazy_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    guint *preds = g_memdup2(p->n_preds, (p->n + 1) * sizeof(guint));
    guint *remaining = g_memdup2(p->root_uses, (p->n_roots + 1) * sizeof(guint)), placed = 0;
    ScoreHeap heap;
    heap_init(&heap);
    for (guint k = 0; k < p->n; k++)
        if (!preds[k])
            heap_push(&heap, lazy_score(p, k, remaining), k, 0);
    HeapItem it;
    while (heap_pop(&heap, &it)) {
        guint k = it.node;
        gint64 now = lazy_score(p, k, remaining);
        if (now != it.score) { /* stale: back in at its current score */
            heap_push(&heap, now, k, 0);
            continue;
        }
        order[placed++] = k;
        for (guint i = 0; i < p->inputs[k]->len; i++)
            remaining[g_array_index(p->inputs[k], RootUse, i).root]--;
        for (guint j = 0; j < p->succs[k]->len; j++) {
            guint s = g_array_index(p->succs[k], guint, j);
            if (--preds[s] == 0)
                heap_push(&heap, lazy_score(p, s, remaining), s, 0);
        }
    }
    heap_clear(&heap);
    g_free(preds);
    g_free(remaining);
    return TRUE;
}

const OrderStrategy order_lazy = {
    .name = "lazy",
    .summary = "v2: net delta + in-place bonus, lazily re-scored on pop (design log's choice)",
    .order = lazy_order,
};
