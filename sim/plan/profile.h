/* profile.h — a plan's memory over the schedule, step by step: the bytes live (what any plan must hold)
 * and the bytes spanned (the highest end among the live buffers: what this plan occupies). The gap is the
 * plan's fragmentation at that step; and the orderings the pictures share. Used by --chrome-trace, --plot and --html. */
#ifndef SIM_PROFILE_H
#define SIM_PROFILE_H

#include "plan/plan.h"
#include "trace/trace.h"

typedef struct {
    guint steps;
    guint64 *live;    /* per step: bytes of the buffers live then, over all bins */
    guint64 *spanned; /* per step: highest end among the buffers live then, per bin, summed over bins */
} MemoryProfile;

void profile_compute(const Trace *t, const Plan *plan, MemoryProfile *out);
/* The profiles of several plans of one trace (out[k] for plans[k]): the live bytes computed once. */
void profile_compute_all(const Trace *t, const Plan *const *plans, guint count, MemoryProfile *out);
void profile_clear(MemoryProfile *p);

/* Buffer ids from the largest bytes × steps down, ties by id (newly allocated, one per buffer): what a
 * picture names or draws first when it cannot show every buffer. */
guint *profile_by_area(const Trace *t);
/* Where each bin starts when a plan's bins are stacked one above the other: bins + 1 entries, the last the
 * height of the stack (newly allocated). */
guint64 *profile_bin_bases(const Plan *plan);

#endif
