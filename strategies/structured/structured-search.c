/* structured-search.c — `search` for structured problems: branch and bound over canonical placements
 * (docs/structured.md, "The search"). It starts from the best of the portfolio it is handed (greedy, first fit)
 * and places, pool after pool, one item at a time in ascending offset (ties by item number, so each placement is
 * met once), each at a candidate offset (structured-place.h: 0, or just above a related item or a reserved
 * range); a branch is cut when its bound — every pool's peak at least its current peak, its static bound, and the
 * last offset plus the largest item still to come; the penalties paid so far — is no better than the best plan,
 * by the problem's lexicographic objective. Its work counts each node, each item a node looks over and each
 * candidate it weighs, so a budget bounds the time whatever the problem's size; a part of more than 4,096 items is
 * left to the portfolio's plan. Pools no buffer can choose between are searched apart when the
 * objective allows it (every term a sum, or max_peak last), each on what is left of the work budget. When a
 * search ends before the budget does, its plan is optimal: the result says proven. */
#include "structured/structured-check.h"
#include "structured/structured-place.h"
#include "structured/structured-strategy.h"

#include <string.h>

/* The most items of one part the search takes on: past it, every node would look over more items than a budget
 * of work could afford to try. */
#define STRUCTURED_SEARCH_MAX_ITEMS 4096

typedef struct {
    guint item;
    guint64 offset, key[3];
} Child;

typedef struct {
    const StructuredProblem *p;
    StructuredState *s;
    guint *items, n;       /* the component's items to place */
    guint *pools, n_pools; /* its pools, in order */
    gboolean *in;          /* pool filter */
    guint *pool_rank;      /* pool -> position in pools, or G_MAXUINT */
    guint cur;             /* the pool being filled (position) */
    guint64 floor;         /* the last offset placed in it */
    gint floor_item;       /* and the item's position in items (-1: none yet) */
    guint placed;
    guint64 best[STRUCTURED_TERMS]; /* in the problem's term order */
    gboolean have_best;
    guint *best_pool;
    guint64 *best_offset;
    guint64 nodes, budget; /* work: a node, each item it looks over, each candidate it weighs */
    gboolean cut;
} Search;

static void vector_of(const Search *x, const guint64 *value, guint64 *v)
{
    for (guint t = 0; t < x->p->n_terms; t++)
        v[t] = value[x->p->terms[t]];
}

static gboolean allowed(const StructuredState *s, guint item, guint pool)
{
    const GArray *pools = structured_place_pools(s, item);
    for (guint k = 0; k < pools->len; k++)
        if (g_array_index(pools, guint, k) == pool)
            return TRUE;
    return FALSE;
}

/* Whether an item may still go to a pool after the current one. */
static gboolean later_pool(const Search *x, guint item)
{
    const GArray *pools = structured_place_pools(x->s, item);
    for (guint k = 0; k < pools->len; k++) {
        guint q = g_array_index(pools, guint, k);
        if (x->pool_rank[q] != G_MAXUINT && x->pool_rank[q] > x->cur)
            return TRUE;
    }
    return FALSE;
}

/* The bound of a node: no completion does better. */
static void node_bound(const Search *x, guint64 *v)
{
    guint64 value[STRUCTURED_TERMS] = {0};
    for (guint k = 0; k < x->n_pools; k++) {
        guint q = x->pools[k];
        const StructuredPool *pool = &g_array_index(x->p->pools, StructuredPool, q);
        guint64 peak = structured_place_peak(x->s, q);
        if (k >= x->cur)
            peak = MAX(peak, structured_place_pool_bound(x->s, q));
        if (k == x->cur)
            for (guint i = 0; i < x->n; i++) {
                guint it = x->items[i];
                if (!structured_place_is_placed(x->s, it) && !later_pool(x, it))
                    peak = MAX(peak, x->floor + structured_place_size(x->s, it));
            }
        value[STRUCTURED_TOTAL_PEAK] = structured_add(value[STRUCTURED_TOTAL_PEAK], peak);
        value[STRUCTURED_MAX_PEAK] = MAX(value[STRUCTURED_MAX_PEAK], peak);
        if (pool->bounded && peak > pool->capacity)
            value[STRUCTURED_OVERFLOW] = structured_add(value[STRUCTURED_OVERFLOW], peak - pool->capacity);
    }
    guint64 all[STRUCTURED_TERMS];
    structured_place_value(x->s, x->in, all);
    value[STRUCTURED_REUSE_COST] = all[STRUCTURED_REUSE_COST];
    vector_of(x, value, v);
}

static int child_cmp(gconstpointer a, gconstpointer b)
{
    const Child *x = a, *y = b;
    for (guint k = 0; k < 3; k++)
        if (x->key[k] != y->key[k])
            return x->key[k] < y->key[k] ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item;
}

