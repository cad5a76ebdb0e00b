/* order.c — the ordering memory model, schedule validation and peak, and the score heap (see order.h). */
#include "memory/order.h"
#include "base/max-flow.h"
#include "ops/ops.h"

#include <string.h>

static void add_succ(OrderProblem *p, const Tensor *t, guint node)
{
    if (t && t->producer) {
        guint from = (guint)t->producer->index;
        g_array_append_val(p->succs[from], node);
        p->n_preds[node]++;
    }
}

/* seen_by[root] is node + 1 when that node's input list already holds root, at slot[root]: found without a
 * scan of the list (a Concat of 100,000 inputs scanned 5 billion entries). */
static void add_use(OrderProblem *p, guint node, gint root, guint *seen_by, guint *slot)
{
    if (root < 0)
        return;
    GArray *in = p->inputs[node];
    if (seen_by[root] == node + 1) {
        g_array_index(in, RootUse, slot[root]).edges++;
        p->root_edges[root]++;
        return;
    }
    seen_by[root] = node + 1;
    slot[root] = in->len;
    RootUse u = {(guint)root, 1};
    g_array_append_val(in, u);
    p->root_uses[root]++;
    p->root_edges[root]++;
}

OrderProblem *order_problem_new(const Graph *g, const LayoutOptions *layout, GError **error)
{
    OrderProblem *p = g_new0(OrderProblem, 1);
    guint nt = g->tensors->len;
    p->g = g;
    p->n = g->nodes->len;
    p->root_of = g_new(gint, nt + 1);
    GArray *bytes = g_array_new(FALSE, FALSE, sizeof(guint64));
    GArray *kept = g_array_new(FALSE, FALSE, sizeof(gboolean)), *early = g_array_new(FALSE, FALSE, sizeof(gboolean));
    for (guint k = 0; k < nt; k++) {
        const Tensor *t = g->tensors->pdata[k];
        guint64 b = 0;
        gboolean outside = t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT;
        p->root_of[k] = -1;
        if (!t->shape_known || !liveness_tensor_in_arena(t, layout))
            continue;
        if (!liveness_physical_bytes(t, layout->pad_last, &b)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "tensor '%s': padded byte size overflows 64 bits", t->name);
            goto fail;
        }
        if (!b)
            continue;
        /* A noop output is its input's root (resolved below, in topological order); others are roots. */
        const Node *prod = t->producer;
        if (liveness_node_is_view(prod, layout) && node_input(prod, 0) && !outside)
            continue;
        p->root_of[k] = (gint)bytes->len;
        gboolean is_kept = t->is_graph_output || outside, is_early = t->is_graph_input || outside;
        g_array_append_val(bytes, b);
        g_array_append_val(kept, is_kept);
        g_array_append_val(early, is_early);
    }
    for (guint s = 0; s < g->order->len; s++) {
        const Node *n = g->order->pdata[s];
        const Tensor *x = node_input(n, 0), *y = node_output(n, 0);
        if (!liveness_node_is_view(n, layout) || !x || !y || p->root_of[y->id] >= 0)
            continue;
        guint64 bx = 0, by = 0;
        liveness_physical_bytes(x, layout->pad_last, &bx);
        liveness_physical_bytes(y, layout->pad_last, &by);
        if (p->root_of[x->id] >= 0 && bx == by) {
            p->root_of[y->id] = p->root_of[x->id];
            if (y->is_graph_output)
                g_array_index(kept, gboolean, p->root_of[y->id]) = TRUE;
        } else if (by) { /* not a view after all (a weight's reshape, or padding changes the bytes) */
            p->root_of[y->id] = (gint)bytes->len;
            gboolean f = FALSE, o = y->is_graph_output;
            g_array_append_val(bytes, by);
            g_array_append_val(kept, o);
            g_array_append_val(early, f);
        }
    }
    p->n_roots = bytes->len;
    p->root_bytes = (guint64 *)(void *)g_array_free(bytes, FALSE);
    p->root_kept = (gboolean *)(void *)g_array_free(kept, FALSE);
    p->root_early = (gboolean *)(void *)g_array_free(early, FALSE);
    p->root_uses = g_new0(guint, p->n_roots + 1);
    p->root_edges = g_new0(guint, p->n_roots + 1);
    p->inputs = g_new0(GArray *, p->n + 1);
    p->outputs = g_new0(GArray *, p->n + 1);
    p->succs = g_new0(GArray *, p->n + 1);
    p->n_preds = g_new0(guint, p->n + 1);
    p->alloc_bytes = g_new0(guint64, p->n + 1);
    p->inplace_bonus = g_new0(guint64, p->n + 1);
    for (guint k = 0; k < p->n; k++) {
        p->inputs[k] = g_array_new(FALSE, FALSE, sizeof(RootUse));
        p->outputs[k] = g_array_new(FALSE, FALSE, sizeof(guint));
        p->succs[k] = g_array_new(FALSE, FALSE, sizeof(guint));
    }
    guint *seen_by = g_new0(guint, p->n_roots + 1), *slot = g_new0(guint, p->n_roots + 1);
    for (guint k = 0; k < p->n; k++) {
        const Node *n = g->nodes->pdata[k];
        for (guint i = 0; i < n->inputs->len; i++) {
            const Tensor *t = n->inputs->pdata[i];
            if (t)
                add_use(p, k, p->root_of[t->id], seen_by, slot);
            add_succ(p, t, k);
        }
        for (guint i = 0; i < n->implicit_inputs->len; i++) {
            const Tensor *t = n->implicit_inputs->pdata[i];
            add_use(p, k, p->root_of[t->id], seen_by, slot);
            add_succ(p, t, k);
        }
        for (guint o = 0; o < n->outputs->len; o++) {
            const Tensor *t = n->outputs->pdata[o];
            if (!t || p->root_of[t->id] < 0)
                continue;
            guint r = (guint)p->root_of[t->id];
            gboolean fresh = seen_by[r] != k + 1; /* a noop output joins its input's root: nothing new */
            if (!fresh || p->root_early[r])
                continue;
            g_array_append_val(p->outputs[k], r);
            p->alloc_bytes[k] += p->root_bytes[r];
            for (guint c = 0; c < t->consumers->len; c++) {
                const Node *cn = t->consumers->pdata[c];
                const Tensor *co = node_output(cn, 0);
                guint64 cb = 0;
                if (cn->op && cn->op->elementwise && co && liveness_physical_bytes(co, layout->pad_last, &cb) &&
                    cb == p->root_bytes[r])
                    p->inplace_bonus[k] = MAX(p->inplace_bonus[k], p->root_bytes[r] / 8);
            }
        }
    }
    g_free(seen_by);
    g_free(slot);
    p->budget_states = 2000000;
    p->budget_seconds = 10;
    p->outcome = g_new0(OrderOutcome, 1);
    return p;
