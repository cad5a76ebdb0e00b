/* shape.c — the shape-inference driver: bind symbolic dims, seed inputs and initializers, walk the
 * topological order calling each op's row, check results against the file's value_info. */
#include "ops/shape.h"
#include "ops/infer.h"
#include "ops/op-schema.h"
#include "ops/ops.h"
#include "ops/ops-families.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void shape_options_init(ShapeOptions *o)
{
    memset(o, 0, sizeof(*o));
    o->dims = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    o->bounds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

void shape_options_clear(ShapeOptions *o)
{
    if (o->dims)
        g_hash_table_unref(o->dims);
    if (o->bounds)
        g_hash_table_unref(o->bounds);
    o->dims = NULL;
    o->bounds = NULL;
}

/* NAME (spec up to eq) = v into table; a name given twice is refused (the last would win silently, while the
 * report's row records both). */
static gboolean add_named(GHashTable *table, const char *flag, const char *spec, const char *eq, gint64 v,
                          GError **error)
{
    char *name = g_strndup(spec, eq - spec);
    if (g_hash_table_contains(table, name)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s names '%s' twice", flag, name);
        g_free(name);
        return FALSE;
    }
    gint64 *boxed = g_new(gint64, 1);
    *boxed = v;
    g_hash_table_insert(table, name, boxed);
    return TRUE;
}

gboolean shape_options_add_bound(ShapeOptions *o, const char *spec, GError **error)
{
    const char *eq = strrchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        char *shown = g_strescape(spec, NULL);
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--bound '%s' is not NAME=MAX", shown);
        g_free(shown);
        return FALSE;
    }
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (*end || errno || v < 0) {
        char *shown = g_strescape(spec, NULL);
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--bound '%s': MAX must be a non-negative integer", shown);
        g_free(shown);
        return FALSE;
    }
    return add_named(o->bounds, "--bound", spec, eq, v, error);
}

gboolean shape_options_add_dim(ShapeOptions *o, const char *spec, GError **error)
{
    const char *eq = strrchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s' is not NAME=VALUE", spec);
        return FALSE;
    }
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (*end || errno || v <= 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s': VALUE must be a positive integer", spec);
        return FALSE;
    }
    return add_named(o->dims, "--dim", spec, eq, v, error);
}

/* Declared types take the bound values of their symbolic dims (the names stay, for writing back).
 * Every symbolic name met goes into seen, so a --dim naming none of them can be refused. */
static void bind_declared(Graph *g, const ShapeOptions *o, GHashTable *seen)
{
    for (guint k = 0; k < g->tensors->len; k++) {
        TypeInfo *t = ((Tensor *)g->tensors->pdata[k])->declared;
        for (int d = 0; t && t->params && d < t->rank; d++) {
            if (!t->params[d])
                continue;
            g_hash_table_add(seen, t->params[d]);
            const gint64 *v = g_hash_table_lookup(o->dims, t->params[d]);
            if (v)
                t->dims[d] = *v;
        }
    }
    for (guint k = 0; k < g->nodes->len; k++) {
        Node *n = g->nodes->pdata[k];
        for (guint a = 0; a < n->attrs->len; a++) {
            Attr *attr = n->attrs->pdata[a];
            if (attr->g)
                bind_declared(attr->g, o, seen);
            for (guint j = 0; attr->graphs && j < attr->graphs->len; j++)
                bind_declared(attr->graphs->pdata[j], o, seen);
        }
    }
}

static gint compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Binds every --dim; a name the graph never declares is an error (a typo would otherwise be a silent
 * no-op and the report would show a binding that changed nothing). */
