/* registry.h — the strategy registry: the one list of placement, alias and order strategies (registry.c).
 * The tables are NULL-terminated so that they can be handed down as portfolios (PlaceOptions.portfolio,
 * OrderProblem.incumbents) to the rooms below, which cannot include this header. */
#ifndef STRATEGIES_REGISTRY_H
#define STRATEGIES_REGISTRY_H

#include "memory/alias.h"
#include "memory/order.h"
#include "plan/plan.h"
#include "structured/structured-strategy.h"

extern const PlaceStrategy *const registry_place[];
extern const OrderStrategy *const registry_order[];
extern const AliasStrategy *const registry_alias[];
extern const StructuredStrategy *const registry_structured[];

/* What `sim` plans with when no --strategy is named: the portfolio, on a small work budget unless a budget
 * is given — the smallest arena the tool finds on every corpus model, in well under a second, the same on
 * any machine (docs/placement.md, "The default strategy"). */
#define PLACE_DEFAULT_STRATEGY "best"
#define PLACE_DEFAULT_WORK 20000
/* The default with memory tiers (--tiers): the strategy that chooses each buffer's tier (docs/tiers.md). */
#define PLACE_TIERED_STRATEGY "tiered"

/* PLACE_OPTIONS_DEFAULTS with the registry as the portfolio (what `best` and `search` choose from): the
 * options every caller starts from. */
PlaceOptions registry_place_options(void);

/* All placement strategies, in listing order; *count receives how many. */
const PlaceStrategy *const *registry_place_strategies(guint *count);
/* By name; NULL when unknown (or name NULL). */
const PlaceStrategy *registry_place_find(const char *name);
/* The no-reuse baseline every report compares against. */
const PlaceStrategy *registry_place_baseline(void);
/* "naive, firstfit, ..." for messages. Newly allocated. */
char *registry_place_names(void);

/* Structured problems' strategies (schema-v1 files): registry_structured[0] is the default. */
const StructuredStrategy *registry_structured_find(const char *name);
char *registry_structured_names(void);
/* The options every caller starts from: no budget given, the table as the search's portfolio. */
StructuredOptions registry_structured_options(void);

/* Operator orders. */
const OrderStrategy *const *registry_order_strategies(guint *count);
const OrderStrategy *registry_order_find(const char *name);
char *registry_order_names(void);
/* Appends the orders a --orders list names ("all" or a comma list) to `chosen`; a usage error on an unknown one. */
gboolean registry_order_list_parse(const char *list, GPtrArray *chosen, GError **error);

/* Alias strategies in the order they apply (concat-dedup, runtime, noop, inplace). */
const AliasStrategy *const *registry_alias_strategies(guint *count);
const AliasStrategy *registry_alias_find(const char *name);
char *registry_alias_names(void);
/* The --alias list of `all`'s strategies that lengthen no lifetime (AliasStrategy.lengthens): "noop,inplace".
 * Made once; lives as long as the program. */
const char *registry_alias_short_list(void);
/* Applies the strategies named in `list` ("all", "none" or comma-separated names), in registry order. */
gboolean registry_alias_apply_list(AliasMap *m, const char *list, GError **error);
/* Whether a --alias list names only known strategies (the command line checks it before any work). */
gboolean registry_alias_list_check(const char *list, GError **error);
/* The strategies a --alias list names, in registry order, NULL-terminated (a pipeline recipe's `aliases`);
 * NULL with a usage error on an unknown name. Free with g_free. */
const AliasStrategy **registry_alias_list_resolve(const char *list, GError **error);

#endif
