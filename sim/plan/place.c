/* place.c — the placement driver (units, bins, online replay, offline planning) and the orders and
 * loops the offline strategies share (see place.h; their gap finder is placed-index.c). */
#include "plan/place.h"
#include "base/error.h"
#include "plan/verify.h"
#include "plan/tier-bound.h"
#include "trace/trace-tiers.h"

#include <stdlib.h>
#include <string.h>

/* ---------- units ---------- */

typedef struct {
    PlaceProblem problem;
    GArray *buffers;       /* guint: trace ids of this bin's buffers */
    guint *unit_of;        /* per entry of `buffers` */
    guint64 *member_offset;
    GArray *reuse;         /* guint64 per unit (problem.reuse), or NULL when no buffer gives a class */
} BinProblem;

static void bin_problem_clear(BinProblem *b)
{
    if (b->problem.units)
        g_array_unref(b->problem.units);
    if (b->buffers)
        g_array_unref(b->buffers);
    g_free(b->unit_of);
    g_free(b->member_offset);
    if (b->reuse)
        g_array_unref(b->reuse);
}

/* The problem of one bin's buffers (bin G_MAXUINT: every buffer's, as a tiered trace is planned). */
static gboolean build_bin(const Trace *t, guint bin, BinProblem *out, GError **error)
{
    memset(out, 0, sizeof(*out));
    guint n = trace_count(t), in_bin = 0;
    for (guint k = 0; k < n; k++)
        in_bin += bin == G_MAXUINT || trace_buffer(t, k)->bin == bin;
    out->problem.units = g_array_sized_new(FALSE, FALSE, sizeof(PlaceUnit), in_bin);
    out->problem.steps = t->steps;
    out->buffers = g_array_sized_new(FALSE, FALSE, sizeof(guint), in_bin);
    for (guint k = 0; k < n; k++)
        if (bin == G_MAXUINT || trace_buffer(t, k)->bin == bin)
            g_array_append_val(out->buffers, k);
    out->unit_of = g_new0(guint, out->buffers->len + 1);
    out->member_offset = g_new0(guint64, out->buffers->len + 1);
    GHashTable *group_unit = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    for (guint k = 0; k < out->buffers->len; k++) {
        const TraceBuffer *b = trace_buffer(t, g_array_index(out->buffers, guint, k));
        gpointer found = NULL;
        if (b->group != TRACE_NONE && g_hash_table_lookup_extended(group_unit, &b->group, NULL, &found)) {
            guint u = GPOINTER_TO_UINT(found);
            PlaceUnit *unit = &g_array_index(out->problem.units, PlaceUnit, u);
            unit->size = MAX(unit->size, b->group_offset + b->size);
            unit->align = MAX(unit->align, b->align);
            unit->first = MIN(unit->first, b->first);
            unit->last = MAX(unit->last, b->last);
            if (b->fixed != TRACE_NONE)
                unit->fixed = b->fixed - (gint64)b->group_offset;
            out->unit_of[k] = u;
            out->member_offset[k] = b->group_offset;
            continue;
        }
        PlaceUnit unit = {b->size, b->align, b->first, b->last, TRACE_NONE};
        if (b->group != TRACE_NONE) {
            unit.size = b->group_offset + b->size;
            g_hash_table_insert(group_unit, g_memdup2(&b->group, sizeof(gint64)),
                                GUINT_TO_POINTER(out->problem.units->len));
            out->member_offset[k] = b->group_offset;
            if (b->fixed != TRACE_NONE)
                unit.fixed = b->fixed - (gint64)b->group_offset;
        } else {
            unit.fixed = b->fixed;
        }
        out->unit_of[k] = out->problem.units->len;
        g_array_append_val(out->problem.units, unit);
        if (b->reuse && !out->reuse) { /* the first buffer with a class: every unit before it had none */
            out->reuse = g_array_sized_new(FALSE, TRUE, sizeof(guint64), in_bin);
            g_array_set_size(out->reuse, out->problem.units->len - 1);
        }
        if (out->reuse) {
            guint64 reuse = b->group != TRACE_NONE ? 0 : b->reuse; /* a rigid group is no one tensor */
            g_array_append_val(out->reuse, reuse);
        }
    }
    g_hash_table_unref(group_unit);
    out->problem.reuse = out->reuse ? (const guint64 *)(void *)out->reuse->data : NULL;
    /* A group base must be aligned for every member: member offsets must be multiples of their own
     * alignment, and a pinned base must honour the largest one. */
    for (guint k = 0; k < out->buffers->len; k++) {
        guint id = g_array_index(out->buffers, guint, k);
        const TraceBuffer *b = trace_buffer(t, id);
        const PlaceUnit *u = &g_array_index(out->problem.units, PlaceUnit, out->unit_of[k]);
        if (b->group != TRACE_NONE && (b->group_offset % b->align || (u->fixed != TRACE_NONE && u->fixed % u->align))) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                        "buffer %u '%s': its offset in group %" G_GINT64_FORMAT " breaks its alignment", id, b->name,
                        b->group);
            return FALSE;
        }
    }
    return TRUE;
}

/* The problem's bound (plan.h): the most bytes live at one step, by a sweep over a difference array of the
 * steps, and the highest pinned end, rounded up to the largest alignment. */
