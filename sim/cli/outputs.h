/* outputs.h — the command's writers besides the report rows (outputs.c): listings, the aliasing summary,
 * pictures, the Chrome trace, and a report row filled from the job. */
#ifndef SIM_CLI_OUTPUTS_H
#define SIM_CLI_OUTPUTS_H

#include "cli/job.h"

void cli_list_ops(void);
void cli_list_strategies(void);
/* The aliasing table under a graph's report (nothing for a trace file). */
/* --order best: which order it kept and what every order gave (text and md). */
void cli_print_order_best(const Job *job);
void cli_print_aliasing(const Job *job);
/* What --fuse rewrote: per rule, sites and the bytes of the intermediates removed (text and md). */
void cli_print_fusion(const Job *job);
/* The data-dependent tensors where the plan is an upper bound (text and md), after the aliasing report. */
void cli_print_bounds(const Job *job);
/* How many there are. */
guint job_bounded_tensors(const Job *job);
/* A report row with what the job knows before placing: source, dims, order, alias, sharing totals. */
ReportRow job_report_row(const Job *job);
/* --plot: the plans of one trace in one picture, titled by --title or by graph, dims, order and strategy. */
gboolean cli_write_plot(const Job *job, const Trace *t, const Plan *const *plans, guint count, GError **error);
/* --html: the plans of one trace as an HTML page to explore (report/html-view.h). */
gboolean cli_write_html(const Job *job, const Trace *t, const Plan *const *plans, guint count, GError **error);
/* --chrome-trace: the plans of one trace as trace events, each step named by the node the schedule runs
 * there; seconds: per step, measured (one plan's --run), or NULL. */
gboolean cli_write_chrome_trace(const Job *job, const Trace *t, const Plan *const *plans, guint count, const double *seconds,
                            GError **error);
/* --from TABLE --plot compare|sweep: a picture of a result table, no planning; the exit status. */
int cli_table_plot(const Job *job);

#endif
