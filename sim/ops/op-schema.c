/* op-schema.c — a node held to ONNX's own schema of its operator (op-schema.h); the rows are generated from
 * Debian's onnx at build time. */
#include "ops/op-schema.h"

#include <stdarg.h>
#include <string.h>

static int compare_name(const void *key, const void *row)
{
    return strcmp(key, ((const OpSchema *)row)->name);
}

const OpSchema *op_schema_find(const char *op_type, gint64 opset, int *first)
{
    if (first)
        *first = 0;
    const OpSchema *hit = bsearch(op_type, op_schema_rows, op_schema_row_count, sizeof *op_schema_rows, compare_name);
    if (!hit)
        return NULL;
    while (hit > op_schema_rows && !strcmp(hit[-1].name, op_type))
        hit--; /* the oldest version */
    if (first)
        *first = hit->since;
    const OpSchema *found = NULL, *before = NULL;
    for (; hit < op_schema_rows + op_schema_row_count && !strcmp(hit->name, op_type) && hit->since <= opset; hit++) {
        before = found;
        found = hit;
    }
    /* a deprecated version (Upsample from 10, Scatter from 11) keeps the rules of the one before it */
    if (found && found->deprecated && before)
        found = before;
    return found;
}

/* "{FLOAT16, FLOAT, DOUBLE}": the element types a variable allows. Newly allocated. */
static char *types_text(guint32 mask)
{
    GString *s = g_string_new("{");
    for (int t = 0; t < DT_COUNT; t++)
        if (mask & (1u << t))
            g_string_append_printf(s, "%s%s", s->len > 1 ? ", " : "", dtype_name(t));
    if (s->len == 1)
        g_string_append(s, "no tensor type");
    g_string_append_c(s, '}');
    return g_string_free(s, FALSE);
}

/* Which value first bound a shared variable. */
typedef struct {
    DType dtype;
    const Tensor *t;
    const char *param;
    gboolean output;
    guint index;
} Binding;

typedef struct {
    const Node *n;
    const OpSchema *s;
    gboolean newer; /* the model is newer than the table: shared variables only */
    Binding bound[32];
} Check;

static gboolean fail(GError **error, const Check *c, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static gboolean fail(GError **error, const Check *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "node %s: %s (ONNX's %s, opset %d%s)", c->n->label, what,
                c->s->name, c->s->since, c->newer ? ", the newest this build knows" : "");
    g_free(what);
    return FALSE;
}

/* Value k of the node's inputs or outputs against its formal parameter. */
static gboolean check_value(Check *c, gboolean output, guint k, const Tensor *t, GError **error)
{
    guint n_params = output ? c->s->n_out : c->s->n_in;
    const OpSchemaParam *params = output ? c->s->out : c->s->in;
    if (n_params == 0)
        return TRUE;
    const OpSchemaParam *p = &params[MIN(k, n_params - 1)];
    if (k >= n_params && p->option != OP_PARAM_VARIADIC)
        return TRUE; /* past the parameters: the count check says so */
    const char *side = output ? "output" : "input";
    if (!t) {
        if (p->option == OP_PARAM_SINGLE && !c->newer)
            return fail(error, c, "%s %u (%s) is empty, but it is required", side, k, p->name);
        return TRUE;
    }
    if (p->var >= c->s->n_vars || p->var >= G_N_ELEMENTS(c->bound))
        return TRUE;
    const OpSchemaVar *v = &c->s->vars[p->var];
    gboolean sequence = t->elements || (t->declared && t->declared->sequence);
    guint32 not_a_tensor = 1u << OP_SCHEMA_NOT_A_TENSOR;
    if (!c->newer && (sequence ? !(v->types & not_a_tensor) : v->types == not_a_tensor))
        return fail(error, c, "%s %u '%s' (%s) is a %s, but %s takes %s there", side, k, t->name, p->name,
                    sequence ? "sequence" : "tensor", c->s->name, sequence ? "a tensor" : "a sequence");
    if (sequence)
        return TRUE; /* its element type: the sequence ops check it against what they insert */
    if (!t->shape_known && !output)
        return TRUE; /* partial inference: the type is not known yet */
    if (!c->newer && !(v->types & (1u << t->dtype))) {
        char *allowed = types_text(v->types);
        gboolean ok = fail(error, c, "%s %u '%s' (%s) is %s, but %s takes %s in %s", side, k, t->name, p->name,
                           dtype_name(t->dtype), c->s->name, v->name, allowed);
        g_free(allowed);
        return ok;
    }
    if (!v->shared || (p->option == OP_PARAM_VARIADIC && !p->homogeneous))
        return TRUE;
    Binding *b = &c->bound[p->var];
    if (!b->t) {
        *b = (Binding){t->dtype, t, p->name, output, k};
        return TRUE;
    }
    if (b->dtype == t->dtype)
        return TRUE;
    return fail(error, c, "%s %u '%s' (%s) is %s but %s %u '%s' (%s) is %s: %s takes one element type %s for both",
                side, k, t->name, p->name, dtype_name(t->dtype), b->output ? "output" : "input", b->index,
                b->t->name, b->param, dtype_name(b->dtype), c->s->name, v->name);
}

