/* placed-index.c — the placed units, indexed by lifetime, for the one query the offline planners make: the
 * addresses in use during [lo, hi] by every placed unit whose lifetime meets it (see place.h).
 *
 * Such a unit is either alive at lo or starts in (lo, hi]. Two trees over the steps, each node with FANOUT
 * children, answer the two parts: `alive` stores each unit at the O(log T) nodes that tile its lifetime, so
 * the nodes on the path from the root to lo's leaf hold exactly the units alive at lo; `starts` stores each
 * unit at its start's leaf and its ancestors, so the nodes that tile (lo, hi] hold exactly the units starting
 * there. Every node keeps the union of its units' address ranges, sorted and coalesced (placed units pack
 * tightly, so these lists stay short), and a query merges the lists it meets.
 *
 * Why eight children: the cost is in touching lists (cache misses on a 1M-buffer trace, where queries come
 * in size order, not time order) and in inserting into them. A binary tree put 18 lists on every query's
 * path and 18 insertions into `starts` per unit (131,072 steps); eight children make it 7 and at most 7,
 * for up to seven nodes per level per side in a tiling; eight measured fastest of two to sixteen on that
 * trace (results/history.md). How the merge picks the
 * lowest head (heap, scan, merge tree, or reading on while below the next head) made no difference once
 * the scan kept the lowest value in a register.
 *
 * Why two queries at once: a merge is one chain, each pick waiting on the load of the head the pick before
 * uncovered (~120 ranges a query on that trace), so the core idles between links. Two queries whose
 * lifetimes do not meet have answers that cannot depend on each other, and place_in_order hands such pairs
 * (most consecutive units of a size order) to placed_index_find_pair, which steps both merges by turns in
 * one loop, which shortened the place phase with identical plans. Four at a time through an array of merges
 * was slower: its state lived in memory, not registers.
 * The treap this replaced visited every unit starting within the longest lifetime before lo: 16,000 nodes a
 * query on a 1M-buffer trace. */
#include "plan/place.h"
#include "base/record-pool.h"
#include "plan/gap-use.h"

#include <string.h>

#define FANOUT_BITS 3
#define FANOUT (1u << FANOUT_BITS)

typedef struct {
    guint64 start, end;
} AddressRange;

/* A list's ranges lie in `at` as pairs of 32-bit addresses while every address the index has been given fits 32
 * bits (narrow), else as pairs of 64-bit ones (wide): placed_index_add widens every list once, at the first unit
 * that ends past 2^32. Narrow, a 1M-buffer trace's index took half the memory and the place phase a tenth less
 * time (results/history.md). The functions that touch ranges take `wide` as a constant, inlined into one copy per
 * width (the public functions pick it), so neither loop tests the width per range. */
typedef struct {
    void *at;
    guint len, size; /* ranges */
} RangeList;

static inline gsize range_bytes(gboolean wide) { return wide ? 2 * sizeof(guint64) : 2 * sizeof(guint32); }

static inline AddressRange range_at(const void *at, gsize i, gboolean wide)
{
    if (wide)
        return (AddressRange){((const guint64 *)at)[2 * i], ((const guint64 *)at)[2 * i + 1]};
    return (AddressRange){((const guint32 *)at)[2 * i], ((const guint32 *)at)[2 * i + 1]};
}

static inline guint64 range_start_at(const void *at, gsize i, gboolean wide)
{
    return wide ? ((const guint64 *)at)[2 * i] : ((const guint32 *)at)[2 * i];
}

static inline void range_set(void *at, gsize i, AddressRange r, gboolean wide)
{
    if (wide) {
        ((guint64 *)at)[2 * i] = r.start;
        ((guint64 *)at)[2 * i + 1] = r.end;
    } else {
        ((guint32 *)at)[2 * i] = (guint32)r.start;
        ((guint32 *)at)[2 * i + 1] = (guint32)r.end;
    }
}

/* The short lists' storage: blocks of 4 << k ranges, up to POOLED_RANGES, from one record pool per size
 * (base/record-pool.h). A list that outgrows its block hands it on to the next list that needs one of that
 * size; the pools go at once at the end. A 200k-node transformer stack's trace fills 295,000 lists, none
 * longer than 64: one malloc and one free each, on fresh pages scattered over the heap, were half its place
 * phase. Longer lists, whose header is nothing beside them, are malloc's, which can coalesce what they
 * leave: pooled, a 1M-buffer trace held 6% more memory. */
