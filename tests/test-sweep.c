/* test-sweep.c — bench/sweep.py on this machine, through every fault a sweep meets: rows appended and a rerun
 * that runs only what is missing; failures named once per message; hostile names; the per-dimension columns;
 * INT, TERM and HUP (the finished rows kept, exit 128 + the signal, no run left alive); kill -9 of the driver
 * (its runs die with it, the next sweep takes the table over and keeps what they finished); a run that hangs
 * (--timeout) and one that fails once (--retries); malformed lines kept aside; a full disk (as root: a tmpfs).
 * The runs that hang are a wrapper around the sim under test (it sleeps on greedy-size while a folder exists),
 * so what finishes before a signal is fixed, whatever the machine's speed. ssh and Slurm: test-hosts.c. */
#include "report/csv-table.h"
#include "tests/sweeputil.h"
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

/* bench/sweep.py with the sim under test, to the end. */
static RunResult run_sweep(const char *const *args)
{
    char *script = test_source_path("bench/sweep.py");
    g_setenv("SWEEP_BIN", script, TRUE);
    g_free(script);
    return test_run("SWEEP_BIN", args);
}

/* ---- the tests ------------------------------------------------------------------------------------------- */

static void test_sweep_runner(void)
{
    char *parallel = g_find_program_in_path("parallel");
    if (!parallel) {
        g_test_fail_printf("GNU parallel is not installed (make deps installs it)");
        return;
    }
    g_free(parallel);
    char *out = test_scratch_path("sweep.csv");
    const char *const args[] = {"--out", out, "--graph", "graphs/gpt2.onnx", "--graph", "graphs/unet.onnx", "--alias",
                                "all", "--alias", "none", "--strategies", "firstfit,greedy-size", "--jobs", "2", NULL};
    RunResult r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "sweep: 8 runs, 0 already in ");
    assert_contains(r.err, "sweep: 8 rows appended to ");
    g_assert_cmpuint(test_count_lines(out), ==, 9); /* header and 8 rows, in job order */
    char *text = test_read_file(out);
    g_assert_true(g_str_has_prefix(text, "graph,dims,order,strategy,buffers,"));
    /* gpt2 without sharing, greedy-size: the lower bound exactly (docs/corpus.md). */
    assert_contains(text, "graphs/gpt2.onnx,-,file,greedy-size,442,417,26124800,26124800,");
    g_assert_true(strstr(text, "\ngraphs/gpt2.onnx,-,file,firstfit,") < strstr(text, "\ngraphs/unet.onnx,"));
    g_free(text);
    run_result_clear(&r);
    char *state = g_strconcat(out, ".sweep", NULL);
    g_assert_false(g_file_test(state, G_FILE_TEST_EXISTS)); /* a sweep that ended leaves no state behind */

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
    g_hash_table_unref(sweep_table_keys(out));
    g_assert_cmpuint(test_count_lines(out), ==, 9);
    run_result_clear(&r);

    /* Failing runs leave no row; each distinct message is said once, with a count and the first run it
     * came from; a rerun tries them again. */
    const char *const failing[] = {"--out", out, "--graph", "graphs/inception.onnx", "--orders", "optimal",
                                   "--strategies", "bestfit,firstfit", "--sim-args", "--order-budget 1", NULL};
    r = run_sweep(failing);
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "sweep: 2 of 2 runs failed; their rows are missing (a rerun retries them). Messages:\n"
                           "  2 runs, the first graphs/inception.onnx order=optimal alias=all strategy=bestfit:\n"
                           "    sim: graphs/inception.onnx: order optimal: the exact order gave up");
    g_assert_cmpuint(test_count_lines(out), ==, 9);
    run_result_clear(&r);
    r = run_sweep(failing);
    assert_contains(r.err, "2 runs, 0 already in ");
    run_result_clear(&r);

    /* Usage errors. */
    r = run_sweep((const char *[]){"--graph", "graphs/gpt2.onnx", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_cmpstr(r.err, ==, "sweep: --out FILE.csv is required (see --help)\n");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--dim", "seq", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_cmpstr(r.err, ==, "sweep: --dim 'seq' is not NAME=V1,V2,...\n");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--timeout", "0", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_cmpstr(r.err, ==, "sweep: --timeout '0' is not a positive whole number\n");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--detach", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_cmpstr(r.err, ==, "sweep: --detach and --keep-array go with --slurm\n");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--slurm", "--sbatch", "--array=0-9%2", NULL});
    g_assert_cmpint(r.status, ==, 2); /* sbatch would take the last --array: part of the sweep, silently */
    g_assert_cmpstr(r.err, ==, "sweep: --sbatch may not set --array: the sweep makes its arrays (--max-running K gives "
                               "their %K)\n");
    run_result_clear(&r);
    g_free(state);
    g_free(out);
}

