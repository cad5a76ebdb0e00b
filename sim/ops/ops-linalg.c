/* ops-linalg.c — shape inference for matrix products: MatMul (numpy matmul semantics), Gemm and Einsum
 * (its equation read by einsum.c). */
#include "ops/einsum.h"
#include "ops/ops-families.h"

gboolean infer_einsum(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
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

/* The shape of the product of a [.., M, K] and b [.., K, N] (numpy matmul; rank-1 operands promoted), read
 * as FusedMatMul reads them: form[0], form[1] transpose a's or b's last two dims; form[2], form[3] read an
 * operand [X0, X1..X(r-2), X(r-1)] as the batch X1..X(r-2) of [X0, X(r-1)] matrices. Into *r and out. */
static gboolean matmul_shape(Node *n, const char *an, int ra, const gint64 *a_dims, const char *bn, int rb,
                             const gint64 *b_dims, const gint64 form[4], int *r, gint64 *out, GError **error)
{
    if (ra == 0 || rb == 0)
        return infer_fail(error, n, "MatMul inputs must have rank >= 1 ('%s' has rank %d, '%s' rank %d)", an, ra, bn, rb);
    /* A vector operand is promoted to a matrix, and the added dimension removed afterwards. */
    gint64 da[MAX_RANK], db[MAX_RANK];
    memcpy(da, a_dims, ra * sizeof(gint64));
    memcpy(db, b_dims, rb * sizeof(gint64));
    gboolean a_vec = ra == 1, b_vec = rb == 1;
    gint64 trans_a = form[0], trans_b = form[1], batch_a = form[2], batch_b = form[3];
    if ((trans_a && ra < 2) || (trans_b && rb < 2) || ((batch_a || batch_b) && (ra < 3 || rb != ra)))
        return infer_fail(error, n, "a transposed operand needs rank >= 2, a batch-transposed one rank >= 3 and the "
                          "other operand's rank");
    for (int k = 0; k < 2; k++) { /* transBatch first: dims 1..r-2 become the batch, dim 0 the rows */
        gint64 *d = k ? db : da;
        int rk = k ? rb : ra;
        if (!(k ? batch_b : batch_a))
            continue;
        gint64 rows = d[0];
        memmove(d, d + 1, sizeof(gint64) * (gsize)(rk - 2));
        d[rk - 2] = rows;
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
        char *sa = graph_dims_to_string(a_vec ? 1 : ra, a_dims), *sb = graph_dims_to_string(b_vec ? 1 : rb, b_dims);
        infer_fail(error, n, "MatMul inner dimensions differ: '%s' %s and '%s' %s", an, sa, bn, sb);
        g_free(sa);
        g_free(sb);
        return FALSE;
    }
    if (!infer_broadcast(n, ra - 2, da, rb - 2, db, r, out, error))
        return FALSE;
    if (!a_vec)
        out[(*r)++] = da[ra - 2];
    if (!b_vec)
        out[(*r)++] = db[rb - 1];
    return TRUE;
}

gboolean infer_matmul(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *a, *b;
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 1, &b, error))
        return FALSE;
    /* FusedMatMul's: an operand with its last two dims swapped, or read batch-transposed */
    gint64 form[4] = {0, 0, 0, 0}, out[MAX_RANK + 2];
    int r;
    if (!node_attr_int(n, "transA", 0, &form[0], error) || !node_attr_int(n, "transB", 0, &form[1], error) ||
        !node_attr_int(n, "transBatchA", 0, &form[2], error) || !node_attr_int(n, "transBatchB", 0, &form[3], error))
        return FALSE;
    return matmul_shape(n, a->name, a->rank, a->dims, b->name, b->rank, b->dims, form, &r, out, error) &&
           infer_set_output(n, 0, a->dtype, r, out, error);
}

/* MatMulInteger(A, B, a_zero_point, b_zero_point): MatMul's shape in int32, over uint8 or int8; a zero point of
 * the operand's type, one value or one per row (A) or column (B). */
