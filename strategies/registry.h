/* registry.h — the strategy registry: the one list of placement, alias and order strategies (registry.c).
 * The tables are NULL-terminated so that they can be handed down as portfolios (PlaceOptions.portfolio,
 * OrderProblem.incumbents) to the rooms below, which cannot include this header. */
#ifndef STRATEGIES_REGISTRY_H
#define STRATEGIES_REGISTRY_H

#include "memory/alias.h"
#include "memory/order.h"
#include "plan/plan.h"

extern const PlaceStrategy *const place_registry[];
extern const OrderStrategy *const order_registry[];
extern const AliasStrategy *const alias_registry[];

/* What `sim` plans with when no --strategy is named: the portfolio, on a small work budget unless a budget
 * is given — the smallest arena the tool finds on every corpus model, in well under a second, the same on
 * any machine (docs/DESIGN.md, "The default strategy"). */
#define PLACE_DEFAULT_STRATEGY "best"
#define PLACE_DEFAULT_WORK 20000

/* PLACE_OPTIONS_DEFAULTS with the registry as the portfolio (what `best` and `search` choose from): the
 * options every caller starts from. */
PlaceOptions place_options_defaults(void);

/* All placement strategies, in listing order; *count receives how many. */
const PlaceStrategy *const *place_strategies(guint *count);
/* By name; NULL when unknown (or name NULL). */
const PlaceStrategy *place_strategy_find(const char *name);
/* The no-reuse baseline every report compares against. */
const PlaceStrategy *place_strategy_baseline(void);
/* "naive, firstfit, ..." for messages. Newly allocated. */
char *place_strategy_names(void);

/* Operator orders. */
const OrderStrategy *const *order_strategies(guint *count);
const OrderStrategy *order_strategy_find(const char *name);
char *order_strategy_names(void);
/* Appends the orders a --orders list names ("all" or a comma list) to `chosen`; a usage error on an unknown one. */
gboolean order_list_parse(const char *list, GPtrArray *chosen, GError **error);

/* Alias strategies in the order they apply (concat-dedup, runtime, noop, inplace). */
const AliasStrategy *const *alias_strategies(guint *count);
const AliasStrategy *alias_strategy_find(const char *name);
char *alias_strategy_names(void);
/* Applies the strategies named in `list` ("all", "none" or comma-separated names), in registry order. */
gboolean alias_apply_list(AliasMap *m, const char *list, GError **error);
/* Whether a --alias list names only known strategies (the command line checks it before any work). */
gboolean alias_list_check(const char *list, GError **error);
/* The strategies a --alias list names, in registry order, NULL-terminated (a pipeline recipe's `aliases`);
 * NULL with a usage error on an unknown name. Free with g_free. */
const AliasStrategy **alias_list_resolve(const char *list, GError **error);

#endif
