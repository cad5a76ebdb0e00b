/* builder.c — graph construction for generators and tests (see builder.h). */
#include "graphs/builder.h"

#include <stdarg.h>

Builder *builder_new(const char *graph_name, gint64 opset)
{
    Builder *b = g_new0(Builder, 1);
    b->model = model_new();
    b->model->ir_version = 8;
    g_free(b->model->producer_name);
    b->model->producer_name = g_strdup("arenasim");
    model_set_opset(b->model, "", opset);
    b->graph = b->model->graph = graph_new(graph_name);
    return b;
}

static const char *fresh_name(Builder *b, const char *stem)
{
    char *name = g_strdup_printf("%s_%d", stem, b->counter++);
    Tensor *t = graph_tensor_get_or_add(b->graph, name);
    g_free(name);
    return t->name;
}

const char *builder_input_sym(Builder *b, const char *name, DType dtype, int rank, const gint64 *dims,
                        const char *const *params)
{
    if (b->error)
        return NULL;
    TypeInfo *t = type_info_new(dtype, rank, dims);
    for (int k = 0; params && k < rank; k++)
        if (params[k])
            type_info_set_param(t, k, params[k]);
    if (!graph_add_input(b->graph, name, t, &b->error))
        return NULL;
    return graph_tensor(b->graph, name)->name;
}

const char *builder_input(Builder *b, const char *name, DType dtype, int rank, const gint64 *dims)
{
    return builder_input_sym(b, name, dtype, rank, dims, NULL);
}

void builder_output(Builder *b, const char *name)
{
    if (!b->error && name)
        graph_add_output(b->graph, name, NULL, &b->error);
}

static const char *add_initializer(Builder *b, TensorData *t)
{
    if (b->error) {
        tensor_data_free(t);
        return NULL;
    }
    char *name = g_strdup(t->name);
    const char *stored = NULL;
    if (graph_add_initializer(b->graph, t, &b->error))
        stored = graph_tensor(b->graph, name)->name;
    g_free(name);
    return stored;
}

const char *builder_weight(Builder *b, const char *name, DType dtype, int rank, const gint64 *dims, gboolean with_data)
{
    TensorData *t = tensor_data_new(name, dtype, rank, dims);
    if (with_data && dtype == DT_FLOAT) {
        guint64 n = 1;
        for (int k = 0; k < rank; k++)
            n *= (guint64)dims[k];
        float *v = g_new(float, n ? n : 1);
        GRand *r = g_rand_new_with_seed(g_str_hash(name));
        for (guint64 k = 0; k < n; k++)
            v[k] = (float)g_rand_double_range(r, -0.05, 0.05);
        g_rand_free(r);
        t->raw = g_bytes_new_take(v, n * sizeof(float));
    }
    return add_initializer(b, t);
}

const char *builder_ints(Builder *b, const char *name, int rank, const gint64 *dims, const gint64 *values)
{
    guint64 n = 1;
    for (int k = 0; k < rank; k++)
        n *= (guint64)dims[k];
    Value *v = value_new(DT_INT64, n);
    for (guint64 k = 0; k < n; k++)
        v->i[k] = values[k];
    TensorData *t = tensor_data_from_value(name ? name : fresh_name(b, "const"), v, rank, dims);
    value_free(v);
    return add_initializer(b, t);
}

const char *builder_int_vec(Builder *b, const char *name, gsize n, const gint64 *values)
{
    gint64 dims[1] = {(gint64)n};
    return builder_ints(b, name, 1, dims, values);
}

const char *builder_float_scalar(Builder *b, const char *name, float value)
{
    Value *v = value_new(DT_FLOAT, 1);
    v->f[0] = value;
    TensorData *t = tensor_data_from_value(name ? name : fresh_name(b, "scalar"), v, 0, NULL);
    value_free(v);
    return add_initializer(b, t);
}

const char *builder_node(Builder *b, const char *op, const char *const *inputs, int n_out, const char **out_names, ...)
{
    va_list ap;
    va_start(ap, out_names);
    GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    for (Attr *a = va_arg(ap, Attr *); a; a = va_arg(ap, Attr *))
        g_ptr_array_add(attrs, a);
    va_end(ap);
    if (b->error) {
        g_ptr_array_unref(attrs);
        return NULL;
    }
    int n_in = 0;
    while (inputs[n_in])
        n_in++;
    const char **outs = g_new0(const char *, n_out + 1);
    for (int k = 0; k < n_out; k++)
        outs[k] = out_names && out_names[k] ? out_names[k] : fresh_name(b, op);
    char *node_name = g_strdup_printf("%s_n%d", op, b->counter++);
    Node *n = graph_add_node(b->graph, op, "", node_name, inputs, n_in, outs, n_out, attrs, &b->error);
    g_free(node_name);
    const char *first = n ? node_output(n, 0)->name : NULL;
    if (out_names)
        for (int k = 0; k < n_out; k++)
            out_names[k] = n ? node_output(n, k)->name : NULL;
    g_free(outs);
    return first;
}

Model *builder_finish(Builder *b, GError **error)
{
    Model *m = b->model;
    if (!b->error)
        graph_finalize(b->graph, &b->error);
    if (b->error) {
        g_propagate_error(error, b->error);
        model_free(m);
        m = NULL;
    }
    g_free(b);
    return m;
}
