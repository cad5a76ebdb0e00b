/* plot.c — pictures of plans: the timeline (one picture, or small multiples) and the layout (see plot.h). */
#include "report/plot.h"
#include "trace/trace-tiers.h"

#include "report/gnuplot.h"
#include "plan/profile.h"

#include <math.h>
#include <string.h>

/* The timeline's data: one row per step (live bytes, then each plan's spanned bytes, in `scale` units) and
 * a closing row at the end, so `with steps` draws the last step's width. */
static void timeline_data(GString *s, const Trace *t, const MemoryProfile *profiles, guint count, double scale)
{
    g_string_append(s, "$profile << EOD\n");
    for (guint step = 0; step <= t->steps; step++) {
        guint last = step < t->steps ? step : (t->steps ? t->steps - 1 : 0);
        g_string_append_printf(s, "%u %.6f", step, (double)profiles[0].live[last] / scale);
        for (guint k = 0; k < count; k++)
            g_string_append_printf(s, " %.6f", (double)profiles[k].spanned[last] / scale);
        g_string_append_c(s, '\n');
    }
    g_string_append(s, "EOD\n");
}

/* A few plans: one picture, every plan's spanned bytes over the live bytes. */
static void timeline_overlay(GString *s, const Plan *const *plans, guint count, const char *unit, double scale)
{
    g_string_append_printf(s, "set key outside right top box\n");
    g_string_append_printf(s, "plot $profile using 1:2 with steps lw 2 lc rgb '#000000' title 'live bytes'");
    for (guint k = 0; k < count; k++) {
        char *label = g_strdup_printf("%s (arena %.2f %s)", plans[k]->strategy->name, (double)plans[k]->arena / scale,
                                      unit);
        char *label_q = gnuplot_quote(label);
        g_string_append_printf(s, ", '' using 1:%u with steps lw 1.5 lc rgb '%s' dt %u title %s", k + 3,
                               gnuplot_colour(k), k / gnuplot_palette_size() + 1, label_q);
        g_free(label_q);
        g_free(label);
    }
    char *bound = g_strdup_printf("lower bound %.2f %s", (double)plans[0]->lower_bound / scale, unit);
    char *bound_q = gnuplot_quote(bound);
    g_string_append_printf(s, ", %.6f with lines dt 2 lw 1.5 lc rgb '#808080' title %s\n",
                           (double)plans[0]->lower_bound / scale, bound_q);
    g_free(bound_q);
    g_free(bound);
}

/* A panel's title as a gnuplot string expression: the words of `label` in lines of at most
 * PANEL_TITLE_WIDTH characters (a panel is a third of the picture wide), each line quoted on its own and
 * joined by newlines, so five strategies that made one plan are all named and none runs off the panel. */
#define PANEL_TITLE_WIDTH 44u
static char *panel_title(const char *label)
{
    GString *expr = g_string_new(NULL), *line = g_string_new(NULL);
    char *valid = g_utf8_make_valid(label, -1); /* counted in characters below */
    char **words = g_strsplit(valid, " ", -1);
    g_free(valid);
    for (char **w = words;; w++) {
        if (!*w || (line->len && g_utf8_strlen(line->str, -1) + 1 + g_utf8_strlen(*w, -1) > PANEL_TITLE_WIDTH)) {
            char *q = gnuplot_quote(line->str);
            g_string_append_printf(expr, "%s%s", expr->len ? ".\"\\n\"." : "", q);
            g_free(q);
            g_string_truncate(line, 0);
        }
        if (!*w)
            break;
        g_string_append_printf(line, "%s%s", line->len ? " " : "", *w);
    }
    g_strfreev(words);
    g_string_free(line, TRUE);
    return g_string_free(expr, FALSE);
}

/* A tic step for n steps across a panel: 1, 2 or 5 times a power of ten, about four tics, so the labels
 * of a small panel do not run together. */
static guint tic_step(guint n)
{
    guint step = 1;
    while (step * 4 < n) {
        if (step * 2 * 4 >= n)
            return step * 2;
        if (step * 5 * 4 >= n)
            return step * 5;
        step *= 10;
    }
    return step;
}

/* Whether two plans of one trace place every buffer alike. */
static gboolean same_plan(const Trace *t, const Plan *a, const Plan *b)
{
    return a->arena == b->arena && !memcmp(a->offsets, b->offsets, trace_count(t) * sizeof(guint64));
}

