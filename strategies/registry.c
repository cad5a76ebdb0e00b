/* registry.c — the one place that lists the strategies: placement, operator orders, aliasing. Adding one is
 * a new file filling a descriptor plus one row here; `sim --list`, `--compare`, the tests (which enumerate
 * these tables) and the portfolios (best, search's incumbents, optimal's incumbents) pick it up from here. */
#include "strategies/registry.h"

#include <string.h>

extern const PlaceStrategy place_naive, place_firstfit, place_bestfit, place_greedy_size, place_greedy_breadth,
    place_greedy_conflicts, place_climb, place_search, place_search_minimalloc, place_best, place_ort, place_pytorch,
    place_banked_greedy, place_tiered;
extern const StructuredStrategy structured_first_fit, structured_greedy, structured_search;

const PlaceStrategy *const registry_place[] = {
    &place_naive, &place_firstfit, &place_bestfit, &place_greedy_size, &place_greedy_breadth,
    &place_greedy_conflicts, &place_climb, &place_search, &place_search_minimalloc, &place_best, &place_ort, &place_pytorch,
    &place_banked_greedy, &place_tiered,
    NULL,
};

extern const OrderStrategy order_file, order_topo, order_dfs, order_ort, order_freed, order_lazy, order_event, order_event_gap,
    order_local, order_optimal;

const OrderStrategy *const registry_order[] = {
    &order_file, &order_topo, &order_dfs, &order_ort, &order_freed,
    &order_lazy, &order_event, &order_event_gap, &order_local, &order_optimal, NULL,
};

extern const AliasStrategy alias_concat_dedup, alias_runtime, alias_noop, alias_inplace, alias_ort;

/* Strategies for structured problems (schema-v1 files, docs/structured.md); the first is the default. */
const StructuredStrategy *const registry_structured[] = {
    &structured_search, &structured_greedy, &structured_first_fit, NULL,
};

/* Application order matters: nested concats claim their inputs before plain ones, runtime layouts
 * before noop views link around them, in-place last (it only reuses what nothing else shares). */
const AliasStrategy *const registry_alias[] = {
    &alias_concat_dedup, &alias_runtime, &alias_noop, &alias_inplace, &alias_ort, NULL,
};

/* Every descriptor starts with its name (C11 6.7.2.1: a pointer to a struct, converted, points to its first
 * member), so one lookup and one name list serve the three tables. */
static const char *row_name(const void *row)
{
    return *(const char *const *)row;
}

static guint table_size(const void *const *table)
{
    guint n = 0;
    while (table[n])
        n++;
    return n;
}

static gconstpointer table_find(const void *const *table, const char *name)
{
    for (guint k = 0; name && table[k]; k++)
        if (!strcmp(row_name(table[k]), name))
            return table[k];
    return NULL;
}

static char *table_names(const void *const *table)
{
    GString *s = g_string_new(NULL);
    for (guint k = 0; table[k]; k++)
        g_string_append_printf(s, "%s%s", k ? ", " : "", row_name(table[k]));
    return g_string_free(s, FALSE);
}

#define TABLE(t) ((const void *const *)(t))

PlaceOptions registry_place_options(void)
{
    PlaceOptions o = PLACE_OPTIONS_DEFAULTS;
    o.portfolio = registry_place;
    return o;
}

const PlaceStrategy *const *registry_place_strategies(guint *count)
{
    *count = table_size(TABLE(registry_place));
    return registry_place;
}

const PlaceStrategy *registry_place_find(const char *name)
{
    return table_find(TABLE(registry_place), name);
}

char *registry_place_names(void)
{
    return table_names(TABLE(registry_place));
}

const PlaceStrategy *registry_place_baseline(void)
{
    for (guint k = 0; registry_place[k]; k++)
        if (registry_place[k]->role == ROLE_BASELINE)
            return registry_place[k];
    g_assert_not_reached();
}

const StructuredStrategy *registry_structured_find(const char *name)
{
    return table_find(TABLE(registry_structured), name);
}

char *registry_structured_names(void)
{
    return table_names(TABLE(registry_structured));
}

