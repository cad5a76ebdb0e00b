/* ops-conv.c — shape inference for sliding-window ops: Conv, ConvTranspose, MaxPool, AveragePool,
 * LpPool and the global pools. Output sizes follow the ONNX operator specification (auto_pad, pads,
 * strides, dilations, ceil_mode). */
#include "ops/ops-families.h"

#include <string.h>

typedef struct {
    int spatial;
    gint64 kernel[MAX_RANK], stride[MAX_RANK], dilation[MAX_RANK], pad_begin[MAX_RANK], pad_end[MAX_RANK];
    const char *auto_pad;
    gint64 ceil_mode;
} Window;

static gboolean read_list(Node *n, const char *name, int want, gint64 dflt, gint64 min, gint64 *out,
                          GError **error)
{
    const GArray *a;
    if (!node_attr_ints(n, name, &a, error))
        return FALSE;
    if (a && (int)a->len != want)
        return infer_fail(error, n, "attribute '%s' has %u values, expected %d", name, a->len, want);
    for (int k = 0; k < want; k++) {
        out[k] = a ? g_array_index(a, gint64, k) : dflt;
        if (out[k] < min)
            return infer_fail(error, n, "attribute '%s' value %" G_GINT64_FORMAT " is below %" G_GINT64_FORMAT,
                              name, out[k], min);
    }
    return TRUE;
}

/* kernel_from_weight: the weight's spatial dims (Conv) or NULL (pools, where kernel_shape is required). */
static gboolean read_window(Node *n, int spatial, const gint64 *kernel_from_weight, Window *w, GError **error)
{
    memset(w, 0, sizeof(*w));
    w->spatial = spatial;
    const GArray *ks;
    if (!node_attr_ints(n, "kernel_shape", &ks, error))
        return FALSE;
    if (!ks && !kernel_from_weight)
        return infer_fail(error, n, "attribute 'kernel_shape' is required");
    if (ks) {
        if (!read_list(n, "kernel_shape", spatial, 1, 1, w->kernel, error))
            return FALSE;
    } else {
        memcpy(w->kernel, kernel_from_weight, spatial * sizeof(gint64));
    }
    gint64 pads[2 * MAX_RANK];
    if (!read_list(n, "strides", spatial, 1, 1, w->stride, error) ||
        !read_list(n, "dilations", spatial, 1, 1, w->dilation, error) ||
        !read_list(n, "pads", 2 * spatial, 0, 0, pads, error) ||
        !node_attr_string(n, "auto_pad", "NOTSET", &w->auto_pad, error) ||
        !node_attr_int(n, "ceil_mode", 0, &w->ceil_mode, error))
        return FALSE;
    for (int k = 0; k < spatial; k++) {
        w->pad_begin[k] = pads[k];
        w->pad_end[k] = pads[spatial + k];
    }
    if (strcmp(w->auto_pad, "NOTSET") && strcmp(w->auto_pad, "VALID") && strcmp(w->auto_pad, "SAME_UPPER") &&
        strcmp(w->auto_pad, "SAME_LOWER"))
        return infer_fail(error, n, "attribute 'auto_pad' is '%s' (NOTSET, VALID, SAME_UPPER or SAME_LOWER)",
                          w->auto_pad);
    return TRUE;
}

static gint64 div_round(gint64 num, gint64 den, gboolean up) { return num / den + (up && num % den != 0); }

/* a * b + c, FALSE when it leaves 64 bits (hostile attributes: kernel 2^40 with dilation 2^40). */
static gboolean mul_add(gint64 a, gint64 b, gint64 c, gint64 *out)
{
    return !__builtin_mul_overflow(a, b, out) && !__builtin_add_overflow(*out, c, out);
}

static gboolean overflow_fail(GError **error, Node *n, int k)
{
    return infer_fail(error, n, "the window arithmetic on spatial axis %d overflows 64 bits (kernel, dilation, "
                      "stride or pads too large)", k);
}

