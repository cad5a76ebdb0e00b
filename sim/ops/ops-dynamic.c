/* ops-dynamic.c — shape inference for ops whose output sizes depend on their inputs' values: NonZero,
 * Compress, Unique, NonMaxSuppression (and RoiAlign, whose size follows its boxes). When the deciding input
 * is a constant the planner knows, the size is exact; otherwise the data-dependent dimension is planned at
 * the most the op can give (infer_dynamic_dim: NonZero ≤ its input's elements, NonMaxSuppression ≤
 * boxes kept per class × classes × batch, ...) or at the user's smaller --bound, and the kernel sets the
 * real size when it runs. */
#include "ops/ops-families.h"

/* The elements of a known, planner-computed (not data-dependent) input k, or NULL. */
static const Value *constant_input(const Node *n, guint k)
{
    const Tensor *t = node_input(n, k);
    return t && t->value && !t->dynamic ? t->value : NULL;
}

gboolean infer_nonzero(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *x;
    guint64 numel;
    if (!infer_input(n, 0, &x, error) || !shape_numel(x->rank, x->dims, &numel))
        return x ? infer_fail(error, n, "input '%s' has too many elements", x->name) : FALSE;
    const Value *v = constant_input(n, 0);
    if (v && v->n == numel) { /* a constant input: exactly its nonzero elements */
        gint64 count = 0;
        for (gsize k = 0; k < v->n; k++)
            count += value_get_f(v, k) != 0;
        gint64 out[2] = {x->rank, count};
        return infer_set_output(n, 0, DT_INT64, 2, out, error);
    }
    gint64 out[2] = {x->rank, infer_dynamic_dim(cx, n, 0, (gint64)numel, 1, "NonZero: at most its input's elements")};
    return infer_set_output(n, 0, DT_INT64, 2, out, error);
}

gboolean infer_compress(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *x, *cond;
    gint64 axis_attr;
    int axis = -1;
    guint64 numel;
    if (!infer_input(n, 0, &x, error) || !infer_input(n, 1, &cond, error) ||
        !node_attr_int(n, "axis", G_MININT64, &axis_attr, error))
        return FALSE;
    if (cond->rank != 1)
        return infer_fail(error, n, "condition '%s' must have rank 1, it has rank %d", cond->name, cond->rank);
    if (axis_attr != G_MININT64 && !infer_axis(n, axis_attr, x->rank, &axis, error))
        return FALSE;
    if (!shape_numel(x->rank, x->dims, &numel))
        return infer_fail(error, n, "input '%s' has too many elements", x->name);
    gint64 len = axis < 0 ? (gint64)numel : x->dims[axis];
    gint64 most = MIN(len, cond->dims[0]); /* entries past the condition's end are dropped */
    const Value *v = constant_input(n, 1);
    gint64 size;
    if (v && (gint64)v->n == cond->dims[0]) {
        size = 0;
        for (gint64 k = 0; k < most; k++)
            size += value_get_f(v, (gsize)k) != 0;
    } else {
        size = infer_dynamic_dim(cx, n, 0, most, axis < 0 ? 0 : axis,
                                 "Compress: at most the entries its condition covers");
    }
    if (axis < 0)
        return infer_set_output(n, 0, x->dtype, 1, &size, error);
    gint64 out[MAX_RANK];
    memcpy(out, x->dims, (gsize)x->rank * sizeof(gint64));
    out[axis] = size;
    return infer_set_output(n, 0, x->dtype, x->rank, out, error);
}

/* Unique: Y (the distinct entries, or slices along axis), indices (the first occurrence of each), inverse
 * indices (each entry's place in Y: as long as the input) and counts. */
