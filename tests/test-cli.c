/* test-cli.c — the `sim` and `mkgraph` binaries end to end: the gpt2 summary, exit codes, and the
 * one-line errors for missing, empty, truncated and non-protobuf files and for usage mistakes. */
#include "plan/place.h"
#include "plan/profile.h"
#include "report/csv-table.h"
#include "report/plot-kinds.h"
#include "report/plot.h"
#include "report/plot-table.h"
#include "strategies/registry.h"
#include "tests/testutil.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <string.h>

static char *gpt2_path(void) { return g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL); }

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
    expect_failure((const char *[]){NULL}, 2, "sim: no input: use --graph FILE or --trace FILE (see sim --help)\n");
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
    for (const char *const *opt = (const char *[]){"--graph", "--trace", "--strategy", "--compare", "--list", "--dim",
                                                   "--alias", "--pin", "--strict-runtime", "--scratch",
                                                   "--weights", "--pad-last", "--align", "--trace-out", "--format",
                                                   "--map", "--ascii", "--no-verify", "--info", "--allow-unknown-ops",
                                                   "--list-ops", "--version", NULL};
         *opt; opt++)
        assert_contains(r.out, *opt);
    run_result_clear(&r);
}

/* sim --list marks the strategies whose time is the --budget (improvers, exact search, portfolios, peers)
 * and only those: bench/plan-scaling.sh times them apart by that mark; and those that choose tiers (--tiers). */
