/* trace-tiers.c — the tiers spec, its masks and its rules (trace-tiers.h). */
#include "trace/trace-tiers.h"
#include "base/error.h"
#include "base/units.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

gboolean trace_tiers_name_ok(const char *s)
{
    if (!*s || strlen(s) > TRACE_TIER_NAME_MAX)
        return FALSE;
    for (; *s; s++)
        if (!g_ascii_isalnum(*s) && *s != '_' && *s != '-' && *s != '.')
            return FALSE;
    return TRUE;
}

static gboolean cost_parse(const char *text, double *out)
{
    if (!*text || !(g_ascii_isdigit(*text) || *text == '.'))
        return FALSE;
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(text, &end);
    if (errno || *end || !(v >= 0) || v > 1e12)
        return FALSE;
    *out = v;
    return TRUE;
}

static gboolean bad(GError **error, const char *part, const char *why)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--tiers: '%s' %s", part, why);
    return FALSE;
}

GArray *trace_tiers_parse(const char *spec, GError **error)
{
    GArray *tiers = g_array_new(FALSE, TRUE, sizeof(TraceTier));
    char **parts = g_strsplit(spec ? spec : "", ",", -1);
    gboolean ok = TRUE;
    guint count = g_strv_length(parts);
    if (!count)
        ok = bad(error, spec ? spec : "", "names no tier (NAME[=CAPACITY][:READ[/WRITE]],...)");
    if (ok && count > TRACE_TIERS_MAX) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--tiers: %u tiers, at most %u", count, TRACE_TIERS_MAX);
        ok = FALSE;
    }
    for (guint k = 0; ok && parts[k]; k++) {
        TraceTier t = {.capacity = TRACE_TIER_UNBOUNDED, .read_cost = k, .write_cost = k};
        char *part = parts[k], *colon = strchr(part, ':'), *eq = strchr(part, '=');
        if (colon) {
            *colon = '\0';
            char *slash = strchr(colon + 1, '/');
            if (slash)
                *slash = '\0';
            if (!cost_parse(colon + 1, &t.read_cost) || (slash && !cost_parse(slash + 1, &t.write_cost))) {
                ok = bad(error, parts[k], "has a cost that is not a number from 0 to 1e12 (:READ or :READ/WRITE)");
                break;
            }
            if (!slash)
                t.write_cost = t.read_cost;
        }
        if (eq && (!colon || eq < colon)) {
            *eq = '\0';
            if (!sim_parse_bytes(eq + 1, &t.capacity) || !t.capacity || t.capacity == TRACE_TIER_UNBOUNDED) {
                ok = bad(error, eq + 1, "is not a capacity (bytes > 0: 262144, 256K, 256KiB, 1MiB)");
                break;
            }
        }
        if (!trace_tiers_name_ok(part)) {
            ok = bad(error, part, "is not a tier name (1 to 64 letters, digits, '_', '-', '.')");
            break;
        }
        if (trace_tiers_find(tiers, part) >= 0) {
            ok = bad(error, part, "names two tiers");
            break;
        }
        g_strlcpy(t.name, part, sizeof t.name);
        if (tiers->len) {
            const TraceTier *before = &g_array_index(tiers, TraceTier, tiers->len - 1);
            if (before->capacity == TRACE_TIER_UNBOUNDED) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--tiers: tier '%s' has no capacity but is not the "
                            "last: nothing would reach '%s'", before->name, t.name);
                ok = FALSE;
                break;
            }
            if (t.read_cost < before->read_cost || t.write_cost < before->write_cost) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--tiers: tier '%s' costs less than '%s' before it "
                            "(tiers go fastest first)", t.name, before->name);
                ok = FALSE;
                break;
            }
        }
        g_array_append_val(tiers, t);
    }
    g_strfreev(parts);
    if (!ok) {
        g_array_unref(tiers);
        return NULL;
    }
    return tiers;
}

char *trace_tiers_format(const GArray *tiers)
{
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < tiers->len; k++) {
        const TraceTier *t = trace_tier(tiers, k);
        char r[G_ASCII_DTOSTR_BUF_SIZE], w[G_ASCII_DTOSTR_BUF_SIZE];
        g_string_append_printf(s, "%s%s", k ? "," : "", t->name);
        if (t->capacity != TRACE_TIER_UNBOUNDED)
            g_string_append_printf(s, "=%" G_GUINT64_FORMAT, t->capacity);
        g_string_append_printf(s, ":%s/%s", g_ascii_dtostr(r, sizeof r, t->read_cost),
                               g_ascii_dtostr(w, sizeof w, t->write_cost));
    }
    return g_string_free(s, FALSE);
}

GArray *trace_tiers_copy(const GArray *tiers)
{
    GArray *c = g_array_sized_new(FALSE, TRUE, sizeof(TraceTier), tiers->len);
    g_array_append_vals(c, tiers->data, tiers->len);
    return c;
}

gint trace_tiers_find(const GArray *tiers, const char *name)
{
    for (guint k = 0; k < tiers->len; k++)
        if (!strcmp(trace_tier(tiers, k)->name, name))
            return (gint)k;
    return -1;
}

gboolean trace_tiers_mask_parse(const GArray *tiers, const char *text, guint32 *mask, GError **error)
{
    char **names = g_strsplit(text, "|", -1);
    *mask = 0;
    gboolean ok = names[0] != NULL;
    for (guint k = 0; ok && names[k]; k++) {
        gint at = trace_tiers_find(tiers, names[k]);
        if (at < 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "no tier '%s'", names[k]);
            ok = FALSE;
        } else {
            *mask |= 1u << at;
        }
    }
    if (!names[0])
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "names no tier");
    g_strfreev(names);
    return ok;
}

char *trace_tiers_mask_format(const GArray *tiers, guint32 mask)
{
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < tiers->len; k++)
        if (mask & (1u << k))
            g_string_append_printf(s, "%s%s", s->len ? "|" : "", trace_tier(tiers, k)->name);
    return g_string_free(s, FALSE);
}
