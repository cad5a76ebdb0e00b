/* ops-quantize.c — shape inference of the quantization family (ONNX QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear; MatMulInteger and QLinearMatMul are ops-linalg.c's, ConvInteger and QLinearConv
 * ops-conv.c's, beside the shapes they share): real element sizes, so a quantized graph plans its bytes as it runs
 * them. A scale is one value (per tensor), one per element of the `axis` of x (per axis), or (opset 21's blocked
 * form, `block_size` B) x's shape but along the axis, where each scale serves B consecutive elements: ONNX accepts
 * B from ceil(D / S) to ceil(D / (S - 1)) - 1 for D elements and S scales there. The zero point, when given, has
 * the scale's shape and gives the quantized type. */
#include "ops/ops-families.h"

/* The scale (input 1) and zero point (input 2, optional) of a quantizing op against x: per tensor, along axis or
 * in blocks along it. */
static gboolean check_scale(Node *n, const Tensor *x, GError **error)
{
    Tensor *scale, *zp = node_input(n, 2);
    gint64 block = 0, axis = 1;
    int a = 0;
    if (!infer_input(n, 1, &scale, error) || !node_attr_int(n, "block_size", 0, &block, error) ||
        !node_attr_int(n, "axis", 1, &axis, error))
        return FALSE;
    if (block < 0)
        return infer_fail(error, n, "block_size %" G_GINT64_FORMAT ": a block is a positive number of elements", block);
    if (block > 0) {
        if (!infer_axis(n, axis, x->rank, &a, error))
            return FALSE;
        if (scale->rank != x->rank)
            return infer_fail(error, n, "block_size %" G_GINT64_FORMAT ": the scale '%s' has rank %d, not the rank %d "
                              "of '%s'", block, scale->name, scale->rank, x->rank, x->name);
        for (int d = 0; d < x->rank; d++)
            if (d != a && scale->dims[d] != x->dims[d])
                return infer_fail(error, n, "block_size %" G_GINT64_FORMAT ": the scale '%s' has %" G_GINT64_FORMAT
                                  " along axis %d where '%s' has %" G_GINT64_FORMAT " (blocks are along axis %d alone)",
                                  block, scale->name, scale->dims[d], d, x->name, x->dims[d], a);
        gint64 di = x->dims[a], si = scale->dims[a];
        gint64 least = si > 0 ? (di + si - 1) / si : G_MAXINT64;
        gint64 most = si > 1 ? (di + si - 2) / (si - 1) - 1 : G_MAXINT64;
        if (si < 1 || block < least || block > most)
            return infer_fail(error, n, "block_size %" G_GINT64_FORMAT " with %" G_GINT64_FORMAT " scales along axis "
                              "%d of %" G_GINT64_FORMAT " elements: each scale must serve a block that exists (from %"
                              G_GINT64_FORMAT " to %" G_GINT64_FORMAT ")", block, si, a, di, least, most);
    } else if (scale->rank > 1)
        return infer_fail(error, n, "the scale '%s' has rank %d: a scalar or one value per element of an axis",
                          scale->name, scale->rank);
    if (!block && scale->rank == 1 && scale->dims[0] != 1) { /* one value in a vector is per tensor */
        if (!infer_axis(n, axis, x->rank, &a, error))
            return FALSE;
        if (scale->dims[0] != x->dims[a])
            return infer_fail(error, n, "the scale '%s' has %" G_GINT64_FORMAT " values where axis %d of '%s' has %"
                              G_GINT64_FORMAT, scale->name, scale->dims[0], a, x->name, x->dims[a]);
    }
    if (zp && zp->shape_known &&
        (zp->rank != scale->rank || memcmp(zp->dims, scale->dims, sizeof(gint64) * (gsize)zp->rank) != 0))
        return infer_fail(error, n, "the zero point '%s' does not have the scale's shape", zp->name);
    return TRUE;
}

gboolean infer_quantize_linear(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x, *zp = node_input(n, 2);
    gint64 out = DT_UINT8;
    if (!infer_input(n, 0, &x, error) || !check_scale(n, x, error) ||
        !node_attr_int(n, "output_dtype", DT_UINT8, &out, error))
        return FALSE;
    DType to = zp && zp->shape_known ? zp->dtype : (DType)out;
    if (to != DT_UINT8 && to != DT_INT8 && to != DT_UINT16 && to != DT_INT16)
        return infer_fail(error, n, "quantizes to %s: uint8, int8, uint16 and int16 are supported", dtype_name(to));
    return infer_set_output(n, 0, to, x->rank, x->dims, error);
}

gboolean infer_dequantize_linear(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x, *scale;
    if (!infer_input(n, 0, &x, error) || !check_scale(n, x, error) || !infer_input(n, 1, &scale, error))
        return FALSE;
    if (!dtype_is_float(scale->dtype))
        return infer_fail(error, n, "the scale '%s' is %s, not a float", scale->name, dtype_name(scale->dtype));
    return infer_set_output(n, 0, scale->dtype, x->rank, x->dims, error);
}

