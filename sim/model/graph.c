/* graph.c — building, linking and validating graphs; attributes; models; checked size arithmetic. */
#include "model/graph.h"

#include <string.h>

static const char *const tensor_kind_names[TENSOR_KIND_COUNT] = {
    [TENSOR_INTERMEDIATE] = "intermediate", [TENSOR_INPUT] = "input", [TENSOR_OUTPUT] = "output",
    [TENSOR_WEIGHT] = "weight", [TENSOR_CONSTANT] = "constant",
};

const char *tensor_kind_name(TensorKind k) { return k < TENSOR_KIND_COUNT ? tensor_kind_names[k] : "?"; }

static const char *const attr_type_names[ATTR_TYPE_COUNT] = {
    "UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS",
    "TENSORS", "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS",
};

const char *attr_type_name(AttrType t) { return t < ATTR_TYPE_COUNT ? attr_type_names[t] : "INVALID"; }

/* ---------- checked sizes ---------- */

gboolean graph_size_mul(guint64 a, guint64 b, guint64 *out) { return g_uint64_checked_mul(out, a, b); }

gboolean graph_size_add(guint64 a, guint64 b, guint64 *out) { return g_uint64_checked_add(out, a, b); }

GBytes *graph_bytes_new_terminated(const void *data, gsize len)
{
    char *buf = g_malloc(len + 1);
    if (len)
        memcpy(buf, data, len);
    buf[len] = '\0';
    return g_bytes_new_take(buf, len);
}

char *graph_dims_to_string(int rank, const gint64 *dims)
{
    GString *s = g_string_new("[");
    for (int k = 0; k < rank; k++)
        g_string_append_printf(s, k ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, dims[k]);
    g_string_append_c(s, ']');
    return g_string_free(s, FALSE);
}

/* ---------- TypeInfo ---------- */

char *type_info_to_string(const TypeInfo *t)
{
    if (t && t->sequence)
        return g_strdup_printf("a sequence of %s", dtype_name(t->dtype));
    if (!t || t->rank < 0)
        return g_strdup("(no shape)");
    GString *s = g_string_new(dtype_name(t->dtype));
    g_string_append(s, " [");
    for (int a = 0; a < t->rank; a++) {
        if (a)
            g_string_append_c(s, ',');
        if (t->dims[a] >= 0)
            g_string_append_printf(s, "%" G_GINT64_FORMAT, t->dims[a]);
        else
            g_string_append(s, t->params && t->params[a] ? t->params[a] : "?");
    }
    g_string_append_c(s, ']');
    return g_string_free(s, FALSE);
}

TypeInfo *type_info_new(DType dtype, int rank, const gint64 *dims)
{
    TypeInfo *t = g_new0(TypeInfo, 1);
    t->dtype = dtype;
    t->rank = rank;
    if (rank > 0) {
        t->dims = g_new(gint64, rank);
        for (int k = 0; k < rank; k++)
            t->dims[k] = dims ? dims[k] : -1;
    }
    return t;
}

void type_info_set_param(TypeInfo *t, int axis, const char *param)
{
    g_return_if_fail(axis >= 0 && axis < t->rank);
    if (!t->params)
        t->params = g_new0(char *, t->rank + 1);
    g_free(t->params[axis]);
    t->params[axis] = g_strdup(param);
    t->dims[axis] = -1;
}

TypeInfo *type_info_copy(const TypeInfo *t)
{
    if (!t)
        return NULL;
    TypeInfo *c = type_info_new(t->dtype, t->rank, t->dims);
    if (t->params)
        for (int k = 0; k < t->rank; k++)
            if (t->params[k])
                type_info_set_param(c, k, t->params[k]);
    c->sequence = t->sequence;
    return c;
}

void type_info_free(TypeInfo *t)
{
    if (!t)
        return;
    if (t->params)
        for (int k = 0; k < t->rank; k++)
            g_free(t->params[k]);
    g_free(t->params);
    g_free(t->dims);
    g_free(t);
}

/* ---------- TensorData ---------- */

