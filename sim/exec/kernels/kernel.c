/* kernel.c — the helpers every kernel family shares (see kernel.h). */
#include "exec/kernel.h"
#include "base/units.h"
#include "exec/big-alloc.h"
#include "exec/kernel-table.h"
#include "exec/onednn.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const ExecTensor *kernel_in(const KernelCall *c, guint k) { return k < c->n_in ? c->in[k] : NULL; }
ExecTensor *kernel_out(const KernelCall *c, guint k) { return k < c->n_out ? c->out[k] : NULL; }

KernelKind kernel_kind(const KernelCall *c) { return c->row ? c->row->kind : KIND_NONE; }

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

gboolean kernel_set_dims(const KernelCall *c, guint k, const gint64 *dims, GError **error)
{
    ExecTensor *y = kernel_out(c, k);
    const Tensor *t = node_output(c->node, k);
    if (!y)
        return TRUE;
    gsize count = 1;
    for (int d = 0; d < y->rank; d++)
        count = dims[d] < 0 || (dims[d] && count > G_MAXSIZE / (gsize)dims[d]) ? G_MAXSIZE : count * (gsize)dims[d];
    if (!y->own_dims)
        return count == y->count ? TRUE
                                 : kernel_fail(c, error, "output '%s' holds %" G_GSIZE_FORMAT " elements when it runs, "
                                               "but its plan made it %" G_GSIZE_FORMAT " and not data-dependent",
                                               t ? t->name : "?", count, y->count);
    if (count > y->capacity) {
        char *name = g_strescape(t ? t->name : "?", NULL);
        gboolean r = kernel_fail(c, error, "output '%s' holds %" G_GSIZE_FORMAT " elements when it runs, above the %"
                                 G_GSIZE_FORMAT " its planned bound holds (raise it with --bound '%s=MAX')", name,
                                 count, y->capacity, name);
        g_free(name);
        return r;
    }
    memcpy(y->own_dims, dims, sizeof(gint64) * (gsize)y->rank);
    y->count = count;
    return TRUE;
}

gboolean kernel_need_float(const KernelCall *c, const ExecTensor *t, const char *what, GError **error)
{
    if (t && t->dtype != DT_FLOAT)
        return kernel_fail(c, error, "the executor computes %s in float32, not %s", what, dtype_name(t->dtype));
    return TRUE;
}

gboolean kernel_elem_supported(DType d)
{
    switch (d) {
    case DT_FLOAT: case DT_DOUBLE: case DT_FLOAT16: case DT_BFLOAT16: case DT_INT64: case DT_INT32: case DT_INT16: case DT_INT8: case DT_UINT8:
    case DT_UINT16: case DT_UINT32: case DT_UINT64: case DT_BOOL:
        return TRUE;
    default:
        return FALSE;
    }
}

double kernel_elem_get_f(const ExecTensor *t, gsize k)
{
    switch (t->dtype) {
    case DT_FLOAT: return ((const float *)t->data)[k];
    case DT_DOUBLE: return ((const double *)t->data)[k];
    case DT_FLOAT16: return dtype_half_to_double(((const guint16 *)t->data)[k]);
    case DT_BFLOAT16: return dtype_bfloat16_to_double(((const guint16 *)t->data)[k]);
    default: return (double)kernel_elem_get_i(t, k);
    }
}

gint64 kernel_elem_get_i(const ExecTensor *t, gsize k)
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
    case DT_FLOAT16: case DT_BFLOAT16: return (gint64)kernel_elem_get_f(t, k);
    default: return 0;
    }
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
__attribute__((target("avx,f16c"))) static gsize half_to_float_f16c(const guint16 *in, float *out, gsize n)
{
    gsize k = 0;
    for (; k + 8 <= n; k += 8)
        _mm256_storeu_ps(out + k, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(in + k))));
    return k;
}

__attribute__((target("avx,f16c"))) static gsize float_to_half_f16c(const float *in, guint16 *out, gsize n)
{
    gsize k = 0;
    for (; k + 8 <= n; k += 8)
        _mm_storeu_si128((__m128i *)(out + k), _mm256_cvtps_ph(_mm256_loadu_ps(in + k), _MM_FROUND_TO_NEAREST_INT));
    return k;
}