static gboolean bind_dims(Graph *g, const ShapeOptions *o, GError **error)
{
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    bind_declared(g, o, seen);
    GPtrArray *unknown = g_ptr_array_new();
    GHashTableIter it;
    gpointer name;
    g_hash_table_iter_init(&it, o->dims);
    while (g_hash_table_iter_next(&it, &name, NULL))
        if (!g_hash_table_contains(seen, name))
            g_ptr_array_add(unknown, name);
    gboolean ok = unknown->len == 0;
    if (!ok) {
        g_ptr_array_sort(unknown, compare_strings);
        GPtrArray *known = g_ptr_array_new();
        g_hash_table_iter_init(&it, seen);
        while (g_hash_table_iter_next(&it, &name, NULL))
            g_ptr_array_add(known, name);
        g_ptr_array_sort(known, compare_strings);
        g_ptr_array_add(unknown, NULL);
        g_ptr_array_add(known, NULL);
        char *u = g_strjoinv(", ", (char **)unknown->pdata);
        char *k = g_strjoinv(", ", (char **)known->pdata);
        g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "--dim %s: the graph has no symbolic dimension %s (%s%s)",
                    u, unknown->len > 2 ? "by these names" : "of that name", known->len > 1 ? "it has: " : "it has none", k);
        g_free(u);
        g_free(k);
        g_ptr_array_unref(known);
    }
    g_ptr_array_unref(unknown);
    g_hash_table_unref(seen);
    return ok;
}

/* Whether every dimension of a declared type is a size. */
static gboolean declared_static(const TypeInfo *d)
{
    for (int a = 0; a < d->rank; a++)
        if (d->dims[a] <= 0)
            return FALSE;
    return TRUE;
}

/* The graph inputs' symbolic dimensions that no --dim bound, each name once in input order; with `where`,
 * name -> GPtrArray of "input 'x' dim 1" places. */
static void collect_unbound(const Graph *g, GPtrArray *names, GHashTable *where)
{
    for (guint k = 0; k < g->inputs->len; k++) {
        const Tensor *t = g->inputs->pdata[k];
        const TypeInfo *d = t->declared;
        for (int a = 0; !t->init && d && d->params && a < d->rank; a++) {
            const char *name = d->params[a];
            if (!name || d->dims[a] >= 0)
                continue;
            gboolean seen = FALSE;
            for (guint j = 0; j < names->len && !seen; j++)
                seen = !strcmp(names->pdata[j], name);
            if (!seen)
                g_ptr_array_add(names, (gpointer)name);
            if (!where)
                continue;
            GPtrArray *list = g_hash_table_lookup(where, name);
            if (!list) {
                list = g_ptr_array_new_with_free_func(g_free);
                g_hash_table_insert(where, (gpointer)name, list);
            }
            g_ptr_array_add(list, g_strdup_printf("input '%s' dim %d", t->name, a));
        }
    }
}

char **shape_unbound_dims(const Graph *g)
{
    GPtrArray *names = g_ptr_array_new();
    collect_unbound(g, names, NULL);
    char **out = g_new0(char *, names->len + 1);
    for (guint k = 0; k < names->len; k++)
        out[k] = g_strdup(names->pdata[k]);
    g_ptr_array_unref(names);
    return out;
}

/* Every graph input needs a type and a shape whose dimensions are sizes or names; all unbound names are
 * reported at once (unless partial: then the inputs with unbound dimensions stay without a shape). */
static gboolean seed_inputs(Graph *g, gboolean partial, GError **error)
{
    for (guint k = 0; k < g->inputs->len; k++) {
        const Tensor *t = g->inputs->pdata[k];
        const TypeInfo *d = t->declared;
        if (t->init)
            continue; /* an initializer listed as an input too (IR < 4): a weight */
        if (!d || d->rank < 0 || d->dtype == DT_UNDEFINED) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "graph input '%s' has no %s in the file", t->name,
                        !d || d->dtype == DT_UNDEFINED ? "element type" : "shape");
            return FALSE;
        }
        for (int a = 0; a < d->rank; a++) {
            if (d->dims[a] == 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE,
                            "graph input '%s' dimension %d is 0 (empty inputs are not planned)", t->name, a);
                return FALSE;
            }
            if (d->dims[a] < 0 && !(d->params && d->params[a])) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE,
                            "graph input '%s' dimension %d has neither a size nor a name", t->name, a);
                return FALSE;
            }
        }
    }
    GPtrArray *names = g_ptr_array_new();
    GHashTable *where = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
    collect_unbound(g, names, where);
    gboolean ok = TRUE;
    if (names->len && !partial) {
        GString *unbound = g_string_new(NULL);
        for (guint k = 0; k < names->len; k++) {
            GPtrArray *list = g_hash_table_lookup(where, names->pdata[k]);
            g_string_append_printf(unbound, "%s%s (", k ? ", " : "", (const char *)names->pdata[k]);
            for (guint j = 0; j < list->len; j++)
                g_string_append_printf(unbound, "%s%s", j ? ", " : "", (const char *)list->pdata[j]);
            g_string_append_c(unbound, ')');
        }
        g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE,
                    "unbound symbolic dimensions: %s; bind each with --dim NAME=VALUE", unbound->str);
        g_string_free(unbound, TRUE);
        ok = FALSE;
    }
    for (guint k = 0; ok && k < g->inputs->len; k++) {
        Tensor *t = g->inputs->pdata[k];
        if (!t->init && declared_static(t->declared))
            ok = infer_set_shape(t, t->declared->dtype, t->declared->rank, t->declared->dims, FALSE, error);
    }
    g_ptr_array_unref(names);
    g_hash_table_unref(where);
    return ok;
}