static void test_list_budgeted(void)
{
    RunResult r = test_run("SIM_BIN", (const char *[]){"--list", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_auto(GStrv) lines = g_strsplit(r.out, "\n", -1);
    guint budgeted = 0, placement = 0;
    gboolean in_placement = FALSE;
    for (char **l = lines; *l; l++) {
        if (**l != ' ') {
            in_placement = g_str_has_prefix(*l, "placement strategies");
            continue;
        }
        if (!in_placement)
            continue;
        placement++;
        g_auto(GStrv) words = g_strsplit(g_strstrip(*l), " ", 2);
        const PlaceStrategy *s = registry_place_find(words[0]);
        g_assert_nonnull(s);
        g_assert_cmpint(g_str_has_suffix(*l, " [--budget]"), ==, place_strategy_budgeted(s));
        g_assert_cmpint(strstr(*l, " [--tiers]") != NULL, ==, s->plan_tiers != NULL); /* they choose tiers */
        budgeted += place_strategy_budgeted(s);
    }
    g_assert_cmpuint(placement, >, budgeted);
    g_assert_cmpuint(budgeted, >, 0); /* which ones: the registry's roles, not this test, say */
    run_result_clear(&r);
}

/* Symbolic dims through the CLI: unbound is an error naming them, --dim binds them. */
static void test_dim_binding(void)
{
    char *path = test_write_symbolic_graph();
    char *line = g_strdup_printf("sim: %s: unbound symbolic dimensions: batch (input 'ids' dim 0), seq (input 'ids' "
                                 "dim 1); bind each with --dim NAME=VALUE\n", path);
    expect_failure((const char *[]){"--graph", path, NULL}, 1, line);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--dim", "batch=4", "--dim", "seq=16", "--info", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "inputs         256 B\n");
    assert_contains(r.out, "shapes         all known\n");
    g_assert_null(strstr(r.out, "symbolic"));
    run_result_clear(&r);
    g_free(line);
    /* a dimension with neither a size nor a name (ONNX's unknown) is named INPUT.AXIS and bound as any other (its
     * refusal unbound: the bad-input case anonymous-dim) */
    r = test_run("SIM_BIN", (const char *[]){"--graph", "tests/data/bad/anonymous-dim.onnx", "--dim", "x.0=2", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "(dims: x.0=2)");
    assert_contains(r.out, "arena          128 B");
    run_result_clear(&r);
    /* --info works before the dims are bound: it shows them symbolic and counts what it cannot size. */
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--info", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "nodes          1 in 1 op types\n");
    assert_contains(r.out, "symbolic       batch, seq: unbound;");
    assert_contains(r.out, "  input        'ids' FLOAT [batch,seq]\n");
    assert_contains(r.out, "shapes         2 tensors without a known shape\n");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--info", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, ",unknown_shapes,unbound_dims,ops\n");
    assert_contains(r.out, ",2,batch seq,Relu=1\n");
    run_result_clear(&r);
    /* A name the graph does not declare is refused, not silently ignored (a typo would change nothing). */
    line = g_strdup_printf("sim: %s: --dim sq: the graph has no symbolic dimension of that name (it has: batch, seq)\n", path);
    expect_failure((const char *[]){"--graph", path, "--dim", "batch=4", "--dim", "sq=16", NULL}, 1, line);
    g_free(line);
    line = g_strdup_printf("sim: %s: --dim a, b: the graph has no symbolic dimension by these names (it has: batch, seq)\n", path);
    expect_failure((const char *[]){"--graph", path, "--dim", "b=4", "--dim", "a=16", NULL}, 1, line);
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

    /* A packed trace and its construction: sim replays the construction, verified, at the lower bound. A
     * trace not built as a placement has none to write: one error, and neither file. */
    char *packed = test_scratch_path("packed.csv"), *construction = test_scratch_path("packed-solution.csv");
    r = test_run("MKGRAPH_BIN", (const char *[]){"trace", "--staggered", "2", "--buffers", "90", "--seed", "7", "-o", packed,
                                                 "--solution-out", construction, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", construction, "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    char **row = g_strsplit(strchr(r.out, '\n') + 1, ",", -1);
    g_assert_cmpstr(row[6], ==, row[7]); /* arena_bytes == lower_bound_bytes */
    g_assert_cmpstr(row[14], ==, "yes");
    g_strfreev(row);
    run_result_clear(&r);
    g_remove(packed);
    g_remove(construction);
    r = test_run("MKGRAPH_BIN", (const char *[]){"trace", "--buffers", "9", "-o", packed, "--solution-out", construction, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "--solution-out: this trace is not built as a placement");
    g_assert_false(g_file_test(packed, G_FILE_TEST_EXISTS));
    g_assert_false(g_file_test(construction, G_FILE_TEST_EXISTS));
    run_result_clear(&r);
    g_free(packed);
    g_free(construction);

    /* A small GPT-2 written and summarised: 2 blocks of 34 nodes + 9. */
    char *path = test_scratch_path("gpt2-small.onnx");
    r = test_run("MKGRAPH_BIN", (const char *[]){"gpt2", "--layers", "2", "--d-model", "64", "--heads", "4", "--seq",
                                                 "16", "--vocab", "100", "-o", path, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--info", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "nodes          77 in 16 op types\n");
    run_result_clear(&r);
    g_free(path);
}

/* The main job: a strategy's plan of gpt2.onnx, verified, with the lower bound and the naive sum. */
static void test_plan_gpt2(void)
{
    char *path = gpt2_path();
    RunResult r = test_run("SIM_BIN", (const char *[]){"--strategy", "bestfit", "--graph", path, "--alias", "none", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "strategy       bestfit\n");
    assert_contains(r.out, "buffers        442\n");
    assert_contains(r.out, "lower bound    26,124,800 B (24.9 MiB) (max live bytes over steps)\n");
    assert_contains(r.out, "naive          376,483,456 B (359.0 MiB) (no reuse)\n");
    assert_contains(r.out, "verified       yes\n");
    run_result_clear(&r);

    /* --compare: one csv row per strategy under the documented header. */
    r = test_run("SIM_BIN", (const char *[]){"--compare", "--graph", path, "--format", "csv", "--alias", "none", "--budget",
                                              "2", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_true(g_str_has_prefix(r.out, "graph,dims,order,strategy,buffers,steps,arena_bytes,lower_bound_bytes,"
                                          "fragmentation_bytes,fragmentation_pct,naive_bytes,savings_bytes,savings_pct,"
                                          "plan_seconds,verified,detail,alias,no_alias_bytes,trace_bytes,saved_noop_bytes,"
                                          "saved_inplace_bytes,saved_gather_bytes,saved_slice_bytes,saved_split_bytes,"
                                          "saved_concat_bytes,saved_concat_dedup_bytes,fallbacks,search_nodes,climb_steps,optimal\n"));
    char **lines = g_strsplit(r.out, "\n", -1);
    guint strategies;
    registry_place_strategies(&strategies);
    g_assert_cmpuint(g_strv_length(lines), ==, strategies + 2); /* header, every strategy, trailing empty */
    assert_contains(r.out, ",best,442,417,26124800,26124800,0,0.00,376483456,");
    g_strfreev(lines);
    run_result_clear(&r);

    /* json parses, with numbers as numbers. */
    r = test_run("SIM_BIN", (const char *[]){"--strategy", "greedy-size", "--graph", path, "--format", "json", "--alias",
                                              "none", NULL});
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, r.out, -1, NULL));
    JsonArray *rows = json_node_get_array(json_parser_get_root(parser));
    g_assert_cmpuint(json_array_get_length(rows), ==, 1);
    JsonObject *row = json_array_get_object_element(rows, 0);
    g_assert_cmpint(json_object_get_int_member(row, "arena_bytes"), ==, 26124800);
    g_assert_cmpstr(json_object_get_string_member(row, "strategy"), ==, "greedy-size");
    g_assert_true(json_object_get_boolean_member(row, "verified"));
    g_object_unref(parser);
    run_result_clear(&r);
    g_free(path);
}

/* --map lists every buffer sorted by offset; a MiniMalloc solution replays through --trace as pins. */
static void test_map_and_trace_files(void)
{
    char *path = gpt2_path(), *csv = test_scratch_path("gpt2.csv");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--strategy", "greedy-size", "--map",
                                                       "--trace-out", csv, "--alias", "none", NULL});
    g_assert_cmpint(r.status, ==, 0);
    const char *map = strstr(r.out, "# offset size name first last\n");
    g_assert_nonnull(map);
    char **lines = g_strsplit(map, "\n", -1);
    guint64 previous = 0;
    guint count = 0;
    for (char **line = lines + 1; *line && **line; line++, count++) {
        char **f = g_strsplit(*line, " ", -1);
        g_assert_cmpuint(g_strv_length(f), ==, 5);
        guint64 offset = g_ascii_strtoull(f[0], NULL, 10);
        g_assert_cmpuint(offset, >=, previous);
        previous = offset;
        g_strfreev(f);
    }
    g_assert_cmpuint(count, ==, 442);
    g_strfreev(lines);
    run_result_clear(&r);
    /* The written trace plans to the same arena. */
    r = test_run("SIM_BIN", (const char *[]){"--trace", csv, "--strategy", "greedy-size", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, ",greedy-size,442,417,26124800,26124800,");
    run_result_clear(&r);
    /* A solution file: every offset is a pin, so any strategy returns exactly that plan. */
    const char solution[] = "id,lower,upper,size,offset\nb1,0,3,4,8\nb2,3,9,4,0\nb3,0,9,4,4\nb4,9,21,4,4\nb5,0,21,4,0\n";
    const char overlapping[] = "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,0,9,4,0\n";
    char *sol = test_write_scratch("solution.csv", solution, sizeof solution - 1);
    char *bad = test_write_scratch("overlap.csv", overlapping, sizeof overlapping - 1);
    r = test_run("SIM_BIN", (const char *[]){"--trace", sol, "--strategy", "firstfit", "--format", "csv", NULL});
    g_assert_cmpint(r.status, !=, 0); /* b2 and b5 both at 0 from step 3: an invalid solution */
    assert_contains(r.err, "share bytes [0, 4) at step 3");
    run_result_clear(&r);
    const char valid[] = "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\nb3,0,9,4,4\nb4,9,21,4,0\nb5,0,21,4,8\n";
    char *good = test_write_scratch("valid.csv", valid, sizeof valid - 1);
    r = test_run("SIM_BIN", (const char *[]){"--trace", good, "--strategy", "firstfit", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, ",firstfit,5,21,12,12,0,0.00,12,0,0.00,"); /* replayed as given; pins bind naive too */
    run_result_clear(&r);
    g_free(good);
    r = test_run("SIM_BIN", (const char *[]){"--trace", bad, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "the trace pins two buffers onto the same bytes: buffers 0 'b1' [0, 4) steps 0..2 and 1 'b2' "
                           "[0, 4) steps 0..8 share bytes");
    run_result_clear(&r);
    g_free(sol);
    g_free(bad);
    g_free(csv);
    g_free(path);
}

/* With the default aliasing, the report says what each kind of sharing saved and why ops copied. */
static void test_aliasing_report(void)
{
    char *path = gpt2_path();
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "aliasing       all: ");
    assert_contains(r.out, "\nsharing          ops shared  ops copied  bytes saved\n");
    assert_contains(r.out, "noop                     97           0  ");
    assert_contains(r.out, "split                     0          12  0 B\n");
    /* the fallbacks of one kind and reason on one line; --verbose: one a line */
    assert_contains(r.out, "\n14 fallbacks (those of one kind and reason on one line; --verbose lists each):\n");
    assert_contains(r.out, "  split: 12 nodes copy: split_runtime: axis=2 requires all leading dimensions to be 1 for "
                           "memory aliasing ('Split_n28' (Split), 'Split_n109' (Split), 'Split_n190' (Split), ...)\n");
    /* one reason whatever tensor it names: the names masked in the line, the nodes after it */
    assert_contains(r.out, "  gather: 2 nodes copy: data '...' is a weight or constant outside the arena ('Gather_n1' "
                           "(Gather), 'Gather_n15' (Gather))\n");
    g_assert_null(strstr(r.out, "Split_n919"));
    g_assert_null(strstr(r.out, "wte.weight"));
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--verbose", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\n14 fallbacks:\n");
    assert_contains(r.out, "  split: node 'Split_n28' (Split) copies: split_runtime: axis=2 requires all leading dimensions "
                           "to be 1 for memory aliasing\n");
    assert_contains(r.out, "  split: node 'Split_n919' (Split) copies: ");
    run_result_clear(&r);
    g_free(path);

    /* The same table in the json row: bytes saved per kind (they add up to the bytes sharing saved) and the
     * fallback count. gpt2: noop and in-place, 8 B of Gather; chained-concat: all of it concat-dedup's. */
    struct {
        const char *graph;
        gint64 noop, inplace, gather, concat, dedup, fallbacks;
    } cases[] = {{"gpt2.onnx", 37749760, 193855488, 8, 0, 0, 14}, {"chained-concat.onnx", 0, 0, 0, 0, 5898240, 2}};
    for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
        path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", cases[k].graph, NULL);
        r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--format", "json", NULL});
        g_assert_cmpint(r.status, ==, 0);
        JsonParser *parser = json_parser_new();
        g_assert_true(json_parser_load_from_data(parser, r.out, -1, NULL));
        JsonObject *row = json_array_get_object_element(json_node_get_array(json_parser_get_root(parser)), 0);
        g_assert_cmpint(json_object_get_int_member(row, "saved_noop_bytes"), ==, cases[k].noop);
        g_assert_cmpint(json_object_get_int_member(row, "saved_inplace_bytes"), ==, cases[k].inplace);
        g_assert_cmpint(json_object_get_int_member(row, "saved_gather_bytes"), ==, cases[k].gather);
        g_assert_cmpint(json_object_get_int_member(row, "saved_concat_bytes"), ==, cases[k].concat);
        g_assert_cmpint(json_object_get_int_member(row, "saved_concat_dedup_bytes"), ==, cases[k].dedup);
        g_assert_cmpint(json_object_get_int_member(row, "fallbacks"), ==, cases[k].fallbacks);
        gint64 sum = 0;
        for (const char *const *c = (const char *[]){"saved_noop_bytes", "saved_inplace_bytes", "saved_gather_bytes",
                                                     "saved_slice_bytes", "saved_split_bytes", "saved_concat_bytes",
                                                     "saved_concat_dedup_bytes", NULL};
             *c; c++)
            sum += json_object_get_int_member(row, *c);
        g_assert_cmpint(sum, ==, json_object_get_int_member(row, "no_alias_bytes") -
                                     json_object_get_int_member(row, "trace_bytes"));
        g_object_unref(parser);
        run_result_clear(&r);
        g_free(path);
    }
}

/* --io outside: graph inputs and outputs live in the caller's buffers (ONNX Runtime's model). In the noop
 * chain input -> Reshape -> Transpose -> Unsqueeze -> output every tensor is then a view of the caller's
 * input or the output itself: nothing is left in the arena. A pinned view must be in the arena: it copies,
 * saying why. */
static void test_io_outside(void)
{
    char *path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "noop-chain.onnx", NULL);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--io", "outside", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "arena          0 B\n");
    assert_contains(r.out, "noop                      2           0  800 B\n");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--io", "outside", "--pin", "transpose=0", "--map", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "noop                      1           1  400 B\n");
    assert_contains(r.out, "  noop: node 'Transpose_n2' (Transpose) copies: input 'reshape' is a view of a tensor outside the "
                           "arena and 'transpose' must be in the arena\n");
    assert_contains(r.out, "\n0 400 transpose 0 2\n");
    run_result_clear(&r);
    /* Inputs outside, the output in: the output is a copy of the view chain (the caller reads it from the arena). */
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--io", "inputs-outside", "--map", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "  noop: node 'Unsqueeze_n4' (Unsqueeze) copies: input 'transpose' is a view of a tensor outside "
                           "the arena and 'unsqueeze' must be in the arena\n");
    assert_contains(r.out, "\n0 400 unsqueeze 2 2\n");
    run_result_clear(&r);
    /* The default keeps them in: all four tensors are one buffer, the input's. */
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--io", "arena", "--map", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\n0 400 input 0 2\n");
    run_result_clear(&r);
    expect_failure((const char *[]){"--graph", path, "--io", "caller", NULL}, 2,
                   "sim: --io takes arena, outside or inputs-outside (see sim --help)\n");
    g_free(path);
}

/* Every report in md, csv and json: --info as one row, --map as a second table (csv, md) or in the row (json). */
static void test_report_formats(void)
{
    char *path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "unet.onnx", NULL);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--info", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    char *expected = g_strdup_printf(
        "file,model,producer,ir_version,opsets,nodes,op_types,tensors_intermediate,tensors_input,tensors_output,"
        "tensors_weight,tensors_constant,weight_bytes,constant_bytes,input_bytes,activation_bytes,output_bytes,"
        "largest_tensor,largest_bytes,unknown_shapes,unbound_dims,ops\n"
        "%s,unet,arenasim,8,ai.onnx 13,26,6,24,1,1,8,1,969472,16,49152,4325376,16384,Concat_41,786432,0,,"
        "Conv=8 Relu=8 Concat=3 MaxPool=3 Resize=3 Constant=1\n", path);
    g_assert_cmpstr(r.out, ==, expected);
    g_free(expected);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--info", "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\"activation_bytes\" : 4325376,");
    run_result_clear(&r);
    g_free(path);

    path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "noop-chain.onnx", NULL);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--alias", "none", "--map", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.out, ==, "offset,size,name,first,last\n0,400,input,0,0\n0,400,transpose,1,2\n448,400,reshape,0,1\n"
                               "448,400,unsqueeze,2,2\n");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--alias", "none", "--map", "--format", "md", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\n| offset | size | name | first | last |\n|---:|---:|---|---:|---:|\n| 0 | 400 | input | 0 | 0 |\n");
    run_result_clear(&r);
    /* --compare --format md: compact by default, every column with --wide, --wide only for md. */
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--compare", "--format", "md", NULL});
    g_assert_cmpint(r.status, ==, 0);
    char *head = g_strdup_printf("**%s** (dims -), alias all, 3 steps\n\n| order | strategy | buffers | lower bound | arena | "
                                 "over lower bound | saved vs naive | plan (s) | detail |\n", path);
    g_assert_true(g_str_has_prefix(r.out, head));
    g_free(head);
    assert_contains(r.out, "| file | naive | 1 | 400 bytes | 448 bytes | 12.00% | 0.00% | ");
    g_assert_null(strstr(r.out, "saved_noop_bytes"));
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--compare", "--format", "md", "--wide", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_true(g_str_has_prefix(r.out, "| graph | dims | order | strategy | buffers | steps | arena_bytes |"));
    assert_contains(r.out, "| saved_noop_bytes |");
    run_result_clear(&r);
    expect_failure((const char *[]){"--graph", path, "--compare", "--wide", NULL}, 2,
                   "sim: --wide widens --format md (csv and json always have every column) (see sim --help)\n");
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--alias", "none", "--map", "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, r.out, -1, NULL));
    JsonObject *row = json_array_get_object_element(json_node_get_array(json_parser_get_root(parser)), 0);
    JsonArray *plan = json_object_get_array_member(row, "plan");
    g_assert_cmpuint(json_array_get_length(plan), ==, 4);
    JsonObject *last = json_array_get_object_element(plan, 3);
    g_assert_cmpstr(json_object_get_string_member(last, "name"), ==, "unsqueeze");
    g_assert_cmpint(json_object_get_int_member(last, "offset"), ==, 448);
    g_object_unref(parser);
    run_result_clear(&r);
    g_free(path);
}

