/* plot.c — gnuplot through a pipe (see plot.h). */
#include "plot.h"

#include "profile.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define PLOT_ERROR (g_quark_from_static_string("sim-plot"))

gboolean plot_kind_parse(const char *name, PlotKind *out)
{
    if (!strcmp(name, "timeline")) {
        *out = PLOT_TIMELINE;
        return TRUE;
    }
    if (!strcmp(name, "layout")) {
        *out = PLOT_LAYOUT;
        return TRUE;
    }
    return FALSE;
}

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

/* A gnuplot double-quoted string: backslashes and double quotes escaped, no newlines. */
static char *quoted(const char *text)
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

/* Line colours for plans, distinct from the black live-bytes line (matplotlib's "tab10" palette). */
static const char *const plan_colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* The unit a byte axis is labelled in, chosen so the largest value reads between 1 and 1024. */
static void byte_unit(guint64 largest, const char **name, double *scale)
{
    if (largest >= 1024ull * 1024 * 1024)
        *name = "GiB", *scale = 1024.0 * 1024 * 1024;
    else if (largest >= 1024ull * 1024)
        *name = "MiB", *scale = 1024.0 * 1024;
    else if (largest >= 1024)
        *name = "KiB", *scale = 1024.0;
    else
        *name = "B", *scale = 1.0;
}

/* Runs the script through gnuplot; its own complaints go to our stderr, the error says it failed (gnuplot
 * exits non-zero when a script line fails). */
static gboolean run_gnuplot(const char *path, const GString *script, GError **error)
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

gboolean plot_timeline(const char *path, const char *title, const Trace *t, const Plan *const *plans, guint count,
                       GError **error)
{
    g_return_val_if_fail(count > 0, FALSE);
    if (!plot_path_check(path, error))
        return FALSE;
    MemoryProfile *profiles = g_new0(MemoryProfile, count);
    guint64 largest = trace_lower_bound(t);
    for (guint k = 0; k < count; k++) {
        memory_profile_compute(t, plans[k], &profiles[k]);
        largest = MAX(largest, plans[k]->arena);
    }
    const char *unit;
    double scale;
    byte_unit(largest, &unit, &scale);

    GString *s = g_string_new(NULL);
    char *title_q = quoted(title);
    g_string_append_printf(s, "set terminal %s\nset output '%s'\nset title %s\n", terminal_for(path), path, title_q);
    g_string_append_printf(s, "set xlabel 'schedule step'\nset ylabel 'bytes (%s)'\nset grid\n", unit);
    g_string_append_printf(s, "set key outside right top box\nset xrange [0:%u]\nset yrange [0:*]\n", MAX(t->steps, 1));
    /* One row per step and a closing row at the end, so `with steps` draws the last step's width. */
    g_string_append(s, "$profile << EOD\n");
    for (guint step = 0; step <= t->steps; step++) {
        guint last = step < t->steps ? step : (t->steps ? t->steps - 1 : 0);
        g_string_append_printf(s, "%u %.6f", step, (double)profiles[0].live[last] / scale);
        for (guint k = 0; k < count; k++)
            g_string_append_printf(s, " %.6f", (double)profiles[k].spanned[last] / scale);
        g_string_append_c(s, '\n');
    }
    g_string_append(s, "EOD\n");
    g_string_append_printf(s, "plot $profile using 1:2 with steps lw 2 lc rgb '#000000' title 'live bytes'");
    for (guint k = 0; k < count; k++) {
        char *label = g_strdup_printf("%s (arena %.2f %s)", plans[k]->strategy->name, (double)plans[k]->arena / scale,
                                      unit);
        char *label_q = quoted(label);
        guint colours = G_N_ELEMENTS(plan_colours);
        g_string_append_printf(s, ", '' using 1:%u with steps lw 1.5 lc rgb '%s' dt %u title %s", k + 3,
                               plan_colours[k % colours], k / colours + 1, label_q);
        g_free(label_q);
        g_free(label);
    }
    char *bound = g_strdup_printf("lower bound %.2f %s", (double)trace_lower_bound(t) / scale, unit);
    char *bound_q = quoted(bound);
    g_string_append_printf(s, ", %.6f with lines dt 2 lw 1.5 lc rgb '#808080' title %s\n",
                           (double)trace_lower_bound(t) / scale, bound_q);
    gboolean ok = run_gnuplot(path, s, error);
    g_free(bound_q);
    g_free(bound);
    g_free(title_q);
    g_string_free(s, TRUE);
    for (guint k = 0; k < count; k++)
        memory_profile_clear(&profiles[k]);
    g_free(profiles);
    return ok;
}

