/* report.h — what a planning run reports: one row per (graph, order, strategy) with the arena, the
 * lower bound (max live bytes: XLA's no-fragmentation heap), fragmentation, the naive no-reuse sum and
 * the savings against it, and the planning time; in text, md, csv or json with stable column names
 * (docs/report-format.md). Plus the plan itself: `--map` (one buffer a line, parseable) and `--ascii`. */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include "place.h"

#include <stdio.h>

typedef enum { FORMAT_TEXT, FORMAT_MD, FORMAT_CSV, FORMAT_JSON } ReportFormat;
gboolean report_format_parse(const char *name, ReportFormat *out);

typedef struct {
    const char *graph;    /* model or trace file */
    const char *dims;     /* bound symbolic dims, "-" when none */
    const char *order;    /* operator order used */
    const char *strategy;
    guint buffers, steps;
    guint64 arena, lower_bound, naive;
    double seconds;
    const char *detail;   /* e.g. "kept greedy-size", or "" */
    gboolean verified;
} ReportRow;

/* Fills the numbers of a row from a trace and its plan (naive: the no-reuse arena of the same trace). */
void report_row_fill(ReportRow *row, const Trace *t, const Plan *plan, guint64 naive);
/* One row, or a comparison table of several, in the given format. */
void report_print(FILE *out, ReportFormat f, const ReportRow *rows, guint n);
/* `offset size name first last`, sorted by offset (then name), one buffer a line. */
void report_map(FILE *out, const Trace *t, const guint64 *offsets);
/* The plan drawn in characters: time across, address down, one letter per buffer. */
void report_ascii(FILE *out, const Trace *t, const Plan *plan, guint width, guint height);

#endif
