/* order-file.c — the order the nodes appear in the file (an error when the file is not sorted). */
#include "memory/order.h"

static gboolean file_order(const OrderProblem *p, guint *order, GError **error)
{
    if (!p->g->file_order_is_topological) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "the file's node order is not topological; use --order topo");
        return FALSE;
    }
    for (guint k = 0; k < p->n; k++)
        order[k] = k;
    return TRUE;
}

const OrderStrategy order_file = {.name = "file", .summary = "the nodes in file order", .order = file_order};
