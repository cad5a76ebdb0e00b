/* ops-sequence.c — sequences of tensors (SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase,
 * SequenceAt, SequenceLength, ConcatFromSequence, SplitToSequence), as torch exports a Python list: built in a
 * Loop, read after it. A sequence is planned when its elements are known before running: every position a
 * constant, and the Loop that builds it unrolled (a trip count known at plan time, ops-control.c). Then each
 * sequence op is folded away at inference: the sequence tensor records its elements (Tensor.elements), and what
 * reads one becomes a move of the elements themselves: SequenceAt an Identity of the element, ConcatFromSequence
 * a Concat of them (each Unsqueezed first for new_axis), SplitToSequence a Split, SequenceLength a constant. So
 * the planner sees only tensors: an element lives as long as something reads it through any sequence, and a
 * sequence takes no bytes of its own. A sequence whose elements only running knows (a position computed from
 * the data, a Loop whose trip count is data-dependent, a graph input or output that is a sequence) is refused
 * with one line saying which. */
#include "ops/ops-families.h"
#include "ops/op-schema.h"

#include <string.h>

static const char *const NOT_KNOWN =
    "a sequence is planned when its elements are known before running: its positions constants and the Loop that "
    "builds it of a trip count known at plan time";

/* Input k: a sequence whose elements are known. */
static gboolean sequence_input(const Node *n, guint k, Tensor **out, GError **error)
{
    Tensor *s = node_input(n, k);
    if (!s)
        return infer_fail(error, n, "input %u (the sequence) is missing", k);
    if (!s->elements)
        return infer_fail(error, n, "input '%s' is not a sequence whose elements are known (%s)", s->name, NOT_KNOWN);
    *out = s;
    return TRUE;
}

/* Input k, a position in a sequence of `len` elements: absent gives `absent`; else a constant in [-len, len - 1]
 * (or up to len where `insert`), negative counting from the end. */
static gboolean sequence_position(const Node *n, guint k, gint64 len, gboolean insert, gint64 absent, gint64 *out,
                                  GError **error)
{
    const Tensor *p = node_input(n, k);
    if (!p) {
        *out = absent;
        return TRUE;
    }
    if (!p->value || p->dynamic)
        return infer_fail(error, n, "input '%s' (position) must be a constant the planner can compute, and it is not "
                          "(%s)", p->name, NOT_KNOWN);
    if (p->value->n != 1)
        return infer_fail(error, n, "input '%s' (position) holds %zu values, not one", p->name, (size_t)p->value->n);
    gint64 v = value_get_i(p->value, 0), hi = insert ? len : len - 1;
    if (v < -len || v > hi)
        return infer_fail(error, n, "position %" G_GINT64_FORMAT " is outside [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          "] for a sequence of %" G_GINT64_FORMAT " tensors", v, -len, hi, len);
    *out = v < 0 ? v + len : v;
    return TRUE;
}

/* Output 0 becomes the sequence of `elements` (owned) of `dtype`; the node is removed. */
static gboolean sequence_output(Graph *g, Node *n, DType dtype, GPtrArray *elements, gboolean *folded, GError **error)
{
    Tensor *out = node_output(n, 0);
    if (!out) {
        g_ptr_array_unref(elements);
        return infer_fail(error, n, "output 0 (the sequence) is missing");
    }
    if (out->is_graph_output) {
        g_ptr_array_unref(elements);
        return infer_fail(error, n, "graph output '%s' is a sequence: a graph's outputs are planned as tensors",
                          out->name);
    }
    for (guint k = 0; k < elements->len; k++) {
        const Tensor *e = elements->pdata[k];
        if (e->dtype != dtype) {
            g_ptr_array_unref(elements);
            return infer_fail(error, n, "tensor '%s' is %s, but the sequence holds %s", e->name, dtype_name(e->dtype),
                              dtype_name(dtype));
        }
    }
    if (!infer_set_output(n, 0, dtype, 1, (const gint64[]){0}, error)) {
        g_ptr_array_unref(elements);
        return FALSE;
    }
    if (out->elements)
        g_ptr_array_unref(out->elements);
    out->elements = elements;
    graph_detach_node(n);
    graph_replace_node(g, n, g->nodes->len);
    *folded = TRUE;
    return TRUE;
}

