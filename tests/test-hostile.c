/* test-hostile.c — names and paths from strangers, end to end through the sim binary (issue 17): they never
 * run a command (gnuplot executes `...` even inside double quotes), every format we write carries them and
 * reads back, outputs never replace what is not a regular file, a failed write (a full disk, a missing
 * folder) is an error, and --run refuses an arena the machine cannot hold. The bad-input corpus
 * (test-badinput.c) holds the cases that end in one error line; these are the ones that succeed, or fail
 * after printing a report. */
#include "report/csv-table.h"
#include "tests/fuzz/gnuplot-check.h"
#include "tests/testutil.h"
#include "trace/trace.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *canary;    /* the file a command smuggled into a name would create */
static GPtrArray *hostile; /* names holding what gnuplot, a shell, CSV, JSON, XML or our text format act on */

static void make_hostile_names(void)
{
    canary = test_scratch_path("canary");
    hostile = g_ptr_array_new_with_free_func(g_free);
    const char *const forms[] = {"`touch %s`", "$(touch %s)", "x\" . system(\"touch %s\") . \"", "x' . system('touch %s') . '",
                                 "@ARGV %s", "line\nbreak\rand\ttab %s", "ctl\x01\x1b[31m %s", "bad\xff\xfe utf8 %s",
                                 "<svg>&amp; ]]> %s", "EOD", "comma,\"quote\" %% %s", ""};
    for (guint k = 0; k < G_N_ELEMENTS(forms); k++)
        g_ptr_array_add(hostile, g_strdup_printf(forms[k], canary));
}

static const char *name_at(guint k) { return hostile->pdata[k % hostile->len]; }

/* A trace of one buffer per hostile name, big enough for layout to label each rectangle. */
static Trace *hostile_trace(const char *source)
{
    Trace *t = trace_new(source);
    for (guint k = 0; k < hostile->len; k++)
        trace_add(t, name_at(k), 4096u * (1 + k % 3), 1, k, k + 1);
    return t;
}

static char *write_hostile_trace(const char *file)
{
    char *path = test_scratch_path(file);
    Trace *t = hostile_trace("hostile");
    GError *error = NULL;
    g_assert_true(trace_write_file(t, NULL, path, &error));
    g_assert_no_error(error);
    trace_free(t);
    return path;
}

static RunResult run_ok(const char *const *args)
{
    RunResult r = test_run("SIM_BIN", args);
    if (r.status != 0)
        g_error("sim failed (%d): %s", r.status, r.err);
    return r;
}

static void assert_no_canary(void) { g_assert_false(g_file_test(canary, G_FILE_TEST_EXISTS)); }

/* An SVG is XML: GMarkup parses it to the end (it refuses invalid UTF-8, control bytes, unbalanced tags). */
static void assert_valid_xml(const char *path)
{
    char *text = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(path, &text, &len, NULL));
    g_assert_true(g_str_has_prefix(text, "<?xml"));
    const char *body = strstr(text, "<svg");
    g_assert_nonnull(body);
    GMarkupParser parser = {0};
    GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, NULL, NULL);
    GError *error = NULL;
    gboolean ok = g_markup_parse_context_parse(ctx, body, (gssize)(len - (gsize)(body - text)), &error) &&
                  g_markup_parse_context_end_parse(ctx, &error);
    if (!ok)
        g_error("%s is not valid XML: %s", path, error->message);
    g_markup_parse_context_free(ctx);
    g_free(text);
}

/* The checker the fuzzer relies on is not vacuous: the scripts the old quoting wrote are caught. */
static void test_script_checker(void)
{
    const char *bad[] = {"set title \"a`touch x`\"\n", "set label 'q' at 1,1 @m\n", "set title \"$(id)\"\n",
                         "set title \"\xff\"\n", "set title \"open\n", "$d << EOD\n\"name\" 1\nEOD\n",
                         "$d << EOD\n1 2\n", "plot $ bad\n", "set xtics (\"50% smaller\" 0)\n"};
    for (guint k = 0; k < G_N_ELEMENTS(bad); k++) {
        char *problem = gnuplot_script_problem(bad[k], strlen(bad[k]));
        if (!problem)
            g_error("the checker passed a live script: %s", bad[k]);
        g_free(problem);
    }
    const char *good = "set terminal svg\nset title \"a\\140touch\\140\"\n$profile << EOD\n0 1.5 -2e3 ?\nEOD\n"
                       "plot $profile using 1:2, '' using (($1+$2)/2):3 title \"x\\044(id)\"\n";
    g_assert_null(gnuplot_script_problem(good, strlen(good)));
}

