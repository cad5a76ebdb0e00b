/* place-best.c — every heuristic on the same problem, keeping the smallest arena (XLA's
 * ChooseBestHeapAlgorithm); the report names the one kept. Candidates are the registry's strategies
 * other than the baseline and portfolios (itself); exact search only on problems of at most --search-max
 * units. --budget is the whole portfolio's: the time-bounded candidates share it (place_keep_smallest), and
 * heuristics that would start after it is spent do not run (the report names them).
 *
 * A problem whose units fall into parts in time — at some steps nothing is live, so no unit spans from one
 * part into the next — is as many problems as parts: each part's units may take any offsets whatever the
 * others do, and the arena is the largest part's. So every part gets the heuristics, and the budget goes to
 * the parts whose arena is above the whole problem's bound (only they can set the arena): the improvers part
 * by part, and, when each such part is small enough though the whole is not, the exact search on all of
 * them together (parts_plan). */
#include "plan/place.h"

#include <string.h>

/* The candidates: everything but the baseline and portfolios (itself); exact search only when small; an improver
 * only when a work budget leaves it one pass over the units (its first move re-places them all: with less it would
 * only repeat the heuristic it starts from, seconds on a million units). */
static gboolean candidate(const PlaceStrategy *s, const PlaceProblem *p)
{
    const PlaceOptions *o = p->options;
    return s->role != ROLE_BASELINE && s->role != ROLE_PORTFOLIO && s->role != ROLE_PEER && s->role != ROLE_RUNTIME &&
           (s->role != ROLE_EXACT || p->units->len <= o->search_max) &&
           (s->role != ROLE_IMPROVER || !o->budget_work || o->budget_work >= p->units->len);
}

/* The heuristics alone: a part's first plan. */
static gboolean heuristic(const PlaceStrategy *s, const PlaceProblem *p)
{
    return candidate(s, p) && s->role == ROLE_HEURISTIC;
}

/* The rest, bounded by the budget: the improvers and the exact search, after the heuristics. */
static gboolean bounded(const PlaceStrategy *s, const PlaceProblem *p)
{
    return candidate(s, p) && (s->role == ROLE_IMPROVER || s->role == ROLE_EXACT);
}

/* The exact search alone (on parts together: see parts_plan), and the improvers alone. */
static gboolean exact(const PlaceStrategy *s, const PlaceProblem *p)
{
    return candidate(s, p) && s->role == ROLE_EXACT;
}

static gboolean improver(const PlaceStrategy *s, const PlaceProblem *p)
{
    return candidate(s, p) && s->role == ROLE_IMPROVER;
}

/* One part as a problem of its own: its units (fixed ones keep their offsets), its bound. */
typedef struct {
    PlaceProblem problem;
    PlaceOptions options;
    PlaceStats stats;
    const GArray *ids; /* the whole problem's unit ids, in the part's order */
    guint64 *offsets;  /* per part unit */
    guint64 arena;
    const PlaceStrategy *winner;
} Part;

static void part_init(Part *part, const PlaceProblem *p, const GArray *ids, const guint64 *offsets)
{
    memset(part, 0, sizeof *part);
    part->ids = ids;
    part->options = *p->options;
    part->problem.units = g_array_sized_new(FALSE, FALSE, sizeof(PlaceUnit), ids->len);
    part->offsets = g_new(guint64, ids->len + 1);
    for (guint k = 0; k < ids->len; k++) {
        guint u = g_array_index(ids, guint, k);
        g_array_append_val(part->problem.units, g_array_index(p->units, PlaceUnit, u));
        part->offsets[k] = offsets[u]; /* the fixed units' preset offsets */
    }
    part->problem.steps = p->steps;
    part->problem.options = &part->options;
    part->problem.stats = &part->stats;
    part->problem.bound = place_bound(&part->problem);
    part->arena = G_MAXUINT64;
}

