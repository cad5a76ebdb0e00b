/* max-flow.c — Dinic's maximum flow (see max-flow.h). The edges are kept as given until the run, which lays them
 * out by tail (each with its reverse, of capacity 0, beside the other's index) and then alternates a breadth-first
 * pass that levels the vertices by distance from the source with a search that pushes flow only from one level to
 * the next. The search keeps its path on a stack, not in recursion (a graph of 200,000 nodes in one chain is a
 * normal input), and each vertex's next arc to try, so an arc that led nowhere is not tried again in that phase. */
#include "base/max-flow.h"

#include <string.h>

typedef struct {
    guint from, to;
    guint64 capacity;
} Edge;

typedef struct {
    guint to, reverse; /* the arc back, in `arcs` */
    guint64 residual;
} Arc;

struct MaxFlow {
    guint vertices;
    GArray *edges; /* Edge, as given */
};

MaxFlow *max_flow_new(guint vertices)
{
    MaxFlow *f = g_new0(MaxFlow, 1);
    f->vertices = vertices;
    f->edges = g_array_new(FALSE, FALSE, sizeof(Edge));
    return f;
}

void max_flow_free(MaxFlow *f)
{
    if (!f)
        return;
    g_array_unref(f->edges);
    g_free(f);
}

void max_flow_edge(MaxFlow *f, guint from, guint to, guint64 capacity)
{
    g_return_if_fail(from < f->vertices && to < f->vertices);
    if (from == to || !capacity)
        return;
    Edge e = {from, to, MIN(capacity, MAX_FLOW_UNBOUNDED)};
    g_array_append_val(f->edges, e);
}

/* Levels from the source over arcs with room left; FALSE when the sink is out of reach. */
static gboolean levels(const Arc *arcs, const gsize *first, guint n, guint source, guint sink, gint *level,
                       guint *queue, guint64 *work)
{
    for (guint v = 0; v < n; v++)
        level[v] = -1;
    guint head = 0, tail = 0;
    level[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        guint v = queue[head++];
        for (gsize a = first[v]; a < first[v + 1]; a++) {
            (*work)++;
            if (arcs[a].residual && level[arcs[a].to] < 0) {
                level[arcs[a].to] = level[v] + 1;
                queue[tail++] = arcs[a].to;
            }
        }
    }
    return level[sink] >= 0;
}

guint64 max_flow_run(MaxFlow *f, guint source, guint sink, guint64 *work, gboolean *complete)
{
    guint n = f->vertices, m = f->edges->len;
    if (complete)
        *complete = TRUE;
    if (source >= n || sink >= n || source == sink)
        return 0;
    gsize *first = g_new0(gsize, n + 1), *next = g_new(gsize, n + 1);
    for (guint e = 0; e < m; e++) {
        const Edge *x = &g_array_index(f->edges, Edge, e);
        first[x->from + 1]++;
        first[x->to + 1]++;
    }
    for (guint v = 0; v < n; v++)
        first[v + 1] += first[v];
    memcpy(next, first, (n + 1) * sizeof(gsize));
    Arc *arcs = g_new(Arc, 2 * (gsize)m + 1);
    for (guint e = 0; e < m; e++) {
        const Edge *x = &g_array_index(f->edges, Edge, e);
        gsize a = next[x->from]++, b = next[x->to]++;
        arcs[a] = (Arc){x->to, (guint)b, x->capacity};
        arcs[b] = (Arc){x->from, (guint)a, 0};
    }
    gint *level = g_new(gint, n);
    guint *queue = g_new(guint, n);
    gsize *path = g_new(gsize, n + 1); /* arcs from the source */
    guint64 flow = 0, done = 0;
    gboolean stopped = FALSE;
    while (!stopped && levels(arcs, first, n, source, sink, level, queue, &done)) {
        memcpy(next, first, (n + 1) * sizeof(gsize)); /* each vertex's next arc to try */
        guint depth = 0, v = source;
        for (;;) {
            if (work && done > *work) {
                stopped = TRUE;
                break;
            }
            if (v == sink) {
                guint64 most = MAX_FLOW_UNBOUNDED;
                for (guint k = 0; k < depth; k++)
                    most = MIN(most, arcs[path[k]].residual);
                guint cut = depth;
                for (guint k = 0; k < depth; k++) {
                    arcs[path[k]].residual -= most;
                    arcs[arcs[path[k]].reverse].residual += most;
                    if (!arcs[path[k]].residual && cut == depth)
                        cut = k;
                }
                flow = MIN(flow + most, MAX_FLOW_UNBOUNDED);
                depth = cut; /* back to the tail of the first arc it filled */
                v = depth ? arcs[path[depth - 1]].to : source;
                continue;
            }
            gsize a = next[v];
            while (a < first[v + 1] && !(arcs[a].residual && level[arcs[a].to] == level[v] + 1)) {
                a++;
                done++;
            }
            next[v] = a;
            if (a < first[v + 1]) {
                path[depth++] = a;
                v = arcs[a].to;
                continue;
            }
            if (v == source)
                break; /* the phase's flow is blocking */
            level[v] = -1; /* a dead end: no arc of this phase enters it again */
            depth--;
            v = depth ? arcs[path[depth - 1]].to : source;
            next[v]++;
        }
    }
    if (complete)
        *complete = !stopped;
    if (work)
        *work -= MIN(done, *work);
    g_free(first);
    g_free(next);
    g_free(arcs);
    g_free(level);
    g_free(queue);
    g_free(path);
    return flow;
}
