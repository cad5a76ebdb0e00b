/* plot-table.c — the compare and sweep pictures of a result table (see plot-table.h). */
#include "report/plot-table.h"
#include "report/gnuplot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns that say what a row measured; the ones that vary across the table label its series. */
enum { ID_GRAPH, ID_DIMS, ID_ORDER, ID_ALIAS, ID_STRATEGY, ID_COUNT };
static const char *const id_names[ID_COUNT] = {"graph", "dims", "order", "alias", "strategy"};

typedef struct {
    const CsvTable *t;
    const char *path;
    gint id[ID_COUNT];
    gint y, arena, bound;
    gboolean ratio;
} Columns;

static gboolean need_column(const Columns *c, const char *name, gint *out, GError **error)
{
    *out = csv_table_column(c->t, name);
    if (*out < 0)
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "no column '%s'", name);
    return *out >= 0;
}

static gboolean columns_find(Columns *c, const CsvTable *t, const TablePlotOptions *o, GError **error)
{
    c->t = t;
    c->path = o->table_path;
    if (!t->rows->len) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "a header but no rows");
        return FALSE;
    }
    for (guint k = 0; k < ID_COUNT; k++)
        if (!need_column(c, id_names[k], &c->id[k], error))
            return FALSE;
    c->ratio = !strcmp(o->y, "ratio");
    if (c->ratio)
        return need_column(c, "arena_bytes", &c->arena, error) && need_column(c, "lower_bound_bytes", &c->bound, error);
    c->bound = csv_table_column(t, "lower_bound_bytes");
    return need_column(c, o->y, &c->y, error);
}

static gboolean number_at(const Columns *c, guint row, gint column, double *out, GError **error)
{
    const char *text = csv_table_cell(c->t, row, (guint)column);
    char *end;
    *out = g_ascii_strtod(text, &end);
    if (!*text || *end || !isfinite(*out)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "line %u: column '%s' holds '%s', not a number",
                    csv_table_line(c->t, row), (const char *)c->t->header->pdata[column], text);
        return FALSE;
    }
    return TRUE;
}

/* The metric of a row. */
static gboolean metric(const Columns *c, guint row, double *out, GError **error)
{
    if (!c->ratio)
        return number_at(c, row, c->y, out, error);
    double arena, bound;
    if (!number_at(c, row, c->arena, &arena, error) || !number_at(c, row, c->bound, &bound, error))
        return FALSE;
    if (bound <= 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "line %u: lower_bound_bytes is 0, so arena / lower bound has no value",
                    csv_table_line(c->t, row));
        return FALSE;
    }
    *out = arena / bound;
    return TRUE;
}

/* An identifying field of a row as shown: the graph by its file name, dims without the swept one. */
static char *id_field(const Columns *c, guint row, guint field, const char *swept)
{
    const char *text = csv_table_cell(c->t, row, (guint)c->id[field]);
    if (field == ID_GRAPH) {
        char *base = g_path_get_basename(text);
        if (g_str_has_suffix(base, ".onnx") && strlen(base) > 5)
            base[strlen(base) - 5] = '\0';
        return base;
    }
    if (field != ID_DIMS || !swept)
        return g_strdup(text);
    char **parts = g_strsplit(text, ",", -1);
    GString *kept = g_string_new(NULL);
    size_t n = strlen(swept);
    for (char **p = parts; *p; p++)
        if (strncmp(*p, swept, n) || (*p)[n] != '=')
            g_string_append_printf(kept, "%s%s", kept->len ? "," : "", *p);
    g_strfreev(parts);
    if (!kept->len)
        g_string_assign(kept, "-");
    return g_string_free(kept, FALSE);
}

/* Which identifying fields differ between rows (the rest are the same everywhere and go unsaid). */
static void varying_fields(const Columns *c, const char *swept, gboolean varies[ID_COUNT])
{
    for (guint f = 0; f < ID_COUNT; f++) {
        varies[f] = FALSE;
        char *first = id_field(c, 0, f, swept);
        for (guint r = 1; r < c->t->rows->len && !varies[f]; r++) {
            char *v = id_field(c, r, f, swept);
            varies[f] = strcmp(v, first) != 0;
            g_free(v);
        }
        g_free(first);
    }
}

