/* chrome-trace.h — a plan as Chrome trace event JSON (the format of chrome://tracing and
 * ui.perfetto.dev): one "X" span per schedule step (the op run there) and "C" counter events for the
 * bytes live, the bytes the plan actually spans at that step, and the planned arena; then, in a second
 * process ("buffers"), a span per buffer over its lifetime with its offset, size and steps, on lanes that
 * each hold buffers never live at once. Several plans of one trace (--compare) share the schedule and
 * its live bytes; each plan is then its own process (2, 3, ...) of buffers with its spanned-bytes and arena
 * counter, so Perfetto stacks the plans one above the other on one time axis. Time is the schedule
 * step (step k runs from k ms to k+1 ms), or with measured kernel times (sim --run) each span lasts its
 * node's median time. Format in docs/report-format.md. */
#ifndef SIM_CHROME_TRACE_H
#define SIM_CHROME_TRACE_H

#include "plan/plan.h"
#include "trace/trace.h"

typedef struct {
    const char *title;     /* process name shown by the viewer, e.g. graph and strategy */
    const char *const *op_names; /* per step: the node's name, or NULL (then "step k") */
    const char *const *op_types; /* per step: the node's op type (span category), or NULL */
    const double *seconds;       /* per step: measured time (median), or NULL: one schedule step = 1 ms */
} ChromeTraceLabels;

/* The most buffer slices one file holds (buffers × plans, about 220 bytes each): a 1M-buffer plan is one
 * file, every strategy's plans of it (--compare) would be 2 GB of text, so past it the writer refuses. */
#define CHROME_TRACE_MAX_SLICES 4000000u

/* Whether `plans` plans of `buffers` buffers fit one file (an error saying why not), so a caller can ask
 * before it plans. */
gboolean chrome_trace_fits(guint buffers, guint plans, GError **error);
/* The events of count >= 1 plans of t as a JSON document (newly allocated). */
char *chrome_trace_to_json(const Trace *t, const Plan *const *plans, guint count, const ChromeTraceLabels *labels);
/* Writes the document to `path`; no partial file is left behind on failure; more than
 * CHROME_TRACE_MAX_SLICES slices is an error (SIM_ERROR_UNSUPPORTED) and writes nothing. */
gboolean chrome_trace_write(const char *path, const Trace *t, const Plan *const *plans, guint count,
                            const ChromeTraceLabels *labels, GError **error);

#endif
