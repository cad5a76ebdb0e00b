/* mkgraph-gpt2.c — GPT-2 as torch.onnx.export emits it (opset 17): token and position embeddings
 * through Gather (position ids from the exporter's Shape -> Gather -> Range -> Unsqueeze arithmetic),
 * then per block LayerNormalization, QKV MatMul+Add, Split on the last axis, Reshape+Transpose into
 * heads, q.k^T, scale, causal mask (Where), Softmax, .v, Transpose+Reshape back, projection, residual,
 * LayerNormalization, MLP with the 8-op tanh GELU, residual; final LayerNormalization and the tied
 * logits MatMul. The position table has GPT-2's 1024 rows (or seq, when longer). Weights carry shapes only (the planner needs no weight bytes): the file stays small.
 * Defaults are the published GPT-2 small (12 layers, d 768, 12 heads, vocab 50257), seq 128, batch 1. */
#include "mkgraph.h"

#include <math.h>

static const MkParam gpt2_params[] = {
    {"layers", 12, "transformer blocks"},
    {"d-model", 768, "hidden size"},
    {"heads", 12, "attention heads (must divide d-model)"},
    {"seq", 128, "sequence length"},
    {"vocab", 50257, "vocabulary size"},
    {"batch", 1, "batch size"},
    {NULL, 0, NULL},
};

typedef struct {
    Builder *b;
    gint64 batch, seq, d, heads, head_dim, vocab;
} Gpt2;

static const char *weight(Gpt2 *g, const char *name, gint64 rows, gint64 cols)
{
    gint64 dims[2] = {rows, cols};
    return b_weight(g->b, name, DT_FLOAT, cols ? 2 : 1, dims, FALSE);
}

static const char *layer_norm(Gpt2 *g, const char *x, const char *prefix)
{
    char *gamma = g_strdup_printf("%s.weight", prefix), *beta = g_strdup_printf("%s.bias", prefix);
    const char *y = b_node(g->b, "LayerNormalization",
                           (const char *const[]){x, weight(g, gamma, g->d, 0), weight(g, beta, g->d, 0), NULL}, 1,
                           NULL, attr_new_int("axis", -1), attr_new_float("epsilon", 1e-5f), NULL);
    g_free(gamma);
    g_free(beta);
    return y;
}

/* x . W + b, as Conv1D layers export: MatMul then Add of the bias. */
static const char *linear(Gpt2 *g, const char *x, const char *prefix, gint64 in, gint64 out)
{
    char *w = g_strdup_printf("%s.weight", prefix), *bias = g_strdup_printf("%s.bias", prefix);
    const char *y = B_OP(g->b, "Add", B_OP(g->b, "MatMul", x, weight(g, w, in, out)), weight(g, bias, out, 0));
    g_free(w);
    g_free(bias);
    return y;
}

static const char *transpose(Gpt2 *g, const char *x, gint64 a, gint64 b, gint64 c, gint64 d)
{
    gint64 perm[4] = {a, b, c, d};
    return B_OPA(g->b, "Transpose", attr_new_ints("perm", perm, 4), x);
}

/* 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))): Pow, Mul, Add, Mul, Tanh, Add, Mul, Mul. */
static const char *gelu_tanh(Gpt2 *g, const char *x)
{
    Builder *b = g->b;
    const char *cube = B_OP(b, "Pow", x, b_float_scalar(b, NULL, 3.0f));
    const char *inner = B_OP(b, "Add", x, B_OP(b, "Mul", cube, b_float_scalar(b, NULL, 0.044715f)));
    const char *t = B_OP(b, "Tanh", B_OP(b, "Mul", inner, b_float_scalar(b, NULL, (float)sqrt(2.0 / G_PI))));
    const char *half_x = B_OP(b, "Mul", x, B_OP(b, "Add", t, b_float_scalar(b, NULL, 1.0f)));
    return B_OP(b, "Mul", half_x, b_float_scalar(b, NULL, 0.5f));
}

static const char *attention(Gpt2 *g, const char *x, int layer, const char *mask, const char *mask_fill)
{
    Builder *b = g->b;
    char prefix[64];
    g_snprintf(prefix, sizeof prefix, "h.%d.attn.c_attn", layer);
    const char *qkv = linear(g, x, prefix, g->d, 3 * g->d);
    gint64 split[3] = {g->d, g->d, g->d};
    const char *parts[3] = {NULL, NULL, NULL};
    b_node(b, "Split", (const char *const[]){qkv, b_int_vec(b, NULL, 3, split), NULL}, 3, parts,
           attr_new_int("axis", 2), NULL);
    gint64 heads_shape[4] = {0, 0, g->heads, g->head_dim};
    const char *q = transpose(g, B_OP(b, "Reshape", parts[0], b_int_vec(b, NULL, 4, heads_shape)), 0, 2, 1, 3);
    const char *kt = transpose(g, B_OP(b, "Reshape", parts[1], b_int_vec(b, NULL, 4, heads_shape)), 0, 2, 3, 1);
    const char *v = transpose(g, B_OP(b, "Reshape", parts[2], b_int_vec(b, NULL, 4, heads_shape)), 0, 2, 1, 3);
    const char *scores = B_OP(b, "Div", B_OP(b, "MatMul", q, kt), b_float_scalar(b, NULL, sqrtf((float)g->head_dim)));
    const char *masked = B_OP(b, "Where", mask, scores, mask_fill);
    const char *probs = B_OPA(b, "Softmax", attr_new_int("axis", -1), masked);
    const char *ctx = transpose(g, B_OP(b, "MatMul", probs, v), 0, 2, 1, 3);
    gint64 merged_shape[3] = {0, 0, g->d};
    const char *merged = B_OP(b, "Reshape", ctx, b_int_vec(b, NULL, 3, merged_shape));
    g_snprintf(prefix, sizeof prefix, "h.%d.attn.c_proj", layer);
    return linear(g, merged, prefix, g->d, g->d);
}

