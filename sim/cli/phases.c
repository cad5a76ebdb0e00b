/* phases.c — per-phase wall time and peak resident set (see phases.h). */
#include "cli/phases.h"
#include "base/files.h"

#include <string.h>
#include <sys/resource.h>

typedef struct {
    const char *name;
    double seconds;
    long peak_kib;
} Phase;

static GArray *phases;
static gint64 last_mark;

void phases_mark(const char *name)
{
    gint64 now = g_get_monotonic_time();
    if (!phases) {
        phases = g_array_new(FALSE, FALSE, sizeof(Phase));
        last_mark = now; /* the first mark is measured from the first call's start: see main */
    }
    struct rusage usage;
    long peak = getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : 0; /* KiB on Linux */
    Phase *found = NULL;
    for (guint k = 0; k < phases->len && !found; k++)
        if (!strcmp(g_array_index(phases, Phase, k).name, name))
            found = &g_array_index(phases, Phase, k);
    if (!found) {
        Phase p = {name, 0, 0};
        g_array_append_val(phases, p);
        found = &g_array_index(phases, Phase, phases->len - 1);
    }
    found->seconds += (double)(now - last_mark) / 1e6;
    found->peak_kib = MAX(found->peak_kib, peak);
    last_mark = now;
}

gboolean phases_write(const char *path, GError **error)
{
    GString *s = g_string_new("phase,seconds,peak_rss_kib\n");
    for (guint k = 0; phases && k < phases->len; k++) {
        const Phase *p = &g_array_index(phases, Phase, k);
        g_string_append_printf(s, "%s,%.6f,%ld\n", p->name, p->seconds, p->peak_kib);
    }
    gboolean ok = sim_write_file(path, s->str, s->len, error);
    g_string_free(s, TRUE);
    return ok;
}
