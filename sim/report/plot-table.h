/* plot-table.h — pictures of result tables (the CSV that `sim --format csv` and bench/sweep.py write):
 *   compare: clustered bars, one cluster per graph, one bar per strategy (plus order/alias when those vary
 *            in the table), of arena / lower bound (or another numeric column);
 *   sweep:   a metric against a swept parameter (a `--dim` name from the dims column, or a numeric column),
 *            one line per strategy/order/alias/graph combination, and the lower bound dashed when the
 *            metric is arena_bytes. */
#ifndef SIM_PLOT_TABLE_H
#define SIM_PLOT_TABLE_H

#include "report/csv-table.h"

#include <glib.h>

typedef struct {
    const char *table_path; /* for the default title and messages */
    const char *x;          /* sweep: the swept parameter */
    const char *y;          /* the metric: a numeric column, or "ratio" (arena_bytes / lower_bound_bytes) */
    const char *title;      /* NULL: made from the metric and the table's name */
    /* Facets (plot_table_facets): the panel's commands go into `into` (nothing is drawn), its datablocks
     * named with `panel`, its title `panel_title`, and its y axis up to `shared_largest` (the largest value
     * of the whole table, so every panel has the same scale and unit). All zero for a picture of its own. */
    GString *into;
    guint panel;
    const char *panel_title;
    double shared_largest;
} TablePlotOptions;

/* The most series (bars per cluster, lines) and bars a table plot draws; more is an error. */
#define PLOT_MAX_SERIES 64u
#define PLOT_MAX_BARS 10000u

/* Where compare's axis is cut: the 95th percentile of `values`, when the largest lies more than twice as far above
 * `base` (1 for arena / lower bound, 0 for sizes) as it does; else G_MAXDOUBLE (nothing cut; also under 20 values). */
double plot_compare_cut(const double *values, guint n, double base);
gboolean plot_compare(const char *path, const CsvTable *t, const TablePlotOptions *o, GError **error);
gboolean plot_sweep(const char *path, const CsvTable *t, const TablePlotOptions *o, GError **error);
/* Small multiples: one panel per value of `column` (in the table's order, at most PLOT_MAX_FACETS), each
 * compare (compare TRUE) or sweep plot of that value's rows, every panel on the same y axis. */
#define PLOT_MAX_FACETS 16u
gboolean plot_table_facets(const char *path, const CsvTable *t, const TablePlotOptions *o, const char *column,
                           gboolean compare, GError **error);

#endif
