/* pool.c — pooling: MaxPool (with its indices), AveragePool (count_include_pad), LpPool and the global pools.
 * 1-D and 2-D windows take the tuned 2-D path (separable passes over valid positions, one copy per vector
 * width); three or more spatial axes, LpPool and MaxPool's indices the N-d path. */
#include "exec/kernels/window.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

typedef enum { POOL_MAX, POOL_AVERAGE, POOL_LP } PoolKind;

/* MaxPool, AveragePool and LpPool over any number of axes, each output from its window's positions inside
 * the input (AveragePool divides by those, or by the whole window with count_include_pad, as the 1-D and
 * 2-D path does; LpPool is (sum |x|^p)^(1/p)). MaxPool's indices are flat offsets into the input tensor
 * (storage_order 0: row-major), the first of equal maxima. */
static gboolean pool_nd(const KernelCall *c, const ExecTensor *x, ExecTensor *y, ExecTensor *indices,
                        const gint64 *kernel_dims, PoolKind kind, GError **error)
{
    KernelWindow w;
    gint64 include_pad, p_attr, storage_order;
    if (!kernel_window_read(c, x, y, kernel_dims, &w, error) ||
        !node_attr_int(c->node, "count_include_pad", 0, &include_pad, error) ||
        !node_attr_int(c->node, "p", 2, &p_attr, error) ||
        !node_attr_int(c->node, "storage_order", 0, &storage_order, error))
        return FALSE;
    if (indices && storage_order != 0)
        return kernel_fail(c, error, "MaxPool's indices in column-major order (storage_order 1) are not supported by the executor");
    if (kind == POOL_LP && p_attr < 1)
        return kernel_fail(c, error, "attribute 'p' is %" G_GINT64_FORMAT " (1 or more)", p_attr);
    const float *px = x->data;
    float *py = y->data;
    double p = (double)p_attr;
    gint64 o[KERNEL_MAX_RANK];
    for (gint64 plane = 0; plane < w.n * w.c; plane++) {
        const float *in = px + plane * w.in_size;
        memset(o, 0, sizeof(o));
        for (gint64 q = 0; q < w.out_size; q++, kernel_index_next(o, w.out, w.s)) {
            float best = -INFINITY;
            gint64 best_at = -1, counted = 0, src;
            double sum = 0.0;
            for (KernelWindowWalk it = {.w = &w, .o = o}; kernel_window_next(&it, &src); counted++) {
                float v = in[src];
                if (kind == POOL_MAX) {
                    if (v > best || best_at < 0 || (isnan(v) && !isnan(best))) {
                        best = v;
                        best_at = src;
                    }
                } else if (kind == POOL_AVERAGE) {
                    sum += v;
                } else {
                    sum += pow(fabs((double)v), p);
                }
            }
            float *out = py + plane * w.out_size + q;
            if (kind == POOL_MAX) {
                *out = best;
                if (indices)
                    kernel_elem_set_i(indices, (gsize)(plane * w.out_size + q), best_at < 0 ? -1 : plane * w.in_size + best_at);
            } else if (kind == POOL_AVERAGE) {
                *out = (float)(sum / (double)(include_pad ? w.k_size : MAX(counted, 1)));
            } else {
                *out = (float)pow(sum, 1.0 / p);
            }
        }
    }
    return TRUE;
}

/* acc[k] = max(acc[k], src[k]) or acc[k] + src[k] for k in [lo, hi): one pass of pool2d_planes, the loop the
 * compiler vectorises (inlined into each width's copy). */
static inline __attribute__((always_inline)) void pool_accumulate(float *acc, const float *src, gint64 lo, gint64 hi,
                                                                  gboolean is_max)
{
    if (is_max)
        for (gint64 k = lo; k < hi; k++)
            acc[k] = MAX(acc[k], src[k]);
    else
        for (gint64 k = lo; k < hi; k++)
            acc[k] += src[k];
}

/* AveragePool's division of one output row: by the window, or by the taps inside the input (ky_taps rows of
 * them, kx_lo..kx_hi columns per output column). */
static inline __attribute__((always_inline)) void pool_average_row(float *o, gint64 ow, gint64 ky_taps,
                                                                   const gint64 *kx_lo, const gint64 *kx_hi,
                                                                   gint64 include_pad, gint64 window)
{
    for (gint64 ox = 0; ox < ow; ox++) {
        gint64 counted = MAX(ky_taps, 0) * MAX(kx_hi[ox] - kx_lo[ox], 0);
        o[ox] /= (float)(include_pad ? window : MAX(counted, 1));
    }
}

