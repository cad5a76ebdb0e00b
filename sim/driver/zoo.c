/* zoo.c — the model zoo's test-data layout (see zoo.h). */
#include "driver/zoo.h"
#include "model/onnx.h"
#include "base/files.h"
#include "base/units.h"
#include "exec/big-alloc.h"

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

TensorData *zoo_read_output(const char *dir, guint k, GError **error)
{
    char *set = data_set(dir), *path = file_in(set, "output", k);
    TensorData *d = onnx_read_tensor_file(path, error);
    if (!d)
        g_prefix_error(error, "%s: ", path);
    g_free(path);
    g_free(set);
    return d;
}

/* The graph's next input from position *i that is not an initializer: the data set's input_K.pb files count these,
 * in order. NULL past the last. */
static const Tensor *next_data_input(const Model *m, guint *i)
{
    while (*i < m->graph->inputs->len) {
        const Tensor *t = m->graph->inputs->pdata[(*i)++];
        if (!t->init)
            return t;
    }
    return NULL;
}

/* Every input file's header against its graph input (element type, rank, the dims the model fixes), and what
 * their data take together against the memory the run may hold, before a byte of data is read (hard links to
 * one sparse 1 GiB file, 8 KB on disk, took 5.2 GB read whole). */
static gboolean inputs_fit(const Model *m, const char *set, GError **error)
{
    guint64 total = 0;
    guint i = 0, k = 0;
    for (const Tensor *t; (t = next_data_input(m, &i)); k++) {
        char *path = file_in(set, "input", k);
        TensorData *h = onnx_read_tensor_header(path, error);
        gboolean ok = h != NULL;
        guint64 n = 1, bytes = 0;
        for (int a = 0; ok && a < h->rank; a++)
            ok = graph_size_mul(n, (guint64)h->dims[a], &n);
        ok = ok && graph_size_mul(n, MAX(dtype_size(h->dtype), 1), &bytes) && graph_size_add(total, bytes, &total);
        const TypeInfo *d = t->declared;
        if (h && !ok && !(error && *error))
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "its data's size overflows 64 bits");
        else if (ok && d && d->dtype != DT_UNDEFINED && d->dtype != h->dtype) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "holds %s, but graph input '%s' is %s", dtype_name(h->dtype),
                        t->name, dtype_name(d->dtype));
            ok = FALSE;
        } else if (ok && d && d->rank >= 0) {
            gboolean same = d->rank == h->rank;
            for (int a = 0; same && a < d->rank; a++)
                same = d->dims[a] < 0 || d->dims[a] == h->dims[a];
            if (!same) {
                char *want = type_info_to_string(d), *got = graph_dims_to_string(h->rank, h->dims);
                g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "holds %s %s, but graph input '%s' is %s",
                            dtype_name(h->dtype), got, t->name, want);
                g_free(want);
                g_free(got);
                ok = FALSE;
            }
        }
        if (!ok)
            g_prefix_error(error, "%s: ", path);
        g_free(path);
        if (h)
            tensor_data_free(h);
        if (!ok)
            return FALSE;
    }
    guint64 room = big_alloc_room();
    if (total > room) {
        char *want = sim_format_bytes(total), *have = sim_format_bytes(room);
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "--inputs: the data of the inputs in %s takes %s, more "
                    "than the %s the run may hold", set, want, have);
        g_free(want);
        g_free(have);
        return FALSE;
    }
    return TRUE;
}

