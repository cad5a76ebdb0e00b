/* report-structured.c — a structured problem's report (report-structured.h). */
#include "report/report-structured.h"

#include "base/escape.h"
#include "base/units.h"

static const char *status_of(const ReportStructured *r)
{
    if (r->solution)
        return "checked";
    return r->proven ? "optimal" : r->cut ? "budget ended" : "heuristic";
}

/* One report's columns: names (static), values (allocated, appended to `values`) and whether each is a number. */
static void columns(const ReportStructured *r, GPtrArray *names, GPtrArray *values, GArray *numbers)
{
    const StructuredProblem *p = r->problem;
    const StructuredObjective *o = r->objective;
    guint64 bound_total = 0;
    for (guint q = 0; q < p->pools->len; q++)
        bound_total += r->bound[q];
#define COL(name, number, ...)                                                                                         \
    do {                                                                                                               \
        gboolean is = (number);                                                                                        \
        if (names)                                                                                                     \
            g_ptr_array_add(names, (gpointer)(name));                                                                  \
        g_ptr_array_add(values, g_strdup_printf(__VA_ARGS__));                                                         \
        if (numbers)                                                                                                   \
            g_array_append_val(numbers, is);                                                                           \
    } while (0)
    COL("file", FALSE, "%s", p->path);
    COL("instance", FALSE, "%s", p->instance);
    COL("profile", FALSE, "%s", p->profile);
    COL("strategy", FALSE, "%s", r->solution ? "solution" : r->strategy);
    COL("buffers", TRUE, "%u", p->buffers->len);
    COL("pools", TRUE, "%u", p->pools->len);
    COL("penalties", TRUE, "%u", p->penalties->len);
    COL("separations", TRUE, "%u", p->separations->len);
    for (guint t = 0; t < STRUCTURED_TERMS; t++)
        COL(structured_term_name((StructuredTerm)t), TRUE, "%" G_GUINT64_FORMAT, o->value[t]);
    COL("peak_bound", TRUE, "%" G_GUINT64_FORMAT, bound_total);
    COL("fits", FALSE, "%s", o->value[STRUCTURED_OVERFLOW] == 0 ? "yes" : "no");
    COL("status", FALSE, "%s", status_of(r));
    COL("work", TRUE, "%" G_GUINT64_FORMAT, r->work);
    COL("fingerprint", FALSE, "%s", p->fingerprint);
#undef COL
}

void report_structured_compare(FILE *out, ReportFormat f, const ReportStructured *rows, guint n)
{
    if (f->prose && n) { /* for people: the problem once, then a line per strategy, its terms in the problem's order */
        const StructuredProblem *p = rows[0].problem;
        char *file = escape_terminal(p->path), *instance = escape_terminal(p->instance);
        fprintf(out, "problem    %s (instance %s, profile %s)\n\n%-12s", file, instance, p->profile, "strategy");
        for (guint t = 0; t < p->n_terms; t++)
            fprintf(out, " %18s", structured_term_name(p->terms[t]));
        fprintf(out, " %5s %14s %12s\n", "fits", "status", "work");
        for (guint k = 0; k < n; k++) {
            fprintf(out, "%-12s", rows[k].strategy);
            for (guint t = 0; t < p->n_terms; t++)
                fprintf(out, " %18" G_GUINT64_FORMAT, rows[k].objective->value[p->terms[t]]);
            fprintf(out, " %5s %14s %12" G_GUINT64_FORMAT "\n",
                    rows[k].objective->value[STRUCTURED_OVERFLOW] ? "no" : "yes", status_of(&rows[k]), rows[k].work);
        }
        g_free(file);
        g_free(instance);
        return;
    }
    GPtrArray *names = g_ptr_array_new(), *values = g_ptr_array_new_with_free_func(g_free);
    GArray *numbers = g_array_new(FALSE, FALSE, sizeof(gboolean));
    for (guint k = 0; k < n; k++)
        columns(&rows[k], k ? NULL : names, values, k ? NULL : numbers);
    report_print_table(out, f, (const char *const *)names->pdata, (const gboolean *)numbers->data, names->len,
                       (const char *const *)values->pdata, n);
    g_ptr_array_free(names, TRUE);
    g_ptr_array_free(values, TRUE);
    g_array_free(numbers, TRUE);
}

void report_structured_print(FILE *out, ReportFormat f, const ReportStructured *r)
{
    const StructuredProblem *p = r->problem;
    const StructuredObjective *o = r->objective;
    gboolean fits = o->value[STRUCTURED_OVERFLOW] == 0;
    if (!f->prose) {
        GPtrArray *names = g_ptr_array_new(), *values = g_ptr_array_new_with_free_func(g_free);
        GArray *numbers = g_array_new(FALSE, FALSE, sizeof(gboolean));
        columns(r, names, values, numbers);
        report_print_row(out, f, (const char *const *)names->pdata, (const char *const *)values->pdata,
                         (const gboolean *)numbers->data, names->len);
        g_ptr_array_free(names, TRUE);
        g_ptr_array_free(values, TRUE);
        g_array_free(numbers, TRUE);
        return;
    }
    char *file = escape_terminal(p->path), *instance = escape_terminal(p->instance);
    fprintf(out, "problem    %s (instance %s, profile %s)\n", file, instance, p->profile);
    fprintf(out,
            "buffers    %u in %u pool%s; %u colocations, %u separations, %u temporal exclusions, %u pins, "
            "%u reuse penalties\n",
            p->buffers->len, p->pools->len, p->pools->len == 1 ? "" : "s", p->colocations->len, p->separations->len,
            p->exclusions->len, p->pins->len, p->penalties->len);
    if (r->solution) {
        char *sol = escape_terminal(r->solution);
        fprintf(out, "solution   %s: its fingerprint is the problem's (%s)\n", sol, p->fingerprint);
        g_free(sol);
    } else {
        fprintf(out, "strategy   %s, work %" G_GUINT64_FORMAT ": %s\n", r->strategy, r->work,
                r->proven ? "optimal, proven (the search closed)"
                : r->cut  ? "the best found when the work budget ended (not proven)"
                          : "heuristic (not proven)");
    }
    fprintf(out, "objective ");
    for (guint t = 0; t < p->n_terms; t++)
        fprintf(out, " %s %" G_GUINT64_FORMAT "%s", structured_term_name(p->terms[t]), o->value[p->terms[t]],
                t + 1 < p->n_terms ? "," : "\n");
    fprintf(out, "fits       %s\n",
            fits ? "yes: every pool within its capacity"
                 : "no: some pool is over its capacity (capacity_overflow > 0)");
    fprintf(out, "valid      yes: the validator checked every rule\n\n");
    fprintf(out, "%-12s %14s %14s %14s\n", "pool", "capacity", "peak", "lower bound");
    for (guint q = 0; q < p->pools->len; q++) {
        const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, q);
        char *name = escape_terminal(pool->name), cap[32];
        if (pool->bounded)
            g_snprintf(cap, sizeof cap, "%" G_GUINT64_FORMAT, pool->capacity);
        else
            g_strlcpy(cap, "none", sizeof cap);
        fprintf(out, "%-12s %14s %14" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT "\n", name, cap, o->pool_peak[q],
                r->bound[q]);
        g_free(name);
    }
    g_free(file);
    g_free(instance);
}
