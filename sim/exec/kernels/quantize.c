/* quantize.c — the quantization family (ONNX QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv), computed as the operator definitions state: float32
 * arithmetic, round half to even, saturation to the quantized type's range; a scale and zero point per tensor or
 * per element of `axis`; integer products accumulated exactly. */
#include "exec/kernel.h"
#include "exec/kernels/qconv.h"
#include "exec/kernels/window.h"
#include "exec/onednn.h"

#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The range of a quantized type. */
static void range_of(DType d, float *lo, float *hi)
{
    switch (d) {
    case DT_INT8: *lo = -128; *hi = 127; break;
    case DT_UINT16: *lo = 0; *hi = 65535; break;
    case DT_INT16: *lo = -32768; *hi = 32767; break;
    default: *lo = 0; *hi = 255; break;
    }
}

/* An integral value held to [lo, hi] (NaN to lo: no conversion of a NaN to an integer). Callers round half to even
 * first: x / scale is rounded before the zero point is added, which an odd zero point would otherwise change. */
static gint64 saturate(float r, float lo, float hi)
{
    return (gint64)(!(r >= lo) ? lo : r > hi ? hi : r);
}

/* x / scale quantized as ONNX Runtime's vector kernels do (the same values as saturate(nearbyintf(f) + z)): held to
 * the range less the zero point (a NaN to its low end), rounded half to even, plus the zero point. One expression
 * without a branch or a call, which the compiler vectorises: adding and taking away 1.5 * 2^23 rounds a float below
 * 2^22 in size to nearest, ties to even (the default rounding mode), as nearbyintf does; the held value is that
 * small. */
static inline float quantize_value(float f, float lo, float hi, float z)
{
    f = !(f >= lo) ? lo : f;
    f = f > hi ? hi : f;
    return ((f + 0x1.8p23f) - 0x1.8p23f) + z;
}

/* quantize_value over an array: out[k] from in[k] and `s` by `value` (x / s for QuantizeLinear, a sum times its
 * multiplier for a requantization), into 8 bits. Each loop is stamped for the baseline and for AVX-512 (the kernels
 * are built for baseline x86-64, whose vectors hold 4 floats); quant_loop picks the widest the CPU runs. The
 * arithmetic is the same in both, so are the bits. */
typedef void (*QuantLoop)(const void *in, float s, float lo, float hi, float z, void *out, gsize n);
#define QUANT_LOOP(name, in_t, out_t, value, ...)                                                                 \
    __VA_ARGS__ static void name(const void *in_, float s, float lo, float hi, float z, void *out_, gsize n)      \
    {                                                                                                             \
        const in_t *restrict in = in_;                                                                            \
        out_t *restrict out = out_;                                                                               \
        for (gsize k = 0; k < n; k++)                                                                             \
            out[k] = (out_t)(gint32)quantize_value(value, lo, hi, z);                                             \
    }
#define QUANT_LOOPS(suffix, ...)                                                                                  \
    QUANT_LOOP(quantize_u8##suffix, float, guint8, in[k] / s, __VA_ARGS__)                                       \
    QUANT_LOOP(quantize_s8##suffix, float, gint8, in[k] / s, __VA_ARGS__)                                        \
    QUANT_LOOP(requant_u8##suffix, gint32, guint8, (float)in[k] * s, __VA_ARGS__)                                \
    QUANT_LOOP(requant_s8##suffix, gint32, gint8, (float)in[k] * s, __VA_ARGS__)                                 \
    static const QuantLoop quant_loops##suffix[4] = {quantize_u8##suffix, quantize_s8##suffix, requant_u8##suffix, \
                                                     requant_s8##suffix};
QUANT_LOOPS(_plain)
#if defined(__x86_64__)
QUANT_LOOPS(_avx512, __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))))
#endif

/* DequantizeLinear's loop from 8 bits to float32 ((x - z) * s, each element), stamped the same way. */
typedef void (*DequantLoop)(const void *in, float s, float z, float *out, gsize n);
#define DEQUANT_LOOP(name, in_t, ...)                                                                            \
    __VA_ARGS__ static void name(const void *in_, float s, float z, float *restrict out, gsize n)                 \
    {                                                                                                             \
        const in_t *restrict in = in_;                                                                            \
        for (gsize k = 0; k < n; k++)                                                                             \
            out[k] = ((float)in[k] - z) * s;                                                                      \
    }
#define DEQUANT_LOOPS(suffix, ...)                                                                                \
    DEQUANT_LOOP(dequant_u8##suffix, guint8, __VA_ARGS__)                                                        \
    DEQUANT_LOOP(dequant_s8##suffix, gint8, __VA_ARGS__)
DEQUANT_LOOPS(_plain)
#if defined(__x86_64__)
DEQUANT_LOOPS(_avx512, __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))))
#endif

/* What the CPU runs of the loops stamped here: AVX-512 (with its byte, word and 128/256-bit forms). Its VNNI byte
 * product vpdpbusd, which the integer products need too, is kernel_qconv_supported's (qconv.h). */
static gboolean have_avx512(void)
{
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
    return FALSE;
#endif
}

/* The dequantizing loop from `from` (uint8 or int8). */
static DequantLoop dequant_loop(DType from)
{
#if defined(__x86_64__)
    if (have_avx512())
        return from == DT_INT8 ? dequant_s8_avx512 : dequant_u8_avx512;
#endif
    return from == DT_INT8 ? dequant_s8_plain : dequant_u8_plain;
}

/* The loop of quantize_value from float (`from_sums` FALSE) or int32 sums into uint8 or int8 (`to`). */
static QuantLoop quant_loop(gboolean from_sums, DType to)
{
    int k = (from_sums ? 2 : 0) + (to == DT_INT8);
#if defined(__x86_64__)
    if (have_avx512())
        return quant_loops_avx512[k];
#endif
    return quant_loops_plain[k];
}

/* Per-axis and blocked parameters: the index into scale and zero point of x's element k. */
typedef struct {
    gsize inner, dim; /* elements after the axis; its length (1: per tensor) */
    gsize block;      /* blocked (opset 21's block_size): the elements of the axis each scale serves; else 0 */
    gsize scales;     /* blocked: the scale's length along the axis */
} Along;

static gboolean along_of(const KernelCall *c, const ExecTensor *x, const ExecTensor *scale, Along *al, GError **error)
{
    *al = (Along){.inner = 1, .dim = 1};
    if (!scale || scale->rank == 0 || scale->count == 1)
        return TRUE;
    gint64 axis = 1, block = 0;
    if (!node_attr_int(c->node, "axis", 1, &axis, error) || !node_attr_int(c->node, "block_size", 0, &block, error))
        return FALSE;
    int a = kernel_axis(axis, x->rank);
    for (int k = a + 1; k < x->rank; k++)
        al->inner *= (gsize)x->dims[k];
    al->dim = (gsize)x->dims[a];
    if (block > 0) { /* the shapes were checked when planned (ops-quantize.c) */
        al->block = (gsize)block;
        al->scales = scale->rank == x->rank ? (gsize)scale->dims[a] : 0;
        if (!al->scales || scale->count != x->count / MAX(al->dim, 1) * al->scales)
            return kernel_fail(c, error, "the scale's %zu values are not blocks of %zu along axis %d", scale->count,
                               al->block, a);
        return TRUE;
    }
    if (scale->count != al->dim)
        return kernel_fail(c, error, "the scale has %zu values where the axis has %zu", scale->count, al->dim);
    return TRUE;
}

static gsize along_index(const Along *al, gsize k)
{
    if (al->block) {
        gsize outer = k / (al->inner * al->dim), i = (k / al->inner) % al->dim;
        return (outer * al->scales + i / al->block) * al->inner + k % al->inner;
    }
    return al->dim == 1 ? 0 : (k / al->inner) % al->dim;
}

gboolean kernel_quantize_linear(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *scale = kernel_in(c, 1), *zp = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    Along al;
    float lo, hi;
    if (!along_of(c, x, scale, &al, error))
        return FALSE;
    range_of(y->dtype, &lo, &hi);
    if (al.dim == 1 && !al.block && x->dtype == DT_FLOAT && (y->dtype == DT_UINT8 || y->dtype == DT_INT8)) {
        /* one scale, float32 to 8 bits (a QDQ model's activations): the same arithmetic, without a call per element */
        float s = (float)kernel_elem_get_f(scale, 0), z = zp && zp->count ? (float)kernel_elem_get_i(zp, 0) : 0;
        quant_loop(FALSE, y->dtype)(x->data, s, lo - z, hi - z, z, y->data, y->count);
        return TRUE;
    }
    for (gsize k = 0; k < y->count; k++) {
        gsize at = along_index(&al, k);
        float s = (float)kernel_elem_get_f(scale, at), z = zp && zp->count ? (float)kernel_elem_get_i(zp, at) : 0;
        kernel_elem_set_i(y, k, saturate(nearbyintf((float)kernel_elem_get_f(x, k) / s) + z, lo, hi));
    }
    return TRUE;
}

gboolean kernel_dequantize_linear(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *scale = kernel_in(c, 1), *zp = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    Along al;
    if (!along_of(c, x, scale, &al, error))
        return FALSE;
    if (y->dtype == DT_FLOAT && (x->dtype == DT_UINT8 || x->dtype == DT_INT8) && !al.block) {
        /* 8 bits to float32 (a QDQ model's activations and weights): the same arithmetic, element by element */
        DequantLoop loop = dequant_loop(x->dtype);
        gsize n = y->count;
        for (gsize at = 0, k = 0; k < n; at = (at + 1) % al.dim) { /* runs of `inner` share a scale */
            float s = (float)kernel_elem_get_f(scale, at), z = zp && zp->count ? (float)kernel_elem_get_i(zp, at) : 0;
            gsize end = MIN(k + (al.dim == 1 ? n : al.inner), n);
            loop((const guint8 *)x->data + k, s, z, (float *)y->data + k, end - k);
            k = end;
        }
        return TRUE;
    }
    for (gsize k = 0; k < y->count; k++) {
        gsize at = along_index(&al, k);
        float s = (float)kernel_elem_get_f(scale, at), z = zp && zp->count ? (float)kernel_elem_get_i(zp, at) : 0;
        kernel_elem_set_f(y, k, ((float)kernel_elem_get_i(x, k) - z) * s);
    }
    return TRUE;
}

/* DynamicQuantizeLinear of n floats into out (uint8): the scale and zero point it chose in *scale_out, *zero_out. */
static void dynamic_quantize(const float *in, gsize n, guint8 *out, float *scale_out, gint64 *zero_out)
{
    /* the range, which always holds 0: 16 running minima and maxima (one vector's lanes), then theirs; a NaN is
     * skipped (never less nor greater) */
    float lo[16] = {0}, hi[16] = {0}, mn = 0, mx = 0;
    gsize k = 0;
    for (; k + 16 <= n; k += 16)
        for (int l = 0; l < 16; l++) {
            lo[l] = in[k + l] < lo[l] ? in[k + l] : lo[l];
            hi[l] = in[k + l] > hi[l] ? in[k + l] : hi[l];
        }
    for (; k < n; k++) {
        mn = in[k] < mn ? in[k] : mn;
        mx = in[k] > mx ? in[k] : mx;
    }
    for (int l = 0; l < 16; l++) {
        mn = lo[l] < mn ? lo[l] : mn;
        mx = hi[l] > mx ? hi[l] : mx;
    }
    float scale = (mx - mn) / 255.0f;
    gint64 zero = scale > 0 ? saturate(nearbyintf(0.0f - mn / scale), 0, 255) : 0;
    if (scale > 0) /* saturate(round(x / scale) + zero): quantize_value's form */
        quant_loop(FALSE, DT_UINT8)(in, scale, 0.0f - (float)zero, 255.0f - (float)zero, (float)zero, out, n);
    else
        memset(out, (int)zero, n);
    *scale_out = scale;
    *zero_out = zero;
}

gboolean kernel_dynamic_quantize_linear(const KernelCall *c, GError **error)
{
    (void)error;
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0), *y_scale = kernel_out(c, 1), *y_zp = kernel_out(c, 2);
    float scale;
    gint64 zero;
    dynamic_quantize(x->data, x->count, y->data, &scale, &zero);
    if (y_scale)
        kernel_elem_set_f(y_scale, 0, scale);
    if (y_zp)
        kernel_elem_set_i(y_zp, 0, zero);
    return TRUE;
}

/* What becomes of one integer product (row i, column j; `at` its flat index in the output). */
typedef void (*Emit)(void *data, gsize at, gint64 i, gint64 j, gint64 acc);