/* Every plot kind, with hostile names in the buffers, the graph's file name, the table's cells and
 * columns, the title and the output path: gnuplot draws them as text, runs nothing, and each SVG is XML. */
static void test_plots_run_nothing(void)
{
    char *trace = write_hostile_trace("hostile.trace");
    char *weird_dir = test_scratch_path("out'`touch x`$(touch y) \"dir\"");
    g_assert_cmpint(g_mkdir(weird_dir, 0755), ==, 0);
    char *layout = g_build_filename(weird_dir, "layout '`id`.svg", NULL), *timeline = test_scratch_path("timeline.svg");
    RunResult r = run_ok((const char *[]){"--trace", trace, "--strategy", "greedy-size", "--plot", "layout", "--out",
                                          layout, NULL});
    run_result_clear(&r);
    r = run_ok((const char *[]){"--trace", trace, "--compare", "--budget", "1", "--plot", "timeline", "--out", timeline,
                                NULL});
    run_result_clear(&r);
    assert_valid_xml(layout);
    assert_valid_xml(timeline);
    char *text = NULL;
    g_assert_true(g_file_get_contents(layout, &text, NULL, NULL));
    g_assert_nonnull(strstr(text, "touch ")); /* the names are drawn, as text */
    g_free(text);

    /* A table whose cells and one column name are hostile, read through the CSV reader. */
    GString *csv = g_string_new("graph,dims,order,alias,strategy,arena_bytes,lower_bound_bytes,");
    char *column = csv_table_quote(name_at(0));
    g_string_append_printf(csv, "%s\n", column);
    for (guint k = 0; k < hostile->len; k++) {
        char *graph = csv_table_quote(name_at(k)), *strategy = csv_table_quote(name_at(k + 1));
        g_string_append_printf(csv, "%s,n=%u,file,all,%s,%u,1000,%u\n", graph, k + 1, strategy, 1100 + k, k);
        g_free(graph);
        g_free(strategy);
    }
    char *table = test_write_scratch("hostile.csv", csv->str, csv->len);
    char *compare = test_scratch_path("compare.svg"), *sweep = test_scratch_path("sweep.svg");
    r = run_ok((const char *[]){"--from", table, "--plot", "compare", "--title", name_at(0), "--out", compare, NULL});
    run_result_clear(&r);
    r = run_ok((const char *[]){"--from", table, "--plot", "sweep", "--x", "n", "--y", name_at(0), "--title", name_at(1),
                                "--out", sweep, NULL});
    run_result_clear(&r);
    assert_valid_xml(compare);
    assert_valid_xml(sweep);
    assert_no_canary();
    g_free(column);
    g_string_free(csv, TRUE);
    g_free(table);
    g_free(compare);
    g_free(sweep);
    g_free(layout);
    g_free(timeline);
    g_free(weird_dir);
    g_free(trace);
}

/* Outputs never replace what is not a regular file: /dev/null stays a device, a symlink stays a symlink
 * (its target gets the bytes), a folder is an error; a regular file is replaced whole. */
