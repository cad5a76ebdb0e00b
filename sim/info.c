/* info.c — the `sim --info` graph summary. */
#include "info.h"
#include "units.h"

#include <string.h>

void graph_stats(const Graph *g, GraphStats *s)
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

static gint by_count_then_name(gconstpointer a, gconstpointer b)
{
    const OpCount *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->op, y->op);
}

static void print_bytes(FILE *out, const char *label, guint64 bytes)
{
    char *s = format_bytes(bytes);
    fprintf(out, "%-14s %s\n", label, s);
    g_free(s);
}

void info_print(FILE *out, const Model *m, const char *path)
{
    const Graph *g = m->graph;
    GraphStats s;
    graph_stats(g, &s);
    fprintf(out, "file           %s\n", path);
    fprintf(out, "model          %s (producer %s%s%s, IR version %" G_GINT64_FORMAT ")\n",
            *g->name ? g->name : "(unnamed)", *m->producer_name ? m->producer_name : "unknown",
            *m->producer_version ? " " : "", m->producer_version, m->ir_version);
    fprintf(out, "opset         ");
    for (guint k = 0; k < m->opsets->len; k++) {
        const OpsetId *o = &g_array_index(m->opsets, OpsetId, k);
        fprintf(out, " %s %" G_GINT64_FORMAT, *o->domain ? o->domain : "ai.onnx", o->version);
    }
    fprintf(out, "\n");

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
    fprintf(out, "nodes          %u in %u op types\n", s.n_nodes, ops->len);
    for (guint k = 0; k < ops->len; k++) {
        const OpCount *oc = &g_array_index(ops, OpCount, k);
        fprintf(out, "  %-24s %u\n", oc->op, oc->count);
    }
    g_array_unref(ops);
    g_hash_table_unref(counts);

    fprintf(out, "tensors       ");
    for (int k = 0; k < TENSOR_KIND_COUNT; k++)
        fprintf(out, " %u %s%s", s.tensors_by_kind[k], tensor_kind_name(k), k + 1 < TENSOR_KIND_COUNT ? "," : "\n");
    print_bytes(out, "weights", s.bytes_by_kind[TENSOR_WEIGHT]);
    print_bytes(out, "constants", s.bytes_by_kind[TENSOR_CONSTANT]);
    print_bytes(out, "inputs", s.bytes_by_kind[TENSOR_INPUT]);
    print_bytes(out, "activations", s.bytes_by_kind[TENSOR_INTERMEDIATE]);
    print_bytes(out, "outputs", s.bytes_by_kind[TENSOR_OUTPUT]);
    if (s.largest) {
        char *dims = dims_to_string(s.largest->rank, s.largest->dims);
        char *bytes = format_bytes(s.largest->bytes);
        fprintf(out, "largest        '%s' %s %s, %s\n", s.largest->name, dtype_name(s.largest->dtype), dims, bytes);
        g_free(dims);
        g_free(bytes);
    }
    if (s.n_unknown_shapes)
        fprintf(out, "shapes         %u tensors without a known shape\n", s.n_unknown_shapes);
    else
        fprintf(out, "shapes         all known\n");
}