/* Where the sums go when oneDNN's integer GEMM computes them (the library kernels of the rows). A convolution's,
 * per image and group, are a block C [channels x positions] (each channel's bias added) handed to `block` with the
 * first channel and the flat index of its first output; a matrix product's go into `sums` as they lie
 * (MatMulInteger) or, where it is NULL, to the Emit of products() one by one. */
typedef void (*EmitBlock)(void *data, const gint32 *sums, gint64 channels, gint64 positions, gint64 first, gsize at);
typedef struct {
    const gint32 *bias_of; /* per output channel, or NULL */
    EmitBlock block;
    void *data;
    gint32 *sums;
    guint w_input; /* the node's input that holds w */
} GemmTarget;

/* Whether oneDNN's integer GEMM sums exactly in int32 here: on AVX-512 VNNI, whose vpdpbusd adds four products to
 * an int32 at once. Without it oneDNN adds pairs of unsigned-by-signed byte products in int16 first, which
 * saturate (its guide, "Nuances of int8 computations"). */
static gboolean gemm_exact(void)
{
    return onednn.engine && (onednn.dnnl_get_effective_cpu_isa() & dnnl_cpu_isa_avx512_core_vnni) ==
                                dnnl_cpu_isa_avx512_core_vnni;
}

/* acc[i] += w * row[i] for n elements, in int32 (exact: the caller bounds the sums), the row int32, uint8 or int8;
 * one loop each, compiled for the CPU's widest integer multiply where it has one (the baseline x86-64 has no 32-bit
 * vector multiply). */
#define AXPY(name, row_t, ...)                                                                                     \
    __VA_ARGS__ static void name(gint32 *restrict acc, const void *row_, gint32 w, gint64 n)                      \
    {                                                                                                              \
        const row_t *restrict row = row_;                                                                          \
        for (gint64 i = 0; i < n; i++)                                                                             \
            acc[i] += w * (gint32)row[i];                                                                          \
    }
#define AXPYS(suffix, ...)                                                                                         \
    AXPY(axpy_i32##suffix, gint32, __VA_ARGS__)                                                                    \
    AXPY(axpy_u8##suffix, guint8, __VA_ARGS__)                                                                     \
    AXPY(axpy_s8##suffix, gint8, __VA_ARGS__)                                                                      \
    static const AxpyI32 axpys##suffix[3] = {axpy_i32##suffix, axpy_u8##suffix, axpy_s8##suffix};

typedef void (*AxpyI32)(gint32 *restrict acc, const void *row, gint32 w, gint64 n);
AXPYS(_plain)
#if defined(__x86_64__)
AXPYS(_avx512, __attribute__((target("avx512f,avx512bw"))))
AXPYS(_avx2, __attribute__((target("avx2"))))
#endif

/* The axpy for rows of type t (DT_INT32, DT_UINT8 or DT_INT8). */
static AxpyI32 axpy_of(DType t)
{
    int k = t == DT_UINT8 ? 1 : t == DT_INT8 ? 2 : 0;
#if defined(__x86_64__)
    if (have_avx512())
        return axpys_avx512[k];
    if (__builtin_cpu_supports("avx2"))
        return axpys_avx2[k];
#endif
    return axpys_plain[k];
}

/* A zero point's one value (0 where there is none); FALSE where it has several that differ. */
static gboolean one_zero_point(const ExecTensor *zp, gint64 *z)
{
    *z = zp && zp->count ? kernel_elem_get_i(zp, 0) : 0;
    for (gsize k = 1; zp && k < zp->count; k++)
        if (kernel_elem_get_i(zp, k) != *z)
            return FALSE;
    return TRUE;
}

/* n bytes from `from` into `to`, each xor `flip`: 0x80 flips the top bit (uint8 to int8 less 128, and back). */
static void flip_bytes(const guint8 *from, guint8 *to, gsize n, guint8 flip)
{
    for (gsize k = 0; k < n; k++)
        to[k] = (guint8)(from[k] ^ flip);
}

/* The bytes of input `k` (8-bit w) as `want` (DT_UINT8 or DT_INT8): the tensor's own where it is that type; else its
 * bytes flipped (flip_bytes): for the node's weights (`weights`) when they are a constant, once, into its prepared
 * state (the executor's own memory); else into `scratch` (its bytes' worth), at every call. */
static const guint8 *bytes_as(const KernelCall *c, guint k, const ExecTensor *w, DType want, gboolean weights,
                              guint8 *scratch)
{
    if (w->dtype == want)
        return w->data;
    const Tensor *t = node_input(c->node, k);
    if (!weights || !(t && t->init)) {
        flip_bytes(w->data, scratch, w->count, 0x80);
        return scratch;
    }
    KernelPrepared *prep = c->prepared;
    if (!prep->state) {
        prep->state = g_malloc(w->count + 1);
        flip_bytes(w->data, prep->state, w->count, 0x80);
        prep->free = g_free;
        prep->bytes += w->count;
    }
    return prep->state;
}

/* A skinny integer product (at most 16 rows of A by a constant B) on our own AVX-512 VNNI kernel, B packed once
 * at the node's first call (the executor's own memory): panels of 16 columns, in each a quad of B's rows as 4
 * unsigned bytes per column (vpdpbusd's vector operand; an int8 B plus 128), K padded to a multiple of 4 and N to
 * 16 with zeros; and each column's sum, for A's zero point. A's rows are the signed operand (a uint8 A less 128),
 * 4 bytes of a row broadcast from memory into each vpdpbusd. oneDNN's integer GEMM packs B at every call, which a
 * product of a few rows by a large weight (a dynamically quantized decoder's step) spends most of its time on. */
typedef struct {
    guint8 *panels;
    gint32 *colsum;
    gint64 quads, n16;
} SkinnyI8;

static void skinny_i8_free(void *p)
{
    SkinnyI8 *s = p;
    g_free(s->panels);
    g_free(s->colsum);
    g_free(s);
}

static SkinnyI8 *skinny_i8_pack(const guint8 *b, guint8 flip, gint64 kk, gint64 n, guint64 *bytes)
{
    SkinnyI8 *s = g_new0(SkinnyI8, 1);
    s->quads = (kk + 3) / 4;
    s->n16 = (n + 31) / 32 * 2; /* (whole pairs of panels: the kernel takes two at a time) */
    s->panels = g_malloc0((gsize)(s->n16 * s->quads * 64));
    s->colsum = g_new0(gint32, s->n16 * 16);
    for (gint64 k = 0; k < kk; k++)
        for (gint64 j = 0; j < n; j++) {
            guint8 v = (guint8)(b[k * n + j] ^ flip);
            s->panels[((j / 16) * s->quads + k / 4) * 64 + (j % 16) * 4 + k % 4] = v;
            s->colsum[j] += v;
        }
    *bytes += (guint64)(s->n16 * s->quads * 64) + (guint64)(s->n16 * 16) * sizeof(gint32);
    return s;
}

#if defined(__x86_64__)
/* R rows of A by two panels (32 columns) into C's rows (ldc apart; the first `cols` of the 32 are C's): the raw
 * sums less za times each column's sum (zc, 32 of them) and each row's term (zr: zb times its sum, less K za zb).
 * In int32 arithmetic modulo 2^32, which gives the exact value: the exact value fits int32 (at most 33,025
 * terms). The rows come interleaved (skinny_i8): quad q of row i is the int32 at a[q * R + i], so each broadcast
 * is from one base at a fixed offset and feeds both panels' vpdpbusd. Each panel's bytes 8 lines ahead are hinted
 * to the cache (the weights stream from memory once per product: a dynamically quantized GPT-2's step 4% faster). */
#define SKINNY_I8_ROWS(R)                                                                                        \
    __attribute__((target("avx512f,avx512bw,avx512vnni"))) static void skinny_i8_rows##R(                        \
        const SkinnyI8 *s, gint64 panel, const gint32 *a, const gint32 *zc, const gint32 *zr, gint32 *c,         \
        gint64 ldc, gint64 cols)                                                                                 \
    {                                                                                                            \
        __m512i acc[R][2];                                                                                       \
        for (int i = 0; i < R; i++)                                                                              \
            acc[i][0] = acc[i][1] = _mm512_setzero_si512();                                                      \
        const guint8 *w0 = s->panels + panel * s->quads * 64, *w1 = w0 + s->quads * 64;                          \
        for (gint64 q = 0; q < s->quads; q++, a += R) {                                                          \
            _mm_prefetch((const char *)(w0 + q * 64 + 512), _MM_HINT_T0);                                       \
            _mm_prefetch((const char *)(w1 + q * 64 + 512), _MM_HINT_T0);                                       \
            __m512i wq0 = _mm512_loadu_si512((const void *)(w0 + q * 64));                                       \
            __m512i wq1 = _mm512_loadu_si512((const void *)(w1 + q * 64));                                       \
            for (int i = 0; i < R; i++) {                                                                        \
                __m512i b = _mm512_set1_epi32(a[i]);                                                             \
                acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], wq0, b);                                              \
                acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], wq1, b);                                              \
            }                                                                                                    \
        }                                                                                                        \
        __m512i zc0 = _mm512_loadu_si512((const void *)zc), zc1 = _mm512_loadu_si512((const void *)(zc + 16));   \
        __mmask16 m0 = cols >= 16 ? 0xffff : (__mmask16)((1u << cols) - 1);                                      \
        __mmask16 m1 = cols >= 32 ? 0xffff : cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0;               \
        for (int i = 0; i < R; i++) {                                                                            \
            __m512i t = _mm512_set1_epi32(zr[i]);                                                                \
            _mm512_mask_storeu_epi32(c + i * ldc, m0, _mm512_sub_epi32(_mm512_sub_epi32(acc[i][0], zc0), t));    \
            _mm512_mask_storeu_epi32(c + i * ldc + 16, m1, _mm512_sub_epi32(_mm512_sub_epi32(acc[i][1], zc1), t)); \
        }                                                                                                        \
    }
SKINNY_I8_ROWS(8)
SKINNY_I8_ROWS(4)
SKINNY_I8_ROWS(2)
SKINNY_I8_ROWS(1)
#endif

/* The group of rows skinny_i8 takes next from `left` rows: 8, 4, 2 or 1. */
static gint64 skinny_group(gint64 left)
{
    return left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
}

/* One product for skinny_i8's panels, shared out among the threads (kernel_parallel: each panel's sums are the
 * same wherever a part starts). */
typedef struct {
    const SkinnyI8 *s;
    const guint8 *groups;
    const gint32 *row_terms; /* per row: zb times its sum, less K za zb (modulo 2^32) */
    gint64 rows, n, za;
    gint32 *c;
} SkinnyJob;

static void skinny_panels(void *data, gint64 begin, gint64 end, guint part)
{
    (void)part;
    const SkinnyJob *j = data;
#if defined(__x86_64__)
    const SkinnyI8 *s = j->s;
    gint32 zc[32];
    for (gint64 p = 2 * begin; p < 2 * end; p += 2) { /* a pair of panels */
        for (int col = 0; col < 32; col++) /* (modulo 2^32, as the kernel's arithmetic) */
            zc[col] = (gint32)((guint32)j->za * (guint32)s->colsum[p * 16 + col]);
        gint64 cols = MIN(32, j->n - p * 16);
        for (gint64 i0 = 0; i0 < j->rows; i0 += skinny_group(j->rows - i0)) {
            gint64 r = skinny_group(j->rows - i0);
            const gint32 *group = (const gint32 *)(j->groups + i0 * s->quads * 4);
            const gint32 *zr = j->row_terms + i0;
            gint32 *c = j->c + i0 * j->n + p * 16;
            if (r == 8)
                skinny_i8_rows8(s, p, group, zc, zr, c, j->n, cols);
            else if (r == 4)
                skinny_i8_rows4(s, p, group, zc, zr, c, j->n, cols);
            else if (r == 2)
                skinny_i8_rows2(s, p, group, zc, zr, c, j->n, cols);
            else
                skinny_i8_rows1(s, p, group, zc, zr, c, j->n, cols);
        }
    }
#else
    (void)j, (void)begin, (void)end;
#endif
}

/* C [rows x n] = (A - za)(B - zb) on the packed B: sum_k A B - zb sum_k A - za sum_k B + K za zb. A's rows (kk
 * 8-bit values each, `flip` 0x80 where uint8: the signed operand) are first copied into `scratch` (rows x
 * quads x 4 bytes) in groups of skinny_group's rows, interleaved by quad, K's padding 0; za in that signed form,
 * zb in B's packed (unsigned) form. Each panel stays in cache while every group of rows passes it. */
