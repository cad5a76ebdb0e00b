/* order-freed.c — the design log's v1 (docs/spec.md §4): Kahn's algorithm with a max-heap,
 * priority = bytes the node frees, computed once when the node becomes ready and never updated (its
 * documented staleness: a score can only be an under-estimate). */
#include "memory/order.h"

static gint64 freed_score(const OrderProblem *p, guint k, const guint *remaining)
{
    return (gint64)order_freed_bytes(p, k, remaining, FALSE);
}

static gboolean freed_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    order_by_score(p, freed_score, FALSE, order);
    return TRUE;
}

const OrderStrategy order_freed = {
    .name = "freed",
    .summary = "v1: max-heap on bytes freed, scored once at push (design log)",
    .order = freed_order,
};
