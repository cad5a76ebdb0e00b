/* place-search.c — exact placement by branch and bound, after the ideas MiniMalloc (Moffitt, ASPLOS'23)
 * published (our own implementation, facts only), with inferences of our own for tight instances:
 *  - canonical solutions: every placement can be "dropped" until each buffer rests on the highest
 *    buffer below it that shares a step, so it suffices to build placements bottom-up, each buffer on a
 *    flat stretch of the skyline (the highest end among placed buffers live at each step);
 *  - branching, fail first: a valley floor without slack is covered exactly, from its left end by a
 *    buffer starting there and from its right end by one ending there; the floor end with the fewest
 *    candidates is branched on. Elsewhere, the lowest-left point: a buffer starting there and ending
 *    within the flat stretch rests on it, or the point stays empty and its step is raised (exact raises
 *    lose nothing, coarse ones are faster; searches with each take turns);
 *  - inference: cross-section, spatial, column, floor support, layer and stacking inference (see each
 *    function in search-infer.c);
 *    after a change only the window of steps it can affect is checked;
 *  - dynamic decomposition: a boundary no remaining buffer crosses splits the problem; a memo of failed
 *    states prunes repeats; restarts over three candidate orders with doubling node limits;
 *  - targets: passes of a binary search from the lower bound (max live bytes) to the best heuristic's
 *    arena, targets left open by a pass's node allowance retried by the next with double the allowance.
 * "optimal (proven)" is claimed when the arena equals the lower bound, or when every smaller target was
 * searched to the end with exact raises; otherwise the report gives the remaining gap. Stops at the node
 * budget (options->max_nodes) or the time budget (--budget). Pinned units are laid first and the skyline
 * starts above them; groups are units like any other. docs/placement.md has the reasoning. The inferences
 * live in search-infer.c, the memo in search-memo.c, the shared state in search.h. */
#include "base/error.h"
#include "strategies/search/search.h"

#include <pthread.h>
#include <string.h>

typedef enum { NODE_FAILED, NODE_FOUND, NODE_RAISED } NodeResult;

static gboolean dfs(Search *s, guint lo, guint hi, Window changed);

/* After a placement that took the last unplaced unit across some boundaries of [lo, hi) away, the steps
 * between those cuts are independent problems (no unplaced unit spans two of them): each is solved on
 * its own, and if one has no solution, no choice in the others can help (MiniMalloc's dynamic
 * decomposition), so the node fails without trying their alternatives against each other. */
static gboolean solve_pieces(Search *s, guint lo, guint hi, const PlaceUnit *x, Window changed)
{
    guint from = lo;
    for (guint c = x->first; c <= x->last; c++) {
        if (c < x->last && s->cross[c])
            continue;
        guint to = c < x->last ? c + 1 : hi; /* the piece [from, to) */
        Window w = {MAX(from, changed.lo), MIN(to, changed.hi)};
        if (!dfs(s, from, to, w.lo < w.hi ? w : (Window){from, from}))
            return FALSE;
        from = to;
    }
    return TRUE;
}

/* One node within [lo, hi): place a unit at the lowest-left point of the skyline (recursing), or raise
 * that point (pushed on s->raises; the caller goes on at the same depth, so the recursion depth is the
 * number of units placed, not the number of raises, which can be a step count per unit). */