static void skinny_i8(const SkinnyI8 *s, const guint8 *a, guint8 flip, gint64 rows, gint64 kk, gint64 n, gint64 za,
                      gint64 zb, guint8 *scratch, gint32 *c)
{
    gint64 rowsum[16] = {0};
    memset(scratch, 0, (gsize)(rows * s->quads * 4));
    for (gint64 i0 = 0; i0 < rows; i0 += skinny_group(rows - i0)) {
        gint64 r = skinny_group(rows - i0);
        guint8 *group = scratch + i0 * s->quads * 4;
        for (gint64 i = 0; i < r; i++)
            for (gint64 k = 0; k < kk; k++) {
                guint8 v = (guint8)(a[(i0 + i) * kk + k] ^ flip);
                group[((k / 4) * r + i) * 4 + k % 4] = v;
                rowsum[i0 + i] += (gint8)v;
            }
    }
    gint32 row_terms[16];
    for (gint64 i = 0; i < rows; i++)
        row_terms[i] = (gint32)((guint32)zb * (guint32)rowsum[i] - (guint32)kk * (guint32)za * (guint32)zb);
    SkinnyJob job = {s, scratch, row_terms, rows, n, za, c};
    kernel_parallel(s->n16 / 2, 4, skinny_panels, &job);
}

/* A product's sums [batches x m x n] handed to `emit` one by one, unless they are the output already (lib->sums). */
static void emit_sums(const gint32 *sums, const GemmTarget *lib, gsize batches, gint64 m, gint64 n, Emit emit,
                      void *data)
{
    for (gsize at = 0; !lib->sums && at < batches * (gsize)(m * n); at++)
        emit(data, at, (gint64)(at / (gsize)n) % m, (gint64)(at % (gsize)n), sums[at]);
}

/* products on oneDNN's integer GEMM (gemm_exact): per batch, C [m x n] = (A - za)(B - zb) in int32, A the unsigned
 * operand and B the signed one (an int8 A plus 128, a uint8 B less 128, zero points alike), into lib->sums as they
 * lie (MatMulInteger) or handed to `emit` element by element. One product for all batches where B is one matrix
 * and A is not broadcast (`flat`). *done FALSE (nothing done) where it does not apply: no VNNI, a zero point per
 * row of A or differing per column of B, sums of more than 33,025 terms. */
