/* movement.c — kernels that move bytes: the views (Reshape, Squeeze, Unsqueeze, Flatten, Identity: free
 * when aliasing put the output on its input, a copy otherwise), Transpose (N-d; through a temporary when
 * aliasing made it share its input's bytes), Concat and Split (nothing to do for a piece that already
 * lives at its place in the layout, strided copies otherwise), Slice, Gather, Expand, Tile, Pad,
 * DepthToSpace and SpaceToDepth, and
 * the shape ops for when their values were not folded at plan time. */
#include "exec/kernel.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

gboolean kernel_view(const KernelCall *c, GError **error)
{
    (void)error;
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    kernel_move(y->data, x->data, y->count * dtype_size(y->dtype));
    return TRUE;
}

gboolean kernel_transpose(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    const GArray *perm_attr = NULL;
    if (!node_attr_ints(c->node, "perm", &perm_attr, error))
        return FALSE;
    int r = x->rank;
    gint64 perm[KERNEL_MAX_RANK];
    if (r > KERNEL_MAX_RANK)
        return kernel_fail(c, error, "rank %d is beyond the executor's Transpose", r);
    for (int d = 0; d < r; d++)
        perm[d] = perm_attr ? g_array_index(perm_attr, gint64, d) : r - 1 - d;
    /* Sharing its input's bytes (the seeds class Transpose as a view) means transposing in place. */
    void *copy = NULL;
    const void *src = kernel_input_apart(x, y, &copy);
    kernel_permute(y->data, src, dtype_size(x->dtype), r, x->dims, perm);
    g_free(copy);
    return TRUE;
}

/* DepthToSpace and SpaceToDepth are a reshape to rank 6, a permutation, and a reshape back. */
static gboolean block_rearrange(const KernelCall *c, gboolean to_space, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gint64 bs;
    const char *mode = "DCR";
    if (!node_attr_int(c->node, "blocksize", 0, &bs, error) ||
        (to_space && !node_attr_string(c->node, "mode", "DCR", &mode, error)))
        return FALSE;
    if (x->rank != 4 || bs <= 0)
        return kernel_fail(c, error, "needs a 4-D input and a positive blocksize");
    gint64 n = x->dims[0], ch = x->dims[1], h = x->dims[2], w = x->dims[3];
    gint64 dims[6], perm[6];
    if (to_space && !strcmp(mode, "CRD")) {
        gint64 d[6] = {n, ch / (bs * bs), bs, bs, h, w}, p[6] = {0, 1, 4, 2, 5, 3};
        memcpy(dims, d, sizeof d);
        memcpy(perm, p, sizeof p);
    } else if (to_space) { /* DCR */
        gint64 d[6] = {n, bs, bs, ch / (bs * bs), h, w}, p[6] = {0, 3, 4, 1, 5, 2};
        memcpy(dims, d, sizeof d);
        memcpy(perm, p, sizeof p);
    } else {
        gint64 d[6] = {n, ch, h / bs, bs, w / bs, bs}, p[6] = {0, 3, 5, 1, 2, 4};
        memcpy(dims, d, sizeof d);
        memcpy(perm, p, sizeof p);
    }
    void *copy = NULL;
    const void *src = kernel_input_apart(x, y, &copy);
    kernel_permute(y->data, src, dtype_size(x->dtype), 6, dims, perm);
    g_free(copy);
    return TRUE;
}

gboolean kernel_depth_to_space(const KernelCall *c, GError **error) { return block_rearrange(c, TRUE, error); }
gboolean kernel_space_to_depth(const KernelCall *c, GError **error) { return block_rearrange(c, FALSE, error); }

gboolean kernel_concat(const KernelCall *c, GError **error)
{
    ExecTensor *y = kernel_out(c, 0);
    gint64 axis_attr;
    if (!node_attr_int(c->node, "axis", 0, &axis_attr, error))
        return FALSE;
    int axis = kernel_axis(axis_attr, y->rank);
    gint64 outer, inner;
    kernel_axis_geometry(y, axis, &outer, NULL, &inner);
    gsize size = dtype_size(y->dtype), row = (gsize)(y->dims[axis] * inner) * size, at = 0;
    for (guint k = 0; k < c->n_in; k++) {
        const ExecTensor *x = kernel_in(c, k);
        if (!x)
            continue;
        gsize piece = (gsize)(x->dims[axis] * inner) * size;
        char *dst = (char *)y->data + at;
        if (outer == 1)
            kernel_move(dst, x->data, piece); /* a piece laid out in place by aliasing: nothing moves */
        else if (x->data == dst) /* a KV cache grown in place (memory/kv.h): each block to its wider place, last
                                    first, so that none is written over before it moves */
            for (gint64 o = outer; o-- > 0;)
                memmove(dst + o * row, (const char *)x->data + o * piece, piece);
        else
            for (gint64 o = 0; o < outer; o++)
                kernel_move(dst + o * row, (const char *)x->data + o * piece, piece);
        at += piece;
    }
    return TRUE;
}

