/* resize.c — Resize (opsets 10 to 19) and Upsample (7, 9): nearest, linear and cubic interpolation along
 * any axes, with every coordinate transformation the operator names (half_pixel, half_pixel_symmetric,
 * pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize with its roi and
 * extrapolation value), cubic's coefficient and exclude_outside, and keep_aspect_ratio_policy.
 *
 * The operator is separable: each axis maps an output coordinate to a few input taps with weights, and the
 * kernel applies one axis at a time, the last first, in double precision (the ONNX reference implementation
 * interpolates the innermost axis first and computes in float64; the node tests' data comes from it). An
 * axis whose taps are the identity is not touched. The taps follow the reference exactly: the source
 * coordinate x uses the scale as given (so a 0.6 scale of 4 maps with 1/0.6, not 4/2), its fraction r is
 * taken in (0, 1] (an integral x has r = 1 and its own index as the right-hand tap), and neighbours outside
 * the input repeat the edge (or, with exclude_outside, weigh nothing, the others renormalised). */
#include "exec/kernel.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

#define MAX_TAPS 4

typedef enum { RESIZE_NEAREST, RESIZE_LINEAR, RESIZE_CUBIC } ResizeMode;

typedef struct {
    ResizeMode mode;
    const char *transform;    /* coordinate_transformation_mode */
    const char *nearest_mode; /* NULL before opset 11 */
    double cubic_a;
    gboolean exclude_outside;
    double extrapolation;
} ResizeRule;

/* Output coordinate o of one axis as taps into the input axis: n indices and weights, or outside (the
 * extrapolation value). */
typedef struct {
    int n;
    gboolean outside;
    gint64 index[MAX_TAPS];
    double weight[MAX_TAPS];
} Taps;

/* The source coordinate of output coordinate o along an axis of length `in` resized by `scale` to `out`
 * elements, roi [start, end] (tf_crop_and_resize); *outside when the crop reaches beyond the input. */
static double source_coordinate(const ResizeRule *rule, gint64 o, gint64 in, gint64 out, double scale, double start,
                                double end, gboolean *outside)
{
    const char *t = rule->transform;
    double out_f = scale * (double)in, x = (double)o;
    *outside = FALSE;
    if (!strcmp(t, "align_corners"))
        return out_f == 1 ? 0.0 : x * (double)(in - 1) / (out_f - 1);
    if (!strcmp(t, "asymmetric"))
        return x / scale;
    if (!strcmp(t, "tf_half_pixel_for_nn"))
        return (x + 0.5) / scale;
    if (!strcmp(t, "pytorch_half_pixel"))
        return out_f == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    if (!strcmp(t, "half_pixel_symmetric")) {
        double adjustment = (double)out / out_f, center = (double)in / 2;
        return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
    }
    if (!strcmp(t, "tf_crop_and_resize")) {
        double s = out_f == 1 ? (end - start) * (double)(in - 1) / 2 : x * (end - start) * (double)(in - 1) / (out_f - 1);
        s += start * (double)(in - 1);
        *outside = s < 0 || s > (double)(in - 1);
        return s;
    }
    return (x + 0.5) / scale - 0.5; /* half_pixel */
}

static double cubic_weight(double d, double a)
{
    d = fabs(d);
    if (d <= 1)
        return ((a + 2) * d - (a + 3)) * d * d + 1;
    if (d < 2)
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
    return 0;
}

