/* ops-elementwise.c — shape inference and constant folding for elementwise ops: unary maps, numpy-
 * broadcasting n-ary ops and comparisons, Where, Cast/CastLike, Dropout. */
#include "ops/ops-families.h"

#include <math.h>

static DType out_dtype(const OpInfo *op, DType in)
{
    return op->fixed_out_dtype != DT_UNDEFINED ? op->fixed_out_dtype : in;
}

gboolean infer_unary(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)opset;
    Tensor *x;
    if (!infer_input(n, 0, &x, error) || !infer_set_output(n, 0, out_dtype(op, x->dtype), x->rank, x->dims, error))
        return FALSE;
    if (x->value && op->unary) {
        Value *v = value_new(out_dtype(op, x->dtype), x->value->n);
        for (gsize k = 0; k < v->n; k++)
            value_set_f(v, k, op->unary(value_get_f(x->value, k)));
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

/* Folds out = op(in[0], in[1], ...) left to right, broadcasting every input to the output shape. */
static void fold_nary(InferCtx *cx, const OpInfo *op, Node *n, int rank, const gint64 *dims, DType dtype)
{
    guint count = n->inputs->len;
    DType compute = ((Tensor *)n->inputs->pdata[0])->dtype;
    for (guint k = 0; k < count; k++) {
        Tensor *t = n->inputs->pdata[k];
        if (!t->value)
            return;
    }
    if (!op->binary || !infer_value_fits(cx, rank, dims))
        return;
    guint64 numel;
    shape_numel(rank, dims, &numel);
    gboolean integer = !dtype_is_float(compute) && op->binary_int;
    Value *v = value_new(dtype, numel);
    for (gsize e = 0; e < numel; e++) {
        Tensor *t0 = n->inputs->pdata[0];
        gsize s0 = infer_broadcast_source(rank, dims, t0->rank, t0->dims, e);
        gint64 acc_i = value_get_i(t0->value, s0);
        double acc_f = value_get_f(t0->value, s0);
        for (guint k = 1; k < count; k++) {
            Tensor *t = n->inputs->pdata[k];
            gsize s = infer_broadcast_source(rank, dims, t->rank, t->dims, e);
            if (integer)
                acc_i = op->binary_int(acc_i, value_get_i(t->value, s));
            else
                acc_f = op->binary(acc_f, value_get_f(t->value, s));
        }
        if (integer)
            value_set_i(v, e, acc_i);
        else
            value_set_f(v, e, acc_f);
    }
    infer_set_value(n, 0, v);
}

gboolean infer_nary(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)opset;
    Tensor *first;
    if (!infer_input(n, 0, &first, error))
        return FALSE;
    int rank = first->rank;
    gint64 dims[MAX_RANK];
    memcpy(dims, first->dims, rank * sizeof(gint64));
    for (guint k = 1; k < n->inputs->len; k++) {
        Tensor *t;
        gint64 next[MAX_RANK];
        int next_rank;
        if (!infer_input(n, k, &t, error) ||
            !infer_broadcast(n, rank, dims, t->rank, t->dims, &next_rank, next, error))
            return FALSE;
        rank = next_rank;
        memcpy(dims, next, rank * sizeof(gint64));
    }
    DType dtype = out_dtype(op, first->dtype);
    if (!infer_set_output(n, 0, dtype, rank, dims, error))
        return FALSE;
    fold_nary(cx, op, n, rank, dims, dtype);
    return TRUE;
}

gboolean infer_where(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *c, *x, *y;
    gint64 d1[MAX_RANK], d2[MAX_RANK];
    int r1, r2;
    if (!infer_input(n, 0, &c, error) || !infer_input(n, 1, &x, error) || !infer_input(n, 2, &y, error) ||
        !infer_broadcast(n, c->rank, c->dims, x->rank, x->dims, &r1, d1, error) ||
        !infer_broadcast(n, r1, d1, y->rank, y->dims, &r2, d2, error) ||
        !infer_set_output(n, 0, x->dtype, r2, d2, error))
        return FALSE;
    if (c->value && x->value && y->value && infer_value_fits(cx, r2, d2)) {
        guint64 numel;
        shape_numel(r2, d2, &numel);
        Value *v = value_new(x->dtype, numel);
        for (gsize e = 0; e < numel; e++) {
            gboolean pick_x = value_get_i(c->value, infer_broadcast_source(r2, d2, c->rank, c->dims, e)) != 0;
            Tensor *src = pick_x ? x : y;
            gsize s = infer_broadcast_source(r2, d2, src->rank, src->dims, e);
            value_copy_element(v, e, src->value, s);
        }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

static gboolean set_cast(Node *n, Tensor *x, DType to, GError **error)
{
    if (!infer_set_output(n, 0, to, x->rank, x->dims, error))
        return FALSE;
    if (x->value) {
        Value *v = value_new(to, x->value->n);
        for (gsize k = 0; k < v->n; k++) {
            if (dtype_is_float(x->value->dtype))
                value_set_f(v, k, x->value->f[k]);
            else
                value_set_i(v, k, x->value->i[k]);
        }
        infer_set_value(n, 0, v);
    }
    return TRUE;
}

gboolean infer_cast(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    gint64 to;
    if (!infer_input(n, 0, &x, error) || !node_attr_int(n, "to", 0, &to, error))
        return FALSE;
    if (!dtype_is_valid(to))
        return infer_fail(error, n, "attribute 'to' = %" G_GINT64_FORMAT " is not an ONNX element type", to);
    return set_cast(n, x, (DType)to, error);
}

gboolean infer_cast_like(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x, *like;
    return infer_input(n, 0, &x, error) && infer_input(n, 1, &like, error) && set_cast(n, x, like->dtype, error);
}

gboolean infer_dropout(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    Tensor *x;
    return infer_input(n, 0, &x, error) && infer_same_as_input(n, 0, 0, TRUE, error) &&
           infer_set_output(n, 1, DT_BOOL, x->rank, x->dims, error);
}
