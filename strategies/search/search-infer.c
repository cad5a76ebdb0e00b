/* search-infer.c — the exact search's bookkeeping of unplaced units and peaks (with each unit's list of
 * the units it overlaps), and its inferences over the skyline: which steps a change can affect,
 * cross-section and column inference, floor support, stacking (which MiniMalloc's engine runs too), layer
 * tiling, and the two branching aids (the tightest valley floor, the lowest offset a raise may lift a step
 * to). Each says why it only cuts placements that cannot complete. */
#include "strategies/search/search.h"

#include <string.h>

/* Adds (sign +1) or removes (-1) a unit from the unplaced bookkeeping. */
void search_count_unplaced(Search *s, const PlaceUnit *x, gint sign)
{
    guint64 size = x->size;
    for (guint t = x->first; t <= x->last; t++)
        s->left[t] += sign > 0 ? size : -size;
    s->left_first[x->first] += sign > 0 ? size : -size;
    s->left_last[x->last] += sign > 0 ? size : -size;
    if (x->first == x->last)
        s->left_only[x->first] += sign > 0 ? size : -size;
    for (guint t = x->first; t < x->last; t++)
        s->cross[t] += (guint)sign;
    s->start_keys[x->first] ^= s->zobrist[x - s->unit_at];
}


/* The skyline on [from, to] rose to level: so did the peak of every unplaced unit living there (a unit
 * listed twice is changed, and recorded, once). */
void search_raise_peaks(Search *s, guint from, guint to, guint64 level)
{
    SearchSlice around[SEARCH_SLICES_MAX];
    for (guint i = 0, slices = search_units_around(s, from, to, around); i < slices; i++)
        for (guint k = 0; k < around[i].len; k++) {
            guint u = around[i].at[k];
            const PlaceUnit *x = unit(s, u);
            if (!s->placed[u] && x->first <= to && from <= x->last && s->peak[u] < level) {
                search_push_peak(s, u, s->peak[u]);
                s->peak[u] = level;
            }
        }
}

/* Unit u was placed with its top at level: the peak of every unplaced unit sharing a step with it rose to
 * level (its overlap list names each once; the live lists around it name a unit once per shared step).
 * FALSE when one of them no longer fits under the target above it (spatial inference: the skyline only
 * rises, so they can only go above u); all are raised either way. */
gboolean search_raise_peaks_of(Search *s, guint u, guint64 level)
{
    const PlaceUnit *x = unit(s, u);
    SearchSlice near[SEARCH_SLICES_MAX];
    guint64 room = s->target >= level ? s->target - level : 0;
    gboolean fits = TRUE;
    for (guint i = 0, slices = search_units_overlapping(s, u, near); i < slices; i++)
        for (guint k = 0; k < near[i].len; k++) {
            guint v = near[i].at[k];
            const PlaceUnit *y = unit(s, v);
            if (s->placed[v] || y->first > x->last || x->first > y->last)
                continue;
            fits = fits && y->size <= room;
            if (s->peak[v] < level) {
                search_push_peak(s, v, s->peak[v]);
                s->peak[v] = level;
            }
        }
    return fits;
}

void search_restore_peaks(Search *s, guint mark)
{
    for (guint k = s->peak_undo_len; k-- > mark;)
        s->peak[s->peak_undo[k].u] = s->peak_undo[k].was;
    s->peak_undo_len = mark;
}

/* Per free unit, the other free units sharing a step with it (CSR, indexed by unit), built once per search
 * — the same for every turn and part (units of different parts share no step) — when they number at most
 * OVERLAPS_MAX in all (a part of a million units living together would need a trillion); else none, and
 * callers go through the live index (search_units_overlapping). */
#define OVERLAPS_MAX (16u << 20)