static GPtrArray *elements_copy(const Tensor *s)
{
    GPtrArray *e = g_ptr_array_sized_new(s->elements->len + 1);
    for (guint k = 0; k < s->elements->len; k++)
        g_ptr_array_add(e, s->elements->pdata[k]);
    return e;
}

/* Replaces n by the nodes appended to g since first_new and one more, OP(inputs) -> n's output 0 (with attrs,
 * owned). */
static gboolean replace_by(Graph *g, Node *n, guint first_new, const char *op, const char *const *inputs,
                           int n_inputs, GPtrArray *attrs, gboolean *folded, GError **error)
{
    Tensor *out = node_output(n, 0);
    if (!out) {
        if (attrs)
            g_ptr_array_unref(attrs);
        return infer_fail(error, n, "output 0 is missing");
    }
    char *out_name = g_strdup(out->name), *prefix = infer_fold_prefix(n), *name = graph_unique_name(g, prefix, op);
    graph_detach_node(n);
    gboolean ok = graph_add_node(g, op, "", name, inputs, n_inputs, (const char *const *)&out_name, 1, attrs, error)
                  != NULL;
    if (ok) {
        graph_replace_node(g, n, first_new);
        *folded = TRUE;
    }
    g_free(out_name);
    g_free(prefix);
    g_free(name);
    return ok;
}

/* Unsqueeze of t on `axis` into a new tensor named after n: the tensor's name, or NULL. */
static char *unsqueeze(Graph *g, const Node *n, const Tensor *t, gint64 axis, gint64 opset, GError **error)
{
    char *prefix = infer_fold_prefix(n), *name = graph_unique_name(g, prefix, "unsqueezed");
    Tensor *axes = opset >= 13 ? infer_add_ints(g, prefix, "axes", DT_INT64, 1, &axis, 1, error) : NULL;
    GPtrArray *attrs = NULL; /* the node takes it */
    if (opset < 13) {
        attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
        g_ptr_array_add(attrs, attr_new_ints("axes", &axis, 1));
    }
    const char *in[] = {t->name, axes ? axes->name : NULL};
    gboolean ok = (opset < 13 || axes) && graph_add_node(g, "Unsqueeze", "", name, in, axes ? 2 : 1,
                                                         (const char *const *)&name, 1, attrs, error) != NULL;
    g_free(prefix);
    if (!ok)
        g_clear_pointer(&name, g_free);
    return name;
}

static gboolean fold_construct(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)opset;
    GPtrArray *e = g_ptr_array_new();
    DType dtype = DT_UNDEFINED;
    for (guint k = 0; k < n->inputs->len; k++) {
        Tensor *t = node_input(n, k);
        if (!t) {
            g_ptr_array_unref(e);
            return infer_fail(error, n, "input %u is missing", k);
        }
        dtype = k ? dtype : t->dtype;
        g_ptr_array_add(e, t);
    }
    return sequence_output(g, n, dtype, e, folded, error);
}

static gboolean fold_empty(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)opset;
    const Attr *a = node_attr(n, "dtype");
    gint64 dtype = a ? a->i : DT_FLOAT;
    if (!dtype_is_valid(dtype) || dtype == DT_UNDEFINED)
        return infer_fail(error, n, "attribute 'dtype' is %" G_GINT64_FORMAT ", not an ONNX element type", dtype);
    return sequence_output(g, n, (DType)dtype, g_ptr_array_new(), folded, error);
}

static gboolean fold_insert(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)opset;
    Tensor *s, *t;
    gint64 at;
    if (!sequence_input(n, 0, &s, error) || !infer_input(n, 1, &t, error) ||
        !sequence_position(n, 2, s->elements->len, TRUE, s->elements->len, &at, error))
        return FALSE;
    if (s->elements->len >= G_MAXINT32)
        return infer_fail(error, n, "the sequence already holds %u tensors", s->elements->len);
    GPtrArray *e = elements_copy(s);
    g_ptr_array_insert(e, (gint)at, t);
    return sequence_output(g, n, s->dtype, e, folded, error);
}

