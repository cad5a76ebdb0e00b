/* place-ort.c — ONNX Runtime's planning rule, rebuilt from its allocation planner and memory-pattern planner
 * (onnxruntime/core/framework/allocation_planner.cc, mem_pattern_planner.h) as a baseline. Two passes:
 * 1. Reuse. In execution order, a buffer that is born takes the buffer of one that has died if their sizes
 *    are exactly equal (the most recently freed first); the buffer is then held until its last holder dies.
 * 2. Pattern. The buffers are placed in the order they are first needed: the smallest gap between the blocks
 *    live at that moment (sorted by offset, from 0) that fits, the first of equal ones; none fits: just past
 *    the highest live block. A buffer's block is freed when its last holder dies.
 * The plan is what ORT's memory pattern reserves for one input shape (its "pattern" block); the detail says
 * how many buffers reuse another's. Pinned buffers keep their offsets, reserved for the whole run (blocks the
 * others go around). */
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

typedef struct {
    guint64 size, align, offset;
    guint first, last; /* first birth and last death among its holders */
    gboolean fixed;    /* a pinned buffer, at its offset */
} Buffer;

static guint64 align_up(guint64 v, guint64 a) { return a > 1 ? (v + a - 1) / a * a : v; }

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
    /* 1. reuse of exactly equal sizes: the free list, most recently freed at its head */
    GArray *buffers = g_array_new(FALSE, FALSE, sizeof(Buffer));
    GQueue freelist = G_QUEUE_INIT;
    GHashTable *free_by_size = g_hash_table_new(g_int64_hash, g_int64_equal); /* size -> count on the list */
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
            gpointer count = g_hash_table_lookup(free_by_size, &size);
            GList *hit = NULL;
            for (GList *l = count ? freelist.head : NULL; l && !hit; l = l->next)
                if (g_array_index(buffers, Buffer, GPOINTER_TO_UINT(l->data)).size == size)
                    hit = l;
            if (hit) {
                buffer_of[u] = GPOINTER_TO_UINT(hit->data);
                g_queue_delete_link(&freelist, hit);
                Buffer *b = &g_array_index(buffers, Buffer, buffer_of[u]);
                if (GPOINTER_TO_UINT(count) == 1)
                    g_hash_table_remove(free_by_size, &b->size);
                else
                    g_hash_table_insert(free_by_size, &b->size, GUINT_TO_POINTER(GPOINTER_TO_UINT(count) - 1));
                b->align = MAX(b->align, units[u].align);
                reused++;
            } else {
                Buffer b = {.size = size, .align = MAX(units[u].align, 1), .first = step};
                buffer_of[u] = buffers->len;
                g_array_append_val(buffers, b);
            }
        }
        for (; di < n && units[dies[di]].last == step; di++) {
            Buffer *b = &g_array_index(buffers, Buffer, buffer_of[dies[di]]);
            b->last = step;
            if (b->fixed)
                continue;
            g_queue_push_head(&freelist, GUINT_TO_POINTER(buffer_of[dies[di]]));
            gpointer count = g_hash_table_lookup(free_by_size, &b->size);
            g_hash_table_insert(free_by_size, &b->size, GUINT_TO_POINTER(GPOINTER_TO_UINT(count) + 1));
        }
    }
    g_queue_clear(&freelist);
    g_hash_table_unref(free_by_size);
    /* 2. the memory pattern: blocks live at each moment, sorted by offset */
    guint nb = buffers->len;
    Buffer *bufs = (Buffer *)(void *)buffers->data;
    guint *starts = g_new(guint, nb + 1), *ends = g_new(guint, nb + 1);
    for (guint k = 0; k < nb; k++) /* buffers were made in order of first birth: starts is that order */
        starts[k] = ends[k] = k;
    g_qsort_with_data(ends, (gint)nb, sizeof(guint), by_buffer_last, bufs);
    GArray *live = g_array_new(FALSE, FALSE, sizeof(guint)); /* buffer ids, by offset */
    for (guint k = 0; k < nb; k++) /* pinned blocks are reserved for the whole run, as replay_online does */
        if (bufs[k].fixed) {
            guint at = 0;
            while (at < live->len && bufs[g_array_index(live, guint, at)].offset < bufs[k].offset)
                at++;
            g_array_insert_val(live, at, k);
        }
    guint si = 0, ei = 0;
    while (si < nb || ei < nb) {
        guint step = si < nb ? bufs[starts[si]].first : G_MAXUINT;
        if (ei < nb && bufs[ends[ei]].last < step)
            step = bufs[ends[ei]].last;
        for (; si < nb && bufs[starts[si]].first == step; si++) {
            Buffer *b = &bufs[starts[si]];
            guint64 current = 0, waste = G_MAXUINT64, best = 0;
            guint at = live->len;
            guint id = starts[si];
            if (b->fixed) /* live from the start (below) */
                continue;
            if (live->len) {
                const Buffer *top = &bufs[g_array_index(live, guint, live->len - 1)];
                best = align_up(top->offset + top->size, b->align);
            }
            for (guint k = 0; k < live->len; k++) {
                const Buffer *l = &bufs[g_array_index(live, guint, k)];
                guint64 from = align_up(current, b->align);
                if (l->offset >= from && l->offset - from >= b->size && l->offset - from - b->size < waste) {
                    waste = l->offset - from - b->size;
                    best = from;
                    at = k;
                }
                current = l->offset + l->size;
            }
            b->offset = best;
            g_array_insert_val(live, at, id);
        }
        for (; ei < nb && bufs[ends[ei]].last == step; ei++)
            for (guint k = 0; !bufs[ends[ei]].fixed && k < live->len; k++)
                if (g_array_index(live, guint, k) == ends[ei]) {
                    g_array_remove_index(live, k);
                    break;
                }
    }
    for (guint u = 0; u < n; u++)
        offsets[u] = bufs[buffer_of[u]].offset;
    *detail = g_strdup_printf("%u of %u buffers reuse a freed one of their exact size", reused, n);
    g_array_unref(live);
    g_array_unref(buffers);
    g_free(starts);
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