/* A label from the chosen fields of a row, " / " between them; dims as "dims a=1". */
static char *label_of(const Columns *c, guint row, const char *swept, const gboolean use[ID_COUNT])
{
    GString *s = g_string_new(NULL);
    for (guint f = 0; f < ID_COUNT; f++) {
        if (!use[f])
            continue;
        char *v = id_field(c, row, f, swept);
        g_string_append_printf(s, "%s%s%s%s", s->len ? " / " : "", f == ID_DIMS ? "dims " : "",
                               f == ID_ORDER ? "order " : f == ID_ALIAS ? "alias " : "", v);
        g_free(v);
    }
    return g_string_free(s, FALSE);
}

/* Names in order of first appearance, found by a hash (a table of 65,537 distinct rows interned by a scan
 * took quadratic time). */
typedef struct {
    GPtrArray *names;   /* char*, owned */
    GHashTable *index;  /* name -> position + 1 */
} Names;

static Names names_new(void)
{
    return (Names){g_ptr_array_new_with_free_func(g_free), g_hash_table_new(g_str_hash, g_str_equal)};
}

static void names_clear(Names *n)
{
    g_hash_table_unref(n->index);
    g_ptr_array_unref(n->names);
}

/* Index of text in names, appended when new; takes text. */
static guint intern(Names *n, char *text)
{
    guint k = GPOINTER_TO_UINT(g_hash_table_lookup(n->index, text));
    if (k) {
        g_free(text);
        return k - 1;
    }
    g_ptr_array_add(n->names, text);
    g_hash_table_insert(n->index, text, GUINT_TO_POINTER(n->names->len));
    return n->names->len - 1;
}

/* A picture has room for so many series (each a legend entry, a colour and a dash) and bars; a table that
 * asks for more is refused before anything is allocated for it or sent to gnuplot. */
static gboolean fits_picture(const char *what, guint series, guint64 bars, GError **error)
{
    if (series > PLOT_MAX_SERIES) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "the table has %u %s, more than the %u a plot can tell apart: plot a part of it",
                    series, what, PLOT_MAX_SERIES);
        return FALSE;
    }
    if (bars > PLOT_MAX_BARS) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "the table needs %" G_GUINT64_FORMAT " bars, more than the %u a plot can show: "
                    "plot a part of it", bars, PLOT_MAX_BARS);
        return FALSE;
    }
    return TRUE;
}

/* The picture for `series` series: up to eight, the legend to the right of the plot; more, below it in up
 * to three columns (two when the names are long; the picture grows to hold two), so the legend never takes
 * the plot's width. A legend below starts with an empty title line: gnuplot draws a legend below over the x
 * axis label, and the blank line is what it covers. */
static GString *table_script(const char *path, const char *title, guint series)
{
    if (series <= 8) {
        GString *s = gnuplot_script_new(path, title);
        g_string_append(s, "set key outside right top box\n");
        return s;
    }
    guint rows = (series + 1) / 2;
    GString *s = gnuplot_script_sized(path, title, 1200, 600 + 18 * rows);
    g_string_append(s, "set key outside below center horizontal maxcols 3 width 2 title ' '\n");
    return s;
}

/* A facet's panel in the multiplot `o->into`: what an earlier panel set is undone, the panel is titled,
 * and its legend goes below it (every panel alike, so they keep one size; the blank legend title as in
 * table_script). Returns the script. */
static GString *panel_start(const TablePlotOptions *o, guint series)
{
    GString *s = o->into;
    g_string_append(s, "reset\nset style data linespoints\n");
    gnuplot_set_text(s, "title", o->panel_title ? o->panel_title : "", NULL, "");
    g_string_append_printf(s, "set key outside below center horizontal maxcols %u font ',8' title ' '\n", series > 4 ? 3u : 2u);
    return s;
}


