/* sweeputil.c — running bench/sweep.py in the background for the sweep tests (test-sweep.c, test-hosts.c). */
#include "tests/sweeputil.h"

#include "report/csv-table.h"
#include "tests/testutil.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The table's rows as "graph|dims|order|alias|strategy" keys; the test fails when one run has two rows. */
GHashTable *sweep_table_keys(const char *path)
{
    GError *error = NULL;
    CsvTable *t = csv_table_read(path, &error);
    g_assert_no_error(error);
    const char *names[] = {"graph", "dims", "order", "alias", "strategy"};
    gint at[5];
    for (guint k = 0; k < 5; k++)
        g_assert_cmpint(at[k] = csv_table_column(t, names[k]), >=, 0);
    GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint r = 0; r < t->rows->len; r++) {
        char *key = g_strdup_printf("%s|%s|%s|%s|%s", csv_table_cell(t, r, (guint)at[0]), csv_table_cell(t, r, (guint)at[1]),
                                    csv_table_cell(t, r, (guint)at[2]), csv_table_cell(t, r, (guint)at[3]),
                                    csv_table_cell(t, r, (guint)at[4]));
        if (!g_hash_table_add(keys, key))
            g_error("%s holds two rows of one run: %s", path, key);
    }
    csv_table_free(t);
    return keys;
}

guint sweep_table_runs(const char *path)
{
    GHashTable *keys = sweep_table_keys(path);
    guint runs = g_hash_table_size(keys);
    g_hash_table_unref(keys);
    return runs;
}

gboolean sweep_has_key(GHashTable *keys, const char *graph, const char *strategy)
{
    char *key = g_strdup_printf("%s|-|file|all|%s", graph, strategy);
    gboolean found = g_hash_table_contains(keys, key);
    g_free(key);
    return found;
}

/* ---- a sweep running in the background, with runs that hang ------------------------------------------------ */

/* The wrapper: greedy-size sleeps (its pid recorded in $SWEEP_TEST_HANG) while that folder exists; with
 * $SWEEP_TEST_FLAKY, greedy-breadth kills itself the first time (the folder made marks it done); anything
 * else is the sim under test. */
static char *slow_sim(void)
{
    static const char script[] =
        "#!/bin/sh\n"
        "case \" $* \" in *\" greedy-size \"*) if [ -d \"$SWEEP_TEST_HANG\" ]; then\n"
        "    : > \"$SWEEP_TEST_HANG/$$\"; exec sleep 600; fi ;; esac\n"
        "case \" $* \" in *\" greedy-breadth \"*) if [ -n \"$SWEEP_TEST_FLAKY\" ] && mkdir \"$SWEEP_TEST_FLAKY\" 2> /dev/null;\n"
        "    then kill -KILL $$; fi ;; esac\n"
        "exec \"$SWEEP_TEST_SIM\" \"$@\"\n";
    char *path = test_write_scratch("slow-sim", script, sizeof script - 1);
    g_assert_cmpint(g_chmod(path, 0755), ==, 0);
    return path;
}

static void own_group(gpointer unused)
{
    (void)unused;
    setpgid(0, 0); /* the sweep and what it starts in its session, one group: what a terminal's signals reach */
}

/* Starts bench/sweep.py args with SIM_BIN = the wrapper (hanging runs recorded in hang/), stderr to a file. */
Background sweep_start(const char *const *args, const char *hang, const char *err_name)
{
    char *script = test_source_path("bench/sweep.py"), *sim = slow_sim();
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, script);
    for (const char *const *a = args; *a; a++)
        g_ptr_array_add(argv, (gpointer)*a);
    g_ptr_array_add(argv, NULL);
    char **env = g_get_environ();
    env = g_environ_setenv(env, "SWEEP_TEST_SIM", g_getenv("SIM_BIN"), FALSE);
    env = g_environ_setenv(env, "SIM_BIN", sim, TRUE);
    env = g_environ_setenv(env, "SWEEP_TEST_HANG", hang, TRUE);
    Background b = {.err = test_scratch_path(err_name)};
    int fd = open(b.err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    g_assert_cmpint(fd, >=, 0);
    GError *error = NULL;
    g_assert_true(g_spawn_async_with_fds(g_getenv("SIM_SOURCE_DIR"), (char **)argv->pdata, env, G_SPAWN_DO_NOT_REAP_CHILD,
                                         own_group, NULL, &b.pid, -1, -1, fd, &error));
    g_assert_no_error(error);
    close(fd);
    g_strfreev(env);
    g_ptr_array_unref(argv);
    g_free(sim);
    g_free(script);
    return b;
}

/* Its exit status (128 + the signal when one ended it) and what it said. */
int sweep_wait(Background *b, char **said)
{
    int status = 0;
    g_assert_cmpint(waitpid(b->pid, &status, 0), ==, b->pid);
    g_spawn_close_pid(b->pid);
    *said = test_read_file(b->err);
    g_free(b->err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static guint files_in(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    guint n = 0;
    if (d) {
        while (g_dir_read_name(d))
            n++;
        g_dir_close(d);
    }
    return n;
}

/* Waits (two minutes at most: a machine that busy fails the test with a message) until n runs hang. */
void sweep_wait_hanging(const char *hang, guint n)
{
    for (int k = 0; k < 1200 && files_in(hang) < n; k++)
        g_usleep(100000);
    if (files_in(hang) < n)
        g_error("%u runs should hang in %s, %u do after two minutes", n, hang, files_in(hang));
}

static gboolean alive(int pid)
{
    char *stat = g_strdup_printf("/proc/%d/stat", pid), *text = NULL;
    gboolean there = g_file_get_contents(stat, &text, NULL, NULL);
    const char *state = there ? strrchr(text, ')') : NULL;
    gboolean running = state && state[1] == ' ' && state[2] != 'Z'; /* a zombie has ended */
    g_free(text);
    g_free(stat);
    return running;
}

/* Every run that hung has ended (within twenty seconds of its sweep), and the folder is emptied for the next. */
void sweep_assert_hanging_ended(const char *hang)
{
    GDir *d = g_dir_open(hang, 0, NULL);
    g_assert_nonnull(d);
    for (const char *name; (name = g_dir_read_name(d));) {
        int pid = atoi(name);
        for (int k = 0; k < 200 && alive(pid); k++)
            g_usleep(100000);
        if (alive(pid))
            g_error("run %d still runs after its sweep ended", pid);
        char *path = g_build_filename(hang, name, NULL);
        g_unlink(path);
        g_free(path);
    }
    g_dir_close(d);
}

