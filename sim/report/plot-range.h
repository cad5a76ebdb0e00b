/* plot-range.h — the picture of a range of dims (`--dim NAME=LO:HI --plot range`): the arena against the last dim
 * of the range (a line per value of the others), the lower bound beside it, and with --range-check each point's own
 * plan as a mark on the line. */
#ifndef SIM_PLOT_RANGE_H
#define SIM_PLOT_RANGE_H

#include "report/report-range.h"

#include <glib.h>

/* Draws r into path (.png, .svg or .pdf) under title. */
gboolean plot_range(const char *path, const char *title, const ReportRange *r, GError **error);

#endif