void search_overlaps_build(Search *s)
{
    s->overlaps_built = TRUE;
    guint n = s->p->units->len, steps = 0;
    for (guint u = 0; u < n; u++)
        steps = MAX(steps, unit(s, u)->last + 1);
    /* The free units by step (CSR): live[from[t] .. from[t + 1]) live at t. */
    guint *from = g_new0(guint, steps + 1);
    for (guint u = 0; u < n; u++)
        if (unit(s, u)->fixed == TRACE_NONE)
            for (guint t = unit(s, u)->first; t <= unit(s, u)->last; t++)
                from[t + 1]++;
    for (guint t = 0; t < steps; t++)
        from[t + 1] += from[t];
    guint64 listed = 0;
    for (guint u = 0; u < n; u++)
        if (unit(s, u)->fixed == TRACE_NONE)
            listed += from[unit(s, u)->last + 1] - from[unit(s, u)->first];
    if (listed > OVERLAPS_MAX) {
        g_free(from);
        return;
    }
    guint *live = g_new(guint, from[steps] + 1), *fill = g_memdup2(from, (steps + 1) * sizeof(guint));
    for (guint u = 0; u < n; u++)
        if (unit(s, u)->fixed == TRACE_NONE)
            for (guint t = unit(s, u)->first; t <= unit(s, u)->last; t++)
                live[fill[t]++] = u;
    g_free(fill);
    s->overlaps_from = g_new0(guint, n + 1);
    s->overlaps = g_new(guint, listed + 1);
    guint *seen = g_new0(guint, n + 1); /* stamp: the unit (+1) whose list last took it */
    guint taken = 0;
    for (guint u = 0; u < n; u++) {
        s->overlaps_from[u] = taken;
        const PlaceUnit *x = unit(s, u);
        if (x->fixed != TRACE_NONE)
            continue;
        seen[u] = u + 1;
        for (guint i = from[x->first]; i < from[x->last + 1]; i++)
            if (seen[live[i]] != u + 1) {
                seen[live[i]] = u + 1;
                s->overlaps[taken++] = live[i];
            }
    }
    s->overlaps_from[n] = taken;
    g_free(seen);
    g_free(live);
    g_free(from);
}

/* The steps whose checks a change of the skyline on [from, to] (now all at one level, within the range
 * [lo, hi)) can fail: the valley the change sits in, below the new level (a column's floor support looks
 * across its valley), and one step either side (column inference looks at neighbours). Support and
 * column inference elsewhere only depend on skyline and units that did not change. */
Window search_changed_window(const Search *s, guint lo, guint hi, guint from, guint to)
{
    guint64 level = s->h[from];
    while (from > lo && s->h[from - 1] < level)
        from--;
    while (to + 1 < hi && s->h[to + 1] < level)
        to++;
    return (Window){from > lo ? from - 1 : lo, to + 1 < hi ? to + 2 : hi};
}

/* Cross-section and column inference over the steps w of the range [lo, hi). Cross-section: at every step the skyline
 * plus the unplaced bytes live there must fit under the target; what is left over is the step's slack,
 * the most it may waste. Column inference: placements only ever go on top of the skyline, so a unit
 * unplaced at t - 1 will sit at or above h[t - 1]: in column t the band from h[t] up to h[t - 1] can only
 * be filled by units starting at t, or wasted. Likewise up to h[t + 1] by units ending at t, and up to the
 * lower neighbour by units living at t alone. */
gboolean search_columns_can_fill(const Search *s, guint lo, guint hi, Window w)
{
    for (guint t = w.lo; t < w.hi; t++) {
        if (!s->left[t])
            continue;
        guint64 floor = s->h[t];
        if (floor + s->left[t] > s->target)
            return FALSE;
        guint64 slack = s->target - floor - s->left[t];
        guint64 wall_left = t > lo && s->cross[t - 1] ? MAX(s->h[t - 1], floor) : floor;
        guint64 wall_right = t + 1 < hi && s->cross[t] ? MAX(s->h[t + 1], floor) : floor;
        if (s->left_first[t] + slack < wall_left - floor || s->left_last[t] + slack < wall_right - floor ||
            s->left_only[t] + slack < MIN(wall_left, wall_right) - floor)
            return FALSE;
    }
    return TRUE;
}

/* Support inference: a step with no slack wastes nothing, so the byte just above its skyline belongs to an
 * unplaced unit sitting exactly there, and such a unit's whole lifetime lies in the valley around the step
 * (no step of it higher, or it would collide there: its peak is that step's level) and it is aligned there. */