/* A column's name as an axis or title says it: "arena_bytes" as "arena", "place_seconds" as "place seconds"
 * (the unit goes in the label's brackets); a name the table has no column of is a swept dimension. */
#define WORDS_MAX 128
static const char *column_words(const char *column, const CsvTable *t, char buf[WORDS_MAX])
{
    if (t && csv_table_column(t, column) < 0) {
        g_snprintf(buf, WORDS_MAX, "%s (dimension)", column);
        return buf;
    }
    g_strlcpy(buf, column, WORDS_MAX);
    gsize n = strlen(buf);
    if (n > 6 && !strcmp(buf + n - 6, "_bytes"))
        buf[n - 6] = 0;
    for (char *c = buf; *c; c++)
        if (*c == '_')
            *c = ' ';
    return buf;
}

static const char *metric_label(const TablePlotOptions *o, char buf[WORDS_MAX])
{
    return !strcmp(o->y, "ratio") ? "arena / lower bound" : column_words(o->y, NULL, buf);
}

static gboolean is_bytes(const TablePlotOptions *o) { return g_str_has_suffix(o->y, "_bytes"); }

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double plot_compare_cut(const double *values, guint n, double base)
{
    if (n < 20)
        return G_MAXDOUBLE;
    double *v = g_memdup2(values, n * sizeof *v);
    qsort(v, n, sizeof *v, compare_doubles);
    double p95 = v[(guint)(0.95 * (n - 1))], largest = v[n - 1];
    g_free(v);
    return p95 > base && largest - base > 2 * (p95 - base) ? p95 : G_MAXDOUBLE;
}