/* Output extent of a strided window over `in` elements along spatial axis k. */
static gboolean window_out(Node *n, const Window *w, int k, gint64 in, gint64 *out, GError **error)
{
    gint64 eff, padded, span, last_start;
    if (!mul_add(w->kernel[k] - 1, w->dilation[k], 1, &eff))
        return overflow_fail(error, n, k);
    if (!strncmp(w->auto_pad, "SAME", 4)) {
        *out = div_round(in, w->stride[k], TRUE);
        return TRUE;
    }
    gint64 pb = strcmp(w->auto_pad, "VALID") ? w->pad_begin[k] : 0;
    gint64 pe = strcmp(w->auto_pad, "VALID") ? w->pad_end[k] : 0;
    if (__builtin_add_overflow(in, pb, &padded) || __builtin_add_overflow(padded, pe, &padded))
        return overflow_fail(error, n, k);
    span = padded - eff;
    if (span < 0)
        return infer_fail(error, n, "window of %" G_GINT64_FORMAT " (kernel %" G_GINT64_FORMAT ", dilation %"
                          G_GINT64_FORMAT ") is larger than the padded input %" G_GINT64_FORMAT " on spatial axis %d",
                          eff, w->kernel[k], w->dilation[k], padded, k);
    *out = div_round(span, w->stride[k], w->ceil_mode) + 1;
    /* With ceil_mode the last window must start inside the input or the left padding. */
    if (w->ceil_mode && (!mul_add(*out - 1, w->stride[k], 0, &last_start) || last_start >= in + pb))
        (*out)--;
    return TRUE;
}

static gboolean check_spatial(Node *n, Tensor *x, GError **error)
{
    if (x->rank < 3)
        return infer_fail(error, n, "input '%s' must be (N, C, spatial...), but has rank %d", x->name, x->rank);
    return TRUE;
}

/* Conv's and ConvTranspose's optional bias B: ONNX gives it as 1-D of M, one value per output channel. */
static gboolean check_bias_at(const Node *n, guint k, gint64 m, GError **error)
{
    const Tensor *b = node_input(n, k);
    if (!b || !b->shape_known || (b->rank == 1 && b->dims[0] == m))
        return TRUE;
    char *dims = graph_dims_to_string(b->rank, b->dims);
    gboolean ok = infer_fail(error, n, "bias '%s' is %s, but ONNX's %s takes a bias of one value per output channel: "
                             "[%" G_GINT64_FORMAT "]", b->name, dims, n->op_type, m);
    g_free(dims);
    return ok;
}

static gboolean check_bias(const Node *n, gint64 m, GError **error)
{
    return check_bias_at(n, 2, m, error);
}

/* A convolution's output shape from its input x and weight w (inputs xi and wi), its bias at input bi (none:
 * G_MAXUINT), in `dtype` (G_MAXINT: x's): Conv, ConvInteger, QLinearConv. */
static gboolean conv_output(Node *n, guint xi, guint wi, guint bi, gint dtype, GError **error)
{
    Tensor *x, *w;
    gint64 group;
    if (!infer_input(n, xi, &x, error) || !infer_input(n, wi, &w, error) || !check_spatial(n, x, error) ||
        !node_attr_int(n, "group", 1, &group, error))
        return FALSE;
    int spatial = x->rank - 2;
    if (w->rank != x->rank)
        return infer_fail(error, n, "weight '%s' has rank %d, input '%s' rank %d", w->name, w->rank, x->name,
                          x->rank);
    gint64 channels;
    if (group < 1 || __builtin_mul_overflow(w->dims[1], group, &channels) || x->dims[1] != channels)
        return infer_fail(error, n, "input channels %" G_GINT64_FORMAT " != weight channels %" G_GINT64_FORMAT
                          " x group %" G_GINT64_FORMAT, x->dims[1], w->dims[1], group);
    if (w->dims[0] % group)
        return infer_fail(error, n, "group %" G_GINT64_FORMAT " does not divide the weight's %" G_GINT64_FORMAT
                          " output channels (ONNX's Conv: M is a multiple of group)", group, w->dims[0]);
    if (bi != G_MAXUINT && !check_bias_at(n, bi, w->dims[0], error))
        return FALSE;
    Window win;
    if (!read_window(n, spatial, w->dims + 2, &win, error))
        return FALSE;
    gint64 out[MAX_RANK] = {x->dims[0], w->dims[0]};
    for (int k = 0; k < spatial; k++)
        if (!window_out(n, &win, k, x->dims[2 + k], &out[2 + k], error))
            return FALSE;
    return infer_set_output(n, 0, dtype == G_MAXINT ? x->dtype : (DType)dtype, x->rank, out, error);
}

