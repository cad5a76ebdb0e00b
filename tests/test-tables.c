/* test-tables.c — result tables: the CSV reader, the table plots (`sim --from T --plot compare|sweep`),
 * bench/tables.py's canonical form, and a sweep's table the same bytes on an idle and a busy machine (the
 * sweep runner itself: test-sweep.c). */
#include "report/csv-table.h"
#include "model/graph.h"
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static CsvTable *read_text(const char *name, const char *text, GError **error)
{
    char *path = test_write_scratch(name, text, strlen(text));
    CsvTable *t = csv_table_read(path, error);
    g_free(path);
    return t;
}

static void test_csv_reader(void)
{
    GError *error = NULL;
    CsvTable *t = read_text("ok.csv", "a,b,c\r\n1,\"x,y\",\"say \"\"hi\"\"\"\n\n2,,\"two\nlines\"\n3,z,last", &error);
    g_assert_no_error(error);
    g_assert_cmpuint(t->header->len, ==, 3);
    g_assert_cmpuint(t->rows->len, ==, 3);
    g_assert_cmpint(csv_table_column(t, "c"), ==, 2);
    g_assert_cmpint(csv_table_column(t, "d"), ==, -1);
    g_assert_cmpstr(csv_table_cell(t, 0, 1), ==, "x,y");
    g_assert_cmpstr(csv_table_cell(t, 0, 2), ==, "say \"hi\"");
    g_assert_cmpstr(csv_table_cell(t, 1, 1), ==, "");
    g_assert_cmpstr(csv_table_cell(t, 1, 2), ==, "two\nlines");
    g_assert_cmpuint(csv_table_line(t, 1), ==, 4);
    g_assert_cmpuint(csv_table_line(t, 2), ==, 6); /* the quoted newline counted */
    g_assert_cmpstr(csv_table_cell(t, 2, 2), ==, "last");
    csv_table_free(t);

    struct {
        const char *text, *message;
    } bad[] = {
        {"", "empty file: a CSV table starts with its header row"},
        {"a,b\n1,2,3\n", "line 2: 3 fields where the header has 2"},
        {"a,b\n1,\"open\n", "line 2: a quoted field is not closed"},
        {"a,b\n1,\"x\"y\n", "line 2: text after a closing quote"},
        {"a,b\n1,x\"y\n", "line 2: a quote inside an unquoted field"},
    };
    for (guint k = 0; k < G_N_ELEMENTS(bad); k++) {
        g_assert_null(read_text("bad.csv", bad[k].text, &error));
        g_assert_error(error, SIM_ERROR, SIM_ERROR_FORMAT);
        g_assert_cmpstr(error->message, ==, bad[k].message);
        g_clear_error(&error);
    }
    g_assert_null(csv_table_parse("a,b\n1,\0\n", 8, &error));
    g_assert_cmpstr(error->message, ==, "not a text file (NUL bytes)");
    g_clear_error(&error);
    /* A byte-order mark (spreadsheets write one) is not part of the first column's name; other bytes,
     * valid UTF-8 or not, are kept as they are. */
    t = csv_table_parse("\xEF\xBB\xBFgraph,n\nm\xff,1\n", 15, &error);
    g_assert_no_error(error);
    g_assert_cmpint(csv_table_column(t, "graph"), ==, 0);
    g_assert_cmpstr(csv_table_cell(t, 0, 0), ==, "m\xff");
    csv_table_free(t);
    /* What csv_table_quote writes reads back, whatever the field holds. */
    const char *fields[] = {"plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", " padded ", "", "`$(x)`@'"};
    GString *text = g_string_new(NULL);
    for (guint k = 0; k < G_N_ELEMENTS(fields); k++) {
        char *q = csv_table_quote(fields[k]);
        g_string_append_printf(text, "%s%s", k ? "," : "", q);
        g_free(q);
    }
    g_string_append_c(text, '\n');
    g_string_append(text, text->str); /* the same record as header and as row */
    t = csv_table_parse(text->str, text->len, &error);
    g_assert_no_error(error);
    for (guint k = 0; k < G_N_ELEMENTS(fields); k++)
        g_assert_cmpstr(csv_table_cell(t, 0, k), ==, fields[k]);
    csv_table_free(t);
    g_string_free(text, TRUE);
}