static NodeResult dfs_node(Search *s, guint lo, guint hi, Window *changed)
{
    /* The lowest-left point of the skyline where something is still to be placed, its flat stretch [a, b],
     * and the tight valley floors. Within [lo, hi) every step has something left (a boundary nothing crosses
     * would have split it). */
    guint a, b;
    guint floors = search_walk_skyline(s, lo, hi, &a, &b);
    if (a == G_MAXUINT)
        return NODE_FOUND;
    if (!search_budget_left(s)) /* checked before counting: a node budget of N explores exactly N nodes at most */
        return NODE_FAILED;
    s->nodes++;
    if (!search_columns_can_fill(s, lo, hi, *changed) || !search_floors_supported(s, *changed))
        return NODE_FAILED;
    /* A buffer resting exactly on (a, h[a]) in a canonical placement starts at a (starting earlier it would
     * rest on the higher step a - 1) and ends by b (going on, it would rest on the higher step b + 1).
     * A tight valley floor elsewhere may offer fewer choices: then that floor is branched on. */
    guint p = a, q = b;
    gboolean from_right = FALSE;
    guint choices = search_tightest_floor(s, floors, &p, &q, &from_right);
    if (choices == 0)
        return NODE_FAILED;
    gboolean tight = choices != G_MAXUINT;
    guint64 tried_size[64], tried_align[64];
    guint tried_first[64], tried_last[64], tried = 0;
    /* Candidates start at a (or p), or end at q: that step's list holds them, in the candidate order. */
    const guint *list = tight && from_right ? s->ends + s->ends_from[q] : s->starts + s->starts_from[tight ? p : a];
    guint listed = tight && from_right ? s->ends_from[q + 1] - s->ends_from[q]
                                       : s->starts_from[(tight ? p : a) + 1] - s->starts_from[tight ? p : a];
    guint guided[GUIDED_MAX];
    if (s->guide && listed <= GUIDED_MAX) { /* the incumbent's choice here first (see Search.guide) */
        guint64 floor = s->h[p];
        guint count = 0;
        for (guint k = 0; k < listed; k++) {
            guint u = list[k];
            const PlaceUnit *x = unit(s, u);
            if (s->placed[u] || !(tight ? search_rests_on(s, x, p, q, from_right) : x->first == a && x->last <= b))
                continue;
            guint64 d = s->guide[u] > floor ? s->guide[u] - floor : floor - s->guide[u];
            guint j = count++;
            for (; j > 0; j--) { /* insertion sort by distance, stable */
                guint v = guided[j - 1];
                guint64 dv = s->guide[v] > floor ? s->guide[v] - floor : floor - s->guide[v];
                if (dv <= d)
                    break;
                guided[j] = v;
            }
            guided[j] = u;
        }
        list = guided;
        listed = count;
    }
    for (guint k = 0; k < listed; k++) {
        guint u = list[k];
        const PlaceUnit *x = unit(s, u);
        if (s->placed[u] || !(tight ? search_rests_on(s, x, p, q, from_right) : x->first == a && x->last <= b))
            continue;
        gboolean twin = FALSE; /* an identical unit was tried at this node already */
        for (guint j = 0; j < tried && !twin; j++)
            twin = tried_size[j] == x->size && tried_align[j] == x->align && tried_first[j] == x->first &&
                   tried_last[j] == x->last;
        if (twin)
            continue;
        if (tried < G_N_ELEMENTS(tried_size)) {
            tried_size[tried] = x->size;
            tried_align[tried] = x->align;
            tried_first[tried] = x->first;
            tried_last[tried++] = x->last;
        }
        guint64 floor = s->h[p], off = round_up(floor, x->align); /* the stretch is flat: floor everywhere */
        if (off + x->size > s->target)
            continue;
        for (guint t = x->first; t <= x->last; t++)
            s->h[t] = off + x->size;
        search_count_unplaced(s, x, -1);
        s->placed[u] = TRUE;
        guint peaks = s->peak_undo_len;
        s->offsets[u] = off;
        /* Spatial inference (an unplaced unit overlapping this one no longer fits above it), then the others. */
        gboolean dead = !search_raise_peaks_of(s, u, off + x->size);
        dead = dead || (s->stacking && !search_stacks_fit_after(s, lo, hi, x->first, x->last, peaks, 0, off + x->size)) ||
               !search_layers_tiled(s, lo, hi, x->first, x->last, s->target) ||
               (x->first > lo && s->h[x->first - 1] < off + x->size &&
                !search_layers_tiled(s, lo, hi, x->first - 1, x->first - 1, off + x->size)) ||
               (x->last + 1 < hi && s->h[x->last + 1] < off + x->size &&
                !search_layers_tiled(s, lo, hi, x->last + 1, x->last + 1, off + x->size));
        gboolean found = !dead && solve_pieces(s, lo, hi, x, search_changed_window(s, lo, hi, x->first, x->last));
        search_restore_peaks(s, peaks);
        s->placed[u] = FALSE;
        search_count_unplaced(s, x, +1);
        for (guint t = x->first; t <= x->last; t++)
            s->h[t] = floor;
        if (found)
            return NODE_FOUND;
        if (s->out_of_budget)
            return NODE_FAILED;
    }
    if (tight)
        return NODE_FAILED; /* a floor without slack cannot stay empty */
    /* Nothing rests on (a, h[a]): in such a placement column a stays empty from h[a] up to the lowest unit
     * X above it there, one of the unplaced units live at a. Exact raises lift step a alone to the lowest
     * offset any of them could have (search_lowest_above), which loses no placement. Coarse raises (faster, but they can miss a
     * placement) lift step a to its left neighbour, or against the range's left end the whole stretch to
     * its right neighbour. Every raise lifts the skyline, so the loop ends. */
    guint64 was = s->h[a], up = s->target;
    guint from = a, to = a;
    if (s->exact_raises) {
        SearchSlice live[SEARCH_SLICES_MAX];
        for (guint i = 0, slices = search_live_at(s, a, live); i < slices; i++)
            for (guint k = 0; k < live[i].len; k++)
                if (!s->placed[live[i].at[k]])
                    up = MIN(up, search_lowest_above(s, live[i].at[k], was));
    } else if (a > lo) {
        up = s->h[a - 1];
    } else if (b + 1 < hi) {
        up = s->h[b + 1];
        to = b;
    } else {
        return NODE_FAILED;
    }
    Raise r = {.from = from, .to = to, .was = was, .peaks = s->peak_undo_len};
    for (guint t = from; t <= to; t++)
        s->h[t] = up;
    search_raise_peaks(s, from, to, up);
    *changed = search_changed_window(s, lo, hi, from, to);
    s->raises = search_room(s->raises, s->raises_len, &s->raises_cap, sizeof(Raise));
    s->raises[s->raises_len++] = r;
    return NODE_RAISED;
}

/* Solves the steps [lo, hi): every unplaced unit living there is placed, or FALSE. */
static gboolean dfs(Search *s, guint lo, guint hi, Window changed)
{
    guint64 key = search_state_key(s, lo, hi);
    if (search_failed_before(s, key))
        return FALSE;
    guint mark = s->raises_len; /* this frame's raises go above its parent's */
    NodeResult r;
    while ((r = dfs_node(s, lo, hi, &changed)) == NODE_RAISED)
        ;
    for (guint k = s->raises_len; k-- > mark;) { /* undo the raises, last first */
        const Raise *x = &s->raises[k];
        for (guint t = x->from; t <= x->to; t++)
            s->h[t] = x->was;
        search_restore_peaks(s, x->peaks);
    }
    s->raises_len = mark;
    if (r == NODE_FAILED && !s->out_of_budget)
        search_remember_failed(s, key);
    return r == NODE_FOUND;
}

