/* alias-index.h — the alias map's link forest, indexed for speed (issue 18: a 200,000-node chain of views
 * is a normal input, and walking parent links per query made the sharing analysis quadratic).
 *
 * Two union-find forests mirror the links: one over every link (roots and byte offsets), one over the
 * graph-structural links only (not in-place). Links are only ever added from a root (alias_link), so a
 * union merges the child's set into its parent's, and the set keeps the parent's root as its top. Union
 * by rank, no path compression: a find is O(log n) and never writes, so queries stay const. Offsets are
 * kept as signed positions relative to each set's representative; a tensor's offset in its root is its
 * position minus the root's.
 *
 * Removing a view tree from the arena (alias_view_outside) zeroes its members' bytes and detaches them:
 * they take no further part (alias_link refuses tensors without bytes, and no query is made on them), so
 * the forests keep them as they were; only the child lists and the owned counts are updated.
 *
 * Per structural set, how many members with bytes are graph outputs or pinned, and how many are graph
 * inputs: what alias_structural_protected used to find by scanning every tensor. */
#ifndef SIM_ALIAS_INDEX_H
#define SIM_ALIAS_INDEX_H

#include <glib.h>

typedef struct {
    gint *up;        /* parent in the rank forest, -1 at a representative */
    gint64 *delta;   /* position minus the parent's position */
    guint8 *rank;
    gint *top;       /* at a representative: the set's root tensor */
} UnionFind;

typedef struct AliasIndex {
    UnionFind all, structural;
    gint *first_child, *next_sibling; /* the link forest's children, as lists */
    guint *owned_out, *owned_in;      /* per structural representative (see above) */
    gboolean *is_owned_out, *is_owned_in; /* per tensor: a graph output or pinned; a graph input */
} AliasIndex;

AliasIndex *alias_index_new(guint n);
void alias_index_free(AliasIndex *x);
/* The representative of t's set and t's position relative to it. */
gint alias_index_rep(const UnionFind *u, gint t, gint64 *position);
/* child (the top of its set) goes under parent at `offset` bytes from parent's start. */
void alias_index_attach(UnionFind *u, gint child, gint parent, guint64 offset);

#endif