gboolean kernel_split(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    gint64 axis_attr;
    if (!node_attr_int(c->node, "axis", 0, &axis_attr, error))
        return FALSE;
    int axis = kernel_axis(axis_attr, x->rank);
    gint64 outer, inner;
    kernel_axis_geometry(x, axis, &outer, NULL, &inner);
    gsize size = dtype_size(x->dtype), row = (gsize)(x->dims[axis] * inner) * size, at = 0;
    for (guint k = 0; k < c->n_out; k++) {
        ExecTensor *y = kernel_out(c, k);
        if (!y)
            continue;
        gsize piece = (gsize)(y->dims[axis] * inner) * size;
        for (gint64 o = 0; o < outer; o++)
            kernel_move((char *)y->data + o * piece, (const char *)x->data + o * row + at, piece);
        at += piece;
    }
    return TRUE;
}

/* Per-axis start and step of a Slice, from its inputs (opset >= 10) or attributes. */
gboolean kernel_slice(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    int r = x->rank;
    if (r > 16)
        return kernel_fail(c, error, "rank %d is beyond the executor's Slice", r);
    gint64 start[16] = {0}, step[16];
    for (int d = 0; d < r; d++)
        step[d] = 1;
    gsize n;
    const ExecTensor *starts_t = kernel_in(c, 1), *axes_t = kernel_in(c, 3), *steps_t = kernel_in(c, 4);
    const GArray *starts_a = NULL, *axes_a = NULL;
    if (c->opset < 10) {
        if (!node_attr_ints(c->node, "starts", &starts_a, error) || !node_attr_ints(c->node, "axes", &axes_a, error))
            return FALSE;
        n = starts_a ? starts_a->len : 0;
    } else {
        n = starts_t ? starts_t->count : 0;
    }
    for (gsize k = 0; k < n; k++) {
        gint64 axis = c->opset < 10 ? (axes_a ? g_array_index(axes_a, gint64, k) : (gint64)k)
                                    : (axes_t ? kernel_elem_get_i(axes_t, k) : (gint64)k);
        int a = kernel_axis(axis, r);
        gint64 s = c->opset < 10 ? g_array_index(starts_a, gint64, k) : kernel_elem_get_i(starts_t, k);
        gint64 st = c->opset >= 10 && steps_t ? kernel_elem_get_i(steps_t, k) : 1;
        gint64 dim = x->dims[a];
        if (s < 0)
            s += dim;
        s = st > 0 ? CLAMP(s, 0, dim) : CLAMP(s, -1, dim - 1);
        start[a] = s;
        step[a] = st;
    }
    gint64 in_stride[16], stride = 1;
    for (int d = r - 1; d >= 0; d--) {
        in_stride[d] = stride;
        stride *= x->dims[d];
    }
    gint64 base = 0;
    for (int d = 0; d < r; d++)
        base += start[d] * in_stride[d];
    gsize size = dtype_size(x->dtype);
    /* A view placed by aliasing sits exactly where its elements are: the copy below moves nothing. */
    const char *src = x->data;
    char *copy = NULL;
    const char *lo = x->data, *hi = lo + x->count * size, *ylo = y->data;
    if (ylo >= lo && ylo < hi && ylo != lo + base * (gint64)size)
        src = copy = g_memdup2(x->data, x->count * size);
    gint64 idx[16] = {0}, off = base;
    char *dst = y->data;
    /* Runs of contiguous elements: whole rows when the last axis has step 1 (the walk then skips that
     * axis), single elements otherwise. */
    gboolean rows = r > 0 && step[r - 1] == 1;
    gsize run = rows ? (gsize)y->dims[r - 1] : 1;
    int walked = rows ? r - 1 : r;
    for (gsize k = 0; run > 0 && k < y->count; k += run) {
        if (dst + k * size != src + off * size)
            memmove(dst + k * size, src + off * size, run * size);
        for (int d = walked - 1; d >= 0; d--) {
            idx[d]++;
            off += step[d] * in_stride[d];
            if (idx[d] < y->dims[d])
                break;
            off -= step[d] * in_stride[d] * y->dims[d];
            idx[d] = 0;
        }
    }
    g_free(copy);
    return TRUE;
}