/* --help on stdout with status 0; a typo'd name stops it before anything runs (and leaves no file); without a
 * terminal, a progress line. */
static void test_sweep_edges(void)
{
    char *out = test_scratch_path("edges/sweep.csv"), *dir = g_path_get_dirname(out);
    RunResult r = run_sweep((const char *[]){"--help", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "Options:");
    assert_contains(r.out, "--timeout S");
    g_assert_cmpstr(r.err, ==, "");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--strategies", "bestfit,bestfitt", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "sweep: unknown strategy 'bestfitt' (one of: naive, firstfit, bestfit,");
    g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--orders", "file,sideways", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "sweep: unknown order 'sideways' (one of: file, topo,");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", out, "--graph", "graphs/gpt2.onnx", "--strategies", "bestfit", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "sweep: 0 of 1 runs done"); /* stderr is no terminal here */
    run_result_clear(&r);
    g_free(dir);
    g_free(out);
}

/* Hostile input: a graph file named with a command substitution and a --dim value holding one reach sim as
 * text (the canary is never made); --dry-run builds and writes nothing; a second sweep on a table being
 * written stops with a message naming the first; lines of the table or journal that are not rows (cut off,
 * wrong field count) are kept aside in OUT.rejected, said, and their runs done again. */
static void test_sweep_hostile(void)
{
    /* A file name cannot hold '/': its commands would make the canary in the sweep's folder (the repository). */
    char *canary = test_source_path("canary-sweep");
    char *graph_name = g_strdup("m$(touch canary-sweep)`touch canary-sweep`\n.onnx");
    char *graph = test_scratch_path(graph_name), *source = test_source_path("graphs/noop-chain.onnx");
    char *bytes;
    gsize len;
    g_assert_true(g_file_get_contents(source, &bytes, &len, NULL));
    g_assert_true(g_file_set_contents(graph, bytes, (gssize)len, NULL));
    g_free(bytes);
    char *out = test_scratch_path("hostile-sweep.csv"), *rejected = g_strconcat(out, ".rejected", NULL);
    char *dim = g_strdup_printf("n=1$(touch %s)", canary);
    RunResult r = run_sweep((const char *[]){"--out", out, "--graph", graph, "--strategies", "bestfit,firstfit",
                                             "--dry-run", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    assert_contains(r.err, "2 runs, 0 already in ");
    run_result_clear(&r);
    const char *const args[] = {"--out", out, "--graph", graph, "--strategies", "bestfit,firstfit", NULL};
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    g_assert_cmpuint(test_count_lines(out), ==, 5); /* the name's newline is inside a quoted field of each row */
    GHashTable *keys = sweep_table_keys(out);
    g_assert_true(sweep_has_key(keys, graph, "firstfit"));
    g_hash_table_unref(keys);
    r = run_sweep((const char *[]){"--out", out, "--graph", graph, "--dim", dim, "--strategies", "bestfit", NULL});
    g_assert_cmpint(r.status, ==, 1); /* sim refuses the value: it arrived as text */
    assert_contains(r.err, "VALUE must be a positive integer");
    run_result_clear(&r);
    g_assert_false(g_file_test(canary, G_FILE_TEST_EXISTS));

    /* The last row cut off mid-line and a line of three fields: both kept aside; the cut row's run is done again. */
    char *text = test_read_file(out);
    GString *damaged = g_string_new_len(text, (gssize)(strlen(text) - 20));
    g_string_insert(damaged, (gssize)(strchr(text, '\n') + 1 - text), "one,two,three\n");
    g_assert_true(g_file_set_contents(out, damaged->str, (gssize)damaged->len, NULL));
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "line 2: 3 fields, the header has 30: kept aside in ");
    assert_contains(r.err, "line 5: the line is cut off (a write stopped midway): kept aside in ");
    assert_contains(r.err, "2 runs, 1 already in ");
    run_result_clear(&r);
    char *aside = test_read_file(rejected);
    g_assert_true(g_str_has_prefix(aside, "one,two,three\n"));
    g_assert_cmpuint(strlen(aside), >, 100);
    g_free(aside);
    g_assert_cmpuint(sweep_table_runs(out), ==, 2);
    g_string_free(damaged, TRUE);
    g_free(text);

    /* Another sweep writes the table (one of its runs hangs): this one stops at once and names it. */
    char *hang = test_scratch_path("hostile-hang");
    g_assert_cmpint(g_mkdir_with_parents(hang, 0755), ==, 0);
    Background first = sweep_start((const char *[]){"--out", out, "--graph", "graphs/unet.onnx", "--strategies",
                                                    "greedy-size", NULL},
                                   hang, "hostile-first.err");
    sweep_wait_hanging(hang, 1);
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 2);
    char *expect = g_strdup_printf("sweep: another sweep (pid %d) is writing %s; wait for it", (int)first.pid, out);
    assert_contains(r.err, expect);
    g_free(expect);
    run_result_clear(&r);
    kill(first.pid, SIGTERM);
    char *said;
    g_assert_cmpint(sweep_wait(&first, &said), ==, 143);
    g_free(said);
    sweep_assert_hanging_ended(hang);
    g_free(hang);
    g_free(rejected);
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
    g_assert_cmpuint(test_count_lines(out), ==, 5);
    text = test_read_file(out);
    g_assert_true(g_str_has_prefix(text, "graph,dims,dim_batch,dim_seq,order,"));
    assert_contains(text, row4);
    assert_contains(text, "\ngraphs/unet.onnx,-,,,file,firstfit,");
    g_free(text);
    g_free(row4);
    g_free(row8);
    g_free(fixed);
    g_free(out);
    g_free(graph);
}

/* Six runs on two slots, unet's then gpt2's bestfit, firstfit, greedy-size: the two greedy-size runs hang,
 * and by the time both hang the other four have ended (each slot runs its runs in turn). */
static const char *const six[] = {"--graph", "graphs/unet.onnx", "--graph", "graphs/gpt2.onnx", "--strategies",
                                  "bestfit,firstfit,greedy-size", "--jobs", "2", NULL};

static const char **with_out(const char *out, const char *const *rest)
{
    GPtrArray *a = g_ptr_array_new();
    g_ptr_array_add(a, (gpointer) "--out");
    g_ptr_array_add(a, (gpointer)out);
    for (; *rest; rest++)
        g_ptr_array_add(a, (gpointer)*rest);
    g_ptr_array_add(a, NULL);
    return (const char **)g_ptr_array_free(a, FALSE);
}

/* The same command after a stop: nothing hangs now; every run has exactly one row. */
static void finish_and_check(const char *const *args, const char *hang, const char *expect)
{
    g_assert_cmpint(g_rmdir(hang), ==, 0);
    Background again = sweep_start(args, hang, "again.err");
    char *said;
    int status = sweep_wait(&again, &said);
    if (status != 0)
        g_error("the resumed sweep exited %d:\n%s", status, said);
    assert_contains(said, expect);
    g_assert_cmpuint(sweep_table_runs(args[1]), ==, 6);
    g_free(said);
    g_assert_cmpint(g_mkdir(hang, 0755), ==, 0);
}

/* INT (to the group, as a terminal's Ctrl-C), TERM (to the sweep, as kill does) and HUP (the terminal closed):
 * within seconds the sweep stops its runs, keeps the four finished rows, says so and exits 128 + the signal. */
static void test_sweep_signals(void)
{
    const struct {
        int sig, to_group, status;
        const char *name;
    } cases[] = {{SIGINT, 1, 130, "SIGINT"}, {SIGTERM, 0, 143, "SIGTERM"}, {SIGHUP, 1, 129, "SIGHUP"}};
    char *hang = test_scratch_path("signals-hang");
    g_assert_cmpint(g_mkdir_with_parents(hang, 0755), ==, 0);
    for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
        char *name = g_strdup_printf("signals-%s.csv", cases[k].name);
        char *out = test_scratch_path(name);
        const char **args = with_out(out, six);
        Background b = sweep_start(args, hang, "signals.err");
        sweep_wait_hanging(hang, 2);
        g_assert_cmpint(kill(cases[k].to_group ? -b.pid : b.pid, cases[k].sig), ==, 0);
        char *said;
        int status = sweep_wait(&b, &said);
        if (status != cases[k].status)
            g_error("%s: the sweep exited %d, not %d:\n%s", cases[k].name, status, cases[k].status, said);
        char *expect = g_strdup_printf("sweep: stopped by %s: 4 of 6 runs finished, their rows kept in %s; run the same "
                                       "command again to run the other 2\n", cases[k].name, out);
        assert_contains(said, expect);
        g_free(expect);
        GHashTable *keys = sweep_table_keys(out);
        g_assert_cmpuint(g_hash_table_size(keys), ==, 4);
        g_assert_true(sweep_has_key(keys, "graphs/gpt2.onnx", "firstfit"));
        g_assert_false(sweep_has_key(keys, "graphs/unet.onnx", "greedy-size"));
        g_hash_table_unref(keys);
        sweep_assert_hanging_ended(hang);
        finish_and_check(args, hang, "sweep: 6 runs, 4 already in ");
        g_free(said);
        g_free(args);
        g_free(out);
        g_free(name);
    }
    g_free(hang);
}

/* kill -9 of the sweep: its runs die with it (the engine is told when its parent dies); the rows it journaled
 * and the runs that ended after it are all kept by the next sweep, which takes the table over and says so. */
static void test_sweep_killed(void)
{
    char *hang = test_scratch_path("killed-hang"), *out = test_scratch_path("killed.csv");
    g_assert_cmpint(g_mkdir_with_parents(hang, 0755), ==, 0);
    const char **args = with_out(out, six);
    Background b = sweep_start(args, hang, "killed.err");
    sweep_wait_hanging(hang, 2);
    g_assert_cmpint(kill(b.pid, SIGKILL), ==, 0);
    char *said;
    g_assert_cmpint(sweep_wait(&b, &said), ==, 128 + SIGKILL);
    g_free(said);
    sweep_assert_hanging_ended(hang);
    char *expect = g_strdup_printf("sweep: taking over %s from sweep pid %d, which ended without finishing", out, (int)b.pid);
    finish_and_check(args, hang, expect);
    g_free(expect);
    char *state = g_strconcat(out, ".sweep", NULL);
    g_assert_false(g_file_test(state, G_FILE_TEST_EXISTS));
    g_free(state);
    g_free(args);
    g_free(out);
    g_free(hang);
}

/* --timeout stops a run that hangs (counted failed, said with its limit); --retries runs again a run that a
 * signal ended, and the row of its second try is kept. */
static void test_sweep_timeout_retries(void)
{
    char *hang = test_scratch_path("timeout-hang"), *out = test_scratch_path("timeout.csv");
    char *flaky = test_scratch_path("timeout-flaky");
    g_assert_cmpint(g_mkdir_with_parents(hang, 0755), ==, 0);
    g_setenv("SWEEP_TEST_FLAKY", flaky, TRUE);
    Background b = sweep_start((const char *[]){"--out", out, "--graph", "graphs/unet.onnx", "--strategies",
                                                "bestfit,greedy-size,greedy-breadth", "--timeout", "1", "--retries", "1",
                                                NULL},
                               hang, "timeout.err");
    char *said;
    int status = sweep_wait(&b, &said);
    g_unsetenv("SWEEP_TEST_FLAKY");
    g_assert_cmpint(status, ==, 1);
    assert_contains(said, "sweep: 1 of 3 runs failed; their rows are missing (a rerun retries them). Messages:\n"
                          "  graphs/unet.onnx order=file alias=all strategy=greedy-size:\n"
                          "    stopped at the time limit of 1 s (after 2 tries)\n");
    GHashTable *keys = sweep_table_keys(out);
    g_assert_cmpuint(g_hash_table_size(keys), ==, 2);
    g_assert_true(sweep_has_key(keys, "graphs/unet.onnx", "greedy-breadth")); /* killed once, then run again */
    g_hash_table_unref(keys);
    g_assert_true(g_file_test(flaky, G_FILE_TEST_IS_DIR));
    sweep_assert_hanging_ended(hang);
    g_free(said);
    g_free(flaky);
    g_free(out);
    g_free(hang);
}

/* The journal a killed sweep left with a line that is no record: kept aside, said; the good rows kept. */
static void test_sweep_journal(void)
{
    char *out = test_scratch_path("journal.csv"), *state = g_strconcat(out, ".sweep", NULL);
    const char *const args[] = {"--out", out, "--graph", "graphs/unet.onnx", "--strategies", "bestfit,firstfit", NULL};
    RunResult r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    /* The table's second row, moved to a journal as a killed sweep would have left it. */
    GError *error = NULL;
    CsvTable *t = csv_table_read(out, &error);
    g_assert_no_error(error);
    GString *journal = g_string_new("{\"header\": [");
    for (guint c = 0; c < t->header->len; c++)
        g_string_append_printf(journal, "%s\"%s\"", c ? ", " : "", (char *)t->header->pdata[c]);
    g_string_append(journal, "]}\n{\"key\": [\"graphs/unet.onnx\", \"-\", \"file\", \"all\", \"firstfit\"], \"row\": [");
    for (guint c = 0; c < t->header->len; c++) {
        char *cell = g_strescape(csv_table_cell(t, 1, c), NULL);
        g_string_append_printf(journal, "%s\"%s\"", c ? ", " : "", cell);
        g_free(cell);
    }
    g_string_append(journal, "]}\nnot json at all\n{\"key\": [\"a\"], \"row\": []}\n");
    csv_table_free(t);
    char *text = test_read_file(out);
    *strrchr(text, '\n') = '\0';
    *(strrchr(text, '\n') + 1) = '\0'; /* the table without its last (firstfit) row */
    g_assert_true(g_file_set_contents(out, text, -1, NULL));
    g_assert_cmpint(g_mkdir(state, 0755), ==, 0);
    char *path = g_build_filename(state, "journal", NULL);
    g_assert_true(g_file_set_contents(path, journal->str, (gssize)journal->len, NULL));
    r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "journal line 3: not a journal record");
    assert_contains(r.err, "journal line 4: not a journal record");
    assert_contains(r.err, "sweep: 1 rows that a sweep killed before it could write them added to ");
    assert_contains(r.err, "sweep: 2 runs, 2 already in ");
    run_result_clear(&r);
    char *aside_path = g_strconcat(out, ".rejected", NULL), *aside = test_read_file(aside_path);
    g_assert_cmpstr(aside, ==, "not json at all\n{\"key\": [\"a\"], \"row\": []}\n");
    g_assert_cmpuint(sweep_table_runs(out), ==, 2);
    g_free(aside);
    g_free(aside_path);
    g_free(path);
    g_free(text);
    g_string_free(journal, TRUE);
    g_free(state);
    g_free(out);
}

