/* liveness.c — tensor lifetimes and physical sizes (see liveness.h). */
#include "liveness.h"

gboolean tensor_physical_bytes(const Tensor *t, guint64 pad_last, guint64 *out)
{
    guint64 n = dtype_size(t->dtype);
    for (int k = 0; k < t->rank; k++) {
        guint64 d = (guint64)t->dims[k];
        if (k == t->rank - 1 && pad_last > 1) {
            if (d > G_MAXUINT64 - pad_last)
                return FALSE;
            d = round_up(d, pad_last);
        }
        if (!size_mul(n, d, &n))
            return FALSE;
    }
    *out = n;
    return TRUE;
}

static gboolean needs_buffer(const Tensor *t, const LayoutOptions *o)
{
    if (!t->producer && !t->is_graph_input && !t->init)
        return FALSE; /* a name only ever mentioned */
    if (t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT)
        return o->weights_in_arena;
    return TRUE;
}

Trace *trace_from_graph(const Graph *g, const GPtrArray *schedule, const LayoutOptions *o, GError **error)
{
    guint steps = MAX(schedule->len, 1);
    gint *step_of = g_new(gint, g->nodes->len + 1);
    for (guint k = 0; k < g->nodes->len; k++)
        step_of[k] = -1;
    for (guint s = 0; s < schedule->len; s++) {
        const Node *n = schedule->pdata[s];
        if (step_of[n->index] >= 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "schedule runs node %s twice", n->label);
            g_free(step_of);
            return NULL;
        }
        step_of[n->index] = (gint)s;
    }
    Trace *t = trace_new(g->name);
    t->steps = steps;
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < g->tensors->len; k++) {
        const Tensor *tensor = g->tensors->pdata[k];
        if (!needs_buffer(tensor, o))
            continue;
        if (!tensor->shape_known) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "tensor '%s' has no known shape", tensor->name);
            ok = FALSE;
            break;
        }
        guint64 bytes;
        if (!tensor_physical_bytes(tensor, o->pad_last, &bytes)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "tensor '%s': padded byte size overflows 64 bits", tensor->name);
            ok = FALSE;
            break;
        }
        if (bytes == 0)
            continue; /* nothing to place */
        guint first = 0, last = 0;
        gboolean whole_run = tensor->kind == TENSOR_WEIGHT || tensor->kind == TENSOR_CONSTANT || tensor->is_graph_output;
        if (tensor->producer && tensor->kind != TENSOR_WEIGHT) {
            gint s = step_of[tensor->producer->index];
            if (s < 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "schedule never runs node %s", tensor->producer->label);
                ok = FALSE;
                break;
            }
            first = last = (guint)s;
        }
        for (guint c = 0; c < tensor->consumers->len; c++) {
            const Node *n = tensor->consumers->pdata[c];
            gint s = step_of[n->index];
            if (s < 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "schedule never runs node %s", n->label);
                ok = FALSE;
                break;
            }
            if (s < (gint)first) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                            "schedule runs node %s, which reads '%s', before the tensor is produced", n->label, tensor->name);
                ok = FALSE;
                break;
            }
            last = MAX(last, (guint)s);
        }
        if (whole_run)
            last = steps - 1;
        if (tensor->kind == TENSOR_WEIGHT || tensor->kind == TENSOR_CONSTANT)
            first = 0;
        if (ok)
            trace_add(t, tensor->name, bytes, o->align, first, last);
    }
    g_free(step_of);
    if (!ok) {
        trace_free(t);
        return NULL;
    }
    t->steps = steps;
    return t;
}
