/* search-sections.c — MiniMalloc's search (Moffitt, ASPLOS'23) as its paper and published solver describe
 * it, our own implementation (facts only), run on the state the skyline search keeps (search.h):
 *  - a buffer goes at its minimum offset: the highest top among placed buffers it shares a step with (the
 *    unit's peak, aligned); buffers are placed in non-decreasing (offset, preorder rank) — canonical
 *    solutions, so every later placement is at or above the last one's offset;
 *  - dominance: no buffer at or above the lowest top any unplaced buffer could reach now (that one fits
 *    under it and would come first in a canonical order);
 *  - section inference: at every step, max(last offset, the lowest minimum offset among the unplaced
 *    units live there) plus their bytes must fit under the target;
 *  - hatless pruning: a buffer with nothing unplaced over it in time constrains no other; once its
 *    subtree failed, placing another first cannot help (the buffer would still go where it went);
 *  - dynamic decomposition: a boundary no unplaced unit crosses splits the rest into pieces solved alone,
 *    each from offset 0.
 * It is the engine of the strategy `minimalloc` (the peer the search is measured against, bench/search.sh)
 * and of some of `search`'s restarts. */
#include "strategies/search/search.h"

#include <stdlib.h>

typedef struct {
    guint64 off;
    guint rank;
    guint u;
} Candidate;

static inline guint64 min_offset(const Search *s, guint u)
{
    return s->unaligned ? s->peak[u] : round_up(s->peak[u], unit(s, u)->align);
}

