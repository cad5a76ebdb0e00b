/* dtype.h — ONNX element types: their numbering (TensorProto.DataType), byte sizes and names. */
#ifndef SIM_DTYPE_H
#define SIM_DTYPE_H

#include <glib.h>

/* Numbered exactly as onnx.proto's TensorProto.DataType, so values pass through unchanged. */
typedef enum {
    DT_UNDEFINED = 0,
    DT_FLOAT = 1,
    DT_UINT8 = 2,
    DT_INT8 = 3,
    DT_UINT16 = 4,
    DT_INT16 = 5,
    DT_INT32 = 6,
    DT_INT64 = 7,
    DT_STRING = 8,
    DT_BOOL = 9,
    DT_FLOAT16 = 10,
    DT_DOUBLE = 11,
    DT_UINT32 = 12,
    DT_UINT64 = 13,
    DT_COMPLEX64 = 14,
    DT_COMPLEX128 = 15,
    DT_BFLOAT16 = 16,
    DT_FLOAT8E4M3FN = 17,
    DT_FLOAT8E4M3FNUZ = 18,
    DT_FLOAT8E5M2 = 19,
    DT_FLOAT8E5M2FNUZ = 20,
    DT_UINT4 = 21,
    DT_INT4 = 22,
    DT_COUNT
} DType;

/* Bytes per element; 0 for types without a fixed whole-byte size (undefined, string, 4-bit). */
guint dtype_size(DType t);
/* ONNX spelling ("FLOAT", "INT64", ...); "INVALID" for out-of-range numbers. */
const char *dtype_name(DType t);
gboolean dtype_is_valid(gint64 number);
/* Floating-point element types (constant values of these are held as doubles). */
gboolean dtype_is_float(DType t);
/* IEEE half precision and bfloat16 bits to and from double; to them rounds to nearest, ties to even
 * (bfloat16 through float32), NaN stays NaN, beyond the range is infinity. */
double dtype_half_to_double(guint16 h);
guint16 dtype_double_to_half(double x);
double dtype_bfloat16_to_double(guint16 b);
guint16 dtype_double_to_bfloat16(double x);

#endif
