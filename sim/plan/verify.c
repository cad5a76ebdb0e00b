/* verify.c — the independent plan checker (see verify.h): per-buffer checks, then one sweep over time
 * with the live buffers of each bin in an offset-ordered tree; a new buffer can only collide with its
 * neighbours in that tree, because the live set is kept disjoint. */
#include "plan/verify.h"
#include "base/error.h"
#include "base/ordered-set.h"
#include "base/record-pool.h"
#include "trace/trace-tiers.h"


static gboolean buffer_error(GError **error, const Trace *t, guint id, const char *what, guint64 value)
{
    const TraceBuffer *b = trace_buffer(t, id);
    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "plan is wrong: buffer %u '%s' (%" G_GUINT64_FORMAT " bytes, steps %u..%u) %s %"
                G_GUINT64_FORMAT, id, b->name, b->size, b->first, b->last, what, value);
    return FALSE;
}

/* A live buffer in the sweep's index: ordered by (bin, offset). Two live buffers of one bin never share an
 * offset (sizes are positive and the live set is kept disjoint), so the pair is a total order. */
typedef struct {
    OrderedNode node; /* key = bin, tie = start */
    guint64 end;
    guint id;
} Live;

#define LIVE_START(l) ((l)->node.tie)
#define LIVE_BIN(l) ((l)->node.key)

/* What the sweep needs of each buffer, gathered in id order in one pass, so that meeting a buffer in step
 * order costs one cache miss, not one in the trace and one in the offsets. */
typedef struct {
    guint64 start, end;
    Live *live; /* its record in the index while it lives */
    guint bin;
} Span;

static gboolean overlap_error(GError **error, const Trace *t, const Live *a, const Live *b)
{
    const TraceBuffer *x = trace_buffer(t, a->id), *y = trace_buffer(t, b->id);
    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                "plan is wrong: buffers %u '%s' [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") steps %u..%u and %u '%s' [%"
                G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") steps %u..%u share bytes [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                ") at step %u", a->id, x->name, LIVE_START(a), a->end, x->first, x->last, b->id, y->name, LIVE_START(b), b->end,
                y->first, y->last, MAX(LIVE_START(a), LIVE_START(b)), MIN(a->end, b->end), MAX(x->first, y->first));
    return FALSE;
}

/* Buffer ids grouped by a step (their first step, or the step after their last), ascending within a step:
 * a counting sort, so a million-buffer sweep costs no comparison sort. CSR: step s's ids are
 * ids[start[s]] .. ids[start[s + 1] - 1]. */
static guint *ids_by_step(const Trace *t, guint steps, gboolean by_end, guint **start_out)
{
    guint n = trace_count(t);
    guint *start = g_new0(guint, (gsize)steps + 2), *ids = g_new(guint, n + 1);
    for (guint k = 0; k < n; k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        start[(by_end ? b->last + 1 : b->first) + 1]++;
    }
    for (guint s = 0; s <= steps; s++)
        start[s + 1] += start[s];
    guint *fill = g_memdup2(start, ((gsize)steps + 2) * sizeof(guint));
    for (guint k = 0; k < n; k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        ids[fill[by_end ? b->last + 1 : b->first]++] = k;
    }
    g_free(fill);
    *start_out = start;
    return ids;
}

static gboolean check_overlaps(const Trace *t, const guint64 *offsets, GError **error)
{
    guint n = trace_count(t), steps = 0;
    Span *spans = g_new(Span, n + 1);
    for (guint k = 0; k < n; k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        spans[k] = (Span){offsets[k], offsets[k] + b->size, NULL, b->bin};
        steps = MAX(steps, b->last + 1);
    }
    /* At each step, the buffers dead after the step before leave first (they free their bytes for this
     * one), then the buffers born here enter, each checked against its neighbours in the live set. */
    guint *born_at, *gone_at;
    guint *born = ids_by_step(t, steps, FALSE, &born_at), *gone = ids_by_step(t, steps, TRUE, &gone_at);
    RecordPool *records = record_pool_new(sizeof(Live));
    OrderedSet active;
    ordered_set_init(&active);
    gboolean ok = TRUE;
    /* Buffers are met in step order, not in id order: each loop asks for the records it will read
     * PREFETCH_AHEAD iterations on, so the cache misses overlap. */
    enum { PREFETCH_AHEAD = 16 };
    for (guint s = 0; ok && s <= steps; s++) {
        for (guint e = gone_at[s]; e < gone_at[s + 1]; e++) {
            if (e + PREFETCH_AHEAD < n)
                __builtin_prefetch(&spans[gone[e + PREFETCH_AHEAD]]);
            Live *x = spans[gone[e]].live;
            ordered_set_remove(&active, &x->node);
            record_pool_give(records, x);
        }
        for (guint e = born_at[s]; ok && e < born_at[s + 1]; e++) {
            if (e + PREFETCH_AHEAD < n)
                __builtin_prefetch(&spans[born[e + PREFETCH_AHEAD]]);
            guint id = born[e];
            Span *b = &spans[id];
            Live *x = record_pool_take(records);
            x->node.key = b->bin;
            x->node.tie = b->start;
            x->end = b->end;
            x->id = id;
            /* Linked first, then checked against its neighbours: one descent. A buffer at the offset of
             * a live one lands before it (the newest of equal pairs comes first), so that one is q; the
             * two are named in id order. */
            ordered_set_insert(&active, &x->node);
            b->live = x;
            Live *p = (Live *)(void *)ordered_set_prev(&x->node), *q = (Live *)(void *)ordered_set_next(&x->node);
            if (p && LIVE_BIN(p) == b->bin && p->end > LIVE_START(x))
                ok = overlap_error(error, t, p, x);
            else if (q && LIVE_BIN(q) == b->bin && LIVE_START(q) < x->end)
                ok = LIVE_START(q) == LIVE_START(x) && q->id < x->id ? overlap_error(error, t, q, x)
                                                                      : overlap_error(error, t, x, q);
        }
    }
    record_pool_free(records);
    g_free(spans);
    g_free(born);
    g_free(born_at);
    g_free(gone);
    g_free(gone_at);
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

/* A tiered plan: every buffer in the tier its plan chose and may use, every tier's arena within its capacity. */
static gboolean check_tiers(const Trace *t, const Plan *p, GError **error)
{
    if (!p->tier || p->bins < t->tiers->len) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "plan is wrong: the trace has %u tiers and the plan chose none",
                    t->tiers->len);
        return FALSE;
    }
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        if (p->tier[k] >= t->tiers->len || b->bin != p->tier[k])
            return buffer_error(error, t, k, "is not in the tier its plan chose: bin", b->bin);
        if (!(trace_tiers_allowed(t, b) & (1u << b->bin)))
            return buffer_error(error, t, k, "is in a tier it may not use: tier", b->bin);
    }
    for (guint j = 0; j < t->tiers->len; j++) {
        const TraceTier *tier = trace_tier(t->tiers, j);
        if (p->bin_arena[j] > tier->capacity) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "plan is wrong: tier '%s' holds %" G_GUINT64_FORMAT
                        " bytes, past its capacity of %" G_GUINT64_FORMAT, tier->name, p->bin_arena[j], tier->capacity);
            return FALSE;
        }
    }
    return TRUE;
}

gboolean verify_plan(const Trace *t, const Plan *p, GError **error)
{
    return (!t->tiers || check_tiers(t, p, error)) && verify_offsets(t, p->offsets, p->bin_arena, error);
}