static const char *block(Gpt2 *g, const char *x, int layer, const char *mask, const char *mask_fill)
{
    char prefix[64];
    g_snprintf(prefix, sizeof prefix, "h.%d.ln_1", layer);
    const char *h = B_OP(g->b, "Add", x, attention(g, layer_norm(g, x, prefix), layer, mask, mask_fill));
    g_snprintf(prefix, sizeof prefix, "h.%d.ln_2", layer);
    const char *ln2 = layer_norm(g, h, prefix);
    g_snprintf(prefix, sizeof prefix, "h.%d.mlp.c_fc", layer);
    const char *fc = gelu_tanh(g, linear(g, ln2, prefix, g->d, 4 * g->d));
    g_snprintf(prefix, sizeof prefix, "h.%d.mlp.c_proj", layer);
    return B_OP(g->b, "Add", h, linear(g, fc, prefix, 4 * g->d, g->d));
}

/* The causal mask as a BOOL constant [1, 1, seq, seq]: TRUE where attention is allowed. */
static const char *causal_mask(Gpt2 *g)
{
    gint64 dims[4] = {1, 1, g->seq, g->seq};
    TensorData *t = tensor_data_new("attn.causal_mask", DT_BOOL, 4, dims);
    guint8 *bits = g_malloc(g->seq * g->seq);
    for (gint64 r = 0; r < g->seq; r++)
        for (gint64 c = 0; c < g->seq; c++)
            bits[r * g->seq + c] = c <= r;
    t->raw = g_bytes_new_take(bits, g->seq * g->seq);
    if (g->b->error) {
        tensor_data_free(t);
        return NULL;
    }
    if (!graph_add_initializer(g->b->graph, t, &g->b->error))
        return NULL;
    return "attn.causal_mask";
}

static Model *build_gpt2(const MkParams *p, GError **error)
{
    Gpt2 g = {.batch = mk_param(p, "batch"), .seq = mk_param(p, "seq"), .d = mk_param(p, "d-model"),
              .heads = mk_param(p, "heads"), .vocab = mk_param(p, "vocab")};
    gint64 layers = mk_param(p, "layers");
    if (g.batch < 1 || g.seq < 1 || g.d < 1 || g.heads < 1 || g.vocab < 1 || layers < 1 || g.d % g.heads) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "gpt2 needs every parameter >= 1 and heads dividing d-model (d-model %" G_GINT64_FORMAT
                    ", heads %" G_GINT64_FORMAT ")", g.d, g.heads);
        return NULL;
    }
    g.head_dim = g.d / g.heads;
    g.b = builder_new("gpt2", 17);
    Builder *b = g.b;
    gint64 ids_dims[2] = {g.batch, g.seq};
    const char *ids = b_input(b, "input_ids", DT_INT64, 2, ids_dims);
    const char *tokens = B_OP(b, "Gather", weight(&g, "wte.weight", g.vocab, g.d), ids);
    /* Position ids as exporters compute them: Range(0, Shape(input_ids)[1], 1), unsqueezed to [1, seq]. */
    gint64 one = 1, zero = 0;
    const char *seq_len = B_OP(b, "Gather", B_OP(b, "Shape", ids), b_ints(b, NULL, 0, NULL, &one));
    const char *positions = B_OP(b, "Range", b_ints(b, NULL, 0, NULL, &zero), seq_len, b_ints(b, NULL, 0, NULL, &one));
    const char *pos_ids = B_OP(b, "Unsqueeze", positions, b_int_vec(b, NULL, 1, &zero));
    const char *x = B_OP(b, "Add", tokens, B_OP(b, "Gather", weight(&g, "wpe.weight", MAX(1024, g.seq), g.d), pos_ids));
    const char *mask = causal_mask(&g);
    const char *mask_fill = b_float_scalar(b, "attn.masked_bias", -10000.0f);
    for (int layer = 0; layer < layers; layer++)
        x = block(&g, x, layer, mask, mask_fill);
    const char *final = layer_norm(&g, x, "ln_f");
    /* Tied embeddings: exporters fold wte^T into its own initializer. */
    const char *logits = b_node(b, "MatMul", (const char *const[]){final, weight(&g, "lm_head.weight", g.d, g.vocab), NULL},
                                1, (const char *[]){"logits"}, NULL);
    b_output(b, logits);
    return builder_finish(b, error);
}

const MkFamily mk_gpt2 = {
    .name = "gpt2",
    .summary = "GPT-2 as torch.onnx.export emits it (opset 17), weights as shapes only",
    .params = gpt2_params,
    .build = build_gpt2,
};
