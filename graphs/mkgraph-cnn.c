/* mkgraph-cnn.c — convolutional families where Concat joins many live tensors, so operator order and
 * concat layout matter: densenet (dense blocks: each layer reads the concatenation of all earlier
 * outputs), unet (encoder/decoder with skip connections joined by Concat), inception (parallel 1x1,
 * 3x3, 5x5 and pool branches joined by Concat). NCHW float32, weights as shapes only. */
#include "graphs/mkgraph.h"

static const MkParam densenet_params[] = {
    {"blocks", "2", "dense blocks (joined by 1x1 conv + 2x2 average pool)"},
    {"layers", "4", "layers per dense block"},
    {"growth", "32", "channels each layer adds"},
    {"channels", "64", "channels entering the first block"},
    {"size", "32", "input height and width"},
    {NULL, NULL, NULL},
};
static const MkParam unet_params[] = {
    {"depth", "3", "down/up levels"},
    {"channels", "16", "channels at the top level (doubling per level)"},
    {"size", "64", "input height and width (divisible by 2^depth)"},
    {NULL, NULL, NULL},
};
static const MkParam inception_params[] = {
    {"modules", "3", "inception modules in sequence"},
    {"channels", "64", "channels of each branch"},
    {"size", "28", "input height and width"},
    {NULL, NULL, NULL},
};

/* Conv (k x k, stride 1, same padding) + Relu; out_channels from the weight. */
static const char *conv_relu(Builder *b, const char *x, gint64 in_c, gint64 out_c, gint64 k)
{
    gint64 w_dims[4] = {out_c, in_c, k, k}, pad = k / 2, pads[4] = {pad, pad, pad, pad};
    char name[48];
    g_snprintf(name, sizeof name, "conv%d.weight", b->counter);
    const char *w = builder_weight(b, name, DT_FLOAT, 4, w_dims, FALSE);
    const char *y = builder_node(b, "Conv", (const char *const[]){x, w, NULL}, 1, NULL, attr_new_ints("pads", pads, 4), NULL);
    return B_OP(b, "Relu", y);
}

static const char *pool(Builder *b, const char *op, const char *x, gint64 k, gint64 stride, gint64 pad)
{
    gint64 ks[2] = {k, k}, st[2] = {stride, stride}, pads[4] = {pad, pad, pad, pad};
    return builder_node(b, op, (const char *const[]){x, NULL}, 1, NULL, attr_new_ints("kernel_shape", ks, 2),
                  attr_new_ints("strides", st, 2), attr_new_ints("pads", pads, 4), NULL);
}

static const char *concat(Builder *b, const char **inputs, guint n)
{
    const char **list = g_new0(const char *, n + 1);
    for (guint k = 0; k < n; k++)
        list[k] = inputs[k];
    const char *y = builder_node(b, "Concat", list, 1, NULL, attr_new_int("axis", 1), NULL);
    g_free(list);
    return y;
}

static gboolean all_positive(GError **error, const char *family, gint64 a, gint64 b_, gint64 c, gint64 d, gint64 e)
{
    if (*error)
        return FALSE;
    if (a < 1 || b_ < 1 || c < 1 || d < 1 || e < 1) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s needs every parameter >= 1", family);
        return FALSE;
    }
    return TRUE;
}

static Model *build_densenet(const MkParams *p, GError **error)
{
    gint64 blocks = mk_int(p, "blocks", error), layers = mk_int(p, "layers", error), growth = mk_int(p, "growth", error),
           channels = mk_int(p, "channels", error), size = mk_int(p, "size", error);
    if (!all_positive(error, "densenet", blocks, layers, growth, channels, size))
        return NULL;
    Builder *b = builder_new("densenet", 13);
    gint64 dims[4] = {1, channels, size, size};
    const char *x = builder_input(b, "x", DT_FLOAT, 4, dims);
    gint64 c = channels;
    for (gint64 blk = 0; blk < blocks; blk++) {
        const char **features = g_new0(const char *, layers + 1);
        features[0] = x;
        for (gint64 l = 0; l < layers; l++) {
            const char *in = l == 0 ? x : concat(b, features, (guint)l + 1);
            features[l + 1] = conv_relu(b, in, c + l * growth, growth, 3);
        }
        x = concat(b, features, (guint)layers + 1);
        c += layers * growth;
        g_free(features);
        if (blk + 1 < blocks && size >= 2) { /* transition: 1x1 conv halving channels, 2x2 average pool */
            x = pool(b, "AveragePool", conv_relu(b, x, c, c / 2 ? c / 2 : 1, 1), 2, 2, 0);
            c = c / 2 ? c / 2 : 1;
            size /= 2;
        }
    }
    builder_output(b, x);
    return builder_finish(b, error);
}

