/* order-optimal.c — the exact minimum-peak order. First the bound every order needs (order_lower_bound): when the
 * best heuristic order (the problem's incumbents) peaks at it, that order is optimal and no search runs. Else the
 * graph is cut at the nodes every order runs at the same position (each node before it is its ancestor, each after
 * its descendant: a residual network's joins, a transformer's layer boundaries), and each part is searched on its
 * own: dynamic programming over downsets (the sets of nodes already run). A state keeps the smallest peak with
 * which any order reaches it, its live bytes (a function of the set) and the last node added, from which the order
 * is rebuilt. States are expanded by set size; a step at or above the incumbent's peak is dropped (a part with no
 * way through below it proves the incumbent optimal), and a ready node that allocates nothing is run at once (it
 * cannot raise any later step's live bytes), which collapses Constant nodes and views. It gives up with an error,
 * never silently, when it would explore more than the problem's state budget or run longer than its time budget
 * (--order-budget); the error says how far the incumbent is from the bound. */
#include "memory/order.h"

#include <string.h>

/* The most memory the states may take: the state budget is cut to what it holds. */
#define ORDER_STATES_MAX_BYTES ((guint64)1 << 30)

typedef struct {
    guint64 *bits;  /* the downset */
    guint64 peak;   /* best peak reaching it */
    guint64 live;   /* bytes live after it */
    guint last;     /* the node added last on the best path */
} State;

typedef struct {
    guint words;
    const OrderProblem *p;
    GHashTable *states;  /* bits -> State* (owns both) */
    guint **consumers;   /* per root: consuming nodes, terminated by G_MAXUINT */
} Search;

static guint state_hash(gconstpointer key)
{
    const guint64 *b = key;
    guint64 h = 1469598103934665603ull;
    guint words = (guint)b[-1];
    for (guint k = 0; k < words; k++)
        h = (h ^ b[k]) * 1099511628211ull;
    return (guint)(h ^ (h >> 32));
}

static gboolean state_equal(gconstpointer a, gconstpointer b)
{
    const guint64 *x = a, *y = b;
    return x[-1] == y[-1] && !memcmp(x, y, x[-1] * sizeof(guint64));
}

/* Bits with their word count stored just before them (so hash/equal need no context). */
static guint64 *bits_new(guint words, const guint64 *from)
{
    guint64 *raw = g_new0(guint64, words + 1);
    raw[0] = words;
    if (from)
        memcpy(raw + 1, from, words * sizeof(guint64));
    return raw + 1;
}

static void bits_free(gpointer b) { g_free((guint64 *)b - 1); }

static gboolean has(const guint64 *b, guint k) { return (b[k / 64] >> (k % 64)) & 1; }

static void state_free(gpointer s) { g_free(s); }

/* Live bytes after running k from the downset `b` whose live bytes are `live`. */
static guint64 live_after(const Search *s, const guint64 *b, guint64 live, guint k, gboolean first_step)
{
    const OrderProblem *p = s->p;
    live += p->alloc_bytes[k];
    for (guint i = 0; i < p->inputs[k]->len; i++) {
        guint r = g_array_index(p->inputs[k], RootUse, i).root;
        if (p->root_kept[r])
            continue;
        gboolean all_done = TRUE;
        for (const guint *c = s->consumers[r]; all_done && *c != G_MAXUINT; c++)
            all_done = *c == k || has(b, *c);
        if (all_done)
            live -= p->root_bytes[r];
    }
    for (guint i = 0; i < p->outputs[k]->len; i++) {
        guint r = g_array_index(p->outputs[k], guint, i);
        if (!p->root_uses[r] && !p->root_kept[r])
            live -= p->root_bytes[r];
    }
    if (first_step)
        for (guint r = 0; r < p->n_roots; r++)
            if (p->root_early[r] && !p->root_uses[r] && !p->root_kept[r])
                live -= p->root_bytes[r];
    return live;
}

static gboolean ready(const guint64 *b, guint k, guint **preds_of)
{
    if (has(b, k))
        return FALSE;
    for (const guint *q = preds_of[k]; *q != G_MAXUINT; q++)
        if (!has(b, *q))
            return FALSE;
    return TRUE;
}

/* The best of the problem's incumbent orders (the exhaustive ones, this one, left out): the peak to beat;
 * G_MAXUINT64 with none. */
static guint64 incumbent(const OrderProblem *p, guint *order)
{
    const OrderStrategy *const *all = p->incumbents;
    guint64 best = G_MAXUINT64;
    guint *trial = g_new(guint, p->n + 1);
    for (guint k = 0; all && all[k]; k++) {
        guint64 peak;
        if (all[k]->exhaustive || !all[k]->order(p, trial, NULL) || !order_peak(p, trial, &peak, NULL))
            continue;
        if (peak < best) {
            best = peak;
            memcpy(order, trial, p->n * sizeof(guint));
        }
    }
    g_free(trial);
    return best;
}