guint64 place_bound(const PlaceProblem *p)
{
    guint steps = MAX(p->steps, 1);
    for (guint u = 0; u < p->units->len; u++)
        steps = MAX(steps, g_array_index(p->units, PlaceUnit, u).last + 1);
    guint64 *delta = g_new0(guint64, (gsize)steps + 1), align = 1, most = 0, pinned = 0;
    for (guint u = 0; u < p->units->len; u++) { /* unsigned wrap-around adds and takes back exactly */
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        delta[unit->first] += unit->size;
        delta[unit->last + 1] -= unit->size;
        align = MAX(align, unit->align);
        if (unit->fixed != TRACE_NONE)
            pinned = MAX(pinned, (guint64)unit->fixed + unit->size);
    }
    for (guint64 t = 0, live = 0; t < steps; t++) {
        live += delta[t];
        most = MAX(most, live);
    }
    g_free(delta);
    return round_up(MAX(most, pinned), align);
}

GPtrArray *place_time_parts(const PlaceProblem *p, gboolean with_fixed)
{
    guint n = p->units->len, steps = p->steps;
    for (guint u = 0; u < n; u++)
        steps = MAX(steps, g_array_index(p->units, PlaceUnit, u).first + 1);
    /* The units by first step (ties in unit order): a counting sort, O(n + steps) — an insertion sort took
     * minutes on a million units that were not already in order. */
    guint *from = g_new0(guint, (gsize)steps + 1), *order = g_new(guint, n + 1);
    for (guint u = 0; u < n; u++)
        if (with_fixed || g_array_index(p->units, PlaceUnit, u).fixed == TRACE_NONE)
            from[g_array_index(p->units, PlaceUnit, u).first + 1]++;
    for (guint t = 0; t < steps; t++)
        from[t + 1] += from[t];
    guint cnt = from[steps];
    for (guint u = 0; u < n; u++)
        if (with_fixed || g_array_index(p->units, PlaceUnit, u).fixed == TRACE_NONE)
            order[from[g_array_index(p->units, PlaceUnit, u).first]++] = u;
    g_free(from);
    GPtrArray *parts = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    /* Sweep the furthest last step. */
    GArray *cur = NULL;
    guint reach = 0;
    for (guint i = 0; i < cnt; i++) {
        const PlaceUnit *x = &g_array_index(p->units, PlaceUnit, order[i]);
        if (!cur || x->first > reach) {
            cur = g_array_new(FALSE, FALSE, sizeof(guint));
            g_ptr_array_add(parts, cur);
            reach = x->last;
        }
        reach = MAX(reach, x->last);
        g_array_append_val(cur, order[i]);
    }
    g_free(order);
    return parts;
}

guint64 place_arena(const PlaceProblem *p, const guint64 *offsets)
{
    guint64 end = 0, align = 1;
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        end = MAX(end, offsets[u] + unit->size);
        align = MAX(align, unit->align);
    }
    return round_up(end, align);
}

guint64 place_sequential(const PlaceProblem *p, guint64 *offsets)
{
    guint64 cursor = 0, align = 1;
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        if (unit->fixed != TRACE_NONE)
            cursor = MAX(cursor, (guint64)unit->fixed + unit->size);
        align = MAX(align, unit->align);
    }
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        if (unit->fixed != TRACE_NONE)
            continue;
        guint64 at = round_up(cursor, unit->align);
        if (offsets)
            offsets[u] = at;
        cursor = at + unit->size;
    }
    return round_up(cursor, align);
}

/* ---------- online replay ---------- */

/* Sweeps here meet unit records in step or strategy order, not the order they are stored in (a trace need
 * not be sorted by start; deaths never are): each loop asks for the record it will read this many
 * iterations on, so the cache misses overlap instead of stalling one by one. */
#define PREFETCH_AHEAD 16

static gint range_cmp(gconstpointer a, gconstpointer b)
{
    const PlaceRange *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

GArray *place_pinned_ranges(const PlaceProblem *p)
{
    GArray *pins = g_array_new(FALSE, FALSE, sizeof(PlaceRange)), *merged = g_array_new(FALSE, FALSE, sizeof(PlaceRange));
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        if (unit->fixed != TRACE_NONE) {
            PlaceRange r = {(guint64)unit->fixed, (guint64)unit->fixed + unit->size};
            g_array_append_val(pins, r);
        }
    }
    g_array_sort(pins, range_cmp);
    for (guint k = 0; k < pins->len;) {
        PlaceRange r = g_array_index(pins, PlaceRange, k++);
        for (; k < pins->len && g_array_index(pins, PlaceRange, k).start <= r.end; k++)
            r.end = MAX(r.end, g_array_index(pins, PlaceRange, k).end);
        g_array_append_val(merged, r);
    }
    g_array_unref(pins);
    return merged;
}

/* Units grouped by a step (their first or last): CSR arrays. */
static guint *bucket_units(const PlaceProblem *p, gboolean by_last, guint **starts_out)
{
    guint n = p->units->len, steps = p->steps;
    guint *starts = g_new0(guint, steps + 2);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        starts[(by_last ? unit->last : unit->first) + 1]++;
    }
    for (guint s = 0; s < steps; s++)
        starts[s + 1] += starts[s];
    guint *fill = g_memdup2(starts, (steps + 2) * sizeof(guint));
    guint *items = g_new(guint, n ? n : 1);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        items[fill[by_last ? unit->last : unit->first]++] = u;
    }
    g_free(fill);
    *starts_out = starts;
    return items;
}

