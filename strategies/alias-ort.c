/* alias-ort.c — ONNX Runtime's own rules for sharing bytes on the CPU, from its allocation planner
 * (core/framework/allocation_planner.cc) and its CPU kernels' registrations, for the `ort` placement:
 * 1. The shapes it knows before running. ORT runs ONNX shape inference when it loads the graph, without
 *    data propagation: a tensor's value is known there only for a weight or a Constant. So an op whose output
 *    shape depends on the value of an input computed at run time (Reshape to a computed shape, Expand, Tile,
 *    Slice, ... with computed arguments; every data-dependent op) gives a shape ORT does not know, and so
 *    does what is computed from it, dim by dim where ONNX's rules go dim by dim (Unsqueeze, Squeeze, Gather,
 *    broadcasting: a dim an input has known and above 1 is known). At graph optimisation level "disabled"
 *    nothing folds that away.
 * 2. In place: the CPU kernels that declare MayInplace(0, 0) (the activations and Clip; not Add, Mul or
 *    BatchNormalization) write over input 0 when it dies there and both shapes are known and equal.
 * 3. Reuse classes: a freed buffer goes only to a tensor of the same element size and the same known shape,
 *    so every buffer gets the class of its owner's (TraceBuffer.reuse), or `none` when ORT does not know its
 *    shape or it is a scalar; `--strategy ort` then reuses within classes.
 * Views (ORT's Alias kernels: Reshape, Squeeze, Unsqueeze, Flatten, Identity) are noop's: ORT's whole rule
 * is `--alias noop,ort --transpose move --order ort` (its Transpose copies). */
#include "memory/alias.h"
#include "model/dtype.h"
#include "ops/ops.h"

#include <string.h>

/* The CPU kernels that may write over input 0 (core/providers/cpu/activation/activations.cc, math/clip.cc). */
static const char *const ort_inplace_ops[] = {
    "Elu", "HardSigmoid", "LeakyRelu", "Relu", "Selu", "Sigmoid", "Softplus", "Softsign", "Tanh", "ThresholdedRelu",
    "Clip", NULL,
};

/* Ops whose output shape needs the values of some inputs (a bit per input index), from ONNX's operator
 * definitions; and ops whose output shape only running decides (every input: ~0u). */
static const struct {
    const char *op;
    guint value_inputs;
} ort_value_inputs[] = {
    {"Reshape", 1u << 1}, {"Expand", 1u << 1}, {"Tile", 1u << 1}, {"ConstantOfShape", 1u << 0},
    {"Slice", 0x1eu}, {"Pad", 0xeu}, {"Resize", 0xeu}, {"Upsample", 1u << 1}, {"Range", 0x7u}, {"TopK", 1u << 1},
    {"Squeeze", 1u << 1}, {"Unsqueeze", 1u << 1}, {"Split", 1u << 1}, {"OneHot", 1u << 1}, {"CenterCropPad", 1u << 1},
    {"ReduceSum", 1u << 1}, {"ReduceMean", 1u << 1}, {"ReduceMax", 1u << 1}, {"ReduceMin", 1u << 1},
    {"ReduceProd", 1u << 1}, {"ReduceL1", 1u << 1}, {"ReduceL2", 1u << 1}, {"ReduceLogSum", 1u << 1},
    {"ReduceLogSumExp", 1u << 1}, {"ReduceSumSquare", 1u << 1},
    {"NonZero", ~0u}, {"Unique", ~0u}, {"NonMaxSuppression", ~0u}, {"Compress", ~0u}, {"If", ~0u}, {"Loop", ~0u},
    {"Scan", ~0u}, {"IfSelect", ~0u}, {"StringSplit", ~0u},
};

static guint value_inputs_of(const Node *n)
{
    for (guint k = 0; k < G_N_ELEMENTS(ort_value_inputs); k++)
        if (!strcmp(n->op_type, ort_value_inputs[k].op))
            return ort_value_inputs[k].value_inputs;
    return 0;
}

/* A weight or a Constant: a value ORT has when it loads the graph (a weight whose bytes a stripped export
 * lacks counts too: the runtime is given them). */
static gboolean value_at_load(const Tensor *t)
{
    return t->init != NULL || t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT;
}

static gboolean declared_known(const Tensor *t)
{
    const TypeInfo *d = t->declared;
    if (!d || d->rank < 0)
        return FALSE;
    for (int k = 0; k < d->rank; k++)
        if (d->dims[k] < 0 && !(d->params && d->params[k]))
            return FALSE;
    return TRUE;
}

static guint64 all_dims(int rank)
{
    return rank >= 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT(1) << rank) - 1;
}

