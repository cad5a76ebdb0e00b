/* order-topo.c — Kahn's algorithm with a FIFO queue: ready nodes run in the order they became ready
 * (ties among the first ones: file order). */
#include "memory/order.h"

static gboolean topo_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    guint *preds = g_memdup2(p->n_preds, (p->n + 1) * sizeof(guint)), head = 0, tail = 0;
    for (guint k = 0; k < p->n; k++)
        if (!preds[k])
            order[tail++] = k;
    while (head < tail) {
        guint k = order[head++];
        for (guint j = 0; j < p->succs[k]->len; j++) {
            guint s = g_array_index(p->succs[k], guint, j);
            if (--preds[s] == 0)
                order[tail++] = s;
        }
    }
    g_free(preds);
    return TRUE;
}

const OrderStrategy order_topo = {.name = "topo", .summary = "Kahn's algorithm, FIFO queue", .order = topo_order};