/* F16C is CPUID leaf 1's ECX bit 29 (read directly: clang's __builtin_cpu_supports has no "f16c"); its
 * instructions use the AVX state, which __builtin_cpu_supports("avx") checks the system saves. Read once: CPUID
 * traps to the hypervisor on a virtual machine, and was a third of a half-precision MobileNet's run when each
 * conversion asked. */
static gboolean have_f16c(void)
{
    static gsize known = 0; /* 1 + whether it has */
    if (g_once_init_enter(&known)) {
        unsigned int a, b, c, d;
        gboolean has = __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
        g_once_init_leave(&known, 1 + (gsize)has);
    }
    return known == 2;
}
#else
static gsize half_to_float_f16c(const guint16 *in, float *out, gsize n) { (void)in, (void)out, (void)n; return 0; }
static gsize float_to_half_f16c(const float *in, guint16 *out, gsize n) { (void)in, (void)out, (void)n; return 0; }
static gboolean have_f16c(void) { return FALSE; }
#endif

void kernel_16bit_to_float(DType dtype, const guint16 *in, float *out, gsize n)
{
    gsize k = 0;
    if (dtype == DT_BFLOAT16) { /* the upper half of a float32 */
        for (; k < n; k++) {
            guint32 bits = (guint32)in[k] << 16;
            memcpy(&out[k], &bits, sizeof bits);
        }
        return;
    }
    if (have_f16c())
        k = half_to_float_f16c(in, out, n);
    for (; k < n; k++)
        out[k] = (float)dtype_half_to_double(in[k]);
}

void kernel_float_to_16bit(DType dtype, const float *in, guint16 *out, gsize n)
{
    gsize k = 0;
    if (dtype == DT_FLOAT16 && have_f16c())
        k = float_to_half_f16c(in, out, n);
    for (; k < n; k++)
        out[k] = dtype == DT_FLOAT16 ? dtype_double_to_half(in[k]) : dtype_double_to_bfloat16(in[k]);
}

/* v as an integer: truncated, held to int64's range (NaN to 0). ONNX leaves a Cast of a float past the target's range
 * undefined; C too, so it is never converted as it is. */
static gint64 double_to_int(double v)
{
    if (isnan(v))
        return 0;
    if (v >= 0x1p63)
        return G_MAXINT64;
    if (v < -0x1p63)
        return G_MININT64;
    return (gint64)v;
}

void kernel_elem_set_f(ExecTensor *t, gsize k, double v)
{
    switch (t->dtype) {
    case DT_FLOAT: ((float *)t->data)[k] = (float)v; break;
    case DT_DOUBLE: ((double *)t->data)[k] = v; break;
    case DT_FLOAT16: ((guint16 *)t->data)[k] = dtype_double_to_half(v); break;
    case DT_BFLOAT16: ((guint16 *)t->data)[k] = dtype_double_to_bfloat16(v); break;
    case DT_BOOL: ((guint8 *)t->data)[k] = v != 0; break;
    default: kernel_elem_set_i(t, k, double_to_int(v)); break;
    }
}

void kernel_elem_set_i(ExecTensor *t, gsize k, gint64 v)
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
    case DT_FLOAT16: case DT_BFLOAT16: kernel_elem_set_f(t, k, (double)v); break;
    default: break;
    }
}

void kernel_broadcast_strides(const ExecTensor *t, int rank, const gint64 *out_dims, gint64 *strides)
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

void kernel_walk_init(KernelWalk *w, const ExecTensor *out, guint n, const ExecTensor *const *ins)
{
    w->rank = out->rank;
    w->dims = out->dims;
    w->n = n;
    w->strides = g_new0(gint64, (gsize)n * MAX(out->rank, 1));
    w->idx = g_new0(gint64, MAX(out->rank, 1));
    for (guint k = 0; k < n; k++) {
        kernel_broadcast_strides(ins[k], out->rank, out->dims, w->strides + (gsize)k * MAX(out->rank, 1));
        w->off[k] = 0;
    }
}

