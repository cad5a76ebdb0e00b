/* gemm.c — MatMul (numpy semantics: 1-D operands promoted, batch dimensions broadcast; a right operand
 * shared by every batch makes the batches one tall sgemm) and Gemm (transA/transB, alpha, beta, C
 * broadcast), float32 through OpenBLAS's cblas_sgemm. A transposed weight is passed as CblasTrans, never
 * copied (the design log's lesson). */
#include "exec/kernel.h"
#include "ops/ops.h"

#include "exec/blas.h"
#include <string.h>

/* FusedMatMul with transBatchA or transBatchB (ONNX Runtime's): an operand [X0, X1..X(r-2), X(r-1)] read as
 * the batch X1..X(r-2) of [X0, X(r-1)] matrices, each one's rows X(r-1) x the batch apart (no copy: sgemm's
 * leading dimension), then transA or transB as usual; both operands of one rank r >= 3 and one batch. */
static gboolean matmul_trans_batch(const KernelCall *c, const ExecTensor *a, const ExecTensor *b, ExecTensor *y,
                                   const gint64 trans[2], const gint64 batch[2], float alpha, GError **error)
{
    const ExecTensor *op[2] = {a, b};
    int r = a->rank;
    if (r < 3 || b->rank != r)
        return kernel_fail(c, error, "a batch-transposed product needs operands of one rank of at least 3");
    gint64 rows[2], cols[2], base[2], ld[2], nb = 1;
    for (int k = 0; k < 2; k++) {
        const gint64 *x = op[k]->dims;
        gint64 count = 1;
        for (int d = 0; d < r - 2; d++) { /* the batch: dims 1..r-2 transposed, 0..r-3 otherwise */
            gint64 dim = batch[k] ? x[d + 1] : x[d];
            if (k == 1 && dim != (batch[0] ? a->dims[d + 1] : a->dims[d]))
                return kernel_fail(c, error, "a batch-transposed product does not broadcast its batch");
            count *= dim;
        }
        nb = count;
        rows[k] = batch[k] ? x[0] : x[r - 2];
        cols[k] = x[r - 1];
        base[k] = batch[k] ? cols[k] : rows[k] * cols[k]; /* elements from one matrix of the batch to the next */
        ld[k] = batch[k] ? count * cols[k] : cols[k];
    }
    gint64 M = trans[0] ? cols[0] : rows[0], K = trans[0] ? rows[0] : cols[0];
    gint64 N = trans[1] ? rows[1] : cols[1], KB = trans[1] ? cols[1] : rows[1];
    if (K != KB || (gint64)y->count != nb * M * N)
        return kernel_fail(c, error, "a batch-transposed product's operands do not fit");
    const float *pa = a->data, *pb = b->data;
    float *py = y->data;
    for (gint64 k = 0; k < nb; k++)
        blas.sgemm(CblasRowMajor, trans[0] ? CblasTrans : CblasNoTrans, trans[1] ? CblasTrans : CblasNoTrans, (int)M,
                   (int)N, (int)K, alpha, pa + k * base[0], (int)ld[0], pb + k * base[1], (int)ld[1], 0.0f, py + k * M * N,
                   (int)N);
    return TRUE;
}