gboolean plot_compare(const char *path, const CsvTable *t, const TablePlotOptions *o, GError **error)
{
    char words[WORDS_MAX];
    Columns c;
    if (!gnuplot_path_check(path, error) || !columns_find(&c, t, o, error))
        return FALSE;
    gboolean varies[ID_COUNT], category_use[ID_COUNT] = {0}, category_dims_use[ID_COUNT] = {0},
                               series_use[ID_COUNT] = {0};
    varying_fields(&c, NULL, varies);
    category_use[ID_GRAPH] = category_dims_use[ID_GRAPH] = category_dims_use[ID_DIMS] = TRUE;
    /* A graph measured at several dims gets a cluster per dims; any other cluster is named by its graph. */
    GHashTable *first_dims = g_hash_table_new(g_str_hash, g_str_equal), *several = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint r = 0; r < t->rows->len; r++) {
        const char *graph = csv_table_cell(t, r, (guint)c.id[ID_GRAPH]), *dims = csv_table_cell(t, r, (guint)c.id[ID_DIMS]);
        const char *seen = g_hash_table_lookup(first_dims, graph);
        if (!seen)
            g_hash_table_insert(first_dims, (gpointer)graph, (gpointer)dims);
        else if (strcmp(seen, dims))
            g_hash_table_add(several, (gpointer)graph);
    }
    series_use[ID_ORDER] = varies[ID_ORDER];
    series_use[ID_ALIAS] = varies[ID_ALIAS];
    series_use[ID_STRATEGY] = TRUE;
    guint rows = t->rows->len;
    Names category_names = names_new(), series_names = names_new();
    GPtrArray *categories = category_names.names, *series = series_names.names;
    guint *cat = g_new(guint, rows), *ser = g_new(guint, rows);
    double *value = g_new(double, rows), largest = 0;
    gboolean ok = TRUE;
    for (guint r = 0; ok && r < rows; r++) {
        gboolean by_dims = g_hash_table_contains(several, csv_table_cell(t, r, (guint)c.id[ID_GRAPH]));
        cat[r] = intern(&category_names, label_of(&c, r, NULL, by_dims ? category_dims_use : category_use));
        ser[r] = intern(&series_names, label_of(&c, r, NULL, series_use));
        ok = metric(&c, r, &value[r], error);
        largest = MAX(largest, value[r]);
    }
    /* The matrix of bars (its size checked in 64 bits first); a cell filled twice is two rows measuring the
     * same thing. */
    guint64 cells = (guint64)categories->len * series->len;
    ok = ok && fits_picture("series", series->len, cells, error);
    gint *cell = ok ? g_new(gint, cells + 1) : NULL;
    for (guint64 k = 0; ok && k < cells; k++)
        cell[k] = -1;
    for (guint r = 0; ok && r < rows; r++) {
        gint *slot = &cell[(gsize)cat[r] * series->len + ser[r]];
        if (*slot >= 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "lines %u and %u both measure %s, %s",
                        csv_table_line(t, (guint)*slot), csv_table_line(t, r), (const char *)categories->pdata[cat[r]],
                        (const char *)series->pdata[ser[r]]);
            ok = FALSE;
        }
        *slot = (gint)r;
    }
    if (ok) {
        const char *unit = "";
        double scale = 1;
        if (is_bytes(o))
            gnuplot_byte_unit(largest, &unit, &scale);
        if (o->shared_largest > 0 && is_bytes(o))
            gnuplot_byte_unit(o->shared_largest, &unit, &scale);
        char *title = o->title ? g_strdup(o->title)
                               : g_strdup_printf("%s per strategy (%s)", metric_label(o, words), o->table_path);
        GString *s = o->into ? panel_start(o, series->len) : table_script(path, title, series->len);
        g_free(title);
        g_string_append(s, "set style data histogram\nset style histogram clustered gap 1\n"
                           "set style fill solid 0.85 border rgb '#404040'\nset boxwidth 0.9\nset datafile missing '?'\n"
                           "set grid ytics\nset xtics nomirror\n");
        gboolean long_labels = FALSE;
        for (guint k = 0; k < categories->len && !long_labels; k++)
            long_labels = strlen(categories->pdata[k]) > 12;
        if (categories->len > 6 || long_labels)
            g_string_append(s, "set xtics rotate by 40 right offset 0,-0.3\nset lmargin 16\n"); /* room for the first label */
        char top[64] = "*"; /* facets share the top of the axis */
        if (o->shared_largest > 0)
            g_snprintf(top, sizeof top, "%.6g", o->shared_largest / scale * 1.03);
        /* Outliers do not set the scale (one strategy at 5.9 times the bound would make the others' differences
         * slivers): where the largest bar rises more than twice as far above the base (1 for arena / lower bound,
         * else 0) as the 95th percentile does, the axis ends a little above that percentile, and each bar past it
         * is cut at the top and marked with a triangle there; the tallest is named with its value. */
        double cut = plot_compare_cut(value, rows, c.ratio ? 1 : 0);
        if (o->shared_largest <= 0 && cut < largest) {
            double ceiling = c.ratio ? 1 + (cut - 1) * 1.15 : cut * 1.15;
            g_snprintf(top, sizeof top, "%.6g", ceiling / scale);
            guint count = 0;
            gint tallest = -1;
            g_string_append_printf(s, "$cut%u << EOD\n", o->panel);
            for (guint k = 0; k < categories->len; k++)
                for (guint j = 0; j < series->len; j++) {
                    gint r = cell[(gsize)k * series->len + j];
                    if (r < 0 || value[r] <= ceiling)
                        continue;
                    /* gnuplot's clustered bars: cluster k at x = k, bar j of n at (j - (n - 1) / 2) / (n + gap) */
                    g_string_append_printf(s, "%.6f %.6g\n", k + (j - (series->len - 1) / 2.0) / (series->len + 1.0),
                                           ceiling / scale * 0.985);
                    if (tallest < 0 || value[r] > value[tallest])
                        tallest = r;
                    count++;
                }
            g_string_append(s, "EOD\n");
            /* short, in the top left corner, clear of a centred title and of the key */
            char *note = g_strdup_printf("%u bar%s cut (red triangles); the tallest: %s on %s, %.3g", count,
                                         count == 1 ? "" : "s", (const char *)series->pdata[ser[tallest]],
                                         (const char *)categories->pdata[cat[tallest]], value[tallest] / scale);
            char *note_q = gnuplot_quote(note);
            g_string_append_printf(s, "set label %s at screen 0.01, screen 0.975 left font ',8' tc rgb '#c00000'\n",
                                   note_q);
            g_free(note_q);
            g_free(note);
        }
        if (c.ratio) {
            /* Bars rise from 0 but the axis starts just below 1, so a plan at the bound still shows a stub. */
            g_string_append_printf(s, "set ylabel 'arena / lower bound (1 = lower bound)'\nset yrange [0.98:%s]\n"
                                      "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb "
                                      "'#808080'\n", top);
        } else if (is_bytes(o)) {
            gnuplot_set_text(s, "ylabel", column_words(o->y, NULL, words), unit, "");
            g_string_append_printf(s, "set yrange [0:%s]\n", top);
        } else {
            gnuplot_set_text(s, "ylabel", column_words(o->y, NULL, words), NULL, "");
            g_string_append_printf(s, "set yrange [0:%s]\n", top);
        }
        /* The category names as tic labels at 0, 1, ... (where the clusters stand): the datablock holds
         * numbers only. */
        g_string_append(s, "set xtics (");
        for (guint k = 0; k < categories->len; k++) {
            char *shown = gnuplot_shorten(categories->pdata[k], 28), *name_q = gnuplot_quote_tic(shown);
            g_string_append_printf(s, "%s%s %u", k ? ", " : "", name_q, k);
            g_free(name_q);
            g_free(shown);
        }
        g_string_append_printf(s, ")\n$bars%u << EOD\n", o->panel);
        for (guint k = 0; k < categories->len; k++) {
            g_string_append_printf(s, "%u", k);
            for (guint j = 0; j < series->len; j++) {
                gint r = cell[(gsize)k * series->len + j];
                if (r < 0)
                    g_string_append(s, " ?");
                else
                    g_string_append_printf(s, " %.6g", value[r] / scale);
            }
            g_string_append_c(s, '\n');
        }
        g_string_append(s, "EOD\nplot ");
        for (guint j = 0; j < series->len; j++) {
            char *name_q = gnuplot_quote(series->pdata[j]);
            /* past the palette, hatched bars of the same colours: no two series look alike */
            guint group = j / gnuplot_palette_size();
            static const guint hatches[] = {1, 2, 4, 5, 6, 7}; /* gnuplot's pattern 3 is solid, 0 empty */
            char *fill = group ? g_strdup_printf(" fs pattern %u", hatches[(group - 1) % G_N_ELEMENTS(hatches)]) : g_strdup("");
            g_string_append_printf(s, "%s$bars%u using %u title %s lc rgb '%s'%s", j ? ", " : "", o->panel, j + 2,
                                   name_q, gnuplot_colour(j), fill);
            g_free(fill);
            g_free(name_q);
        }
        if (o->shared_largest <= 0 && cut < largest)
            g_string_append_printf(s, ", $cut%u using 1:2 with points pt 9 ps 1.3 lc rgb '#c00000' notitle", o->panel);
        g_string_append_c(s, '\n');
        if (!o->into) {
            ok = gnuplot_run(path, s, error);
            g_string_free(s, TRUE);
        }
    }
    g_free(cell);
    g_free(cat);
    g_free(ser);
    g_free(value);
    names_clear(&category_names);
    names_clear(&series_names);
    g_hash_table_unref(first_dims);
    g_hash_table_unref(several);
    return ok;
}

