/* norm.c — BatchNormalization (inference), LayerNormalization, InstanceNormalization, LRN, Softmax and
 * LogSoftmax (opset < 13: over the flattened trailing dimensions from axis; from 13: along one axis), and
 * the reductions. All float32, accumulating in double. Normalisation may run in place (in-place sharing
 * treats these ops as elementwise): each row's statistics are taken before it is written, and LRN, which
 * reads neighbouring channels, reads from a copy when it shares its input's bytes. */
#include "exec/kernels/approx.h"
#include "exec/kernel.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

gboolean kernel_batch_norm(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *scale = kernel_in(c, 1), *bias = kernel_in(c, 2), *mean = kernel_in(c, 3),
                     *var = kernel_in(c, 4);
    ExecTensor *y = kernel_out(c, 0);
    float eps;
    if (!kernel_need_float(c, x, "BatchNormalization", error) || !node_attr_float(c->node, "epsilon", 1e-5f, &eps, error))
        return FALSE;
    if (kernel_out(c, 1))
        return kernel_fail(c, error, "BatchNormalization in training mode is not supported by the executor");
    gint64 n = x->dims[0], ch = x->rank > 1 ? x->dims[1] : 1, inner = (gint64)x->count / MAX(n * ch, 1);
    const float *px = x->data;
    float *py = y->data;
    for (gint64 k = 0; k < ch; k++) {
        double a = kernel_elem_get_f(scale, k) / sqrt(kernel_elem_get_f(var, k) + eps);
        double b = kernel_elem_get_f(bias, k) - a * kernel_elem_get_f(mean, k);
        for (gint64 i = 0; i < n; i++) {
            gsize base = (gsize)((i * ch + k) * inner);
            for (gint64 j = 0; j < inner; j++)
                py[base + j] = (float)(a * px[base + j] + b);
        }
    }
    return TRUE;
}

/* One row of LayerNormalization: mean and variance in double, the row written normalised, scaled and shifted
 * (out may be row); its mean and inverse deviation stored where asked. */
/* The sum of (x - mean)^2 over a row in double, in eight independent lanes as kernel_lanes_sum does (not one
 * chain of dependent adds); the lanes fix the order, so every run gives the same bits. Always inlined, so it is
 * compiled with layer_norm_row's clones: left to itself GCC called it out of line, compiled for the baseline,
 * once the row's sum (kernel_lanes_sum) was inline too. */
static inline __attribute__((always_inline)) double lanes_squares(const float *x, gint64 n, double mean)
{
    double s[8] = {0};
    gint64 j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; l++) {
            double d = x[j + l] - mean;
            s[l] += d * d;
        }
    for (; j < n; j++) {
        double d = x[j] - mean;
        s[0] += d * d;
    }
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

__attribute__((target_clones("avx512f", "avx2", "default"))) static void
layer_norm_row(const float *row, float *out, gint64 inner, float eps, const float *ps, const float *pb,
               float *mean_out, float *inv_out)
{
    double mean = kernel_lanes_sum(row, inner) / (double)inner;
    double inv = 1.0 / sqrt(lanes_squares(row, inner, mean) / (double)inner + eps);
    if (mean_out)
        *mean_out = (float)mean;
    if (inv_out)
        *inv_out = (float)inv;
    if (pb) /* (one loop per case: each vectorises; C11 contracts nothing, so every form gives the same bits) */
        for (gint64 j = 0; j < inner; j++)
            out[j] = (float)((row[j] - mean) * inv * ps[j] + pb[j]);
    else
        for (gint64 j = 0; j < inner; j++)
            out[j] = (float)((row[j] - mean) * inv * ps[j] + 0.0f);
}

/* Rows [begin, end) of a LayerNormalization, or of a SkipLayerNormalization (skip set: each row summed into
 * the thread's own slice of the workspace first). */
typedef struct {
    const float *x, *skip, *scale, *bias;
    float *y, *mean, *inv, *sum;
    gint64 inner, slice;
    float eps;
} RowsJob;

static void layer_norm_rows(void *data, gint64 begin, gint64 end, guint part)
{
    const RowsJob *j = data;
    gint64 inner = j->inner;
    for (gint64 r = begin; r < end; r++) {
        const float *row = j->x + r * inner;
        if (j->skip) {
            float *sum = j->sum + part * j->slice;
            for (gint64 k = 0; k < inner; k++)
                sum[k] = row[k] + j->skip[r * inner + k];
            row = sum;
        }
        layer_norm_row(row, j->y + r * inner, inner, j->eps, j->scale, j->bias, j->mean ? j->mean + r : NULL,
                       j->inv ? j->inv + r : NULL);
    }
}

