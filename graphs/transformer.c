/* transformer.c — transformer building blocks for mkgraph (see transformer.h). */
#include "graphs/transformer.h"

#include <math.h>


const char *tf_weight(Transformer *g, const char *name, gint64 rows, gint64 cols)
{
    gint64 dims[2] = {rows, cols};
    return builder_weight(g->b, name, DT_FLOAT, cols ? 2 : 1, dims, FALSE);
}

const char *tf_layer_norm(Transformer *g, const char *x, const char *prefix)
{
    char *gamma = g_strdup_printf("%s.weight", prefix), *beta = g_strdup_printf("%s.bias", prefix);
    const char *y = builder_node(g->b, "LayerNormalization",
                           (const char *const[]){x, tf_weight(g, gamma, g->d, 0), tf_weight(g, beta, g->d, 0), NULL}, 1,
                           NULL, attr_new_int("axis", -1), attr_new_float("epsilon", 1e-5f), NULL);
    g_free(gamma);
    g_free(beta);
    return y;
}

/* x . W + b, as Conv1D layers export: MatMul then Add of the bias. */
static const char *linear(Transformer *g, const char *x, const char *prefix, gint64 in, gint64 out)
{
    char *w = g_strdup_printf("%s.weight", prefix), *bias = g_strdup_printf("%s.bias", prefix);
    const char *y = B_OP(g->b, "Add", B_OP(g->b, "MatMul", x, tf_weight(g, w, in, out)), tf_weight(g, bias, out, 0));
    g_free(w);
    g_free(bias);
    return y;
}

static const char *transpose(Transformer *g, const char *x, gint64 a, gint64 b, gint64 c, gint64 d)
{
    gint64 perm[4] = {a, b, c, d};
    return B_OPA(g->b, "Transpose", attr_new_ints("perm", perm, 4), x);
}

/* 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))): Pow, Mul, Add, Mul, Tanh, Add, Mul, Mul. */
static const char *gelu_tanh(Transformer *g, const char *x)
{
    Builder *b = g->b;
    const char *cube = B_OP(b, "Pow", x, builder_float_scalar(b, NULL, 3.0f));
    const char *inner = B_OP(b, "Add", x, B_OP(b, "Mul", cube, builder_float_scalar(b, NULL, 0.044715f)));
    const char *t = B_OP(b, "Tanh", B_OP(b, "Mul", inner, builder_float_scalar(b, NULL, (float)sqrt(2.0 / G_PI))));
    const char *half_x = B_OP(b, "Mul", x, B_OP(b, "Add", t, builder_float_scalar(b, NULL, 1.0f)));
    return B_OP(b, "Mul", half_x, builder_float_scalar(b, NULL, 0.5f));
}

static const char *attention(Transformer *g, const char *x, int layer, const char *mask, const char *mask_fill)
{
    Builder *b = g->b;
    char prefix[64];
    g_snprintf(prefix, sizeof prefix, "h.%d.attn.c_attn", layer);
    const char *qkv = linear(g, x, prefix, g->d, 3 * g->d);
    gint64 split[3] = {g->d, g->d, g->d};
    const char *parts[3] = {NULL, NULL, NULL};
    builder_node(b, "Split", (const char *const[]){qkv, builder_int_vec(b, NULL, 3, split), NULL}, 3, parts,
           attr_new_int("axis", 2), NULL);
    gint64 heads_shape[4] = {0, 0, g->heads, g->head_dim};
    const char *q = transpose(g, B_OP(b, "Reshape", parts[0], builder_int_vec(b, NULL, 4, heads_shape)), 0, 2, 1, 3);
    const char *kt = transpose(g, B_OP(b, "Reshape", parts[1], builder_int_vec(b, NULL, 4, heads_shape)), 0, 2, 3, 1);
    const char *v = transpose(g, B_OP(b, "Reshape", parts[2], builder_int_vec(b, NULL, 4, heads_shape)), 0, 2, 1, 3);
    const char *scores = B_OP(b, "Div", B_OP(b, "MatMul", q, kt), builder_float_scalar(b, NULL, sqrtf((float)g->head_dim)));
    const char *masked = B_OP(b, "Where", mask, scores, mask_fill);
    const char *probs = B_OPA(b, "Softmax", attr_new_int("axis", -1), masked);
    const char *ctx = transpose(g, B_OP(b, "MatMul", probs, v), 0, 2, 1, 3);
    gint64 merged_shape[3] = {0, 0, g->d};
    const char *merged = B_OP(b, "Reshape", ctx, builder_int_vec(b, NULL, 3, merged_shape));
    g_snprintf(prefix, sizeof prefix, "h.%d.attn.c_proj", layer);
    return linear(g, merged, prefix, g->d, g->d);
}

const char *tf_block(Transformer *g, const char *x, int layer, const char *mask, const char *mask_fill)
{
    char prefix[64];
    g_snprintf(prefix, sizeof prefix, "h.%d.ln_1", layer);
    const char *h = B_OP(g->b, "Add", x, attention(g, tf_layer_norm(g, x, prefix), layer, mask, mask_fill));
    g_snprintf(prefix, sizeof prefix, "h.%d.ln_2", layer);
    const char *ln2 = tf_layer_norm(g, h, prefix);
    g_snprintf(prefix, sizeof prefix, "h.%d.mlp.c_fc", layer);
    const char *fc = gelu_tanh(g, linear(g, ln2, prefix, g->d, g->ffn));
    g_snprintf(prefix, sizeof prefix, "h.%d.mlp.c_proj", layer);
    return B_OP(g->b, "Add", h, linear(g, fc, prefix, g->ffn, g->d));
}

/* The causal mask as a BOOL constant [1, 1, seq, seq]: TRUE where attention is allowed. */
const char *tf_causal_mask(Transformer *g)
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

