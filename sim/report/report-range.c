/* report-range.c — the report of a range of dims (report-range.h): the functions, the plans, the points placed on
 * their own and the check, one writer per format (the format table in report.c names them). */
#include "report/report-range.h"

#include "base/escape.h"
#include "base/json-text.h"
#include "base/units.h"
#include "report/csv-table.h"

#include <string.h>

void report_range_point(const ReportRange *r, gsize k, gint64 *x)
{
    for (guint d = r->ndims; d-- > 0;) {
        const ReportRangeDim *dim = &r->dims[d];
        gsize count = (gsize)((dim->hi - dim->lo) / dim->step + 1);
        x[d] = dim->lo + (gint64)(k % count) * dim->step;
        k /= count;
    }
}

gsize report_range_placed(const ReportRange *r)
{
    gsize n = 0;
    for (gsize k = 0; k < r->points; k++)
        n += r->placed[k] != 0;
    return n;
}

gsize report_range_one_plan_points(const ReportRange *r)
{
    gsize n = 0;
    for (gsize k = 0; r->one_plan_arena && k < r->points; k++)
        n += r->one_plan_arena[k] != 0;
    return n;
}

void report_range_clear(ReportRange *r)
{
    for (guint d = 0; d < r->ndims; d++)
        g_free(r->dims[d].name);
    g_free(r->arena);
    g_free(r->lower_bound);
    g_free(r->plan_arena);
    g_free(r->placed);
    g_free(r->checked);
    g_free(r->one_plan_arena);
    piecewise_free(r->arena_fn);
    piecewise_free(r->bound_fn);
    if (r->plans)
        g_array_unref(r->plans);
    memset(r, 0, sizeof *r);
}

/* The dims' names made safe by `safe` (escape_terminal, or a format's cell rule), NULL-terminated. */
static char **dim_names(const ReportRange *r, char *(*safe)(const char *))
{
    char **names = g_new0(char *, r->ndims + 1);
    for (guint d = 0; d < r->ndims; d++)
        names[d] = safe ? safe(r->dims[d].name) : g_strdup(r->dims[d].name);
    return names;
}

/* "seq=1024" or "batch=8, seq=512": point k with the names given. */
static char *point_text(const ReportRange *r, gsize k, char **names)
{
    gint64 x[PIECEWISE_MAX_VARS];
    report_range_point(r, k, x);
    GString *s = g_string_new(NULL);
    for (guint d = 0; d < r->ndims; d++)
        g_string_append_printf(s, "%s%s=%" G_GINT64_FORMAT, d ? ", " : "", names[d], x[d]);
    return g_string_free(s, FALSE);
}

/* "seq 1..1024" or "batch 1..8, seq 1..512": piece k's box. */
static char *box_text(const Piecewise *fn, guint k, char **names)
{
    const PiecewisePiece *p = &g_array_index(fn->pieces, PiecewisePiece, k);
    GString *s = g_string_new(NULL);
    for (guint d = 0; d < fn->vars; d++) {
        if (p->from[d] == p->to[d])
            g_string_append_printf(s, "%s%s=%" G_GINT64_FORMAT, d ? ", " : "", names[d], p->from[d]);
        else
            g_string_append_printf(s, "%s%s %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT, d ? ", " : "", names[d],
                                   p->from[d], p->to[d]);
    }
    return g_string_free(s, FALSE);
}

/* "seq = 1..1024" (", step 16"), one a dim. */
static char *ranges_text(const ReportRange *r, char **names)
{
    GString *s = g_string_new(NULL);
    for (guint d = 0; d < r->ndims; d++) {
        const ReportRangeDim *dim = &r->dims[d];
        g_string_append_printf(s, "%s%s = %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT, d ? ", " : "", names[d], dim->lo,
                               dim->hi);
        if (dim->step != 1)
            g_string_append_printf(s, " step %" G_GINT64_FORMAT, dim->step);
    }
    return g_string_free(s, FALSE);
}

typedef struct {
    gsize equal, smaller, larger;
} CheckCount;