gboolean infer_matmul_integer(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *a, *b;
    gint64 form[4] = {0, 0, 0, 0}, out[MAX_RANK + 2];
    int r;
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 1, &b, error))
        return FALSE;
    for (guint k = 0; k < 2; k++) {
        Tensor *t = k ? b : a, *zp = node_input(n, 2 + k);
        if (t->dtype != DT_UINT8 && t->dtype != DT_INT8)
            return infer_fail(error, n, "'%s' is %s: MatMulInteger takes uint8 or int8", t->name, dtype_name(t->dtype));
        if (zp && zp->shape_known && zp->dtype != t->dtype)
            return infer_fail(error, n, "the zero point '%s' is %s where '%s' is %s", zp->name, dtype_name(zp->dtype),
                              t->name, dtype_name(t->dtype));
        if (zp && zp->shape_known && zp->rank > 1)
            return infer_fail(error, n, "the zero point '%s' has rank %d: a scalar or one value per %s", zp->name,
                              zp->rank, k ? "column" : "row");
    }
    return matmul_shape(n, a->name, a->rank, a->dims, b->name, b->rank, b->dims, form, &r, out, error) &&
           infer_set_output(n, 0, DT_INT32, r, out, error);
}

/* com.microsoft MatMulIntegerToFloat(A, B, a_scale, b_scale, ...) and DynamicQuantizeMatMul(A, B, b_scale, ...):
 * MatMul's shape of A and B, in float; A is uint8 (float for DynamicQuantizeMatMul), B 8-bit, a scale one value
 * (b_scale one or one per column), the bias (the last input, optional) one value per column. */
gboolean infer_matmul_integer_to_float(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)opset;
    gboolean dynamic = !strcmp(op->name, "DynamicQuantizeMatMul");
    Tensor *a, *b;
    gint64 form[4] = {0, 0, 0, 0}, out[MAX_RANK + 2];
    int r;
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 1, &b, error))
        return FALSE;
    if (a->dtype != (dynamic ? DT_FLOAT : DT_UINT8) || (b->dtype != DT_UINT8 && b->dtype != DT_INT8))
        return infer_fail(error, n, "'%s' is %s and '%s' %s: %s takes %s A and uint8 or int8 B", a->name,
                          dtype_name(a->dtype), b->name, dtype_name(b->dtype), op->name, dynamic ? "float" : "uint8");
    if (!matmul_shape(n, a->name, a->rank, a->dims, b->name, b->rank, b->dims, form, &r, out, error))
        return FALSE;
    gint64 cols = out[r - 1];
    for (guint k = 2; k < n->inputs->len; k++) { /* B's scale and zero point and the bias: one, or one per column */
        Tensor *t = node_input(n, k);
        if (!t || !t->shape_known)
            continue;
        gboolean per_column = dynamic || k == 3 || k >= 5;
        gsize count = 1;
        for (int d = 0; d < t->rank; d++)
            count *= (gsize)t->dims[d];
        if (t->rank > 1 || (count != 1 && !(per_column && (gint64)count == cols)))
            return infer_fail(error, n, "'%s' holds %zu values: one%s", t->name, count,
                              per_column ? " or one per column of the product" : "");
    }
    return infer_set_output(n, 0, DT_FLOAT, r, out, error);
}

/* QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point): MatMul's shape of a
 * and b, in the output zero point's type (ops-quantize.c has the rest of the family). */
gboolean infer_qlinear_matmul(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *a, *b, *y_zp;
    gint64 form[4] = {0, 0, 0, 0}, out[MAX_RANK + 2];
    int r;
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 3, &b, error) || !infer_input(n, 7, &y_zp, error))
        return FALSE;
    for (guint k = 0; k < 3; k++) {
        const Tensor *t = k == 0 ? a : k == 1 ? b : y_zp;
        if (t->dtype != DT_UINT8 && t->dtype != DT_INT8)
            return infer_fail(error, n, "'%s' is %s: QLinearMatMul takes uint8 or int8", t->name, dtype_name(t->dtype));
    }
    return matmul_shape(n, a->name, a->rank, a->dims, b->name, b->rank, b->dims, form, &r, out, error) &&
           infer_set_output(n, 0, y_zp->dtype, r, out, error);
}

/* sim's Attention(Q, K, V): Softmax(scale * Q K) V over the last axis, K read as FusedMatMul's B (transK,
 * transBatchK; Q: transBatchQ), V likewise (transV, transBatchV); the scores are never a tensor. */
