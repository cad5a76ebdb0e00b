/* order-event.c — the design log's v3 (docs/spec.md §4): Kahn's algorithm with a max-heap,
 * priority = bytes freed - bytes allocated (an output that can overwrite a freed input of its size counts
 * nothing), with proactive updates: when a root's remaining uses drop so that one consumer is left, that
 * consumer is re-pushed with its new score and older heap entries are skipped by version.
 *
 * Two variants. `event-gap` reproduces the documented trigger: it fires when the root's remaining
 * consuming *edges* reach 1, while the freed-bytes test asks for remaining edges == the consumer's own
 * edge count — so a last consumer reading the root twice (Add(x, x)) is never re-scored. `event` fixes it
 * by firing when one consuming *node* is left, whatever its edge count. */
#include "memory/order.h"
#include "ops/ops.h"

static gint64 event_score(const OrderProblem *p, guint k, const guint *remaining_edges)
{
    guint64 freed = order_freed_bytes(p, k, remaining_edges, TRUE), alloc = p->alloc_bytes[k];
    const Node *n = p->g->nodes->pdata[k];
    if (n->op && n->op->elementwise) /* in-place aware: a same-size dying input takes the output */
        for (guint i = 0; i < p->inputs[k]->len && alloc; i++) {
            const RootUse *u = &g_array_index(p->inputs[k], RootUse, i);
            if (remaining_edges[u->root] == u->edges && !p->root_kept[u->root] && p->root_bytes[u->root] == alloc)
                alloc = 0;
        }
    return (gint64)freed - (gint64)alloc;
}

/* Consumers of each root, ascending (CSR: root r's are at[start[r]] .. at[start[r + 1] - 1]): a trigger
 * looks only at its root's consumers, not at every node (which made the order quadratic). */
typedef struct {
    guint *start, *at;
} RootConsumers;

static void root_consumers_init(const OrderProblem *p, RootConsumers *c)
{
    c->start = g_new0(guint, p->n_roots + 2);
    for (guint k = 0; k < p->n; k++)
        for (guint i = 0; i < p->inputs[k]->len; i++)
            c->start[g_array_index(p->inputs[k], RootUse, i).root + 1]++;
    for (guint r = 0; r < p->n_roots; r++)
        c->start[r + 1] += c->start[r];
    guint *fill = g_memdup2(c->start, (p->n_roots + 1) * sizeof(guint));
    c->at = g_new(guint, c->start[p->n_roots] + 1);
    for (guint k = 0; k < p->n; k++)
        for (guint i = 0; i < p->inputs[k]->len; i++)
            c->at[fill[g_array_index(p->inputs[k], RootUse, i).root]++] = k;
    g_free(fill);
}

/* The last unscheduled consumer of root r in node order, or -1. */
static gint last_consumer(const RootConsumers *c, guint r, const gboolean *done)
{
    gint found = -1;
    for (guint j = c->start[r]; j < c->start[r + 1]; j++)
        if (!done[c->at[j]])
            found = (gint)c->at[j];
    return found;
}

static gboolean event_run(const OrderProblem *p, guint *order, gboolean with_gap)
{
    guint *preds = g_memdup2(p->n_preds, (p->n + 1) * sizeof(guint)), placed = 0;
    guint *edges = g_memdup2(p->root_edges, (p->n_roots + 1) * sizeof(guint));
    guint *nodes_left = g_memdup2(p->root_uses, (p->n_roots + 1) * sizeof(guint));
    guint *version = g_new0(guint, p->n + 1);
    gboolean *done = g_new0(gboolean, p->n + 1);
    RootConsumers consumers;
    root_consumers_init(p, &consumers);
    ScoreHeap heap;
    order_heap_init(&heap);
    for (guint k = 0; k < p->n; k++)
        if (!preds[k])
            order_heap_push(&heap, event_score(p, k, edges), k, 0);
    HeapItem it;
    while (order_heap_pop(&heap, &it)) {
        guint k = it.node;
        if (done[k] || it.version != version[k])
            continue; /* a stale entry */
        done[k] = TRUE;
        order[placed++] = k;
        for (guint i = 0; i < p->inputs[k]->len; i++) {
            const RootUse *u = &g_array_index(p->inputs[k], RootUse, i);
            edges[u->root] -= u->edges;
            nodes_left[u->root]--;
            gboolean trigger = with_gap ? edges[u->root] == 1 : nodes_left[u->root] == 1;
            if (!trigger)
                continue;
            gint c = last_consumer(&consumers, u->root, done);
            if (c >= 0 && !preds[c]) /* ready: re-push with the score it has now */
                order_heap_push(&heap, event_score(p, (guint)c, edges), (guint)c, ++version[c]);
        }
        for (guint j = 0; j < p->succs[k]->len; j++) {
            guint s = g_array_index(p->succs[k], guint, j);
            if (--preds[s] == 0)
                order_heap_push(&heap, event_score(p, s, edges), s, ++version[s]);
        }
    }
    order_heap_clear(&heap);
    g_free(consumers.start);
    g_free(consumers.at);
    g_free(preds);
    g_free(edges);
    g_free(nodes_left);
    g_free(version);
    g_free(done);
    return TRUE;
}

static gboolean event_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    return event_run(p, order, FALSE);
}

static gboolean event_gap_order(const OrderProblem *p, guint *order, GError **error)
{
    (void)error;
    return event_run(p, order, TRUE);
}

const OrderStrategy order_event = {
    .name = "event",
    .summary = "v3: net delta, proactive re-push when one consumer is left (multi-edge gap fixed)",
    .order = event_order,
};

const OrderStrategy order_event_gap = {
    .name = "event-gap",
    .summary = "v3 as the design log documents it: re-push when 1 consuming edge is left (misses Add(x, x))",
    .order = event_gap_order,
};
