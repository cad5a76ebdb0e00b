/* ops-layout.c — shape inference for the metadata-only ("noop") ops of docs/spec.md §1 —
 * Reshape, Transpose, Squeeze, Unsqueeze, Flatten, Identity — whose values pass through unchanged
 * (or permuted, for Transpose), plus DepthToSpace/SpaceToDepth. */
#include "ops/ops-families.h"

/* Output 0 takes shape `dims` and, when the input's value is known, the same elements in order. */
static gboolean set_view(Node *n, Tensor *x, int rank, const gint64 *dims, GError **error)
{
    if (!infer_set_output(n, 0, x->dtype, rank, dims, error))
        return FALSE;
    if (x->value)
        infer_set_value(n, 0, value_copy(x->value));
    return TRUE;
}

gboolean infer_identity(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    return infer_same_as_input(n, 0, 0, TRUE, error);
}

gboolean infer_reshape(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    Tensor *x;
    GArray *shape;
    gboolean have;
    gint64 allowzero;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "allowzero", 0, &allowzero, error) ||
        !infer_int_list(n, opset < 5 ? "shape" : NULL, opset < 5 ? -1 : 1, "target shape", &shape, &have, error))
        return FALSE;
    if (!have)
        return infer_fail(error, n, "the target shape is missing");
    int rank = (int)shape->len;
    gint64 dims[MAX_RANK];
    int infer_at = -1;
    guint64 known = 1, numel;
    gboolean ok = rank <= MAX_RANK;
    if (!ok)
        infer_fail(error, n, "target rank %d is beyond %d", rank, MAX_RANK);
    for (int k = 0; ok && k < rank; k++) {
        gint64 d = g_array_index(shape, gint64, k);
        if (d == 0 && !allowzero) {
            if (k >= x->rank)
                ok = infer_fail(error, n, "target dimension %d is 0 (copy), but input '%s' has rank %d", k, x->name,
                                x->rank);
            else
                d = x->dims[k];
        }
        if (ok && d == -1) {
            if (infer_at >= 0)
                ok = infer_fail(error, n, "target shape has more than one -1");
            infer_at = k;
            d = 1;
        } else if (ok && d < 0) {
            ok = infer_fail(error, n, "target dimension %d is %" G_GINT64_FORMAT, k, d);
        }
        dims[k] = d;
        if (ok && !graph_size_mul(known, (guint64)d, &known))
            ok = infer_fail(error, n, "target shape's element count overflows 64 bits");
    }
    g_array_unref(shape);
    if (!ok)
        return FALSE;
    shape_numel(x->rank, x->dims, &numel);
    if (infer_at >= 0) {
        if (known == 0 || numel % known)
            goto mismatch;
        dims[infer_at] = (gint64)(numel / known);
        known = numel;
    }
    if (known != numel)
        goto mismatch;
    return set_view(n, x, rank, dims, error);
mismatch: {
    char *from = graph_dims_to_string(x->rank, x->dims), *to = graph_dims_to_string(rank, dims);
    if (infer_at >= 0)
        infer_fail(error, n, "cannot reshape '%s' %s (%" G_GUINT64_FORMAT " elements) to %s with -1 at %d: "
                   "element counts differ", x->name, from, numel, to, infer_at);
    else
        infer_fail(error, n, "cannot reshape '%s' %s (%" G_GUINT64_FORMAT " elements) to %s (%" G_GUINT64_FORMAT
                   " elements): element counts differ", x->name, from, numel, to, known);
    g_free(from);
    g_free(to);
    return FALSE;
}
}

