/* structured-strategy.h — what a structured strategy is (strategies/structured/, one file each, one row in the
 * registry): a function from a problem to a placement of every buffer, which the independent validator then
 * checks (structured-check.h). */
#ifndef SIM_STRUCTURED_STRATEGY_H
#define SIM_STRUCTURED_STRATEGY_H

#include "structured/structured.h"

#include <glib.h>

typedef struct StructuredStrategy StructuredStrategy;

typedef struct {
    guint64 budget_work; /* the search's work (--budget-work: nodes, items looked over, candidates weighed): the same
                          * result on any machine */
    /* The strategies a search may start from (its incumbents), NULL-terminated, handed down by the caller;
     * NULL: none. */
    const StructuredStrategy *const *portfolio;
} StructuredOptions;

/* The search's work when no budget is given. */
#define STRUCTURED_DEFAULT_WORK 2000000

typedef struct {
    StructuredPlace *place; /* one per buffer (the strategy allocates) */
    gboolean proven;        /* nothing better exists: the search closed */
    gboolean cut;           /* the budget ended the search first */
    guint64 work;           /* the search's work, the candidates the others weighed */
} StructuredResult;

struct StructuredStrategy {
    const char *name;
    const char *description;
    gboolean (*solve)(const StructuredProblem *p, const StructuredOptions *o, StructuredResult *r, GError **error);
};

static inline void structured_strategy_result_clear(StructuredResult *r)
{
    g_free(r->place);
    r->place = NULL;
}

#endif