StructuredOptions registry_structured_options(void)
{
    return (StructuredOptions){.budget_work = 0, .portfolio = registry_structured};
}

const OrderStrategy *const *registry_order_strategies(guint *count)
{
    *count = table_size(TABLE(registry_order));
    return registry_order;
}

const OrderStrategy *registry_order_find(const char *name)
{
    return table_find(TABLE(registry_order), name);
}

char *registry_order_names(void)
{
    return table_names(TABLE(registry_order));
}

const AliasStrategy *const *registry_alias_strategies(guint *count)
{
    *count = table_size(TABLE(registry_alias));
    return registry_alias;
}

const AliasStrategy *registry_alias_find(const char *name)
{
    return table_find(TABLE(registry_alias), name);
}

char *registry_alias_names(void)
{
    return table_names(TABLE(registry_alias));
}

static gpointer short_list_make(gpointer unused)
{
    (void)unused;
    GString *list = g_string_new(NULL);
    for (guint k = 0; registry_alias[k]; k++)
        if (!registry_alias[k]->runtime_rule && !registry_alias[k]->lengthens)
            g_string_append_printf(list, "%s%s", list->len ? "," : "", registry_alias[k]->name);
    return g_string_free(list, FALSE);
}

const char *registry_alias_short_list(void)
{
    static GOnce once = G_ONCE_INIT;
    return g_once(&once, short_list_make, NULL);
}

/* Which registry rows a --alias list names (all, none, or a comma list); FALSE on an unknown name. */
static gboolean alias_list_parse(const char *list, gboolean *chosen, GError **error)
{
    guint n = table_size(TABLE(registry_alias));
    for (guint k = 0; k < n; k++) /* "all": every opportunity, not a runtime's narrower rule */
        chosen[k] = !strcmp(list, "all") && !registry_alias[k]->runtime_rule;
    if (!strcmp(list, "all") || !strcmp(list, "none"))
        return TRUE;
    char **names = g_strsplit(list, ",", -1);
    gboolean ok = TRUE;
    for (char **name = names; ok && *name; name++) {
        guint k = 0;
        while (k < n && strcmp(registry_alias[k]->name, g_strstrip(*name)))
            k++;
        if (k == n) {
            char *known = registry_alias_names();
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

gboolean registry_alias_list_check(const char *list, GError **error)
{
    gboolean chosen[G_N_ELEMENTS(registry_alias)];
    return alias_list_parse(list, chosen, error);
}

const AliasStrategy **registry_alias_list_resolve(const char *list, GError **error)
{
    gboolean chosen[G_N_ELEMENTS(registry_alias)];
    if (!alias_list_parse(list, chosen, error))
        return NULL;
    const AliasStrategy **out = g_new0(const AliasStrategy *, G_N_ELEMENTS(registry_alias));
    guint n = 0;
    for (guint k = 0; registry_alias[k]; k++)
        if (chosen[k])
            out[n++] = registry_alias[k];
    return out;
}

gboolean registry_alias_apply_list(AliasMap *m, const char *list, GError **error)
{
    const AliasStrategy **chosen = registry_alias_list_resolve(list, error);
    gboolean ok = chosen != NULL;
    for (guint k = 0; ok && chosen[k]; k++)
        ok = chosen[k]->apply(m, error);
    g_free(chosen);
    return ok;
}

gboolean registry_order_list_parse(const char *list, GPtrArray *chosen, GError **error)
{
    if (!strcmp(list, "all")) {
        for (guint k = 0; registry_order[k]; k++)
            g_ptr_array_add(chosen, (gpointer)registry_order[k]);
        return TRUE;
    }
    char **names = g_strsplit(list, ",", -1);
    gboolean ok = TRUE;
    for (char **name = names; ok && *name; name++) {
        const OrderStrategy *s = registry_order_find(g_strstrip(*name));
        if (s) {
            g_ptr_array_add(chosen, (gpointer)s);
        } else {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "unknown order '%s' in --orders", *name);
            ok = FALSE;
        }
    }
    g_strfreev(names);
    return ok;
}
