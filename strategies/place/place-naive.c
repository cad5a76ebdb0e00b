/* place-naive.c — no reuse: every buffer its own slot, one after another (above any pinned ranges).
 * The "no-opt" column of the design log (docs/spec.md §4): the arena every other strategy
 * is measured against. */
#include "plan/place.h"

static gboolean naive_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    (void)detail;
    (void)error;
    place_sequential(p, offsets);
    return TRUE;
}

const PlaceStrategy place_naive = {
    .name = "naive",
    .summary = "no reuse: every buffer its own slot (the no-opt baseline)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_BASELINE,
    .plan = naive_plan,
};
