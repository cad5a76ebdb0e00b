/* dynamic.c — kernels whose output sizes depend on their inputs' values: NonZero, Compress, Unique,
 * NonMaxSuppression (each sets its outputs' real shapes inside their planned upper bounds, kernel_set_dims),
 * RoiAlign (bilinear sampling of boxes, ONNX Runtime's rules) and Size. */
#include "exec/kernel.h"
#include "ops/ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* IfSelect: output k is the taken branch's output k (condition true: input 1 + k; false: 1 + count + k); a branch
 * planned as never taken (attribute `never`) is an error naming why. */
gboolean kernel_if_select(const KernelCall *c, GError **error)
{
    guint count = c->n_out;
    const ExecTensor *cond = kernel_in(c, 0);
    gboolean truth = cond && cond->count && kernel_elem_get_f(cond, 0) != 0;
    gint64 never;
    const char *why;
    if (!node_attr_int(c->node, "never", 0, &never, error))
        return FALSE;
    if (never == (truth ? 1 : 2)) /* (the reason read only then: IfSelect runs per iteration of an unrolled Loop) */
        return node_attr_string(c->node, "never_why", "", &why, error) &&
               kernel_fail(c, error, "the condition chose the %s branch, which was planned as never taken: at these "
                           "dims %s", truth ? "then" : "else", why);
    for (guint k = 0; k < count; k++) {
        const ExecTensor *src = kernel_in(c, 1 + (truth ? 0 : count) + k);
        ExecTensor *dst = kernel_out(c, k);
        if (!dst)
            continue;
        if (!src)
            return kernel_fail(c, error, "the %s branch's output %u was not computed", truth ? "then" : "else", k);
        if (!kernel_set_dims(c, k, src->dims, error))
            return FALSE;
        if (src->data != dst->data && src->count)
            kernel_move(dst->data, src->data, src->count * dtype_size(src->dtype));
    }
    return TRUE;
}

/* ConcatComputed: the inputs computed this run (the others are NULL), one after another along axis 0. */
gboolean kernel_concat_computed(const KernelCall *c, GError **error)
{
    ExecTensor *y = kernel_out(c, 0);
    gint64 dims[KERNEL_MAX_RANK];
    if (y->rank < 1 || y->rank > KERNEL_MAX_RANK)
        return kernel_fail(c, error, "output rank %d is not 1 to %d", y->rank, KERNEL_MAX_RANK);
    memcpy(dims, y->dims, sizeof(gint64) * (gsize)y->rank);
    dims[0] = 0;
    for (guint k = 0; k < c->n_in; k++)
        if (kernel_in(c, k))
            dims[0] += kernel_in(c, k)->dims[0];
    if (!kernel_set_dims(c, 0, dims, error))
        return FALSE;
    guint8 *at = y->data;
    for (guint k = 0; k < c->n_in; k++) {
        const ExecTensor *x = kernel_in(c, k);
        gsize bytes = x ? x->count * dtype_size(x->dtype) : 0;
        if (bytes)
            kernel_move(at, x->data, bytes);
        at += bytes;
    }
    return TRUE;
}

gboolean kernel_size(const KernelCall *c, GError **error)
{
    (void)error;
    kernel_elem_set_i(kernel_out(c, 0), 0, (gint64)kernel_in(c, 0)->count);
    return TRUE;
}

/* Element k is not zero (a NaN is not zero). */
static gboolean nonzero_at(const ExecTensor *x, gsize k)
{
    return dtype_is_float(x->dtype) ? kernel_elem_get_f(x, k) != 0 : kernel_elem_get_i(x, k) != 0;
}

