/* fuzz-common.h — what every libFuzzer harness does with an input that loads: plan it with every
 * placement strategy and insist the verifier accepts each plan (a rejected plan aborts: a bug). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "strategies/registry.h"
#include "plan/place.h"
#include "plan/verify.h"

#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_plan_all(const Trace *t)
{
    /* Search and climb bounded by counters: an input must never take long. */
    static const PlaceOptions options = {.budget_seconds = 5, .max_nodes = 200, .seed = 1, .climb_steps = 2,
                                         .search_max = 1000, .portfolio = registry_place};
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    for (guint k = 0; k < count; k++) {
        GError *error = NULL;
        if (t->tiers && !all[k]->plan_tiers)
            continue; /* with tiers only the tier-aware strategies plan (the rest refuse, as they should) */
        Plan *p = place_run_with(all[k], t, &options, &error);
        if (!p) { /* the trace's own constraints cannot be met (e.g. overlapping pins): a clean refusal */
            g_clear_error(&error);
            if (t->tiers)
                continue; /* a tier-aware strategy may find no room where another does */
            return;
        }
        Trace *tiered = p->tier ? trace_copy(t) : NULL; /* a tiered plan's tiers are its trace's bins */
        if (tiered)
            plan_tiers_apply(p, tiered);
        if (!verify_plan(tiered ? tiered : t, p, &error)) {
            fprintf(stderr, "fuzz: %s returned a plan the verifier rejects: %s\n", all[k]->name, error->message);
            abort();
        }
        trace_free(tiered);
        plan_free(p);
    }
}

#endif