/* Which dims of a broadcasting op's output ORT knows, by ONNX's rule: a dim is known when an input has it
 * known and greater than 1 (the others must match it or be 1), or when every input has it known (inputs of
 * lower rank count as 1 there). So Add(token embeddings [1, 128, 768], position embeddings [?, 768]) is
 * known whole: the unknown rows must be 128. */
static guint64 broadcast_known(const Node *n, const Tensor *y, const guint64 *known)
{
    guint64 mask = 0;
    for (int d = 0; d < y->rank && d < 64; d++) {
        gboolean some = FALSE, every = TRUE;
        for (guint k = 0; k < n->inputs->len; k++) {
            const Tensor *x = n->inputs->pdata[k];
            int dx = x ? x->rank - (y->rank - d) : -1; /* right-aligned */
            if (!x || dx < 0)
                continue;
            gboolean dim_known = dx < 64 && (known[x->id] >> dx & 1);
            every = every && dim_known;
            some = some || (dim_known && x->dims[dx] > 1);
        }
        if (some || every)
            mask |= G_GUINT64_CONSTANT(1) << d;
    }
    return mask;
}

static gboolean dim_known(const guint64 *known, const Tensor *t, int d)
{
    return d >= 0 && d < 64 && d < t->rank && (known[t->id] >> d & 1);
}

/* The axes of an Unsqueeze or Squeeze (input 1 from opset 13, else the attribute), normalised against
 * `rank`, as a bit mask; FALSE when ORT would not know them at load. */
static gboolean axes_mask(const Node *n, int rank, guint64 *mask)
{
    *mask = 0;
    const Tensor *a = n->inputs->len > 1 ? n->inputs->pdata[1] : NULL;
    if (a) {
        if (!value_at_load(a) || !a->value)
            return FALSE;
        for (gsize k = 0; k < a->value->n; k++) {
            gint64 axis = value_get_i(a->value, k);
            axis += axis < 0 ? rank : 0;
            if (axis < 0 || axis >= rank || axis >= 64)
                return FALSE;
            *mask |= G_GUINT64_CONSTANT(1) << axis;
        }
        return TRUE;
    }
    const GArray *axes = NULL;
    if (!node_attr_ints(n, "axes", &axes, NULL) || !axes)
        return FALSE;
    for (guint k = 0; k < axes->len; k++) {
        gint64 axis = g_array_index(axes, gint64, k);
        axis += axis < 0 ? rank : 0;
        if (axis < 0 || axis >= rank || axis >= 64)
            return FALSE;
        *mask |= G_GUINT64_CONSTANT(1) << axis;
    }
    return TRUE;
}

/* Which dims of y ORT knows when not all of the node's inputs are known: ONNX's rules dim by dim for the ops
 * that move dims around without reading values (a Range's unknown length through Unsqueeze and Gather into
 * the position embeddings of a GPT); nothing for the rest. */
static guint64 partly_known(const Node *n, const Tensor *y, const guint64 *known)
{
    const Tensor *x = n->inputs->len ? n->inputs->pdata[0] : NULL;
    guint64 mask = 0, axes;
    if (!x || y->rank > 64 || x->rank > 64)
        return 0;
    if (!strcmp(n->op_type, "Unsqueeze") && axes_mask(n, y->rank, &axes)) {
        for (int d = 0, from = 0; d < y->rank; d++)
            if (axes >> d & 1 || dim_known(known, x, from++))
                mask |= G_GUINT64_CONSTANT(1) << d;
    } else if (!strcmp(n->op_type, "Squeeze") && axes_mask(n, x->rank, &axes)) {
        for (int d = 0, to = 0; d < x->rank; d++)
            if (!(axes >> d & 1) && dim_known(known, x, d) && to < 64)
                mask |= G_GUINT64_CONSTANT(1) << to++;
            else if (!(axes >> d & 1))
                to++;
    } else if (!strcmp(n->op_type, "Gather") && n->inputs->len == 2 && n->inputs->pdata[1]) {
        const Tensor *idx = n->inputs->pdata[1];
        gint64 axis = 0;
        node_attr_int(n, "axis", 0, &axis, NULL);
        axis += axis < 0 ? x->rank : 0;
        int d = 0;
        for (int k = 0; k < axis && d < 64; k++, d++)
            mask |= dim_known(known, x, k) ? G_GUINT64_CONSTANT(1) << d : 0;
        for (int k = 0; k < idx->rank && d < 64; k++, d++)
            mask |= dim_known(known, idx, k) ? G_GUINT64_CONSTANT(1) << d : 0;
        for (int k = (int)axis + 1; k < x->rank && d < 64; k++, d++)
            mask |= dim_known(known, x, k) ? G_GUINT64_CONSTANT(1) << d : 0;
    } else if (n->op && n->op->elementwise && n->inputs->len == 1) {
        mask = known[x->id];
    }
    return mask & all_dims(y->rank);
}

