/* test-trust.c — the third round of hostile input (issue 61), the cases that succeed or fail after a report:
 * window arithmetic a kernel's workspace could not hold, an order that gives up inside a table, numbers a
 * paper would copy. The cases that end in one error line are in the bad-input corpus (tests/data/bad/). */
#include "tests/testutil.h"

#include <json-glib/json-glib.h>
#include <string.h>

static char *write_model(Model *m, const char *file)
{
    char *path = test_scratch_path(file);
    GError *error = NULL;
    g_assert_true(onnx_write_file(m, path, &error));
    g_assert_no_error(error);
    model_free(m);
    return path;
}

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        g_error("expected to find\n%s\nin\n%s", part, text);
}

/* A depthwise convolution whose stride (2^62) is far past its plane and whose pads are 2^20: one output row,
 * which reads only padding, so every output is its channel's bias. The phased depthwise path counted its
 * scratch as strides x phases, which wrapped, and wrote past the workspace (SIGSEGV); now the im2col path runs
 * it, and the outputs are the two biases. */
static void test_depthwise_huge_stride(void)
{
    Builder *b = builder_new("dw", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 4, (const gint64[]){1, 2, 8, 8});
    const char *w = builder_weight(b, "w", DT_FLOAT, 4, (const gint64[]){2, 1, 1, 1}, TRUE);
    const char *bias = builder_weight(b, "b", DT_FLOAT, 1, (const gint64[]){2}, TRUE);
    builder_output(b, builder_node(b, "Conv", (const char *const[]){x, w, bias, NULL}, 1, (const char *[]){"y"},
                                   attr_new_int("group", 2),
                                   attr_new_ints("strides", (const gint64[]){(gint64)1 << 62, 1}, 2),
                                   attr_new_ints("pads", (const gint64[]){1 << 20, 0, 1 << 20, 0}, 4), NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    const Tensor *bt = graph_tensor(m->graph, "b");
    Value *v = tensor_data_value(bt->init);
    double lo = MIN(value_get_f(v, 0), value_get_f(v, 1)), hi = MAX(value_get_f(v, 0), value_get_f(v, 1));
    value_free(v);
    g_assert_cmpfloat(lo, !=, hi); /* not a degenerate output: two different values */
    char *path = write_model(m, "dw.onnx");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--run", "--check", "--poison", NULL});
    if (r.status != 0)
        g_error("the run fails: %s", r.err);
    char *range = g_strdup_printf("'y' FLOAT: 16 elements, 0 NaN, 0 infinite, from %.6g to %.6g", lo, hi);
    assert_contains(r.out, range);
    assert_contains(r.out, "bit for bit, with poison");
    g_free(range);
    run_result_clear(&r);
    g_free(path);
}

/* --compare --orders with an order that gives up (optimal past --order-budget): its row in every format says so
 * and carries no figures, the run succeeds on the others, and the table reads back for a plot. The CSV row's
 * empty cells crashed the writer (a NULL detail). */
static void test_orders_gave_up(void)
{
    char *graph = test_scratch_path("random60.onnx");
    RunResult r = test_run("MKGRAPH_BIN", (const char *[]){"random", "--nodes", "60", "--seed", "3", "-o", graph, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    const char *formats[] = {"text", "md", "csv", "json"};
    char *csv = test_scratch_path("orders.csv");
    for (gsize k = 0; k < G_N_ELEMENTS(formats); k++) {
        r = test_run("SIM_BIN", (const char *[]){"--graph", graph, "--compare", "--orders", "topo,optimal", "--order-budget",
                                                 "1000", "--format", formats[k], NULL});
        if (r.status != 0)
            g_error("--format %s: status %d: %s", formats[k], r.status, r.err);
        assert_contains(r.err, "order optimal: the exact order gave up after");
        if (!strcmp(formats[k], "csv")) {
            char **lines = g_strsplit(r.out, "\n", -1);
            g_assert_cmpuint(g_strv_length(lines), >=, 3);
            g_assert_nonnull(strstr(lines[1], ",topo,best,"));
            g_assert_nonnull(strstr(lines[2], ",optimal,best,,,,,,,,,,,no,\"failed: order optimal: the exact order gave up"));
            g_strfreev(lines);
            g_assert_true(g_file_set_contents(csv, r.out, -1, NULL));
        } else if (!strcmp(formats[k], "json")) {
            JsonParser *p = json_parser_new();
            g_assert_true(json_parser_load_from_data(p, r.out, -1, NULL));
            JsonArray *rows = json_node_get_array(json_parser_get_root(p));
            g_assert_cmpuint(json_array_get_length(rows), ==, 2);
            JsonObject *failed = json_array_get_object_element(rows, 1);
            g_assert_true(json_object_get_null_member(failed, "arena_bytes"));
            g_assert_true(g_str_has_prefix(json_object_get_string_member(failed, "detail"), "failed: order optimal"));
            g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(rows, 0), "arena_bytes"), >, 0);
            g_object_unref(p);
        } else {
            assert_contains(r.out, "optimal");
        }
        run_result_clear(&r);
    }
    /* the table reads back: the failed row has nothing to draw */
    char *png = test_scratch_path("orders.png");
    r = test_run("SIM_BIN", (const char *[]){"--from", csv, "--plot", "compare", "--out", png, NULL});
    if (r.status != 0)
        g_error("--from: %s", r.err);
    run_result_clear(&r);
    g_assert_true(g_file_test(png, G_FILE_TEST_IS_REGULAR));
    g_free(png);
    g_free(csv);
    g_free(graph);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/trust/depthwise-huge-stride", test_depthwise_huge_stride);
    g_test_add_func("/trust/orders-gave-up", test_orders_gave_up);
    return g_test_run();
}
