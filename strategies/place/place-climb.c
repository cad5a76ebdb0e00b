/* place-climb.c — an improver for traces too large for exact search, after TVM USMP's hill climb: start
 * from greedy-by-size's order; each step moves one buffer ahead of a random earlier buffer it conflicts
 * with (overlaps in time), re-places all in that order (smallest fitting gap), keeps the result if the
 * arena shrank, and otherwise accepts it with a probability that decays as the search cools (simulated
 * annealing). Deterministic for a --seed; stops at the bound (plan.h: nothing smaller exists), after
 * options->climb_steps steps (fewer under a work budget: a step is n unit placements), or before a step that
 * would end past --budget seconds from the start of planning (a step re-places everything, so it costs what
 * the greedy start cost: on a 1M-buffer trace seconds, and a budget of 1 s then keeps the start). */
#include "plan/place.h"

#include <math.h>
#include <string.h>

static gboolean climb_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    (void)error;
    guint n = p->units->len;
    if (n < 2) {
        guint *o = g_new0(guint, 1);
        place_in_order(p, o, n, GAP_BEST, offsets);
        g_free(o);
        return TRUE;
    }
    gint64 started = g_get_monotonic_time();
    gint64 deadline = started + (gint64)(p->options->budget_seconds * G_USEC_PER_SEC);
    guint *order = g_new(guint, n), *trial = g_new(guint, n);
    gboolean sorted = place_order_by_size(p, order);
    guint64 *cur = g_new(guint64, n), *best = g_new(guint64, n);
    memcpy(cur, offsets, n * sizeof(guint64));
    if (!sorted || !place_in_order_or_give_up(p, order, n, GAP_BEST, cur)) { /* the portfolio's deadline came first */
        g_free(order);
        g_free(trial);
        g_free(cur);
        g_free(best);
        return TRUE;
    }
    guint64 cur_arena = place_arena(p, cur), best_arena = cur_arena, start_arena = cur_arena;
    memcpy(best, cur, n * sizeof(guint64));
    GRand *r = g_rand_new_with_seed(p->options->seed);
    const gint64 step_cost = g_get_monotonic_time() - started; /* a step re-places all, as the start did */
    guint steps = 0, improved = 0;
    gboolean out_of_time = FALSE, at_bound = best_arena <= p->bound;
    /* A work budget counts unit placements (plan.h): a step re-places all n, so a budget under n takes none. */
    const guint64 work_steps = p->options->budget_work ? p->options->budget_work / n : G_MAXUINT64;
    const guint max_steps = (guint)MIN((guint64)p->options->climb_steps, work_steps);
    for (; steps < max_steps && !at_bound && !place_stop_requested(p->options); steps++) {
        if (g_get_monotonic_time() + step_cost >= deadline) {
            out_of_time = TRUE;
            break;
        }
        /* Move a random buffer ahead of a random earlier buffer it conflicts with. */
        guint i = (guint)g_rand_int_range(r, 1, (gint32)n);
        const PlaceUnit *x = &g_array_index(p->units, PlaceUnit, order[i]);
        guint candidates = 0, j = i;
        for (guint k = 0; k < i; k++)
            if (place_units_meet(x, &g_array_index(p->units, PlaceUnit, order[k])) &&
                g_rand_int_range(r, 0, (gint32)++candidates) == 0)
                j = k;
        if (j == i)
            continue;
        memcpy(trial, order, n * sizeof(guint));
        guint moved = trial[i];
        memmove(trial + j + 1, trial + j, (i - j) * sizeof(guint));
        trial[j] = moved;
        guint64 *next = g_memdup2(offsets, n * sizeof(guint64)); /* pins preset */
        if (!place_in_order(p, trial, n, GAP_BEST, next)) { /* the portfolio's deadline, mid-step */
            g_free(next);
            out_of_time = TRUE;
            break;
        }
        guint64 arena = place_arena(p, next);
        double temperature = 0.02 * (double)start_arena * (1.0 - (double)steps / max_steps);
        gboolean accept = arena <= cur_arena ||
                          (temperature > 0 && g_rand_double(r) < exp(-(double)(arena - cur_arena) / temperature));
        if (accept) {
            memcpy(order, trial, n * sizeof(guint));
            memcpy(cur, next, n * sizeof(guint64));
            cur_arena = arena;
        }
        if (arena < best_arena) {
            best_arena = arena;
            memcpy(best, next, n * sizeof(guint64));
            improved++;
            at_bound = best_arena <= p->bound; /* nothing smaller exists: stop */
        }
        g_free(next);
    }
    memcpy(offsets, best, n * sizeof(guint64));
    if (p->stats) {
        p->stats->steps += steps;
        p->stats->proven = p->stats->proven || at_bound;
    }
    /* below the start in percent, or in bytes when a gain of a few hundred bytes on gigabytes rounds to 0.00% */
    double below = start_arena ? 100.0 * (double)(start_arena - best_arena) / (double)start_arena : 0.0;
    char *gain = best_arena < start_arena && below < 0.005
                     ? g_strdup_printf("%" G_GUINT64_FORMAT " B", start_arena - best_arena)
                     : g_strdup_printf("%.2f%%", below);
    *detail = g_strdup_printf("%u improvements, %s below greedy-size%s", improved, gain,
                              at_bound ? ", at the lower bound" : out_of_time ? " (budget spent)" : "");
    g_free(gain);
    g_rand_free(r);
    g_free(order);
    g_free(trial);
    g_free(cur);
    g_free(best);
    return TRUE;
}

const PlaceStrategy place_climb = {
    .name = "climb",
    .summary = "hill climb over greedy orders with annealing (TVM USMP), deterministic for --seed",
    .kind = PLACE_OFFLINE,
    .role = ROLE_IMPROVER,
    .plan = climb_plan,
};
