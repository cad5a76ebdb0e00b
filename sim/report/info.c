/* info.c — the `sim --info` graph summary. */
#include "report/info.h"
#include "ops/shape.h"
#include "base/escape.h"
#include "base/units.h"

#include <string.h>

void info_graph_stats(const Graph *g, GraphStats *s)
{
    memset(s, 0, sizeof(*s));
    s->n_nodes = g->nodes->len;
    for (guint k = 0; k < g->tensors->len; k++) {
        const Tensor *t = g->tensors->pdata[k];
        if (!t->producer && !t->is_graph_input && !t->init && !t->is_graph_output)
            continue; /* a name only ever mentioned, never a value */
        s->tensors_by_kind[t->kind]++;
        if (!t->shape_known) {
            s->n_unknown_shapes++;
            continue;
        }
        s->bytes_by_kind[t->kind] += t->bytes;
        if (t->kind != TENSOR_WEIGHT && t->kind != TENSOR_CONSTANT && (!s->largest || t->bytes > s->largest->bytes))
            s->largest = t;
    }
}

typedef struct {
    const char *op;
    guint count;
} OpCount;

/* The unbound symbolic dimensions (shape_unbound_dims) joined by `between`; "" when there are none. */
static char *unbound_dims(const Graph *g, const char *between)
{
    char **names = shape_unbound_dims(g);
    char *text = g_strjoinv(between, names);
    g_strfreev(names);
    return text;
}

static gint by_count_then_name(gconstpointer a, gconstpointer b)
{
    const OpCount *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->op, y->op);
}

static void print_bytes(FILE *out, const char *label, guint64 bytes)
{
    char *s = sim_format_bytes(bytes);
    fprintf(out, "%-14s %s\n", label, s);
    g_free(s);
}

/* Op types with their node counts, most frequent first (ties by name). */
static GArray *op_counts(const Graph *g)
{
    GHashTable *counts = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint k = 0; k < g->nodes->len; k++) {
        const Node *n = g->nodes->pdata[k];
        guint c = GPOINTER_TO_UINT(g_hash_table_lookup(counts, n->op_type));
        g_hash_table_insert(counts, n->op_type, GUINT_TO_POINTER(c + 1));
    }
    GArray *ops = g_array_new(FALSE, FALSE, sizeof(OpCount));
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, counts);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        OpCount oc = {key, GPOINTER_TO_UINT(val)};
        g_array_append_val(ops, oc);
    }
    g_array_sort(ops, by_count_then_name);
    g_hash_table_unref(counts);
    return ops;
}

static char *opsets_text(const Model *m, const char *between)
{
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < m->opsets->len; k++) {
        const OpsetId *o = &g_array_index(m->opsets, OpsetId, k);
        g_string_append_printf(s, "%s%s %" G_GINT64_FORMAT, k ? between : "", *o->domain ? o->domain : "ai.onnx",
                               o->version);
    }
    return g_string_free(s, FALSE);
}

/* text escaped for the terminal (base/escape.h), kept in `keep` until the summary is printed. */
static const char *safe(GPtrArray *keep, const char *text)
{
    char *escaped = escape_terminal(text);
    g_ptr_array_add(keep, escaped);
    return escaped;
}

static void print_text(FILE *out, const Model *m, const char *path, const GraphStats *s, const GArray *ops)
{
    const Graph *g = m->graph;
    GPtrArray *keep = g_ptr_array_new_with_free_func(g_free); /* every name below comes from the file */
    fprintf(out, "file           %s\n", safe(keep, path));
    fprintf(out, "model          %s (producer %s%s%s, IR version %" G_GINT64_FORMAT ")\n",
            *g->name ? safe(keep, g->name) : "(unnamed)", *m->producer_name ? safe(keep, m->producer_name) : "unknown",
            *m->producer_version ? " " : "", safe(keep, m->producer_version), m->ir_version);
    char *opsets = opsets_text(m, " ");
    fprintf(out, "opset          %s\n", safe(keep, opsets));
    g_free(opsets);
    fprintf(out, "nodes          %u in %u op types\n", s->n_nodes, ops->len);
    for (guint k = 0; k < ops->len; k++) {
        const OpCount *oc = &g_array_index(ops, OpCount, k);
        fprintf(out, "  %-24s %u\n", safe(keep, oc->op), oc->count);
    }
    fprintf(out, "tensors       ");
    for (int k = 0; k < TENSOR_KIND_COUNT; k++)
        fprintf(out, " %u %s%s", s->tensors_by_kind[k], tensor_kind_name(k), k + 1 < TENSOR_KIND_COUNT ? "," : "\n");
    print_bytes(out, "weights", s->bytes_by_kind[TENSOR_WEIGHT]);
    print_bytes(out, "constants", s->bytes_by_kind[TENSOR_CONSTANT]);
    print_bytes(out, "inputs", s->bytes_by_kind[TENSOR_INPUT]);
    print_bytes(out, "activations", s->bytes_by_kind[TENSOR_INTERMEDIATE]);
    print_bytes(out, "outputs", s->bytes_by_kind[TENSOR_OUTPUT]);
    if (s->largest) {
        char *dims = graph_dims_to_string(s->largest->rank, s->largest->dims);
        char *bytes = sim_format_bytes(s->largest->bytes);
        fprintf(out, "largest        '%s' %s %s, %s\n", safe(keep, s->largest->name), dtype_name(s->largest->dtype), dims,
                bytes);
        g_free(dims);
        g_free(bytes);
    }
    char *symbolic = unbound_dims(g, ", ");
    if (*symbolic) {
        fprintf(out, "symbolic       %s: unbound; sizes above count only what does not depend on them "
                     "(bind each with --dim NAME=VALUE)\n", safe(keep, symbolic));
        for (guint k = 0; k < g->inputs->len; k++) {
            const Tensor *t = g->inputs->pdata[k];
            char *type = type_info_to_string(t->declared);
            if (!t->init)
                fprintf(out, "  input        '%s' %s\n", safe(keep, t->name), safe(keep, type));
            g_free(type);
        }
    }
    g_free(symbolic);
    if (s->n_unknown_shapes)
        fprintf(out, "shapes         %u tensors without a known shape\n", s->n_unknown_shapes);
    else
        fprintf(out, "shapes         all known\n");
    g_ptr_array_unref(keep);
}

