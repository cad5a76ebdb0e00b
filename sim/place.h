/* place.h — placement: the strategy interface (strategies/place-*.c fill one descriptor each), the
 * driver that turns a trace into a plan, and the helpers offline strategies share.
 *
 * Strategies place *units*: a buffer on its own, or a rigid group (Concat/Split layouts) as one block
 * whose members keep their relative offsets; the unit lives from its first member's birth to its last
 * member's death. Each memory bin is planned separately and is its own arena. Fixed (pinned) units are
 * placed by the driver before the strategy runs: offline strategies see them as obstacles during their
 * lifetimes; online strategies find their address ranges reserved for the whole run. */
#ifndef SIM_PLACE_H
#define SIM_PLACE_H

#include "trace.h"

typedef struct {
    guint64 size, align;
    guint first, last;
    gint64 fixed; /* unit offset when pinned, else TRACE_NONE */
} PlaceUnit;

/* Knobs of the search-based strategies (climb, search) and of `best`. */
typedef struct {
    double budget_seconds;  /* search/climb stop after this long (--budget) */
    guint64 max_nodes;      /* search stops after exploring this many nodes (0: no limit) */
    guint32 seed;           /* climb's random choices (--seed) */
    guint climb_steps;      /* climb stops after this many steps */
    guint search_max;       /* `best` runs `search` on problems of at most this many units */
} PlaceOptions;

#define PLACE_OPTIONS_DEFAULTS {.budget_seconds = 10, .max_nodes = 0, .seed = 1, .climb_steps = 2000, .search_max = 1000}

/* One bin's placement problem. */
typedef struct {
    GArray *units; /* PlaceUnit */
    guint steps;
    const PlaceOptions *options;
} PlaceProblem;

typedef enum { PLACE_ONLINE, PLACE_OFFLINE } PlaceKind;

/* What a strategy is for, so others can pick it without naming it: the no-reuse baseline, the fast
 * heuristics (incumbents for the search), improvers, exact search, and portfolios of the others. */
typedef enum { ROLE_BASELINE, ROLE_HEURISTIC, ROLE_IMPROVER, ROLE_EXACT, ROLE_PORTFOLIO } PlaceRole;

typedef struct PlaceStrategy {
    const char *name;
    const char *summary;
    PlaceKind kind;
    PlaceRole role;
    /* Online: sees alloc/free events in time order, nothing else. */
    gpointer (*create)(void);
    guint64 (*alloc)(gpointer state, guint64 size, guint64 align);
    void (*release)(gpointer state, guint64 offset, guint64 size);
    gboolean (*reserve)(gpointer state, guint64 offset, guint64 size);
    void (*destroy)(gpointer state);
    /* Offline: sees the whole problem; writes one offset per unit (fixed units are preset and must be
     * kept). `detail` may receive a note for the report (newly allocated). */
    gboolean (*plan)(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error);
} PlaceStrategy;

typedef struct {
    const PlaceStrategy *strategy;
    guint64 *offsets;   /* per trace buffer */
    guint bins;
    guint64 *bin_arena; /* per bin: highest end rounded up to the bin's largest alignment */
    guint64 arena;      /* sum over bins */
    double seconds;     /* planning time */
    char *detail;       /* strategy's note, e.g. which heuristic `best` kept */
} Plan;

/* Plans the whole trace with one strategy (options NULL: the defaults). */
Plan *place_run(const PlaceStrategy *s, const Trace *t, GError **error);
Plan *place_run_with(const PlaceStrategy *s, const Trace *t, const PlaceOptions *options, GError **error);
void plan_free(Plan *p);

/* Arena of a set of unit offsets: highest end, rounded up to the largest alignment. */
guint64 place_arena(const PlaceProblem *p, const guint64 *offsets);
/* Runs one strategy on one bin's problem (used by the driver and by strategies that try others). */
gboolean place_problem(const PlaceStrategy *s, const PlaceProblem *p, guint64 *offsets, char **detail, GError **error);

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
/* Places every non-fixed unit in the given order with the given policy. */
void place_in_order(const PlaceProblem *p, const guint *order, guint n, GapPolicy policy, guint64 *offsets);
/* Greedy-by-size's order for place_sort (data: the problem): largest first, then longer lifetime. */
gint place_cmp_size_desc(gconstpointer a, gconstpointer b, gpointer problem);
/* Sorts unit ids with cmp(a, b, data); ties are broken by unit id, so every order is deterministic. */
void place_sort(guint *order, guint n, GCompareDataFunc cmp, gpointer data);

#endif