gboolean infer_dynamic_quantize_linear(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    if (!infer_input(n, 0, &x, error))
        return FALSE;
    if (x->dtype != DT_FLOAT)
        return infer_fail(error, n, "quantizes '%s' of %s: DynamicQuantizeLinear takes float", x->name,
                          dtype_name(x->dtype));
    return infer_set_output(n, 0, DT_UINT8, x->rank, x->dims, error) &&
           infer_set_output(n, 1, DT_FLOAT, 0, NULL, error) && infer_set_output(n, 2, DT_UINT8, 0, NULL, error);
}

/* ONNX Runtime's QOperator contrib ops (domain com.microsoft): every scale and zero point one value, every quantized
 * tensor of one 8-bit type. */
static gboolean check_qparams(Node *n, const guint *scales, gsize count, GError **error)
{
    for (gsize k = 0; k < count; k++) {
        Tensor *s = node_input(n, scales[k]), *zp = node_input(n, scales[k] + 1);
        if (!s || !s->shape_known)
            return infer_fail(error, n, "input %u, a scale, is missing", scales[k]);
        guint64 numel = 0;
        if (!shape_numel(s->rank, s->dims, &numel) || numel != 1 || !dtype_is_float(s->dtype))
            return infer_fail(error, n, "the scale '%s' is not one float value (ONNX Runtime's QLinear ops quantize "
                              "per tensor)", s->name);
        if (zp && zp->shape_known && (!shape_numel(zp->rank, zp->dims, &numel) || numel != 1))
            return infer_fail(error, n, "the zero point '%s' is not one value", zp->name);
    }
    return TRUE;
}

static gboolean check_8bit(Node *n, const Tensor *x, GError **error)
{
    if (x->dtype != DT_UINT8 && x->dtype != DT_INT8)
        return infer_fail(error, n, "'%s' is %s: ONNX Runtime's QLinear ops take uint8 or int8", x->name,
                          dtype_name(x->dtype));
    return TRUE;
}

gboolean infer_qlinear_binary(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *a, *b;
    int rank;
    gint64 dims[MAX_RANK];
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 3, &b, error) || !check_8bit(n, a, error) ||
        !check_qparams(n, (const guint[]){1, 4, 6}, 3, error) ||
        !infer_broadcast(n, a->rank, a->dims, b->rank, b->dims, &rank, dims, error))
        return FALSE;
    if (b->dtype != a->dtype)
        return infer_fail(error, n, "'%s' is %s and '%s' %s: one quantized type", a->name, dtype_name(a->dtype),
                          b->name, dtype_name(b->dtype));
    return infer_set_output(n, 0, a->dtype, rank, dims, error);
}

gboolean infer_qlinear_unary(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    return infer_input(n, 0, &x, error) && check_8bit(n, x, error) &&
           check_qparams(n, (const guint[]){1, 3}, 2, error) &&
           infer_set_output(n, 0, x->dtype, x->rank, x->dims, error);
}

/* QLinearWhere: condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point: Where of two
 * quantized tensors into a third scale, the three broadcast. */
gboolean infer_qlinear_where(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *c, *x, *y;
    gint64 d1[MAX_RANK], d2[MAX_RANK];
    int r1, r2;
    if (!infer_input(n, 0, &c, error) || !infer_input(n, 1, &x, error) || !infer_input(n, 4, &y, error) ||
        !check_8bit(n, x, error) || !check_qparams(n, (const guint[]){2, 5, 7}, 3, error))
        return FALSE;
    if (c->dtype != DT_BOOL)
        return infer_fail(error, n, "the condition '%s' is %s, not bool", c->name, dtype_name(c->dtype));
    if (y->dtype != x->dtype)
        return infer_fail(error, n, "'%s' is %s and '%s' %s: one quantized type", x->name, dtype_name(x->dtype),
                          y->name, dtype_name(y->dtype));
    return infer_broadcast(n, c->rank, c->dims, x->rank, x->dims, &r1, d1, error) &&
           infer_broadcast(n, r1, d1, y->rank, y->dims, &r2, d2, error) &&
           infer_set_output(n, 0, x->dtype, r2, d2, error);
}

/* QLinearSoftmax: X, X_scale, x_zero_point, y_scale, y_zero_point; attribute `opset` (the Softmax it stands for: below
 * 13 over every axis from `axis` on, from 13 along `axis` alone) required, `axis` in the input's range. */
gboolean infer_qlinear_softmax(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 softmax_opset, axis;
    if (!infer_input(n, 0, &x, error) || !check_8bit(n, x, error) ||
        !check_qparams(n, (const guint[]){1, 3}, 2, error) || !node_attr_int(n, "opset", -1, &softmax_opset, error))
        return FALSE;
    if (softmax_opset < 1)
        return infer_fail(error, n, "attribute 'opset' (the Softmax it stands for) is missing or below 1");
    if (!node_attr_int(n, "axis", softmax_opset < 13 ? 1 : -1, &axis, error))
        return FALSE;
    if (axis < -x->rank || axis >= x->rank)
        return infer_fail(error, n, "axis %" G_GINT64_FORMAT " is outside the input's rank %d", axis, x->rank);
    return infer_set_output(n, 0, x->dtype, x->rank, x->dims, error);
}