/* A table the way --compare writes it: two graphs, two strategies, arena and lower bound. */
static const char table[] =
    "graph,dims,order,strategy,arena_bytes,lower_bound_bytes,plan_seconds\n"
    "graphs/a.onnx,seq=16,file,firstfit,1500,1000,0.1\n"
    "graphs/a.onnx,seq=16,file,best,1000,1000,0.2\n"
    "graphs/b.onnx,seq=16,file,firstfit,3000,2000,0.1\n"
    "graphs/b.onnx,seq=16,file,best,2500,2000,0.3\n"
    "graphs/a.onnx,seq=32,file,firstfit,3072,2048,0.1\n"
    "graphs/a.onnx,seq=32,file,best,2048,2048,0.2\n";

static void expect_sim_failure(const char *const *args, int status, const char *line)
{
    RunResult r = test_run("SIM_BIN", args);
    g_assert_cmpint(r.status, ==, status);
    g_assert_cmpstr(r.err, ==, line);
    g_assert_cmpstr(r.out, ==, "");
    run_result_clear(&r);
}

static void test_table_plots(void)
{
    char *path = test_write_scratch("t.csv", table, sizeof table - 1);
    char *svg = test_scratch_path("compare.svg");
    /* The alias column is missing: the plot says which. */
    char *line = g_strdup_printf("sim: %s: no column 'alias'\n", path);
    expect_sim_failure((const char *[]){"--from", path, "--plot", "compare", "--out", svg, NULL}, 1, line);
    g_free(line);
    g_assert_false(g_file_test(svg, G_FILE_TEST_EXISTS));
    g_free(path);

    /* With the alias column: bars per graph (a at two dims: a cluster per dims), one per strategy. */
    GString *with_alias = g_string_new(NULL);
    char **rows = g_strsplit(table, "\n", -1);
    for (char **row = rows; *row && **row; row++)
        g_string_append_printf(with_alias, "%s,%s\n", *row, row == rows ? "alias" : "all");
    g_strfreev(rows);
    path = test_write_scratch("t.csv", with_alias->str, with_alias->len);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "compare", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.out, ==, "");
    run_result_clear(&r);
    char *text = test_read_file(svg);
    assert_contains(text, "<svg");
    assert_contains(text, "arena / lower bound per strategy");
    assert_contains(text, ">a / dims seq=16<");
    assert_contains(text, ">a / dims seq=32<");
    assert_contains(text, ">b<"); /* one dims only: named by its graph */
    assert_contains(text, ">firstfit<");
    assert_contains(text, ">best<");
    assert_contains(text, "1 = lower bound");
    g_free(text);
    char *pdf = test_scratch_path("compare.pdf");
    r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "compare", "--title", "T", "--out", pdf, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    text = test_read_file(pdf);
    g_assert_true(g_str_has_prefix(text, "%PDF-"));
    g_free(text);
    g_free(pdf);

    /* Sweep over the seq dim, arena in bytes (KiB here) with the lower bound line; a title of our own. */
    char *sweep = test_scratch_path("sweep.svg");
    r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "sweep", "--x", "seq", "--title", "arena vs seq",
                                              "--out", sweep, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    text = test_read_file(sweep);
    assert_contains(text, ">arena vs seq<");
    assert_contains(text, ">arena (KiB)<"); /* the column in words, its unit */
    assert_contains(text, ">seq (dimension)<");
    assert_contains(text, ">lower bound (a)<");
    assert_contains(text, ">b / firstfit<");
    g_free(text);
    /* A numeric column as x, a column as y. */
    r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "sweep", "--x", "lower_bound_bytes", "--y",
                                              "plan_seconds", "--out", sweep, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);

    /* Usage and table errors: one line each, nothing drawn. */
    g_unlink(sweep);
    expect_sim_failure((const char *[]){"--from", path, "--plot", "sweep", "--out", sweep, NULL}, 2,
                       "sim: --plot sweep needs --x NAME: a column or a --dim name of the table (see sim --help)\n");
    expect_sim_failure((const char *[]){"--from", path, "--plot", "layout", "--out", sweep, NULL}, 2,
                       "sim: --from draws a result table: --plot compare or --plot sweep (see sim --help)\n");
    expect_sim_failure((const char *[]){"--graph", path, "--plot", "compare", "--out", sweep, NULL}, 2,
                       "sim: --plot compare and --plot sweep draw a result table: give it with --from FILE.csv (see "
                       "sim --help)\n");
    line = g_strdup_printf("sim: %s: line 2: 'batch' is neither a column nor a dimension in the dims column\n", path);
    expect_sim_failure((const char *[]){"--from", path, "--plot", "sweep", "--x", "batch", "--out", sweep, NULL}, 1, line);
    g_free(line);
    line = g_strdup_printf("sim: %s: line 2: column 'graph' holds 'graphs/a.onnx', not a number\n", path);
    expect_sim_failure((const char *[]){"--from", path, "--plot", "sweep", "--x", "seq", "--y", "graph", "--out", sweep,
                                        NULL}, 1, line);
    g_free(line);
    g_assert_false(g_file_test(sweep, G_FILE_TEST_EXISTS));
    g_free(path);
    /* Two rows measuring the same thing. */
    g_string_append(with_alias, "graphs/b.onnx,seq=16,file,best,2400,2000,0.3,all\n");
    path = test_write_scratch("t.csv", with_alias->str, with_alias->len);
    line = g_strdup_printf("sim: %s: lines 5 and 8 both measure b, best\n", path);
    expect_sim_failure((const char *[]){"--from", path, "--plot", "compare", "--out", svg, NULL}, 1, line);
    g_free(line);
    g_free(path);
    g_string_free(with_alias, TRUE);
    g_free(svg);
    g_free(sweep);
}

