/* transformer.h — the pieces of a GPT-2-style transformer as torch.onnx.export emits them, shared by
 * the gpt2 and block families: LayerNormalization, attention (QKV MatMul+Add, Split on the last axis,
 * Reshape+Transpose into heads, q.k^T, scale, causal mask by Where, Softmax, .v, Transpose+Reshape),
 * residuals, and the MLP with the 8-op tanh GELU. Weights are shapes only. */
#ifndef MKGRAPH_TRANSFORMER_H
#define MKGRAPH_TRANSFORMER_H

#include "graphs/builder.h"

typedef struct {
    Builder *b;
    gint64 batch, seq, d, heads, head_dim, ffn;
} Transformer;

/* A float weight of shape [rows, cols] (cols 0: a vector of rows), shape only. */
const char *tf_weight(Transformer *g, const char *name, gint64 rows, gint64 cols);
const char *tf_layer_norm(Transformer *g, const char *x, const char *prefix);
/* One pre-norm block: x + attn(ln1(x)), then h + mlp(ln2(h)). Weight names carry h.<layer>. */
const char *tf_block(Transformer *g, const char *x, int layer, const char *mask, const char *mask_fill);
/* The BOOL causal mask [1, 1, seq, seq] as an initializer (TRUE where attention is allowed). */
const char *tf_causal_mask(Transformer *g);

#endif