void kernel_walk_next(KernelWalk *w)
{
    int r = MAX(w->rank, 1);
    for (int a = w->rank - 1; a >= 0; a--) {
        w->idx[a]++;
        for (guint k = 0; k < w->n; k++)
            w->off[k] += w->strides[(gsize)k * r + a];
        if (w->idx[a] < w->dims[a])
            return;
        for (guint k = 0; k < w->n; k++)
            w->off[k] -= w->strides[(gsize)k * r + a] * w->dims[a];
        w->idx[a] = 0;
    }
}

void kernel_walk_clear(KernelWalk *w)
{
    g_free(w->strides);
    g_free(w->idx);
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

gboolean kernel_index_at(const KernelCall *c, const ExecTensor *ind, gsize k, gint64 dim, int axis, gint64 *out,
                         GError **error)
{
    gint64 i = kernel_elem_get_i(ind, k);
    *out = i < 0 ? i + dim : i;
    if (*out < 0 || *out >= dim)
        return kernel_fail(c, error, "index %" G_GINT64_FORMAT " is out of range for axis %d of size %" G_GINT64_FORMAT,
                           i, axis, dim);
    return TRUE;
}

int kernel_axis(gint64 axis, int rank)
{
    /* Saturated, never truncated: an axis near INT64_MIN must not wrap into a valid-looking int (Shape's
     * start clamps what this returns). Axes the shape inference checked are returned as they are. */
    gint64 a = axis < 0 ? axis + rank : axis;
    return a < -1 ? -1 : a > rank ? rank : (int)a;
}

void kernel_axis_geometry(const ExecTensor *t, int axis, gint64 *outer, gint64 *len, gint64 *inner)
{
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < axis; d++)
        *outer *= t->dims[d];
    for (int d = axis + 1; d < t->rank; d++)
        *inner *= t->dims[d];
    if (len)
        *len = axis < t->rank ? t->dims[axis] : 1;
}

gboolean kernel_coerced_rows(const KernelCall *c, const ExecTensor *x, gint64 *outer, gint64 *len, gint64 *inner,
                             GError **error)
{
    gint64 axis;
    if (!node_attr_int(c->node, "axis", c->opset >= 13 ? -1 : 1, &axis, error))
        return FALSE;
    int a = kernel_axis(axis, x->rank);
    if (a < 0 || a > x->rank || (c->opset >= 13 && a == x->rank))
        return kernel_fail(c, error, "axis %" G_GINT64_FORMAT " is outside rank %d", axis, x->rank);
    kernel_axis_geometry(x, a, outer, len, inner);
    if (c->opset < 13) { /* the whole tail from axis is one row */
        *len *= *inner;
        *inner = 1;
    }
    return TRUE;
}

const void *kernel_input_apart(const ExecTensor *x, const ExecTensor *y, void **copy)
{
    gsize xb = x->count * dtype_size(x->dtype), yb = y->count * dtype_size(y->dtype);
    const char *lo = x->data, *ylo = y->data;
    *copy = NULL;
    if (xb && yb && ylo < lo + xb && lo < ylo + yb)
        return *copy = g_memdup2(x->data, xb);
    return x->data;
}

