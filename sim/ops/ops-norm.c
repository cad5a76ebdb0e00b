/* ops-norm.c — shape inference for normalisations (BatchNormalization, LayerNormalization, ...),
 * softmax-like ops, reductions (with folding for shape arithmetic), ArgMax/ArgMin and TopK. */
#include "ops/ops-families.h"

gboolean infer_batch_norm(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    if (!infer_input(n, 0, &x, error) || !infer_same_as_input(n, 0, 0, FALSE, error))
        return FALSE;
    if (x->rank < 2)
        return infer_fail(error, n, "input '%s' must have rank >= 2", x->name);
    gint64 c = x->dims[1];
    /* Training-mode outputs: running mean and variance (and saved ones before opset 14), all of shape (C). */
    for (guint k = 1; k < n->outputs->len; k++)
        if (!infer_set_output(n, k, x->dtype, 1, &c, error))
            return FALSE;
    return TRUE;
}

gboolean infer_layer_norm(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 axis_attr, stash;
    int axis;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "axis", -1, &axis_attr, error) ||
        !node_attr_int(n, "stash_type", DT_FLOAT, &stash, error) || !infer_axis(n, axis_attr, x->rank, &axis, error) ||
        !infer_same_as_input(n, 0, 0, FALSE, error))
        return FALSE;
    if (!dtype_is_valid(stash))
        return infer_fail(error, n, "attribute 'stash_type' = %" G_GINT64_FORMAT " is not an element type", stash);
    gint64 stat[MAX_RANK];
    for (int k = 0; k < x->rank; k++)
        stat[k] = k < axis ? x->dims[k] : 1;
    return infer_set_output(n, 1, (DType)stash, x->rank, stat, error) &&
           infer_set_output(n, 2, (DType)stash, x->rank, stat, error);
}

/* sim's SkipLayerNormalization(x, skip, gamma[, beta]): LayerNormalization over the last axis of x + skip, two
 * tensors of one shape (ONNX Runtime's); the sum is never a tensor. */
gboolean infer_skip_layer_norm(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x, *skip;
    if (!infer_input(n, 0, &x, error) || !infer_input(n, 1, &skip, error))
        return FALSE;
    if (x->rank < 1 || skip->rank != x->rank || memcmp(x->dims, skip->dims, sizeof(gint64) * (gsize)x->rank))
        return infer_fail(error, n, "x '%s' and skip '%s' must have one shape", x->name, skip->name);
    return infer_same_as_input(n, 0, 0, FALSE, error);
}

gboolean infer_softmax(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    Tensor *x;
    gint64 axis_attr;
    int axis;
    return infer_input(n, 0, &x, error) && node_attr_int(n, "axis", opset >= 13 ? -1 : 1, &axis_attr, error) &&
           (x->rank == 0 || infer_axis(n, axis_attr, x->rank, &axis, error)) &&
           infer_same_as_input(n, 0, 0, FALSE, error);
}

/* Folds a reduction over the marked axes with op->binary (Sum, Prod, Max, Min). */
static void fold_reduce(InferCtx *cx, const OpInfo *op, Node *n, Tensor *x, const gboolean *reduced, int out_rank,
                        const gint64 *out_dims)
{
    if (!x->value || !op->binary || !infer_value_fits(cx, out_rank, out_dims))
        return;
    guint64 out_n;
    shape_numel(out_rank, out_dims, &out_n);
    Value *v = value_new(x->dtype, out_n);
    gboolean *seen = g_new0(gboolean, out_n ? out_n : 1);
    for (gsize e = 0; e < x->value->n; e++) {
        /* Output index: the input index with reduced axes dropped. */
        gsize rest = e, o = 0, stride = 1;
        for (int k = x->rank - 1; k >= 0; k--) {
            gsize idx = rest % (gsize)x->dims[k];
            rest /= (gsize)x->dims[k];
            if (!reduced[k]) {
                o += idx * stride;
                stride *= (gsize)x->dims[k];
            }
        }
        double xv = value_get_f(x->value, e);
        value_set_f(v, o, seen[o] ? op->binary(value_get_f(v, o), xv) : xv);
        seen[o] = TRUE;
    }
    g_free(seen);
    infer_set_value(n, 0, v);
}