gboolean kernel_layer_norm(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *scale = kernel_in(c, 1), *bias = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0), *mean_out = kernel_out(c, 1), *inv_out = kernel_out(c, 2);
    gint64 axis;
    float eps;
    if (!kernel_need_float(c, x, "LayerNormalization", error) || !node_attr_int(c->node, "axis", -1, &axis, error) ||
        !node_attr_float(c->node, "epsilon", 1e-5f, &eps, error))
        return FALSE;
    int a = kernel_axis(axis, x->rank);
    gint64 inner = 1;
    for (int d = a; d < x->rank; d++)
        inner *= x->dims[d];
    gint64 rows = (gint64)x->count / MAX(inner, 1);
    gboolean flat_scale = scale->count == (gsize)inner, flat_bias = !bias || bias->count == (gsize)inner;
    if (!flat_scale || !flat_bias)
        return kernel_fail(c, error, "LayerNormalization with a broadcast scale or bias is not supported by the executor");
    RowsJob job = {.x = x->data, .scale = scale->data, .bias = bias ? bias->data : NULL, .y = y->data,
                   .mean = mean_out ? mean_out->data : NULL, .inv = inv_out ? inv_out->data : NULL, .inner = inner,
                   .eps = eps};
    kernel_parallel(rows, MAX(16384 / MAX(inner, 1), 1), layer_norm_rows, &job);
    return TRUE;
}

/* sim's SkipLayerNormalization (--fuse ort-transformers): each row of x + skip summed in float, as the Add it
 * replaces sums it, into the workspace, then normalised as LayerNormalization normalises it: the bits of the
 * unfused pair. */
gboolean kernel_skip_layer_norm(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *skip = kernel_in(c, 1), *scale = kernel_in(c, 2), *bias = kernel_in(c, 3);
    ExecTensor *y = kernel_out(c, 0);
    float eps;
    if (!kernel_need_float(c, x, "SkipLayerNormalization", error) ||
        !kernel_need_float(c, skip, "SkipLayerNormalization", error) ||
        !node_attr_float(c->node, "epsilon", 1e-5f, &eps, error))
        return FALSE;
    gint64 inner = x->rank ? x->dims[x->rank - 1] : 1, rows = (gint64)x->count / MAX(inner, 1);
    if (skip->count != x->count || scale->count != (gsize)inner || (bias && bias->count != (gsize)inner))
        return kernel_fail(c, error, "x and skip must have one shape, gamma and beta one value per column");
    gint64 slice = (MAX(inner, 1) + 15) / 16 * 16; /* a row's sum per thread, 64 bytes apart */
    float *sum = kernel_workspace(c, sizeof(float) * (gsize)(slice * kernel_threads()));
    if (!sum)
        return kernel_fail(c, error, "no workspace for a row of %" G_GINT64_FORMAT " floats", inner);
    RowsJob job = {.x = x->data, .skip = skip->data, .scale = scale->data, .bias = bias ? bias->data : NULL,
                   .y = y->data, .sum = sum, .slice = slice, .inner = inner, .eps = eps};
    kernel_parallel(rows, MAX(16384 / MAX(inner, 1), 1), layer_norm_rows, &job);
    return TRUE;
}

gboolean kernel_instance_norm(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *scale = kernel_in(c, 1), *bias = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    float eps;
    if (!kernel_need_float(c, x, "InstanceNormalization", error) ||
        !node_attr_float(c->node, "epsilon", 1e-5f, &eps, error))
        return FALSE;
    gint64 n = x->dims[0], ch = x->rank > 1 ? x->dims[1] : 1, inner = (gint64)x->count / MAX(n * ch, 1);
    if (!scale || !bias || scale->count != (gsize)ch || bias->count != (gsize)ch)
        return kernel_fail(c, error, "scale and B must hold one value per channel (%" G_GINT64_FORMAT ")", ch);
    const float *px = x->data;
    float *py = y->data;
    for (gint64 i = 0; i < n; i++)
        for (gint64 k = 0; k < ch; k++) {
            gsize base = (gsize)((i * ch + k) * inner);
            double sum = 0, sq = 0;
            for (gint64 j = 0; j < inner; j++)
                sum += px[base + j];
            double mean = sum / (double)MAX(inner, 1);
            for (gint64 j = 0; j < inner; j++)
                sq += (px[base + j] - mean) * (px[base + j] - mean);
            double a = kernel_elem_get_f(scale, (gsize)k) / sqrt(sq / (double)MAX(inner, 1) + eps);
            double b = kernel_elem_get_f(bias, (gsize)k) - a * mean;
            for (gint64 j = 0; j < inner; j++)
                py[base + j] = (float)(a * px[base + j] + b);
        }
    return TRUE;
}