gboolean search_floors_supported(const Search *s, Window w)
{
    for (guint t = w.lo; t < w.hi; t++) {
        if (!s->left[t] || s->h[t] + s->left[t] != s->target)
            continue;
        gboolean supported = FALSE;
        SearchSlice live[SEARCH_SLICES_MAX];
        for (guint i = 0, slices = search_live_at(s, t, live); i < slices && !supported; i++)
            for (guint k = 0; k < live[i].len && !supported; k++) {
                guint u = live[i].at[k];
                supported = !s->placed[u] && s->peak[u] == s->h[t] && s->h[t] % unit(s, u)->align == 0;
            }
        if (!supported)
            return FALSE;
    }
    return TRUE;
}

/* Stacking inference at step t: no unplaced unit can go below its peak (placements only raise the
 * skyline, so a unit's peak only rises) nor below base (search-sections.c's canonical order: every later
 * placement is at or above the last one's offset). So for every release r among them, the units released
 * at r or higher lie wholly above r at t: r plus their bytes must fit under the target. The check at the
 * lowest release is the cross-section one; the higher ones catch a step whose long-lived units were lifted
 * by their neighbours (1D scheduling with release dates: stacked by release, the last one ends at the
 * largest such sum). Steps with more than STACK_MAX units live are not judged. */
gboolean search_stacks_fit(const Search *s, guint t, guint64 base)
{
    /* A release r at or below target - left[t] cannot fail: the units above it hold at most left[t] bytes. So
     * only the units released higher are collected, and the sums over them are the whole sums at their levels
     * (none: every sum fits). */
    gboolean all = s->left[t] > s->target;
    guint64 cap = all ? 0 : s->target - s->left[t];
    guint64 *rel = s->stack, *size = s->stack + STACK_MAX;
    guint k = 0, counted = 0;
    guint64 lowest = G_MAXUINT64, highest = 0, total = 0;
    /* Locals: the stores into the scratch could alias anything read through s. */
    SearchSlice live[SEARCH_SLICES_MAX];
    guint slices = search_live_at(s, t, live);
    const gboolean *placed = s->placed;
    const guint64 *peak = s->peak;
    const PlaceUnit *units = s->unit_at;
    for (guint j = 0; j < slices; j++)
        for (const guint *i = live[j].at, *end = live[j].at + live[j].len; i < end; i++) {
            guint u = *i;
            const PlaceUnit *x = &units[u];
            if (placed[u] || !x->size)
                continue;
            if (counted++ == STACK_MAX)
                return TRUE;
            guint64 r = MAX(base, round_up(peak[u], x->align));
            if (!all && r <= cap)
                continue;
            rel[k] = r;
            size[k++] = x->size;
            lowest = MIN(lowest, r);
            highest = MAX(highest, r);
            total += x->size;
        }
    /* Every sum lies between the lowest release's (all of them) and the highest release plus all of them: the
     * bounds decide most steps without sorting. */
    if (!k || highest + total <= s->target)
        return TRUE;
    if (lowest + total > s->target)
        return FALSE;
    for (guint i = 1; i < k; i++) { /* by release, highest first */
        guint64 r = rel[i], z = size[i];
        guint j = i;
        for (; j > 0 && rel[j - 1] < r; j--) {
            rel[j] = rel[j - 1];
            size[j] = size[j - 1];
        }
        rel[j] = r;
        size[j] = z;
    }
    guint64 above = 0;
    for (guint j = 0; j < k; j++) {
        above += size[j];
        if ((j + 1 == k || rel[j + 1] != rel[j]) && rel[j] + above > s->target)
            return FALSE;
    }
    return TRUE;
}

/* search_stacks_fit at the steps of [lo, hi) where a placement can have failed it: the steps [from, to] and the
 * lifetimes of the units whose peaks rose (to top) since peak_undo's length was mark. Only at the steps
 * where a remaining unit ends: the units live at any step live on to the next such step, and a step whose
 * units include another's fits if that one does. And only where top plus the bytes left overflows: the
 * sums this rise changed are those of release levels up to top, each at most top plus the bytes left
 * (higher levels were judged when their own units rose at a placement). Both limits only leave cuts out,
 * never make one: a check skipped is a completion not ruled out early. */