static void test_outputs_never_replace(void)
{
    char *trace = write_hostile_trace("outputs.trace");
    const char *flags[] = {"--chrome-trace", "--trace-out"};
    for (guint k = 0; k < G_N_ELEMENTS(flags); k++) {
        RunResult r = run_ok((const char *[]){"--trace", trace, flags[k], "/dev/null", NULL});
        run_result_clear(&r);
        GStatBuf st;
        g_assert_cmpint(g_lstat("/dev/null", &st), ==, 0);
        g_assert_true(S_ISCHR(st.st_mode));
    }
    char *real = test_scratch_path("real.json"), *link = test_scratch_path("link.json"), *svg_link = test_scratch_path("null.svg");
    g_assert_true(g_file_set_contents(real, "old", 3, NULL));
    g_assert_cmpint(symlink(real, link), ==, 0);
    g_assert_cmpint(symlink("/dev/null", svg_link), ==, 0);
    RunResult r = run_ok((const char *[]){"--trace", trace, "--chrome-trace", link, "--plot", "layout", "--out", svg_link, NULL});
    run_result_clear(&r);
    GStatBuf st;
    g_assert_cmpint(g_lstat(link, &st), ==, 0);
    g_assert_true(S_ISLNK(st.st_mode));
    g_assert_cmpint(g_lstat(svg_link, &st), ==, 0);
    g_assert_true(S_ISLNK(st.st_mode));
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_file(parser, real, NULL)); /* the link's target got the whole trace */
    g_object_unref(parser);

    /* A folder, or a file in a missing folder: an error after the report, nothing left behind. */
    char *folder = test_scratch_path("a-folder"), *missing = test_scratch_path("no-such-folder/x.svg");
    g_assert_cmpint(g_mkdir(folder, 0755), ==, 0);
    r = test_run("SIM_BIN", (const char *[]){"--trace", trace, "--chrome-trace", folder, NULL});
    g_assert_cmpint(r.status, ==, 1);
    char *line = g_strdup_printf("sim: %s: cannot write: is a directory\n", folder);
    g_assert_cmpstr(r.err, ==, line);
    g_free(line);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", trace, "--plot", "layout", "--out", missing, NULL});
    g_assert_cmpint(r.status, ==, 1);
    line = g_strdup_printf("sim: %s: cannot write: no such folder\n", missing);
    g_assert_cmpstr(r.err, ==, line);
    g_assert_null(strstr(r.out, "<svg")); /* gnuplot's picture is never dumped to stdout */
    g_free(line);
    run_result_clear(&r);
    g_free(folder);
    g_free(missing);
    g_free(real);
    g_free(link);
    g_free(svg_link);
    g_free(trace);
}

/* `sim ... > /dev/full`: every report format, --info, --list, --list-ops and --map fail with one line. */
static void test_stdout_full(void)
{
    char *gpt2 = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL);
    const char *const cases[][5] = {
        {"--graph", gpt2, NULL}, {"--graph", gpt2, "--format", "json", NULL}, {"--graph", gpt2, "--format", "csv", NULL},
        {"--graph", gpt2, "--format", "md", NULL}, {"--graph", gpt2, "--info", NULL}, {"--list", NULL},
        {"--list-ops", NULL}, {"--graph", gpt2, "--map", NULL},
    };
    for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
        GPtrArray *argv = g_ptr_array_new();
        g_ptr_array_add(argv, "/bin/sh");
        g_ptr_array_add(argv, "-c");
        g_ptr_array_add(argv, "exec \"$0\" \"$@\" > /dev/full");
        g_ptr_array_add(argv, (gpointer)g_getenv("SIM_BIN"));
        for (guint a = 0; cases[k][a]; a++)
            g_ptr_array_add(argv, (gpointer)cases[k][a]);
        g_ptr_array_add(argv, NULL);
        char *err = NULL;
        int wait_status = 0;
        g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err,
                                   &wait_status, NULL));
        g_assert_true(WIFEXITED(wait_status));
        g_assert_cmpint(WEXITSTATUS(wait_status), ==, 1);
        g_assert_cmpstr(err, ==, "sim: stdout: cannot write: No space left on device\n");
        g_free(err);
        g_ptr_array_unref(argv);
    }
    g_free(gpt2);
}

/* Every text format we write reads back with the names as they were: the trace (text and MiniMalloc CSV,
 * from a source path holding a newline), the CSV report, the JSON report and map, the --map CSV. */