/* The 2-D pooling planes of kernel_pool, compiled once per vector width (pool2d picks the CPU's widest):
 * max and sum are separable, so each input row is first reduced across the window's columns (hpass: one
 * value per output column), then each output row across the window's rows of that. Both passes run over
 * valid positions only, the inner loop along the output columns, so a k x k window costs 2k operations per
 * output rather than k^2. Per output column, the kernel columns inside the input (kx_lo..kx_hi) give
 * AveragePool's count. Each output's operations come in the same order at every width: the same bits. */
static inline __attribute__((always_inline)) void pool2d_planes(const Window *w, const float *px, float *py,
                                                                float *hpass, const gint64 *kx_lo,
                                                                const gint64 *kx_hi, gboolean is_max,
                                                                gint64 include_pad)
{
    /* the geometry in locals: the compiler cannot keep fields read through a pointer in registers across
     * the float stores (the build does not assume strict aliasing) */
    const gint64 planes = w->n * w->c, h_in = w->h, w_in = w->w, oh = w->oh, ow = w->ow, kh = w->kh, kw = w->kw,
                 sh = w->sh, sw = w->sw, dh = w->dh, dw = w->dw, pt = w->pt, pl = w->pl;
    const float start = is_max ? -INFINITY : 0.0f;
    /* A window that slides by one over a plane of its own size (inception's 3 x 3 branch pools, padding 1):
     * each pass runs over the whole plane as one flat array, and the columns at the rows' ends, where the
     * flat pass read a neighbouring row, are then summed again from the row alone (kw - 1 per row). On a
     * 14 x 14 plane a row-by-row pass ran its few columns scalar. */
    const gboolean flat = sw == 1 && sh == 1 && dw == 1 && dh == 1 && ow == w_in && oh == h_in && pl < kw && pt < kh;
    const gint64 n = h_in * w_in;
    for (gint64 plane = 0; flat && plane < planes; plane++) {
        const float *in = px + plane * n;
        float *out = py + plane * n;
        for (gint64 k = 0; k < n; k++)
            hpass[k] = start;
        for (gint64 kx = 0; kx < kw; kx++) {
            gint64 shift = kx - pl;
            pool_accumulate(hpass, in + shift, MAX(-shift, 0), n - MAX(shift, 0), is_max);
        }
        for (gint64 iy = 0; iy < h_in; iy++)
            for (gint64 ox = 0; ox < w_in; ox++) {
                if (ox == pl && w_in - (kw - 1 - pl) > ox) { /* the columns whose window lies in the row are right */
                    ox = w_in - (kw - 1 - pl) - 1;
                    continue;
                }
                float v = start;
                for (gint64 kx = kx_lo[ox]; kx < kx_hi[ox]; kx++)
                    v = is_max ? MAX(v, in[iy * w_in + ox + kx - pl]) : v + in[iy * w_in + ox + kx - pl];
                hpass[iy * w_in + ox] = v;
            }
        for (gint64 k = 0; k < n; k++)
            out[k] = start;
        for (gint64 ky = 0; ky < kh; ky++) {
            gint64 shift = (ky - pt) * w_in;
            pool_accumulate(out, hpass + shift, MAX(-shift, 0), n - MAX(shift, 0), is_max);
        }
        for (gint64 oy = 0; !is_max && oy < oh; oy++)
            pool_average_row(out + oy * ow, ow, MIN(kh, h_in - oy + pt) - MAX(pt - oy, 0), kx_lo, kx_hi, include_pad,
                             kh * kw);
    }
    for (gint64 plane = 0; !flat && plane < planes; plane++) {
        const float *in = px + plane * h_in * w_in;
        float *out = py + plane * oh * ow;
        for (gint64 iy = 0; iy < h_in; iy++) {
            const float *row = in + iy * w_in;
            float *h = hpass + iy * ow;
            for (gint64 ox = 0; ox < ow; ox++)
                h[ox] = start;
            for (gint64 kx = 0; kx < kw; kx++) {
                /* the output columns whose window column kx falls inside the row */
                gint64 shift = kx * dw - pl;
                gint64 lo = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
                gint64 hi = w_in - 1 - shift < 0 ? 0 : MIN(ow, (w_in - 1 - shift) / sw + 1);
                const float *src = row + shift;
                if (sw == 1)
                    pool_accumulate(h, src, lo, hi, is_max);
                else if (is_max && sw == 2) /* (a constant stride: the compiler's vectors read pairs) */
                    for (gint64 ox = lo; ox < hi; ox++)
                        h[ox] = MAX(h[ox], src[ox * 2]);
                else if (is_max)
                    for (gint64 ox = lo; ox < hi; ox++)
                        h[ox] = MAX(h[ox], src[ox * sw]);
                else
                    for (gint64 ox = lo; ox < hi; ox++)
                        h[ox] += src[ox * sw];
            }
        }
        for (gint64 oy = 0; oy < oh; oy++) {
            gint64 base_y = oy * sh - pt;
            gint64 ky_lo = base_y >= 0 ? 0 : (-base_y + dh - 1) / dh;
            gint64 ky_hi = base_y >= h_in ? 0 : MIN(kh, (h_in - 1 - base_y) / dh + 1);
            float *o = out + oy * ow;
            for (gint64 ox = 0; ox < ow; ox++)
                o[ox] = start;
            for (gint64 ky = ky_lo; ky < ky_hi; ky++)
                pool_accumulate(o, hpass + (base_y + ky * dh) * ow, 0, ow, is_max);
            if (!is_max)
                pool_average_row(o, ow, ky_hi - ky_lo, kx_lo, kx_hi, include_pad, kh * kw);
        }
    }
}

