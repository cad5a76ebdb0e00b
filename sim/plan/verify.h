/* verify.h — the plan verifier. It knows nothing of strategies: given a trace and one offset per
 * buffer it checks that no two buffers of one bin live at the same step share a byte, that every
 * offset is aligned, pinned offsets are kept, group members keep their relative offsets, and each
 * bin's arena holds all of its buffers. Every CLI run and test goes through it. */
#ifndef SIM_VERIFY_H
#define SIM_VERIFY_H

#include "plan/plan.h"

/* bin_arena: per bin (trace_bins(t) entries), or NULL to skip the arena-size check. */
gboolean verify_offsets(const Trace *t, const guint64 *offsets, const guint64 *bin_arena, GError **error);
gboolean verify_plan(const Trace *t, const Plan *p, GError **error);

#endif
