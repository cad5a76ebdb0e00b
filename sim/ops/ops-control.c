/* ops-control.c — If, Loop and Scan. An If whose condition is known before running (a constant, or shape
 * arithmetic folded at plan time) is replaced by the branch it takes (fold_if), and a Loop whose trip
 * count is known and whose body never stops by itself is unrolled (fold_loop): their nodes are then
 * planned and run like any others. Otherwise the bodies are kept in the graph model, and planning treats
 * such a node as one compute op: its output shapes come from the file (value_info or graph output
 * types, with symbolic dims bound), or for If from the then-branch's declared outputs. */
#include "ops/ops-families.h"

#include <string.h>

static gboolean static_type(const TypeInfo *t)
{
    if (!t || t->rank < 0 || t->dtype == DT_UNDEFINED)
        return FALSE;
    for (int k = 0; k < t->rank; k++)
        if (t->dims[k] < 0)
            return FALSE;
    return TRUE;
}

gboolean infer_control(const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    const Attr *then_branch = node_attr(n, "then_branch");
    for (guint k = 0; k < n->outputs->len; k++) {
        Tensor *t = n->outputs->pdata[k];
        if (!t)
            continue;
        const TypeInfo *type = t->declared;
        if (!static_type(type) && then_branch && then_branch->g && k < then_branch->g->outputs->len)
            type = ((Tensor *)then_branch->g->outputs->pdata[k])->declared;
        if (!static_type(type))
            return infer_fail(error, n, "output '%s' needs a static shape in value_info (subgraph ops are "
                              "planned as one compute op and their shapes are not inferred)", t->name);
        if (!infer_set_output(n, k, type->dtype, type->rank, type->dims, error))
            return FALSE;
    }
    return TRUE;
}

/* The prefix of the names a fold gives: the node's name, or "#index". */
static char *fold_prefix(const Node *n)
{
    return *n->name ? g_strdup(n->name) : g_strdup_printf("#%d", n->index);
}

static Tensor *add_int_constant(Graph *g, const char *prefix, const char *name, DType dtype, int rank, gint64 v,
                                GError **error)
{
    char *unique = graph_unique_name(g, prefix, name);
    TensorData *d = tensor_data_new(unique, dtype, rank, (const gint64[]){1});
    g_free(unique);
    guint8 bytes[8] = {0};
    if (dtype == DT_BOOL)
        bytes[0] = v != 0;
    else
        memcpy(bytes, &v, sizeof v);
    d->raw = g_bytes_new(bytes, dtype_size(dtype));
    Tensor *t = graph_tensor_get_or_add(g, d->name);
    if (!graph_add_initializer(g, d, error))
        return NULL;
    t->kind = TENSOR_WEIGHT;
    return t;
}

gboolean fold_if(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)opset;
    *folded = FALSE;
    const Tensor *cond = node_input(n, 0);
    if (!g || g->parent || !cond || !cond->value || cond->dynamic || cond->value->n != 1)
        return TRUE; /* decided only when it runs */
    const char *taken = value_get_f(cond->value, 0) != 0 ? "then_branch" : "else_branch";
    const Attr *branch = node_attr(n, taken);
    if (!branch || !branch->g)
        return infer_fail(error, n, "attribute '%s' is not a graph", taken);
    if (branch->g->outputs->len != n->outputs->len)
        return infer_fail(error, n, "%s has %u outputs for the If's %u", taken, branch->g->outputs->len, n->outputs->len);
    Tensor **outputs = g_new0(Tensor *, n->outputs->len);
    memcpy(outputs, n->outputs->pdata, n->outputs->len * sizeof(Tensor *));
    char *prefix = fold_prefix(n);
    guint first_new = g->nodes->len;
    graph_detach_node(n);
    gboolean ok = graph_add_subgraph(g, branch->g, prefix, NULL, outputs, TRUE, NULL, error);
    if (ok)
        graph_replace_node(g, n, first_new);
    g_free(outputs);
    g_free(prefix);
    *folded = ok;
    return ok;
}

/* Whether a Loop body never stops by itself: its condition output is its condition input, a true
 * constant, or an Identity of either. */
static gboolean body_keeps_going(const Graph *body)
{
    const Tensor *t = body->outputs->pdata[0];
    while (t->producer && !strcmp(t->producer->op_type, "Identity") && node_input(t->producer, 0))
        t = node_input(t->producer, 0);
    if (t == body->inputs->pdata[1])
        return TRUE;
    if (t->outer)
        return t->outer->value && t->outer->value->n == 1 && value_get_f(t->outer->value, 0) != 0;
    if (t->init && !t->producer) {
        Value *v = tensor_data_value(t->init);
        gboolean yes = v && v->n == 1 && value_get_f(v, 0) != 0;
        value_free(v);
        return yes;
    }
    return FALSE;
}

/* The most nodes unrolled Loops may add to one graph, all Loops together (trip count x body nodes each, and
 * a Loop inside an unrolled body counts again); past it, a Loop stays one node. A total, not a cap per Loop:
 * 200 Loops each at a per-Loop cap were 20 million nodes (5.8 GB) from a 33 KB model. */
#define LOOP_UNROLL_MAX_NODES 100000

