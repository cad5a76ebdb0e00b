/* inline.c — graph surgery for control flow decided before running: a node that owns a subgraph (an If
 * whose condition is known, a Loop whose trip count is) replaced by copies of that subgraph's nodes, in the
 * enclosing graph, at the node's place in file order and in the topological order. A copy's own tensors
 * get fresh names in the enclosing graph ("<node>/<name>", made unique); names it captures are the
 * enclosing tensors themselves; its inputs are tensors the caller binds (a Loop's carried values); its
 * outputs are tensors the caller names (the node's outputs: written by the copied producer, or by an
 * Identity when the subgraph returns a captured tensor, an input or one of its initializers) or fresh
 * ones. When the nodes move rather than copy, their own subgraphs (an If inside the branch) keep working:
 * what they captured from the branch now comes from the new tensors. */
#include "model/graph.h"
#include "base/error.h"

#include <string.h>

char *graph_unique_name(Graph *g, const char *prefix, const char *name)
{
    char *base = g_strdup_printf("%s/%s", prefix, name), *candidate = g_strdup(base);
    for (int k = 2; graph_tensor(g, candidate); k++) {
        g_free(candidate);
        candidate = g_strdup_printf("%s~%d", base, k);
    }
    g_free(base);
    return candidate;
}

typedef struct {
    Graph *g;
    GHashTable *map;     /* subgraph Tensor* -> enclosing Tensor* */
    GHashTable *weights; /* the same for sub's initializers, kept across copies (or NULL) */
    const char *prefix;
} Copy;

/* The enclosing graph's tensor for subgraph tensor t, made on first use. */
static Tensor *mapped(Copy *c, Tensor *t)
{
    if (!t)
        return NULL;
    if (t->outer)
        return t->outer;
    gboolean weight = t->init && !t->producer; /* an initializer of the subgraph */
    Tensor *m = g_hash_table_lookup(weight && c->weights ? c->weights : c->map, t);
    if (m)
        return m;
    char *name = graph_unique_name(c->g, c->prefix, t->name);
    m = graph_tensor_get_or_add(c->g, name);
    g_free(name);
    m->kind = TENSOR_INTERMEDIATE;
    if (t->declared) {
        m->declared = type_info_copy(t->declared);
        m->has_value_info = TRUE;
        g_ptr_array_add(c->g->value_infos, m);
    }
    if (weight) {
        m->init = tensor_data_copy(t->init);
        g_free(m->init->name);
        m->init->name = g_strdup(m->name);
        m->kind = TENSOR_WEIGHT;
        g_ptr_array_add(c->g->initializers, m);
    }
    g_hash_table_insert(weight && c->weights ? c->weights : c->map, t, m);
    return m;
}

static Node *add_node_copy(Copy *c, Node *bn, guint k, gboolean move, GError **error)
{
    GPtrArray *in_names = g_ptr_array_new(), *out_names = g_ptr_array_new();
    for (guint i = 0; i < bn->inputs->len; i++) {
        Tensor *t = mapped(c, bn->inputs->pdata[i]);
        g_ptr_array_add(in_names, t ? t->name : "");
    }
    for (guint i = 0; i < bn->outputs->len; i++) {
        Tensor *t = mapped(c, bn->outputs->pdata[i]);
        g_ptr_array_add(out_names, t ? t->name : "");
    }
    char *name = *bn->name ? g_strdup_printf("%s/%s", c->prefix, bn->name) : g_strdup_printf("%s/#%u", c->prefix, k);
    GPtrArray *attrs = bn->attrs;
    if (move) { /* the subgraph is freed with the replaced node: its attributes move out first */
        bn->attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    } else {
        attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
        for (guint a = 0; a < bn->attrs->len; a++)
            g_ptr_array_add(attrs, attr_copy(bn->attrs->pdata[a]));
    }
    Node *n = graph_add_node(c->g, bn->op_type, bn->domain, name, (const char *const *)in_names->pdata,
                             (int)in_names->len, (const char *const *)out_names->pdata, (int)out_names->len, attrs,
                             error);
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
            for (guint t = 0; t < sub->tensors->len; t++) {
                Tensor *st = sub->tensors->pdata[t];
                if (st->outer)
                    st->outer = mapped(c, st->outer);
            }
            for (guint t = 0; t < sub->captures->len; t++)
                sub->captures->pdata[t] = mapped(c, sub->captures->pdata[t]);
        }
    }
    for (guint i = 0; i < bn->implicit_inputs->len; i++) {
        Tensor *t = mapped(c, bn->implicit_inputs->pdata[i]);
        if (!g_ptr_array_find(n->implicit_inputs, t, NULL))
            g_ptr_array_add(n->implicit_inputs, t);
        if (!g_ptr_array_find(t->consumers, n, NULL))
            g_ptr_array_add(t->consumers, n);
    }
    return n;
}