/* The last byte a heuristic's units may end at before it gives up at the options' cutoff (G_MAXUINT64: none): an
 * arena is the highest end rounded up to the largest alignment A, so it reaches the cutoff c once an end passes
 * round_up(c, A) - A. */
static guint64 cutoff_end(const PlaceProblem *p)
{
    if (!p->options || !p->options->cutoff)
        return G_MAXUINT64;
    guint64 align = 1;
    for (guint u = 0; u < p->units->len; u++)
        align = MAX(align, g_array_index(p->units, PlaceUnit, u).align);
    return round_up(p->options->cutoff, align) - align;
}

static gboolean replay_online(const PlaceStrategy *s, const PlaceProblem *p, guint64 *offsets, GError **error)
{
    gpointer state = s->create(p->units);
    /* Pinned ranges are reserved for the whole run (merged where they overlap). */
    GArray *pins = place_pinned_ranges(p);
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < pins->len; k++) {
        PlaceRange r = g_array_index(pins, PlaceRange, k);
        if (!s->reserve(state, r.start, r.end - r.start)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s cannot reserve pinned range [%" G_GUINT64_FORMAT
                        ", %" G_GUINT64_FORMAT ")", s->name, r.start, r.end);
            ok = FALSE;
        }
    }
    g_array_unref(pins);
    guint *born_at, *die_at;
    guint *born = bucket_units(p, FALSE, &born_at), *die = bucket_units(p, TRUE, &die_at);
    const PlaceUnit *units = (const PlaceUnit *)(void *)p->units->data;
    guint n = p->units->len;
    gboolean timed = p->options && (p->options->deadline || p->options->stop);
    guint64 cutoff = cutoff_end(p), end = 0;
    for (guint step = 0; ok && step < p->steps && end <= cutoff; step++) {
        if (timed && (born_at[step] >> 12) != (born_at[step + 1] >> 12) && place_past_deadline(p->options)) {
            if (p->stats) /* past the deadline a portfolio gave it: no plan (the clock every 4,096 units) */
                p->stats->gave_up = TRUE;
            break;
        }
        for (guint k = born_at[step]; k < born_at[step + 1]; k++) {
            if (k + PREFETCH_AHEAD < n)
                __builtin_prefetch(&units[born[k + PREFETCH_AHEAD]]);
            guint u = born[k];
            if (units[u].fixed == TRACE_NONE) {
                offsets[u] = s->alloc(state, units[u].size, units[u].align);
                end = MAX(end, offsets[u] + units[u].size);
            }
        }
        if (G_UNLIKELY(end > cutoff) && p->stats) /* no better than the plan it would have to beat */
            p->stats->cut = TRUE;
        for (guint k = die_at[step]; k < die_at[step + 1]; k++) {
            if (k + PREFETCH_AHEAD < n) {
                __builtin_prefetch(&units[die[k + PREFETCH_AHEAD]]);
                __builtin_prefetch(&offsets[die[k + PREFETCH_AHEAD]]);
            }
            guint u = die[k];
            if (units[u].fixed == TRACE_NONE)
                s->release(state, offsets[u], units[u].size);
        }
    }
    g_free(born);
    g_free(born_at);
    g_free(die);
    g_free(die_at);
    s->destroy(state);
    return ok;
}

gboolean place_problem(const PlaceStrategy *s, const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        offsets[u] = unit->fixed != TRACE_NONE ? (guint64)unit->fixed : 0;
    }
    if (s->kind == PLACE_ONLINE)
        return replay_online(s, p, offsets, error);
    return s->plan(p, offsets, detail, error);
}

/* Constraints of the input that no plan can meet are the input's fault, said before planning: pinned
 * buffers sharing bytes while both live, and members of one rigid group overlapping while both live. */
static gboolean check_constraints(const Trace *t, GError **error)
{
    Trace *pins = trace_new(t->source);
    GArray *pin_offsets = g_array_new(FALSE, FALSE, sizeof(guint64));
    GHashTable *groups = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)trace_free);
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        if (b->fixed != TRACE_NONE) {
            guint id = trace_add(pins, b->name, b->size, 1, b->first, b->last);
            /* with tiers a pin's arena is the one tier it names (trace_tiers_validate) */
            trace_buffer(pins, id)->bin = t->tiers ? (guint)g_bit_nth_lsf(b->tiers, -1) : b->bin;
            guint64 off = (guint64)b->fixed;
            g_array_append_val(pin_offsets, off);
        }
        if (b->group != TRACE_NONE) {
            Trace *g = g_hash_table_lookup(groups, &b->group);
            if (!g) {
                g = trace_new(t->source);
                g_hash_table_insert(groups, g_memdup2(&b->group, sizeof(gint64)), g);
            }
            guint id = trace_add(g, b->name, b->size, 1, b->first, b->last);
            trace_buffer(g, id)->fixed = (gint64)b->group_offset; /* the member's place within the group */
        }
    }
    pins->steps = t->steps;
    gboolean ok = TRUE;
    GError *why = NULL;
    if (!verify_offsets(pins, (guint64 *)(void *)pin_offsets->data, NULL, &why)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "the trace pins two buffers onto the same bytes: %s",
                    why->message + strlen("plan is wrong: "));
        ok = FALSE;
    }
    g_clear_error(&why);
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, groups);
    while (ok && g_hash_table_iter_next(&it, &key, &value)) {
        Trace *g = value;
        g->steps = t->steps;
        guint64 *offs = g_new(guint64, trace_count(g) + 1);
        for (guint k = 0; k < trace_count(g); k++)
            offs[k] = (guint64)trace_buffer(g, k)->fixed;
        if (!verify_offsets(g, offs, NULL, &why)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "group %" G_GINT64_FORMAT " lays two live members on the same bytes: %s",
                        *(const gint64 *)key, why->message + strlen("plan is wrong: "));
            ok = FALSE;
        }
        g_clear_error(&why);
        g_free(offs);
    }
    g_hash_table_unref(groups);
    g_array_unref(pin_offsets);
    trace_free(pins);
    return ok;
}