/* The swept value of a row: its column, or NAME=VALUE in its dims. */
static gboolean swept_value(const Columns *c, guint row, const char *x, gint xcol, double *out, GError **error)
{
    if (xcol >= 0)
        return number_at(c, row, xcol, out, error);
    char **parts = g_strsplit(csv_table_cell(c->t, row, (guint)c->id[ID_DIMS]), ",", -1);
    size_t n = strlen(x);
    gboolean found = FALSE;
    for (char **p = parts; *p && !found; p++)
        if (!strncmp(*p, x, n) && (*p)[n] == '=') {
            *out = g_ascii_strtod(*p + n + 1, NULL);
            found = TRUE;
        }
    g_strfreev(parts);
    if (!found)
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "line %u: '%s' is neither a column nor a dimension in the dims column",
                    csv_table_line(c->t, row), x);
    return found;
}

typedef struct {
    double x, y;
    guint row;
} Point;

static gint by_x(gconstpointer a, gconstpointer b)
{
    double d = ((const Point *)a)->x - ((const Point *)b)->x;
    return d < 0 ? -1 : d > 0;
}

/* Sorts a series by x; two rows at one x are an error (the table measured the same thing twice). */
static gboolean series_sort(const Columns *c, GArray *points, const char *label, GError **error)
{
    g_array_sort(points, by_x);
    for (guint k = 1; k < points->len; k++) {
        const Point *a = &g_array_index(points, Point, k - 1), *b = &g_array_index(points, Point, k);
        if (a->x == b->x) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "lines %u and %u both measure %s at %g",
                        csv_table_line(c->t, a->row), csv_table_line(c->t, b->row), label, a->x);
            return FALSE;
        }
    }
    return TRUE;
}

