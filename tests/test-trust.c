/* test-trust.c — the third round of hostile input (issue 61), the cases that succeed or fail after a report:
 * window arithmetic a kernel's workspace could not hold, an order that gives up inside a table, numbers a
 * paper would copy. The cases that end in one error line are in the bad-input corpus (tests/data/bad/). */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A run of the sim binary with these arguments. */
#define SIM(...) test_run("SIM_BIN", (const char *[]){__VA_ARGS__, NULL})

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
    char *path = test_write_model(m, "dw.onnx");
    RunResult r = SIM("--graph", path, "--run", "--check", "--poison");
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
    RunResult r = test_run("MKGRAPH_BIN",
                           (const char *[]){"random", "--nodes", "60", "--seed", "3", "-o", graph, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    const char *formats[] = {"text", "md", "csv", "json"};
    char *csv = test_scratch_path("orders.csv");
    for (gsize k = 0; k < G_N_ELEMENTS(formats); k++) {
        r = SIM("--graph", graph, "--compare", "--orders", "topo,optimal", "--order-budget",
                                                 "1000", "--format", formats[k]);
        if (r.status != 0)
            g_error("--format %s: status %d: %s", formats[k], r.status, r.err);
        assert_contains(r.err, "order optimal: the exact order gave up after");
        if (!strcmp(formats[k], "csv")) {
            char **lines = g_strsplit(r.out, "\n", -1);
            g_assert_cmpuint(g_strv_length(lines), >=, 3);
            g_assert_nonnull(strstr(lines[1], ",topo,best,"));
            g_assert_nonnull(
                strstr(lines[2], ",optimal,best,,,,,,,,,,,no,\"failed: order optimal: the exact order gave up"));
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
    r = SIM("--from", csv, "--plot", "compare", "--out", png);
    if (r.status != 0)
        g_error("--from: %s", r.err);
    run_result_clear(&r);
    g_assert_true(g_file_test(png, G_FILE_TEST_IS_REGULAR));
    g_free(png);
    g_free(csv);
    g_free(graph);
}

/* output_0.pb in a folder of its own: FLOAT of the given dims and values. Its folder, newly allocated. */
static char *write_expected(const char *folder, int rank, const gint64 *dims, const float *values, gsize n)
{
    char *dir = test_scratch_path(folder);
    g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
    TensorData *d = tensor_data_new("y", DT_FLOAT, rank, dims);
    d->raw = g_bytes_new(values, n * sizeof(float));
    char *path = g_build_filename(dir, "output_0.pb", NULL);
    GError *error = NULL;
    g_assert_true(onnx_write_tensor_file(d, path, &error));
    g_assert_no_error(error);
    tensor_data_free(d);
    g_free(path);
    return dir;
}

/* --expect holds dims, not only element counts (an expected [3,2] passed for a [2,3] output), reports the largest
 * error on every run, and a failure says how far off the output was and what tolerance would pass. */
static void test_expect_dims_and_errors(void)
{
    Builder *b = builder_new("expect", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){2, 3});
    builder_output(b, builder_node(b, "Abs", (const char *const[]){x, NULL}, 1, (const char *[]){"y"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_write_model(m, "expect.onnx");
    /* the inputs: x = [-1, 2, -3, 4, -5, 6], so y = [1, 2, 3, 4, 5, 6] */
    char *inputs = test_scratch_path("expect-inputs");
    g_assert_cmpint(g_mkdir_with_parents(inputs, 0755), ==, 0);
    TensorData *in = tensor_data_new("x", DT_FLOAT, 2, (const gint64[]){2, 3});
    const float xs[] = {-1, 2, -3, 4, -5, 6}, ys[] = {1, 2, 3, 4, 5, 6};
    in->raw = g_bytes_new(xs, sizeof xs);
    char *in_path = g_build_filename(inputs, "input_0.pb", NULL);
    g_assert_true(onnx_write_tensor_file(in, in_path, &error));
    tensor_data_free(in);
    g_free(in_path);
    char *transposed = write_expected("expect-transposed", 2, (const gint64[]){3, 2}, ys, 6);
    RunResult r = SIM("--graph", path, "--inputs", inputs, "--run", "--expect", transposed);
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "holds FLOAT [3,2], but output 'y' is FLOAT [2,3]");
    run_result_clear(&r);
    /* 4e-6 off at 6, 1e-6 off at 1: within the defaults, and the report says how far */
    const float near[] = {1 + 1e-6f, 2, 3, 4, 5, 6 - 4e-6f};
    char *close = write_expected("expect-close", 2, (const gint64[]){2, 3}, near, 6);
    r = SIM("--graph", path, "--inputs", inputs, "--run", "--expect", close);
    if (r.status != 0)
        g_error("within the default tolerance: %s", r.err);
    assert_contains(r.out, "within rtol 0.001 and atol 1e-05 of ");
    assert_contains(r.out, "(largest error 3.81e-06, 9.54e-07 relative;");
    run_result_clear(&r);
    /* the same at rtol 0, atol 1e-6: element 5 fails (3.81e-6 off); --atol 3.82e-6, or an rtol of 4.7e-7 beside
     * the atol, would pass: each checked below */
    r = SIM("--graph", path, "--inputs", inputs, "--run", "--expect", close, "--rtol", "0",
                                             "--atol", "1e-6");
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "output 'y' element 5 is 6, the expected 5.99999619");
    assert_contains(r.err, "is beyond rtol 0 and atol 1e-06; over all of it the largest error is 3.81e-06 (9.54e-07 "
                           "relative): --atol 3.82e-06 or --rtol 4.7e-07 would pass");
    run_result_clear(&r);
    const char *passing[][4] = {{"--rtol", "0", "--atol", "3.82e-06"}, {"--rtol", "4.7e-07", "--atol", "1e-6"}};
    for (gsize k = 0; k < G_N_ELEMENTS(passing); k++) {
        r = SIM("--graph", path, "--inputs", inputs, "--run", "--expect", close,
                                                 passing[k][0], passing[k][1], passing[k][2], passing[k][3]);
        if (r.status != 0)
            g_error("%s %s %s %s: %s", passing[k][0], passing[k][1], passing[k][2], passing[k][3], r.err);
        run_result_clear(&r);
    }
    g_free(close);
    g_free(transposed);
    g_free(inputs);
    g_free(path);
}

/* Alignments past PyTorch's 512 B: the pytorch strategy placed them at 512 B multiples, the verifier refused its
 * plan and every --compare of such a trace failed. Each buffer now starts at a multiple of its alignment. */
static void test_pytorch_large_alignment(void)
{
    const char *text = "arenasim-trace 1\n0 a 600 0 2\n1 b 100 1 3 align=4096\n2 c 5000 3 5 align=65536\n"
                       "3 d 512 4 6 align=1024\n4 e 70000 5 7 align=2097152\n";
    char *path = test_write_scratch("aligned.trace", text, strlen(text));
    RunResult r = SIM("--trace", path, "--strategy", "pytorch", "--map", "--format", "csv");
    if (r.status != 0)
        g_error("pytorch: %s", r.err);
    const guint64 aligns[] = {512, 4096, 65536, 1024, 2097152};
    char **lines = g_strsplit(r.out, "\n", -1);
    guint seen = 0;
    for (char **l = lines; *l; l++) {
        char **f = g_strsplit(*l, ",", -1);
        if (g_strv_length(f) == 5 && g_ascii_isdigit(f[0][0]) && strlen(f[2]) == 1) { /* offset,size,name,first,last */
            guint id = (guint)(f[2][0] - 'a');
            guint64 offset = g_ascii_strtoull(f[0], NULL, 10);
            g_assert_cmpuint(id, <, G_N_ELEMENTS(aligns));
            g_assert_cmpuint(offset % aligns[id], ==, 0);
            seen++;
        }
        g_strfreev(f);
    }
    g_strfreev(lines);
    run_result_clear(&r);
    r = SIM("--trace", path, "--compare");
    if (r.status != 0)
        g_error("--compare: %s", r.err);
    run_result_clear(&r);
    if (seen != G_N_ELEMENTS(aligns))
        g_error("the map listed %u of the %zu buffers", seen, G_N_ELEMENTS(aligns));
    g_free(path);
}

/* Numbers a paper would copy: savings below zero where a strategy needs more than no reuse (pytorch's 512 B
 * blocks; it read 0), the dims --inputs bound in the dims column (it read '-'), a --dim given twice refused (the
 * last won while the row recorded both), and ops --allow-unknown-ops planned named in the report. */
static void test_report_numbers(void)
{
    const char *text = "arenasim-trace 1\n0 a 8 0 2\n1 b 8 1 3\n2 c 8 2 4\n";
    char *trace = test_write_scratch("small.trace", text, strlen(text));
    RunResult r = SIM("--trace", trace, "--strategy", "pytorch");
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "savings        -1,008 B (-4200.00% of naive: more than no reuse at all)\n");
    run_result_clear(&r);
    r = SIM("--trace", trace, "--strategy", "pytorch", "--format", "csv");
    assert_contains(r.out, ",1032,24,1008,4200.00,24,-1008,-4200.00,");
    run_result_clear(&r);
    r = SIM("--trace", trace, "--strategy", "pytorch", "--format", "json");
    assert_contains(r.out, "\"savings_bytes\" : -1008,");
    run_result_clear(&r);
    g_free(trace);
    /* dims from the data */
    char *sym = test_write_symbolic_graph(), *inputs = test_scratch_path("sym-inputs");
    g_assert_cmpint(g_mkdir_with_parents(inputs, 0755), ==, 0);
    TensorData *in = tensor_data_new("ids", DT_FLOAT, 2, (const gint64[]){2, 5});
    float values[10] = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10};
    in->raw = g_bytes_new(values, sizeof values);
    char *in_path = g_build_filename(inputs, "input_0.pb", NULL);
    GError *error = NULL;
    g_assert_true(onnx_write_tensor_file(in, in_path, &error));
    tensor_data_free(in);
    g_free(in_path);
    r = SIM("--graph", sym, "--inputs", inputs, "--run", "--format", "csv");
    if (r.status != 0)
        g_error("--inputs: %s", r.err);
    assert_contains(r.out, ",\"batch=2,seq=5\",file,");
    run_result_clear(&r);
    r = SIM("--graph", sym, "--inputs", inputs, "--dim", "seq=5", "--run");
    assert_contains(r.out, "(dims: seq=5,batch=2)");
    run_result_clear(&r);
    r = SIM("--graph", sym, "--dim", "seq=8", "--dim", "batch=1", "--dim", "seq=16");
    g_assert_cmpint(r.status, ==, 2);
    g_assert_cmpstr(r.err, ==, "sim: --dim names 'seq' twice (see sim --help)\n");
    run_result_clear(&r);
    g_free(inputs);
    g_free(sym);
    /* an op planned from value_info is named in the text report and in the table's detail */
    char *unknown = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "tests", "data", "bad", "onnx-unknown-op.onnx", NULL);
    r = SIM("--graph", unknown, "--allow-unknown-ops");
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\nunknown ops    Frobnicate (1): planned from the file's value_info (--allow-unknown-ops)");
    run_result_clear(&r);
    r = SIM("--graph", unknown, "--allow-unknown-ops", "--format", "csv");
    assert_contains(r.out, "planned from value_info (--allow-unknown-ops): Frobnicate (1)");
    run_result_clear(&r);
    g_free(unknown);
}

