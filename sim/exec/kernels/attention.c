/* attention.c — sim's Attention (--fuse ort-transformers): Softmax(scale * Q K) V along the last axis, one block
 * of query rows at a time, so the [queries, keys] scores never exist whole: each block's scores are the
 * workspace (ops_linalg_attention_rows rows, about 64 KiB), written by one sgemm, turned into probabilities
 * in place by the Softmax kernel's row function, and multiplied by V straight into the output rows. Q, K and
 * V are read where they lie, in the forms FusedMatMul reads its operands (transposed, batch-transposed), as
 * sgemm's leading dimensions, never copied; their batch dims broadcast. The blocks are shared out among the
 * threads, each with its own scores. */
#include "exec/kernel.h"
#include "ops/ops.h"

#include "exec/blas.h"
#include <string.h>

#define VIEW_MAX_BATCH 16

/* An operand read as a batch of matrices: its batch dims and their strides (elements), then one matrix's rows
 * and columns and their strides (one of the two is 1). */
typedef struct {
    int nb;
    gint64 dims[VIEW_MAX_BATCH], strides[VIEW_MAX_BATCH];
    gint64 rows, cols, rs, cs;
} View;

static gboolean view_of(const ExecTensor *t, gint64 trans, gint64 batch, View *v)
{
    int r = t->rank;
    if (r < 2 || r - 2 > VIEW_MAX_BATCH || (batch && r < 3))
        return FALSE;
    gint64 st[VIEW_MAX_BATCH + 2], s = 1;
    for (int d = r - 1; d >= 0; d--) {
        st[d] = s;
        s *= t->dims[d];
    }
    v->nb = r - 2;
    for (int d = 0; d < r - 2; d++) { /* batch-transposed: dims 1..r-2 are the batch, dim 0 the rows */
        v->dims[d] = t->dims[batch ? d + 1 : d];
        v->strides[d] = st[batch ? d + 1 : d];
    }
    v->rows = batch ? t->dims[0] : t->dims[r - 2];
    v->rs = batch ? st[0] : st[r - 2];
    v->cols = t->dims[r - 1];
    v->cs = 1;
    if (trans) {
        gint64 x = v->rows;
        v->rows = v->cols;
        v->cols = x;
        x = v->rs;
        v->rs = v->cs;
        v->cs = x;
    }
    return TRUE;
}

/* sgemm's transpose flag and leading dimension for a matrix with these strides. */
static CBLAS_TRANSPOSE view_trans(const View *v, int *ld)
{
    if (v->cs == 1) {
        *ld = (int)MAX(v->rs, MAX(v->cols, 1));
        return CblasNoTrans;
    }
    *ld = (int)MAX(v->cs, MAX(v->rows, 1));
    return CblasTrans;
}

/* The operand's stride for each of the output's nb batch dims (right-aligned; 0 where it broadcasts), FALSE
 * when its dims do not broadcast to them. */
static gboolean view_broadcast(const View *v, int nb, const gint64 *out_dims, gint64 *strides)
{
    for (int d = 0; d < nb; d++) {
        int k = d - (nb - v->nb);
        gint64 dim = k >= 0 ? v->dims[k] : 1;
        if (dim != out_dims[d] && dim != 1)
            return FALSE;
        strides[d] = dim == 1 ? 0 : v->strides[k];
    }
    return TRUE;
}

/* Blocks [begin, end) of query rows, numbered batch by batch: each block's scores by one sgemm into the
 * thread's own slice of the workspace, made probabilities row by row, multiplied by V into its output rows. */
typedef struct {
    const float *q, *k, *v;
    float *y, *scores;
    const gint64 *dims;
    gint64 sq[VIEW_MAX_BATCH], sk[VIEW_MAX_BATCH], sv[VIEW_MAX_BATCH];
    gint64 slice, queries, keys, width, depth, block, blocks, rs_q;
    int nb, ldq, ldk, ldv;
    CBLAS_TRANSPOSE tq, tk, tv;
    float scale;
} AttentionJob;