gboolean infer_reduce(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)opset;
    Tensor *x;
    gint64 keepdims, noop_empty;
    GArray *axes;
    gboolean have_axes;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "keepdims", 1, &keepdims, error) ||
        !node_attr_int(n, "noop_with_empty_axes", 0, &noop_empty, error) ||
        !infer_int_list(n, "axes", 1, "axes", &axes, &have_axes, error))
        return FALSE;
    gboolean reduced[MAX_RANK] = {0};
    if (!have_axes || axes->len == 0) {
        if (axes)
            g_array_unref(axes);
        if (noop_empty)
            return infer_same_as_input(n, 0, 0, TRUE, error);
        for (int k = 0; k < x->rank; k++)
            reduced[k] = TRUE;
    } else {
        for (guint k = 0; k < axes->len; k++) {
            int a;
            if (!infer_axis(n, g_array_index(axes, gint64, k), x->rank, &a, error)) {
                g_array_unref(axes);
                return FALSE;
            }
            reduced[a] = TRUE;
        }
        g_array_unref(axes);
    }
    gint64 out[MAX_RANK], fold_dims[MAX_RANK];
    int r = 0, fr = 0;
    for (int k = 0; k < x->rank; k++) {
        if (!reduced[k])
            fold_dims[fr++] = x->dims[k];
        if (!reduced[k] || keepdims)
            out[r++] = reduced[k] ? 1 : x->dims[k];
    }
    if (!infer_set_output(n, 0, x->dtype, r, out, error))
        return FALSE;
    fold_reduce(cx, op, n, x, reduced, fr, fold_dims);
    return TRUE;
}

gboolean infer_arg_reduce(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 axis_attr, keepdims;
    int axis;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "axis", 0, &axis_attr, error) ||
        !node_attr_int(n, "keepdims", 1, &keepdims, error) || !infer_axis(n, axis_attr, x->rank, &axis, error))
        return FALSE;
    gint64 out[MAX_RANK];
    int r = 0;
    for (int k = 0; k < x->rank; k++)
        if (k != axis || keepdims)
            out[r++] = k == axis ? 1 : x->dims[k];
    return infer_set_output(n, 0, DT_INT64, r, out, error);
}

gboolean infer_topk(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    Tensor *x;
    gint64 axis_attr, k_value;
    int axis;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "axis", -1, &axis_attr, error) ||
        !infer_axis(n, axis_attr, x->rank, &axis, error))
        return FALSE;
    if (opset < 10) {
        if (!node_attr_int(n, "k", -1, &k_value, error))
            return FALSE;
    } else {
        const Tensor *k_t = node_input(n, 1);
        if (!k_t || !k_t->shape_known)
            return infer_fail(error, n, "input K is missing");
        if (k_t->value && k_t->value->n != 1)
            return infer_fail(error, n, "K must hold one value, it holds %zu", k_t->value->n);
        if (!k_t->value || k_t->dynamic) { /* computed when it runs: at most the axis' length (or K's own bound) */
            gint64 most = k_t->value ? MAX(0, MIN(value_get_i(k_t->value, 0), x->dims[axis])) : x->dims[axis];
            k_value = infer_dynamic_dim(cx, n, 0, most, axis,
                                        "TopK: K computed when it runs, at most the axis' length");
            infer_dynamic_dim(cx, n, 1, most, axis, "TopK: K computed when it runs, at most the axis' length");
        } else {
            k_value = value_get_i(k_t->value, 0);
        }
    }
    if (k_value < 0 || k_value > x->dims[axis])
        return infer_fail(error, n, "K = %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT "]", k_value,
                          x->dims[axis]);
    gint64 out[MAX_RANK];
    memcpy(out, x->dims, x->rank * sizeof(gint64));
    out[axis] = k_value;
    return infer_set_output(n, 0, x->dtype, x->rank, out, error) &&
           infer_set_output(n, 1, DT_INT64, x->rank, out, error);
}