static void dfs(Search *x)
{
    if (x->nodes >= x->budget) {
        x->cut = TRUE;
        return;
    }
    x->nodes += 1 + x->n; /* the work of a node: the items it looks over (below, and in its bound) */
    guint64 v[STRUCTURED_TERMS];
    if (x->placed == x->n) {
        guint64 value[STRUCTURED_TERMS];
        structured_place_value(x->s, x->in, value);
        vector_of(x, value, v);
        if (!x->have_best || structured_compare(x->p, v, x->best) < 0) {
            memcpy(x->best, v, sizeof v);
            x->have_best = TRUE;
            for (guint i = 0; i < x->n; i++) {
                x->best_pool[i] = structured_place_item_pool(x->s, x->items[i]);
                x->best_offset[i] = structured_place_item_offset(x->s, x->items[i]);
            }
        }
        return;
    }
    node_bound(x, v);
    if (x->have_best && structured_compare(x->p, v, x->best) >= 0)
        return;
    guint q = x->pools[x->cur];
    const StructuredPool *pool = &g_array_index(x->p->pools, StructuredPool, q);
    GArray *children = g_array_new(FALSE, FALSE, sizeof(Child));
    GArray *cands = g_array_new(FALSE, FALSE, sizeof(guint64));
    for (guint i = 0; i < x->n; i++) {
        guint it = x->items[i];
        if (structured_place_is_placed(x->s, it) || !allowed(x->s, it, q))
            continue;
        g_array_set_size(cands, 0);
        structured_place_candidates(x->s, it, q, x->floor, cands);
        x->nodes += cands->len;
        for (guint c = 0; c < cands->len; c++) {
            guint64 off = g_array_index(cands, guint64, c);
            if (x->floor_item >= 0 && off == x->floor && (gint)i < x->floor_item)
                continue; /* the same placement, met in the other order */
            guint64 end = off + structured_place_size(x->s, it);
            Child ch = {
                i, off, {pool->bounded && end > pool->capacity, structured_place_added_cost(x->s, it, q, off), end}};
            g_array_append_val(children, ch);
        }
    }
    g_array_free(cands, TRUE);
    g_array_sort(children, child_cmp);
    guint64 floor = x->floor;
    gint floor_item = x->floor_item;
    for (guint c = 0; c < children->len && !x->cut; c++) {
        const Child *ch = &g_array_index(children, Child, c);
        structured_place_put(x->s, x->items[ch->item], q, ch->offset);
        x->floor = ch->offset;
        x->floor_item = (gint)ch->item;
        x->placed++;
        dfs(x);
        x->placed--;
        x->floor = floor;
        x->floor_item = floor_item;
        structured_place_undo(x->s);
    }
    g_array_free(children, TRUE);
    if (x->cut || x->cur + 1 >= x->n_pools)
        return;
    for (guint i = 0; i < x->n; i++) { /* the next pool, when everything left may go there or later */
        guint it = x->items[i];
        if (!structured_place_is_placed(x->s, it) && !later_pool(x, it))
            return;
    }
    x->cur++;
    x->floor = 0;
    x->floor_item = -1;
    dfs(x);
    x->cur--;
    x->floor = floor;
    x->floor_item = floor_item;
}

/* Pools joined by items that may choose between them: the parts the search may take apart. */
static guint *pool_parts(const StructuredProblem *p, const StructuredState *s)
{
    guint *part = g_new(guint, p->pools->len);
    for (guint q = 0; q < p->pools->len; q++)
        part[q] = q;
    for (guint it = 0; it < structured_place_items(s); it++) {
        const GArray *pools = structured_place_pools(s, it);
        for (guint k = 1; k < pools->len; k++) {
            guint a = part[g_array_index(pools, guint, 0)], b = part[g_array_index(pools, guint, k)];
            for (guint q = 0; q < p->pools->len; q++)
                if (part[q] == MAX(a, b))
                    part[q] = MIN(a, b);
        }
    }
    return part;
}

/* Whether the objective is the sum of the parts' (each term a sum, or the max_peak last). */
static gboolean separable(const StructuredProblem *p)
{
    for (guint t = 0; t + 1 < p->n_terms; t++)
        if (p->terms[t] == STRUCTURED_MAX_PEAK)
            return FALSE;
    return TRUE;
}