static gboolean fold_erase(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)opset;
    Tensor *s;
    gint64 at;
    if (!sequence_input(n, 0, &s, error))
        return FALSE;
    gint64 len = s->elements->len;
    if (len == 0)
        return infer_fail(error, n, "the sequence '%s' is empty: nothing to erase", s->name);
    if (!sequence_position(n, 1, len, FALSE, len - 1, &at, error))
        return FALSE;
    GPtrArray *e = elements_copy(s);
    g_ptr_array_remove_index(e, (guint)at);
    return sequence_output(g, n, s->dtype, e, folded, error);
}

static gboolean fold_at(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)opset;
    Tensor *s;
    gint64 at;
    if (!node_input(n, 1))
        return infer_fail(error, n, "input 1 (position) is missing");
    if (!sequence_input(n, 0, &s, error) || !sequence_position(n, 1, s->elements->len, FALSE, 0, &at, error))
        return FALSE;
    const Tensor *e = s->elements->pdata[at];
    return replace_by(g, n, g->nodes->len, "Identity", (const char *const *)&e->name, 1, NULL, folded, error);
}

static gboolean fold_length(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)opset;
    Tensor *s;
    if (!sequence_input(n, 0, &s, error))
        return FALSE;
    char *prefix = infer_fold_prefix(n);
    gint64 len = s->elements->len;
    Tensor *c = infer_add_ints(g, prefix, "length", DT_INT64, 0, &len, 1, error);
    g_free(prefix);
    return c && replace_by(g, n, g->nodes->len, "Identity", (const char *const *)&c->name, 1, NULL, folded, error);
}

static gboolean fold_concat(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    Tensor *s;
    if (!sequence_input(n, 0, &s, error))
        return FALSE;
    const Attr *axis_attr = node_attr(n, "axis"), *new_attr = node_attr(n, "new_axis");
    if (!axis_attr)
        return infer_fail(error, n, "attribute 'axis' is required and missing");
    gint64 axis = axis_attr->i, new_axis = new_attr ? new_attr->i : 0;
    if (new_axis != 0 && new_axis != 1)
        return infer_fail(error, n, "attribute 'new_axis' is %" G_GINT64_FORMAT ", not 0 or 1", new_axis);
    if (s->elements->len == 0)
        return infer_fail(error, n, "the sequence '%s' is empty: ONNX defines no concatenation of no tensor",
                          s->name);
    GPtrArray *parts = g_ptr_array_new_with_free_func(g_free);
    guint first_new = g->nodes->len;
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < s->elements->len; k++) {
        const Tensor *e = s->elements->pdata[k];
        char *part = new_axis ? unsqueeze(g, n, e, axis, opset, error) : g_strdup(e->name);
        ok = part != NULL;
        if (ok)
            g_ptr_array_add(parts, part);
    }
    if (ok) {
        GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
        g_ptr_array_add(attrs, attr_new_int("axis", axis));
        ok = replace_by(g, n, first_new, "Concat", (const char *const *)parts->pdata, (int)parts->len, attrs, folded,
                        error);
    }
    g_ptr_array_unref(parts);
    return ok;
}

/* The pieces SplitToSequence cuts an axis of `len` into: a size each, or one (keepdims) per index. */
static gboolean split_sizes(const Node *n, gint64 len, GArray *sizes, GError **error)
{
    const Tensor *split = node_input(n, 1);
    if (!split) {
        for (gint64 k = 0; k < len; k++)
            g_array_append_val(sizes, (gint64){1});
        return TRUE;
    }
    if (!split->value || split->dynamic)
        return infer_fail(error, n, "input '%s' (split) must be a constant the planner can compute, and it is not",
                          split->name);
    if (split->rank == 0) {
        gint64 chunk = value_get_i(split->value, 0);
        if (chunk <= 0)
            return infer_fail(error, n, "split is %" G_GINT64_FORMAT ": a piece's length must be positive", chunk);
        for (gint64 at = 0; at < len; at += chunk)
            g_array_append_val(sizes, (gint64){MIN(chunk, len - at)});
        return TRUE;
    }
    gint64 sum = 0;
    for (gsize k = 0; k < split->value->n; k++) {
        gint64 v = value_get_i(split->value, k);
        if (v < 0 || v > len)
            return infer_fail(error, n, "split[%zu] is %" G_GINT64_FORMAT ", outside [0, %" G_GINT64_FORMAT "]",
                              (size_t)k, v, len);
        sum += v;
        g_array_append_val(sizes, v);
    }
    if (sum != len)
        return infer_fail(error, n, "the split sizes add up to %" G_GINT64_FORMAT ", but the axis is %"
                          G_GINT64_FORMAT " long", sum, len);
    return TRUE;
}