gboolean kernel_lrn(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    float alpha, beta, bias;
    gint64 size;
    if (!kernel_need_float(c, x, "LRN", error) || !node_attr_float(c->node, "alpha", 1e-4f, &alpha, error) ||
        !node_attr_float(c->node, "beta", 0.75f, &beta, error) || !node_attr_float(c->node, "bias", 1.0f, &bias, error) ||
        !node_attr_int(c->node, "size", 0, &size, error))
        return FALSE;
    if (size <= 0 || x->rank < 2)
        return kernel_fail(c, error, "needs a positive size and an input of rank 2 or more");
    gint64 n = x->dims[0], ch = x->dims[1], inner = (gint64)x->count / MAX(n * ch, 1);
    gint64 before = (size - 1) / 2, after = size - 1 - before; /* floor((size-1)/2) and ceil((size-1)/2) */
    void *copy = NULL;
    const float *px = kernel_input_apart(x, y, &copy);
    float *py = y->data;
    for (gint64 i = 0; i < n; i++)
        for (gint64 k = 0; k < ch; k++)
            for (gint64 j = 0; j < inner; j++) {
                double sq = 0;
                for (gint64 m = MAX(k - before, 0); m <= MIN(k + after, ch - 1); m++) {
                    double v = px[(i * ch + m) * inner + j];
                    sq += v * v;
                }
                gsize at = (gsize)((i * ch + k) * inner + j);
                py[at] = (float)(px[at] / pow(bias + alpha / (double)size * sq, beta));
            }
    g_free(copy);
    return TRUE;
}

/* Softmax of one contiguous row of len floats into out (out may be in): its maximum, the exponentials of the
 * differences kept in out, their sum in eight lanes, then one multiply by its inverse. Compiled for AVX-512
 * and AVX2, the lanes' loops (inline) with it. The exponentials have the scalar form's bits in every compiled
 * form (as kernel_exp_array's), by approx_exp's steps for x <= 0 alone; a separate subtraction pass and exp
 * call per row cost most on short rows (results/history.md). */
__attribute__((target_clones("avx512f", "avx2", "default"))) static void softmax_row(const float *in, float *out,
                                                                                     gint64 len)
{
    float top = kernel_lanes_max(in, len);
    for (gint64 j = 0; j < len; j++)
        out[j] = approx_exp_nonpositive(in[j] - top);
    float inv = (float)(1.0 / kernel_lanes_sum(out, len));
    for (gint64 j = 0; j < len; j++)
        out[j] *= inv;
}

/* (The clones stay static: clang, which builds the fuzzers, emits no plain symbol for exported ones.) */
void kernel_softmax_row(const float *in, float *out, gint64 len) { softmax_row(in, out, len); }

typedef struct {
    const float *x;
    float *y;
    gint64 len;
} SoftmaxJob;

static void softmax_rows(void *data, gint64 begin, gint64 end, guint part)
{
    (void)part;
    const SoftmaxJob *j = data;
    for (gint64 r = begin; r < end; r++)
        kernel_softmax_row(j->x + r * j->len, j->y + r * j->len, j->len);
}

gboolean kernel_softmax(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gboolean log_form = kernel_kind(c) == KIND_LOG_SOFTMAX;
    gint64 outer, len, inner;
    if (!kernel_need_float(c, x, c->node->op->name, error) || !kernel_coerced_rows(c, x, &outer, &len, &inner, error))
        return FALSE;
    const float *px = x->data;
    float *py = y->data;
    if (inner == 1 && !log_form) { /* contiguous rows, shared out among the threads */
        SoftmaxJob job = {.x = px, .y = py, .len = len};
        kernel_parallel(outer, MAX(16384 / MAX(len, 1), 1), softmax_rows, &job);
        return TRUE;
    }
    for (gint64 o = 0; o < outer; o++)
        for (gint64 i = 0; i < inner; i++) {
            gsize base = (gsize)(o * len * inner + i);
            float top = -INFINITY;
            double sum = 0;
            for (gint64 j = 0; j < len; j++)
                top = MAX(top, px[base + j * inner]);
            for (gint64 j = 0; j < len; j++) { /* exponentials once, kept in the output (in place is fine) */
                float v = approx_exp(px[base + j * inner] - top);
                if (!log_form)
                    py[base + j * inner] = v;
                sum += v;
            }
            float inv = (float)(1.0 / sum), log_sum = (float)log(sum);
            for (gint64 j = 0; j < len; j++)
                py[base + j * inner] = log_form ? px[base + j * inner] - top - log_sum : py[base + j * inner] * inv;
        }
    return TRUE;
}

