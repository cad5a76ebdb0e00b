/* place-tiered.c — ours for memory tiers: the least cost of bytes moved under the tiers' capacities
 * (docs/tiers.md). Tier by tier, fastest first, the units that may go there are admitted by what they save per
 * byte (their cost in the next tier they may use less their cost here), each into the smallest gap that keeps the
 * tier within its capacity; then, while that admits more, the admitted set is packed again by the heuristics
 * (the smallest layout of those the portfolio's heuristics make) and the refused units are offered the room it
 * freed. The last tier, or an unbounded one, takes the rest, packed by the heuristics. Several admission orders
 * are tried — savings per byte, per byte and step, the bound's fractional optimum (tier-bound.h), size — with the
 * portfolio's other tier-aware strategies (ExecuTorch's banked greedy) as incumbents, and the cheapest plan is
 * kept (ties: the smaller arenas), so it never costs more than they do. Without tiers it is the heuristics'
 * smallest arena. */
#include "plan/place.h"
#include "base/error.h"
#include "trace/trace-tiers.h"

#include <math.h>
#include <string.h>

typedef enum { ORDER_DENSITY, ORDER_DENSITY_TIME, ORDER_BOUND, ORDER_SIZE, ORDER_COUNT } AdmitOrder;
static const char *const order_names[ORDER_COUNT] = {"savings per byte", "savings per byte-step", "the bound's optimum",
                                                    "size"};

static gboolean heuristic(const PlaceStrategy *s, const PlaceProblem *p)
{
    (void)p;
    return s->role == ROLE_HEURISTIC && s->plan_tiers == NULL;
}

/* Problems of more units than this take one ranking, no incumbent (banked-greedy's scan grows as n^2), one
 * packing by size into the smallest gaps (place.h's order and loop) instead of the heuristics', at most 4 packings
 * to fit and 2 to admit more: each packing of a million units is seconds. */
#define TIERED_LARGE 50000u

/* Live bytes per step under range adds, with range maxima (a lazy segment tree over the steps). */
typedef struct {
    guint n;
    guint64 *max, *add;
} LiveTree;

static LiveTree *live_tree_new(guint steps)
{
    LiveTree *t = g_new0(LiveTree, 1);
    t->n = MAX(steps, 1);
    t->max = g_new0(guint64, 4 * (gsize)t->n);
    t->add = g_new0(guint64, 4 * (gsize)t->n);
    return t;
}

static void live_tree_free(LiveTree *t)
{
    g_free(t->max);
    g_free(t->add);
    g_free(t);
}

static void live_add(LiveTree *t, guint node, guint lo, guint hi, guint a, guint b, guint64 v)
{
    if (b < lo || hi < a)
        return;
    if (a <= lo && hi <= b) {
        t->max[node] += v;
        t->add[node] += v;
        return;
    }
    guint mid = lo + (hi - lo) / 2;
    live_add(t, 2 * node, lo, mid, a, b, v);
    live_add(t, 2 * node + 1, mid + 1, hi, a, b, v);
    t->max[node] = t->add[node] + MAX(t->max[2 * node], t->max[2 * node + 1]);
}

static guint64 live_max(const LiveTree *t, guint node, guint lo, guint hi, guint a, guint b)
{
    if (b < lo || hi < a)
        return 0;
    if (a <= lo && hi <= b)
        return t->max[node];
    guint mid = lo + (hi - lo) / 2;
    guint64 left = live_max(t, 2 * node, lo, mid, a, b), right = live_max(t, 2 * node + 1, mid + 1, hi, a, b);
    return t->add[node] + MAX(left, right); /* MAX evaluates each side twice: never a call inside it */
}

/* A problem of some of p's units (ids), fixed ones keeping their offsets. */
typedef struct {
    PlaceProblem problem;
    GArray *ids; /* guint: p's unit ids */
} Sub;

static void sub_init(Sub *sub, const PlaceProblem *p, const GArray *ids)
{
    memset(sub, 0, sizeof *sub);
    sub->ids = g_array_copy((GArray *)ids);
    sub->problem.units = g_array_sized_new(FALSE, FALSE, sizeof(PlaceUnit), ids->len);
    for (guint k = 0; k < ids->len; k++)
        g_array_append_val(sub->problem.units, g_array_index(p->units, PlaceUnit, g_array_index(ids, guint, k)));
    sub->problem.steps = p->steps;
    sub->problem.options = p->options;
    sub->problem.bound = place_bound(&sub->problem);
}