static void test_formats_read_back(void)
{
    char *source = write_hostile_trace("source\nwith newline.trace");
    char *out_text = test_scratch_path("again.trace"), *out_csv = test_scratch_path("again.csv");
    RunResult r = run_ok((const char *[]){"--trace", source, "--trace-out", out_text, NULL});
    run_result_clear(&r);
    r = run_ok((const char *[]){"--trace", out_text, "--trace-out", out_csv, NULL});
    run_result_clear(&r);
    GError *error = NULL;
    for (guint f = 0; f < 2; f++) {
        Trace *t = trace_read_file(f ? out_csv : out_text, &error);
        g_assert_no_error(error);
        g_assert_cmpuint(trace_count(t), ==, hostile->len);
        for (guint k = 0; k < hostile->len; k++)
            g_assert_cmpstr(trace_buffer(t, k)->name, ==, *name_at(k) ? name_at(k) : "");
        trace_free(t);
    }
    /* The CSV report and map: the graph column is the hostile path, every buffer name comes back. */
    r = run_ok((const char *[]){"--trace", source, "--format", "csv", NULL});
    CsvTable *table = csv_table_parse(r.out, strlen(r.out), &error);
    g_assert_no_error(error);
    g_assert_cmpstr(csv_table_cell(table, 0, (guint)csv_table_column(table, "graph")), ==, source);
    csv_table_free(table);
    run_result_clear(&r);
    r = run_ok((const char *[]){"--trace", source, "--map", "--format", "csv", NULL});
    g_assert_true(g_str_has_prefix(r.out, "offset,size,name,first,last\n")); /* the map alone: one CSV */
    table = csv_table_parse(r.out, strlen(r.out), &error);
    g_assert_no_error(error);
    g_assert_cmpuint(table->rows->len, ==, hostile->len);
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint k = 0; k < table->rows->len; k++)
        g_hash_table_add(seen, (gpointer)csv_table_cell(table, k, 2));
    for (guint k = 0; k < hostile->len; k++)
        g_assert_true(g_hash_table_contains(seen, name_at(k)));
    g_hash_table_unref(seen);
    csv_table_free(table);
    run_result_clear(&r);
    /* JSON: a document json-glib reads, names made valid UTF-8 where they were not. */
    r = run_ok((const char *[]){"--trace", source, "--map", "--format", "json", NULL});
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, r.out, -1, &error));
    g_assert_no_error(error);
    g_object_unref(parser);
    run_result_clear(&r);
    /* The Chrome trace (written as text, not by json-glib): json-glib reads it back, and every buffer's slice
     * carries its name as written, made valid UTF-8 where it was not; with --compare too. */
    char *chrome = test_scratch_path("hostile-trace.json");
    for (guint compare = 0; compare < 2; compare++) {
        r = run_ok(compare ? (const char *[]){"--trace", source, "--compare", "--chrome-trace", chrome, NULL}
                           : (const char *[]){"--trace", source, "--chrome-trace", chrome, NULL});
        run_result_clear(&r);
        parser = json_parser_new();
        g_assert_true(json_parser_load_from_file(parser, chrome, &error));
        g_assert_no_error(error);
        JsonArray *events = json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "traceEvents");
        guint slices = 0;
        for (guint k = 0; k < json_array_get_length(events); k++) {
            JsonObject *e = json_array_get_object_element(events, k);
            if (json_object_get_int_member(e, "pid") != 2 || strcmp(json_object_get_string_member(e, "ph"), "X"))
                continue;
            char *want = g_utf8_make_valid(name_at(slices), -1);
            g_assert_cmpstr(json_object_get_string_member(e, "name"), ==, want);
            g_free(want);
            slices++;
        }
        g_assert_cmpuint(slices, ==, hostile->len);
        g_object_unref(parser);
    }
    g_free(chrome);
    /* The text map: five whitespace-separated fields a line, whatever the names hold. */
    r = run_ok((const char *[]){"--trace", source, "--map", NULL});
    const char *lines = strstr(r.out, "# offset size name first last\n");
    g_assert_nonnull(lines);
    char **rows = g_strsplit(strchr(lines, '\n') + 1, "\n", -1);
    guint n = 0;
    for (char **row = rows; *row && **row; row++, n++) {
        char **fields = g_strsplit_set(*row, " \t", -1);
        g_assert_cmpuint(g_strv_length(fields), ==, 5);
        g_strfreev(fields);
    }
    g_assert_cmpuint(n, ==, hostile->len);
    g_strfreev(rows);
    run_result_clear(&r);
    /* A MiniMalloc CSV saved by a spreadsheet, with a byte-order mark, plans. */
    static const char bom_csv[] = "\xEF\xBB\xBFid,lower,upper,size\nb0,0,2,64\nb1,1,3,64\n";
    char *bom = test_write_scratch("bom.csv", bom_csv, sizeof bom_csv - 1);
    r = run_ok((const char *[]){"--trace", bom, "--format", "csv", NULL});
    run_result_clear(&r);
    g_free(bom);
    g_free(out_text);
    g_free(out_csv);
    g_free(source);
}