/* Candidate orders tried in turn (restarts): largest first, largest area first, longest first. On the
 * perfect instances no one order solves every instance quickly, a portfolio solves more. MiniMalloc's
 * three preorders (its solver's defaults) are written by their keys: W the lifetime's length, A the area,
 * T the most bytes live at a step of the lifetime, each largest first. */
typedef enum { ORDER_SIZE, ORDER_AREA, ORDER_LENGTH, ORDER_WAT, ORDER_TAW, ORDER_TWA } CandidateOrder;

typedef struct {
    const PlaceProblem *p;
    CandidateOrder order;
    const guint64 *total; /* per unit: the most bytes live at a step of its lifetime */
} OrderCtx;

/* Compares by the keys named in letters (W, A, T), largest first; then by unit index. */
static gint by_keys(const char *keys, const OrderCtx *c, guint a, guint b)
{
    const PlaceUnit *x = &g_array_index(c->p->units, PlaceUnit, a), *y = &g_array_index(c->p->units, PlaceUnit, b);
    guint64 lx = x->last - x->first + 1, ly = y->last - y->first + 1;
    for (const char *k = keys; *k; k++) {
        guint64 kx = *k == 'W' ? lx : *k == 'A' ? x->size * lx : c->total[a];
        guint64 ky = *k == 'W' ? ly : *k == 'A' ? y->size * ly : c->total[b];
        if (kx != ky)
            return kx > ky ? -1 : 1;
    }
    return a < b ? -1 : a > b;
}

static gint by_order(gconstpointer a, gconstpointer b, gpointer data)
{
    const OrderCtx *c = data;
    guint ua = *(const guint *)a, ub = *(const guint *)b;
    if (c->order >= ORDER_WAT)
        return by_keys(c->order == ORDER_WAT ? "WAT" : c->order == ORDER_TAW ? "TAW" : "TWA", c, ua, ub);
    const PlaceUnit *x = &g_array_index(c->p->units, PlaceUnit, ua);
    const PlaceUnit *y = &g_array_index(c->p->units, PlaceUnit, ub);
    guint64 lx = x->last - x->first + 1, ly = y->last - y->first + 1;
    guint64 kx = c->order == ORDER_AREA ? x->size * lx : c->order == ORDER_LENGTH ? lx : x->size;
    guint64 ky = c->order == ORDER_AREA ? y->size * ly : c->order == ORDER_LENGTH ? ly : y->size;
    if (kx != ky)
        return kx > ky ? -1 : 1;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return lx > ly ? -1 : lx < ly;
}

/* A restart's engine: the skyline search with coarse or exact raises, or MiniMalloc's (search-sections.c)
 * as published or with our inferences added, or the skyline search guided by the incumbent (exact raises;
 * at each node the candidates whose offset in the best placement so far lies nearest the floor first, so
 * its first descent rebuilds the incumbent and its backtracking varies what lies above: solution-guided
 * search, Beck, JAIR 2007). */
typedef enum { ENGINE_COARSE, ENGINE_EXACT, ENGINE_SECTIONS, ENGINE_SECTIONS_OURS, ENGINE_GUIDED } Engine;

typedef struct {
    Engine engine;
    CandidateOrder order;
} Turn;

/* The turns of each strategy, taken in rounds (see try_target). search's first SKYLINE_TURNS are its
 * skyline engine's, the next SECTIONS_TURNS MiniMalloc's with our inferences, the last the guided one,
 * which takes its turns from the second pass of targets on (see search_on_this_stack): it only follows
 * an incumbent, and in the first pass it cost the instances the others close there a turn per round
 * (perfect-400: 47,667 nodes against 44,667). Later it shortens hard proofs (staggered-450: 2,159,676
 * nodes against 2,533,183) and lowers the hard family's 500-buffer arenas. Its share of a round is
 * weighed in turn_limit. */
#define SKYLINE_TURNS 6
#define SECTIONS_TURNS 3
static const Turn search_turns[] = {
    {ENGINE_COARSE, ORDER_SIZE},   {ENGINE_EXACT, ORDER_SIZE},   {ENGINE_COARSE, ORDER_AREA},
    {ENGINE_EXACT, ORDER_AREA},    {ENGINE_COARSE, ORDER_LENGTH}, {ENGINE_EXACT, ORDER_LENGTH},
    {ENGINE_SECTIONS_OURS, ORDER_WAT}, {ENGINE_SECTIONS_OURS, ORDER_TAW}, {ENGINE_SECTIONS_OURS, ORDER_TWA},
    {ENGINE_GUIDED, ORDER_SIZE},
};
static const Turn minimalloc_turns[] = {
    {ENGINE_SECTIONS, ORDER_WAT}, {ENGINE_SECTIONS, ORDER_TAW}, {ENGINE_SECTIONS, ORDER_TWA},
};

typedef struct {
    const Turn *turns;
    guint count;
} Turns;

/* One target's attempt: the turns (an engine with a candidate order each) take turns (restarts) with node
 * limits doubling each round (1000, 2000, ...; weighed per turn by turn_limit), until one succeeds, an exact
 * one searches its whole space (nothing at this target), the attempt's allowance is used, or the budget
 * (nodes or seconds) is spent. A coarse search that ends without a placement proves nothing and is not
 * rerun; nor is one stopped at its cap, whose next rounds would walk the same nodes again. */
