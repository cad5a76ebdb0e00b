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
 * with its arena top drawn; a buffer's name is written inside it where it fits, and the largest buffers
 * (bytes × steps) are named whether they fit or not; every buffer is drawn at least a sliver tall, so none
 * vanishes. `window` (NULL: all of it) draws one part, the buffers that meet it. */
#define LAYOUT_NAMED_LARGEST 12
gboolean plot_layout(const char *path, const char *title, const Trace *t, const Plan *plan, const LayoutWindow *window,
                     GError **error);

#endif
