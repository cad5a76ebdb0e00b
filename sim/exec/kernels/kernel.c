/* kernel.c — the helpers every kernel family shares (see kernel.h). */
#include "ops/kernel.h"

#include <stdarg.h>
#include <string.h>

const ExecTensor *kernel_in(const KernelCall *c, guint k) { return k < c->n_in ? c->in[k] : NULL; }
ExecTensor *kernel_out(const KernelCall *c, guint k) { return k < c->n_out ? c->out[k] : NULL; }

gboolean kernel_fail(const KernelCall *c, GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "node %s: %s", c->node->label, what);
    g_free(what);
    return FALSE;
}

gboolean kernel_need_float(const KernelCall *c, const ExecTensor *t, const char *what, GError **error)
{
    if (t && t->dtype != DT_FLOAT)
        return kernel_fail(c, error, "the executor computes %s in float32, not %s", what, dtype_name(t->dtype));
    return TRUE;
}

gboolean elem_supported(DType d)
{
    switch (d) {
    case DT_FLOAT: case DT_DOUBLE: case DT_INT64: case DT_INT32: case DT_INT16: case DT_INT8: case DT_UINT8:
    case DT_UINT16: case DT_UINT32: case DT_UINT64: case DT_BOOL:
        return TRUE;
    default:
        return FALSE;
    }
}

double elem_get_f(const ExecTensor *t, gsize k)
{
    switch (t->dtype) {
    case DT_FLOAT: return ((const float *)t->data)[k];
    case DT_DOUBLE: return ((const double *)t->data)[k];
    default: return (double)elem_get_i(t, k);
    }
}

gint64 elem_get_i(const ExecTensor *t, gsize k)
{
    switch (t->dtype) {
    case DT_INT64: return ((const gint64 *)t->data)[k];
    case DT_INT32: return ((const gint32 *)t->data)[k];
    case DT_INT16: return ((const gint16 *)t->data)[k];
    case DT_INT8: return ((const gint8 *)t->data)[k];
    case DT_UINT8: case DT_BOOL: return ((const guint8 *)t->data)[k];
    case DT_UINT16: return ((const guint16 *)t->data)[k];
    case DT_UINT32: return ((const guint32 *)t->data)[k];
    case DT_UINT64: return (gint64)((const guint64 *)t->data)[k];
    case DT_FLOAT: return (gint64)((const float *)t->data)[k];
    case DT_DOUBLE: return (gint64)((const double *)t->data)[k];
    default: return 0;
    }
}

void elem_set_f(ExecTensor *t, gsize k, double v)
{
    switch (t->dtype) {
    case DT_FLOAT: ((float *)t->data)[k] = (float)v; break;
    case DT_DOUBLE: ((double *)t->data)[k] = v; break;
    case DT_BOOL: ((guint8 *)t->data)[k] = v != 0; break;
    default: elem_set_i(t, k, (gint64)v); break;
    }
}

void elem_set_i(ExecTensor *t, gsize k, gint64 v)
{
    switch (t->dtype) {
    case DT_INT64: ((gint64 *)t->data)[k] = v; break;
    case DT_INT32: ((gint32 *)t->data)[k] = (gint32)v; break;
    case DT_INT16: ((gint16 *)t->data)[k] = (gint16)v; break;
    case DT_INT8: ((gint8 *)t->data)[k] = (gint8)v; break;
    case DT_UINT8: ((guint8 *)t->data)[k] = (guint8)v; break;
    case DT_BOOL: ((guint8 *)t->data)[k] = v != 0; break;
    case DT_UINT16: ((guint16 *)t->data)[k] = (guint16)v; break;
    case DT_UINT32: ((guint32 *)t->data)[k] = (guint32)v; break;
    case DT_UINT64: ((guint64 *)t->data)[k] = (guint64)v; break;
    case DT_FLOAT: ((float *)t->data)[k] = (float)v; break;
    case DT_DOUBLE: ((double *)t->data)[k] = (double)v; break;
    default: break;
    }
}

void broadcast_strides(const ExecTensor *t, int rank, const gint64 *out_dims, gint64 *strides)
{
    gint64 stride = 1;
    for (int a = rank - 1; a >= 0; a--) {
        int ta = a - (rank - t->rank);
        if (ta < 0) {
            strides[a] = 0;
            continue;
        }
        strides[a] = t->dims[ta] == 1 && out_dims[a] != 1 ? 0 : stride;
        stride *= t->dims[ta];
    }
}

void kernel_index_next(gint64 *idx, const gint64 *dims, int rank)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < dims[d])
            return;
        idx[d] = 0;
    }
}

void kernel_move(void *dst, const void *src, gsize bytes)
{
    if (dst == src || !bytes)
        return;
    const char *s = src;
    char *d = dst;
    if (d < s + bytes && s < d + bytes) {
        void *tmp = g_memdup2(src, bytes);
        memcpy(dst, tmp, bytes);
        g_free(tmp);
    } else {
        memcpy(dst, src, bytes);
    }
}

int kernel_axis(gint64 axis, int rank) { return (int)(axis < 0 ? axis + rank : axis); }