void kernel_permute(void *dst, const void *src, gsize size, int rank, const gint64 *x_dims, const gint64 *perm)
{
    /* The same permutation over fewer dimensions: dimensions of 1 dropped, and output dimensions that follow
     * each other in the input too merged into one (swin's window partition, [1, 8, 7, 8, 7, 96] ->
     * [1, 8, 8, 7, 7, 96], then moves rows of 7 x 96 elements, not of 96) */
    gint64 in_stride[KERNEL_MAX_RANK], y_dims[KERNEL_MAX_RANK], step_of[KERNEL_MAX_RANK], count = 1;
    int last[KERNEL_MAX_RANK], n = 0;
    for (int d = rank - 1; d >= 0; d--) {
        in_stride[d] = count;
        count *= x_dims[d];
    }
    if (!count)
        return;
    for (int d = 0; d < rank; d++) {
        int a = (int)perm[d];
        if (x_dims[a] == 1)
            continue;
        if (n && a == last[n - 1] + 1) { /* the next input dimension: one group with the one before */
            y_dims[n - 1] *= x_dims[a];
            step_of[n - 1] = in_stride[a];
        } else {
            y_dims[n] = x_dims[a];
            step_of[n++] = in_stride[a];
        }
        last[n - 1] = a;
    }
    gint64 idx[KERNEL_MAX_RANK] = {0}, off = 0;
    char *out = dst;
    const char *in = src;
    /* Rows along the output's last group (contiguous in dst, stride `step` in src: contiguous too where the last
     * dimension stays last, one copy), then the odometer over the other groups. */
    gint64 inner = n ? y_dims[n - 1] : 1, step = n ? step_of[n - 1] : 1;
    for (gint64 k = 0; k < count; k += inner) {
        if (step == 1) {
            memcpy(out + (gsize)k * size, in + (gsize)off * size, (gsize)inner * size);
        } else if (size == 4) {
            const guint32 *s4 = (const guint32 *)in + off;
            guint32 *d4 = (guint32 *)out + k;
            for (gint64 j = 0; j < inner; j++)
                d4[j] = s4[j * step];
        } else {
            for (gint64 j = 0; j < inner; j++)
                memcpy(out + (gsize)(k + j) * size, in + (gsize)(off + j * step) * size, size);
        }
        for (int d = n - 2; d >= 0; d--) { /* the output index over the groups; the input offset follows */
            idx[d]++;
            off += step_of[d];
            if (idx[d] < y_dims[d])
                break;
            off -= step_of[d] * y_dims[d];
            idx[d] = 0;
        }
    }
}

struct KernelWorkspace {
    void *data;
    gsize bytes;
};

KernelWorkspace *kernel_workspace_new(void) { return g_new0(KernelWorkspace, 1); }

void kernel_workspace_free(KernelWorkspace *w)
{
    if (w)
        big_alloc_free(w->data);
    g_free(w);
}

void *kernel_alloc(const KernelCall *c, guint64 count, guint64 size, const char *what, GError **error)
{
    guint64 bytes;
    void *p = graph_size_mul(count, size, &bytes) ? big_alloc_within(bytes) : NULL;
    if (p)
        return p;
    char *want = sim_format_bytes(count * size), *held = sim_format_bytes(big_alloc_held()),
         *have = sim_format_bytes(big_alloc_available());
    kernel_fail(c, error, "its %s need %s, past what --run may hold (the run holds %s already; %s were available "
                "when it started)", what, graph_size_mul(count, size, &bytes) ? want : "more than 2^64 B", held, have);
    g_free(want);
    g_free(held);
    g_free(have);
    return NULL;
}

void kernel_alloc_free(void *p) { big_alloc_free(p); }

guint kernel_threads(void) { return onednn.gomp_parallel ? MAX(onednn.threads, 1) : 1; }

typedef struct {
    void (*fn)(void *data, gint64 begin, gint64 end, guint part);
    void *data;
    gint64 n;
    guint parts;
} ParallelJob;

static void parallel_part(void *p)
{
    const ParallelJob *j = p;
    /* a team smaller than asked for still runs every part */
    guint team = (guint)MAX(onednn.num_threads(), 1);
    for (guint part = (guint)onednn.thread_num(); part < j->parts; part += team) {
        gint64 begin = j->n * part / j->parts, end = j->n * (part + 1) / j->parts;
        if (begin < end)
            j->fn(j->data, begin, end, part);
    }
}

void kernel_parallel(gint64 n, gint64 grain, void (*fn)(void *data, gint64 begin, gint64 end, guint part), void *data)
{
    gint64 parts = MIN((gint64)kernel_threads(), n / MAX(grain, 1));
    if (parts <= 1) {
        if (n > 0)
            fn(data, 0, n, 0);
        return;
    }
    ParallelJob job = {.fn = fn, .data = data, .n = n, .parts = (guint)parts};
    onednn.gomp_parallel(parallel_part, &job, (unsigned)parts, 0);
}

void *kernel_workspace(const KernelCall *c, gsize bytes)
{
    KernelWorkspace *w = c->workspace;
    if (bytes > w->bytes) { /* in the run's memory account, as the arena is */
        big_alloc_free(w->data);
        w->data = NULL;
        w->bytes = 0;
        gsize rounded = (MAX(bytes, 64) + 63) / 64 * 64;
        if (rounded < bytes || !(w->data = big_alloc_within(rounded)))
            return NULL;
        w->bytes = rounded;
    }
    return w->data;
}

