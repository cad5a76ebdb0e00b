/* structured-core.h — a pool's capacity-free projection as an ordinary trace (dsa-solver's "core relaxation"):
 * the buffers fixed to the pool, one trace buffer per live interval, their sizes and lifetimes kept, alignment,
 * capacity, reserved ranges, separations, pins and penalties dropped, time points numbered in order. Its
 * smallest arena is a lower bound on the pool's peak in the structured problem, and the problem the published
 * "reference peaks" are for; every placement strategy of the trace pipeline plans it. Colocations, temporal
 * exclusions and buffers that may choose their pool have no sound projection: refused. */
#ifndef SIM_STRUCTURED_CORE_H
#define SIM_STRUCTURED_CORE_H

#include "structured/structured.h"
#include "trace/trace.h"

/* The pool named `pool` (its name, or its id as a number). */
Trace *structured_core_trace(const StructuredProblem *p, const char *pool, GError **error);

#endif
