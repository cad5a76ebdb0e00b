/* alias-ort.c — ONNX Runtime's own rules for sharing bytes on the CPU, from its allocation planner
 * (core/framework/allocation_planner.cc) and its CPU kernels' registrations, for the `ort` placement:
 * 1. The shapes it knows before running (ort-shapes.h): ONNX shape inference as ORT runs it at load, with no
 *    values but weights' and Constants', a graph input's symbolic dim a symbol only where ops pass it through.
 * 2. In place: the CPU kernels that declare MayInplace(0, 0) (the activations and Clip; not Add, Mul or
 *    BatchNormalization) write over input 0 when it dies there and both shapes are known and equal.
 * 3. An output nothing reads (Dropout's mask) lives to the end of the run: ORT releases a value after its last
 *    reader, and it has none.
 * 4. Reuse classes: a freed buffer goes only to a tensor of the same element size and the same known shape,
 *    so every buffer gets the class of its owner's (TraceBuffer.reuse), or `none` when ORT does not know its
 *    shape or it is a scalar; `--strategy ort` then reuses within classes.
 * Views (ORT's Alias kernels: Reshape, Squeeze, Unsqueeze, Flatten, Identity) are noop's: ORT's whole rule
 * is `--alias noop,ort --transpose move --order ort` (its Transpose copies). */
#include "memory/alias.h"
#include "model/dtype.h"
#include "strategies/alias/ort-shapes.h"

#include <string.h>

/* The CPU kernels that may write over input 0 (core/providers/cpu/activation/activations.cc, math/clip.cc). */
static const char *const ort_inplace_ops[] = {
    "Elu", "HardSigmoid", "LeakyRelu", "Relu", "Selu", "Sigmoid", "Softplus", "Softsign", "Tanh", "ThresholdedRelu",
    "Clip", NULL,
};

static gboolean is_inplace_op(const Node *n)
{
    for (guint k = 0; ort_inplace_ops[k]; k++)
        if (!strcmp(n->op_type, ort_inplace_ops[k]))
            return TRUE;
    return FALSE;
}

static gboolean ort_apply(AliasMap *m, GError **error)
{
    (void)error;
    OrtShapes *shapes = ort_shapes_infer(m->g, m->schedule);
    /* in place */
    guint *death = alias_structural_deaths(m);
    for (guint s = 0; s < m->schedule->len; s++) {
        const Node *n = m->schedule->pdata[s];
        const Tensor *y = node_output(n, 0), *x = n->inputs->len ? node_input(n, 0) : NULL;
        if (!is_inplace_op(n) || !y || !x || !m->bytes[y->id] || !m->bytes[x->id] || m->link[y->id].parent >= 0 ||
            y->is_graph_output || x->dtype != y->dtype || !ort_shapes_equal(shapes, x, y) || m->bytes[x->id] != m->bytes[y->id])
            continue;
        gint r = alias_structural_root(m, x->id);
        if (death[r] != s || alias_structural_protected(m, x->id, TRUE))
            continue;
        if (alias_link(m, y->id, x->id, 0, SHARE_INPLACE))
            alias_note_shared(m, n, SHARE_INPLACE);
    }
    g_free(death);
    /* An output nothing reads (Dropout's mask) is never released: ORT frees a value when its last reader has
     * run, and this one has none, so it lives to the end of the run. */
    for (guint s = 0; s < m->schedule->len; s++) {
        const Node *n = m->schedule->pdata[s];
        for (guint k = 0; k < n->outputs->len; k++) {
            const Tensor *y = n->outputs->pdata[k];
            if (y && m->bytes[y->id] && !y->consumers->len && !y->is_graph_output)
                m->death[y->id] = m->schedule->len - 1;
        }
    }
    /* reuse classes: element size and shape, numbered in the order first met */
    guint n = m->g->tensors->len;
    g_free(m->reuse);
    m->reuse = g_new0(guint64, n + 1);
    GHashTable *classes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint k = 0; k < n; k++) {
        const Tensor *t = m->g->tensors->pdata[k];
        if (!m->bytes[k])
            continue;
        if (!ort_shapes_complete(shapes, t) || t->rank == 0) {
            m->reuse[k] = TRACE_REUSE_NONE;
            continue;
        }
        GString *key = g_string_new(NULL);
        g_string_append_printf(key, "%u", dtype_size(t->dtype));
        for (int d = 0; d < t->rank; d++) { /* a number, or a symbol: equal only to itself */
            gint64 v = shapes->dims[k][d];
            g_string_append_printf(key, v >= 0 ? ",%" G_GINT64_FORMAT : ",s%" G_GINT64_FORMAT, v >= 0 ? v : -v);
        }
        gpointer id = g_hash_table_lookup(classes, key->str);
        if (!id) {
            id = GUINT_TO_POINTER(g_hash_table_size(classes) + 1);
            g_hash_table_insert(classes, g_strdup(key->str), id);
        }
        m->reuse[k] = GPOINTER_TO_UINT(id);
        g_string_free(key, TRUE);
    }
    g_hash_table_unref(classes);
    ort_shapes_free(shapes);
    return TRUE;
}

const AliasStrategy alias_ort = {
    .name = "ort",
    .summary = "ONNX Runtime's CPU rules: activations and Clip in place, reuse only between equal static shapes",
    .apply = ort_apply,
    .runtime_rule = TRUE,
};
