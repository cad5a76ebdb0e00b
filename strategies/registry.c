/* registry.c — the one place that lists the strategies. Adding one: a new file filling a descriptor,
 * one line here, one test. */
#include "registry.h"

#include <string.h>

extern const PlaceStrategy place_naive, place_firstfit, place_bestfit, place_greedy_size, place_greedy_breadth,
    place_greedy_conflicts, place_best;

static const PlaceStrategy *const placement[] = {
    &place_naive, &place_firstfit, &place_bestfit, &place_greedy_size, &place_greedy_breadth,
    &place_greedy_conflicts, &place_best,
};

const PlaceStrategy *const *place_strategies(guint *count)
{
    *count = G_N_ELEMENTS(placement);
    return placement;
}

const PlaceStrategy *place_strategy_find(const char *name)
{
    for (gsize k = 0; k < G_N_ELEMENTS(placement); k++)
        if (!strcmp(placement[k]->name, name))
            return placement[k];
    return NULL;
}

char *place_strategy_names(void)
{
    GString *s = g_string_new(NULL);
    for (gsize k = 0; k < G_N_ELEMENTS(placement); k++)
        g_string_append_printf(s, "%s%s", k ? ", " : "", placement[k]->name);
    return g_string_free(s, FALSE);
}