gboolean infer_qlinear_global_average_pool(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 last = 0, dims[MAX_RANK];
    if (!infer_input(n, 0, &x, error) || !check_8bit(n, x, error) ||
        !check_qparams(n, (const guint[]){1, 3}, 2, error) || !node_attr_int(n, "channels_last", 0, &last, error))
        return FALSE;
    if (x->rank < 3)
        return infer_fail(error, n, "'%s' has rank %d: N, C and at least one spatial axis", x->name, x->rank);
    for (int k = 0; k < x->rank; k++) /* N and C kept, every spatial axis 1 */
        dims[k] = k == 0 || k == (last ? x->rank - 1 : 1) ? x->dims[k] : 1;
    return infer_set_output(n, 0, x->dtype, x->rank, dims, error);
}

gboolean infer_qlinear_concat(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *first, *y_scale;
    gint64 axis_attr, dims[MAX_RANK];
    int axis;
    if ((n->inputs->len - 2) % 3)
        return infer_fail(error, n, "%u inputs: Y_scale, Y_zero_point, then X, X_scale, X_zero_point per input",
                          n->inputs->len);
    if (!node_attr(n, "axis"))
        return infer_fail(error, n, "attribute 'axis' is required");
    if (!infer_input(n, 0, &y_scale, error) || !infer_input(n, 2, &first, error) || !check_8bit(n, first, error) ||
        !check_qparams(n, (const guint[]){0}, 1, error) || !node_attr_int(n, "axis", 0, &axis_attr, error) ||
        !infer_axis(n, axis_attr, first->rank, &axis, error))
        return FALSE;
    memcpy(dims, first->dims, sizeof(gint64) * (gsize)first->rank);
    dims[axis] = 0;
    for (guint k = 2; k < n->inputs->len; k += 3) {
        Tensor *t;
        if (!infer_input(n, k, &t, error) || !check_qparams(n, (const guint[]){k + 1}, 1, error))
            return FALSE;
        if (t->rank != first->rank || t->dtype != first->dtype)
            return infer_fail(error, n, "'%s' is %s of rank %d, '%s' %s of rank %d", t->name, dtype_name(t->dtype),
                              t->rank, first->name, dtype_name(first->dtype), first->rank);
        for (int d = 0; d < t->rank; d++)
            if (d != axis && t->dims[d] != first->dims[d])
                return infer_fail(error, n, "'%s' has size %" G_GINT64_FORMAT " on axis %d, '%s' has %" G_GINT64_FORMAT
                                  " (only axis %d may differ)", t->name, t->dims[d], d, first->name, first->dims[d],
                                  axis);
        dims[axis] += t->dims[axis];
    }
    return infer_set_output(n, 0, first->dtype, first->rank, dims, error);
}

gboolean infer_qlinear_average_pool(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    Tensor *x;
    gint64 last = 0;
    if (!infer_input(n, 0, &x, error) || !check_8bit(n, x, error) ||
        !check_qparams(n, (const guint[]){1, 3}, 2, error) || !node_attr_int(n, "channels_last", 0, &last, error))
        return FALSE;
    if (last)
        return infer_fail(error, n, "channels_last: only NCHW is supported (ONNX Runtime's quantizer writes NCHW)");
    return infer_pool(cx, op, n, opset, error); /* AveragePool's window over input 0, its type kept */
}

gboolean infer_qgemm(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *a, *b, *c = node_input(n, 6), *ys = node_input(n, 7), *yz = node_input(n, 8);
    gint64 out[2];
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 3, &b, error) || !check_8bit(n, a, error) ||
        !check_8bit(n, b, error) || !check_qparams(n, (const guint[]){1}, 1, error) ||
        (ys && !check_qparams(n, (const guint[]){7}, 1, error)) || !ops_linalg_gemm_shape(n, a, b, out, error))
        return FALSE;
    gint64 nn = out[1];
    Tensor *bs = node_input(n, 4), *bz = node_input(n, 5);
    guint64 scales = 0, zeros = 1;
    if (!bs || !bs->shape_known || !shape_numel(bs->rank, bs->dims, &scales) || (scales != 1 && (gint64)scales != nn))
        return infer_fail(error, n, "b_scale is neither one value nor one per output column");
    if (bz && (!bz->shape_known || !shape_numel(bz->rank, bz->dims, &zeros) || (zeros != 1 && (gint64)zeros != nn)))
        return infer_fail(error, n, "b_zero_point is neither one value nor one per output column");
    if (c && c->shape_known && (c->dtype != DT_INT32 || c->rank > 1 || (c->rank == 1 && c->dims[0] != nn)))
        return infer_fail(error, n, "the bias '%s' is not one int32 per output column (or one for all)", c->name);
    DType to = !ys ? DT_FLOAT : yz && yz->shape_known ? yz->dtype : a->dtype;
    return infer_set_output(n, 0, to, 2, out, error);
}