GPtrArray *zoo_read_inputs(const Model *m, const char *dir, GError **error)
{
    char *set = data_set(dir);
    if (!inputs_fit(m, set, error)) {
        g_free(set);
        return NULL;
    }
    GPtrArray *inputs = g_ptr_array_new_with_free_func((GDestroyNotify)tensor_data_free);
    guint i = 0, k = 0;
    for (const Tensor *t; (t = next_data_input(m, &i)); k++) {
        char *path = file_in(set, "input", k);
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

gboolean zoo_bind_dims(const Model *m, const GPtrArray *inputs, ShapeOptions *shape, GString *bound_text,
                       GError **error)
{
    guint i = 0, k = 0;
    for (const Tensor *t; (t = next_data_input(m, &i)); k++) {
        const TensorData *d = inputs->pdata[k];
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
                if (ok)
                    g_string_append_printf(bound_text, "%s%s", bound_text->len ? "," : "", spec);
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
    guint i = 0, k = 0;
    for (const Tensor *t; (t = next_data_input(m, &i)); k++) {
        if (!executor_set_input(e, t->name, inputs->pdata[k], error))
            return FALSE;
    }
    return TRUE;
}

/* One output against its expected tensor, every element; FALSE at a mismatch of type, dims, an integer or a NaN
 * (first index in *first), or with *first set to the first float beyond the tolerance. */
static gboolean compare_output(const ExecTensor *x, const ExecTensor *w, double rtol, double atol, ZooExpect *s,
                               gsize *first, gboolean *beyond)
{
    gboolean floats = dtype_is_float(x->dtype);
    *beyond = FALSE;
    for (gsize j = 0; j < x->count; j++) {
        double a = kernel_elem_get_f(x, j), b = kernel_elem_get_f(w, j);
        if (!floats) {
            if (kernel_elem_get_i(x, j) != kernel_elem_get_i(w, j)) {
                *first = j;
                return FALSE;
            }
            continue;
        }
        if (isnan(a) || isnan(b)) {
            if (isnan(a) != isnan(b)) {
                *first = j;
                return FALSE;
            }
            continue;
        }
        if (a == b) /* equal infinities too */
            continue;
        double off = fabs(a - b), allowed = atol + rtol * fabs(b);
        if (!isfinite(off)) {
            *first = j;
            return FALSE;
        }
        s->max_abs = MAX(s->max_abs, off);
        if (b != 0)
            s->max_rel = MAX(s->max_rel, off / fabs(b));
        s->need_atol = MAX(s->need_atol, off - rtol * fabs(b));
        s->need_rtol = off <= atol ? s->need_rtol : b == 0 ? INFINITY : MAX(s->need_rtol, (off - atol) / fabs(b));
        if (allowed > 0)
            s->worst = MAX(s->worst, off / allowed);
        if (off > allowed && !*beyond) {
            *beyond = TRUE;
            *first = j;
        }
    }
    return !*beyond;
}

/* v rounded up to three significant digits (what %.3g prints of it is at least v): a tolerance that passes. */
static double up3(double v)
{
    if (!(v > 0) || !isfinite(v))
        return v;
    double scale = pow(10, floor(log10(v)) - 2), up = ceil(v / scale) * scale;
    return up < v ? up + scale : up;
}

gboolean zoo_expect_outputs(const Executor *e, const char *dir, double rtol, double atol, ZooExpect *stats,
                            GError **error)
{
    char *set = data_set(dir);
    gboolean ok = TRUE;
    *stats = (ZooExpect){0};
    for (guint k = 0; ok && k < executor_output_count(e); k++) {
        const char *name;
        const ExecTensor *x = executor_output(e, k, &name);
        char *path = file_in(set, "output", k);
        TensorData *want = onnx_read_tensor_file(path, error);
        gboolean same_dims = want && want->rank == x->rank &&
                             (!x->rank || !memcmp(want->dims, x->dims, sizeof(gint64) * (gsize)x->rank));
        if (!want) {
            g_prefix_error(error, "--expect: %s: ", path);
            ok = FALSE;
        } else if (want->dtype != x->dtype || !same_dims) {
            char *got = graph_dims_to_string(x->rank, x->dims), *wanted = graph_dims_to_string(want->rank, want->dims);
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "--expect: %s holds %s %s, but output '%s' is %s %s", path,
                        dtype_name(want->dtype), wanted, name, dtype_name(x->dtype), got);
            g_free(got);
            g_free(wanted);
            ok = FALSE;
        } else if (!want->raw || g_bytes_get_size(want->raw) != x->count * dtype_size(x->dtype)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "--expect: %s holds %" G_GSIZE_FORMAT " bytes, not the %"
                        G_GSIZE_FORMAT " of output '%s'", path, want->raw ? g_bytes_get_size(want->raw) : 0,
                        x->count * dtype_size(x->dtype), name);
            ok = FALSE;
        } else {
            ExecTensor w = *x;
            w.data = (void *)g_bytes_get_data(want->raw, NULL);
            gsize first = 0;
            gboolean beyond;
            ok = compare_output(x, &w, rtol, atol, stats, &first, &beyond);
            if (!ok && beyond)
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "--expect: output '%s' element %" G_GSIZE_FORMAT
                            " is %.9g, the expected %.9g (%s) is beyond rtol %g and atol %g; over all of it the largest "
                            "error is %.3g (%.3g relative): --atol %.3g or --rtol %.3g would pass", name, first,
                            kernel_elem_get_f(x, first), kernel_elem_get_f(&w, first), path, rtol, atol, stats->max_abs,
                            stats->max_rel, up3(stats->need_atol), up3(stats->need_rtol));
            else if (!ok)
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "--expect: output '%s' element %" G_GSIZE_FORMAT
                            " is %.9g, the expected %.9g (%s)%s", name, first, kernel_elem_get_f(x, first),
                            kernel_elem_get_f(&w, first), path,
                            dtype_is_float(x->dtype) ? "" : " (integers match exactly)");
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
    gboolean made = !g_file_test(dir, G_FILE_TEST_EXISTS);
    if (g_mkdir_with_parents(dir, 0755) != 0 || !g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "--dump-outputs: cannot make the folder %s", dir);
        return FALSE;
    }
    /* each file created new (never over a file, a symlink or a FIFO the folder holds); a failure removes the files
     * this dump created, and the folder when it made it */
    GPtrArray *created = g_ptr_array_new_with_free_func(g_free);
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < executor_output_count(e); k++) {
        const char *name;
        const ExecTensor *x = executor_output(e, k, &name);
        TensorData *d = tensor_data_new(name, x->dtype, x->rank, x->dims);
        d->raw = g_bytes_new(x->data, x->count * dtype_size(x->dtype));
        GBytes *bytes = onnx_write_tensor_bytes(d);
        gsize len;
        const void *data = g_bytes_get_data(bytes, &len);
        char *path = file_in(dir, "output", k);
        ok = sim_create_file(path, data, len, error);
        if (ok)
            g_ptr_array_add(created, g_strdup(path));
        else if (g_error_matches(*error, SIM_ERROR, SIM_ERROR_IO) && strstr((*error)->message, "exists already")) {
            g_clear_error(error);
            g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "--dump-outputs: %s exists already: a dump writes new files "
                        "only, never over one (remove it, or name another folder)", path);
        } else
            g_prefix_error(error, "--dump-outputs: %s: ", path);
        g_bytes_unref(bytes);
        g_free(path);
        tensor_data_free(d);
    }
    if (!ok) {
        for (guint k = 0; k < created->len; k++)
            g_unlink(created->pdata[k]);
        if (made)
            g_rmdir(dir);
    }
    g_ptr_array_unref(created);
    return ok;
}
