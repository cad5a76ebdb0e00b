/* einsum.c — Einsum in any of the specification's forms (ops/einsum.h reads the equation): one loop over
 * every label's extent, each operand reached through its per-label strides (a repeated label sums its
 * dimensions' strides: a diagonal; a broadcast dimension of 1 has stride 0), products summed in double
 * into the output. Two operands that form a (batched) matrix product — "bij,bjk->bik" and its
 * transposes — go to sgemm instead, one call per batch. */
#include "ops/einsum.h"
#include "exec/kernel.h"
#include "ops/ops.h"

#include "exec/blas.h"
#include <string.h>

/* Per operand and label: its stride in elements. */
static void label_strides(const EinsumSpec *s, int rank, const int *labels, const gint64 *dims, gint64 *stride)
{
    memset(stride, 0, sizeof(gint64) * EINSUM_MAX_LABELS);
    gint64 step = 1;
    for (int d = rank - 1; d >= 0; d--) {
        if (!(dims[d] == 1 && s->size[labels[d]] != 1))
            stride[labels[d]] += step;
        step *= dims[d];
    }
}

/* The matrix-product form: labels split into batch (in both inputs and the output), m (first input and
 * output), n (second input and output), k (both inputs, summed); each operand a batch of matrices whose
 * rows and columns are each one label. Names the four labels and returns TRUE when the equation has it. */
typedef struct {
    int batch_label, m_label, n_label, k_label; /* -1: no batch */
} GemmForm;

static gboolean gemm_form(const EinsumSpec *s, GemmForm *f)
{
    if (s->n_inputs != 2 || s->rank[0] < 2 || s->rank[1] < 2 || s->rank[0] > 3 || s->rank[0] != s->rank[1] ||
        s->out_rank != s->rank[0])
        return FALSE;
    int in_a[EINSUM_MAX_LABELS] = {0}, in_b[EINSUM_MAX_LABELS] = {0}, in_y[EINSUM_MAX_LABELS] = {0};
    for (int d = 0; d < s->rank[0]; d++) {
        in_a[s->label[0][d]]++;
        in_b[s->label[1][d]]++;
        in_y[s->out_label[d]]++;
    }
    *f = (GemmForm){-1, -1, -1, -1};
    for (int l = 0; l < s->n_labels; l++) {
        if (in_a[l] > 1 || in_b[l] > 1 || in_y[l] > 1)
            return FALSE;
        int *slot = in_a[l] && in_b[l] && in_y[l] ? &f->batch_label : in_a[l] && in_y[l] ? &f->m_label
                    : in_b[l] && in_y[l] ? &f->n_label : in_a[l] && in_b[l] ? &f->k_label : NULL;
        if (!slot || *slot >= 0)
            return FALSE;
        *slot = l;
    }
    /* the batch label leads every operand (so each batch is one matrix) */
    if (f->m_label < 0 || f->n_label < 0 || f->k_label < 0 || (s->rank[0] == 3) != (f->batch_label >= 0))
        return FALSE;
    return f->batch_label < 0 ||
           (s->label[0][0] == f->batch_label && s->label[1][0] == f->batch_label && s->out_label[0] == f->batch_label);
}

/* How a row-major matrix of rows x cols sits with strides (row_stride, col_stride): as it is (FALSE in
 * *trans) or transposed, and its leading dimension; FALSE when neither (a strided view). */
static gboolean matrix_layout(gint64 rows, gint64 cols, gint64 row_stride, gint64 col_stride, gboolean *trans, int *ld)
{
    if (col_stride == 1 || cols == 1) {
        *trans = FALSE;
        *ld = (int)(rows == 1 ? MAX(cols, 1) : row_stride);
        return *ld >= cols;
    }
    if (row_stride == 1 || rows == 1) {
        *trans = TRUE;
        *ld = (int)(cols == 1 ? MAX(rows, 1) : col_stride);
        return *ld >= rows;
    }
    return FALSE;
}

