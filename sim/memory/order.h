/* order.h — operator orderings. An order strategy (strategies/order/order-*.c) turns a graph into a schedule
 * (every node once, topologically). They all see the same memory model, built here: buffers are the
 * graph's noop-alias roots (a Reshape/Transpose/... output allocates nothing: docs/spec.md §4,
 * "alias-aware"), a root is born when its producer runs (graph inputs before the first step) and freed
 * after the last node that reads any tensor of it, graph outputs never. The peak of live bytes under an
 * order is the lower bound any placement of that order can reach. */
#ifndef SIM_ORDER_H
#define SIM_ORDER_H

#include "model/graph.h"
#include "memory/liveness.h"

typedef struct {
    guint root;
    guint edges; /* input slots of the node that read this root (Add(x, x): 2) */
} RootUse;

/* What the exact order (optimal) found, for the report: filled by it when it ends with an order, which it keeps
 * there too, so asking the same problem again (the default's candidates, then the plan kept) costs nothing. */
typedef struct {
    gboolean known;
    guint64 peak;   /* its order's peak of live bytes */
    guint64 bound;  /* the least any order can have (order_lower_bound) */
    guint64 states; /* the states its search made: 0 when the best heuristic order was at the bound */
    guint *order;   /* the order itself (the problem's n nodes; freed with the problem) */
} OrderOutcome;

typedef struct {
    const Graph *g;
    guint n;              /* nodes, indexed as in the file */
    guint n_roots;
    gint *root_of;        /* tensor id -> root, -1 when the tensor has no buffer */
    guint64 *root_bytes;
    gboolean *root_kept;  /* a graph output: never freed */
    gboolean *root_early; /* a graph input: live before the first step */
    guint *root_uses;     /* distinct consuming nodes */
    guint *root_edges;    /* consuming input slots */
    GArray **inputs;      /* per node: RootUse, distinct roots read */
    GArray **outputs;     /* per node: guint roots the node allocates */
    GArray **succs;       /* per node: guint successor node indices (with multiplicity per edge) */
    guint *n_preds;       /* per node: predecessor edges */
    guint64 *alloc_bytes; /* per node: bytes its new roots take */
    guint64 *inplace_bonus; /* per node: output/8 when a consumer can take the output in place (v2) */
    guint64 budget_states;  /* optimal: states explored at most */
    double budget_seconds;  /* optimal: wall time at most */
    /* optimal: the orders whose best peak is the incumbent to beat (NULL-terminated, normally the registry's
     * registry_order; NULL: none, optimal starts unbounded). Handed down: this room cannot name the registry. */
    const struct OrderStrategy *const *incumbents;
    OrderOutcome *outcome; /* the problem's own; an exhaustive strategy writes what it found there */
} OrderProblem;

OrderProblem *order_problem_new(const Graph *g, const LayoutOptions *layout, GError **error);
void order_problem_free(OrderProblem *p);

/* Peak live bytes of a schedule (node indices); also validates it: every node once, inputs first. */
gboolean order_peak(const OrderProblem *p, const guint *order, guint64 *peak, GError **error);
/* The live bytes of a topological schedule (not validated): the peak, the first step that reaches it, and the sum
 * over the steps (held at 2^64 - 1). `remaining` holds n_roots counts of scratch. `before` (NULL, or n + 1 values):
 * the live bytes before each step, the last after every step. */
typedef struct {
    guint64 peak, area;
    guint peak_step;
} OrderProfile;
void order_profile(const OrderProblem *p, const guint *order, guint *remaining, OrderProfile *out, guint64 *before);

/* Per root, the nodes that read it (ORDER_READERS), or per node, its predecessors (ORDER_PREDECESSORS), each list
 * in node order, repeats kept, ended by G_MAXUINT; order_lists_free(l, the count: p->n_roots or p->n). */
typedef enum { ORDER_READERS, ORDER_PREDECESSORS } OrderLists;
guint **order_lists(const OrderProblem *p, OrderLists kind);
void order_lists_free(guint **l, guint count);

/* Kahn's algorithm with a FIFO queue: ready nodes in the order they became ready (ties among the first ones: file
 * order) into `order`; returns how many it placed (fewer than p->n: the graph has a cycle). */
guint order_kahn(const OrderProblem *p, guint *order);

/* Which nodes come before which in every topological order: per node v, a bit per node u set when u is a strict
 * ancestor of v (a path of edges leads from u to v). n^2 bits: built only up to ORDER_REACH_NODES_MAX nodes. */
#define ORDER_REACH_NODES_MAX 8192u
typedef struct {
    guint n, words;
    guint64 *bits;  /* v's ancestors at bits + v * words */
    guint *topo;    /* one topological order (order_kahn's) */
} OrderReach;
OrderReach *order_reach_new(const OrderProblem *p); /* NULL past ORDER_REACH_NODES_MAX nodes */
void order_reach_free(OrderReach *r);
static inline gboolean order_reach_before(const OrderReach *r, guint u, guint v)
{
    return (r->bits[(gsize)v * r->words + u / 64] >> (u % 64)) & 1;
}

/* A peak of live bytes no topological order can go below: the most, over the steps, of what every order holds
 * at that step (see order.c). `reach` (may be NULL) adds what every order holds while each node runs: roots made
 * by its ancestors and read by it or its descendants (or kept), graph inputs read by it or its descendants, and
 * the least the nodes free of its ancestry and descent can leave live (a minimum cut, its work bounded; no more
 * cuts once the bound reaches `goal`, the peak to prove least: G_MAXUINT64 for the tightest bound). */
guint64 order_lower_bound(const OrderProblem *p, const OrderReach *reach, guint64 goal);

typedef struct OrderStrategy {
    const char *name;
    const char *summary;
    /* Writes p->n node indices into `order`. */
    gboolean (*order)(const OrderProblem *p, guint *order, GError **error);
    gboolean exhaustive; /* searches states (may run for long, or give up): not one of the orders a portfolio tries
                            (--order best, optimal's incumbents) */
} OrderStrategy;

/* Runs a strategy and validates its answer as a topological order; returns the schedule as Node*. */
GPtrArray *order_schedule(const OrderStrategy *s, const OrderProblem *p, GError **error);

/* A max-heap of (score, node) with lazy deletion by version, shared by the heuristics. Ties: lower
 * node index first (file order). */
typedef struct {
    GArray *items; /* HeapItem */
} ScoreHeap;
typedef struct {
    gint64 score;
    guint node;
    guint version;
} HeapItem;
void order_heap_init(ScoreHeap *h);
void order_heap_clear(ScoreHeap *h);
void order_heap_push(ScoreHeap *h, gint64 score, guint node, guint version);
gboolean order_heap_pop(ScoreHeap *h, HeapItem *out);

/* Bytes a node would free if it ran now: roots it reads whose remaining uses it exhausts. `remaining`
 * counts consuming nodes (edges: FALSE) or consuming edges (edges: TRUE). */
guint64 order_freed_bytes(const OrderProblem *p, guint node, const guint *remaining, gboolean edges);

/* A node's priority when it is ready, given the remaining uses of every root (counted in consuming nodes). */
typedef gint64 (*OrderScoreFn)(const OrderProblem *p, guint node, const guint *remaining);
/* Kahn's algorithm on a max-heap of ready nodes scored by `score` at push. With `rescore_on_pop`, a popped
 * node whose score has changed goes back in at its current score (lazy re-scoring); without, scores stay
 * as pushed. Writes p->n node indices to `order`. */
void order_by_score(const OrderProblem *p, OrderScoreFn score, gboolean rescore_on_pop, guint *order);

#endif
