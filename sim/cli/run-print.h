/* run-print.h — `sim --run`'s report of a run's results (driver/run.h): each output's statistics, the median
 * time, the arena, what the executor did beside the kernels, the check, and a table per op type (or, with
 * --compare, one row per plan); --profile's per-node CSV. */
#ifndef SIM_CLI_RUN_PRINT_H
#define SIM_CLI_RUN_PRINT_H

#include "driver/run.h"
#include "report/report.h"

#include <stdio.h>

/* A single plan's run: its outputs when the run got that far (also when the check then refused them), and
 * the rest once it passed. */
void cli_print_run(FILE *out, ReportFormat format, const RunOptions *o, const RunOutcome *r);
/* --compare --run: the reference's outputs (with --check), then one row per plan once every plan ran. */
void cli_print_run_each(FILE *out, ReportFormat format, const RunEachOutcome *r);
/* --profile: step, node, op and median seconds per step, as CSV. */
gboolean cli_write_profile(const char *path, const GPtrArray *schedule, const double *node_seconds, GError **error);

#endif