/* Runs bench/sweep.py with the sim under test. */
static RunResult run_sweep(const char *const *args)
{
    char *script = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "bench", "sweep.py", NULL);
    g_setenv("SWEEP_BIN", script, TRUE);
    g_free(script);
    return test_run("SWEEP_BIN", args);
}

/* bench/tables.py canon: rows sorted and the timing column dropped, so a rerun on a work budget writes the
 * same bytes (the work itself is a column of counts, the same on any machine). */
static void test_canonical_csv(void)
{
    char *in = test_scratch_path("canon-in.csv"), *out = test_scratch_path("canon-out.csv");
    const char *rows = "graph,dims,order,alias,strategy,plan_seconds,detail,search_nodes\n"
                       "b.onnx,-,file,all,search,5.01,gap 0.01% to the lower bound (budget spent),20000\n"
                       "a.onnx,-,file,all,search,0.02,optimal (proven: arena = lower bound),150\n"
                       "a.onnx,-,file,all,best,0.30,kept climb,0\n";
    g_assert_true(g_file_set_contents(in, rows, -1, NULL));
    char *script = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "bench", "tables.py", NULL);
    g_setenv("TABLES_BIN", script, TRUE);
    RunResult r = test_run("TABLES_BIN", (const char *[]){"canon", in, out, NULL});
    g_assert_cmpint(r.status, ==, 0);
    char *text = test_read_file(out);
    g_assert_cmpstr(text, ==,
                    "graph,dims,order,alias,strategy,detail,search_nodes\n"
                    "a.onnx,-,file,all,search,optimal (proven: arena = lower bound),150\n"
                    "a.onnx,-,file,all,best,kept climb,0\n"
                    "b.onnx,-,file,all,search,gap 0.01% to the lower bound (budget spent),20000\n");
    g_free(text);
    run_result_clear(&r);
    g_free(script);
    g_free(in);
    g_free(out);
}

/* --where keeps the rows a picture is about, --facet draws a panel per value on one y axis (issue 42). The
 * 36-series table of a sweep (2 orders × 2 alias sets × 9 strategies) read as a newcomer would: filtered
 * to nine series, and faceted by alias set. */