static gboolean matmul_product(const KernelCall *c, GError **error)
{
    const ExecTensor *a = kernel_in(c, 0), *b = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    gint64 trans_a = 0, trans_b = 0; /* FusedMatMul: operands transposed in their last two dims, the product scaled */
    float alpha = 1.0f;
    if (!kernel_need_float(c, a, "MatMul", error) || !kernel_need_float(c, b, "MatMul", error) ||
        !node_attr_int(c->node, "transA", 0, &trans_a, error) || !node_attr_int(c->node, "transB", 0, &trans_b, error) ||
        !node_attr_float(c->node, "alpha", 1.0f, &alpha, error))
        return FALSE;
    gint64 batch[2] = {0, 0};
    if (!node_attr_int(c->node, "transBatchA", 0, &batch[0], error) || !node_attr_int(c->node, "transBatchB", 0, &batch[1], error))
        return FALSE;
    if (batch[0] || batch[1])
        return matmul_trans_batch(c, a, b, y, (const gint64[]){trans_a, trans_b}, batch, alpha, error);
    /* Promote 1-D: a [K] -> [1, K]; b [K] -> [K, 1]. */
    gint64 M = a->rank >= 2 ? a->dims[a->rank - (trans_a ? 1 : 2)] : 1, K = a->dims[a->rank - (trans_a ? 2 : 1)];
    gint64 N = b->rank >= 2 ? b->dims[b->rank - (trans_b ? 2 : 1)] : 1;
    CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
    int lda = trans_a ? (int)M : (int)K, ldb = trans_b ? (int)K : (int)N;
    int batch_rank = MAX(MAX(a->rank, b->rank) - 2, 0);
    /* Batch dims of the output, and each operand's batch strides (in matrices). */
    gint64 *dims = g_new0(gint64, batch_rank + 1), *sa = g_new0(gint64, batch_rank + 1), *sb = g_new0(gint64, batch_rank + 1);
    gint64 batches = 1;
    for (int d = batch_rank - 1, ma = 1, mb = 1; d >= 0; d--) {
        int da = d - (batch_rank - MAX(a->rank - 2, 0)), db = d - (batch_rank - MAX(b->rank - 2, 0));
        gint64 na = da >= 0 ? a->dims[da] : 1, nb = db >= 0 ? b->dims[db] : 1;
        dims[d] = MAX(na, nb);
        sa[d] = na == 1 ? 0 : ma;
        sb[d] = nb == 1 ? 0 : mb;
        ma *= (int)na;
        mb *= (int)nb;
        batches *= dims[d];
    }
    const float *pa = a->data, *pb = b->data;
    float *py = y->data;
    /* One weight for every batch ([197, 1, 768] x [768, 2304]; [b, s, d] x [d, n]): the batch's matrices of a
     * lie one after another, so they are one [batches x M, K] matrix and one sgemm does it all. */
    gboolean b_shared = TRUE, a_whole = a->rank - 2 == batch_rank;
    for (int d = 0; d < batch_rank; d++) {
        b_shared = b_shared && sb[d] == 0;
        a_whole = a_whole && a->dims[d] == dims[d];
    }
    if (batches > 1 && b_shared && a_whole && N > 1 && !trans_a) {
        blas.sgemm(CblasRowMajor, CblasNoTrans, tb, (int)(batches * M), (int)N, (int)K, alpha, pa, (int)K, pb, ldb, 0.0f,
                    py, (int)N);
        g_free(dims);
        g_free(sa);
        g_free(sb);
        return TRUE;
    }
    gint64 *idx = g_new0(gint64, batch_rank + 1);
    gint64 oa = 0, ob = 0;
    for (gint64 k = 0; k < batches; k++) {
        if (M == 1 && N == 1 && alpha == 1.0f) { /* a [1, K] row and a [K, 1] column, either way round */
            py[k] = blas.sdot((int)K, pa + oa * M * K, 1, pb + ob * K * N, 1);
        } else {
            blas.sgemm(CblasRowMajor, ta, tb, (int)M, (int)N, (int)K, alpha, pa + oa * M * K, lda, pb + ob * K * N, ldb,
                        0.0f, py + k * M * N, (int)N);
        }
        for (int d = batch_rank - 1; d >= 0; d--) { /* next batch index, offsets follow */
            idx[d]++;
            oa += sa[d];
            ob += sb[d];
            if (idx[d] < dims[d])
                break;
            oa -= sa[d] * dims[d];
            ob -= sb[d] * dims[d];
            idx[d] = 0;
        }
    }
    g_free(idx);
    g_free(dims);
    g_free(sa);
    g_free(sb);
    return TRUE;
}

gboolean kernel_matmul(const KernelCall *c, GError **error)
{
    if (!matmul_product(c, error))
        return FALSE;
    if (c->epilogue) /* a folded activation (exec-prepare.c), over the product */
        kernel_epilogue_whole(c, kernel_out(c, 0)->data, kernel_out(c, 0)->count);
    return TRUE;
}

gboolean kernel_gemm(const KernelCall *c, GError **error)
{
    const ExecTensor *a = kernel_in(c, 0), *b = kernel_in(c, 1), *bias = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    gint64 trans_a, trans_b;
    float alpha, beta;
    if (!kernel_need_float(c, a, "Gemm", error) || !kernel_need_float(c, b, "Gemm", error) ||
        !kernel_need_float(c, bias, "Gemm", error) || !node_attr_int(c->node, "transA", 0, &trans_a, error) ||
        !node_attr_int(c->node, "transB", 0, &trans_b, error) || !node_attr_float(c->node, "alpha", 1.0f, &alpha, error) ||
        !node_attr_float(c->node, "beta", 1.0f, &beta, error))
        return FALSE;
    gint64 M = y->dims[0], N = y->dims[1], K = trans_a ? a->dims[0] : a->dims[1];
    float *py = y->data;
    float use_beta = 0.0f;
    if (bias && bias->count && beta != 0.0f) { /* Y = C broadcast to [M, N], then sgemm adds alpha A B */
        gint64 strides[2];
        kernel_broadcast_strides(bias, 2, y->dims, strides);
        const float *pc = bias->data;
        for (gint64 i = 0; i < M; i++)
            for (gint64 j = 0; j < N; j++)
                py[i * N + j] = pc[i * strides[0] + j * strides[1]];
        use_beta = beta;
    }
    if (M == 1) /* one row (a classifier head): a matrix-vector product; A's K values are contiguous either way */
        blas.sgemv(CblasRowMajor, trans_b ? CblasNoTrans : CblasTrans, (int)b->dims[0], (int)b->dims[1], alpha, b->data,
                    (int)b->dims[1], a->data, 1, use_beta, py, 1);
    else
        blas.sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)M,
                    (int)N, (int)K, alpha, a->data, (int)a->dims[1], b->data, (int)b->dims[1], use_beta, py, (int)N);
    return TRUE;
}