/* --dump-outputs creates its files: a symlink, a FIFO or a file already in the folder is never opened (a symlink
 * was written through, a FIFO blocked for ever), a failed dump removes the files it created and keeps the
 * others, and an I/O error is one line (each began with a GLib-CRITICAL). */
static void test_dump_creates(void)
{
    Builder *b = builder_new("two", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){2, 3});
    builder_output(b, builder_node(b, "Abs", (const char *const[]){x, NULL}, 1, (const char *[]){"y"}, NULL));
    builder_output(b, builder_node(b, "Neg", (const char *const[]){x, NULL}, 1, (const char *[]){"z"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_write_model(m, "two.onnx"), *dir = test_scratch_path("dump"), *victim = test_scratch_path("victim");
    g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
    g_assert_true(g_file_set_contents(victim, "keep", -1, NULL));
    char *first = g_build_filename(dir, "output_0.pb", NULL), *second = g_build_filename(dir, "output_1.pb", NULL);
    /* a symlink at output_1.pb: refused, the target untouched, and output_0.pb (made by this run) removed */
    g_assert_cmpint(symlink(victim, second), ==, 0);
    RunResult r = SIM("--graph", path, "--run", "--allow-degenerate", "--dump-outputs", dir);
    g_assert_cmpint(r.status, ==, 1);
    char *line = g_strdup_printf("sim: --dump-outputs: %s exists already: a dump writes new files only, never over one "
                                 "(remove it, or name another folder)\n", second);
    g_assert_cmpstr(r.err, ==, line);
    g_free(line);
    run_result_clear(&r);
    char *kept = test_read_file(victim);
    g_assert_cmpstr(kept, ==, "keep");
    g_free(kept);
    g_assert_false(g_file_test(first, G_FILE_TEST_EXISTS));
    g_assert_true(g_file_test(second, G_FILE_TEST_IS_SYMLINK));
    g_unlink(second);
    /* a FIFO: refused at once, not waited on */
    g_assert_cmpint(mkfifo(first, 0644), ==, 0);
    r = SIM("--graph", path, "--run", "--allow-degenerate", "--dump-outputs", dir);
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "exists already");
    g_assert_null(strstr(r.err, "CRITICAL"));
    run_result_clear(&r);
    g_unlink(first);
    /* an empty folder: both written; a folder the run cannot make: one line */
    r = SIM("--graph", path, "--run", "--allow-degenerate", "--dump-outputs", dir);
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    g_assert_true(g_file_test(first, G_FILE_TEST_IS_REGULAR) && g_file_test(second, G_FILE_TEST_IS_REGULAR));
    char *under_file = g_build_filename(victim, "sub", NULL);
    r = SIM("--graph", path, "--run", "--allow-degenerate", "--dump-outputs", under_file);
    g_assert_cmpint(r.status, ==, 1);
    g_assert_null(strstr(r.err, "CRITICAL"));
    g_assert_cmpuint(strlen(r.err), ==, (gsize)(strchr(r.err, '\n') - r.err) + 1); /* one line */
    run_result_clear(&r);
    g_free(under_file);
    g_free(first);
    g_free(second);
    g_free(victim);
    g_free(dir);
    g_free(path);
}

static gsize put_varint(guint8 *out, guint64 v)
{
    gsize n = 0;
    do {
        out[n++] = (guint8)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* --inputs weighs every input file's header (element type, dims) against the model and the memory the run may
 * hold before it reads a byte of data: an 8 KB file on disk (sparse, 1 GiB of FLOAT) under a 100 MB limit, and
 * one of another element type than the model's input, are each one line, in no time. Both were read whole
 * first (hard links to one such file took 5.2 GB), and under a limit the reason given was "not a TensorProto". */
static void test_inputs_header_first(void)
{
    char *dir = test_scratch_path("sparse-inputs");
    g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
    guint64 n = (guint64)1 << 28;
    guint8 head[64];
    gsize len = 0;
    len += put_varint(head + len, 1 << 3); /* dims: 1, n */
    len += put_varint(head + len, 1);
    len += put_varint(head + len, 1 << 3);
    len += put_varint(head + len, n);
    len += put_varint(head + len, 2 << 3); /* data_type FLOAT */
    len += put_varint(head + len, 1);
    len += put_varint(head + len, 9 << 3 | 2); /* raw_data, 4n bytes */
    len += put_varint(head + len, 4 * n);
    char *input = g_build_filename(dir, "input_0.pb", NULL);
    FILE *f = fopen(input, "wb");
    g_assert_nonnull(f);
    g_assert_cmpuint(fwrite(head, 1, len, f), ==, len);
    g_assert_cmpint(ftruncate(fileno(f), (off_t)(len + 4 * n)), ==, 0);
    g_assert_cmpint(fclose(f), ==, 0);
    char *sym = test_write_symbolic_graph();
    g_setenv("ARENASIM_RUN_MEMORY", "100000000", TRUE);
    RunResult r = SIM("--graph", sym, "--inputs", dir, "--run");
    g_unsetenv("ARENASIM_RUN_MEMORY");
    g_assert_cmpint(r.status, ==, 1);
    char *line = g_strdup_printf("sim: %s: --inputs: the data of the inputs in %s takes 1,073,741,824 B (1.0 GiB), "
                                 "more than the 100,000,000 B (95.4 MiB) the run may hold\n", sym, dir);
    g_assert_cmpstr(r.err, ==, line);
    g_free(line);
    run_result_clear(&r);
    char *gpt2 = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL);
    r = SIM("--graph", gpt2, "--inputs", dir, "--run");
    g_assert_cmpint(r.status, ==, 1);
    line = g_strdup_printf("sim: %s: %s: holds FLOAT, but graph input 'input_ids' is INT64\n", gpt2, input);
    g_assert_cmpstr(r.err, ==, line);
    g_free(line);
    run_result_clear(&r);
    g_unlink(input);
    g_free(gpt2);
    g_free(sym);
    g_free(input);
    g_free(dir);
}

/* A kernel's accumulators are in the run's one memory account: ReduceMax over UINT8 [2^24, 1] keeps 24 B per output
 * (16 times its input), outside the account before (a [2^28, 1] one ran at 7.1 GB); under a 200 MB limit the run
 * ends with one line naming the node. */
static void test_kernel_memory_account(void)
{
    char *model = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "tests", "fuzz", "seeds", "onnx",
                                   "reduce-accumulators.onnx", NULL);
    g_setenv("ARENASIM_RUN_MEMORY", "200000000", TRUE);
    RunResult r = SIM("--graph", model, "--run", "--allow-degenerate");
    g_unsetenv("ARENASIM_RUN_MEMORY");
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, ": node 'r' (ReduceMax): its accumulators need 134,217,736 B (128.0 MiB), past what --run "
                           "may hold (the run holds ");
    g_assert_cmpuint(strlen(r.err), ==, (gsize)(strchr(r.err, '\n') - r.err) + 1);
    run_result_clear(&r);
    g_free(model);
}

