/* test-hosts.c — sweeps (bench/sweep.py) on other hosts, on real engines started for the test (tests/hosts/):
 * - ssh: an sshd on 127.0.0.1 (own port, keys and config) logging in as a separate user with its own clone,
 *   who can neither read the caller's model folder nor write its output folder. Every row comes back, a
 *   model outside the repository is sent and removed again, a failing run's message comes back with its
 *   host, a rerun resumes, a host without a built sim or without a graph is named before it runs anything, and
 *   a host stopped mid-sweep costs only the runs it had not finished: the same command finishes the table.
 * - Slurm: a one-node cluster (munged, slurmctld, slurmd; own key, config, ports and state): the sweep as a
 *   job array, a failing run's message with its array task; Ctrl-C cancels the array and a rerun resumes;
 *   SIGHUP leaves it running and --collect gathers the rest;
 *   --detach, --status and --collect; a task cancelled by scancel is named as such; kill -9 of the sweep
 *   leaves the array running, and the rerun waits for it instead of submitting its runs again.
 * On every back end the same sweep gives the same table as on this machine, but for the timing column.
 * Both need root (sshd's second user, slurmd); each server is stopped by its pid file, and also when this
 * program ends, however it ends. */
#include "tests/sweeputil.h"
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv (from the repository's folder, as make check does) and returns its status and output. */
static RunResult run_argv(const char *const *argv)
{
    RunResult r = {0};
    GError *error = NULL;
    int wait_status = 0;
    gboolean ok = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &r.out, &r.err, &wait_status,
                               &error);
    g_assert_no_error(error);
    g_assert_true(ok);
    r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    return r;
}

/* Runs argv and fails the test, with its messages, unless it exits 0. */
static void must_run(const char *const *argv)
{
    RunResult r = run_argv(argv);
    if (r.status != 0)
        g_error("%s exited %d:\n%s%s", argv[0], r.status, r.out, r.err);
    run_result_clear(&r);
}

/* bench/sweep.py with the sim under test; args is NULL-terminated. */
static RunResult run_sweep(const char *const *args)
{
    GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(argv, test_source_path("bench/sweep.py"));
    for (const char *const *a = args; *a; a++)
        g_ptr_array_add(argv, g_strdup(*a));
    g_ptr_array_add(argv, NULL);
    RunResult r = run_argv((const char *const *)argv->pdata);
    g_ptr_array_unref(argv);
    return r;
}

/* The table in canonical form (bench/tables.py canon: the timing column dropped), for comparing back ends. */
static char *canonical(const char *csv)
{
    char *script = test_source_path("bench/tables.py"), *canon = g_strconcat(csv, ".canon", NULL);
    must_run((const char *[]){"/usr/bin/python3", script, "canon", csv, canon, NULL});
    char *text = test_read_file(canon);
    g_unlink(canon);
    g_free(canon);
    g_free(script);
    return text;
}

/* Drops the table's row `k` (1 = the first row after the header). */
static void drop_row(const char *path, guint k)
{
    char *text = test_read_file(path);
    char **lines = g_strsplit(text, "\n", -1);
    GString *kept = g_string_new(NULL);
    for (guint i = 0; lines[i] && *lines[i]; i++)
        if (i != k)
            g_string_append_printf(kept, "%s\n", lines[i]);
    g_assert_true(g_file_set_contents(path, kept->str, (gssize)kept->len, NULL));
    g_string_free(kept, TRUE);
    g_strfreev(lines);
    g_free(text);
}

/* A folder of this test's, under a scratch folder others may pass through (the second user reaches its
 * clone through it), with the given mode. */
static char *host_folder(const char *name, int mode)
{
    char *scratch = test_scratch_path(""), *path = test_scratch_path(name);
    g_assert_cmpint(g_chmod(scratch, 0711), ==, 0);
    g_assert_cmpint(g_mkdir_with_parents(path, 0700), ==, 0);
    g_assert_cmpint(g_chmod(path, mode), ==, 0);
    g_free(scratch);
    return path;
}