static CheckCount check_count(const ReportRange *r)
{
    CheckCount c = {0};
    for (gsize k = 0; r->checked && k < r->points; k++) {
        if (r->arena[k] == r->checked[k])
            c.equal++;
        else if (r->arena[k] < r->checked[k])
            c.smaller++;
        else
            c.larger++;
    }
    return c;
}

/* ---- text ---- */
/* A quasi-polynomial piece's classes, a line each under its box. */
static void text_classes(FILE *out, const Piecewise *fn, guint k, char **names)
{
    const PiecewisePiece *p = &g_array_index(fn->pieces, PiecewisePiece, k);
    char **classes = piecewise_classes_text(fn, k, (const char *const *)names);
    for (char **c = classes; c[0]; c += 2) {
        char *where = g_strdup_printf("%s ≡ %s (mod %" G_GINT64_FORMAT ")", names[fn->vars - 1], c[0],
                                      p->step * (gint64)p->modulus);
        fprintf(out, "    %-26s %s B\n", where, c[1]);
        g_free(where);
    }
    g_strfreev(classes);
}

static void text_function(FILE *out, const char *label, const Piecewise *fn, char **names)
{
    if (fn->pieces->len == 1 && g_array_index(fn->pieces, PiecewisePiece, 0).modulus > 1 &&
        !piecewise_classes_share(fn, 0)) {
        char *box = box_text(fn, 0, names);
        fprintf(out, "%-14s for %s, by its residue:\n", label, box);
        text_classes(out, fn, 0, names);
        g_free(box);
        return;
    }
    if (fn->pieces->len == 1) {
        char *formula = piecewise_text(fn, 0, (const char *const *)names), *box = box_text(fn, 0, names);
        fprintf(out, "%-14s %s B  for %s\n", label, formula, box);
        g_free(formula);
        g_free(box);
        return;
    }
    fprintf(out, "%-14s %u pieces\n", label, fn->pieces->len);
    for (guint k = 0; k < fn->pieces->len; k++) {
        char *box = box_text(fn, k, names);
        if (g_array_index(fn->pieces, PiecewisePiece, k).modulus > 1 && !piecewise_classes_share(fn, k)) {
            fprintf(out, "  %s, by its residue:\n", box);
            text_classes(out, fn, k, names);
        } else {
            char *formula = piecewise_text(fn, k, (const char *const *)names);
            fprintf(out, "  %-28s %s B\n", box, formula);
            g_free(formula);
        }
        g_free(box);
    }
}