static Taps axis_taps(const ResizeRule *rule, gint64 o, gint64 in, gint64 out, double scale, double start, double end)
{
    Taps t = {0};
    double x = source_coordinate(rule, o, in, out, scale, start, end, &t.outside);
    if (t.outside)
        return t;
    /* Far outside the input every tap is an edge (or, excluded, nothing): the same taps as 4 past it, and
     * no huge or infinite coordinate reaches the integer conversion. */
    if (!(x >= -4))
        x = -4;
    if (x > (double)in + 4)
        x = (double)in + 4;
    double fl = floor(x), r = x == fl ? 1.0 : x - fl;
    gint64 left = (gint64)(x - r); /* the tap at or just left of x, so that r is in (0, 1] */
    if (rule->mode == RESIZE_NEAREST) {
        /* Before opset 11 there is no nearest_mode: the index rounds down when enlarging and up when
         * shrinking (ONNX Runtime's rule; opset 9's Upsample node test repeats each element floor-wise). */
        const char *m = rule->nearest_mode ? rule->nearest_mode : scale >= 1 ? "floor" : "ceil";
        gboolean right = r == 1.0 || !strcmp(m, "ceil") ? TRUE
                         : !strcmp(m, "floor")           ? FALSE
                         : !strcmp(m, "round_prefer_ceil") ? r >= 0.5
                                                           : r > 0.5;
        t.n = 1;
        t.index[0] = left + right;
        t.weight[0] = 1;
    } else if (rule->mode == RESIZE_LINEAR) {
        t.n = 2;
        t.index[0] = left, t.weight[0] = 1 - r;
        t.index[1] = left + 1, t.weight[1] = r;
    } else {
        t.n = 4;
        for (int k = 0; k < 4; k++) {
            t.index[k] = left - 1 + k;
            t.weight[k] = cubic_weight(r + 1 - k, rule->cubic_a);
        }
    }
    double sum = 0;
    for (int k = 0; k < t.n; k++) {
        if (rule->exclude_outside && (t.index[k] < 0 || t.index[k] >= in))
            t.weight[k] = 0;
        sum += t.weight[k];
        t.index[k] = CLAMP(t.index[k], 0, in - 1);
    }
    if (rule->exclude_outside && sum != 0)
        for (int k = 0; k < t.n; k++)
            t.weight[k] /= sum;
    return t;
}

static gboolean taps_are_identity(const Taps *taps, gint64 in, gint64 out)
{
    if (in != out)
        return FALSE;
    for (gint64 o = 0; o < out; o++) {
        const Taps *t = &taps[o];
        double own = 0;
        for (int k = 0; k < t->n; k++) {
            if (t->index[k] == o)
                own += t->weight[k];
            else if (t->weight[k] != 0)
                return FALSE;
        }
        if (t->outside || own != 1)
            return FALSE;
    }
    return TRUE;
}

/* dst = src interpolated along `axis` (src's dims in `dims`, which becomes dst's): outer x in x inner to
 * outer x out x inner. src and dst are float32 or double as their flags say. */
static void resize_axis(const void *src, gboolean src_float, void *dst, gboolean dst_float, gint64 *dims, int rank,
                        int axis, gint64 out, const Taps *taps, double extrapolation)
{
    gint64 outer = 1, inner = 1, in = dims[axis];
    for (int d = 0; d < axis; d++)
        outer *= dims[d];
    for (int d = axis + 1; d < rank; d++)
        inner *= dims[d];
    const float *sf = src;
    const double *sd = src;
    float *df = dst;
    double *dd = dst;
    for (gint64 p = 0; p < outer; p++)
        for (gint64 o = 0; o < out; o++) {
            const Taps *t = &taps[o];
            gint64 to = (p * out + o) * inner;
            for (gint64 j = 0; j < inner; j++) {
                double v = 0;
                if (t->outside)
                    v = extrapolation;
                else
                    for (int k = 0; k < t->n; k++) {
                        gint64 from = (p * in + t->index[k]) * inner + j;
                        v += t->weight[k] * (src_float ? (double)sf[from] : sd[from]);
                    }
                if (dst_float)
                    df[to + j] = (float)v;
                else
                    dd[to + j] = v;
            }
        }
    dims[axis] = out;
}

/* The scale of each axis (1 where none is given) from the op's scales or sizes (through `axes` and
 * keep_aspect_ratio_policy), and each axis's roi. */
