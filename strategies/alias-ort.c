/* alias-ort.c — ONNX Runtime's own rules for sharing bytes on the CPU, from its allocation planner
 * (core/framework/allocation_planner.cc) and its CPU kernels' registrations, for the `ort` placement:
 * 1. The shapes it knows before running. ORT runs ONNX shape inference when it loads the graph, without
 *    data propagation: a tensor's value is known there only for a weight or a Constant. So an op whose output
 *    shape depends on the value of an input computed at run time (Reshape to a computed shape, Expand, Tile,
 *    Slice, ... with computed arguments; every data-dependent op) gives a shape ORT does not know, and so
 *    does everything computed from it. At graph optimisation level "disabled" nothing folds that away.
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

/* Per tensor: whether ORT knows its whole shape before running. */
static gboolean *known_shapes(const AliasMap *m)
{
    guint n = m->g->tensors->len;
    gboolean *known = g_new0(gboolean, n + 1);
    for (guint k = 0; k < n; k++) {
        const Tensor *t = m->g->tensors->pdata[k];
        known[k] = t->init != NULL || t->is_graph_input || declared_known(t);
    }
    for (guint s = 0; s < m->schedule->len; s++) { /* producers before consumers */
        const Node *node = m->schedule->pdata[s];
        guint values = value_inputs_of(node);
        gboolean ok = values != ~0u;
        for (guint k = 0; ok && k < node->inputs->len; k++) {
            const Tensor *x = node->inputs->pdata[k];
            if (x)
                ok = known[x->id] && (!(k < 32 && (values >> k & 1)) || x->init != NULL);
        }
        for (guint k = 0; k < node->outputs->len; k++) {
            const Tensor *y = node->outputs->pdata[k];
            if (y)
                known[y->id] = known[y->id] || ok;
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
    gboolean *known = known_shapes(m);
    /* in place */
    guint *death = alias_structural_deaths(m);
    for (guint s = 0; s < m->schedule->len; s++) {
        const Node *n = m->schedule->pdata[s];
        const Tensor *y = node_output(n, 0), *x = n->inputs->len ? node_input(n, 0) : NULL;
        if (!is_inplace_op(n) || !y || !x || !m->bytes[y->id] || !m->bytes[x->id] || m->link[y->id].parent >= 0 ||
            y->is_graph_output || !known[x->id] || !known[y->id] || !same_shape(x, y) || m->bytes[x->id] != m->bytes[y->id])
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
        if (!known[k] || t->rank == 0) {
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