TensorData *tensor_data_new(const char *name, DType dtype, int rank, const gint64 *dims)
{
    TensorData *t = g_new0(TensorData, 1);
    t->name = g_strdup(name ? name : "");
    t->dtype = dtype;
    t->rank = rank;
    t->dims = g_new0(gint64, rank > 0 ? rank : 1);
    if (dims && rank > 0)
        memcpy(t->dims, dims, rank * sizeof(gint64));
    return t;
}

TensorData *tensor_data_from_value(const char *name, const Value *v, int rank, const gint64 *dims)
{
    TensorData *t = tensor_data_new(name, v->dtype, rank, dims);
    t->raw = value_to_raw(v);
    return t;
}

static GPtrArray *string_array_copy(const GPtrArray *a, gboolean bytes)
{
    if (!a)
        return NULL;
    GPtrArray *c = g_ptr_array_new_with_free_func(bytes ? (GDestroyNotify)g_bytes_unref : g_free);
    for (guint k = 0; k < a->len; k++)
        g_ptr_array_add(c, bytes ? g_bytes_ref(a->pdata[k]) : (gpointer)g_strdup(a->pdata[k]));
    return c;
}

TensorData *tensor_data_copy(const TensorData *t)
{
    TensorData *c = tensor_data_new(t->name, t->dtype, t->rank, t->dims);
    c->raw = t->raw ? g_bytes_ref(t->raw) : NULL;
    c->strings = string_array_copy(t->strings, TRUE);
    c->external = string_array_copy(t->external, FALSE);
    return c;
}

void tensor_data_free(TensorData *t)
{
    if (!t)
        return;
    g_free(t->name);
    g_free(t->dims);
    if (t->raw)
        g_bytes_unref(t->raw);
    if (t->strings)
        g_ptr_array_unref(t->strings);
    if (t->external)
        g_ptr_array_unref(t->external);
    g_free(t);
}

Value *tensor_data_value(const TensorData *t)
{
    if (t->external || t->rank < 0)
        return NULL;
    guint64 n = 1;
    for (int k = 0; k < t->rank; k++)
        if (t->dims[k] < 0 || !graph_size_mul(n, (guint64)t->dims[k], &n))
            return NULL;
    if (n > VALUE_MAX_ELEMENTS)
        return NULL;
    gsize len = 0;
    const guint8 *raw = t->raw ? g_bytes_get_data(t->raw, &len) : NULL;
    static const guint8 none[1] = {0};
    return value_from_raw(t->dtype, (gsize)n, raw ? raw : none, len);
}

/* ---------- Attr ---------- */

Attr *attr_new(const char *name, AttrType type)
{
    Attr *a = g_new0(Attr, 1);
    a->name = g_strdup(name);
    a->type = type;
    return a;
}

Attr *attr_new_int(const char *name, gint64 v)
{
    Attr *a = attr_new(name, ATTR_INT);
    a->i = v;
    return a;
}

Attr *attr_new_float(const char *name, float v)
{
    Attr *a = attr_new(name, ATTR_FLOAT);
    a->f = v;
    return a;
}

Attr *attr_new_string(const char *name, const char *v)
{
    Attr *a = attr_new(name, ATTR_STRING);
    a->s = graph_bytes_new_terminated(v, strlen(v));
    return a;
}

Attr *attr_new_ints(const char *name, const gint64 *v, gsize n)
{
    Attr *a = attr_new(name, ATTR_INTS);
    a->ints = g_array_sized_new(FALSE, FALSE, sizeof(gint64), n);
    g_array_append_vals(a->ints, v, n);
    return a;
}

Attr *attr_new_floats(const char *name, const float *v, gsize n)
{
    Attr *a = attr_new(name, ATTR_FLOATS);
    a->floats = g_array_sized_new(FALSE, FALSE, sizeof(float), n);
    g_array_append_vals(a->floats, v, n);
    return a;
}

Attr *attr_new_tensor(const char *name, TensorData *t)
{
    Attr *a = attr_new(name, ATTR_TENSOR);
    a->t = t;
    return a;
}

Attr *attr_new_graph(const char *name, Graph *g)
{
    Attr *a = attr_new(name, ATTR_GRAPH);
    a->g = g;
    return a;
}