gboolean infer_transpose(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    const GArray *perm_attr;
    if (!infer_input(n, 0, &x, error) || !node_attr_ints(n, "perm", &perm_attr, error))
        return FALSE;
    int rank = x->rank, perm[MAX_RANK];
    gboolean used[MAX_RANK] = {0};
    if (perm_attr && (int)perm_attr->len != rank)
        return infer_fail(error, n, "attribute 'perm' has %u entries for rank %d", perm_attr->len, rank);
    for (int k = 0; k < rank; k++) {
        gint64 p = perm_attr ? g_array_index(perm_attr, gint64, k) : rank - 1 - k;
        int axis;
        if (!infer_axis(n, p, rank, &axis, error))
            return FALSE;
        if (used[axis])
            return infer_fail(error, n, "attribute 'perm' is not a permutation (axis %d twice)", axis);
        used[axis] = TRUE;
        perm[k] = axis;
    }
    gint64 dims[MAX_RANK];
    for (int k = 0; k < rank; k++)
        dims[k] = x->dims[perm[k]];
    if (!infer_set_output(n, 0, x->dtype, rank, dims, error))
        return FALSE;
    if (x->value) {
        Value *v = value_new(x->dtype, x->value->n);
        gsize in_stride[MAX_RANK], s = 1;
        for (int k = rank - 1; k >= 0; k--) {
            in_stride[k] = s;
            s *= (gsize)x->dims[k];
        }
        for (gsize e = 0; e < v->n; e++) {
            /* Output multi-index -> input flat index. */
            gsize rest = e, src = 0;
            for (int k = rank - 1; k >= 0; k--) {
                gsize idx = rest % (gsize)dims[k];
                rest /= (gsize)dims[k];
                src += idx * in_stride[perm[k]];
            }
            value_copy_element(v, e, x->value, src);
        }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

gboolean infer_squeeze(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    Tensor *x;
    GArray *axes;
    gboolean have;
    if (!infer_input(n, 0, &x, error) ||
        !infer_int_list(n, opset < 13 ? "axes" : NULL, opset < 13 ? -1 : 1, "axes", &axes, &have, error))
        return FALSE;
    gboolean drop[MAX_RANK] = {0};
    gboolean ok = TRUE;
    for (guint k = 0; have && ok && k < axes->len; k++) {
        int a;
        ok = infer_axis(n, g_array_index(axes, gint64, k), x->rank, &a, error);
        if (ok && x->dims[a] != 1)
            ok = infer_fail(error, n, "cannot squeeze axis %d of '%s': its size is %" G_GINT64_FORMAT ", not 1", a,
                            x->name, x->dims[a]);
        if (ok)
            drop[a] = TRUE;
    }
    if (axes)
        g_array_unref(axes);
    if (!ok)
        return FALSE;
    gint64 dims[MAX_RANK];
    int r = 0;
    for (int k = 0; k < x->rank; k++)
        if (!(have ? drop[k] : x->dims[k] == 1))
            dims[r++] = x->dims[k];
    return set_view(n, x, r, dims, error);
}

gboolean infer_unsqueeze(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    Tensor *x;
    GArray *axes;
    gboolean have;
    if (!infer_input(n, 0, &x, error) ||
        !infer_int_list(n, opset < 13 ? "axes" : NULL, opset < 13 ? -1 : 1, "axes", &axes, &have, error))
        return FALSE;
    if (!have)
        return infer_fail(error, n, "axes are missing");
    int rank = x->rank + (int)axes->len;
    gboolean insert[MAX_RANK] = {0};
    gboolean ok = rank <= MAX_RANK || infer_fail(error, n, "output rank %d is beyond %d", rank, MAX_RANK);
    for (guint k = 0; ok && k < axes->len; k++) {
        int a;
        ok = infer_axis(n, g_array_index(axes, gint64, k), rank, &a, error);
        if (ok && insert[a])
            ok = infer_fail(error, n, "axis %d is listed twice", a);
        if (ok)
            insert[a] = TRUE;
    }
    g_array_unref(axes);
    if (!ok)
        return FALSE;
    gint64 dims[MAX_RANK];
    for (int k = 0, j = 0; k < rank; k++)
        dims[k] = insert[k] ? 1 : x->dims[j++];
    return set_view(n, x, rank, dims, error);
}

gboolean infer_flatten(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 axis;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "axis", 1, &axis, error))
        return FALSE;
    if (axis < -(gint64)x->rank || axis > x->rank)
        return infer_fail(error, n, "axis %" G_GINT64_FORMAT " is out of range for rank %d", axis, x->rank);
    if (axis < 0)
        axis += x->rank;
    guint64 outer, inner;
    shape_numel((int)axis, x->dims, &outer);
    shape_numel(x->rank - (int)axis, x->dims + axis, &inner);
    gint64 dims[2] = {(gint64)outer, (gint64)inner};
    return set_view(n, x, 2, dims, error);
}

/* DepthToSpace (to_space) and SpaceToDepth: (N, C, H, W) <-> (N, C/b^2, H*b, W*b). */
static gboolean infer_depth_space(Node *n, gboolean to_space, GError **error)
{
    Tensor *x;
    gint64 b;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "blocksize", 0, &b, error))
        return FALSE;
    if (x->rank != 4 || b < 1)
        return infer_fail(error, n, "needs a rank-4 input and blocksize >= 1");
    gint64 d[4] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
    /* b^2 channels move into (or come out of) each position: b may be no larger than the axes it divides
     * (so b * b cannot overflow), and SpaceToDepth's channels times b^2 is checked. */
    guint64 square, grown;
    if (!graph_size_mul((guint64)b, (guint64)b, &square) || square > (guint64)G_MAXINT64 ||
        (to_space ? square > (guint64)d[1]
                  : b > d[2] || b > d[3] || !graph_size_mul((guint64)d[1], square, &grown) || grown > (guint64)G_MAXINT64))
        return infer_fail(error, n, "blocksize %" G_GINT64_FORMAT " does not fit the input%s", b,
                          to_space ? "'s channels (blocksize^2 must divide them)" : "'s height and width");
    if (to_space) {
        if (d[1] % (b * b))
            return infer_fail(error, n, "channels %" G_GINT64_FORMAT " are not divisible by blocksize^2", d[1]);
        d[1] /= b * b;
        d[2] *= b;
        d[3] *= b;
    } else {
        if (d[2] % b || d[3] % b)
            return infer_fail(error, n, "height and width must be divisible by blocksize %" G_GINT64_FORMAT, b);
        d[1] *= b * b;
        d[2] /= b;
        d[3] /= b;
    }
    return infer_set_output(n, 0, x->dtype, 4, d, error);
}

gboolean infer_depth_to_space(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    return infer_depth_space(n, TRUE, error);
}

gboolean infer_space_to_depth(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    return infer_depth_space(n, FALSE, error);
}