__attribute__((target("avx512f"))) static void pool2d_avx512(const Window *w, const float *px, float *py, float *hpass,
                                                              const gint64 *kx_lo, const gint64 *kx_hi,
                                                              gboolean is_max, gint64 include_pad)
{
    pool2d_planes(w, px, py, hpass, kx_lo, kx_hi, is_max, include_pad);
}

__attribute__((target("avx2"))) static void pool2d_avx2(const Window *w, const float *px, float *py, float *hpass,
                                                         const gint64 *kx_lo, const gint64 *kx_hi, gboolean is_max,
                                                         gint64 include_pad)
{
    pool2d_planes(w, px, py, hpass, kx_lo, kx_hi, is_max, include_pad);
}

static void pool2d(const Window *w, const float *px, float *py, float *hpass, const gint64 *kx_lo,
                   const gint64 *kx_hi, gboolean is_max, gint64 include_pad)
{
    if (__builtin_cpu_supports("avx512f"))
        pool2d_avx512(w, px, py, hpass, kx_lo, kx_hi, is_max, include_pad);
    else if (__builtin_cpu_supports("avx2"))
        pool2d_avx2(w, px, py, hpass, kx_lo, kx_hi, is_max, include_pad);
    else
        pool2d_planes(w, px, py, hpass, kx_lo, kx_hi, is_max, include_pad);
}

/* The planes [begin, end) of a 2-D pooling, each thread with its own row buffer. */
typedef struct {
    const Window *w;
    const float *px;
    float *py, *hpass;
    gint64 slice;
    const gint64 *kx_lo, *kx_hi;
    gboolean is_max;
    gint64 include_pad;
} PoolJob;

static void pool_planes(void *data, gint64 begin, gint64 end, guint part)
{
    const PoolJob *j = data;
    Window w = *j->w; /* the planes as one image of end - begin channels */
    w.n = 1;
    w.c = end - begin;
    pool2d(&w, j->px + begin * w.h * w.w, j->py + begin * w.oh * w.ow, j->hpass + part * j->slice, j->kx_lo, j->kx_hi,
           j->is_max, j->include_pad);
}

/* MaxPool of 8-bit data (a quantized graph pools its uint8 or int8 tensors as they are: the maximum commutes with a
 * monotone dequantization): the largest in-window value of each output, any spatial rank. */
static gboolean pool_max_8bit(const KernelCall *c, const ExecTensor *x, ExecTensor *y, const gint64 *kernel_dims,
                              GError **error)
{
    KernelWindow w;
    if (!kernel_window_read(c, x, y, kernel_dims, &w, error))
        return FALSE;
    gint64 o[KERNEL_MAX_RANK], lowest = x->dtype == DT_INT8 ? -128 : 0;
    for (gint64 plane = 0; plane < w.n * w.c; plane++) {
        memset(o, 0, sizeof(o));
        for (gint64 q = 0; q < w.out_size; q++, kernel_index_next(o, w.out, w.s)) {
            gint64 best = lowest, src;
            for (KernelWindowWalk it = {.w = &w, .o = o}; kernel_window_next(&it, &src);)
                best = MAX(best, kernel_elem_get_i(x, (gsize)(plane * w.in_size + src)));
            kernel_elem_set_i(y, (gsize)(plane * w.out_size + q), best);
        }
    }
    return TRUE;
}

