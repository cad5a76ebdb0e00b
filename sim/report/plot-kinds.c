/* plot-kinds.c — the kinds of picture, one row each (plot-kinds.h). */
#include "report/plot-kinds.h"

#include <string.h>

static gboolean draw_timeline(const char *path, const char *title, const Trace *t, const Plan *const *plans, guint count,
                              const LayoutWindow *window, GError **error)
{
    (void)window;
    return plot_timeline(path, title, t, plans, count, error);
}

static gboolean draw_layout(const char *path, const char *title, const Trace *t, const Plan *const *plans, guint count,
                            const LayoutWindow *window, GError **error)
{
    (void)count;
    return plot_layout(path, title, t, plans[0], window, error);
}

static const PlotKindRow kinds[] = {
    {.name = "timeline", .draw_plans = draw_timeline},
    {.name = "layout", .one_plan = TRUE, .draw_plans = draw_layout},
    {.name = "compare", .default_y = "ratio", .bars = TRUE, .draw_table = plot_compare},
    {.name = "sweep", .needs = "--x NAME: a column or a --dim name of the table", .default_y = "arena_bytes",
     .draw_table = plot_sweep},
    {.name = "range", .draw_range = plot_range},
};

const PlotKindRow *plot_kind_find(const char *name)
{
    for (guint k = 0; name && k < G_N_ELEMENTS(kinds); k++)
        if (!strcmp(name, kinds[k].name))
            return &kinds[k];
    return NULL;
}

char *plot_kind_names(gboolean (*keep)(const PlotKindRow *k), const char *prefix, const char *last)
{
    GPtrArray *kept = g_ptr_array_new();
    for (guint k = 0; k < G_N_ELEMENTS(kinds); k++)
        if (!keep || keep(&kinds[k]))
            g_ptr_array_add(kept, (gpointer)kinds[k].name);
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < kept->len; k++)
        g_string_append_printf(s, "%s%s%s", k == 0 ? "" : k + 1 == kept->len ? last : ", ", prefix,
                               (const char *)kept->pdata[k]);
    g_ptr_array_unref(kept);
    return g_string_free(s, FALSE);
}