static gboolean gemm_matmul(const KernelCall *c, const ExecTensor *a, const ExecTensor *a_zp, const ExecTensor *b,
                            const ExecTensor *b_zp, gint64 m, gint64 kk, gint64 n, gsize batches, gboolean flat,
                            Emit emit, void *data, const GemmTarget *lib, gboolean *done, GError **error)
{
    KernelPrepared *prep = c->prepared;
    gint64 za, zb;
    *done = FALSE;
    if (!prep || prep->declined || !gemm_exact() || (a->dtype != DT_UINT8 && a->dtype != DT_INT8) ||
        (b->dtype != DT_UINT8 && b->dtype != DT_INT8) || !one_zero_point(a_zp, &za) || !one_zero_point(b_zp, &zb) ||
        kk > 33025 || m < 1 || n < 1 || kk < 1 || (!flat && (gsize)(a->count / (gsize)(m * kk)) != batches) ||
        (!flat && b->count / (gsize)(kk * n) != 1 && b->count / (gsize)(kk * n) != batches)) {
        if (prep)
            prep->declined = TRUE;
        return TRUE;
    }
    const Tensor *bt = node_input(c->node, lib->w_input);
    gint64 rows = flat ? m * (gint64)batches : m;
    /* skinny: our kernel, B packed once */
    if (rows <= 16 && (flat || batches == 1) && bt && bt->init && kernel_qconv_supported()) {
        if (!prep->state) {
            prep->state = skinny_i8_pack(b->data, (guint8)(b->dtype == DT_INT8 ? 0x80 : 0), kk, n, &prep->bytes);
            prep->free = skinny_i8_free;
        }
        const SkinnyI8 *s = prep->state;
        gint64 lda = s->quads * 4;
        gsize sums_bytes = lib->sums ? 0 : (gsize)(rows * n) * sizeof(gint32);
        guint8 *ws = kernel_workspace(c, (gsize)(rows * lda) + sums_bytes + 64);
        if (!ws)
            return kernel_fail(c, error, "its %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " sums cannot be allocated", m,
                               n);
        guint8 flip = a->dtype == DT_UINT8 ? 0x80 : 0, b_flip = b->dtype == DT_INT8 ? 0x80 : 0;
        gint32 *sums = lib->sums ? lib->sums : (gint32 *)(ws + (rows * lda + 63) / 64 * 64);
        skinny_i8(s, a->data, flip, rows, kk, n, (gint8)((guint8)za ^ flip), (guint8)((guint8)zb ^ b_flip), ws, sums);
        prep->by = NULL; /* (our own kernel) */
        emit_sums(sums, lib, batches, m, n, emit, data);
        *done = TRUE;
        return TRUE;
    }
    gsize a_bytes = a->dtype == DT_INT8 ? (a->count + 63) / 64 * 64 : 0;
    gsize b_bytes = b->dtype == DT_UINT8 && !(bt && bt->init) ? (b->count + 63) / 64 * 64 : 0;
    gsize c_bytes = lib->sums ? 0 : (gsize)(m * n) * batches * sizeof(gint32);
    guint8 *ws = kernel_workspace(c, a_bytes + b_bytes + c_bytes + 64);
    if (!ws)
        return kernel_fail(c, error, "its %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " sums cannot be allocated", m, n);
    const guint8 *au = bytes_as(c, 0, a, DT_UINT8, FALSE, ws);
    const gint8 *bs = (const gint8 *)bytes_as(c, lib->w_input, b, DT_INT8, TRUE, ws + a_bytes);
    gint32 *sums = lib->sums ? lib->sums : (gint32 *)(ws + a_bytes + b_bytes);
    guint8 ao = (guint8)(a->dtype == DT_INT8 ? za + 128 : za);
    gint8 bo = (gint8)(b->dtype == DT_UINT8 ? zb - 128 : zb);
    const gint32 zero = 0;
    gsize b_step = b->count / (gsize)(kk * n) == 1 ? 0 : (gsize)(kk * n);
    prep->by = onednn_describe();
    for (gsize t = 0; t < (flat ? 1 : batches); t++) {
        if (onednn.dnnl_gemm_u8s8s32('N', 'N', 'F', rows, n, kk, 1.0f, au + t * (gsize)(m * kk), kk, ao,
                                     bs + t * b_step, n, bo, 0.0f, sums + t * (gsize)(m * n), n, &zero) != dnnl_success)
            return kernel_fail(c, error, "oneDNN's integer product failed");
    }
    emit_sums(sums, lib, batches, m, n, emit, data);
    *done = TRUE;
    return TRUE;
}

/* The zero-point-shifted products of a and b (MatMul's shapes: vectors as matrices, batches broadcast), each
 * summed exactly and handed to `emit`. A zero point is one value or one per row (a) or column (b). */
static gboolean products(const KernelCall *c, const ExecTensor *a, const ExecTensor *a_zp, const ExecTensor *b,
                         const ExecTensor *b_zp, Emit emit, void *data, const GemmTarget *lib, GError **error)
{
    /* vectors as matrices: A [K] is [1, K], B [K] is [K, 1] */
    gint64 ad[KERNEL_MAX_RANK], bd[KERNEL_MAX_RANK];
    int ar = a->rank, br = b->rank;
    if (ar > KERNEL_MAX_RANK - 1 || br > KERNEL_MAX_RANK - 1)
        return kernel_fail(c, error, "operands of rank above %d", KERNEL_MAX_RANK - 1);
    for (int k = 0; k < ar; k++)
        ad[k + (ar == 1)] = a->dims[k];
    if (ar == 1)
        ad[0] = 1, ar = 2;
    for (int k = 0; k < br; k++)
        bd[k] = b->dims[k];
    if (br == 1)
        bd[1] = 1, br = 2;
    gint64 m = ad[ar - 2], kk = ad[ar - 1], n = bd[br - 1];
    if (bd[br - 2] != kk)
        return kernel_fail(c, error, "inner dimensions %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " differ", kk,
                           bd[br - 2]);
    if ((a_zp && a_zp->count != 1 && a_zp->count != (gsize)m) || (b_zp && b_zp->count != 1 && b_zp->count != (gsize)n))
        return kernel_fail(c, error, "a zero point is neither one value nor one per row (A) or column (B)");
    /* the batch: numpy broadcasting of the dims before the last two */
    int rank = MAX(ar, br) - 2;
    gint64 dims[KERNEL_MAX_RANK], idx[KERNEL_MAX_RANK] = {0}, as[KERNEL_MAX_RANK], bs[KERNEL_MAX_RANK];
    gint64 sa = m * kk, sb = kk * n;
    gsize batches = 1;
    for (int k = rank - 1; k >= 0; k--) {
        int ka = k - (rank - (ar - 2)), kb = k - (rank - (br - 2));
        gint64 da = ka >= 0 ? ad[ka] : 1, db = kb >= 0 ? bd[kb] : 1;
        if (da != db && da != 1 && db != 1)
            return kernel_fail(c, error, "batch dimensions %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " differ", da,
                               db);
        dims[k] = MAX(da, db);
        as[k] = da == 1 ? 0 : sa;
        bs[k] = db == 1 ? 0 : sb;
        sa *= da;
        sb *= db;
        batches *= (gsize)dims[k];
    }
    gboolean done = FALSE;
    if (lib && !gemm_matmul(c, a, a_zp, b, b_zp, m, kk, n, batches, sa == m * kk * (gint64)batches && sb == kk * n,
                            emit, data, lib, &done, error))
        return FALSE;
    /* 8-bit operands: each row of sums as axpys of B's rows, int32 (exact up to 33,025 terms), its zero point taken
     * off after: sum_k (a_k - za)(b_kj - zb_j) = sum_k (a_k - za) b_kj - zb_j sum_k (a_k - za) */
    gboolean bytes = (a->dtype == DT_UINT8 || a->dtype == DT_INT8) && (b->dtype == DT_UINT8 || b->dtype == DT_INT8) &&
                     kk <= 33025;
    gint32 *row = bytes && !done ? kernel_alloc(c, (guint64)n + 1, sizeof(gint32), "a row of sums", error) : NULL;
    if (bytes && !done && !row)
        return FALSE;
    AxpyI32 axpy = axpy_of(b->dtype);
    for (gsize t = 0; !done && t < batches; t++) {
        gint64 ao = 0, bo = 0;
        for (int k = 0; k < rank; k++) {
            ao += idx[k] * as[k];
            bo += idx[k] * bs[k];
        }
        for (gint64 i = 0; row && i < m; i++) {
            gint64 za = a_zp ? kernel_elem_get_i(a_zp, a_zp->count == 1 ? 0 : (gsize)i) : 0, asum = 0;
            memset(row, 0, (gsize)n * sizeof(gint32));
            for (gint64 p = 0; p < kk; p++) {
                gint64 av = kernel_elem_get_i(a, (gsize)(ao + i * kk + p)) - za;
                asum += av;
                if (av)
                    axpy(row, (const guint8 *)b->data + bo + p * n, (gint32)av, n);
            }
            for (gint64 j = 0; j < n; j++) {
                gint64 zb = b_zp ? kernel_elem_get_i(b_zp, b_zp->count == 1 ? 0 : (gsize)j) : 0;
                emit(data, (t * (gsize)m + (gsize)i) * (gsize)n + (gsize)j, i, j, row[j] - zb * asum);
            }
        }
        for (gint64 i = 0; !row && i < m; i++) {
            gint64 za = a_zp ? kernel_elem_get_i(a_zp, a_zp->count == 1 ? 0 : (gsize)i) : 0;
            for (gint64 j = 0; j < n; j++) {
                gint64 zb = b_zp ? kernel_elem_get_i(b_zp, b_zp->count == 1 ? 0 : (gsize)j) : 0, acc = 0;
                for (gint64 p = 0; p < kk; p++)
                    acc += (kernel_elem_get_i(a, (gsize)(ao + i * kk + p)) - za) *
                           (kernel_elem_get_i(b, (gsize)(bo + p * n + j)) - zb);
                emit(data, (t * (gsize)m + (gsize)i) * (gsize)n + (gsize)j, i, j, acc);
            }
        }
        if (rank)
            kernel_index_next(idx, dims, rank);
    }
    kernel_alloc_free(row);
    return TRUE;
}

static void emit_int32(void *data, gsize at, gint64 i, gint64 j, gint64 acc)
{
    (void)i;
    (void)j;
    ((gint32 *)data)[at] = (gint32)acc;
}

gboolean kernel_matmul_integer(const KernelCall *c, GError **error)
{
    return products(c, kernel_in(c, 0), kernel_in(c, 2), kernel_in(c, 1), kernel_in(c, 3), emit_int32,
                    kernel_out(c, 0)->data, NULL, error);
}

/* MatMulInteger's library kernel: the sums on oneDNN's integer GEMM where it applies (gemm_matmul), else the row's
 * own. */
gboolean kernel_matmul_integer_onednn(const KernelCall *c, GError **error)
{
    ExecTensor *y = kernel_out(c, 0);
    return products(c, kernel_in(c, 0), kernel_in(c, 2), kernel_in(c, 1), kernel_in(c, 3), emit_int32, y->data,
                    &(GemmTarget){.sums = y->data, .w_input = 1}, error);
}

/* QLinearMatMul's requantization, as ONNX Runtime computes it (as QLinearConv's below): the product as float32 times
 * a_scale * b_scale / y_scale (float32, per row of a and per column of b where they are vectors), held to y's
 * range less its zero point, rounded half to even, plus the zero point. */
typedef struct {
    const ExecTensor *a_scale, *b_scale, *y_scale, *y_zp;
    ExecTensor *y;
    float lo, hi;
} Requant;

static void emit_requant(void *data, gsize at, gint64 i, gint64 j, gint64 acc)
{
    const Requant *q = data;
    float as = (float)kernel_elem_get_f(q->a_scale, q->a_scale->count == 1 ? 0 : (gsize)i);
    float bs = (float)kernel_elem_get_f(q->b_scale, q->b_scale->count == 1 ? 0 : (gsize)j);
    float ys = (float)kernel_elem_get_f(q->y_scale, q->y_scale->count == 1 ? 0 : (gsize)j);
    float multiplier = as * bs / ys, zero = (float)kernel_elem_get_i(q->y_zp, 0);
    kernel_elem_set_i(q->y, at, (gint64)quantize_value((float)acc * multiplier, q->lo - zero, q->hi - zero, zero));
}

gboolean kernel_qlinear_matmul(const KernelCall *c, GError **error)
{
    const ExecTensor *a = kernel_in(c, 0), *b = kernel_in(c, 3);
    Requant q = {kernel_in(c, 1), kernel_in(c, 4), kernel_in(c, 6), kernel_in(c, 7), kernel_out(c, 0), 0, 0};
    gint64 m = a->rank >= 2 ? a->dims[a->rank - 2] : 1, n = b->rank >= 2 ? b->dims[b->rank - 1] : 1;
    if ((q.a_scale->count != 1 && q.a_scale->count != (gsize)m) ||
        (q.b_scale->count != 1 && q.b_scale->count != (gsize)n) ||
        (q.y_scale->count != 1 && q.y_scale->count != (gsize)n) || q.y_zp->count != 1)
        return kernel_fail(c, error, "a scale is neither one value nor one per row (a) or column (b, y)");
    range_of(q.y->dtype, &q.lo, &q.hi);
    return products(c, a, kernel_in(c, 2), b, kernel_in(c, 5), emit_requant, &q,
                    c->prepared ? &(GemmTarget){.w_input = 3} : NULL, error);
}

/* MatMulIntegerToFloat's output, as ONNX Runtime's unfused graph computes it (and so its fused kernel, whose
 * outputs equal it on tests/data/qlinear/dynamic): the int32 product cast to float, times a_scale * b_scale (float,
 * per column where b_scale is), plus the bias where there is one (an added 0 would turn -0 into +0). */
typedef struct {
    float a_scale;
    const ExecTensor *b_scale, *bias;
    float *y;
} ToFloat;

static void emit_to_float(void *data, gsize at, gint64 i, gint64 j, gint64 acc)
{
    (void)i;
    const ToFloat *q = data;
    float multiplier = q->a_scale * (float)kernel_elem_get_f(q->b_scale, q->b_scale->count == 1 ? 0 : (gsize)j);
    float v = (float)(gint32)acc * multiplier;
    q->y[at] = q->bias ? v + (float)kernel_elem_get_f(q->bias, q->bias->count == 1 ? 0 : (gsize)j) : v;
}

/* An optional input: NULL when absent or empty. */
static const ExecTensor *given(const KernelCall *c, guint k)
{
    const ExecTensor *t = kernel_in(c, k);
    return t && t->count ? t : NULL;
}

/* The scales and bias hold what emit_to_float reads: A's scale one value, B's and the bias one or one per column. */
static gboolean to_float_check(const KernelCall *c, const ExecTensor *a_scale, const ToFloat *q, GError **error)
{
    const ExecTensor *y = kernel_out(c, 0);
    gsize cols = y->rank ? (gsize)y->dims[y->rank - 1] : 1;
    if ((a_scale && a_scale->count != 1) || (q->b_scale->count != 1 && q->b_scale->count != cols) ||
        (q->bias && q->bias->count != 1 && q->bias->count != cols))
        return kernel_fail(c, error, "A's scale is not one value, or B's scale or the bias neither one value nor one "
                           "per column (%zu)", cols);
    return TRUE;
}

/* The products of a and B (input 1) into y as emit_to_float writes them: on a library call, all the sums first (the
 * library's integer GEMM, or our skinny kernel, into scratch), then each converted with its column's multiplier,
 * computed as emit_to_float computes it (the same bits); else the row's own products, one emit at a time. */
static gboolean to_float_products(const KernelCall *c, const ExecTensor *a, const ExecTensor *a_zp,
                                  const ExecTensor *b_zp, const ToFloat *q, GError **error)
{
    const ExecTensor *b = kernel_in(c, 1), *y = kernel_out(c, 0);
    if (!c->prepared)
        return products(c, a, a_zp, b, b_zp, emit_to_float, (void *)q, NULL, error);
    gsize cols = y->rank ? (gsize)y->dims[y->rank - 1] : 1;
    gint32 *sums = kernel_alloc(c, (guint64)y->count + 1, sizeof(gint32), "the integer products", error);
    float *multiplier = sums ? kernel_alloc(c, (guint64)cols + 1, sizeof(float), "the columns' scales", error) : NULL;
    float *bias = multiplier && q->bias ? kernel_alloc(c, (guint64)cols + 1, sizeof(float), "the bias", error) : NULL;
    gboolean ok = multiplier && (!q->bias || bias) &&
                  products(c, a, a_zp, b, b_zp, emit_int32, sums, &(GemmTarget){.sums = sums, .w_input = 1}, error);
    for (gsize j = 0; ok && j < cols; j++) {
        multiplier[j] = q->a_scale * (float)kernel_elem_get_f(q->b_scale, q->b_scale->count == 1 ? 0 : j);
        if (bias)
            bias[j] = (float)kernel_elem_get_f(q->bias, q->bias->count == 1 ? 0 : j);
    }
    for (gsize at = 0; ok && at < y->count; at += cols) {
        float *row = q->y + at;
        const gint32 *from = sums + at;
        if (bias)
            for (gsize j = 0; j < cols; j++)
                row[j] = (float)from[j] * multiplier[j] + bias[j];
        else
            for (gsize j = 0; j < cols; j++)
                row[j] = (float)from[j] * multiplier[j];
    }
    kernel_alloc_free(bias);
    kernel_alloc_free(multiplier);
    kernel_alloc_free(sums);
    return ok;
}

/* com.microsoft MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias); its library kernel
 * is the same function (to_float_products tells a library call by its prepared state). */
gboolean kernel_matmul_integer_to_float(const KernelCall *c, GError **error)
{
    ToFloat q = {(float)kernel_elem_get_f(kernel_in(c, 2), 0), kernel_in(c, 3), given(c, 6), kernel_out(c, 0)->data};
    return to_float_check(c, kernel_in(c, 2), &q, error) &&
           to_float_products(c, kernel_in(c, 0), given(c, 4), given(c, 5), &q, error);
}

/* com.microsoft DynamicQuantizeMatMul(A, B, b_scale, b_zero_point, bias): A quantized as DynamicQuantizeLinear
 * quantizes it (ONNX Runtime's kernel finds the same scale and zero point), into scratch, then
 * MatMulIntegerToFloat's products (on the library too). */
gboolean kernel_dynamic_quantize_matmul(const KernelCall *c, GError **error)
{
    const ExecTensor *a = kernel_in(c, 0);
    ToFloat q = {0, kernel_in(c, 2), given(c, 4), kernel_out(c, 0)->data};
    if (!to_float_check(c, NULL, &q, error))
        return FALSE;
    guint8 *quantized = kernel_alloc(c, (guint64)a->count + 1, 1, "A quantized", error);
    if (!quantized)
        return FALSE;
    float scale;
    gint64 zero;
    dynamic_quantize(a->data, a->count, quantized, &scale, &zero);
    guint8 zero_byte = (guint8)zero;
    ExecTensor aq = *a, zp = {.data = &zero_byte, .dtype = DT_UINT8, .rank = 0, .count = 1};
    aq.data = quantized;
    aq.dtype = DT_UINT8;
    aq.blocked = FALSE;
    q.a_scale = scale;
    gboolean ok = to_float_products(c, &aq, &zp, given(c, 3), &q, error);
    kernel_alloc_free(quantized);
    return ok;
}

#if defined(__x86_64__)
/* The products of one block for vnni_products: 4 output channels (w4: each's quads of 4 signed bytes, `quads`
 * of them) by 64 positions (cols: per quad, 64 positions of 4 unsigned bytes), summed with AVX-512 VNNI's
 * vpdpbusd into acc[channel][64] (int32: the caller bounds the sums). */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void vnni_block(const guint8 *cols, gint64 stride,
                                                                              const gint32 *w4, gint64 quads,
                                                                              gint32 *acc)
{
    __m512i a[4][4];
    for (int j = 0; j < 4; j++)
        for (int v = 0; v < 4; v++)
            a[j][v] = _mm512_setzero_si512();
    for (gint64 q = 0; q < quads; q++) {
        const guint8 *col = cols + q * stride;
        __m512i x[4];
        for (int v = 0; v < 4; v++)
            x[v] = _mm512_loadu_si512((const void *)(col + 64 * v));
        for (int j = 0; j < 4; j++) {
            __m512i w = _mm512_set1_epi32(w4[j * quads + q]);
            for (int v = 0; v < 4; v++)
                a[j][v] = _mm512_dpbusd_epi32(a[j][v], x[v], w);
        }
    }
    for (int j = 0; j < 4; j++)
        for (int v = 0; v < 4; v++)
            _mm512_storeu_si512((void *)(acc + j * 64 + 16 * v), a[j][v]);
}
#else
static void vnni_block(const guint8 *cols, gint64 stride, const gint32 *w4, gint64 quads, gint32 *acc)
{
    (void)cols, (void)stride, (void)w4, (void)quads, (void)acc;
}
#endif

/* Whether the window is one tap at stride 1 without padding: the columns are the input planes as they lie. */
static gboolean window_pointwise(const KernelWindow *win)
{
    gboolean pointwise = win->k_size == 1;
    for (int a = 0; a < win->s; a++)
        pointwise = pointwise && win->stride[a] == 1 && win->pad[a] == 0 && win->out[a] == win->in[a];
    return pointwise;
}

/* conv_products on AVX-512 VNNI, for 8-bit x and w and sums of up to 33,025 terms (as the int32 path; beyond,
 * conv_products' int64 one): vpdpbusd multiplies unsigned by
 * signed bytes, so an int8 x is read as x + 128 (its zero point too) and a uint8 w as w - 128: the shifted
 * values, and so the sums, are the same. The raw sums over the window (positions in the padding hold x's zero
 * point; the window's terms padded to a multiple of 4 with zeros) fit int32 (each term at most 255 * 128); the
 * zero points come off exactly in int64: sum (x - zx)(w - zw) = sum x w - zw sum x - zx sum w + K zx zw (sum x
 * by the same product with weights of 1). FALSE (nothing done) where it does not apply. */
static gboolean vnni_products(const KernelCall *c, const KernelWindow *win, gint64 group, const ExecTensor *x,
                              gint64 zx, const ExecTensor *w, const ExecTensor *w_zp, Emit emit, void *data,
                              gboolean *done, GError **error)
{
    gint64 m_all = w->dims[0], cg = w->dims[1], mg = m_all / group, kk = cg * win->k_size;
    *done = FALSE;
    gboolean eight_bit = (x->dtype == DT_UINT8 || x->dtype == DT_INT8) && (w->dtype == DT_UINT8 || w->dtype == DT_INT8);
    if (!kernel_qconv_supported() || !eight_bit ||
        kk > 33025 || win->out_size < 1)
        return TRUE;
    gint64 quads = (kk + 3) / 4, positions = (win->out_size + 63) / 64 * 64, mblocks = (mg + 3) / 4;
    gint64 zxu = x->dtype == DT_INT8 ? zx + 128 : zx;
    gsize cols_bytes = (gsize)(quads * positions * 4), w_ints = (gsize)(mblocks * 4 * quads);
    gsize ints = w_ints + (gsize)positions + (gsize)(4 * 64) + (gsize)(4 * quads);
    gsize need = cols_bytes + ints * sizeof(gint32) + 64;
    guint8 *cols = kernel_workspace(c, need);
    if (!cols)
        return kernel_fail(c, error, "its columns (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " bytes) cannot be "
                           "allocated", kk, win->out_size);
    gint32 *w4 = (gint32 *)(cols + (cols_bytes + 63) / 64 * 64), *colsum = w4 + w_ints, *acc = colsum + positions;
    gint32 *ones = acc + 4 * 64; /* 4 channels of weights 1: vnni_block then sums the columns */
    for (gint64 q = 0; q < 4 * quads; q++)
        ones[q] = 0x01010101;
    gboolean pointwise = window_pointwise(win);
    gint64 *wsum = g_new0(gint64, (gsize)(mblocks * 4) + 1), *zw = g_new0(gint64, (gsize)(mblocks * 4) + 1);
    gint64 o[KERNEL_MAX_RANK], k[KERNEL_MAX_RANK];
    for (gint64 n = 0; n < win->n; n++)
        for (gint64 g = 0; g < group; g++) {
            /* the columns: per quad of window terms, every position's 4 unsigned bytes; and their sums */
            memset(cols, 0, cols_bytes);
            for (gint64 ic = 0; ic < cg; ic++) {
                const guint8 *plane = (const guint8 *)x->data + (n * win->c + g * cg + ic) * win->in_size;
                memset(k, 0, sizeof k);
                guint8 flip = x->dtype == DT_INT8 ? 0x80 : 0;
                for (gint64 kp = 0; kp < win->k_size; kp++) {
                    gint64 r = ic * win->k_size + kp;
                    guint8 *at_r = cols + (r / 4) * positions * 4 + r % 4;
                    if (pointwise) {
                        for (gint64 op = 0; op < win->out_size; op++)
                            at_r[op * 4] = (guint8)(plane[op] ^ flip);
                    } else if (win->s == 2) { /* images: row by row, the bounds checked per row and column */
                        for (gint64 oh = 0, op = 0; oh < win->out[0]; oh++) {
                            gint64 ih = oh * win->stride[0] - win->pad[0] + k[0] * win->dil[0];
                            gboolean row_in = ih >= 0 && ih < win->in[0];
                            for (gint64 ow = 0; ow < win->out[1]; ow++, op++) {
                                gint64 iw = ow * win->stride[1] - win->pad[1] + k[1] * win->dil[1];
                                gboolean in = row_in && iw >= 0 && iw < win->in[1];
                                at_r[op * 4] = in ? (guint8)(plane[ih * win->in[1] + iw] ^ flip) : (guint8)zxu;
                            }
                        }
                    } else {
                        memset(o, 0, sizeof o);
                        for (gint64 op = 0; op < win->out_size; op++) {
                            gint64 at = kernel_window_source(win, o, k);
                            at_r[op * 4] = at < 0 ? (guint8)zxu : (guint8)(plane[at] ^ flip);
                            kernel_index_next(o, win->out, win->s);
                        }
                    }
                    kernel_index_next(k, win->k, win->s);
                }
            }
            /* the weights, signed, 4 channels a block (a missing channel's are 0), and their sums */
            memset(w4, 0, w_ints * sizeof(gint32));
            for (gint64 j = 0; j < mblocks * 4; j++) {
                gint64 m = g * mg + j;
                wsum[j] = 0;
                zw[j] = 0;
                if (j >= mg)
                    continue;
                gint64 z = w_zp ? kernel_elem_get_i(w_zp, w_zp->count == 1 ? 0 : (gsize)m) : 0;
                zw[j] = w->dtype == DT_UINT8 ? z - 128 : z;
                gint8 *bytes = (gint8 *)(w4 + (j / 4) * 4 * quads + (j % 4) * quads);
                const guint8 *src = (const guint8 *)w->data + m * kk;
                for (gint64 r = 0; r < kk; r++) {
                    bytes[r] = (gint8)(src[r] ^ (w->dtype == DT_UINT8 ? 0x80 : 0));
                    wsum[j] += bytes[r];
                }
            }
            for (gint64 p = 0; p < positions; p += 64) { /* each position's sum over the window, exact */
                vnni_block(cols + p * 4, positions * 4, ones, quads, acc);
                memcpy(colsum + p, acc, 64 * sizeof(gint32));
            }
            for (gint64 b = 0; b < mblocks; b++)
                for (gint64 p = 0; p < positions; p += 64) {
                    vnni_block(cols + p * 4, positions * 4, w4 + b * 4 * quads, quads, acc);
                    for (gint64 j = 0; j < 4 && b * 4 + j < mg; j++) {
                        gint64 jj = b * 4 + j, m = g * mg + jj;
                        for (gint64 op = p; op < MIN(p + 64, win->out_size); op++) {
                            gint64 v = (gint64)acc[j * 64 + op - p] - zw[jj] * colsum[op] - zxu * wsum[jj] +
                                       kk * zxu * zw[jj];
                            emit(data, (gsize)((n * m_all + m) * win->out_size + op), 0, m, v);
                        }
                    }
                }
        }
    g_free(wsum);
    g_free(zw);
    *done = TRUE;
    return TRUE;
}