/* Runs the portfolio's candidates that `take` accepts on a part, keeping its smaller arena. */
static gboolean part_run(Part *part, gboolean (*take)(const PlaceStrategy *s, const PlaceProblem *p), GError **error)
{
    guint64 *trial = g_memdup2(part->offsets, sizeof(guint64) * (part->ids->len + 1)), arena;
    const PlaceStrategy *winner;
    gboolean ok = place_keep_smallest(&part->problem, take, trial, &winner, &arena, NULL, error);
    if (ok && winner && arena < part->arena) {
        memcpy(part->offsets, trial, sizeof(guint64) * part->ids->len);
        part->arena = arena;
        part->winner = winner;
    }
    g_free(trial);
    return ok;
}

/* A part that can still set the arena: above the whole problem's bound and its own. */
static gboolean part_open(const PlaceProblem *p, const Part *part)
{
    return part->arena > p->bound && part->arena > part->problem.bound;
}

/* The exact search on the open parts together (see parts_plan), with the seconds left until deadline and
 * `work` (under a work budget). The parts take its offsets when it improves on the largest of theirs. */
static gboolean parts_together(const PlaceProblem *p, Part *parts, guint n, const guint64 *offsets, gint64 deadline,
                               guint64 work, GError **error)
{
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint));
    guint64 arena = 0;
    for (guint k = 0; k < n; k++)
        if (part_open(p, &parts[k])) {
            g_array_append_vals(ids, parts[k].ids->data, parts[k].ids->len);
            arena = MAX(arena, parts[k].arena);
        }
    Part together;
    part_init(&together, p, ids, offsets); /* (its fixed units' preset offsets: the search places the rest) */
    together.arena = arena;
    together.options.search_max = MAX(together.options.search_max, ids->len); /* each part is within it */
    together.options.budget_seconds = (double)MAX(deadline - g_get_monotonic_time(), 0) / G_USEC_PER_SEC;
    together.options.deadline = deadline;
    if (p->options->budget_work)
        together.options.budget_work = MAX(work, 1);
    gboolean ok = part_run(&together, exact, error);
    if (ok && together.winner) /* below the largest open part's arena */
        for (guint k = 0, at = 0; k < n; k++)
            if (part_open(p, &parts[k])) {
                memcpy(parts[k].offsets, together.offsets + at, parts[k].ids->len * sizeof(guint64));
                at += parts[k].ids->len;
                parts[k].arena = together.arena;
                parts[k].winner = together.winner;
                parts[k].stats.proven = together.stats.proven;
            }
    if (p->stats) {
        p->stats->nodes += together.stats.nodes;
        p->stats->steps += together.stats.steps;
    }
    g_array_unref(together.problem.units);
    g_free(together.offsets);
    g_array_unref(ids);
    return ok;
}