/* Floats of row buffer pool2d_all takes: a slice per thread, each 64 bytes apart. */
static gint64 pool2d_slice(const Window *w) { return (MAX(w->h * MAX(w->ow, w->w), 1) + 15) / 16 * 16; }

/* Every plane of w (w->n times w->c) pooled from px into py, the planes shared among the threads, each with its
 * own pool2d_slice(w) floats of `hpass`. */
static void pool2d_all(const Window *w, const float *px, float *py, float *hpass, gboolean is_max, gint64 include_pad)
{
    gint64 *kx_lo = g_new(gint64, w->ow + 1), *kx_hi = g_new(gint64, w->ow + 1);
    for (gint64 ox = 0; ox < w->ow; ox++) {
        gint64 base = ox * w->sw - w->pl;
        kx_lo[ox] = base >= 0 ? 0 : (-base + w->dw - 1) / w->dw;
        kx_hi[ox] = base >= w->w ? 0 : MIN(w->kw, (w->w - 1 - base) / w->dw + 1);
    }
    PoolJob job = {.w = w, .px = px, .py = py, .hpass = hpass, .slice = pool2d_slice(w), .kx_lo = kx_lo,
                   .kx_hi = kx_hi, .is_max = is_max, .include_pad = include_pad};
    kernel_parallel(w->n * w->c, MAX(65536 / MAX(w->oh * w->ow * w->kh * 2, 1), 1), pool_planes, &job);
    g_free(kx_lo);
    g_free(kx_hi);
}

/* The depth pass of a 3-D pooling (pool3d): each output depth od of each image's channel combines the 2-D pooled
 * planes of the input depths its window meets. */
typedef struct {
    const KernelWindow *w;
    const float *planes; /* [n c, in depth, oh ow] */
    float *py;
    gboolean is_max;
    gint64 include_pad;
} DepthJob;

static void pool_depths(void *data, gint64 begin, gint64 end, guint part)
{
    (void)part;
    const DepthJob *j = data;
    const KernelWindow *w = j->w;
    gint64 area = w->out[1] * w->out[2];
    for (gint64 nc = begin; nc < end; nc++)
        for (gint64 od = 0; od < w->out[0]; od++) {
            float *o = j->py + (nc * w->out[0] + od) * area;
            gint64 taps = 0;
            for (gint64 kd = 0; kd < w->k[0]; kd++) {
                gint64 d = od * w->stride[0] - w->pad[0] + kd * w->dil[0];
                if (d < 0 || d >= w->in[0])
                    continue;
                const float *plane = j->planes + (nc * w->in[0] + d) * area;
                if (!taps)
                    memcpy(o, plane, (gsize)area * sizeof(float));
                else
                    pool_accumulate(o, plane, 0, area, j->is_max);
                taps++;
            }
            if (!taps) /* a window wholly in the padding: what the N-d walk gives it */
                for (gint64 k = 0; k < area; k++)
                    o[k] = j->is_max ? -INFINITY : 0.0f;
            else if (!j->is_max) /* each plane is its 2-D average already: the mean of them over the depth taps */
                for (gint64 k = 0; k < area; k++)
                    o[k] /= (float)(j->include_pad ? w->k[0] : taps);
        }
}

/* A float MaxPool or AveragePool over three spatial axes (3-D video models) as the 2-D path's planes, every input
 * depth pooled over height and width, then each output depth the maximum or mean of the planes its window meets:
 * a box window is separable (the maximum of maxima; a mean of the planes' means, each over the same taps). */
