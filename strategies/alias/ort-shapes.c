/* ort-shapes.c — the shapes ONNX Runtime knows before running (ort-shapes.h). ORT runs ONNX shape inference
 * when it loads a graph, with no values but those of weights and Constants (no data propagation), and a graph
 * input's symbolic dim (dim_param) stays a symbol only where an op passes it through unchanged: a dim computed
 * from it (a Conv's output width from a symbolic input width, a Concat's sum, a Flatten's product) is unknown.
 * The rules below follow ONNX's operator definitions for the op families the corpus runs; an op without a rule
 * keeps its input's dims when its output has its input's shape (a normalisation, a Softmax), and otherwise knows
 * its output only in numbers, when every input is known in numbers. */
#include "strategies/alias/ort-shapes.h"
#include "ops/ops.h"

#include <string.h>


static const char *const conv_like[] = {"Conv", "ConvTranspose", "FusedConv", "ConvInteger", "QLinearConv", NULL};
static const char *const pool_like[] = {"MaxPool", "AveragePool", "LpPool", NULL};
static const char *const global_pool[] = {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", NULL};

static gboolean one_of(const char *op, const char *const *list)
{
    for (guint k = 0; list[k]; k++)
        if (!strcmp(op, list[k]))
            return TRUE;
    return FALSE;
}

typedef struct {
    gint64 **dims;
    GHashTable *symbols; /* dim_param -> its number + 1 */
} Ctx;

/* A weight or a Constant: a value ORT has when it loads the graph (a weight whose bytes a stripped export
 * lacks counts too: the runtime is given them). */
static gboolean value_at_load(const Tensor *t)
{
    return t->init != NULL || t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT;
}

static guint64 all_bits(int n)
{
    return n >= 64 ? ~G_GUINT64_CONSTANT(0) : (G_GUINT64_CONSTANT(1) << n) - 1;
}

static gint64 *filled(int rank, gint64 v)
{
    gint64 *d = g_new(gint64, MAX(rank, 1));
    for (int k = 0; k < rank; k++)
        d[k] = v;
    return d;
}

static gint64 *numbers(const Tensor *t)
{
    gint64 *d = g_new(gint64, MAX(t->rank, 1));
    for (int k = 0; k < t->rank; k++)
        d[k] = t->dims[k];
    return d;
}

/* Dim i of t as known (ORT_DIM_UNKNOWN past its rank or when nothing is known). */
static gint64 dim_at(const Ctx *c, const Tensor *t, int i)
{
    const gint64 *d = t ? c->dims[t->id] : NULL;
    return d && i >= 0 && i < t->rank ? d[i] : ORT_DIM_UNKNOWN;
}

static gboolean in_numbers(const Ctx *c, const Tensor *t)
{
    if (!t || !c->dims[t->id])
        return FALSE;
    for (int k = 0; k < t->rank; k++)
        if (c->dims[t->id][k] < 0)
            return FALSE;
    return TRUE;
}

static gint64 symbol(Ctx *c, const char *param)
{
    gpointer id = g_hash_table_lookup(c->symbols, param);
    if (!id) {
        id = GUINT_TO_POINTER(g_hash_table_size(c->symbols) + 1);
        g_hash_table_insert(c->symbols, g_strdup(param), id);
    }
    return ORT_DIM_SYMBOL(GPOINTER_TO_UINT(id) - 1);
}

/* What the file declares (a graph input, or value_info), or NULL. */
static gint64 *declared(Ctx *c, const Tensor *t)
{
    const TypeInfo *ti = t->declared;
    if (!ti || ti->rank < 0 || ti->rank != t->rank)
        return NULL;
    gint64 *d = filled(t->rank, ORT_DIM_UNKNOWN);
    for (int k = 0; k < t->rank; k++)
        d[k] = ti->params && ti->params[k] ? symbol(c, ti->params[k]) /* a --dim binds it for us, not for ORT */
               : ti->dims[k] >= 0 ? ti->dims[k] : ORT_DIM_UNKNOWN;
    return d;
}

/* One dim of a broadcast: a number above 1 wins; else the one symbol every other operand has (besides 1s);
 * all 1s give 1; anything else is unknown. */
static gint64 merge(const gint64 *codes, guint n, gint64 number)
{
    gint64 other = 1;
    gboolean mixed = FALSE;
    for (guint k = 0; k < n; k++) {
        if (codes[k] > 1)
            return number;
        if (codes[k] == 1)
            continue;
        if (other == 1)
            other = codes[k];
        else if (other != codes[k])
            mixed = TRUE;
    }
    return mixed || other == ORT_DIM_UNKNOWN ? ORT_DIM_UNKNOWN : other;
}

static gint64 *broadcast(const Ctx *c, const Node *n, const Tensor *y, guint from, guint count)
{
    gint64 *d = filled(y->rank, ORT_DIM_UNKNOWN), codes[16];
    for (int i = 0; i < y->rank; i++) {
        guint m = 0;
        for (guint k = from; k < from + count && k < n->inputs->len && m < G_N_ELEMENTS(codes); k++) {
            const Tensor *x = n->inputs->pdata[k];
            int dx = x ? x->rank - (y->rank - i) : -1; /* right-aligned */
            if (dx >= 0)
                codes[m++] = dim_at(c, x, dx);
        }
        d[i] = merge(codes, m, y->dims[i]);
    }
    return d;
}

/* The axes an op reads (input `input` from the opset that moved them there, else the attribute), normalised
 * against `rank`, as a bit mask; FALSE when they are not known at load. */
static gboolean axes_of(const Node *n, guint input, int rank, guint64 *mask)
{
    *mask = 0;
    const Tensor *a = n->inputs->len > input ? n->inputs->pdata[input] : NULL;
    const GArray *attr = NULL;
    gsize count = 0;
    if (a) {
        if (!value_at_load(a) || !a->value)
            return FALSE;
        count = a->value->n;
    } else if (node_attr_ints(n, "axes", &attr, NULL) && attr) {
        count = attr->len;
    } else {
        return FALSE;
    }
    for (gsize k = 0; k < count; k++) {
        gint64 axis = a ? value_get_i(a->value, k) : g_array_index(attr, gint64, k);
        axis += axis < 0 ? rank : 0;
        if (axis < 0 || axis >= rank || axis >= 64)
            return FALSE;
        *mask |= G_GUINT64_CONSTANT(1) << axis;
    }
    return TRUE;
}

/* The product of some dims as ONNX's inference multiplies them: one dim is itself, numbers multiply, a
 * symbol among several is unknown. */
static gint64 product(const Ctx *c, const Tensor *x, int from, int to, gint64 number)
{
    if (to - from == 1)
        return dim_at(c, x, from);
    for (int k = from; k < to; k++)
        if (dim_at(c, x, k) < 0)
            return ORT_DIM_UNKNOWN;
    return number;
}

/* Output k of n, or NULL when ORT knows nothing of it. */
static gint64 *infer_output(Ctx *c, const Node *n, guint k, const Tensor *y)
{
    const char *op = n->op_type;
    const Tensor *x = n->inputs->len ? n->inputs->pdata[0] : NULL;
    guint values = n->op ? n->op->shape_inputs : 0;
    if (y->dynamic) /* a size only running knows (NonZero's rows, and what follows from them) */
        return NULL;
    for (guint i = 0; i < n->inputs->len && i < 32; i++) {
        const Tensor *in = n->inputs->pdata[i];
        if (in && (values >> i & 1) && !value_at_load(in))
            return filled(y->rank, ORT_DIM_UNKNOWN); /* a computed shape, size or count */
    }
    if (!x)
        return numbers(y); /* a source: Constant, ConstantOfShape of a weight, Range of constants */
    gint64 *d = NULL;
    if ((n->op && n->op->elementwise) || !strcmp(op, "Where")) { /* Where broadcasts its three inputs too */
        d = broadcast(c, n, y, 0, n->inputs->len);
    } else if (!strcmp(op, "Expand")) {
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        const Tensor *s = n->inputs->pdata[1];
        for (int i = 0; i < y->rank && s->value; i++) {
            int dx = x->rank - (y->rank - i), ds = (int)s->value->n - (y->rank - i);
            gint64 codes[2];
            guint m = 0;
            if (dx >= 0)
                codes[m++] = dim_at(c, x, dx);
            if (ds >= 0)
                codes[m++] = value_get_i(s->value, (gsize)ds);
            d[i] = merge(codes, m, y->dims[i]);
        }
    } else if (one_of(op, conv_like) || one_of(op, pool_like)) {
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        d[0] = dim_at(c, x, 0);
        if (y->rank > 1)
            d[1] = one_of(op, pool_like) ? dim_at(c, x, 1) : y->dims[1];
        for (int i = 2; i < y->rank; i++)
            d[i] = dim_at(c, x, i) >= 0 ? y->dims[i] : ORT_DIM_UNKNOWN;
    } else if (one_of(op, global_pool)) {
        d = filled(y->rank, 1);
        for (int i = 0; i < 2 && i < y->rank; i++)
            d[i] = dim_at(c, x, i);
    } else if (!strcmp(op, "MatMul") && n->inputs->len == 2 && x->rank >= 2 && ((Tensor *)n->inputs->pdata[1])->rank >= 2) {
        const Tensor *b = n->inputs->pdata[1];
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        for (int i = 0; i < y->rank - 2; i++) {
            gint64 codes[2];
            guint m = 0;
            int da = x->rank - 2 - (y->rank - 2 - i), db = b->rank - 2 - (y->rank - 2 - i);
            if (da >= 0)
                codes[m++] = dim_at(c, x, da);
            if (db >= 0)
                codes[m++] = dim_at(c, b, db);
            d[i] = merge(codes, m, y->dims[i]);
        }
        d[y->rank - 2] = dim_at(c, x, x->rank - 2);
        d[y->rank - 1] = dim_at(c, b, b->rank - 1);
    } else if (!strcmp(op, "Gemm") && n->inputs->len >= 2 && x->rank == 2 && y->rank == 2) {
        gint64 ta = 0, tb = 0;
        node_attr_int(n, "transA", 0, &ta, NULL);
        node_attr_int(n, "transB", 0, &tb, NULL);
        d = filled(2, ORT_DIM_UNKNOWN);
        d[0] = dim_at(c, x, ta ? 1 : 0);
        d[1] = dim_at(c, n->inputs->pdata[1], tb ? 0 : 1);
    } else if (!strcmp(op, "Transpose")) {
        const GArray *perm = NULL;
        node_attr_ints(n, "perm", &perm, NULL);
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        for (int i = 0; i < y->rank; i++)
            d[i] = dim_at(c, x, perm && (guint)i < perm->len ? (int)g_array_index(perm, gint64, i) : x->rank - 1 - i);
    } else if (!strcmp(op, "Reshape")) {
        const Tensor *s = n->inputs->pdata[1];
        gint64 allowzero = 0;
        node_attr_int(n, "allowzero", 0, &allowzero, NULL);
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        for (int i = 0; s->value && i < y->rank && (gsize)i < s->value->n; i++) {
            gint64 v = value_get_i(s->value, (gsize)i);
            d[i] = v > 0 ? v : v == 0 && !allowzero ? dim_at(c, x, i) : v == 0 ? 0 : in_numbers(c, x) ? y->dims[i]
                                                                                                        : ORT_DIM_UNKNOWN;
        }
    } else if (!strcmp(op, "Flatten") && y->rank == 2) {
        gint64 axis = 1;
        node_attr_int(n, "axis", 1, &axis, NULL);
        axis += axis < 0 ? x->rank : 0;
        d = filled(2, ORT_DIM_UNKNOWN);
        d[0] = axis == 0 ? 1 : product(c, x, 0, (int)axis, y->dims[0]);
        d[1] = product(c, x, (int)axis, x->rank, y->dims[1]);
    } else if (!strcmp(op, "Unsqueeze")) {
        guint64 axes;
        if (axes_of(n, 1, y->rank, &axes)) {
            d = filled(y->rank, ORT_DIM_UNKNOWN);
            for (int i = 0, from = 0; i < y->rank; i++)
                d[i] = axes >> i & 1 ? 1 : dim_at(c, x, from++);
        }
    } else if (!strcmp(op, "Squeeze")) {
        guint64 axes;
        if (axes_of(n, 1, x->rank, &axes)) {
            d = filled(y->rank, ORT_DIM_UNKNOWN);
            for (int i = 0, to = 0; i < x->rank && to < y->rank; i++)
                if (!(axes >> i & 1))
                    d[to++] = dim_at(c, x, i);
        }
    } else if (!strcmp(op, "Gather") && n->inputs->len == 2) {
        const Tensor *idx = n->inputs->pdata[1];
        gint64 axis = 0;
        node_attr_int(n, "axis", 0, &axis, NULL);
        axis += axis < 0 ? x->rank : 0;
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        int o = 0;
        for (int i = 0; i < axis && o < y->rank; i++)
            d[o++] = dim_at(c, x, i);
        for (int i = 0; idx && i < idx->rank && o < y->rank; i++)
            d[o++] = dim_at(c, idx, i);
        for (int i = (int)axis + 1; i < x->rank && o < y->rank; i++)
            d[o++] = dim_at(c, x, i);
    } else if (!strcmp(op, "Concat")) {
        gint64 axis = 0;
        node_attr_int(n, "axis", 0, &axis, NULL);
        axis += axis < 0 ? y->rank : 0;
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        for (int i = 0; i < y->rank; i++) { /* the joined axis adds up; another axis is any input's, a number first */
            gboolean all_numbers = TRUE;
            gint64 code = dim_at(c, x, i);
            for (guint j = 0; j < n->inputs->len; j++) {
                gint64 v = dim_at(c, n->inputs->pdata[j], i);
                all_numbers = all_numbers && v >= 0;
                code = code < 0 && v >= 0 ? v : code;
            }
            d[i] = i == axis ? (all_numbers ? y->dims[i] : ORT_DIM_UNKNOWN) : code;
        }
    } else if (!strcmp(op, "Split")) {
        gint64 axis = 0;
        node_attr_int(n, "axis", 0, &axis, NULL);
        axis += axis < 0 ? x->rank : 0;
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        for (int i = 0; i < y->rank; i++)
            d[i] = i == axis ? (dim_at(c, x, i) >= 0 ? y->dims[i] : ORT_DIM_UNKNOWN) : dim_at(c, x, i);
    } else if (!strcmp(op, "Slice") && y->rank == x->rank) {
        guint64 axes = 0;
        if (!axes_of(n, 3, x->rank, &axes)) /* no axes: the first len(starts) dims */
            axes = n->inputs->len > 1 && ((Tensor *)n->inputs->pdata[1])->value
                       ? all_bits((int)((Tensor *)n->inputs->pdata[1])->value->n) : ~G_GUINT64_CONSTANT(0);
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        for (int i = 0; i < y->rank; i++)
            d[i] = i < 64 && (axes >> i & 1) ? (dim_at(c, x, i) >= 0 ? y->dims[i] : ORT_DIM_UNKNOWN) : dim_at(c, x, i);
    } else if (!strncmp(op, "Reduce", 6)) {
        gint64 keep = 1;
        node_attr_int(n, "keepdims", 1, &keep, NULL);
        guint64 axes;
        if (!axes_of(n, 1, x->rank, &axes))
            axes = n->inputs->len > 1 ? 0 : ~G_GUINT64_CONSTANT(0); /* none given: every axis */
        d = filled(y->rank, ORT_DIM_UNKNOWN);
        for (int i = 0, o = 0; i < x->rank && o < y->rank; i++) {
            gboolean reduced = i >= 64 || (axes >> i & 1);
            if (!reduced || keep)
                d[o++] = reduced ? 1 : dim_at(c, x, i);
        }
    } else if (!strcmp(op, "Shape") || !strcmp(op, "Size")) {
        d = numbers(y);
    }
    if (!d) { /* no rule: the input's dims where the output has the input's shape, else numbers or nothing */
        gboolean same = y->rank == x->rank && !memcmp(y->dims, x->dims, sizeof(gint64) * (gsize)MAX(y->rank, 0));
        gboolean numbers_in = TRUE;
        for (guint i = 0; i < n->inputs->len; i++)
            numbers_in = numbers_in && (!n->inputs->pdata[i] || in_numbers(c, n->inputs->pdata[i]));
        d = numbers_in ? numbers(y) : same && c->dims[x->id] ? g_memdup2(c->dims[x->id], sizeof(gint64) * MAX(y->rank, 1))
                                                             : NULL;
    }
    (void)k;
    return d;
}

OrtShapes *ort_shapes_infer(const Graph *g, const GPtrArray *schedule)
{
    OrtShapes *s = g_new0(OrtShapes, 1);
    s->n = g->tensors->len;
    s->dims = g_new0(gint64 *, s->n + 1);
    Ctx c = {s->dims, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
    for (guint k = 0; k < s->n; k++) {
        const Tensor *t = g->tensors->pdata[k];
        if (value_at_load(t))
            s->dims[k] = numbers(t);
        else if (t->is_graph_input) {
            gint64 *decl = declared(&c, t);
            s->dims[k] = decl ? decl : numbers(t);
        }
    }
    for (guint step = 0; step < schedule->len; step++) {
        const Node *n = schedule->pdata[step];
        for (guint k = 0; k < n->outputs->len; k++) {
            const Tensor *y = n->outputs->pdata[k];
            if (!y || s->dims[y->id])
                continue;
            gint64 *d = infer_output(&c, n, k, y), *decl = declared(&c, y);
            for (int i = 0; d && decl && i < y->rank; i++) /* value_info fills what inference leaves unknown */
                if (d[i] == ORT_DIM_UNKNOWN)
                    d[i] = decl[i];
            s->dims[y->id] = d ? d : decl;
            if (d)
                g_free(decl);
        }
    }
    g_hash_table_unref(c.symbols);
    return s;
}

void ort_shapes_free(OrtShapes *s)
{
    if (!s)
        return;
    for (guint k = 0; k < s->n; k++)
        g_free(s->dims[k]);
    g_free(s->dims);
    g_free(s);
}

gboolean ort_shapes_complete(const OrtShapes *s, const Tensor *t)
{
    const gint64 *d = s->dims[t->id];
    if (!d)
        return FALSE;
    for (int k = 0; k < t->rank; k++)
        if (d[k] == ORT_DIM_UNKNOWN)
            return FALSE;
    return TRUE;
}

gboolean ort_shapes_equal(const OrtShapes *s, const Tensor *a, const Tensor *b)
{
    return ort_shapes_complete(s, a) && ort_shapes_complete(s, b) && a->rank == b->rank &&
           !memcmp(s->dims[a->id], s->dims[b->id], sizeof(gint64) * (gsize)MAX(a->rank, 0));
}
