/* main.c — the `sim` command: the command line becomes one resolved job (options.c; usage errors exit 2
 * before any file is read), the job runs (pipeline.c: load, order, share, trace, place, verify, report,
 * run, output; errors a user can cause exit 1 with one line `sim: FILE: what is wrong`), and stdout is
 * checked at the end: a report that did not reach its reader is an error too. */
#include "cli/huge-pages.h"
#include "cli/job.h"
#include "cli/outputs.h"
#include "cli/phases.h"
#include "base/files.h"
#include "base/version.h"

#include <signal.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    /* A write past `ulimit -f` fails with EFBIG, reported like any failed write, and the temporary it was
     * filling is removed (base/files.c), instead of SIGXFSZ killing the process and leaving it behind. */
    signal(SIGXFSZ, SIG_IGN);
    sim_stdout_guard();
    Job job = {0};
    char **given = g_strdupv(argv); /* option parsing takes its options out of argv; a second start needs them */
    phases_mark("startup"); /* the clock starts here; the next mark ends option parsing */
    int status = job_from_args(&job, argc, argv);
    if (status < 0) {
        status = 0;
        if (job.kind == JOB_PLAN || job.kind == JOB_COMPARE || job.kind == JOB_ORDERS)
            huge_pages_exec(given, job.trace_path ? job.trace_path : job.graph_path);
        huge_pages_tune_malloc();
        switch (job.kind) {
        case JOB_VERSION: printf("sim (arenasim) " SIM_VERSION "\n"); break;
        case JOB_LIST_OPS: cli_list_ops(); break;
        case JOB_LIST: cli_list_strategies(); break;
        case JOB_TABLE_PLOT: status = cli_table_plot(&job); break;
        case JOB_INFO:
        case JOB_PLAN:
        case JOB_COMPARE:
        case JOB_ORDERS:
        case JOB_RANGE:
        case JOB_ENTRIES:
        case JOB_GENERATE:
        case JOB_STRUCTURED: status = job_run(&job); break;
        }
    }
    GError *out_error = NULL;
    if (!sim_stdout_finish(&out_error)) {
        cli_error_line("stdout", out_error->message, "");
        g_error_free(out_error);
        status = status ? status : 1;
    }
    job_clear(&job);
    g_strfreev(given);
    return status;
}
