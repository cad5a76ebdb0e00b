/* place-greedy-conflicts.c — offline greedy by conflicts, after TVM's unified static memory planner
 * (USMP greedy_by_conflicts): buffers by how many others overlap them in time, most first (ties:
 * larger first), each placed at the lowest offset that fits among the placed buffers that overlap it. */
#include "plan/place.h"

/* Each unit's conflicts: the units started by its last step, less those ended before its first, less itself;
 * both counts from a table per step, so O(units + steps). */
static void count_conflicts(const PlaceProblem *p, PlaceKey *keys)
{
    guint n = p->units->len, steps = p->steps;
    for (guint u = 0; u < n; u++)
        steps = MAX(steps, g_array_index(p->units, PlaceUnit, u).last + 1);
    guint *started = g_new0(guint, (gsize)steps + 1), *ended = g_new0(guint, (gsize)steps + 1);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        started[unit->first]++;
        ended[unit->last + 1]++;
    }
    for (guint s = 1; s <= steps; s++) { /* started[s]: first <= s; ended[s]: last < s */
        started[s] += started[s - 1];
        ended[s] += ended[s - 1];
    }
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        keys[u] = (PlaceKey){started[unit->last] - ended[unit->first] - 1, unit->size, u};
    }
    g_free(started);
    g_free(ended);
}

static gboolean greedy_conflicts_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    (void)detail;
    (void)error;
    guint n = p->units->len;
    guint *order = g_new(guint, n + 1);
    PlaceKey *keys = g_new(PlaceKey, n + 1);
    count_conflicts(p, keys);
    if (place_order_by_keys(p, keys, n, order))
        place_in_order_or_give_up(p, order, n, GAP_FIRST, offsets);
    g_free(keys);
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
