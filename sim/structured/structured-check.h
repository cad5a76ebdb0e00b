/* structured-check.h — the independent validator of a structured placement (docs/structured.md): it shares no
 * code with the strategies that place, and checks every rule of the format — each buffer in a pool it may use,
 * aligned, clear of the pool's reserved ranges, where it is pinned; colocated buffers at one pool and offset;
 * buffers whose lifetimes overlap (unless a temporal exclusion says they never coexist) and separated buffers on
 * disjoint bytes of a pool; nothing on an exclusive pin's bytes — and reports the objective: every pool's peak,
 * their sum and maximum, the bytes over capacity, and the weights of the reuse penalties whose buffers could
 * have reused memory and do share bytes. A capacity is not a rule here but the first term of the objective a
 * plan that fits has at 0. */
#ifndef SIM_STRUCTURED_CHECK_H
#define SIM_STRUCTURED_CHECK_H

#include "structured/structured.h"

/* The most pairs of overlapping lifetimes checked. */
#define STRUCTURED_CHECK_MAX_PAIRS (1u << 26)

/* TRUE and the objective when `place` (one per buffer) keeps every rule; else FALSE with the first broken rule,
 * buffers named by their ids. */
gboolean structured_check(const StructuredProblem *p, const StructuredPlace *place, StructuredObjective *o,
                          GError **error);
/* Whether buffers a and b have a temporal conflict: their lifetimes overlap and no exclusion separates them in
 * time. `exclusions` is structured_check_exclusions' set. */
gboolean structured_check_conflict(const StructuredProblem *p, GHashTable *exclusions, guint a, guint b);
/* The temporal exclusions as a set of pair keys (structured_check_key). Free with g_hash_table_destroy. */
GHashTable *structured_check_exclusions(const StructuredProblem *p);
static inline guint64 structured_check_key(guint a, guint b)
{
    return a < b ? ((guint64)a << 32) | b : ((guint64)b << 32) | a;
}

#endif