/* --threads past what the system gives (here an address-space limit: 1,000 threads of 8 MiB stacks in 3 GB) is
 * one line of sim's, not libgomp's "Thread creation failed" ending the process mid-run. Not under the
 * sanitizers: AddressSanitizer's shadow memory needs more address space than the limit leaves. */
static void test_threads_past_limit(void)
{
    const char *sim = g_getenv("SIM_BIN");
    if (strstr(sim, "/build-asan/")) {
        g_test_skip("an address-space limit and AddressSanitizer do not mix");
        return;
    }
    char *gpt2 = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL);
    char *cmd = g_strdup("ulimit -v 3000000; exec \"$0\" --graph \"$1\" --run --threads 1000");
    g_setenv("TRUST_SHELL", "/bin/sh", TRUE);
    RunResult r = test_run("TRUST_SHELL", (const char *[]){"-c", cmd, sim, gpt2, NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_true(g_str_has_prefix(r.err, "sim: "));
    assert_contains(r.err, ": --threads 1000: the system gives this process ");
    g_assert_cmpuint(strlen(r.err), ==, (gsize)(strchr(r.err, '\n') - r.err) + 1);
    g_assert_null(strstr(r.err, "libgomp"));
    g_assert_cmpstr(r.out, ==, ""); /* refused before the plan's report, not after it */
    run_result_clear(&r);
    g_free(cmd);
    g_free(gpt2);
}

/* A ConvTranspose whose weight has no output channels ([4, 0, 3, 3]) runs to its empty output: the kernel passed
 * its NULL output to memset and its NULL weight to the product (UBSan's finding, under make asan). */
static void test_conv_transpose_no_channels(void)
{
    Builder *b = builder_new("ct", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 4, (const gint64[]){1, 4, 5, 5});
    const char *w = builder_weight(b, "w", DT_FLOAT, 4, (const gint64[]){4, 0, 3, 3}, TRUE);
    builder_output(b, builder_node(b, "ConvTranspose", (const char *const[]){x, w, NULL}, 1, (const char *[]){"y"},
                                   NULL));
    builder_output(b, builder_node(b, "Relu", (const char *const[]){x, NULL}, 1, (const char *[]){"r"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_write_model(m, "ct.onnx");
    RunResult r = SIM("--graph", path, "--run");
    if (r.status != 0)
        g_error("the run fails: %s", r.err);
    assert_contains(r.out, "'y' FLOAT: 0 elements");
    run_result_clear(&r);
    g_free(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/trust/depthwise-huge-stride", test_depthwise_huge_stride);
    g_test_add_func("/trust/orders-gave-up", test_orders_gave_up);
    g_test_add_func("/trust/expect-dims-and-errors", test_expect_dims_and_errors);
    g_test_add_func("/trust/pytorch-large-alignment", test_pytorch_large_alignment);
    g_test_add_func("/trust/report-numbers", test_report_numbers);
    g_test_add_func("/trust/dump-creates", test_dump_creates);
    g_test_add_func("/trust/inputs-header-first", test_inputs_header_first);
    g_test_add_func("/trust/kernel-memory-account", test_kernel_memory_account);
    g_test_add_func("/trust/threads-past-limit", test_threads_past_limit);
    g_test_add_func("/trust/conv-transpose-no-channels", test_conv_transpose_no_channels);
    return g_test_run();
}