/* A model outside the repository, with a name that needs quoting, in a folder only this user reads. */
static char *outside_model(const char *folder)
{
    char *path = g_build_filename(folder, "my model's (v2).onnx", NULL), *unet = test_source_path("graphs/unet.onnx");
    must_run((const char *[]){"cp", unet, path, NULL});
    g_free(unet);
    return path;
}

/* The Slurm job a sweep said it submitted (its stderr in err_path), waiting for the line two minutes at most. */
static char *array_of(const char *err_path)
{
    const char *mark = "sweep: Slurm job ";
    for (int k = 0; k < 1200; k++) {
        char *text = test_read_file(err_path);
        const char *at = strstr(text, mark);
        if (at) {
            char *id = g_strndup(at + strlen(mark), strcspn(at + strlen(mark), ","));
            g_free(text);
            return id;
        }
        g_free(text);
        g_usleep(100000);
    }
    g_error("no Slurm job in %s after two minutes", err_path);
}

/* How many tasks of the job are still in Slurm's queue. */
static guint tasks_queued(const char *job)
{
    RunResult r = run_argv((const char *[]){"squeue", "-h", "-r", "-j", job, "-o", "%i", NULL});
    guint n = 0;
    for (const char *c = r.out; r.status == 0 && *c; c++)
        n += *c == '\n';
    run_result_clear(&r);
    return n;
}

static gboolean array_queued(const char *job)
{
    return tasks_queued(job) > 0;
}

/* `bench/sweep.py --collect TABLE` ends with exit 1 (a run failed), saying the rows it added, the failed run and
 * its cause. */