static void sub_clear(Sub *sub)
{
    g_array_unref(sub->problem.units);
    g_array_unref(sub->ids);
}

/* The heuristics' smallest layout of the sub-problem into sub_offsets (per sub unit); its arena, or G_MAXUINT64
 * when none ran. */
static guint64 pack(Sub *sub, guint64 *sub_offsets, GError **error)
{
    gboolean large = sub->problem.units->len > TIERED_LARGE;
    const PlaceStrategy *winner = NULL;
    guint64 arena = G_MAXUINT64;
    for (guint k = 0; k < sub->problem.units->len; k++) {
        const PlaceUnit *u = &g_array_index(sub->problem.units, PlaceUnit, k);
        sub_offsets[k] = u->fixed != TRACE_NONE ? (guint64)u->fixed : 0;
    }
    if (!sub->problem.units->len)
        return 0;
    if (large) {
        guint n = sub->problem.units->len, *order = g_new(guint, n);
        gboolean done = place_order_by_size(&sub->problem, order) &&
                        place_in_order(&sub->problem, order, n, GAP_BEST, sub_offsets);
        g_free(order);
        return done ? place_arena(&sub->problem, sub_offsets) : G_MAXUINT64;
    }
    if (!place_keep_smallest(&sub->problem, heuristic, sub_offsets, &winner, &arena, NULL, error))
        return G_MAXUINT64;
    return winner ? arena : G_MAXUINT64;
}

/* The admitted units of a tier's sub-problem (in[k]) packed by the heuristics: their positions in *kept, their
 * offsets in *packed (both the caller's to free), the arena (G_MAXUINT64 with *error when none ran). */
static guint64 pack_admitted(const PlaceProblem *p, const Sub *sub, const gboolean *in, GArray **kept,
                             guint64 **packed, GError **error)
{
    guint m = sub->problem.units->len;
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint));
    *kept = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint k = 0; k < m; k++)
        if (in[k]) {
            g_array_append_val(*kept, k);
            g_array_append_val(ids, g_array_index(sub->ids, guint, k));
        }
    Sub again;
    sub_init(&again, p, ids);
    *packed = g_new0(guint64, (*kept)->len + 1);
    guint64 arena = pack(&again, *packed, error);
    sub_clear(&again);
    g_array_unref(ids);
    return arena;
}

typedef struct {
    const PlaceProblem *p;
    const double *key, *then; /* per unit: larger first, then by `then` (or NULL) */
} OrderBy;

static int by_key(const void *x, const void *y, void *data)
{
    const OrderBy *o = data;
    guint a = *(const guint *)x, b = *(const guint *)y;
    double ka = o->key[a], kb = o->key[b];
    if (ka != kb)
        return ka > kb ? -1 : 1;
    if (o->then && o->then[a] != o->then[b])
        return o->then[a] > o->then[b] ? -1 : 1;
    guint64 sa = g_array_index(o->p->units, PlaceUnit, a).size, sb = g_array_index(o->p->units, PlaceUnit, b).size;
    return sa != sb ? (sa > sb ? -1 : 1) : (a > b) - (a < b);
}

/* What unit u saves in tier j against the next tier it may use after j (INFINITY when there is none). */
static double savings(const PlaceProblem *p, guint u, guint j)
{
    const PlaceTiers *T = p->tiers;
    for (guint k = j + 1; k < T->count; k++)
        if (T->allowed[u] & (1u << k))
            return T->cost[(gsize)u * T->count + k] - T->cost[(gsize)u * T->count + j];
    return INFINITY;
}

/* One plan with one admission order: tiers[] and offsets[] per unit (fixed units preset); FALSE when some unit
 * fits in no tier it may use. */
