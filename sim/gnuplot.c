/* gnuplot.c — the script preamble, quoting, units, palette and the pipe to gnuplot (see gnuplot.h). */
#include "gnuplot.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static const char *terminal_for(const char *path)
{
    if (g_str_has_suffix(path, ".png"))
        return "pngcairo size 1200,600 noenhanced font 'sans,10'";
    if (g_str_has_suffix(path, ".svg"))
        return "svg size 1200,600 noenhanced font 'sans,10' background '#ffffff'";
    return NULL;
}

gboolean plot_path_check(const char *path, GError **error)
{
    if (!terminal_for(path)) {
        g_set_error(error, PLOT_ERROR, 1, "a plot is written as .png or .svg");
        return FALSE;
    }
    if (strpbrk(path, "'\n\r")) {
        g_set_error(error, PLOT_ERROR, 1, "a plot's file name cannot hold quotes or newlines");
        return FALSE;
    }
    return TRUE;
}

char *gnuplot_quote(const char *text)
{
    GString *s = g_string_new("\"");
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\')
            g_string_append_c(s, '\\');
        g_string_append_c(s, *c == '\n' || *c == '\r' ? ' ' : *c);
    }
    g_string_append_c(s, '"');
    return g_string_free(s, FALSE);
}

GString *gnuplot_script_new(const char *path, const char *title)
{
    GString *s = g_string_new(NULL);
    char *title_q = gnuplot_quote(title);
    g_string_append_printf(s, "set terminal %s\nset output '%s'\nset title %s\n", terminal_for(path), path, title_q);
    g_free(title_q);
    return s;
}

void gnuplot_byte_unit(double largest, const char **name, double *scale)
{
    if (largest >= 1024.0 * 1024 * 1024)
        *name = "GiB", *scale = 1024.0 * 1024 * 1024;
    else if (largest >= 1024.0 * 1024)
        *name = "MiB", *scale = 1024.0 * 1024;
    else if (largest >= 1024)
        *name = "KiB", *scale = 1024.0;
    else
        *name = "B", *scale = 1.0;
}

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

const char *gnuplot_colour(guint k) { return palette[k % G_N_ELEMENTS(palette)]; }
guint gnuplot_palette_size(void) { return G_N_ELEMENTS(palette); }

gboolean gnuplot_run(const char *path, const GString *script, GError **error)
{
    char *gnuplot = g_find_program_in_path("gnuplot");
    if (!gnuplot) {
        g_set_error(error, PLOT_ERROR, 2, "gnuplot is not installed (make deps installs gnuplot-nox)");
        return FALSE;
    }
    char *command = g_shell_quote(gnuplot);
    FILE *pipe = popen(command, "w");
    g_free(command);
    g_free(gnuplot);
    if (!pipe) {
        g_set_error(error, PLOT_ERROR, 2, "cannot start gnuplot");
        return FALSE;
    }
    void (*previous)(int) = signal(SIGPIPE, SIG_IGN); /* gnuplot may stop reading at a failed line */
    fwrite(script->str, 1, script->len, pipe);
    int status = pclose(pipe);
    signal(SIGPIPE, previous);
    GStatBuf st;
    if (status != 0 || g_stat(path, &st) != 0 || st.st_size == 0) {
        g_unlink(path);
        g_set_error(error, PLOT_ERROR, 2, "gnuplot could not draw the plot (its messages are above)");
        return FALSE;
    }
    return TRUE;
}
