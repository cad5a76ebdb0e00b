/* ops-recurrent.c — shape inference for the one-layer recurrent ops LSTM, GRU and RNN, as the ONNX operator
 * specification gives them: X is [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1, opset 14);
 * W [directions, gates x hidden, input], R [directions, gates x hidden, hidden], B [directions, 2 x gates x
 * hidden]; sequence_lens [batch]; initial_h (and LSTM's initial_c) [directions, batch, hidden] (layout 1:
 * [batch, directions, hidden]); LSTM's peepholes P [directions, 3 x hidden]. Outputs Y [seq, directions,
 * batch, hidden] (layout 1: [batch, seq, directions, hidden]), Y_h and Y_c shaped like initial_h. Every
 * input and output past X, W and R is optional. */
#include "ops/ops-families.h"

int ops_recurrent_gates(const char *op_name)
{
    return !strcmp(op_name, "LSTM") ? 4 : !strcmp(op_name, "GRU") ? 3 : 1;
}

gboolean ops_recurrent_directions(const Node *n, int *out, GError **error)
{
    const char *direction;
    if (!node_attr_string(n, "direction", "forward", &direction, error))
        return FALSE;
    if (strcmp(direction, "forward") && strcmp(direction, "reverse") && strcmp(direction, "bidirectional")) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE,
                    "node %s: attribute 'direction' is '%s' (forward, reverse or bidirectional)", n->label, direction);
        return FALSE;
    }
    *out = strcmp(direction, "bidirectional") ? 1 : 2;
    return TRUE;
}

/* Optional input k, when present, must have exactly this shape. */
static gboolean optional_shaped(Node *n, guint k, const char *role, int rank, const gint64 *dims, GError **error)
{
    Tensor *t = node_input(n, k);
    if (!t)
        return TRUE;
    if (!t->shape_known)
        return infer_fail(error, n, "%s '%s' has no known shape", role, t->name);
    gboolean same = t->rank == rank;
    for (int d = 0; same && d < rank; d++)
        same = t->dims[d] == dims[d];
    if (!same) {
        GString *want = g_string_new("[");
        for (int d = 0; d < rank; d++)
            g_string_append_printf(want, "%s%" G_GINT64_FORMAT, d ? ", " : "", dims[d]);
        g_string_append_c(want, ']');
        gboolean r = infer_fail(error, n, "%s '%s' must have shape %s", role, t->name, want->str);
        g_string_free(want, TRUE);
        return r;
    }
    return TRUE;
}

gboolean infer_recurrent(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)opset;
    Tensor *x, *w, *r;
    gint64 hidden_attr, layout;
    int dirs, gates = ops_recurrent_gates(op->name);
    if (!infer_input(n, 0, &x, error) || !infer_input(n, 1, &w, error) || !infer_input(n, 2, &r, error) ||
        !node_attr_int(n, "hidden_size", 0, &hidden_attr, error) || !node_attr_int(n, "layout", 0, &layout, error) ||
        !ops_recurrent_directions(n, &dirs, error))
        return FALSE;
    if (layout != 0 && layout != 1)
        return infer_fail(error, n, "attribute 'layout' is %" G_GINT64_FORMAT " (0 or 1)", layout);
    if (x->rank != 3)
        return infer_fail(error, n, "input X '%s' must have rank 3, but has rank %d", x->name, x->rank);
    if (w->rank != 3 || w->dims[0] != dirs || w->dims[1] % gates || w->dims[2] != x->dims[2])
        return infer_fail(error, n, "weight W '%s' must be [%d, %d x hidden, %" G_GINT64_FORMAT "]", w->name, dirs,
                          gates, x->dims[2]);
    gint64 hidden = w->dims[1] / gates;
    if (hidden_attr && hidden_attr != hidden)
        return infer_fail(error, n, "attribute 'hidden_size' is %" G_GINT64_FORMAT " but W '%s' holds %d x %"
                          G_GINT64_FORMAT " rows", hidden_attr, w->name, gates, hidden);
    gint64 seq = x->dims[layout ? 1 : 0], batch = x->dims[layout ? 0 : 1];
    gint64 r_dims[3] = {dirs, gates * hidden, hidden}, b_dims[2] = {dirs, 2 * gates * hidden};
    gint64 state[3] = {layout ? batch : dirs, layout ? dirs : batch, hidden}, p_dims[2] = {dirs, 3 * hidden};
    if (!optional_shaped(n, 2, "recurrence weight R", 3, r_dims, error) ||
        !optional_shaped(n, 3, "bias B", 2, b_dims, error) ||
        !optional_shaped(n, 4, "sequence_lens", 1, &batch, error) ||
        !optional_shaped(n, 5, "initial_h", 3, state, error) ||
        (gates == 4 && (!optional_shaped(n, 6, "initial_c", 3, state, error) ||
                        !optional_shaped(n, 7, "peepholes P", 2, p_dims, error))))
        return FALSE;
    if (gates != 4 && n->outputs->len > 2)
        return infer_fail(error, n, "%s has 2 outputs (Y, Y_h), not %u", op->name, n->outputs->len);
    Tensor *lens = node_input(n, 4);
    if (lens && lens->dtype != DT_INT32)
        return infer_fail(error, n, "sequence_lens '%s' must be int32", lens->name);
    gint64 y_dims[4] = {layout ? batch : seq, layout ? seq : dirs, layout ? dirs : batch, hidden};
    return infer_set_output(n, 0, x->dtype, 4, y_dims, error) && infer_set_output(n, 1, x->dtype, 3, state, error) &&
           infer_set_output(n, 2, x->dtype, 3, state, error);
}

/* The kernel's workspace: every step's input projections (seq x batch x gates x hidden), the state and the
 * recurrent projections of one step (batch x (gates + 3) x hidden), per direction in turn. */
guint64 ops_recurrent_scratch(const Node *n)
{
    const Tensor *x = node_input(n, 0), *w = node_input(n, 1);
    if (!x || !w || !x->shape_known || !w->shape_known || x->rank != 3 || w->rank != 3)
        return 0;
    guint64 rows = (guint64)x->dims[0] * (guint64)x->dims[1], per_step = (guint64)w->dims[1], floats, bytes;
    guint64 hidden = (guint64)w->dims[1] / (guint64)ops_recurrent_gates(n->op_type);
    if (!graph_size_mul(rows, per_step, &floats) || __builtin_add_overflow(floats, (guint64)x->dims[1] * (per_step + 3 * hidden), &floats) ||
        !graph_size_mul(floats, sizeof(float), &bytes))
        return 0;
    return bytes;
}
