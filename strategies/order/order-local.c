/* order-local.c — a local search over orders. It starts from the best of the portfolio's heuristic orders (the
 * problem's incumbents, by peak live bytes) and moves one node at a time around the peak step: a node that runs at
 * or before the peak and whose results are first read after it is delayed to just before its first reader; a node
 * that runs after the peak and whose inputs are all made before it is brought forward to just after its last
 * producer. A move is kept when it lowers the peak, or keeps it and lowers the sum of live bytes over the steps
 * (which leads a plateau of equal peaks down); the candidates are tried largest effect first. Its work is counted:
 * each evaluation of an order costs its nodes and edges, and the search stops after ORDER_LOCAL_WORK of them, so it
 * ends at the same order on any machine. Never worse than the order it starts from. */
#include "memory/order.h"

#include <string.h>

#define ORDER_LOCAL_WORK 200000000u /* node and edge visits over all evaluations */
#define ORDER_LOCAL_TRIES 48u       /* candidates tried per side and round */

/* One evaluation of an order: its live-bytes profile (order.h), the work counted as its nodes and edges. */
typedef struct {
    const OrderProblem *p;
    guint *remaining;
    guint64 cost;
} Evaluator;

static OrderProfile evaluate(Evaluator *e, const guint *order)
{
    OrderProfile sc;
    order_profile(e->p, order, e->remaining, &sc, NULL);
    return sc;
}

static gboolean better(OrderProfile a, OrderProfile b)
{
    return a.peak < b.peak || (a.peak == b.peak && a.area < b.area);
}

/* Moves the node at position `from` to position `to` (the others keep their order). */
static void move(guint *order, guint *pos, guint from, guint to)
{
    guint k = order[from];
    if (from < to)
        memmove(order + from, order + from + 1, (to - from) * sizeof(guint));
    else
        memmove(order + to + 1, order + to, (from - to) * sizeof(guint));
    order[to] = k;
    for (guint s = MIN(from, to); s <= MAX(from, to); s++)
        pos[order[s]] = s;
}

typedef struct {
    guint node, to;
    guint64 gain; /* bytes the move takes off the peak step, at most */
} LocalMove;

static gint by_gain(gconstpointer a, gconstpointer b)
{
    const LocalMove *x = a, *y = b;
    return x->gain != y->gain ? (x->gain < y->gain ? 1 : -1) : (x->node > y->node) - (x->node < y->node);
}

/* The moves around the peak step s: delays of nodes at or before it, advances of nodes after it. */
static void candidates(const OrderProblem *p, const guint *order, const guint *pos, guint **preds_of, guint s,
                       GArray *delays, GArray *advances)
{
    g_array_set_size(delays, 0);
    g_array_set_size(advances, 0);
    for (guint i = 0; i <= s; i++) {
        guint k = order[i];
        guint first = p->n;
        for (guint j = 0; j < p->succs[k]->len; j++)
            first = MIN(first, pos[g_array_index(p->succs[k], guint, j)]);
        if (first <= s || !p->alloc_bytes[k])
            continue; /* read at or before the peak (or allocates nothing): delaying it cannot help there */
        LocalMove m = {k, (first == p->n ? p->n : first) - 1, p->alloc_bytes[k]};
        g_array_append_val(delays, m);
    }
    for (guint i = s + 1; i < p->n; i++) {
        guint k = order[i];
        guint last = 0;
        gboolean any = FALSE;
        for (guint j = 0; preds_of[k][j] != G_MAXUINT; j++) {
            last = MAX(last, pos[preds_of[k][j]]);
            any = TRUE;
        }
        guint to = any ? last + 1 : 0;
        if (to > s)
            continue; /* cannot run before the peak */
        guint64 freed = 0;
        for (guint j = 0; j < p->inputs[k]->len; j++) {
            const RootUse *u = &g_array_index(p->inputs[k], RootUse, j);
            freed += p->root_kept[u->root] ? 0 : p->root_bytes[u->root];
        }
        if (freed <= p->alloc_bytes[k])
            continue;
        LocalMove m = {k, to, freed - p->alloc_bytes[k]};
        g_array_append_val(advances, m);
    }
    g_array_sort(delays, by_gain);
    g_array_sort(advances, by_gain);
}

static gboolean local_order(const OrderProblem *p, guint *order, GError **error)
{
    /* the start: the incumbents' best by peak (the file's order without incumbents) */
    guint *trial = g_new(guint, p->n + 1);
    Evaluator e = {p, g_new(guint, p->n_roots + 1), p->n};
    for (guint k = 0; k < p->n; k++)
        e.cost += p->succs[k]->len + p->inputs[k]->len;
    for (guint k = 0; k < p->n; k++)
        order[k] = k;
    gboolean started = FALSE;
    OrderProfile best = {0, 0, 0};
    for (const struct OrderStrategy *const *s = p->incumbents; s && *s; s++) {
        if ((*s)->exhaustive || (*s)->order == local_order || !(*s)->order(p, trial, error))
            continue;
        OrderProfile sc = evaluate(&e, trial);
        if (!started || better(sc, best)) {
            memcpy(order, trial, p->n * sizeof(guint));
            best = sc;
            started = TRUE;
        }
    }
    g_clear_error(error);
    if (!started)
        best = evaluate(&e, order);
    /* predecessors per node (G_MAXUINT-terminated), positions */
    guint **preds_of = g_new(guint *, p->n + 1), *fill = g_new0(guint, p->n + 1), *pos = g_new(guint, p->n + 1);
    for (guint k = 0; k < p->n; k++)
        preds_of[k] = g_new(guint, p->n_preds[k] + 1);
    for (guint k = 0; k < p->n; k++)
        for (guint j = 0; j < p->succs[k]->len; j++) {
            guint v = g_array_index(p->succs[k], guint, j);
            preds_of[v][fill[v]++] = k;
        }
    for (guint k = 0; k < p->n; k++) {
        preds_of[k][fill[k]] = G_MAXUINT;
        pos[order[k]] = k;
    }
    GArray *delays = g_array_new(FALSE, FALSE, sizeof(LocalMove));
    GArray *advances = g_array_new(FALSE, FALSE, sizeof(LocalMove));
    guint64 work = e.cost;
    gboolean improved = p->n > 1;
    while (improved && work < ORDER_LOCAL_WORK) {
        improved = FALSE;
        candidates(p, order, pos, preds_of, best.peak_step, delays, advances);
        for (guint side = 0; side < 2 && !improved; side++) {
            GArray *moves = side ? advances : delays;
            for (guint c = 0; c < moves->len && c < ORDER_LOCAL_TRIES && !improved && work < ORDER_LOCAL_WORK; c++) {
                const LocalMove *m = &g_array_index(moves, LocalMove, c);
                guint from = pos[m->node];
                if (from == m->to)
                    continue;
                move(order, pos, from, m->to);
                OrderProfile sc = evaluate(&e, order);
                work += e.cost;
                if (better(sc, best)) {
                    best = sc;
                    improved = TRUE;
                } else {
                    move(order, pos, m->to, from);
                }
            }
        }
    }
    g_array_unref(delays);
    g_array_unref(advances);
    for (guint k = 0; k < p->n; k++)
        g_free(preds_of[k]);
    g_free(preds_of);
    g_free(fill);
    g_free(pos);
    g_free(e.remaining);
    g_free(trial);
    return TRUE;
}

const OrderStrategy order_local = {
    .name = "local",
    .summary = "local search from the best heuristic order: nodes moved around the peak step (counted work)",
    .order = local_order,
};