/* An 8-bit tensor's elements less a zero point, as int32 (uint8 or int8: what the QLinear and Integer ops take). */
static void shifted(const ExecTensor *t, gsize from, gsize n, gint32 zero, gint32 *out)
{
    if (t->dtype == DT_UINT8)
        for (gsize k = 0; k < n; k++)
            out[k] = (gint32)((const guint8 *)t->data)[from + k] - zero;
    else if (t->dtype == DT_INT8)
        for (gsize k = 0; k < n; k++)
            out[k] = (gint32)((const gint8 *)t->data)[from + k] - zero;
    else
        for (gsize k = 0; k < n; k++)
            out[k] = (gint32)(kernel_elem_get_i(t, from + k) - zero);
}

/* The extents of gemm_columns' padded plane: every row and column a window reads, from the first padding on. */
static gint64 padded_extent(const KernelWindow *win, int a)
{
    return (win->out[a] - 1) * win->stride[a] + (win->k[a] - 1) * win->dil[a] + 1;
}

/* The bytes gemm_columns' padded planes take: a plane of padded_extent's rows, its columns split by their phase
 * modulo the stride. */
static gsize padded_bytes_of(const KernelWindow *win)
{
    if (win->s != 2)
        return 0;
    gint64 sw = win->stride[1], wq = (padded_extent(win, 1) + sw - 1) / sw;
    return (gsize)(sw * padded_extent(win, 0) * wq + 63) / 64 * 64;
}

/* One group's columns for gemm_products: row (ic, window position), one signed byte per output position: x less
 * 128 where x is uint8 (flip 0x80), as it is where int8; `pad` in the padding (x's zero point, shifted alike).
 * Images: each input plane is first copied, flipped, into `padded` with its padding around it (padded_extent) and
 * its columns dealt into one plane per phase modulo the stride (column c to plane c % stride, at c / stride), so
 * that each output row of each window position is one contiguous copy without a bound to test, strided or not
 * (a byte gather per output position took two thirds of a strided convolution's time). */
static void gemm_columns(const KernelWindow *win, const guint8 *planes, gint64 cg, guint8 flip, guint8 pad,
                         guint8 *cols, guint8 *padded)
{
    gint64 p = win->out_size, o[KERNEL_MAX_RANK], k[KERNEL_MAX_RANK];
    gboolean pointwise = window_pointwise(win);
    if (pointwise) { /* the planes as they lie */
        flip_bytes(planes, cols, (gsize)(cg * p), flip);
        return;
    }
    gint64 hp = win->s == 2 ? padded_extent(win, 0) : 0, wp = win->s == 2 ? padded_extent(win, 1) : 0;
    gint64 sw = win->s == 2 ? win->stride[1] : 1, wq = (wp + sw - 1) / sw; /* the phases' width */
    for (gint64 ic = 0; ic < cg; ic++) {
        const guint8 *plane = planes + ic * win->in_size;
        if (win->s == 2) {
            memset(padded, pad, (gsize)(sw * hp * wq));
            gint64 c0 = MAX(win->pad[1], 0), c1 = MIN(win->pad[1] + win->in[1], wp); /* the columns x fills */
            for (gint64 r = MAX(win->pad[0], 0); r < MIN(win->pad[0] + win->in[0], hp) && c0 < c1; r++) {
                const guint8 *from = plane + (r - win->pad[0]) * win->in[1] - win->pad[1];
                for (gint64 ph = 0; ph < sw; ph++) { /* the columns ph, ph + sw, ... from c0 to c1 */
                    gint64 t0 = c0 > ph ? (c0 - ph + sw - 1) / sw : 0, t1 = c1 > ph ? (c1 - ph + sw - 1) / sw : 0;
                    guint8 *to = padded + (ph * hp + r) * wq;
                    const guint8 *src = from + ph;
                    for (gint64 t = t0; t < t1; t++)
                        to[t] = (guint8)(src[t * sw] ^ flip);
                }
            }
        }
        memset(k, 0, sizeof k);
        for (gint64 kp = 0; kp < win->k_size; kp++, kernel_index_next(k, win->k, win->s)) {
            guint8 *row = cols + (ic * win->k_size + kp) * p;
            if (win->s != 2) { /* any other rank: position by position */
                memset(o, 0, sizeof o);
                for (gint64 op = 0; op < p; op++, kernel_index_next(o, win->out, win->s)) {
                    gint64 at = kernel_window_source(win, o, k);
                    row[op] = at < 0 ? pad : (guint8)(plane[at] ^ flip);
                }
                continue;
            }
            gint64 ow_n = win->out[1], col = k[1] * win->dil[1]; /* the window column's phase and place in it */
            const guint8 *phase = padded + (col % sw) * hp * wq + col / sw;
            for (gint64 oh = 0; oh < win->out[0]; oh++) { /* (a loop: rows of 7 to 56 bytes cost memcpy its call) */
                guint8 *to = row + oh * ow_n;
                const guint8 *src = phase + (oh * win->stride[0] + k[0] * win->dil[0]) * wq;
                for (gint64 t = 0; t < ow_n; t++)
                    to[t] = src[t];
            }
        }
    }
}

/* The sums of an 8-bit convolution on oneDNN's integer GEMM (dnnl_gemm_u8s8s32, the u8 x s8 product ONNX
 * Runtime's MLAS computes with the same instruction), per image and group: C [channels x positions] = (W - aw)
 * (X - bx) + the channels' biases, in int32, exact (gemm_exact; sums of at most 33,025 terms, as conv_products'
 * int32 path), handed to to->block; its rows are the output's. The weights are the unsigned operand, the columns X
 * [taps x positions] the signed one: an operand of the other 8-bit type has its bytes flipped (plus or less 128,
 * its zero point too), the columns as they are made, constant weights once at the node's first call (the
 * executor's own memory); a one-tap window reads int8 input planes as they lie. (C [positions x channels], the
 * columns unsigned, runs the product alone up to 1.6 times as fast on 7 x 7 maps, but the whole convolution
 * slower: its rows are not the output's.) *done FALSE (nothing done) where it does not apply: no VNNI, w's zero
 * points not one value, fewer than 4 output channels a group. */
