/* report-structured.h — the report of a structured problem planned or a solution checked (docs/structured.md):
 * the problem (its file, instance, profile, buffers, pools and pairs), who placed it and with what work, whether
 * that is proven optimal, the objective in the problem's term order, whether every pool fits its capacity, and
 * per pool its capacity, peak and lower bound. Text for people (every pool a line); md, csv and json one row
 * with every term as a column, for sweeps. */
#ifndef SIM_REPORT_STRUCTURED_H
#define SIM_REPORT_STRUCTURED_H

#include "report/report.h"
#include "structured/structured.h"

#include <stdio.h>

typedef struct {
    const StructuredProblem *problem;
    const StructuredObjective *objective; /* the validator's */
    const guint64 *bound;                 /* per pool: a lower bound on its peak */
    const char *strategy;                 /* the strategy, or NULL when a solution file was checked */
    const char *solution;                 /* ... that file */
    guint64 work;
    gboolean proven, cut;
} ReportStructured;

void report_structured_print(FILE *out, ReportFormat f, const ReportStructured *r);
/* Several placements of one problem (--compare: one per strategy) as one table, a row each, in every format. */
void report_structured_compare(FILE *out, ReportFormat f, const ReportStructured *rows, guint n);

#endif