typedef enum { TARGET_FOUND, TARGET_NONE, TARGET_UNKNOWN } TargetResult;

typedef struct {
    Search *s;
    const PlaceProblem *p;
    Turns turns;
    GPtrArray *parts;
    const guint64 *floor;
    const guint64 *total; /* per unit, for the orders */
    const guint64 *incumbent; /* the best placement so far (per unit), which the guided turn follows */
    gboolean guided_on;       /* the guided turn takes its turns among others (from the second pass) */
    guint64 budget_nodes; /* options->max_nodes (0: none) */
    gboolean spent;       /* the budget is spent */
    gint64 turn_us;       /* the quickest turn so far, in microseconds (0: none yet) */
} TargetRun;

static gboolean solve_part(Search *s, guint part, const guint64 *pinned_floor, Engine engine);

/* A coarse turn's node limit stops growing at this: on every instance of bench/search.sh a coarse turn
 * that placed anything did so within 4,000 nodes (the perfect tilings it is there for), and past that
 * its rounds took a third of the hard family's nodes without a placement (h-300-2-0: 7.2M of 20M). */
#define COARSE_ROUND_MAX 8000

/* The probe at the lower bound takes a pass's whole allowance up to this many nodes, and a quarter of it
 * (never less than this) after: every proof at the bound on bench/search.sh came within 422,194 nodes of
 * its probe (staggered-450, in the 800,000 pass; the others within 45,000), while on the hard family,
 * where the bound is not reached, that probe took a quarter of the nodes (h-300-2-0: 6.3M of 25.5M). A
 * proof that needs more still comes, two passes later. */
#define BOUND_ALLOWANCE_FULL 800000

static guint64 bound_allowance(guint64 allowance)
{
    return allowance <= BOUND_ALLOWANCE_FULL ? allowance : MAX(BOUND_ALLOWANCE_FULL, allowance / 4);
}

/* A turn's node limit in a round of `round` nodes. The guided turn, when it leads the others (try_target:
 * among them, from the second pass, away from the lowest target), gets twice their share. Not at the
 * lowest target: a placement there has no slack at its peak step, which the incumbent's has, and the
 * lower bound is where proofs are made (staggered-450's is reached by a sections turn). On the hard
 * family this weight took the nodes to the best arena known from 19.2M to 9.0M (h-500-2-0) and from
 * 34.1M to 6.1M, where it also found a smaller arena (h-500-2-6: 1,411,072 against 1,414,144); neither
 * halving the weight nor doubling it again does as well on all twelve. */
static guint64 turn_limit(const Turn *t, guint64 round, gboolean guided_leads)
{
    if (t->engine == ENGINE_COARSE)
        return MIN(round, COARSE_ROUND_MAX);
    return t->engine == ENGINE_GUIDED && guided_leads ? 2 * round : round;
}

static TargetResult try_target(TargetRun *run, guint64 target, gboolean at_bound, guint64 allowance)
{
    Search *s = run->s;
    s->target = target;
    if (s->failed_count) { /* failures hold for one target */
        memset(s->failed, 0, s->failed_slots * sizeof(guint64));
        s->failed_count = 0;
    }
    guint64 end = s->nodes + allowance;
    gboolean coarse_done[G_N_ELEMENTS(search_turns)] = {FALSE}; /* per turn (search has the most) */
    g_assert(run->turns.count <= G_N_ELEMENTS(coarse_done));
    /* Parts are independent: each is placed by whichever turn first manages it, and stays placed. */
    g_autofree gboolean *part_done = g_new0(gboolean, run->parts->len + 1);
    guint count = run->turns.count;
    /* The guided turn (the list's last) leads each round (see turn_limit). */
    gboolean guided_leads = run->guided_on && !at_bound && count > 1 &&
                            run->turns.turns[count - 1].engine == ENGINE_GUIDED;
    for (guint64 round = 1000;; round *= 2) {
        for (guint slot = 0; slot < count; slot++) {
            guint turn = guided_leads ? (slot + count - 1) % count : slot;
            const Turn *t = &run->turns.turns[turn];
            if ((t->engine == ENGINE_COARSE && coarse_done[turn]) ||
                (t->engine == ENGINE_GUIDED && !run->guided_on && count > 1)) /* alone: from the start */
                continue;
            /* A turn sorts its parts' units and lists them by step before its first node (on a million
             * units, a good part of a second): none starts with less time left than the quickest took. */
            gint64 began = g_get_monotonic_time();
            if (run->turn_us && s->deadline - began < run->turn_us) { /* (a work budget's deadline is a year off) */
                run->spent = TRUE;
                return TARGET_UNKNOWN;
            }
            s->exact_raises = t->engine != ENGINE_COARSE;
            s->sections_ours = t->engine == ENGINE_SECTIONS_OURS;
            s->guide = t->engine == ENGINE_GUIDED ? run->incumbent : NULL;
            guint64 limit = MIN(s->nodes + turn_limit(t, round, guided_leads), end);
            s->max_nodes = run->budget_nodes ? MIN(limit, run->budget_nodes) : limit;
            s->out_of_budget = FALSE;
            OrderCtx ctx = {run->p, t->order, run->total};
            gboolean all_found = TRUE;
            for (guint k = 0; all_found && k < run->parts->len; k++) {
                if (part_done[k])
                    continue; /* placed by an earlier turn: its units keep their offsets */
                GArray *part = run->parts->pdata[k];
                s->n = part->len;
                memcpy(s->units, part->data, part->len * sizeof(guint));
                g_qsort_with_data(s->units, (gint)s->n, sizeof(guint), by_order, &ctx);
                all_found = part_done[k] = solve_part(s, k, run->floor, t->engine);
            }
            gint64 took = g_get_monotonic_time() - began;
            run->turn_us = run->turn_us ? MIN(run->turn_us, took) : took;
            if (all_found)
                return TARGET_FOUND;
            if (!s->out_of_budget && t->engine != ENGINE_COARSE)
                return TARGET_NONE; /* a part's whole space of placements: no use retrying */
            if (!s->out_of_budget || turn_limit(t, 2 * round, guided_leads) == turn_limit(t, round, guided_leads))
                coarse_done[turn] = TRUE; /* (here only a coarse turn's limit can stop growing) */
            if (g_get_monotonic_time() >= s->deadline || (run->budget_nodes && s->nodes >= run->budget_nodes) ||
                s->interrupted || s->stacks_full) {
                run->spent = TRUE;
                return TARGET_UNKNOWN;
            }
            if (s->nodes >= end)
                return TARGET_UNKNOWN;
        }
    }
}