Attr *attr_copy(const Attr *a)
{
    if (a->g || a->graphs)
        return NULL;
    Attr *c = attr_new(a->name, a->type);
    c->ref_attr_name = g_strdup(a->ref_attr_name);
    c->f = a->f, c->i = a->i;
    c->s = a->s ? g_bytes_ref(a->s) : NULL;
    c->floats = a->floats ? g_array_copy(a->floats) : NULL;
    c->ints = a->ints ? g_array_copy(a->ints) : NULL;
    c->strings = a->strings ? g_ptr_array_copy(a->strings, (GCopyFunc)(void (*)(void))g_bytes_ref, NULL) : NULL;
    if (c->strings)
        g_ptr_array_set_free_func(c->strings, (GDestroyNotify)g_bytes_unref);
    c->t = a->t ? tensor_data_copy(a->t) : NULL;
    if (a->tensors) {
        c->tensors = g_ptr_array_new_with_free_func((GDestroyNotify)tensor_data_free);
        for (guint k = 0; k < a->tensors->len; k++)
            g_ptr_array_add(c->tensors, tensor_data_copy(a->tensors->pdata[k]));
    }
    c->opaque = a->opaque ? g_ptr_array_copy(a->opaque, (GCopyFunc)(void (*)(void))g_bytes_ref, NULL) : NULL;
    if (c->opaque)
        g_ptr_array_set_free_func(c->opaque, (GDestroyNotify)g_bytes_unref);
    return c;
}

void attr_free(Attr *a)
{
    if (!a)
        return;
    g_free(a->name);
    g_free(a->ref_attr_name);
    if (a->s)
        g_bytes_unref(a->s);
    if (a->floats)
        g_array_unref(a->floats);
    if (a->ints)
        g_array_unref(a->ints);
    if (a->strings)
        g_ptr_array_unref(a->strings);
    tensor_data_free(a->t);
    if (a->g)
        graph_free(a->g);
    if (a->tensors)
        g_ptr_array_unref(a->tensors);
    if (a->graphs)
        g_ptr_array_unref(a->graphs);
    if (a->opaque)
        g_ptr_array_unref(a->opaque);
    g_free(a);
}

/* ---------- Graph ---------- */

static void tensor_free(Tensor *t)
{
    g_free(t->name);
    g_free(t->dims);
    value_free(t->value);
    for (int k = 0; k < 2; k++) {
        g_free(t->probe_dims[k]);
        value_free(t->probe[k]);
    }
    value_free(t->range_lo);
    value_free(t->range_hi);
    type_info_free(t->declared);
    tensor_data_free(t->init);
    if (t->elements)
        g_ptr_array_unref(t->elements);
    g_ptr_array_unref(t->consumers);
    g_free(t);
}

void node_free(Node *n)
{
    g_free(n->name);
    g_free(n->op_type);
    g_free(n->domain);
    g_free(n->doc);
    g_free(n->label);
    g_ptr_array_unref(n->inputs);
    g_ptr_array_unref(n->outputs);
    g_ptr_array_unref(n->attrs);
    g_ptr_array_unref(n->implicit_inputs);
    g_free(n);
}

Graph *graph_new(const char *name)
{
    Graph *g = g_new0(Graph, 1);
    g->name = g_strdup(name ? name : "");
    g->tensors = g_ptr_array_new_with_free_func((GDestroyNotify)tensor_free);
    g->by_name = g_hash_table_new(g_str_hash, g_str_equal);
    g->nodes = g_ptr_array_new_with_free_func((GDestroyNotify)node_free);
    g->inputs = g_ptr_array_new();
    g->outputs = g_ptr_array_new();
    g->initializers = g_ptr_array_new();
    g->value_infos = g_ptr_array_new();
    g->order = g_ptr_array_new();
    g->captures = g_ptr_array_new();
    return g;
}

void graph_free(Graph *g)
{
    if (!g)
        return;
    g_ptr_array_unref(g->nodes);
    g_hash_table_unref(g->by_name);
    g_ptr_array_unref(g->tensors);
    g_ptr_array_unref(g->inputs);
    g_ptr_array_unref(g->outputs);
    g_ptr_array_unref(g->initializers);
    g_ptr_array_unref(g->value_infos);
    g_ptr_array_unref(g->order);
    g_ptr_array_unref(g->captures);
    g_free(g->name);
    g_free(g->doc);
    g_free(g);
}

