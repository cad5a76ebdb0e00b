/* liveness.c — tensor lifetimes and physical sizes (see liveness.h). */
#include "memory/liveness.h"
#include "ops/ops.h"

#include <string.h>

gboolean liveness_physical_bytes(const Tensor *t, guint64 pad_last, guint64 *out)
{
    guint64 n = dtype_size(t->dtype);
    for (int k = 0; k < t->rank; k++) {
        guint64 d = (guint64)t->dims[k];
        if (k == t->rank - 1 && pad_last > 1) {
            if (d > G_MAXUINT64 - pad_last)
                return FALSE;
            d = round_up(d, pad_last);
        }
        if (!graph_size_mul(n, d, &n))
            return FALSE;
    }
    *out = n;
    return TRUE;
}

gboolean liveness_node_is_view(const Node *n, const LayoutOptions *o)
{
    return n && n->op && n->op->op_class == OP_NOOP && !(o->transpose_moves && n->op->moves_data);
}

gboolean liveness_tensor_in_arena(const Tensor *t, const LayoutOptions *o)
{
    if (!t->producer && !t->is_graph_input && !t->init)
        return FALSE; /* a name only ever mentioned */
    if (t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT)
        return o->weights_in_arena;
    if (t->is_graph_input && o->inputs_outside)
        return FALSE;
    if (t->is_graph_output && o->outputs_outside)
        return FALSE;
    return TRUE;
}

gboolean liveness_compute(const Graph *g, const GPtrArray *schedule, const LayoutOptions *o, Lifetimes *out,
                           GError **error)
{
    guint n = g->tensors->len;
    out->steps = MAX(schedule->len, 1);
    out->step_of = g_new(gint, g->nodes->len + 1);
    out->bytes = g_new0(guint64, n + 1);
    out->birth = g_new0(guint, n + 1);
    out->death = g_new0(guint, n + 1);
    for (guint k = 0; k < g->nodes->len; k++)
        out->step_of[k] = -1;
    for (guint s = 0; s < schedule->len; s++) {
        const Node *node = schedule->pdata[s];
        if (out->step_of[node->index] >= 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "schedule runs node %s twice", node->label);
            return FALSE;
        }
        out->step_of[node->index] = (gint)s;
    }
    for (guint k = 0; k < n; k++) {
        const Tensor *tensor = g->tensors->pdata[k];
        if (!liveness_tensor_in_arena(tensor, o))
            continue;
        if (!tensor->shape_known) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "tensor '%s' has no known shape", tensor->name);
            return FALSE;
        }
        guint64 bytes;
        if (!liveness_physical_bytes(tensor, o->pad_last, &bytes)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "tensor '%s': padded byte size overflows 64 bits", tensor->name);
            return FALSE;
        }
        if (bytes == 0)
            continue; /* nothing to place */
        guint first = 0, last = 0;
        gboolean whole_run = tensor->kind == TENSOR_WEIGHT || tensor->kind == TENSOR_CONSTANT || tensor->is_graph_output;
        if (tensor->producer && tensor->kind != TENSOR_WEIGHT) {
            gint s = out->step_of[tensor->producer->index];
            if (s < 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "schedule never runs node %s", tensor->producer->label);
                return FALSE;
            }
            first = last = (guint)s;
        }
        for (guint c = 0; c < tensor->consumers->len; c++) {
            const Node *node = tensor->consumers->pdata[c];
            gint s = out->step_of[node->index];
            if (s < 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "schedule never runs node %s", node->label);
                return FALSE;
            }
            if (s < (gint)first) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                            "schedule runs node %s, which reads '%s', before the tensor is produced", node->label,
                            tensor->name);
                return FALSE;
            }
            if (op_reads_bytes(node, tensor)) /* a Shape of a known shape reads no bytes: it keeps none alive */
                last = MAX(last, (guint)s);
        }
        if (whole_run)
            last = out->steps - 1;
        if (tensor->kind == TENSOR_WEIGHT || tensor->kind == TENSOR_CONSTANT)
            first = 0;
        out->bytes[k] = bytes;
        out->birth[k] = first;
        out->death[k] = last;
    }
    return TRUE;
}

void liveness_clear(Lifetimes *l)
{
    g_free(l->step_of);
    g_free(l->bytes);
    g_free(l->birth);
    g_free(l->death);
    memset(l, 0, sizeof(*l));
}
