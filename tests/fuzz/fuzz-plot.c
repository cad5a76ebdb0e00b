/* fuzz-plot.c — libFuzzer harness for the plot label path. The bytes are names (NUL-separated): buffer
 * names of a trace (drawn by --plot layout and timeline, one as the title), the dims of a range (--plot range), the
 * graph and strategy cells of a result table (drawn by --plot compare and sweep), and the output paths. The table is written with csv_table_quote and read back
 * by the CSV reader, which must return every cell as it was; every script the plots make is captured
 * (gnuplot_capture, no gnuplot runs) and must be inert (gnuplot-check.h). Either failure aborts. */
#include "report/csv-table.h"
#include "tests/fuzz/gnuplot-check.h"
#include "report/gnuplot.h"
#include "report/plot-table.h"
#include "plan/place.h"
#include "report/plot.h"
#include "report/plot-range.h"
#include "strategies/registry.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz-plot: %s: %s\n", what, detail);
    abort();
}

/* A table of the names, and `more` rows after them (graph and strategy made distinct from the names and
 * the row number): compare and sweep must intern them in near-linear time and refuse a table past what a
 * picture shows before anything is allocated for it. */
static void plot_table(const GPtrArray *names, guint more)
{
    GString *csv = g_string_new("graph,dims,order,alias,strategy,arena_bytes,lower_bound_bytes\n");
    for (guint k = 0; k < names->len + more; k++) {
        const char *name = names->pdata[k % names->len];
        char *g = k < names->len ? g_strdup(name) : g_strdup_printf("%s%u", name, k);
        char *graph = csv_table_quote(g), *strategy = csv_table_quote(names->pdata[(k + 1) % names->len]);
        g_string_append_printf(csv, "%s,n=%u,file,all,%s,%u,1000\n", graph, k + 1, strategy, 1000 + 100 * k);
        g_free(graph);
        g_free(strategy);
        g_free(g);
    }
    GError *error = NULL;
    CsvTable *t = csv_table_parse(csv->str, csv->len, &error);
    if (!t)
        fail("csv_table_quote wrote a table the reader refuses", error->message);
    for (guint k = 0; k < names->len; k++)
        if (strcmp(csv_table_cell(t, k, 0), names->pdata[k]))
            fail("a quoted cell read back differently", names->pdata[k]);
    TablePlotOptions compare = {.table_path = names->pdata[0], .y = "ratio"};
    TablePlotOptions sweep = {.table_path = names->pdata[0], .x = "n", .y = "arena_bytes", .title = names->pdata[0]};
    /* Either may refuse the table (two rows measuring the same thing): a clean error, nothing drawn. */
    if (!plot_compare("fuzz.svg", t, &compare, &error))
        g_clear_error(&error);
    if (!plot_sweep("fuzz.png", t, &sweep, &error))
        g_clear_error(&error);
    /* small multiples, a panel per graph (hostile names in panel titles, up to the panel limit) */
    if (!plot_table_facets("fuzz.svg", t, &compare, "graph", TRUE, &error))
        g_clear_error(&error);
    if (!plot_table_facets("fuzz.png", t, &sweep, "strategy", FALSE, &error))
        g_clear_error(&error);
    csv_table_free(t);
    g_string_free(csv, TRUE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (size_t start = 0, k = 0; k <= size && names->len < 8; k++)
        if (k == size || !data[k]) {
            g_ptr_array_add(names, g_strndup((const char *)data + start, MIN(k - start, 200)));
            start = k + 1;
        }
    GString *sink = g_string_new(NULL);
    gnuplot_capture(sink);
    Trace *t = trace_new(names->pdata[0]);
    for (guint k = 0; k < names->len; k++)
        trace_add(t, names->pdata[k], 4096u * (k + 1), 1, k, k + 2);
    GError *error = NULL;
    Plan *plan = place_run(registry_place_find("greedy-size"), t, &error);
    if (!plan)
        fail("planning a plain trace failed", error->message);
    char *svg = g_strconcat(names->pdata[names->len / 2], ".svg", NULL), *png = g_strconcat(svg, ".png", NULL);
    LayoutWindow window = {TRUE, 1, 3, 0, 6000}; /* and a part of it */
    if (!plot_layout(svg, names->pdata[0], t, plan, NULL, &error) || !plot_layout(svg, names->pdata[0], t, plan, &window, &error) ||
        !plot_timeline(png, names->pdata[names->len - 1], t, (const Plan *const *)&plan, 1, &error))
        fail("a plot of a plain trace failed", error->message);
    /* a range of two dims named by the names, drawn as --plot range draws it */
    ReportRange range = {.ndims = 2, .points = 6, .arena = (guint64[]){1, 2, 3, 4, 5, 6},
                         .lower_bound = (guint64[]){1, 2, 3, 4, 5, 6}, .checked = (guint64[]){1, 2, 3, 4, 5, 6}};
    range.dims[0] = (ReportRangeDim){names->pdata[0], 1, 2, 1};
    range.dims[1] = (ReportRangeDim){names->pdata[names->len - 1], 1, 3, 1};
    if (!plot_range(png, names->pdata[names->len / 2], &range, &error))
        fail("a plot of a range failed", error->message);
    g_free(svg);
    g_free(png);
    /* The first byte (when the input has one) also asks for up to 2,550 more rows (each bar a category: past
     * 10,000 bars with eight series, so the refusal is reached too). */
    plot_table(names, size ? 10u * data[0] : 0);
    char *problem = gnuplot_script_problem(sink->str, sink->len);
    if (problem)
        fail("a script is not inert", problem);
    gnuplot_capture(NULL);
    g_string_free(sink, TRUE);
    plan_free(plan);
    trace_free(t);
    g_ptr_array_unref(names);
    return 0;
}