/* Many plans (--compare): small multiples, a panel per distinct plan (strategies that made the same plan
 * share one, named together), every panel on one byte scale so a taller curve is a bigger arena — but
 * the no-reuse baseline's, which would flatten the rest and gets a scale of its own, said in its title —
 * each with the live bytes, its spanned bytes and the lower bound, titled with its arena and how far above
 * the bound it is; the picture's title over the grid. */
static void timeline_panels(GString *s, const char *title, const Trace *t, const Plan *const *plans, guint count,
                            const char *unit, double scale, guint columns, guint rows, const guint *first_of)
{
    guint64 bound = plans[0]->lower_bound, shared = MAX(bound, 1);
    for (guint k = 0; k < count; k++)
        if (plans[k]->strategy->role != ROLE_BASELINE)
            shared = MAX(shared, plans[k]->arena);
    char *title_q = gnuplot_quote(title);
    g_string_append_printf(s, "unset title\nset multiplot layout %u,%u title %s\n", rows, columns, title_q);
    g_free(title_q);
    g_string_append_printf(s, "set key top left box opaque font ',8'\nset xtics %u\n", tic_step(MAX(t->steps, 1)));
    gboolean first_panel = TRUE;
    for (guint k = 0; k < count; k++) {
        if (first_of[k] != k)
            continue; /* drawn in the panel of the first strategy that made this plan */
        GString *names = g_string_new(plans[k]->strategy->name);
        for (guint j = k + 1; j < count; j++)
            if (first_of[j] == k)
                g_string_append_printf(names, " = %s", plans[j]->strategy->name);
        gboolean own = plans[k]->strategy->role == ROLE_BASELINE && plans[k]->arena > shared;
        double over = bound ? 100.0 * (double)(plans[k]->arena - MIN(plans[k]->arena, bound)) / (double)bound : 0.0;
        char *label = g_strdup_printf("%s: %.2f %s (+%.2f%%)%s", names->str, (double)plans[k]->arena / scale, unit, over,
                                      own ? ", own scale" : "");
        char *label_q = panel_title(label);
        g_string_append_printf(s, "set title %s font ',%u'\nset yrange [0:%.6f]\n", label_q, strlen(label) > 48 ? 9u : 10u,
                               1.15 * (double)(own ? plans[k]->arena : shared) / scale);
        g_string_append_printf(s, "plot $profile using 1:2 with steps lw 1.5 lc rgb '#000000' title 'live', "
                                  "'' using 1:%u with steps lw 1.5 lc rgb '%s' title 'spanned', "
                                  "%.6f with lines dt 2 lw 1 lc rgb '#808080' title 'lower bound'\n",
                               k + 3, gnuplot_colour(k), (double)bound / scale);
        if (first_panel)
            g_string_append(s, "unset key\n");
        first_panel = FALSE;
        g_free(label_q);
        g_free(label);
        g_string_free(names, TRUE);
    }
    g_string_append(s, "unset multiplot\n");
}

gboolean plot_timeline(const char *path, const char *title, const Trace *t, const Plan *const *plans, guint count,
                       GError **error)
{
    g_return_val_if_fail(count > 0, FALSE);
    if (!gnuplot_path_check(path, error))
        return FALSE;
    MemoryProfile *profiles = g_new0(MemoryProfile, count);
    guint64 largest = plans[0]->lower_bound;
    profile_compute_all(t, plans, count, profiles);
    for (guint k = 0; k < count; k++)
        largest = MAX(largest, plans[k]->arena);
    const char *unit;
    double scale;
    gnuplot_byte_unit((double)largest, &unit, &scale);
    gboolean panels = count > TIMELINE_OVERLAY_MAX;
    guint *first_of = g_new(guint, count), distinct = 0; /* the first plan identical to each */
    for (guint k = 0; k < count; k++) {
        first_of[k] = k;
        for (guint j = 0; j < k && first_of[k] == k; j++)
            if (first_of[j] == j && same_plan(t, plans[j], plans[k]))
                first_of[k] = j;
        distinct += first_of[k] == k;
    }
    guint shown = panels ? distinct : count;
    guint columns = panels ? (guint)ceil(sqrt((double)shown)) : 1, rows = (shown + columns - 1) / columns;
    GString *s = panels ? gnuplot_script_sized(path, title, 1200, 40 + 300 * rows) : gnuplot_script_new(path, title);
    g_string_append_printf(s, "set xlabel 'schedule step'\nset ylabel 'bytes (%s)'\nset grid\n", unit);
    g_string_append_printf(s, "set xrange [0:%u]\nset yrange [0:*]\n", MAX(t->steps, 1));
    timeline_data(s, t, profiles, count, scale);
    if (panels)
        timeline_panels(s, title, t, plans, count, unit, scale, columns, rows, first_of);
    else
        timeline_overlay(s, plans, count, unit, scale);
    gboolean ok = gnuplot_run(path, s, error);
    g_string_free(s, TRUE);
    g_free(first_of);
    for (guint k = 0; k < count; k++)
        profile_clear(&profiles[k]);
    g_free(profiles);
    return ok;
}

