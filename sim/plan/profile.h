/* profile.h — a plan's memory over the schedule, step by step: the bytes live (what any plan must hold)
 * and the bytes spanned (the highest end among the live buffers: what this plan occupies). The gap is the
 * plan's fragmentation at that step. Used by --chrome-trace and --plot. */
#ifndef SIM_PROFILE_H
#define SIM_PROFILE_H

#include "plan/place.h"
#include "trace/trace.h"

typedef struct {
    guint steps;
    guint64 *live;    /* per step: bytes of the buffers live then, over all bins */
    guint64 *spanned; /* per step: highest end among the buffers live then, per bin, summed over bins */
} MemoryProfile;

void memory_profile_compute(const Trace *t, const Plan *plan, MemoryProfile *out);
void memory_profile_clear(MemoryProfile *p);

#endif
