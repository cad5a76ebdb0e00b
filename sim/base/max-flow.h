/* max-flow.h — the maximum flow from a source to a sink of a directed graph with 64-bit capacities, by Dinic's
 * method (breadth-first levels, then blocking flows along them, the paths found without recursion). Its value is
 * the minimum cut's: the least total capacity of edges whose removal leaves no path from source to sink. A
 * training step's floor is such a cut (memory/training.h): the fewest bytes live when the loss is made, over every
 * order. The work is bounded: a run that reaches its bound returns the flow so far, which is at most the minimum
 * cut's capacity (a bound from below that still holds), and says so. */
#ifndef SIM_MAX_FLOW_H
#define SIM_MAX_FLOW_H

#include <glib.h>

/* A capacity no cut pays: edges that only say "this side implies that one". Finite capacities must sum below it. */
#define MAX_FLOW_UNBOUNDED (G_MAXUINT64 / 4)

typedef struct MaxFlow MaxFlow;

MaxFlow *max_flow_new(guint vertices);
void max_flow_free(MaxFlow *f);
/* An edge from -> to of the given capacity (a loop, or a capacity of 0, adds nothing). */
void max_flow_edge(MaxFlow *f, guint from, guint to, guint64 capacity);
/* The maximum flow from source to sink. `work` (NULL: no bound) holds the edge visits it may make, less those it
 * made on return; it returns FALSE in *complete (when not NULL) when they ran out first: the value is then the
 * flow found so far, at most the maximum. */
guint64 max_flow_run(MaxFlow *f, guint source, guint sink, guint64 *work, gboolean *complete);

#endif
