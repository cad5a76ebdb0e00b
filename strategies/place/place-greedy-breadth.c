/* place-greedy-breadth.c — offline greedy by breadth (Pisarchyk & Lee, "Efficient Memory Management
 * for Deep Neural Net Inference", 2020): steps (operators) by breadth — the bytes live at the step —
 * widest first; at each step its not-yet-placed buffers by size, largest first; each placed in the
 * smallest fitting gap among the placed buffers that overlap it in time.
 *
 * A unit is taken at the first step, in that order, that lies in its lifetime: the least rank (place in the
 * order of steps) over its steps, found in a tree of minimums over the steps. So the whole order is one sort of
 * the units by (that rank, size largest first, unit id), with no set of pending units to search and update. */
#include "plan/place.h"

#include <stdlib.h>

typedef struct {
    guint step;
    guint64 breadth;
} Breadth;

static int by_breadth(const void *a, const void *b)
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
    guint n = p->units->len, steps = p->steps;
    /* Breadth of every step, by a difference array over the unit lifetimes. */
    gint64 *delta = g_new0(gint64, (gsize)steps + 1);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        delta[unit->first] += (gint64)unit->size;
        delta[unit->last + 1] -= (gint64)unit->size;
    }
    Breadth *order_of_steps = g_new(Breadth, (gsize)steps + 1);
    gint64 running = 0;
    for (guint s = 0; s < steps; s++) {
        running += delta[s];
        order_of_steps[s] = (Breadth){s, (guint64)running};
    }
    g_free(delta);
    qsort(order_of_steps, steps, sizeof(Breadth), by_breadth);
    /* least[steps + s]: step s's rank; least[k] below: the smaller of its two children's (k's leaves are the steps) */
    guint *least = g_new(guint, 2 * (gsize)steps + 1);
    for (guint k = 0; k < steps; k++)
        least[steps + order_of_steps[k].step] = k;
    g_free(order_of_steps);
    for (gsize k = steps; k-- > 1;)
        least[k] = MIN(least[2 * k], least[2 * k + 1]);
    PlaceKey *keys = g_new(PlaceKey, n + 1);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        guint rank = G_MAXUINT;
        for (gsize lo = steps + (gsize)unit->first, hi = steps + (gsize)unit->last + 1; lo < hi; lo /= 2, hi /= 2) {
            guint left = lo & 1 ? least[lo++] : G_MAXUINT, right = hi & 1 ? least[--hi] : G_MAXUINT;
            rank = MIN(rank, MIN(left, right));
        }
        keys[u] = (PlaceKey){G_MAXUINT - rank, unit->size, u}; /* the least rank first */
    }
    g_free(least);
    guint *order = g_new(guint, n + 1);
    if (place_order_by_keys(p, keys, n, order))
        place_in_order_or_give_up(p, order, n, GAP_BEST, offsets);
    g_free(keys);
    g_free(order);
    return TRUE;
}

const PlaceStrategy place_greedy_breadth = {
    .name = "greedy-breadth",
    .summary = "offline: widest step first, its buffers largest first, smallest fitting gap (Pisarchyk & Lee 2020)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_HEURISTIC,
    .plan = greedy_breadth_plan,
};