Plan *place_run(const PlaceStrategy *s, const Trace *t, GError **error)
{
    return place_run_with(s, t, NULL, error);
}

/* A tiered trace (Trace.tiers): one problem of every buffer, its units' tiers and costs, one tier-aware strategy
 * choosing (tier, offset) per unit; each tier is then an arena, as a bin is. */
static Plan *place_run_tiered(const PlaceStrategy *s, const Trace *t, const PlaceOptions *options, GError **error)
{
    static const PlaceOptions defaults = PLACE_OPTIONS_DEFAULTS;
    if (!s->plan_tiers) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "strategy %s places one arena and does not choose tiers; with "
                    "--tiers use a tier-aware strategy (sim --list marks them [--tiers])", s->name);
        return NULL;
    }
    BinProblem bp;
    if (!build_bin(t, G_MAXUINT, &bp, error)) {
        bin_problem_clear(&bp);
        return NULL;
    }
    guint n = bp.problem.units->len, count = t->tiers->len;
    guint32 *allowed = g_new0(guint32, n + 1);
    double *cost = g_new0(double, (gsize)n * count + 1);
    guint64 *traffic = g_new0(guint64, n + 1);
    for (guint k = 0; k < bp.buffers->len; k++) {
        const TraceBuffer *b = trace_buffer(t, g_array_index(bp.buffers, guint, k));
        guint u = bp.unit_of[k];
        allowed[u] = trace_tiers_allowed(t, b); /* one mask per group (trace_tiers_validate) */
        traffic[u] += b->reads + b->writes;
        for (guint j = 0; j < count; j++)
            cost[(gsize)u * count + j] += trace_tier_cost(t->tiers, j, b);
    }
    /* What the strategies see of the tiers: each capacity cut down to the largest alignment, since a tier's arena is
     * its highest end rounded up to it (plan.h) and must stay within the capacity. */
    GArray *usable = trace_tiers_copy(t->tiers);
    guint64 largest = 1;
    for (guint u = 0; u < n; u++)
        largest = MAX(largest, g_array_index(bp.problem.units, PlaceUnit, u).align);
    for (guint j = 0; j < count; j++) {
        TraceTier *tier = &g_array_index(usable, TraceTier, j);
        if (tier->capacity != TRACE_TIER_UNBOUNDED)
            tier->capacity -= tier->capacity % largest;
    }
    /* a buffer larger than every tier it may use: no strategy can place it, said by its name */
    for (guint k = 0; k < bp.buffers->len; k++) {
        guint id = g_array_index(bp.buffers, guint, k);
        const PlaceUnit *unit = &g_array_index(bp.problem.units, PlaceUnit, bp.unit_of[k]);
        gboolean fits = FALSE;
        for (guint j = 0; j < count && !fits; j++)
            fits = (allowed[bp.unit_of[k]] & (1u << j)) && unit->size <= trace_tier(usable, j)->capacity;
        if (!fits) {
            GString *tiers_said = g_string_new(NULL);
            for (guint j = 0; j < count; j++)
                if (allowed[bp.unit_of[k]] & (1u << j))
                    g_string_append_printf(tiers_said, "%s%s (%" G_GUINT64_FORMAT " bytes)",
                                           tiers_said->len ? ", " : "", trace_tier(t->tiers, j)->name,
                                           trace_tier(t->tiers, j)->capacity);
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "buffer %u '%s' (%" G_GUINT64_FORMAT " bytes%s) is "
                        "larger than every tier it may use: %s", id, trace_buffer(t, id)->name, unit->size,
                        trace_buffer(t, id)->group != TRACE_NONE ? " with its group" : "", tiers_said->str);
            g_string_free(tiers_said, TRUE);
            g_array_unref(usable);
            g_free(allowed);
            g_free(cost);
            g_free(traffic);
            bin_problem_clear(&bp);
            return NULL;
        }
    }
    PlaceTiers tiers = {usable, count, allowed, cost, traffic, 0, FALSE, NULL};
    PlaceStats stats = {0};
    bp.problem.tiers = &tiers;
    bp.problem.options = options ? options : &defaults;
    bp.problem.stats = &stats;
    bp.problem.bound = place_bound(&bp.problem);
    double *inside = g_new0(double, n + 1);
    TierBound bound = tier_bound_compute(&bp.problem, 0, inside);
    tiers.bound = bound.cost;
    tiers.bound_cut = bound.cut_short;
    tiers.inside = inside;
    guint *unit_tier = g_new0(guint, n + 1);
    guint64 *unit_offsets = g_new0(guint64, n + 1);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(bp.problem.units, PlaceUnit, u);
        unit_offsets[u] = unit->fixed != TRACE_NONE ? (guint64)unit->fixed : 0;
        unit_tier[u] = (guint)g_bit_nth_lsf(allowed[u], -1);
    }
    Plan *plan = g_new0(Plan, 1);
    plan->strategy = s;
    gint64 start = g_get_monotonic_time();
    gboolean ok = s->plan_tiers(&bp.problem, unit_tier, unit_offsets, &plan->detail, error);
    plan->seconds = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
    if (ok) {
        plan->offsets = g_new0(guint64, trace_count(t) + 1);
        plan->tier = g_new0(guint, trace_count(t) + 1);
        plan->bins = count;
        plan->bin_arena = g_new0(guint64, count);
        guint64 *align = g_new0(guint64, count);
        for (guint k = 0; k < bp.buffers->len; k++) {
            guint id = g_array_index(bp.buffers, guint, k), u = bp.unit_of[k];
            plan->offsets[id] = unit_offsets[u] + bp.member_offset[k];
            plan->tier[id] = unit_tier[u];
        }
        for (guint u = 0; u < n; u++) {
            const PlaceUnit *unit = &g_array_index(bp.problem.units, PlaceUnit, u);
            guint j = MIN(unit_tier[u], count - 1);
            plan->bin_arena[j] = MAX(plan->bin_arena[j], unit_offsets[u] + unit->size);
            align[j] = MAX(align[j], unit->align);
        }
        for (guint j = 0; j < count; j++) {
            plan->bin_arena[j] = round_up(plan->bin_arena[j], align[j]);
            plan->arena += plan->bin_arena[j];
        }
        g_free(align);
        plan->lower_bound = trace_lower_bound(t);
        plan->naive_arena = place_sequential(&bp.problem, NULL);
        plan->stats = stats;
        plan->stats.proven = FALSE;
        plan->tier_bound = bound.cost;
        plan->tier_bound_cut = bound.cut_short;
    }
    g_free(unit_tier);
    g_free(unit_offsets);
    g_free(allowed);
    g_free(cost);
    g_free(traffic);
    g_free(inside);
    g_array_unref(usable);
    bin_problem_clear(&bp);
    if (!ok) {
        plan_free(plan);
        return NULL;
    }
    return plan;
}