static gboolean parts_plan(const PlaceProblem *p, GPtrArray *ids, guint64 *offsets, char **detail, GError **error)
{
    guint n = ids->len;
    Part *parts = g_new(Part, n);
    gboolean ok = TRUE;
    gint64 deadline = g_get_monotonic_time() + (gint64)(p->options->budget_seconds * G_USEC_PER_SEC);
    for (guint k = 0; k < n; k++)
        part_init(&parts[k], p, ids->pdata[k], offsets);
    /* the heuristics on every part, nothing time-bounded: a first plan everywhere (the first heuristic always
     * runs; the others only while the budget lasts, so a budget can be exceeded by one heuristic's time) */
    for (guint k = 0; ok && k < n; k++) {
        gint64 left = deadline - g_get_monotonic_time();
        parts[k].options.budget_seconds = (double)MAX(left, 0) / G_USEC_PER_SEC;
        ok = part_run(&parts[k], heuristic, error);
    }
    /* The budget (from the start: the heuristics' time is in it) to the parts that can still set the arena
     * (above the whole problem's bound and their own): first the improvers, part by part in even shares (of
     * work: the same on any machine; of seconds: what is left when each starts, among those still to come).
     * When every such part is small enough for the exact search, the improvers get half, and the search the
     * rest on all those parts together: it splits them into the parts again and lowers one target for all,
     * so its nodes go where the arena is set, where shares gave parts already at their best as much as the
     * one that sets it (the packed trace of 20 parts of 500: 10.4% above the bound in shares, 6.9% with
     * half of the budget together). */
    guint open = 0, largest = 0;
    for (guint k = 0; ok && k < n; k++)
        if (part_open(p, &parts[k])) {
            open++;
            largest = MAX(largest, parts[k].ids->len);
        }
    gboolean together = ok && open && largest <= p->options->search_max;
    gint64 improvers_end = together ? g_get_monotonic_time() + MAX(deadline - g_get_monotonic_time(), 0) / 2 : deadline;
    guint64 improvers_work = together ? p->options->budget_work / 2 : p->options->budget_work;
    guint improved = 0;
    for (guint k = 0; ok && k < n; k++) {
        Part *part = &parts[k];
        if (!part_open(p, part) || place_stop_requested(p->options))
            continue;
        gint64 left = improvers_end - g_get_monotonic_time();
        part->options.budget_seconds = (double)MAX(left, 0) / G_USEC_PER_SEC / (open - improved++);
        if (improvers_work)
            part->options.budget_work = MAX(improvers_work / open, 1);
        part->options.deadline = g_get_monotonic_time() + (gint64)(part->options.budget_seconds * G_USEC_PER_SEC);
        ok = part_run(part, together ? improver : bounded, error);
    }
    if (ok && together && !place_stop_requested(p->options))
        ok = parts_together(p, parts, n, offsets, deadline, p->options->budget_work - improvers_work, error);
    guint widest = 0;
    for (guint k = 0; ok && k < n; k++) {
        const Part *part = &parts[k];
        for (guint j = 0; j < part->ids->len; j++)
            offsets[g_array_index(part->ids, guint, j)] = part->offsets[j];
        if (part->arena > parts[widest].arena)
            widest = k;
        if (p->stats) {
            p->stats->nodes += part->stats.nodes;
            p->stats->steps += part->stats.steps;
        }
    }
    if (ok && p->stats) /* a proof for the part that sets the arena is one for the whole */
        p->stats->proven = p->stats->proven || parts[widest].stats.proven || parts[widest].arena <= p->bound;
    if (ok)
        *detail = g_strdup_printf("%u parts in time, nothing live between them; %u above the bound got the budget%s; "
                                  "the largest kept %s",
                                  n, open, together ? ", searched together" : "", parts[widest].winner ? parts[widest].winner->name : "its fixed units");
    for (guint k = 0; k < n; k++) {
        g_array_unref(parts[k].problem.units);
        g_free(parts[k].offsets);
    }
    g_free(parts);
    return ok;
}

static gboolean best_plan(const PlaceProblem *whole, guint64 *offsets, char **detail, GError **error)
{
    gint64 began = g_get_monotonic_time();
    GPtrArray *parts = place_time_parts(whole, TRUE); /* a fixed unit spanning two joins them */
    /* the budget counts from here: finding the parts (a tenth of a second on a million units) comes out of it */
    PlaceOptions options = *whole->options;
    options.budget_seconds = MAX(options.budget_seconds - (double)(g_get_monotonic_time() - began) / G_USEC_PER_SEC, 0.0);
    PlaceProblem problem = *whole;
    problem.options = &options;
    const PlaceProblem *p = &problem;
    if (parts->len > 1) {
        gboolean ok = parts_plan(p, parts, offsets, detail, error);
        g_ptr_array_unref(parts);
        return ok;
    }
    g_ptr_array_unref(parts);
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
    .summary = "runs every heuristic and keeps the smallest arena (XLA ChooseBestHeapAlgorithm); a problem in "
               "parts in time, part by part",
    .kind = PLACE_OFFLINE,
    .role = ROLE_PORTFOLIO,
    .plan = best_plan,
};
