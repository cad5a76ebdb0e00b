/* bins.c — the bins file parser and tensor-to-bin assignment (see bins.h). */
#include "memory/bins.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    guint bin;
    GPatternSpec *pattern; /* name rule, or NULL */
    guint64 min_bytes;     /* size rule (pattern NULL) */
} BinRule;

struct BinRules {
    GArray *rules; /* BinRule */
};

static void rule_clear(gpointer p)
{
    BinRule *r = p;
    if (r->pattern)
        g_pattern_spec_free(r->pattern);
}

void bins_free(BinRules *r)
{
    if (!r)
        return;
    g_array_unref(r->rules);
    g_free(r);
}

static gboolean parse_u64(const char *s, guint64 *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return FALSE;
    unsigned long long v = strtoull(s, &end, 10);
    *out = v;
    return !*end && !errno;
}

BinRules *bins_parse(const char *text, gsize len, const char *path, GError **error)
{
    BinRules *r = g_new0(BinRules, 1);
    r->rules = g_array_new(FALSE, FALSE, sizeof(BinRule));
    g_array_set_clear_func(r->rules, rule_clear);
    char *copy = g_strndup(text, len);
    char **lines = g_strsplit(copy, "\n", -1);
    gboolean ok = TRUE;
    if (memchr(text, '\0', len)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s:1: the file holds NUL bytes: not a bins file", path);
        ok = FALSE;
    }
    for (guint k = 0; ok && lines[k]; k++) {
        char *line = g_strstrip(lines[k]);
        if (!*line || *line == '#')
            continue;
        if (!g_utf8_validate(line, -1, NULL)) { /* GLib's globs work on UTF-8 only */
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s:%u: the line is not valid UTF-8", path, k + 1);
            ok = FALSE;
            break;
        }
        char **f = g_strsplit_set(line, " \t", -1);
        guint nf = 0;
        for (guint j = 0; f[j]; j++)
            if (*f[j])
                f[nf++] = f[j];
            else
                g_free(f[j]);
        f[nf] = NULL;
        guint64 bin, bytes;
        BinRule rule = {0};
        if (nf != 2 || !parse_u64(f[0], &bin) || bin >= 1024) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s:%u: expected 'BIN RULE' with BIN a number below 1024", path,
                        k + 1);
            ok = FALSE;
        } else if (g_str_has_prefix(f[1], "name=") && f[1][5]) {
            rule = (BinRule){(guint)bin, g_pattern_spec_new(f[1] + 5), 0};
            g_array_append_val(r->rules, rule);
        } else if (g_str_has_prefix(f[1], "size>=") && parse_u64(f[1] + 6, &bytes)) {
            rule = (BinRule){(guint)bin, NULL, bytes};
            g_array_append_val(r->rules, rule);
        } else {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s:%u: rule '%s' is neither name=GLOB nor size>=BYTES", path,
                        k + 1, f[1]);
            ok = FALSE;
        }
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(copy);
    if (!ok) {
        bins_free(r);
        return NULL;
    }
    return r;
}

BinRules *bins_read_file(const char *path, GError **error)
{
    gchar *text;
    gsize len;
    if (!sim_read_file(path, SIM_TEXT_MAX_BYTES, &text, &len, error)) {
        g_prefix_error(error, "%s: ", path);
        return NULL;
    }
    BinRules *r = bins_parse(text, len, path, error);
    g_free(text);
    return r;
}

guint *bins_assign(const BinRules *r, const Graph *g, const guint64 *bytes)
{
    guint *bins = g_new0(guint, g->tensors->len + 1);
    for (guint k = 0; k < g->tensors->len; k++) {
        const Tensor *t = g->tensors->pdata[k];
        gboolean utf8 = g_utf8_validate(t->name, -1, NULL); /* a name rule cannot match a name that is not */
        for (guint j = 0; j < r->rules->len; j++) {
            const BinRule *rule = &g_array_index(r->rules, BinRule, j);
            if (rule->pattern ? utf8 && g_pattern_spec_match_string(rule->pattern, t->name) : bytes[k] >= rule->min_bytes) {
                bins[k] = rule->bin;
                break;
            }
        }
    }
    return bins;
}
