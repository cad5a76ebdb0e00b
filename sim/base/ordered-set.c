/* ordered-set.c — the intrusive ordered set (see ordered-set.h): a treap whose priorities come from a
 * xorshift generator seeded per set, so runs are deterministic. A new node is linked as a leaf and rotated
 * up while its priority beats its parent's; a node leaving is rotated down below its higher-priority child
 * until it has at most one child, then spliced out. Both take fewer than two rotations on average.
 * Children are an array indexed by a comparison's outcome, so the two sides share one code path (rotations
 * and neighbour steps are written once); it measured no slower than left/right branches. */
#include "base/ordered-set.h"

void ordered_set_init(OrderedSet *s)
{
    s->root = NULL;
    s->seed = 0x9e3779b9u;
}

static guint32 next_prio(OrderedSet *s)
{
    guint32 x = s->seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return s->seed = x;
}

/* 1 when (key, tie) goes after n, 0 when before (an equal pair goes before: the newest comes first). */
static inline int side(guint64 key, guint64 tie, const OrderedNode *n)
{
    return (key > n->key) | ((key == n->key) & (tie > n->tie));
}

static inline int side_of(const OrderedNode *parent, const OrderedNode *n)
{
    return parent->child[1] == n;
}

/* Puts `to` where `from` hangs under parent (or at the root). */
static inline void replace_child(OrderedSet *s, OrderedNode *parent, const OrderedNode *from, OrderedNode *to)
{
    if (!parent)
        s->root = to;
    else
        parent->child[side_of(parent, from)] = to;
    if (to)
        to->parent = parent;
}

/* Rotates x above its parent, keeping the order. */
static void rotate_up(OrderedSet *s, OrderedNode *x)
{
    OrderedNode *p = x->parent;
    int d = side_of(p, x);
    OrderedNode *inner = x->child[!d];
    p->child[d] = inner;
    if (inner)
        inner->parent = p;
    x->child[!d] = p;
    replace_child(s, p->parent, p, x);
    p->parent = x;
}

void ordered_set_insert(OrderedSet *s, OrderedNode *n)
{
    n->child[0] = n->child[1] = NULL;
    n->prio = next_prio(s);
    OrderedNode *parent = NULL, **link = &s->root;
    while (*link) {
        parent = *link;
        link = &parent->child[side(n->key, n->tie, parent)];
    }
    *link = n;
    n->parent = parent;
    while (n->parent && n->parent->prio < n->prio)
        rotate_up(s, n);
}

void ordered_set_remove(OrderedSet *s, OrderedNode *n)
{
    while (n->child[0] && n->child[1])
        rotate_up(s, n->child[n->child[1]->prio > n->child[0]->prio]);
    replace_child(s, n->parent, n, n->child[n->child[0] == NULL]);
    n->child[0] = n->child[1] = n->parent = NULL;
}

OrderedNode *ordered_set_lower_bound(const OrderedSet *s, guint64 key, guint64 tie)
{
    OrderedNode *best = NULL;
    for (OrderedNode *x = s->root; x;) {
        int not_less = (x->key > key) | ((x->key == key) & (x->tie >= tie));
        best = not_less ? x : best;
        x = x->child[!not_less];
    }
    return best;
}

/* The last node on side d's far end of the subtree at x (d = 0: first, 1: last). */
static OrderedNode *extreme(OrderedNode *x, int d)
{
    while (x && x->child[d])
        x = x->child[d];
    return x;
}

/* The neighbour of n on side d (1: next, 0: previous). */
static OrderedNode *step(const OrderedNode *n, int d)
{
    if (n->child[d])
        return extreme(n->child[d], !d);
    while (n->parent && n->parent->child[d] == n)
        n = n->parent;
    return n->parent;
}

OrderedNode *ordered_set_next(const OrderedNode *n)
{
    return step(n, 1);
}

OrderedNode *ordered_set_prev(const OrderedNode *n)
{
    return step(n, 0);
}

OrderedNode *ordered_set_first(const OrderedSet *s)
{
    return extreme(s->root, 0);
}

OrderedNode *ordered_set_last(const OrderedSet *s)
{
    return extreme(s->root, 1);
}