Tensor *graph_tensor(Graph *g, const char *name) { return g_hash_table_lookup(g->by_name, name); }

Tensor *graph_tensor_get_or_add(Graph *g, const char *name)
{
    Tensor *t = g_hash_table_lookup(g->by_name, name);
    if (t)
        return t;
    t = g_new0(Tensor, 1);
    t->id = (int)g->tensors->len;
    t->name = g_strdup(name);
    t->rank = -1;
    t->consumers = g_ptr_array_new();
    g_ptr_array_add(g->tensors, t);
    g_hash_table_insert(g->by_name, t->name, t);
    return t;
}

static gboolean check_name(const char *name, const char *role, GError **error)
{
    if (!name || !*name) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "a %s has an empty name", role);
        return FALSE;
    }
    return TRUE;
}

gboolean graph_add_input(Graph *g, const char *name, TypeInfo *type, GError **error)
{
    if (!check_name(name, "graph input", error)) {
        type_info_free(type);
        return FALSE;
    }
    Tensor *t = graph_tensor_get_or_add(g, name);
    if (t->is_graph_input) {
        type_info_free(type);
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "graph input '%s' is listed twice", name);
        return FALSE;
    }
    t->is_graph_input = TRUE;
    type_info_free(t->declared);
    t->declared = type;
    g_ptr_array_add(g->inputs, t);
    return TRUE;
}

gboolean graph_add_output(Graph *g, const char *name, TypeInfo *type, GError **error)
{
    if (!check_name(name, "graph output", error)) {
        type_info_free(type);
        return FALSE;
    }
    Tensor *t = graph_tensor_get_or_add(g, name);
    if (t->is_graph_output) {
        type_info_free(type);
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "graph output '%s' is listed twice", name);
        return FALSE;
    }
    t->is_graph_output = TRUE;
    if (!t->declared)
        t->declared = type;
    else
        type_info_free(type);
    g_ptr_array_add(g->outputs, t);
    return TRUE;
}

gboolean graph_add_value_info(Graph *g, const char *name, TypeInfo *type, GError **error)
{
    if (!check_name(name, "value_info entry", error)) {
        type_info_free(type);
        return FALSE;
    }
    Tensor *t = graph_tensor_get_or_add(g, name);
    if (t->has_value_info) {
        type_info_free(type);
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "value_info for '%s' is listed twice", name);
        return FALSE;
    }
    t->has_value_info = TRUE;
    if (!t->declared)
        t->declared = type;
    else
        type_info_free(type);
    g_ptr_array_add(g->value_infos, t);
    return TRUE;
}

gboolean graph_add_initializer(Graph *g, TensorData *data, GError **error)
{
    if (!check_name(data->name, "initializer", error)) {
        tensor_data_free(data);
        return FALSE;
    }
    Tensor *t = graph_tensor_get_or_add(g, data->name);
    if (t->init || t->producer) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "initializer '%s' is %s", data->name,
                    t->init ? "listed twice" : "also produced by a node");
        tensor_data_free(data);
        return FALSE;
    }
    t->init = data;
    g_ptr_array_add(g->initializers, t);
    return TRUE;
}

Node *graph_add_node(Graph *g, const char *op_type, const char *domain, const char *name,
                     const char *const *inputs, int n_inputs, const char *const *outputs, int n_outputs,
                     GPtrArray *attrs, GError **error)
{
    Node *n = g_new0(Node, 1);
    n->index = (int)g->nodes->len;
    n->op_type = g_strdup(op_type ? op_type : "");
    n->domain = g_strdup(domain ? domain : "");
    n->name = g_strdup(name ? name : "");
    n->label = *n->name ? g_strdup_printf("'%s' (%s)", n->name, n->op_type)
                        : g_strdup_printf("#%d (%s)", n->index, n->op_type);
    n->inputs = g_ptr_array_new();
    n->outputs = g_ptr_array_new();
    n->attrs = attrs ? attrs : g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    n->implicit_inputs = g_ptr_array_new();
    g_ptr_array_add(g->nodes, n);
    for (int k = 0; k < n_inputs; k++) {
        Tensor *t = (inputs[k] && *inputs[k]) ? graph_tensor_get_or_add(g, inputs[k]) : NULL;
        g_ptr_array_add(n->inputs, t);
        if (t && (t->consumers->len == 0 || t->consumers->pdata[t->consumers->len - 1] != n))
            g_ptr_array_add(t->consumers, n);
    }
    for (int k = 0; k < n_outputs; k++) {
        Tensor *t = (outputs[k] && *outputs[k]) ? graph_tensor_get_or_add(g, outputs[k]) : NULL;
        g_ptr_array_add(n->outputs, t);
        if (!t)
            continue;
        if (t->producer) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                        "tensor '%s' is produced twice: by node %s and by node %s", t->name,
                        t->producer->label, n->label);
            return NULL;
        }
        if (t->init) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                        "node %s: output '%s' is also an initializer", n->label, t->name);
            return NULL;
        }
        t->producer = n;
    }
    for (guint k = 0; k < n->attrs->len; k++) {
        Attr *a = n->attrs->pdata[k];
        if (a->g)
            a->g->parent = g;
        for (guint j = 0; a->graphs && j < a->graphs->len; j++)
            ((Graph *)a->graphs->pdata[j])->parent = g;
    }
    return n;
}