gboolean infer_conv(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    return conv_output(n, 0, 1, 2, G_MAXINT, error);
}

/* ConvInteger(x, w, x_zero_point, w_zero_point): Conv's shape in int32, over uint8 or int8. */
gboolean infer_conv_integer(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    for (guint k = 0; k < 2; k++) {
        Tensor *t;
        if (!infer_input(n, k, &t, error))
            return FALSE;
        if (t->dtype != DT_UINT8 && t->dtype != DT_INT8)
            return infer_fail(error, n, "'%s' is %s: ConvInteger takes uint8 or int8", t->name, dtype_name(t->dtype));
    }
    return conv_output(n, 0, 1, G_MAXUINT, DT_INT32, error);
}

/* QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B): Conv's shape of x and
 * w in y's zero point's type; the bias (int32) one value per output channel. */
gboolean infer_qlinear_conv(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *y_zp, *b = node_input(n, 8);
    if (!infer_input(n, 7, &y_zp, error))
        return FALSE;
    if (b && b->shape_known && b->dtype != DT_INT32)
        return infer_fail(error, n, "the bias '%s' is %s, not int32", b->name, dtype_name(b->dtype));
    return conv_output(n, 0, 3, 8, y_zp->dtype, error);
}

/* FusedConv (sim's own op, --fuse ort): Conv(X, W, B) + Sum, where Sum has the Conv's output shape. */
gboolean infer_fused_conv(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    Tensor *sum, *y;
    if (!infer_conv(cx, op, n, opset, error) || !infer_input(n, 3, &sum, error))
        return FALSE;
    y = node_output(n, 0);
    gboolean same = sum->rank == y->rank && sum->dtype == y->dtype;
    for (int d = 0; same && d < y->rank; d++)
        same = sum->dims[d] == y->dims[d];
    return same ? TRUE : infer_fail(error, n, "the tensor it adds, '%s', does not have its output's type and shape", sum->name);
}

gboolean infer_conv_transpose(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x, *w;
    gint64 group;
    if (!infer_input(n, 0, &x, error) || !infer_input(n, 1, &w, error) || !check_spatial(n, x, error) ||
        !node_attr_int(n, "group", 1, &group, error))
        return FALSE;
    int spatial = x->rank - 2;
    if (w->rank != x->rank || x->dims[1] != w->dims[0] || group < 1)
        return infer_fail(error, n, "weight '%s' does not match input '%s' (channels %" G_GINT64_FORMAT " vs %"
                          G_GINT64_FORMAT ")", w->name, x->name, x->dims[1], w->rank > 0 ? w->dims[0] : -1);
    gint64 m;
    if (w->dims[0] % group)
        return infer_fail(error, n, "group %" G_GINT64_FORMAT " does not divide the weight's %" G_GINT64_FORMAT
                          " input channels (ONNX's ConvTranspose: C is a multiple of group)", group, w->dims[0]);
    if (__builtin_mul_overflow(w->dims[1], group, &m))
        return infer_fail(error, n, "weight channels %" G_GINT64_FORMAT " x group %" G_GINT64_FORMAT
                          " overflow 64 bits", w->dims[1], group);
    if (!check_bias(n, m, error))
        return FALSE;
    Window win;
    gint64 out_pad[MAX_RANK], out_shape[MAX_RANK];
    const GArray *shape_attr;
    if (!read_window(n, spatial, w->dims + 2, &win, error) ||
        !read_list(n, "output_padding", spatial, 0, 0, out_pad, error) ||
        !node_attr_ints(n, "output_shape", &shape_attr, error))
        return FALSE;
    if (shape_attr && !read_list(n, "output_shape", spatial, 0, 1, out_shape, error))
        return FALSE;
    gint64 out[MAX_RANK] = {x->dims[0], m};
    for (int k = 0; k < spatial; k++) {
        gint64 eff, grown;
        gboolean fits = mul_add(win.kernel[k] - 1, win.dilation[k], 1, &eff) &&
                        mul_add(win.stride[k], x->dims[2 + k] - 1, out_pad[k], &grown) &&
                        !__builtin_add_overflow(grown, eff, &grown) && !__builtin_sub_overflow(grown, win.pad_begin[k], &grown) &&
                        !__builtin_sub_overflow(grown, win.pad_end[k], &grown) &&
                        mul_add(x->dims[2 + k], win.stride[k], 0, &out[2 + k]);
        if (!fits)
            return overflow_fail(error, n, k);
        if (shape_attr)
            out[2 + k] = out_shape[k];
        else if (strncmp(win.auto_pad, "SAME", 4))
            out[2 + k] = grown;
    }
    return infer_set_output(n, 0, x->dtype, x->rank, out, error);
}