gboolean kernel_nonzero(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gint64 count = 0;
    gsize n = x->count;
    /* a mask of bytes (a comparison's output) or floats: read as they lie (other types through the accessors) */
    gboolean bytes = dtype_size(x->dtype) == 1 && !dtype_is_float(x->dtype), floats = x->dtype == DT_FLOAT;
    const guint8 *xb = x->data;
    const float *xf = x->data;
    if (bytes) /* one loop per kind, each vectorised (a test per element inside kept the loop scalar) */
        for (gsize k = 0; k < n; k++)
            count += xb[k] != 0;
    else if (floats)
        for (gsize k = 0; k < n; k++)
            count += xf[k] != 0;
    else
        for (gsize k = 0; k < n; k++)
            count += nonzero_at(x, k);
    if (!kernel_set_dims(c, 0, (const gint64[]){x->rank, count}, error))
        return FALSE;
    gint64 idx[KERNEL_MAX_RANK] = {0}, j = 0;
    if (x->rank > KERNEL_MAX_RANK)
        return kernel_fail(c, error, "input rank %d is above the executor's %d", x->rank, KERNEL_MAX_RANK);
    if ((bytes || floats) && y->dtype == DT_INT64 && x->rank >= 1 && x->dims[x->rank - 1] > 0) {
        /* row by row along the last axis, the other axes' indices counted as the rows pass (a division per axis per
         * element was most of a detector's NonZero) */
        gint64 *out = y->data, last = x->dims[x->rank - 1], rows = (gint64)n / last;
        int outer = x->rank - 1;
        for (gint64 row = 0; row < rows && j < count; row++, kernel_index_next(idx, x->dims, outer)) {
            const guint8 *rb = xb + row * last;
            const float *rf = xf + row * last;
            for (gint64 i = 0; i < last; i++) {
                if (bytes && i + 8 <= last) { /* a mask is mostly zeros: eight bytes at a time past them */
                    guint64 word;
                    memcpy(&word, rb + i, 8);
                    if (!word) {
                        i += 7;
                        continue;
                    }
                }
                if (bytes ? rb[i] == 0 : !(rf[i] != 0))
                    continue;
                for (int d = 0; d < outer; d++)
                    out[d * count + j] = idx[d];
                out[outer * count + j] = i;
                j++;
            }
        }
        return TRUE;
    }
    for (gsize k = 0; k < x->count; k++, kernel_index_next(idx, x->dims, x->rank)) {
        if (!nonzero_at(x, k))
            continue;
        for (int d = 0; d < x->rank; d++)
            kernel_elem_set_i(y, (gsize)(d * count + j), idx[d]);
        j++;
    }
    return TRUE;
}

gboolean kernel_compress(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *cond = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    gint64 axis_attr;
    if (!node_attr_int(c->node, "axis", G_MININT64, &axis_attr, error))
        return FALSE;
    gboolean flat = axis_attr == G_MININT64;
    int axis = flat ? 0 : kernel_axis(axis_attr, x->rank);
    gint64 outer = 1, len = (gint64)x->count, inner = 1;
    if (!flat)
        kernel_axis_geometry(x, axis, &outer, &len, &inner);
    gint64 most = MIN(len, (gint64)cond->count), kept = 0;
    for (gint64 j = 0; j < most; j++)
        kept += nonzero_at(cond, (gsize)j);
    gint64 dims[KERNEL_MAX_RANK];
    if (flat) {
        dims[0] = kept;
    } else {
        memcpy(dims, x->dims, sizeof(gint64) * (gsize)x->rank);
        dims[axis] = kept;
    }
    if ((y->rank == 1 ? y->dims[0] : y->dims[axis]) != kept && !kernel_set_dims(c, 0, dims, error))
        return FALSE;
    gsize size = dtype_size(x->dtype);
    for (gint64 o = 0; o < outer; o++) {
        gint64 at = 0;
        for (gint64 j = 0; j < most; j++)
            if (nonzero_at(cond, (gsize)j))
                memcpy((guint8 *)y->data + (gsize)((o * kept + at++) * inner) * size,
                       (const guint8 *)x->data + (gsize)((o * len + j) * inner) * size, (gsize)inner * size);
    }
    return TRUE;
}