static gboolean check_attributes(const Check *c, GError **error)
{
    const OpSchema *s = c->s;
    for (guint k = 0; k < c->n->attrs->len; k++) {
        const Attr *a = c->n->attrs->pdata[k];
        if (a->ref_attr_name)
            continue; /* inside a function body: bound when the function is called */
        const OpSchemaAttr *found = NULL;
        for (guint j = 0; j < s->n_attrs && !found; j++)
            if (!strcmp(s->attrs[j].name, a->name))
                found = &s->attrs[j];
        if (!found) {
            GString *names = g_string_new(NULL);
            for (guint j = 0; j < s->n_attrs; j++)
                g_string_append_printf(names, "%s%s", j ? ", " : "", s->attrs[j].name);
            gboolean ok = fail(error, c, "attribute '%s' is not one of %s's (%s)", a->name, s->name,
                               s->n_attrs ? names->str : "it has none");
            g_string_free(names, TRUE);
            return ok;
        }
        if ((int)a->type != found->type)
            return fail(error, c, "attribute '%s' must be %s, not %s", a->name, attr_type_name(found->type),
                        attr_type_name(a->type));
    }
    for (guint j = 0; j < s->n_attrs; j++)
        if (s->attrs[j].required && !node_attr(c->n, s->attrs[j].name))
            return fail(error, c, "attribute '%s' is required and missing", s->attrs[j].name);
    return TRUE;
}

static gboolean check_count(const Check *c, const char *side, guint count, int lo, int hi, GError **error)
{
    if ((int)count >= lo && (hi < 0 || (gint64)count <= hi))
        return TRUE;
    if (hi == G_MAXINT32)
        return fail(error, c, "has %u %ss; %s takes at least %d", count, side, c->s->name, lo);
    if (lo == hi)
        return fail(error, c, "has %u %ss; %s takes %d", count, side, c->s->name, lo);
    return fail(error, c, "has %u %ss; %s takes %d to %d", count, side, c->s->name, lo, hi);
}

gboolean op_schema_check(const Node *n, gint64 opset, gboolean outputs, GError **error)
{
    if (*n->domain && strcmp(n->domain, "ai.onnx") != 0)
        return TRUE;
    int first;
    Check c = {.n = n, .newer = opset > op_schema_newest_opset};
    c.s = op_schema_find(n->op_type, opset, &first);
    if (!c.s) {
        if (first == 0)
            return TRUE; /* not an ONNX operator: the op table says so */
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "node %s: ONNX has no %s before opset %d, and the model imports opset %" G_GINT64_FORMAT, n->label,
                    n->op_type, first, opset);
        return FALSE;
    }
    if (!outputs && !c.newer &&
        (!check_count(&c, "input", n->inputs->len, c.s->min_inputs, c.s->max_inputs, error) ||
         !check_count(&c, "output", n->outputs->len, c.s->min_outputs, c.s->max_outputs, error) ||
         !check_attributes(&c, error)))
        return FALSE;
    for (guint k = 0; k < n->inputs->len; k++)
        if (!check_value(&c, FALSE, k, n->inputs->pdata[k], error))
            return FALSE;
    for (guint k = 0; outputs && k < n->outputs->len; k++)
        if (!check_value(&c, TRUE, k, n->outputs->pdata[k], error))
            return FALSE;
    return TRUE;
}
