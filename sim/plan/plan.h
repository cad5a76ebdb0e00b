/* plan.h — the plan room's data contract, the one header every placement stage includes (as MiniMalloc's
 * minimalloc.h is for its solver): the units a strategy places, the problem of one bin, the strategy
 * descriptor (strategies/place/place-*.c fill one each) and the resulting Plan. The driver is place.h; the
 * verifier (verify.h) checks a Plan against its trace and needs nothing else.
 *
 * Strategies place *units*: a buffer on its own, or a rigid group (Concat/Split layouts) as one block
 * whose members keep their relative offsets; the unit lives from its first member's birth to its last
 * member's death. Each memory bin is planned separately and is its own arena. */
#ifndef SIM_PLAN_H
#define SIM_PLAN_H

#include "trace/trace.h"

#include <signal.h>

typedef struct {
    guint64 size, align;
    guint first, last;
    gint64 fixed; /* unit offset when pinned, else TRACE_NONE */
} PlaceUnit;

/* Which engines search's restarts use (an ablation knob, --search-engines): all, or the skyline's, the
 * sections' (MiniMalloc's with our inferences) or the guided turn alone. */
typedef enum { SEARCH_ENGINES_BOTH, SEARCH_ENGINES_SKYLINE, SEARCH_ENGINES_SECTIONS, SEARCH_ENGINES_GUIDED } SearchEngines;

/* Knobs of the search-based strategies (climb, search) and of `best`. */
typedef struct {
    double budget_seconds;  /* search/climb stop after this long (--budget) */
    /* A budget of work, the same on any machine however busy (--budget-work): work counts unit placements,
     * a search node placing one unit and a climb step re-placing all n, so search and minimalloc explore at
     * most budget_work nodes and climb takes at most budget_work / n steps (at least one); `best` gives each
     * of its time-bounded candidates an even share. 0: none (the seconds alone bound them). */
    guint64 budget_work;
    guint64 max_nodes;      /* search stops after exploring this many nodes (0: no limit) */
    guint32 seed;           /* climb's random choices (--seed) */
    guint climb_steps;      /* climb stops after this many steps */
    guint search_max;       /* `best` runs `search` on problems of at most this many units */
    SearchEngines search_engines; /* search's restarts (0: both engines) */
    /* search lists the units live at each step by step while their lifetimes add up to at most this many
     * buffer-steps, else in a tree over the steps (strategies/search/search-live.c; 0: 2^26). Only tests set it:
     * both forms give the same nodes and plans. */
    guint64 search_by_step_max;
    /* search stops, as out of budget, once its undo stacks hold this many bytes (0: 1 GiB; only tests set it) */
    guint64 search_stacks_max;
    /* The strategies a portfolio (best) and the exact search (for its incumbents) may try: NULL-terminated,
     * normally the registry's registry_place; NULL: none, and those strategies refuse to run. The plan room
     * cannot name the registry (it sits above), so whoever runs them hands it down. */
    const struct PlaceStrategy *const *portfolio;
    /* Set to nonzero from outside (a SIGINT handler) to stop the time-bounded strategies now: they end as
     * at the end of their budget, with the best plan found so far. NULL: never. */
    const volatile sig_atomic_t *stop;
    /* Called about once a second by a long search with one line of progress (no newline); NULL: silent. */
    void (*progress)(const char *line);
    /* When a portfolio's budget ends (g_get_monotonic_time's clock; 0: never). A portfolio sets it for every
     * candidate but the first: a heuristic still placing then gives up (PlaceStats.gave_up), so a budget
     * holds on a million buffers, where one greedy pass takes seconds. */
    gint64 deadline;
    /* A heuristic gives up (PlaceStats.cut) once the arena of the units it has placed reaches this (0: never): a
     * portfolio hands each candidate the arena it would have to get below, and as an arena only grows as units
     * are placed, one that reaches it cannot. */
    guint64 cutoff;
} PlaceOptions;

/* Whether the options ask the time-bounded strategies to stop now. */
static inline gboolean place_stop_requested(const PlaceOptions *o) { return o && o->stop && *o->stop; }
/* Whether a heuristic should give up: told to stop, or past the portfolio's deadline. */
static inline gboolean place_past_deadline(const PlaceOptions *o)
{
    return o && (place_stop_requested(o) || (o->deadline && g_get_monotonic_time() > o->deadline));
}

#define PLACE_OPTIONS_DEFAULTS                                                                                 \
    {.budget_seconds = 10, .max_nodes = 0, .seed = 1, .climb_steps = 2000, .search_max = 1000, .portfolio = NULL}

/* What the time-bounded strategies did, counted rather than timed: search nodes explored, climb steps
 * taken, and whether the plan is proven the smallest possible. A portfolio adds up its candidates'. */
typedef struct {
    guint64 nodes, steps;
    gboolean proven;
    gboolean gave_up; /* a heuristic stopped at PlaceOptions.deadline: its offsets are no plan */
    gboolean cut;     /* a heuristic stopped at PlaceOptions.cutoff: its offsets are no plan, nor a better one */
    /* Timed, not counted: the longest a heuristic of a portfolio took to finish, in microseconds (what one
     * more pass over the units costs), so that nothing starts that cannot end within the seconds left. It
     * decides only whether work starts under --budget in seconds, never what a work budget does. */
    gint64 pass_us;
} PlaceStats;

