/* ops-quantize.c — shape inference of the quantization family (ONNX QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear; MatMulInteger and QLinearMatMul are ops-linalg.c's, ConvInteger and QLinearConv
 * ops-conv.c's, beside the shapes they share): real element sizes, so a quantized graph plans its bytes as it runs
 * them. A scale is one value (per tensor) or one per element of the `axis` of x (per axis); the zero point, when
 * given, has the scale's shape and gives the quantized type. Opset 21's blocked form (block_size) is refused. */
#include "ops/ops-families.h"

/* The scale (input 1) and zero point (input 2, optional) of a quantizing op against x: per tensor or along axis. */
static gboolean check_scale(Node *n, const Tensor *x, GError **error)
{
    Tensor *scale, *zp = node_input(n, 2);
    gint64 block = 0, axis = 1;
    int a = 0;
    if (!infer_input(n, 1, &scale, error) || !node_attr_int(n, "block_size", 0, &block, error) ||
        !node_attr_int(n, "axis", 1, &axis, error))
        return FALSE;
    if (block)
        return infer_fail(error, n, "block_size %" G_GINT64_FORMAT ": blocked quantization is not supported", block);
    if (scale->rank > 1)
        return infer_fail(error, n, "the scale '%s' has rank %d: a scalar or one value per element of an axis",
                          scale->name, scale->rank);
    if (scale->rank == 1 && scale->dims[0] != 1) { /* one value in a vector is per tensor */
        if (!infer_axis(n, axis, x->rank, &a, error))
            return FALSE;
        if (scale->dims[0] != x->dims[a])
            return infer_fail(error, n, "the scale '%s' has %" G_GINT64_FORMAT " values where axis %d of '%s' has %"
                              G_GINT64_FORMAT, scale->name, scale->dims[0], a, x->name, x->dims[a]);
    }
    if (zp && zp->shape_known &&
        (zp->rank != scale->rank || (zp->rank == 1 && zp->dims[0] != scale->dims[0])))
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
