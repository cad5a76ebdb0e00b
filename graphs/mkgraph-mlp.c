/* mkgraph-mlp.c — a chain of Linear -> ReLU layers (MatMul + Add + Relu), input [batch, width]. */
#include "graphs/mkgraph.h"

static const MkParam mlp_params[] = {
    {"layers", "4", "Linear -> ReLU layers"},
    {"width", "256", "features of every layer"},
    {"batch", "1", "batch size"},
    {NULL, NULL, NULL},
};

static Model *build_mlp(const MkParams *p, GError **error)
{
    gint64 layers = mk_int(p, "layers", error), width = mk_int(p, "width", error), batch = mk_int(p, "batch", error);
    if (*error || layers < 1 || width < 1 || batch < 1) {
        if (!*error)
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "mlp needs layers, width and batch >= 1");
        return NULL;
    }
    Builder *b = builder_new("mlp", 13);
    gint64 in_dims[2] = {batch, width}, w_dims[2] = {width, width};
    const char *x = builder_input(b, "x", DT_FLOAT, 2, in_dims);
    for (gint64 k = 0; k < layers; k++) {
        char w[32], bias[32];
        g_snprintf(w, sizeof w, "fc%" G_GINT64_FORMAT ".weight", k);
        g_snprintf(bias, sizeof bias, "fc%" G_GINT64_FORMAT ".bias", k);
        const char *y = B_OP(b, "MatMul", x, builder_weight(b, w, DT_FLOAT, 2, w_dims, FALSE));
        x = B_OP(b, "Relu", B_OP(b, "Add", y, builder_weight(b, bias, DT_FLOAT, 1, &width, FALSE)));
    }
    builder_output(b, x);
    return builder_finish(b, error);
}

const MkFamily mk_mlp = {
    .name = "mlp",
    .summary = "Linear -> ReLU chain",
    .params = mlp_params,
    .build = build_mlp,
};