/* Tries to place one part (its units in s->units) under s->target with the engine. */
/* The tables of a part before its first placement: the skyline at the pins, every unit of the part unplaced
 * and its peak the skyline's highest over its lifetime. */
static void start_part(Search *s, const guint64 *pinned_floor)
{
    memcpy(s->h, pinned_floor, s->steps * sizeof(guint64));
    memset(s->left, 0, s->steps * sizeof(guint64));
    memset(s->left_first, 0, s->steps * sizeof(guint64));
    memset(s->left_last, 0, s->steps * sizeof(guint64));
    memset(s->left_only, 0, s->steps * sizeof(guint64));
    memset(s->cross, 0, s->steps * sizeof(guint));
    memset(s->start_keys, 0, s->steps * sizeof(guint64));
    for (guint k = 0; k < s->n; k++) {
        const PlaceUnit *x = unit(s, s->units[k]);
        search_count_unplaced(s, x, +1);
        s->peak[s->units[k]] = 0;
        for (guint t = x->first; t <= x->last; t++)
            s->peak[s->units[k]] = MAX(s->peak[s->units[k]], s->h[t]);
    }
}

static gboolean solve_part(Search *s, guint part, const guint64 *pinned_floor, Engine engine)
{
    guint lo = G_MAXUINT, hi = 0;
    for (guint k = 0; k < s->n; k++) {
        lo = MIN(lo, unit(s, s->units[k])->first);
        hi = MAX(hi, unit(s, s->units[k])->last + 1);
    }
    /* A search that fails undoes every change on its way back, so after a failed attempt at this part the
     * tables are as start_part leaves them: made again, they cost the part's buffer-steps per turn and
     * target (most of the time on 50,000 buffers each living across thousands of others' starts). */
    if (s->part_ready != part + 1)
        start_part(s, pinned_floor);
    /* Stacking inference only where some step has slack: where every step is full (the perfect tilings at
     * their lower bound) the layer and floor checks cut what it would (perfect-400's skyline turns: the
     * same 35,667 nodes with it as without), and its scans would only slow each node. */
    s->stacking = FALSE;
    for (guint t = lo; t < hi && !s->stacking; t++)
        s->stacking = s->h[t] + s->left[t] < s->target;
    s->unaligned = TRUE; /* the hot loops then skip a lookup of the unit's alignment */
    for (guint k = 0; k < s->n && s->unaligned; k++)
        s->unaligned = unit(s, s->units[k])->align == 1;
    /* A node costs up to O(n) (MiniMalloc's candidate list): the clock is read more often on big parts. */
    s->clock_mask = s->n >= 1024 ? 0 : 15;
    if (!s->live) { /* the live index, once a search: every unit not pinned (the parts' units together) */
        guint *units = s->units, n = s->n, count = s->p->units->len, all = 0;
        guint *every = g_new(guint, count + 1);
        for (guint u = 0; u < count; u++)
            if (unit(s, u)->fixed == TRACE_NONE)
                every[all++] = u;
        s->units = every;
        s->n = all;
        search_index_live(s);
        s->units = units;
        s->n = n;
        g_free(every);
    }
    search_index_part(s);
    s->part_ready = 0;
    if (s->n == 0)
        return TRUE;
    if (!s->overlaps_built)
        search_overlaps_build(s);
    gboolean found = engine == ENGINE_SECTIONS || engine == ENGINE_SECTIONS_OURS ? search_sections_solve(s, lo, hi)
                                                                                : dfs(s, lo, hi, (Window){lo, hi});
    s->part_ready = found ? 0 : part + 1;
    return found;
}

/* The lower bound (the most bytes live at a step), and per unit the most bytes live at a step of its
 * lifetime (total, for the orders). */
static guint64 lower_bound(const PlaceProblem *p, guint64 *total)
{
    guint64 *live = g_new0(guint64, p->steps + 1), best = 0;
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *x = &g_array_index(p->units, PlaceUnit, u);
        for (guint t = x->first; t <= x->last; t++)
            live[t] += x->size;
    }
    for (guint t = 0; t < p->steps; t++)
        best = MAX(best, live[t]);
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *x = &g_array_index(p->units, PlaceUnit, u);
        total[u] = 0;
        for (guint t = x->first; t <= x->last; t++)
            total[u] = MAX(total[u], live[t]);
    }
    g_free(live);
    return best;
}