static gboolean resize_scales(const KernelCall *c, const ExecTensor *x, const ExecTensor *y, double *scale,
                              double *start, double *end, GError **error)
{
    int r = x->rank;
    gboolean upsample = kernel_kind(c) == KIND_UPSAMPLE;
    gboolean roi_input = !upsample && c->opset >= 11;
    const ExecTensor *roi = roi_input ? kernel_in(c, 1) : NULL, *scales = kernel_in(c, roi_input ? 2 : 1),
                     *sizes = roi_input ? kernel_in(c, 3) : NULL;
    const GArray *axes_attr, *scales_attr;
    const char *policy;
    if (!node_attr_ints(c->node, "axes", &axes_attr, error) || !node_attr_floats(c->node, "scales", &scales_attr, error) ||
        !node_attr_string(c->node, "keep_aspect_ratio_policy", "stretch", &policy, error))
        return FALSE;
    int count = axes_attr ? (int)axes_attr->len : r, axis_of[KERNEL_MAX_RANK];
    for (int k = 0; k < count; k++)
        axis_of[k] = axes_attr ? kernel_axis(g_array_index(axes_attr, gint64, k), r) : k;
    for (int d = 0; d < r; d++)
        scale[d] = 1, start[d] = 0, end[d] = 1;
    if (sizes && sizes->count > 0) {
        if ((int)sizes->count != count)
            return kernel_fail(c, error, "sizes has %zu values for %d axes", sizes->count, count);
        if (strcmp(policy, "stretch") && strcmp(policy, "not_larger") && strcmp(policy, "not_smaller"))
            return kernel_fail(c, error, "keep_aspect_ratio_policy '%s' is not one the operator defines", policy);
        double keep = strcmp(policy, "not_larger") ? 0 : INFINITY;
        for (int k = 0; k < count; k++) {
            double s = (double)kernel_elem_get_i(sizes, k) / (double)x->dims[axis_of[k]];
            scale[axis_of[k]] = s;
            keep = !strcmp(policy, "not_larger") ? MIN(keep, s) : MAX(keep, s);
        }
        if (strcmp(policy, "stretch"))
            for (int k = 0; k < count; k++)
                scale[axis_of[k]] = keep;
    } else if (scales && scales->count > 0) {
        if ((int)scales->count != count)
            return kernel_fail(c, error, "scales has %zu values for %d axes", scales->count, count);
        for (int k = 0; k < count; k++)
            scale[axis_of[k]] = kernel_elem_get_f(scales, k);
    } else if (scales_attr && (int)scales_attr->len == r) {
        for (int d = 0; d < r; d++)
            scale[d] = g_array_index(scales_attr, float, d);
    } else if (y->count > 0) {
        return kernel_fail(c, error, "neither sizes nor scales is given");
    }
    if (roi && roi->count == (gsize)(2 * count))
        for (int k = 0; k < count; k++) {
            start[axis_of[k]] = kernel_elem_get_f(roi, k);
            end[axis_of[k]] = kernel_elem_get_f(roi, count + k);
        }
    for (int d = 0; d < r; d++)
        if (!(scale[d] > 0) || !isfinite(scale[d]))
            return kernel_fail(c, error, "the scale of axis %d (%g) is not usable", d, scale[d]);
    return TRUE;
}

gboolean kernel_resize(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    ResizeRule rule;
    const char *mode;
    float cubic_a, extrapolation;
    gint64 exclude, antialias;
    if (!kernel_need_float(c, x, c->node->op->name, error) || !node_attr_string(c->node, "mode", "nearest", &mode, error) ||
        !node_attr_string(c->node, "coordinate_transformation_mode", c->opset >= 11 ? "half_pixel" : "asymmetric",
                          &rule.transform, error) ||
        !node_attr_string(c->node, "nearest_mode", "round_prefer_floor", &rule.nearest_mode, error) ||
        !node_attr_float(c->node, "cubic_coeff_a", -0.75f, &cubic_a, error) ||
        !node_attr_float(c->node, "extrapolation_value", 0.0f, &extrapolation, error) ||
        !node_attr_int(c->node, "exclude_outside", 0, &exclude, error) || !node_attr_int(c->node, "antialias", 0, &antialias, error))
        return FALSE;
    if (c->opset < 11)
        rule.transform = "asymmetric", rule.nearest_mode = NULL;
    rule.cubic_a = cubic_a, rule.extrapolation = extrapolation, rule.exclude_outside = exclude != 0;
    if (!strcmp(mode, "nearest"))
        rule.mode = RESIZE_NEAREST;
    else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear"))
        rule.mode = RESIZE_LINEAR;
    else if (!strcmp(mode, "cubic") || !strcmp(mode, "bicubic"))
        rule.mode = RESIZE_CUBIC;
    else
        return kernel_fail(c, error, "Resize mode '%s' is not one the operator defines", mode);
    static const char *const transforms[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                             "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize", NULL};
    if (!g_strv_contains(transforms, rule.transform))
        return kernel_fail(c, error, "coordinate_transformation_mode '%s' is not one the operator defines", rule.transform);
    if (antialias)
        return kernel_fail(c, error, "antialiased Resize is not supported by the executor");
    int r = x->rank;
    if (r > KERNEL_MAX_RANK)
        return kernel_fail(c, error, "rank %d is beyond the executor's Resize", r);
    double scale[KERNEL_MAX_RANK], start[KERNEL_MAX_RANK], end[KERNEL_MAX_RANK];
    if (!resize_scales(c, x, y, scale, start, end, error))
        return FALSE;
    if (y->count == 0)
        return TRUE;
    for (int d = 0; d < r; d++)
        if (x->dims[d] == 0)
            return kernel_fail(c, error, "axis %d of the input is empty but the output is not", d);

    /* The taps of every axis that moves anything; then one pass per such axis, the last axis first. */
    Taps *taps[KERNEL_MAX_RANK] = {NULL};
    int moving = 0;
    for (int d = 0; d < r; d++) {
        taps[d] = g_new(Taps, y->dims[d]);
        for (gint64 o = 0; o < y->dims[d]; o++)
            taps[d][o] = axis_taps(&rule, o, x->dims[d], y->dims[d], scale[d], start[d], end[d]);
        if (taps_are_identity(taps[d], x->dims[d], y->dims[d]))
            g_clear_pointer(&taps[d], g_free);
        else
            moving++;
    }
    gint64 dims[KERNEL_MAX_RANK];
    memcpy(dims, x->dims, (gsize)r * sizeof(gint64));
    const void *src = x->data;
    gboolean src_float = TRUE;
    void *held = NULL;
    if (moving == 0)
        kernel_move(y->data, x->data, y->count * sizeof(float));
    for (int d = r - 1; d >= 0; d--) {
        if (!taps[d])
            continue;
        gboolean last = --moving == 0;
        void *dst = y->data;
        if (!last) {
            gsize n = 1;
            for (int a = 0; a < r; a++)
                n *= (gsize)(a == d ? y->dims[a] : dims[a]);
            dst = g_try_new(double, n);
            if (!dst) {
                for (int a = 0; a < r; a++)
                    g_free(taps[a]);
                g_free(held);
                return kernel_fail(c, error, "no memory for an intermediate of %zu values", n);
            }
        }
        resize_axis(src, src_float, dst, last, dims, r, d, y->dims[d], taps[d], rule.extrapolation);
        g_free(held);
        held = last ? NULL : dst;
        src = dst, src_float = last;
        g_free(taps[d]);
    }
    return TRUE;
}

