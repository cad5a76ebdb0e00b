/* zoo.c — the model zoo's test-data layout (see zoo.h). */
#include "cli/zoo.h"
#include "model/onnx.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* dir itself, or its test_data_set_0/ when it holds one. Newly allocated. */
static char *data_set(const char *dir)
{
    char *inner = g_build_filename(dir, "test_data_set_0", NULL);
    if (g_file_test(inner, G_FILE_TEST_IS_DIR))
        return inner;
    g_free(inner);
    return g_strdup(dir);
}

static char *file_in(const char *set, const char *kind, guint k)
{
    char *name = g_strdup_printf("%s_%u.pb", kind, k);
    char *path = g_build_filename(set, name, NULL);
    g_free(name);
    return path;
}

GPtrArray *zoo_read_inputs(const Model *m, const char *dir, GError **error)
{
    char *set = data_set(dir);
    GPtrArray *inputs = g_ptr_array_new_with_free_func((GDestroyNotify)tensor_data_free);
    guint k = 0;
    for (guint i = 0; i < m->graph->inputs->len; i++) {
        const Tensor *t = m->graph->inputs->pdata[i];
        if (t->init)
            continue;
        char *path = file_in(set, "input", k++);
        TensorData *d = onnx_read_tensor_file(path, error);
        if (!d) {
            g_prefix_error(error, "%s: ", path);
            g_free(path);
            g_ptr_array_unref(inputs);
            g_free(set);
            return NULL;
        }
        g_free(path);
        g_ptr_array_add(inputs, d);
    }
    g_free(set);
    return inputs;
}

gboolean zoo_bind_dims(const Model *m, const GPtrArray *inputs, ShapeOptions *shape, GError **error)
{
    guint k = 0;
    for (guint i = 0; i < m->graph->inputs->len; i++) {
        const Tensor *t = m->graph->inputs->pdata[i];
        if (t->init)
            continue;
        const TensorData *d = inputs->pdata[k++];
        const TypeInfo *declared = t->declared;
        if (!declared || declared->rank < 0)
            continue;
        if (declared->rank != d->rank) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "input '%s' has rank %d in the model and %d in the data",
                        t->name, declared->rank, d->rank);
            return FALSE;
        }
        for (int a = 0; a < declared->rank; a++) {
            const char *param = declared->params ? declared->params[a] : NULL;
            if (!param || !*param) {
                if (declared->dims[a] >= 0 && declared->dims[a] != d->dims[a]) {
                    g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "input '%s' dimension %d is %" G_GINT64_FORMAT
                                " in the model and %" G_GINT64_FORMAT " in the data", t->name, a, declared->dims[a], d->dims[a]);
                    return FALSE;
                }
                continue;
            }
            const gint64 *bound = g_hash_table_lookup(shape->dims, param);
            if (bound && *bound != d->dims[a]) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "input '%s' dimension %d ('%s') is %" G_GINT64_FORMAT
                            " in the data, but '%s' is %" G_GINT64_FORMAT, t->name, a, param, d->dims[a], param, *bound);
                return FALSE;
            }
            if (!bound) {
                char *spec = g_strdup_printf("%s=%" G_GINT64_FORMAT, param, d->dims[a]);
                gboolean ok = shape_options_add_dim(shape, spec, error);
                g_free(spec);
                if (!ok)
                    return FALSE;
            }
        }
    }
    return TRUE;
}

gboolean zoo_set_inputs(Executor *e, const Model *m, const GPtrArray *inputs, GError **error)
{
    guint k = 0;
    for (guint i = 0; i < m->graph->inputs->len; i++) {
        const Tensor *t = m->graph->inputs->pdata[i];
        if (t->init)
            continue;
        if (!executor_set_input(e, t->name, inputs->pdata[k++], error))
            return FALSE;
    }
    return TRUE;
}

gboolean zoo_expect_outputs(const Executor *e, const char *dir, double rtol, double atol, double *worst, GError **error)
{
    char *set = data_set(dir);
    gboolean ok = TRUE;
    *worst = 0;
    for (guint k = 0; ok && k < executor_output_count(e); k++) {
        const char *name;
        const ExecTensor *x = executor_output(e, k, &name);
        char *path = file_in(set, "output", k);
        TensorData *want = onnx_read_tensor_file(path, error);
        if (!want) {
            g_prefix_error(error, "--expect: %s: ", path);
            ok = FALSE;
        } else if (want->dtype != x->dtype || !want->raw ||
                   g_bytes_get_size(want->raw) != x->count * dtype_size(x->dtype)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "--expect: %s holds %s, not the %" G_GSIZE_FORMAT
                        " elements of %s output '%s' has", path, dtype_name(want->dtype), x->count, dtype_name(x->dtype), name);
            ok = FALSE;
        } else {
            ExecTensor w = *x;
            w.data = (void *)g_bytes_get_data(want->raw, NULL);
            gboolean floats = dtype_is_float(x->dtype);
            for (gsize j = 0; ok && j < x->count; j++) {
                double a = kernel_elem_get_f(x, j), b = kernel_elem_get_f(&w, j);
                if (!floats) {
                    ok = kernel_elem_get_i(x, j) == kernel_elem_get_i(&w, j);
                } else if (isnan(a) || isnan(b)) {
                    ok = isnan(a) && isnan(b);
                } else {
                    double allowed = atol + rtol * fabs(b), off = fabs(a - b);
                    ok = off <= allowed || a == b; /* a == b: equal infinities */
                    if (allowed > 0 && isfinite(off))
                        *worst = MAX(*worst, off / allowed);
                }
                if (!ok)
                    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "--expect: output '%s' element %" G_GSIZE_FORMAT " is %.9g, "
                                "the expected %.9g (%s) is beyond rtol %g and atol %g", name, j, a, b, path, rtol, atol);
            }
        }
        if (want)
            tensor_data_free(want);
        g_free(path);
    }
    g_free(set);
    return ok;
}

gboolean zoo_write_outputs(const Executor *e, const char *dir, GError **error)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "--dump-outputs: cannot make the folder %s", dir);
        return FALSE;
    }
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < executor_output_count(e); k++) {
        const char *name;
        const ExecTensor *x = executor_output(e, k, &name);
        TensorData *d = tensor_data_new(name, x->dtype, x->rank, x->dims);
        d->raw = g_bytes_new(x->data, x->count * dtype_size(x->dtype));
        char *path = file_in(dir, "output", k);
        ok = onnx_write_tensor_file(d, path, error);
        if (!ok)
            g_prefix_error(error, "--dump-outputs: %s: ", path);
        g_free(path);
        tensor_data_free(d);
    }
    return ok;
}