static guint64 gcd64(guint64 a, guint64 b)
{
    while (b) {
        guint64 r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The grain of the arena: every end of a canonical placement (each unit as low as it goes) is a multiple
 * of it, so targets between two multiples are one target. Offsets there are built from 0, pinned offsets,
 * ends of units below (offset + size) and roundings up to alignments; a multiple of g stays one under
 * each if g divides every size and pinned offset, and each alignment a either divides g (rounding changes
 * nothing) or is a multiple of it (the result is a multiple of a). Sizes in quanta (1024 B in the perfect
 * instances, 64 B in padded models) thus cut the byte-by-byte targets the binary search would try. */
static guint64 placement_grain(const PlaceProblem *p)
{
    guint64 g = 0;
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *x = &g_array_index(p->units, PlaceUnit, u);
        g = gcd64(g, x->size);
        if (x->fixed != TRACE_NONE)
            g = gcd64(g, (guint64)x->fixed);
    }
    for (gboolean changed = g > 1; changed;) {
        changed = FALSE;
        for (guint u = 0; u < p->units->len; u++) {
            guint64 a = g_array_index(p->units, PlaceUnit, u).align;
            if (g % a && a % g) {
                g = gcd64(g, a);
                changed = TRUE;
            }
        }
    }
    return MAX(g, 1);
}

/* The gap between an arena and the lower bound, as a percentage, or in bytes when the percentage would
 * print as 0.00% (a few hundred bytes on a gigabyte arena). Written into buf. */
static const char *gap_text(char buf[64], guint64 arena, guint64 lb)
{
    double pct = lb ? 100.0 * (double)(arena - lb) / (double)lb : 0.0;
    if (arena > lb && pct < 0.005)
        g_snprintf(buf, 64, "%" G_GUINT64_FORMAT " B", arena - lb);
    else
        g_snprintf(buf, 64, "%.2f%%", pct);
    return buf;
}

/* Where the best plan came from, for a search that ends without a proof: "best plan at node N" (how much of
 * the budget led to it), or "best plan from the heuristics". Written into buf. */
static const char *best_text(char buf[64], guint64 best_at)
{
    if (best_at)
        g_snprintf(buf, 64, "best plan at node %" G_GUINT64_FORMAT, best_at);
    else
        g_snprintf(buf, 64, "best plan from the heuristics");
    return buf;
}

static gboolean is_heuristic(const PlaceStrategy *s, const PlaceProblem *p)
{
    (void)p;
    return s->role == ROLE_HEURISTIC;
}

static gboolean search_on_this_stack(const PlaceProblem *p, Turns turns, guint64 *offsets, char **detail, GError **error)
{
    gint64 start = g_get_monotonic_time();
    const PlaceOptions *o = p->options;
    guint n = p->units->len;
    /* The incumbent: the best heuristic (the fast ones only, not a second search). */
    const PlaceStrategy *kept;
    guint64 incumbent;
    char *skipped;
    if (!place_keep_smallest(p, is_heuristic, offsets, &kept, &incumbent, &skipped, error))
        return FALSE;
    gint64 left = start + (gint64)(o->budget_seconds * G_USEC_PER_SEC) - g_get_monotonic_time();
    if (left <= 0 || (p->stats && left < p->stats->pass_us) || place_stop_requested(o)) {
        /* a million units: the heuristics spent the budget, or left less than one of them took, which the
         * search's own tables and its first turn's sort would take too (they would end past the deadline) */
        *detail = g_strdup_printf("not searched, budget spent on the heuristics: %s's plan%s%s", kept->name,
                                  skipped ? "; heuristics " : "", skipped ? skipped : "");
        g_free(skipped);
        return TRUE;
    }
    /* The search lists the units live at each step (search-live.c): every unit at every step of its lifetime
     * while those lists add up to at most SEARCH_SPAN_MAX entries (a staircase of n buffers makes n^2/2), else
     * in a tree over the steps, a few entries a unit. Counted first, in 64 bits; past the limit the search does
     * not start and the heuristic's plan stands. */
    gboolean tree;
    guint64 entries = search_live_entries(p, &tree);
    if (entries > SEARCH_SPAN_MAX) {
        *detail = g_strdup_printf("not searched: its index of the units live at each step would hold %" G_GUINT64_FORMAT
                                  " entries, more than the %" G_GUINT64_FORMAT " it holds; %s's plan%s%s", entries,
                                  (guint64)SEARCH_SPAN_MAX, kept->name, skipped ? "; heuristics " : "",
                                  skipped ? skipped : "");
        g_free(skipped);
        return TRUE;
    }
    guint64 *total = g_new(guint64, n + 1);
    guint64 lb = lower_bound(p, total);
    /* A work budget is a node budget (plan.h): the same nodes, whatever the clock says. */
    guint64 max_nodes = o->budget_work ? (o->max_nodes ? MIN(o->max_nodes, o->budget_work) : o->budget_work) : o->max_nodes;
    Search s = {.p = p, .unit_at = (const PlaceUnit *)(void *)p->units->data, .steps = p->steps, .max_nodes = max_nodes,
                .deadline = start + (gint64)(o->budget_seconds * G_USEC_PER_SEC), .best = incumbent, .bound = lb,
                .start = start, .next_progress = start + G_USEC_PER_SEC};
    s.h = g_new0(guint64, p->steps + 1);
    s.left = g_new0(guint64, p->steps + 1);
    s.left_first = g_new0(guint64, p->steps + 1);
    s.left_last = g_new0(guint64, p->steps + 1);
    s.left_only = g_new0(guint64, p->steps + 1);
    s.cross = g_new0(guint, p->steps + 1);
    s.start_keys = g_new0(guint64, p->steps + 1);
    s.peak = g_new0(guint64, n + 1);
    s.starts_from = g_new0(guint, p->steps + 1);
    s.starts = g_new0(guint, n + 1);
    s.ends_from = g_new0(guint, p->steps + 1);
    s.ends = g_new0(guint, n + 1);
    s.starts_last = g_new0(guint, n + 1);
    s.reach = g_new0(guint8, p->steps + 2);
    s.floors = g_new(guint, 2 * (p->steps + 1));
    s.stack = g_new(guint64, 2 * STACK_MAX);
    s.failed_slots = 1024;
    while (s.failed_slots < FAILED_SLOTS_MAX && s.failed_slots < 1024 * (guint64)n)
        s.failed_slots *= 2;
    s.zobrist = g_new(guint64, n + 1);
    for (guint u = 0; u < n; u++)
        s.zobrist[u] = search_mix64(((guint64)u << 32) ^ 0x9e3779b97f4a7c15ULL);
    s.placed = g_new0(gboolean, n + 1);
    s.offsets = g_new0(guint64, n + 1);
    s.units = g_new(guint, n + 1);
    s.rank = g_new0(guint, n + 1);
    guint64 *floor = g_new0(guint64, p->steps + 1);
    gboolean pinned = FALSE;
    for (guint u = 0; u < n; u++) { /* pins first: the skyline starts above them */
        const PlaceUnit *x = &g_array_index(p->units, PlaceUnit, u);
        if (x->fixed != TRACE_NONE) {
            pinned = TRUE;
            s.offsets[u] = (guint64)x->fixed;
            for (guint t = x->first; t <= x->last; t++)
                floor[t] = MAX(floor[t], (guint64)x->fixed + x->size);
        }
    }
    GPtrArray *parts = place_time_parts(p, FALSE);
    /* Targets, in passes: each pass is a binary search between the lowest target not ruled out and the
     * incumbent, starting at the former (the lower bound first: a proof if reached), where a target the
     * pass's node allowance did not settle counts as unreachable for this pass only; the next pass doubles
     * the allowance (the probe at the bound's grows slower past 800,000: bound_allowance). So a hard lower
     * bound does not eat the whole budget while easier targets above it would shrink the arena. */
    /* The arena is the highest end rounded up to the largest alignment, so only ends at least one
     * alignment below the incumbent improve it: targets stay below hi = incumbent - align + 1. */
    guint64 align = 1;
    for (guint u = 0; u < n; u++)
        align = MAX(align, g_array_index(p->units, PlaceUnit, u).align);
    /* Targets are multiples of the grain: lo and pass_lo stay on it. */
    guint64 grain = placement_grain(p);
    guint64 lo = round_up(lb, grain), hi = incumbent - MIN(align - 1, incumbent); /* lo: not ruled out; below hi: improves */
    gboolean proven = incumbent == lb || incumbent <= p->bound; /* at the bound once rounded to the alignment */
    TargetRun run = {.s = &s, .p = p, .turns = turns, .parts = parts, .floor = floor, .total = total,
                     .incumbent = offsets, .budget_nodes = max_nodes};
    guint64 best_at = 0; /* the nodes spent when the best plan was found (0: a heuristic's plan) */
    char nodes_text[64];
    for (guint64 allowance = 100000; !proven && lo < hi && !run.spent; allowance *= 2, run.guided_on = TRUE) {
        for (guint64 pass_lo = lo, probes = 0; !proven && pass_lo < hi && !run.spent; probes++) {
            guint64 open_targets = (hi - pass_lo + grain - 1) / grain; /* pass_lo, pass_lo + grain, ... below hi */
            /* lo first, once: a target ruled out there moves lo up a grain, and probing the new lo again
             * would walk the targets one by one (16,385 of them on a tiny trace beside a crowd of 1 KiB
             * buffers, whose grain is 1 KiB) */
            guint64 target = probes == 0 ? lo : pass_lo + open_targets / 2 * grain;
            gboolean at_bound = target == round_up(lb, grain);
            TargetResult r = try_target(&run, target, at_bound, at_bound ? bound_allowance(allowance) : allowance);
            if (r == TARGET_FOUND) {
                guint64 arena = place_arena(p, s.offsets);
                if (arena < incumbent) {
                    incumbent = s.best = arena;
                    best_at = s.nodes;
                    memcpy(offsets, s.offsets, n * sizeof(guint64));
                }
                hi = MIN(target, incumbent - MIN(align - 1, incumbent));
                proven = incumbent == lb || incumbent <= p->bound;
            } else {
                if (r == TARGET_NONE)
                    lo = MAX(lo, target + grain); /* nothing at this target in the canonical space */
                pass_lo = target + grain;
            }
        }
    }
    /* Every target below the incumbent searched to the end with exact raises: nothing smaller exists (all
     * the inferences only cut placements that cannot complete; tests/test-search.c checks this against a
     * brute force). Not so with pins: units could also go below a pinned one, which the skyline above
     * the pins does not try. */
    gboolean exhausted = !proven && lo >= hi && !pinned;
    char gap[64];
    /* Counts in the stats (their own report columns), not in the note: the note says what was found, the
     * same words for the same search on any machine under a work budget. */
    if (p->stats) {
        p->stats->nodes += s.nodes;
        p->stats->proven = p->stats->proven || proven || exhausted;
    }
    if (proven)
        *detail = g_strdup(incumbent == lb ? "optimal (proven: arena = lower bound)"
                                           : "optimal (proven: arena = lower bound rounded up to the largest alignment)");
    else if (exhausted)
        *detail = g_strdup_printf("optimal (proven: no placement ends below %" G_GUINT64_FORMAT " B%s), gap %s to the lower "
                                  "bound", lo, incumbent > lo ? ", rounded up to the largest alignment" : "",
                                  gap_text(gap, incumbent, lb));
    else if (s.stacks_full && !s.interrupted)
        *detail = g_strdup_printf("gap %s to the lower bound (its undo stacks reached %" G_GUINT64_FORMAT " B); %s",
                                  gap_text(gap, incumbent, lb), search_stacks_max(&s), best_text(nodes_text, best_at));
    else
        *detail = g_strdup_printf("gap %s to the lower bound%s; %s", gap_text(gap, incumbent, lb),
                                  s.interrupted ? " (stopped by SIGINT)" : run.spent ? " (budget spent)" : "",
                                  best_text(nodes_text, best_at));
    if (skipped) { /* a huge problem: the heuristics for the incumbent outlasted the budget */
        char *longer = g_strdup_printf("%s; heuristics %s", *detail, skipped);
        g_free(*detail);
        *detail = longer;
        g_free(skipped);
    }
    g_ptr_array_unref(parts);
    g_free(floor);
    g_free(s.h);
    g_free(s.left);
    g_free(s.left_first);
    g_free(s.left_last);
    g_free(s.left_only);
    g_free(s.cross);
    g_free(s.peak);
    g_free(s.peak_undo);
    g_free(s.raises);
    g_free(s.live_from);
    g_free(s.live);
    g_free(s.starts_from);
    g_free(s.starts);
    g_free(s.ends_from);
    g_free(s.ends);
    g_free(s.starts_last);
    g_free(s.reach);
    g_free(s.floors);
    g_free(s.stack);
    g_free(s.zobrist);
    g_free(s.start_keys);
    g_free(s.failed);
    g_free(s.placed);
    g_free(s.offsets);
    g_free(s.units);
    g_free(s.rank);
    g_free(s.overlaps_from);
    g_free(s.overlaps);
    if (s.candidates) {
        g_array_unref(s.candidates);
        g_array_unref(s.moved);
        g_array_unref(s.skyline_undo);
    }
    g_free(total);
    return TRUE;
}

typedef struct {
    const PlaceProblem *p;
    Turns turns;
    guint64 *offsets;
    char **detail;
    GError **error;
    gboolean ok;
} SearchCall;

static void *search_thread(void *data)
{
    SearchCall *c = data;
    c->ok = search_on_this_stack(c->p, c->turns, c->offsets, c->detail, c->error);
    return NULL;
}

/* The search recurses once per unit placed; on a thread whose stack grows with the problem (reserved,
 * touched only as deep as it goes) a trace of many buffers cannot overflow the process's 8 MB stack. */
static gboolean search_with(const PlaceProblem *p, Turns turns, guint64 *offsets, char **detail, GError **error)
{
    SearchCall call = {p, turns, offsets, detail, error, FALSE};
    size_t stack = ((size_t)MIN(p->units->len, 1u << 22) + 1024) * 4096; /* a frame is < 1 KB; sanitizers grow it */
    pthread_attr_t attr;
    pthread_t thread;
    if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, stack) != 0 ||
        pthread_create(&thread, &attr, search_thread, &call) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "search: cannot start a thread with a %zu MiB stack",
                    stack >> 20);
        pthread_attr_destroy(&attr);
        return FALSE;
    }
    pthread_attr_destroy(&attr);
    pthread_join(thread, NULL);
    return call.ok;
}