/* Unique over slices: slice j of x viewed as [outer, len, inner] is x[:, j, :] (one element each when flat). */
typedef struct {
    const ExecTensor *x;
    gint64 outer, len, inner;
} Slices;

static int slice_compare(const Slices *s, gint64 a, gint64 b)
{
    gboolean f = dtype_is_float(s->x->dtype);
    for (gint64 o = 0; o < s->outer; o++)
        for (gint64 i = 0; i < s->inner; i++) {
            gsize ka = (gsize)((o * s->len + a) * s->inner + i), kb = (gsize)((o * s->len + b) * s->inner + i);
            if (f) {
                double va = kernel_elem_get_f(s->x, ka), vb = kernel_elem_get_f(s->x, kb);
                if (va != vb)
                    return va < vb ? -1 : 1;
            } else {
                gint64 va = kernel_elem_get_i(s->x, ka), vb = kernel_elem_get_i(s->x, kb);
                if (va != vb)
                    return va < vb ? -1 : 1;
            }
        }
    return 0;
}

static int slice_order(const void *pa, const void *pb, void *data)
{
    gint64 a = *(const gint64 *)pa, b = *(const gint64 *)pb;
    int r = slice_compare(data, a, b);
    return r ? r : (a > b) - (a < b); /* equal slices: first occurrence first */
}

static int by_int64(const void *pa, const void *pb)
{
    gint64 a = *(const gint64 *)pa, b = *(const gint64 *)pb;
    return (a > b) - (a < b);
}

gboolean kernel_unique(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0), *first = kernel_out(c, 1), *inverse = kernel_out(c, 2), *counts = kernel_out(c, 3);
    gint64 axis_attr, sorted;
    if (!node_attr_int(c->node, "axis", G_MININT64, &axis_attr, error) ||
        !node_attr_int(c->node, "sorted", 1, &sorted, error))
        return FALSE;
    gboolean flat = axis_attr == G_MININT64;
    int axis = flat ? 0 : kernel_axis(axis_attr, x->rank);
    Slices s = {.x = x, .outer = 1, .len = (gint64)x->count, .inner = 1};
    if (!flat)
        kernel_axis_geometry(x, axis, &s.outer, &s.len, &s.inner);
    /* order: the slices sorted (value, then position); group: each slice's distinct entry, by first occurrence */
    if (s.len > G_MAXINT) /* g_qsort_with_data counts in a gint */
        return kernel_fail(c, error, "%" G_GINT64_FORMAT " slices are more than the 2^31 it sorts", s.len);
    /* four lists of a slot per slice, 32 B a slice, in the run's memory account */
    gint64 *order = kernel_alloc(c, 4 * (guint64)MAX(s.len, 1), sizeof(gint64), "slice lists", error);
    if (!order)
        return FALSE;
    gint64 *group = order + MAX(s.len, 1), *firsts = group + MAX(s.len, 1), *tally = firsts + MAX(s.len, 1);
    for (gint64 j = 0; j < s.len; j++)
        order[j] = j;
    g_qsort_with_data(order, (gint)s.len, sizeof(gint64), slice_order, &s);
    gint64 distinct = 0;
    for (gint64 r = 0; r < s.len; r++) {
        if (r == 0 || slice_compare(&s, order[r - 1], order[r]))
            firsts[distinct++] = order[r];
        group[order[r]] = distinct - 1;
    }
    /* sorted: entries in value order (the runs above); else in order of first occurrence */
    gint64 *rank_of = kernel_alloc(c, 2 * (guint64)MAX(distinct, 1), sizeof(gint64), "slice lists", error);
    if (!rank_of) {
        kernel_alloc_free(order);
        return FALSE;
    }
    if (!sorted) {
        gint64 *by_first = rank_of + MAX(distinct, 1);
        for (gint64 d = 0; d < distinct; d++)
            by_first[d] = firsts[d];
        qsort(by_first, (size_t)distinct, sizeof(gint64), by_int64);
        for (gint64 d = 0; d < distinct; d++) { /* the run whose first occurrence is by_first[d] becomes entry d */
            rank_of[group[by_first[d]]] = d;
            firsts[d] = by_first[d];
        }
    } else {
        for (gint64 d = 0; d < distinct; d++)
            rank_of[d] = d;
    }
    for (gint64 j = 0; j < s.len; j++)
        tally[rank_of[group[j]]]++;
    gint64 dims[KERNEL_MAX_RANK];
    if (flat) {
        dims[0] = distinct;
    } else {
        memcpy(dims, x->dims, sizeof(gint64) * (gsize)x->rank);
        dims[axis] = distinct;
    }
    gboolean ok = (!y || kernel_set_dims(c, 0, dims, error)) && (!first || kernel_set_dims(c, 1, &distinct, error)) &&
                  (!counts || kernel_set_dims(c, 3, &distinct, error));
    gsize size = dtype_size(x->dtype);
    for (gint64 d = 0; ok && d < distinct; d++) {
        for (gint64 o = 0; y && o < s.outer; o++)
            memcpy((guint8 *)y->data + (gsize)((o * distinct + d) * s.inner) * size,
                   (const guint8 *)x->data + (gsize)((o * s.len + firsts[d]) * s.inner) * size, (gsize)s.inner * size);
        if (first)
            kernel_elem_set_i(first, (gsize)d, firsts[d]);
        if (counts)
            kernel_elem_set_i(counts, (gsize)d, tally[d]);
    }
    for (gint64 j = 0; ok && inverse && j < s.len; j++)
        kernel_elem_set_i(inverse, (gsize)j, rank_of[group[j]]);
    kernel_alloc_free(order);
    kernel_alloc_free(rank_of);
    return ok;
}