/* A label's size in the layout picture (1200 x 600 pixels, the plot about 1080 x 500 of it; sans at 8 points):
 * a character's width and a line's height as fractions of the plot's width and height, with the box's margin. */
#define LABEL_CHAR_W 0.0058
#define LABEL_LINE_H 0.030
#define LABEL_MIN_CHARS 6

static gboolean boxes_meet(const PlotLabel *a, const PlotLabel *b)
{
    return fabs(a->cx - b->cx) * 2 < a->w + b->w && fabs(a->cy - b->cy) * 2 < a->h + b->h;
}

GArray *plot_layout_labels(const Trace *t, const Plan *plan, const guint64 *base, guint x_lo, guint x_hi, guint64 y_lo,
                           guint64 y_hi)
{
    GArray *out = g_array_new(FALSE, TRUE, sizeof(PlotLabel));
    guint n = trace_count(t), shown_steps = MAX(x_hi - x_lo, 1), named_largest = 0;
    guint64 shown_bytes = MAX(y_hi - y_lo, 1);
    guint *order = profile_by_area(t); /* the largest first: they take their places before the small ones */
    for (guint k = 0; k < n; k++) {
        guint id = order[k];
        const TraceBuffer *b = trace_buffer(t, id);
        guint64 low = base[b->bin] + plan->offsets[id];
        if (b->last < x_lo || b->first >= x_hi || low + b->size <= y_lo || low >= y_hi)
            continue; /* outside the window */
        guint first = MAX(b->first, x_lo), last = MIN(b->last + 1, x_hi);
        guint64 bottom = MAX(low, y_lo), top = MIN(low + b->size, y_hi);
        double width = (double)(last - first) / shown_steps, height = (double)(top - bottom) / shown_bytes;
        glong room = (glong)(width / LABEL_CHAR_W) - 1; /* characters that fit inside the rectangle */
        gboolean inside = height >= LABEL_LINE_H && room >= LABEL_MIN_CHARS;
        gboolean largest = !inside && named_largest < LAYOUT_NAMED_LARGEST;
        if (!inside && !largest)
            continue;
        PlotLabel l = {.buffer = id, .text = gnuplot_shorten(b->name, inside ? room : 24),
                       .cx = ((first + last) / 2.0 - x_lo) / shown_steps,
                       .cy = ((double)bottom + (double)(top - bottom) / 2 - (double)y_lo) / shown_bytes,
                       .boxed = !inside};
        l.w = (g_utf8_strlen(l.text, -1) + 1) * LABEL_CHAR_W;
        l.h = LABEL_LINE_H;
        /* a boxed label near an edge moves inside the plot; any that then meets one placed before is left out */
        l.cx = CLAMP(l.cx, l.w / 2, 1 - l.w / 2);
        l.cy = CLAMP(l.cy, l.h / 2, 1 - l.h / 2);
        gboolean free_place = l.w <= 1;
        for (guint j = 0; free_place && j < out->len; j++)
            free_place = !boxes_meet(&l, &g_array_index(out, PlotLabel, j));
        if (!free_place) {
            g_free(l.text);
            continue;
        }
        named_largest += largest;
        g_array_append_val(out, l);
    }
    g_free(order);
    return out;
}

void plot_layout_labels_free(GArray *labels)
{
    for (guint k = 0; labels && k < labels->len; k++)
        g_free(g_array_index(labels, PlotLabel, k).text);
    if (labels)
        g_array_unref(labels);
}

