/* treap.c — the augmented treap (see treap.h). Priorities come from a xorshift generator seeded per
 * tree, so runs are deterministic. */
#include "base/treap.h"

void treap_init(Treap *t)
{
    t->root = NULL;
    t->seed = 0x9e3779b9u;
    t->count = 0;
}

static guint32 next_prio(Treap *t)
{
    guint32 x = t->seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return t->seed = x;
}

static void pull(TreapNode *n)
{
    guint64 m = n->val;
    if (n->left && n->left->max_val > m)
        m = n->left->max_val;
    if (n->right && n->right->max_val > m)
        m = n->right->max_val;
    n->max_val = m;
}

static gboolean less(const TreapNode *a, const TreapNode *b)
{
    return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

static TreapNode *rotate_right(TreapNode *n)
{
    TreapNode *l = n->left;
    n->left = l->right;
    l->right = n;
    pull(n);
    pull(l);
    return l;
}

static TreapNode *rotate_left(TreapNode *n)
{
    TreapNode *r = n->right;
    n->right = r->left;
    r->left = n;
    pull(n);
    pull(r);
    return r;
}

static TreapNode *insert(TreapNode *root, TreapNode *n)
{
    if (!root)
        return n;
    if (less(n, root)) {
        root->left = insert(root->left, n);
        if (root->left->prio > root->prio)
            return rotate_right(root);
    } else {
        root->right = insert(root->right, n);
        if (root->right->prio > root->prio)
            return rotate_left(root);
    }
    pull(root);
    return root;
}

void treap_insert(Treap *t, TreapNode *n)
{
    n->left = n->right = NULL;
    n->max_val = n->val;
    n->prio = next_prio(t);
    t->root = insert(t->root, n);
    t->count++;
}

static TreapNode *join(TreapNode *a, TreapNode *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (a->prio > b->prio) {
        a->right = join(a->right, b);
        pull(a);
        return a;
    }
    b->left = join(a, b->left);
    pull(b);
    return b;
}

static TreapNode *remove_node(TreapNode *root, const TreapNode *n, gboolean *found)
{
    if (!root)
        return NULL;
    if (root->key == n->key && root->tie == n->tie) {
        *found = TRUE;
        return join(root->left, root->right);
    }
    if (less(n, root))
        root->left = remove_node(root->left, n, found);
    else
        root->right = remove_node(root->right, n, found);
    pull(root);
    return root;
}

void treap_remove(Treap *t, TreapNode *n)
{
    gboolean found = FALSE;
    t->root = remove_node(t->root, n, &found);
    if (found)
        t->count--;
}

static gboolean reshape(TreapNode *root, TreapNode *n, guint64 key, guint64 val)
{
    if (!root)
        return FALSE;
    gboolean found;
    if (root == n) {
        n->key = key;
        n->val = val;
        found = TRUE;
    } else {
        found = reshape(less(n, root) ? root->left : root->right, n, key, val);
    }
    if (found)
        pull(root);
    return found;
}

void treap_reshape(Treap *t, TreapNode *n, guint64 key, guint64 val)
{
    reshape(t->root, n, key, val);
}

void treap_update(Treap *t, TreapNode *n, guint64 val)
{
    treap_remove(t, n);
    n->val = val;
    treap_insert(t, n);
}

TreapNode *treap_floor(const Treap *t, guint64 k)
{
    TreapNode *best = NULL;
    for (TreapNode *n = t->root; n;) {
        if (n->key <= k) {
            best = n;
            n = n->right;
        } else {
            n = n->left;
        }
    }
    return best;
}

TreapNode *treap_ceil(const Treap *t, guint64 k)
{
    TreapNode *best = NULL;
    for (TreapNode *n = t->root; n;) {
        if (n->key >= k) {
            best = n;
            n = n->left;
        } else {
            n = n->right;
        }
    }
    return best;
}

static TreapNode *first_fit(TreapNode *n, guint64 need, gboolean (*accept)(const TreapNode *, gpointer), gpointer data)
{
    if (!n || n->max_val < need)
        return NULL;
    TreapNode *found = first_fit(n->left, need, accept, data);
    if (found)
        return found;
    if (n->val >= need && (!accept || accept(n, data)))
        return n;
    return first_fit(n->right, need, accept, data);
}

TreapNode *treap_first_fit(const Treap *t, guint64 need, gboolean (*accept)(const TreapNode *, gpointer), gpointer data)
{
    return first_fit(t->root, need, accept, data);
}