gboolean plot_sweep(const char *path, const CsvTable *t, const TablePlotOptions *o, GError **error)
{
    char words[WORDS_MAX], xwords[WORDS_MAX];
    Columns c;
    if (!gnuplot_path_check(path, error) || !columns_find(&c, t, o, error))
        return FALSE;
    gint xcol = csv_table_column(t, o->x);
    gboolean varies[ID_COUNT], bound_use[ID_COUNT];
    varying_fields(&c, xcol >= 0 ? NULL : o->x, varies);
    if (!varies[ID_GRAPH] && !varies[ID_DIMS] && !varies[ID_ORDER] && !varies[ID_ALIAS])
        varies[ID_STRATEGY] = TRUE; /* one line: still name it */
    memcpy(bound_use, varies, sizeof bound_use);
    bound_use[ID_STRATEGY] = FALSE;
    /* The lower bound does not depend on the strategy: one dashed line per graph/order/alias. */
    gboolean with_bound = !strcmp(o->y, "arena_bytes") && c.bound >= 0;
    const char *swept = xcol >= 0 ? NULL : o->x;
    Names line_names = names_new(), bound_line_names = names_new();
    GPtrArray *names = line_names.names, *bound_names = bound_line_names.names;
    GPtrArray *lines = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    GPtrArray *bounds = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    double largest = 0, smallest = INFINITY, xmin = INFINITY, xmax = -INFINITY;
    gboolean ok = TRUE;
    for (guint r = 0; ok && r < t->rows->len; r++) {
        Point p = {.row = r};
        ok = swept_value(&c, r, o->x, xcol, &p.x, error) && metric(&c, r, &p.y, error);
        if (!ok)
            break;
        guint k = intern(&line_names, label_of(&c, r, swept, varies));
        if (k == lines->len)
            g_ptr_array_add(lines, g_array_new(FALSE, FALSE, sizeof(Point)));
        g_array_append_val(lines->pdata[k], p);
        largest = MAX(largest, p.y);
        smallest = MIN(smallest, p.y);
        xmin = MIN(xmin, p.x);
        xmax = MAX(xmax, p.x);
        if (with_bound) {
            Point b = {.x = p.x, .row = r};
            ok = number_at(&c, r, c.bound, &b.y, error);
            guint j = intern(&bound_line_names, label_of(&c, r, swept, bound_use));
            if (j == bounds->len)
                g_ptr_array_add(bounds, g_array_new(FALSE, FALSE, sizeof(Point)));
            g_array_append_val(bounds->pdata[j], b);
        }
    }
    ok = ok && fits_picture("lines", lines->len + bounds->len, t->rows->len, error);
    for (guint k = 0; ok && k < lines->len; k++)
        ok = series_sort(&c, lines->pdata[k], names->pdata[k], error);
    for (guint k = 0; ok && k < bounds->len; k++) {
        /* Every strategy's row repeats the bound: one point per x, kept once sorted. */
        GArray *a = bounds->pdata[k];
        g_array_sort(a, by_x);
        guint kept = 0;
        for (guint q = 0; q < a->len; q++)
            if (!kept || g_array_index(a, Point, kept - 1).x != g_array_index(a, Point, q).x)
                g_array_index(a, Point, kept++) = g_array_index(a, Point, q);
        g_array_set_size(a, kept);
    }
    if (ok) {
        const char *unit = "";
        double scale = 1;
        if (is_bytes(o))
            gnuplot_byte_unit(o->shared_largest > 0 ? o->shared_largest : largest, &unit, &scale);
        char *title = o->title ? g_strdup(o->title)
                               : g_strdup_printf("%s against %s (%s)", metric_label(o, words), o->x, o->table_path);
        GString *s = o->into ? panel_start(o, lines->len + bounds->len) : table_script(path, title, lines->len + bounds->len);
        g_free(title);
        char top[64] = "*"; /* facets share the top of the axis */
        if (o->shared_largest > 0)
            g_snprintf(top, sizeof top, "%.6g", o->shared_largest / scale * 1.05);
        gnuplot_set_text(s, "xlabel", column_words(o->x, t, xwords), NULL, "");
        g_string_append(s, "set grid\n");
        /* Log scales when the values span a factor of 16 or more: then growth laws read as straight lines. */
        gboolean log_x = xmin > 0 && xmax / xmin >= 16, log_y = !c.ratio && smallest > 0 && largest / smallest >= 16;
        if (log_x)
            g_string_append(s, "set logscale x 2\n");
        if (log_y)
            g_string_append(s, "set logscale y 2\n");
        if (c.ratio)
            g_string_append_printf(s, "set ylabel 'arena / lower bound (1 = lower bound)'\nset yrange [0.95:%s]\n", top);
        else if (is_bytes(o)) {
            gnuplot_set_text(s, "ylabel", column_words(o->y, NULL, words), unit, log_y ? ", log scale" : "");
            g_string_append_printf(s, "set yrange [%s:%s]\n", log_y ? "*" : "0", top);
        } else {
            gnuplot_set_text(s, "ylabel", column_words(o->y, NULL, words), NULL, log_y ? " (log scale)" : "");
            g_string_append_printf(s, "set yrange [*:%s]\n", top);
        }
        for (guint k = 0; k < lines->len + bounds->len; k++) {
            GArray *a = k < lines->len ? lines->pdata[k] : bounds->pdata[k - lines->len];
            g_string_append_printf(s, "$s%u_%u << EOD\n", o->panel, k);
            for (guint q = 0; q < a->len; q++)
                g_string_append_printf(s, "%.6g %.6g\n", g_array_index(a, Point, q).x,
                                       g_array_index(a, Point, q).y / scale);
            g_string_append(s, "EOD\n");
        }
        g_string_append(s, "plot ");
        for (guint k = 0; k < lines->len; k++) {
            char *name_q = gnuplot_quote(names->pdata[k]);
            g_string_append_printf(s, "%s$s%u_%u using 1:2 with linespoints lw 1.5 pt %u lc rgb '%s' dt %u title %s",
                                   k ? ", " : "", o->panel, k, k % 12 + 1, gnuplot_colour(k),
                                   k / gnuplot_palette_size() + 1, name_q);
            g_free(name_q);
        }
        for (guint k = 0; k < bounds->len; k++) {
            char *label = bound_names->len > 1 && *(const char *)bound_names->pdata[k]
                              ? g_strdup_printf("lower bound (%s)", (const char *)bound_names->pdata[k])
                              : g_strdup("lower bound");
            char *name_q = gnuplot_quote(label);
            g_string_append_printf(s, ", $s%u_%u using 1:2 with lines lw 2 dt %u lc rgb '#808080' title %s",
                                   o->panel, lines->len + k, k + 2, name_q);
            g_free(name_q);
            g_free(label);
        }
        g_string_append_c(s, '\n');
        if (!o->into) {
            ok = gnuplot_run(path, s, error);
            g_string_free(s, TRUE);
        }
    }
    names_clear(&line_names);
    names_clear(&bound_line_names);
    g_ptr_array_unref(lines);
    g_ptr_array_unref(bounds);
    return ok;
}

