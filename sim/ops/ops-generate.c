/* ops-generate.c — shape inference and folding for ops whose output shape comes from values rather
 * than input shapes: Shape, Size, Constant, ConstantOfShape, Range, Expand, Tile, Pad, Resize/Upsample,
 * EyeLike. These carry the shape arithmetic real exporters emit (Shape -> Gather -> Concat -> Reshape). */
#include "ops/ops-families.h"

#include <math.h>

gboolean infer_shape_op(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 start, end;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "start", 0, &start, error) ||
        !node_attr_int(n, "end", x->rank, &end, error))
        return FALSE;
    if (start < 0)
        start += x->rank;
    if (end < 0)
        end += x->rank;
    start = CLAMP(start, 0, x->rank);
    end = CLAMP(end, 0, x->rank);
    gint64 len = MAX(end - start, 0);
    if (!infer_set_output(n, 0, DT_INT64, 1, &len, error))
        return FALSE;
    Value *v = value_new(DT_INT64, (gsize)len);
    for (gint64 k = 0; k < len; k++)
        v->i[k] = x->dims[start + k];
    infer_set_value(n, 0, v);
    return TRUE;
}

gboolean infer_size_op(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    guint64 numel;
    if (!infer_input(n, 0, &x, error) || !infer_set_output(n, 0, DT_INT64, 0, NULL, error))
        return FALSE;
    shape_numel(x->rank, x->dims, &numel);
    Value *v = value_new(DT_INT64, 1);
    v->i[0] = (gint64)numel;
    infer_set_value(n, 0, v);
    return TRUE;
}

gboolean infer_constant(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    if (n->attrs->len != 1)
        return infer_fail(error, n, "must have exactly one value attribute, it has %u attributes", n->attrs->len);
    const Attr *a = n->attrs->pdata[0];
    if (g_str_equal(a->name, "value") && a->type == ATTR_TENSOR) {
        if (!infer_set_output(n, 0, a->t->dtype, a->t->rank, a->t->dims, error))
            return FALSE;
        Value *v = tensor_data_value(a->t);
        if (v)
            infer_set_value(n, 0, v);
        return TRUE;
    }
    gboolean is_float = g_str_equal(a->name, "value_float") && a->type == ATTR_FLOAT;
    gboolean is_int = g_str_equal(a->name, "value_int") && a->type == ATTR_INT;
    gboolean is_floats = g_str_equal(a->name, "value_floats") && a->type == ATTR_FLOATS;
    gboolean is_ints = g_str_equal(a->name, "value_ints") && a->type == ATTR_INTS;
    if (!is_float && !is_int && !is_floats && !is_ints)
        return infer_fail(error, n, "attribute '%s' of type %s is not a supported Constant value", a->name,
                          attr_type_name(a->type));
    DType dt = (is_float || is_floats) ? DT_FLOAT : DT_INT64;
    gint64 len = is_floats ? (gint64)a->floats->len : is_ints ? (gint64)a->ints->len : 1;
    int rank = (is_float || is_int) ? 0 : 1;
    if (!infer_set_output(n, 0, dt, rank, &len, error))
        return FALSE;
    if (!infer_value_fits(cx, rank, &len))
        return TRUE;
    Value *v = value_new(dt, (gsize)len);
    for (gint64 k = 0; k < len; k++) {
        if (is_float)
            v->f[k] = a->f;
        else if (is_floats)
            v->f[k] = g_array_index(a->floats, float, k);
        else if (is_int)
            v->i[k] = a->i;
        else
            v->i[k] = g_array_index(a->ints, gint64, k);
    }
    infer_set_value(n, 0, v);
    return TRUE;
}

/* A shape given as a 1-D integer value; every entry checked against `min`. */
static gboolean shape_from_value(Node *n, const Value *v, const char *what, gint64 min, int *rank, gint64 *dims,
                                 GError **error)
{
    if (dtype_is_float(v->dtype))
        return infer_fail(error, n, "%s must hold integers, not %s", what, dtype_name(v->dtype));
    if (v->n > MAX_RANK)
        return infer_fail(error, n, "%s has %zu entries (rank beyond %d)", what, v->n, MAX_RANK);
    for (gsize k = 0; k < v->n; k++) {
        dims[k] = v->i[k];
        if (dims[k] < min)
            return infer_fail(error, n, "%s entry %zu is %" G_GINT64_FORMAT, what, k, dims[k]);
    }
    *rank = (int)v->n;
    return TRUE;
}

