/* indexing.c — kernels whose output elements are chosen by indices: GatherElements, ScatterElements and
 * ScatterND (with their reductions none/add/mul/max/min; duplicate indices apply in order), and the
 * masks of a position: Trilu (the triangle of the last two dimensions, k diagonals off) and EyeLike. Any
 * dtype: whole elements are copied by size, reductions go through elem_get_* and elem_set_*. An index out
 * of range (after a negative one wraps once) is an error naming it, never a read outside the tensor.
 * Trilu may run in place (each element is read before it is written). */
#include "exec/kernel.h"
#include "ops/ops.h"

#include <string.h>

gboolean kernel_trilu(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *k_t = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    gint64 upper;
    if (!node_attr_int(c->node, "upper", 1, &upper, error))
        return FALSE;
    if (x->rank < 2)
        return kernel_fail(c, error, "needs an input of rank 2 or more");
    gint64 k = k_t && k_t->count ? kernel_elem_get_i(k_t, 0) : 0;
    gint64 rows = x->dims[x->rank - 2], cols = x->dims[x->rank - 1], matrices = (gint64)x->count / MAX(rows * cols, 1);
    gsize size = dtype_size(x->dtype);
    const char *src = x->data;
    char *dst = y->data;
    for (gint64 m = 0; m < matrices; m++)
        for (gint64 i = 0; i < rows; i++)
            for (gint64 j = 0; j < cols; j++) {
                gsize at = (gsize)((m * rows + i) * cols + j) * size;
                gboolean keep = upper ? j - i >= k : j - i <= k;
                if (keep)
                    memmove(dst + at, src + at, size);
                else
                    memset(dst + at, 0, size);
            }
    return TRUE;
}

gboolean kernel_eye_like(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gint64 k;
    if (!node_attr_int(c->node, "k", 0, &k, error))
        return FALSE;
    if (x->rank != 2)
        return kernel_fail(c, error, "needs a 2-D input");
    if (!kernel_elem_supported(y->dtype))
        return kernel_fail(c, error, "the executor does not write %s", dtype_name(y->dtype));
    gint64 rows = y->dims[0], cols = y->dims[1];
    for (gint64 i = 0; i < rows; i++)
        for (gint64 j = 0; j < cols; j++)
            kernel_elem_set_f(y, (gsize)(i * cols + j), j - i == k);
    return TRUE;
}

/* Row-major strides of t. */
static void strides_of(const ExecTensor *t, gint64 *strides)
{
    gint64 s = 1;
    for (int d = t->rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= t->dims[d];
    }
}

/* GatherND: per batch (the first batch_dims axes) and per index tuple (the indices' last axis, k long),
 * the slice of data those k indices pick, copied whole. */
gboolean kernel_gather_nd(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *ind = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    gint64 batch;
    if (!node_attr_int(c->node, "batch_dims", 0, &batch, error))
        return FALSE;
    if (x->rank > KERNEL_MAX_RANK)
        return kernel_fail(c, error, "data rank %d is above the executor's %d", x->rank, KERNEL_MAX_RANK);
    gint64 k = ind->dims[ind->rank - 1], xs[KERNEL_MAX_RANK];
    strides_of(x, xs);
    gint64 batches = 1, tuples = 1;
    for (gint64 d = 0; d < batch; d++)
        batches *= x->dims[d];
    for (int d = (int)batch; d < ind->rank - 1; d++)
        tuples *= ind->dims[d];
    gsize size = dtype_size(x->dtype), slice = (gsize)xs[batch + k - 1]; /* the elements past the indexed axes */
    void *copy = NULL;
    const char *src = kernel_input_apart(x, y, &copy);
    char *dst = y->data;
    gint64 batch_stride = batch ? xs[batch - 1] : 0;
    /* int64 indices read as they lie (a detector's per-score gather), the rest and any out of range as before */
    const gint64 *i64 = ind->dtype == DT_INT64 ? ind->data : NULL;
    gboolean word = slice * size == 4;
    for (gint64 b = 0; b < batches; b++)
        for (gint64 t = 0; t < tuples; t++) {
            gint64 off = b * batch_stride;
            for (gint64 j = 0; j < k; j++) {
                gint64 i, dim = x->dims[batch + j];
                gsize at = (gsize)((b * tuples + t) * k + j);
                if (i64 && i64[at] >= -dim && i64[at] < dim) {
                    i = i64[at] < 0 ? i64[at] + dim : i64[at];
                } else if (!kernel_index_at(c, ind, at, dim, (int)(batch + j), &i, error)) {
                    g_free(copy);
                    return FALSE;
                }
                off += i * xs[batch + j];
            }
            if (word)
                memcpy(dst, src + (gsize)off * 4, 4); /* one element of four bytes: a move, not a call */
            else
                memcpy(dst, src + (gsize)off * size, slice * size);
            dst += slice * size;
        }
    g_free(copy);
    return TRUE;
}

gboolean kernel_gather_elements(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *ind = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    gint64 a;
    if (!node_attr_int(c->node, "axis", 0, &a, error))
        return FALSE;
    int axis = kernel_axis(a, x->rank);
    if (x->rank > KERNEL_MAX_RANK || axis < 0 || axis >= x->rank || ind->rank != x->rank)
        return kernel_fail(c, error, "axis %" G_GINT64_FORMAT " or the indices' rank does not fit the data's rank %d", a,
                           x->rank);
    gint64 xs[KERNEL_MAX_RANK], idx[KERNEL_MAX_RANK] = {0};
    strides_of(x, xs);
    gsize size = dtype_size(x->dtype);
    void *copy = NULL;
    const char *src = kernel_input_apart(x, y, &copy);
    char *dst = y->data;
    for (gsize k = 0; k < ind->count; k++) {
        gint64 i, off = 0;
        if (!kernel_index_at(c, ind, k, x->dims[axis], axis, &i, error)) {
            g_free(copy);
            return FALSE;
        }
        for (int d = 0; d < x->rank; d++)
            off += (d == axis ? i : idx[d]) * xs[d];
        memcpy(dst + k * size, src + (gsize)off * size, size);
        kernel_index_next(idx, ind->dims, ind->rank);
    }
    g_free(copy);
    return TRUE;
}

