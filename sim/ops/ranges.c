/* ranges.c — value ranges: for a tensor whose contents only running computes, a sound [lo, hi] of each
 * element (or one for all), propagated through the ops whose arithmetic bounds them (clipped box coordinates,
 * their differences, casts, maxima, shapes of data-dependent tensors). A size computed from such values
 * (Resize's sizes, ConstantOfShape's shape, Expand's, Tile's repeats) is then planned at the top of its range
 * (infer_input_value_most). One table of rows: op name, rule. */
#include "ops/ops-families.h"

#include <math.h>

/* Per-element ranges for tensors of at most this many elements; one range for all past it. */
#define RANGE_ELEMENTS 4096

/* Whether element k of t's plan-time value is exact: not data-dependent, or equal to both probes. */
static gboolean value_exact_at(const Tensor *t, gsize k)
{
    if (!t->value || k >= t->value->n)
        return FALSE;
    if (!t->dynamic)
        return TRUE;
    double v = value_get_f(t->value, k);
    for (int p = 0; p < 2; p++)
        if (!t->probe[p] || k >= t->probe[p]->n || value_get_f(t->probe[p], k) != v)
            return FALSE;
    return TRUE;
}

gboolean infer_range_at(const Tensor *t, gsize k, double *lo, double *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (!t)
        return FALSE;
    if (value_exact_at(t, k)) {
        *lo = *hi = value_get_f(t->value, k);
        return TRUE;
    }
    if (!t->range_lo)
        return FALSE;
    gsize at = t->range_lo->n == 1 ? 0 : k;
    if (at >= t->range_lo->n)
        return FALSE;
    *lo = value_get_f(t->range_lo, at);
    *hi = value_get_f(t->range_hi, at);
    return TRUE;
}

/* The hull of every element's range (-infinity to infinity where nothing is known); FALSE only when t's
 * shape is unknown. */
static gboolean range_hull(const Tensor *t, double *lo, double *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    guint64 n;
    if (!t || !t->shape_known || !shape_numel(t->rank, t->dims, &n))
        return FALSE;
    if (t->range_lo && t->range_lo->n == 1 && !(t->value && !t->dynamic)) {
        infer_range_at(t, 0, lo, hi);
        return TRUE;
    }
    if (n > RANGE_ELEMENTS && !(t->value && !t->dynamic))
        return TRUE;
    *lo = n ? INFINITY : 0; /* nothing to bound: an empty tensor */
    *hi = n ? -INFINITY : 0;
    for (gsize k = 0; k < n; k++) {
        double a, b;
        infer_range_at(t, k, &a, &b);
        *lo = MIN(*lo, a);
        *hi = MAX(*hi, b);
    }
    return TRUE;
}

/* Output k's range: per element when it is small enough and lo/hi are given per element (NULL: hull only). */
static void set_range(Node *n, guint k, const double *lo, const double *hi, gsize count)
{
    Tensor *t = node_output(n, k);
    if (!t || !count || (t->value && !t->dynamic))
        return;
    gboolean bounded = FALSE;
    for (gsize j = 0; j < count; j++) {
        if (isnan(lo[j]) || isnan(hi[j]))
            return; /* arithmetic on unbounded ranges: nothing known */
        bounded = bounded || isfinite(lo[j]) || isfinite(hi[j]);
    }
    if (!bounded)
        return;
    value_free(t->range_lo);
    value_free(t->range_hi);
    t->range_lo = value_new(DT_DOUBLE, count);
    t->range_hi = value_new(DT_DOUBLE, count);
    memcpy(t->range_lo->f, lo, count * sizeof(double));
    memcpy(t->range_hi->f, hi, count * sizeof(double));
}

static void set_hull(Node *n, guint k, double lo, double hi) { set_range(n, k, &lo, &hi, 1); }

static gsize output_count(const Node *n, guint k)
{
    const Tensor *t = node_output(n, k);
    guint64 c;
    return t && t->shape_known && shape_numel(t->rank, t->dims, &c) ? (gsize)c : 0;
}

