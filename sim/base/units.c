/* units.c — number formatting for reports. */
#include "base/units.h"

#include <string.h>

char *sim_format_count(guint64 n)
{
    char digits[32];
    g_snprintf(digits, sizeof digits, "%" G_GUINT64_FORMAT, n);
    GString *s = g_string_new(NULL);
    gsize len = strlen(digits);
    for (gsize k = 0; k < len; k++) {
        if (k && (len - k) % 3 == 0)
            g_string_append_c(s, ',');
        g_string_append_c(s, digits[k]);
    }
    return g_string_free(s, FALSE);
}

char *sim_format_bytes(guint64 bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    char *count = sim_format_count(bytes);
    if (bytes < 1024) {
        char *s = g_strdup_printf("%s B", count);
        g_free(count);
        return s;
    }
    double v = (double)bytes / 1024;
    guint u = 0;
    while (v >= 1024 && u + 1 < G_N_ELEMENTS(units)) {
        v /= 1024;
        u++;
    }
    char *s = g_strdup_printf("%s B (%.1f %s)", count, v, units[u]);
    g_free(count);
    return s;
}

gboolean sim_parse_bytes(const char *text, guint64 *out)
{
    static const struct {
        const char *suffix;
        guint shift;
    } units[] = {{"", 0}, {"B", 0}, {"K", 10}, {"KiB", 10}, {"M", 20}, {"MiB", 20}, {"G", 30}, {"GiB", 30},
                 {"T", 40}, {"TiB", 40}};
    if (!text || !g_ascii_isdigit(*text))
        return FALSE;
    guint64 n = 0;
    const char *p = text;
    for (; g_ascii_isdigit(*p); p++) {
        guint d = (guint)(*p - '0');
        if (n > (G_MAXUINT64 - d) / 10)
            return FALSE;
        n = n * 10 + d;
    }
    for (guint k = 0; k < G_N_ELEMENTS(units); k++)
        if (!strcmp(p, units[k].suffix)) {
            if (units[k].shift && n > (G_MAXUINT64 >> units[k].shift))
                return FALSE;
            *out = n << units[k].shift;
            return TRUE;
        }
    return FALSE;
}
