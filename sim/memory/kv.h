/* kv.h — a decoder's KV cache planned at its capacity. A decode step reads the cache so far (`past`, a graph
 * input) and writes it one slice longer (`present`, a graph output made by a Concat of the past and the new
 * slice along the sequence axis). In a loop the next step's past is this step's present, so without sharing a
 * step holds the cache twice (the caller's past and the runtime's present). Planned at a capacity of N tokens,
 * a pair is one buffer sized for N along that axis, live for the whole step (it outlives every step). The
 * cache holds its live tokens from offset 0 as the tensor they are (past, then present: the same bytes, one
 * slice longer), so every kernel and view reads it as any tensor; the Concat grows it in place: each block of
 * the axes before the cache axis moved to its wider place, last first, then the new slice written into its gap. The pairs are found from the graph (every Concat whose first input is a
 * graph input and whose output is a graph output), or named by patterns "PAST=PRESENT" where one '*' in each
 * stands for the same text ("past_key_values.*=present.*"). */
#ifndef SIM_MEMORY_KV_H
#define SIM_MEMORY_KV_H

#include "memory/alias.h"

typedef struct {
    guint64 capacity;             /* tokens along the cache axis; 0: no cache planned */
    const char *const *patterns;  /* "PAST=PRESENT" (NULL-terminated), or NULL: found from the graph */
} KvRequest;

/* One past/present pair and the Concat that joins them. */
typedef struct {
    const Tensor *past, *present;
    const Node *concat;
    int axis;
} KvPair;

/* The pairs of a graph under the request (KvPair each, in the order of the graph's inputs). FALSE with a usage
 * error when a pattern is malformed, matches no graph input, or names a pair the graph does not join so. */
gboolean kv_pairs_find(const Graph *g, const KvRequest *r, GArray *pairs, GError **error);

/* Plans the request in the map before any alias strategy: the buffer each pair's present roots reserved for the
 * capacity (AliasMap.reserve) and its past laid inside it from offset 0 (SHARE_KV), the Concat decided. FALSE with a usage error when the capacity
 * holds fewer tokens than a present, the graph has no pair, or the layout keeps graph inputs or outputs outside
 * the arena (the cache is the arena's). */
gboolean kv_apply(AliasMap *m, const KvRequest *r, GError **error);

#endif