static gboolean assign(const PlaceProblem *p, AdmitOrder kind, const double *inside, guint *tiers, guint64 *offsets,
                       GError **error)
{
    const PlaceTiers *T = p->tiers;
    guint n = p->units->len;
    gboolean *left = g_new0(gboolean, n + 1);
    for (guint u = 0; u < n; u++)
        left[u] = g_array_index(p->units, PlaceUnit, u).fixed == TRACE_NONE;
    double *key = g_new0(double, n + 1), *then = g_new0(double, n + 1);
    gboolean ok = TRUE;
    for (guint j = 0; ok && j < T->count; j++) {
        guint64 capacity = trace_tier(T->tiers, j)->capacity;
        GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint)), *cand = g_array_new(FALSE, FALSE, sizeof(guint));
        for (guint u = 0; u < n; u++) {
            const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
            if (unit->fixed != TRACE_NONE && tiers[u] == j)
                g_array_append_val(ids, u);
            else if (left[u] && (T->allowed[u] & (1u << j)))
                g_array_append_val(cand, u);
        }
        guint fixed_count = ids->len;
        g_array_append_vals(ids, cand->data, cand->len);
        Sub sub;
        sub_init(&sub, p, ids);
        guint m = sub.problem.units->len;
        guint64 *layout = g_new0(guint64, m + 1);
        gboolean *in = g_new0(gboolean, m + 1);
        for (guint k = 0; k < fixed_count; k++)
            in[k] = TRUE;
        if (capacity == TRACE_TIER_UNBOUNDED || j + 1 == T->count) {
            /* everything left that may go here: packed by the heuristics */
            guint64 arena = pack(&sub, layout, error);
            ok = arena != G_MAXUINT64;
            if (ok && arena > capacity) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "tiered: the units left for the last tier, "
                            "'%s', take %" G_GUINT64_FORMAT " bytes, past its capacity of %" G_GUINT64_FORMAT,
                            trace_tier(T->tiers, j)->name, arena, capacity);
                ok = FALSE;
            }
            for (guint k = fixed_count; k < m; k++)
                in[k] = TRUE;
        } else {
            /* admission order over the candidates (sub ids fixed_count..m-1) */
            guint *order = g_new(guint, m + 1);
            guint count = 0;
            for (guint k = fixed_count; k < m; k++) {
                guint u = g_array_index(sub.ids, guint, k);
                const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
                double save = savings(p, u, j), size = (double)unit->size;
                double span = (double)(unit->last - unit->first + 1);
                key[u] = kind == ORDER_DENSITY        ? save / size
                         : kind == ORDER_DENSITY_TIME ? save / (size * span)
                         : kind == ORDER_BOUND        ? (j == 0 && !isinf(save) ? inside[u] : save / size)
                                                      : size;
                then[u] = save / size;
                order[count++] = k;
            }
            OrderBy by = {p, key, kind == ORDER_BOUND && j == 0 ? then : NULL};
            /* sort sub positions by their unit's key */
            guint *units_sorted = g_new(guint, count + 1);
            for (guint k = 0; k < count; k++)
                units_sorted[k] = g_array_index(sub.ids, guint, order[k]);
            g_qsort_with_data(units_sorted, (gint)count, sizeof(guint), by_key, &by);
            GHashTable *pos = g_hash_table_new(g_direct_hash, g_direct_equal);
            for (guint k = fixed_count; k < m; k++)
                g_hash_table_insert(pos, GUINT_TO_POINTER(g_array_index(sub.ids, guint, k)), GUINT_TO_POINTER(k));
            for (guint k = 0; k < count; k++)
                order[k] = GPOINTER_TO_UINT(g_hash_table_lookup(pos, GUINT_TO_POINTER(units_sorted[k])));
            g_hash_table_unref(pos);
            g_free(units_sorted);
            for (guint k = 0; k < fixed_count; k++)
                layout[k] = (guint64)g_array_index(sub.problem.units, PlaceUnit, k).fixed;
            /* first by live bytes alone (the set the capacity allows at every step, as the bound sees it), then packed
             * by the heuristics: while the packing sticks out of the capacity, the last admitted unit sticking out
             * leaves (at most 32 times; else the admission below starts from nothing) */
            LiveTree *live = live_tree_new(p->steps);
            guint *rank = g_new0(guint, m + 1);
            for (guint k = 0; k < fixed_count; k++) {
                const PlaceUnit *unit = &g_array_index(sub.problem.units, PlaceUnit, k);
                live_add(live, 1, 0, live->n - 1, unit->first, unit->last, unit->size);
            }
            for (guint i = 0; i < count; i++) {
                guint k = order[i];
                const PlaceUnit *unit = &g_array_index(sub.problem.units, PlaceUnit, k);
                rank[k] = i;
                if (live_max(live, 1, 0, live->n - 1, unit->first, unit->last) + unit->size <= capacity) {
                    live_add(live, 1, 0, live->n - 1, unit->first, unit->last, unit->size);
                    in[k] = TRUE;
                }
            }
            live_tree_free(live);
            gboolean fits = FALSE;
            /* one unit leaves a round on small problems (the savings lost are the least), all that stick out on
             * large ones and after 24 rounds */
            guint one_by_one = m <= TIERED_LARGE ? 24 : 0;
            for (guint round = 0; ok && !fits && round < (m > TIERED_LARGE ? 4u : 32u); round++) {
                GArray *kept;
                guint64 *packed, arena = pack_admitted(p, &sub, in, &kept, &packed, error);
                ok = arena != G_MAXUINT64;
                gint out = -1;
                for (guint k = 0; ok && k < kept->len; k++) {
                    guint at = g_array_index(kept, guint, k);
                    if (arena <= capacity)
                        layout[at] = packed[k];
                    else if (at >= fixed_count &&
                             packed[k] + g_array_index(sub.problem.units, PlaceUnit, at).size > capacity &&
                             (out < 0 || rank[at] > rank[out]))
                        out = (gint)at;
                }
                fits = ok && arena <= capacity;
                if (ok && !fits && out >= 0)
                    in[out] = FALSE;
                for (guint k = 0; ok && !fits && round >= one_by_one && k < kept->len; k++) {
                    guint at = g_array_index(kept, guint, k);
                    if (at >= fixed_count && packed[k] + g_array_index(sub.problem.units, PlaceUnit, at).size > capacity)
                        in[at] = FALSE;
                }
                g_free(packed);
                g_array_unref(kept);
                if (!fits && out < 0)
                    break;
            }
            if (!fits)
                for (guint k = fixed_count; k < m; k++)
                    in[k] = FALSE;
            g_free(rank);
            /* admit, pack again, admit what the packing made room for; at most 8 rounds */
            for (guint round = 0; ok && round < (m > TIERED_LARGE ? 2u : 8u); round++) {
                PlacedIndex *x = placed_index_new(&sub.problem, layout);
                for (guint k = fixed_count; k < m; k++)
                    if (in[k])
                        placed_index_add(x, k, layout[k]);
                guint admitted = 0;
                for (guint i = 0; i < count; i++) {
                    guint k = order[i];
                    if (in[k])
                        continue;
                    const PlaceUnit *unit = &g_array_index(sub.problem.units, PlaceUnit, k);
                    guint64 at = placed_index_find(x, k, GAP_BEST);
                    if (at + unit->size <= capacity) {
                        placed_index_add(x, k, at);
                        layout[k] = at;
                        in[k] = TRUE;
                        admitted++;
                    }
                }
                placed_index_free(x);
                if (!admitted && round)
                    break;
                /* the admitted set packed again: kept when the heuristics lay it out lower */
                GArray *kept;
                guint64 *packed, arena = pack_admitted(p, &sub, in, &kept, &packed, error), now = 0;
                for (guint k = 0; k < kept->len; k++) {
                    guint at = g_array_index(kept, guint, k);
                    now = MAX(now, layout[at] + g_array_index(sub.problem.units, PlaceUnit, at).size);
                }
                if (arena == G_MAXUINT64)
                    ok = FALSE;
                else if (arena < now && arena <= capacity)
                    for (guint k = 0; k < kept->len; k++)
                        layout[g_array_index(kept, guint, k)] = packed[k];
                g_free(packed);
                g_array_unref(kept);
                if (!(arena < now))
                    break; /* no room freed: nothing more will be admitted */
            }
            g_free(order);
        }
        for (guint k = fixed_count; ok && k < m; k++) {
            guint u = g_array_index(sub.ids, guint, k);
            if (in[k]) {
                tiers[u] = j;
                offsets[u] = layout[k];
                left[u] = FALSE;
            }
        }
        g_free(layout);
        g_free(in);
        sub_clear(&sub);
        g_array_unref(ids);
        g_array_unref(cand);
    }
    for (guint u = 0; ok && u < n; u++)
        if (left[u]) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "tiered: unit %u of %" G_GUINT64_FORMAT " bytes fits "
                        "in no tier it may use", u, g_array_index(p->units, PlaceUnit, u).size);
            ok = FALSE;
        }
    g_free(left);
    g_free(key);
    g_free(then);
    return ok;
}

