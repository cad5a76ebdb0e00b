/* dtype.c — the element-type table: one row per ONNX data type; and the 16-bit floats' conversions. */
#include "model/dtype.h"

#include <math.h>
#include <string.h>

typedef struct {
    const char *name;
    guint size;
    gboolean is_float;
} DTypeRow;

static const DTypeRow dtype_rows[DT_COUNT] = {
    [DT_UNDEFINED] = {"UNDEFINED", 0, FALSE},
    [DT_FLOAT] = {"FLOAT", 4, TRUE},
    [DT_UINT8] = {"UINT8", 1, FALSE},
    [DT_INT8] = {"INT8", 1, FALSE},
    [DT_UINT16] = {"UINT16", 2, FALSE},
    [DT_INT16] = {"INT16", 2, FALSE},
    [DT_INT32] = {"INT32", 4, FALSE},
    [DT_INT64] = {"INT64", 8, FALSE},
    [DT_STRING] = {"STRING", 0, FALSE},
    [DT_BOOL] = {"BOOL", 1, FALSE},
    [DT_FLOAT16] = {"FLOAT16", 2, TRUE},
    [DT_DOUBLE] = {"DOUBLE", 8, TRUE},
    [DT_UINT32] = {"UINT32", 4, FALSE},
    [DT_UINT64] = {"UINT64", 8, FALSE},
    [DT_COMPLEX64] = {"COMPLEX64", 8, TRUE},
    [DT_COMPLEX128] = {"COMPLEX128", 16, TRUE},
    [DT_BFLOAT16] = {"BFLOAT16", 2, TRUE},
    [DT_FLOAT8E4M3FN] = {"FLOAT8E4M3FN", 1, TRUE},
    [DT_FLOAT8E4M3FNUZ] = {"FLOAT8E4M3FNUZ", 1, TRUE},
    [DT_FLOAT8E5M2] = {"FLOAT8E5M2", 1, TRUE},
    [DT_FLOAT8E5M2FNUZ] = {"FLOAT8E5M2FNUZ", 1, TRUE},
    [DT_UINT4] = {"UINT4", 0, FALSE},
    [DT_INT4] = {"INT4", 0, FALSE},
};

gboolean dtype_is_valid(gint64 number) { return number > DT_UNDEFINED && number < DT_COUNT; }

guint dtype_size(DType t) { return (t >= 0 && t < DT_COUNT) ? dtype_rows[t].size : 0; }

const char *dtype_name(DType t) { return (t >= 0 && t < DT_COUNT) ? dtype_rows[t].name : "INVALID"; }

gboolean dtype_is_float(DType t) { return t >= 0 && t < DT_COUNT && dtype_rows[t].is_float; }

double dtype_half_to_double(guint16 h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double x;
    if (exp == 0)
        x = ldexp(mant, -24);
    else if (exp == 31)
        x = mant ? NAN : INFINITY;
    else
        x = ldexp(mant + 1024, exp - 25);
    return sign ? -x : x;
}

guint16 dtype_double_to_half(double x)
{
    guint16 sign = signbit(x) ? 0x8000 : 0;
    if (isnan(x))
        return sign | 0x7e00;
    double a = fabs(x);
    if (a >= 65520.0) /* halfway between 65504 and 2^16 rounds to even: infinity */
        return sign | 0x7c00;
    if (a < ldexp(1, -14)) /* subnormal: whole units of 2^-24 (1024 units is the smallest normal's code) */
        return sign | (guint16)nearbyint(a * 16777216.0);
    int e;
    frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
    double units = nearbyint(ldexp(a, 11 - e)); /* 11 significant bits, to nearest even: [1024, 2048] */
    int biased = e - 1 + 15;
    if (units == 2048) {
        units = 1024;
        biased++;
    }
    if (biased >= 31)
        return sign | 0x7c00;
    return sign | (guint16)(biased << 10) | (guint16)((int)units - 1024);
}

double dtype_bfloat16_to_double(guint16 b)
{
    guint32 bits = (guint32)b << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

guint16 dtype_double_to_bfloat16(double x)
{
    float f = (float)x;
    guint32 bits;
    memcpy(&bits, &f, 4);
    if (isnan(f))
        return (guint16)((bits >> 16) | 0x40);
    return (guint16)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16); /* to nearest even */
}