/* Integer outputs hold whole numbers: the range rounded outward. */
static void whole(const Node *n, double *lo, double *hi)
{
    const Tensor *t = node_output(n, 0);
    if (t && !dtype_is_float(t->dtype)) {
        *lo = floor(*lo);
        *hi = ceil(*hi);
    }
}

typedef void (*BinaryRange)(double alo, double ahi, double blo, double bhi, double *lo, double *hi);

static void add_r(double a, double b, double c, double d, double *lo, double *hi) { *lo = a + c, *hi = b + d; }
static void sub_r(double a, double b, double c, double d, double *lo, double *hi) { *lo = a - d, *hi = b - c; }
static void max_r(double a, double b, double c, double d, double *lo, double *hi) { *lo = MAX(a, c), *hi = MAX(b, d); }
static void min_r(double a, double b, double c, double d, double *lo, double *hi) { *lo = MIN(a, c), *hi = MIN(b, d); }

static void corners(double p[4], double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < 4; k++) {
        if (isnan(p[k])) { /* 0 x infinity: nothing known */
            *lo = -INFINITY;
            *hi = INFINITY;
            return;
        }
        *lo = MIN(*lo, p[k]);
        *hi = MAX(*hi, p[k]);
    }
}

static void mul_r(double a, double b, double c, double d, double *lo, double *hi)
{
    double p[4] = {a * c, a * d, b * c, b * d};
    corners(p, lo, hi);
}

static void div_r(double a, double b, double c, double d, double *lo, double *hi)
{
    if (c <= 0 && d >= 0) { /* the divisor may be zero */
        *lo = -INFINITY;
        *hi = INFINITY;
        return;
    }
    double p[4] = {a / c, a / d, b / c, b / d};
    corners(p, lo, hi);
}

/* Elementwise binary (numpy broadcasting), per element when the output is small and both inputs have
 * per-element ranges, else on hulls. */
static void binary(Node *n, BinaryRange f)
{
    const Tensor *a = node_input(n, 0), *b = node_input(n, 1), *y = node_output(n, 0);
    gsize count = output_count(n, 0);
    if (!a || !b || !y || !count)
        return;
    if (count <= RANGE_ELEMENTS) {
        double *lo = g_new(double, count), *hi = g_new(double, count);
        gboolean ok = TRUE;
        for (gsize k = 0; ok && k < count; k++) {
            double alo, ahi, blo, bhi; /* unknown: -infinity to infinity, which Max and Min still bound */
            infer_range_at(a, infer_broadcast_source(y->rank, y->dims, a->rank, a->dims, k), &alo, &ahi);
            infer_range_at(b, infer_broadcast_source(y->rank, y->dims, b->rank, b->dims, k), &blo, &bhi);
            f(alo, ahi, blo, bhi, &lo[k], &hi[k]);
            whole(n, &lo[k], &hi[k]);
        }
        if (ok)
            set_range(n, 0, lo, hi, count);
        g_free(lo);
        g_free(hi);
        if (ok)
            return;
    }
    double alo, ahi, blo, bhi, lo, hi;
    if (range_hull(a, &alo, &ahi) && range_hull(b, &blo, &bhi)) {
        f(alo, ahi, blo, bhi, &lo, &hi);
        whole(n, &lo, &hi);
        set_hull(n, 0, lo, hi);
    }
}

static void r_add(Node *n) { binary(n, add_r); }
static void r_sub(Node *n) { binary(n, sub_r); }
static void r_mul(Node *n) { binary(n, mul_r); }
static void r_div(Node *n) { binary(n, div_r); }
static void r_max(Node *n) { if (n->inputs->len == 2) binary(n, max_r); }
static void r_min(Node *n) { if (n->inputs->len == 2) binary(n, min_r); }
static void r_bool(Node *n) { set_hull(n, 0, 0, 1); }
static void r_unit(Node *n) { set_hull(n, 0, 0, 1); } /* Sigmoid, Softmax: within [0, 1] */
static void r_tanh(Node *n) { set_hull(n, 0, -1, 1); }

