/* gnuplot.h — what every picture shares: the terminal chosen by the file name (`.png` through pngcairo,
 * `.svg`, `.pdf` through pdfcairo), the one way user text enters a script (gnuplot_quote), a byte unit that keeps the axis readable,
 * one colour palette, and running a script through gnuplot (no shell; the script on its stdin, numbers only
 * in inline datablocks, the picture read from its stdout and written by the checked writer, so a failed or
 * cut-short plot leaves no output file and a bad output path never reaches gnuplot). */
#ifndef SIM_GNUPLOT_H
#define SIM_GNUPLOT_H

#include "base/error.h"

#include <glib.h>

/* Checks the output name: a supported extension (.png, .svg or .pdf). */
gboolean gnuplot_path_check(const char *path, GError **error);
/* A new script that opens the output (terminal from the file name, 1200x600) and sets the title. */
GString *gnuplot_script_new(const char *path, const char *title);
/* The same at width x height pixels (a grid of panels needs more height). */
GString *gnuplot_script_sized(const char *path, const char *title, guint width, guint height);
/* A gnuplot double-quoted string holding `text` for display and nothing gnuplot acts on: invalid UTF-8 made
 * valid, control characters made spaces, every byte but letters, digits and plain punctuation as \ooo. */
char *gnuplot_quote(const char *text);
/* The same for a tic label, which gnuplot reads as a printf format for the tic's position: '%' doubled. */
char *gnuplot_quote_tic(const char *text);
/* A name to fit `chars` (5 or more) characters: itself, or its first and last characters around "..." (the end
 * kept the longer, so names that differ only there stay apart; whole UTF-8 characters, invalid bytes made valid);
 * newly allocated. A tic label is cut to 28, a layout label to the room its rectangle has. */
char *gnuplot_shorten(const char *name, glong chars);
/* Appends `set WHAT "TEXT (UNIT)SUFFIX"` (no parentheses when unit is NULL), TEXT quoted by gnuplot_quote. */
void gnuplot_set_text(GString *script, const char *what, const char *text, const char *unit, const char *suffix);
/* The unit a byte axis is labelled in, chosen so the largest value reads between 1 and 1024. */
void gnuplot_byte_unit(double largest, const char **name, double *scale);
/* Colour k of the palette (matplotlib's "tab10", "#rrggbb"), cycling; gnuplot_palette_size() of them. */
const char *gnuplot_colour(guint k);
guint gnuplot_palette_size(void);
/* Fuzzers: with a sink, gnuplot_run appends each script to it instead of running gnuplot (and writes no
 * file); NULL runs gnuplot again. */
void gnuplot_capture(GString *sink);
/* Runs the script through gnuplot; gnuplot's own messages reach stderr. */
gboolean gnuplot_run(const char *path, const GString *script, GError **error);

#endif