static gboolean gemm_products(const KernelCall *c, const KernelWindow *win, gint64 group, const ExecTensor *x,
                              gint64 zx, const ExecTensor *w, const ExecTensor *w_zp, const GemmTarget *to,
                              gboolean *done, GError **error)
{
    KernelPrepared *prep = c->prepared;
    gint64 m_all = w->dims[0], cg = w->dims[1], mg = m_all / group, kk = cg * win->k_size, p = win->out_size, zw;
    *done = FALSE;
    if (!prep || prep->declined || !gemm_exact() || (x->dtype != DT_UINT8 && x->dtype != DT_INT8) ||
        (w->dtype != DT_UINT8 && w->dtype != DT_INT8) || !one_zero_point(w_zp, &zw) || kk > 33025 || mg < 4 || p < 1) {
        if (prep)
            prep->declined = TRUE;
        return TRUE;
    }
    guint8 x_flip = x->dtype == DT_INT8 ? 0 : 0x80, w_flip = w->dtype == DT_UINT8 ? 0 : 0x80;
    guint8 zx_as = (guint8)((guint8)zx ^ x_flip), zw_as = (guint8)((guint8)zw ^ w_flip);
    gboolean pointwise = window_pointwise(win);
    const Tensor *wt = node_input(c->node, to->w_input);
    gboolean direct = pointwise && !x_flip;
    gsize padded_bytes = padded_bytes_of(win);
    gsize cols_bytes = direct ? 0 : (gsize)(kk * p + 63) / 64 * 64 + padded_bytes;
    gsize acc_bytes = (gsize)(mg * p) * sizeof(gint32);
    gsize w_bytes = w_flip && !(wt && wt->init) ? w->count : 0;
    guint8 *ws = kernel_workspace(c, cols_bytes + acc_bytes + w_bytes + 64);
    if (!ws)
        return kernel_fail(c, error, "its columns (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " bytes) cannot be "
                           "allocated", kk, p);
    gint32 *acc = (gint32 *)(ws + cols_bytes);
    const guint8 *wb = bytes_as(c, to->w_input, w, DT_UINT8, TRUE, ws + cols_bytes + acc_bytes);
    prep->by = onednn_describe();
    const gint32 zero = 0;
    for (gint64 n = 0; n < win->n; n++)
        for (gint64 g = 0; g < group; g++) {
            const guint8 *planes = (const guint8 *)x->data + (n * win->c + g * cg) * win->in_size, *xb = planes;
            if (!direct) {
                gemm_columns(win, planes, cg, x_flip, zx_as, ws, ws + cols_bytes - padded_bytes);
                xb = ws;
            }
            if (onednn.dnnl_gemm_u8s8s32('N', 'N', to->bias_of ? 'C' : 'F', mg, p, kk, 1.0f, wb + g * mg * kk, kk,
                                         zw_as, (const gint8 *)xb, p, (gint8)zx_as, 0.0f, acc, p,
                                         to->bias_of ? to->bias_of + g * mg : &zero) != dnnl_success)
                return kernel_fail(c, error, "oneDNN's integer product failed");
            to->block(to->data, acc, mg, p, g * mg, (gsize)((n * m_all + g * mg) * p));
        }
    *done = TRUE;
    return TRUE;
}

/* ConvInteger's EmitBlock: the sums as they are. */
static void sums_block(void *data, const gint32 *sums, gint64 channels, gint64 positions, gint64 first, gsize at)
{
    (void)first;
    memcpy((gint32 *)data + at, sums, (gsize)(channels * positions) * sizeof(gint32));
}

/* The zero-point-shifted sums of a convolution of x by w (NCHW..., groups, strides, dilations, pads; positions in
 * the padding add nothing, as the shifted input there is 0), each handed to `emit` with its output channel. A
 * zero point of x is one value; of w one value or one per output channel. Per image and group: the shifted
 * input's columns (im2col: one row per input channel and window position, one column per output position), the
 * shifted weights, and their product in int32, exact: each term is at most 255 * 255 in size, so a sum of up to
 * 33,025 of them fits (beyond, one window position at a time in int64). */
static gboolean conv_products(const KernelCall *c, const ExecTensor *x, const ExecTensor *x_zp, const ExecTensor *w,
                              const ExecTensor *w_zp, const ExecTensor *y, Emit emit, void *data, const GemmTarget *lib,
                              GError **error)
{
    KernelWindow win;
    gint64 group = 1;
    if (!node_attr_int(c->node, "group", 1, &group, error) || !kernel_window_read(c, x, y, w->dims + 2, &win, error))
        return FALSE;
    gint64 m_all = w->dims[0], cg = w->dims[1], mg = m_all / group, kk = cg * win.k_size;
    if ((x_zp && x_zp->count != 1) || (w_zp && w_zp->count != 1 && w_zp->count != (gsize)m_all))
        return kernel_fail(c, error, "a zero point is neither one value nor, for w, one per output channel");
    gint64 zx = x_zp ? kernel_elem_get_i(x_zp, 0) : 0;
    gboolean done = FALSE;
    if (lib && !gemm_products(c, &win, group, x, zx, w, w_zp, lib, &done, error))
        return FALSE;
    if (done)
        return TRUE;
    if (!vnni_products(c, &win, group, x, zx, w, w_zp, emit, data, &done, error))
        return FALSE;
    if (done)
        return TRUE;
    gboolean exact32 = kk <= 33025;
    gsize cols_n = exact32 ? (gsize)(kk * win.out_size) : 1;
    enum { CHANNELS = 8 }; /* output channels a pass over the columns serves */
    /* the columns, the shifted weights and the sums: in the executor's workspace, kept from step to step (memory
     * fresh at every call cost page faults: a fifth of the time) */
    gsize n_wrow = (gsize)(CHANNELS * kk + 16), n_acc = (gsize)(CHANNELS * win.out_size + 16);
    gsize n_plane = exact32 ? (gsize)win.in_size + 16 : 0; /* one input plane, shifted */
    gint32 *cols = kernel_workspace(c, (cols_n + n_wrow + n_acc + n_plane) * sizeof(gint32));
    if (!cols)
        return kernel_fail(c, error, "its columns (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " values) cannot be "
                           "allocated", kk, win.out_size);
    gint32 *wrow = cols + cols_n, *acc32 = wrow + n_wrow, *plane = acc32 + n_acc;
    gint64 *acc64 = exact32 ? NULL : g_new(gint64, win.out_size + 1);
    gint64 o[KERNEL_MAX_RANK], k[KERNEL_MAX_RANK];
    AxpyI32 axpy = axpy_of(DT_INT32);
    for (gint64 n = 0; n < win.n; n++)
        for (gint64 g = 0; g < group; g++) {
            if (exact32) { /* columns: row (ic, kp), column op; 0 in the padding */
                for (gint64 ic = 0; ic < cg; ic++) {
                    shifted(x, (gsize)((n * win.c + g * cg + ic) * win.in_size), (gsize)win.in_size, (gint32)zx,
                            plane);
                    memset(k, 0, sizeof k);
                    for (gint64 kp = 0; kp < win.k_size; kp++) {
                        gint32 *row = cols + (ic * win.k_size + kp) * win.out_size;
                        memset(o, 0, sizeof o);
                        for (gint64 op = 0; op < win.out_size; op++) {
                            gint64 at = kernel_window_source(&win, o, k);
                            row[op] = at < 0 ? 0 : plane[at];
                            kernel_index_next(o, win.out, win.s);
                        }
                        kernel_index_next(k, win.k, win.s);
                    }
                }
            }
            for (gint64 m0 = g * mg; exact32 && m0 < (g + 1) * mg; m0 += CHANNELS) {
                /* up to CHANNELS output channels per pass over the columns (each row read once for all of them) */
                gint64 mc = MIN(CHANNELS, (g + 1) * mg - m0);
                for (gint64 j = 0; j < mc; j++) {
                    gint64 m = m0 + j, zw = w_zp ? kernel_elem_get_i(w_zp, w_zp->count == 1 ? 0 : (gsize)m) : 0;
                    shifted(w, (gsize)(m * kk), (gsize)kk, (gint32)zw, wrow + j * kk);
                }
                memset(acc32, 0, (gsize)(mc * win.out_size) * sizeof(gint32));
                for (gint64 r = 0; r < kk; r++)
                    for (gint64 j = 0; j < mc; j++)
                        if (wrow[j * kk + r])
                            axpy(acc32 + j * win.out_size, cols + r * win.out_size, wrow[j * kk + r], win.out_size);
                for (gint64 j = 0; j < mc; j++)
                    for (gint64 op = 0; op < win.out_size; op++)
                        emit(data, (gsize)((n * m_all + m0 + j) * win.out_size + op), 0, m0 + j,
                             acc32[j * win.out_size + op]);
            }
            for (gint64 m = g * mg; !exact32 && m < (g + 1) * mg; m++) {
                gint64 zw = w_zp ? kernel_elem_get_i(w_zp, w_zp->count == 1 ? 0 : (gsize)m) : 0;
                shifted(w, (gsize)(m * kk), (gsize)kk, (gint32)zw, wrow);
                memset(acc64, 0, win.out_size * sizeof(gint64));
                for (gint64 ic = 0; ic < cg; ic++) {
                    gint64 xbase = (n * win.c + g * cg + ic) * win.in_size;
                    memset(k, 0, sizeof k);
                    for (gint64 kp = 0; kp < win.k_size; kp++) {
                        memset(o, 0, sizeof o);
                        for (gint64 op = 0; op < win.out_size; op++) {
                            gint64 at = kernel_window_source(&win, o, k);
                            if (at >= 0)
                                acc64[op] += (kernel_elem_get_i(x, (gsize)(xbase + at)) - zx) *
                                             (gint64)wrow[ic * win.k_size + kp];
                            kernel_index_next(o, win.out, win.s);
                        }
                        kernel_index_next(k, win.k, win.s);
                    }
                }
                for (gint64 op = 0; op < win.out_size; op++)
                    emit(data, (gsize)((n * m_all + m) * win.out_size + op), 0, m, acc64[op]);
            }
        }
    g_free(acc64);
    return TRUE;
}

gboolean kernel_conv_integer(const KernelCall *c, GError **error)
{
    ExecTensor *y = kernel_out(c, 0);
    return conv_products(c, kernel_in(c, 0), kernel_in(c, 2), kernel_in(c, 1), kernel_in(c, 3), y, emit_int32, y->data,
                         NULL, error);
}

/* ConvInteger's library kernel: the sums on oneDNN's integer GEMM where it applies (gemm_products), else the
 * row's own. */
gboolean kernel_conv_integer_onednn(const KernelCall *c, GError **error)
{
    ExecTensor *y = kernel_out(c, 0);
    return conv_products(c, kernel_in(c, 0), kernel_in(c, 2), kernel_in(c, 1), kernel_in(c, 3), y, emit_int32, y->data,
                         &(GemmTarget){.block = sums_block, .data = y->data, .w_input = 1}, error);
}

/* QLinearConv's requantization, as ONNX Runtime computes it (MLAS's requantization, the C of its vector kernels):
 * the sum plus the channel's bias, as float32, times x_scale * w_scale / y_scale (float32; w's scale per output
 * channel where it is a vector), held to y's range less its zero point, rounded half to even, plus the zero point. */
typedef struct {
    ExecTensor *y;
    float *multiplier; /* per output channel: x_scale * w_scale / y_scale */
    gint32 *bias_of;   /* per output channel: the bias, or 0 */
    float lo, hi;      /* y's range less its zero point */
    float zero;        /* y's zero point */
} ConvRequant;

/* The requantized value of a sum that holds its bias, times the channel's multiplier. */
static inline float requant_value(const ConvRequant *r, gint64 m, gint64 acc)
{
    return quantize_value((float)acc * r->multiplier[m], r->lo, r->hi, r->zero);
}

static void emit_conv_requant(void *data, gsize at, gint64 i, gint64 m, gint64 acc)
{
    (void)i;
    const ConvRequant *r = data;
    float q = requant_value(r, m, acc + r->bias_of[m]);
    if (r->y->dtype == DT_UINT8)
        ((guint8 *)r->y->data)[at] = (guint8)(gint32)q;
    else if (r->y->dtype == DT_INT8)
        ((gint8 *)r->y->data)[at] = (gint8)(gint32)q;
    else
        kernel_elem_set_i(r->y, at, (gint64)q);
}

/* QLinearConv's EmitBlock: emit_conv_requant over each channel's row of sums (their biases in them), one loop. */
static void requant_block(void *data, const gint32 *sums, gint64 channels, gint64 positions, gint64 first, gsize at)
{
    const ConvRequant *r = data;
    if (r->y->dtype == DT_UINT8 || r->y->dtype == DT_INT8) {
        QuantLoop loop = quant_loop(TRUE, r->y->dtype);
        for (gint64 j = 0; j < channels; j++)
            loop(sums + j * positions, r->multiplier[first + j], r->lo, r->hi, r->zero,
                 (guint8 *)r->y->data + at + j * positions, (gsize)positions);
        return;
    }
    for (gint64 k = 0; k < channels * positions; k++)
        kernel_elem_set_i(r->y, at + (gsize)k, (gint64)requant_value(r, first + k / positions, sums[k]));
}

/* QLinearConv's requantization for its node: FALSE with an error where a scale or the bias has the wrong count.
 * Free with conv_requant_clear. */
