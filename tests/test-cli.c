/* test-cli.c — the `sim` and `mkgraph` binaries end to end: the gpt2 summary, exit codes, and the
 * one-line errors for missing, empty, truncated and non-protobuf files and for usage mistakes. */
#include "testutil.h"

#include <string.h>

static char *gpt2_path(void) { return g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL); }

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        g_error("expected to find\n  %s\nin\n%s", needle, haystack);
}

static void test_gpt2_info(void)
{
    char *path = gpt2_path();
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--info", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.err, ==, "");
    /* 12 blocks of 34 nodes, 7 for the embeddings, final LayerNorm and logits MatMul (docs/corpus.md). */
    assert_contains(r.out, "nodes          417 in 16 op types\n");
    assert_contains(r.out, "  MatMul                   73\n");
    assert_contains(r.out, "  LayerNormalization       25\n");
    assert_contains(r.out, "opset          ai.onnx 17\n");
    /* Hand-computed in docs/corpus.md: 12 x 29,097,984 + 1,181,720 + 393,216. */
    assert_contains(r.out, "activations    350,750,744 B (334.5 MiB)\n");
    assert_contains(r.out, "largest        'logits' FLOAT [1,128,50257], 25,731,584 B (24.5 MiB)\n");
    assert_contains(r.out, "shapes         all known\n");
    run_result_clear(&r);
    g_free(path);
}

static void expect_failure(const char *const *args, int status, const char *stderr_line)
{
    RunResult r = test_run("SIM_BIN", args);
    g_assert_cmpint(r.status, ==, status);
    g_assert_cmpstr(r.out, ==, "");
    g_assert_cmpstr(r.err, ==, stderr_line);
    run_result_clear(&r);
}

static void test_file_errors(void)
{
    char *missing = test_scratch_path("missing.onnx");
    char *line = g_strdup_printf("sim: %s: cannot read: no such file\n", missing);
    expect_failure((const char *[]){"--graph", missing, NULL}, 1, line);
    g_free(line);

    char *empty = test_write_scratch("empty.onnx", "", 0);
    line = g_strdup_printf("sim: %s: file is empty, not an ONNX model\n", empty);
    expect_failure((const char *[]){"--graph", empty, NULL}, 1, line);
    g_free(line);

    char *src = gpt2_path(), *data;
    gsize len;
    g_assert_true(g_file_get_contents(src, &data, &len, NULL));
    char *truncated = test_write_scratch("truncated.onnx", data, len / 2);
    line = g_strdup_printf("sim: %s: not a valid ONNX protobuf (truncated or corrupt, %zu bytes)\n", truncated, len / 2);
    expect_failure((const char *[]){"--graph", truncated, NULL}, 1, line);
    g_free(line);

    const char text[] = "this is a text file, not a model\n";
    char *garbage = test_write_scratch("text.onnx", text, sizeof text - 1);
    line = g_strdup_printf("sim: %s: not a valid ONNX protobuf (truncated or corrupt, %zu bytes)\n", garbage,
                           sizeof text - 1);
    expect_failure((const char *[]){"--graph", garbage, NULL}, 1, line);
    g_free(line);

    char *folder = g_path_get_dirname(empty);
    line = g_strdup_printf("sim: %s: cannot read: is a directory\n", folder);
    expect_failure((const char *[]){"--graph", folder, NULL}, 1, line);
    g_free(line);
    g_free(folder);
    g_free(data);
    g_free(src);
    g_free(missing);
    g_free(empty);
    g_free(truncated);
    g_free(garbage);
}

static void test_usage_errors(void)
{
    expect_failure((const char *[]){NULL}, 2, "sim: no graph given: use --graph FILE (see sim --help)\n");
    expect_failure((const char *[]){"--frobnicate", NULL}, 2, "sim: Unknown option --frobnicate (see sim --help)\n");
    char *path = gpt2_path();
    expect_failure((const char *[]){"--graph", path, "--dim", "batch", NULL}, 2,
                   "sim: --dim 'batch' is not NAME=VALUE (see sim --help)\n");
    expect_failure((const char *[]){"--graph", path, "--dim", "batch=0", NULL}, 2,
                   "sim: --dim 'batch=0': VALUE must be a positive integer (see sim --help)\n");
    expect_failure((const char *[]){"--graph", path, "extra", NULL}, 2,
                   "sim: unexpected argument 'extra' (see sim --help)\n");
    g_free(path);

    RunResult r = test_run("SIM_BIN", (const char *[]){"--help", NULL});
    g_assert_cmpint(r.status, ==, 0);
    for (const char *const *opt = (const char *[]){"--graph", "--dim", "--info", "--allow-unknown-ops", "--list-ops",
                                                   "--version", NULL};
         *opt; opt++)
        assert_contains(r.out, *opt);
    run_result_clear(&r);
}

/* Symbolic dims through the CLI: unbound is an error naming them, --dim binds them. */
static void test_dim_binding(void)
{
    Builder *b = builder_new("sym", 13);
    b_input_sym(b, "ids", DT_FLOAT, 2, (const gint64[]){-1, -1}, (const char *[]){"batch", "seq"});
    b_output(b, B_OP(b, "Relu", "ids"));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_scratch_path("sym.onnx");
    g_assert_true(onnx_write_file(m, path, &error));
    model_free(m);
    char *line = g_strdup_printf("sim: %s: unbound symbolic dimensions: batch (input 'ids' dim 0), seq (input 'ids' "
                                 "dim 1); bind each with --dim NAME=VALUE\n", path);
    expect_failure((const char *[]){"--graph", path, NULL}, 1, line);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--dim", "batch=4", "--dim", "seq=16", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "inputs         256 B\n");
    run_result_clear(&r);
    g_free(line);
    g_free(path);
}

static void test_mkgraph(void)
{
    RunResult r = test_run("MKGRAPH_BIN", (const char *[]){"--list", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "gpt2 — ");
    run_result_clear(&r);
    r = test_run("MKGRAPH_BIN", (const char *[]){"nosuch", "-o", "x.onnx", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "mkgraph: unknown family 'nosuch'");
    run_result_clear(&r);
    r = test_run("MKGRAPH_BIN", (const char *[]){"gpt2", "--heads", "5", "-o", "x.onnx", NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "heads dividing d-model");
    run_result_clear(&r);

    /* A small GPT-2 written and summarised: 2 blocks of 34 nodes + 9. */
    char *path = test_scratch_path("gpt2-small.onnx");
    r = test_run("MKGRAPH_BIN", (const char *[]){"gpt2", "--layers", "2", "--d-model", "64", "--heads", "4", "--seq",
                                                 "16", "--vocab", "100", "-o", path, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "nodes          77 in 16 op types\n");
    run_result_clear(&r);
    g_free(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/cli/gpt2-info", test_gpt2_info);
    g_test_add_func("/cli/file-errors", test_file_errors);
    g_test_add_func("/cli/usage-errors", test_usage_errors);
    g_test_add_func("/cli/dim-binding", test_dim_binding);
    g_test_add_func("/cli/mkgraph", test_mkgraph);
    return g_test_run();
}