Plan *place_run_with(const PlaceStrategy *s, const Trace *t, const PlaceOptions *options, GError **error)
{
    static const PlaceOptions defaults = PLACE_OPTIONS_DEFAULTS;
    gint64 began = g_get_monotonic_time();
    if (!trace_validate(t, error) || !check_constraints(t, error))
        return NULL;
    if (t->tiers)
        return place_run_tiered(s, t, options, error);
    Plan *plan = g_new0(Plan, 1);
    plan->strategy = s;
    plan->offsets = g_new0(guint64, trace_count(t) + 1);
    plan->bins = trace_bins(t);
    plan->bin_arena = g_new0(guint64, plan->bins);
    plan->lower_bound = trace_lower_bound(t);
    gboolean ok = TRUE;
    for (guint bin = 0; ok && bin < plan->bins; bin++) {
        BinProblem bp;
        ok = build_bin(t, bin, &bp, error);
        /* The budget in seconds counts from the start of planning: checking the trace and building each bin's
         * problem come out of it (on a million buffers, a twentieth of a second), and so do earlier bins */
        PlaceOptions timed = *(options ? options : &defaults);
        timed.budget_seconds = MAX(timed.budget_seconds - (double)(g_get_monotonic_time() - began) / G_USEC_PER_SEC, 0.0);
        bp.problem.options = &timed;
        PlaceStats stats = {0};
        bp.problem.stats = &stats;
        bp.problem.bound = ok ? place_bound(&bp.problem) : 0;
        guint64 *unit_offsets = g_new0(guint64, bp.problem.units->len + 1);
        char *detail = NULL;
        gint64 start = g_get_monotonic_time();
        ok = ok && place_problem(s, &bp.problem, unit_offsets, &detail, error);
        if (ok && stats.gave_up) { /* only a portfolio sets a deadline; run alone, giving up leaves no plan */
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s stopped unfinished at the deadline it was given: "
                        "no plan", s->name);
            ok = FALSE;
        }
        if (ok && stats.cut) { /* a cutoff, likewise */
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s stopped at the cutoff it was given (%"
                        G_GUINT64_FORMAT " B): no plan", s->name, timed.cutoff);
            ok = FALSE;
        }
        plan->seconds += (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
        if (ok) {
            for (guint k = 0; k < bp.buffers->len; k++)
                plan->offsets[g_array_index(bp.buffers, guint, k)] = unit_offsets[bp.unit_of[k]] + bp.member_offset[k];
            plan->bin_arena[bin] = place_arena(&bp.problem, unit_offsets);
            plan->arena += plan->bin_arena[bin];
            plan->naive_arena += place_sequential(&bp.problem, NULL);
            plan->stats.nodes += stats.nodes;
            plan->stats.steps += stats.steps;
            /* proven for the whole plan when every bin is: by a strategy's proof, or at its bound */
            stats.proven = stats.proven || plan->bin_arena[bin] <= bp.problem.bound;
            plan->stats.proven = (bin == 0 || plan->stats.proven) && stats.proven;
        }
        if (detail) {
            char *joined = plan->detail ? g_strdup_printf("%s; %s", plan->detail, detail) : g_strdup(detail);
            g_free(plan->detail);
            plan->detail = joined;
            g_free(detail);
        }
        g_free(unit_offsets);
        bin_problem_clear(&bp);
    }
    if (!ok) {
        plan_free(plan);
        return NULL;
    }
    return plan;
}