static gboolean tensor_is_defined(const Tensor *t)
{
    return t->producer || t->is_graph_input || t->init || t->outer;
}

/* Subgraphs first: the outer names they read become implicit inputs of the node that owns them. */
static gboolean finalize_subgraphs(Graph *g, GError **error)
{
    for (guint k = 0; k < g->nodes->len; k++) {
        Node *n = g->nodes->pdata[k];
        for (guint a = 0; a < n->attrs->len; a++) {
            Attr *attr = n->attrs->pdata[a];
            guint count = attr->g ? 1 : (attr->graphs ? attr->graphs->len : 0);
            for (guint j = 0; j < count; j++) {
                Graph *sub = attr->g ? attr->g : attr->graphs->pdata[j];
                sub->parent = g;
                if (!graph_finalize(sub, error)) {
                    g_prefix_error(error, "node %s, subgraph '%s': ", n->label, attr->name);
                    return FALSE;
                }
                for (guint c = 0; c < sub->captures->len; c++) {
                    Tensor *t = sub->captures->pdata[c];
                    if (g_ptr_array_find(n->implicit_inputs, t, NULL))
                        continue;
                    g_ptr_array_add(n->implicit_inputs, t);
                    if (!g_ptr_array_find(t->consumers, n, NULL))
                        g_ptr_array_add(t->consumers, n);
                }
            }
        }
    }
    return TRUE;
}

static gboolean resolve_names(Graph *g, GError **error)
{
    /* Tensors may be added to the array while we walk it (captures of the parent); iterate by index. */
    guint count = g->tensors->len;
    for (guint k = 0; k < count; k++) {
        Tensor *t = g->tensors->pdata[k];
        if (tensor_is_defined(t) || (t->consumers->len == 0 && !t->is_graph_output))
            continue;
        if (g->parent) {
            t->outer = graph_tensor_get_or_add(g->parent, t->name);
            g_ptr_array_add(g->captures, t->outer);
            continue;
        }
        if (t->consumers->len == 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                        "graph output '%s' is not produced by any node and is not a graph input or "
                        "initializer", t->name);
            return FALSE;
        }
        Node *user = t->consumers->pdata[0];
        gboolean explicit_input = g_ptr_array_find(user->inputs, t, NULL);
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                    "node %s: input '%s'%s is not produced by any node and is not a graph input or "
                    "initializer", user->label, t->name, explicit_input ? "" : " (read by a subgraph)");
        return FALSE;
    }
    return TRUE;
}

static void classify_tensors(Graph *g)
{
    for (guint k = 0; k < g->tensors->len; k++) {
        Tensor *t = g->tensors->pdata[k];
        if (t->init)
            t->kind = TENSOR_WEIGHT;
        else if (t->is_graph_input)
            t->kind = TENSOR_INPUT;
        else if (t->is_graph_output)
            t->kind = TENSOR_OUTPUT;
        else
            t->kind = TENSOR_INTERMEDIATE;
    }
}