gboolean infer_unique(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 axis_attr;
    int axis = -1;
    guint64 numel;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "axis", G_MININT64, &axis_attr, error))
        return FALSE;
    if (axis_attr != G_MININT64 && !infer_axis(n, axis_attr, x->rank, &axis, error))
        return FALSE;
    if (!shape_numel(x->rank, x->dims, &numel))
        return infer_fail(error, n, "input '%s' has too many elements", x->name);
    gint64 len = axis < 0 ? (gint64)numel : x->dims[axis];
    const char *why = "Unique: at most its input's entries";
    gint64 distinct = infer_dynamic_dim(cx, n, 0, len, axis < 0 ? 0 : axis, why);
    for (guint k = 1; k < n->outputs->len; k++)
        if (k != 2)
            infer_dynamic_dim(cx, n, k, len, 0, why);
    gint64 y[MAX_RANK];
    if (axis < 0) {
        y[0] = distinct;
    } else {
        memcpy(y, x->dims, (gsize)x->rank * sizeof(gint64));
        y[axis] = distinct;
    }
    return infer_set_output(n, 0, x->dtype, axis < 0 ? 1 : x->rank, y, error) &&
           infer_set_output(n, 1, DT_INT64, 1, &distinct, error) && infer_set_output(n, 2, DT_INT64, 1, &len, error) &&
           infer_set_output(n, 3, DT_INT64, 1, &distinct, error);
}

/* NonMaxSuppression: boxes [batch, boxes, 4], scores [batch, classes, boxes]; selected [kept, 3] rows of
 * (batch, class, box), kept ≤ batch × classes × min(boxes, max_output_boxes_per_class). */
gboolean infer_nms(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *boxes, *scores;
    if (!infer_input(n, 0, &boxes, error) || !infer_input(n, 1, &scores, error))
        return FALSE;
    if (boxes->rank != 3 || boxes->dims[2] != 4 || scores->rank != 3 || scores->dims[0] != boxes->dims[0] ||
        scores->dims[2] != boxes->dims[1])
        return infer_fail(error, n, "boxes '%s' must be [batch, boxes, 4] and scores '%s' [batch, classes, boxes]",
                          boxes->name, scores->name);
    gint64 per_class = boxes->dims[1];
    const Tensor *most_t = node_input(n, 2);
    if (!most_t)
        per_class = 0; /* the default keeps no box */
    else if (most_t->value && most_t->value->n == 1 && !most_t->dynamic)
        per_class = MAX(0, MIN(per_class, value_get_i(most_t->value, 0)));
    guint64 kept;
    if (!graph_size_mul((guint64)boxes->dims[0], (guint64)scores->dims[1], &kept) ||
        !graph_size_mul(kept, (guint64)per_class, &kept) || kept > G_MAXINT64)
        return infer_fail(error, n, "batch x classes x boxes overflows 64 bits");
    gint64 out[2] = {infer_dynamic_dim(cx, n, 0, (gint64)kept, 0,
                                       "NonMaxSuppression: at most batch x classes x boxes kept per class"), 3};
    return infer_set_output(n, 0, DT_INT64, 2, out, error);
}

/* RoiAlign: X [N, C, H, W], rois [num_rois, 4], batch_indices [num_rois]; Y [num_rois, C, output_height,
 * output_width]. */
gboolean infer_roi_align(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x, *rois, *idx;
    gint64 oh, ow;
    if (!infer_input(n, 0, &x, error) || !infer_input(n, 1, &rois, error) || !infer_input(n, 2, &idx, error) ||
        !node_attr_int(n, "output_height", 1, &oh, error) || !node_attr_int(n, "output_width", 1, &ow, error))
        return FALSE;
    if (x->rank != 4 || rois->rank != 2 || rois->dims[1] != 4 || idx->rank != 1 || idx->dims[0] != rois->dims[0])
        return infer_fail(error, n, "X '%s' must be [N, C, H, W], rois '%s' [num_rois, 4] and batch_indices '%s' "
                          "[num_rois]", x->name, rois->name, idx->name);
    if (oh < 1 || ow < 1)
        return infer_fail(error, n, "output_height and output_width must be positive");
    gint64 out[4] = {rois->dims[0], x->dims[1], oh, ow};
    return infer_set_output(n, 0, x->dtype, 4, out, error);
}
