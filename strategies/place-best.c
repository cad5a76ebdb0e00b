/* place-best.c — every heuristic on the same problem, keeping the smallest arena (XLA's
 * ChooseBestHeapAlgorithm); the report names the one kept. Candidates are the registry's strategies
 * other than the baseline and portfolios (itself); exact search only on problems of at most --search-max
 * units. --budget is the whole portfolio's: the time-bounded candidates share it (place_keep_smallest), and
 * heuristics that would start after it is spent do not run (the report names them). */
#include "plan/place.h"

/* The candidates: everything but the baseline and portfolios (itself); exact search only when small. */
static gboolean candidate(const PlaceStrategy *s, const PlaceProblem *p)
{
    return s->role != ROLE_BASELINE && s->role != ROLE_PORTFOLIO && s->role != ROLE_PEER && s->role != ROLE_RUNTIME && (s->role != ROLE_EXACT || p->units->len <= p->options->search_max);
}

static gboolean best_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    const PlaceStrategy *winner;
    guint64 arena;
    char *skipped;
    if (!place_keep_smallest(p, candidate, offsets, &winner, &arena, &skipped, error))
        return FALSE;
    if (winner)
        *detail = skipped ? g_strdup_printf("kept %s; %s", winner->name, skipped)
                          : g_strdup_printf("kept %s", winner->name);
    g_free(skipped);
    return TRUE;
}

const PlaceStrategy place_best = {
    .name = "best",
    .summary = "runs every heuristic and keeps the smallest arena (XLA ChooseBestHeapAlgorithm)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_PORTFOLIO,
    .plan = best_plan,
};