/* Nodes that must run before n: producers of its explicit and implicit inputs. */
static void node_foreach_pred(Node *n, void (*fn)(Node *pred, gpointer data), gpointer data)
{
    for (guint k = 0; k < n->inputs->len; k++) {
        Tensor *t = n->inputs->pdata[k];
        if (t && t->producer)
            fn(t->producer, data);
    }
    for (guint k = 0; k < n->implicit_inputs->len; k++) {
        Tensor *t = n->implicit_inputs->pdata[k];
        if (t->producer)
            fn(t->producer, data);
    }
}

typedef struct {
    int self;
    gboolean ok;
} SortedCheck;

static void check_pred_before(Node *pred, gpointer data)
{
    SortedCheck *c = data;
    if (pred->index >= c->self)
        c->ok = FALSE;
}

static void count_pred(Node *pred, gpointer data)
{
    (void)pred;
    (*(int *)data)++;
}

static gboolean topological_order(Graph *g, GError **error)
{
    guint n_nodes = g->nodes->len;
    g_ptr_array_set_size(g->order, 0);
    g->file_order_is_topological = TRUE;
    for (guint k = 0; k < n_nodes && g->file_order_is_topological; k++) {
        SortedCheck c = {(int)k, TRUE};
        node_foreach_pred(g->nodes->pdata[k], check_pred_before, &c);
        g->file_order_is_topological = c.ok;
    }
    if (g->file_order_is_topological) {
        for (guint k = 0; k < n_nodes; k++)
            g_ptr_array_add(g->order, g->nodes->pdata[k]);
        return TRUE;
    }
    /* Kahn's algorithm, ready nodes taken in file order. Edges counted with multiplicity. */
    int *pending = g_new0(int, n_nodes ? n_nodes : 1);
    for (guint k = 0; k < n_nodes; k++)
        node_foreach_pred(g->nodes->pdata[k], count_pred, &pending[k]);
    GQueue ready = G_QUEUE_INIT;
    for (guint k = 0; k < n_nodes; k++)
        if (pending[k] == 0)
            g_queue_push_tail(&ready, g->nodes->pdata[k]);
    while (!g_queue_is_empty(&ready)) {
        Node *n = g_queue_pop_head(&ready);
        g_ptr_array_add(g->order, n);
        /* Each successor edge: every consumer of each output, once per input slot reading it. */
        for (guint o = 0; o < n->outputs->len; o++) {
            Tensor *t = n->outputs->pdata[o];
            if (!t)
                continue;
            for (guint c = 0; c < t->consumers->len; c++) {
                Node *s = t->consumers->pdata[c];
                int uses = 0;
                for (guint i = 0; i < s->inputs->len; i++)
                    uses += s->inputs->pdata[i] == t;
                uses += g_ptr_array_find(s->implicit_inputs, t, NULL) ? 1 : 0;
                pending[s->index] -= uses;
                if (pending[s->index] == 0)
                    g_queue_push_tail(&ready, s);
            }
        }
    }
    gboolean ok = g->order->len == n_nodes;
    if (!ok) {
        /* Name one node on the cycle and the tensor that closes it. */
        for (guint k = 0; k < n_nodes; k++) {
            Node *n = g->nodes->pdata[k];
            if (pending[k] == 0)
                continue;
            for (guint i = 0; i < n->inputs->len; i++) {
                Tensor *t = n->inputs->pdata[i];
                if (t && t->producer && pending[t->producer->index] > 0) {
                    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                                "graph has a cycle: node %s reads '%s', which depends on the node's "
                                "own output", n->label, t->name);
                    break;
                }
            }
            if (error && *error)
                break;
        }
        if (error && !*error)
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "graph has a cycle");
    }
    g_free(pending);
    return ok;
}

gboolean graph_finalize(Graph *g, GError **error)
{
    if (g->finalized)
        return TRUE;
    if (!finalize_subgraphs(g, error) || !resolve_names(g, error))
        return FALSE;

    classify_tensors(g);
    if (!topological_order(g, error))
        return FALSE;
    g->finalized = TRUE;
    return TRUE;
}

/* ---------- node access ---------- */

Tensor *node_input(const Node *n, guint k) { return k < n->inputs->len ? n->inputs->pdata[k] : NULL; }

Tensor *node_output(const Node *n, guint k) { return k < n->outputs->len ? n->outputs->pdata[k] : NULL; }

