/* mkgraph-block.c — one transformer block, the unit of the design log's ordering table
 * (docs/spec.md §4: Toy d=64 s=32, Small 256/128, Medium 512/256, GPT-2 dims 768/512):
 * input x [batch, seq, d] -> the gpt2 family's block (transformer.c) -> output. */
#include "graphs/mkgraph.h"
#include "graphs/transformer.h"

static const MkParam block_params[] = {
    {"d-model", "64", "hidden size"},
    {"seq", "32", "sequence length"},
    {"heads", "4", "attention heads (must divide d-model)"},
    {"ffn", "0", "MLP width (0: 4 x d-model)"},
    {"batch", "1", "batch size"},
    {NULL, NULL, NULL},
};

static Model *build_block(const MkParams *p, GError **error)
{
    GError *bad = NULL;
    Transformer g = {.batch = mk_int(p, "batch", &bad), .seq = mk_int(p, "seq", &bad),
                     .d = mk_int(p, "d-model", &bad), .heads = mk_int(p, "heads", &bad),
                     .ffn = mk_int(p, "ffn", &bad)};
    if (bad) {
        g_propagate_error(error, bad);
        return NULL;
    }
    if (g.batch < 1 || g.seq < 1 || g.d < 1 || g.heads < 1 || g.d % g.heads) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "block needs every size >= 1 and heads dividing d-model");
        return NULL;
    }
    g.head_dim = g.d / g.heads;
    if (g.ffn == 0)
        g.ffn = 4 * g.d;
    g.b = builder_new("block", 17);
    gint64 dims[3] = {g.batch, g.seq, g.d};
    const char *x = builder_input(g.b, "x", DT_FLOAT, 3, dims);
    const char *y = tf_block(&g, x, 0, tf_causal_mask(&g), builder_float_scalar(g.b, "attn.masked_bias", -10000.0f));
    builder_output(g.b, y);
    return builder_finish(g.b, error);
}

const MkFamily mk_block = {
    .name = "block",
    .summary = "one GPT-2 transformer block (the design log's ordering unit)",
    .params = block_params,
    .build = build_block,
};