/* --run with an arena no machine here holds: one line saying how much was wanted, not a GLib abort. */
static void test_run_arena_too_big(void)
{
    Builder *b = builder_new("huge", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 3, (const gint64[]){65536, 65536, 1024});
    builder_output(b, B_OP(b, "Relu", x));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_scratch_path("huge.onnx");
    g_assert_true(onnx_write_file(m, path, &error));
    model_free(m);
    /* the run's total of bytes read and written refuses it first, before the plan's report */
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--run", NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_cmpstr(r.out, ==, "");
    assert_contains(r.err, "--run would read and write more than 274,877,906,944 B (256.0 GiB) by this step, 1 of 1");
    run_result_clear(&r);
    /* past that total, the arena itself */
    g_setenv("ARENASIM_RUN_WORK", "18446744073709551615", TRUE);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--run", NULL});
    g_unsetenv("ARENASIM_RUN_WORK");
    g_assert_cmpint(r.status, ==, 1);
    char *line = g_strdup_printf("sim: %s: --run needs 35,184,372,088,832 B (32.0 TiB) for the planned arena", path);
    g_assert_true(g_str_has_prefix(r.err, line));
    g_assert_cmpint(strchr(r.err, '\n') - r.err, ==, (long)strlen(r.err) - 1); /* one line */
    g_free(line);
    run_result_clear(&r);
    g_free(path);
}

/* The --profile CSV of a model whose node names hold quotes, commas and newlines reads back name for name. */
static void test_profile_csv(void)
{
    Builder *b = builder_new("names", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){4, 4});
    const char *y = B_OP(b, "Relu", x);
    builder_output(b, B_OP(b, "Neg", y));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    const char *names[] = {"say \"hi\", then\nleave", "`touch x`,$(y)"};
    for (guint k = 0; k < 2; k++) {
        Node *n = m->graph->nodes->pdata[k];
        g_free(n->name);
        n->name = g_strdup(names[k]);
    }
    char *path = test_scratch_path("names.onnx"), *profile = test_scratch_path("profile.csv");
    g_assert_true(onnx_write_file(m, path, &error));
    model_free(m);
    RunResult r = run_ok((const char *[]){"--graph", path, "--run", "--profile", profile, NULL});
    run_result_clear(&r);
    char *text = test_read_file(profile);
    CsvTable *t = csv_table_parse(text, strlen(text), &error);
    g_assert_no_error(error);
    g_assert_cmpuint(t->rows->len, ==, 2);
    for (guint k = 0; k < 2; k++)
        g_assert_cmpstr(csv_table_cell(t, k, 1), ==, names[k]);
    csv_table_free(t);
    g_free(text);
    g_free(profile);
    g_free(path);
}

/* Round two (issue 37). A failed run removes nothing: not the user's earlier --trace-out file, not a
 * symlink, not the input trace itself named as the output (the run used to unlink whatever --trace-out
 * named when it failed after writing it). */
