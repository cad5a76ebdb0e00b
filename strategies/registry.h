/* registry.h — the strategy registry: the one list of placement, alias and order strategies (registry.c). */
#ifndef STRATEGIES_REGISTRY_H
#define STRATEGIES_REGISTRY_H

#include "alias.h"
#include "order.h"
#include "place.h"

/* All placement strategies, in listing order; *count receives how many. */
const PlaceStrategy *const *place_strategies(guint *count);
/* By name; NULL when unknown. */
const PlaceStrategy *place_strategy_find(const char *name);
/* The no-reuse baseline every report compares against. */
const PlaceStrategy *place_strategy_baseline(void);
/* Runs every placement strategy `take` accepts on the problem and keeps the smallest arena's offsets
 * (problem units); *winner is the one kept (NULL when none ran) and *arena its arena. */
gboolean place_keep_smallest(const PlaceProblem *p, gboolean (*take)(const PlaceStrategy *s, const PlaceProblem *p),
                             guint64 *offsets, const PlaceStrategy **winner, guint64 *arena, GError **error);
/* "naive, firstfit, ..." for messages. Newly allocated. */
char *place_strategy_names(void);

/* Operator orders. */
const OrderStrategy *const *order_strategies(guint *count);
const OrderStrategy *order_strategy_find(const char *name);
char *order_strategy_names(void);

/* Alias strategies in the order they apply (concat-dedup, runtime, noop, inplace). */
const AliasStrategy *const *alias_strategies(guint *count);
const AliasStrategy *alias_strategy_find(const char *name);
char *alias_strategy_names(void);
/* Applies the strategies named in `list` ("all", "none" or comma-separated names), in registry order. */
gboolean alias_apply_list(AliasMap *m, const char *list, GError **error);
/* Whether a --alias list names only known strategies (the command line checks it before any work). */
gboolean alias_list_check(const char *list, GError **error);

#endif