fail:
    g_array_unref(bytes);
    g_array_unref(kept);
    g_array_unref(early);
    g_free(p->root_of);
    g_free(p);
    return NULL;
}

void order_problem_free(OrderProblem *p)
{
    if (!p)
        return;
    for (guint k = 0; k < p->n; k++) {
        g_array_unref(p->inputs[k]);
        g_array_unref(p->outputs[k]);
        g_array_unref(p->succs[k]);
    }
    g_free(p->inputs);
    g_free(p->outputs);
    g_free(p->succs);
    g_free(p->n_preds);
    g_free(p->alloc_bytes);
    g_free(p->inplace_bonus);
    g_free(p->root_of);
    g_free(p->root_bytes);
    g_free(p->root_kept);
    g_free(p->root_early);
    g_free(p->root_uses);
    g_free(p->root_edges);
    if (p->outcome)
        g_free(p->outcome->order);
    g_free(p->outcome);
    g_free(p);
}

void order_profile(const OrderProblem *p, const guint *order, guint *remaining, OrderProfile *out, guint64 *before)
{
    memcpy(remaining, p->root_uses, p->n_roots * sizeof(guint));
    *out = (OrderProfile){0, 0, 0};
    guint64 live = 0;
    for (guint r = 0; r < p->n_roots; r++)
        if (p->root_early[r])
            live += p->root_bytes[r];
    for (guint s = 0; s < p->n; s++) {
        guint k = order[s];
        if (before)
            before[s] = live;
        live += p->alloc_bytes[k];
        if (live > out->peak) {
            out->peak = live;
            out->peak_step = s;
        }
        out->area = out->area + live < out->area ? G_MAXUINT64 : out->area + live;
        for (guint i = 0; i < p->inputs[k]->len; i++) {
            guint r = g_array_index(p->inputs[k], RootUse, i).root;
            if (--remaining[r] == 0 && !p->root_kept[r])
                live -= p->root_bytes[r];
        }
        for (guint i = 0; i < p->outputs[k]->len; i++) { /* made and never read */
            guint r = g_array_index(p->outputs[k], guint, i);
            if (!p->root_uses[r] && !p->root_kept[r])
                live -= p->root_bytes[r];
        }
        if (s == 0) /* graph inputs nobody reads live through step 0 only */
            for (guint r = 0; r < p->n_roots; r++)
                if (p->root_early[r] && !p->root_uses[r] && !p->root_kept[r])
                    live -= p->root_bytes[r];
    }
    if (p->n == 0)
        out->peak = live;
    if (before)
        before[p->n] = live;
}

