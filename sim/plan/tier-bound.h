/* tier-bound.h — no tiered plan costs less: a lower bound on a tiered problem's cost (docs/tiers.md).
 *
 * With tiers in cost order, a buffer's cost is its cost in the first tier plus, for each boundary j it lies
 * beyond, the step d_j from tier j to tier j + 1. Whatever the plan, the buffers in tiers 0..j hold at most the
 * sum of those tiers' capacities at every step; so the buffers beyond boundary j cost at least what the cheapest
 * such choice leaves out. Relaxed to fractions (a buffer may lie partly inside) that minimum is a linear program
 * over intervals with one capacity, solved exactly as a min-cost flow along the time axis: a path of steps whose
 * edges carry the unused capacity, one edge per buffer from its first step past its last carrying the bytes kept
 * inside, at minus its step's cost per byte (successive shortest paths, Dijkstra on reduced costs). Buffers that
 * may not use the tiers below the boundary count whole; those that may use nothing above it are left to the
 * relaxation. The sum over boundaries is the bound. */
#ifndef SIM_TIER_BOUND_H
#define SIM_TIER_BOUND_H

#include "plan/plan.h"

typedef struct {
    double cost;        /* no plan of the problem costs less */
    /* The flows' work came to its limit on some boundary: before its first flow ended, which then took the weaker
     * bound of its busiest step alone, or during the branch and bound, which then gave the least open branch: still
     * a bound, not the relaxation's optimum. */
    gboolean cut_short;
} TierBound;

/* The bound of a tiered problem (p->tiers set). inside (or NULL): per unit, the fraction of it the first
 * boundary's optimum keeps in the first tier (0..1), a hint for placement orders. work_limit: the work of the
 * flows per boundary, the nodes they take and the edges they weigh (0: TIER_BOUND_WORK); counted, not timed, so
 * the bound is the same on any machine. */
#define TIER_BOUND_WORK 20000000u
TierBound tier_bound_compute(const PlaceProblem *p, guint64 work_limit, double *inside);

#endif