static gboolean is_timed(const PlaceStrategy *s) { return s->role == ROLE_IMPROVER || s->role == ROLE_EXACT; }

/* The order a portfolio tries the strategies of one role in (indices into the portfolio; returns how many). The
 * heuristics: the online ones as listed (the cheapest passes: under a budget of seconds, the plans that get made),
 * then the offline ones from the last listed to the first; whichever wins, the incumbent cuts the later ones
 * short (PlaceOptions.cutoff), so the likelier winners go early. Other roles: as listed. */
static guint try_order(const PlaceStrategy *const *portfolio, guint count, PlaceRole role, guint *tries)
{
    guint n = 0;
    for (guint k = 0; k < count; k++)
        if (portfolio[k]->role == role && (role != ROLE_HEURISTIC || portfolio[k]->kind == PLACE_ONLINE))
            tries[n++] = k;
    for (guint k = count; role == ROLE_HEURISTIC && k-- > 0;)
        if (portfolio[k]->role == role && portfolio[k]->kind != PLACE_ONLINE)
            tries[n++] = k;
    return n;
}

gboolean place_keep_smallest(const PlaceProblem *p, gboolean (*take)(const PlaceStrategy *s, const PlaceProblem *p),
                             guint64 *offsets, const PlaceStrategy **winner, guint64 *arena, char **skipped,
                             GError **error)
{
    const PlaceStrategy *const *portfolio = p->options ? p->options->portfolio : NULL;
    *winner = NULL;
    *arena = G_MAXUINT64;
    if (skipped)
        *skipped = NULL;
    if (!portfolio) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "no strategies to choose from (PlaceOptions.portfolio is unset)");
        return FALSE;
    }
    GString *not_started = g_string_new(NULL), *unfinished = g_string_new(NULL);
    guint n = p->units->len;
    guint64 *trial = g_new(guint64, n + 1);
    /* The heuristics first, then the exact search, then the improvers: each time-bounded one starts only
     * while no plan has reached the bound (and none is proven), so a portfolio whose heuristics are at the
     * bound ends after them. One budget for the whole portfolio: in seconds, the time-bounded candidates
     * share what is left when each starts, split evenly among those still to come (time one leaves unused
     * passes on); in work (budget_work), each gets an even share of the whole, the same on any machine. A
     * heuristic starts only while seconds are left (or when none has run yet): on huge inputs one of them can
     * take seconds, and the budget bounds the whole. */
    gint64 deadline = g_get_monotonic_time() + (gint64)(p->options->budget_seconds * G_USEC_PER_SEC);
    guint timed_left = 0, timed_all;
    for (guint k = 0; portfolio[k]; k++)
        timed_left += take(portfolio[k], p) && is_timed(portfolio[k]);
    timed_all = timed_left;
    PlaceStats stats = {0};
    static const PlaceRole passes[] = {ROLE_BASELINE, ROLE_HEURISTIC, ROLE_EXACT, ROLE_IMPROVER};
    guint count = 0, winner_k = 0;
    while (portfolio[count])
        count++;
    guint *tries = g_new(guint, count + 1);
    for (guint pass = 0; pass < G_N_ELEMENTS(passes); pass++) {
        guint n_tries = try_order(portfolio, count, passes[pass], tries);
        for (guint t = 0; t < n_tries; t++) {
            guint k = tries[t];
            const PlaceStrategy *s = portfolio[k];
            if (!take(s, p))
                continue;
            PlaceOptions share = *p->options;
            PlaceProblem sub = *p;
            sub.stats = &stats;
            sub.options = &share;
            share.deadline = *winner ? deadline : 0; /* every candidate but the first gives up at the end */
            /* A heuristic stops once it cannot win: at the incumbent's arena, or past it when it would win a tie
             * (the strategy listed first wins a tie, whatever order they ran in). */
            share.cutoff = *winner && !is_timed(s) ? *arena + (k < winner_k) : 0;
            if (is_timed(s)) {
                gint64 left = deadline - g_get_monotonic_time();
                share.budget_seconds = (double)MAX(left, 0) / G_USEC_PER_SEC / timed_left--;
                if (p->options->budget_work)
                    share.budget_work = MAX(p->options->budget_work / timed_all, 1);
                if (*arena <= p->bound || stats.proven)
                    continue; /* a plan is already the smallest possible: nothing to search for */
                if (left <= 0 || left < stats.pass_us || place_stop_requested(p->options))
                    continue; /* the heuristics ran; nothing left for this one (less than a heuristic took: its
                               * own first pass, climb's start or search's tables, would end past the
                               * deadline), or told to stop */
            } else if (*winner && deadline - g_get_monotonic_time() < stats.pass_us) {
                /* a million units: the heuristics alone can outlast the budget; the first always runs, and a
                 * later one only while the time left is at least the longest one before it took (started with
                 * less, it would give up past the deadline, by what it spent sorting and indexing before its
                 * first look at the clock) */
                g_string_append_printf(not_started, "%s%s", not_started->len ? ", " : "", s->name);
                continue;
            }
            char *ignored = NULL;
            gboolean proven_before = stats.proven;
            stats.proven = stats.gave_up = stats.cut = FALSE;
            gint64 began = g_get_monotonic_time();
            if (!place_problem(s, &sub, trial, &ignored, error)) {
                g_string_free(not_started, TRUE);
                g_string_free(unfinished, TRUE);
                g_free(trial);
                g_free(tries);
                return FALSE;
            }
            g_free(ignored);
            if (stats.cut) { /* it could not beat the incumbent */
                stats.proven = proven_before;
                continue;
            }
            if (!is_timed(s) && !stats.gave_up)
                stats.pass_us = MAX(stats.pass_us, g_get_monotonic_time() - began);
            if (stats.gave_up) { /* stopped unfinished at the deadline: no plan, named with the skipped */
                stats.proven = proven_before;
                g_string_append_printf(unfinished, "%s%s", unfinished->len ? ", " : "", s->name);
                continue;
            }
            guint64 a = place_arena(p, trial);
            if (a < *arena || (a == *arena && k < winner_k)) {
                *arena = a;
                *winner = s;
                winner_k = k;
                memcpy(offsets, trial, n * sizeof(guint64));
            }
            /* a proof holds for the smallest arena: it says nothing smaller exists */
            stats.proven = proven_before || (stats.proven && a == *arena);
        }
    }
    if (p->stats) {
        p->stats->nodes += stats.nodes;
        p->stats->steps += stats.steps;
        p->stats->proven = p->stats->proven || stats.proven || *arena <= p->bound;
        p->stats->pass_us = MAX(p->stats->pass_us, stats.pass_us);
    }
    if (skipped && (unfinished->len || not_started->len))
        *skipped = !unfinished->len ? g_strdup_printf("not started, budget spent: %s", not_started->str)
                   : !not_started->len ? g_strdup_printf("stopped unfinished, budget spent: %s", unfinished->str)
                   : g_strdup_printf("stopped unfinished, budget spent: %s; not started: %s", unfinished->str,
                                     not_started->str);
    g_string_free(not_started, TRUE);
    g_string_free(unfinished, TRUE);
    g_free(trial);
    g_free(tries);
    return TRUE;
}

