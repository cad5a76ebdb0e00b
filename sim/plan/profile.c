/* profile.c — live and spanned bytes per step of a plan (see profile.h). */
#include "plan/profile.h"

#include <stdlib.h>

void profile_compute(const Trace *t, const Plan *plan, MemoryProfile *out)
{
    guint bins = MAX(plan->bins, trace_bins(t));
    guint64 *top = g_new0(guint64, (gsize)t->steps * bins);
    for (guint id = 0; id < trace_count(t); id++) {
        const TraceBuffer *buf = trace_buffer(t, id);
        guint64 end = plan->offsets[id] + buf->size;
        for (guint s = buf->first; s <= buf->last; s++)
            top[(gsize)s * bins + buf->bin] = MAX(top[(gsize)s * bins + buf->bin], end);
    }
    out->steps = t->steps;
    out->live = trace_live_bytes(t, -1);
    out->spanned = g_new0(guint64, MAX(t->steps, 1));
    for (guint s = 0; s < t->steps; s++)
        for (guint bin = 0; bin < bins; bin++)
            out->spanned[s] += top[(gsize)s * bins + bin];
    g_free(top);
}

void profile_clear(MemoryProfile *p)
{
    g_free(p->live);
    g_free(p->spanned);
    p->live = p->spanned = NULL;
}

typedef struct {
    guint id;
    double area; /* bytes × steps */
} ByArea;

static int by_area(const void *a, const void *b)
{
    const ByArea *x = a, *y = b;
    if (x->area != y->area)
        return x->area > y->area ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

guint *profile_by_area(const Trace *t)
{
    guint n = trace_count(t);
    ByArea *order = g_new(ByArea, n + 1);
    for (guint id = 0; id < n; id++) {
        const TraceBuffer *b = trace_buffer(t, id);
        order[id] = (ByArea){id, (double)b->size * (double)(b->last - b->first + 1)};
    }
    qsort(order, n, sizeof(ByArea), by_area);
    guint *ids = g_new(guint, n + 1);
    for (guint k = 0; k < n; k++)
        ids[k] = order[k].id;
    g_free(order);
    return ids;
}

guint64 *profile_bin_bases(const Plan *plan)
{
    guint64 *base = g_new0(guint64, plan->bins + 1);
    for (guint bin = 0; bin < plan->bins; bin++)
        base[bin + 1] = base[bin] + plan->bin_arena[bin];
    return base;
}
