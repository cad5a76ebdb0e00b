/* place-greedy-breadth.c — offline greedy by breadth (Pisarchyk & Lee, "Efficient Memory Management
 * for Deep Neural Net Inference", 2020): steps (operators) by breadth — the bytes live at the step —
 * widest first; at each step its not-yet-placed buffers by size, largest first; each placed in the
 * smallest fitting gap among the placed buffers that overlap it in time. */
#include "plan/place.h"
#include "base/treap.h"

#include <stdlib.h>

typedef struct {
    const PlaceProblem *p;
    GArray *live; /* units found live at the queried step */
} Collect;

static void collect_unit(TreapNode *n, gpointer data)
{
    Collect *c = data;
    guint u = (guint)n->tie;
    g_array_append_val(c->live, u);
}

static gint by_size(gconstpointer a, gconstpointer b, gpointer data)
{
    const PlaceProblem *p = data;
    guint64 x = g_array_index(p->units, PlaceUnit, *(const guint *)a).size;
    guint64 y = g_array_index(p->units, PlaceUnit, *(const guint *)b).size;
    return x > y ? -1 : x < y;
}

typedef struct {
    guint step;
    guint64 breadth;
} Breadth;

static gint by_breadth(gconstpointer a, gconstpointer b)
{
    const Breadth *x = a, *y = b;
    if (x->breadth != y->breadth)
        return x->breadth > y->breadth ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

static gboolean greedy_breadth_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    (void)detail;
    (void)error;
    guint n = p->units->len;
    /* Breadth of every step, by a difference array over the unit lifetimes. */
    gint64 *delta = g_new0(gint64, p->steps + 1);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        delta[unit->first] += (gint64)unit->size;
        delta[unit->last + 1] -= (gint64)unit->size;
    }
    Breadth *steps = g_new(Breadth, p->steps + 1);
    gint64 running = 0;
    for (guint s = 0; s < p->steps; s++) {
        running += delta[s];
        steps[s] = (Breadth){s, (guint64)running};
    }
    qsort(steps, p->steps, sizeof(Breadth), by_breadth);
    /* Unplaced units in an interval index; each is removed once taken, so every unit is visited once. */
    TreapNode *nodes = g_new0(TreapNode, n + 1);
    TreapNode **by_first = g_new(TreapNode *, n + 1);
    guint *at = g_new0(guint, p->steps + 1); /* counting sort by first step, then unit */
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        nodes[u] = (TreapNode){.key = unit->first, .tie = u, .val = unit->last};
        at[unit->first]++;
    }
    for (guint s = 0, sum = 0; s <= p->steps; s++) {
        guint c = at[s];
        at[s] = sum;
        sum += c;
    }
    for (guint u = 0; u < n; u++)
        by_first[at[nodes[u].key]++] = &nodes[u];
    Treap pending;
    treap_init(&pending);
    treap_build_sorted(&pending, by_first, n);
    g_free(by_first);
    g_free(at);
    guint *order = g_new(guint, n + 1), placed = 0;
    Collect c = {p, g_array_new(FALSE, FALSE, sizeof(guint))};
    for (guint k = 0; k < p->steps && placed < n; k++) {
        g_array_set_size(c.live, 0);
        treap_overlapping(&pending, steps[k].step, steps[k].step, collect_unit, &c);
        place_sort((guint *)c.live->data, c.live->len, by_size, (gpointer)p);
        for (guint j = 0; j < c.live->len; j++) {
            guint u = g_array_index(c.live, guint, j);
            treap_remove(&pending, &nodes[u]);
            order[placed++] = u;
        }
    }
    place_in_order_or_give_up(p, order, placed, GAP_BEST, offsets);
    g_array_unref(c.live);
    g_free(order);
    g_free(nodes);
    g_free(steps);
    g_free(delta);
    return TRUE;
}

const PlaceStrategy place_greedy_breadth = {
    .name = "greedy-breadth",
    .summary = "offline: widest step first, its buffers largest first, smallest fitting gap (Pisarchyk & Lee 2020)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_HEURISTIC,
    .plan = greedy_breadth_plan,
};
