/* value.c — constant values: creation, element access and raw little-endian (de)coding. */
#include "model/value.h"

#include <math.h>
#include <string.h>

Value *value_new(DType dtype, gsize n)
{
    Value *v = g_new0(Value, 1);
    v->dtype = dtype;
    v->n = n;
    if (dtype_is_float(dtype))
        v->f = g_new0(double, n ? n : 1);
    else
        v->i = g_new0(gint64, n ? n : 1);
    return v;
}

Value *value_copy(const Value *v)
{
    Value *c = value_new(v->dtype, v->n);
    if (v->f)
        memcpy(c->f, v->f, v->n * sizeof(double));
    else
        memcpy(c->i, v->i, v->n * sizeof(gint64));
    return c;
}

void value_free(Value *v)
{
    if (!v)
        return;
    g_free(v->i);
    g_free(v->f);
    g_free(v);
}

double value_get_f(const Value *v, gsize k) { return v->f ? v->f[k] : (double)v->i[k]; }

static gint64 double_to_i64(double x)
{
    if (isnan(x))
        return 0;
    if (x >= 9.2233720368547758e18)
        return G_MAXINT64;
    if (x <= -9.2233720368547758e18)
        return G_MININT64;
    return (gint64)x;
}

gint64 value_get_i(const Value *v, gsize k) { return v->f ? double_to_i64(v->f[k]) : v->i[k]; }

void value_set_f(Value *v, gsize k, double x)
{
    if (v->f) /* an element holds what its type can: folding agrees with the kernels */
        v->f[k] = v->dtype == DT_FLOAT ? (double)(float)x
                  : v->dtype == DT_FLOAT16 ? dtype_half_to_double(dtype_double_to_half(x))
                  : v->dtype == DT_BFLOAT16 ? dtype_bfloat16_to_double(dtype_double_to_bfloat16(x)) : x;
    else if (v->dtype == DT_BOOL)
        v->i[k] = x != 0.0;
    else
        v->i[k] = double_to_i64(x);
}

void value_set_i(Value *v, gsize k, gint64 x)
{
    if (v->f)
        v->f[k] = (double)x;
    else if (v->dtype == DT_BOOL)
        v->i[k] = x != 0;
    else
        v->i[k] = x;
}

void value_copy_element(Value *dst, gsize d, const Value *src, gsize s)
{
    if (dst->f && src->f)
        dst->f[d] = src->f[s];
    else if (dst->i && src->i)
        value_set_i(dst, d, src->i[s]);
    else
        value_set_f(dst, d, value_get_f(src, s));
}

Value *value_from_raw(DType dtype, gsize n, const guint8 *raw, gsize raw_len)
{
    guint size = dtype_size(dtype);
    if (size == 0 || dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128 ||
        dtype >= DT_FLOAT8E4M3FN || n > VALUE_MAX_ELEMENTS || raw_len != n * size)
        return NULL;
    Value *v = value_new(dtype, n);
    for (gsize k = 0; k < n; k++) {
        const guint8 *p = raw + k * size;
        guint64 u = 0;
        for (guint b = 0; b < size; b++)
            u |= (guint64)p[b] << (8 * b);
        switch (dtype) {
        case DT_FLOAT: {
            guint32 bits = (guint32)u;
            float f;
            memcpy(&f, &bits, 4);
            v->f[k] = f;
            break;
        }
        case DT_DOUBLE: memcpy(&v->f[k], &u, 8); break;
        case DT_FLOAT16: v->f[k] = dtype_half_to_double((guint16)u); break;
        case DT_BFLOAT16: v->f[k] = dtype_bfloat16_to_double((guint16)u); break;
        case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64: v->i[k] = (gint64)u; break;
        case DT_INT8: v->i[k] = (gint8)u; break;
        case DT_INT16: v->i[k] = (gint16)u; break;
        case DT_INT32: v->i[k] = (gint32)u; break;
        case DT_INT64: v->i[k] = (gint64)u; break;
        case DT_BOOL: v->i[k] = u != 0; break;
        default: value_free(v); return NULL;
        }
    }
    return v;
}

GBytes *value_to_raw(const Value *v)
{
    guint size = dtype_size(v->dtype);
    guint8 *out = g_malloc0(v->n * size + 1);
    for (gsize k = 0; k < v->n; k++) {
        guint64 u;
        switch (v->dtype) {
        case DT_FLOAT: {
            float f = (float)v->f[k];
            guint32 bits;
            memcpy(&bits, &f, 4);
            u = bits;
            break;
        }
        case DT_DOUBLE: memcpy(&u, &v->f[k], 8); break;
        case DT_FLOAT16: u = dtype_double_to_half(v->f[k]); break;
        case DT_BFLOAT16: u = dtype_double_to_bfloat16(v->f[k]); break;
        default: u = (guint64)v->i[k]; break;
        }
        for (guint b = 0; b < size; b++)
            out[k * size + b] = (guint8)(u >> (8 * b));
    }
    return g_bytes_new_take(out, v->n * size);
}