static void attention_blocks(void *data, gint64 begin, gint64 end, guint part)
{
    const AttentionJob *j = data;
    float *scores = j->scores + part * j->slice;
    for (gint64 item = begin; item < end; item++) {
        gint64 b = item / j->blocks, i0 = item % j->blocks * j->block, rows = MIN(j->block, j->queries - i0);
        gint64 oq = 0, ok = 0, ov = 0, rest = b;
        for (int d = j->nb - 1; d >= 0; d--) { /* the batch index's offsets in each operand */
            gint64 at = rest % j->dims[d];
            rest /= j->dims[d];
            oq += at * j->sq[d];
            ok += at * j->sk[d];
            ov += at * j->sv[d];
        }
        if (j->keys > 0)
            blas.sgemm(CblasRowMajor, j->tq, j->tk, (int)rows, (int)j->keys, (int)j->depth, j->scale,
                       j->q + oq + i0 * j->rs_q, j->ldq, j->k + ok, j->ldk, 0.0f, scores, (int)j->keys);
        for (gint64 i = 0; i < rows && j->keys > 0; i++)
            kernel_softmax_row(scores + i * j->keys, scores + i * j->keys, j->keys);
        blas.sgemm(CblasRowMajor, CblasNoTrans, j->tv, (int)rows, (int)j->width, (int)j->keys, 1.0f, scores,
                   (int)MAX(j->keys, 1), j->v + ov, j->ldv, 0.0f, j->y + (b * j->queries + i0) * j->width,
                   (int)MAX(j->width, 1));
    }
}

gboolean kernel_attention(const KernelCall *c, GError **error)
{
    const ExecTensor *q = kernel_in(c, 0), *k = kernel_in(c, 1), *v = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    gint64 batch_q = 0, trans_k = 0, batch_k = 0, trans_v = 0, batch_v = 0;
    float scale = 1.0f;
    if (!kernel_need_float(c, q, "Attention", error) || !kernel_need_float(c, k, "Attention", error) ||
        !kernel_need_float(c, v, "Attention", error) || !node_attr_float(c->node, "scale", 1.0f, &scale, error) ||
        !node_attr_int(c->node, "transBatchQ", 0, &batch_q, error) || !node_attr_int(c->node, "transK", 0, &trans_k, error) ||
        !node_attr_int(c->node, "transBatchK", 0, &batch_k, error) || !node_attr_int(c->node, "transV", 0, &trans_v, error) ||
        !node_attr_int(c->node, "transBatchV", 0, &batch_v, error))
        return FALSE;
    View vq, vk, vv;
    int nb = y->rank - 2;
    if (!view_of(q, 0, batch_q, &vq) || !view_of(k, trans_k, batch_k, &vk) || !view_of(v, trans_v, batch_v, &vv) ||
        nb < 0 || nb > VIEW_MAX_BATCH)
        return kernel_fail(c, error, "Q, K and V must be batches of matrices of rank at most %d", VIEW_MAX_BATCH + 2);
    gint64 queries = y->dims[nb], width = y->dims[nb + 1], keys = vk.cols;
    gint64 sq[VIEW_MAX_BATCH], sk[VIEW_MAX_BATCH], sv[VIEW_MAX_BATCH];
    if (vq.cols != vk.rows || vv.rows != keys || vq.rows != queries || vv.cols != width ||
        !view_broadcast(&vq, nb, y->dims, sq) || !view_broadcast(&vk, nb, y->dims, sk) ||
        !view_broadcast(&vv, nb, y->dims, sv))
        return kernel_fail(c, error, "Q, K and V do not fit one another or the output");
    if (!y->count)
        return TRUE;
    gint64 block = ops_linalg_attention_rows(queries, keys);
    gint64 slice = (MAX(block * keys, 1) + 15) / 16 * 16; /* each thread's scores, 64 bytes apart */
    float *scores = kernel_workspace(c, sizeof(float) * (gsize)(slice * kernel_threads()));
    if (!scores)
        return kernel_fail(c, error, "no workspace for %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " scores", block, keys);
    AttentionJob job = {.q = q->data, .k = k->data, .v = v->data, .y = y->data, .scores = scores, .slice = slice,
                        .dims = y->dims, .nb = nb, .queries = queries, .keys = keys, .width = width, .depth = vq.cols,
                        .block = block, .blocks = (queries + block - 1) / block, .scale = scale, .rs_q = vq.rs};
    job.tq = view_trans(&vq, &job.ldq);
    job.tk = view_trans(&vk, &job.ldk);
    job.tv = view_trans(&vv, &job.ldv);
    memcpy(job.sq, sq, sizeof(sq));
    memcpy(job.sk, sk, sizeof(sk));
    memcpy(job.sv, sv, sizeof(sv));
    gint64 batches = 1;
    for (int d = 0; d < nb; d++)
        batches *= y->dims[d];
    kernel_parallel(batches * job.blocks, 1, attention_blocks, &job);
    return TRUE;
}