gboolean infer_pool(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    if (!infer_input(n, 0, &x, error) || !check_spatial(n, x, error))
        return FALSE;
    Window win;
    if (!read_window(n, x->rank - 2, NULL, &win, error))
        return FALSE;
    gint64 out[MAX_RANK] = {x->dims[0], x->dims[1]};
    for (int k = 0; k < x->rank - 2; k++)
        if (!window_out(n, &win, k, x->dims[2 + k], &out[2 + k], error))
            return FALSE;
    /* MaxPool's optional second output holds the argmax indices. */
    return infer_set_output(n, 0, x->dtype, x->rank, out, error) &&
           infer_set_output(n, 1, DT_INT64, x->rank, out, error);
}

gboolean infer_global_pool(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    if (!infer_input(n, 0, &x, error) || !check_spatial(n, x, error))
        return FALSE;
    gint64 out[MAX_RANK];
    for (int k = 0; k < x->rank; k++)
        out[k] = k < 2 ? x->dims[k] : 1;
    return infer_set_output(n, 0, x->dtype, x->rank, out, error);
}

/* Conv's im2col workspace (the executor lowers Conv to im2col + sgemm, one group at a time):
 * (C/group x kernel elements) x output positions floats; none for a 1x1, stride-1, unpadded Conv, which
 * is a plain matrix product. */
guint64 ops_conv_im2col_scratch(const Node *n)
{
    const Tensor *x = node_input(n, 0), *w = node_input(n, 1), *y = node_output(n, 0);
    if (!x || !w || !y || !x->shape_known || !w->shape_known || !y->shape_known || w->rank < 3)
        return 0;
    gboolean direct = TRUE;
    for (int k = 2; k < w->rank; k++)
        direct = direct && w->dims[k] == 1;
    const GArray *strides = NULL, *pads = NULL;
    node_attr_ints(n, "strides", &strides, NULL);
    node_attr_ints(n, "pads", &pads, NULL);
    for (guint k = 0; strides && k < strides->len; k++)
        direct = direct && g_array_index(strides, gint64, k) == 1;
    for (guint k = 0; pads && k < pads->len; k++)
        direct = direct && g_array_index(pads, gint64, k) == 0;
    if (direct)
        return 0;
    guint64 rows = (guint64)w->dims[1], cols = 1, bytes;
    for (int k = 2; k < w->rank; k++)
        rows *= (guint64)w->dims[k];
    for (int k = 2; k < y->rank; k++)
        cols *= (guint64)y->dims[k];
    return graph_size_mul(rows, cols, &bytes) && graph_size_mul(bytes, sizeof(float), &bytes) ? bytes : 0;
}