static void test_plan_usage_errors(void)
{
    char *path = gpt2_path();
    expect_failure((const char *[]){"--graph", path, "--trace", path, NULL}, 2,
                   "sim: --graph and --trace exclude each other: plan a model or a trace (see sim --help)\n");
    char *names = registry_place_names();
    char *unknown = g_strdup_printf("sim: unknown strategy 'magic' (one of: %s) (see sim --help)\n", names);
    expect_failure((const char *[]){"--graph", path, "--strategy", "magic", NULL}, 2, unknown);
    g_free(unknown);
    g_free(names);
    expect_failure((const char *[]){"--graph", path, "--info", "--compare", NULL}, 2,
                   "sim: --info prints the graph summary; --compare, --map and --ascii need a plan (see sim --help)\n");
    expect_failure((const char *[]){"--graph", path, "--format", "xml", NULL}, 2,
                   "sim: --format takes text, md, csv or json (see sim --help)\n");
    expect_failure((const char *[]){"--graph", path, "--align", "48", NULL}, 2,
                   "sim: --align takes a power of two (see sim --help)\n");
    expect_failure((const char *[]){"--graph", path, "--strategy", "search", "--search-engines", "mini", NULL}, 2,
                   "sim: --search-engines takes skyline, sections, guided or both (see sim --help)\n");
    const char text[] = "arenasim-trace 1\n0 a 10 0 1\n1 b ten 0 1\n";
    char *bad = test_write_scratch("bad.trace", text, sizeof text - 1);
    char *line = g_strdup_printf("sim: %s:3: size 'ten' is not a positive integer\n", bad);
    expect_failure((const char *[]){"--trace", bad, NULL}, 1, line);
    g_free(line);
    g_free(bad);
    g_free(path);
}

static JsonParser *load_json_file(const char *path)
{
    JsonParser *parser = json_parser_new();
    GError *error = NULL;
    g_assert_true(json_parser_load_from_file(parser, path, &error));
    g_assert_no_error(error);
    return parser;
}

/* --chrome-trace: one span per step named by its node, one counter sample per step (+ the end) whose
 * live bytes peak at the lower bound and whose spanned bytes peak at the arena; with --compare, every
 * plan in one file, each its own process. */
/* --phases: one CSV row per phase in pipeline order, each with seconds and a peak resident set, read back
 * by the table reader (bench/plan-scaling.sh fits growth from these). */
static void test_phases(void)
{
    char *mlp = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "mlp.onnx", NULL);
    char *out = test_scratch_path("phases.csv");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", mlp, "--run", "--phases", out, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    GError *error = NULL;
    CsvTable *t = csv_table_read(out, &error);
    g_assert_no_error(error);
    const char *expected[] = {"startup", "load", "shapes", "order", "liveness", "sharing", "trace",
                              "place", "verify", "report", "run", "output"};
    g_assert_cmpuint(t->rows->len, ==, G_N_ELEMENTS(expected));
    for (guint k = 0; k < t->rows->len; k++) {
        g_assert_cmpstr(csv_table_cell(t, k, 0), ==, expected[k]);
        g_assert_cmpfloat(g_ascii_strtod(csv_table_cell(t, k, 1), NULL), >=, 0);
        g_assert_cmpint(g_ascii_strtoll(csv_table_cell(t, k, 2), NULL, 10), >, 0);
    }
    csv_table_free(t);
    g_free(out);
    g_free(mlp);
}

/* An input of 4 MiB or more makes sim start itself again with malloc on huge pages (sim/cli/huge-pages.c):
 * the second start must see every option of the first (the map is the same, the --phases file is written)
 * and must not start a third time (it would never finish). ARENASIM_SMALL_PAGES turns it off. */