#define BLOCK_CLASSES 5                /* 4, 8, 16, 32 and 64 ranges */
#define POOLED_RANGES (4u << (BLOCK_CLASSES - 1))

/* One node of both trees, side by side: a query reads `alive` at lo's leaf and `starts` at the leaves just
 * after it, so the two share cache lines. */
typedef struct {
    RangeList alive;  /* the units of which this node is one of the nodes that tile their lifetimes */
    RangeList starts; /* the units starting within this node (kept from the leaves up to starts_top) */
} Node;

/* Ranges a gap no unit can use separates are kept as one (plan/gap-use.h): a query weighs a gap that cannot
 * hold its unit as no gap, so the answers stay the same, and the lists stay short where small over-aligned
 * units leave one such gap each. */
struct PlacedIndex {
    const PlaceProblem *p;
    GapUse gaps;            /* which gaps between ranges a list must keep (gap-use.h) */
    guint depth;            /* leaves are at this level; the root is level 0 */
    gsize level_base[32 / FANOUT_BITS + 2]; /* index of level L's first node in `nodes` */
    Node *nodes;            /* level by level, each level only as wide as the steps need (FANOUT^depth
                               leaves would be up to FANOUT times the steps) */
    gsize node_count;
    guint starts_top;       /* the highest level a query reads in `starts`: (lo, hi] is tiled by nodes no
                               wider than the longest lifetime, so wider ones are never read and not kept */
    GArray *runs, *runs2;   /* Run: the sorted lists a query merges, reused per query (two for a pair) */
    RecordPool *blocks[BLOCK_CLASSES]; /* the storage of every short list: blocks of 4 << k ranges */
    gboolean wide;          /* the lists hold 64-bit addresses (see RangeList) */
};

/* The unread part of one sorted list, with its head's start kept inline (the merge compares keys without
 * chasing pointers into the lists). */
typedef struct {
    guint64 start;
    const guint8 *at, *end;
} Run;

/* Node of level L holding step t. */
static inline gsize node_at(const PlacedIndex *x, guint level, guint step)
{
    return x->level_base[level] + ((gsize)step >> (FANOUT_BITS * (x->depth - level)));
}

/* The pool of blocks of `size` ranges (4 << k). */
static RecordPool *block_pool(RecordPool **blocks, guint size) { return blocks[__builtin_ctz(size >> 2)]; }

/* Doubles a full list's room: in the pools while it stays short, with malloc after. */
static G_ALWAYS_INLINE inline void range_list_grow(RecordPool **blocks, RangeList *l, gboolean wide)
{
    guint size = l->size ? 2 * l->size : 4;
    gsize bytes = range_bytes(wide);
    if (l->size > POOLED_RANGES) {
        l->at = g_realloc(l->at, size * bytes);
    } else {
        void *block = size <= POOLED_RANGES ? record_pool_take(block_pool(blocks, size)) : g_malloc(size * bytes);
        if (l->len)
            memcpy(block, l->at, l->len * bytes);
        if (l->at)
            record_pool_give(block_pool(blocks, l->size), l->at);
        l->at = block;
    }
    l->size = size;
}

/* Adds r to a list of disjoint ranges sorted by start, merging it with every range it overlaps or touches:
 * a query only needs the union of the addresses in use, and placed units pack tightly, so lists stay short
 * (and a query merges sorted runs instead of sorting). */
static G_ALWAYS_INLINE inline void range_list_add(const GapUse *gaps, RecordPool **blocks, RangeList *l,
                                                  AddressRange r, gboolean wide)
{
    guint lo = 0, hi = l->len;
    while (lo < hi) { /* the first range ending at or after r.start: it may touch r */
        guint mid = (lo + hi) / 2;
        if (range_at(l->at, mid, wide).end < r.start)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && !gap_use_fits(gaps, range_at(l->at, lo - 1, wide).end, r.start))
        lo--; /* the gap before r holds nothing: one range with it */
    guint last = lo; /* ranges [lo, last) overlap or touch r, or lie across a gap that holds nothing */
    while (last < l->len) {
        AddressRange next = range_at(l->at, last, wide);
        if (next.start > r.end && gap_use_fits(gaps, r.end, next.start))
            break;
        r.start = MIN(r.start, next.start);
        r.end = MAX(r.end, next.end);
        last++;
    }
    gsize bytes = range_bytes(wide);
    guint8 *at = l->at;
    if (last == lo) { /* nothing to merge: open a slot */
        if (l->len == l->size)
            range_list_grow(blocks, l, wide);
        at = l->at;
        memmove(at + (lo + 1) * bytes, at + lo * bytes, (l->len - lo) * bytes);
        l->len++;
    } else if (last > lo + 1) { /* several became one */
        memmove(at + (lo + 1) * bytes, at + last * bytes, (l->len - last) * bytes);
        l->len -= last - lo - 1;
    }
    range_set(l->at, lo, r, wide);
}

