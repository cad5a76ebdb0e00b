/* mkgraph-gpt2.c — GPT-2 as torch.onnx.export emits it (opset 17): token and position embeddings
 * through Gather (position ids from the exporter's Shape -> Gather -> Range -> Unsqueeze arithmetic),
 * then per block LayerNormalization, QKV MatMul+Add, Split on the last axis, Reshape+Transpose into
 * heads, q.k^T, scale, causal mask (Where), Softmax, .v, Transpose+Reshape back, projection, residual,
 * LayerNormalization, MLP with the 8-op tanh GELU, residual; final LayerNormalization and the tied
 * logits MatMul (transformer.c builds the blocks). The position table has GPT-2's 1024 rows (or seq,
 * when longer). Weights carry shapes only (the planner needs no weight bytes): the file stays small.
 * Defaults are the published GPT-2 small (12 layers, d 768, 12 heads, vocab 50257), seq 128, batch 1. */
#include "graphs/mkgraph.h"
#include "graphs/transformer.h"

static const MkParam gpt2_params[] = {
    {"layers", "12", "transformer blocks"},
    {"d-model", "768", "hidden size"},
    {"heads", "12", "attention heads (must divide d-model)"},
    {"seq", "128", "sequence length"},
    {"vocab", "50257", "vocabulary size"},
    {"batch", "1", "batch size"},
    {NULL, NULL, NULL},
};

static Model *build_gpt2(const MkParams *p, GError **error)
{
    GError *bad = NULL;
    Transformer g = {.batch = mk_int(p, "batch", &bad), .seq = mk_int(p, "seq", &bad),
                     .d = mk_int(p, "d-model", &bad), .heads = mk_int(p, "heads", &bad)};
    gint64 vocab = mk_int(p, "vocab", &bad), layers = mk_int(p, "layers", &bad);
    if (bad) {
        g_propagate_error(error, bad);
        return NULL;
    }
    if (g.batch < 1 || g.seq < 1 || g.d < 1 || g.heads < 1 || vocab < 1 || layers < 1 || g.d % g.heads) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "gpt2 needs every parameter >= 1 and heads dividing d-model (d-model %" G_GINT64_FORMAT
                    ", heads %" G_GINT64_FORMAT ")", g.d, g.heads);
        return NULL;
    }
    g.head_dim = g.d / g.heads;
    g.ffn = 4 * g.d;
    g.b = builder_new("gpt2", 17);
    Builder *b = g.b;
    gint64 ids_dims[2] = {g.batch, g.seq};
    const char *ids = builder_input(b, "input_ids", DT_INT64, 2, ids_dims);
    const char *tokens = B_OP(b, "Gather", tf_weight(&g, "wte.weight", vocab, g.d), ids);
    /* Position ids as exporters compute them: Range(0, Shape(input_ids)[1], 1), unsqueezed to [1, seq]. */
    gint64 one = 1, zero = 0;
    const char *seq_len = B_OP(b, "Gather", B_OP(b, "Shape", ids), builder_ints(b, NULL, 0, NULL, &one));
    const char *positions = B_OP(b, "Range", builder_ints(b, NULL, 0, NULL, &zero), seq_len, builder_ints(b, NULL, 0, NULL, &one));
    const char *pos_ids = B_OP(b, "Unsqueeze", positions, builder_int_vec(b, NULL, 1, &zero));
    const char *x = B_OP(b, "Add", tokens, B_OP(b, "Gather", tf_weight(&g, "wpe.weight", MAX(1024, g.seq), g.d), pos_ids));
    const char *mask = tf_causal_mask(&g);
    const char *mask_fill = builder_float_scalar(b, "attn.masked_bias", -10000.0f);
    for (int layer = 0; layer < layers; layer++)
        x = tf_block(&g, x, layer, mask, mask_fill);
    const char *final = tf_layer_norm(&g, x, "ln_f");
    /* Tied embeddings: exporters fold wte^T into its own initializer. */
    const char *logits = builder_node(b, "MatMul", (const char *const[]){final, tf_weight(&g, "lm_head.weight", g.d, vocab), NULL},
                                1, (const char *[]){"logits"}, NULL);
    builder_output(b, logits);
    return builder_finish(b, error);
}

const MkFamily mk_gpt2 = {
    .name = "gpt2",
    .summary = "GPT-2 as torch.onnx.export emits it (opset 17), weights as shapes only",
    .params = gpt2_params,
    .build = build_gpt2,
};