/* The values held at plan time, in elements, against SHAPE_VALUES_MAX_ELEMENTS: each value is small
 * (VALUE_MAX_ELEMENTS), but a small model can ask for tens of thousands of them (20,000 folded Ranges of
 * 65,536 elements were 10 GB). A value past the total is not kept: its tensor is planned like any other, and
 * an op that needed its contents says so (see shape_infer). */
typedef struct {
    InferCtx *cx;  /* whose total the values are taken from */
    gboolean full; /* a value was dropped */
} ValueBudget;

static void value_budget_charge(ValueBudget *b, Tensor *t)
{
    if (!t || !t->value || infer_values_take(b->cx, t->value->n))
        return;
    value_free(t->value);
    t->value = NULL;
    b->full = TRUE;
}

/* Initializers from number `from` on (those an inlined branch brought in come last). */
static gboolean seed_initializers(Graph *g, guint from, ValueBudget *budget, GError **error)
{
    for (guint k = from; k < g->initializers->len; k++) {
        Tensor *t = g->initializers->pdata[k];
        if (!infer_set_shape(t, t->init->dtype, t->init->rank, t->init->dims, TRUE, error)) {
            g_prefix_error(error, "initializer: ");
            return FALSE;
        }
        t->value = tensor_data_value(t->init);
        value_budget_charge(budget, t);
    }
    return TRUE;
}

static gboolean check_arity(const OpInfo *op, const Node *n, GError **error)
{
    guint ni = n->inputs->len, no = n->outputs->len;
    char most[32] = "any number";
    if (op->max_inputs >= 0)
        g_snprintf(most, sizeof most, "%d", op->max_inputs);
    if ((int)ni < op->min_inputs || (op->max_inputs >= 0 && (int)ni > op->max_inputs))
        return infer_fail(error, n, "has %u inputs; %s takes %d to %s", ni, op->name, op->min_inputs, most);
    for (int k = 0; k < op->min_inputs; k++)
        if (!node_input(n, k))
            return infer_fail(error, n, "required input %d is empty", k);
    if (op->max_outputs >= 0)
        g_snprintf(most, sizeof most, "%d", op->max_outputs);
    else
        g_strlcpy(most, "any number", sizeof most);
    if ((int)no < op->min_outputs || (op->max_outputs >= 0 && (int)no > op->max_outputs))
        return infer_fail(error, n, "has %u outputs; %s gives %d to %s", no, op->name, op->min_outputs, most);
    for (int k = 0; k < op->min_outputs; k++)
        if (!node_output(n, k))
            return infer_fail(error, n, "required output %d is empty (an empty name omits an optional output)", k);
    return TRUE;
}

/* Unknown ops (with --allow-unknown-ops) take their outputs from the file's declared types. */
static gboolean shapes_from_file(Node *n, GError **error)
{
    for (guint k = 0; k < n->outputs->len; k++) {
        Tensor *t = n->outputs->pdata[k];
        if (!t)
            continue;
        const TypeInfo *d = t->declared;
        gboolean ok = d && d->rank >= 0 && d->dtype != DT_UNDEFINED;
        for (int a = 0; ok && d && a < d->rank; a++)
            ok = d->dims[a] >= 0;
        if (!ok && !d) /* the export wrote no value_info for it at all (torch's exports write none) */
            return infer_fail(error, n, "unknown op '%s': output '%s' has no value_info entry at all, so its shape "
                              "cannot be taken from the file (add one, e.g. with onnx.shape_inference, or leave the op "
                              "out)", n->op_type, t->name);
        if (!ok)
            return infer_fail(error, n, "unknown op '%s': output '%s' has no static shape in value_info", n->op_type,
                              t->name);
        if (!infer_set_output(n, k, d->dtype, d->rank, d->dims, error))
            return FALSE;
    }
    return TRUE;
}