/* The nodes every order runs at one position: a node whose ancestors and descendants are all the other nodes.
 * Returned as the positions in reach->topo just after each (ascending, the last = n): every order runs the
 * nodes of topo[ends[i - 1] .. ends[i]) together, in some order, so each such part has its own best order,
 * and the best order of the graph is theirs one after the other. */
static GArray *part_ends(const OrderProblem *p, const OrderReach *reach)
{
    GArray *ends = g_array_new(FALSE, FALSE, sizeof(guint));
    if (reach) {
        guint *below = g_new0(guint, p->n + 1); /* descendants per node */
        for (guint v = 0; v < p->n; v++)
            for (guint w = 0; w < reach->words; w++)
                for (guint64 bits = reach->bits[(gsize)v * reach->words + w]; bits; bits &= bits - 1)
                    below[w * 64 + (guint)__builtin_ctzll(bits)]++;
        for (guint pos = 0; pos + 1 < p->n; pos++) {
            guint c = reach->topo[pos], above = 0;
            for (guint w = 0; w < reach->words; w++)
                above += (guint)__builtin_popcountll(reach->bits[(gsize)c * reach->words + w]);
            if (above + below[c] + 1 == p->n) { /* at its own position in every order: pos == above */
                guint end = pos + 1;
                g_array_append_val(ends, end);
            }
        }
        g_free(below);
    }
    g_array_append_val(ends, p->n);
    return ends;
}

/* One part's search: from the downset of every node before it (`start`, its live bytes `live`), states over the
 * part's nodes (`nodes`, `count` of them) expanded by size, each keeping the least peak reaching it; a step at or
 * above `best` is dropped (the incumbent has that peak already). Writes the part's best order to `out`.
 * Returns 1 when it has one below `best`, 0 when there is none, -1 when the budget ran out. */
typedef struct {
    guint64 explored, most;
    gint64 deadline;
} Budget;

static int solve_part(Search *s, guint **preds_of, const guint64 *start, guint64 live, gboolean at_first_step,
                      const guint *nodes, guint count, guint64 best, Budget *budget, guint *out)
{
    const OrderProblem *p = s->p;
    s->states = g_hash_table_new_full(state_hash, state_equal, bits_free, state_free);
    GPtrArray *layer = g_ptr_array_new(), *next = g_ptr_array_new();
    State *first = g_new0(State, 1);
    first->bits = bits_new(s->words, start);
    first->live = live;
    first->last = G_MAXUINT;
    g_hash_table_insert(s->states, first->bits, first);
    g_ptr_array_add(layer, first);
    int result = 1;
    guint64 *probe = bits_new(s->words, NULL);
    for (guint size = 0; result == 1 && size < count && layer->len; size++) {
        g_ptr_array_set_size(next, 0);
        for (guint i = 0; result == 1 && i < layer->len; i++) {
            State *from = layer->pdata[i];
            /* Dominance: a ready node that allocates nothing can only lower the live bytes, so running it
             * at once never raises a later step's; it is the only move considered (Constant nodes, views). */
            gint forced = -1;
            for (guint j = 0; forced < 0 && j < count; j++)
                if (!p->alloc_bytes[nodes[j]] && ready(from->bits, nodes[j], preds_of))
                    forced = (gint)nodes[j];
            for (guint j = 0; result == 1 && j < count; j++) {
                guint k = nodes[j];
                if (forced >= 0 && k != (guint)forced)
                    continue;
                /* Checked per move, not per state expanded: one state of a wide graph has a move per node,
                 * each a new state of a bit per node (100,000 of them were 1.3 GB past the limit). */
                if (budget->explored > budget->most || ((j & 255) == 0 && g_get_monotonic_time() > budget->deadline)) {
                    result = -1;
                    break;
                }
                if (!ready(from->bits, k, preds_of))
                    continue;
                guint64 step_peak = MAX(from->peak, from->live + p->alloc_bytes[k]);
                if (step_peak >= best)
                    continue; /* cannot beat the incumbent */
                memcpy(probe, from->bits, s->words * sizeof(guint64));
                probe[k / 64] |= (guint64)1 << (k % 64);
                State *to = g_hash_table_lookup(s->states, probe);
                if (to) {
                    if (step_peak < to->peak) {
                        to->peak = step_peak;
                        to->last = k;
                    }
                    continue;
                }
                to = g_new0(State, 1);
                to->bits = bits_new(s->words, probe);
                to->peak = step_peak;
                to->live = live_after(s, from->bits, from->live, k, at_first_step && size == 0);
                to->last = k;
                g_hash_table_insert(s->states, to->bits, to);
                g_ptr_array_add(next, to);
                budget->explored++;
            }
        }
        GPtrArray *t = layer;
        layer = next;
        next = t;
    }
    if (result == 1 && !layer->len)
        result = 0; /* every way through the part reaches the incumbent's peak */
    if (result == 1 && count) {
        /* The part's last state: its order rebuilt backwards through each state's last node. */
        State *at = layer->pdata[0];
        memcpy(probe, at->bits, s->words * sizeof(guint64));
        for (guint pos = count; pos-- > 0;) {
            at = g_hash_table_lookup(s->states, probe);
            out[pos] = at->last;
            probe[at->last / 64] &= ~((guint64)1 << (at->last % 64));
        }
    }
    bits_free(probe);
    g_ptr_array_unref(layer);
    g_ptr_array_unref(next);
    g_hash_table_unref(s->states);
    s->states = NULL;
    return result;
}

