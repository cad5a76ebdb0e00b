/* place-naive.c — no reuse: every buffer its own slot, one after another (above any pinned ranges).
 * The "no-opt" column of the design log (003_ed2891d3a8e55e79.txt): the arena every other strategy
 * is measured against. */
#include "plan/place.h"

static gboolean naive_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    (void)detail;
    (void)error;
    guint64 cursor = 0;
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        if (unit->fixed != TRACE_NONE)
            cursor = MAX(cursor, (guint64)unit->fixed + unit->size);
    }
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        if (unit->fixed != TRACE_NONE)
            continue;
        offsets[u] = round_up(cursor, unit->align);
        cursor = offsets[u] + unit->size;
    }
    return TRUE;
}

const PlaceStrategy place_naive = {
    .name = "naive",
    .summary = "no reuse: every buffer its own slot (the no-opt baseline)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_BASELINE,
    .plan = naive_plan,
};