/* Per tensor: the dims of its shape ORT knows before running, a bit per dim (the whole shape: all_dims). */
static guint64 *known_shapes(const AliasMap *m)
{
    guint n = m->g->tensors->len;
    guint64 *known = g_new0(guint64, n + 1);
    for (guint k = 0; k < n; k++) {
        const Tensor *t = m->g->tensors->pdata[k];
        if (value_at_load(t) || t->is_graph_input || declared_known(t))
            known[k] = all_dims(t->rank);
    }
    for (guint s = 0; s < m->schedule->len; s++) { /* producers before consumers */
        const Node *node = m->schedule->pdata[s];
        guint values = value_inputs_of(node);
        gboolean ok = values != ~0u;
        for (guint k = 0; ok && k < node->inputs->len; k++) {
            const Tensor *x = node->inputs->pdata[k];
            if (x)
                ok = known[x->id] == all_dims(x->rank) && (!(k < 32 && (values >> k & 1)) || value_at_load(x));
        }
        gboolean broadcasting = values != ~0u && node->op && node->op->elementwise && node->inputs->len > 1;
        for (guint k = 0; k < node->outputs->len; k++) {
            const Tensor *y = node->outputs->pdata[k];
            if (y && !known[y->id])
                known[y->id] = ok ? all_dims(y->rank)
                               : values == ~0u || k > 0 ? 0
                               : broadcasting ? broadcast_known(node, y, known)
                                              : partly_known(node, y, known);
        }
    }
    return known;
}

static gboolean is_inplace_op(const Node *n)
{
    for (guint k = 0; ort_inplace_ops[k]; k++)
        if (!strcmp(n->op_type, ort_inplace_ops[k]))
            return TRUE;
    return FALSE;
}

static gboolean same_shape(const Tensor *a, const Tensor *b)
{
    return a->dtype == b->dtype && a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof(gint64) * (gsize)a->rank);
}

static gboolean ort_apply(AliasMap *m, GError **error)
{
    (void)error;
    guint64 *known = known_shapes(m);
    /* in place */
    guint *death = alias_structural_deaths(m);
    for (guint s = 0; s < m->schedule->len; s++) {
        const Node *n = m->schedule->pdata[s];
        const Tensor *y = node_output(n, 0), *x = n->inputs->len ? node_input(n, 0) : NULL;
        if (!is_inplace_op(n) || !y || !x || !m->bytes[y->id] || !m->bytes[x->id] || m->link[y->id].parent >= 0 ||
            y->is_graph_output || known[x->id] != all_dims(x->rank) || known[y->id] != all_dims(y->rank) ||
            !same_shape(x, y) || m->bytes[x->id] != m->bytes[y->id])
            continue;
        gint r = alias_structural_root(m, x->id);
        if (death[r] != s || alias_structural_protected(m, x->id, TRUE))
            continue;
        if (alias_link(m, y->id, x->id, 0, SHARE_INPLACE))
            alias_note_shared(m, n, SHARE_INPLACE);
    }
    g_free(death);
    /* reuse classes: element size and shape, numbered in the order first met */
    guint n = m->g->tensors->len;
    g_free(m->reuse);
    m->reuse = g_new0(guint64, n + 1);
    GHashTable *classes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint k = 0; k < n; k++) {
        const Tensor *t = m->g->tensors->pdata[k];
        if (!m->bytes[k])
            continue;
        if (known[k] != all_dims(t->rank) || t->rank == 0) {
            m->reuse[k] = TRACE_REUSE_NONE;
            continue;
        }
        GString *key = g_string_new(NULL);
        g_string_append_printf(key, "%u", dtype_size(t->dtype));
        for (int d = 0; d < t->rank; d++)
            g_string_append_printf(key, ",%" G_GINT64_FORMAT, t->dims[d]);
        gpointer id = g_hash_table_lookup(classes, key->str);
        if (!id) {
            id = GUINT_TO_POINTER(g_hash_table_size(classes) + 1);
            g_hash_table_insert(classes, g_strdup(key->str), id);
        }
        m->reuse[k] = GPOINTER_TO_UINT(id);
        g_string_free(key, TRUE);
    }
    g_hash_table_unref(classes);
    g_free(known);
    return TRUE;
}

const AliasStrategy alias_ort = {
    .name = "ort",
    .summary = "ONNX Runtime's CPU rules: activations and Clip in place, reuse only between equal static shapes",
    .apply = ort_apply,
    .runtime_rule = TRUE,
};