guint **order_lists(const OrderProblem *p, OrderLists kind)
{
    guint count = kind == ORDER_READERS ? p->n_roots : p->n;
    GArray **tmp = g_new0(GArray *, count + 1);
    for (guint k = 0; k < count; k++)
        tmp[k] = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint k = 0; k < p->n; k++) {
        if (kind == ORDER_READERS) {
            for (guint i = 0; i < p->inputs[k]->len; i++)
                g_array_append_val(tmp[g_array_index(p->inputs[k], RootUse, i).root], k);
        } else {
            for (guint j = 0; j < p->succs[k]->len; j++)
                g_array_append_val(tmp[g_array_index(p->succs[k], guint, j)], k);
        }
    }
    guint **out = g_new0(guint *, count + 1);
    for (guint k = 0; k < count; k++) {
        guint end = G_MAXUINT;
        g_array_append_val(tmp[k], end);
        out[k] = (guint *)(void *)g_array_free(tmp[k], FALSE);
    }
    g_free(tmp);
    return out;
}

void order_lists_free(guint **l, guint count)
{
    for (guint k = 0; k < count; k++)
        g_free(l[k]);
    g_free(l);
}

guint order_kahn(const OrderProblem *p, guint *order)
{
    guint *preds = g_memdup2(p->n_preds, (p->n + 1) * sizeof(guint)), head = 0, tail = 0;
    for (guint k = 0; k < p->n; k++)
        if (!preds[k])
            order[tail++] = k;
    while (head < tail) {
        guint k = order[head++];
        for (guint j = 0; j < p->succs[k]->len; j++) {
            guint s = g_array_index(p->succs[k], guint, j);
            if (--preds[s] == 0)
                order[tail++] = s;
        }
    }
    g_free(preds);
    return tail;
}

OrderReach *order_reach_new(const OrderProblem *p)
{
    if (p->n > ORDER_REACH_NODES_MAX)
        return NULL;
    OrderReach *r = g_new0(OrderReach, 1);
    r->n = p->n;
    r->words = (p->n + 63) / 64;
    r->bits = g_new0(guint64, (gsize)r->words * p->n + 1);
    r->topo = g_new(guint, p->n + 1);
    if (order_kahn(p, r->topo) < p->n) { /* a cycle: no order at all */
        order_reach_free(r);
        return NULL;
    }
    for (guint i = 0; i < p->n; i++) { /* in that order each node hands its ancestors, and itself, to its successors */
        guint k = r->topo[i];
        const guint64 *from = r->bits + (gsize)k * r->words;
        for (guint j = 0; j < p->succs[k]->len; j++) {
            guint64 *to = r->bits + (gsize)g_array_index(p->succs[k], guint, j) * r->words;
            for (guint w = 0; w < r->words; w++)
                to[w] |= from[w];
            to[k / 64] |= (guint64)1 << (k % 64);
        }
    }
    return r;
}

void order_reach_free(OrderReach *r)
{
    if (!r)
        return;
    g_free(r->bits);
    g_free(r->topo);
    g_free(r);
}

/* Work the cuts of order_lower_bound may do, counted in roots and readers looked at and edges the flows visit:
 * about a second; a graph of a few hundred nodes takes a few million. */
#define ORDER_CUT_WORK 400000000u

/* What every order holds while node v runs, at least: what v makes and reads, and the roots made before it and
 * read at or after it, where the nodes neither before nor after v in every order (free) are put on the side
 * that holds least: a minimum cut (base/max-flow.h). `must` already counts the roots whose side is fixed (made by
 * an ancestor or before the first step, read by v or a descendant, or kept); a root made by an ancestor and read
 * only by ancestors and free nodes is live at v when one of those free readers runs after v (an edge of its bytes
 * from the source, then to each free reader); a root a free node makes is live when that node runs before v and
 * a reader after it (an edge of its bytes from its maker, to the sink if v or a descendant reads it or it is
 * kept, else to each free reader); a free node before v has its predecessors before v too (edges back to them
 * that no cut may cross). Only nodes whose every undecided root would lift the bound are cut, until it reaches the
 * goal. */