static void test_huge_pages_restart(void)
{
    char *trace = test_scratch_path("big-trace.csv"), *phases = test_scratch_path("big-phases.csv");
    RunResult r = test_run("MKGRAPH_BIN", (const char *[]){"trace", "--buffers", "170000", "--seed", "3", "-o", trace, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    GStatBuf st;
    g_assert_cmpint(g_stat(trace, &st), ==, 0);
    g_assert_cmpint(st.st_size, >=, 4 << 20); /* large enough to take the second start */
    const char *args[] = {"--trace", trace, "--strategy", "bestfit", "--map", "--format", "csv", "--phases", phases, NULL};
    RunResult huge = test_run("SIM_BIN", args);
    g_assert_cmpint(huge.status, ==, 0);
    g_assert_true(g_file_test(phases, G_FILE_TEST_IS_REGULAR));
    g_setenv("ARENASIM_SMALL_PAGES", "1", TRUE);
    RunResult small = test_run("SIM_BIN", args);
    g_unsetenv("ARENASIM_SMALL_PAGES");
    g_assert_cmpint(small.status, ==, 0);
    g_assert_cmpuint(strlen(huge.out), >, 170000 * 8);
    g_assert_cmpstr(huge.out, ==, small.out);
    run_result_clear(&huge);
    run_result_clear(&small);
    g_free(trace);
    g_free(phases);
}

static void test_chrome_trace(void)
{
    char *path = gpt2_path(), *out = test_scratch_path("gpt2-trace.json");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--strategy", "greedy-size", "--alias", "none",
                                                       "--chrome-trace", out, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    JsonParser *parser = load_json_file(out);
    JsonObject *root = json_node_get_object(json_parser_get_root(parser));
    JsonObject *other = json_object_get_object_member(root, "otherData");
    g_assert_cmpint(json_object_get_int_member(other, "arena_bytes"), ==, 26124800);
    g_assert_cmpint(json_object_get_int_member(other, "lower_bound_bytes"), ==, 26124800);
    g_assert_cmpint(json_object_get_int_member(other, "steps"), ==, 417);
    JsonArray *events = json_object_get_array_member(root, "traceEvents");
    guint spans = 0, counters = 0, buffers = 0;
    gint64 peak_live = 0, peak_spanned = 0, last_ts = -1;
    GHashTable *lane_end = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    for (guint k = 0; k < json_array_get_length(events); k++) {
        JsonObject *e = json_array_get_object_element(events, k);
        const char *phase = json_object_get_string_member(e, "ph");
        if (!strcmp(phase, "X") && json_object_get_int_member(e, "pid") == 2) {
            /* a buffer's slice: its lane holds no other buffer live at the same time */
            gint64 tid = json_object_get_int_member(e, "tid"), ts = json_object_get_int_member(e, "ts");
            gint64 *end = g_hash_table_lookup(lane_end, &tid);
            if (end)
                g_assert_cmpint(ts, >=, *end);
            gint64 *key = g_memdup2(&tid, sizeof tid), *value = g_new(gint64, 1);
            *value = ts + json_object_get_int_member(e, "dur");
            g_hash_table_replace(lane_end, key, value);
            JsonObject *args = json_object_get_object_member(e, "args");
            g_assert_cmpint(json_object_get_int_member(args, "end") - json_object_get_int_member(args, "offset"), ==,
                            json_object_get_int_member(args, "size"));
            g_assert_cmpint(json_object_get_int_member(args, "end"), <=, 26124800);
            buffers++;
        } else if (!strcmp(phase, "X")) {
            if (spans == 0) {
                g_assert_cmpstr(json_object_get_string_member(e, "name"), ==, "Gather_n1");
                g_assert_cmpstr(json_object_get_string_member(e, "cat"), ==, "Gather");
            }
            g_assert_cmpint(json_object_get_int_member(e, "dur"), ==, 1000);
            spans++;
        } else if (!strcmp(phase, "C")) {
            JsonObject *args = json_object_get_object_member(e, "args");
            gint64 ts = json_object_get_int_member(e, "ts");
            g_assert_cmpint(ts, >, last_ts);
            last_ts = ts;
            peak_live = MAX(peak_live, json_object_get_int_member(args, "live_bytes"));
            peak_spanned = MAX(peak_spanned, json_object_get_int_member(args, "spanned_bytes"));
            g_assert_cmpint(json_object_get_int_member(args, "live_bytes"), <=,
                            json_object_get_int_member(args, "spanned_bytes"));
            counters++;
        }
    }
    g_assert_cmpuint(spans, ==, 417);
    g_assert_cmpuint(counters, ==, 418);
    g_assert_cmpuint(buffers, ==, 442); /* every buffer of gpt2 without sharing, on its lane */
    g_assert_cmpuint(g_hash_table_size(lane_end), >, 1);
    g_hash_table_unref(lane_end);
    g_assert_cmpint(peak_live, ==, 26124800);
    g_assert_cmpint(peak_spanned, ==, 26124800);
    g_object_unref(parser);

    /* A trace file has no ops: steps are named by number; the worked example spans 12 bytes at its peak. */
    const char valid[] = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";
    char *csv = test_write_scratch("small.csv", valid, sizeof valid - 1);
    r = test_run("SIM_BIN", (const char *[]){"--trace", csv, "--strategy", "firstfit", "--chrome-trace", out, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    parser = load_json_file(out);
    root = json_node_get_object(json_parser_get_root(parser));
    events = json_object_get_array_member(root, "traceEvents");
    JsonObject *first_span = json_array_get_object_element(events, 2);
    g_assert_cmpstr(json_object_get_string_member(first_span, "name"), ==, "step 0");
    g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(root, "otherData"), "steps"), ==, 21);
    g_object_unref(parser);

    /* Every strategy in one file: the schedule once (pid 1, live bytes only), then each plan as its own
     * process of buffers with its own spanned-bytes counter, peaking at its own arena. */
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--alias", "none", "--compare", "--chrome-trace", out, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    parser = load_json_file(out);
    root = json_node_get_object(json_parser_get_root(parser));
    other = json_object_get_object_member(root, "otherData");
    g_assert_false(json_object_has_member(other, "strategy"));
    JsonArray *plans = json_object_get_array_member(other, "plans");
    guint count = json_array_get_length(plans);
    g_assert_cmpuint(count, >=, 9);
    events = json_object_get_array_member(root, "traceEvents");
    for (guint p = 0; p < count; p++) {
        JsonObject *plan = json_array_get_object_element(plans, p);
        gint64 pid = json_object_get_int_member(plan, "pid"), arena = json_object_get_int_member(plan, "arena_bytes");
        g_assert_cmpint(pid, ==, 2 + p);
        guint slices = 0;
        gint64 peak = 0;
        for (guint k = 0; k < json_array_get_length(events); k++) {
            JsonObject *e = json_array_get_object_element(events, k);
            if (json_object_get_int_member(e, "pid") != pid)
                continue;
            const char *phase = json_object_get_string_member(e, "ph");
            JsonObject *args = json_object_get_object_member(e, "args");
            if (!strcmp(phase, "X")) {
                g_assert_cmpint(json_object_get_int_member(args, "end"), <=, arena);
                slices++;
            } else if (!strcmp(phase, "C")) {
                peak = MAX(peak, json_object_get_int_member(args, "spanned_bytes"));
                g_assert_cmpint(json_object_get_int_member(args, "arena_bytes"), ==, arena);
            }
        }
        g_assert_cmpuint(slices, ==, 442);
        g_assert_cmpint(peak, <=, arena);
        g_assert_cmpint(peak, >, arena - 64); /* the arena is the peak rounded up to the alignment */
    }
    /* Every strategy's plan of 400,001 buffers is more than one file holds: refused before planning, no file. */
    char *big = test_scratch_path("big-400k.csv"), *big_out = test_scratch_path("big-400k.json");
    r = test_run("MKGRAPH_BIN", (const char *[]){"trace", "--buffers", "400001", "--seed", "2", "-o", big, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", big, "--compare", "--chrome-trace", big_out, NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "would hold more than 4000000 buffer slices (about 220 bytes each): give one --strategy"));
    g_assert_cmpstr(r.out, ==, "");
    g_assert_false(g_file_test(big_out, G_FILE_TEST_EXISTS));
    run_result_clear(&r);
    g_unlink(big);
    g_free(big);
    g_free(big_out);
    JsonObject *naive = json_array_get_object_element(plans, 0);
    g_assert_cmpstr(json_object_get_string_member(naive, "strategy"), ==, "naive");
    g_assert_cmpint(json_object_get_int_member(naive, "arena_bytes"), >, 26124800);
    g_object_unref(parser);
    g_free(csv);
    g_free(out);
    g_free(path);
}

/* --plot timeline: gnuplot draws the live bytes, each plan's spanned bytes and the lower bound, in the
 * units of the data, as PNG or SVG by the file name. */
static void test_plot_timeline(void)
{
    char *path = gpt2_path(), *svg = test_scratch_path("timeline.svg"), *png = test_scratch_path("timeline.png");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--strategy", "greedy-size", "--alias", "none",
                                                       "--plot", "timeline", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    char *text = test_read_file(svg);
    assert_contains(text, "<svg");
    assert_contains(text, "greedy-size (arena 24.91 MiB)");
    assert_contains(text, "lower bound 24.91 MiB");
    assert_contains(text, "bytes (MiB)");
    assert_contains(text, "schedule step");
    assert_contains(text, "order file, alias none: greedy-size");
    g_free(text);

    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--compare", "--alias", "none", "--budget", "1", "--plot",
                                              "timeline", "--out", png, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    gsize length = 0;
    g_assert_true(g_file_get_contents(png, &text, &length, NULL));
    g_assert_cmpuint(length, >, 1000);
    g_assert_true(!memcmp(text, "\x89PNG\r\n", 6));
    g_free(text);

    /* Every strategy: a panel per distinct plan, titled with the strategies that made it, its arena and its
     * distance to the bound, under one title; one byte scale but for the no-reuse baseline's. */
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--compare", "--budget", "1", "--plot", "timeline", "--out",
                                              svg, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    text = test_read_file(svg);
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    for (guint k = 0; k < count; k++) /* every strategy is named in some panel's title */
        assert_contains(text, all[k]->name);
    assert_contains(text, "firstfit = bestfit: 25.29 MiB (+1.51%)");
    assert_contains(text, "greedy-size = ");
    assert_contains(text, ": 24.91 MiB (+0.00%)");
    assert_contains(text, ", own scale<"); /* naive */
    assert_contains(text, "order file, alias all: every strategy");
    g_free(text);

    /* --title names any plan picture; .pdf is a third format. */
    char *pdf = test_scratch_path("timeline.pdf");
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--plot", "timeline", "--title", "My run", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    text = test_read_file(svg);
    assert_contains(text, ">My run<");
    g_assert_null(strstr(text, "order file"));
    g_free(text);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--plot", "layout", "--out", pdf, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    g_assert_true(g_file_get_contents(pdf, &text, &length, NULL));
    g_assert_cmpuint(length, >, 1000);
    g_assert_true(g_str_has_prefix(text, "%PDF-"));
    g_free(text);
    g_free(pdf);
    expect_failure((const char *[]){"--graph", path, "--title", "x", NULL}, 2,
                   "sim: --title names the picture of --plot (see sim --help)\n");

    /* layout: a rectangle per buffer and the arena top; names where they fit. */
    char *unet = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "unet.onnx", NULL);
    r = test_run("SIM_BIN", (const char *[]){"--graph", unet, "--strategy", "firstfit", "--plot", "layout", "--out", svg,
                                              NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    text = test_read_file(svg);
    assert_contains(text, "arena 1.42 MiB");
    assert_contains(text, "offset (MiB)");
    assert_contains(text, "Concat_41");
    g_free(text);
    expect_failure((const char *[]){"--graph", unet, "--compare", "--plot", "layout", "--out", svg, NULL}, 2,
                   "sim: --plot layout draws one plan: drop --compare (see sim --help)\n");
    expect_failure((const char *[]){"--graph", unet, "--compare", "--orders", "all", "--plot", "timeline", "--out", svg,
                                    NULL},
                   2, "sim: --plot and --chrome-trace draw the plan of one order: drop --info and --orders (see sim --help)\n");
    g_free(unet);

    expect_failure((const char *[]){"--graph", path, "--plot", "timeline", NULL}, 2,
                   "sim: --plot KIND and --out FILE go together (see sim --help)\n");
    char *kinds = plot_kind_names(NULL, "", " or "), *takes = g_strdup_printf("sim: --plot takes %s (see sim --help)\n",
                                                                               kinds); /* the kinds' table */
    g_assert_nonnull(strstr(kinds, "timeline, layout, compare, sweep"));
    expect_failure((const char *[]){"--graph", path, "--plot", "pie", "--out", svg, NULL}, 2, takes);
    g_free(kinds);
    g_free(takes);
    expect_failure((const char *[]){"--graph", path, "--plot", "timeline", "--out", "x.gif", NULL}, 2,
                   "sim: --out x.gif: a plot is written as .png, .svg or .pdf (see sim --help)\n");
    g_free(png);
    g_free(svg);
    g_free(path);
}

/* --solution-out: the plan as a MiniMalloc solution with the input's own ids and time points, which sim
 * --trace reads back and verifies at the same arena; --map --format csv is the map alone. */
static void test_solution_out(void)
{
    const char sparse[] = "id,lower,upper,size\nA,100,200000000,64\nB,200000000,900000000,64\nC,150,250000000,32\n";
    char *in = test_write_scratch("sparse.csv", sparse, sizeof sparse - 1), *sol = test_scratch_path("solution.csv");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--trace", in, "--strategy", "greedy-size", "--solution-out", sol, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    char *text = test_read_file(sol);
    g_assert_cmpstr(text, ==, "id,lower,upper,size,offset\nA,100,200000000,64,0\nB,200000000,900000000,64,0\n"
                              "C,150,250000000,32,64\n");
    g_free(text);
    r = test_run("SIM_BIN", (const char *[]){"--trace", sol, "--map", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.out, ==, "offset,size,name,first,last\n0,64,A,0,2\n0,64,B,3,5\n64,32,C,1,4\n");
    run_result_clear(&r);

    /* A model's plan (rigid Concat groups included: a solution fixes every offset) round-trips. */
    char *concat = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "concat.onnx", NULL);
    r = test_run("SIM_BIN", (const char *[]){"--graph", concat, "--strategy", "best", "--solution-out", sol, NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "arena          4,587,520 B (4.4 MiB)\n");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", sol, NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "arena          4,587,520 B (4.4 MiB)\n");
    assert_contains(r.out, "verified       yes\n");
    run_result_clear(&r);
    g_free(concat);

    /* What a solution cannot say is refused, before planning where it can be. */
    char *pinned = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "pinned.onnx", NULL),
         *bins = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "bins.txt", NULL);
    r = test_run("SIM_BIN", (const char *[]){"--graph", pinned, "--bins", bins, "--solution-out", sol, NULL});
    g_assert_cmpint(r.status, ==, 1);
    char *line = g_strdup_printf("sim: %s: MiniMalloc CSV has one arena and cannot express bins (buffer 'conv_out' is in "
                                 "bin 1); write the text format instead\n", sol);
    g_assert_cmpstr(r.err, ==, line);
    g_free(line);
    run_result_clear(&r);
    expect_failure((const char *[]){"--graph", pinned, "--solution-out", "x.txt", NULL}, 2,
                   "sim: --solution-out writes MiniMalloc's CSV: name the file FILE.csv (see sim --help)\n");
    expect_failure((const char *[]){"--graph", pinned, "--compare", "--solution-out", "x.csv", NULL}, 2,
                   "sim: --solution-out writes one plan: drop --compare and --info (see sim --help)\n");
    g_free(pinned);
    g_free(bins);
    g_free(in);
    g_free(sol);
}

/* --plot layout at scale (issue 42): a part of the picture (--steps, --addresses) holds only the buffers
 * meeting it, the largest are named whether their names fit or not, and a window with nothing in it, or a
 * malformed one, is said so. */
static void test_layout_window(void)
{
    char *path = gpt2_path(), *svg = test_scratch_path("window.svg");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--strategy", "greedy-size", "--plot", "layout",
                                                       "--steps", "0:40", "--addresses", "0:2000000", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    char *text = test_read_file(svg);
    assert_contains(text, "<svg");
    g_free(text);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--plot", "layout", "--addresses", "900000000:900000001",
                                             "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "holds no buffer");
    run_result_clear(&r);
    expect_failure((const char *[]){"--graph", path, "--plot", "layout", "--steps", "9:3", "--out", svg, NULL}, 2,
                   "sim: --steps takes FIRST:LAST, two step numbers, FIRST <= LAST (see sim --help)\n");
    expect_failure((const char *[]){"--graph", path, "--steps", "1:2", NULL}, 2,
                   "sim: --steps and --addresses choose a part of --plot layout (see sim --help)\n");
    g_free(svg);
    g_free(path);
}

/* The examples of the README and docs/usage.md work for a newcomer: every file a `sim` or `bench/sweep.py`
 * line reads (--graph, --trace, --bins, --from) is in the repository, in graphs/models/ (make models), or
 * written by a line above it (--out, --chrome-trace, --trace-out, --solution-out, a quoted '*.onnx' a
 * python line exports, DIR/model.onnx from tests/data/oracle/export.py KIND DIR, the decoders
 * bench/export_decode.py DIR writes, or OUT of graphs/export_training.py MODEL OUT). */
static void check_examples(const char *doc, guint *commands_out, guint *checked_out)
{
    char *readme = g_build_filename(g_getenv("SIM_SOURCE_DIR"), doc, NULL);
    char *text = test_read_file(readme);
    char **lines = g_strsplit(text, "\n", -1);
    GHashTable *made = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    static const char *const reads[] = {"--graph", "--trace", "--bins", "--from"};
    static const char *const writes[] = {"--out", "--chrome-trace", "--trace-out", "--solution-out", "--profile"};
    gboolean in_code = FALSE;
    guint checked = 0, commands = 0;
    for (char **l = lines; *l; l++) {
        if (g_str_has_prefix(*l, "```")) {
            in_code = !in_code;
            continue;
        }
        if (in_code && !g_str_has_prefix(*l, "sim ")) { /* a python export's quoted 'NAME.onnx' is made */
            const char *q = strstr(*l, ".onnx'");
            const char *open = q;
            while (open && open > *l && open[-1] != '\'')
                open--;
            if (q && open > *l)
                g_hash_table_add(made, g_strndup(open, (gsize)(q + 5 - open)));
            /* so is DIR/model.onnx by tests/data/oracle/export.py KIND DIR (before any # comment) */
            const char *script = strstr(*l, "tests/data/oracle/export.py ");
            char *call = script ? g_strndup(script, strcspn(script, "#")) : NULL;
            gint n = 0;
            char **words = NULL;
            if (call && g_shell_parse_argv(call, &n, &words, NULL) && n == 3)
                g_hash_table_add(made, g_build_filename(words[2], "model.onnx", NULL));
            g_strfreev(words);
            g_free(call);
            /* and DIR/{gpt2,llama}-{kv,prefill}.onnx by bench/export_decode.py DIR */
            script = strstr(*l, "bench/export_decode.py ");
            call = script ? g_strndup(script, strcspn(script, "#")) : NULL;
            words = NULL;
            if (call && g_shell_parse_argv(call, &n, &words, NULL) && n == 2)
                for (guint m = 0; m < 4; m++)
                    g_hash_table_add(made, g_strdup_printf("%s/%s-%s.onnx", words[1], m < 2 ? "gpt2" : "llama",
                                                           m % 2 ? "prefill" : "kv"));
            g_strfreev(words);
            g_free(call);
            /* and OUT by graphs/export_training.py MODEL OUT [OPTIONS] */
            script = strstr(*l, "graphs/export_training.py ");
            call = script ? g_strndup(script, strcspn(script, "#")) : NULL;
            words = NULL;
            if (call && g_shell_parse_argv(call, &n, &words, NULL) && n >= 3)
                g_hash_table_add(made, g_strdup(words[2]));
            g_strfreev(words);
            g_free(call);
        }
        if (!in_code || !(g_str_has_prefix(*l, "sim ") || g_str_has_prefix(*l, "bench/sweep.py ")))
            continue;
        gint argc;
        char **argv;
        GError *error = NULL;
        if (!g_shell_parse_argv(*l, &argc, &argv, &error))
            g_error("%s line '%s' is no command: %s", doc, *l, error->message);
        commands++;
        for (gint k = 1; k + 1 < argc; k++) {
            for (gsize r = 0; r < G_N_ELEMENTS(reads); r++) {
                if (strcmp(argv[k], reads[r]))
                    continue;
                char *file = g_strndup(argv[k + 1], strcspn(argv[k + 1], ":")); /* sweep.py: FILE:DIMS */
                char *path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), file, NULL);
                if (!g_hash_table_contains(made, file) && !g_file_test(path, G_FILE_TEST_IS_REGULAR))
                    g_error("%s: '%s' reads %s, which is neither in the repository nor made above", doc, *l, file);
                checked++;
                g_free(path);
                g_free(file);
            }
            for (gsize w = 0; w < G_N_ELEMENTS(writes); w++)
                if (!strcmp(argv[k], writes[w]))
                    g_hash_table_add(made, g_strdup(argv[k + 1]));
        }
        g_strfreev(argv);
    }
    *commands_out += commands;
    *checked_out += checked;
    g_hash_table_unref(made);
    g_strfreev(lines);
    g_free(text);
    g_free(readme);
}

static void test_readme_examples(void)
{
    guint commands = 0, checked = 0;
    check_examples("README.md", &commands, &checked);
    g_assert_cmpuint(commands, >=, 2);
    check_examples("docs/usage.md", &commands, &checked);
    g_assert_cmpuint(commands, >=, 18);
    g_assert_cmpuint(checked, >=, 18);
}

/* A portfolio's budget bounds the whole: once it is spent, heuristics are not started, and the report names
 * them in the order they would have run (the online ones as listed, the first always; then the offline ones, the
 * last listed first). search's incumbent says the same. */
static void test_portfolio_budget_skips(void)
{
    char *trace = test_scratch_path("portfolio-trace.csv");
    RunResult r = test_run("MKGRAPH_BIN", (const char *[]){"trace", "--buffers", "20000", "--seed", "5", "-o", trace, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", trace, "--strategy", "best", "--budget", "0.000001", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out,
                    "strategy       best (kept firstfit; not started, budget spent: bestfit, greedy-conflicts, ");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", trace, "--strategy", "search", "--budget", "0.000001", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "; heuristics not started, budget spent: bestfit, greedy-conflicts, ");
    run_result_clear(&r);
    /* On a work budget, all of them run, however busy the machine (a second of it left some unstarted under
     * ASan with other runs beside it). */
    r = test_run("MKGRAPH_BIN", (const char *[]){"trace", "--buffers", "2000", "--seed", "5", "-o", trace, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", trace, "--strategy", "best", "--budget-work", "100000", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_null(strstr(r.out, "not started"));
    run_result_clear(&r);
    g_free(trace);
}

/* A long search reports progress on stderr when asked (--progress), and Ctrl-C (SIGINT) ends it early: the
 * best plan so far is verified and reported, and the command succeeds. */
static void test_search_progress_and_interrupt(void)
{
    char *trace = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "tests", "data", "search-deep.csv", NULL);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--trace", trace, "--strategy", "search", "--budget", "1.5",
                                                       "--progress", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_true(g_str_has_prefix(r.err, "sim: search: "));
    g_assert_nonnull(strstr(r.err, " s, best "));
    g_assert_nonnull(strstr(r.err, " nodes/s\n"));
    g_assert_nonnull(strstr(r.out, "(budget spent)"));
    run_result_clear(&r);
    /* Without --progress and with stderr not a terminal: nothing on stderr. */
    r = test_run("SIM_BIN", (const char *[]){"--trace", trace, "--strategy", "search", "--budget", "1.1", NULL});
    g_assert_cmpstr(r.err, ==, "");
    run_result_clear(&r);
    GError *error = NULL;
    GSubprocess *p = g_subprocess_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                                      g_getenv("SIM_BIN"), "--trace", trace, "--strategy", "search", "--budget", "600",
                                      "--progress", NULL);
    g_assert_no_error(error);
    /* The first progress line says the search is under way (so SIGINT is caught): interrupt it then. */
    GDataInputStream *lines = g_data_input_stream_new(g_subprocess_get_stderr_pipe(p));
    char *first = g_data_input_stream_read_line(lines, NULL, NULL, &error);
    g_assert_no_error(error);
    g_assert_true(first && g_str_has_prefix(first, "sim: search: "));
    g_free(first);
    g_subprocess_send_signal(p, SIGINT);
    char *out = NULL, *err = NULL;
    g_assert_true(g_subprocess_communicate_utf8(p, NULL, NULL, &out, &err, &error));
    g_assert_true(g_subprocess_get_if_exited(p));
    g_assert_cmpint(g_subprocess_get_exit_status(p), ==, 0);
    g_assert_nonnull(strstr(out, "(stopped by SIGINT)"));
    g_assert_nonnull(strstr(out, "\nverified       yes\n"));
    g_free(out);
    g_free(err);
    g_object_unref(lines);
    g_object_unref(p);
    g_free(trace);
}

/* The peak witness: the step of the lower bound, what is live there largest first with its producer and readers,
 * and the sharing refused for a buffer live there (a Split along a dimension with a leading 2 copies its pieces),
 * in the text report and in json, whose live bytes are the lower bound. Exp(x) -> e; Split(e) -> a, b; Mul(a, b)
 * -> y1; Neg(e) -> y2: step 2 (the Mul) holds e (64 B), a, b and y1 (32 B each). */
static void test_peak_witness(void)
{
    Builder *b = builder_new("peak", 13);
    builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){2, 8});
    builder_node(b, "Exp", (const char *const[]){"x", NULL}, 1, (const char *[]){"e"}, NULL);
    builder_node(b, "Split", (const char *const[]){"e", NULL}, 2, (const char *[]){"a", "b"}, attr_new_int("axis", 1),
                 NULL);
    builder_output(b, builder_node(b, "Mul", (const char *const[]){"a", "b", NULL}, 1, (const char *[]){"y1"}, NULL));
    builder_output(b, builder_node(b, "Neg", (const char *const[]){"e", NULL}, 1, (const char *[]){"y2"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_write_model(m, "peak.onnx");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\npeak           step 2 of 4 (Mul ");
    assert_contains(r.out, "): 160 B live in 4 buffers, largest first\n  64 B  'e', steps 0-3, made by Exp ");
    assert_contains(r.out, ", read by 2 nodes (Split ");
    assert_contains(r.out, "\n  32 B  'a', steps 1-2, made by Split ");
    assert_contains(r.out, "  refused here: split: node ");
    /* shared, the Split's pieces are views of e (live to step 3 anyway): three 64-byte slots at step 2, not four */
    assert_contains(r.out, " (shared, this step would hold 128 B and the arena be 192 B)\n");
    run_result_clear(&r);
    /* --compare: one peak after the table (the lower bound is every strategy's), without the lifted arenas */
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--compare", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\npeak           step 2 of 4 (Mul ");
    assert_contains(r.out, " (shared, this step would hold 128 B)\n");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, r.out, -1, NULL));
    JsonObject *row = json_array_get_object_element(json_node_get_array(json_parser_get_root(parser)), 0);
    JsonObject *peak = json_array_get_object_element(json_object_get_array_member(row, "peak"), 0);
    g_assert_cmpint(json_object_get_int_member(peak, "step"), ==, 2);
    g_assert_cmpstr(json_object_get_string_member(peak, "op"), ==, "Mul");
    g_assert_cmpint(json_object_get_int_member(peak, "live_bytes"), ==,
                    json_object_get_int_member(row, "lower_bound_bytes"));
    JsonArray *buffers = json_object_get_array_member(peak, "buffers");
    g_assert_cmpuint(json_array_get_length(buffers), ==, 4);
    JsonObject *first = json_array_get_object_element(buffers, 0);
    g_assert_cmpstr(json_object_get_string_member(first, "name"), ==, "e");
    g_assert_cmpstr(json_object_get_string_member(first, "producer_op"), ==, "Exp");
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(first, "readers")), ==, 2);
    JsonObject *refused = json_array_get_object_element(json_object_get_array_member(peak, "refused"), 0);
    g_assert_cmpstr(json_object_get_string_member(refused, "buffer"), ==, "a");
    g_assert_cmpint(json_object_get_int_member(refused, "live_without_bytes"), ==, 128);
    g_assert_cmpint(json_object_get_int_member(refused, "arena_shared_bytes"), ==, 192);
    g_assert_cmpint(json_object_get_int_member(row, "arena_bytes"), >, 192);
    g_object_unref(parser);
    run_result_clear(&r);
    /* random.onnx's peak holds 13 buffers: the eight largest and how many more, or with --verbose all 13 */
    for (int verbose = 0; verbose < 2; verbose++) {
        const char *plain[] = {"--graph", "graphs/random.onnx", NULL};
        const char *all[] = {"--graph", "graphs/random.onnx", "--verbose", NULL};
        r = test_run("SIM_BIN", verbose ? all : plain);
        g_assert_cmpint(r.status, ==, 0);
        const char *at = strstr(r.out, "\npeak  ");
        g_assert_nonnull(at);
        assert_contains(at, " live in 13 buffers, largest first\n");
        guint lines = 0;
        for (const char *c = strchr(at + 1, '\n'); c && g_str_has_prefix(c + 1, "  "); c = strchr(c + 1, '\n'))
            lines += !g_str_has_prefix(c + 1, "  refused here: ");
        g_assert_cmpuint(lines, ==, verbose ? 13 : 9);
        if (!verbose)
            assert_contains(at, "  ... and 5 more buffers, ");
        run_result_clear(&r);
    }
    g_free(path);
}