gboolean kernel_gather(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *ind = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    gint64 axis_attr;
    if (!node_attr_int(c->node, "axis", 0, &axis_attr, error))
        return FALSE;
    int axis = kernel_axis(axis_attr, x->rank);
    gint64 outer, inner;
    kernel_axis_geometry(x, axis, &outer, NULL, &inner);
    gsize size = dtype_size(x->dtype), block = (gsize)inner * size;
    gint64 dim = x->dims[axis];
    /* The output may live in the data's buffer (the seed's Gather rule): read from a copy then. */
    void *copy = NULL;
    const char *src = kernel_input_apart(x, y, &copy);
    char *dst = y->data;
    for (gint64 o = 0; o < outer; o++)
        for (gsize k = 0; k < ind->count; k++) {
            gint64 i;
            if (!kernel_index_at(c, ind, k, dim, axis, &i, error)) {
                g_free(copy);
                return FALSE;
            }
            memcpy(dst + ((gsize)o * ind->count + k) * block, src + ((gsize)(o * dim + i)) * block, block);
        }
    g_free(copy);
    return TRUE;
}

gboolean kernel_expand(const KernelCall *c, GError **error)
{
    (void)error;
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gint64 strides[16];
    if (y->rank > 16)
        return kernel_fail(c, error, "rank %d is beyond the executor's Expand", y->rank);
    kernel_broadcast_strides(x, y->rank, y->dims, strides);
    gsize size = dtype_size(y->dtype);
    if (!y->count)
        return TRUE;
    /* The trailing dims the input has whole (not broadcast) are one run, contiguous in both: copied at once (a
     * decoder's keys expanded to the query heads copy a head's cache per memcpy, not an element) */
    int lead = y->rank;
    gsize run = 1;
    while (lead > 0 && (strides[lead - 1] == (gint64)run || y->dims[lead - 1] == 1))
        run *= (gsize)y->dims[--lead];
    gint64 idx[16] = {0}, off = 0;
    for (gsize k = 0; k < y->count / run; k++) {
        memcpy((char *)y->data + k * run * size, (const char *)x->data + off * size, run * size);
        for (int d = lead - 1; d >= 0; d--) {
            idx[d]++;
            off += strides[d];
            if (idx[d] < y->dims[d])
                break;
            off -= strides[d] * y->dims[d];
            idx[d] = 0;
        }
    }
    return TRUE;
}

/* Input index of padded position i along an axis of n: inside, or mapped by edge/reflect, or (constant
 * mode) *inside set FALSE. */
static gint64 pad_source_index(gint64 i, gint64 n, gboolean edge, gboolean reflect, gboolean *inside)
{
    if (i >= 0 && i < n)
        return i;
    if (edge)
        return CLAMP(i, 0, n - 1);
    if (reflect && n > 1) {
        gint64 period = 2 * (n - 1);
        i = ((i % period) + period) % period;
        return i >= n ? period - i : i;
    }
    if (reflect) /* one element reflects onto itself */
        return 0;
    *inside = FALSE;
    return 0;
}

/* Pad: constant (the value input, 0 by default), edge (clamp) or reflect (mirror without the edge), a row
 * of the last axis at a time; pads before each axis from the input (opset >= 11) or the attribute. */