void report_range_text(FILE *out, const ReportRange *r)
{
    char **names = dim_names(r, escape_terminal);
    char *graph = escape_terminal(r->graph), *fixed = escape_terminal(r->fixed), *ranges = ranges_text(r, names);
    char *points = sim_format_count(r->points);
    fprintf(out, "graph          %s (dims: %s)\n", graph, fixed);
    fprintf(out, "range          %s (%s point%s)\n", ranges, points, r->points == 1 ? "" : "s");
    char *loaded = sim_format_count(r->loaded), *between = sim_format_count(r->interpolated);
    if (r->interpolated)
        fprintf(out, "points         %s loaded and traced; %s sized between them (each buffer's size a polynomial of "
                "the dims there)\n", loaded, between);
    else
        fprintf(out, "points         %s loaded and traced%s\n", loaded, r->every ? " (--range-every)" : "");
    g_free(loaded);
    g_free(between);
    fprintf(out, "order          %s\n", r->order);
    fprintf(out, "strategy       %s\n", r->strategy);
    fprintf(out, "aliasing       %s\n", r->alias);
    if (r->bounded)
        fprintf(out, "sizes          an upper-bound plan: %u data-dependent tensor%s planned at %s bound%s (--bound "
                "NAME=MAX plans one smaller)\n", r->bounded, r->bounded == 1 ? "" : "s", r->bounded == 1 ? "its" : "their",
                r->bounded == 1 ? "" : "s");
    text_function(out, "arena", r->arena_fn, names);
    text_function(out, "lower bound", r->bound_fn, names);
    if (r->grouped)
        fprintf(out, "range plans    none: the trace has rigid groups, which a moved plan would break; every point "
                "was placed on its own\n");
    for (guint k = 0; k < r->plans->len && k < 8; k++) {
        const ReportRangePlan *p = &g_array_index(r->plans, ReportRangePlan, k);
        char *top = point_text(r, p->top, names), *count = sim_format_count(p->points),
             *arena = sim_format_bytes(p->arena_at_top);
        if (p->points == 1)
            fprintf(out, "%-14s the plan at %s, its structure's only point (%s)", k ? "" : "range plans", top, arena);
        else
            fprintf(out, "%-14s the plan at %s, moved to each of its structure's %s points and verified there "
                    "(%s at %s)", k ? "" : "range plans", top, count, arena, top);
        if (p->refused)
            fprintf(out, "; %" G_GSIZE_FORMAT " more where it would cross a pinned offset", p->refused);
        fputc('\n', out);
        g_free(top);
        g_free(count);
        g_free(arena);
    }
    if (r->plans->len > 8)
        fprintf(out, "               ... and %u more (--format json lists each)\n", r->plans->len - 8);
    if (r->alone)
        fprintf(out, "               %" G_GSIZE_FORMAT " points of structures past the first %d were placed on their "
                "own\n", r->alone, REPORT_RANGE_MAX_PLANS);
    if (r->one_plan) {
        char *top = point_text(r, r->one_plan_top, names), *count = sim_format_count(report_range_one_plan_points(r)),
             *apart = sim_format_count(r->one_plan_kept_apart), *last = point_text(r, r->points - 1, names),
             *arena = sim_format_bytes(r->one_plan_arena[r->points - 1]);
        fprintf(out, "one plan       the plan at %s, moved to every point: verified at %s of %s (%s of another structure, "
                "loaded with its buffers kept apart); %s at %s\n", top, count, points, apart,
                r->one_plan_arena[r->points - 1] ? arena : "none", last);
        g_free(top);
        g_free(count);
        g_free(apart);
        g_free(last);
        g_free(arena);
    }
    char *placed = sim_format_count(report_range_placed(r));
    fprintf(out, "placed         %s of %s points placed by %s on their own: the plans' tops, and where every plan "
            "moved there was above the bound\n", placed, points, r->strategy);
    g_free(placed);
    if (r->checked) {
        CheckCount c = check_count(r);
        char *equal = sim_format_count(c.equal), *smaller = sim_format_count(c.smaller),
             *larger = sim_format_count(c.larger), *differ = sim_format_count(r->mismatched);
        fprintf(out, "check          every point loaded and placed by %s alone: the same arena at %s of %s, the "
                "function smaller at %s, larger at %s; the trace planned differs from the one loaded at %s\n",
                r->strategy, equal, points, smaller, larger, differ);
        g_free(equal);
        g_free(smaller);
        g_free(larger);
        g_free(differ);
    }
    fprintf(out, "planning       %.3f s for %s point%s\n", r->seconds, points, r->points == 1 ? "" : "s");
    g_free(graph);
    g_free(fixed);
    g_free(ranges);
    g_free(points);
    g_strfreev(names);
}

/* A md table of ncols columns: the header, then rows of cells (row-major). */
static void md_rows(FILE *out, const char *const *header, guint ncols, const char *const *cells, gsize rows)
{
    for (gsize r = 0; r <= rows; r++) {
        for (guint c = 0; c < ncols; c++) {
            char *cell = escape_md_cell(r ? cells[(r - 1) * ncols + c] : header[c]);
            fprintf(out, "| %s ", cell);
            g_free(cell);
        }
        fputs("|\n", out);
        for (guint c = 0; r == 0 && c < ncols; c++)
            fputs(c + 1 == ncols ? "|---|\n" : "|---", out);
    }
}

