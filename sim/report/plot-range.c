/* plot-range.c — the picture of a range of dims (plot-range.h), drawn by gnuplot from inline datablocks. */
#include "report/plot-range.h"

#include "report/gnuplot.h"

/* The lines drawn: past this many values of the other dims, only every so many is drawn (the title says so). */
#define RANGE_PLOT_LINES 10

gboolean plot_range(const char *path, const char *title, const ReportRange *r, GError **error)
{
    if (!gnuplot_path_check(path, error))
        return FALSE;
    const ReportRangeDim *x = &r->dims[r->ndims - 1];
    gsize per_line = (gsize)((x->hi - x->lo) / x->step + 1), lines = r->points / per_line;
    gsize every = (lines + RANGE_PLOT_LINES - 1) / RANGE_PLOT_LINES; /* every `every`th line drawn */
    guint64 largest = 1;
    for (gsize k = 0; k < r->points; k++)
        largest = MAX(largest, MAX(r->arena[k], r->checked ? r->checked[k] : 0));
    const char *unit;
    double scale;
    gnuplot_byte_unit((double)largest, &unit, &scale);
    char *full = every > 1 ? g_strdup_printf("%s (%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " lines drawn)", title,
                                             (lines + every - 1) / every, lines)
                           : g_strdup(title);
    GString *s = gnuplot_script_new(path, full);
    g_free(full);
    gnuplot_set_text(s, "xlabel", x->name, NULL, "");
    g_string_append_printf(s, "set ylabel 'bytes (%s)'\nset grid\nset key top left\nset yrange [0:*]\n", unit);
    g_string_append_printf(s, "set xrange [%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT "]\n", x->lo, MAX(x->hi, x->lo + 1));
    for (gsize l = 0; l < lines; l += every) {
        g_string_append_printf(s, "$line%" G_GSIZE_FORMAT " << EOD\n", l);
        for (gsize i = 0; i < per_line; i++) {
            gsize k = l * per_line + i;
            g_string_append_printf(s, "%" G_GINT64_FORMAT " %.6f %.6f %.6f\n", x->lo + (gint64)i * x->step,
                                   (double)r->arena[k] / scale, (double)r->lower_bound[k] / scale,
                                   r->checked ? (double)r->checked[k] / scale : 0.0);
        }
        g_string_append(s, "EOD\n");
    }
    g_string_append(s, "plot ");
    guint colour = 0;
    for (gsize l = 0; l < lines; l += every, colour++) {
        GString *name = g_string_new(NULL); /* the other dims' values, as the legend names the line */
        gint64 at[PIECEWISE_MAX_VARS];
        report_range_point(r, l * per_line, at);
        for (guint d = 0; d + 1 < r->ndims; d++)
            g_string_append_printf(name, "%s%s=%" G_GINT64_FORMAT, d ? ", " : "", r->dims[d].name, at[d]);
        char *arena = gnuplot_quote(name->len ? name->str : "arena"),
             *bound = gnuplot_quote(lines == 1 ? "lower bound" : l == 0 ? "lower bound (dashed)" : ""),
             *own = gnuplot_quote(l == 0 ? "each point placed on its own (--range-check)" : "");
        const char *c = gnuplot_colour(colour);
        g_string_append_printf(s, "%s$line%" G_GSIZE_FORMAT " using 1:2 with lines lw 2 lc rgb '%s' title %s, "
                               "$line%" G_GSIZE_FORMAT " using 1:3 with lines dt 2 lc rgb '%s' title %s",
                               l ? ", " : "", l, c, arena, l, lines == 1 ? "#808080" : c, bound);
        if (r->checked)
            g_string_append_printf(s, ", $line%" G_GSIZE_FORMAT " using 1:4 with points pt 6 ps 0.6 lc rgb '%s' "
                                   "title %s", l, c, own);
        g_free(arena);
        g_free(bound);
        g_free(own);
        g_string_free(name, TRUE);
    }
    g_string_append_c(s, '\n');
    gboolean ok = gnuplot_run(path, s, error);
    g_string_free(s, TRUE);
    return ok;
}