gboolean graph_subgraph_copyable(const Graph *sub)
{
    for (guint k = 0; k < sub->nodes->len; k++) {
        const Node *n = sub->nodes->pdata[k];
        for (guint a = 0; a < n->attrs->len; a++)
            if (((const Attr *)n->attrs->pdata[a])->g || ((const Attr *)n->attrs->pdata[a])->graphs)
                return FALSE;
    }
    return sub->finalized;
}

gboolean graph_add_subgraph(Graph *g, Graph *sub, const char *prefix, Tensor *const *inputs, Tensor **outputs,
                            gboolean move, GHashTable *weights, GError **error)
{
    Copy c = {.g = g, .map = g_hash_table_new(NULL, NULL), .weights = weights, .prefix = prefix};
    for (guint k = 0; k < sub->inputs->len; k++)
        if (inputs && inputs[k])
            g_hash_table_insert(c.map, sub->inputs->pdata[k], inputs[k]);
    /* An output made by one of its nodes is written straight into the tensor the caller names. */
    for (guint k = 0; k < sub->outputs->len; k++) {
        Tensor *st = sub->outputs->pdata[k];
        if (outputs[k] && st->producer && !st->outer && !g_hash_table_contains(c.map, st))
            g_hash_table_insert(c.map, st, outputs[k]);
    }
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < sub->order->len; k++)
        ok = add_node_copy(&c, sub->order->pdata[k], k, move, error) != NULL;
    /* The others through an Identity. */
    for (guint k = 0; ok && k < sub->outputs->len; k++) {
        Tensor *got = mapped(&c, sub->outputs->pdata[k]);
        if (!outputs[k]) {
            outputs[k] = got;
        } else if (got != outputs[k]) {
            char *name = graph_unique_name(g, prefix, "Identity");
            ok = graph_add_node(g, "Identity", "", name, (const char *const *)&got->name, 1,
                                (const char *const *)&outputs[k]->name, 1, NULL, error) != NULL;
            g_free(name);
        }
    }
    g_hash_table_unref(c.map);
    return ok;
}

void graph_detach_node(Node *node)
{
    for (guint i = 0; i < node->inputs->len; i++)
        if (node->inputs->pdata[i])
            g_ptr_array_remove(((Tensor *)node->inputs->pdata[i])->consumers, node);
    for (guint i = 0; i < node->implicit_inputs->len; i++)
        g_ptr_array_remove(((Tensor *)node->implicit_inputs->pdata[i])->consumers, node);
    for (guint k = 0; k < node->outputs->len; k++)
        if (node->outputs->pdata[k])
            ((Tensor *)node->outputs->pdata[k])->producer = NULL;
}

/* a[at] replaced by the elements of `insert` (a has no free function while this runs). */
static void splice(GPtrArray *a, guint at, const GPtrArray *insert)
{
    guint old_len = a->len, tail = old_len - at - 1;
    g_ptr_array_set_size(a, old_len - 1 + insert->len);
    if (tail)
        memmove(a->pdata + at + insert->len, a->pdata + at + 1, tail * sizeof(gpointer));
    if (insert->len) /* none: the node goes with nothing in its place (a folded sequence op); pdata may be NULL */
        memcpy(a->pdata + at, insert->pdata, insert->len * sizeof(gpointer));
}

void graph_replace_node(Graph *g, Node *node, guint first_new)
{
    guint at_order = 0;
    g_ptr_array_find(g->order, node, &at_order);
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
}

void graph_replace_nodes(Graph *g, GHashTable *with, GHashTable *before, guint first_new)
{
    GPtrArray *nodes = g_ptr_array_new(), *order = g_ptr_array_new(), *gone = g_ptr_array_new();
    for (int pass = 0; pass < 2; pass++) {
        GPtrArray *from = pass ? g->order : g->nodes, *to = pass ? order : nodes;
        guint len = pass ? from->len : first_new;
        for (guint k = 0; k < len; k++) {
            Node *n = from->pdata[k];
            gpointer instead;
            if (!g_hash_table_lookup_extended(with, n, NULL, &instead)) {
                g_ptr_array_add(to, n);
                continue;
            }
            GPtrArray *first = before ? g_hash_table_lookup(before, n) : NULL;
            for (guint j = 0; first && j < first->len; j++)
                g_ptr_array_add(to, first->pdata[j]);
            if (instead)
                g_ptr_array_add(to, instead);
            if (!pass)
                g_ptr_array_add(gone, n);
        }
    }
    g_ptr_array_set_free_func(g->nodes, NULL);
    g_ptr_array_set_size(g->nodes, 0);
    g_ptr_array_extend_and_steal(g->nodes, nodes);
    g_ptr_array_set_free_func(g->nodes, (GDestroyNotify)node_free);
    g_ptr_array_set_size(g->order, 0);
    g_ptr_array_extend_and_steal(g->order, order);
    for (guint k = 0; k < g->nodes->len; k++)
        ((Node *)g->nodes->pdata[k])->index = (int)k;
    for (guint k = 0; k < gone->len; k++)
        node_free(gone->pdata[k]);
    g_ptr_array_unref(gone);
}