/* A monotone map applied per element (nondecreasing: f(lo), f(hi); nonincreasing: swapped). */
static void unary(Node *n, double (*f)(double), gboolean decreasing)
{
    const Tensor *x = node_input(n, 0);
    gsize count = output_count(n, 0);
    if (!x || !count)
        return;
    gsize per = count <= RANGE_ELEMENTS && x->range_lo && x->range_lo->n == count ? count : count <= RANGE_ELEMENTS && x->value ? count : 1;
    double *lo = g_new(double, per), *hi = g_new(double, per);
    gboolean ok = TRUE;
    for (gsize k = 0; ok && k < per; k++) {
        double a, b;
        if (per == 1)
            ok = range_hull(x, &a, &b);
        else
            infer_range_at(x, k, &a, &b);
        if (ok) {
            lo[k] = decreasing ? f(b) : f(a);
            hi[k] = decreasing ? f(a) : f(b);
            whole(n, &lo[k], &hi[k]);
        }
    }
    if (ok)
        set_range(n, 0, lo, hi, per);
    g_free(lo);
    g_free(hi);
}

static double same(double x) { return x; }
static double neg(double x) { return -x; }
static double relu(double x) { return x > 0 ? x : 0; }
static double sqrt_r(double x) { return x > 0 ? sqrt(x) : 0; }
static void r_copy(Node *n) { unary(n, same, FALSE); }  /* Cast, Identity, Reshape, Squeeze, ...: the same elements */
static void r_neg(Node *n) { unary(n, neg, TRUE); }
static void r_relu(Node *n) { unary(n, relu, FALSE); }
static void r_floor(Node *n) { unary(n, floor, FALSE); }
static void r_ceil(Node *n) { unary(n, ceil, FALSE); }
static void r_exp(Node *n) { unary(n, exp, FALSE); }
static void r_sqrt(Node *n) { unary(n, sqrt_r, FALSE); }

static void r_cast(Node *n)
{
    const Tensor *y = node_output(n, 0);
    if (y && y->dtype == DT_BOOL)
        r_bool(n);
    else
        r_copy(n); /* a float to an integer truncates toward zero: inside the rounded-outward range */
}

/* The hull of every input (data movement that mixes elements: Concat on other axes, Gather, Transpose, ...). */
static void hull_of_inputs(Node *n, guint from, guint to)
{
    double lo = INFINITY, hi = -INFINITY;
    for (guint k = from; k < to && k < n->inputs->len; k++) {
        double a, b;
        const Tensor *t = node_input(n, k);
        if (!t)
            continue;
        if (!range_hull(t, &a, &b))
            return;
        lo = MIN(lo, a);
        hi = MAX(hi, b);
    }
    if (lo <= hi)
        set_hull(n, 0, lo, hi);
}

static void r_data(Node *n) { hull_of_inputs(n, 0, 1); } /* Transpose, Expand, Tile, ...: input 0's */

/* Gather from a vector (shape arithmetic) at exact indices: each picked element's range; else input 0's hull. */
static void r_gather(Node *n)
{
    const Tensor *x = node_input(n, 0), *idx = node_input(n, 1);
    gsize count = output_count(n, 0);
    guint64 m;
    if (x && idx && x->rank == 1 && count && count <= RANGE_ELEMENTS && shape_numel(idx->rank, idx->dims, &m) && m == count) {
        double *lo = g_new(double, count), *hi = g_new(double, count);
        gboolean ok = TRUE;
        for (gsize k = 0; ok && k < count; k++) {
            double a, b;
            ok = infer_range_at(idx, k, &a, &b) && a == b;
            gint64 i = ok ? (gint64)a : 0;
            if (i < 0)
                i += x->dims[0];
            ok = ok && i >= 0 && i < x->dims[0];
            if (ok)
                infer_range_at(x, (gsize)i, &lo[k], &hi[k]);
        }
        if (ok)
            set_range(n, 0, lo, hi, count);
        g_free(lo);
        g_free(hi);
        if (ok)
            return;
    }
    hull_of_inputs(n, 0, 1);
}

/* An exact integer element of input k (a Slice's starts, ends, axes or steps), or FALSE. */
static gboolean exact_int(const Node *n, guint k, gsize j, gint64 *out)
{
    const Tensor *t = n->inputs->len > k ? node_input(n, k) : NULL;
    double a, b;
    if (!t || !infer_range_at(t, j, &a, &b) || a != b || !isfinite(a) || fabs(a) > 9e18)
        return FALSE;
    *out = (gint64)a;
    return TRUE;
}

