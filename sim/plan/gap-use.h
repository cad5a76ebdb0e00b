/* gap-use.h — which free gaps a placement can ever use. A gap [c, s) holds a unit of size z and alignment a
 * when round_up(c, a) + z <= s; per alignment the smallest size decides, so the alignments of a problem's
 * units (powers of two, at most 57 of them) with the smallest size of each are all an index needs to know
 * to leave out gaps nothing can use. Small over-aligned units leave such a gap each (80,000 units of 16 B at
 * alignment 64 left 80,000 gaps of 48 B, and every fit walked them all: quadratic); left out, no answer
 * changes, since a fit passes over a gap that cannot hold its unit anyway. The placed index (offline) keeps
 * ranges across such a gap as one; the free list (online) keeps such blocks out of what its fit searches. */
#ifndef SIM_PLAN_GAP_USE_H
#define SIM_PLAN_GAP_USE_H

#include "plan/plan.h"

#define GAP_USE_CLASSES 64

typedef struct {
    guint64 smallest_any; /* the smallest size of any unit (0: every gap is usable) */
    guint count;
    guint64 align[GAP_USE_CLASSES], smallest[GAP_USE_CLASSES];
} GapUse;

/* The classes of units (PlaceUnit), or of none: then every gap counts as usable. */
void gap_use_init(GapUse *g, const GArray *units);

/* Whether some unit fits in [c, s) (c < s). */
static inline gboolean gap_use_fits(const GapUse *g, guint64 c, guint64 s)
{
    if (!g->count) /* no units named: every gap counts */
        return TRUE;
    if (s - c < g->smallest_any)
        return FALSE;
    for (guint k = 0; k < g->count; k++)
        if (round_up(c, g->align[k]) + g->smallest[k] <= s)
            return TRUE;
    return FALSE;
}

#endif
