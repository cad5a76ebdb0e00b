/* inline.c — graph surgery: a node that owns a subgraph (an If whose condition is known before running)
 * replaced by that subgraph's nodes, in the enclosing graph, at the node's place in file order and in the
 * topological order. The subgraph's own tensors get fresh names in the enclosing graph ("<node>/<name>",
 * made unique); names it captures are the enclosing tensors themselves; its outputs are the node's outputs
 * (written by the inlined producer, or by an Identity when the subgraph returns a captured tensor or one of
 * its initializers). Subgraphs of the inlined nodes (an If inside the branch) keep working: what they
 * captured from the branch now comes from the new tensors. */
#include "model/graph.h"
#include "base/error.h"

#include <string.h>

/* name, or name~2, name~3, ...: the first not yet used in g. */
static char *unique_name(Graph *g, const char *prefix, const char *name)
{
    char *base = g_strdup_printf("%s/%s", prefix, name), *candidate = g_strdup(base);
    for (int k = 2; graph_tensor(g, candidate); k++) {
        g_free(candidate);
        candidate = g_strdup_printf("%s~%d", base, k);
    }
    g_free(base);
    return candidate;
}

/* The enclosing graph's tensor for subgraph tensor t, made on first use. */
static Tensor *mapped(Graph *g, GHashTable *map, const char *prefix, Tensor *t)
{
    if (!t)
        return NULL;
    if (t->outer)
        return t->outer;
    Tensor *m = g_hash_table_lookup(map, t);
    if (m)
        return m;
    char *name = unique_name(g, prefix, t->name);
    m = graph_tensor_get_or_add(g, name);
    g_free(name);
    m->kind = TENSOR_INTERMEDIATE;
    if (t->declared) {
        m->declared = type_info_copy(t->declared);
        m->has_value_info = TRUE;
        g_ptr_array_add(g->value_infos, m);
    }
    if (t->init && !t->producer) { /* an initializer of the subgraph */
        m->init = tensor_data_copy(t->init);
        g_free(m->init->name);
        m->init->name = g_strdup(m->name);
        m->kind = TENSOR_WEIGHT;
        g_ptr_array_add(g->initializers, m);
    }
    g_hash_table_insert(map, t, m);
    return m;
}

static Node *add_moved_node(Graph *g, GHashTable *map, const char *prefix, Node *bn, guint k, GError **error)
{
    GPtrArray *in_names = g_ptr_array_new(), *out_names = g_ptr_array_new();
    for (guint i = 0; i < bn->inputs->len; i++) {
        Tensor *t = mapped(g, map, prefix, bn->inputs->pdata[i]);
        g_ptr_array_add(in_names, t ? t->name : "");
    }
    for (guint i = 0; i < bn->outputs->len; i++) {
        Tensor *t = mapped(g, map, prefix, bn->outputs->pdata[i]);
        g_ptr_array_add(out_names, t ? t->name : "");
    }
    char *name = *bn->name ? g_strdup_printf("%s/%s", prefix, bn->name) : g_strdup_printf("%s/#%u", prefix, k);
    /* The node's attributes move with it (the subgraph is freed with the replaced node). */
    GPtrArray *attrs = bn->attrs;
    bn->attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    Node *n = graph_add_node(g, bn->op_type, bn->domain, name, (const char *const *)in_names->pdata, (int)in_names->len,
                             (const char *const *)out_names->pdata, (int)out_names->len, attrs, error);
    g_free(name);
    g_ptr_array_unref(in_names);
    g_ptr_array_unref(out_names);
    if (!n)
        return NULL;
    /* What its own subgraphs captured from the branch now comes from the enclosing graph. */
    for (guint a = 0; a < n->attrs->len; a++) {
        Attr *attr = n->attrs->pdata[a];
        guint count = attr->g ? 1 : (attr->graphs ? attr->graphs->len : 0);
        for (guint j = 0; j < count; j++) {
            Graph *sub = attr->g ? attr->g : attr->graphs->pdata[j];
            for (guint c = 0; c < sub->tensors->len; c++) {
                Tensor *st = sub->tensors->pdata[c];
                if (st->outer)
                    st->outer = mapped(g, map, prefix, st->outer);
            }
            for (guint c = 0; c < sub->captures->len; c++)
                sub->captures->pdata[c] = mapped(g, map, prefix, sub->captures->pdata[c]);
        }
    }
    for (guint i = 0; i < bn->implicit_inputs->len; i++) {
        Tensor *t = mapped(g, map, prefix, bn->implicit_inputs->pdata[i]);
        if (!g_ptr_array_find(n->implicit_inputs, t, NULL))
            g_ptr_array_add(n->implicit_inputs, t);
        if (!g_ptr_array_find(t->consumers, n, NULL))
            g_ptr_array_add(t->consumers, n);
    }
    return n;
}

