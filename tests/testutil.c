/* testutil.c — helpers shared by the test programs (see testutil.h). */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

const PlaceOptions test_place_options = {
    .budget_seconds = 600, .max_nodes = 5000, .seed = 1, .climb_steps = 30, .search_max = 1000,
    .portfolio = registry_place,
};

gboolean test_infer(Model *m, const char *const *dims, GError **error)
{
    ShapeOptions o;
    shape_options_init(&o);
    gboolean ok = TRUE;
    for (const char *const *d = dims; ok && d && *d; d++)
        ok = shape_options_add_dim(&o, *d, error);
    ok = ok && shape_infer(m, &o, error);
    shape_options_clear(&o);
    return ok;
}

char *test_type_of(const Model *m, const char *tensor)
{
    const Tensor *t = graph_tensor(m->graph, tensor);
    if (!t || !t->shape_known)
        return g_strdup("?");
    char *dims = graph_dims_to_string(t->rank, t->dims);
    char *s = g_strdup_printf("%s%s", dtype_name(t->dtype), dims);
    g_free(dims);
    return s;
}

char *test_finish_error(Builder *b, const char *const *dims)
{
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    if (m)
        test_infer(m, dims, &error);
    model_free(m);
    if (!error)
        return NULL;
    char *msg = g_strdup(error->message);
    g_error_free(error);
    return msg;
}

RunResult test_run(const char *binary_env, const char *const *args)
{
    RunResult r = {0};
    const char *bin = g_getenv(binary_env);
    g_assert_nonnull(bin);
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (gpointer)bin);
    for (const char *const *a = args; *a; a++)
        g_ptr_array_add(argv, (gpointer)*a);
    g_ptr_array_add(argv, NULL);
    GError *error = NULL;
    int wait_status = 0;
    gboolean ok = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out, &r.err,
                               &wait_status, &error);
    g_assert_no_error(error);
    g_assert_true(ok);
    r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    g_ptr_array_unref(argv);
    return r;
}

void run_result_clear(RunResult *r)
{
    g_free(r->out);
    g_free(r->err);
}

static char *scratch_dir;

/* Removes a folder and everything under it; symlinks are removed, never followed. */
static void remove_tree(const char *path)
{
    GStatBuf st;
    if (g_lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        GDir *d = g_dir_open(path, 0, NULL);
        const char *name;
        while (d && (name = g_dir_read_name(d))) {
            char *p = g_build_filename(path, name, NULL);
            remove_tree(p);
            g_free(p);
        }
        if (d)
            g_dir_close(d);
        g_rmdir(path);
    } else {
        g_remove(path);
    }
}

static void remove_scratch(void)
{
    remove_tree(scratch_dir);
    g_free(scratch_dir);
}

char *test_scratch_path(const char *name)
{
    if (!scratch_dir) {
        scratch_dir = g_dir_make_tmp("arenasim-test-XXXXXX", NULL);
        g_assert_nonnull(scratch_dir);
        atexit(remove_scratch);
    }
    return g_build_filename(scratch_dir, name, NULL);
}

char *test_write_scratch(const char *name, const void *data, gsize len)
{
    char *path = test_scratch_path(name);
    g_assert_true(g_file_set_contents(path, data, (gssize)len, NULL));
    return path;
}

char *test_read_file(const char *path)
{
    char *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return text;
}

guint test_count_lines(const char *path)
{
    char *text = test_read_file(path);
    guint n = 0;
    for (const char *c = text; *c; c++)
        n += *c == '\n';
    g_free(text);
    return n;
}

char *test_source_path(const char *name)
{
    return g_build_filename(g_getenv("SIM_SOURCE_DIR"), name, NULL);
}

void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        g_error("expected to find\n  %s\nin\n%s", needle, haystack);
}

AliasMap *test_alias_trace(const Graph *g, const LayoutOptions *layout, const char *alias, Trace **trace, GError **error)
{
    const AliasStrategy **chosen = registry_alias_list_resolve(alias, error);
    *trace = NULL;
    AliasMap *m = chosen ? pipeline_alias_trace(g, g->order, layout, chosen, NULL, trace, error) : NULL;
    g_free(chosen);
    return m;
}

Trace *trace_from_graph(const Graph *g, const GPtrArray *schedule, const LayoutOptions *o, GError **error)
{
    Trace *t = NULL;
    alias_map_free(pipeline_alias_trace(g, schedule, o, NULL, NULL, &t, error));
    return t;
}