/* ---- md: the head as a two-column table, then each function's pieces ---- */
void report_range_md(FILE *out, const ReportRange *r)
{
    char **names = dim_names(r, NULL); /* md_rows makes every cell safe (escape_md_cell) */
    char *ranges = ranges_text(r, names), *points = sim_format_count(r->points);
    char *placed = sim_format_count(report_range_placed(r)), *plans = g_strdup_printf("%u", r->plans->len);
    CheckCount c = check_count(r);
    char *check = r->checked ? g_strdup_printf("equal at %" G_GSIZE_FORMAT ", function smaller at %" G_GSIZE_FORMAT
                                               ", larger at %" G_GSIZE_FORMAT "; traces differ at %" G_GSIZE_FORMAT,
                                               c.equal, c.smaller, c.larger, r->mismatched)
                             : g_strdup("-");
    char *loaded = g_strdup_printf("%" G_GSIZE_FORMAT, r->loaded), *between = g_strdup_printf("%" G_GSIZE_FORMAT,
                                                                                             r->interpolated);
    char *seconds = g_strdup_printf("%.3f", r->seconds);
    char *one = r->one_plan ? g_strdup_printf("verified at %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " points (%"
                                              G_GSIZE_FORMAT " kept apart)", report_range_one_plan_points(r), r->points,
                                              r->one_plan_kept_apart)
                            : g_strdup("-");
    const char *head[] = {"graph", r->graph, "dims", r->fixed, "range", ranges, "points", points, "order", r->order,
                          "strategy", r->strategy, "aliasing", r->alias, "points loaded", loaded,
                          "points sized between", between, "range plans", plans, "one plan", one,
                          "placed on their own", placed, "check", check, "seconds", seconds};
    md_rows(out, (const char *const[]){"range of dims", ""}, 2, head, G_N_ELEMENTS(head) / 2);
    const Piecewise *fns[2] = {r->arena_fn, r->bound_fn};
    const char *what[2] = {"arena", "lower bound"};
    GPtrArray *cells = g_ptr_array_new_with_free_func(g_free);
    for (guint f = 0; f < 2; f++)
        for (guint k = 0; k < fns[f]->pieces->len; k++) {
            const PiecewisePiece *p = &g_array_index(fns[f]->pieces, PiecewisePiece, k);
            char *box = box_text(fns[f], k, names);
            if (p->modulus > 1 && !piecewise_classes_share(fns[f], k)) { /* a row a class */
                char **classes = piecewise_classes_text(fns[f], k, (const char *const *)names);
                for (char **cl = classes; cl[0]; cl += 2) {
                    g_ptr_array_add(cells, g_strdup(what[f]));
                    g_ptr_array_add(cells, g_strdup_printf("%s, %s ≡ %s (mod %" G_GINT64_FORMAT ")", box,
                                                           names[fns[f]->vars - 1], cl[0], p->step * (gint64)p->modulus));
                    g_ptr_array_add(cells, g_strdup_printf("%s B", cl[1]));
                }
                g_strfreev(classes);
                g_free(box);
                continue;
            }
            g_ptr_array_add(cells, g_strdup(what[f]));
            g_ptr_array_add(cells, box);
            char *formula = piecewise_text(fns[f], k, (const char *const *)names);
            g_ptr_array_add(cells, g_strdup_printf("%s B", formula));
            g_free(formula);
        }
    fputc('\n', out);
    md_rows(out, (const char *const[]){"function", "where", "bytes"}, 3, (const char *const *)cells->pdata,
            cells->len / 3);
    g_ptr_array_unref(cells);
    g_free(ranges);
    g_free(points);
    g_free(placed);
    g_free(plans);
    g_free(check);
    g_free(seconds);
    g_free(loaded);
    g_free(between);
    g_free(one);
    g_strfreev(names);
}

/* ---- csv: one row a point, ascending ---- */
void report_range_csv(FILE *out, const ReportRange *r)
{
    for (guint d = 0; d < r->ndims; d++) {
        char *name = csv_table_quote(r->dims[d].name);
        fprintf(out, "%s,", name);
        g_free(name);
    }
    fprintf(out, "arena_bytes,lower_bound_bytes,range_plan_arena_bytes,placed%s%s\n",
            r->checked ? ",checked_arena_bytes" : "", r->one_plan ? ",one_plan_arena_bytes" : "");
    for (gsize p = 0; p < r->points; p++) {
        gint64 x[PIECEWISE_MAX_VARS];
        report_range_point(r, p, x);
        for (guint d = 0; d < r->ndims; d++)
            fprintf(out, "%" G_GINT64_FORMAT ",", x[d]);
        fprintf(out, "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%d", r->arena[p],
                r->lower_bound[p], r->plan_arena[p], r->placed[p]);
        if (r->checked)
            fprintf(out, ",%" G_GUINT64_FORMAT, r->checked[p]);
        if (r->one_plan)
            fprintf(out, ",%" G_GUINT64_FORMAT, r->one_plan_arena[p]);
        fputc('\n', out);
    }
}

/* ---- json: one document ---- */
static void json_point(JsonBuilder *b, const ReportRange *r, const gint64 *x)
{
    json_builder_begin_object(b);
    for (guint d = 0; d < r->ndims; d++) {
        char *name = g_utf8_make_valid(r->dims[d].name, -1);
        json_builder_set_member_name(b, name);
        json_builder_add_int_value(b, x[d]);
        g_free(name);
    }
    json_builder_end_object(b);
}

/* "den" and "terms" of one polynomial. */
static void json_terms(JsonBuilder *b, const Piecewise *fn, const gint64 *num, gint64 den, char **names)
{
    json_builder_set_member_name(b, "den");
    json_builder_add_int_value(b, den);
    json_builder_set_member_name(b, "terms");
    json_builder_begin_array(b);
    for (guint e = 0; e < fn->terms; e++) {
        if (!num[e])
            continue;
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "coef");
        json_builder_add_int_value(b, num[e]);
        json_builder_set_member_name(b, "pow");
        json_builder_begin_object(b);
        for (guint d = 0; d < fn->vars; d++) {
            guint power = piecewise_power(e, d);
            if (!power)
                continue;
            char *name = g_utf8_make_valid(names[d], -1);
            json_builder_set_member_name(b, name);
            json_builder_add_int_value(b, power);
            g_free(name);
        }
        json_builder_end_object(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void json_function(JsonBuilder *b, const ReportRange *r, const char *member, const Piecewise *fn)
{
    char **names = dim_names(r, NULL);
    json_builder_set_member_name(b, member);
    json_builder_begin_array(b);
    for (guint k = 0; k < fn->pieces->len; k++) {
        const PiecewisePiece *p = &g_array_index(fn->pieces, PiecewisePiece, k);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "from");
        json_point(b, r, p->from);
        json_builder_set_member_name(b, "to");
        json_point(b, r, p->to);
        if (p->modulus > 1) { /* a quasi-polynomial: a formula per class of residues */
            json_builder_set_member_name(b, "cycle");
            json_builder_add_int_value(b, p->step * (gint64)p->modulus);
            json_builder_set_member_name(b, "classes");
            json_builder_begin_array(b);
            for (guint c = 0; c < p->modulus; c++) {
                if (piecewise_class_same(fn, k, c) != c)
                    continue;
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "residues"); /* ascending, as the text has them */
                json_builder_begin_array(b);
                GArray *residues = piecewise_class_residues(fn, k, c);
                for (guint i = 0; i < residues->len; i++)
                    json_builder_add_int_value(b, g_array_index(residues, gint64, i));
                g_array_unref(residues);
                json_builder_end_array(b);
                json_terms(b, fn, p->class_num + (gsize)c * fn->terms, p->class_den[c], names);
                json_builder_end_object(b);
            }
            json_builder_end_array(b);
        } else {
            json_terms(b, fn, p->num, p->den, names);
        }
        json_builder_set_member_name(b, "floor"); /* + coef · floor((var - origin) / period), over den */
        if (p->period) {
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "coef");
            json_builder_add_int_value(b, p->jump);
            json_builder_set_member_name(b, "var");
            json_add_text(b, names[fn->vars - 1]);
            json_builder_set_member_name(b, "origin");
            json_builder_add_int_value(b, p->origin);
            json_builder_set_member_name(b, "period");
            json_builder_add_int_value(b, p->period);
            json_builder_end_object(b);
        } else {
            json_builder_add_null_value(b);
        }
        char *formula = piecewise_text(fn, k, (const char *const *)names);
        json_builder_set_member_name(b, "text");
        json_add_text(b, formula);
        g_free(formula);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    g_strfreev(names);
}

void report_range_json(FILE *out, const ReportRange *r)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "graph");
    json_add_text(b, r->graph);
    json_builder_set_member_name(b, "dims");
    json_add_text(b, r->fixed);
    json_builder_set_member_name(b, "ranges");
    json_builder_begin_array(b);
    for (guint d = 0; d < r->ndims; d++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_add_text(b, r->dims[d].name);
        json_builder_set_member_name(b, "lo");
        json_builder_add_int_value(b, r->dims[d].lo);
        json_builder_set_member_name(b, "hi");
        json_builder_add_int_value(b, r->dims[d].hi);
        json_builder_set_member_name(b, "step");
        json_builder_add_int_value(b, r->dims[d].step);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    const char *texts[][2] = {{"order", r->order}, {"strategy", r->strategy}, {"alias", r->alias}};
    for (guint k = 0; k < G_N_ELEMENTS(texts); k++) {
        json_builder_set_member_name(b, texts[k][0]);
        json_add_text(b, texts[k][1]);
    }
    json_builder_set_member_name(b, "points");
    json_builder_add_int_value(b, (gint64)r->points);
    json_builder_set_member_name(b, "data_dependent_tensors");
    json_builder_add_int_value(b, r->bounded);
    json_function(b, r, "arena_by_dims", r->arena_fn);
    json_function(b, r, "lower_bound_by_dims", r->bound_fn);
    json_builder_set_member_name(b, "range_plans");
    json_builder_begin_array(b);
    for (guint k = 0; k < r->plans->len; k++) {
        const ReportRangePlan *p = &g_array_index(r->plans, ReportRangePlan, k);
        gint64 x[PIECEWISE_MAX_VARS];
        report_range_point(r, p->top, x);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "top");
        json_point(b, r, x);
        json_builder_set_member_name(b, "points");
        json_builder_add_int_value(b, (gint64)p->points);
        json_builder_set_member_name(b, "refused");
        json_builder_add_int_value(b, (gint64)p->refused);
        json_builder_set_member_name(b, "buffers");
        json_builder_add_int_value(b, p->buffers);
        json_builder_set_member_name(b, "edges");
        json_builder_add_int_value(b, (gint64)p->edges);
        json_builder_set_member_name(b, "arena_at_top");
        json_builder_add_int_value(b, (gint64)p->arena_at_top);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "loaded_points");
    json_builder_add_int_value(b, (gint64)r->loaded);
    json_builder_set_member_name(b, "interpolated_points");
    json_builder_add_int_value(b, (gint64)r->interpolated);
    json_builder_set_member_name(b, "placed_points");
    json_builder_add_int_value(b, (gint64)report_range_placed(r));
    json_builder_set_member_name(b, "alone_points");
    json_builder_add_int_value(b, (gint64)r->alone);
    json_builder_set_member_name(b, "grouped");
    json_builder_add_boolean_value(b, r->grouped);
    json_builder_set_member_name(b, "check");
    if (r->checked) {
        CheckCount c = check_count(r);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "equal");
        json_builder_add_int_value(b, (gint64)c.equal);
        json_builder_set_member_name(b, "function_smaller");
        json_builder_add_int_value(b, (gint64)c.smaller);
        json_builder_set_member_name(b, "function_larger");
        json_builder_add_int_value(b, (gint64)c.larger);
        json_builder_set_member_name(b, "traces_differ");
        json_builder_add_int_value(b, (gint64)r->mismatched);
        json_builder_end_object(b);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "one_plan");
    if (r->one_plan) {
        gint64 x[PIECEWISE_MAX_VARS];
        report_range_point(r, r->one_plan_top, x);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "top");
        json_point(b, r, x);
        json_builder_set_member_name(b, "points");
        json_builder_add_int_value(b, (gint64)report_range_one_plan_points(r));
        json_builder_set_member_name(b, "kept_apart");
        json_builder_add_int_value(b, (gint64)r->one_plan_kept_apart);
        json_builder_set_member_name(b, "arena_at_last_point");
        json_builder_add_int_value(b, (gint64)r->one_plan_arena[r->points - 1]);
        json_builder_end_object(b);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "seconds");
    json_builder_add_double_value(b, r->seconds);
    json_builder_end_object(b);
    json_document_print(out, b);
}