/* One bin's placement problem. */
typedef struct {
    GArray *units; /* PlaceUnit */
    guint steps;
    const PlaceOptions *options;
    /* No placement has a smaller arena: the most bytes live at one step (and the highest pinned end), rounded
     * up to the largest alignment, as every arena is. A plan that reaches it is optimal, and the strategies
     * that search stop there. */
    guint64 bound;
    PlaceStats *stats; /* where the strategies count their work (NULL: nowhere) */
    /* Per unit: its buffer's reuse class (TraceBuffer.reuse; a group's unit: 0), or NULL when the trace gives
     * none. Read only by runtime rules that reuse a freed buffer for an equal one (`ort`). */
    const guint64 *reuse;
    /* The memory tiers, when the trace has them (Trace.tiers; NULL otherwise): what a tier-aware strategy
     * (PlaceStrategy.plan_tiers) sees of them per unit. */
    const struct PlaceTiers *tiers;
} PlaceProblem;

/* A tiered problem's extra facts (docs/tiers.md): the tiers in order, fastest first, and per unit the tiers it
 * may use, its cost in each tier and the bytes it moves. A fixed unit names exactly one tier. */
typedef struct PlaceTiers {
    const GArray *tiers;     /* TraceTier (trace/trace-tiers.h), each capacity cut down to a multiple of the largest
                                alignment: the most a tier's arena (its highest end rounded up to it) may hold */
    guint count;             /* tiers->len */
    const guint32 *allowed;  /* per unit: a mask of tiers, never 0 */
    const double *cost;      /* per unit: its cost in each tier, cost[u * count + k] */
    const guint64 *traffic;  /* per unit: bytes read + written */
    /* The bound on the problem's cost (plan/tier-bound.h), computed once with the problem as PlaceProblem.bound is,
     * and per unit the fraction of it the bound's optimum keeps in the first tier (a hint for orders). */
    double bound;
    gboolean bound_cut;
    const double *inside;
} PlaceTiers;

typedef enum { PLACE_ONLINE, PLACE_OFFLINE } PlaceKind;

/* What a strategy is for, so others can pick it without naming it: the no-reuse baseline, the fast
 * heuristics (incumbents for the search), improvers, exact search, portfolios of the others, peers
 * (a published algorithm rebuilt for comparison, which no portfolio runs) and runtimes (a runtime's own
 * allocator or planner rebuilt as a baseline: ONNX Runtime's, PyTorch's; no portfolio runs them either). */
typedef enum { ROLE_BASELINE, ROLE_HEURISTIC, ROLE_IMPROVER, ROLE_EXACT, ROLE_PORTFOLIO, ROLE_PEER, ROLE_RUNTIME } PlaceRole;

typedef struct PlaceStrategy {
    const char *name;
    const char *summary;
    PlaceKind kind;
    PlaceRole role;
    /* Online: sees alloc/free events in time order, nothing else. create gets the problem's units for one
     * purpose: an index may leave out free blocks no unit could ever use (freelist.c); no decision may
     * depend on them. */
    gpointer (*create)(const GArray *units);
    guint64 (*alloc)(gpointer state, guint64 size, guint64 align);
    void (*release)(gpointer state, guint64 offset, guint64 size);
    gboolean (*reserve)(gpointer state, guint64 offset, guint64 size);
    void (*destroy)(gpointer state);
    /* Offline: sees the whole problem; writes one offset per unit (fixed units are preset and must be
     * kept). `detail` may receive a note for the report (newly allocated). */
    gboolean (*plan)(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error);
    /* Tier-aware (NULL: the strategy places one arena per bin and refuses tiers): sees the whole tiered problem
     * (p->tiers set) and writes each unit's tier and its offset in that tier's arena, every tier's arena within
     * its capacity; fixed units keep their tier and offset. */
    gboolean (*plan_tiers)(const PlaceProblem *p, guint *tiers, guint64 *offsets, char **detail, GError **error);
} PlaceStrategy;

/* Improvers, exact search, portfolios and peers run until they are done or --budget is spent: their time
 * is the budget's, not a growth law (sim --list marks them; bench/plan-scaling.sh times them once). */
static inline gboolean place_strategy_budgeted(const PlaceStrategy *s)
{
    return s->role == ROLE_IMPROVER || s->role == ROLE_EXACT || s->role == ROLE_PORTFOLIO || s->role == ROLE_PEER;
}

typedef struct {
    const PlaceStrategy *strategy;
    guint64 *offsets;   /* per trace buffer */
    guint bins;
    guint64 *bin_arena; /* per bin: highest end rounded up to the bin's largest alignment */
    guint64 arena;      /* sum over bins */
    guint64 lower_bound; /* the trace's (trace_lower_bound), computed once with the plan for every report and
                            picture of it */
    guint64 naive_arena; /* the same units with no reuse (place_sequential, bin by bin): the baseline the
                            report measures savings against, without planning the trace a second time */
    double seconds;     /* planning time */
    char *detail;       /* strategy's note, e.g. which heuristic `best` kept */
    PlaceStats stats;   /* summed over bins */
    /* Tiered plans (the trace has tiers): per trace buffer, the tier chosen (bin k is tier k: the arenas above are
     * the tiers'); plan_tiers_apply writes them into the trace's bins. NULL otherwise. */
    guint *tier;
    double tier_bound;         /* tiered: no plan of the trace costs less (plan/tier-bound.h) */
    gboolean tier_bound_cut;   /* ... a weaker bound: its flow's work came to the limit */
} Plan;

void plan_free(Plan *p);
/* A tiered plan's tiers into the trace it was made from: each buffer's bin becomes its tier (nothing without). */
void plan_tiers_apply(const Plan *p, Trace *t);

#endif