/* Slice of a vector (shape arithmetic: Shape's dims sliced, then joined with computed sizes) at exact starts, ends
 * and steps: each picked element's range, so a known dim stays known beside a data-dependent one; else input 0's
 * hull. */
static void r_slice(Node *n)
{
    const Tensor *x = node_input(n, 0);
    gsize count = output_count(n, 0);
    gint64 start, end, step = 1, axis = 0;
    if (x && x->rank == 1 && count && count <= RANGE_ELEMENTS && n->inputs->len >= 3 && exact_int(n, 1, 0, &start) &&
        exact_int(n, 2, 0, &end) && (n->inputs->len < 4 || !node_input(n, 3) || exact_int(n, 3, 0, &axis)) &&
        (n->inputs->len < 5 || !node_input(n, 4) || exact_int(n, 4, 0, &step)) && (axis == 0 || axis == -1) &&
        step != 0) {
        gint64 first, taken = ops_runtime_slice_axis(x->dims[0], start, end, step, &first);
        if ((guint64)taken == count) {
            double *lo = g_new(double, count), *hi = g_new(double, count);
            for (gsize at = 0; at < count; at++)
                infer_range_at(x, (gsize)(first + (gint64)at * step), &lo[at], &hi[at]);
            set_range(n, 0, lo, hi, count);
            g_free(lo);
            g_free(hi);
            return;
        }
    }
    hull_of_inputs(n, 0, 1);
}

static void r_split(Node *n) /* every piece: input 0's */
{
    double lo, hi;
    if (range_hull(node_input(n, 0), &lo, &hi))
        for (guint k = 0; k < n->outputs->len; k++)
            set_hull(n, k, lo, hi);
}
static void r_where(Node *n) { hull_of_inputs(n, 1, 3); }

/* Concat: the inputs' elements one after another when joined on the first axis (per element), else the hull. */
static void r_concat(Node *n)
{
    const Tensor *y = node_output(n, 0);
    gint64 axis;
    gsize count = output_count(n, 0);
    if (!y || !count || !node_attr_int(n, "axis", 0, &axis, NULL))
        return;
    gboolean leading = (axis == 0 || axis == -y->rank) && count <= RANGE_ELEMENTS; /* row-major: appended */
    if (!leading) {
        hull_of_inputs(n, 0, n->inputs->len);
        return;
    }
    double *lo = g_new(double, count), *hi = g_new(double, count);
    gsize at = 0;
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < n->inputs->len; k++) {
        const Tensor *x = node_input(n, k);
        guint64 c;
        if (!x || !shape_numel(x->rank, x->dims, &c))
            continue;
        for (gsize j = 0; j < c && at < count; j++, at++)
            infer_range_at(x, j, &lo[at], &hi[at]);
    }
    if (ok && at == count)
        set_range(n, 0, lo, hi, count);
    else
        hull_of_inputs(n, 0, n->inputs->len);
    g_free(lo);
    g_free(hi);
}

/* Reductions: over every element, the extremes of the elements' ranges; over some axes, the hull (sound for
 * Max, Min and Mean; Sum and Prod are not bounded here). */
static void r_reduce(Node *n)
{
    double lo, hi;
    const Tensor *x = node_input(n, 0);
    if (!x || !range_hull(x, &lo, &hi))
        return;
    if (!strcmp(n->op_type, "ReduceMax") || !strcmp(n->op_type, "ReduceMin") || !strcmp(n->op_type, "ReduceMean")) {
        guint64 c;
        gsize count = output_count(n, 0);
        if (count == 1 && shape_numel(x->rank, x->dims, &c) && c <= RANGE_ELEMENTS && c) {
            gboolean is_max = !strcmp(n->op_type, "ReduceMax");
            if (is_max || !strcmp(n->op_type, "ReduceMin")) { /* max of maxima (lo: max of minima) */
                double l = is_max ? -INFINITY : INFINITY, h = l;
                for (gsize k = 0; k < c; k++) {
                    double a, b;
                    infer_range_at(x, k, &a, &b);
                    l = is_max ? MAX(l, a) : MIN(l, a);
                    h = is_max ? MAX(h, b) : MIN(h, b);
                }
                lo = l, hi = h;
            }
        }
        set_hull(n, 0, lo, hi);
    }
}