gboolean search_stacks_fit_after(const Search *s, guint lo, guint hi, guint from, guint to, guint mark, guint64 base,
                          guint64 top)
{
    for (guint k = mark; k < s->peak_undo_len; k++) {
        const PlaceUnit *y = unit(s, s->peak_undo[k].u);
        from = MIN(from, y->first);
        to = MAX(to, y->last);
    }
    for (guint t = MAX(from, lo); t <= to && t < hi; t++)
        if (s->left_last[t] && top + s->left[t] > s->target && !search_stacks_fit(s, t, base))
            return FALSE;
    return TRUE;
}

/* Layer inference: with no slack every byte above the skyline is some unplaced unit's. At a level y, the
 * units holding byte y do not overlap in time, and each lies within a run of steps whose skyline is at or
 * below y (a higher step would collide). So each such run, if it has no slack, must be cut exactly into
 * lifetimes of unplaced units lying within it (a run that has slack may waste byte y: not judged). */
static gboolean run_tiled(const Search *s, guint p, guint q)
{
    /* Locals: the byte stores into reach could alias anything read through s. */
    guint8 *reach = s->reach;
    const guint *starts = s->starts, *starts_last = s->starts_last, *starts_from = s->starts_from;
    const gboolean *placed = s->placed;
    memset(reach + p, 0, q - p + 2);
    reach[p] = 1;
    for (guint t = p; t <= q; t++) {
        if (!reach[t])
            continue;
        for (guint i = starts_from[t]; i < starts_from[t + 1]; i++)
            if (starts_last[i] <= q && !placed[starts[i]])
                reach[starts_last[i] + 1] = 1;
    }
    return reach[q + 1];
}

static gboolean has_slack(const Search *s, guint p, guint q)
{
    for (guint t = p; t <= q; t++)
        if (s->h[t] + s->left[t] != s->target)
            return TRUE;
    return FALSE;
}

/* Checks the runs around the steps [from, to] of the range [lo, hi), level by level from the highest
 * skyline in it, while the level stays below cap (the runs a change can have altered: after a placement,
 * the runs containing it up to the target, and the runs beside it below its new top, which it cut). Runs
 * only widen with the level, so once one has slack every later one has: nothing more to judge. */
gboolean search_layers_tiled(const Search *s, guint lo, guint hi, guint from, guint to, guint64 cap)
{
    guint64 level = 0;
    for (guint t = from; t <= to; t++)
        level = MAX(level, s->h[t]);
    if (has_slack(s, from, to))
        return TRUE;
    while (level < cap) {
        guint was_from = from, was_to = to; /* [was_from, was_to] has no slack */
        while (from > lo && s->h[from - 1] <= level)
            from--;
        while (to + 1 < hi && s->h[to + 1] <= level)
            to++;
        if ((from < was_from && has_slack(s, from, was_from - 1)) || (to > was_to && has_slack(s, was_to + 1, to)))
            return TRUE;
        if (!run_tiled(s, from, to))
            return FALSE;
        if (from == lo && to + 1 == hi)
            break;
        level = MIN(from > lo ? s->h[from - 1] : G_MAXUINT64, to + 1 < hi ? s->h[to + 1] : G_MAXUINT64);
    }
    return TRUE;
}

/* Could unit x rest on the floor [p, q] at level v of a tight valley, from its left (right) end? */
gboolean search_rests_on(const Search *s, const PlaceUnit *x, guint p, guint q, gboolean from_right)
{
    guint64 v = s->h[p];
    gboolean ends = from_right ? x->last == q && x->first >= p : x->first == p && x->last <= q;
    return ends && v % x->align == 0 && v + x->size <= s->target;
}

/* The per-node walk over the flat stretches of the skyline on [lo, hi): the lowest-left step with something
 * left to place (*a; G_MAXUINT: none) and the last step of its stretch (*b), and the valley floors — flat
 * stretches [p, q] lower than both neighbours — whose steps have no slack, listed in s->floors as (p, q)
 * pairs from the left, for search_tightest_floor. Returns how many floors. */
