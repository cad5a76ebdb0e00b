/* along-axis.c — kernels that walk one axis of their input, row by row (outer x len x inner): ArgMax and
 * ArgMin (keepdims, select_last_index), TopK (largest or smallest, ties to the lower index, as the ONNX
 * specification orders them), Hardmax (the first maximum of each row is 1) and CumSum (exclusive,
 * reverse). Any numeric dtype through elem_get_*; NaN never wins a comparison. Hardmax and CumSum may run
 * in place (in-place sharing treats them as elementwise): each row is read before it is written. */
#include "exec/kernel.h"
#include "ops/ops.h"

#include <stdlib.h>
#include <string.h>

/* The axis attribute of ArgMax/ArgMin/TopK, checked against the rank. */
static gboolean axis_of(const KernelCall *c, const ExecTensor *x, gint64 dflt, int *axis, GError **error)
{
    gint64 a;
    if (!node_attr_int(c->node, "axis", dflt, &a, error))
        return FALSE;
    *axis = kernel_axis(a, x->rank);
    if (*axis < 0 || *axis >= MAX(x->rank, 1))
        return kernel_fail(c, error, "axis %" G_GINT64_FORMAT " is outside rank %d", a, x->rank);
    return TRUE;
}

gboolean kernel_arg_reduce(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gboolean want_max = kernel_kind(c) == KIND_ARG_MAX;
    gint64 last;
    int axis;
    if (!axis_of(c, x, 0, &axis, error) || !node_attr_int(c->node, "select_last_index", 0, &last, error))
        return FALSE;
    gint64 outer, len, inner;
    kernel_axis_geometry(x, axis, &outer, &len, &inner);
    if (!len)
        return kernel_fail(c, error, "the reduced axis is empty");
    for (gint64 o = 0; o < outer; o++)
        for (gint64 i = 0; i < inner; i++) {
            gsize base = (gsize)(o * len * inner + i);
            double best = kernel_elem_get_f(x, base);
            gint64 at = 0;
            for (gint64 j = 1; j < len; j++) {
                double v = kernel_elem_get_f(x, base + (gsize)(j * inner));
                gboolean better = want_max ? v > best : v < best;
                if (better || (last && v == best)) {
                    best = v;
                    at = j;
                }
            }
            kernel_elem_set_i(y, (gsize)(o * inner + i), at);
        }
    return TRUE;
}

typedef struct {
    double value;
    gint64 index;
} Ranked;