static Model *build_unet(const MkParams *p, GError **error)
{
    gint64 depth = mk_int(p, "depth", error), channels = mk_int(p, "channels", error), size = mk_int(p, "size", error);
    if (!all_positive(error, "unet", depth, channels, size, 1, 1))
        return NULL;
    if (depth > 16 || size % ((gint64)1 << depth)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "unet needs size divisible by 2^depth");
        return NULL;
    }
    Builder *b = builder_new("unet", 13);
    gint64 dims[4] = {1, 3, size, size};
    const char *x = builder_input(b, "x", DT_FLOAT, 4, dims);
    const char **skips = g_new0(const char *, depth + 1);
    gint64 c_in = 3, c = channels;
    for (gint64 level = 0; level < depth; level++) {
        x = conv_relu(b, x, c_in, c, 3);
        skips[level] = x;
        x = pool(b, "MaxPool", x, 2, 2, 0);
        c_in = c;
        c *= 2;
    }
    x = conv_relu(b, x, c_in, c, 3);
    const float scales[4] = {1, 1, 2, 2};
    builder_node(b, "Constant", (const char *const[]){NULL}, 1, (const char *[]){"up_scales"},
           attr_new_floats("value_floats", scales, 4), NULL);
    for (gint64 level = depth - 1; level >= 0; level--) {
        const char *up = builder_node(b, "Resize", (const char *const[]){x, "", "up_scales", NULL}, 1, NULL,
                                attr_new_string("mode", "nearest"), NULL);
        const char *both[2] = {skips[level], up};
        gint64 skip_c = c / 2;
        x = conv_relu(b, concat(b, both, 2), skip_c + c, skip_c, 3);
        c = skip_c;
    }
    g_free(skips);
    builder_output(b, conv_relu(b, x, c, 1, 1));
    return builder_finish(b, error);
}

static Model *build_inception(const MkParams *p, GError **error)
{
    gint64 modules = mk_int(p, "modules", error), channels = mk_int(p, "channels", error), size = mk_int(p, "size", error);
    if (!all_positive(error, "inception", modules, channels, size, 1, 1))
        return NULL;
    Builder *b = builder_new("inception", 13);
    gint64 dims[4] = {1, channels, size, size};
    const char *x = builder_input(b, "x", DT_FLOAT, 4, dims);
    gint64 c = channels;
    for (gint64 m = 0; m < modules; m++) {
        const char *branches[4] = {
            conv_relu(b, x, c, channels, 1),
            conv_relu(b, conv_relu(b, x, c, channels / 2 ? channels / 2 : 1, 1), channels / 2 ? channels / 2 : 1,
                      channels, 3),
            conv_relu(b, conv_relu(b, x, c, channels / 4 ? channels / 4 : 1, 1), channels / 4 ? channels / 4 : 1,
                      channels, 5),
            conv_relu(b, pool(b, "MaxPool", x, 3, 1, 1), c, channels, 1),
        };
        x = concat(b, branches, 4);
        c = 4 * channels;
    }
    builder_output(b, x);
    return builder_finish(b, error);
}

const MkFamily mk_densenet = {
    .name = "densenet",
    .summary = "dense blocks: each layer concatenates all earlier outputs",
    .params = densenet_params,
    .build = build_densenet,
};
const MkFamily mk_unet = {
    .name = "unet",
    .summary = "encoder/decoder with skip connections joined by Concat",
    .params = unet_params,
    .build = build_unet,
};
const MkFamily mk_inception = {
    .name = "inception",
    .summary = "parallel 1x1/3x3/5x5/pool branches joined by Concat",
    .params = inception_params,
    .build = build_inception,
};
