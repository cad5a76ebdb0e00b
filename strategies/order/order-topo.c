/* order-topo.c — Kahn's algorithm with a FIFO queue (order_kahn, order.c): ready nodes run in the order they became
 * ready (ties among the first ones: file order). */
#include "memory/order.h"

static gboolean topo_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    order_kahn(p, order);
    return TRUE;
}

const OrderStrategy order_topo = {.name = "topo", .summary = "Kahn's algorithm, FIFO queue", .order = topo_order};
