/* place.h — placement: the driver that turns a trace into a plan (units and bins, plan.h), and the helpers
 * strategies share (the placed index, orders, the portfolio runner). Fixed (pinned) units are
 * placed by the driver before the strategy runs: offline strategies see them as obstacles during their
 * lifetimes; online strategies find their address ranges reserved for the whole run. */
#ifndef SIM_PLACE_H
#define SIM_PLACE_H

#include "plan/plan.h"

/* Plans the whole trace with one strategy (options NULL: the defaults). */
Plan *place_run(const PlaceStrategy *s, const Trace *t, GError **error);
Plan *place_run_with(const PlaceStrategy *s, const Trace *t, const PlaceOptions *options, GError **error);

/* The problem's bound (PlaceProblem.bound), computed: for a problem a strategy builds from part of another. */
guint64 place_bound(const PlaceProblem *p);
/* The problem's parts in time: maximal runs of steps that some unit spans across, so that no unit crosses
 * between parts; each an array of unit ids (guint) by first step, ties in unit order. with_fixed: the fixed
 * units too (else they are left out, and may span parts). One part, or none, when nothing separates them. */
GPtrArray *place_time_parts(const PlaceProblem *p, gboolean with_fixed);
/* Arena of a set of unit offsets: highest end, rounded up to the largest alignment. */
guint64 place_arena(const PlaceProblem *p, const guint64 *offsets);
/* Runs one strategy on one bin's problem (used by the driver and by strategies that try others). */
gboolean place_problem(const PlaceStrategy *s, const PlaceProblem *p, guint64 *offsets, char **detail, GError **error);

/* Runs every strategy of the problem's portfolio (options->portfolio) that `take` accepts and keeps the
 * smallest arena's offsets (problem units); *winner is the one kept (NULL when none ran), *arena its arena.
 * Every candidate but the first gives up at the end of the budget (PlaceOptions.deadline). *skipped (when not
 * NULL): what the budget cut short, as a phrase ("not started, budget spent: a, b", "stopped unfinished, budget
 * spent: c; not started: a, b"), or NULL when all ran (the caller frees it). An error when the problem has no
 * portfolio. */
gboolean place_keep_smallest(const PlaceProblem *p, gboolean (*take)(const PlaceStrategy *s, const PlaceProblem *p),
                             guint64 *offsets, const PlaceStrategy **winner, guint64 *arena, char **skipped,
                             GError **error);

/* The no-reuse layout: every non-fixed unit its own slot, one after another above the fixed ones. Writes the
 * offsets when `offsets` is not NULL; returns the arena (as place_arena would). */
guint64 place_sequential(const PlaceProblem *p, guint64 *offsets);

/* ---- shared by offline strategies ---- */

/* Units placed so far, indexed by lifetime. */
typedef struct PlacedIndex PlacedIndex;
typedef enum { GAP_BEST, GAP_FIRST } GapPolicy;

/* An index holding the problem's fixed units (at their offsets). */
PlacedIndex *placed_index_new(const PlaceProblem *p, const guint64 *offsets);
void placed_index_free(PlacedIndex *x);
void placed_index_add(PlacedIndex *x, guint unit, guint64 offset);
/* Offset for unit u among the placed units that overlap it in time: the smallest gap that fits
 * (GAP_BEST, as TFLite's and XLA's greedy planners) or the lowest (GAP_FIRST), else above them all. */
guint64 placed_index_find(PlacedIndex *x, guint unit, GapPolicy policy);
/* Two finds at once, for units whose lifetimes do not meet (neither's answer depends on the other's). */
void placed_index_find_pair(PlacedIndex *x, guint a, guint b, GapPolicy policy, guint64 *offset_a,
                            guint64 *offset_b);
/* A hint, no effect on results: the lists a coming find and add for `unit` will read. */
void placed_index_prefetch(const PlacedIndex *x, guint unit);
/* Places every non-fixed unit in the given order with the given policy; FALSE, leaving no plan in `offsets`, when
 * it stopped at the options' deadline or cutoff (then the problem's stats say `cut`). */
gboolean place_in_order(const PlaceProblem *p, const guint *order, guint n, GapPolicy policy, guint64 *offsets);
/* place_in_order for a heuristic: FALSE (and the problem's stats say it gave up, or was cut) when it stopped at
 * the options' deadline (or cutoff), leaving no plan in `offsets`. */
gboolean place_in_order_or_give_up(const PlaceProblem *p, const guint *order, guint n, GapPolicy policy,
                                   guint64 *offsets);
/* A unit's place in an offline order: by `major`, largest first, then by `minor`, largest first, then by unit id.
 * The keys side by side: a comparison reads one array in sort order, not two unit records at random. */
typedef struct {
    guint64 major, minor;
    guint unit;
} PlaceKey;
/* The n keys' units into `order`, sorted; FALSE (and the problem's stats say it gave up) when the options'
 * deadline came during the sort (the clock is read between runs of 65,536 keys). */
gboolean place_order_by_keys(const PlaceProblem *p, PlaceKey *keys, guint n, guint *order);
/* Whether two units' lifetimes share a step (then they may not share bytes). */
static inline gboolean place_units_meet(const PlaceUnit *a, const PlaceUnit *b)
{
    return a->first <= b->last && b->first <= a->last;
}
/* Greedy-by-size's order of all the problem's units: largest first, then longer lifetime, then unit id.
 * FALSE (and the problem's stats say it gave up) when the options' deadline came during the sort. */
gboolean place_order_by_size(const PlaceProblem *p, guint *order);
/* Sorts unit ids with cmp(a, b, data); ties are broken by unit id, so every order is deterministic. */
void place_sort(guint *order, guint n, GCompareDataFunc cmp, gpointer data);
/* A range of offsets [start, end). */
typedef struct {
    guint64 start, end;
} PlaceRange;
/* The pinned units' ranges, merged where they overlap or touch, in offset order (PlaceRange): what a strategy
 * reserves for the whole run (pins of different steps may overlap; reserving each one alone would take some
 * bytes twice). */
GArray *place_pinned_ranges(const PlaceProblem *p);

#endif
