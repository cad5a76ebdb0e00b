/* order-lazy.c — the design log's v2, its chosen one (docs/spec.md §4): Kahn's algorithm with a
 * max-heap, priority = bytes freed - bytes allocated + an in-place bonus (output / 8 when a consumer can
 * take the output in place); on pop the score is recomputed with the current consumer counts and the node
 * is pushed back if it changed. Alias-aware (counts at noop roots) and duplicate inputs count once, both
 * by the order problem's construction. */
#include "memory/order.h"

static gint64 lazy_score(const OrderProblem *p, guint k, const guint *remaining)
{
    return (gint64)order_freed_bytes(p, k, remaining, FALSE) - (gint64)p->alloc_bytes[k] + (gint64)p->inplace_bonus[k];
}

static gboolean lazy_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    order_by_score(p, lazy_score, TRUE, order);
    return TRUE;
}

const OrderStrategy order_lazy = {
    .name = "lazy",
    .summary = "v2: net delta + in-place bonus, lazily re-scored on pop (design log's choice)",
    .order = lazy_order,
};