/* ---- GridSample (opset 16, 4-D): each output position samples X at the grid's (x, y) in [-1, 1] ---- */

typedef enum { GRID_ZEROS, GRID_BORDER, GRID_REFLECTION } GridPadding;

/* A grid coordinate in pixels: -1 and 1 are the outer pixels' centres (align_corners) or edges. */
static float grid_unnormalize(float g, gint64 size, gboolean align)
{
    return align ? (g + 1) / 2 * (float)(size - 1) : ((g + 1) * (float)size - 1) / 2;
}

/* x reflected into [low / 2, high / 2] (the bounds given doubled), as often as it takes. */
static float grid_reflect(float x, gint64 twice_low, gint64 twice_high)
{
    if (twice_low == twice_high)
        return 0;
    float min = (float)twice_low / 2, span = (float)(twice_high - twice_low) / 2;
    x = fabsf(x - min);
    float extra = fmodf(x, span);
    gint64 flips = (gint64)floorf(x / span);
    return flips % 2 == 0 ? extra + min : span - extra + min;
}

/* The padding mode's coordinate: border and reflection bring it inside [0, size - 1]; zeros leaves it. */
static float grid_pad(float x, gint64 size, GridPadding pad, gboolean align)
{
    if (pad == GRID_REFLECTION)
        x = align ? grid_reflect(x, 0, 2 * (size - 1)) : grid_reflect(x, -1, 2 * size - 1);
    if (pad != GRID_ZEROS)
        x = x < 0 ? 0 : x > (float)(size - 1) ? (float)(size - 1) : x;
    return x;
}

/* The offset of pixel (ix, iy) in a plane, -1 outside it (the zeros padding; the others brought coordinates
 * inside), and the pixel at such an offset. */
static gint64 grid_offset(gint64 h, gint64 w, gint64 ix, gint64 iy)
{
    return ix >= 0 && ix < w && iy >= 0 && iy < h ? iy * w + ix : -1;
}

static float grid_at(const float *plane, gint64 at)
{
    return at >= 0 ? plane[at] : 0;
}

/* Keys' cubic convolution weights, A = -0.75 (as torch's grid_sample): for |t| <= 1 and for 1 < |t| < 2. */
static float cubic_near(float t) { return ((1.25f * t - 2.25f) * t) * t + 1; }
static float cubic_far(float t) { return ((-0.75f * t + 3.75f) * t - 6.0f) * t + 3.0f; }

