/* plan.c — the Plan's functions: freeing it, its tiers into its trace (the type is plan.h's). */
#include "plan/plan.h"

void plan_free(Plan *p)
{
    if (!p)
        return;
    g_free(p->offsets);
    g_free(p->bin_arena);
    g_free(p->detail);
    g_free(p->tier);
    g_free(p);
}

void plan_tiers_apply(const Plan *p, Trace *t)
{
    for (guint k = 0; p->tier && k < trace_count(t); k++)
        trace_buffer(t, k)->bin = p->tier[k];
}
