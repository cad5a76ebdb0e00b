/* profile.c — live and spanned bytes per step of a plan (see profile.h). */
#include "plan/profile.h"

void memory_profile_compute(const Trace *t, const Plan *plan, MemoryProfile *out)
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

void memory_profile_clear(MemoryProfile *p)
{
    g_free(p->live);
    g_free(p->spanned);
    p->live = p->spanned = NULL;
}