/* The layout picture's names on a crowded plan of long torch-style names: none covers another, none leaves the
 * plot, in the whole picture and in a window of it; the largest are named (shortened where they must be). */
static void test_layout_labels(void)
{
    Trace *t = trace_new("crowded");
    guint64 state = 42;
    for (guint k = 0; k < 400; k++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        guint first = (guint)(state >> 33) % 300, span = 1 + (guint)(state >> 20) % 40;
        char *name = g_strdup_printf("/model/layers.%u/self_attn/q_proj/MatMul_output_%u", k / 7, k % 7);
        trace_add(t, name, 1024 * (1 + (state >> 45) % 64), 64, first, MIN(first + span, 339));
        g_free(name);
    }
    t->steps = 340;
    GError *error = NULL;
    Plan *plan = place_run(registry_place_find("greedy-size"), t, &error);
    g_assert_no_error(error);
    guint64 *base = profile_bin_bases(plan);
    for (int window = 0; window < 2; window++) {
        GArray *labels = window ? plot_layout_labels(t, plan, base, 100, 160, base[1] / 4, base[1] / 2)
                                : plot_layout_labels(t, plan, base, 0, t->steps, 0, base[1]);
        g_assert_cmpuint(labels->len, >=, LAYOUT_NAMED_LARGEST);
        guint shortened = 0;
        for (guint k = 0; k < labels->len; k++) {
            const PlotLabel *a = &g_array_index(labels, PlotLabel, k);
            g_assert_cmpfloat(a->cx - a->w / 2, >=, 0);
            g_assert_cmpfloat(a->cx + a->w / 2, <=, 1);
            g_assert_cmpfloat(a->cy - a->h / 2, >=, 0);
            g_assert_cmpfloat(a->cy + a->h / 2, <=, 1);
            shortened += strstr(a->text, "...") != NULL;
            for (guint j = 0; j < k; j++) {
                const PlotLabel *b = &g_array_index(labels, PlotLabel, j);
                gboolean meet = fabs(a->cx - b->cx) * 2 < a->w + b->w && fabs(a->cy - b->cy) * 2 < a->h + b->h;
                if (meet)
                    g_error("'%s' and '%s' overlap", a->text, b->text);
            }
        }
        g_assert_cmpuint(shortened, >, 0);
        plot_layout_labels_free(labels);
    }
    g_free(base);
    plan_free(plan);
    trace_free(t);
}