/* Calls visit on the nodes that tile steps [lo, hi): bottom up, taking the nodes at either end of a level
 * until both ends line up with the level above. */
#define FOR_TILING(x, lo_step, hi_step, visit)                                                                   \
    do {                                                                                                         \
        gsize lo_ = (lo_step), hi_ = (hi_step);                                                                  \
        for (guint level_ = (x)->depth; lo_ < hi_; level_--, lo_ >>= FANOUT_BITS, hi_ >>= FANOUT_BITS) {         \
            for (; lo_ < hi_ && (lo_ & (FANOUT - 1)); lo_++)                                                     \
                visit((x)->level_base[level_] + lo_);                                                            \
            for (; lo_ < hi_ && (hi_ & (FANOUT - 1)); hi_--)                                                     \
                visit((x)->level_base[level_] + hi_ - 1);                                                        \
        }                                                                                                        \
    } while (0)

PlacedIndex *placed_index_new(const PlaceProblem *p, const guint64 *offsets)
{
    PlacedIndex *x = g_new0(PlacedIndex, 1);
    x->p = p;
    guint steps = MAX(p->steps, 1), longest = 0;
    for (guint u = 0; u < p->units->len; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        steps = MAX(steps, unit->last + 1);
        longest = MAX(longest, unit->last - unit->first);
    }
    for (x->depth = 0; ((gsize)1 << (FANOUT_BITS * x->depth)) < steps; x->depth++)
        ;
    for (guint level = 0; level <= x->depth; level++) {
        x->level_base[level] = x->node_count;
        x->node_count += ((gsize)(steps - 1) >> (FANOUT_BITS * (x->depth - level))) + 1;
    }
    /* the highest level whose nodes are no wider than the longest lifetime (none when every unit lives one
     * step: then (lo, hi] is empty) */
    x->starts_top = 0;
    while (x->starts_top <= x->depth && ((gsize)1 << (FANOUT_BITS * (x->depth - x->starts_top))) > longest)
        x->starts_top++;
    gap_use_init(&x->gaps, p->units);
    x->nodes = g_new0(Node, x->node_count);
    x->runs = g_array_new(FALSE, FALSE, sizeof(Run));
    x->runs2 = g_array_new(FALSE, FALSE, sizeof(Run));
    for (guint c = 0; c < BLOCK_CLASSES; c++)
        x->blocks[c] = record_pool_new((4u << c) * range_bytes(FALSE));
    for (guint u = 0; u < p->units->len; u++)
        if (g_array_index(p->units, PlaceUnit, u).fixed != TRACE_NONE)
            placed_index_add(x, u, offsets[u]);
    return x;
}

void placed_index_free(PlacedIndex *x)
{
    if (!x)
        return;
    for (gsize k = 0; k < x->node_count; k++) {
        if (x->nodes[k].alive.size > POOLED_RANGES)
            g_free(x->nodes[k].alive.at);
        if (x->nodes[k].starts.size > POOLED_RANGES)
            g_free(x->nodes[k].starts.at);
    }
    for (guint c = 0; c < BLOCK_CLASSES; c++)
        record_pool_free(x->blocks[c]);
    g_free(x->nodes);
    g_array_unref(x->runs);
    g_array_unref(x->runs2);
    g_free(x);
}

/* Every list's ranges as 64-bit addresses, in new storage (see RangeList). */
static void widen(PlacedIndex *x)
{
    RecordPool *blocks[BLOCK_CLASSES];
    for (guint c = 0; c < BLOCK_CLASSES; c++)
        blocks[c] = record_pool_new((4u << c) * range_bytes(TRUE));
    for (gsize k = 0; k < 2 * x->node_count; k++) {
        RangeList *l = k % 2 ? &x->nodes[k / 2].starts : &x->nodes[k / 2].alive;
        if (!l->size)
            continue;
        guint64 *at = l->size <= POOLED_RANGES ? record_pool_take(block_pool(blocks, l->size))
                                               : g_new(guint64, 2 * (gsize)l->size);
        for (guint i = 0; i < l->len; i++)
            range_set(at, i, range_at(l->at, i, FALSE), TRUE);
        if (l->size > POOLED_RANGES)
            g_free(l->at);
        l->at = at;
    }
    for (guint c = 0; c < BLOCK_CLASSES; c++) {
        record_pool_free(x->blocks[c]);
        x->blocks[c] = blocks[c];
    }
    x->wide = TRUE;
}

