/* dtype.c — the element-type table: one row per ONNX data type. */
#include "model/dtype.h"

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
