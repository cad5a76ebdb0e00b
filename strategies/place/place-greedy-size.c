/* place-greedy-size.c — offline greedy by size, as TFLite's arena planner and XLA's
 * GlobalDecreasingSizeBestFit do it: buffers by size, largest first (ties: longer lifetime first, then
 * trace order), each placed in the smallest gap among the already-placed buffers that overlap it in
 * time, or above them all. */
#include "plan/place.h"

static gboolean greedy_size_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    (void)detail;
    (void)error;
    guint n = p->units->len;
    guint *order = g_new(guint, n ? n : 1);
    if (place_order_by_size(p, order))
        place_in_order_or_give_up(p, order, n, GAP_BEST, offsets);
    g_free(order);
    return TRUE;
}

const PlaceStrategy place_greedy_size = {
    .name = "greedy-size",
    .summary = "offline: largest first into the smallest fitting gap (TFLite, XLA GlobalDecreasingSizeBestFit)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_HEURISTIC,
    .plan = greedy_size_plan,
};