/* A box as (y1, x1, y2, x2) with y1 <= y2, x1 <= x2, from either layout. */
typedef struct {
    float y1, x1, y2, x2;
} Box;

static Box box_at(const ExecTensor *boxes, gsize at, gboolean center)
{
    float a = (float)kernel_elem_get_f(boxes, at), b = (float)kernel_elem_get_f(boxes, at + 1), cc = (float)kernel_elem_get_f(boxes, at + 2),
          d = (float)kernel_elem_get_f(boxes, at + 3);
    if (center) /* (x_center, y_center, width, height) */
        return (Box){b - d / 2.0f, a - cc / 2.0f, b + d / 2.0f, a + cc / 2.0f};
    return (Box){MIN(a, cc), MIN(b, d), MAX(a, cc), MAX(b, d)};
}

/* Whether a and b overlap by more than `threshold` of their union (ONNX Runtime's test: no area, no
 * overlap). */
static gboolean suppresses(const Box *a, const Box *b, float threshold)
{
    float ih = MIN(a->y2, b->y2) - MAX(a->y1, b->y1), iw = MIN(a->x2, b->x2) - MAX(a->x1, b->x1);
    if (ih <= 0.0f || iw <= 0.0f)
        return FALSE;
    float inter = ih * iw, area_a = (a->y2 - a->y1) * (a->x2 - a->x1), area_b = (b->y2 - b->y1) * (b->x2 - b->x1);
    float uni = area_a + area_b - inter;
    if (area_a <= 0.0f || area_b <= 0.0f || uni <= 0.0f)
        return FALSE;
    return inter / uni > threshold;
}

typedef struct {
    float score;
    gint64 box;
} Candidate;

static int by_score(const void *pa, const void *pb)
{
    const Candidate *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return (a->box > b->box) - (a->box < b->box);
}

/* The most box-against-kept-box tests one NonMaxSuppression makes (each candidate is tested against every box
 * kept so far: hostile data with a million boxes and no overlap would take hours; real detectors make a few
 * million). */