gboolean kernel_reduce(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *axes_t = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    const char *name = c->node->op->name;
    gint64 noop_empty;
    const GArray *axes_attr = NULL;
    if (!node_attr_ints(c->node, "axes", &axes_attr, error) ||
        !node_attr_int(c->node, "noop_with_empty_axes", 0, &noop_empty, error))
        return FALSE;
    gboolean exact_int = !dtype_is_float(x->dtype); /* integers (shape and box arithmetic) in 64 bits, exactly */
    if (x->dtype != DT_FLOAT && !exact_int && x->dtype != DT_DOUBLE)
        return kernel_need_float(c, x, name, error);
    gboolean reduced[16] = {0};
    if (x->rank > 16)
        return kernel_fail(c, error, "rank %d is beyond the executor's reductions", x->rank);
    gsize n_axes = axes_t ? axes_t->count : axes_attr ? axes_attr->len : 0;
    for (gsize k = 0; k < n_axes; k++)
        reduced[kernel_axis(axes_t ? kernel_elem_get_i(axes_t, k) : g_array_index(axes_attr, gint64, k), x->rank)] = TRUE;
    if (!n_axes && !noop_empty)
        for (int d = 0; d < x->rank; d++)
            reduced[d] = TRUE;
    /* Output index of each input element: drop (or keep as 1) the reduced axes. */
    gint64 out_stride[16], stride = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
        out_stride[d] = reduced[d] ? 0 : stride;
        stride *= reduced[d] ? 1 : x->dims[d];
    }
    /* the accumulators, in the run's memory account: 16 or 24 B an output (a UINT8 [2^28, 1] took 7.1 GB outside it) */
    double *acc = kernel_alloc(c, y->count + 1, sizeof(double), "accumulators", error);
    gsize *cnt = acc ? kernel_alloc(c, y->count + 1, sizeof(gsize), "accumulators", error) : NULL;
    if (!cnt) {
        kernel_alloc_free(acc);
        return FALSE;
    }
    /* How each element folds in, decided once. */
    KernelKind kind = kernel_kind(c);
    enum { R_SUM, R_MAX, R_MIN, R_PROD, R_ABS, R_SQUARE, R_EXP } fold =
        kind == KIND_REDUCE_MAX ? R_MAX : kind == KIND_REDUCE_MIN ? R_MIN : kind == KIND_REDUCE_PROD ? R_PROD
        : kind == KIND_REDUCE_L1 ? R_ABS : kind == KIND_REDUCE_L2 || kind == KIND_REDUCE_SUM_SQUARE ? R_SQUARE
        : kind == KIND_REDUCE_LOG_SUM_EXP ? R_EXP : R_SUM;
    /* and how each output finishes */
    enum { F_NONE, F_MEAN, F_SQRT, F_LOG } finish = kind == KIND_REDUCE_MEAN ? F_MEAN : kind == KIND_REDUCE_L2 ? F_SQRT
        : kind == KIND_REDUCE_LOG_SUM || kind == KIND_REDUCE_LOG_SUM_EXP ? F_LOG : F_NONE;
    for (gsize k = 0; k < y->count; k++)
        acc[k] = fold == R_MAX ? -INFINITY : fold == R_MIN ? INFINITY : fold == R_PROD ? 1.0 : 0.0;
    const float *px = x->dtype == DT_FLOAT ? x->data : NULL;
    if (!px) { /* another type: each element through its accessor, integers summed and multiplied in 64 bits */
        gint64 *iacc = kernel_alloc(c, y->count + 1, sizeof(gint64), "accumulators", error), idx[16] = {0};
        if (!iacc) {
            kernel_alloc_free(acc);
            kernel_alloc_free(cnt);
            return FALSE;
        }
        for (gsize k = 0; k < y->count; k++)
            iacc[k] = fold == R_MAX ? G_MININT64 : fold == R_MIN ? G_MAXINT64 : fold == R_PROD ? 1 : 0;
        for (gsize k = 0, o = 0; k < x->count; k++) {
            if (exact_int) {
                gint64 v = kernel_elem_get_i(x, k);
                switch (fold) {
                case R_MAX: iacc[o] = MAX(iacc[o], v); break;
                case R_MIN: iacc[o] = MIN(iacc[o], v); break;
                case R_PROD: iacc[o] = (gint64)((guint64)iacc[o] * (guint64)v); break;
                case R_ABS: iacc[o] = (gint64)((guint64)iacc[o] + (guint64)(v < 0 ? -(guint64)v : (guint64)v)); break;
                case R_SQUARE: iacc[o] = (gint64)((guint64)iacc[o] + (guint64)v * (guint64)v); break;
                default: iacc[o] = (gint64)((guint64)iacc[o] + (guint64)v); break;
                }
            } else {
                double v = kernel_elem_get_f(x, k);
                switch (fold) {
                case R_MAX: acc[o] = MAX(acc[o], v); break;
                case R_MIN: acc[o] = MIN(acc[o], v); break;
                case R_PROD: acc[o] *= v; break;
                case R_ABS: acc[o] += fabs(v); break;
                case R_SQUARE: acc[o] += v * v; break;
                case R_EXP: acc[o] += exp(v); break;
                default: acc[o] += v; break;
                }
            }
            cnt[o]++;
            for (int d = x->rank - 1; d >= 0; d--) {
                idx[d]++;
                o += out_stride[d];
                if (idx[d] < x->dims[d])
                    break;
                o -= out_stride[d] * x->dims[d];
                idx[d] = 0;
            }
        }
        for (gsize k = 0; k < y->count; k++) {
            if (exact_int && finish == F_MEAN)
                kernel_elem_set_i(y, k, cnt[k] ? iacc[k] / (gint64)cnt[k] : 0);
            else if (exact_int && fold != R_EXP && finish == F_NONE)
                kernel_elem_set_i(y, k, iacc[k]);
            else {
                double v = exact_int ? (double)iacc[k] : acc[k];
                v = finish == F_MEAN ? v / (double)MAX(cnt[k], 1) : finish == F_SQRT ? sqrt(v)
                    : finish == F_LOG ? log(v) : v;
                kernel_elem_set_f(y, k, v);
            }
        }
        kernel_alloc_free(iacc);
        kernel_alloc_free(acc);
        kernel_alloc_free(cnt);
        return TRUE;
    }
    /* Reducing the trailing axes only (LayerNorm's mean, a row sum): contiguous rows, no odometer. */
    int first_reduced = x->rank;
    while (first_reduced > 0 && reduced[first_reduced - 1])
        first_reduced--;
    gboolean trailing = first_reduced < x->rank;
    for (int d = 0; d < first_reduced; d++)
        trailing = trailing && !reduced[d];
    if (trailing && fold == R_SUM) {
        gsize row = x->count / MAX(y->count, 1);
        for (gsize o = 0; o < y->count; o++) {
            double s = 0;
            for (gsize j = 0; j < row; j++)
                s += px[o * row + j];
            acc[o] = s;
            cnt[o] = row;
        }
    }
    gint64 idx[16] = {0};
    gsize o = 0;
    for (gsize k = 0; !(trailing && fold == R_SUM) && k < x->count; k++) {
        double v = px[k];
        switch (fold) {
        case R_MAX: acc[o] = MAX(acc[o], v); break;
        case R_MIN: acc[o] = MIN(acc[o], v); break;
        case R_PROD: acc[o] *= v; break;
        case R_ABS: acc[o] += fabs(v); break;
        case R_SQUARE: acc[o] += v * v; break;
        case R_EXP: acc[o] += exp(v); break;
        default: acc[o] += v; break; /* Sum, Mean, LogSum */
        }
        cnt[o]++;
        for (int d = x->rank - 1; d >= 0; d--) {
            idx[d]++;
            o += out_stride[d];
            if (idx[d] < x->dims[d])
                break;
            o -= out_stride[d] * x->dims[d];
            idx[d] = 0;
        }
    }
    float *py = y->data;
    for (gsize k = 0; k < y->count; k++) {
        double v = acc[k];
        v = finish == F_MEAN ? v / (double)MAX(cnt[k], 1) : finish == F_SQRT ? sqrt(v) : finish == F_LOG ? log(v) : v;
        py[k] = (float)v;
    }
    kernel_alloc_free(acc);
    kernel_alloc_free(cnt);
    return TRUE;
}