static gboolean check_declared(const Node *n, const Tensor *t, GError **error)
{
    const TypeInfo *d = t->declared;
    if (!d)
        return TRUE;
    if (d->sequence)
        return infer_fail(error, n, "output '%s' is declared a sequence of %s, which only the sequence ops make at "
                          "plan time (a Loop that builds one is unrolled when its trip count is known before running)",
                          t->name, dtype_name(d->dtype));
    gboolean same = d->dtype == DT_UNDEFINED || d->dtype == t->dtype;
    if (d->rank >= 0) { /* a data-dependent tensor's dims are bounds: the file's are one run's sizes */
        same = same && d->rank == t->rank;
        for (int a = 0; same && a < d->rank && !t->dynamic; a++)
            same = d->dims[a] < 0 || d->dims[a] == t->dims[a];
    }
    if (same)
        return TRUE;
    char *inferred = graph_dims_to_string(t->rank, t->dims);
    char *declared = d->rank >= 0 ? graph_dims_to_string(d->rank, d->dims) : g_strdup("(no shape)");
    g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE,
                "node %s: tensor '%s' is inferred as %s %s but the file declares %s %s (-1: symbolic)", n->label,
                t->name, dtype_name(t->dtype), inferred, dtype_name(d->dtype), declared);
    g_free(inferred);
    g_free(declared);
    return FALSE;
}

static void probe_node(InferCtx *cx, Node *n, gint64 opset);

/* n->op is set (op_lookup) by the caller. */
static gboolean infer_node(InferCtx *cx, Node *n, gint64 opset, gboolean allow_unknown, GError **error)
{
    const OpInfo *op = n->op;
    if (!op) {
        if (allow_unknown) /* an ONNX op sim has no row for (GridSample) still passes ONNX's door */
            return op_schema_check(n, opset, FALSE, error) && shapes_from_file(n, error) &&
                   op_schema_check(n, opset, TRUE, error);
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "node %s: unknown op '%s'%s%s%s (--allow-unknown-ops takes its output shapes from value_info)",
                    n->label, n->op_type, *n->domain ? " in domain '" : "", n->domain, *n->domain ? "'" : "");
        return FALSE;
    }
    infer_took_most(cx);
    if (!op_schema_check(n, opset, FALSE, error) || !check_arity(op, n, error) || !op->infer(cx, op, n, opset, error) ||
        !op_schema_check(n, opset, TRUE, error))
        return FALSE;
    if (infer_took_most(cx)) /* sizes from values only running computes, planned at the top of their range */
        for (guint k = 0; k < n->outputs->len; k++) {
            Tensor *t = n->outputs->pdata[k];
            if (t && !t->bound_why) {
                t->dynamic = TRUE;
                t->bound_why = "its sizes follow values computed when it runs: planned at the top of their range";
                t->bound_axis = 0;
            }
        }
    /* what is computed from data-dependent tensors is data-dependent too (its shape, or its value) */
    gboolean dynamic = FALSE;
    for (guint k = 0; k < n->inputs->len; k++)
        dynamic = dynamic || infer_input_dynamic(n, k);
    for (guint k = 0; k < n->implicit_inputs->len; k++)
        dynamic = dynamic || ((const Tensor *)n->implicit_inputs->pdata[k])->dynamic;
    for (guint k = 0; k < n->outputs->len; k++) {
        Tensor *t = n->outputs->pdata[k];
        if (!t)
            continue;
        t->dynamic = t->dynamic || dynamic;
        if (!t->shape_known)
            return infer_fail(error, n, "output '%s' got no shape", t->name);
        if (op->plan_constant && t->kind == TENSOR_INTERMEDIATE)
            t->kind = TENSOR_CONSTANT;
        if (!check_declared(n, t, error))
            return FALSE;
    }
    probe_node(cx, n, opset);
    ranges_node(n);
    return TRUE;
}

