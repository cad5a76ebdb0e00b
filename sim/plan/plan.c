/* plan.c — the Plan's one function: freeing it (the type is plan.h's). */
#include "plan/plan.h"

void plan_free(Plan *p)
{
    if (!p)
        return;
    g_free(p->offsets);
    g_free(p->bin_arena);
    g_free(p->detail);
    g_free(p);
}