/* Y = A B by sgemm, one call per batch; FALSE (nothing written) when a layout does not fit. */
static gboolean try_gemm(const EinsumSpec *s, const GemmForm *f, const ExecTensor *a, const ExecTensor *b, ExecTensor *y)
{
    gint64 sa[EINSUM_MAX_LABELS], sb[EINSUM_MAX_LABELS], sy[EINSUM_MAX_LABELS];
    label_strides(s, a->rank, s->label[0], a->dims, sa);
    label_strides(s, b->rank, s->label[1], b->dims, sb);
    label_strides(s, y->rank, s->out_label, y->dims, sy);
    gint64 M = s->size[f->m_label], N = s->size[f->n_label], K = s->size[f->k_label];
    gint64 batches = f->batch_label >= 0 ? s->size[f->batch_label] : 1;
    gboolean ta, tb, ty;
    int lda, ldb, ldy;
    if (!matrix_layout(M, K, sa[f->m_label], sa[f->k_label], &ta, &lda) ||
        !matrix_layout(K, N, sb[f->k_label], sb[f->n_label], &tb, &ldb) ||
        !matrix_layout(M, N, sy[f->m_label], sy[f->n_label], &ty, &ldy) || !M || !N || !K)
        return FALSE;
    for (gint64 i = 0; i < batches; i++) {
        const float *pa = (const float *)a->data + (f->batch_label >= 0 ? i * sa[f->batch_label] : 0);
        const float *pb = (const float *)b->data + (f->batch_label >= 0 ? i * sb[f->batch_label] : 0);
        float *py = (float *)y->data + (f->batch_label >= 0 ? i * sy[f->batch_label] : 0);
        if (ty) /* Y stored transposed: Y^T = op(B)^T op(A)^T */
            blas.sgemm(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, ta ? CblasNoTrans : CblasTrans, (int)N, (int)M,
                        (int)K, 1.0f, pb, ldb, pa, lda, 0.0f, py, ldy);
        else
            blas.sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N,
                        (int)K, 1.0f, pa, lda, pb, ldb, 0.0f, py, ldy);
    }
    return TRUE;
}

gboolean kernel_einsum(const KernelCall *c, GError **error)
{
    const char *equation;
    if (!node_attr_string(c->node, "equation", NULL, &equation, error))
        return FALSE;
    ExecTensor *y = kernel_out(c, 0);
    int ranks[EINSUM_MAX_OPERANDS];
    const gint64 *dims[EINSUM_MAX_OPERANDS];
    if (!equation || c->n_in > EINSUM_MAX_OPERANDS)
        return kernel_fail(c, error, "needs an equation and at most %d operands", EINSUM_MAX_OPERANDS);
    for (guint k = 0; k < c->n_in; k++) {
        const ExecTensor *x = kernel_in(c, k);
        if (!x || !kernel_elem_supported(x->dtype))
            return kernel_fail(c, error, "operand %u is missing or of a type the executor does not compute", k);
        ranks[k] = x->rank;
        dims[k] = x->dims;
    }
    EinsumSpec s;
    GError *why = NULL;
    if (!einsum_parse(equation, (int)c->n_in, ranks, dims, &s, &why)) {
        kernel_fail(c, error, "%s", why->message);
        g_error_free(why);
        return FALSE;
    }
    GemmForm form;
    if (y->dtype == DT_FLOAT && kernel_in(c, 0)->dtype == DT_FLOAT && c->n_in == 2 && kernel_in(c, 1)->dtype == DT_FLOAT &&
        gemm_form(&s, &form) && try_gemm(&s, &form, kernel_in(c, 0), kernel_in(c, 1), y))
        return TRUE;
    gint64 stride[EINSUM_MAX_OPERANDS][EINSUM_MAX_LABELS], out_stride[EINSUM_MAX_LABELS];
    for (guint k = 0; k < c->n_in; k++)
        label_strides(&s, ranks[k], s.label[k], dims[k], stride[k]);
    label_strides(&s, y->rank, s.out_label, y->dims, out_stride);
    double *acc = kernel_alloc(c, y->count + 1, sizeof(double), "accumulators", error);
    if (!acc)
        return FALSE;
    gint64 idx[EINSUM_MAX_LABELS] = {0}, off[EINSUM_MAX_OPERANDS] = {0}, out_off = 0;
    gboolean empty = FALSE;
    for (int l = 0; l < s.n_labels; l++)
        empty = empty || s.size[l] == 0;
    while (!empty) {
        double p = 1;
        for (guint k = 0; k < c->n_in; k++)
            p *= kernel_elem_get_f(kernel_in(c, k), (gsize)off[k]);
        acc[out_off] += p;
        int l = s.n_labels - 1;
        for (; l >= 0; l--) { /* the odometer over every label, offsets following */
            idx[l]++;
            for (guint k = 0; k < c->n_in; k++)
                off[k] += stride[k][l];
            out_off += out_stride[l];
            if (idx[l] < s.size[l])
                break;
            for (guint k = 0; k < c->n_in; k++)
                off[k] -= stride[k][l] * s.size[l];
            out_off -= out_stride[l] * s.size[l];
            idx[l] = 0;
        }
        if (l < 0)
            break;
    }
    for (gsize k = 0; k < y->count; k++)
        kernel_elem_set_f(y, k, acc[k]);
    kernel_alloc_free(acc);
    return TRUE;
}