static int by_offset_then_rank(const void *a, const void *b)
{
    const Candidate *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Section inference, first half: every later placement is at off or higher, so off plus the bytes left at
 * any step must fit. The steps of [lo, hi) where they do not, before the placement, span [*p, *q] (*p > *q:
 * none); the unit placed at off must cover all of them, and take enough away there (checked after). */
static void overfull_span(const Search *s, guint lo, guint hi, guint64 off, guint *p, guint *q)
{
    *p = G_MAXUINT;
    *q = 0;
    for (guint t = lo; t < hi; t++)
        if (off + s->left[t] > s->target) {
            *p = MIN(*p, t);
            *q = t;
        }
}

/* Section inference after x's placement at offset off: the overfull span [p, q] now fits; and at the steps
 * whose floor (the lowest minimum offset among the unplaced units live there) can have changed — x's
 * lifetime and those of the units x raised (peak_undo from mark) — that floor plus the bytes left must
 * fit. Elsewhere neither the floor nor the bytes changed since the check that let the parent node through.
 * With our inferences, the same steps are judged by stacking inference too (search_stacks_fit: every release
 * level, not only the floor; where search_stacks_fit_after would judge them). */
static gboolean sections_fit(const Search *s, guint lo, guint hi, guint64 off, guint p, guint q, const PlaceUnit *x,
                             guint mark)
{
    for (guint t = p; t <= q; t++)
        if (off + s->left[t] > s->target)
            return FALSE;
    guint from = x->first, to = x->last;
    for (guint k = mark; k < s->peak_undo_len; k++) {
        const PlaceUnit *y = unit(s, s->peak_undo[k].u);
        from = MIN(from, y->first);
        to = MAX(to, y->last);
    }
    for (guint t = MAX(from, lo); t <= to && t < hi; t++) {
        if (!s->left[t])
            continue;
        if (s->left[t] > s->target)
            return FALSE;
        /* the floor plus the bytes left fits when some unplaced unit's minimum offset is at most cap: the scan
         * stops at the first */
        guint64 cap = s->target - s->left[t];
        gboolean floor_fits = FALSE;
        /* from the lists' ends: each is in candidate order, so the units placed are mostly at its start */
        SearchSlice live[SEARCH_SLICES_MAX];
        for (guint i = search_live_at(s, t, live); i > 0 && !floor_fits; i--)
            for (guint k = live[i - 1].len; k > 0 && !floor_fits; k--)
                floor_fits = !s->placed[live[i - 1].at[k - 1]] && min_offset(s, live[i - 1].at[k - 1]) <= cap;
        if (!floor_fits ||
            (s->sections_ours && s->stacking && s->left_last[t] && off + x->size + s->left[t] > s->target &&
             !search_stacks_fit(s, t, off)))
            return FALSE;
    }
    return TRUE;
}

/* Our inferences over the skyline (search-infer.c), after x's placement: every placement here also sits
 * on the skyline, so what they cut cannot complete here either. */
static gboolean skyline_inferences(const Search *s, guint lo, guint hi, const PlaceUnit *x)
{
    Window w = search_changed_window(s, lo, hi, x->first, x->last);
    guint64 top = s->h[x->first];
    return search_columns_can_fill(s, lo, hi, w) && search_floors_supported(s, w) && search_layers_tiled(s, lo, hi, x->first, x->last, s->target) &&
           (x->first == lo || s->h[x->first - 1] >= top || search_layers_tiled(s, lo, hi, x->first - 1, x->first - 1, top)) &&
           (x->last + 1 >= hi || s->h[x->last + 1] >= top || search_layers_tiled(s, lo, hi, x->last + 1, x->last + 1, top));
}

/* Raises the minimum offsets of the unplaced units sharing a step with x (placed at off) to its top,
 * recorded in peak_undo; FALSE when there are none (x is hatless). */
static gboolean raise_overlapping(Search *s, guint u, guint64 top)
{
    const PlaceUnit *x = unit(s, u);
    gboolean hat = FALSE;
    SearchSlice near[SEARCH_SLICES_MAX];
    for (guint i = 0, slices = search_units_overlapping(s, u, near); i < slices && !hat; i++)
        for (guint j = 0; j < near[i].len && !hat; j++) {
            const PlaceUnit *y = unit(s, near[i].at[j]);
            hat = !s->placed[near[i].at[j]] && y->size && y->first <= x->last && x->first <= y->last;
        }
    search_raise_peaks_of(s, u, top);
    return hat;
}

/* Lists of at most this many candidates are sorted by insertion. */
#define INSERTION_MAX 16

/* The node's candidates, sorted by (offset, rank), stacked at the top of s->candidates: the parent's list
 * (count entries from `from`) without the units placed or out of [lo, hi) — the ones whose minimum offset
 * rose since are sorted apart and merged back in, so a node costs a pass, not a sort; at a part's root
 * (count G_MAXUINT) every unit in range, sorted. Returns how many; *lowest_top: the lowest top any of them
 * could reach. */
static guint node_candidates(Search *s, guint lo, guint hi, guint from, guint count, guint64 *lowest_top)
{
    guint base = s->candidates->len;
    *lowest_top = G_MAXUINT64;
    if (count == G_MAXUINT) {
        for (guint k = 0; k < s->n; k++) {
            guint u = s->units[k];
            const PlaceUnit *x = unit(s, u);
            if (s->placed[u] || !x->size || x->first < lo || x->last >= hi)
                continue;
            Candidate c = {min_offset(s, u), s->rank[u], u};
            g_array_append_val(s->candidates, c);
            *lowest_top = MIN(*lowest_top, c.off + x->size);
        }
        count = s->candidates->len - base;
        if (count > 1)
            qsort(&g_array_index(s->candidates, Candidate, base), count, sizeof(Candidate), by_offset_then_rank);
        return count;
    }
    g_array_set_size(s->candidates, base + count); /* room for all; pointers taken after the resize */
    Candidate *parent = &g_array_index(s->candidates, Candidate, from), *out = &g_array_index(s->candidates, Candidate, base);
    g_array_set_size(s->moved, count); /* room for all */
    Candidate *m = (Candidate *)s->moved->data;
    guint kept = 0, moved = 0;
    /* Locals: the stores into the lists could alias anything read through s. */
    const PlaceUnit *units = s->unit_at;
    const gboolean *placed = s->placed;
    const guint64 *peak = s->peak;
    gboolean unaligned = s->unaligned;
    guint64 lowest = G_MAXUINT64;
    for (guint i = 0; i < count; i++) {
        Candidate c = parent[i];
        const PlaceUnit *x = &units[c.u];
        if (placed[c.u] || x->first < lo || x->last >= hi)
            continue;
        guint64 now = unaligned ? peak[c.u] : round_up(peak[c.u], x->align); /* min_offset */
        lowest = MIN(lowest, now + x->size);
        if (now == c.off) {
            out[kept++] = c;
        } else {
            c.off = now;
            m[moved++] = c;
        }
    }
    *lowest_top = lowest;
    guint total = kept + moved;
    if (moved > INSERTION_MAX)
        qsort(m, moved, sizeof(Candidate), by_offset_then_rank);
    else /* a few (the units x overlaps): insertion sort, without qsort's call per comparison */
        for (guint i = 1; i < moved; i++) {
            Candidate c = m[i];
            guint j = i;
            for (; j > 0 && by_offset_then_rank(&m[j - 1], &c) > 0; j--)
                m[j] = m[j - 1];
            m[j] = c;
        }
    for (guint i = kept, j = moved, k = total; j > 0;) /* merge from the back, in place */
        out[--k] = i > 0 && by_offset_then_rank(&out[i - 1], &m[j - 1]) > 0 ? out[--i] : m[--j];
    g_array_set_size(s->candidates, base + total);
    return total;
}

static gboolean sections_dfs(Search *s, guint lo, guint hi, guint64 after_off, guint after_rank, guint from,
                             guint count);

/* After x's placement: the steps between boundaries no unplaced unit crosses any more are solved alone.
 * The node's candidates (count from `from`) are the pieces' parent list. */
static gboolean sections_pieces(Search *s, guint lo, guint hi, const PlaceUnit *x, const Candidate *at, guint from,
                                guint count)
{
    gboolean cut = FALSE;
    for (guint c = x->first; c < x->last && !cut; c++)
        cut = s->cross[c] == 0;
    if (!cut)
        return sections_dfs(s, lo, hi, at->off, at->rank, from, count);
    guint piece = lo;
    for (guint c = x->first; c <= x->last; c++) {
        if (c < x->last && s->cross[c])
            continue;
        guint to = c < x->last ? c + 1 : hi;
        if (!sections_dfs(s, piece, to, 0, 0, from, count))
            return FALSE;
        piece = to;
    }
    return TRUE;
}

/* Places every unplaced unit living in [lo, hi) at or after (after_off, after_rank) in canonical order. */
static gboolean sections_dfs(Search *s, guint lo, guint hi, guint64 after_off, guint after_rank, guint from,
                             guint count)
{
    guint64 key = s->sections_ours ? search_state_key(s, lo, hi) ^ search_mix64(after_off * 0x9e3779b97f4a7c15ULL + after_rank + 0x5ec7) : 0;
    if (s->sections_ours && search_failed_before(s, key))
        return FALSE;
    guint base = s->candidates->len;
    guint64 lowest_top;
    count = node_candidates(s, lo, hi, from, count, &lowest_top);
    if (!count)
        return TRUE;
    if (!search_budget_left(s)) { /* after the check for a finished plan: one the budget's last node finished counts */
        g_array_set_size(s->candidates, base);
        return FALSE;
    }
    guint64 span_off = G_MAXUINT64; /* the offset the overfull span [p, q] is for */
    guint p = 0, q = 0;
    guint tried_unit[32], tried = 0;
    gboolean found = FALSE;
    for (guint i = 0; i < count && !found; i++) {
        Candidate c = g_array_index(s->candidates, Candidate, base + i); /* a copy: deeper nodes grow the array */
        if (c.off < after_off || (c.off == after_off && c.rank < after_rank))
            continue;
        if (c.off >= lowest_top)
            break; /* dominated, and so is every later candidate (sorted by offset) */
        const PlaceUnit *x = unit(s, c.u);
        if (c.off + x->size > s->target)
            continue;
        if (c.off != span_off) {
            overfull_span(s, lo, hi, c.off, &p, &q);
            span_off = c.off;
        }
        if (p <= q && (x->first > p || x->last < q))
            continue; /* an overfull step it does not cover */
        /* A twin (same size, alignment and lifetime, so the same minimum offset) of a unit already tried at
         * this node: its subtree is that one's with the two swapped (the earlier-ranked one may still go
         * later, at a higher offset). */
        gboolean twin = FALSE;
        for (guint j = 0; j < tried && !twin && s->sections_ours; j++) {
            const PlaceUnit *y = unit(s, tried_unit[j]);
            twin = y->size == x->size && y->align == x->align && y->first == x->first && y->last == x->last;
        }
        if (twin)
            continue;
        if (tried < G_N_ELEMENTS(tried_unit))
            tried_unit[tried++] = c.u;
        if (!search_budget_left(s))
            break;
        s->nodes++; /* a node is a placement tried (MiniMalloc's nodes try many each: the budget counts work) */
        s->placed[c.u] = TRUE;
        s->offsets[c.u] = c.off;
        search_count_unplaced(s, x, -1);
        guint peaks = s->peak_undo_len, skyline = s->skyline_undo->len;
        gboolean hatless = !raise_overlapping(s, c.u, c.off + x->size);
        for (guint t = x->first; t <= x->last && s->sections_ours; t++) { /* the skyline: our inferences and memo read it */
            g_array_append_val(s->skyline_undo, s->h[t]);
            s->h[t] = c.off + x->size;
        }
        found = sections_fit(s, lo, hi, c.off, p, q, x, peaks) && (!s->sections_ours || skyline_inferences(s, lo, hi, x)) &&
                sections_pieces(s, lo, hi, x, &c, base, count);
        for (guint t = x->first; t <= x->last && s->sections_ours; t++)
            s->h[t] = g_array_index(s->skyline_undo, guint64, skyline + t - x->first);
        g_array_set_size(s->skyline_undo, skyline);
        search_restore_peaks(s, peaks);
        search_count_unplaced(s, x, +1);
        s->placed[c.u] = FALSE;
        if (s->out_of_budget || hatless)
            break;
    }
    g_array_set_size(s->candidates, base);
    if (s->sections_ours && !found && !s->out_of_budget)
        search_remember_failed(s, key);
    return found;
}

gboolean search_sections_solve(Search *s, guint lo, guint hi)
{
    for (guint k = 0; k < s->n; k++) {
        s->rank[s->units[k]] = k;
        if (!unit(s, s->units[k])->size)
            s->offsets[s->units[k]] = 0; /* occupies nothing */
    }
    if (!s->candidates) {
        s->candidates = g_array_new(FALSE, FALSE, sizeof(Candidate));
        s->moved = g_array_new(FALSE, FALSE, sizeof(Candidate));
        s->skyline_undo = g_array_new(FALSE, FALSE, sizeof(guint64));
    }
    g_array_set_size(s->candidates, 0);
    return sections_dfs(s, lo, hi, 0, 0, 0, G_MAXUINT);
}