static gboolean conv_requant_init(const KernelCall *c, ConvRequant *r, GError **error)
{
    const ExecTensor *w = kernel_in(c, 3), *xs = kernel_in(c, 1), *ws = kernel_in(c, 4), *ys = kernel_in(c, 6);
    const ExecTensor *yz = kernel_in(c, 7), *bias = kernel_in(c, 8);
    gint64 m_all = w->dims[0];
    *r = (ConvRequant){.y = kernel_out(c, 0)};
    if (xs->count != 1 || (ws->count != 1 && ws->count != (gsize)m_all) || ys->count != 1 || yz->count != 1)
        return kernel_fail(c, error, "a scale is neither one value nor, for w, one per output channel");
    if (bias && bias->count && bias->count != (gsize)m_all)
        return kernel_fail(c, error, "the bias has %zu values for %" G_GINT64_FORMAT " output channels", bias->count,
                           m_all);
    r->zero = (float)kernel_elem_get_i(yz, 0);
    range_of(r->y->dtype, &r->lo, &r->hi);
    r->lo -= r->zero;
    r->hi -= r->zero;
    r->multiplier = g_new(float, m_all + 1);
    r->bias_of = g_new0(gint32, m_all + 1);
    for (gint64 m = 0; m < m_all; m++) { /* ONNX Runtime's order of the three */
        float as = (float)kernel_elem_get_f(xs, 0), bs = (float)kernel_elem_get_f(ws, ws->count == 1 ? 0 : (gsize)m);
        r->multiplier[m] = as * bs / (float)kernel_elem_get_f(ys, 0);
        r->bias_of[m] = bias && bias->count ? (gint32)kernel_elem_get_i(bias, (gsize)m) : 0;
    }
    return TRUE;
}

static void conv_requant_clear(ConvRequant *r)
{
    g_free(r->multiplier);
    g_free(r->bias_of);
}

gboolean kernel_qlinear_conv(const KernelCall *c, GError **error)
{
    ConvRequant r;
    if (!conv_requant_init(c, &r, error))
        return FALSE;
    gboolean ok = conv_products(c, kernel_in(c, 0), kernel_in(c, 2), kernel_in(c, 3), kernel_in(c, 5), r.y,
                                emit_conv_requant, &r, NULL, error);
    conv_requant_clear(&r);
    return ok;
}

gboolean kernel_qlinear_conv_blocks(const KernelCall *c)
{
    const ExecTensor *x = kernel_in(c, 0), *xz = kernel_in(c, 2), *w = kernel_in(c, 3), *wz = kernel_in(c, 5);
    const ExecTensor *y = kernel_out(c, 0);
    const Tensor *wt = node_input(c->node, 3);
    gint64 group = 1, zw = 0;
    if (!kernel_qconv_supported() || !x || !w || !y || !(wt && wt->init) || x->rank != 4 || w->rank != 4 ||
        y->rank != 4 || w->dtype != DT_INT8 || (x->dtype != DT_UINT8 && x->dtype != DT_INT8) ||
        (y->dtype != DT_UINT8 && y->dtype != DT_INT8) || (xz && xz->count > 1) ||
        !node_attr_int(c->node, "group", 1, &group, NULL))
        return FALSE;
    if (!(group == 1 && w->dims[1] == x->dims[1]) && /* one group, or depthwise: a channel a group, each to one */
        !(group > 1 && group == x->dims[1] && group == w->dims[0] && w->dims[1] == 1))
        return FALSE;
    for (gsize k = 0; wz && k < wz->count && zw == 0; k++)
        zw = kernel_elem_get_i(wz, k);
    return zw == 0;
}

/* An 8-bit image tensor [N, C, H, W] (C a multiple of 16) between the blocked layout and row-major, into `to`. */
static void reblock(const ExecTensor *t, const guint8 *from, guint8 *to, gboolean to_blocked)
{
    gint64 c = t->dims[1], hw = t->dims[2] * t->dims[3];
    for (gint64 n = 0; n < t->dims[0]; n++)
        for (gint64 ch = 0; ch < c; ch++)
            for (gint64 k = 0; k < hw; k++) {
                gsize plain = (gsize)((n * c + ch) * hw + k);
                gsize blocked = (gsize)((n * c + ch / 16 * 16) * hw + k * 16 + ch % 16);
                to[to_blocked ? blocked : plain] = from[to_blocked ? plain : blocked];
            }
}

/* QLinearConv by the rows' own sums (conv_products without the library) on row-major copies of a blocked x or y:
 * where kernel_qconv_run does not take a call whose layouts the executor chose for it (sums that could pass
 * int32). */
static gboolean qlinear_conv_plain(const KernelCall *c, ConvRequant *r, GError **error)
{
    ExecTensor x = *kernel_in(c, 0), y = *r->y;
    ExecTensor *out = r->y;
    guint8 *xs = x.blocked ? kernel_alloc(c, x.count + 1, 1, "a row-major copy of x", error) : NULL;
    guint8 *ys = y.blocked ? kernel_alloc(c, y.count + 1, 1, "a row-major copy of y", error) : NULL;
    gboolean ok = (!x.blocked || xs) && (!y.blocked || ys);
    if (ok && xs) {
        reblock(&x, x.data, xs, FALSE);
        x.data = xs;
        x.blocked = FALSE;
    }
    if (ys) {
        y.data = ys;
        y.blocked = FALSE;
    }
    r->y = &y;
    ok = ok && conv_products(c, &x, kernel_in(c, 2), kernel_in(c, 3), kernel_in(c, 5), &y, emit_conv_requant, r, NULL,
                             error);
    r->y = out;
    if (ok && ys)
        reblock(out, ys, out->data, TRUE);
    kernel_alloc_free(xs);
    kernel_alloc_free(ys);
    return ok;
}

/* QLinearConv on qconv.h's kernel (kernel_qlinear_conv_blocks): *done FALSE where the call's values put it past the
 * kernel (kernel_qconv_work_bytes). The packed weights are the node's prepared state. */
static gboolean qlinear_conv_direct(const KernelCall *c, ConvRequant *r, gboolean *done, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *xz = kernel_in(c, 2), *w = kernel_in(c, 3);
    KernelPrepared *prep = c->prepared;
    Window win;
    *done = FALSE;
    if (!kernel_window_plane(c, x, r->y, w->dims + 2, &win, error))
        return FALSE;
    if (!prep->state) {
        gint64 group = 1;
        if (!node_attr_int(c->node, "group", 1, &group, error))
            return FALSE;
        if (!(prep->state = kernel_qconv_pack(w->data, w->dims[0], w->dims[1], group, w->dims[2], w->dims[3])))
            return kernel_fail(c, error, "its packed weights cannot be allocated");
        prep->free = kernel_qconv_free;
        prep->bytes += kernel_qconv_bytes(prep->state);
    }
    KernelQconvCall call = {.win = &win, .x = x->data, .x_blocked = x->blocked, .x_signed = x->dtype == DT_INT8,
                            .zx = xz && xz->count ? kernel_elem_get_i(xz, 0) : 0, .y = r->y->data,
                            .y_blocked = r->y->blocked, .y_signed = r->y->dtype == DT_INT8,
                            .multiplier = r->multiplier, .bias = r->bias_of, .lo = r->lo, .hi = r->hi, .zero = r->zero};
    gsize bytes = kernel_qconv_work_bytes(prep->state, &call);
    void *work = bytes ? kernel_workspace(c, bytes) : NULL;
    if (bytes && !work)
        return kernel_fail(c, error, "its work memory of %" G_GSIZE_FORMAT " bytes cannot be allocated", bytes);
    if (!bytes)
        return TRUE;
    kernel_qconv_run(prep->state, &call, work);
    prep->by = NULL;
    prep->algorithm = "8-bit direct convolution (our own kernel, VNNI)";
    *done = TRUE;
    return TRUE;
}

/* QLinearConv's library kernel: our own direct convolution where it applies (qlinear_conv_direct); else the sums
 * on oneDNN's integer GEMM where that applies (gemm_products), requantized a row at a time; else the row's own. */
gboolean kernel_qlinear_conv_onednn(const KernelCall *c, GError **error)
{
    ConvRequant r;
    if (!conv_requant_init(c, &r, error))
        return FALSE;
    gboolean ok = TRUE, done = FALSE, direct = kernel_qlinear_conv_blocks(c);
    if (direct)
        ok = qlinear_conv_direct(c, &r, &done, error);
    if (ok && !done && (direct || kernel_in(c, 0)->blocked || r.y->blocked))
        ok = qlinear_conv_plain(c, &r, error);
    else if (ok && !done)
        ok = conv_products(c, kernel_in(c, 0), kernel_in(c, 2), kernel_in(c, 3), kernel_in(c, 5), r.y,
                           emit_conv_requant, &r,
                           &(GemmTarget){.bias_of = r.bias_of, .block = requant_block, .data = &r, .w_input = 3},
                           error);
    conv_requant_clear(&r);
    return ok;
}

/* ONNX Runtime's QOperator contrib ops (com.microsoft), as its reference kernels compute them (MLAS's scalar paths:
 * the values dequantized in float32 as scale * (q - zero point), the result divided by the output's scale, rounded
 * half to even and saturated); every scale and zero point one value. */
static float qscale(const ExecTensor *s) { return (float)kernel_elem_get_f(s, 0); }
static gint64 qzero(const ExecTensor *z) { return z && z->count ? kernel_elem_get_i(z, 0) : 0; }

/* QLinearAdd: round(sa / sc (a - za) + sb / sc (b - zb) + zc), the form of ONNX Runtime's x86 vector kernel (its
 * scalar reference, round((sa (a - za) + sb (b - zb)) / sc) + zc, rounds some ties of int8 sums the other way).
 * QLinearMul: round(sa sb / sc (a - za)(b - zb)) + zc. Both broadcast a and b as numpy does; float32 throughout. */
gboolean kernel_qlinear_binary(const KernelCall *c, GError **error)
{
    (void)error;
    const ExecTensor *a = kernel_in(c, 0), *b = kernel_in(c, 3);
    ExecTensor *y = kernel_out(c, 0);
    float sa = qscale(kernel_in(c, 1)), sb = qscale(kernel_in(c, 4)), sc = qscale(kernel_in(c, 6)), lo, hi;
    gint64 za = qzero(kernel_in(c, 2)), zb = qzero(kernel_in(c, 5)), zc = qzero(kernel_in(c, 7));
    gboolean mul = !strcmp(c->node->op_type, "QLinearMul");
    float ratio = sa * sb / sc, ra = sa / sc, rb = sb / sc;
    range_of(y->dtype, &lo, &hi);
    KernelWalk w;
    kernel_walk_init(&w, y, 2, (const ExecTensor *const[]){a, b});
    for (gsize k = 0; k < y->count; k++, kernel_walk_next(&w)) {
        gint64 qa = kernel_elem_get_i(a, (gsize)w.off[0]) - za, qb = kernel_elem_get_i(b, (gsize)w.off[1]) - zb;
        float r = mul ? nearbyintf(ratio * (float)(qa * qb)) + (float)zc
                      : nearbyintf(ra * (float)qa + rb * (float)qb + (float)zc);
        kernel_elem_set_i(y, k, saturate(r, lo, hi));
    }
    kernel_walk_clear(&w);
    return TRUE;
}

/* The functions ONNX Runtime's lookup-table kernels map values by (`alpha`: LeakyRelu's slope). */
typedef enum { TABLE_IDENTITY, TABLE_SIGMOID, TABLE_LEAKY_RELU } TableFn;

/* ONNX Runtime's lookup table of an 8-bit tensor: for each of the 256 values of type `from`, dequantized (sx, zx),
 * mapped by fn in float32 and quantized to type `to` (round(f / sy) + zy, saturated); indexed by the value's byte. */
static void lookup_table(guint8 *table, DType from, float sx, gint64 zx, DType to, float sy, gint64 zy, TableFn fn,
                         float alpha)
{
    float lo, hi, in_lo, in_hi;
    range_of(to, &lo, &hi);
    range_of(from, &in_lo, &in_hi);
    for (gint64 q = (gint64)in_lo; q <= (gint64)in_hi; q++) {
        float v = sx * (float)(q - zx);
        float f = fn == TABLE_SIGMOID ? 1.0f / (1.0f + expf(-v)) : fn == TABLE_LEAKY_RELU && v < 0 ? v * alpha : v;
        table[q & 0xff] = (guint8)saturate(nearbyintf(f / sy) + (float)zy, lo, hi);
    }
}

/* QLinearSigmoid and QLinearLeakyRelu: a table over the 256 values of x, each dequantized, mapped by the function
 * in float32 and quantized to y (ONNX Runtime's lookup-table kernels). */
gboolean kernel_qlinear_unary(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    float alpha = 0.01f;
    gboolean sigmoid = !strcmp(c->node->op_type, "QLinearSigmoid");
    if (!sigmoid && !node_attr_float(c->node, "alpha", 0.01f, &alpha, error))
        return FALSE;
    guint8 table[256];
    lookup_table(table, x->dtype, qscale(kernel_in(c, 1)), qzero(kernel_in(c, 2)), y->dtype, qscale(kernel_in(c, 3)),
                 qzero(kernel_in(c, 4)), sigmoid ? TABLE_SIGMOID : TABLE_LEAKY_RELU, alpha);
    const guint8 *in = x->data;
    guint8 *out = y->data;
    for (gsize k = 0; k < y->count; k++)
        out[k] = table[in[k]]; /* the byte of an int8 or a uint8 alike */
    return TRUE;
}

