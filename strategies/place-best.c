/* place-best.c — every heuristic on the same problem, keeping the smallest arena (XLA's
 * ChooseBestHeapAlgorithm); the report names the one kept. Candidates are the registry's strategies
 * other than the baseline and portfolios (itself); exact search only on problems of at most --search-max
 * units. */
#include "place.h"
#include "registry.h"

#include <string.h>

static gboolean best_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    guint count;
    const PlaceStrategy *const *all = place_strategies(&count);
    guint n = p->units->len;
    guint64 *trial = g_new(guint64, n + 1), best_arena = G_MAXUINT64;
    const PlaceStrategy *winner = NULL;
    for (guint k = 0; k < count; k++) {
        const PlaceStrategy *s = all[k];
        if (s->role == ROLE_BASELINE || s->role == ROLE_PORTFOLIO || (s->role == ROLE_EXACT && n > p->options->search_max))
            continue;
        char *ignored = NULL;
        if (!place_problem(s, p, trial, &ignored, error)) {
            g_free(trial);
            return FALSE;
        }
        g_free(ignored);
        guint64 arena = place_arena(p, trial);
        if (arena < best_arena) {
            best_arena = arena;
            winner = s;
            memcpy(offsets, trial, n * sizeof(guint64));
        }
    }
    g_free(trial);
    if (winner)
        *detail = g_strdup_printf("kept %s", winner->name);
    return TRUE;
}

const PlaceStrategy place_best = {
    .name = "best",
    .summary = "runs every heuristic and keeps the smallest arena (XLA ChooseBestHeapAlgorithm)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_PORTFOLIO,
    .plan = best_plan,
};