/* search's turns, or those of one engine (--search-engines). */
static gboolean search_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    SearchEngines only = p->options->search_engines;
    Turns turns = {search_turns, G_N_ELEMENTS(search_turns)};
    if (only == SEARCH_ENGINES_SKYLINE)
        turns.count = SKYLINE_TURNS;
    else if (only == SEARCH_ENGINES_SECTIONS)
        turns = (Turns){search_turns + SKYLINE_TURNS, SECTIONS_TURNS};
    else if (only == SEARCH_ENGINES_GUIDED)
        turns = (Turns){search_turns + SKYLINE_TURNS + SECTIONS_TURNS, 1};
    return search_with(p, turns, offsets, detail, error);
}

static gboolean minimalloc_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    return search_with(p, (Turns){minimalloc_turns, G_N_ELEMENTS(minimalloc_turns)}, offsets, detail, error);
}

const PlaceStrategy place_search = {
    .name = "search",
    .summary = "exact branch and bound over canonical placements (MiniMalloc's ideas), from the best heuristic down",
    .kind = PLACE_OFFLINE,
    .role = ROLE_EXACT,
    .plan = search_plan,
};

/* MiniMalloc's search (search-sections.c) under the same driver (incumbent, targets, budget), for
 * comparison: no portfolio runs it. */
const PlaceStrategy place_search_minimalloc = {
    .name = "minimalloc",
    .summary = "MiniMalloc's published search (canonical order, dominance, section inference), our implementation, as a peer",
    .kind = PLACE_OFFLINE,
    .role = ROLE_PEER,
    .plan = minimalloc_plan,
};