#define NMS_MAX_TESTS 20000000000ull

gboolean kernel_nms(const KernelCall *c, GError **error)
{
    const ExecTensor *boxes = kernel_in(c, 0), *scores = kernel_in(c, 1), *most_t = kernel_in(c, 2),
                     *iou_t = kernel_in(c, 3), *score_t = kernel_in(c, 4);
    ExecTensor *y = kernel_out(c, 0);
    gint64 center;
    if (!node_attr_int(c->node, "center_point_box", 0, &center, error))
        return FALSE;
    gint64 batch = boxes->dims[0], n = boxes->dims[1], classes = scores->dims[1];
    gint64 most = most_t && most_t->count ? kernel_elem_get_i(most_t, 0) : 0;
    float iou = iou_t && iou_t->count ? (float)kernel_elem_get_f(iou_t, 0) : 0.0f;
    gboolean by_threshold = score_t && score_t->count;
    float min_score = by_threshold ? (float)kernel_elem_get_f(score_t, 0) : 0.0f;
    if (iou < 0.0f || iou > 1.0f)
        return kernel_fail(c, error, "iou_threshold %g is outside [0, 1]", iou);
    most = MAX(0, MIN(most, n));
    Candidate *cand = g_new(Candidate, (gsize)MAX(n, 1));
    Box *kept = g_new(Box, (gsize)MAX(most, 1));
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(gint64));
    guint64 tests = 0;
    for (gint64 b = 0; b < batch; b++)
        for (gint64 cl = 0; cl < classes && most; cl++) {
            gint64 m = 0, selected = 0;
            for (gint64 j = 0; j < n; j++) {
                float s = (float)kernel_elem_get_f(scores, (gsize)((b * classes + cl) * n + j));
                if (!by_threshold || s > min_score)
                    cand[m++] = (Candidate){s, j};
            }
            qsort(cand, (size_t)m, sizeof *cand, by_score);
            for (gint64 j = 0; j < m && selected < most; j++) {
                Box box = box_at(boxes, (gsize)((b * n + cand[j].box) * 4), center == 1);
                gboolean keep = TRUE;
                tests += (guint64)selected;
                if (tests > NMS_MAX_TESTS) {
                    g_array_unref(rows);
                    g_free(cand);
                    g_free(kept);
                    return kernel_fail(c, error, "more than %" G_GUINT64_FORMAT " overlap tests (%" G_GINT64_FORMAT
                                       " boxes, up to %" G_GINT64_FORMAT " kept per class)", (guint64)NMS_MAX_TESTS, n, most);
                }
                for (gint64 k = 0; k < selected && keep; k++)
                    keep = !suppresses(&kept[k], &box, iou);
                if (!keep)
                    continue;
                kept[selected++] = box;
                gint64 row[3] = {b, cl, cand[j].box};
                g_array_append_vals(rows, row, 3);
            }
        }
    gint64 count = (gint64)rows->len / 3;
    gboolean ok = kernel_set_dims(c, 0, (const gint64[]){count, 3}, error);
    for (guint k = 0; ok && k < rows->len; k++)
        kernel_elem_set_i(y, k, g_array_index(rows, gint64, k));
    g_array_unref(rows);
    g_free(cand);
    g_free(kept);
    return ok;
}

/* RoiAlign (ONNX Runtime's CPU rules): each box scaled by spatial_scale (less half a pixel under
 * half_pixel; otherwise at least 1 x 1), split into output_height x output_width bins, each bin sampled on a
 * grid (sampling_ratio, or ceil(bin size) when 0) by bilinear interpolation (samples more than a pixel
 * outside give 0, nearer ones are clamped to the edge), the samples averaged (mode avg) or the largest
 * weighted corner taken (mode max). */
/* The most samples RoiAlign takes along a bin's side (a box 1,000 pixels wide on a 7-wide output takes 143;
 * past this, a box from hostile data would keep the kernel busy for hours). */
