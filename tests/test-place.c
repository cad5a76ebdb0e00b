/* test-place.c — placement and verification: the free list's first/best-fit and coalescing; the ordered
 * set and record pool best fit and verify index with; the arena the placed index's lists live in; hand-built
 * traces with known optimal arenas; pins and rigid groups honoured by every strategy; property tests
 * over thousands of random traces (the verifier accepts every plan, arena >= lower bound, naive = sum of
 * aligned sizes); every strategy on every corpus graph; trace text and MiniMalloc CSV round trips;
 * broken plans and malformed trace lines caught with exact messages. */
#include "base/arena.h"
#include "base/ordered-set.h"
#include "base/record-pool.h"
#include "plan/freelist.h"
#include "plan/profile.h"
#include "memory/liveness.h"
#include "strategies/registry.h"
#include "tests/testutil.h"
#include "graphs/tracegen.h"
#include "plan/place.h"
#include "plan/verify.h"

#include <string.h>

static Trace *parse(const char *text)
{
    GError *error = NULL;
    Trace *t = trace_parse(text, strlen(text), "test.trace", FALSE, &error);
    g_assert_no_error(error);
    return t;
}

static Plan *plan_verified(const char *strategy, const Trace *t)
{
    GError *error = NULL;
    const PlaceStrategy *s = registry_place_find(strategy);
    g_assert_nonnull(s);
    Plan *p = place_run_with(s, t, &test_place_options, &error);
    g_assert_no_error(error);
    if (!verify_plan(t, p, &error))
        g_error("%s: %s", strategy, error->message);
    return p;
}

/* The arena (base/arena.h) hands out pieces aligned for any type that never overlap, small ones and ones
 * over a quarter block (a block of their own) alike, each writable to its end until the arena is freed. */
static void test_arena(void)
{
    Arena *a = arena_new();
    const gsize sizes[] = {1, 24, 64, 1000, 300000, 16, 7};
    guint8 *pieces[G_N_ELEMENTS(sizes) * 30];
    gsize n = 0;
    for (guint round = 0; round < 30; round++)
        for (guint k = 0; k < G_N_ELEMENTS(sizes); k++, n++) {
            pieces[n] = arena_alloc(a, sizes[k]);
            g_assert_cmpuint((guintptr)pieces[n] % G_ALIGNOF(gint64), ==, 0);
            memset(pieces[n], (int)(n & 0xff), sizes[k]);
        }
    for (gsize k = 0; k < n; k++) { /* no later piece wrote over an earlier one */
        gsize size = sizes[k % G_N_ELEMENTS(sizes)];
        g_assert_cmpuint(pieces[k][0], ==, k & 0xff);
        g_assert_cmpuint(pieces[k][size - 1], ==, k & 0xff);
    }
    arena_free(a);
}

/* A node of the ordered-set test: its place in the reference order is its (key, tie, stamp), where stamp
 * counts down as nodes are inserted (the newest of equal pairs comes first). */
typedef struct {
    OrderedNode node;
    guint64 stamp;
    gboolean linked;
} SetItem;

static int set_item_cmp(gconstpointer a, gconstpointer b)
{
    const SetItem *x = *(SetItem *const *)a, *y = *(SetItem *const *)b;
    if (x->node.key != y->node.key)
        return x->node.key < y->node.key ? -1 : 1;
    if (x->node.tie != y->node.tie)
        return x->node.tie < y->node.tie ? -1 : 1;
    return x->stamp < y->stamp ? -1 : x->stamp > y->stamp;
}

/* Random inserts (keys from a small range, so equal pairs are common) and removes of nodes taken from a
 * record pool and given back: walking the set forwards and backwards gives the reference order, and every
 * lower bound is the first reference node not less than the probe. */
static void test_ordered_set_reference(void)
{
    for (guint32 seed = 1; seed <= 30; seed++) {
        GRand *rand = g_rand_new_with_seed(seed);
        RecordPool *pool = record_pool_new(sizeof(SetItem));
        GPtrArray *linked = g_ptr_array_new();
        OrderedSet set;
        ordered_set_init(&set);
        guint64 stamp = G_MAXUINT64;
        for (guint op = 0; op < 600; op++) {
            if (linked->len && g_rand_int_range(rand, 0, 100) < 40) {
                SetItem *it = g_ptr_array_remove_index_fast(linked, g_rand_int_range(rand, 0, (gint32)linked->len));
                ordered_set_remove(&set, &it->node);
                it->linked = FALSE;
                record_pool_give(pool, it);
            } else {
                SetItem *it = record_pool_take(pool);
                it->node.key = g_rand_int_range(rand, 0, 6);
                it->node.tie = g_rand_int_range(rand, 0, 6);
                it->stamp = stamp--;
                it->linked = TRUE;
                ordered_set_insert(&set, &it->node);
                g_ptr_array_add(linked, it);
            }
            GPtrArray *sorted = g_ptr_array_copy(linked, NULL, NULL);
            g_ptr_array_sort(sorted, set_item_cmp);
            OrderedNode *n = ordered_set_first(&set);
            for (guint k = 0; k < sorted->len; k++, n = ordered_set_next(n))
                g_assert_true(n == &((SetItem *)g_ptr_array_index(sorted, k))->node);
            g_assert_null(n);
            n = ordered_set_last(&set);
            for (guint k = sorted->len; k-- > 0; n = ordered_set_prev(n))
                g_assert_true(n == &((SetItem *)g_ptr_array_index(sorted, k))->node);
            g_assert_null(n);
            guint64 key = g_rand_int_range(rand, 0, 7), tie = g_rand_int_range(rand, 0, 7);
            OrderedNode *want = NULL;
            for (guint k = 0; k < sorted->len && !want; k++) {
                OrderedNode *c = &((SetItem *)g_ptr_array_index(sorted, k))->node;
                if (c->key > key || (c->key == key && c->tie >= tie))
                    want = c;
            }
            g_assert_true(ordered_set_lower_bound(&set, key, tie) == want);
            g_ptr_array_unref(sorted);
        }
        g_ptr_array_unref(linked);
        record_pool_free(pool);
        g_rand_free(rand);
    }
}

