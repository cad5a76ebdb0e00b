/* tracegen.c — random trace generation (see tracegen.h). About 8 buffers start per step, so the live
 * set stays in the tens to hundreds as in real graphs, at any trace length; deterministic for a seed. */
#include "tracegen.h"

#include <math.h>

/* Long-lived buffers (residual streams, skip connections) live for a stretch of the graph, not all of
 * it: bounding their lifetime keeps the number live at once independent of the trace's length, as in
 * real graphs, instead of growing with it. */
#define LONG_LIFE 2000

Trace *trace_random(const TraceGenOptions *o)
{
    GRand *r = g_rand_new_with_seed(o->seed);
    guint steps = MAX(o->buffers / 8, 4);
    Trace *t = trace_new("random");
    double lo = log((double)MAX(o->min_size, 1)), hi = log((double)MAX(o->max_size, o->min_size));
    for (guint k = 0; k < o->buffers; k++) {
        guint first = (guint)g_rand_int_range(r, 0, (gint32)steps);
        guint length;
        if (g_rand_double(r) < o->long_lived) /* long-lived: up to half the trace, at most LONG_LIFE steps */
            length = (guint)g_rand_int_range(r, 1, (gint32)MIN(steps / 2, LONG_LIFE) + 2);
        else
            length = (guint)floor(-log(1.0 - g_rand_double(r)) * 4.0); /* geometric-like, mean 4 steps */
        guint last = MIN(first + length, steps - 1);
        guint64 size = (guint64)exp(lo + (hi - lo) * g_rand_double(r));
        guint64 align = o->align ? o->align : (guint64)1 << g_rand_int_range(r, 0, 9);
        char name[32];
        g_snprintf(name, sizeof name, "b%u", k);
        trace_add(t, name, MAX(size, 1), align, first, last);
    }
    t->steps = steps;
    g_rand_free(r);
    return t;
}