typedef enum { REDUCE_NONE, REDUCE_ADD, REDUCE_MUL, REDUCE_MAX, REDUCE_MIN } ScatterReduction;

static gboolean reduction_of(const KernelCall *c, ScatterReduction *r, GError **error)
{
    const char *name;
    if (!node_attr_string(c->node, "reduction", "none", &name, error))
        return FALSE;
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    for (guint k = 0; k < G_N_ELEMENTS(names); k++)
        if (!strcmp(name, names[k])) {
            *r = (ScatterReduction)k;
            return TRUE;
        }
    return kernel_fail(c, error, "unknown reduction '%s'", name);
}

/* y[at] (reduce)= u[from], whole elements. */
static void scatter_one(ExecTensor *y, gsize at, const ExecTensor *u, gsize from, ScatterReduction r)
{
    if (r == REDUCE_NONE) {
        gsize size = dtype_size(y->dtype);
        memcpy((char *)y->data + at * size, (const char *)u->data + from * size, size);
    } else if (dtype_is_float(y->dtype)) {
        double a = kernel_elem_get_f(y, at), b = kernel_elem_get_f(u, from);
        kernel_elem_set_f(y, at, r == REDUCE_ADD ? a + b : r == REDUCE_MUL ? a * b : r == REDUCE_MAX ? MAX(a, b) : MIN(a, b));
    } else {
        gint64 a = kernel_elem_get_i(y, at), b = kernel_elem_get_i(u, from);
        kernel_elem_set_i(y, at, r == REDUCE_ADD ? (gint64)((guint64)a + (guint64)b) : r == REDUCE_MUL ? (gint64)((guint64)a * (guint64)b)
                          : r == REDUCE_MAX ? MAX(a, b) : MIN(a, b));
    }
}

gboolean kernel_scatter_elements(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *ind = kernel_in(c, 1), *u = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    gint64 a;
    ScatterReduction r = REDUCE_NONE;
    if (!node_attr_int(c->node, "axis", 0, &a, error) || !reduction_of(c, &r, error))
        return FALSE;
    int axis = kernel_axis(a, x->rank);
    if (x->rank > KERNEL_MAX_RANK || axis < 0 || axis >= x->rank || ind->rank != x->rank || u->count != ind->count)
        return kernel_fail(c, error, "axis %" G_GINT64_FORMAT ", the indices or the updates do not fit the data's shape", a);
    if (r != REDUCE_NONE && !kernel_elem_supported(x->dtype))
        return kernel_fail(c, error, "the executor does not reduce %s", dtype_name(x->dtype));
    kernel_move(y->data, x->data, x->count * dtype_size(x->dtype));
    gint64 ys[KERNEL_MAX_RANK], idx[KERNEL_MAX_RANK] = {0};
    strides_of(y, ys);
    for (gsize k = 0; k < ind->count; k++) {
        gint64 i, off = 0;
        if (!kernel_index_at(c, ind, k, x->dims[axis], axis, &i, error))
            return FALSE;
        for (int d = 0; d < x->rank; d++)
            off += (d == axis ? i : idx[d]) * ys[d];
        scatter_one(y, (gsize)off, u, k, r);
        kernel_index_next(idx, ind->dims, ind->rank);
    }
    return TRUE;
}

gboolean kernel_scatter_nd(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *ind = kernel_in(c, 1), *u = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    ScatterReduction r = REDUCE_NONE;
    if (!reduction_of(c, &r, error))
        return FALSE;
    gint64 q = ind->rank ? ind->dims[ind->rank - 1] : 0;
    if (x->rank > KERNEL_MAX_RANK || ind->rank < 1 || q < 1 || q > x->rank)
        return kernel_fail(c, error, "the indices' last dimension (%" G_GINT64_FORMAT ") must be 1 to the data's rank %d",
                           q, x->rank);
    if (r != REDUCE_NONE && !kernel_elem_supported(x->dtype))
        return kernel_fail(c, error, "the executor does not reduce %s", dtype_name(x->dtype));
    gint64 ys[KERNEL_MAX_RANK];
    strides_of(y, ys);
    gsize slice = (gsize)(q == x->rank ? 1 : ys[q - 1]), tuples = ind->count / (gsize)q;
    if (u->count != tuples * slice)
        return kernel_fail(c, error, "the updates hold %" G_GSIZE_FORMAT " elements, not %" G_GSIZE_FORMAT, u->count,
                           tuples * slice);
    kernel_move(y->data, x->data, x->count * dtype_size(x->dtype));
    for (gsize t = 0; t < tuples; t++) {
        gint64 off = 0;
        for (gint64 d = 0; d < q; d++) {
            gint64 i;
            if (!kernel_index_at(c, ind, t * (gsize)q + (gsize)d, x->dims[d], (int)d, &i, error))
                return FALSE;
            off += i * ys[d];
        }
        for (gsize e = 0; e < slice; e++)
            scatter_one(y, (gsize)off + e, u, t * slice + e, r);
    }
    return TRUE;
}
