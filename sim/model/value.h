/* value.h — small constant tensor values known at plan time (initializers, Constant nodes, folded
 * shape arithmetic such as Shape -> Gather -> Concat -> Reshape). Integers and booleans are held as
 * gint64, floating types as double. Only tensors of at most VALUE_MAX_ELEMENTS are ever materialised. */
#ifndef SIM_VALUE_H
#define SIM_VALUE_H

#include "model/dtype.h"

#define VALUE_MAX_ELEMENTS 65536

typedef struct {
    DType dtype;
    gsize n;
    gint64 *i; /* set when !dtype_is_float(dtype) */
    double *f; /* set when dtype_is_float(dtype) */
} Value;

Value *value_new(DType dtype, gsize n);
Value *value_copy(const Value *v);
void value_free(Value *v);
/* Element k as a number, whichever representation the value uses. */
double value_get_f(const Value *v, gsize k);
gint64 value_get_i(const Value *v, gsize k);
/* Store a number into element k, converting (truncating to integer, or x != 0 for BOOL). */
void value_set_f(Value *v, gsize k, double x);
void value_set_i(Value *v, gsize k, gint64 x);
/* dst[d] = src[s], converting when one holds doubles and the other integers. */
void value_copy_element(Value *dst, gsize d, const Value *src, gsize s);
/* Decode little-endian raw bytes of dtype into a value; NULL if the type has no numeric decoding
 * or the byte count does not match n. */
Value *value_from_raw(DType dtype, gsize n, const guint8 *raw, gsize raw_len);
/* Encode as little-endian raw bytes of v->dtype (the inverse of value_from_raw). */
GBytes *value_to_raw(const Value *v);

#endif