static gboolean pool3d(const KernelCall *c, const ExecTensor *x, ExecTensor *y, const gint64 *kernel_dims,
                       gboolean is_max, gint64 include_pad, GError **error)
{
    KernelWindow k;
    if (!kernel_window_read(c, x, y, kernel_dims, &k, error))
        return FALSE;
    Window w = {.n = 1, .c = k.n * k.c * k.in[0], .h = k.in[1], .w = k.in[2], .oh = k.out[1], .ow = k.out[2],
                .kh = k.k[1], .kw = k.k[2], .sh = k.stride[1], .sw = k.stride[2], .dh = k.dil[1], .dw = k.dil[2],
                .pt = k.pad[1], .pl = k.pad[2]};
    gint64 slice = pool2d_slice(&w), planes = w.c * w.oh * w.ow;
    float *room = kernel_workspace(c, sizeof(float) * (gsize)(slice * kernel_threads() + planes + 16));
    if (!room)
        return kernel_fail(c, error, "no memory for its pooled planes");
    float *pooled = room + slice * kernel_threads();
    pool2d_all(&w, x->data, pooled, room, is_max, include_pad);
    DepthJob depth = {.w = &k, .planes = pooled, .py = y->data, .is_max = is_max, .include_pad = include_pad};
    kernel_parallel(k.n * k.c, MAX(65536 / MAX(k.out_size * k.k[0], 1), 1), pool_depths, &depth);
    return TRUE;
}

gboolean kernel_pool(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    const GArray *shape = NULL;
    gint64 include_pad;
    gboolean is_max = kernel_kind(c) == KIND_POOL_MAX;
    if (is_max && (x->dtype == DT_UINT8 || x->dtype == DT_INT8) && !kernel_out(c, 1)) {
        if (!node_attr_ints(c->node, "kernel_shape", &shape, error))
            return FALSE;
        if (!shape || x->rank > KERNEL_MAX_RANK || shape->len != (guint)x->rank - 2)
            return kernel_fail(c, error, "kernel_shape does not match input rank %d", x->rank);
        return pool_max_8bit(c, x, y, (const gint64 *)shape->data, error);
    }
    if (!kernel_need_float(c, x, c->node->op->name, error) || !node_attr_ints(c->node, "kernel_shape", &shape, error) ||
        !node_attr_int(c->node, "count_include_pad", 0, &include_pad, error))
        return FALSE;
    gboolean is_lp = kernel_kind(c) == KIND_POOL_LP;
    if (!shape || x->rank > KERNEL_MAX_RANK || shape->len != (guint)x->rank - 2)
        return kernel_fail(c, error, "kernel_shape does not match input rank %d", x->rank);
    if (x->rank == 5 && !is_lp && !(is_max && kernel_out(c, 1)))
        return pool3d(c, x, y, (const gint64 *)shape->data, is_max, include_pad, error);
    if (x->rank > 4 || is_lp || (is_max && kernel_out(c, 1)))
        return pool_nd(c, x, y, is_max ? kernel_out(c, 1) : NULL, (const gint64 *)shape->data,
                       is_max ? POOL_MAX : is_lp ? POOL_LP : POOL_AVERAGE, error);
    gint64 kernel_dims[2] = {kernel_ints_at(shape, 0, 1), kernel_ints_at(shape, 1, 1)};
    Window w;
    if (!kernel_window_plane(c, x, y, kernel_dims, &w, error))
        return FALSE;
    float *hpass = kernel_workspace(c, sizeof(float) * (gsize)(pool2d_slice(&w) * kernel_threads()));
    if (!hpass)
        return kernel_fail(c, error, "no memory for a pooling row buffer");
    pool2d_all(&w, x->data, y->data, hpass, is_max, include_pad);
    return TRUE;
}

gboolean kernel_global_pool(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gboolean is_max = kernel_kind(c) == KIND_GLOBAL_POOL_MAX;
    if (!kernel_need_float(c, x, c->node->op->name, error))
        return FALSE;
    gint64 planes = x->dims[0] * x->dims[1], size = (gint64)x->count / MAX(planes, 1), lp;
    const float *px = x->data;
    float *py = y->data;
    if (kernel_kind(c) == KIND_GLOBAL_POOL_LP) { /* (sum |x|^p)^(1/p) over each plane */
        if (!node_attr_int(c->node, "p", 2, &lp, error))
            return FALSE;
        if (lp < 1)
            return kernel_fail(c, error, "attribute 'p' is %" G_GINT64_FORMAT " (1 or more)", lp);
        for (gint64 k = 0; k < planes; k++) {
            double sum = 0.0;
            for (gint64 e = 0; e < size; e++)
                sum += pow(fabs((double)px[k * size + e]), (double)lp);
            py[k] = (float)pow(sum, 1.0 / (double)lp);
        }
        return TRUE;
    }
    for (gint64 p = 0; p < planes; p++) /* the mean: a double sum in lanes, divided once */
        py[p] = is_max ? kernel_lanes_max(px + p * size, size) : (float)(kernel_lanes_sum(px + p * size, size) / (double)size);
    return TRUE;
}