static gboolean inputs_known(const Node *n)
{
    for (guint k = 0; k < n->inputs->len; k++) {
        const Tensor *t = n->inputs->pdata[k];
        if (t && !t->shape_known)
            return FALSE;
    }
    return TRUE;
}

/* Every --bound names a tensor where data-dependence starts (a typo would otherwise be a silent no-op). */
static gboolean bounds_all_used(const Graph *g, const ShapeOptions *o, GError **error)
{
    if (!o->bounds || !g_hash_table_size(o->bounds))
        return TRUE;
    GString *sources = g_string_new(NULL);
    guint used = 0;
    for (guint k = 0; k < g->tensors->len; k++) {
        const Tensor *t = g->tensors->pdata[k];
        if (!t->bound_why)
            continue;
        used += g_hash_table_contains(o->bounds, t->name);
        if (sources->len < 400) {
            char *shown = g_strescape(t->name, NULL);
            g_string_append_printf(sources, "%s'%s'", sources->len ? ", " : "", shown);
            g_free(shown);
        }
    }
    gboolean ok = used == g_hash_table_size(o->bounds);
    if (!ok) {
        GHashTableIter it;
        gpointer name;
        g_hash_table_iter_init(&it, o->bounds);
        const char *unknown = NULL;
        while (g_hash_table_iter_next(&it, &name, NULL))
            if (!unknown || strcmp(name, unknown) < 0) {
                const Tensor *t = g_hash_table_lookup(g->by_name, name);
                if (!t || !t->bound_why)
                    unknown = name;
            }
        char *shown = g_strescape(unknown ? unknown : "", NULL);
        g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "--bound '%s': the graph has no data-dependent tensor of that "
                    "name (%s%s)", shown, sources->len ? "it has: " : "it has none", sources->str);
        g_free(shown);
    }
    g_string_free(sources, TRUE);
    return ok;
}

gboolean shape_infer(Model *m, const ShapeOptions *o, GError **error)
{
    Graph *g = m->graph;
    gint64 opset = model_onnx_opset(m);
    if (opset == 0)
        opset = 1; /* no import of the default domain: the oldest semantics */
    if (!bind_dims(g, o, error))
        return FALSE;
    ValueBudget budget = {0};
    InferCtx cx_of_model, *cx = &cx_of_model; /* this inference's state, passed to every op's */
    infer_ctx_init(cx);
    cx->values_left = SHAPE_VALUES_MAX_ELEMENTS;
    cx->bounds = o->bounds;
    budget.cx = cx;
    if (!seed_initializers(g, 0, &budget, error) || !seed_inputs(g, o->partial, error)) {
        infer_ctx_clear(cx);
        return FALSE;
    }
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < g->order->len; k++) {
        Node *n = g->order->pdata[k];
        const OpInfo *op = n->op = op_lookup(n->domain, n->op_type);
        if (o->partial && !inputs_known(n))
            continue; /* depends on an unbound dimension: its outputs keep no shape */
        gboolean folded = FALSE;
        guint seeded = g->initializers->len;
        if (op && op->fold &&
            (!op->fold(cx, g, n, opset, &folded, error) || !seed_initializers(g, seeded, &budget, error))) {
            ok = FALSE;
            break;
        }
        if (!folded && !(op && op->sequences) && !infer_fold_sequence_reader(g, n, &folded, error)) {
            ok = FALSE;
            break;
        }
        if (folded) {
            k--; /* the nodes that replaced it start at position k */
            continue;
        }
        ok = infer_node(cx, n, opset, o->allow_unknown_ops, error);
        guint restart;
        if (!ok && error && *error && infer_drop_failed_branch(g, n, *error, &restart)) {
            g_clear_error(error); /* a branch only running decides, that cannot run at these dims: never taken */
            ok = TRUE;
            k = restart - 1; /* (unsigned: wraps to the loop's start when restart is 0) */
            continue;
        }
        for (guint j = 0; ok && j < n->outputs->len; j++)
            value_budget_charge(&budget, n->outputs->pdata[j]);
    }
    ok = ok && bounds_all_used(g, o, error);
    /* Less than one whole value left: an op may have found the total spent before it computed. */
    budget.full = budget.full || !infer_value_fits(cx, 1, (const gint64[]){VALUE_MAX_ELEMENTS});
    infer_ctx_clear(cx);
    if (!ok && budget.full && error && *error) { /* the missing contents may be the ones the total left out */
        char *more = g_strdup_printf("%s (the model's constants held at plan time reached their total of %"
                                     G_GUINT64_FORMAT " elements, so some were not kept)", (*error)->message,
                                     (guint64)SHAPE_VALUES_MAX_ELEMENTS);
        g_free((*error)->message);
        (*error)->message = more;
    }
    return ok;
}

