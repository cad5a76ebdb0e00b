/* treap.h — an intrusive randomized balanced tree ordered by (key, tie) whose subtrees carry the
 * maximum of a per-node value: the free list's blocks by address with their length (first fit in
 * O(log n)). */
#ifndef SIM_TREAP_H
#define SIM_TREAP_H

#include <glib.h>

typedef struct TreapNode {
    guint64 key, tie; /* order */
    guint64 val;      /* the value whose subtree maximum is kept */
    guint64 max_val;
    guint32 prio;
    struct TreapNode *left, *right;
} TreapNode;

typedef struct {
    TreapNode *root;
    guint32 seed;
    gsize count;
} Treap;

void treap_init(Treap *t);
/* The node (key, tie, val set by the caller) is linked in; its memory stays the caller's. */
void treap_insert(Treap *t, TreapNode *n);
/* Unlinks the node with n's (key, tie). */
void treap_remove(Treap *t, TreapNode *n);
/* Gives a linked node a new key and value in one descent, without unlinking it: the new key must keep
 * n between its neighbours (a free block shrinking from either end, or growing into free space). */
void treap_reshape(Treap *t, TreapNode *n, guint64 key, guint64 val);
/* Call after changing n->val of a linked node (remove + insert). */
void treap_update(Treap *t, TreapNode *n, guint64 val);
/* Largest node with key <= k / smallest with key >= k (ties: any); NULL if none. */
TreapNode *treap_floor(const Treap *t, guint64 k);
TreapNode *treap_ceil(const Treap *t, guint64 k);
/* In key order, the first node with val >= need for which accept(node, data) holds; subtrees whose
 * max_val < need are skipped. */
TreapNode *treap_first_fit(const Treap *t, guint64 need, gboolean (*accept)(const TreapNode *, gpointer), gpointer data);

#endif