/* a[at] replaced by the elements of `insert` (a has no free function while this runs). */
static void splice(GPtrArray *a, guint at, const GPtrArray *insert)
{
    guint old_len = a->len, tail = old_len - at - 1;
    g_ptr_array_set_size(a, old_len - 1 + insert->len);
    memmove(a->pdata + at + insert->len, a->pdata + at + 1, tail * sizeof(gpointer));
    memcpy(a->pdata + at, insert->pdata, insert->len * sizeof(gpointer));
}

gboolean graph_inline_subgraph(Graph *g, Node *node, Graph *sub, GError **error)
{
    guint at_order;
    if (!g->finalized || !sub->finalized || !g_ptr_array_find(g->order, node, &at_order)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "node %s: its subgraph cannot be inlined", node->label);
        return FALSE;
    }
    char *prefix = *node->name ? g_strdup(node->name) : g_strdup_printf("#%d", node->index);
    GHashTable *map = g_hash_table_new(NULL, NULL);
    guint first_new = g->nodes->len;

    /* The node lets go of its tensors; its outputs wait for their new producers. */
    for (guint i = 0; i < node->inputs->len; i++)
        if (node->inputs->pdata[i])
            g_ptr_array_remove(((Tensor *)node->inputs->pdata[i])->consumers, node);
    for (guint i = 0; i < node->implicit_inputs->len; i++)
        g_ptr_array_remove(((Tensor *)node->implicit_inputs->pdata[i])->consumers, node);
    for (guint k = 0; k < node->outputs->len; k++)
        if (node->outputs->pdata[k])
            ((Tensor *)node->outputs->pdata[k])->producer = NULL;
    /* A subgraph output made by one of its nodes is the node's output itself. */
    for (guint k = 0; k < sub->outputs->len && k < node->outputs->len; k++) {
        Tensor *st = sub->outputs->pdata[k], *out = node->outputs->pdata[k];
        if (out && st->producer && !st->outer && !g_hash_table_contains(map, st))
            g_hash_table_insert(map, st, out);
    }
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < sub->order->len; k++)
        ok = add_moved_node(g, map, prefix, sub->order->pdata[k], k, error) != NULL;
    /* The others through an Identity. */
    for (guint k = 0; ok && k < sub->outputs->len && k < node->outputs->len; k++) {
        Tensor *st = sub->outputs->pdata[k], *out = node->outputs->pdata[k];
        if (!out || mapped(g, map, prefix, st) == out)
            continue;
        char *name = g_strdup_printf("%s/output%u", prefix, k);
        const char *in_name = mapped(g, map, prefix, st)->name;
        ok = graph_add_node(g, "Identity", "", name, &in_name, 1, (const char *const *)&out->name, 1, NULL, error) != NULL;
        g_free(name);
    }
    g_hash_table_unref(map);
    g_free(prefix);
    if (!ok)
        return FALSE;

    /* The new nodes take the node's place in file order and in the topological order. */
    GPtrArray *moved = g_ptr_array_new();
    for (guint k = first_new; k < g->nodes->len; k++)
        g_ptr_array_add(moved, g->nodes->pdata[k]);
    g_ptr_array_set_free_func(g->nodes, NULL);
    g_ptr_array_set_size(g->nodes, first_new);
    splice(g->nodes, (guint)node->index, moved);
    splice(g->order, at_order, moved);
    g_ptr_array_set_free_func(g->nodes, (GDestroyNotify)node_free);
    for (guint k = 0; k < g->nodes->len; k++)
        ((Node *)g->nodes->pdata[k])->index = (int)k;
    g_ptr_array_unref(moved);
    node_free(node);
    return TRUE;
}
