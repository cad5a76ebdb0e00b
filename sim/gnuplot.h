/* gnuplot.h — what every picture shares: the terminal chosen by the file name (`.png` through pngcairo,
 * `.svg`), gnuplot string quoting, a byte unit that keeps the axis readable, one colour palette, and
 * running a script through a pipe to gnuplot (popen; data travel inline as datablocks, so no temporary
 * files are left behind, and a failed plot leaves no output file). */
#ifndef SIM_GNUPLOT_H
#define SIM_GNUPLOT_H

#include <glib.h>

#define PLOT_ERROR (g_quark_from_static_string("sim-plot"))

/* Checks the output name: a supported extension and no characters gnuplot's quoting cannot carry. */
gboolean plot_path_check(const char *path, GError **error);
/* A new script that opens the output (terminal from the file name, 1200x600) and sets the title. */
GString *gnuplot_script_new(const char *path, const char *title);
/* A gnuplot double-quoted string: backslashes and double quotes escaped, newlines made spaces. */
char *gnuplot_quote(const char *text);
/* The unit a byte axis is labelled in, chosen so the largest value reads between 1 and 1024. */
void gnuplot_byte_unit(double largest, const char **name, double *scale);
/* Colour k of the palette (matplotlib's "tab10", "#rrggbb"), cycling; gnuplot_palette_size() of them. */
const char *gnuplot_colour(guint k);
guint gnuplot_palette_size(void);
/* Runs the script through gnuplot; gnuplot's own messages reach stderr. */
gboolean gnuplot_run(const char *path, const GString *script, GError **error);

#endif