/* ---------- offline helpers ---------- */

/* How far ahead in the order place_in_order looks for a unit to find alongside the current one. */
#define PARTNER_WINDOW 8

/* The position, in order[k + 1, k + PARTNER_WINDOW], of the first unit not yet placed (taken) nor fixed whose
 * lifetime meets neither u's (order[k]) nor that of any unplaced unit before it in that stretch; n when none.
 * Placing that unit now, before those, changes no offset: a unit's place depends only on the placed units whose
 * lifetimes meet its own. Greedy-size's order gives most units such a partner next to them; greedy-breadth's puts
 * the units of one step together, every two of them meeting, so its partners come from the next step's. */
static guint partner_of(const PlaceProblem *p, const guint *order, guint n, guint k, const guint8 *taken)
{
    const PlaceUnit *u = &g_array_index(p->units, PlaceUnit, order[k]), *between[PARTNER_WINDOW];
    guint count = 0;
    for (guint j = k + 1; j < n && j <= k + PARTNER_WINDOW; j++) {
        const PlaceUnit *v = &g_array_index(p->units, PlaceUnit, order[j]);
        if (taken[j] || v->fixed != TRACE_NONE)
            continue;
        gboolean free = !place_units_meet(u, v);
        for (guint b = 0; free && b < count; b++)
            free = !place_units_meet(between[b], v);
        if (free)
            return j;
        between[count++] = v;
    }
    return n;
}

gboolean place_in_order(const PlaceProblem *p, const guint *order, guint n, GapPolicy policy, guint64 *offsets)
{
    PlacedIndex *x = placed_index_new(p, offsets);
    guint hinted = 0; /* order[0, hinted) have had their lists hinted: the next two units' at each step */
    gboolean timed = p->options && (p->options->deadline || p->options->stop);
    guint64 cutoff = cutoff_end(p), end = 0;
    guint8 *taken = g_new0(guint8, (gsize)n + 1); /* positions placed ahead of their turn, as partners */
    for (guint k = 0; k < n; k++) {
        if (timed && (k & 4095) == 0 && place_past_deadline(p->options)) { /* the clock: 30 ns per 4096 units */
            placed_index_free(x);
            g_free(taken);
            return FALSE;
        }
        if (k + PREFETCH_AHEAD < n)
            __builtin_prefetch(&g_array_index(p->units, PlaceUnit, order[k + PREFETCH_AHEAD]));
        for (; hinted < MIN(k + 3, n); hinted++)
            placed_index_prefetch(x, order[hinted]);
        guint u = order[k];
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        if (taken[k] || unit->fixed != TRACE_NONE)
            continue;
        guint j = partner_of(p, order, n, k, taken);
        if (j < n) { /* found alongside (placed-index.c) */
            guint v = order[j];
            placed_index_find_pair(x, u, v, policy, &offsets[u], &offsets[v]);
            placed_index_add(x, u, offsets[u]);
            placed_index_add(x, v, offsets[v]);
            taken[j] = TRUE;
            end = MAX(end, offsets[v] + g_array_index(p->units, PlaceUnit, v).size);
        } else {
            offsets[u] = placed_index_find(x, u, policy);
            placed_index_add(x, u, offsets[u]);
        }
        end = MAX(end, offsets[u] + unit->size);
        if (G_UNLIKELY(end > cutoff)) { /* no better than the plan it would have to beat */
            if (p->stats)
                p->stats->cut = TRUE;
            break;
        }
    }
    placed_index_free(x);
    g_free(taken);
    return end <= cutoff;
}

