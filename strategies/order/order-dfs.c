/* order-dfs.c — depth first: the reverse post-order of a depth-first walk along consumer edges, starting
 * from each unvisited node in file order. Finishes one branch before starting the next. */
#include "memory/order.h"

static gboolean dfs_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    gboolean *seen = g_new0(gboolean, p->n + 1);
    guint *stack = g_new(guint, p->n + 1), *next = g_new0(guint, p->n + 1), *post = g_new(guint, p->n + 1), done = 0;
    for (guint start = 0; start < p->n; start++) {
        if (seen[start] || p->n_preds[start])
            continue;
        guint depth = 0;
        stack[depth++] = start;
        seen[start] = TRUE;
        while (depth) {
            guint k = stack[depth - 1];
            if (next[k] < p->succs[k]->len) {
                guint s = g_array_index(p->succs[k], guint, next[k]++);
                if (!seen[s]) {
                    seen[s] = TRUE;
                    stack[depth++] = s;
                }
            } else {
                post[done++] = k;
                depth--;
            }
        }
    }
    for (guint k = 0; k < done; k++)
        order[k] = post[done - 1 - k];
    g_free(seen);
    g_free(stack);
    g_free(next);
    g_free(post);
    return TRUE;
}

const OrderStrategy order_dfs = {.name = "dfs", .summary = "depth-first, reverse post-order", .order = dfs_order};