static guint64 cut_bound(const OrderProblem *p, const OrderReach *reach, const guint *const *readers,
                         const gint *producer, const guint64 *must, guint64 constant, guint64 bound, guint64 goal)
{
    guint *vertex = g_new(guint, p->n + 1), *root_vertex = g_new(guint, p->n_roots + 1);
    guint64 work = 0;
    enum { SOURCE, SINK };
    for (guint v = 0; v < p->n && work < ORDER_CUT_WORK && bound < goal; v++) {
        guint vertices = 2;
        for (guint u = 0; u < p->n; u++)
            vertex[u] = u == v || order_reach_before(reach, v, u) ? SINK
                        : order_reach_before(reach, u, v)           ? SOURCE
                                                                    : vertices++;
        work += p->n;
        if (vertices == 2)
            continue; /* no free node: must[v] is exact */
        guint64 open = 0; /* the bytes of the roots whose side the cut decides */
        for (guint r = 0; r < p->n_roots; r++) {
            root_vertex[r] = G_MAXUINT;
            gint a = producer[r];
            if ((p->root_early[r] && p->root_kept[r]) || (a < 0 && !p->root_early[r]) ||
                (a >= 0 && vertex[a] == SINK))
                continue; /* held throughout, never live, or made by v or after it */
            gboolean after = p->root_kept[r], free_reader = FALSE;
            for (const guint *c = readers[r]; *c != G_MAXUINT; c++, work++) {
                after = after || vertex[*c] == SINK;
                free_reader = free_reader || vertex[*c] >= 2;
            }
            gboolean made_free = a >= 0 && vertex[a] >= 2;
            if (made_free ? after || free_reader : !after && free_reader) {
                root_vertex[r] = made_free && after ? SINK : vertices++;
                open += p->root_bytes[r];
            }
        }
        if (constant + p->alloc_bytes[v] + must[v] + open <= bound)
            continue;
        MaxFlow *f = max_flow_new(vertices);
        for (guint r = 0; r < p->n_roots; r++) {
            if (root_vertex[r] == G_MAXUINT)
                continue;
            gint a = producer[r];
            guint from = a >= 0 ? vertex[a] : SOURCE;
            max_flow_edge(f, from, root_vertex[r], p->root_bytes[r]);
            for (const guint *c = readers[r]; root_vertex[r] != SINK && *c != G_MAXUINT; c++)
                if (vertex[*c] >= 2)
                    max_flow_edge(f, root_vertex[r], vertex[*c], MAX_FLOW_UNBOUNDED);
        }
        for (guint u = 0; u < p->n; u++)
            for (guint j = 0; vertex[u] >= 2 && j < p->succs[u]->len; j++) {
                guint w = g_array_index(p->succs[u], guint, j);
                if (vertex[w] >= 2)
                    max_flow_edge(f, vertex[w], vertex[u], MAX_FLOW_UNBOUNDED);
            }
        guint64 left = ORDER_CUT_WORK - MIN(work, ORDER_CUT_WORK), cut = max_flow_run(f, SOURCE, SINK, &left, NULL);
        work = ORDER_CUT_WORK - left; /* a flow cut short (its flow still a floor) ends the cuts */
        max_flow_free(f);
        bound = MAX(bound, constant + p->alloc_bytes[v] + must[v] + cut);
    }
    g_free(vertex);
    g_free(root_vertex);
    return bound;
}

/* What every order holds (order_profile's model: a root is live from its producer's step through its last
 * reader's, a graph input from before the first step, a graph output to the end):
 *   - at the last step, every kept root; at the first, every graph input and what the first node makes (the
 *     least of the nodes without predecessors);
 *   - while node v runs: what v makes and what it reads, every kept graph input, and, given `reach`, each kept
 *     root made by an ancestor of v, and each other root made by an ancestor of v (or a graph input) and read by
 *     v or a descendant of v (that reader runs at or after v, so the root is not yet freed).
 * The bound is the largest of these sums. */