static gboolean fold_split(Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    Tensor *x;
    if (!infer_input(n, 0, &x, error))
        return FALSE;
    if (x->dynamic)
        return infer_fail(error, n, "input '%s' is data-dependent: the number of pieces would be known only when it "
                          "runs (%s)", x->name, NOT_KNOWN);
    const Attr *axis_attr = node_attr(n, "axis"), *keep_attr = node_attr(n, "keepdims");
    int axis;
    if (!infer_axis(n, axis_attr ? axis_attr->i : 0, x->rank, &axis, error))
        return FALSE;
    gboolean squeeze = !node_input(n, 1) && keep_attr && keep_attr->i == 0;
    GArray *sizes = g_array_new(FALSE, FALSE, sizeof(gint64));
    if (!split_sizes(n, x->dims[axis], sizes, error)) {
        g_array_unref(sizes);
        return FALSE;
    }
    guint64 slots = (guint64)sizes->len * (squeeze ? 4 : 2) + 1; /* the Split's outputs, each Squeeze */
    if (slots > INFER_UNROLL_MAX_SLOTS - MIN(g->unrolled_nodes, INFER_UNROLL_MAX_SLOTS)) {
        g_array_unref(sizes);
        return infer_fail(error, n, "%u pieces are more than the %u node slots that unrolling and splitting may add "
                          "to one graph", sizes->len, INFER_UNROLL_MAX_SLOTS);
    }
    g->unrolled_nodes += slots;
    char *prefix = infer_fold_prefix(n);
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free), *pieces = g_ptr_array_new_with_free_func(g_free);
    for (guint k = 0; k < sizes->len; k++) { /* each name taken before the next is made */
        g_ptr_array_add(pieces, graph_unique_name(g, prefix, "piece"));
        graph_tensor_get_or_add(g, g_ptr_array_index(pieces, k));
    }
    guint first_new = g->nodes->len;
    Tensor *out = node_output(n, 0);
    DType dtype = x->dtype;
    gboolean ok = out != NULL;
    if (!ok)
        infer_fail(error, n, "output 0 (the sequence) is missing");
    if (ok && sizes->len) {
        Tensor *split = opset >= 13 ? infer_add_ints(g, prefix, "split", DT_INT64, 1, (const gint64 *)sizes->data,
                                                     sizes->len, error) : NULL;
        const char *in[] = {x->name, split ? split->name : NULL};
        char *name = graph_unique_name(g, prefix, "Split");
        ok = opset < 13 || split;
        if (ok) {
            GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free); /* the node takes it */
            g_ptr_array_add(attrs, attr_new_int("axis", axis));
            if (opset < 13)
                g_ptr_array_add(attrs, attr_new_ints("split", (const gint64 *)sizes->data, sizes->len));
            ok = graph_add_node(g, "Split", "", name, in, split ? 2 : 1, (const char *const *)pieces->pdata,
                                (int)pieces->len, attrs, error) != NULL;
        }
        g_free(name);
    }
    for (guint k = 0; ok && k < pieces->len; k++) {
        if (!squeeze) {
            g_ptr_array_add(names, g_strdup(pieces->pdata[k]));
            continue;
        }
        gint64 a = axis;
        Tensor *axes = opset >= 13 ? infer_add_ints(g, prefix, "axes", DT_INT64, 1, &a, 1, error) : NULL;
        GPtrArray *attrs = NULL; /* the node takes it */
        if (opset < 13) {
            attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
            g_ptr_array_add(attrs, attr_new_ints("axes", &a, 1));
        }
        char *name = graph_unique_name(g, prefix, "squeezed");
        const char *in[] = {pieces->pdata[k], axes ? axes->name : NULL};
        ok = (opset < 13 || axes) && graph_add_node(g, "Squeeze", "", name, in, axes ? 2 : 1,
                                                    (const char *const *)&name, 1, attrs, error) != NULL;
        g_ptr_array_add(names, name);
    }
    GPtrArray *e = g_ptr_array_new();
    for (guint k = 0; ok && k < names->len; k++)
        g_ptr_array_add(e, graph_tensor(g, names->pdata[k]));
    g_array_unref(sizes);
    g_ptr_array_unref(names);
    g_ptr_array_unref(pieces);
    g_free(prefix);
    if (!ok) {
        g_ptr_array_unref(e);
        return FALSE;
    }
    /* The pieces' nodes take the node's place; the sequence, made of their outputs, takes no node. Their shapes
     * are inferred when the loop reaches them, before anything reads the sequence. */
    if (out->is_graph_output) {
        g_ptr_array_unref(e);
        return infer_fail(error, n, "graph output '%s' is a sequence: a graph's outputs are planned as tensors",
                          out->name);
    }
    out->elements = e;
    out->dtype = dtype;
    if (!infer_set_output(n, 0, dtype, 1, (const gint64[]){0}, error))
        return FALSE;
    graph_detach_node(n);
    graph_replace_node(g, n, first_new);
    *folded = TRUE;
    return TRUE;
}