/* Records what the search found, and the order (see OrderOutcome). */
static void found_order(const OrderProblem *p, const guint *order, guint64 peak, guint64 bound, guint64 states)
{
    g_free(p->outcome->order);
    *p->outcome = (OrderOutcome){TRUE, peak, bound, states, g_memdup2(order, (gsize)p->n * sizeof(guint))};
}

static gboolean optimal_order(const OrderProblem *p, guint *order, GError **error)
{
    if (p->outcome->known && p->outcome->order) { /* this problem's order was found before */
        memcpy(order, p->outcome->order, (gsize)p->n * sizeof(guint));
        return TRUE;
    }
    guint64 best = incumbent(p, order);
    if (p->n == 0)
        return TRUE;
    OrderReach *reach = order_reach_new(p);
    guint64 bound = order_lower_bound(p, reach, best);
    if (best <= bound) { /* the incumbent holds no more than every order must: it is optimal */
        order_reach_free(reach);
        found_order(p, order, best, bound, 0);
        return TRUE;
    }
    Search s = {.words = (p->n + 63) / 64, .p = p};
    s.consumers = order_lists(p, ORDER_READERS);
    guint **preds_of = order_lists(p, ORDER_PREDECESSORS);
    guint *topo = reach ? g_memdup2(reach->topo, p->n * sizeof(guint)) : g_new(guint, p->n + 1);
    if (!reach) /* without the reach, one part: any topological order gives its live bytes before it */
        order_kahn(p, topo);
    GArray *ends = part_ends(p, reach);
    guint64 *before = g_new(guint64, p->n + 1); /* live bytes before each step of topo: where each part starts */
    guint *remaining = g_new(guint, p->n_roots + 1);
    OrderProfile profile;
    order_profile(p, topo, remaining, &profile, before);
    g_free(remaining);
    /* A state holds a bit per node: on a large graph the state budget alone allowed tens of gigabytes
     * (2,000,000 states of a 200,000-node graph are 50 GB), so memory bounds the states too. */
    guint64 per_state = sizeof(State) + ((guint64)s.words + 1) * sizeof(guint64) + 48; /* and the hash's entry */
    Budget budget = {0, MIN(p->budget_states, ORDER_STATES_MAX_BYTES / per_state),
                     g_get_monotonic_time() + (gint64)(p->budget_seconds * G_USEC_PER_SEC)};
    guint *found = g_new(guint, p->n + 1);
    guint64 *start = bits_new(s.words, NULL);
    int result = 1;
    for (guint i = 0, from = 0; result == 1 && i < ends->len; from = g_array_index(ends, guint, i++)) {
        guint to = g_array_index(ends, guint, i);
        result = solve_part(&s, preds_of, start, before[from], from == 0, topo + from, to - from, best, &budget,
                            found + from);
        for (guint pos = from; pos < to; pos++)
            start[topo[pos] / 64] |= (guint64)1 << (topo[pos] % 64);
    }
    guint64 peak = G_MAXUINT64;
    if (result == 1 && order_peak(p, found, &peak, NULL) && peak < best)
        memcpy(order, found, p->n * sizeof(guint));
    else /* nothing beats the incumbent, which `order` already holds */
        peak = best;
    if (result >= 0)
        found_order(p, order, peak, bound, budget.explored);
    if (result < 0) {
        GString *gap = g_string_new("");
        if (best != G_MAXUINT64)
            g_string_printf(gap, "; the best heuristic order's peak, %" G_GUINT64_FORMAT " B, is %.2f%% above the "
                            "%" G_GUINT64_FORMAT " B every order needs", best,
                            bound ? 100.0 * (double)(best - bound) / (double)bound : 0.0, bound);
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "the exact order gave up after %" G_GUINT64_FORMAT " states and %.1f s (budget %" G_GUINT64_FORMAT
                    " states, %.0f s%s): %u nodes are too many for it here%s; raise --order-budget or use a heuristic "
                    "order", budget.explored,
                    p->budget_seconds - (double)(budget.deadline - g_get_monotonic_time()) / G_USEC_PER_SEC,
                    budget.most, p->budget_seconds,
                    budget.most < p->budget_states ? ", as many as 1 GiB holds" : "", p->n, gap->str);
        g_string_free(gap, TRUE);
    }
    bits_free(start);
    g_free(found);
    g_free(before);
    g_array_unref(ends);
    g_free(topo);
    order_lists_free(s.consumers, p->n_roots);
    order_lists_free(preds_of, p->n);
    order_reach_free(reach);
    return result >= 0;
}

const OrderStrategy order_optimal = {
    .name = "optimal",
    .summary = "exact minimum peak: dynamic programming over downsets, pruned by the best heuristic",
    .order = optimal_order,
    .exhaustive = TRUE,
};