static void assert_collect_names(const char *table, const char *added, const char *run, const char *cause)
{
    RunResult r = run_sweep((const char *[]){"--collect", table, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, added);
    assert_contains(r.err, run);
    assert_contains(r.err, cause);
    run_result_clear(&r);
}

/* Waits (`seconds` at most) until the job has left the queue, and says it has. */
static void wait_array_ended(const char *job, int seconds)
{
    for (int k = 0; k < seconds * 10 && array_queued(job); k++)
        g_usleep(100000);
    g_assert_false(array_queued(job));
}

/* Waits (two minutes at most) until only the hanging task of the job is left in the queue. */
static void wait_only_hanging(const char *job)
{
    for (int k = 0; k < 1200 && tasks_queued(job) > 1; k++)
        g_usleep(100000);
    g_assert_cmpuint(tasks_queued(job), ==, 1);
}

static gboolean need_root(void)
{
    if (getuid() == 0)
        return TRUE;
    g_test_skip("needs root: it starts sshd with a second user and slurmd (CI runs as root)");
    return FALSE;
}

static void test_ssh(void)
{
    if (!need_root())
        return;
    char *pid = g_strdup_printf("%d", (int)getpid()), *sshd = host_folder("sshd", 0711);
    char *script = test_source_path("tests/hosts/sshd.sh");
    must_run((const char *[]){script, "start", sshd, pid, NULL});
    char *config = g_build_filename(sshd, "ssh_config", NULL), *ssh = g_strdup_printf("ssh -F %s", config);

    /* The second host's own clone, built: the sim under test in its build/. */
    char *remote = host_folder("remote", 0755), *clone = g_build_filename(remote, "arenasim", NULL);
    char *url = g_strconcat("file://", g_getenv("SIM_SOURCE_DIR"), NULL);
    must_run((const char *[]){"git", "clone", "-q", "--depth", "1", url, clone, NULL});
    char *build = g_build_filename(clone, "build", NULL), *sim = g_build_filename(build, "sim", NULL);
    g_assert_cmpint(g_mkdir_with_parents(build, 0755), ==, 0);
    must_run((const char *[]){"cp", g_getenv("SIM_BIN"), sim, NULL});
    must_run((const char *[]){"chown", "-R", "arenasim-sweep:", remote, NULL});

    /* The caller's model and output folders, closed to the second user: checked, so the test means it. */
    char *caller = host_folder("caller", 0700), *model = outside_model(caller);
    char *qmodel = g_shell_quote(model), *qcaller = g_shell_quote(caller);
    char *probe = g_strdup_printf("test -r %s || test -w %s", qmodel, qcaller);
    RunResult r = run_argv((const char *[]){"ssh", "-F", config, "sweephost", probe, NULL});
    if (r.status != 1)
        g_error("the second user reads the caller's model or writes its output folder (ssh exit %d):\n%s", r.status, r.err);
    run_result_clear(&r);
    g_free(probe);
    g_free(qmodel);
    g_free(qcaller);

    char *ssh_out = g_build_filename(caller, "ssh.csv", NULL), *local_out = g_build_filename(caller, "local.csv", NULL);
    const char *ssh_args[] = {"--out", ssh_out, "--graph", "graphs/gpt2.onnx", "--graph", model, "--strategies",
                              "firstfit,greedy-size", "--", "--ssh", ssh, "-S", "2/sweephost", "--workdir", clone, NULL};
    r = run_sweep(ssh_args);
    if (r.status != 0)
        g_error("ssh sweep exited %d:\n%s", r.status, r.err);
    assert_contains(r.err, "sweep: 4 rows appended to ");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", local_out, "--graph", "graphs/gpt2.onnx", "--graph", model, "--strategies",
                                   "firstfit,greedy-size", NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    char *a = canonical(ssh_out), *b = canonical(local_out);
    g_assert_cmpstr(a, ==, b);
    assert_contains(a, model); /* the model's rows carry the name the user gave, not where it was sent */
    g_free(a);
    g_free(b);
    /* What the sweep sent is gone from the host. */
    GDir *d = g_dir_open(clone, 0, NULL);
    g_assert_nonnull(d);
    for (const char *name; (name = g_dir_read_name(d));)
        g_assert_false(g_str_has_prefix(name, ".arenasim-inputs"));
    g_dir_close(d);

    /* A failing run's message comes back, with its host. */
    r = run_sweep((const char *[]){"--out", ssh_out, "--graph", "graphs/inception.onnx", "--orders", "optimal",
                                   "--strategies", "bestfit", "--sim-args", "--order-budget 1", "--", "--ssh", ssh, "-S",
                                   "1/sweephost", "--workdir", clone, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "sweep: 1 of 1 runs failed; their rows are missing (a rerun retries them). Messages:\n"
                           "  graphs/inception.onnx order=optimal alias=all strategy=bestfit [sweephost]:\n"
                           "    sim: graphs/inception.onnx: order optimal: the exact order gave up");
    run_result_clear(&r);

    /* A rerun runs only what is missing. */
    drop_row(ssh_out, 3);
    r = run_sweep(ssh_args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "sweep: 4 runs, 3 already in ");
    g_assert_cmpuint(test_count_lines(ssh_out), ==, 5);
    run_result_clear(&r);

    /* A host without a built sim where the sweep looks is named before anything runs. */
    r = run_sweep((const char *[]){"--out", ssh_out, "--graph", "graphs/gpt2.onnx", "--strategies", "bestfit", "--",
                                   "--ssh", ssh, "-S", "1/sweephost", "--workdir", remote, NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "sweep: host sweephost has no built sim at ");
    run_result_clear(&r);
    /* One without a graph of the repository's (the corpus is fetched, not cloned): named before anything runs. */
    r = run_sweep((const char *[]){"--out", ssh_out, "--graph", "graphs/models/torch/decoder-torch.onnx:batch=1,seq=8,mem=8",
                                   "--strategies", "bestfit", "--", "--ssh", ssh, "-S", "1/sweephost", "--workdir", clone,
                                   NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "sweep: host sweephost lacks 1 of the sweep's graphs (first: "
                           "graphs/models/torch/decoder-torch.onnx): run make models there");
    run_result_clear(&r);

    /* The host stops mid-sweep (its sessions killed, its sshd stopped) while two runs hang there: the sweep
     * ends with the runs it had finished kept and the others failed with what ssh said; once the host is back,
     * the same command finishes the table, every run once. */
    char *hang = g_build_filename(remote, "hang", NULL), *slow = g_build_filename(build, "slow-sim", NULL);
    char *wrapper = g_strdup_printf("#!/bin/sh\ncase \" $* \" in *\" greedy-size \"*) if [ -d %s ]; then\n"
                                    "    : > %s/$$; exec sleep 600; fi ;; esac\nexec build/sim \"$@\"\n", hang, hang);
    g_assert_true(g_file_set_contents(slow, wrapper, -1, NULL));
    g_assert_cmpint(g_chmod(slow, 0755), ==, 0);
    g_assert_cmpint(g_mkdir(hang, 0755), ==, 0);
    must_run((const char *[]){"chown", "-R", "arenasim-sweep:", remote, NULL});
    char *stop_out = g_build_filename(caller, "stopped.csv", NULL);
    const char *const stop_args[] = {"--out", stop_out, "--graph", "graphs/unet.onnx", "--graph", "graphs/gpt2.onnx",
                                     "--strategies", "bestfit,firstfit,greedy-size", "--retries", "1", "--", "--ssh", ssh,
                                     "-S", "2/sweephost", "--workdir", clone, NULL};
    g_setenv("SWEEP_REMOTE_SIM", "build/slow-sim", TRUE);
    Background bg = sweep_start(stop_args, hang, "ssh-stopped.err");
    sweep_wait_hanging(hang, 2);
    must_run((const char *[]){script, "stop", sshd, NULL});
    must_run((const char *[]){"pkill", "-KILL", "-u", "arenasim-sweep", NULL});
    char *said;
    int status = sweep_wait(&bg, &said);
    if (status != 1)
        g_error("the sweep whose host stopped exited %d:\n%s", status, said);
    assert_contains(said, "sweep: 2 of 6 runs failed; their rows are missing (a rerun retries them). Messages:\n");
    g_assert_cmpuint(sweep_table_runs(stop_out), ==, 4);
    g_free(said);
    must_run((const char *[]){"rm", "-rf", "--", hang, NULL});
    must_run((const char *[]){script, "start", sshd, pid, NULL});
    r = run_sweep(stop_args);
    if (r.status != 0)
        g_error("the sweep after the host came back exited %d:\n%s", r.status, r.err);
    assert_contains(r.err, "sweep: 6 runs, 4 already in ");
    run_result_clear(&r);
    g_assert_cmpuint(sweep_table_runs(stop_out), ==, 6);
    g_unsetenv("SWEEP_REMOTE_SIM");
    g_free(stop_out);
    g_free(wrapper);
    g_free(slow);
    g_free(hang);

    must_run((const char *[]){script, "stop", sshd, NULL});
    g_free(ssh_out);
    g_free(local_out);
    g_free(model);
    g_free(caller);
    g_free(build);
    g_free(sim);
    g_free(url);
    g_free(clone);
    g_free(remote);
    g_free(ssh);
    g_free(config);
    g_free(script);
    g_free(sshd);
    g_free(pid);
}

static void test_slurm(void)
{
    if (!need_root())
        return;
    char *pid = g_strdup_printf("%d", (int)getpid()), *cluster = host_folder("slurm", 0711);
    char *script = test_source_path("tests/hosts/slurm.sh");
    must_run((const char *[]){script, "start", cluster, pid, NULL});
    char *conf = g_build_filename(cluster, "slurm.conf", NULL);
    g_setenv("SLURM_CONF", conf, TRUE);

    char *folder = host_folder("slurm-out", 0700), *model = outside_model(folder);
    char *slurm_out = g_build_filename(folder, "slurm.csv", NULL), *local_out = g_build_filename(folder, "local.csv", NULL);
    RunResult r = run_sweep((const char *[]){"--slurm", "--runs-per-task", "2", "--out", slurm_out, "--graph",
                                             "graphs/gpt2.onnx", "--graph", model, "--strategies", "firstfit,greedy-size",
                                             NULL});
    if (r.status != 0)
        g_error("Slurm sweep exited %d:\n%s", r.status, r.err);
    assert_contains(r.err, ", an array of 2 tasks of at most 2 runs\n");
    assert_contains(r.err, "sweep: 4 rows appended to ");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--out", local_out, "--graph", "graphs/gpt2.onnx", "--graph", model, "--strategies",
                                   "firstfit,greedy-size", NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    char *a = canonical(slurm_out), *b = canonical(local_out);
    g_assert_cmpstr(a, ==, b);
    g_free(a);
    g_free(b);

    /* A failing run's message comes back, with its array task; sbatch's own refusal is said. */
    r = run_sweep((const char *[]){"--slurm", "--out", slurm_out, "--graph", "graphs/inception.onnx", "--orders", "optimal",
                                   "--strategies", "bestfit", "--sim-args", "--order-budget 1", NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "  graphs/inception.onnx order=optimal alias=all strategy=bestfit [array task 0 of Slurm job ");
    assert_contains(r.err, "]:\n    sim: graphs/inception.onnx: order optimal: the exact order gave up");
    run_result_clear(&r);
    r = run_sweep((const char *[]){"--slurm", "--sbatch", "--no-such-option", "--out", slurm_out, "--graph",
                                   "graphs/gpt2.onnx", "--strategies", "bestfit", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "sweep: sbatch refused the sweep: sbatch: unrecognized option '--no-such-option'");
    run_result_clear(&r);

    /* Runs that hang (greedy-size, while `hang` exists): Ctrl-C cancels the array, exit 130, the finished rows
     * kept; the same command finishes the rest. */
    char *hang = g_build_filename(folder, "hang", NULL), *slow = g_build_filename(folder, "slow.csv", NULL);
    g_assert_cmpint(g_mkdir(hang, 0755), ==, 0);
    const char *const slow_args[] = {"--slurm", "--runs-per-task", "1", "--out", slow, "--graph", "graphs/unet.onnx",
                                     "--strategies", "bestfit,firstfit,greedy-size", NULL};
    Background bg = sweep_start(slow_args, hang, "slurm-int.err");
    sweep_wait_hanging(hang, 1);
    char *id = array_of(bg.err);
    wait_only_hanging(id);
    g_assert_cmpint(kill(-bg.pid, SIGINT), ==, 0);
    char *said;
    int status = sweep_wait(&bg, &said);
    if (status != 130)
        g_error("the Slurm sweep stopped by SIGINT exited %d:\n%s", status, said);
    assert_contains(said, "sweep: stopped by SIGINT: ");
    g_assert_false(array_queued(id)); /* cancelled, not left running */
    sweep_assert_hanging_ended(hang);
    g_free(said);
    g_free(id);
    g_assert_cmpint(g_rmdir(hang), ==, 0);
    r = run_sweep(slow_args);
    if (r.status != 0)
        g_error("resumed Slurm sweep exited %d:\n%s", r.status, r.err);
    assert_contains(r.err, "sweep: 3 runs, ");
    g_assert_cmpuint(test_count_lines(slow), ==, 4);
    run_result_clear(&r);

    /* SIGHUP (the terminal closed) stops the sweep, exit 129, the finished rows kept, but leaves the array
     * running: its hanging run is still there; killed, --collect names it, and the same command finishes the
     * table, every run once. */
    char *hup = g_build_filename(folder, "hup.csv", NULL);
    const char *const hup_args[] = {"--slurm", "--runs-per-task", "1", "--out", hup, "--graph", "graphs/unet.onnx",
                                    "--strategies", "bestfit,firstfit,greedy-size", NULL};
    g_assert_cmpint(g_mkdir(hang, 0755), ==, 0);
    bg = sweep_start(hup_args, hang, "slurm-hup.err");
    sweep_wait_hanging(hang, 1);
    id = array_of(bg.err);
    wait_only_hanging(id);
    g_assert_cmpint(kill(-bg.pid, SIGHUP), ==, 0);
    status = sweep_wait(&bg, &said);
    if (status != 129)
        g_error("the Slurm sweep stopped by SIGHUP exited %d:\n%s", status, said);
    assert_contains(said, "sweep: stopped by SIGHUP: 2 of 3 runs finished, their rows kept in ");
    assert_contains(said, " keep running: bench/sweep.py --collect ");
    g_assert_true(array_queued(id)); /* left running */
    g_assert_cmpuint(test_count_lines(hup), ==, 3);
    g_free(said);
    GDir *hanging = g_dir_open(hang, 0, NULL);
    g_assert_nonnull(hanging);
    for (const char *name; (name = g_dir_read_name(hanging));)
        kill(atoi(name), SIGKILL);
    g_dir_close(hanging);
    wait_array_ended(id, 60);
    g_free(id);
    sweep_assert_hanging_ended(hang);
    g_assert_cmpint(g_rmdir(hang), ==, 0);
    assert_collect_names(hup, "sweep: 0 rows added to ",
                         "graphs/unet.onnx order=file alias=all strategy=greedy-size [array task 2 of Slurm job ",
                         "    killed by SIGKILL\n");
    r = run_sweep(hup_args);
    if (r.status != 0)
        g_error("the sweep after SIGHUP and --collect exited %d:\n%s", r.status, r.err);
    assert_contains(r.err, "sweep: 3 runs, 2 already in ");
    g_assert_cmpuint(sweep_table_runs(hup), ==, 3);
    run_result_clear(&r);
    g_free(hup);

    /* --detach submits and exits; --status names the tasks; scancel of the hanging task: --collect gathers
     * the other rows and names the cancelled run with its cause. */
    char *detached = g_build_filename(folder, "detached.csv", NULL);
    const char *const detach_args[] = {"--slurm", "--detach", "--runs-per-task", "1", "--out", detached, "--graph",
                                       "graphs/gpt2.onnx", "--strategies", "bestfit,firstfit,greedy-size", NULL};
    g_assert_cmpint(g_mkdir(hang, 0755), ==, 0);
    bg = sweep_start(detach_args, hang, "slurm-detach.err");
    g_assert_cmpint(sweep_wait(&bg, &said), ==, 0);
    assert_contains(said, "sweep: detached: Slurm job(s) ");
    g_free(said);
    sweep_wait_hanging(hang, 1);
    r = run_sweep((const char *[]){"--status", detached, NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "Slurm job ");
    assert_contains(r.out, "  task 2: running");
    char *job = g_strndup(r.out + strlen("Slurm job "), strcspn(r.out + strlen("Slurm job "), ":"));
    run_result_clear(&r);
    char *task = g_strdup_printf("%s_2", job);
    must_run((const char *[]){"scancel", task, NULL});
    wait_array_ended(job, 60);
    assert_collect_names(detached, "sweep: 2 rows added to ",
                         "graphs/gpt2.onnx order=file alias=all strategy=greedy-size [array task 2 of Slurm job ",
                         "    its array task was cancelled by Slurm (scancel)\n");
    g_assert_cmpuint(sweep_table_runs(detached), ==, 2);
    sweep_assert_hanging_ended(hang);

    /* kill -9 of a waiting sweep: its array keeps running; the same command does not submit those runs again
     * but waits for the array; scancel of the whole array: the rerun names the cancelled run, keeps the rest. */
    char *killed = g_build_filename(folder, "killed.csv", NULL);
    const char *const kill_args[] = {"--slurm", "--runs-per-task", "1", "--out", killed, "--graph", "graphs/gpt2.onnx",
                                     "--strategies", "greedy-size,bestfit,firstfit", NULL};
    bg = sweep_start(kill_args, hang, "slurm-killed.err");
    sweep_wait_hanging(hang, 1);
    char *killed_id = array_of(bg.err);
    g_assert_cmpint(kill(bg.pid, SIGKILL), ==, 0);
    g_assert_cmpint(sweep_wait(&bg, &said), ==, 128 + SIGKILL);
    g_free(said);
    g_assert_true(array_queued(killed_id));
    wait_only_hanging(killed_id);
    bg = sweep_start(kill_args, hang, "slurm-rerun.err");
    char *wanted = g_strdup_printf("runs are in Slurm arrays still in the queue (%s): not submitted again", killed_id);
    for (int k = 0; k < 600; k++) {
        char *text = test_read_file(bg.err);
        gboolean seen = strstr(text, wanted) != NULL;
        g_free(text);
        if (seen)
            break;
        g_usleep(100000);
    }
    must_run((const char *[]){"scancel", killed_id, NULL});
    status = sweep_wait(&bg, &said);
    if (status != 1)
        g_error("the sweep after kill -9 exited %d:\n%s", status, said);
    assert_contains(said, "sweep: taking over ");
    assert_contains(said, wanted);
    assert_contains(said, "strategy=greedy-size [array task 0 of Slurm job ");
    assert_contains(said, "its array task was cancelled by Slurm (scancel)");
    g_assert_cmpuint(sweep_table_runs(killed), ==, 2);
    sweep_assert_hanging_ended(hang);
    g_assert_cmpint(g_rmdir(hang), ==, 0);
    r = run_sweep(kill_args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.err, "sweep: 3 runs, 2 already in ");
    run_result_clear(&r);

    /* A run past its task's Slurm time limit (--sbatch --time=1: one minute, the least Slurm sets): --collect names
     * the run and says its task reached the time limit; the finished run's row is kept. */
    char *limited = g_build_filename(folder, "limited.csv", NULL);
    const char *const limit_args[] = {"--slurm", "--detach", "--runs-per-task", "1", "--sbatch", "--time=1", "--out",
                                      limited, "--graph", "graphs/gpt2.onnx", "--strategies", "bestfit,greedy-size",
                                      NULL};
    g_assert_cmpint(g_mkdir(hang, 0755), ==, 0);
    bg = sweep_start(limit_args, hang, "slurm-limit.err");
    g_assert_cmpint(sweep_wait(&bg, &said), ==, 0);
    const char *submitted = strstr(said, "sweep: Slurm job ");
    g_assert_nonnull(submitted);
    submitted += strlen("sweep: Slurm job ");
    char *limit_job = g_strndup(submitted, strcspn(submitted, ","));
    g_free(said);
    sweep_wait_hanging(hang, 1);
    wait_array_ended(limit_job, 300); /* Slurm ends it a minute or two after it started */
    assert_collect_names(limited, "sweep: 1 rows added to ",
                         "graphs/gpt2.onnx order=file alias=all strategy=greedy-size [array task ",
                         "    its array task reached the Slurm time limit\n");
    sweep_assert_hanging_ended(hang);
    g_assert_cmpint(g_rmdir(hang), ==, 0);
    g_free(limit_job);
    g_free(limited);
    g_free(wanted);
    g_free(killed_id);
    g_free(killed);
    g_free(task);
    g_free(job);
    g_free(detached);
    g_free(slow);
    g_free(hang);

    must_run((const char *[]){script, "stop", cluster, NULL});
    g_unsetenv("SLURM_CONF");
    g_free(slurm_out);
    g_free(local_out);
    g_free(model);
    g_free(folder);
    g_free(conf);
    g_free(script);
    g_free(cluster);
    g_free(pid);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/hosts/ssh", test_ssh);
    g_test_add_func("/hosts/slurm", test_slurm);
    return g_test_run();
}