/* A copy of t for run-time inference: the same name and type, its own dims (the given ones, or t's). An input's
 * contents are borrowed, never copied (the given ones, or t's when its shape is the plan's: a weight's 25,088
 * values were copied at every run of a detector's box head): inference reads an input's value and writes only its
 * outputs'. An output starts with none. */
static Tensor *runtime_copy(const Tensor *t, const gint64 *dims, const Value *value, gboolean input)
{
    Tensor *c = g_new(Tensor, 1);
    *c = *t;
    c->dims = g_new0(gint64, t->rank ? t->rank : 1);
    if (t->rank)
        memcpy(c->dims, dims ? dims : t->dims, t->rank * sizeof(gint64));
    guint64 numel = 1;
    for (int d = 0; d < t->rank; d++)
        numel *= (guint64)c->dims[d];
    c->bytes = numel * dtype_size(t->dtype);
    c->value = !input ? NULL : value ? (Value *)value : dims ? NULL : t->value;
    return c;
}

static void runtime_input_free(Tensor *c)
{
    if (!c)
        return;
    g_free(c->dims);
    g_free(c);
}

static void runtime_output_free(Tensor *c)
{
    if (!c)
        return;
    value_free(c->value);
    runtime_input_free(c);
}

gboolean shape_infer_node(Node *n, gint64 opset, GError **error)
{
    InferCtx cx;
    infer_ctx_init(&cx);
    gboolean ok = n->op->infer(&cx, n->op, n, opset, error);
    infer_ctx_clear(&cx);
    return ok;
}

gboolean shape_infer_runtime(const Node *n, gint64 opset, const gint64 *const *in_dims, const Value *const *in_values,
                             gint64 *const *out_dims, GError **error)
{
    Node copy = *n;
    copy.inputs = g_ptr_array_new_with_free_func((GDestroyNotify)runtime_input_free);
    copy.outputs = g_ptr_array_new_with_free_func((GDestroyNotify)runtime_output_free);
    for (guint k = 0; k < n->inputs->len; k++) {
        const Tensor *t = n->inputs->pdata[k];
        g_ptr_array_add(copy.inputs, t ? runtime_copy(t, in_dims[k], in_values[k], TRUE) : NULL);
    }
    for (guint k = 0; k < n->outputs->len; k++) {
        const Tensor *t = n->outputs->pdata[k];
        Tensor *c = t ? runtime_copy(t, NULL, NULL, FALSE) : NULL;
        if (c)
            c->shape_known = FALSE;
        g_ptr_array_add(copy.outputs, c);
    }
    InferCtx cx;
    infer_ctx_init(&cx);
    cx.running = TRUE; /* planning's allowances for bounds that disagree (Concat's pieces) do not apply */
    cx.values_left = 0; /* only the outputs' shapes are read: no room for their values (a ConstantOfShape's, a shape
                           arithmetic's: a third of a Mask R-CNN's run went to values thrown away) */
    gboolean ok = n->op->infer(&cx, n->op, &copy, opset, error);
    infer_ctx_clear(&cx);
    for (guint k = 0; ok && k < n->outputs->len; k++) {
        const Tensor *c = copy.outputs->pdata[k];
        if (!c || !out_dims[k])
            continue;
        if (!c->shape_known || c->rank != ((const Tensor *)n->outputs->pdata[k])->rank) {
            ok = infer_fail(error, n, "output '%s' has rank %d at run time, %d in the plan", c->name, c->rank,
                            ((const Tensor *)n->outputs->pdata[k])->rank);
            break;
        }
        memcpy(out_dims[k], c->dims, (gsize)c->rank * sizeof(gint64));
    }
    g_ptr_array_unref(copy.inputs);
    g_ptr_array_unref(copy.outputs);
    return ok;
}

