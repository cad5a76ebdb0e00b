/* place-greedy-conflicts.c — offline greedy by conflicts, after TVM's unified static memory planner
 * (USMP greedy_by_conflicts): buffers by how many others overlap them in time, most first (ties:
 * larger first), each placed at the lowest offset that fits among the placed buffers that overlap it. */
#include "plan/place.h"

#include <stdlib.h>

typedef struct {
    const PlaceProblem *p;
    const guint *conflicts;
} ConflictCtx;

static gint by_conflicts(gconstpointer a, gconstpointer b, gpointer data)
{
    const ConflictCtx *c = data;
    guint ua = *(const guint *)a, ub = *(const guint *)b;
    if (c->conflicts[ua] != c->conflicts[ub])
        return c->conflicts[ua] > c->conflicts[ub] ? -1 : 1;
    guint64 x = g_array_index(c->p->units, PlaceUnit, ua).size, y = g_array_index(c->p->units, PlaceUnit, ub).size;
    return x > y ? -1 : x < y;
}

static int cmp_guint(const void *a, const void *b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return x < y ? -1 : x > y;
}

/* Units with first <= s, minus units with last < first(u): a count per unit in O(n log n). */
static guint *count_conflicts(const PlaceProblem *p)
{
    guint n = p->units->len;
    guint *firsts = g_new(guint, n + 1), *lasts = g_new(guint, n + 1), *out = g_new0(guint, n + 1);
    for (guint u = 0; u < n; u++) {
        firsts[u] = g_array_index(p->units, PlaceUnit, u).first;
        lasts[u] = g_array_index(p->units, PlaceUnit, u).last;
    }
    qsort(firsts, n, sizeof(guint), cmp_guint);
    qsort(lasts, n, sizeof(guint), cmp_guint);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        guint lo = 0, hi = n; /* starts <= unit->last */
        while (lo < hi) {
            guint mid = (lo + hi) / 2;
            if (firsts[mid] <= unit->last)
                lo = mid + 1;
            else
                hi = mid;
        }
        guint started = lo;
        lo = 0, hi = n; /* ended before unit->first */
        while (lo < hi) {
            guint mid = (lo + hi) / 2;
            if (lasts[mid] < unit->first)
                lo = mid + 1;
            else
                hi = mid;
        }
        out[u] = started - lo - 1;
    }
    g_free(firsts);
    g_free(lasts);
    return out;
}

static gboolean greedy_conflicts_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    (void)detail;
    (void)error;
    guint n = p->units->len;
    guint *order = g_new(guint, n + 1);
    for (guint u = 0; u < n; u++)
        order[u] = u;
    guint *conflicts = count_conflicts(p);
    ConflictCtx ctx = {p, conflicts};
    place_sort(order, n, by_conflicts, &ctx);
    place_in_order_or_give_up(p, order, n, GAP_FIRST, offsets);
    g_free(conflicts);
    g_free(order);
    return TRUE;
}

const PlaceStrategy place_greedy_conflicts = {
    .name = "greedy-conflicts",
    .summary = "offline: most lifetime conflicts first, lowest fitting offset (TVM USMP greedy_by_conflicts)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_HEURISTIC,
    .plan = greedy_conflicts_plan,
};