/* The table formats: one row, (name, value, is_number) per column. */
typedef struct {
    const char *name;
    char *value;
    gboolean number;
} InfoCell;

static void add_cell(GArray *cells, const char *name, char *value, gboolean number)
{
    InfoCell c = {name, value, number};
    g_array_append_val(cells, c);
}

static void print_table(FILE *out, ReportFormat f, const Model *m, const char *path, const GraphStats *s,
                        const GArray *ops)
{
    static const char *const tensor_columns[TENSOR_KIND_COUNT] = {"tensors_intermediate", "tensors_input",
                                                                   "tensors_output", "tensors_weight", "tensors_constant"};
    const Graph *g = m->graph;
    GArray *cells = g_array_new(FALSE, FALSE, sizeof(InfoCell));
    add_cell(cells, "file", g_strdup(path), FALSE);
    add_cell(cells, "model", g_strdup(g->name), FALSE);
    add_cell(cells, "producer", g_strdup_printf("%s%s%s", m->producer_name, *m->producer_version ? " " : "",
                                                m->producer_version), FALSE);
    add_cell(cells, "ir_version", g_strdup_printf("%" G_GINT64_FORMAT, m->ir_version), TRUE);
    add_cell(cells, "opsets", opsets_text(m, ";"), FALSE);
    add_cell(cells, "nodes", g_strdup_printf("%u", s->n_nodes), TRUE);
    add_cell(cells, "op_types", g_strdup_printf("%u", ops->len), TRUE);
    for (int k = 0; k < TENSOR_KIND_COUNT; k++) {
        g_assert(!strcmp(tensor_columns[k] + strlen("tensors_"), tensor_kind_name(k))); /* the names follow the enum */
        add_cell(cells, tensor_columns[k], g_strdup_printf("%u", s->tensors_by_kind[k]), TRUE);
    }
    add_cell(cells, "weight_bytes", g_strdup_printf("%" G_GUINT64_FORMAT, s->bytes_by_kind[TENSOR_WEIGHT]), TRUE);
    add_cell(cells, "constant_bytes", g_strdup_printf("%" G_GUINT64_FORMAT, s->bytes_by_kind[TENSOR_CONSTANT]), TRUE);
    add_cell(cells, "input_bytes", g_strdup_printf("%" G_GUINT64_FORMAT, s->bytes_by_kind[TENSOR_INPUT]), TRUE);
    add_cell(cells, "activation_bytes", g_strdup_printf("%" G_GUINT64_FORMAT, s->bytes_by_kind[TENSOR_INTERMEDIATE]), TRUE);
    add_cell(cells, "output_bytes", g_strdup_printf("%" G_GUINT64_FORMAT, s->bytes_by_kind[TENSOR_OUTPUT]), TRUE);
    add_cell(cells, "largest_tensor", g_strdup(s->largest ? s->largest->name : ""), FALSE);
    add_cell(cells, "largest_bytes", g_strdup_printf("%" G_GUINT64_FORMAT, s->largest ? s->largest->bytes : 0), TRUE);
    add_cell(cells, "unknown_shapes", g_strdup_printf("%u", s->n_unknown_shapes), TRUE);
    add_cell(cells, "unbound_dims", unbound_dims(g, " "), FALSE);
    GString *op_text = g_string_new(NULL);
    for (guint k = 0; k < ops->len; k++) {
        const OpCount *oc = &g_array_index(ops, OpCount, k);
        g_string_append_printf(op_text, "%s%s=%u", k ? " " : "", oc->op, oc->count);
    }
    add_cell(cells, "ops", g_string_free(op_text, FALSE), FALSE);
    const char **names = g_new(const char *, cells->len), **values = g_new(const char *, cells->len);
    gboolean *numbers = g_new(gboolean, cells->len);
    for (guint k = 0; k < cells->len; k++) {
        const InfoCell *c = &g_array_index(cells, InfoCell, k);
        names[k] = c->name;
        values[k] = c->value;
        numbers[k] = c->number;
    }
    report_print_row(out, f, names, values, numbers, cells->len);
    g_free(names);
    g_free(values);
    g_free(numbers);
    for (guint k = 0; k < cells->len; k++)
        g_free(g_array_index(cells, InfoCell, k).value);
    g_array_unref(cells);
}

void info_print(FILE *out, ReportFormat f, const Model *m, const char *path)
{
    GraphStats s;
    info_graph_stats(m->graph, &s);
    GArray *ops = op_counts(m->graph);
    if (f->prose)
        print_text(out, m, path, &s, ops);
    else
        print_table(out, f, m, path, &s, ops);
    g_array_unref(ops);
}