char *test_write_symbolic_graph(void)
{
    Builder *b = builder_new("sym", 13);
    builder_input_sym(b, "ids", DT_FLOAT, 2, (const gint64[]){-1, -1}, (const char *[]){"batch", "seq"});
    builder_output(b, B_OP(b, "Relu", "ids"));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_scratch_path("sym.onnx");
    g_assert_true(onnx_write_file(m, path, &error));
    model_free(m);
    return path;
}

gboolean test_cpu_has_avx512_core(void)
{
    char *info = NULL;
    if (!g_file_get_contents("/proc/cpuinfo", &info, NULL, NULL))
        return FALSE;
    gboolean has = strstr(info, " avx512f") && strstr(info, " avx512bw") && strstr(info, " avx512vl") &&
                   strstr(info, " avx512dq");
    g_free(info);
    return has;
}

char *test_write_model(Model *m, const char *name)
{
    char *path = test_scratch_path(name);
    GError *error = NULL;
    g_assert_true(onnx_write_file(m, path, &error));
    g_assert_no_error(error);
    model_free(m);
    return path;
}

const char *const test_corpus_graphs[] = {"gpt2", "block", "mlp", "noop-chain", "branches", "pinned", "gather",
                                          "slice", "concat", "split", "chained-concat", "densenet", "unet",
                                          "inception", "random", NULL};

char *test_corpus_graph_path(const char *name)
{
    char *file = g_strconcat(name, ".onnx", NULL);
    char *path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", file, NULL);
    g_free(file);
    return path;
}

static guint sample_every(const char *variable)
{
    const char *every = g_getenv(variable);
    guint64 n = every ? g_ascii_strtoull(every, NULL, 10) : 1;
    return n >= 1 && n <= 1000 ? (guint)n : 1;
}

gboolean test_sampled_by(const char *variable, guint k)
{
    return k % sample_every(variable) == 0;
}

gboolean test_sampled(guint k)
{
    return test_sampled_by("ARENASIM_TEST_SAMPLE", k);
}

gboolean test_add_case(const char *path, const char *data, GTestDataFunc fn)
{
    static guint seen;
    if (!test_sampled(seen++))
        return FALSE;
    g_test_add_data_func_full(path, g_strdup(data), fn, g_free);
    return TRUE;
}

Model *test_decode_step(gint64 past, gboolean reshape)
{
    Builder *b = builder_new("decode", 13);
    const gint64 dp[] = {1, 3, past, 4}, dx[] = {1, 3, 1, 4};
    if (past < 0) /* the cache length a symbolic dim, bound to 3 for the shapes */
        builder_input_sym(b, "past_key_values.0.key", DT_FLOAT, 4, dp, (const char *const[]){NULL, NULL, "past_seq",
                                                                                            NULL});
    else
        builder_input(b, "past_key_values.0.key", DT_FLOAT, 4, dp);
    builder_input(b, "x", DT_FLOAT, 4, dx);
    const char *k = B_OP(b, "Relu", "x");
    const char *present_name[] = {"present.0.key"};
    builder_node(b, "Concat", (const char *const[]){"past_key_values.0.key", k, NULL}, 1, present_name,
                 attr_new_int("axis", 2), NULL);
    const gint64 perm[] = {0, 1, 3, 2};
    const char *t = B_OPA(b, "Transpose", attr_new_ints("perm", perm, 4), "present.0.key");
    const char *s = B_OP(b, "MatMul", "x", t);
    builder_output(b, "present.0.key");
    builder_output(b, s);
    if (reshape) {
        const char *shape = builder_int_vec(b, "flat", 2, (const gint64[]){1, -1});
        const char *r = B_OP(b, "Reshape", "present.0.key", shape);
        builder_output(b, B_OPA(b, "ReduceSum", attr_new_int("keepdims", 0), r));
    }
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, past < 0 ? (const char *const[]){"past_seq=3", NULL} : NULL, &error));
    g_assert_no_error(error);
    return m;
}

Model *test_prefill_step(void)
{
    Builder *b = builder_new("prefill", 13);
    builder_input(b, "x", DT_FLOAT, 4, (const gint64[]){1, 3, 3, 4});
    const char *present_name[] = {"present.0.key"};
    builder_node(b, "Relu", (const char *const[]){"x", NULL}, 1, present_name, NULL);
    builder_output(b, "present.0.key");
    builder_output(b, B_OPA(b, "ReduceSum", attr_new_int("keepdims", 0), "present.0.key"));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    g_assert_no_error(error);
    return m;
}