/* QLinearWhere as ONNX Runtime's CPU kernel computes it (qlinear_where.cc): x and y each requantized to z through a
 * table of their 256 values (dequantized, then round(v / sz) + zz, saturated: its identity lookup table), the
 * condition choosing, the three broadcast. */
gboolean kernel_qlinear_where(const KernelCall *c, GError **error)
{
    (void)error;
    const ExecTensor *cond = kernel_in(c, 0), *x = kernel_in(c, 1), *yv = kernel_in(c, 4);
    ExecTensor *z = kernel_out(c, 0);
    float sz = qscale(kernel_in(c, 7));
    gint64 zz = qzero(kernel_in(c, 8));
    guint8 table[2][256];
    for (int side = 0; side < 2; side++)
        lookup_table(table[side], side ? yv->dtype : x->dtype, qscale(kernel_in(c, side ? 5 : 2)),
                     qzero(kernel_in(c, side ? 6 : 3)), z->dtype, sz, zz, TABLE_IDENTITY, 0.0f);
    const guint8 *pc = cond->data, *px = x->data, *py = yv->data;
    guint8 *out = z->data;
    KernelWalk w;
    kernel_walk_init(&w, z, 3, (const ExecTensor *const[]){cond, x, yv});
    for (gsize k = 0; k < z->count; k++, kernel_walk_next(&w))
        out[k] = pc[w.off[0]] ? table[0][px[w.off[1]]] : table[1][py[w.off[2]]];
    kernel_walk_clear(&w);
    return TRUE;
}

/* QLinearSoftmax as ONNX Runtime's CPU kernel computes it (facts from its qlinear_softmax.cc): a table of 256
 * float32 exponentials, entry i = exp((i - 255 + shift) sx) with shift = max(0, ln(FLT_MAX / D) - 5) / sx, D the
 * length reduced (the sums of D entries stay finite); per row, each x read at its distance below the row's largest
 * (uint8: entry 255 - max + x; int8: entry byte(127 - max + x) of the table laid out from -128), the entries summed
 * in float32 in order, then y = round-half-even(e * floor(1 / sy) / sum) + zy, held to the type's top (the least
 * is zy). A row whose sum is 0 ends the kernel's rows there, as there. Opset below
 * 13: the rows are everything from `axis` on; from 13: the axis alone (each row gathered across the others). */
gboolean kernel_qlinear_softmax(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gint64 softmax_opset, axis_attr;
    if (!node_attr_int(c->node, "opset", 13, &softmax_opset, error) ||
        !node_attr_int(c->node, "axis", softmax_opset < 13 ? 1 : -1, &axis_attr, error))
        return FALSE;
    int axis = kernel_axis(axis_attr, x->rank);
    gint64 outer, len, inner;
    kernel_axis_geometry(x, axis, &outer, &len, &inner);
    if (softmax_opset < 13) { /* every axis from `axis` on is the row */
        len *= inner;
        inner = 1;
    }
    if (!x->count)
        return TRUE;
    gboolean is_signed = x->dtype == DT_INT8;
    float sx = qscale(kernel_in(c, 1)), y_scale = floorf(1.0f / qscale(kernel_in(c, 3)));
    gint64 zy = qzero(kernel_in(c, 4));
    double shift = MAX(0.0, log((double)(FLT_MAX / (float)len)) - 5.0) / (double)sx;
    float table[256];
    for (int i = 0; i < 256; i++)
        table[(guint8)(is_signed ? i - 128 : i)] = (float)exp(((double)i - 255.0 + shift) * (double)sx);
    const guint8 *in = x->data;
    guint8 *out = y->data;
    for (gint64 o = 0; o < outer; o++)
        for (gint64 i = 0; i < inner; i++) {
            gint64 base = o * len * inner + i;
            int top = is_signed ? -128 : 0;
            for (gint64 j = 0; j < len; j++) {
                int v = is_signed ? (gint8)in[base + j * inner] : in[base + j * inner];
                top = MAX(top, v);
            }
            float sum = 0.0f;
            for (gint64 j = 0; j < len; j++) {
                int v = is_signed ? (gint8)in[base + j * inner] : in[base + j * inner];
                sum += table[(guint8)(is_signed ? 127 - top + v : 255 - top + v)];
            }
            if (sum == 0.0f)
                return TRUE;
            for (gint64 j = 0; j < len; j++) {
                int v = is_signed ? (gint8)in[base + j * inner] : in[base + j * inner];
                float e = table[(guint8)(is_signed ? 127 - top + v : 255 - top + v)];
                gint64 q = (gint64)nearbyintf(e * y_scale / sum) + zy; /* at least zy: only the top can pass */
                out[base + j * inner] = (guint8)(is_signed ? (gint8)MIN(q, 127) : MIN(q, 255));
            }
        }
    return TRUE;
}

/* QLinearGlobalAveragePool: per (n, c), the sum of x - zx over the image times sx / (sy * size), rounded half to
 * even, plus zy, saturated (ONNX Runtime's MLAS kernel: an int32 sum, one float32 scale); NCHW or channels_last. */
gboolean kernel_qlinear_global_average_pool(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gint64 last = 0, zx = qzero(kernel_in(c, 2)), zy = qzero(kernel_in(c, 4));
    if (!node_attr_int(c->node, "channels_last", 0, &last, error))
        return FALSE;
    gsize n = (gsize)x->dims[0], ch = (gsize)x->dims[last ? x->rank - 1 : 1], size = x->count / MAX(n * ch, 1);
    float scale = qscale(kernel_in(c, 1)) / (qscale(kernel_in(c, 3)) * (float)size), lo, hi;
    range_of(y->dtype, &lo, &hi);
    for (gsize i = 0; i < n; i++)
        for (gsize j = 0; j < ch; j++) {
            gint64 acc = -zx * (gint64)size;
            for (gsize p = 0; p < size; p++)
                acc += kernel_elem_get_i(x, last ? (i * size + p) * ch + j : (i * ch + j) * size + p);
            kernel_elem_set_i(y, i * ch + j, saturate(nearbyintf((float)acc * scale) + (float)zy, lo, hi));
        }
    return TRUE;
}

/* QLinearConcat: each input requantized to y's scale and zero point (round(sx (x - zx) / sy) + zy, saturated; a
 * copy where they are the same), placed along axis. */
gboolean kernel_qlinear_concat(const KernelCall *c, GError **error)
{
    ExecTensor *y = kernel_out(c, 0);
    gint64 axis = 0, zy = qzero(kernel_in(c, 1));
    float sy = qscale(kernel_in(c, 0)), lo, hi;
    if (!node_attr_int(c->node, "axis", 0, &axis, error))
        return FALSE;
    int a = kernel_axis(axis, y->rank);
    gsize outer = 1, inner = 1;
    for (int d = 0; d < a; d++)
        outer *= (gsize)y->dims[d];
    for (int d = a + 1; d < y->rank; d++)
        inner *= (gsize)y->dims[d];
    range_of(y->dtype, &lo, &hi);
    gsize at = 0; /* where this input's block starts along the axis, in elements of one outer row */
    for (guint k = 2; k + 2 < c->node->inputs->len; k += 3) { /* X, X_scale, X_zero_point per input */
        const ExecTensor *x = kernel_in(c, k);
        float sx = qscale(kernel_in(c, k + 1));
        gint64 zx = qzero(kernel_in(c, k + 2));
        gsize block = (gsize)x->dims[a] * inner, row = (gsize)y->dims[a] * inner;
        for (gsize o = 0; o < outer; o++)
            for (gsize e = 0; e < block; e++) {
                gint64 q = kernel_elem_get_i(x, o * block + e);
                gint64 v = sx == sy && zx == zy ? q
                                                : saturate(nearbyintf(sx * (float)(q - zx) / sy) + (float)zy, lo, hi);
                kernel_elem_set_i(y, o * row + at + e, v);
            }
        at += block;
    }
    return TRUE;
}

/* QLinearAveragePool (NCHW): x dequantized in float32, the window summed in float32 in row-major order (as
 * AveragePool's), divided by its count (the whole window with count_include_pad), then round(v / sy + zy),
 * saturated (ONNX Runtime's kernel). */
gboolean kernel_qlinear_average_pool(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    const GArray *shape = NULL;
    gint64 include_pad = 0, zx = qzero(kernel_in(c, 2)), zy = qzero(kernel_in(c, 4));
    float sx = qscale(kernel_in(c, 1)), sy = qscale(kernel_in(c, 3)), lo, hi;
    KernelWindow w;
    if (!node_attr_ints(c->node, "kernel_shape", &shape, error) ||
        !node_attr_int(c->node, "count_include_pad", 0, &include_pad, error))
        return FALSE;
    if (!shape || x->rank > KERNEL_MAX_RANK || shape->len != (guint)x->rank - 2)
        return kernel_fail(c, error, "kernel_shape does not match input rank %d", x->rank);
    if (!kernel_window_read(c, x, y, (const gint64 *)shape->data, &w, error))
        return FALSE;
    range_of(y->dtype, &lo, &hi);
    gint64 o[KERNEL_MAX_RANK];
    for (gint64 plane = 0; plane < w.n * w.c; plane++) {
        memset(o, 0, sizeof(o));
        for (gint64 q = 0; q < w.out_size; q++, kernel_index_next(o, w.out, w.s)) {
            float sum = 0;
            gint64 counted = 0, src;
            for (KernelWindowWalk it = {.w = &w, .o = o}; kernel_window_next(&it, &src); counted++)
                sum += sx * (float)(kernel_elem_get_i(x, (gsize)(plane * w.in_size + src)) - zx);
            sum /= (float)(include_pad ? w.k_size : MAX(counted, 1));
            kernel_elem_set_i(y, (gsize)(plane * w.out_size + q), saturate(nearbyintf(sum / sy + (float)zy), lo, hi));
        }
    }
    return TRUE;
}

/* QGemm: alpha A' B' of 8-bit matrices (A' = A or its transpose, per transA; B' likewise), each element shifted by
 * its zero point (b's one per output column or one for all), summed exactly with the int32 bias; then, with
 * y_scale, requantized by alpha a_scale b_scale / y_scale (float32) as round(sum times it) + zy, saturated, or
 * without it, sum times alpha a_scale b_scale in float32 (ONNX Runtime's kernel). */
gboolean kernel_qgemm(const KernelCall *c, GError **error)
{
    const ExecTensor *a = kernel_in(c, 0), *b = kernel_in(c, 3), *bias = kernel_in(c, 6), *ys = kernel_in(c, 7);
    const ExecTensor *bs = kernel_in(c, 4), *bz = kernel_in(c, 5);
    ExecTensor *y = kernel_out(c, 0);
    gint64 ta, tb, za = qzero(kernel_in(c, 2)), zy = ys ? qzero(kernel_in(c, 8)) : 0;
    float alpha = 1, sa = qscale(kernel_in(c, 1)), lo = 0, hi = 0;
    if (!node_attr_int(c->node, "transA", 0, &ta, error) || !node_attr_int(c->node, "transB", 0, &tb, error) ||
        !node_attr_float(c->node, "alpha", 1, &alpha, error))
        return FALSE;
    gint64 m = y->dims[0], n = y->dims[1], k = ta ? a->dims[0] : a->dims[1];
    if (ys)
        range_of(y->dtype, &lo, &hi);
    for (gint64 j = 0; j < n; j++) {
        gsize per = bs->count == 1 ? 0 : (gsize)j;
        gint64 zb = bz && bz->count ? kernel_elem_get_i(bz, bz->count == 1 ? 0 : (gsize)j) : 0;
        float scale = alpha * sa * (float)kernel_elem_get_f(bs, per);
        float requant = ys ? scale / qscale(ys) : 0;
        for (gint64 i = 0; i < m; i++) {
            gint64 acc = bias && bias->count ? kernel_elem_get_i(bias, bias->count == 1 ? 0 : (gsize)j) : 0;
            for (gint64 p = 0; p < k; p++)
                acc += (kernel_elem_get_i(a, (gsize)(ta ? p * m + i : i * k + p)) - za) *
                       (kernel_elem_get_i(b, (gsize)(tb ? j * k + p : p * n + j)) - zb);
            if (ys)
                kernel_elem_set_i(y, (gsize)(i * n + j),
                                  saturate(nearbyintf((float)acc * requant) + (float)zy, lo, hi));
            else
                kernel_elem_set_f(y, (gsize)(i * n + j), (float)acc * scale);
        }
    }
    return TRUE;
}
