/* plot.h — pictures of plans, drawn by gnuplot (gnuplot.h; the data travel inline as a
 * datablock, so no temporary files are left behind). The output format follows the file name: `.png`
 * (pngcairo) or `.svg`. */
#ifndef SIM_PLOT_H
#define SIM_PLOT_H

#include "report/gnuplot.h"
#include "plan/plan.h"
#include "trace/trace.h"

/* timeline and layout draw the plan of one run; compare and sweep draw a result table (plot-table.h); the
 * kinds' table is plot-kinds.h. */

/* timeline: bytes live per schedule step, and for each plan the bytes it spans at that step (whose peak
 * is its arena); the lower bound dashed. `plans` are plans of the same trace. Up to TIMELINE_OVERLAY_MAX
 * plans share one picture; more (--compare) get a grid of small multiples, a panel per distinct plan
 * (strategies that made the same plan are named together), all on one byte scale but the no-reuse
 * baseline's (said in its title). */
#define TIMELINE_OVERLAY_MAX 3
gboolean plot_timeline(const char *path, const char *title, const Trace *t, const Plan *const *plans, guint count,
                       GError **error);

/* A part of a layout picture: steps [first_step, last_step] and addresses [low, high) (high 0: the whole). */
typedef struct {
    gboolean some_steps;         /* FALSE: every step */
    guint first_step, last_step;
    guint64 low, high;
} LayoutWindow;

/* layout: one plan as rectangles, schedule step across and address up, each bin stacked on the one below
 * with its arena top drawn (within the window); names as plot_layout_labels places them; every buffer is drawn at
 * least a sliver tall, so none vanishes. `window` (NULL: all of it) draws one part, the buffers that meet it. */
#define LAYOUT_NAMED_LARGEST 12
gboolean plot_layout(const char *path, const char *title, const Trace *t, const Plan *plan, const LayoutWindow *window,
                     GError **error);

/* A name the layout picture writes: the buffer, its text (the name, or its middle cut out with "..." to fit),
 * its box as fractions of the plot's width and height (cx, cy its centre), and whether it is drawn on an opaque
 * box (it does not fit inside the rectangle). */
typedef struct {
    guint buffer;
    char *text;
    double cx, cy, w, h;
    gboolean boxed;
} PlotLabel;

/* The names a layout picture of `window` writes (see plot_layout): inside a buffer's rectangle where its name, or
 * the name shortened, fits the rectangle; for the largest buffers, on a box at their centre even where it does
 * not; never one over another, never past the plot's edge. An array of PlotLabel (free with
 * plot_layout_labels_free). */
GArray *plot_layout_labels(const Trace *t, const Plan *plan, const guint64 *base, guint x_lo, guint x_hi, guint64 y_lo,
                           guint64 y_hi);
void plot_layout_labels_free(GArray *labels);

#endif