static void test_freelist(void)
{
    FreeList *f = freelist_new(FREELIST_FIRST_FIT, NULL);
    g_assert_cmpuint(freelist_alloc(f, 100, 1), ==, 0);
    g_assert_cmpuint(freelist_alloc(f, 50, 1), ==, 100);
    g_assert_cmpuint(freelist_alloc(f, 200, 1), ==, 150);
    freelist_release(f, 0, 100);   /* free: [0,100), [350, inf) */
    freelist_release(f, 150, 200); /* free: [0,100), [150, inf) */
    /* First fit takes the lowest block that holds the request. */
    g_assert_cmpuint(freelist_alloc(f, 60, 1), ==, 0); /* free: [60,100), [150, inf) */
    g_assert_cmpuint(freelist_alloc(f, 50, 1), ==, 150); /* [60,100) is too small; free: [60,100), [200, inf) */
    /* Alignment pads inside the block. */
    g_assert_cmpuint(freelist_alloc(f, 8, 64), ==, 64);
    /* Coalescing: free everything and the whole space is one block again. */
    freelist_release(f, 0, 60);
    freelist_release(f, 150, 50);
    freelist_release(f, 64, 8);
    freelist_release(f, 100, 50);
    g_assert_cmpuint(freelist_alloc(f, 1000, 1), ==, 0);
    /* Reserving a range that is taken fails; a free one succeeds. */
    g_assert_false(freelist_reserve(f, 500, 10));
    g_assert_true(freelist_reserve(f, 2000, 10));
    g_assert_cmpuint(freelist_alloc(f, 1000, 1), ==, 1000);
    g_assert_cmpuint(freelist_alloc(f, 1, 1), ==, 2010);
    freelist_free(f);

    /* Best fit takes the smallest block that holds the request, the top block last. */
    f = freelist_new(FREELIST_BEST_FIT, NULL);
    g_assert_cmpuint(freelist_alloc(f, 100, 1), ==, 0);
    g_assert_cmpuint(freelist_alloc(f, 40, 1), ==, 100);
    g_assert_cmpuint(freelist_alloc(f, 200, 1), ==, 140);
    g_assert_cmpuint(freelist_alloc(f, 10, 1), ==, 340);
    freelist_release(f, 0, 100);   /* free: [0,100), [350, inf) */
    freelist_release(f, 140, 200); /* free: [0,100), [140,340), [350, inf) */
    g_assert_cmpuint(freelist_alloc(f, 90, 1), ==, 0);   /* the 100-byte block, not the 200-byte one */
    g_assert_cmpuint(freelist_alloc(f, 30, 1), ==, 140); /* [90,100) is too small */
    g_assert_cmpuint(freelist_alloc(f, 8, 64), ==, 192); /* alignment pads inside the chosen block */
    g_assert_cmpuint(freelist_alloc(f, 10, 1), ==, 90);  /* an exact fit */
    /* Coalescing on both sides: free everything and the whole space is one block again. */
    freelist_release(f, 0, 90);
    freelist_release(f, 140, 30);
    freelist_release(f, 192, 8);
    freelist_release(f, 100, 40);
    freelist_release(f, 90, 10);
    freelist_release(f, 340, 10);
    g_assert_cmpuint(freelist_alloc(f, 1000, 1), ==, 0);
    g_assert_false(freelist_reserve(f, 500, 10));
    g_assert_true(freelist_reserve(f, 2000, 10));
    g_assert_cmpuint(freelist_alloc(f, 1000, 1), ==, 1000);
    g_assert_cmpuint(freelist_alloc(f, 1, 1), ==, 2010);
    freelist_free(f);
}

/* The reference free list: free intervals in a sorted array, every query a scan. */
typedef struct {
    guint64 start, len;
} RefBlock;

static guint64 ref_fit(const RefBlock *b, guint64 size, guint64 align)
{
    guint64 start = (b->start + align - 1) / align * align;
    return start - b->start <= b->len && b->len - (start - b->start) >= size ? start : G_MAXUINT64;
}

static guint64 ref_alloc(GArray *free_list, guint64 size, guint64 align, gboolean best)
{
    gint chosen = -1;
    for (guint k = 0; k < free_list->len; k++) {
        const RefBlock *b = &g_array_index(free_list, RefBlock, k);
        if (ref_fit(b, size, align) == G_MAXUINT64)
            continue;
        if (!best) {
            chosen = (gint)k;
            break;
        }
        /* smallest block that fits, ties to the lowest address; the top block only when nothing else fits */
        const RefBlock *c = chosen >= 0 ? &g_array_index(free_list, RefBlock, chosen) : NULL;
        if (!c || b->len < c->len)
            chosen = (gint)k;
    }
    RefBlock b = g_array_index(free_list, RefBlock, chosen);
    guint64 start = ref_fit(&b, size, align), end = start + size, b_end_len = b.len - (end - b.start);
    g_array_remove_index(free_list, chosen);
    guint at = chosen;
    if (start > b.start)
        g_array_insert_val(free_list, at++, ((RefBlock){b.start, start - b.start}));
    if (b_end_len)
        g_array_insert_val(free_list, at, ((RefBlock){end, b_end_len}));
    return start;
}

static void ref_release(GArray *free_list, guint64 offset, guint64 size)
{
    guint k = 0;
    while (k < free_list->len && g_array_index(free_list, RefBlock, k).start < offset)
        k++;
    g_array_insert_val(free_list, k, ((RefBlock){offset, size}));
    if (k + 1 < free_list->len) { /* merge with the next */
        RefBlock *a = &g_array_index(free_list, RefBlock, k), *n = &g_array_index(free_list, RefBlock, k + 1);
        if (a->start + a->len == n->start) {
            a->len = n->len > G_MAXUINT64 - a->len ? G_MAXUINT64 - a->start : a->len + n->len;
            g_array_remove_index(free_list, k + 1);
        }
    }
    if (k > 0) { /* and with the previous */
        RefBlock *p = &g_array_index(free_list, RefBlock, k - 1), *a = &g_array_index(free_list, RefBlock, k);
        if (p->start + p->len == a->start) {
            p->len = a->len > G_MAXUINT64 - p->len ? G_MAXUINT64 - p->start : p->len + a->len;
            g_array_remove_index(free_list, k);
        }
    }
}

/* Random allocations and releases, aligned and not, for each fit: the free list (first fit: treap by
 * address with blocks reshaped in place; best fit: ordered sets by address and by size) returns what a
 * scan of a sorted array returns. Every other pair of seeds tells the list the classes it will be asked
 * for (small over-aligned sizes, which leave gaps none of them can use: gap-use.h), and the answers must
 * stay the reference's, which knows nothing of them. */