static void test_failed_run_removes_nothing(void)
{
    char *gpt2 = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL);
    char *mine = test_scratch_path("mine.trace"), *target = test_scratch_path("target.trace"),
         *link = test_scratch_path("link.trace");
    g_assert_true(g_file_set_contents(mine, "the user's own file\n", -1, NULL));
    g_assert_true(g_file_set_contents(target, "a link's target\n", -1, NULL));
    g_assert_cmpint(symlink(target, link), ==, 0);
    g_setenv("ARENASIM_RUN_MEMORY", "1000", TRUE); /* the run fails after planning: its arena cannot be had */
    const char *outs[] = {mine, link};
    for (guint k = 0; k < G_N_ELEMENTS(outs); k++) {
        RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", gpt2, "--run", "--trace-out", outs[k], NULL});
        g_assert_cmpint(r.status, ==, 1);
        g_assert_nonnull(strstr(r.err, "cannot have it"));
        run_result_clear(&r);
    }
    g_unsetenv("ARENASIM_RUN_MEMORY");
    char *text = test_read_file(mine);
    g_assert_cmpstr(text, ==, "the user's own file\n");
    g_free(text);
    GStatBuf st;
    g_assert_cmpint(g_lstat(link, &st), ==, 0);
    g_assert_true(S_ISLNK(st.st_mode));
    text = test_read_file(target);
    g_assert_cmpstr(text, ==, "a link's target\n");
    g_free(text);
    /* The input trace named as the output of a run that fails (a pin past what the trace allows): kept. */
    char *trace = write_hostile_trace("input.trace"), *before = test_read_file(trace);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--trace", trace, "--trace-out", trace, "--plot", "layout", "--out",
                                                       "/no/such/folder/x.svg", NULL});
    g_assert_cmpint(r.status, ==, 1);
    run_result_clear(&r);
    char *after = test_read_file(trace);
    g_assert_cmpstr(after, ==, before);
    g_free(after);
    g_free(before);
    g_free(trace);
    g_free(mine);
    g_free(target);
    g_free(link);
    g_free(gpt2);
}

/* --run counts everything it holds: with room for the planned run but not for --check's nothing-shared
 * reference beside it, the run ends with one line instead of the out-of-memory killer. */
static void test_run_counts_check(void)
{
    char *gpt2 = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL);
    g_setenv("ARENASIM_RUN_MEMORY", "900000000", TRUE);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", gpt2, "--run", NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", gpt2, "--run", "--check", NULL});
    g_unsetenv("ARENASIM_RUN_MEMORY");
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "cannot have it (the run holds "));
    g_assert_true(g_str_has_suffix(r.err, "\n"));
    g_assert_true(strchr(r.err, '\n') == r.err + strlen(r.err) - 1); /* one line */
    run_result_clear(&r);
    g_free(gpt2);
}

/* A staircase (buffer k lives from step k to the end) sums its lifetimes to n^2/2 buffer-steps: the
 * search's per-step index wrapped its 32-bit counts and wrote past its block, and later refused anything past
 * 2^26 buffer-steps. Its index now goes by tree there (search-live.c), counted in 64 bits: both exact
 * strategies search the staircase to the end of their budget and end with a verified plan. */
static void test_search_staircase(void)
{
    guint n = 12000;
    Trace *t = trace_new("staircase");
    for (guint k = 0; k < n; k++) {
        char name[32];
        g_snprintf(name, sizeof name, "b%u", k);
        trace_add(t, name, 16, 64, k, n);
    }
    char *path = test_scratch_path("staircase.trace");
    GError *error = NULL;
    g_assert_true(trace_write_file(t, NULL, path, &error));
    trace_free(t);
    const char *strategies[] = {"search", "minimalloc"};
    for (guint k = 0; k < G_N_ELEMENTS(strategies); k++) {
        /* a work budget: what the run reaches never depends on how busy the machine is */
        RunResult r = run_ok((const char *[]){"--trace", path, "--strategy", strategies[k], "--budget-work", "1000",
                                              NULL});
        g_assert_null(strstr(r.out, "not searched"));
        g_assert_nonnull(strstr(r.out, "(budget spent)"));
        g_assert_nonnull(strstr(r.out, "verified       yes"));
        run_result_clear(&r);
    }
    g_free(path);
}

/* Table plots: a category holding '%' is drawn as written (gnuplot reads a tic label as a format: '%2000d'
 * smashed its stack), and a table of more rows than a picture can show is refused before gnuplot sees it. */