gboolean infer_constant_of_shape(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    const Value *shape;
    int rank;
    gint64 dims[MAX_RANK];
    if (!infer_input_value_most(cx, n, 0, "shape", &shape, error) ||
        !shape_from_value(n, shape, "shape", 0, &rank, dims, error))
        return FALSE;
    const Attr *a = node_attr(n, "value");
    DType dt = DT_FLOAT;
    Value *fill = NULL;
    if (a) {
        if (a->type != ATTR_TENSOR)
            return infer_fail(error, n, "attribute 'value' must be TENSOR, not %s", attr_type_name(a->type));
        dt = a->t->dtype;
        fill = tensor_data_value(a->t);
        if (!fill || fill->n != 1) {
            value_free(fill);
            return infer_fail(error, n, "attribute 'value' must hold exactly one number");
        }
    }
    if (!infer_set_output(n, 0, dt, rank, dims, error)) {
        value_free(fill);
        return FALSE;
    }
    if (infer_value_fits(cx, rank, dims)) {
        guint64 numel;
        shape_numel(rank, dims, &numel);
        Value *v = value_new(dt, numel);
        for (gsize k = 0; fill && k < numel; k++) /* without a fill value: zeros, as value_new gives */
            value_copy_element(v, k, fill, 0);
        infer_set_value(n, 0, v);
    }
    value_free(fill);
    return TRUE;
}