#define RO_MAX_SAMPLES 4096
#define RO_KEPT_SAMPLES (1 << 20) /* a box's samples found once for all channels, up to this many */

/* A box's geometry for roi_sample: its corner, its bins' size, the samples per bin side, the plane's size. */
typedef struct {
    float x1, y1, bin_w, bin_h;
    gint64 grid_w, grid_h, width, height;
} RoiBox;

/* One bilinear sample: four pixels' offsets in the plane and their weights (all 0 outside it). */
typedef struct {
    gint64 p[4];
    float w[4];
} RoiSample;

/* Sample (iy, ix) of bin (ph, pw) of a box: the four pixels around it, clamped at the far edges, and their
 * weights. */
static RoiSample roi_sample(const RoiBox *b, gint64 ph, gint64 pw, gint64 iy, gint64 ix)
{
    RoiSample s = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    float yy = b->y1 + (float)ph * b->bin_h + ((float)iy + 0.5f) * b->bin_h / (float)b->grid_h;
    float xx = b->x1 + (float)pw * b->bin_w + ((float)ix + 0.5f) * b->bin_w / (float)b->grid_w;
    if (yy < -1.0f || yy > (float)b->height || xx < -1.0f || xx > (float)b->width)
        return s;
    yy = MAX(yy, 0.0f);
    xx = MAX(xx, 0.0f);
    gint64 ylo = (gint64)yy, xlo = (gint64)xx, yhi, xhi;
    if (ylo >= b->height - 1) {
        yhi = ylo = b->height - 1;
        yy = (float)ylo;
    } else {
        yhi = ylo + 1;
    }
    if (xlo >= b->width - 1) {
        xhi = xlo = b->width - 1;
        xx = (float)xlo;
    } else {
        xhi = xlo + 1;
    }
    float ly = yy - (float)ylo, lx = xx - (float)xlo, hy = 1.0f - ly, hx = 1.0f - lx;
    s.w[0] = hy * hx, s.w[1] = hy * lx, s.w[2] = ly * hx, s.w[3] = ly * lx;
    s.p[0] = ylo * b->width + xlo, s.p[1] = ylo * b->width + xhi, s.p[2] = yhi * b->width + xlo;
    s.p[3] = yhi * b->width + xhi;
    return s;
}

