/* trace.c — trace construction, validation and the live-bytes lower bound. */
#include "trace/trace.h"
#include "base/error.h"

Trace *trace_new(const char *source)
{
    Trace *t = g_new0(Trace, 1);
    t->buffers = g_array_new(FALSE, TRUE, sizeof(TraceBuffer));
    t->names = g_string_chunk_new(64 * 1024);
    t->source = g_strdup(source ? source : "");
    return t;
}

void trace_free(Trace *t)
{
    if (!t)
        return;
    g_array_unref(t->buffers);
    g_string_chunk_free(t->names);
    g_free(t->source);
    g_free(t->time_points);
    if (t->tiers)
        g_array_unref(t->tiers);
    g_free(t);
}

void trace_reserve(Trace *t, guint n)
{
    if (t->buffers->len || n <= 1024)
        return;
    g_array_unref(t->buffers);
    t->buffers = g_array_sized_new(FALSE, TRUE, sizeof(TraceBuffer), n);
}

Trace *trace_copy(const Trace *t)
{
    Trace *c = trace_new(t->source);
    trace_reserve(c, trace_count(t));
    g_array_append_vals(c->buffers, t->buffers->data, t->buffers->len);
    for (guint k = 0; k < trace_count(c); k++)
        trace_buffer(c, k)->name = g_string_chunk_insert(c->names, trace_buffer(t, k)->name);
    c->steps = t->steps;
    if (t->time_points)
        c->time_points = g_memdup2(t->time_points, sizeof(guint64) * t->steps);
    c->tiers = t->tiers ? g_array_copy(t->tiers) : NULL;
    return c;
}

guint trace_add(Trace *t, const char *name, guint64 size, guint64 align, guint first, guint last)
{
    TraceBuffer b = {
        .name = g_string_chunk_insert(t->names, name), .size = size, .align = align ? align : 1, .first = first, .last = last,
        .fixed = TRACE_NONE, .group = TRACE_NONE, .reads = size, .writes = size,
    };
    g_array_append_val(t->buffers, b);
    if (last + 1 > t->steps)
        t->steps = last + 1;
    return t->buffers->len - 1;
}

static gboolean fail(GError **error, const TraceBuffer *b, guint id, const char *what)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "buffer %u '%s': %s", id, b->name, what);
    return FALSE;
}

/* Sizes and offsets stay far from 2^64 so that no placement arithmetic can overflow. */
#define TRACE_MAX_BYTES ((guint64)1 << 56)
#define TRACE_MAX_TOTAL ((guint64)1 << 62)

/* A tiered trace's own rules: every mask names tiers there are (trace-tiers.h), a rigid group's members share one
 * mask, a pinned buffer (fixed offset) names exactly one tier. */
static gboolean tiers_validate(const Trace *t, GError **error)
{
    guint32 all = t->tiers->len >= 32 ? G_MAXUINT32 : (1u << t->tiers->len) - 1;
    GHashTable *group_mask = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        const char *why = NULL;
        if (b->tiers & ~all)
            why = "may go in a tier there is not";
        else if (b->fixed != TRACE_NONE && (!b->tiers || (b->tiers & (b->tiers - 1))))
            why = "is pinned at an offset but not to one tier (tier=NAME)";
        if (!why && b->group != TRACE_NONE) {
            gpointer seen = NULL;
            if (g_hash_table_lookup_extended(group_mask, &b->group, NULL, &seen)) {
                if (GPOINTER_TO_UINT(seen) != b->tiers)
                    why = "and another member of its group may go in different tiers";
            } else {
                g_hash_table_insert(group_mask, g_memdup2(&b->group, sizeof(gint64)), GUINT_TO_POINTER(b->tiers));
            }
        }
        if (why) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "buffer %u '%s' %s", k, b->name, why);
            ok = FALSE;
        }
    }
    g_hash_table_unref(group_mask);
    return ok;
}