static G_ALWAYS_INLINE inline void index_add(PlacedIndex *x, const PlaceUnit *u, AddressRange r, gboolean wide)
{
    for (guint level = x->starts_top; level <= x->depth; level++)
        range_list_add(&x->gaps, x->blocks, &x->nodes[node_at(x, level, u->first)].starts, r, wide);
#define ADD_ALIVE(k) range_list_add(&x->gaps, x->blocks, &x->nodes[k].alive, r, wide)
    FOR_TILING(x, u->first, (gsize)u->last + 1, ADD_ALIVE);
#undef ADD_ALIVE
}

void placed_index_add(PlacedIndex *x, guint unit, guint64 offset)
{
    const PlaceUnit *u = &g_array_index(x->p->units, PlaceUnit, unit);
    AddressRange r = {offset, offset + u->size};
    if (!x->wide && r.end > G_MAXUINT32)
        widen(x);
    if (x->wide)
        index_add(x, u, r, TRUE);
    else
        index_add(x, u, r, FALSE);
}

/* The cache lines of a list's first HINT_LINES, where it has ranges there. */
#define HINT_LINES 3
static inline void hint_list(const RangeList *l, gsize bytes)
{
    const guint8 *at = l->at;
    gsize end = l->len * bytes;
    for (gsize b = 0; b < MIN(end, (gsize)HINT_LINES * 64); b += 64)
        __builtin_prefetch(at + b);
}

/* Hints the lists the coming find and add for `unit` will read, their first three cache lines (a list's average
 * length on a 1M-buffer trace: 18 ranges, 144 bytes narrow): those of the nodes on the path to its first step's
 * leaf and of the tiling of its lifetime. place_in_order asks two units ahead. Hinting the nodes themselves a step
 * before their lists made no difference (the nodes are a few MiB; the lists over a hundred); hinting exactly the
 * lists each reads (the find's starts over (first, last], the add's alive over [first, last]) neither. */
void placed_index_prefetch(const PlacedIndex *x, guint unit)
{
    const PlaceUnit *u = &g_array_index(x->p->units, PlaceUnit, unit);
    const Node *nodes = x->nodes;
    gsize bytes = range_bytes(x->wide);
#define HINT(k)                                                                                                \
    do {                                                                                                       \
        hint_list(&nodes[k].alive, bytes);                                                                     \
        hint_list(&nodes[k].starts, bytes);                                                                    \
    } while (0)
    for (guint level = 1; level <= x->depth; level++)
        HINT(node_at(x, level, u->first));
    FOR_TILING(x, u->first, (gsize)u->last + 1, HINT);
#undef HINT
}

static G_ALWAYS_INLINE inline void add_run(GArray *runs, const RangeList *l, gboolean wide)
{
    if (l->len) {
        const guint8 *at = l->at;
        gsize bytes = range_bytes(wide);
        for (guint k = 64 / bytes; k < MIN(l->len, 16); k += 64 / bytes) /* the next cache lines of the list */
            __builtin_prefetch(at + k * bytes);
        Run r = {range_start_at(at, 0, wide), at, at + l->len * bytes};
        g_array_append_val(runs, r);
    }
}

/* The sorted lists covering every placed unit whose lifetime meets [lo, hi] (see the top of the file). */
static G_ALWAYS_INLINE inline void collect_runs(PlacedIndex *x, GArray *runs, guint lo, guint hi, gboolean wide)
{
    g_array_set_size(runs, 0);
    for (guint level = 0; level <= x->depth; level++)
        add_run(runs, &x->nodes[node_at(x, level, lo)].alive, wide);
#define ADD_STARTS(k) add_run(runs, &x->nodes[k].starts, wide)
    FOR_TILING(x, (gsize)lo + 1, (gsize)hi + 1, ADD_STARTS);
#undef ADD_STARTS
}

/* One query's merge: the overlapping ranges in address order, taken lowest head first, and the gaps between
 * them weighed as they pass. A step takes one range; merges of two queries step by turns (see
 * placed_index_find_pair). */
typedef struct {
    Run *runs;
    guint n;
    GapPolicy policy;
    guint64 size, align;
    guint64 cursor, best, best_gap;
} Merge;