/* compare's axis: cut where a few bars rise far above the rest (the corpus's pytorch bars at up to 5.9 times the
 * bound, against online allocators at 1.6), not where bars are merely spread; never on a handful of bars. */
static void test_compare_cut(void)
{
    double values[100];
    for (guint k = 0; k < 100; k++) /* 1.0 .. 1.6, then five far outliers */
        values[k] = k < 95 ? 1.0 + 0.6 * k / 94.0 : 3.0 + k;
    double cut = plot_compare_cut(values, 100, 1.0);
    g_assert_cmpfloat(cut, >=, 1.59);
    g_assert_cmpfloat(cut, <=, 1.61);
    for (guint k = 95; k < 100; k++) /* spread evenly: nothing is an outlier */
        values[k] = 1.0 + 0.6 * k / 94.0;
    g_assert_cmpfloat(plot_compare_cut(values, 100, 1.0), ==, G_MAXDOUBLE);
    values[99] = 50;
    g_assert_cmpfloat(plot_compare_cut(values, 10, 1.0), ==, G_MAXDOUBLE); /* too few bars to call one an outlier */
    g_assert_cmpfloat(plot_compare_cut(values, 100, 1.0), <, 2);
    /* the picture of the corpus table says what it cut */
    char *png = test_scratch_path("cut.png");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--from", "results/corpus-strategies.csv", "--plot", "compare",
                                                          "--out", png, NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_true(g_file_test(png, G_FILE_TEST_EXISTS));
    run_result_clear(&r);
    g_free(png);
}