static gboolean search_solve(const StructuredProblem *p, const StructuredOptions *o, StructuredResult *r,
                             GError **error)
{
    /* the incumbent: the best plan of the portfolio, by the validator's objective */
    guint64 best[STRUCTURED_TERMS], v[STRUCTURED_TERMS];
    gboolean have = FALSE;
    for (const StructuredStrategy *const *k = o->portfolio; k && *k; k++) {
        if ((*k)->solve == search_solve)
            continue;
        StructuredResult one = {0};
        StructuredObjective obj = {0};
        if (!(*k)->solve(p, o, &one, error))
            return FALSE;
        r->work += one.work;
        if (structured_check(p, one.place, &obj, NULL)) {
            structured_objective_vector(p, &obj, v);
            if (!have || structured_compare(p, v, best) < 0) {
                memcpy(best, v, sizeof v);
                g_free(r->place);
                r->place = g_steal_pointer(&one.place);
                have = TRUE;
            }
        }
        structured_objective_clear(&obj);
        structured_strategy_result_clear(&one);
    }
    StructuredState *s = structured_place_new(p, error);
    if (!s) {
        structured_strategy_result_clear(r);
        return FALSE;
    }
    guint n = structured_place_items(s), np = p->pools->len;
    guint *part = pool_parts(p, s);
    if (!separable(p))
        for (guint q = 0; q < np; q++)
            part[q] = 0;
    /* the incumbent as per-item places, to score each part of it */
    guint *inc_pool = g_new0(guint, n ? n : 1);
    guint64 *inc_offset = g_new0(guint64, n ? n : 1);
    if (have) {
        for (guint b = 0; b < p->buffers->len; b++) {
            guint it = structured_place_item_of(s, b);
            inc_pool[it] = r->place[b].pool;
            inc_offset[it] = r->place[b].offset;
        }
    }
    Search x = {.p = p, .s = s, .budget = o->budget_work ? o->budget_work : STRUCTURED_DEFAULT_WORK};
    x.items = g_new(guint, n ? n : 1);
    x.pools = g_new(guint, np);
    x.in = g_new0(gboolean, np);
    x.pool_rank = g_new(guint, np);
    x.best_pool = g_new(guint, n ? n : 1);
    x.best_offset = g_new(guint64, n ? n : 1);
    gboolean proven = TRUE, cut = FALSE;
    for (guint root = 0; root < np; root++) {
        if (part[root] != root)
            continue;
        x.n = x.n_pools = 0;
        for (guint q = 0; q < np; q++) {
            x.in[q] = part[q] == root;
            x.pool_rank[q] = x.in[q] ? x.n_pools : G_MAXUINT;
            if (x.in[q])
                x.pools[x.n_pools++] = q;
        }
        for (guint it = 0; it < n; it++)
            if (!structured_place_pinned(s, it) && x.in[g_array_index(structured_place_pools(s, it), guint, 0)])
                x.items[x.n++] = it;
        if (!x.n)
            continue;
        if (x.n > STRUCTURED_SEARCH_MAX_ITEMS) { /* the portfolio's plan stands, unproven */
            proven = FALSE;
            continue;
        }
        x.have_best = FALSE;
        if (have) { /* the incumbent's score on this part */
            for (guint i = 0; i < x.n; i++)
                structured_place_put(s, x.items[i], inc_pool[x.items[i]], inc_offset[x.items[i]]);
            guint64 value[STRUCTURED_TERMS];
            structured_place_value(s, x.in, value);
            vector_of(&x, value, x.best);
            x.have_best = TRUE;
            for (guint i = 0; i < x.n; i++) {
                x.best_pool[i] = inc_pool[x.items[i]];
                x.best_offset[i] = inc_offset[x.items[i]];
            }
            structured_place_reset(s);
        }
        x.cur = 0;
        x.floor = 0;
        x.floor_item = -1;
        x.placed = 0;
        x.cut = FALSE;
        dfs(&x);
        proven &= !x.cut;
        cut |= x.cut;
        for (guint i = 0; i < x.n; i++) {
            inc_pool[x.items[i]] = x.best_pool[i];
            inc_offset[x.items[i]] = x.best_offset[i];
        }
    }
    if (!r->place)
        r->place = g_new(StructuredPlace, p->buffers->len);
    structured_place_result(s, r->place); /* the pins */
    for (guint b = 0; b < p->buffers->len; b++) {
        guint it = structured_place_item_of(s, b);
        if (!structured_place_pinned(s, it))
            r->place[b] = (StructuredPlace){inc_pool[it], inc_offset[it]};
    }
    r->work += x.nodes;
    r->proven = proven;
    r->cut = cut;
    g_free(x.items);
    g_free(x.pools);
    g_free(x.in);
    g_free(x.pool_rank);
    g_free(x.best_pool);
    g_free(x.best_offset);
    g_free(inc_pool);
    g_free(inc_offset);
    g_free(part);
    structured_place_free(s);
    return TRUE;
}

const StructuredStrategy structured_search = {
    "search", "branch and bound over canonical placements from the portfolio's best; proves optimality when it closes",
    search_solve};
