/* ordered-set.h — an intrusive ordered set: nodes the caller owns (embedded in its own records), ordered
 * by (key, tie), linked into a treap with parent links, so insert, remove, lower bound and stepping to a
 * neighbour are loops without recursion, allocation or a comparison callback. For the indexes that only
 * need order (best fit's free blocks by length, verify's live buffers by offset); treap.h is the one whose
 * subtrees carry a maximum. */
#ifndef SIM_ORDERED_SET_H
#define SIM_ORDERED_SET_H

#include <glib.h>

typedef struct OrderedNode {
    struct OrderedNode *child[2], *parent; /* child[0] before, child[1] after */
    guint64 key, tie; /* set by the caller before ordered_set_insert; fixed while linked */
    guint32 prio;
} OrderedNode;

typedef struct {
    OrderedNode *root;
    guint32 seed;
} OrderedSet;

void ordered_set_init(OrderedSet *s);
/* Links n (its key and tie set) in. Equal (key, tie) pairs are allowed; the newest sits first among them,
 * so the lower bound of its pair is n itself. */
void ordered_set_insert(OrderedSet *s, OrderedNode *n);
/* Unlinks n, which must be linked in s. */
void ordered_set_remove(OrderedSet *s, OrderedNode *n);
/* The first node not less than (key, tie); NULL when every node is less. */
OrderedNode *ordered_set_lower_bound(const OrderedSet *s, guint64 key, guint64 tie);
/* Neighbours in order; NULL past either end. */
OrderedNode *ordered_set_next(const OrderedNode *n);
OrderedNode *ordered_set_prev(const OrderedNode *n);
OrderedNode *ordered_set_first(const OrderedSet *s);
OrderedNode *ordered_set_last(const OrderedSet *s);

#endif