gboolean kernel_roi_align(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *rois = kernel_in(c, 1), *idx = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    gint64 oh, ow, ratio;
    float scale;
    const char *mode, *transform;
    if (!kernel_need_float(c, x, "RoiAlign", error) || !node_attr_int(c->node, "output_height", 1, &oh, error) ||
        !node_attr_int(c->node, "output_width", 1, &ow, error) ||
        !node_attr_int(c->node, "sampling_ratio", 0, &ratio, error) ||
        !node_attr_float(c->node, "spatial_scale", 1.0f, &scale, error) ||
        !node_attr_string(c->node, "mode", "avg", &mode, error) ||
        !node_attr_string(c->node, "coordinate_transformation_mode", c->opset >= 16 ? "half_pixel" : "output_half_pixel",
                          &transform, error))
        return FALSE;
    gboolean is_max = !strcmp(mode, "max"), half_pixel = !strcmp(transform, "half_pixel");
    if (!is_max && strcmp(mode, "avg"))
        return kernel_fail(c, error, "mode '%s' is not avg or max", mode);
    gint64 images = x->dims[0], channels = x->dims[1], height = x->dims[2], width = x->dims[3];
    const float *px = x->data;
    float *py = y->data;
    for (gint64 r = 0; r < rois->dims[0]; r++) {
        gint64 image = kernel_elem_get_i(idx, (gsize)r);
        if (image < 0 || image >= images)
            return kernel_fail(c, error, "batch_indices[%" G_GINT64_FORMAT "] is %" G_GINT64_FORMAT ", outside [0, %"
                               G_GINT64_FORMAT ")", r, image, images);
        float offset = half_pixel ? 0.5f : 0.0f;
        float x1 = (float)kernel_elem_get_f(rois, (gsize)(r * 4)) * scale - offset, y1 = (float)kernel_elem_get_f(rois, (gsize)(r * 4 + 1)) * scale - offset;
        float x2 = (float)kernel_elem_get_f(rois, (gsize)(r * 4 + 2)) * scale - offset, y2 = (float)kernel_elem_get_f(rois, (gsize)(r * 4 + 3)) * scale - offset;
        float roi_w = x2 - x1, roi_h = y2 - y1;
        if (!half_pixel) {
            roi_w = MAX(roi_w, 1.0f);
            roi_h = MAX(roi_h, 1.0f);
        }
        float bin_h = roi_h / (float)oh, bin_w = roi_w / (float)ow;
        double adaptive_h = ceil((double)roi_h / (double)oh), adaptive_w = ceil((double)roi_w / (double)ow);
        if (!isfinite(x1) || !isfinite(y1) || !isfinite(x2) || !isfinite(y2) ||
            (ratio <= 0 && !(adaptive_h <= RO_MAX_SAMPLES && adaptive_w <= RO_MAX_SAMPLES)) || ratio > RO_MAX_SAMPLES)
            return kernel_fail(c, error, "box %" G_GINT64_FORMAT " (%g, %g, %g, %g) would take more than %d samples a bin "
                               "side, or is not finite", r, x1, y1, x2, y2, RO_MAX_SAMPLES);
        gint64 grid_h = ratio > 0 ? ratio : (gint64)adaptive_h, grid_w = ratio > 0 ? ratio : (gint64)adaptive_w;
        float count = (float)MAX(grid_h * grid_w, 1);
        RoiBox box = {x1, y1, bin_w, bin_h, grid_w, grid_h, width, height};
        gint64 per_bin = grid_h * grid_w, samples = oh * ow * per_bin;
        /* each sample's four pixels and weights found once for every channel (the same arithmetic per channel: the
         * same bits), where they fit the workspace's bound; else found again for each channel */
        RoiSample *found = samples <= RO_KEPT_SAMPLES ? kernel_workspace(c, sizeof(RoiSample) * (gsize)samples) : NULL;
        for (gint64 t = 0; found && t < samples; t++)
            found[t] = roi_sample(&box, t / per_bin / ow, t / per_bin % ow, t % per_bin / grid_w, t % grid_w);
        for (gint64 ch = 0; ch < channels; ch++) {
            const float *plane = px + (image * channels + ch) * height * width;
            for (gint64 ph = 0; ph < oh; ph++)
                for (gint64 pw = 0; pw < ow; pw++) {
                    float acc = 0.0f;
                    gboolean any = FALSE;
                    for (gint64 t = 0; t < per_bin; t++) {
                        RoiSample sm = found ? found[(ph * ow + pw) * per_bin + t]
                                             : roi_sample(&box, ph, pw, t / grid_w, t % grid_w);
                        if (is_max) {
                            float v = MAX(MAX(MAX(sm.w[0] * plane[sm.p[0]], sm.w[1] * plane[sm.p[1]]),
                                              sm.w[2] * plane[sm.p[2]]),
                                          sm.w[3] * plane[sm.p[3]]);
                            acc = any ? MAX(acc, v) : v;
                            any = TRUE;
                        } else {
                            acc += sm.w[0] * plane[sm.p[0]] + sm.w[1] * plane[sm.p[1]] + sm.w[2] * plane[sm.p[2]] +
                                   sm.w[3] * plane[sm.p[3]];
                        }
                    }
                    py[((r * channels + ch) * oh + ph) * ow + pw] = is_max ? acc : acc / count;
                }
        }
    }
    return TRUE;
}