/* The least arena of --compare --orders ORDERS under one sharing set. */
static guint64 least_of_orders(const char *orders, const char *alias)
{
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--compare", "--orders", orders,
                                                          "--alias", alias, "--strategy", "best", "--format", "csv",
                                                          NULL});
    g_assert_cmpint(r.status, ==, 0);
    guint64 least = G_MAXUINT64;
    char **lines = g_strsplit(r.out, "\n", -1), **header = g_strsplit(lines[0], ",", -1);
    guint column = 0;
    while (header[column] && strcmp(header[column], "arena_bytes"))
        column++;
    g_assert_nonnull(header[column]);
    for (guint k = 1; lines[k] && *lines[k]; k++) {
        char **f = g_strsplit(lines[k], ",", -1);
        least = MIN(least, g_ascii_strtoull(f[column], NULL, 10));
        g_strfreev(f);
    }
    g_strfreev(header);
    g_strfreev(lines);
    run_result_clear(&r);
    return least;
}

/* --order best: every order but optimal traced and placed under the default sharing and under noop,inplace, the
 * smallest arena kept: on random.onnx the local search's order with views and in-place reuse only, 26,304 B, below
 * the file's 27,200 B and the best order's under all sharing (26,688 B, topo); its arena is the least of --compare
 * --orders over the same orders and sets. A named --alias is kept. */
