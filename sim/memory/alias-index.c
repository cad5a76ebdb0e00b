/* alias-index.c — union-find forests and child lists for the alias map (see alias-index.h). */
#include "memory/alias-index.h"

static void union_find_init(UnionFind *u, guint n)
{
    u->up = g_new(gint, n + 1);
    u->delta = g_new0(gint64, n + 1);
    u->rank = g_new0(guint8, n + 1);
    u->top = g_new(gint, n + 1);
    for (guint k = 0; k < n; k++) {
        u->up[k] = -1;
        u->top[k] = (gint)k;
    }
}

static void union_find_clear(UnionFind *u)
{
    g_free(u->up);
    g_free(u->delta);
    g_free(u->rank);
    g_free(u->top);
}

AliasIndex *alias_index_new(guint n)
{
    AliasIndex *x = g_new0(AliasIndex, 1);
    union_find_init(&x->all, n);
    union_find_init(&x->structural, n);
    x->first_child = g_new(gint, n + 1);
    x->next_sibling = g_new(gint, n + 1);
    for (guint k = 0; k < n; k++)
        x->first_child[k] = x->next_sibling[k] = -1;
    x->owned_out = g_new0(guint, n + 1);
    x->owned_in = g_new0(guint, n + 1);
    x->is_owned_out = g_new0(gboolean, n + 1);
    x->is_owned_in = g_new0(gboolean, n + 1);
    return x;
}

void alias_index_free(AliasIndex *x)
{
    if (!x)
        return;
    union_find_clear(&x->all);
    union_find_clear(&x->structural);
    g_free(x->first_child);
    g_free(x->next_sibling);
    g_free(x->owned_out);
    g_free(x->owned_in);
    g_free(x->is_owned_out);
    g_free(x->is_owned_in);
    g_free(x);
}

gint alias_index_rep(const UnionFind *u, gint t, gint64 *position)
{
    gint64 pos = 0;
    while (u->up[t] >= 0) {
        pos += u->delta[t];
        t = u->up[t];
    }
    if (position)
        *position = pos;
    return t;
}

void alias_index_attach(UnionFind *u, gint child, gint parent, guint64 offset)
{
    gint64 child_pos, parent_pos;
    gint a = alias_index_rep(u, child, &child_pos), b = alias_index_rep(u, parent, &parent_pos);
    /* In b's coordinates the child sits at parent_pos + offset; a's members move with it. */
    gint64 shift = parent_pos + (gint64)offset - child_pos; /* a-coordinate + shift = b-coordinate */
    if (u->rank[a] > u->rank[b]) {
        u->up[b] = a;
        u->delta[b] = -shift; /* b's position in a's coordinates */
        u->top[a] = u->top[b];
    } else {
        u->up[a] = b;
        u->delta[a] = shift;
        if (u->rank[a] == u->rank[b])
            u->rank[b]++;
    }
}