const Attr *node_attr(const Node *n, const char *name)
{
    for (guint k = 0; k < n->attrs->len; k++) {
        const Attr *a = n->attrs->pdata[k];
        if (strcmp(a->name, name) == 0)
            return a;
    }
    return NULL;
}

static const Attr *typed_attr(const Node *n, const char *name, AttrType want, GError **error,
                              gboolean *ok)
{
    const Attr *a = node_attr(n, name);
    *ok = TRUE;
    if (a && a->type != want) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "node %s: attribute '%s' must be %s, not %s",
                    n->label, name, attr_type_name(want), attr_type_name(a->type));
        *ok = FALSE;
        return NULL;
    }
    return a;
}

gboolean node_attr_int(const Node *n, const char *name, gint64 dflt, gint64 *out, GError **error)
{
    gboolean ok;
    const Attr *a = typed_attr(n, name, ATTR_INT, error, &ok);
    *out = a ? a->i : dflt;
    return ok;
}

gboolean node_attr_float(const Node *n, const char *name, float dflt, float *out, GError **error)
{
    gboolean ok;
    const Attr *a = typed_attr(n, name, ATTR_FLOAT, error, &ok);
    *out = a ? a->f : dflt;
    return ok;
}

gboolean node_attr_string(const Node *n, const char *name, const char *dflt, const char **out,
                          GError **error)
{
    gboolean ok;
    const Attr *a = typed_attr(n, name, ATTR_STRING, error, &ok);
    *out = dflt;
    if (a) {
        /* Attribute strings are made with graph_bytes_new_terminated, so they read as C strings. */
        const char *s = g_bytes_get_data(a->s, NULL);
        *out = s ? s : "";
    }
    return ok;
}

gboolean node_attr_ints(const Node *n, const char *name, const GArray **out, GError **error)
{
    gboolean ok;
    const Attr *a = typed_attr(n, name, ATTR_INTS, error, &ok);
    *out = a ? a->ints : NULL;
    return ok;
}

gboolean node_attr_floats(const Node *n, const char *name, const GArray **out, GError **error)
{
    gboolean ok;
    const Attr *a = typed_attr(n, name, ATTR_FLOATS, error, &ok);
    *out = a ? a->floats : NULL;
    return ok;
}

gboolean node_attr_strings(const Node *n, const char *name, const GPtrArray **out, GError **error)
{
    gboolean ok;
    const Attr *a = typed_attr(n, name, ATTR_STRINGS, error, &ok);
    *out = a ? a->strings : NULL;
    return ok;
}

/* ---------- Model ---------- */

static void opset_clear(gpointer p)
{
    OpsetId *o = p;
    g_free(o->domain);
}

Model *model_new(void)
{
    Model *m = g_new0(Model, 1);
    m->opsets = g_array_new(FALSE, TRUE, sizeof(OpsetId));
    g_array_set_clear_func(m->opsets, opset_clear);
    m->metadata = g_ptr_array_new_with_free_func(g_free);
    m->producer_name = g_strdup("");
    m->producer_version = g_strdup("");
    m->domain = g_strdup("");
    m->doc = g_strdup("");
    return m;
}

void model_free(Model *m)
{
    if (!m)
        return;
    g_array_unref(m->opsets);
    g_ptr_array_unref(m->metadata);
    graph_free(m->graph);
    g_free(m->producer_name);
    g_free(m->producer_version);
    g_free(m->domain);
    g_free(m->doc);
    g_free(m->dir);
    g_free(m);
}

gint64 model_onnx_opset(const Model *m)
{
    for (guint k = 0; k < m->opsets->len; k++) {
        const OpsetId *o = &g_array_index(m->opsets, OpsetId, k);
        if (!*o->domain || strcmp(o->domain, "ai.onnx") == 0)
            return o->version;
    }
    return 0;
}

void model_set_opset(Model *m, const char *domain, gint64 version)
{
    for (guint k = 0; k < m->opsets->len; k++) {
        OpsetId *o = &g_array_index(m->opsets, OpsetId, k);
        if (strcmp(o->domain, domain) == 0) {
            o->version = version;
            return;
        }
    }
    OpsetId o = {g_strdup(domain), version};
    g_array_append_val(m->opsets, o);
}
