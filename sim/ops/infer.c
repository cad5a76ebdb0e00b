/* infer.c — shared shape-inference helpers (see infer.h). */
#include "ops/infer.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

gboolean infer_fail(GError **error, const Node *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "node %s: %s", n->label, msg);
    g_free(msg);
    return FALSE;
}

gboolean shape_numel(int rank, const gint64 *dims, guint64 *out)
{
    guint64 n = 1;
    for (int k = 0; k < rank; k++)
        if (dims[k] < 0 || !graph_size_mul(n, (guint64)dims[k], &n))
            return FALSE;
    *out = n;
    return TRUE;
}

void infer_ctx_init(InferCtx *cx)
{
    *cx = (InferCtx){.values_left = G_MAXUINT64};
}

void infer_ctx_clear(InferCtx *cx)
{
    if (cx->most_values)
        g_ptr_array_unref(cx->most_values);
    infer_ctx_init(cx);
}

gboolean infer_values_take(InferCtx *cx, guint64 n)
{
    if (n > cx->values_left)
        return FALSE;
    cx->values_left -= n;
    return TRUE;
}

gint64 infer_dynamic_dim(const InferCtx *cx, Node *n, guint k, gint64 derived, int axis, const char *why)
{
    Tensor *t = node_output(n, k);
    if (!t)
        return derived;
    t->dynamic = TRUE;
    t->bound_why = why;
    t->bound_axis = axis;
    const gint64 *given = cx->bounds ? g_hash_table_lookup(cx->bounds, t->name) : NULL;
    gint64 dim = derived;
    if (given) {
        t->bound_why = "given with --bound";
        dim = MIN(*given, derived);
    }
    return cx->probing == 1 ? dim + 1 : cx->probing == 2 ? 0 : dim;
}

gboolean infer_value_fits(const InferCtx *cx, int rank, const gint64 *dims)
{
    guint64 n;
    return shape_numel(rank, dims, &n) && n <= VALUE_MAX_ELEMENTS && n <= cx->values_left;
}

gboolean infer_input(const Node *n, guint k, Tensor **out, GError **error)
{
    Tensor *t = node_input(n, k);
    if (!t)
        return infer_fail(error, n, "input %u is missing", k);
    if (!t->shape_known)
        return infer_fail(error, n, "input '%s' has no known shape", t->name);
    *out = t;
    return TRUE;
}

gboolean infer_set_shape(Tensor *t, DType dtype, int rank, const gint64 *dims, gboolean allow_unsized,
                          GError **error)
{
    if (rank < 0 || rank > MAX_RANK) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "tensor '%s' would have rank %d (at most %d)", t->name,
                    rank, MAX_RANK);
        return FALSE;
    }
    guint64 numel, bytes = 0;
    for (int d = 0; d < rank; d++) {
        if (dims[d] < 0) {
            char *s = graph_dims_to_string(rank, dims);
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "tensor '%s' would have a negative dimension: %s",
                        t->name, s);
            g_free(s);
            return FALSE;
        }
    }
    if (dtype_size(dtype) == 0 && !allow_unsized) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "tensor '%s' has element type %s, which has no fixed byte size", t->name, dtype_name(dtype));
        return FALSE;
    }
    if (!shape_numel(rank, dims, &numel) || !graph_size_mul(numel, dtype_size(dtype), &bytes)) {
        char *s = graph_dims_to_string(rank, dims);
        g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "tensor '%s' %s of %s: byte size overflows 64 bits",
                    t->name, s, dtype_name(dtype));
        g_free(s);
        return FALSE;
    }
    if (!t->dims || t->rank != rank) { /* (the same rank reuses its dims: run-time inference sets every step's) */
        g_free(t->dims);
        t->dims = g_new0(gint64, rank ? rank : 1);
    }
    t->dtype = dtype;
    t->rank = rank;
    if (rank)
        memmove(t->dims, dims, rank * sizeof(gint64));
    t->bytes = bytes;
    t->shape_known = TRUE;
    return TRUE;
}