static void test_where_and_facet(void)
{
    GString *csv = g_string_new("graph,dims,order,alias,strategy,arena_bytes,lower_bound_bytes\n");
    const char *strategies[] = {"naive", "firstfit", "bestfit", "greedy-size", "greedy-breadth", "greedy-conflicts",
                                "climb", "search", "best"};
    for (guint seq = 16; seq <= 256; seq *= 2)
        for (guint o = 0; o < 2; o++)
            for (guint a = 0; a < 2; a++)
                for (guint k = 0; k < G_N_ELEMENTS(strategies); k++)
                    g_string_append_printf(csv, "graphs/models/torch/gpt2.onnx,\"batch=1,seq=%u\",%s,%s,%s,%u,%u\n", seq,
                                           o ? "lazy" : "file", a ? "none" : "all", strategies[k],
                                           seq * 1000 * (10 + k + a) / 10, seq * 1000);
    char *path = test_write_scratch("sweep36.csv", csv->str, csv->len);
    g_string_free(csv, TRUE);
    char *svg = test_scratch_path("where.svg");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "sweep", "--x", "seq", "--where", "order=file",
                                                       "--where", "alias=all", "--where", "graph=gpt2", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    char *text = test_read_file(svg);
    assert_contains(text, ">greedy-size<"); /* the series name only strategies now: order and alias are fixed */
    g_assert_null(strstr(text, "alias none"));
    g_free(text);
    r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "sweep", "--x", "seq", "--facet", "alias", "--out",
                                             svg, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    text = test_read_file(svg);
    assert_contains(text, "a panel per alias");
    assert_contains(text, ">alias = all<");
    assert_contains(text, ">alias = none<");
    g_free(text);
    r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "compare", "--facet", "order", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    /* Errors name what is wrong; nothing is drawn. */
    g_unlink(svg);
    r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "compare", "--where", "colour=red", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "--where names column 'colour', which the table does not have");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "compare", "--where", "graph=nothing", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "no row has graph 'nothing'");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--from", path, "--plot", "compare", "--facet", "strategy", "--where",
                                             "strategy=best", "--facet", "dims", "--out", svg, NULL});
    g_assert_cmpint(r.status, ==, 2); /* --facet given twice */
    run_result_clear(&r);
    g_assert_false(g_file_test(svg, G_FILE_TEST_EXISTS));
    g_free(svg);
    g_free(path);
}

/* Tables made on a work budget are the same bytes on an idle and on a busy machine (issue 38): the same
 * sweep of the time-bounded strategies, on a model where the search runs out of budget, run twice — the
 * second time beside three processes that keep every core busy — gives the same canonical table. With a
 * time budget it would not: the search's node count (and with it, on harder instances, the plan) is what
 * the clock allowed. */
static void test_tables_deterministic_under_load(void)
{
    char *decoder = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "models", "torch", "decoder-torch.onnx", NULL);
    if (!g_file_test(decoder, G_FILE_TEST_EXISTS))
        g_error("%s is missing: run make models", decoder);
    char *graph = g_strconcat(decoder, ":batch=1,seq=64,mem=32", NULL);
    char *script = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "bench", "tables.py", NULL);
    g_setenv("TABLES_BIN", script, TRUE);
    char *tables[2];
    for (guint round = 0; round < 2; round++) {
        GPid hogs[3] = {0};
        if (round == 1)
            for (guint k = 0; k < G_N_ELEMENTS(hogs); k++) {
                char *argv[] = {"/bin/sh", "-c", "while :; do :; done", NULL};
                g_assert_true(g_spawn_async(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &hogs[k], NULL));
            }
        char *out = test_scratch_path(round ? "busy.csv" : "idle.csv");
        char *canon = g_strconcat(out, ".canon", NULL);
        g_unlink(out);
        const char *const args[] = {"--out", out, "--graph", graph, "--graph", "graphs/inception.onnx", "--strategies",
                                    "climb,search,minimalloc,best", "--sim-args", "--budget-work 200000", "--jobs", "2",
                                    NULL};
        RunResult r = run_sweep(args);
        for (guint k = 0; k < G_N_ELEMENTS(hogs); k++)
            if (hogs[k]) {
                kill(hogs[k], SIGKILL);
                waitpid(hogs[k], NULL, 0);
                g_spawn_close_pid(hogs[k]);
            }
        g_assert_cmpint(r.status, ==, 0);
        run_result_clear(&r);
        r = test_run("TABLES_BIN", (const char *[]){"canon", out, canon, NULL});
        g_assert_cmpint(r.status, ==, 0);
        run_result_clear(&r);
        tables[round] = test_read_file(canon);
        g_free(canon);
        g_free(out);
    }
    assert_contains(tables[0], "(budget spent)"); /* the budget decided something: the test can tell */
    g_assert_cmpstr(tables[1], ==, tables[0]);
    g_free(tables[0]);
    g_free(tables[1]);
    g_free(script);
    g_free(graph);
    g_free(decoder);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tables/csv-reader", test_csv_reader);
    g_test_add_func("/tables/plots", test_table_plots);
    g_test_add_func("/tables/canonical-csv", test_canonical_csv);
    g_test_add_func("/tables/deterministic-under-load", test_tables_deterministic_under_load);
    g_test_add_func("/tables/where-and-facet", test_where_and_facet);
    return g_test_run();
}