static void test_table_plot_limits(void)
{
    char *table = test_scratch_path("percent.csv"), *png = test_scratch_path("percent.png");
    const char *text = "graph,dims,order,alias,strategy,arena_bytes,lower_bound_bytes\n"
                       "\"model 50% smaller\",,file,all,bestfit,120,100\n\"x %2000d y\",,file,all,bestfit,110,100\n";
    g_assert_true(g_file_set_contents(table, text, -1, NULL));
    RunResult r = run_ok((const char *[]){"--from", table, "--plot", "compare", "--out", png, NULL});
    run_result_clear(&r);
    g_assert_true(g_file_test(png, G_FILE_TEST_IS_REGULAR));
    GString *many = g_string_new("graph,dims,order,alias,strategy,arena_bytes,lower_bound_bytes\n");
    for (guint k = 0; k < 20000; k++)
        g_string_append_printf(many, "g%u,,file,all,s%u,120,100\n", k, k % 70);
    g_assert_true(g_file_set_contents(table, many->str, (gssize)many->len, NULL));
    g_string_free(many, TRUE);
    g_remove(png);
    const char *kinds[][2] = {{"compare", NULL}, {"sweep", "arena_bytes"}};
    for (guint k = 0; k < G_N_ELEMENTS(kinds); k++) {
        r = test_run("SIM_BIN", kinds[k][1] ? (const char *[]){"--from", table, "--plot", kinds[k][0], "--x", kinds[k][1],
                                                              "--out", png, NULL}
                                            : (const char *[]){"--from", table, "--plot", kinds[k][0], "--out", png, NULL});
        g_assert_cmpint(r.status, ==, 1);
        g_assert_nonnull(strstr(r.err, "more than the 64 a plot can tell apart"));
        run_result_clear(&r);
        g_assert_false(g_file_test(png, G_FILE_TEST_EXISTS));
    }
    g_free(table);
    g_free(png);
}

/* Names that would drive a terminal reach --info escaped, one line each; and kernels fed hostile
 * attributes (Shape's start near INT64_MIN, a Slice step of INT64_MIN) run bit for bit under --check. */
static void test_info_and_kernels(void)
{
    Builder *b = builder_new("evil\x1b]0;owned\x07\nsim: forged line", 15);
    const char *x = builder_input(b, "x\x1b[2J", DT_FLOAT, 2, (const gint64[]){4, 6});
    const char *shape = builder_node(b, "Shape", (const char *const[]){x, NULL}, 1, NULL,
                               attr_new_int("start", G_MININT64 + 5), NULL);
    builder_output(b, shape);
    const char *starts = builder_int_vec(b, "starts", 1, (const gint64[]){-1});
    const char *ends = builder_int_vec(b, "ends", 1, (const gint64[]){G_MININT64});
    const char *axes = builder_int_vec(b, "axes", 1, (const gint64[]){1});
    const char *steps = builder_int_vec(b, "steps", 1, (const gint64[]){G_MININT64});
    builder_output(b, B_OP(b, "Slice", x, starts, ends, axes, steps));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_scratch_path("evil.onnx");
    g_assert_true(onnx_write_file(m, path, &error));
    model_free(m);
    RunResult r = run_ok((const char *[]){"--graph", path, "--info", NULL});
    g_assert_null(strchr(r.out, '\x1b'));
    g_assert_null(strchr(r.out, '\x07'));
    g_assert_null(strstr(r.out, "\nsim: forged"));
    g_assert_nonnull(strstr(r.out, "evil%1B]0;owned%07%0Asim: forged line"));
    run_result_clear(&r);
    r = run_ok((const char *[]){"--graph", path, "--run", "--check", "--poison", NULL});
    g_assert_nonnull(strstr(r.out, "bit for bit"));
    run_result_clear(&r);
    g_free(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    make_hostile_names();
    g_test_add_func("/hostile/script-checker", test_script_checker);
    g_test_add_func("/hostile/plots-run-nothing", test_plots_run_nothing);
    g_test_add_func("/hostile/outputs-never-replace", test_outputs_never_replace);
    g_test_add_func("/hostile/stdout-full", test_stdout_full);
    g_test_add_func("/hostile/formats-read-back", test_formats_read_back);
    g_test_add_func("/hostile/run-arena-too-big", test_run_arena_too_big);
    g_test_add_func("/hostile/profile-csv", test_profile_csv);
    g_test_add_func("/hostile/failed-run-removes-nothing", test_failed_run_removes_nothing);
    g_test_add_func("/hostile/run-counts-check", test_run_counts_check);
    g_test_add_func("/hostile/search-staircase", test_search_staircase);
    g_test_add_func("/hostile/table-plot-limits", test_table_plot_limits);
    g_test_add_func("/hostile/info-and-kernels", test_info_and_kernels);
    int status = g_test_run();
    g_ptr_array_unref(hostile);
    g_free(canary);
    return status;
}
