/* registry.h — the strategy registry: the one list of placement strategies (registry.c). */
#ifndef STRATEGIES_REGISTRY_H
#define STRATEGIES_REGISTRY_H

#include "place.h"

/* All placement strategies, in listing order; *count receives how many. */
const PlaceStrategy *const *place_strategies(guint *count);
/* By name; NULL when unknown. */
const PlaceStrategy *place_strategy_find(const char *name);
/* "naive, firstfit, ..." for messages. Newly allocated. */
char *place_strategy_names(void);

#endif
