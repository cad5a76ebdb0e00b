/* registry.c — the one place that lists the strategies (placement, aliasing and operator orders). Adding one: a new file filling a descriptor,
 * one line here, one test. */
#include "registry.h"

#include <string.h>

extern const PlaceStrategy place_naive, place_firstfit, place_bestfit, place_greedy_size, place_greedy_breadth,
    place_greedy_conflicts, place_climb, place_search, place_best;

static const PlaceStrategy *const placement[] = {
    &place_naive, &place_firstfit, &place_bestfit, &place_greedy_size, &place_greedy_breadth,
    &place_greedy_conflicts, &place_climb, &place_search, &place_best,
};

extern const OrderStrategy order_file, order_topo, order_dfs, order_freed, order_lazy, order_event, order_event_gap,
    order_optimal;

static const OrderStrategy *const ordering[] = {
    &order_file, &order_topo, &order_dfs, &order_freed, &order_lazy, &order_event, &order_event_gap, &order_optimal,
};

const OrderStrategy *const *order_strategies(guint *count)
{
    *count = G_N_ELEMENTS(ordering);
    return ordering;
}

const OrderStrategy *order_strategy_find(const char *name)
{
    for (gsize k = 0; k < G_N_ELEMENTS(ordering); k++)
        if (!strcmp(ordering[k]->name, name))
            return ordering[k];
    return NULL;
}

char *order_strategy_names(void)
{
    GString *s = g_string_new(NULL);
    for (gsize k = 0; k < G_N_ELEMENTS(ordering); k++)
        g_string_append_printf(s, "%s%s", k ? ", " : "", ordering[k]->name);
    return g_string_free(s, FALSE);
}

extern const AliasStrategy alias_concat_dedup, alias_runtime, alias_noop, alias_inplace;

/* Application order matters: nested concats claim their inputs before plain ones, runtime layouts
 * before noop views link around them, in-place last (it only reuses what nothing else shares). */
static const AliasStrategy *const aliasing[] = {
    &alias_concat_dedup, &alias_runtime, &alias_noop, &alias_inplace,
};

const AliasStrategy *const *alias_strategies(guint *count)
{
    *count = G_N_ELEMENTS(aliasing);
    return aliasing;
}

const AliasStrategy *alias_strategy_find(const char *name)
{
    for (gsize k = 0; k < G_N_ELEMENTS(aliasing); k++)
        if (!strcmp(aliasing[k]->name, name))
            return aliasing[k];
    return NULL;
}

char *alias_strategy_names(void)
{
    GString *s = g_string_new(NULL);
    for (gsize k = 0; k < G_N_ELEMENTS(aliasing); k++)
        g_string_append_printf(s, "%s%s", k ? ", " : "", aliasing[k]->name);
    return g_string_free(s, FALSE);
}

/* Which registry rows a --alias list names (all, none, or a comma list); FALSE on an unknown name. */
static gboolean alias_list_parse(const char *list, gboolean *chosen, GError **error)
{
    for (gsize k = 0; k < G_N_ELEMENTS(aliasing); k++)
        chosen[k] = !strcmp(list, "all");
    if (!strcmp(list, "all") || !strcmp(list, "none"))
        return TRUE;
    char **names = g_strsplit(list, ",", -1);
    gboolean ok = TRUE;
    for (char **name = names; ok && *name; name++) {
        gsize k = 0;
        while (k < G_N_ELEMENTS(aliasing) && strcmp(aliasing[k]->name, g_strstrip(*name)))
            k++;
        if (k == G_N_ELEMENTS(aliasing)) {
            char *known = alias_strategy_names();
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "unknown alias strategy '%s' (all, none, or of: %s)", *name,
                        known);
            g_free(known);
            ok = FALSE;
        } else {
            chosen[k] = TRUE;
        }
    }
    g_strfreev(names);
    return ok;
}

gboolean alias_list_check(const char *list, GError **error)
{
    gboolean chosen[G_N_ELEMENTS(aliasing)];
    return alias_list_parse(list, chosen, error);
}

gboolean alias_apply_list(AliasMap *m, const char *list, GError **error)
{
    gboolean chosen[G_N_ELEMENTS(aliasing)];
    if (!alias_list_parse(list, chosen, error))
        return FALSE;
    for (gsize k = 0; k < G_N_ELEMENTS(aliasing); k++)
        if (chosen[k] && !aliasing[k]->apply(m, error))
            return FALSE;
    return TRUE;
}

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

const PlaceStrategy *place_strategy_baseline(void)
{
    for (gsize k = 0; k < G_N_ELEMENTS(placement); k++)
        if (placement[k]->role == ROLE_BASELINE)
            return placement[k];
    g_assert_not_reached();
}

gboolean place_keep_smallest(const PlaceProblem *p, gboolean (*take)(const PlaceStrategy *s, const PlaceProblem *p),
                             guint64 *offsets, const PlaceStrategy **winner, guint64 *arena, GError **error)
{
    guint n = p->units->len;
    guint64 *trial = g_new(guint64, n + 1);
    *winner = NULL;
    *arena = G_MAXUINT64;
    for (gsize k = 0; k < G_N_ELEMENTS(placement); k++) {
        if (!take(placement[k], p))
            continue;
        char *ignored = NULL;
        if (!place_problem(placement[k], p, trial, &ignored, error)) {
            g_free(trial);
            return FALSE;
        }
        g_free(ignored);
        guint64 a = place_arena(p, trial);
        if (a < *arena) {
            *arena = a;
            *winner = placement[k];
            memcpy(offsets, trial, n * sizeof(guint64));
        }
    }
    g_free(trial);
    return TRUE;
}

char *place_strategy_names(void)
{
    GString *s = g_string_new(NULL);
    for (gsize k = 0; k < G_N_ELEMENTS(placement); k++)
        g_string_append_printf(s, "%s%s", k ? ", " : "", placement[k]->name);
    return g_string_free(s, FALSE);
}