guint64 order_lower_bound(const OrderProblem *p, const OrderReach *reach, guint64 goal)
{
    guint64 kept = 0, early = 0, constant = 0;
    gint *producer = g_new(gint, p->n_roots + 1);
    for (guint r = 0; r < p->n_roots; r++) {
        producer[r] = -1;
        kept += p->root_kept[r] ? p->root_bytes[r] : 0;
        early += p->root_early[r] ? p->root_bytes[r] : 0;
        constant += p->root_early[r] && p->root_kept[r] ? p->root_bytes[r] : 0;
    }
    for (guint k = 0; k < p->n; k++)
        for (guint i = 0; i < p->outputs[k]->len; i++)
            producer[g_array_index(p->outputs[k], guint, i)] = (gint)k;
    guint64 bound = p->n ? kept : early, first = G_MAXUINT64;
    for (guint k = 0; k < p->n; k++)
        if (!p->n_preds[k])
            first = MIN(first, p->alloc_bytes[k]);
    if (p->n)
        bound = MAX(bound, early + first);
    guint64 *must = g_new0(guint64, p->n + 1);
    guint **readers = reach ? order_lists(p, ORDER_READERS) : NULL;
    if (reach) {
        guint64 *upto = g_new(guint64, reach->words + 1); /* the readers and their ancestors */
        for (guint r = 0; r < p->n_roots; r++) {
            gint a = producer[r];
            if ((p->root_early[r] && p->root_kept[r]) || (a < 0 && !p->root_early[r]))
                continue;
            if (p->root_kept[r]) { /* held from its producer on: by every descendant of it */
                for (guint v = 0; v < p->n; v++)
                    if (order_reach_before(reach, (guint)a, v))
                        must[v] += p->root_bytes[r];
                continue;
            }
            if (readers[r][0] == G_MAXUINT)
                continue;
            memset(upto, 0, reach->words * sizeof(guint64));
            for (const guint *at = readers[r]; *at != G_MAXUINT; at++) {
                guint c = *at;
                const guint64 *anc = reach->bits + (gsize)c * reach->words;
                for (guint w = 0; w < reach->words; w++)
                    upto[w] |= anc[w];
                upto[c / 64] |= (guint64)1 << (c % 64);
            }
            for (guint w = 0; w < reach->words; w++)
                for (guint64 bits = upto[w]; bits; bits &= bits - 1) {
                    guint v = w * 64 + (guint)__builtin_ctzll(bits);
                    if (a < 0 || ((guint)a != v && order_reach_before(reach, (guint)a, v)))
                        must[v] += p->root_bytes[r];
                }
        }
        g_free(upto);
    } else { /* what each node reads, at least */
        for (guint k = 0; k < p->n; k++)
            for (guint i = 0; i < p->inputs[k]->len; i++) {
                guint r = g_array_index(p->inputs[k], RootUse, i).root;
                must[k] += p->root_early[r] && p->root_kept[r] ? 0 : p->root_bytes[r];
            }
    }
    for (guint k = 0; k < p->n; k++)
        bound = MAX(bound, constant + p->alloc_bytes[k] + must[k]);
    if (reach) {
        bound = cut_bound(p, reach, (const guint *const *)readers, producer, must, constant, bound, goal);
        order_lists_free(readers, p->n_roots);
    }
    g_free(must);
    g_free(producer);
    return bound;
}

gboolean order_peak(const OrderProblem *p, const guint *order, guint64 *peak, GError **error)
{
    guint *preds = g_memdup2(p->n_preds, (p->n + 1) * sizeof(guint));
    gboolean *done = g_new0(gboolean, p->n + 1), ok = TRUE;
    for (guint s = 0; ok && s < p->n; s++) {
        guint k = order[s];
        if (k >= p->n || done[k] || preds[k]) {
            const Node *n = k < p->n ? p->g->nodes->pdata[k] : NULL;
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "order is not topological: step %u runs %s%s", s,
                        n ? n->label : "no node", !n ? "" : done[k] ? " a second time" : " before an input of it is made");
            ok = FALSE;
            break;
        }
        done[k] = TRUE;
        for (guint j = 0; j < p->succs[k]->len; j++)
            preds[g_array_index(p->succs[k], guint, j)]--;
    }
    OrderProfile profile = {0, 0, 0};
    if (ok) {
        guint *remaining = g_new(guint, p->n_roots + 1);
        order_profile(p, order, remaining, &profile, NULL);
        g_free(remaining);
    }
    g_free(preds);
    g_free(done);
    *peak = profile.peak;
    return ok;
}