/* A full disk (a 96 KiB tmpfs, as root): the sweep stops with one line naming the file it could not write,
 * the table stays whole, and with space freed the same command finishes it, every run once. */
static void test_sweep_full_disk(void)
{
    if (getuid() != 0) {
        g_test_skip("needs root: it mounts a small tmpfs (CI runs as root)");
        return;
    }
    char *disk = test_scratch_path("small-disk"), *out = g_build_filename(disk, "full.csv", NULL);
    g_assert_cmpint(g_mkdir_with_parents(disk, 0755), ==, 0);
    if (mount("arenasim-test", disk, "tmpfs", 0, "size=96k") != 0) {
        g_test_skip_printf("cannot mount a tmpfs here: %s", g_strerror(errno));
        return;
    }
    /* 72 KiB taken: room for the lock and some rows, not for all. */
    char *filler = g_build_filename(disk, "filler", NULL);
    static char block[4096];
    int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int k = 0; k < 18; k++)
        g_assert_cmpint(write(fd, block, sizeof block), ==, (gssize)sizeof block);
    close(fd);
    const char *const args[] = {"--out", out, "--graph", "graphs/unet.onnx", "--graph", "graphs/gpt2.onnx", "--alias",
                                "all", "--alias", "none", "--alias", "noop", "--alias", "inplace", "--strategies",
                                "bestfit,firstfit,greedy-size,greedy-breadth,greedy-conflicts,ort", "--jobs", "1", NULL};
    RunResult r = run_sweep(args);
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "No space left on device");
    assert_contains(r.err, "with space freed, the same command adds them and runs the rest");
    run_result_clear(&r);
    if (g_file_test(out, G_FILE_TEST_EXISTS))
        g_hash_table_unref(sweep_table_keys(out)); /* whatever is there is a whole table */
    g_unlink(filler);
    r = run_sweep(args);
    if (r.status != 0)
        g_error("the sweep after the disk was freed exited %d:\n%s", r.status, r.err);
    g_assert_cmpuint(sweep_table_runs(out), ==, 48);
    run_result_clear(&r);
    g_assert_cmpint(umount(disk), ==, 0);
    g_free(filler);
    g_free(out);
    g_free(disk);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sweep/runner", test_sweep_runner);
    g_test_add_func("/sweep/edges", test_sweep_edges);
    g_test_add_func("/sweep/hostile", test_sweep_hostile);
    g_test_add_func("/sweep/dim-columns", test_sweep_dim_columns);
    g_test_add_func("/sweep/signals", test_sweep_signals);
    g_test_add_func("/sweep/killed", test_sweep_killed);
    g_test_add_func("/sweep/timeout-retries", test_sweep_timeout_retries);
    g_test_add_func("/sweep/journal", test_sweep_journal);
    g_test_add_func("/sweep/full-disk", test_sweep_full_disk);
    return g_test_run();
}
