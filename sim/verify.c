/* verify.c — the independent plan checker (see verify.h): per-buffer checks, then one sweep over time
 * with the live buffers of each bin in an offset-ordered tree; a new buffer can only collide with its
 * neighbours in that tree, because the live set is kept disjoint. */
#include "verify.h"
#include "graph.h"

#include <stdlib.h>

static gboolean buffer_error(GError **error, const Trace *t, guint id, const char *what, guint64 value)
{
    const TraceBuffer *b = trace_buffer(t, id);
    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "plan is wrong: buffer %u '%s' (%" G_GUINT64_FORMAT " bytes, steps %u..%u) %s %"
                G_GUINT64_FORMAT, id, b->name, b->size, b->first, b->last, what, value);
    return FALSE;
}

typedef struct {
    guint64 start, end;
    guint id, bin;
} Live;

static gint live_cmp(gconstpointer a, gconstpointer b, gpointer unused)
{
    (void)unused;
    const Live *x = a, *y = b;
    if (x->bin != y->bin)
        return x->bin < y->bin ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static gboolean overlap_error(GError **error, const Trace *t, const Live *a, const Live *b)
{
    const TraceBuffer *x = trace_buffer(t, a->id), *y = trace_buffer(t, b->id);
    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                "plan is wrong: buffers %u '%s' [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") steps %u..%u and %u '%s' [%"
                G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") steps %u..%u share bytes [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                ") at step %u", a->id, x->name, a->start, a->end, x->first, x->last, b->id, y->name, b->start, b->end,
                y->first, y->last, MAX(a->start, b->start), MIN(a->end, b->end), MAX(x->first, y->first));
    return FALSE;
}

typedef struct {
    guint time;
    gboolean insert;
    guint id;
} Event;

static int event_cmp(const void *a, const void *b)
{
    const Event *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->insert != y->insert)
        return x->insert ? 1 : -1; /* removals first: a buffer dead after step s frees it for s + 1 */
    return x->id < y->id ? -1 : x->id > y->id;
}

static gboolean check_overlaps(const Trace *t, const guint64 *offsets, GError **error)
{
    guint n = trace_count(t);
    Live *live = g_new(Live, n + 1);
    Event *events = g_new(Event, 2 * (gsize)n + 1);
    for (guint k = 0; k < n; k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        live[k] = (Live){offsets[k], offsets[k] + b->size, k, b->bin};
        events[2 * k] = (Event){b->first, TRUE, k};
        events[2 * k + 1] = (Event){b->last + 1, FALSE, k};
    }
    qsort(events, 2 * (gsize)n, sizeof(Event), event_cmp);
    GTree *active = g_tree_new_full(live_cmp, NULL, NULL, NULL);
    gboolean ok = TRUE;
    for (gsize e = 0; ok && e < 2 * (gsize)n; e++) {
        Live *x = &live[events[e].id];
        if (!events[e].insert) {
            g_tree_remove(active, x);
            continue;
        }
        GTreeNode *next = g_tree_lower_bound(active, x);
        GTreeNode *prev = next ? g_tree_node_previous(next) : g_tree_node_last(active);
        Live *p = prev ? g_tree_node_key(prev) : NULL, *q = next ? g_tree_node_key(next) : NULL;
        if (p && p->bin == x->bin && p->end > x->start)
            ok = overlap_error(error, t, p, x);
        else if (q && q->bin == x->bin && q->start < x->end)
            ok = overlap_error(error, t, x, q);
        else
            g_tree_insert(active, x, x);
    }
    g_tree_destroy(active);
    g_free(events);
    g_free(live);
    return ok;
}

gboolean verify_offsets(const Trace *t, const guint64 *offsets, const guint64 *bin_arena, GError **error)
{
    GHashTable *group_base = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        if (offsets[k] % b->align)
            ok = buffer_error(error, t, k, "is not aligned: offset", offsets[k]);
        else if (b->fixed != TRACE_NONE && offsets[k] != (guint64)b->fixed)
            ok = buffer_error(error, t, k, "is pinned elsewhere: offset", offsets[k]);
        else if (offsets[k] > G_MAXUINT64 - b->size)
            ok = buffer_error(error, t, k, "overflows the address space: offset", offsets[k]);
        else if (bin_arena && offsets[k] + b->size > bin_arena[b->bin])
            ok = buffer_error(error, t, k, "ends past its arena: end", offsets[k] + b->size);
        if (ok && b->group != TRACE_NONE) {
            guint64 base = offsets[k] - b->group_offset;
            const guint64 *seen = g_hash_table_lookup(group_base, &b->group);
            if (offsets[k] < b->group_offset || (seen && *seen != base))
                ok = buffer_error(error, t, k, "moved within its rigid group: offset", offsets[k]);
            else if (!seen)
                g_hash_table_insert(group_base, g_memdup2(&b->group, sizeof(gint64)), g_memdup2(&base, sizeof(guint64)));
        }
    }
    g_hash_table_unref(group_base);
    return ok && check_overlaps(t, offsets, error);
}

gboolean verify_plan(const Trace *t, const Plan *p, GError **error)
{
    return verify_offsets(t, p->offsets, p->bin_arena, error);
}
