/* test-tables.c — result tables: the CSV reader, the table plots (`sim --from T --plot compare|sweep`)
 * and the sweep runner (bench/sweep.sh with GNU parallel: rows appended, a rerun skips them, a failed run
 * is reported and retried). */
#include "report/csv-table.h"
#include "model/graph.h"
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        g_error("expected to find\n  %s\nin\n%s", needle, haystack);
}

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

/* Runs bench/sweep.sh with the sim under test. */
static RunResult run_sweep(const char *const *args)
{
    char *script = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "bench", "sweep.sh", NULL);
    g_setenv("SWEEP_BIN", script, TRUE);
    g_free(script);
    return test_run("SWEEP_BIN", args);
}

static guint count_lines_text(const char *text)
{
    guint n = 0;
    for (const char *c = text; *c; c++)
        n += *c == '\n';
    return n;
}

static guint count_lines(const char *path)
{
    char *text = test_read_file(path);
    guint n = count_lines_text(text);
    g_free(text);
    return n;
}

static void test_sweep_runner(void)
{
    char *parallel = g_find_program_in_path("parallel");
    if (!parallel) {
        g_test_fail_printf("GNU parallel is not installed (make deps installs it)");
        return;
    }
    g_free(parallel);
    char *out = test_scratch_path("sweep.csv");
    g_unlink(out);
    const char *const args[] = {"--out", out, "--graph", "graphs/gpt2.onnx", "--graph", "graphs/unet.onnx", "--alias",
                                "all", "--alias", "none", "--strategies", "firstfit,greedy-size", "--jobs", "2", NULL};
    RunResult r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "sweep.sh: 8 runs, 0 already in ");
    g_assert_cmpuint(count_lines(out), ==, 9); /* header and 8 rows */
    char *text = test_read_file(out);
    g_assert_true(g_str_has_prefix(text, "graph,dims,order,strategy,buffers,"));
    /* gpt2 without sharing, greedy-size: the lower bound exactly (docs/corpus.md). */
    assert_contains(text, "graphs/gpt2.onnx,-,file,greedy-size,442,417,26124800,26124800,");
    g_free(text);
    run_result_clear(&r);

    /* A rerun has nothing left; a removed row is the one run again. */
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "8 runs, 8 already in ");
    run_result_clear(&r);
    text = test_read_file(out);
    char **lines = g_strsplit(text, "\n", -1);
    GString *kept = g_string_new(NULL);
    for (guint k = 0; lines[k] && *lines[k]; k++)
        if (k != 3)
            g_string_append_printf(kept, "%s\n", lines[k]);
    g_assert_true(g_file_set_contents(out, kept->str, (gssize)kept->len, NULL));
    g_string_free(kept, TRUE);
    g_strfreev(lines);
    g_free(text);
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "8 runs, 7 already in ");
    assert_contains(r.err, "1 to run");
    g_assert_cmpuint(count_lines(out), ==, 9);
    run_result_clear(&r);

    /* A run that fails (an exact order past its budget) leaves no row, is reported, and is tried again. */
    const char *const failing[] = {"--out", out, "--graph", "graphs/inception.onnx", "--orders", "optimal",
                                   "--strategies", "bestfit", "--sim-args", "--order-budget 1", NULL};
    r = run_sweep(failing);
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "sweep.sh: 1 of 1 runs failed; their rows are missing (a rerun retries them)");
    assert_contains(r.err, "graphs/inception.onnx");
    g_assert_cmpuint(count_lines(out), ==, 9);
    run_result_clear(&r);
    r = run_sweep(failing);
    assert_contains(r.err, "1 runs, 0 already in ");
    run_result_clear(&r);

    /* Usage errors. */
    r = run_sweep((const char *[]){"--graph", "graphs/gpt2.onnx", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_cmpstr(r.err, ==, "sweep.sh: --out FILE.csv is required (see --help)\n");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--dim", "seq", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_cmpstr(r.err, ==, "sweep.sh: --dim 'seq' is not NAME=V1,V2,...\n");
    run_result_clear(&r);
    g_free(out);
}

static void own_group(gpointer unused)
{
    (void)unused;
    setpgid(0, 0); /* the sweep and everything it starts, one group: what a terminal's Ctrl-C reaches */
}

/* sweep.sh's rough edges: --help on stdout with status 0; a typo'd name stops it before anything runs (and
 * leaves no file); without a terminal a progress line; Ctrl-C (SIGINT to its process group) keeps the rows
 * finished, says how to resume and exits 130, leaving no empty table or lock file it made. */
static void test_sweep_edges(void)
{
    char *out = test_scratch_path("edges/sweep.csv"), *dir = g_path_get_dirname(out);
    RunResult r = run_sweep((const char *[]){"--help", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "Options:");
    g_assert_cmpstr(r.err, ==, "");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--strategies", "bestfit,bestfitt", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "sweep.sh: unknown strategy 'bestfitt' (one of: naive, firstfit, bestfit,");
    g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--orders", "file,sideways", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "sweep.sh: unknown order 'sideways' (one of: file, topo,");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--strategies", "bestfit", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "sweep.sh: 0 of 1 runs done"); /* stderr is no terminal here */
    run_result_clear(&r);
    g_unlink(out);
    /* Ctrl-C in the middle of slow runs */
    char *script = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "bench", "sweep.sh", NULL);
    char *argv[] = {script, "--out", out, "--graph", "graphs/gpt2.onnx", "--strategies", "bestfit,firstfit", "--jobs",
                    "1", "--sim-args", "--run --repeat 100000", NULL};
    GPid pid;
    gint err_fd;
    GError *error = NULL;
    g_assert_true(g_spawn_async_with_pipes(g_getenv("SIM_SOURCE_DIR"), argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, own_group, NULL,
                                           &pid, NULL, NULL, &err_fd, &error));
    g_assert_no_error(error);
    g_usleep(2500000);
    g_assert_cmpint(kill(-pid, SIGINT), ==, 0);
    GString *err = g_string_new(NULL);
    char buf[4096];
    for (gssize got; (got = read(err_fd, buf, sizeof buf)) > 0;)
        g_string_append_len(err, buf, got);
    close(err_fd);
    int wstatus = 0;
    g_assert_cmpint(waitpid(pid, &wstatus, 0), ==, pid);
    g_spawn_close_pid(pid);
    g_assert_true(WIFEXITED(wstatus));
    g_assert_cmpint(WEXITSTATUS(wstatus), ==, 130);
    assert_contains(err->str, "sweep.sh: interrupted before any of the 2 runs finished; run the same command again");
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS)); /* the table it made held no row */
    char *lock = g_strconcat(out, ".lock", NULL);
    g_assert_false(g_file_test(lock, G_FILE_TEST_EXISTS));
    g_free(lock);
    g_string_free(err, TRUE);
    g_free(script);
    g_free(dir);
    g_free(out);
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

/* sweep.sh with hostile input: a graph file named with a command substitution and a --dim value holding
 * one reach sim as text (the canary is never made); --dry-run builds and writes nothing; a second sweep on
 * a locked file stops with a message; a row cut off mid-line is dropped and run again, not glued. */
static void test_sweep_hostile(void)
{
    /* A file name cannot hold '/': its commands would make the canary in sweep.sh's folder (the repository). */
    char *canary = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "canary-sweep", NULL);
    char *graph_name = g_strdup("m$(touch canary-sweep)`touch canary-sweep`.onnx");
    char *graph = test_scratch_path(graph_name), *source = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs",
                                                                             "noop-chain.onnx", NULL);
    char *bytes;
    gsize len;
    g_assert_true(g_file_get_contents(source, &bytes, &len, NULL));
    g_assert_true(g_file_set_contents(graph, bytes, (gssize)len, NULL));
    g_free(bytes);
    char *out = test_scratch_path("hostile-sweep.csv");
    char *dim = g_strdup_printf("n=1$(touch %s)", canary);
    RunResult r = run_sweep((const char *[]){"--out", out, "--graph", graph, "--strategies", "bestfit,firstfit",
                                             "--dry-run", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    g_assert_cmpuint(count_lines_text(r.out), ==, 2);
    run_result_clear(&r);
    const char *const args[] = {"--out", out, "--graph", graph, "--strategies", "bestfit,firstfit", NULL};
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    g_assert_cmpuint(count_lines(out), ==, 3);
    r = run_sweep((const char *[]){"--out", out, "--graph", graph, "--dim", dim, "--strategies", "bestfit", NULL});
    g_assert_cmpint(r.status, ==, 1); /* sim refuses the value: it arrived as text */
    assert_contains(r.err, "VALUE must be a positive integer");
    run_result_clear(&r);
    g_assert_false(g_file_test(canary, G_FILE_TEST_EXISTS));

    /* The last row cut off mid-line: dropped, run again, the file whole. */
    char *text = test_read_file(out);
    gsize cut = strlen(text) - 20;
    g_assert_true(g_file_set_contents(out, text, (gssize)cut, NULL));
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "dropped a row cut off mid-line");
    assert_contains(r.err, "2 runs, 1 already in ");
    run_result_clear(&r);
    char *again = test_read_file(out);
    text[cut] = '\0';
    *(strrchr(text, '\n') + 1) = '\0'; /* the rows before the cut one stay as they were */
    g_assert_true(g_str_has_prefix(again, text));
    g_assert_cmpuint(count_lines(out), ==, 3);
    GError *error = NULL;
    CsvTable *whole = csv_table_read(out, &error); /* and the new row is a whole row */
    g_assert_no_error(error);
    csv_table_free(whole);
    g_free(again);
    g_free(text);

    /* Another sweep holds the lock: this one stops at once and says so. */
    char *lock = g_strconcat(out, ".lock", NULL);
    char *holder_argv[] = {"flock", lock, "sleep", "5", NULL};
    GPid holder;
    g_assert_true(g_spawn_async(NULL, holder_argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &holder, NULL));
    for (int tries = 0; tries < 100; tries++) { /* until the holder has it */
        char *probe_argv[] = {"flock", "-n", lock, "true", NULL};
        int wait_status = 0;
        g_assert_true(g_spawn_sync(NULL, probe_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &wait_status, NULL));
        if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0)
            break;
        g_usleep(20000);
    }
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "another sweep is writing ");
    run_result_clear(&r);
    kill(holder, SIGTERM);
    waitpid(holder, NULL, 0);
    g_spawn_close_pid(holder);
    g_free(lock);
    g_free(dim);
    g_free(out);
    g_free(source);
    g_free(graph);
    g_free(graph_name);
    g_free(canary);
}