gboolean trace_validate(const Trace *t, GError **error)
{
    guint64 total = 0;
    GHashTable *group_base = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    GHashTable *group_bin = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        total += MIN(b->size, TRACE_MAX_BYTES) + MIN(b->align, TRACE_MAX_BYTES);
        if (b->size == 0)
            ok = fail(error, b, k, "size is 0");
        else if (b->size > TRACE_MAX_BYTES || b->align > TRACE_MAX_BYTES)
            ok = fail(error, b, k, "size or alignment is beyond 2^56 bytes");
        else if (total > TRACE_MAX_TOTAL)
            ok = fail(error, b, k, "the buffers' sizes add up past 2^62 bytes");
        else if (b->fixed != TRACE_NONE && (guint64)b->fixed > TRACE_MAX_BYTES)
            ok = fail(error, b, k, "fixed offset is beyond 2^56 bytes");
        else if (b->group != TRACE_NONE && b->group_offset > TRACE_MAX_BYTES)
            ok = fail(error, b, k, "group offset is beyond 2^56 bytes");
        else if (b->align == 0 || (b->align & (b->align - 1)))
            ok = fail(error, b, k, "alignment is not a power of two");
        else if (b->first > b->last || b->last >= t->steps)
            ok = fail(error, b, k, "lifetime is empty or past the last step");
        else if (b->fixed != TRACE_NONE && (b->fixed < 0 || (guint64)b->fixed % b->align))
            ok = fail(error, b, k, "fixed offset is negative or not aligned");
        else if (b->fixed != TRACE_NONE && (guint64)b->fixed > G_MAXUINT64 - b->size)
            ok = fail(error, b, k, "fixed offset + size overflows");
        if (!ok || b->group == TRACE_NONE)
            continue;
        gpointer bin = g_hash_table_lookup(group_bin, &b->group);
        if (bin && GPOINTER_TO_UINT(bin) != b->bin + 1) {
            ok = fail(error, b, k, "members of one group are in different bins");
            break;
        }
        gint64 *key = g_memdup2(&b->group, sizeof(gint64));
        g_hash_table_insert(group_bin, key, GUINT_TO_POINTER(b->bin + 1));
        if (b->fixed != TRACE_NONE) {
            if ((guint64)b->fixed < b->group_offset) {
                ok = fail(error, b, k, "fixed offset lies below its group's base");
                break;
            }
            gint64 base = b->fixed - (gint64)b->group_offset;
            const gint64 *seen = g_hash_table_lookup(group_base, &b->group);
            if (seen && *seen != base) {
                ok = fail(error, b, k, "two members of its group are fixed at offsets that disagree");
                break;
            }
            g_hash_table_insert(group_base, g_memdup2(&b->group, sizeof(gint64)), g_memdup2(&base, sizeof(gint64)));
        }
    }
    g_hash_table_unref(group_base);
    g_hash_table_unref(group_bin);
    return ok && (!t->tiers || tiers_validate(t, error));
}

guint trace_bins(const Trace *t)
{
    guint bins = t->tiers ? MAX(t->tiers->len, 1) : 1;
    for (guint k = 0; k < trace_count(t); k++)
        bins = MAX(bins, trace_buffer(t, k)->bin + 1);
    return bins;
}

guint64 *trace_live_bytes(const Trace *t, gint bin)
{
    /* Difference array: +size at first, -size after last. */
    gint64 *delta = g_new0(gint64, t->steps + 1);
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        if (bin >= 0 && b->bin != (guint)bin)
            continue;
        delta[b->first] += (gint64)b->size;
        delta[b->last + 1] -= (gint64)b->size;
    }
    guint64 *live = g_new0(guint64, t->steps ? t->steps : 1);
    gint64 running = 0;
    for (guint s = 0; s < t->steps; s++) {
        running += delta[s];
        live[s] = (guint64)running;
    }
    g_free(delta);
    return live;
}

guint64 trace_lower_bound(const Trace *t)
{
    guint64 total = 0;
    guint bins = trace_bins(t);
    for (guint bin = 0; bin < bins; bin++) {
        guint64 *live = trace_live_bytes(t, (gint)bin), best = 0;
        for (guint s = 0; s < t->steps; s++)
            best = MAX(best, live[s]);
        total += best;
        g_free(live);
    }
    return total;
}