static void test_freelist_reference(void)
{
    for (guint32 seed = 1; seed <= 80; seed++) {
        GRand *rand = g_rand_new_with_seed(seed);
        gboolean best = seed % 2 == 0, classes = seed % 4 >= 2;
        GArray *units = g_array_new(FALSE, FALSE, sizeof(PlaceUnit));
        g_array_append_val(units, ((PlaceUnit){.size = 16, .align = 64, .fixed = TRACE_NONE}));
        g_array_append_val(units, ((PlaceUnit){.size = 24, .align = 8, .fixed = TRACE_NONE}));
        FreeList *f = freelist_new(best ? FREELIST_BEST_FIT : FREELIST_FIRST_FIT, classes ? units : NULL);
        GArray *ref = g_array_new(FALSE, FALSE, sizeof(RefBlock));
        g_array_append_val(ref, ((RefBlock){0, G_MAXUINT64}));
        GArray *live = g_array_new(FALSE, FALSE, sizeof(RefBlock));
        for (guint op = 0; op < 400; op++) {
            if (live->len && g_rand_int_range(rand, 0, 100) < 45) {
                guint k = g_rand_int_range(rand, 0, (gint32)live->len);
                RefBlock b = g_array_index(live, RefBlock, k);
                g_array_remove_index_fast(live, k);
                freelist_release(f, b.start, b.len);
                ref_release(ref, b.start, b.len);
            } else {
                guint64 size = 1 + g_rand_int_range(rand, 0, 200), align = 1u << g_rand_int_range(rand, 0, 5);
                if (classes) { /* one of the two classes, at or above its smallest size */
                    gboolean wide = g_rand_boolean(rand);
                    size = (wide ? 16 : 24) + g_rand_int_range(rand, 0, 60);
                    align = wide ? 64 : 8;
                }
                guint64 got = freelist_alloc(f, size, align);
                guint64 want = ref_alloc(ref, size, align, best);
                if (got != want)
                    g_error("seed %u op %u: %s fit of %" G_GUINT64_FORMAT " (align %" G_GUINT64_FORMAT ") at %"
                            G_GUINT64_FORMAT ", the reference says %" G_GUINT64_FORMAT, seed, op, best ? "best" : "first",
                            size, align, got, want);
                g_array_append_val(live, ((RefBlock){got, size}));
            }
        }
        g_array_unref(live);
        g_array_unref(ref);
        freelist_free(f);
        g_array_unref(units);
        g_rand_free(rand);
    }
}

/* Traces whose optimum is known by hand, with the arena each strategy must reach. */
typedef struct {
    const char *name, *text;
    guint64 optimum;
    const char *reaching[8]; /* strategies that must reach the optimum; "*": every one but the baseline */
} KnownCase;

static const KnownCase known_cases[] = {
    /* Three in a row: A and C never overlap, so they share: 200. */
    {"chain", "arenasim-trace 1\n0 A 100 0 1\n1 B 100 1 2\n2 C 100 2 3\n", 200,
     {"*"}},
    /* MiniMalloc's README example (lifetimes made inclusive): optimum = lower bound = 12. */
    {"minimalloc", "arenasim-trace 1\n0 b1 4 0 2\n1 b2 4 3 8\n2 b3 4 0 8\n3 b4 4 9 20\n4 b5 4 0 20\n", 12,
     {"*"}},
    /* First fit puts the small early buffer low and the big late one cannot reuse the gap: greedy by size
     * places the big one first. Lower bound 300 (steps 1..2), reachable. */
    {"fragmenting", "arenasim-trace 1\n0 small 100 0 1\n1 keep 100 0 3\n2 tmp 100 1 1\n3 big 200 2 3\n", 300,
     {"greedy-size", "best"}},
};

static void test_known_optimum(gconstpointer data)
{
    const KnownCase *c = data;
    Trace *t = parse(c->text);
    g_assert_cmpuint(trace_lower_bound(t), ==, c->optimum);
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    for (guint k = 0; k < count; k++) {
        Plan *p = plan_verified(all[k]->name, t);
        g_assert_cmpuint(p->arena, >=, c->optimum);
        for (guint j = 0; c->reaching[j]; j++)
            if ((!strcmp(c->reaching[j], all[k]->name) ||
                 (!strcmp(c->reaching[j], "*") && all[k]->role != ROLE_BASELINE && all[k]->role != ROLE_RUNTIME)) &&
                p->arena != c->optimum)
                g_error("%s on %s: arena %" G_GUINT64_FORMAT ", optimum %" G_GUINT64_FORMAT, all[k]->name, c->name,
                        p->arena, c->optimum);
        plan_free(p);
    }
    trace_free(t);
}

/* Pins and rigid groups: every strategy keeps them, and the verifier checks it. */
static void test_pins_and_groups(void)
{
    Trace *t = parse("arenasim-trace 1\n"
                     "0 pinned 64 0 5 fixed=256\n"
                     "1 a 100 0 2\n"
                     "2 b 300 1 3\n"
                     "3 g0 100 2 4 group=7:0\n"
                     "4 g1 50 3 5 group=7:128\n"
                     "5 g2 10 4 5 group=7:192\n"
                     "6 late 500 4 5 align=256\n");
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    for (guint k = 0; k < count; k++) {
        Plan *p = plan_verified(all[k]->name, t);
        g_assert_cmpuint(p->offsets[0], ==, 256);
        g_assert_cmpuint(p->offsets[4] - p->offsets[3], ==, 128);
        g_assert_cmpuint(p->offsets[5] - p->offsets[3], ==, 192);
        g_assert_cmpuint(p->offsets[6] % 256, ==, 0);
        plan_free(p);
    }
    trace_free(t);
}

/* Random traces (random alignments, some pins and groups): every plan verifies, arena >= lower bound. */
static void test_property_random_traces(void)
{
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    guint traces = g_test_thorough() ? 5000 : 1500;
    PlaceOptions options = test_place_options;
    options.max_nodes = 1000; /* the exact searches' plans verify whichever node they stop at */
    for (guint seed = 1; seed <= traces; seed++) {
        if (!test_sampled(seed)) /* the sanitizer pass: every Nth seed (testutil.h) */
            continue;
        TraceGenOptions o = TRACEGEN_DEFAULTS;
        o.buffers = 20 + seed % 120;
        o.seed = seed;
        o.max_size = seed % 2 ? 4096 : 1 << 20;
        o.align = seed % 3 ? 64 : 0;
        Trace *t = tracegen_random(&o);
        gboolean plain = o.align == 64;
        if (seed % 5 == 0) { /* a pinned buffer and a three-member group */
            TraceBuffer *b = trace_buffer(t, 0);
            b->fixed = (gint64)round_up(1000, b->align);
            for (guint k = 1; k <= 3; k++) {
                b = trace_buffer(t, k);
                b->group = 1;
                b->align = 64;
                b->group_offset = (k - 1) * 65536;
                b->size = MIN(b->size, 65536);
            }
            plain = FALSE;
        }
        guint64 lb = trace_lower_bound(t), sum = 0;
        for (guint k = 0; k < trace_count(t); k++)
            sum += round_up(trace_buffer(t, k)->size, trace_buffer(t, k)->align);
        for (guint k = 0; k < count; k++) {
            GError *error = NULL;
            Plan *p = place_run_with(all[k], t, &options, &error);
            g_assert_no_error(error);
            if (!verify_plan(t, p, &error))
                g_error("seed %u, %s: %s", seed, all[k]->name, error->message);
            g_assert_cmpuint(p->arena, >=, lb);
            if (plain && !strcmp(all[k]->name, "naive"))
                g_assert_cmpuint(p->arena, ==, sum);
            plan_free(p);
        }
        trace_free(t);
    }
}