gboolean kernel_grid_sample(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *grid = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    const char *mode, *padding;
    gint64 align_corners;
    if (!kernel_need_float(c, x, "GridSample's input", error) ||
        !kernel_need_float(c, grid, "GridSample's grid", error) ||
        !node_attr_string(c->node, "mode", "bilinear", &mode, error) ||
        !node_attr_string(c->node, "padding_mode", "zeros", &padding, error) ||
        !node_attr_int(c->node, "align_corners", 0, &align_corners, error))
        return FALSE;
    int m = !strcmp(mode, "bilinear") || !strcmp(mode, "linear") ? 0
            : !strcmp(mode, "nearest")                          ? 1
            : !strcmp(mode, "bicubic") || !strcmp(mode, "cubic") ? 2
                                                                 : -1;
    GridPadding pad = !strcmp(padding, "zeros") ? GRID_ZEROS : !strcmp(padding, "border") ? GRID_BORDER
                                                                                          : GRID_REFLECTION;
    if (m < 0 || (pad == GRID_REFLECTION && strcmp(padding, "reflection")))
        return kernel_fail(c, error, "mode '%s', padding_mode '%s': not a GridSample mode", mode, padding);
    gboolean align = align_corners != 0;
    gint64 n = x->dims[0], ch = x->dims[1], h = x->dims[2], w = x->dims[3], oh = y->dims[2], ow = y->dims[3];
    const float *in = x->data, *g = grid->data;
    float *out = y->data;
    /* Per output position, once for every channel: the taps' offsets (16 for bicubic, 4 for bilinear, 1 for
     * nearest; -1 where a tap reads the zeros padding) and weights; then each channel's sum over them, the same
     * arithmetic in the same order as one tap at a time. */
    for (gint64 b = 0; b < n; b++)
        for (gint64 p = 0; p < oh * ow; p++) {
            float gx = g[(b * oh * ow + p) * 2], gy = g[(b * oh * ow + p) * 2 + 1];
            float fx = grid_unnormalize(gx, w, align), fy = grid_unnormalize(gy, h, align);
            gint64 at[16];
            float wx[4] = {0}, wy[4] = {0};
            if (m == 2) { /* each of the 16 taps brought inside by the padding mode on its own */
                float x0 = floorf(fx), y0 = floorf(fy), tx = fx - x0, ty = fy - y0;
                float cx[4] = {cubic_far(tx + 1), cubic_near(tx), cubic_near(1 - tx), cubic_far(2 - tx)};
                float cy[4] = {cubic_far(ty + 1), cubic_near(ty), cubic_near(1 - ty), cubic_far(2 - ty)};
                memcpy(wx, cx, sizeof wx);
                memcpy(wy, cy, sizeof wy);
                for (int j = 0; j < 4; j++)
                    for (int i = 0; i < 4; i++) {
                        float sx = grid_pad(x0 - 1 + (float)i, w, pad, align);
                        float sy = grid_pad(y0 - 1 + (float)j, h, pad, align);
                        at[j * 4 + i] = grid_offset(h, w, (gint64)sx, (gint64)sy);
                    }
            } else {
                float sx = grid_pad(fx, w, pad, align), sy = grid_pad(fy, h, pad, align);
                if (m == 1) {
                    at[0] = grid_offset(h, w, (gint64)nearbyintf(sx), (gint64)nearbyintf(sy));
                } else {
                    float x0 = floorf(sx), y0 = floorf(sy);
                    gint64 ix = (gint64)x0, iy = (gint64)y0;
                    wx[0] = sx - x0; /* tx, ty */
                    wy[0] = sy - y0;
                    at[0] = grid_offset(h, w, ix, iy);
                    at[1] = grid_offset(h, w, ix + 1, iy);
                    at[2] = grid_offset(h, w, ix, iy + 1);
                    at[3] = grid_offset(h, w, ix + 1, iy + 1);
                }
            }
            float tx = wx[0], ty = wy[0];
            for (gint64 k = 0; k < ch; k++) {
                const float *plane = in + (b * ch + k) * h * w;
                float v = 0;
                if (m == 2) {
                    for (int j = 0; j < 4; j++) {
                        float row = 0;
                        for (int i = 0; i < 4; i++)
                            row += wx[i] * grid_at(plane, at[j * 4 + i]);
                        v += wy[j] * row;
                    }
                } else if (m == 1) {
                    v = grid_at(plane, at[0]);
                } else {
                    v = grid_at(plane, at[0]) * (1 - tx) * (1 - ty) + grid_at(plane, at[1]) * tx * (1 - ty) +
                        grid_at(plane, at[2]) * (1 - tx) * ty + grid_at(plane, at[3]) * tx * ty;
                }
                out[((b * ch + k) * oh * ow) + p] = v;
            }
        }
    return TRUE;
}
