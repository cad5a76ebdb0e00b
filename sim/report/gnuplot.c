/* gnuplot.c — the script preamble, quoting, units, palette and the pipe to gnuplot (see gnuplot.h). */
#include "report/gnuplot.h"

#include "base/files.h"

#include <gio/gio.h>
#include <signal.h>
#include <string.h>

/* The terminal for the file name at width x height pixels (PDF: 100 pixels to the inch); NULL when the
 * extension has none. Newly allocated. */
static char *terminal_for(const char *path, guint width, guint height)
{
    if (g_str_has_suffix(path, ".png"))
        return g_strdup_printf("pngcairo size %u,%u noenhanced font 'sans,10'", width, height);
    if (g_str_has_suffix(path, ".svg"))
        return g_strdup_printf("svg size %u,%u noenhanced font 'sans,10' background '#ffffff'", width, height);
    if (g_str_has_suffix(path, ".pdf"))
        return g_strdup_printf("pdfcairo size %.2fin,%.2fin noenhanced font 'sans,10'", width / 100.0, height / 100.0);
    return NULL;
}

gboolean gnuplot_path_check(const char *path, GError **error)
{
    char *terminal = terminal_for(path, 1, 1);
    g_free(terminal);
    if (!terminal) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "a plot is written as .png, .svg or .pdf");
        return FALSE;
    }
    return TRUE;
}

/* Bytes a label may carry literally: nothing gnuplot's reader acts on (backquotes run a command even inside
 * double quotes, '@' expands a macro, '$' names a datablock, quotes and backslashes end or escape). */
static gboolean label_byte_is_plain(guchar c)
{
    return g_ascii_isalnum(c) || (c && strchr(" .,:;_+-=()[]/%", c));
}

static char *quote(const char *text, gboolean tic);

char *gnuplot_quote(const char *text) { return quote(text, FALSE); }

char *gnuplot_quote_tic(const char *text) { return quote(text, TRUE); }

char *gnuplot_shorten(const char *name, glong chars)
{
    char *valid = g_utf8_make_valid(name, -1);
    glong n = g_utf8_strlen(valid, -1);
    if (n <= chars || chars < 5)
        return valid;
    glong head = (chars - 3) / 2, tail = chars - 3 - head;
    char *a = g_utf8_substring(valid, 0, head), *b = g_utf8_substring(valid, n - tail, n);
    char *out = g_strconcat(a, "...", b, NULL);
    g_free(a);
    g_free(b);
    g_free(valid);
    return out;
}

static char *quote(const char *text, gboolean tic)
{
    /* Valid UTF-8 (an SVG is XML), no control characters (XML 1.0 forbids them; a newline would end the
     * command), every other byte as a \ooo escape, which gnuplot decodes inside double quotes only after
     * it has looked for backquotes and macros: no user text reaches gnuplot's command language. */
    char *valid = g_utf8_make_valid(text, -1);
    GString *s = g_string_new("\"");
    for (const guchar *c = (const guchar *)valid; *c; c++) {
        /* gnuplot's SVG escapes '<' and '&' but writes ']]>' as it is, which XML forbids in text: a zero-width
         * space (U+200B) between the brackets and the '>' keeps the picture XML and the label as it reads. */
        if (*c == '>' && c - (const guchar *)valid >= 2 && c[-1] == ']' && c[-2] == ']')
            g_string_append(s, "\\342\\200\\213");
        if (*c < 0x20 || *c == 0x7f)
            g_string_append_c(s, ' ');
        else if (*c == '%' && tic)
            g_string_append(s, "%%"); /* a tic label is a format for its position: '%' is its own escape */
        else if (label_byte_is_plain(*c))
            g_string_append_c(s, (char)*c);
        else
            g_string_append_printf(s, "\\%03o", *c);
    }
    g_string_append_c(s, '"');
    g_free(valid);
    return g_string_free(s, FALSE);
}

void gnuplot_set_text(GString *script, const char *what, const char *text, const char *unit, const char *suffix)
{
    char *label = unit ? g_strdup_printf("%s (%s%s)", text, unit, suffix) : g_strconcat(text, suffix, NULL);
    char *label_q = gnuplot_quote(label);
    g_string_append_printf(script, "set %s %s\n", what, label_q);
    g_free(label_q);
    g_free(label);
}

GString *gnuplot_script_sized(const char *path, const char *title, guint width, guint height)
{
    /* No `set output`: gnuplot draws to its stdout, which gnuplot_run reads; the file name never reaches it. */
    GString *s = g_string_new(NULL);
    char *title_q = gnuplot_quote(title), *terminal = terminal_for(path, width, height);
    g_string_append_printf(s, "set terminal %s\nset title %s\n", terminal, title_q);
    g_free(terminal);
    g_free(title_q);
    return s;
}

GString *gnuplot_script_new(const char *path, const char *title)
{
    return gnuplot_script_sized(path, title, 1200, 600);
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

static GString *capture_sink;

void gnuplot_capture(GString *sink) { capture_sink = sink; }

gboolean gnuplot_run(const char *path, const GString *script, GError **error)
{
    if (capture_sink) {
        g_string_append_len(capture_sink, script->str, (gssize)script->len);
        return TRUE;
    }
    char *gnuplot = g_find_program_in_path("gnuplot");
    if (!gnuplot) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "gnuplot is not installed (make deps installs gnuplot-nox)");
        return FALSE;
    }
    /* gnuplot runs without a shell, the script on its stdin, the picture read back from its stdout: only a
     * complete picture from a successful run is written, through the checked writer (files.h). */
    GError *spawn_error = NULL;
    GSubprocess *proc = g_subprocess_new(G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &spawn_error,
                                         gnuplot, NULL);
    g_free(gnuplot);
    if (!proc) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot start gnuplot: %s", spawn_error->message);
        g_error_free(spawn_error);
        return FALSE;
    }
    void (*previous)(int) = signal(SIGPIPE, SIG_IGN); /* gnuplot may stop reading at a failed line */
    GBytes *in = g_bytes_new_static(script->str, script->len), *picture = NULL;
    gboolean ran = g_subprocess_communicate(proc, in, NULL, &picture, NULL, NULL) && g_subprocess_get_if_exited(proc) &&
                   g_subprocess_get_exit_status(proc) == 0;
    signal(SIGPIPE, previous);
    g_bytes_unref(in);
    g_object_unref(proc);
    gsize len = 0;
    const void *data = picture ? g_bytes_get_data(picture, &len) : NULL;
    gboolean ok = FALSE;
    if (!ran || !len) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "gnuplot could not draw the plot (its messages are above)");
    } else if (!(ok = sim_write_file(path, data, len, error))) {
        (*error)->domain = SIM_ERROR; /* said against the picture, whatever the writer called it */
        (*error)->code = SIM_ERROR_IO;
    }
    if (picture)
        g_bytes_unref(picture);
    return ok;
}