static double plan_cost(const PlaceProblem *p, const guint *tiers)
{
    double cost = 0;
    for (guint u = 0; u < p->units->len; u++)
        cost += p->tiers->cost[(gsize)u * p->tiers->count + tiers[u]];
    return cost;
}

static guint64 plan_arenas(const PlaceProblem *p, const guint *tiers, const guint64 *offsets)
{
    guint64 total = 0;
    for (guint j = 0; j < p->tiers->count; j++) {
        guint64 end = 0;
        for (guint u = 0; u < p->units->len; u++)
            if (tiers[u] == j)
                end = MAX(end, offsets[u] + g_array_index(p->units, PlaceUnit, u).size);
        total += end;
    }
    return total;
}

static gboolean tiered_plan_tiers(const PlaceProblem *p, guint *tiers, guint64 *offsets, char **detail, GError **error)
{
    guint n = p->units->len;
    const double *inside = p->tiers->inside;
    guint *try_tiers = g_new0(guint, n + 1);
    guint64 *try_offsets = g_new0(guint64, n + 1);
    double best = INFINITY;
    guint64 best_arenas = G_MAXUINT64;
    const char *kept = NULL;
    GError *last = NULL;
    /* the portfolio's other tier-aware strategies: incumbents */
    const PlaceStrategy *const *portfolio = p->options ? p->options->portfolio : NULL;
    gboolean large = n > TIERED_LARGE;
    guint orders = large ? 1 : ORDER_COUNT, candidates = orders;
    for (guint k = 0; !large && portfolio && portfolio[k]; k++)
        candidates += portfolio[k]->plan_tiers && portfolio[k]->plan_tiers != tiered_plan_tiers;
    for (guint c = 0, k = 0; c < candidates; c++) { /* ours first: an incumbent kept only when cheaper */
        const PlaceStrategy *other = NULL;
        if (c >= orders) {
            while (!(portfolio[k]->plan_tiers && portfolio[k]->plan_tiers != tiered_plan_tiers))
                k++;
            other = portfolio[k++];
        }
        memcpy(try_tiers, tiers, sizeof(guint) * n);
        memcpy(try_offsets, offsets, sizeof(guint64) * n);
        GError *e = NULL;
        gboolean ok = other ? other->plan_tiers(p, try_tiers, try_offsets, NULL, &e)
                            : assign(p, (AdmitOrder)c, inside, try_tiers, try_offsets, &e);
        if (!ok) { /* the first refusal is ours, the one to say when none plans */
            if (!last)
                last = e;
            else
                g_error_free(e);
            continue;
        }
        double cost = plan_cost(p, try_tiers);
        guint64 arenas = plan_arenas(p, try_tiers, try_offsets);
        if (cost < best || (cost == best && arenas < best_arenas)) {
            best = cost;
            best_arenas = arenas;
            kept = other ? other->name : order_names[c];
            memcpy(tiers, try_tiers, sizeof(guint) * n);
            memcpy(offsets, try_offsets, sizeof(guint64) * n);
        }
    }
    g_free(try_tiers);
    g_free(try_offsets);
    if (!kept) {
        g_propagate_error(error,
                          last ? last : g_error_new_literal(SIM_ERROR, SIM_ERROR_UNSUPPORTED, "tiered: no plan"));
        return FALSE;
    }
    g_clear_error(&last);
    if (detail) {
        char b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];
        g_snprintf(b, sizeof b, "%.0f", best);
        g_snprintf(c, sizeof c, "%.0f", p->tiers->bound);
        *detail = g_strdup_printf("admitted by %s: cost %s, bound %s%s", kept, b, c,
                                  p->tiers->bound_cut ? " (cut short)" : "");
    }
    return TRUE;
}

static gboolean tiered_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    const PlaceStrategy *winner = NULL;
    guint64 arena;
    if (!place_keep_smallest(p, heuristic, offsets, &winner, &arena, NULL, error))
        return FALSE;
    if (detail && winner)
        *detail = g_strdup_printf("one tier: %s", winner->name);
    return TRUE;
}

const PlaceStrategy place_tiered = {
    .name = "tiered",
    .summary = "tiers (--tiers): the least cost of bytes moved under the capacities, savings per byte first, "
               "packed again by the heuristics; banked-greedy as incumbent",
    .kind = PLACE_OFFLINE,
    .role = ROLE_PORTFOLIO,
    .plan = tiered_plan,
    .plan_tiers = tiered_plan_tiers,
};
