/* place-ort.c — ONNX Runtime's planning rule, rebuilt from its allocation planner and memory-pattern planner
 * (onnxruntime/core/framework/allocation_planner.cc, mem_pattern_planner.h) as a baseline. Two passes:
 * 1. Reuse. In execution order, a buffer that is born takes the buffer of one that has died if they are equal
 *    (the most recently freed first); the buffer is then held until its last holder dies. ORT compares element
 *    size and static shape: where the trace gives reuse classes (--alias ort: the shapes ORT knows before
 *    running), equal means of one class, and a buffer of class `none` is never reused; without classes,
 *    of the same size.
 * 2. Pattern. The buffers are placed in the order they are first needed: the smallest gap between the blocks
 *    live at that moment (sorted by offset, from 0) that fits, the first of equal ones; none fits: just past
 *    the highest live block. A buffer's block is freed when its last holder dies.
 * Every block of the pattern is its tensor's size rounded up to 256 bytes (ORT's kAllocAlignment,
 * core/framework/allocator.h): with --align 256 the arena is the block ORT reserves, to the byte.
 * The plan is what ORT's memory pattern reserves for one input shape (its "pattern" block); the detail says
 * how many buffers reuse another's. Pinned buffers keep their offsets, reserved for the whole run (blocks the
 * others go around). */
#include "plan/freelist.h"
#include "plan/place.h"
#include "base/error.h"

#include <string.h>

static gint by_first(gconstpointer x, gconstpointer y, gpointer data)
{
    const PlaceUnit *u = data;
    guint a = *(const guint *)x, b = *(const guint *)y;
    return (u[a].first > u[b].first) - (u[a].first < u[b].first);
}

static gint by_last(gconstpointer x, gconstpointer y, gpointer data)
{
    const PlaceUnit *u = data;
    guint a = *(const guint *)x, b = *(const guint *)y;
    return (u[a].last > u[b].last) - (u[a].last < u[b].last);
}

/* The size every allocation of ORT rounds up to (kAllocAlignment). */
#define ORT_BLOCK_ALIGN 256

typedef struct {
    guint64 size, align, offset;
    guint64 reuse;     /* the class a freed buffer is offered to (0: by size; TRACE_REUSE_NONE: never) */
    guint first, last; /* first birth and last death among its holders */
    gboolean fixed;    /* a pinned buffer, at its offset */
} Buffer;

/* The free lists' key: a reuse class and a size (the size alone when the trace gives no class). */
typedef struct {
    guint64 reuse, size;
} FreeKey;

static guint free_key_hash(gconstpointer k)
{
    const FreeKey *x = k;
    return g_int64_hash(&x->size) ^ (g_int64_hash(&x->reuse) * 31u);
}

static gboolean free_key_equal(gconstpointer a, gconstpointer b)
{
    const FreeKey *x = a, *y = b;
    return x->reuse == y->reuse && x->size == y->size;
}

static gint by_buffer_last(gconstpointer x, gconstpointer y, gpointer data)
{
    const Buffer *b = data;
    guint a = *(const guint *)x, c = *(const guint *)y;
    if (b[a].last != b[c].last)
        return b[a].last < b[c].last ? -1 : 1;
    return (a > c) - (a < c);
}