gboolean infer_attention(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *q, *k, *v;
    gint64 qk[4] = {0, 0, 0, 0}, pv[4] = {0, 0, 0, 0}, scores[MAX_RANK + 2], out[MAX_RANK + 2];
    int rs, r;
    if (!infer_input(n, 0, &q, error) || !infer_input(n, 1, &k, error) || !infer_input(n, 2, &v, error) ||
        !node_attr_int(n, "transBatchQ", 0, &qk[2], error) || !node_attr_int(n, "transK", 0, &qk[1], error) ||
        !node_attr_int(n, "transBatchK", 0, &qk[3], error) || !node_attr_int(n, "transV", 0, &pv[1], error) ||
        !node_attr_int(n, "transBatchV", 0, &pv[3], error))
        return FALSE;
    if (q->rank < 2 || k->rank < 2 || v->rank < 2)
        return infer_fail(error, n, "Q, K and V must be matrices or batches of them");
    return matmul_shape(n, q->name, q->rank, q->dims, k->name, k->rank, k->dims, qk, &rs, scores, error) &&
           matmul_shape(n, "scores", rs, scores, v->name, v->rank, v->dims, pv, &r, out, error) &&
           infer_set_output(n, 0, q->dtype, r, out, error);
}

/* Query rows sim's Attention kernel computes at once: its scores for those rows, rows x keys floats, are its
 * workspace (about 64 KiB, so they stay in cache between the two products). */
gint64 ops_linalg_attention_rows(gint64 queries, gint64 keys)
{
    gint64 rows = 16384 / MAX(keys, 1);
    return MAX(MIN(rows, queries), 1);
}

guint64 ops_linalg_attention_scratch(const Node *n)
{
    const Tensor *q = node_input(n, 0), *k = node_input(n, 1), *y = node_output(n, 0);
    gint64 qk[4] = {0, 0, 0, 0}, scores[MAX_RANK + 2];
    int rank;
    if (!q || !k || !y || !q->shape_known || !k->shape_known || !y->shape_known || y->rank < 2 ||
        !node_attr_int(n, "transBatchQ", 0, &qk[2], NULL) || !node_attr_int(n, "transK", 0, &qk[1], NULL) ||
        !node_attr_int(n, "transBatchK", 0, &qk[3], NULL) ||
        !matmul_shape((Node *)n, q->name, q->rank, q->dims, k->name, k->rank, k->dims, qk, &rank, scores, NULL))
        return 0;
    gint64 queries = y->dims[y->rank - 2], keys = scores[rank - 1]; /* the scores' last dim */
    guint64 bytes;
    return graph_size_mul((guint64)ops_linalg_attention_rows(queries, keys) * (guint64)keys, sizeof(float), &bytes) ? bytes : 0;
}

gboolean ops_linalg_gemm_shape(Node *n, const Tensor *a, const Tensor *b, gint64 out[2], GError **error)
{
    gint64 trans_a, trans_b;
    if (!node_attr_int(n, "transA", 0, &trans_a, error) || !node_attr_int(n, "transB", 0, &trans_b, error))
        return FALSE;
    if (a->rank != 2 || b->rank != 2)
        return infer_fail(error, n, "%s inputs must be matrices ('%s' has rank %d, '%s' rank %d)", n->op_type,
                          a->name, a->rank, b->name, b->rank);
    gint64 k = trans_a ? a->dims[0] : a->dims[1], k2 = trans_b ? b->dims[1] : b->dims[0];
    if (k != k2)
        return infer_fail(error, n, "%s inner dimensions differ (%" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT ")",
                          n->op_type, k, k2);
    out[0] = trans_a ? a->dims[1] : a->dims[0];
    out[1] = trans_b ? b->dims[0] : b->dims[1];
    return TRUE;
}

gboolean infer_gemm(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *a, *b;
    gint64 out[2];
    if (!infer_input(n, 0, &a, error) || !infer_input(n, 1, &b, error) || !ops_linalg_gemm_shape(n, a, b, out, error))
        return FALSE;
    gint64 m = out[0], nn = out[1];
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
