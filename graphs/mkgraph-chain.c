/* mkgraph-chain.c — long single-op chains for the scaling benchmark (bench/plan-scaling.sh): Identity
 * (every output a noop view of the one before) and Relu (every output may reuse its input in place), input
 * [1, width]. A 200,000-node chain is a normal input; every phase must stay near O(n log n) on it. */
#include "graphs/mkgraph.h"

static const MkParam chain_params[] = {
    {"nodes", "100", "nodes in the chain"},
    {"width", "64", "floats per tensor"},
    {NULL, NULL, NULL},
};

static Model *build_chain(const MkParams *p, const char *op, GError **error)
{
    gint64 nodes = mk_int(p, "nodes", error), width = mk_int(p, "width", error);
    if (*error || nodes < 1 || width < 1) {
        if (!*error)
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "a chain needs nodes and width >= 1");
        return NULL;
    }
    Builder *b = builder_new(op, 13);
    gint64 dims[2] = {1, width};
    const char *x = builder_input(b, "x", DT_FLOAT, 2, dims);
    for (gint64 k = 0; k < nodes; k++)
        x = B_OP(b, op, x);
    builder_output(b, x);
    return builder_finish(b, error);
}

static Model *build_identity_chain(const MkParams *p, GError **error) { return build_chain(p, "Identity", error); }
static Model *build_relu_chain(const MkParams *p, GError **error) { return build_chain(p, "Relu", error); }

const MkFamily mk_identity_chain = {
    .name = "identity-chain",
    .summary = "N Identity nodes in a row (noop views all the way down)",
    .params = chain_params,
    .build = build_identity_chain,
};

const MkFamily mk_relu_chain = {
    .name = "relu-chain",
    .summary = "N Relu nodes in a row (each may reuse its input in place)",
    .params = chain_params,
    .build = build_relu_chain,
};