gboolean infer_range(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    const Value *start, *limit, *delta;
    if (!infer_input_value(n, 0, "start", &start, error) || !infer_input_value(n, 1, "limit", &limit, error) ||
        !infer_input_value(n, 2, "delta", &delta, error))
        return FALSE;
    if (start->n != 1 || limit->n != 1 || delta->n != 1)
        return infer_fail(error, n, "start, limit and delta must be scalars");
    gint64 count;
    if (dtype_is_float(start->dtype)) {
        double s = start->f[0], l = value_get_f(limit, 0), d = value_get_f(delta, 0);
        if (d == 0 || !isfinite(s) || !isfinite(l) || !isfinite(d))
            return infer_fail(error, n, "delta must be non-zero and all bounds finite");
        double c = ceil((l - s) / d);
        if (c > 9.2e18)
            return infer_fail(error, n, "the range has more than 2^63 elements");
        count = c > 0 ? (gint64)c : 0;
    } else {
        gint64 s = start->i[0], l = value_get_i(limit, 0), d = value_get_i(delta, 0);
        if (d == 0)
            return infer_fail(error, n, "delta is 0");
        /* In 128 bits so that extreme int64 bounds cannot overflow. */
        __int128 span = (__int128)l - s;
        __int128 c = d > 0 ? (span + d - 1) / d : (span + d + 1) / d;
        count = c > 0 ? (gint64)MIN(c, (__int128)G_MAXINT64) : 0;
    }
    if (!infer_set_output(n, 0, start->dtype, 1, &count, error))
        return FALSE;
    if (infer_value_fits(cx, 1, &count)) {
        Value *v = value_new(start->dtype, (gsize)count);
        double step_f = value_get_f(delta, 0);
        gint64 step_i = value_get_i(delta, 0);
        for (gint64 k = 0; k < count; k++) {
            if (v->f)
                v->f[k] = start->f[0] + (double)k * step_f;
            else
                v->i[k] = (gint64)((guint64)start->i[0] + (guint64)k * (guint64)step_i); /* in range: no wrap in effect */
        }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

gboolean infer_expand(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *x;
    const Value *shape;
    int rank, out_rank;
    gint64 dims[MAX_RANK], out[MAX_RANK];
    if (!infer_input(n, 0, &x, error) || !infer_input_value_most(cx, n, 1, "shape", &shape, error) ||
        !shape_from_value(n, shape, "shape", 0, &rank, dims, error) ||
        !infer_broadcast(n, x->rank, x->dims, rank, dims, &out_rank, out, error) ||
        !infer_set_output(n, 0, x->dtype, out_rank, out, error))
        return FALSE;
    if (x->value && infer_value_fits(cx, out_rank, out)) {
        guint64 numel;
        shape_numel(out_rank, out, &numel);
        Value *v = value_new(x->dtype, numel);
        for (gsize e = 0; e < numel; e++) {
            gsize s = infer_broadcast_source(out_rank, out, x->rank, x->dims, e);
            value_copy_element(v, e, x->value, s);
        }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

gboolean infer_tile(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *x;
    const Value *rep;
    int rank;
    gint64 reps[MAX_RANK], out[MAX_RANK];
    if (!infer_input(n, 0, &x, error) || !infer_input_value_most(cx, n, 1, "repeats", &rep, error) ||
        !shape_from_value(n, rep, "repeats", 0, &rank, reps, error))
        return FALSE;
    if (rank != x->rank)
        return infer_fail(error, n, "repeats has %d entries for rank %d", rank, x->rank);
    for (int k = 0; k < rank; k++) {
        guint64 d;
        if (!graph_size_mul((guint64)x->dims[k], (guint64)reps[k], &d) || d > G_MAXINT64)
            return infer_fail(error, n, "tiled dimension %d overflows", k);
        out[k] = (gint64)d;
    }
    if (!infer_set_output(n, 0, x->dtype, rank, out, error))
        return FALSE;
    if (x->value && infer_value_fits(cx, rank, out)) {
        guint64 numel;
        shape_numel(rank, out, &numel);
        Value *v = value_new(x->dtype, numel);
        for (gsize e = 0; e < numel; e++) {
            gsize rest = e, src = 0, stride = 1;
            for (int k = rank - 1; k >= 0; k--) {
                gsize idx = rest % (gsize)out[k];
                rest /= (gsize)out[k];
                src += (idx % (gsize)x->dims[k]) * stride;
                stride *= (gsize)x->dims[k];
            }
            value_copy_element(v, e, x->value, src);
        }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

gboolean infer_pad(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    Tensor *x;
    GArray *pads, *axes;
    gboolean have_pads, have_axes;
    if (!infer_input(n, 0, &x, error) ||
        !infer_int_list(n, opset < 11 ? "pads" : NULL, opset < 11 ? -1 : 1, "pads", &pads, &have_pads, error))
        return FALSE;
    if (!have_pads)
        return infer_fail(error, n, "pads are missing");
    if (!infer_int_list(n, NULL, opset >= 18 ? 3 : -1, "axes", &axes, &have_axes, error)) {
        g_array_unref(pads);
        return FALSE;
    }
    int count = have_axes ? (int)axes->len : x->rank;
    int axis_of[MAX_RANK];
    gboolean ok = TRUE;
    if ((int)pads->len != 2 * count)
        ok = infer_fail(error, n, "pads has %u values, expected %d", pads->len, 2 * count);
    for (int k = 0; ok && k < count; k++) {
        if (have_axes)
            ok = infer_axis(n, g_array_index(axes, gint64, k), x->rank, &axis_of[k], error);
        else
            axis_of[k] = k;
    }
    gint64 out[MAX_RANK];
    memcpy(out, x->dims, x->rank * sizeof(gint64));
    for (int k = 0; ok && k < count; k++) {
        gint64 pb = g_array_index(pads, gint64, k), pe = g_array_index(pads, gint64, count + k);
        if (pb > G_MAXINT32 * (gint64)G_MAXINT16 || pe > G_MAXINT32 * (gint64)G_MAXINT16 || pb < -out[axis_of[k]] ||
            pe < -out[axis_of[k]])
            ok = infer_fail(error, n, "pads %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT " are out of range for axis %d",
                            pb, pe, axis_of[k]);
        else
            out[axis_of[k]] += pb + pe;
    }
    g_array_unref(pads);
    if (axes)
        g_array_unref(axes);
    return ok && infer_set_output(n, 0, x->dtype, x->rank, out, error);
}

/* Resize (opset >= 11: X, roi, scales, sizes; opset 10: X, scales) and Upsample (scales, as an input or
 * before opset 9 an attribute). */
static gboolean resize_shape(InferCtx *cx, Node *n, gint64 opset, gboolean upsample, GError **error)
{
    Tensor *x;
    if (!infer_input(n, 0, &x, error))
        return FALSE;
    int scales_at = (opset >= 11 && !upsample) ? 2 : 1;
    Tensor *scales_t = node_input(n, scales_at), *sizes_t = opset >= 11 && !upsample ? node_input(n, 3) : NULL;
    gint64 out[MAX_RANK];
    memcpy(out, x->dims, x->rank * sizeof(gint64));
    const GArray *axes_attr;
    if (!node_attr_ints(n, "axes", &axes_attr, error))
        return FALSE;
    int count = axes_attr ? (int)axes_attr->len : x->rank, axis_of[MAX_RANK];
    for (int k = 0; k < count; k++) {
        if (!axes_attr)
            axis_of[k] = k;
        else if (!infer_axis(n, g_array_index(axes_attr, gint64, k), x->rank, &axis_of[k], error))
            return FALSE;
    }
    const Value *v;
    if (sizes_t && sizes_t->shape_known && sizes_t->rank == 1 && sizes_t->dims[0] > 0) {
        if (!infer_input_value_most(cx, n, 3, "sizes", &v, error))
            return FALSE;
        if ((int)v->n != count)
            return infer_fail(error, n, "sizes has %zu values for %d axes", v->n, count);
        const char *policy;
        if (!node_attr_string(n, "keep_aspect_ratio_policy", "stretch", &policy, error))
            return FALSE;
        gboolean not_larger = !strcmp(policy, "not_larger");
        if (strcmp(policy, "stretch") && !not_larger && strcmp(policy, "not_smaller"))
            return infer_fail(error, n, "keep_aspect_ratio_policy '%s' is not one the operator defines", policy);
        double keep = not_larger ? INFINITY : 0;
        for (int k = 0; k < count; k++) {
            if (value_get_i(v, k) < 0)
                return infer_fail(error, n, "sizes entry %d is negative", k);
            out[axis_of[k]] = value_get_i(v, k);
            double s = x->dims[axis_of[k]] ? (double)value_get_i(v, k) / (double)x->dims[axis_of[k]] : 1;
            keep = not_larger ? MIN(keep, s) : MAX(keep, s);
        }
        /* One scale for every listed axis, each size rounded half up (opset 18). */
        if (strcmp(policy, "stretch"))
            for (int k = 0; k < count; k++)
                out[axis_of[k]] = (gint64)floor(keep * (double)x->dims[axis_of[k]] + 0.5);
        return infer_set_output(n, 0, x->dtype, x->rank, out, error);
    }
    const GArray *scales_attr;
    if (!node_attr_floats(n, "scales", &scales_attr, error))
        return FALSE;
    if (!scales_attr) {
        if (!scales_t || !scales_t->shape_known || (scales_t->rank == 1 && scales_t->dims[0] == 0))
            return infer_fail(error, n, "neither sizes nor scales is given");
        if (!infer_input_value_most(cx, n, (guint)scales_at, "scales", &v, error))
            return FALSE;
    }
    gsize nscales = scales_attr ? scales_attr->len : v->n;
    if ((int)nscales != count)
        return infer_fail(error, n, "scales has %zu values for %d axes", nscales, count);
    for (int k = 0; k < count; k++) {
        double s = scales_attr ? g_array_index(scales_attr, float, k) : value_get_f(v, k);
        double d = floor((double)x->dims[axis_of[k]] * s);
        if (!(s > 0) || !isfinite(d) || d > 9e18)
            return infer_fail(error, n, "scale %g on axis %d is not usable", s, axis_of[k]);
        out[axis_of[k]] = (gint64)d;
    }
    return infer_set_output(n, 0, x->dtype, x->rank, out, error);
}

gboolean infer_resize(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    return resize_shape(cx, n, opset, FALSE, error);
}

gboolean infer_upsample(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    return resize_shape(cx, n, opset, TRUE, error);
}

gboolean infer_eye_like(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 dt;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "dtype", x->dtype, &dt, error))
        return FALSE;
    if (!dtype_is_valid(dt))
        return infer_fail(error, n, "attribute 'dtype' = %" G_GINT64_FORMAT " is not an element type", dt);
    return infer_set_output(n, 0, (DType)dt, x->rank, x->dims, error);
}

/* GridSample(X [N, C, H, W], grid [N, Ho, Wo, 2]): Y [N, C, Ho, Wo], X's type (opset 16's 4-D form). */
gboolean infer_grid_sample(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x, *grid;
    if (!infer_input(n, 0, &x, error) || !infer_input(n, 1, &grid, error))
        return FALSE;
    if (x->rank != 4 || grid->rank != 4 || grid->dims[3] != 2 || grid->dims[0] != x->dims[0])
        return infer_fail(error, n, "GridSample takes X [N, C, H, W] and a grid [N, H_out, W_out, 2] (4-D only)");
    if (!dtype_is_float(x->dtype) || !dtype_is_float(grid->dtype))
        return infer_fail(error, n, "GridSample samples floats");
    const gint64 out[4] = {x->dims[0], x->dims[1], grid->dims[1], grid->dims[2]};
    return infer_set_output(n, 0, x->dtype, 4, out, error);
}