static void test_order_best(void)
{
    const char *orders = "file,topo,dfs,ort,freed,lazy,event,event-gap,local";
    guint64 all = least_of_orders(orders, "all"), short_set = least_of_orders(orders, "noop,inplace");
    g_assert_cmpuint(all, ==, 26688);
    g_assert_cmpuint(short_set, ==, 26304);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--order", "best", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "order          local (40 steps)\n");
    assert_contains(r.out, "arena          26,304 B");
    assert_contains(r.out, "aliasing       noop,inplace: ");
    assert_contains(r.out, "order best     local with --alias noop,inplace kept: the smallest arena of the orders (all "
                           "but optimal) and sharing sets (all, noop,inplace), each traced and placed by best: file "
                           "27200 B, topo 26688 B, ");
    assert_contains(r.out, "; with --alias noop,inplace: file 26688 B, ");
    run_result_clear(&r);
    r = test_run("SIM_BIN",
                 (const char *[]){"--graph", "graphs/random.onnx", "--order", "best", "--alias", "all", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "arena          26,688 B");
    assert_contains(r.out, "order best     topo with --alias all kept: the smallest arena of the orders (all but "
                           "optimal), each traced and placed by best: file 27200 B, topo 26688 B, ");
    g_assert_null(strstr(r.out, "with --alias noop,inplace:"));
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--order", "bestest", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, ", best)");
    run_result_clear(&r);
}

/* No --order: one model's plan takes the smallest of every order and both sharing sets (as --order best), says so in
 * a line, and its work budget (--order-work: plans times nodes) leaves the later candidates out; a range of dims
 * keeps the file's order, and --order-work is refused where nothing chooses. */
static void test_order_default(void)
{
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "order          local (40 steps)\n");
    assert_contains(r.out, "arena          26,304 B");
    assert_contains(r.out, "order chosen   local with --alias noop,inplace: the smallest arena of 18 plans (orders and "
                           "sharing sets; --verbose lists them); --order NAME plans one order\n");
    g_assert_null(strstr(r.out, "order best"));
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--verbose", NULL});
    assert_contains(r.out, "order best     local with --alias noop,inplace kept: ");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "graphs/random.onnx,-,local,best,"); /* graph, dims, order, strategy */
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--order", "file", NULL});
    assert_contains(r.out, "order          file (40 steps)\n");
    assert_contains(r.out, "arena          27,200 B");
    g_assert_null(strstr(r.out, "order chosen"));
    run_result_clear(&r);
    /* 40 nodes: 100 node-plans make two plans (file, topo under all sharing), the other 16 left out */
    r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--order-work", "100", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "order          topo (40 steps)\n");
    assert_contains(r.out, "arena          26,688 B");
    assert_contains(r.out, "the smallest arena of 2 plans (orders and sharing sets; --verbose lists them); 16 more "
                           "left out by the work budget (plans times nodes within 100)");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--order-work", "79", NULL});
    assert_contains(r.out, "order          file (40 steps)\n");
    assert_contains(r.out, "the smallest arena of 1 plan (");
    run_result_clear(&r);
    const char *refused[][6] = {{"--order", "file", "--order-work", "100", NULL},
                                {"--tiers", "sram=8KiB,dram", "--order-work", "100", NULL},
                                {"--compare", "--orders", "file,topo", "--order-work", "100", NULL}};
    for (gsize k = 0; k < G_N_ELEMENTS(refused); k++) {
        const char *argv[10] = {"--graph", "graphs/random.onnx"};
        for (gsize j = 0; refused[k][j]; j++)
            argv[2 + j] = refused[k][j];
        r = test_run("SIM_BIN", argv);
        g_assert_cmpint(r.status, ==, 2);
        assert_contains(r.err, "--order-work bounds the orders the default (best) tries on a model");
        run_result_clear(&r);
    }
    /* a range of dims: every point in the file's order */
    char *model = test_source_path("graphs/models/torch/gpt2-torch.onnx");
    r = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1:4", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "order          file\n");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1:4", "--order-work",
                                              "100", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "--order-work bounds the orders the default (best) tries on a model");
    run_result_clear(&r);
    g_free(model);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/cli/gpt2-info", test_gpt2_info);
    g_test_add_func("/cli/file-errors", test_file_errors);
    g_test_add_func("/cli/usage-errors", test_usage_errors);
    g_test_add_func("/cli/list-budgeted", test_list_budgeted);
    g_test_add_func("/cli/dim-binding", test_dim_binding);
    g_test_add_func("/cli/mkgraph", test_mkgraph);
    g_test_add_func("/cli/plan-gpt2", test_plan_gpt2);
    g_test_add_func("/cli/map-and-trace-files", test_map_and_trace_files);
    g_test_add_func("/cli/plan-usage-errors", test_plan_usage_errors);
    g_test_add_func("/cli/aliasing-report", test_aliasing_report);
    g_test_add_func("/cli/io-outside", test_io_outside);
    g_test_add_func("/cli/report-formats", test_report_formats);
    g_test_add_func("/cli/chrome-trace", test_chrome_trace);
    g_test_add_func("/cli/phases", test_phases);
    g_test_add_func("/cli/huge-pages-restart", test_huge_pages_restart);
    g_test_add_func("/cli/plot-timeline", test_plot_timeline);
    g_test_add_func("/cli/readme-examples", test_readme_examples);
    g_test_add_func("/cli/layout-window", test_layout_window);
    g_test_add_func("/cli/solution-out", test_solution_out);
    g_test_add_func("/cli/search-progress-and-interrupt", test_search_progress_and_interrupt);
    g_test_add_func("/cli/portfolio-budget-skips", test_portfolio_budget_skips);
    g_test_add_func("/cli/peak-witness", test_peak_witness);
    g_test_add_func("/cli/layout-labels", test_layout_labels);
    g_test_add_func("/cli/compare-cut", test_compare_cut);
    g_test_add_func("/cli/order-best", test_order_best);
    g_test_add_func("/cli/order-default", test_order_default);
    return g_test_run();
}