static gboolean ort_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    guint n = p->units->len;
    const PlaceUnit *units = (const PlaceUnit *)(void *)p->units->data;
    (void)error;
    guint *born = g_new(guint, n + 1), *dies = g_new(guint, n + 1), *buffer_of = g_new(guint, n + 1);
    for (guint u = 0; u < n; u++)
        born[u] = dies[u] = u;
    place_sort(born, n, by_first, (gpointer)units);
    place_sort(dies, n, by_last, (gpointer)units);
    /* 1. reuse of an equal buffer (of one class, or without classes of one size). ORT scans one free list from
     * its head (most recently freed first) for the first equal buffer; a stack of freed buffers per key is
     * that answer in O(1). */
    GArray *buffers = g_array_new(FALSE, FALSE, sizeof(Buffer));
    GHashTable *freed = g_hash_table_new_full(free_key_hash, free_key_equal, g_free, (GDestroyNotify)g_array_unref);
    guint reused = 0, bi = 0, di = 0;
    while (bi < n || di < n) {
        guint step = bi < n ? units[born[bi]].first : G_MAXUINT;
        if (di < n && units[dies[di]].last < step)
            step = units[dies[di]].last;
        for (; bi < n && units[born[bi]].first == step; bi++) {
            guint u = born[bi];
            guint64 size = units[u].size;
            if (units[u].fixed != TRACE_NONE) { /* pinned: its own block at its offset, never shared */
                Buffer b = {.size = size, .align = 1, .first = step, .fixed = TRUE, .offset = (guint64)units[u].fixed};
                buffer_of[u] = buffers->len;
                g_array_append_val(buffers, b);
                continue;
            }
            guint64 reuse = p->reuse ? p->reuse[u] : 0;
            FreeKey key = {reuse, size};
            GArray *stack = reuse == TRACE_REUSE_NONE ? NULL : g_hash_table_lookup(freed, &key);
            if (stack && stack->len) {
                buffer_of[u] = g_array_index(stack, guint, stack->len - 1);
                g_array_set_size(stack, stack->len - 1);
                Buffer *b = &g_array_index(buffers, Buffer, buffer_of[u]);
                b->align = MAX(b->align, units[u].align);
                reused++;
            } else {
                Buffer b = {.size = size, .align = MAX(units[u].align, 1), .first = step, .reuse = reuse};
                buffer_of[u] = buffers->len;
                g_array_append_val(buffers, b);
            }
        }
        for (; di < n && units[dies[di]].last == step; di++) {
            guint id = buffer_of[dies[di]];
            Buffer *b = &g_array_index(buffers, Buffer, id);
            b->last = step;
            if (b->fixed || b->reuse == TRACE_REUSE_NONE)
                continue;
            FreeKey key = {b->reuse, b->size};
            GArray *stack = g_hash_table_lookup(freed, &key);
            if (!stack) {
                stack = g_array_new(FALSE, FALSE, sizeof(guint));
                g_hash_table_insert(freed, g_memdup2(&key, sizeof(key)), stack);
            }
            g_array_append_val(stack, id);
        }
    }
    g_hash_table_unref(freed);
    /* 2. the memory pattern. ORT walks the live blocks in address order for the smallest gap between them that
     * fits (the first of equal ones), else goes just past the highest: a best-fit free list over the same
     * blocks picks the same offsets when sizes are multiples of their alignment (freelist.h: the top block
     * only when nothing else fits), in O(log n) where the walk is O(live blocks). */
    guint nb = buffers->len;
    Buffer *bufs = (Buffer *)(void *)buffers->data;
    guint *ends = g_new(guint, nb + 1);
    for (guint k = 0; k < nb; k++) /* buffers were made in order of first birth: that is the start order */
        ends[k] = k;
    g_qsort_with_data(ends, (gint)nb, sizeof(guint), by_buffer_last, bufs);
    FreeList *space = freelist_new(FREELIST_BEST_FIT, p->units);
    GArray *pins = place_pinned_ranges(p); /* reserved for the whole run, merged, as replay_online does */
    for (guint k = 0; k < pins->len; k++) {
        const PlaceRange *r = &g_array_index(pins, PlaceRange, k);
        freelist_reserve(space, r->start, r->end - r->start);
    }
    g_array_unref(pins);
    guint si = 0, ei = 0;
    while (si < nb || ei < nb) {
        guint step = si < nb ? bufs[si].first : G_MAXUINT;
        if (ei < nb && bufs[ends[ei]].last < step)
            step = bufs[ends[ei]].last;
        for (; si < nb && bufs[si].first == step; si++)
            if (!bufs[si].fixed)
                bufs[si].offset = freelist_alloc(space, round_up(bufs[si].size, ORT_BLOCK_ALIGN), bufs[si].align);
        for (; ei < nb && bufs[ends[ei]].last == step; ei++)
            if (!bufs[ends[ei]].fixed)
                freelist_release(space, bufs[ends[ei]].offset, round_up(bufs[ends[ei]].size, ORT_BLOCK_ALIGN));
    }
    freelist_free(space);
    for (guint u = 0; u < n; u++)
        offsets[u] = bufs[buffer_of[u]].offset;
    *detail = g_strdup_printf(p->reuse ? "%u of %u buffers reuse a freed one of their class"
                                       : "%u of %u buffers reuse a freed one of their exact size", reused, n);
    g_array_unref(buffers);
    g_free(ends);
    g_free(born);
    g_free(dies);
    g_free(buffer_of);
    return TRUE;
}

const PlaceStrategy place_ort = {
    .name = "ort",
    .summary = "ONNX Runtime's planner: a buffer reuses a freed one of exactly its size, then its memory pattern "
               "places each in the smallest gap between live blocks",
    .kind = PLACE_OFFLINE,
    .role = ROLE_RUNTIME,
    .plan = ort_plan,
};
