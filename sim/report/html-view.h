/* html-view.h — a plan to explore in a browser: one self-contained HTML file (no network, no file beside
 * it), each plan as rectangles (schedule step across, address up: the buffer's lifetime and bytes) above
 * its live and spanned bytes per step, with axes ticked at round values; hover a buffer for its name, size,
 * offset, steps, bin and what it holds (the caller's text per buffer: for a graph, the op that makes it and the
 * tensors sharing it); the wheel zooms the steps, shift and the wheel the bytes, a drag pans, a double click
 * resets. The peak (report/peak.h) is a band at its step, its buffers outlined. Several plans of one trace
 * (--compare) stand side by side, each on its own byte scale or, by a checkbox, all on the largest arena's. Every
 * name reaches the page escaped (as text, never as markup or script). */
#ifndef SIM_HTML_VIEW_H
#define SIM_HTML_VIEW_H

#include "plan/plan.h"
#include "trace/trace.h"

/* The most buffers drawn per plan: past it, the largest (bytes × steps) are drawn and the page says so. */
#define HTML_VIEW_MAX_BUFFERS 50000u

/* The page as a string (newly allocated). about: per buffer id, a line on what the buffer holds, or NULL
 * (for every buffer or one). */
char *html_view_page(const char *title, const Trace *t, const Plan *const *plans, guint count,
                     const char *const *about);
gboolean html_view_write(const char *path, const char *title, const Trace *t, const Plan *const *plans, guint count,
                         const char *const *about, GError **error);

#endif