typedef struct {
    guint64 start, end;
} RefRange;

static gint ref_range_cmp(gconstpointer a, gconstpointer b)
{
    const RefRange *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The offline gap finder as first written: every placed unit overlapping in time, sorted, scanned. */
static guint64 reference_find(const PlaceProblem *p, const guint64 *offsets, const gboolean *placed, guint unit,
                              GapPolicy policy)
{
    const PlaceUnit *u = &g_array_index(p->units, PlaceUnit, unit);
    GArray *ranges = g_array_new(FALSE, FALSE, sizeof(RefRange));
    for (guint k = 0; k < p->units->len; k++) {
        const PlaceUnit *v = &g_array_index(p->units, PlaceUnit, k);
        if (placed[k] && v->first <= u->last && u->first <= v->last) {
            RefRange r = {offsets[k], offsets[k] + v->size};
            g_array_append_val(ranges, r);
        }
    }
    g_array_sort(ranges, ref_range_cmp);
    guint64 cursor = 0, best = G_MAXUINT64, best_gap = G_MAXUINT64;
    for (guint k = 0; k < ranges->len; k++) {
        RefRange r = g_array_index(ranges, RefRange, k);
        if (r.start > cursor) {
            guint64 start = round_up(cursor, u->align);
            if (start + u->size <= r.start) {
                if (policy == GAP_FIRST) {
                    g_array_unref(ranges);
                    return start;
                }
                if (r.start - cursor < best_gap) {
                    best_gap = r.start - cursor;
                    best = start;
                }
            }
        }
        cursor = MAX(cursor, r.end);
    }
    g_array_unref(ranges);
    return best != G_MAXUINT64 ? best : round_up(cursor, u->align);
}

/* The placed index (two trees over time, coalesced address lists merged per query, two queries at a time
 * when their lifetimes do not meet) gives exactly the offsets of the plain scan it replaced, for both gap
 * policies, with fixed units among them, in the order by size and (every third seed) in a random one (which
 * takes more units ahead of their turn, as partners); every fourth seed's sizes are scaled by 2^22, so that its
 * lists are widened from 32-bit to 64-bit addresses part way through (a unit ending past 2^32), or from the start (a
 * fixed unit there). */
static void test_gap_finder_matches_reference(void)
{
    for (guint seed = 1; seed <= 300; seed++) {
        GRand *r = g_rand_new_with_seed(seed);
        PlaceProblem p = {.units = g_array_new(FALSE, FALSE, sizeof(PlaceUnit)), .steps = 1 + seed % 97};
        guint n = 1 + seed % 150;
        for (guint k = 0; k < n; k++) {
            guint first = (guint)g_rand_int_range(r, 0, (gint32)p.steps);
            guint last = MIN(p.steps - 1, first + (g_rand_int_range(r, 0, 10) ? (guint)g_rand_int_range(r, 0, 4)
                                                                             : (guint)g_rand_int_range(r, 0, 60)));
            guint64 align = (guint64)1 << g_rand_int_range(r, 0, 7);
            guint64 scale = seed % 4 == 0 ? (guint64)1 << 22 : 1;
            PlaceUnit u = {.size = (guint64)g_rand_int_range(r, 1, seed % 2 ? 300 : 5000) * scale, .align = align,
                           .first = first, .last = last, .fixed = TRACE_NONE};
            if (g_rand_int_range(r, 0, 20) == 0)
                u.fixed = (gint64)(round_up((guint64)g_rand_int_range(r, 0, 20000), align) + 100000 * k) *
                          (gint64)scale;
            g_array_append_val(p.units, u);
        }
        guint *order = g_new(guint, n);
        place_order_by_size(&p, order);
        for (guint k = n; seed % 3 == 0 && k > 1; k--) { /* any order: units found ahead of their turn (partners) */
            guint j = (guint)g_rand_int_range(r, 0, (gint32)k), t = order[k - 1];
            order[k - 1] = order[j];
            order[j] = t;
        }
        for (GapPolicy policy = GAP_BEST; policy <= GAP_FIRST; policy++) {
            guint64 *got = g_new0(guint64, n), *want = g_new0(guint64, n);
            gboolean *placed = g_new0(gboolean, n);
            for (guint k = 0; k < n; k++) {
                const PlaceUnit *u = &g_array_index(p.units, PlaceUnit, k);
                if (u->fixed != TRACE_NONE) {
                    got[k] = want[k] = (guint64)u->fixed;
                    placed[k] = TRUE;
                }
            }
            place_in_order(&p, order, n, policy, got);
            for (guint k = 0; k < n; k++) {
                guint u = order[k];
                if (g_array_index(p.units, PlaceUnit, u).fixed != TRACE_NONE)
                    continue;
                want[u] = reference_find(&p, want, placed, u, policy);
                placed[u] = TRUE;
            }
            for (guint k = 0; k < n; k++)
                if (got[k] != want[k])
                    g_error("seed %u, policy %d, unit %u: offset %" G_GUINT64_FORMAT ", the plain scan gives %"
                            G_GUINT64_FORMAT, seed, policy, k, got[k], want[k]);
            g_free(got);
            g_free(want);
            g_free(placed);
        }
        g_free(order);
        g_array_unref(p.units);
        g_rand_free(r);
    }
}

static int key_order(const void *a, const void *b)
{
    const PlaceKey *x = a, *y = b;
    if (x->major != y->major)
        return x->major > y->major ? -1 : 1;
    if (x->minor != y->minor)
        return x->minor > y->minor ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* place_order_by_keys (a byte-by-byte sort) gives the order a comparison sort gives: major and minor largest first,
 * then the unit id, on keys in unit order and shuffled, with many ties and values in every byte, and with a deadline
 * already past it gives up. */
static void test_keys_sort(void)
{
    GRand *r = g_rand_new_with_seed(11);
    for (guint round = 0; round < 40; round++) {
        guint n = 1 + (guint)g_rand_int_range(r, 0, 3000);
        PlaceKey *keys = g_new(PlaceKey, n), *want = g_new(PlaceKey, n);
        for (guint k = 0; k < n; k++) {
            guint64 big = (guint64)g_rand_int(r) << 32 | g_rand_int(r);
            keys[k] = (PlaceKey){round % 2 ? big : (guint64)g_rand_int_range(r, 0, 5),
                                 round % 3 ? (guint64)g_rand_int_range(r, 0, 4) << (8 * (round % 8)) : big, k};
        }
        for (guint k = n; round % 4 >= 2 && k > 1; k--) { /* shuffled: the unit id's bytes sorted too */
            guint j = (guint)g_rand_int_range(r, 0, (gint32)k);
            PlaceKey t = keys[k - 1];
            keys[k - 1] = keys[j];
            keys[j] = t;
        }
        memcpy(want, keys, n * sizeof(PlaceKey));
        qsort(want, n, sizeof(PlaceKey), key_order);
        PlaceOptions o = PLACE_OPTIONS_DEFAULTS;
        PlaceProblem p = {.options = &o};
        guint *order = g_new(guint, n);
        g_assert_true(place_order_by_keys(&p, keys, n, order));
        for (guint k = 0; k < n; k++)
            g_assert_cmpuint(order[k], ==, want[k].unit);
        PlaceStats stats = {0};
        PlaceOptions late = o;
        late.deadline = 1; /* long past */
        PlaceProblem gave = {.options = &late, .stats = &stats};
        gboolean varies = FALSE;
        for (guint k = 1; k < n && !varies; k++)
            varies = want[k].major != want[0].major || want[k].minor != want[0].minor;
        g_assert_true(place_order_by_keys(&gave, keys, n, order) == !varies);
        g_assert_true(stats.gave_up == varies);
        g_free(order);
        g_free(keys);
        g_free(want);
    }
    g_rand_free(r);
}

/* One committed graph (/place/corpus-graphs/NAME), plain and padded with its weights in the arena: every
 * strategy's plan verifies. */
static void test_corpus_graph_all_strategies(gconstpointer data)
{
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    char *path = test_corpus_graph_path(data);
    GError *error = NULL;
    Model *m = onnx_read_file(path, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    for (int pad = 0; pad < 2; pad++) {
        LayoutOptions lo = LAYOUT_DEFAULTS;
        lo.pad_last = pad ? 64 : 1;
        lo.weights_in_arena = pad;
        Trace *t = trace_from_graph(m->graph, m->graph->order, &lo, &error);
        g_assert_no_error(error);
        for (guint k = 0; k < count; k++)
            plan_free(plan_verified(all[k]->name, t));
        trace_free(t);
    }
    model_free(m);
    g_free(path);
}

static void add_corpus_graphs(void)
{
    for (const char *const *g = test_corpus_graphs; *g; g++) {
        char *path = g_strdup_printf("/place/corpus-graphs/%s", *g);
        test_add_case(path, *g, test_corpus_graph_all_strategies);
        g_free(path);
    }
}

/* Lifetimes from a graph: inputs from step 0, outputs to the end, dead tensors for one step. */
static void test_liveness(void)
{
    Builder *b = builder_new("live", 13);
    gint64 d[1] = {16};
    builder_input(b, "x", DT_FLOAT, 1, d);
    builder_weight(b, "w", DT_FLOAT, 1, d, FALSE);
    const char *a = B_OP(b, "Add", "x", "w");   /* step 0 */
    const char *r = B_OP(b, "Relu", a);        /* step 1 */
    const char *n = B_OP(b, "Neg", a);         /* step 2 */
    builder_output(b, B_OP(b, "Add", r, n));          /* step 3 */
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_true(test_infer(m, NULL, &error));
    LayoutOptions lo = LAYOUT_DEFAULTS;
    Trace *t = trace_from_graph(m->graph, m->graph->order, &lo, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(t->steps, ==, 4);
    g_assert_cmpuint(trace_count(t), ==, 5); /* x, a, r, n, output; the weight stays outside */
    guint expect[5][2] = {{0, 0}, {0, 2}, {1, 3}, {2, 3}, {3, 3}};
    for (guint k = 0; k < 5; k++) {
        g_assert_cmpuint(trace_buffer(t, k)->first, ==, expect[k][0]);
        g_assert_cmpuint(trace_buffer(t, k)->last, ==, expect[k][1]);
        g_assert_cmpuint(trace_buffer(t, k)->size, ==, 64);
    }
    trace_free(t);
    lo.weights_in_arena = TRUE;
    lo.pad_last = 64;
    t = trace_from_graph(m->graph, m->graph->order, &lo, &error);
    g_assert_cmpuint(trace_count(t), ==, 6);
    g_assert_cmpuint(trace_buffer(t, 1)->size, ==, 256); /* last dim 16 padded to 64 floats */
    g_assert_cmpuint(trace_buffer(t, 1)->last, ==, 3);   /* the weight lives throughout */
    trace_free(t);
    model_free(m);
}

static void assert_same_trace(const Trace *a, const Trace *b)
{
    g_assert_cmpuint(trace_count(a), ==, trace_count(b));
    g_assert_cmpuint(a->steps, ==, b->steps);
    for (guint k = 0; k < trace_count(a); k++) {
        const TraceBuffer *x = trace_buffer(a, k), *y = trace_buffer(b, k);
        g_assert_cmpstr(x->name, ==, y->name);
        g_assert_cmpuint(x->size, ==, y->size);
        g_assert_cmpuint(x->align, ==, y->align);
        g_assert_cmpuint(x->first, ==, y->first);
        g_assert_cmpuint(x->last, ==, y->last);
        g_assert_cmpint(x->fixed, ==, y->fixed);
        g_assert_cmpint(x->group, ==, y->group);
        g_assert_cmpuint(x->group_offset, ==, y->group_offset);
        g_assert_cmpuint(x->bin, ==, y->bin);
        g_assert_cmpuint(x->reuse, ==, y->reuse);
    }
}

static void test_round_trips(void)
{
    Trace *t = parse("arenasim-trace 1\nsteps 9\n0 with%20space 100 0 2 align=8 fixed=64 reuse=7\n1 b,c 50 1 8 reuse=none\n"
                     "2 g 10 2 3 group=3:16 bin=1\n");
    g_assert_cmpuint(trace_buffer(t, 0)->reuse, ==, 7);
    g_assert_cmpuint(trace_buffer(t, 1)->reuse, ==, TRACE_REUSE_NONE);
    g_assert_cmpuint(trace_buffer(t, 2)->reuse, ==, 0);
    g_assert_cmpstr(trace_buffer(t, 0)->name, ==, "with space");
    char *text = trace_to_text(t);
    Trace *back = parse(text);
    assert_same_trace(t, back);
    g_free(text);
    trace_free(back);
    trace_free(t);

    /* MiniMalloc CSV: half-open [lower, upper), alignment and offset columns. */
    TraceGenOptions o = TRACEGEN_DEFAULTS;
    o.buffers = 300;
    o.align = 0;
    t = tracegen_random(&o);
    trace_buffer(t, 5)->fixed = (gint64)round_up(4096, trace_buffer(t, 5)->align);
    GError *error = NULL;
    char *csv = trace_to_csv(t, NULL, &error);
    g_assert_no_error(error);
    g_assert_true(g_str_has_prefix(csv, "id,lower,upper,size,alignment,offset\n"));
    back = trace_parse(csv, strlen(csv), "t.csv", TRUE, &error);
    g_assert_no_error(error);
    back->steps = t->steps; /* CSV carries no trailing empty steps */
    assert_same_trace(t, back);
    g_free(csv);
    trace_free(back);
    trace_free(t);

    /* The newer header with an inclusive `end` reads the same lifetimes; times far apart compress. */
    const char *end_csv = "buffer,start,end,size\nb1,0,2,4\nb2,3,8,4\n";
    const char *sparse_csv = "id,lower,upper,size\nb1,1000000000000,1000000000003,4\nb2,1000000000003,2000000000000,4\n";
    t = trace_parse(end_csv, strlen(end_csv), "e.csv", TRUE, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(trace_buffer(t, 0)->last, ==, 2);
    g_assert_cmpuint(trace_buffer(t, 1)->first, ==, 3);
    trace_free(t);
    t = trace_parse(sparse_csv, strlen(sparse_csv), "s.csv", TRUE, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(t->steps, ==, 4); /* the distinct points 1e12, 1e12+2, 1e12+3, 2e12-1, in order */
    g_assert_cmpuint(trace_buffer(t, 0)->last, <, trace_buffer(t, 1)->first);
    trace_free(t);

    /* White space around fields and CRLF line ends (spreadsheet exports) are not part of any value. */
    const char *spaced_csv = " id , lower,upper ,size\t\r\n  b 1 ,\t0, 2 ,4 \r\nb2,3,8 , 16\r\n";
    t = trace_parse(spaced_csv, strlen(spaced_csv), "w.csv", TRUE, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(trace_buffer(t, 0)->name, ==, "b 1");
    g_assert_cmpuint(trace_buffer(t, 0)->first, ==, 0);
    g_assert_cmpuint(trace_buffer(t, 1)->size, ==, 16);
    trace_free(t);
}

static void expect_verify_error(const Trace *t, const guint64 *offsets, const char *expected)
{
    GError *error = NULL;
    g_assert_false(verify_offsets(t, offsets, NULL, &error));
    g_assert_cmpstr(error->message, ==, expected);
    g_error_free(error);
}

static void test_broken_plans_are_caught(void)
{
    Trace *t = parse("arenasim-trace 1\n0 a 100 0 2 align=64\n1 b 100 1 3 align=64\n2 c 100 3 3 align=64\n"
                     "3 p 64 0 3 fixed=512 align=64\n4 g0 64 0 1 group=1:0 align=64\n5 g1 64 0 1 group=1:64 align=64\n");
    Plan *good = plan_verified("greedy-size", t);
    guint64 o[6];
    memcpy(o, good->offsets, sizeof o);
    o[1] = o[0] + 64; /* b moved onto a while both live */
    char *expected = g_strdup_printf("plan is wrong: buffers 0 'a' [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") steps 0..2 "
                                     "and 1 'b' [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") steps 1..3 share bytes [%"
                                     G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") at step 1",
                                     o[0], o[0] + 100, o[1], o[1] + 100, o[1], o[0] + 100);
    expect_verify_error(t, o, expected);
    g_free(expected);
    memcpy(o, good->offsets, sizeof o);
    o[2] = 1000 + 8;
    expect_verify_error(t, o, "plan is wrong: buffer 2 'c' (100 bytes, steps 3..3) is not aligned: offset 1008");
    memcpy(o, good->offsets, sizeof o);
    o[3] = 0;
    expect_verify_error(t, o, "plan is wrong: buffer 3 'p' (64 bytes, steps 0..3) is pinned elsewhere: offset 0");
    memcpy(o, good->offsets, sizeof o);
    o[5] += 64;
    char *moved = g_strdup_printf("plan is wrong: buffer 5 'g1' (64 bytes, steps 0..1) moved within its rigid group: "
                                  "offset %" G_GUINT64_FORMAT, o[5]);
    expect_verify_error(t, o, moved);
    g_free(moved);
    GError *error = NULL;
    guint64 small_arena[1] = {good->arena - 64};
    g_assert_false(verify_offsets(t, good->offsets, small_arena, &error));
    g_assert_true(strstr(error->message, "ends past its arena") != NULL);
    g_error_free(error);
    plan_free(good);
    trace_free(t);
}

static void expect_parse_error(const char *text, gboolean csv, const char *expected)
{
    GError *error = NULL;
    g_assert_null(trace_parse(text, strlen(text), "bad.trace", csv, &error));
    g_assert_cmpstr(error->message, ==, expected);
    g_error_free(error);
}

static void test_malformed_traces(void)
{
    expect_parse_error("", FALSE, "bad.trace:1: empty trace: no header");
    expect_parse_error("hello\n", FALSE, "bad.trace:1: not an arenasim trace (the first line must be 'arenasim-trace 1')");
    expect_parse_error("arenasim-trace 1\n0 a 100 0\n", FALSE,
                       "bad.trace:2: expected 'id name size first last [key=value ...]', got 4 fields");
    expect_parse_error("arenasim-trace 1\n0 a -5 0 1\n", FALSE, "bad.trace:2: size '-5' is not a positive integer");
    expect_parse_error("arenasim-trace 1\n0 a 10 3 1\n", FALSE, "bad.trace:2: last step 1 is before first step 3");
    expect_parse_error("arenasim-trace 1\n1 a 10 0 1\n", FALSE,
                       "bad.trace:2: id 1 out of sequence (ids count up from 0; expected 0)");
    expect_parse_error("arenasim-trace 1\n0 a 10 0 1 align=3\n", FALSE, "bad.trace:2: bad value in 'align=3'");
    expect_parse_error("arenasim-trace 1\n0 a 10 0 1 reuse=0\n", FALSE, "bad.trace:2: bad value in 'reuse=0'");
    expect_parse_error("arenasim-trace 1\n0 a 10 0 1 reuse=some\n", FALSE, "bad.trace:2: bad value in 'reuse=some'");
    expect_parse_error("arenasim-trace 1\n0 a 10 0 1 colour=red\n", FALSE,
                       "bad.trace:2: unknown key 'colour=red' (align, fixed, group, bin, reuse, reads, writes, tier)");
    expect_parse_error("arenasim-trace 1\n0 a 10 0 x\n", FALSE,
                       "bad.trace:2: first '0' and last 'x' must be non-negative integers");
    expect_parse_error("arenasim-trace 1\n0 a 10 0 1 fixed=3 align=4\n", FALSE,
                       "bad.trace: buffer 0 'a': fixed offset is negative or not aligned");
    expect_parse_error("arenasim-trace 1\n0 a 10 0 1 group=1:0 fixed=0\n1 b 10 0 1 group=1:16 fixed=64\n", FALSE,
                       "bad.trace: buffer 1 'b': two members of its group are fixed at offsets that disagree");
    expect_parse_error("id,lower,upper\n", TRUE, "bad.trace:1: the header must name id, lower, upper and size");
    expect_parse_error("id,lower,upper,size\nb1,5,5,4\n", TRUE,
                       "bad.trace:2: upper 5 must be greater than lower 5 (lifetimes are half-open [lower, upper))");
    expect_parse_error("id,lower,upper,size\nb1,0,5,4\nb1,1,2,4\n", TRUE, "bad.trace:3: id 'b1' appears twice");
    expect_parse_error("id,lower,upper,size\nb1,0,5\n", TRUE, "bad.trace:2: 3 fields, the header has 4");
    expect_parse_error("id,lower,upper,size\nb1,0,five,4\n", TRUE,
                       "bad.trace:2: lower '0' and upper 'five' must be non-negative integers");
    expect_parse_error("id,lower,upper,size,colour\n", TRUE, "bad.trace:1: unknown column 'colour'");
}

/* The step profile against its definition, step by step: live bytes the sum of the sizes live then, spanned
 * bytes the highest end among them per bin, summed over bins; on random traces in up to three bins, two plans
 * of each trace computed together. */
static void test_profile_reference(void)
{
    for (guint seed = 1; seed <= 200; seed++) {
        TraceGenOptions o = TRACEGEN_DEFAULTS;
        o.buffers = 10 + seed % 90;
        o.seed = seed;
        o.long_lived = 0.2;
        Trace *t = tracegen_random(&o);
        for (guint k = 0; k < trace_count(t); k++)
            trace_buffer(t, k)->bin = (k * 7 + seed) % (1 + seed % 3);
        GError *error = NULL;
        const Plan *plans[2] = {place_run(registry_place_find("bestfit"), t, &error),
                                place_run(registry_place_find("naive"), t, &error)};
        g_assert_no_error(error);
        MemoryProfile got[2];
        profile_compute_all(t, plans, 2, got);
        guint bins = trace_bins(t);
        guint64 *top = g_new0(guint64, bins);
        for (guint p = 0; p < 2; p++) {
            g_assert_cmpuint(got[p].steps, ==, t->steps);
            for (guint s = 0; s < t->steps; s++) {
                guint64 live = 0, spanned = 0;
                memset(top, 0, bins * sizeof(guint64));
                for (guint k = 0; k < trace_count(t); k++) {
                    const TraceBuffer *b = trace_buffer(t, k);
                    if (b->first <= s && s <= b->last) {
                        live += b->size;
                        top[b->bin] = MAX(top[b->bin], plans[p]->offsets[k] + b->size);
                    }
                }
                for (guint bin = 0; bin < bins; bin++)
                    spanned += top[bin];
                g_assert_cmpuint(got[p].live[s], ==, live);
                g_assert_cmpuint(got[p].spanned[s], ==, spanned);
            }
            profile_clear(&got[p]);
            plan_free((Plan *)plans[p]);
        }
        g_free(top);
        trace_free(t);
    }
}

/* A heuristic given a deadline (as a portfolio gives every candidate but the first), an online one replayed
 * too, gives up once it has passed and leaves no plan: run alone it is an error, not a wrong plan; without
 * one it places everything. A portfolio whose deadline passed names what it cut short. */
static void test_heuristic_deadline(void)
{
    TraceGenOptions o = TRACEGEN_DEFAULTS;
    o.buffers = 20000;
    o.seed = 3;
    Trace *t = tracegen_random(&o);
    const char *names[] = {"greedy-size", "greedy-conflicts", "greedy-breadth", "climb", "firstfit", "bestfit"};
    for (guint k = 0; k < G_N_ELEMENTS(names); k++) {
        PlaceOptions options = test_place_options;
        options.deadline = 1; /* long past */
        GError *error = NULL;
        Plan *p = place_run_with(registry_place_find(names[k]), t, &options, &error);
        g_assert_null(p);
        g_assert_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED);
        g_assert_nonnull(strstr(error->message, "stopped unfinished at the deadline"));
        g_clear_error(&error);
        options.deadline = 0;
        options.climb_steps = 2;
        p = place_run_with(registry_place_find(names[k]), t, &options, &error);
        g_assert_no_error(error);
        g_assert_true(verify_plan(t, p, NULL));
        plan_free(p);
    }
    trace_free(t);
}

/* A portfolio tries its heuristics in an order of its own, and each one after the first stops once it cannot beat
 * the plan it would have to (PlaceOptions.cutoff); the result is what running each alone gives: the smallest
 * arena, of equals the one listed first (named in the detail), its very offsets. Traces of one size make ties.
 * Run alone with its own arena as cutoff, a heuristic (offline, online) leaves no plan and says so; one byte
 * above it, the plan it makes without one. */
static void test_portfolio_cutoff(void)
{
    const char *names[] = {"firstfit", "bestfit", "greedy-size", "greedy-breadth", "greedy-conflicts"};
    guint ties = 0, not_first = 0;
    for (guint seed = 1; seed <= 16; seed++) {
        TraceGenOptions o = TRACEGEN_DEFAULTS;
        o.buffers = 300 + 150 * seed;
        o.seed = seed;
        if (seed % 4 == 0)
            o.min_size = o.max_size = 4096;
        Trace *t = tracegen_random(&o);
        GError *error = NULL;
        Plan *alone[G_N_ELEMENTS(names)];
        guint first = 0, at_min = 0;
        for (guint k = 0; k < G_N_ELEMENTS(names); k++) {
            alone[k] = place_run(registry_place_find(names[k]), t, &error);
            g_assert_no_error(error);
            if (alone[k]->arena < alone[first]->arena)
                first = k;
        }
        for (guint k = 0; k < G_N_ELEMENTS(names); k++)
            at_min += alone[k]->arena == alone[first]->arena;
        ties += at_min > 1;
        not_first += first > 0;
        PlaceOptions options = test_place_options;
        options.search_max = 0; /* the heuristics alone: no exact search, no improver (a work budget under n) */
        options.budget_work = 1;
        Plan *best = place_run_with(registry_place_find("best"), t, &options, &error);
        g_assert_no_error(error);
        g_assert_cmpuint(best->arena, ==, alone[first]->arena);
        char *kept = g_strdup_printf("kept %s", names[first]);
        assert_contains(best->detail, kept);
        g_assert_cmpmem(best->offsets, t->buffers->len * sizeof(guint64), alone[first]->offsets,
                        t->buffers->len * sizeof(guint64));
        g_free(kept);
        plan_free(best);
        for (guint k = 0; k < G_N_ELEMENTS(names); k += 2) { /* firstfit (online), greedy-size, greedy-conflicts */
            options = test_place_options;
            options.cutoff = alone[k]->arena;
            Plan *cut = place_run_with(registry_place_find(names[k]), t, &options, &error);
            g_assert_null(cut);
            g_assert_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED);
            assert_contains(error->message, "stopped at the cutoff it was given");
            g_clear_error(&error);
            options.cutoff = alone[k]->arena + 1;
            cut = place_run_with(registry_place_find(names[k]), t, &options, &error);
            g_assert_no_error(error);
            g_assert_cmpmem(cut->offsets, t->buffers->len * sizeof(guint64), alone[k]->offsets,
                            t->buffers->len * sizeof(guint64));
            plan_free(cut);
        }
        for (guint k = 0; k < G_N_ELEMENTS(names); k++)
            plan_free(alone[k]);
        trace_free(t);
    }
    g_assert_cmpuint(ties, >, 0);      /* the rule for equals was used */
    g_assert_cmpuint(not_first, >, 0); /* and a winner other than the first tried */
}


/* Greedy-by-size's order of 200,000 units under a deadline (sorted in runs of 65,536, merged, the clock read
 * between) is the order one qsort gives without one; with a deadline long past, the sort gives up and the
 * stats say so. */
static void test_order_by_size_timed(void)
{
    GRand *r = g_rand_new_with_seed(11);
    PlaceProblem p = {.units = g_array_new(FALSE, FALSE, sizeof(PlaceUnit)), .steps = 1000};
    for (guint k = 0; k < 200000; k++) {
        guint first = (guint)g_rand_int_range(r, 0, 1000);
        PlaceUnit u = {.size = (guint64)g_rand_int_range(r, 1, 64) * 64, .align = 64, .fixed = TRACE_NONE,
                       .first = first, .last = MIN(first + (guint)g_rand_int_range(r, 0, 50), 999)};
        g_array_append_val(p.units, u);
    }
    PlaceOptions options = test_place_options;
    PlaceStats stats = {0};
    p.options = &options;
    p.stats = &stats;
    guint *plain = g_new(guint, 200000), *timed = g_new(guint, 200000);
    g_assert_true(place_order_by_size(&p, plain));
    options.deadline = g_get_monotonic_time() + (gint64)3600 * G_USEC_PER_SEC;
    g_assert_true(place_order_by_size(&p, timed));
    g_assert_cmpmem(plain, 200000 * sizeof(guint), timed, 200000 * sizeof(guint));
    for (guint k = 1; k < 200000; k++) {
        const PlaceUnit *a = &g_array_index(p.units, PlaceUnit, plain[k - 1]), *b = &g_array_index(p.units, PlaceUnit, plain[k]);
        g_assert_cmpuint(a->size, >=, b->size);
    }
    g_assert_false(stats.gave_up);
    options.deadline = 1; /* long past */
    g_assert_false(place_order_by_size(&p, timed));
    g_assert_true(stats.gave_up);
    g_free(plain);
    g_free(timed);
    g_array_unref(p.units);
    g_rand_free(r);
}

/* `ort` reuses a freed buffer only for one of its class where the trace gives classes (ONNX Runtime's
 * element size and static shape), never one of class none; without classes, by size. Five buffers of
 * 100 B one after another: classes 1, 2, 1, none, none let only the third take the first's buffer, which is
 * then held through the second's life (ORT frees a buffer after its last holder), the second's block above
 * it: every block is 256 B (ORT rounds each allocation so), 256 + 100 = 356 B. By size, one buffer passes
 * down the chain: 100 B. */
static void test_ort_reuse_classes(void)
{
    const char *with = "arenasim-trace 1\n0 a 100 0 1 reuse=1\n1 b 100 2 3 reuse=2\n2 c 100 4 5 reuse=1\n"
                       "3 d 100 6 7 reuse=none\n4 e 100 8 9 reuse=none\n";
    const char *without = "arenasim-trace 1\n0 a 100 0 1\n1 b 100 2 3\n2 c 100 4 5\n3 d 100 6 7\n4 e 100 8 9\n";
    const char *texts[2] = {with, without}, *expected[2] = {"1 of 5 buffers reuse a freed one of their class",
                                                            "4 of 5 buffers reuse a freed one of their exact size"};
    const guint64 arenas[2] = {356, 100};
    for (guint k = 0; k < 2; k++) {
        Trace *t = parse(texts[k]);
        GError *error = NULL;
        Plan *p = place_run(registry_place_find("ort"), t, &error);
        g_assert_no_error(error);
        g_assert_cmpstr(p->detail, ==, expected[k]);
        g_assert_true(verify_plan(t, p, NULL));
        g_assert_cmpuint(p->arena, ==, arenas[k]);
        plan_free(p);
        trace_free(t);
    }
}

/* Pins whose offsets overlap at different steps (one over [0, 4096) late, one at 1024 early) are reserved once,
 * merged: every strategy's plan keeps the free buffers out of them. The fuzzer found 'ort' reserving each pin
 * alone, which took the overlap twice and handed its bytes out. */
static void test_overlapping_pins(void)
{
    static const char text[] = "arenasim-trace 1\nsteps 8\n0 early 256 0 2 fixed=1024\n1 late 4096 5 7 fixed=0\n"
                               "2 a 4096 5 7 align=256\n3 b 4096 5 7 align=256\n4 c 64 0 7\n";
    GError *error = NULL;
    Trace *t = trace_parse(text, sizeof text - 1, "pins.trace", FALSE, &error);
    g_assert_no_error(error);
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    for (guint k = 0; k < count; k++)
        plan_free(plan_verified(all[k]->name, t));
    trace_free(t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/place/arena", test_arena);
    g_test_add_func("/place/ordered-set-reference", test_ordered_set_reference);
    g_test_add_func("/place/freelist", test_freelist);
    g_test_add_func("/place/freelist-reference", test_freelist_reference);
    for (gsize k = 0; k < G_N_ELEMENTS(known_cases); k++) {
        char *path = g_strdup_printf("/place/known-optimum/%s", known_cases[k].name);
        g_test_add_data_func(path, &known_cases[k], test_known_optimum);
        g_free(path);
    }
    g_test_add_func("/place/pins-and-groups", test_pins_and_groups);
    g_test_add_func("/place/property/random-traces", test_property_random_traces);
    g_test_add_func("/place/profile-reference", test_profile_reference);
    g_test_add_func("/place/heuristic-deadline", test_heuristic_deadline);
    g_test_add_func("/place/portfolio-cutoff", test_portfolio_cutoff);
    g_test_add_func("/place/order-by-size-timed", test_order_by_size_timed);
    g_test_add_func("/place/ort-reuse-classes", test_ort_reuse_classes);
    g_test_add_func("/place/gap-finder-reference", test_gap_finder_matches_reference);
    g_test_add_func("/place/keys-sort", test_keys_sort);
    add_corpus_graphs();
    g_test_add_func("/place/liveness", test_liveness);
    g_test_add_func("/place/round-trips", test_round_trips);
    g_test_add_func("/place/broken-plans", test_broken_plans_are_caught);
    g_test_add_func("/place/malformed-traces", test_malformed_traces);
    g_test_add_func("/place/overlapping-pins", test_overlapping_pins);
    return g_test_run();
}
