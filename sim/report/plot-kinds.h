/* plot-kinds.h — the kinds of picture `--plot` draws, one row each: its name, what it draws (the plans of
 * one run, or a result table) and what it needs; the command's options and dispatch read the rows.
 * Adding a kind is its drawing function (plot.h, plot-table.h) and a row in plot-kinds.c. */
#ifndef SIM_PLOT_KINDS_H
#define SIM_PLOT_KINDS_H

#include "report/plot-range.h"
#include "report/plot-table.h"
#include "report/plot.h"

typedef struct PlotKindRow {
    const char *name;        /* --plot NAME */
    gboolean one_plan;       /* draws a single plan (layout): not with --compare */
    const char *needs;       /* an option the kind cannot go without, as the message names it ("--x NAME: ..."),
                                or NULL */
    const char *default_y;   /* a table kind's metric when --y is not given */
    gboolean bars;           /* a table kind drawn as bars (its facets too) */
    /* The plans of one run (NULL for a table kind); `window` is --steps/--addresses (layout). */
    gboolean (*draw_plans)(const char *path, const char *title, const Trace *t, const Plan *const *plans, guint count,
                           const LayoutWindow *window, GError **error);
    /* A result table (NULL for a kind of plans). */
    gboolean (*draw_table)(const char *path, const CsvTable *t, const TablePlotOptions *o, GError **error);
    /* A range of dims (--dim NAME=LO:HI; NULL for the others). */
    gboolean (*draw_range)(const char *path, const char *title, const ReportRange *r, GError **error);
} PlotKindRow;

/* By name; NULL when there is none. */
const PlotKindRow *plot_kind_find(const char *name);
/* The kinds `keep` takes (NULL: every one), each written as `prefix` NAME, joined "a, b or c" with `last`
 * (" or ", " and ") before the last one: for messages. Newly allocated. */
char *plot_kind_names(gboolean (*keep)(const PlotKindRow *k), const char *prefix, const char *last);

#endif
