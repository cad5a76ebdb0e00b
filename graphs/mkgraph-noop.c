/* mkgraph-noop.c — the three graphs of docs/spec.md §1 with its sizes (every tensor 400 B:
 * 100 float32): the chain input -> Reshape -> Transpose -> Unsqueeze (1600 B without aliasing); the
 * branching graph where a Conv output feeds Reshape->Transpose, Unsqueeze->Flatten and a second Conv
 * (2800 B); and the pre-allocated subgraph input -> Reshape -> Transpose -> intermediate -> Conv ->
 * Reshape -> output (2800 B). */
#include "graphs/mkgraph.h"

static const MkParam no_params[] = {{NULL, NULL, NULL}};

static const gint64 img[4] = {1, 1, 10, 10}; /* 100 floats = 400 B */

static const char *conv3x3(Builder *b, const char *x, const char *name, const char *weight)
{
    gint64 w_dims[4] = {1, 1, 3, 3};
    gint64 pads[4] = {1, 1, 1, 1};
    builder_weight(b, weight, DT_FLOAT, 4, w_dims, FALSE);
    return builder_node(b, "Conv", (const char *const[]){x, weight, NULL}, 1, (const char *[]){name},
                  attr_new_ints("pads", pads, 4), NULL);
}

static const char *named(Builder *b, const char *op, const char *name, const char *x, const char *arg, Attr *attr)
{
    return builder_node(b, op, (const char *const[]){x, arg, NULL}, 1, (const char *[]){name}, attr, NULL);
}

static Model *build_chain(const MkParams *p, GError **error)
{
    (void)p;
    Builder *b = builder_new("noop-chain", 13);
    gint64 flat[2] = {10, 10}, axes[1] = {0};
    const char *x = builder_input(b, "input", DT_FLOAT, 4, img);
    x = named(b, "Reshape", "reshape", x, builder_int_vec(b, NULL, 2, flat), NULL);
    x = named(b, "Transpose", "transpose", x, NULL, NULL);
    x = named(b, "Unsqueeze", "unsqueeze", x, builder_int_vec(b, NULL, 1, axes), NULL);
    builder_output(b, x);
    return builder_finish(b, error);
}

static Model *build_branches(const MkParams *p, GError **error)
{
    (void)p;
    Builder *b = builder_new("branches", 13);
    gint64 flat[2] = {10, 10}, axes[1] = {0};
    const char *x = builder_input(b, "x", DT_FLOAT, 4, img);
    const char *in = conv3x3(b, x, "input", "conv1.weight");
    const char *t = named(b, "Transpose", "transpose", named(b, "Reshape", "reshape", in, builder_int_vec(b, NULL, 2, flat), NULL),
                          NULL, NULL);
    const char *f = named(b, "Flatten", "flatten", named(b, "Unsqueeze", "unsqueeze", in, builder_int_vec(b, NULL, 1, axes), NULL),
                          NULL, NULL);
    const char *c = conv3x3(b, in, "conv2_out", "conv2.weight");
    builder_output(b, t);
    builder_output(b, f);
    builder_output(b, c);
    return builder_finish(b, error);
}

static Model *build_pinned(const MkParams *p, GError **error)
{
    (void)p;
    Builder *b = builder_new("pinned", 13);
    gint64 perm[4] = {0, 1, 3, 2}, flat[2] = {1, 100};
    const char *x = builder_input(b, "input", DT_FLOAT, 4, img);
    x = named(b, "Reshape", "reshape1", x, builder_int_vec(b, NULL, 4, img), NULL);
    x = named(b, "Transpose", "transpose1", x, NULL, attr_new_ints("perm", perm, 4));
    x = named(b, "Relu", "intermediate", x, NULL, NULL);
    x = conv3x3(b, x, "conv_out", "conv.weight");
    x = named(b, "Reshape", "reshape2", x, builder_int_vec(b, NULL, 2, flat), NULL);
    x = named(b, "Identity", "output", x, NULL, NULL);
    builder_output(b, x);
    return builder_finish(b, error);
}

const MkFamily mk_noop_chain = {
    .name = "noop-chain",
    .summary = "001 seed: input -> Reshape -> Transpose -> Unsqueeze, 400 B each",
    .params = no_params,
    .build = build_chain,
};
const MkFamily mk_branches = {
    .name = "branches",
    .summary = "001 seed: Conv output feeding Reshape->Transpose, Unsqueeze->Flatten and conv2",
    .params = no_params,
    .build = build_branches,
};
const MkFamily mk_pinned = {
    .name = "pinned",
    .summary = "001 seed example 3: input -> Reshape -> Transpose -> intermediate -> Conv -> "
                            "Reshape -> output (pin input and output with --pin)",
    .params = no_params,
    .build = build_pinned,
};