/* Shape of a data-dependent tensor: a dim equal to both probes is that number, any other at most its plan. */
static void r_shape(Node *n)
{
    const Tensor *x = node_input(n, 0), *y = node_output(n, 0);
    gint64 start = 0, end = 0;
    if (!x || !y || !x->dynamic || !node_attr_int(n, "start", 0, &start, NULL) ||
        !node_attr_int(n, "end", x->rank, &end, NULL))
        return;
    start = CLAMP(start < 0 ? start + x->rank : start, 0, x->rank);
    end = CLAMP(end < 0 ? end + x->rank : end, 0, x->rank);
    if (end <= start)
        return;
    gsize count = (gsize)(end - start);
    double *lo = g_new(double, count), *hi = g_new(double, count);
    for (gsize k = 0; k < count; k++) {
        int d = (int)start + (int)k;
        gboolean exact = x->probe_dims[0] && x->probe_dims[1] && x->probe_dims[0][d] == x->dims[d] &&
                         x->probe_dims[1][d] == x->dims[d];
        lo[k] = exact ? (double)x->dims[d] : 0;
        hi[k] = (double)x->dims[d];
    }
    set_range(n, 0, lo, hi, count);
    g_free(lo);
    g_free(hi);
}

/* Indices into the input: NonZero's, TopK's, ArgMax's. */
static void r_indices(Node *n)
{
    const Tensor *x = node_input(n, 0);
    gint64 most = 0;
    for (int d = 0; x && d < x->rank; d++)
        most = MAX(most, x->dims[d]);
    if (!x)
        return;
    guint k = strcmp(n->op_type, "TopK") ? 0 : 1;
    Tensor *y = node_output(n, k);
    if (!y)
        return;
    double lo = 0, hi = (double)MAX(most - 1, 0);
    if (k == 1) /* TopK's values: the input's */
        hull_of_inputs(n, 0, 1);
    set_range(n, k, &lo, &hi, 1);
}

static void r_clip(Node *n)
{
    double lo, hi, mlo = -INFINITY, mhi = INFINITY, a, b;
    const Tensor *x = node_input(n, 0);
    if (!x)
        return;
    if (n->inputs->len > 1 && node_input(n, 1) && infer_range_at(node_input(n, 1), 0, &a, &b))
        mlo = a;
    if (n->inputs->len > 2 && node_input(n, 2) && infer_range_at(node_input(n, 2), 0, &a, &b))
        mhi = b;
    float fmin, fmax;
    if (node_attr_float(n, "min", -INFINITY, &fmin, NULL) && node_attr_float(n, "max", INFINITY, &fmax, NULL)) {
        mlo = MAX(mlo, fmin);
        mhi = MIN(mhi, fmax);
    }
    if (!range_hull(x, &lo, &hi)) {
        lo = -INFINITY;
        hi = INFINITY;
    }
    lo = MAX(lo, mlo);
    hi = MIN(hi, mhi);
    if (isfinite(lo) || isfinite(hi))
        set_hull(n, 0, MIN(lo, hi), hi);
}

/* IfSelect: each output from either branch. */
static void r_select(Node *n)
{
    guint count = n->outputs->len;
    for (guint k = 0; k < count; k++) {
        double a, b, c, d;
        const Tensor *x = node_input(n, 1 + k), *y = node_input(n, 1 + count + k); /* one absent: never taken */
        if (range_hull(x ? x : y, &a, &b) && range_hull(y ? y : x, &c, &d))
            set_hull(n, k, MIN(a, c), MAX(b, d));
    }
}