/* FALSE when nothing placed meets the unit's lifetime: then its answer, offset 0, is already in m->best. */
static G_ALWAYS_INLINE inline gboolean merge_start(Merge *m, PlacedIndex *x, GArray *runs, guint unit,
                                                  GapPolicy policy, gboolean wide)
{
    const PlaceUnit *u = &g_array_index(x->p->units, PlaceUnit, unit);
    collect_runs(x, runs, u->first, u->last, wide);
    *m = (Merge){(Run *)(void *)runs->data, runs->len, policy, u->size, u->align, 0, G_MAXUINT64, G_MAXUINT64};
    if (!m->n)
        m->best = 0;
    return m->n != 0;
}

/* Takes the lowest range; FALSE once the merge has its answer (in m->best). */
static G_ALWAYS_INLINE inline gboolean merge_step(Merge *m, gboolean wide)
{
    Run *runs = m->runs;
    guint n = m->n;
    guint lowest = 0;
    guint64 low = runs[0].start;
    for (guint i = 1; i < n; i++) { /* the lowest value kept in a register: no load waits on a compare */
        gboolean lower = runs[i].start < low;
        low = lower ? runs[i].start : low;
        lowest = lower ? i : lowest;
    }
    AddressRange r = range_at(runs[lowest].at, 0, wide);
    __builtin_prefetch(runs[lowest].at + 256); /* four cache lines ahead in the list being read */
    runs[lowest].at += range_bytes(wide);
    if (runs[lowest].at == runs[lowest].end)
        runs[lowest] = runs[--m->n];
    else
        runs[lowest].start = range_start_at(runs[lowest].at, 0, wide);
    /* Whether the gap below r holds the unit decides nothing a branch could learn (about half do on a
     * 1M-buffer trace), so it is computed, not branched on: a gap that does not fit weighs as no gap. */
    guint64 cursor = m->cursor;
    guint64 start = round_up(cursor, m->align);
    /* start >= cursor and sizes are positive, so a fit means a gap (trace_check bounds every size and offset
     * far below overflow) */
    gboolean fits = start + m->size <= r.start;
    guint64 gap = fits ? r.start - cursor : G_MAXUINT64;
    if (G_UNLIKELY(fits & ((m->policy == GAP_FIRST) | (gap == m->size)))) {
        m->best = start; /* the lowest fit, or a gap no other can beat (the first of equals wins) */
        return FALSE;
    }
    gboolean better = gap < m->best_gap;
    m->best_gap = better ? gap : m->best_gap;
    m->best = better ? start : m->best;
    m->cursor = MAX(cursor, r.end);
    if (m->n)
        return TRUE;
    if (m->best == G_MAXUINT64)
        m->best = round_up(m->cursor, m->align);
    return FALSE;
}

static G_ALWAYS_INLINE inline guint64 find(PlacedIndex *x, guint unit, GapPolicy policy, gboolean wide)
{
    Merge m;
    if (merge_start(&m, x, x->runs, unit, policy, wide))
        while (merge_step(&m, wide))
            ;
    return m.best;
}

guint64 placed_index_find(PlacedIndex *x, guint unit, GapPolicy policy)
{
    return x->wide ? find(x, unit, policy, TRUE) : find(x, unit, policy, FALSE);
}

/* The two merges written out side by side, not as a loop over an array of them, so that both stay in
 * registers (see the top of the file). */
static G_ALWAYS_INLINE inline void find_pair(PlacedIndex *x, guint a, guint b, GapPolicy policy, guint64 *offset_a,
                                             guint64 *offset_b, gboolean wide)
{
    Merge ma, mb;
    gboolean on_a = merge_start(&ma, x, x->runs, a, policy, wide);
    gboolean on_b = merge_start(&mb, x, x->runs2, b, policy, wide);
    while (on_a && on_b) {
        on_a = merge_step(&ma, wide);
        on_b = merge_step(&mb, wide);
    }
    while (on_a)
        on_a = merge_step(&ma, wide);
    while (on_b)
        on_b = merge_step(&mb, wide);
    *offset_a = ma.best;
    *offset_b = mb.best;
}

void placed_index_find_pair(PlacedIndex *x, guint a, guint b, GapPolicy policy, guint64 *offset_a,
                            guint64 *offset_b)
{
    if (x->wide)
        find_pair(x, a, b, policy, offset_a, offset_b, TRUE);
    else
        find_pair(x, a, b, policy, offset_a, offset_b, FALSE);
}