/* A value with every element one larger: what a probe is when nothing better is known. */
static Value *value_perturbed(const Value *v)
{
    Value *p = value_copy(v);
    for (gsize k = 0; k < p->n; k++) {
        if (p->f)
            p->f[k] += 1.0;
        else
            p->i[k] += 1;
    }
    return p;
}

/* The probes of each data-dependent output of n: the op's inference again on copies of its tensors, the
 * data-dependent inputs taking their probes (and data-dependent sizes it makes coming out one larger, then
 * zero). When an inference fails, or a probe is missing, every dim and element counts as data-dependent. */
static void probe_node(InferCtx *cx, Node *n, gint64 opset)
{
    gboolean needed = FALSE;
    for (guint k = 0; k < n->inputs->len; k++)
        needed = needed || infer_input_dynamic(n, k);
    for (guint k = 0; k < n->outputs->len; k++)
        needed = needed || (node_output(n, k) && node_output(n, k)->dynamic);
    if (!needed || !n->op)
        return;
    for (int p = 0; p < 2; p++) {
        Node copy = *n;
        copy.inputs = g_ptr_array_new_with_free_func((GDestroyNotify)runtime_input_free);
        copy.outputs = g_ptr_array_new_with_free_func((GDestroyNotify)runtime_output_free);
        GPtrArray *probes = g_ptr_array_new_with_free_func((GDestroyNotify)value_free); /* the inputs borrow them */
        for (guint k = 0; k < n->inputs->len; k++) {
            const Tensor *t = n->inputs->pdata[k];
            if (!t || !t->dynamic) {
                g_ptr_array_add(copy.inputs, t ? runtime_copy(t, NULL, NULL, TRUE) : NULL);
                continue;
            }
            gint64 *dims = g_new0(gint64, t->rank ? t->rank : 1);
            for (int d = 0; d < t->rank; d++)
                dims[d] = t->probe_dims[p] ? t->probe_dims[p][d] : t->dims[d] + 1;
            Value *v = t->value ? (t->probe[p] ? value_copy(t->probe[p]) : value_perturbed(t->value)) : NULL;
            guint64 numel;
            if (v && (!shape_numel(t->rank, dims, &numel) || numel != v->n)) { /* a value of another size: none */
                value_free(v);
                v = NULL;
            }
            g_ptr_array_add(copy.inputs, runtime_copy(t, dims, v, TRUE));
            if (v)
                g_ptr_array_add(probes, v);
            g_free(dims);
        }
        for (guint k = 0; k < n->outputs->len; k++) {
            const Tensor *t = n->outputs->pdata[k];
            Tensor *c = t ? runtime_copy(t, NULL, NULL, FALSE) : NULL;
            if (c)
                c->shape_known = FALSE;
            g_ptr_array_add(copy.outputs, c);
        }
        cx->probing = p + 1;
        gboolean ok = n->op->infer(cx, n->op, &copy, opset, NULL);
        cx->probing = 0;
        infer_took_most(cx);
        for (guint k = 0; k < n->outputs->len; k++) {
            Tensor *t = n->outputs->pdata[k], *c = copy.outputs->pdata[k];
            if (!t || !t->dynamic)
                continue;
            gboolean same_rank = ok && c->shape_known && c->rank == t->rank;
            g_free(t->probe_dims[p]);
            t->probe_dims[p] = g_new0(gint64, t->rank ? t->rank : 1);
            for (int d = 0; d < t->rank; d++)
                t->probe_dims[p][d] = same_rank ? c->dims[d] : t->dims[d] + 1;
            value_free(t->probe[p]);
            t->probe[p] = NULL;
            if (t->value && same_rank && c->value && c->value->n == t->value->n) {
                t->probe[p] = c->value;
                c->value = NULL;
            } else if (t->value) {
                t->probe[p] = value_perturbed(t->value);
            }
        }
        g_ptr_array_unref(copy.inputs);
        g_ptr_array_unref(copy.outputs);
        g_ptr_array_unref(probes);
    }
}