static const struct {
    const char *op;
    void (*rule)(Node *n);
} range_rows[] = {
    {"Add", r_add}, {"Sub", r_sub}, {"Mul", r_mul}, {"Div", r_div}, {"Max", r_max}, {"Min", r_min},
    {"Neg", r_neg}, {"Relu", r_relu}, {"Floor", r_floor}, {"Ceil", r_ceil}, {"Round", r_copy}, {"Exp", r_exp},
    {"Sqrt", r_sqrt}, {"Sigmoid", r_unit}, {"Softmax", r_unit}, {"Tanh", r_tanh}, {"Clip", r_clip},
    {"Cast", r_cast}, {"Identity", r_copy}, {"Reshape", r_copy}, {"Flatten", r_copy}, {"Squeeze", r_copy},
    {"Unsqueeze", r_copy}, {"Concat", r_concat}, {"Gather", r_gather}, {"GatherElements", r_data},
    {"GatherND", r_data}, {"Slice", r_slice}, {"Split", r_split}, {"Transpose", r_data}, {"Expand", r_data},
    {"Tile", r_data}, {"Where", r_where}, {"ReduceMax", r_reduce}, {"ReduceMin", r_reduce},
    {"ReduceMean", r_reduce}, {"Shape", r_shape}, {"NonZero", r_indices}, {"TopK", r_indices},
    {"ArgMax", r_indices}, {"ArgMin", r_indices}, {"Equal", r_bool}, {"Less", r_bool}, {"Greater", r_bool},
    {"LessOrEqual", r_bool}, {"GreaterOrEqual", r_bool}, {"Not", r_bool}, {"And", r_bool}, {"Or", r_bool},
    {"Xor", r_bool}, {"IfSelect", r_select}, {"ConcatComputed", r_data},
};

gboolean infer_took_most(InferCtx *cx)
{
    gboolean took = cx->took_most;
    cx->took_most = FALSE;
    if (cx->most_values) /* the values made for the node just inferred */
        g_ptr_array_set_size(cx->most_values, 0);
    return took;
}

gboolean infer_input_value_most(InferCtx *cx, const Node *n, guint k, const char *what, const Value **out,
                                GError **error)
{
    const Tensor *t = node_input(n, k);
    if (!t || t->value)
        return infer_input_value(n, k, what, out, error);
    guint64 count;
    if (!t->shape_known || !shape_numel(t->rank, t->dims, &count) || count > VALUE_MAX_ELEMENTS)
        return infer_input_value(n, k, what, out, error);
    Value *v = value_new(dtype_is_float(t->dtype) ? DT_DOUBLE : DT_INT64, count);
    for (gsize j = 0; j < count; j++) {
        double lo, hi;
        if (!infer_range_at(t, j, &lo, &hi) || !isfinite(hi) || hi > 9e15) {
            value_free(v);
            return infer_fail(error, n, "input '%s' (%s) must be a constant the planner can compute, and it is not: "
                              "it is computed when the model runs, and no upper bound is known for its element %zu",
                              t->name, what, j);
        }
        gboolean point = lo == hi;
        double most = cx->probing == 1 && !point ? hi + 1 : cx->probing == 2 && !point ? 0 : hi;
        if (v->f)
            v->f[j] = most;
        else
            v->i[j] = (gint64)ceil(most);
    }
    if (!cx->most_values)
        cx->most_values = g_ptr_array_new_with_free_func((GDestroyNotify)value_free);
    g_ptr_array_add(cx->most_values, v);
    cx->took_most = TRUE;
    *out = v;
    return TRUE;
}

void ranges_node(Node *n)
{
    static GHashTable *rules;
    static gsize once;
    if (g_once_init_enter(&once)) {
        rules = g_hash_table_new(g_str_hash, g_str_equal);
        for (gsize k = 0; k < G_N_ELEMENTS(range_rows); k++)
            g_hash_table_insert(rules, (gpointer)range_rows[k].op, (gpointer)range_rows[k].rule);
        g_once_init_leave(&once, 1);
    }
    void (*rule)(Node *) = g_hash_table_lookup(rules, n->op_type);
    /* Only downstream of data-dependent sizes, where a size may follow a value (a static graph plans from
     * shapes alone, and ranges on its activations would cost a pass over every small tensor for nothing). */
    gboolean useful = FALSE;
    for (guint k = 0; k < n->inputs->len && !useful; k++) {
        const Tensor *t = node_input(n, k);
        useful = t && (t->dynamic || t->range_lo);
    }
    if (rule && useful)
        rule(n);
}