/* The rows of t whose column is value, as a table of their own (rows and header shared with t). */
static CsvTable *table_subset(const CsvTable *t, guint column, const char *value)
{
    CsvTable *sub = g_new0(CsvTable, 1);
    sub->header = g_ptr_array_ref(t->header);
    sub->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    sub->lines = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint r = 0; r < t->rows->len; r++)
        if (!strcmp(csv_table_cell(t, r, column), value)) {
            g_ptr_array_add(sub->rows, g_ptr_array_ref(t->rows->pdata[r]));
            g_array_append_val(sub->lines, g_array_index(t->lines, guint, r));
        }
    return sub;
}

gboolean plot_table_facets(const char *path, const CsvTable *t, const TablePlotOptions *o, const char *column,
                           gboolean compare, GError **error)
{
    char words[WORDS_MAX];
    Columns c;
    if (!gnuplot_path_check(path, error) || !columns_find(&c, t, o, error))
        return FALSE;
    gint f = csv_table_column(t, column);
    if (f < 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "--facet names column '%s', which the table does not have", column);
        return FALSE;
    }
    Names values = names_new();
    double largest = 0;
    gboolean ok = TRUE;
    for (guint r = 0; ok && r < t->rows->len; r++) {
        intern(&values, g_strdup(csv_table_cell(t, r, (guint)f)));
        double v;
        ok = metric(&c, r, &v, error);
        largest = ok ? MAX(largest, v) : largest;
    }
    if (ok && values.names->len > PLOT_MAX_FACETS) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "--facet %s: the table has %u values of it, more than the %u panels a picture "
                    "holds: narrow it with --where", column, values.names->len, PLOT_MAX_FACETS);
        ok = FALSE;
    }
    if (ok) {
        guint n = values.names->len, cols = n <= 3 ? n : n == 4 ? 2 : 3, rows = (n + cols - 1) / cols;
        char *title = o->title ? g_strdup(o->title)
                               : g_strdup_printf("%s %s, a panel per %s (%s)", metric_label(o, words),
                                                 compare ? "per strategy" : "against", column, o->table_path);
        if (!compare) {
            char *longer = o->title ? g_strdup(title)
                                    : g_strdup_printf("%s against %s, a panel per %s (%s)", metric_label(o, words), o->x,
                                                      column, o->table_path);
            g_free(title);
            title = longer;
        }
        GString *s = gnuplot_script_sized(path, "", 1200, MIN(2400u, 120 + 520 * rows));
        char *title_q = gnuplot_quote(title);
        g_string_append_printf(s, "set multiplot layout %u,%u title %s\n", rows, cols, title_q);
        g_free(title_q);
        g_free(title);
        for (guint k = 0; ok && k < n; k++) {
            CsvTable *sub = table_subset(t, (guint)f, values.names->pdata[k]);
            char *panel_title = g_strdup_printf("%s = %s", column, (const char *)values.names->pdata[k]);
            TablePlotOptions panel = *o;
            panel.into = s;
            panel.panel = k;
            panel.panel_title = panel_title;
            panel.shared_largest = largest;
            ok = compare ? plot_compare(path, sub, &panel, error) : plot_sweep(path, sub, &panel, error);
            g_free(panel_title);
            csv_table_free(sub);
        }
        g_string_append(s, "unset multiplot\n");
        ok = ok && gnuplot_run(path, s, error);
        g_string_free(s, TRUE);
    }
    names_clear(&values);
    return ok;
}