gboolean place_in_order_or_give_up(const PlaceProblem *p, const guint *order, guint n, GapPolicy policy,
                                   guint64 *offsets)
{
    if (place_in_order(p, order, n, policy, offsets))
        return TRUE;
    if (p->stats && !p->stats->cut)
        p->stats->gave_up = TRUE;
    return FALSE;
}

/* Byte d of a key's sort order, least significant first: the unit id's 4 bytes (ascending), then minor's 8 and
 * major's 8 (descending: their complements ascending). */
static inline guint key_digit(const PlaceKey *k, guint d)
{
    if (d < 4)
        return (k->unit >> (8 * d)) & 0xff;
    guint64 v = d < 12 ? ~k->minor : ~k->major;
    return (guint)(v >> (8 * ((d - 4) % 8))) & 0xff;
}

#define KEY_DIGITS 20

/* Sorts keys by major, largest first, then minor, largest first, then unit id (a total order) by least significant
 * digit first: one pass counts every byte's values, then a stable pass per byte whose values differ (a million keys of
 * sizes, lifetimes and ids: five or six passes), the unit id's left out when the keys come in its order (as every
 * order here makes them). The clock is read between passes: FALSE when past the options' deadline (the keys then in
 * no particular order), so a heuristic a portfolio starts late gives up within milliseconds. Beside qsort, a
 * tenth of a second less of greedy-size's place phase on a 1M-buffer trace (results/history.md). */
static gboolean place_keys_sort(const PlaceOptions *o, PlaceKey *keys, gsize n)
{
    if (n < 2)
        return TRUE;
    gboolean by_unit = TRUE, timed = o && (o->deadline || o->stop);
    for (gsize k = 1; k < n && by_unit; k++)
        by_unit = keys[k - 1].unit < keys[k].unit;
    typedef gsize Counts[256];
    Counts *count = g_new0(Counts, KEY_DIGITS);
    for (gsize k = 0; k < n; k++)
        for (guint d = by_unit ? 4 : 0; d < KEY_DIGITS; d++)
            count[d][key_digit(&keys[k], d)]++;
    PlaceKey *from = keys, *to = g_new(PlaceKey, n);
    gboolean ok = TRUE;
    for (guint d = by_unit ? 4 : 0; d < KEY_DIGITS && ok; d++) {
        if (count[d][key_digit(&keys[0], d)] == n)
            continue; /* every key has this byte: the pass would change nothing */
        if (timed && place_past_deadline(o)) {
            ok = FALSE;
            break;
        }
        gsize at[256], sum = 0;
        for (guint v = 0; v < 256; v++) {
            at[v] = sum;
            sum += count[d][v];
        }
        for (gsize k = 0; k < n; k++)
            to[at[key_digit(&from[k], d)]++] = from[k];
        PlaceKey *swap = from;
        from = to;
        to = swap;
    }
    if (ok && from != keys)
        memcpy(keys, from, n * sizeof(PlaceKey));
    g_free(from == keys ? to : from);
    g_free(count);
    return ok;
}

gboolean place_order_by_keys(const PlaceProblem *p, PlaceKey *keys, guint n, guint *order)
{
    gboolean ok = place_keys_sort(p->options, keys, n);
    for (guint k = 0; ok && k < n; k++)
        order[k] = keys[k].unit;
    if (!ok && p->stats)
        p->stats->gave_up = TRUE;
    return ok;
}

gboolean place_order_by_size(const PlaceProblem *p, guint *order)
{
    guint n = p->units->len;
    PlaceKey *keys = g_new(PlaceKey, n ? n : 1);
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        keys[u] = (PlaceKey){unit->size, unit->last - unit->first, u};
    }
    gboolean ok = place_order_by_keys(p, keys, n, order);
    g_free(keys);
    return ok;
}

typedef struct {
    GCompareDataFunc cmp;
    gpointer data;
} SortCtx;

static gint sort_units(gconstpointer a, gconstpointer b, gpointer data)
{
    const SortCtx *c = data;
    gint r = c->cmp(a, b, c->data);
    if (r)
        return r;
    guint x = *(const guint *)a, y = *(const guint *)b;
    return x < y ? -1 : x > y; /* final tie: unit id, so every order is total and deterministic */
}

void place_sort(guint *order, guint n, GCompareDataFunc cmp, gpointer data)
{
    SortCtx c = {cmp, data};
    g_qsort_with_data(order, (gint)n, sizeof(guint), sort_units, &c);
}
