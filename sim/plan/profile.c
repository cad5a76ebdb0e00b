/* profile.c — live and spanned bytes per step of a plan (see profile.h). */
#include "plan/profile.h"

#include <stdlib.h>

/* A max-heap of the ends of the buffers that have started, per bin; a buffer that has ended leaves when it
 * reaches the top (whatever lies below the top cannot be the highest end). */
typedef struct {
    guint64 end;
    guint last;
} HeapEnd;

static void heap_end_push(GArray *h, HeapEnd e)
{
    g_array_append_val(h, e);
    HeapEnd *a = (HeapEnd *)(void *)h->data;
    for (guint k = h->len - 1; k > 0 && a[(k - 1) / 2].end < a[k].end; k = (k - 1) / 2) {
        HeapEnd x = a[k];
        a[k] = a[(k - 1) / 2];
        a[(k - 1) / 2] = x;
    }
}

static void heap_end_pop(GArray *h)
{
    HeapEnd *a = (HeapEnd *)(void *)h->data;
    a[0] = a[h->len - 1];
    g_array_set_size(h, h->len - 1);
    for (guint k = 0;;) {
        guint l = 2 * k + 1, r = l + 1, top = k;
        if (l < h->len && a[l].end > a[top].end)
            top = l;
        if (r < h->len && a[r].end > a[top].end)
            top = r;
        if (top == k)
            break;
        HeapEnd x = a[k];
        a[k] = a[top];
        a[top] = x;
        k = top;
    }
}

/* The spanned bytes by one sweep over the steps (buffers taken in order of their first step, a heap of ends
 * per bin): O(n log n + steps × bins), however long the buffers live. */
static void profile_spanned(const Trace *t, const Plan *plan, guint bins, guint64 *spanned)
{
    guint n = trace_count(t), steps = t->steps;
    guint *starts = g_new0(guint, (gsize)steps + 2), *by_first = g_new(guint, n + 1);
    for (guint id = 0; id < n; id++)
        starts[trace_buffer(t, id)->first + 1]++;
    for (guint s = 0; s < steps; s++)
        starts[s + 1] += starts[s];
    guint *fill = g_memdup2(starts, ((gsize)steps + 1) * sizeof(guint));
    for (guint id = 0; id < n; id++)
        by_first[fill[trace_buffer(t, id)->first]++] = id;
    g_free(fill);
    GArray **heaps = g_new(GArray *, bins);
    for (guint bin = 0; bin < bins; bin++)
        heaps[bin] = g_array_new(FALSE, FALSE, sizeof(HeapEnd));
    for (guint s = 0; s < steps; s++) {
        for (guint k = starts[s]; k < starts[s + 1]; k++) {
            const TraceBuffer *b = trace_buffer(t, by_first[k]);
            heap_end_push(heaps[b->bin], (HeapEnd){plan->offsets[by_first[k]] + b->size, b->last});
        }
        spanned[s] = 0;
        for (guint bin = 0; bin < bins; bin++) {
            GArray *h = heaps[bin];
            while (h->len && g_array_index(h, HeapEnd, 0).last < s)
                heap_end_pop(h);
            spanned[s] += h->len ? g_array_index(h, HeapEnd, 0).end : 0;
        }
    }
    for (guint bin = 0; bin < bins; bin++)
        g_array_free(heaps[bin], TRUE);
    g_free(heaps);
    g_free(by_first);
    g_free(starts);
}

void profile_compute(const Trace *t, const Plan *plan, MemoryProfile *out)
{
    profile_compute_all(t, &plan, 1, out);
}

void profile_compute_all(const Trace *t, const Plan *const *plans, guint count, MemoryProfile *out)
{
    guint64 *live = count ? trace_live_bytes(t, -1) : NULL;
    for (guint k = 0; k < count; k++) {
        out[k].steps = t->steps;
        out[k].live = k + 1 < count ? g_memdup2(live, MAX(t->steps, 1) * sizeof(guint64)) : live;
        out[k].spanned = g_new0(guint64, MAX(t->steps, 1));
        profile_spanned(t, plans[k], MAX(plans[k]->bins, trace_bins(t)), out[k].spanned);
    }
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