gboolean kernel_pad(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *pads_t = kernel_in(c, 1), *value_t = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    const char *mode;
    const GArray *pads_a = NULL;
    float value_attr;
    if (!node_attr_string(c->node, "mode", "constant", &mode, error) || !node_attr_ints(c->node, "pads", &pads_a, error) ||
        !node_attr_float(c->node, "value", 0.0f, &value_attr, error))
        return FALSE;
    gboolean edge = !strcmp(mode, "edge"), reflect = !strcmp(mode, "reflect");
    if (!edge && !reflect && strcmp(mode, "constant"))
        return kernel_fail(c, error, "Pad mode '%s' is not supported by the executor", mode);
    if (kernel_in(c, 3))
        return kernel_fail(c, error, "Pad with axes is not supported by the executor");
    int r = x->rank;
    if (r > 16)
        return kernel_fail(c, error, "rank %d is beyond the executor's Pad", r);
    gint64 before[16];
    for (int d = 0; d < r; d++)
        before[d] = c->opset >= 11 ? kernel_elem_get_i(pads_t, d) : g_array_index(pads_a, gint64, d);
    double value = c->opset >= 11 ? (value_t && value_t->count ? kernel_elem_get_f(value_t, 0) : 0.0) : value_attr;
    gsize size = dtype_size(y->dtype);
    guint8 fill[16] = {0}; /* the constant, in the output's type */
    ExecTensor fill_t = {.data = fill, .dtype = y->dtype, .rank = 0, .count = 1};
    kernel_elem_set_f(&fill_t, 0, value);
    if (y->count == 0)
        return TRUE;
    if (r == 0 || x->count == 0) { /* nothing to read: a scalar copied, or all of it the constant */
        for (gsize k = 0; k < y->count; k++)
            memcpy((char *)y->data + k * size, x->count ? x->data : fill, size);
        return TRUE;
    }
    /* Row by row along the last axis: the row it reads (or none: the constant), then its middle copied in
     * one piece and only the padded ends mapped element by element. Negative pads crop. */
    gint64 width = y->dims[r - 1], n_last = x->dims[r - 1], b_last = before[r - 1];
    gint64 lo = CLAMP(b_last, 0, width), hi = CLAMP(b_last + n_last, lo, width);
    gint64 idx[16] = {0};
    for (gsize row = 0; row < y->count / (gsize)width; row++) {
        gint64 off = 0;
        gboolean inside = TRUE;
        for (int d = 0; d < r - 1; d++)
            off = off * x->dims[d] + pad_source_index(idx[d] - before[d], x->dims[d], edge, reflect, &inside);
        char *dst = (char *)y->data + row * (gsize)width * size;
        const char *src = (const char *)x->data + (gsize)off * (gsize)n_last * size;
        if (inside && hi > lo)
            memcpy(dst + (gsize)lo * size, src + (gsize)(lo - b_last) * size, (gsize)(hi - lo) * size);
        for (gint64 o = 0; o < width; o++) {
            if (inside && o == lo && hi > lo)
                o = hi; /* the middle is done */
            if (o >= width)
                break;
            gboolean here = inside;
            gint64 i = pad_source_index(o - b_last, n_last, edge, reflect, &here);
            memcpy(dst + (gsize)o * size, here ? src + (gsize)i * size : (const char *)fill, size);
        }
        kernel_index_next(idx, y->dims, r - 1);
    }
    return TRUE;
}

/* Tile: output index k maps to input index (k mod the input's dims), dimension by dimension. */
gboolean kernel_tile(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    int r = x->rank;
    if (r > 16)
        return kernel_fail(c, error, "rank %d is beyond the executor's Tile", r);
    gsize size = dtype_size(y->dtype);
    gint64 idx[16] = {0};
    for (gsize k = 0; k < y->count; k++) {
        gint64 off = 0;
        for (int d = 0; d < r; d++)
            off = off * x->dims[d] + idx[d] % x->dims[d];
        memcpy((char *)y->data + k * size, (const char *)x->data + off * size, size);
        kernel_index_next(idx, y->dims, r);
    }
    return TRUE;
}

gboolean kernel_range(const KernelCall *c, GError **error)
{
    (void)error;
    const ExecTensor *start = kernel_in(c, 0), *delta = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    for (gsize k = 0; k < y->count; k++)
        kernel_elem_set_f(y, k, kernel_elem_get_f(start, 0) + (double)k * kernel_elem_get_f(delta, 0));
    return TRUE;
}

gboolean kernel_shape(const KernelCall *c, GError **error)
{
    (void)error;
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    gint64 start_attr, end_attr;
    if (!node_attr_int(c->node, "start", 0, &start_attr, error) || !node_attr_int(c->node, "end", x->rank, &end_attr, error))
        return FALSE;
    int start = CLAMP(kernel_axis(start_attr, x->rank), 0, x->rank);
    for (gsize k = 0; k < y->count; k++)
        kernel_elem_set_i(y, k, x->dims[start + (int)k]);
    return TRUE;
}

gboolean kernel_constant_of_shape(const KernelCall *c, GError **error)
{
    (void)error;
    ExecTensor *y = kernel_out(c, 0);
    const Attr *value = node_attr(c->node, "value");
    double v = 0;
    if (value && value->t && value->t->raw) {
        gsize len;
        const guint8 *raw = g_bytes_get_data(value->t->raw, &len);
        ExecTensor one = {.data = (void *)raw, .dtype = value->t->dtype, .count = 1};
        if (len >= dtype_size(value->t->dtype) && kernel_elem_supported(value->t->dtype))
            v = kernel_elem_get_f(&one, 0);
    }
    if (!y->count)
        return TRUE;
    /* the first element written as the type holds it, then its bytes copied out, doubling (a Mask R-CNN's Loop
     * makes a 64 x 64 image of zeros per detection: one element at a time was most of its time) */
    kernel_elem_set_f(y, 0, v);
    gsize size = dtype_size(y->dtype);
    for (gsize done = 1; done < y->count; done *= 2)
        memcpy((guint8 *)y->data + done * size, y->data, MIN(done, y->count - done) * size);
    return TRUE;
}
