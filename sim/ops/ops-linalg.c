/* ops-linalg.c — shape inference for matrix products: MatMul (numpy matmul semantics), Gemm and Einsum
 * (its equation read by einsum.c). */
#include "ops/einsum.h"
#include "ops/ops-families.h"

gboolean infer_einsum(const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    const char *equation;
    if (!node_attr_string(n, "equation", NULL, &equation, error))
        return FALSE;
    if (!equation)
        return infer_fail(error, n, "has no equation");
    int ranks[EINSUM_MAX_OPERANDS];
    const gint64 *dims[EINSUM_MAX_OPERANDS];
    Tensor *first = NULL;
    if (n->inputs->len > EINSUM_MAX_OPERANDS)
        return infer_fail(error, n, "has %u operands; the executor's Einsum takes at most %d", n->inputs->len,
                          EINSUM_MAX_OPERANDS);
    for (guint k = 0; k < n->inputs->len; k++) {
        Tensor *t;
        if (!infer_input(n, k, &t, error))
            return FALSE;
        first = first ? first : t;
        ranks[k] = t->rank;
        dims[k] = t->dims;
    }
    EinsumSpec spec;
    GError *why = NULL;
    if (!einsum_parse(equation, (int)n->inputs->len, ranks, dims, &spec, &why)) {
        infer_fail(error, n, "%s", why->message);
        g_error_free(why);
        return FALSE;
    }
    gint64 out[EINSUM_MAX_LABELS];
    for (int d = 0; d < spec.out_rank; d++)
        out[d] = spec.size[spec.out_label[d]];
    return infer_set_output(n, 0, first->dtype, spec.out_rank, out, error);
}

gboolean infer_matmul(const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *a, *b;
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 1, &b, error))
        return FALSE;
    if (a->rank == 0 || b->rank == 0)
        return infer_fail(error, n, "MatMul inputs must have rank >= 1 ('%s' has rank %d, '%s' rank %d)", a->name,
                          a->rank, b->name, b->rank);
    /* A vector operand is promoted to a matrix, and the added dimension removed afterwards. */
    gint64 da[MAX_RANK], db[MAX_RANK];
    int ra = a->rank, rb = b->rank;
    memcpy(da, a->dims, ra * sizeof(gint64));
    memcpy(db, b->dims, rb * sizeof(gint64));
    gboolean a_vec = ra == 1, b_vec = rb == 1;
    gint64 trans_a = 0, trans_b = 0; /* FusedMatMul's: an operand with its last two dims swapped */
    gint64 batch_a = 0, batch_b = 0; /* ... or read [X0, X1..X(r-2), X(r-1)] as the batch X1..X(r-2) of X0 rows */
    if (!node_attr_int(n, "transA", 0, &trans_a, error) || !node_attr_int(n, "transB", 0, &trans_b, error) ||
        !node_attr_int(n, "transBatchA", 0, &batch_a, error) || !node_attr_int(n, "transBatchB", 0, &batch_b, error))
        return FALSE;
    if ((trans_a && ra < 2) || (trans_b && rb < 2) || ((batch_a || batch_b) && (ra < 3 || rb != ra)))
        return infer_fail(error, n, "a transposed operand needs rank >= 2, a batch-transposed one rank >= 3 and the "
                          "other operand's rank");
    for (int k = 0; k < 2; k++) { /* transBatch first: dims 1..r-2 become the batch, dim 0 the rows */
        gint64 *d = k ? db : da;
        int r = k ? rb : ra;
        if (!(k ? batch_b : batch_a))
            continue;
        gint64 rows = d[0];
        memmove(d, d + 1, sizeof(gint64) * (gsize)(r - 2));
        d[r - 2] = rows;
    }
    if (trans_a) {
        gint64 t = da[ra - 1];
        da[ra - 1] = da[ra - 2];
        da[ra - 2] = t;
    }
    if (trans_b) {
        gint64 t = db[rb - 1];
        db[rb - 1] = db[rb - 2];
        db[rb - 2] = t;
    }
    if (a_vec) {
        da[1] = da[0];
        da[0] = 1;
        ra = 2;
    }
    if (b_vec) {
        db[1] = 1;
        rb = 2;
    }
    if (da[ra - 1] != db[rb - 2]) {
        char *sa = graph_dims_to_string(a->rank, a->dims), *sb = graph_dims_to_string(b->rank, b->dims);
        infer_fail(error, n, "MatMul inner dimensions differ: '%s' %s and '%s' %s", a->name, sa, b->name, sb);
        g_free(sa);
        g_free(sb);
        return FALSE;
    }
    gint64 out[MAX_RANK + 2];
    int r;
    if (!infer_broadcast(n, ra - 2, da, rb - 2, db, &r, out, error))
        return FALSE;
    if (!a_vec)
        out[r++] = da[ra - 2];
    if (!b_vec)
        out[r++] = db[rb - 1];
    return infer_set_output(n, 0, a->dtype, r, out, error);
}

gboolean infer_gemm(const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *a, *b;
    gint64 trans_a, trans_b;
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 1, &b, error) ||
        !node_attr_int(n, "transA", 0, &trans_a, error) || !node_attr_int(n, "transB", 0, &trans_b, error))
        return FALSE;
    if (a->rank != 2 || b->rank != 2)
        return infer_fail(error, n, "Gemm inputs must be matrices ('%s' has rank %d, '%s' rank %d)", a->name,
                          a->rank, b->name, b->rank);
    gint64 m = trans_a ? a->dims[1] : a->dims[0], k = trans_a ? a->dims[0] : a->dims[1];
    gint64 k2 = trans_b ? b->dims[1] : b->dims[0], nn = trans_b ? b->dims[0] : b->dims[1];
    if (k != k2)
        return infer_fail(error, n, "Gemm inner dimensions differ (%" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT ")",
                          k, k2);
    gint64 out[2] = {m, nn};
    Tensor *c = node_input(n, 2);
    if (c) {
        gint64 bc[MAX_RANK];
        int rc;
        if (!c->shape_known)
            return infer_fail(error, n, "input '%s' has no known shape", c->name);
        if (!infer_broadcast(n, 2, out, c->rank, c->dims, &rc, bc, error))
            return FALSE;
        if (rc != 2 || bc[0] != m || bc[1] != nn)
            return infer_fail(error, n, "Gemm bias '%s' does not broadcast to [%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                              "]", c->name, m, nn);
    }
    return infer_set_output(n, 0, a->dtype, 2, out, error);
}