static int by_value_desc(const void *pa, const void *pb)
{
    const Ranked *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static int by_value_asc(const void *pa, const void *pb)
{
    const Ranked *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

typedef int (*RankOrder)(const void *, const void *);

/* Moves the element at `at` of a heap of n down to its place: the heap's root is the element that ranks last. */
static void sift_down(Ranked *heap, gint64 n, gint64 at, RankOrder order)
{
    for (;;) {
        gint64 worst = at, l = 2 * at + 1, r = l + 1;
        if (l < n && order(&heap[l], &heap[worst]) > 0)
            worst = l;
        if (r < n && order(&heap[r], &heap[worst]) > 0)
            worst = r;
        if (worst == at)
            return;
        Ranked t = heap[at];
        heap[at] = heap[worst];
        heap[worst] = t;
        at = worst;
    }
}

/* The first k of row's n elements in `order`, sorted, in row[0..k): a heap of the best k so far (its root the
 * worst of them, which each later element has only to beat: n log k, not the whole row's sort), then their sort.
 * The (value, index) pairs are all different, so the result is the whole row's sort's first k. */
static void top_k(Ranked *row, gint64 n, gint64 k, RankOrder order)
{
    if (k <= 0)
        return;
    if (k < n) {
        for (gint64 at = k / 2 - 1; at >= 0; at--)
            sift_down(row, k, at, order);
        for (gint64 j = k; j < n; j++)
            if (order(&row[j], &row[0]) < 0) {
                row[0] = row[j];
                sift_down(row, k, 0, order);
            }
    }
    qsort(row, (size_t)MIN(k, n), sizeof *row, order);
}

gboolean kernel_topk(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *k_t = kernel_in(c, 1);
    ExecTensor *values = kernel_out(c, 0), *indices = kernel_out(c, 1);
    gint64 largest, k_attr;
    int axis;
    if (!axis_of(c, x, -1, &axis, error) || !node_attr_int(c->node, "largest", 1, &largest, error) ||
        !node_attr_int(c->node, "k", -1, &k_attr, error))
        return FALSE;
    gint64 k = k_t && k_t->count ? kernel_elem_get_i(k_t, 0) : k_attr;
    gint64 outer, len, inner;
    kernel_axis_geometry(x, axis, &outer, &len, &inner);
    if (k < 0 || k > len)
        return kernel_fail(c, error, "K %" G_GINT64_FORMAT " is not within the axis' %" G_GINT64_FORMAT " elements", k, len);
    gint64 out_len = values ? values->dims[axis] : indices->dims[axis];
    if (out_len != k) { /* a K computed when it runs: the outputs take it (inside their planned bound) */
        gint64 dims[KERNEL_MAX_RANK];
        if (x->rank > KERNEL_MAX_RANK)
            return kernel_fail(c, error, "input rank %d is above the executor's %d", x->rank, KERNEL_MAX_RANK);
        memcpy(dims, x->dims, sizeof(gint64) * (gsize)x->rank);
        dims[axis] = k;
        if ((values && !kernel_set_dims(c, 0, dims, error)) || (indices && !kernel_set_dims(c, 1, dims, error)))
            return FALSE;
    }
    Ranked *row = g_new(Ranked, MAX(len, 1));
    for (gint64 o = 0; o < outer; o++)
        for (gint64 i = 0; i < inner; i++) {
            for (gint64 j = 0; j < len; j++)
                row[j] = (Ranked){kernel_elem_get_f(x, (gsize)((o * len + j) * inner + i)), j};
            top_k(row, len, k, largest ? by_value_desc : by_value_asc);
            for (gint64 j = 0; j < k; j++) {
                gsize at = (gsize)((o * k + j) * inner + i);
                if (values)
                    kernel_elem_set_f(values, at, row[j].value);
                if (indices)
                    kernel_elem_set_i(indices, at, row[j].index);
            }
        }
    g_free(row);
    return TRUE;
}

gboolean kernel_hardmax(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gint64 outer, len, inner;
    if (!kernel_coerced_rows(c, x, &outer, &len, &inner, error))
        return FALSE;
    for (gint64 o = 0; o < outer; o++)
        for (gint64 i = 0; i < inner; i++) {
            gsize base = (gsize)(o * len * inner + i);
            gint64 at = 0;
            double best = len ? kernel_elem_get_f(x, base) : 0;
            for (gint64 j = 1; j < len; j++) {
                double v = kernel_elem_get_f(x, base + (gsize)(j * inner));
                if (v > best) {
                    best = v;
                    at = j;
                }
            }
            for (gint64 j = 0; j < len; j++)
                kernel_elem_set_f(y, base + (gsize)(j * inner), j == at);
        }
    return TRUE;
}

gboolean kernel_cumsum(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *axis_t = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    gint64 exclusive, reverse;
    if (!node_attr_int(c->node, "exclusive", 0, &exclusive, error) || !node_attr_int(c->node, "reverse", 0, &reverse, error))
        return FALSE;
    if (!axis_t || axis_t->count != 1)
        return kernel_fail(c, error, "the axis input must hold one integer");
    gint64 a = kernel_elem_get_i(axis_t, 0);
    int axis = kernel_axis(a, x->rank);
    if (axis < 0 || axis >= x->rank)
        return kernel_fail(c, error, "axis %" G_GINT64_FORMAT " is outside rank %d", a, x->rank);
    gint64 outer, len, inner;
    kernel_axis_geometry(x, axis, &outer, &len, &inner);
    gboolean floats = dtype_is_float(x->dtype);
    for (gint64 o = 0; o < outer; o++)
        for (gint64 i = 0; i < inner; i++) {
            double sum = 0;
            gint64 isum = 0;
            for (gint64 s = 0; s < len; s++) {
                gint64 j = reverse ? len - 1 - s : s;
                gsize at = (gsize)((o * len + j) * inner + i);
                /* read before the (possibly shared) element is written */
                double v = floats ? kernel_elem_get_f(x, at) : 0;
                gint64 iv = floats ? 0 : kernel_elem_get_i(x, at);
                if (!exclusive) {
                    sum += v;
                    isum = (gint64)((guint64)isum + (guint64)iv);
                }
                if (floats)
                    kernel_elem_set_f(y, at, sum);
                else
                    kernel_elem_set_i(y, at, isum);
                if (exclusive) {
                    sum += v;
                    isum = (gint64)((guint64)isum + (guint64)iv);
                }
            }
        }
    return TRUE;
}
