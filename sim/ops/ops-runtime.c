/* ops-runtime.c — shape inference and folding for the ops that docs/spec.md §2 can turn into
 * offset views or contiguous layouts: Gather, Slice, Concat, Split (plus GatherElements and Scatter*,
 * which take their shapes the same way). */
#include "ops/ops-families.h"

static gsize row_stride(int rank, const gint64 *dims, int from)
{
    gsize s = 1;
    for (int k = from; k < rank; k++)
        s *= (gsize)dims[k];
    return s;
}

gboolean infer_gather(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *data, *idx;
    gint64 axis_attr;
    int axis;
    if (!infer_input(n, 0, &data, error) || !infer_input(n, 1, &idx, error) ||
        !node_attr_int(n, "axis", 0, &axis_attr, error) || !infer_axis(n, axis_attr, data->rank, &axis, error))
        return FALSE;
    if (data->rank - 1 + idx->rank > MAX_RANK)
        return infer_fail(error, n, "output rank is beyond %d", MAX_RANK);
    gint64 dims[MAX_RANK];
    int r = 0;
    for (int k = 0; k < axis; k++)
        dims[r++] = data->dims[k];
    for (int k = 0; k < idx->rank; k++)
        dims[r++] = idx->dims[k];
    for (int k = axis + 1; k < data->rank; k++)
        dims[r++] = data->dims[k];
    gint64 extent = data->dims[axis];
    if (idx->value) {
        for (gsize k = 0; k < idx->value->n; k++) {
            gint64 i = value_get_i(idx->value, k);
            if (i < -extent || i >= extent)
                return infer_fail(error, n, "index %" G_GINT64_FORMAT " is out of range for axis %d of size %"
                                  G_GINT64_FORMAT, i, axis, extent);
        }
    }
    if (!infer_set_output(n, 0, data->dtype, r, dims, error))
        return FALSE;
    if (data->value && idx->value && infer_value_fits(cx, r, dims)) {
        gsize inner = row_stride(data->rank, data->dims, axis + 1);
        gsize outer = row_stride(axis, data->dims, 0);
        Value *v = value_new(data->dtype, outer * idx->value->n * inner);
        gsize e = 0;
        for (gsize o = 0; o < outer; o++)
            for (gsize j = 0; j < idx->value->n; j++) {
                gint64 i = value_get_i(idx->value, j);
                if (i < 0)
                    i += extent;
                for (gsize in = 0; in < inner; in++, e++) {
                    gsize src = (o * (gsize)extent + (gsize)i) * inner + in;
                    value_copy_element(v, e, data->value, src);
                }
            }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

gboolean infer_gather_elements(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *data, *idx;
    if (!infer_input(n, 0, &data, error) || !infer_input(n, 1, &idx, error))
        return FALSE;
    if (data->rank != idx->rank)
        return infer_fail(error, n, "data and indices ranks differ (%d vs %d)", data->rank, idx->rank);
    return infer_set_output(n, 0, data->dtype, idx->rank, idx->dims, error);
}

/* GatherND: indices [..., k] pick slices of data past its first batch_dims axes; the output is the batch
 * axes, the indices' leading axes, then data's axes past batch_dims + k. */
gboolean infer_gather_nd(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *data, *idx;
    gint64 batch;
    if (!infer_input(n, 0, &data, error) || !infer_input(n, 1, &idx, error) ||
        !node_attr_int(n, "batch_dims", 0, &batch, error))
        return FALSE;
    if (idx->rank < 1 || batch < 0 || batch >= MIN(data->rank, idx->rank))
        return infer_fail(error, n, "batch_dims %" G_GINT64_FORMAT " does not fit data of rank %d and indices of rank %d",
                          batch, data->rank, idx->rank);
    gint64 k = idx->dims[idx->rank - 1];
    if (k < 1 || k > data->rank - batch)
        return infer_fail(error, n, "the indices' last dimension %" G_GINT64_FORMAT " is not within 1 to %" G_GINT64_FORMAT,
                          k, data->rank - batch);
    for (gint64 d = 0; d < batch; d++)
        if (data->dims[d] != idx->dims[d])
            return infer_fail(error, n, "batch dimension %" G_GINT64_FORMAT " differs between data and indices", d);
    gint64 out[MAX_RANK];
    int rank = 0;
    for (int d = 0; d < idx->rank - 1; d++)
        out[rank++] = idx->dims[d];
    for (int d = (int)(batch + k); d < data->rank; d++)
        out[rank++] = data->dims[d];
    return infer_set_output(n, 0, data->dtype, rank, out, error);
}

gint64 ops_runtime_slice_axis(gint64 dim, gint64 start, gint64 end, gint64 step, gint64 *first)
{
    gint64 s = start < 0 ? (start < -dim ? 0 : start + dim) : start;
    gint64 e = end < 0 ? (end < -dim ? -1 : end + dim) : end;
    if (step > 0) {
        *first = CLAMP(s, 0, dim);
        e = CLAMP(e, 0, dim);
        return e > *first ? (e - *first - 1) / step + 1 : 0; /* no step + span to overflow */
    }
    *first = CLAMP(s, 0, dim - 1);
    e = CLAMP(e, -1, dim - 1);
    gint64 back = step == G_MININT64 ? G_MAXINT64 : -step; /* -INT64_MIN does not exist; either is past any span */
    return *first > e ? (*first - e - 1) / back + 1 : 0;
}

gboolean infer_slice(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    Tensor *x;
    GArray *starts = NULL, *ends = NULL, *axes = NULL, *steps = NULL;
    gboolean has_s, has_e, has_a, has_st;
    gboolean old = opset < 10;
    if (!old && infer_input(n, 0, &x, NULL)) { /* starts, ends, axes or steps only running computes */
        gboolean computed = FALSE;
        for (guint k = 1; k <= 4; k++)
            computed = computed || (node_input(n, k) && !node_input(n, k)->value);
        if (computed) { /* a slice is never longer than its input: planned at the input's size */
            gint64 most[MAX_RANK];
            for (int a = x->rank - 1; a >= 0; a--)
                most[a] = infer_dynamic_dim(cx, n, 0, x->dims[a], a,
                                            "Slice: its bounds are computed when it runs, at most its input");
            return infer_set_output(n, 0, x->dtype, x->rank, most, error);
        }
    }
    gboolean ok = infer_input(n, 0, &x, error) &&
                  infer_int_list(n, old ? "starts" : NULL, old ? -1 : 1, "starts", &starts, &has_s, error) &&
                  infer_int_list(n, old ? "ends" : NULL, old ? -1 : 2, "ends", &ends, &has_e, error) &&
                  infer_int_list(n, old ? "axes" : NULL, old ? -1 : 3, "axes", &axes, &has_a, error) &&
                  infer_int_list(n, NULL, old ? -1 : 4, "steps", &steps, &has_st, error);
    if (ok && (!has_s || !has_e))
        ok = infer_fail(error, n, "starts and ends are required");
    if (ok && starts->len != ends->len)
        ok = infer_fail(error, n, "starts has %u values but ends has %u", starts->len, ends->len);
    if (ok && has_a && axes->len != starts->len) /* the seed's text (docs/spec.md §2), with the counts */
        ok = infer_fail(error, n, "slice_runtime: starts and axes must have the same length (starts %u, axes %u)",
                        starts->len, axes->len);
    if (ok && has_st && steps->len != starts->len)
        ok = infer_fail(error, n, "steps has %u values but starts has %u", steps->len, starts->len);
    gint64 dims[MAX_RANK], first[MAX_RANK], step_of[MAX_RANK];
    gboolean sliced[MAX_RANK] = {0};
    for (int k = 0; ok && k < x->rank; k++) {
        dims[k] = x->dims[k];
        first[k] = 0;
        step_of[k] = 1;
    }
    for (guint i = 0; ok && i < starts->len; i++) {
        int axis;
        gint64 a = has_a ? g_array_index(axes, gint64, i) : (gint64)i;
        ok = infer_axis(n, a, x->rank, &axis, error);
        if (ok && sliced[axis])
            ok = infer_fail(error, n, "axis %d is sliced twice", axis);
        gint64 step = has_st ? g_array_index(steps, gint64, i) : 1;
        if (ok && step == 0)
            ok = infer_fail(error, n, "step 0 on axis %d", axis);
        if (!ok)
            break;
        sliced[axis] = TRUE;
        dims[axis] = ops_runtime_slice_axis(x->dims[axis], g_array_index(starts, gint64, i),
                                            g_array_index(ends, gint64, i), step, &first[axis]);
        step_of[axis] = step;
    }
    if (starts) g_array_unref(starts);
    if (ends) g_array_unref(ends);
    if (axes) g_array_unref(axes);
    if (steps) g_array_unref(steps);
    if (!ok || !infer_set_output(n, 0, x->dtype, x->rank, dims, error))
        return FALSE;
    if (x->value) {
        guint64 numel;
        shape_numel(x->rank, dims, &numel);
        Value *v = value_new(x->dtype, numel);
        for (gsize e = 0; e < numel; e++) {
            gsize rest = e, src = 0, stride = 1;
            for (int k = x->rank - 1; k >= 0; k--) {
                gsize idx = rest % (gsize)dims[k];
                rest /= (gsize)dims[k];
                src += (gsize)(first[k] + (gint64)idx * step_of[k]) * stride;
                stride *= (gsize)x->dims[k];
            }
            value_copy_element(v, e, x->value, src);
        }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

gboolean infer_concat(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *first;
    gint64 axis_attr;
    int axis;
    const Attr *has_axis = node_attr(n, "axis");
    if (!infer_input(n, 0, &first, error))
        return FALSE;
    if (!has_axis)
        return infer_fail(error, n, "attribute 'axis' is required");
    if (!node_attr_int(n, "axis", 0, &axis_attr, error) || !infer_axis(n, axis_attr, first->rank, &axis, error))
        return FALSE;
    gint64 dims[MAX_RANK];
    memcpy(dims, first->dims, first->rank * sizeof(gint64));
    dims[axis] = 0;
    gboolean all_values = TRUE;
    for (guint k = 0; k < n->inputs->len; k++) {
        Tensor *t;
        if (!infer_input(n, k, &t, error))
            return FALSE;
        if (t->rank != first->rank)
            return infer_fail(error, n, "input '%s' has rank %d, input '%s' rank %d", t->name, t->rank, first->name,
                              first->rank);
        for (int d = 0; d < t->rank; d++) {
            if (d == axis || t->dims[d] == first->dims[d])
                continue;
            /* data-dependent sizes are bounds, which two pieces may reach differently: the larger is planned,
             * and running checks that the real sizes agree */
            if ((t->dynamic || first->dynamic) && !cx->running) {
                dims[d] = MAX(dims[d], t->dims[d]);
                continue;
            }
            return infer_fail(error, n, "input '%s' has size %" G_GINT64_FORMAT " on axis %d, input '%s' has %"
                              G_GINT64_FORMAT " (only axis %d may differ)", t->name, t->dims[d], d, first->name,
                              first->dims[d], axis);
        }
        dims[axis] += t->dims[axis];
        all_values = all_values && t->value;
    }
    if (!infer_set_output(n, 0, first->dtype, first->rank, dims, error))
        return FALSE;
    if (all_values && infer_value_fits(cx, first->rank, dims)) {
        guint64 numel;
        shape_numel(first->rank, dims, &numel);
        Value *v = value_new(first->dtype, numel);
        gsize outer = row_stride(axis, dims, 0), e = 0;
        for (gsize o = 0; o < outer; o++)
            for (guint k = 0; k < n->inputs->len; k++) {
                Tensor *t = n->inputs->pdata[k];
                gsize chunk = row_stride(t->rank, t->dims, axis);
                for (gsize c = 0; c < chunk; c++, e++) {
                    value_copy_element(v, e, t->value, o * chunk + c);
                }
            }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

gboolean infer_split(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    Tensor *x;
    gint64 axis_attr, num_outputs;
    int axis;
    GArray *split;
    gboolean have;
    guint outs = n->outputs->len;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "axis", 0, &axis_attr, error) ||
        !node_attr_int(n, "num_outputs", 0, &num_outputs, error) ||
        !infer_axis(n, axis_attr, x->rank, &axis, error) ||
        !infer_int_list(n, opset < 13 ? "split" : NULL, opset < 13 ? -1 : 1, "split", &split, &have, error))
        return FALSE;
    gint64 dim = x->dims[axis];
    gint64 *sizes = g_new0(gint64, outs ? outs : 1);
    gboolean ok = TRUE;
    if (have) {
        gint64 sum = 0;
        if (split->len != outs)
            ok = infer_fail(error, n, "'split' has %u sizes for %u outputs", split->len, outs);
        for (guint k = 0; ok && k < outs; k++) {
            sizes[k] = g_array_index(split, gint64, k);
            if (sizes[k] < 0)
                ok = infer_fail(error, n, "split size %" G_GINT64_FORMAT " is negative", sizes[k]);
            else if (sizes[k] > dim - sum) /* checked: hostile sizes must not overflow the sum */
                ok = infer_fail(error, n, "split sizes sum past %" G_GINT64_FORMAT ", the size of axis %d of '%s'", dim,
                                axis, x->name);
            else
                sum += sizes[k];
        }
        if (ok && sum != dim)
            ok = infer_fail(error, n, "split sizes sum to %" G_GINT64_FORMAT " but axis %d of '%s' has %" G_GINT64_FORMAT,
                            sum, axis, x->name, dim);
        g_array_unref(split);
    } else {
        if (num_outputs && num_outputs != (gint64)outs)
            ok = infer_fail(error, n, "num_outputs is %" G_GINT64_FORMAT " but the node has %u outputs", num_outputs,
                            outs);
        else if (outs == 0)
            ok = infer_fail(error, n, "has no outputs");
        else if (!num_outputs && dim % outs)
            ok = infer_fail(error, n, "axis %d of '%s' (%" G_GINT64_FORMAT ") does not split evenly into %u outputs",
                            axis, x->name, dim, outs);
        /* opset 18 with num_outputs: chunks of ceil(dim / n), the last one smaller. */
        gint64 chunk = outs ? (dim + outs - 1) / outs : 0;
        for (guint k = 0; ok && k < outs; k++)
            sizes[k] = MIN(chunk, MAX(dim - chunk * (gint64)k, 0));
    }
    for (guint k = 0; ok && k < outs; k++) {
        gint64 dims[MAX_RANK];
        memcpy(dims, x->dims, x->rank * sizeof(gint64));
        dims[axis] = sizes[k];
        ok = infer_set_output(n, k, x->dtype, x->rank, dims, error);
    }
    g_free(sizes);
    return ok;
}

gboolean infer_scatter(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    return infer_same_as_input(n, 0, 0, FALSE, error);
}