/* Where each bin starts on the picture's address axis: the bins below it, stacked. */
static guint64 *bin_bases(const Plan *plan)
{
    guint64 *base = g_new0(guint64, plan->bins + 1);
    for (guint bin = 0; bin < plan->bins; bin++)
        base[bin + 1] = base[bin] + plan->bin_arena[bin];
    return base;
}

gboolean plot_layout(const char *path, const char *title, const Trace *t, const Plan *plan, GError **error)
{
    if (!plot_path_check(path, error))
        return FALSE;
    const char *unit;
    double scale;
    byte_unit(MAX(plan->arena, 1), &unit, &scale);
    guint64 *base = bin_bases(plan);
    guint steps = MAX(t->steps, 1);

    GString *s = g_string_new(NULL);
    char *title_q = quoted(title);
    g_string_append_printf(s, "set terminal %s\nset output '%s'\nset title %s\n", terminal_for(path), path, title_q);
    g_string_append_printf(s, "set xlabel 'schedule step'\nset ylabel 'offset (%s)'\nset grid front\nunset key\n", unit);
    g_string_append_printf(s, "set xrange [0:%u]\nset yrange [0:%.6f]\nset style fill solid 0.6 border lc rgb '#404040'\n",
                           steps, (double)MAX(plan->arena, 1) / scale * 1.05);
    /* Names only where they fit: a rectangle wide and tall enough for a short label at this size. */
    for (guint id = 0; id < trace_count(t); id++) {
        const TraceBuffer *b = trace_buffer(t, id);
        double width = (double)(b->last - b->first + 1) / steps, height = (double)b->size / MAX(plan->arena, 1);
        if (width < 0.003 * (strlen(b->name) + 2) || height < 0.035)
            continue;
        char *name_q = quoted(b->name);
        double y = (double)(base[b->bin] + plan->offsets[id]) + (double)b->size / 2;
        g_string_append_printf(s, "set label %s at %.3f,%.6f center front font 'sans,8'\n", name_q,
                               b->first + (b->last - b->first + 1) / 2.0, y / scale);
        g_free(name_q);
    }
    for (guint bin = 0; bin < plan->bins; bin++) {
        double top = (double)base[bin + 1] / scale;
        char *label = plan->bins > 1 ? g_strdup_printf("bin %u top %.2f %s", bin, top, unit)
                                     : g_strdup_printf("arena %.2f %s", top, unit);
        char *label_q = quoted(label);
        g_string_append_printf(s, "set arrow from 0,%.6f to %u,%.6f nohead dt 2 lw 1.5 lc rgb '#c00000' front\n", top,
                               steps, top);
        g_string_append_printf(s, "set label %s at %u,%.6f right offset -1,0.6 front tc rgb '#c00000'\n", label_q, steps,
                               top);
        g_free(label_q);
        g_free(label);
    }
    /* x_low x_high y_low y_high colour, one buffer a row. */
    g_string_append(s, "$buffers << EOD\n");
    for (guint id = 0; id < trace_count(t); id++) {
        const TraceBuffer *b = trace_buffer(t, id);
        guint64 low = base[b->bin] + plan->offsets[id];
        guint colour = (guint)g_ascii_strtoull(plan_colours[id % G_N_ELEMENTS(plan_colours)] + 1, NULL, 16);
        g_string_append_printf(s, "%u %u %.6f %.6f %u\n", b->first, b->last + 1, (double)low / scale,
                               (double)(low + b->size) / scale, colour);
    }
    g_string_append(s, "EOD\n");
    g_string_append(s, "plot $buffers using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror lc rgb variable\n");
    gboolean ok = run_gnuplot(path, s, error);
    g_free(title_q);
    g_string_free(s, TRUE);
    g_free(base);
    return ok;
}