/* Where each bin starts on the picture's address axis: the bins below it, stacked. */
gboolean plot_layout(const char *path, const char *title, const Trace *t, const Plan *plan, const LayoutWindow *window,
                     GError **error)
{
    if (!gnuplot_path_check(path, error))
        return FALSE;
    guint64 *base = profile_bin_bases(plan);
    guint steps = MAX(t->steps, 1);
    /* The window: every step and address unless told; a step range past the end is cut to it. */
    guint x_lo = 0, x_hi = steps;
    guint64 y_lo = 0, y_hi = MAX(base[plan->bins], 1);
    if (window && window->some_steps) {
        x_lo = MIN(window->first_step, steps - 1);
        x_hi = MAX(MIN(window->last_step, steps - 1), x_lo) + 1;
    }
    if (window && window->high > window->low) {
        y_lo = window->low;
        y_hi = window->high;
    }
    const char *unit;
    double scale;
    gnuplot_byte_unit((double)MAX(y_hi, 1), &unit, &scale);
    guint shown_steps = x_hi - x_lo;
    guint64 shown_bytes = MAX(y_hi - y_lo, 1);

    GString *s = gnuplot_script_new(path, title);
    g_string_append_printf(s, "set xlabel 'schedule step'\nset ylabel 'offset (%s)'\nset grid front\nunset key\n", unit);
    g_string_append_printf(s, "set xrange [%u:%u]\nset yrange [%.6f:%.6f]\nset style fill solid 0.6 border lc rgb '#404040'\n"
                              "set style textbox opaque noborder\n",
                           x_lo, x_hi, (double)y_lo / scale,
                           (double)(y_lo + (window && window->high > window->low ? shown_bytes : shown_bytes * 105 / 100)) / scale);
    /* names placed so that none covers another or leaves the plot (plot_layout_labels) */
    GArray *labels = plot_layout_labels(t, plan, base, x_lo, x_hi, y_lo, y_hi);
    for (guint k = 0; k < labels->len; k++) {
        const PlotLabel *l = &g_array_index(labels, PlotLabel, k);
        char *name_q = gnuplot_quote(l->text);
        g_string_append_printf(s, "set label %s at %.3f,%.6f center front font 'sans,8'%s\n", name_q,
                               x_lo + l->cx * shown_steps, ((double)y_lo + l->cy * (double)shown_bytes) / scale,
                               l->boxed ? " boxed" : "");
        g_free(name_q);
    }
    plot_layout_labels_free(labels);
    for (guint bin = 0; bin < plan->bins; bin++) {
        if (base[bin + 1] < y_lo || base[bin + 1] > y_hi)
            continue; /* the window does not reach this top: no line outside the frame */
        double top = (double)base[bin + 1] / scale;
        /* with tiers each bin is a tier's arena: named by its tier (names are letters, digits, '_', '-', '.') */
        char *label = t->tiers && bin < t->tiers->len
                          ? g_strdup_printf("tier %s top %.2f %s", trace_tier(t->tiers, bin)->name, top, unit)
                      : plan->bins > 1 ? g_strdup_printf("bin %u top %.2f %s", bin, top, unit)
                                       : g_strdup_printf("arena %.2f %s", top, unit);
        char *label_q = gnuplot_quote(label);
        g_string_append_printf(s, "set arrow from %u,%.6f to %u,%.6f nohead dt 2 lw 1.5 lc rgb '#c00000' front\n", x_lo,
                               top, x_hi, top);
        g_string_append_printf(s, "set label %s at %u,%.6f right offset -1,0.6 front tc rgb '#c00000'\n", label_q, x_hi,
                               top);
        g_free(label_q);
        g_free(label);
    }
    /* x_low x_high y_low y_high colour, one buffer a row; none drawn thinner than 0.3% of the picture's
     * height, so a small buffer is a sliver, not nothing. */
    double sliver = (double)shown_bytes * 0.003;
    guint drawn = 0;
    g_string_append(s, "$buffers << EOD\n");
    for (guint id = 0; id < trace_count(t); id++) {
        const TraceBuffer *b = trace_buffer(t, id);
        guint64 low = base[b->bin] + plan->offsets[id];
        if (b->last < x_lo || b->first >= x_hi || low + b->size <= y_lo || low >= y_hi)
            continue;
        drawn++;
        guint colour = (guint)g_ascii_strtoull(gnuplot_colour(id) + 1, NULL, 16);
        double high = MAX((double)(low + b->size), (double)low + sliver);
        g_string_append_printf(s, "%u %u %.6f %.6f %u\n", b->first, b->last + 1, (double)low / scale, high / scale, colour);
    }
    g_string_append(s, "EOD\n");
    g_string_append(s, "plot $buffers using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror lc rgb variable\n");
    gboolean ok = drawn > 0;
    if (!ok)
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "the window (steps %u to %u, addresses %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                    ") holds no buffer", x_lo, x_hi - 1, y_lo, y_hi);
    ok = ok && gnuplot_run(path, s, error);
    g_string_free(s, TRUE);
    g_free(base);
    return ok;
}