guint search_walk_skyline(const Search *s, guint lo, guint hi, guint *a, guint *b)
{
    const guint64 *h = s->h, *left = s->left;
    guint64 lowest = G_MAXUINT64, target = s->target;
    guint floors = 0;
    *a = G_MAXUINT;
    for (guint p = lo, q; p < hi; p = q + 1) {
        guint64 v = h[p];
        for (q = p; q + 1 < hi && h[q + 1] == v;)
            q++;
        if (v < lowest) /* the stretch's first step with something left */
            for (guint t = p; t <= q; t++)
                if (left[t]) {
                    lowest = v;
                    *a = t;
                    *b = q;
                    break;
                }
        if ((p > lo && h[p - 1] < v) || (q + 1 < hi && h[q + 1] < v))
            continue; /* not a valley floor */
        gboolean tight = TRUE;
        for (guint t = p; t <= q && tight; t++)
            tight = v + left[t] == target;
        if (tight) {
            s->floors[2 * floors] = p;
            s->floors[2 * floors + 1] = q;
            floors++;
        }
    }
    return floors;
}

/* Branching choice (fail first): a valley floor whose steps have no slack is covered exactly by the units
 * resting on it, and its left end's byte is some unit's that starts at p, its right end's byte some unit's
 * that ends at q. Placing that unit is on top of the skyline like any other placement, so any such floor
 * can be branched on, not only the lowest: of the `floors` search_walk_skyline listed, the one with the
 * fewest candidates is taken (the leftmost of those). Returns that count (0: a dead end), or G_MAXUINT when
 * no floor is tight (then the lowest-left point is branched on, with raises). */
guint search_tightest_floor(const Search *s, guint floors, guint *p_out, guint *q_out, gboolean *from_right)
{
    guint best = G_MAXUINT;
    for (guint f = 0; f < floors; f++) {
        guint p = s->floors[2 * f], q = s->floors[2 * f + 1];
        guint starting = 0, ending = 0;
        for (guint i = s->starts_from[p]; i < s->starts_from[p + 1]; i++)
            starting += !s->placed[s->starts[i]] && search_rests_on(s, unit(s, s->starts[i]), p, q, FALSE);
        for (guint i = s->ends_from[q]; i < s->ends_from[q + 1]; i++)
            ending += !s->placed[s->ends[i]] && search_rests_on(s, unit(s, s->ends[i]), p, q, TRUE);
        if (MIN(starting, ending) < best) {
            best = MIN(starting, ending);
            *p_out = p;
            *q_out = q;
            *from_right = ending < starting;
            if (best == 0)
                break;
        }
    }
    return best;
}

/* The lowest offset unplaced unit x (live at the lowest step, whose floor is v and stays empty) could
 * have: at or above its peak, aligned; if its peak is v, its first aligned offset above v, or where v is
 * aligned for it, the top of something it rests on (G_MAXUINT64 if nothing can be there). No step of its
 * lifetime is above v (its peak is the highest of them), so no placed unit's top is: only a unit still to
 * place, living during it, which sits at its own peak or higher (aligned) and ends its size above that. */
guint64 search_lowest_above(const Search *s, guint u, guint64 v)
{
    const PlaceUnit *x = unit(s, u);
    if (s->peak[u] > v)
        return round_up(s->peak[u], x->align);
    if (v % x->align)
        return round_up(v, x->align); /* dropped as far as it goes, it stops at its first aligned offset */
    guint64 rest = G_MAXUINT64;
    SearchSlice near[SEARCH_SLICES_MAX];
    for (guint i = 0, slices = search_units_overlapping(s, u, near); i < slices; i++)
        for (guint k = 0; k < near[i].len; k++) {
            guint w = near[i].at[k];
            const PlaceUnit *y = unit(s, w);
            if (w != u && !s->placed[w] && y->first <= x->last && x->first <= y->last)
                rest = MIN(rest, round_up(s->peak[w], y->align) + y->size);
        }
    return rest == G_MAXUINT64 ? G_MAXUINT64 : round_up(MAX(rest, v + 1), x->align);
}