GPtrArray *order_schedule(const OrderStrategy *s, const OrderProblem *p, GError **error)
{
    guint *order = g_new(guint, p->n + 1);
    guint64 peak;
    GPtrArray *schedule = NULL;
    if (s->order(p, order, error) && order_peak(p, order, &peak, error)) {
        schedule = g_ptr_array_sized_new(p->n);
        for (guint k = 0; k < p->n; k++)
            g_ptr_array_add(schedule, p->g->nodes->pdata[order[k]]);
    } else if (error && *error) {
        g_prefix_error(error, "order %s: ", s->name);
    }
    g_free(order);
    return schedule;
}

guint64 order_freed_bytes(const OrderProblem *p, guint node, const guint *remaining, gboolean edges)
{
    guint64 freed = 0;
    for (guint i = 0; i < p->inputs[node]->len; i++) {
        const RootUse *u = &g_array_index(p->inputs[node], RootUse, i);
        if (!p->root_kept[u->root] && remaining[u->root] == (edges ? u->edges : 1))
            freed += p->root_bytes[u->root];
    }
    return freed;
}

/* ---- the heap ---- */

void order_heap_init(ScoreHeap *h) { h->items = g_array_new(FALSE, FALSE, sizeof(HeapItem)); }

void order_heap_clear(ScoreHeap *h)
{
    if (h->items)
        g_array_unref(h->items);
    h->items = NULL;
}

static gboolean above(const HeapItem *a, const HeapItem *b)
{
    return a->score > b->score || (a->score == b->score && a->node < b->node);
}

void order_heap_push(ScoreHeap *h, gint64 score, guint node, guint version)
{
    HeapItem it = {score, node, version};
    g_array_append_val(h->items, it);
    HeapItem *a = (HeapItem *)(void *)h->items->data;
    for (guint k = h->items->len - 1; k > 0;) {
        guint parent = (k - 1) / 2;
        if (!above(&a[k], &a[parent]))
            break;
        HeapItem t = a[k];
        a[k] = a[parent];
        a[parent] = t;
        k = parent;
    }
}

gboolean order_heap_pop(ScoreHeap *h, HeapItem *out)
{
    if (!h->items->len)
        return FALSE;
    HeapItem *a = (HeapItem *)(void *)h->items->data;
    *out = a[0];
    guint n = h->items->len - 1;
    a[0] = a[n];
    g_array_set_size(h->items, n);
    a = (HeapItem *)(void *)h->items->data;
    for (guint k = 0;;) {
        guint l = 2 * k + 1, r = l + 1, top = k;
        if (l < n && above(&a[l], &a[top]))
            top = l;
        if (r < n && above(&a[r], &a[top]))
            top = r;
        if (top == k)
            break;
        HeapItem t = a[k];
        a[k] = a[top];
        a[top] = t;
        k = top;
    }
    return TRUE;
}

void order_by_score(const OrderProblem *p, OrderScoreFn score, gboolean rescore_on_pop, guint *order)
{
    guint *preds = g_memdup2(p->n_preds, (p->n + 1) * sizeof(guint));
    guint *remaining = g_memdup2(p->root_uses, (p->n_roots + 1) * sizeof(guint)), placed = 0;
    ScoreHeap heap;
    order_heap_init(&heap);
    for (guint k = 0; k < p->n; k++)
        if (!preds[k])
            order_heap_push(&heap, score(p, k, remaining), k, 0);
    HeapItem it;
    while (order_heap_pop(&heap, &it)) {
        guint k = it.node;
        if (rescore_on_pop) {
            gint64 now = score(p, k, remaining);
            if (now != it.score) { /* stale: back in at its current score */
                order_heap_push(&heap, now, k, 0);
                continue;
            }
        }
        order[placed++] = k;
        for (guint i = 0; i < p->inputs[k]->len; i++)
            remaining[g_array_index(p->inputs[k], RootUse, i).root]--;
        for (guint j = 0; j < p->succs[k]->len; j++) {
            guint s = g_array_index(p->succs[k], guint, j);
            if (--preds[s] == 0)
                order_heap_push(&heap, score(p, s, remaining), s, 0);
        }
    }
    order_heap_clear(&heap);
    g_free(preds);
    g_free(remaining);
}