/* Each sequence op's row names its fold (op-table.c): ONNX's schema checked first (the fold replaces the node, so
 * infer_node never sees it), then the op's own. With no graph to fold into, the node is left to infer_sequence's
 * refusal. */
#define SEQUENCE_FOLD(name, fold)                                                                                  \
    FOLD_FN(name)                                                                                                  \
    {                                                                                                              \
        (void)cx;                                                                                                  \
        *folded = FALSE;                                                                                           \
        if (!g)                                                                                                    \
            return TRUE;                                                                                           \
        return op_schema_check(n, opset, FALSE, error) && fold(g, n, opset, folded, error);                        \
    }
SEQUENCE_FOLD(infer_fold_sequence_empty, fold_empty)
SEQUENCE_FOLD(infer_fold_sequence_construct, fold_construct)
SEQUENCE_FOLD(infer_fold_sequence_insert, fold_insert)
SEQUENCE_FOLD(infer_fold_sequence_erase, fold_erase)
SEQUENCE_FOLD(infer_fold_sequence_at, fold_at)
SEQUENCE_FOLD(infer_fold_sequence_length, fold_length)
SEQUENCE_FOLD(infer_fold_concat_from_sequence, fold_concat)
SEQUENCE_FOLD(infer_fold_split_to_sequence, fold_split)

gboolean infer_fold_sequence_reader(Graph *g, Node *n, gboolean *folded, GError **error)
{
    *folded = FALSE;
    const Tensor *s = NULL;
    for (guint k = 0; !s && k < n->inputs->len; k++) {
        const Tensor *t = n->inputs->pdata[k];
        if (t && (t->elements || (t->declared && t->declared->sequence)))
            s = t;
    }
    for (guint k = 0; !s && k < n->implicit_inputs->len; k++) {
        const Tensor *t = n->implicit_inputs->pdata[k];
        if (t->elements || (t->declared && t->declared->sequence))
            s = t;
    }
    if (!s)
        return TRUE;
    if (g && s->elements && !strcmp(n->op_type, "Identity") && !*n->domain && n->inputs->len == 1 &&
        n->outputs->len == 1 && node_output(n, 0)) /* Identity of a sequence (opset 14): the same elements */
        return sequence_output(g, n, s->dtype, elements_copy(s), folded, error);
    if (!s->elements)
        return infer_fail(error, n, "reads '%s', a sequence whose elements are not known (%s)", s->name, NOT_KNOWN);
    return infer_fail(error, n, "reads '%s', a sequence of %u tensors: only the sequence ops read sequences, and "
                      "an If or a Loop decided before running (this one is not)", s->name, s->elements->len);
}

INFER_FN(infer_sequence)
{
    (void)cx;
    (void)op;
    (void)opset;
    return infer_fail(error, n, "a sequence op outside a graph the planner folds (%s)", NOT_KNOWN);
}