/* A sweep's CSV has one column per bound dimension after `dims` (dim_NAME, empty where a row does not
 * bind it), remade when rows are added; rows keep their place and a rerun still finds them. */
static void test_sweep_dim_columns(void)
{
    char *graph = test_write_symbolic_graph(), *out = test_scratch_path("sweep-dims.csv");
    g_unlink(out);
    char *fixed = g_strdup_printf("%s:batch=2", graph);
    RunResult r = run_sweep((const char *[]){"--out", out, "--graph", fixed, "--dim", "seq=4,8", "--strategies", "firstfit",
                                             "--jobs", "1", NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    char *text = test_read_file(out);
    g_assert_true(g_str_has_prefix(text, "graph,dims,dim_batch,dim_seq,order,strategy,buffers,"));
    char *row4 = g_strdup_printf("%s,\"batch=2,seq=4\",2,4,file,firstfit,", graph);
    char *row8 = g_strdup_printf("%s,\"batch=2,seq=8\",2,8,file,firstfit,", graph);
    assert_contains(text, row4);
    assert_contains(text, row8);
    g_free(text);
    /* More rows, another graph without dims: its dim cells are empty; the old rows are found again. */
    r = run_sweep((const char *[]){"--out", out, "--graph", fixed, "--dim", "seq=4,8,16", "--strategies", "firstfit",
                                   "--jobs", "1", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "3 runs, 2 already in ");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/unet.onnx", "--strategies", "firstfit", NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    text = test_read_file(out);
    g_assert_true(g_str_has_prefix(text, "graph,dims,dim_batch,dim_seq,order,"));
    g_assert_cmpuint(count_lines_text(text), ==, 5);
    assert_contains(text, row4);
    assert_contains(text, "\ngraphs/unet.onnx,-,,,file,firstfit,");
    g_free(text);
    g_free(row4);
    g_free(row8);
    g_free(fixed);
    g_free(out);
    g_free(graph);
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
    g_test_add_func("/tables/sweep-runner", test_sweep_runner);
    g_test_add_func("/tables/sweep-hostile", test_sweep_hostile);
    g_test_add_func("/tables/sweep-edges", test_sweep_edges);
    g_test_add_func("/tables/sweep-dim-columns", test_sweep_dim_columns);
    g_test_add_func("/tables/canonical-csv", test_canonical_csv);
    g_test_add_func("/tables/deterministic-under-load", test_tables_deterministic_under_load);
    g_test_add_func("/tables/where-and-facet", test_where_and_facet);
    return g_test_run();
}