gboolean fold_loop(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    *folded = FALSE;
    const Attr *body_attr = node_attr(n, "body");
    const Tensor *trip_t = node_input(n, 0), *cond = node_input(n, 1);
    if (!g || g->parent || !body_attr || !body_attr->g || !trip_t || !trip_t->value || trip_t->dynamic || trip_t->value->n != 1)
        return TRUE;
    Graph *body = body_attr->g;
    /* M, cond (both optional, the trailing ones may be left out), then the carried values */
    guint carried = n->inputs->len > 2 ? n->inputs->len - 2 : 0;
    guint scans = n->outputs->len >= carried ? n->outputs->len - carried : 0;
    if (n->outputs->len < carried || body->inputs->len != 2 + carried || body->outputs->len != 1 + carried + scans)
        return infer_fail(error, n, "the body has %u inputs and %u outputs for the Loop's %u inputs and %u outputs",
                          body->inputs->len, body->outputs->len, n->inputs->len, n->outputs->len);
    gint64 trip = value_get_i(trip_t->value, 0);
    if (cond && (!cond->value || cond->dynamic || cond->value->n != 1))
        return TRUE; /* stops on a value only running knows */
    if (cond && value_get_f(cond->value, 0) == 0)
        trip = 0;
    for (guint k = 0; k < carried; k++)
        if (!node_input(n, 2 + k))
            return TRUE;
    guint64 adds = trip < 0 || trip > LOOP_UNROLL_MAX_NODES ? G_MAXUINT64 : (guint64)trip * MAX(body->nodes->len, 1);
    if (adds > LOOP_UNROLL_MAX_NODES - MIN(g->unrolled_nodes, LOOP_UNROLL_MAX_NODES) ||
        (trip > 0 && !body_keeps_going(body)) || (trip == 0 && scans > 0) || !graph_subgraph_copyable(body))
        return TRUE;

    g->unrolled_nodes += adds;
    char *prefix = fold_prefix(n);
    guint first_new = g->nodes->len;
    guint n_body_out = body->outputs->len;
    Tensor **inputs = g_new0(Tensor *, body->inputs->len), **outputs = g_new0(Tensor *, n_body_out);
    Tensor ***scan_parts = g_new0(Tensor **, scans ? scans : 1);
    for (guint k = 0; k < scans; k++)
        scan_parts[k] = g_new0(Tensor *, trip);
    Tensor *loop_cond = (Tensor *)cond;
    GHashTable *weights = g_hash_table_new(NULL, NULL); /* one copy of each body initializer */
    for (guint k = 0; k < carried; k++)
        inputs[2 + k] = node_input(n, 2 + k);
    graph_detach_node(n);
    gboolean ok = loop_cond || (loop_cond = add_int_constant(g, prefix, "cond", DT_BOOL, 0, 1, error));
    for (gint64 i = 0; ok && i < trip; i++) {
        char *iteration = g_strdup_printf("%s/%" G_GINT64_FORMAT, prefix, i);
        inputs[0] = add_int_constant(g, iteration, "iter", DT_INT64, 0, i, error);
        inputs[1] = loop_cond;
        memset(outputs, 0, n_body_out * sizeof(Tensor *));
        for (guint k = 0; i == trip - 1 && k < carried; k++)
            outputs[1 + k] = node_output(n, k);
        ok = inputs[0] && graph_add_subgraph(g, body, iteration, inputs, outputs, FALSE, weights, error);
        for (guint k = 0; ok && k < carried; k++)
            inputs[2 + k] = outputs[1 + k];
        for (guint k = 0; ok && k < scans; k++)
            scan_parts[k][i] = outputs[1 + carried + k];
        g_free(iteration);
    }
    /* No iteration: the carried values come out as they went in. */
    for (guint k = 0; ok && trip == 0 && k < carried; k++) {
        Tensor *out = node_output(n, k);
        char *name = graph_unique_name(g, prefix, "Identity");
        ok = !out || graph_add_node(g, "Identity", "", name, (const char *const *)&inputs[2 + k]->name, 1,
                                    (const char *const *)&out->name, 1, NULL, error);
        g_free(name);
    }
    /* Each scan output: the iterations' values stacked on a new first axis. */
    Tensor *axes = ok && scans && opset >= 13 ? add_int_constant(g, prefix, "axes", DT_INT64, 1, 0, error) : NULL;
    ok = ok && (!scans || opset < 13 || axes);
    for (guint k = 0; ok && k < scans; k++) {
        Tensor *out = node_output(n, carried + k);
        if (!out)
            continue;
        GPtrArray *parts = g_ptr_array_new_with_free_func(g_free);
        for (gint64 i = 0; ok && i < trip; i++) {
            char *iteration = g_strdup_printf("%s/%" G_GINT64_FORMAT, prefix, i);
            char *name = graph_unique_name(g, iteration, "unsqueezed");
            g_free(iteration);
            const char *in[] = {scan_parts[k][i]->name, axes ? axes->name : NULL};
            GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
            if (!axes)
                g_ptr_array_add(attrs, attr_new_ints("axes", (const gint64[]){0}, 1));
            ok = graph_add_node(g, "Unsqueeze", "", name, in, axes ? 2 : 1, (const char *const *)&name, 1, attrs,
                                error) != NULL;
            g_ptr_array_add(parts, name);
        }
        if (ok) {
            GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
            g_ptr_array_add(attrs, attr_new_int("axis", 0));
            char *name = graph_unique_name(g, prefix, "Concat");
            ok = graph_add_node(g, "Concat", "", name, (const char *const *)parts->pdata, (int)parts->len,
                                (const char *const *)&out->name, 1, attrs, error) != NULL;
            g_free(name);
        }
        g_ptr_array_unref(parts);
    }
    if (ok)
        graph_replace_node(g, n, first_new);
    for (guint k = 0; k < scans; k++)
        g_free(scan_parts[k]);
    g_free(scan_parts);
    g_hash_table_unref(weights);
    g_free(inputs);
    g_free(outputs);
    g_free(prefix);
    *folded = ok;
    return ok;
}