gboolean infer_set_output(Node *n, guint k, DType dtype, int rank, const gint64 *dims, GError **error)
{
    Tensor *t = node_output(n, k);
    if (!t)
        return TRUE;
    if (!infer_set_shape(t, dtype, rank, dims, FALSE, error)) {
        g_prefix_error(error, "node %s: ", n->label);
        return FALSE;
    }
    return TRUE;
}

void infer_set_value(Node *n, guint k, Value *v)
{
    Tensor *t = node_output(n, k);
    if (!t) {
        value_free(v);
        return;
    }
    value_free(t->value);
    t->value = v;
}

gboolean infer_same_as_input(Node *n, guint k, guint j, gboolean with_value, GError **error)
{
    Tensor *in;
    if (!infer_input(n, j, &in, error) || !infer_set_output(n, k, in->dtype, in->rank, in->dims, error))
        return FALSE;
    if (with_value && in->value)
        infer_set_value(n, k, value_copy(in->value));
    return TRUE;
}

gboolean infer_input_value(const Node *n, guint k, const char *what, const Value **out, GError **error)
{
    Tensor *t = node_input(n, k);
    if (!t)
        return infer_fail(error, n, "input %u (%s) is missing", k, what);
    if (!t->value)
        return infer_fail(error, n, "input '%s' (%s) must be a constant the planner can compute, and it is not",
                          t->name, what);
    *out = t->value;
    return TRUE;
}

gboolean infer_int_list(const Node *n, const char *attr, int k, const char *what, GArray **out,
                        gboolean *present, GError **error)
{
    const GArray *ints;
    *out = NULL;
    *present = FALSE;
    if (attr) {
        if (!node_attr_ints(n, attr, &ints, error))
            return FALSE;
        if (ints) {
            *out = g_array_copy((GArray *)ints);
            *present = TRUE;
            return TRUE;
        }
    }
    if (k < 0 || !node_input(n, k))
        return TRUE;
    const Value *v;
    if (!infer_input_value(n, k, what, &v, error))
        return FALSE;
    if (dtype_is_float(v->dtype))
        return infer_fail(error, n, "input '%s' (%s) must hold integers, not %s", node_input(n, k)->name, what,
                          dtype_name(v->dtype));
    *out = g_array_sized_new(FALSE, FALSE, sizeof(gint64), v->n);
    g_array_append_vals(*out, v->i, v->n);
    *present = TRUE;
    return TRUE;
}

gboolean infer_axis(const Node *n, gint64 axis, int rank, int *out, GError **error)
{
    if (axis < -(gint64)rank || axis >= rank || (rank == 0 && axis != 0))
        return infer_fail(error, n, "axis %" G_GINT64_FORMAT " is out of range for rank %d", axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return TRUE;
}

gboolean infer_broadcast(const Node *n, int ra, const gint64 *a, int rb, const gint64 *b, int *rank,
                         gint64 *out, GError **error)
{
    int r = MAX(ra, rb);
    for (int k = 0; k < r; k++) {
        gint64 da = k - (r - ra) >= 0 ? a[k - (r - ra)] : 1;
        gint64 db = k - (r - rb) >= 0 ? b[k - (r - rb)] : 1;
        if (da != db && da != 1 && db != 1) {
            char *sa = graph_dims_to_string(ra, a), *sb = graph_dims_to_string(rb, b);
            infer_fail(error, n, "shapes %s and %s do not broadcast (dimension %d: %" G_GINT64_FORMAT " vs %"
                       G_GINT64_FORMAT ")", sa, sb, k, da, db);
            g_free(sa);
            g_free(sb);
            return FALSE;
        }
        out[k] = da == 1 ? db : da;
    }
    *rank = r;
    return TRUE;
}

gsize infer_broadcast_source(int rank, const gint64 *dims, int in_rank, const gint64 *in_dims, gsize flat)
{
    gsize src = 0, stride = 1;
    for (int k = rank - 1; k >= 0; k--) {
        gsize idx = dims[k] ? flat % (gsize)dims[k] : 0;
        flat = dims[k] ? flat / (gsize)dims[k] : 0;
        int j = k - (rank - in_rank);
        if (j < 0)
            continue;
        if (in_dims[j] != 1)
            src += idx * stride;
        stride *= (gsize)in_dims[j];
    }
    return src;
}
