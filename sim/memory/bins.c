/* bins.c — the bins file parser and tensor-to-bin assignment (see bins.h). */
#include "memory/bins.h"
#include "trace/trace-tiers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    guint bin;
    GPatternSpec *pattern; /* name rule, or NULL */
    guint64 min_bytes;     /* size rule (pattern NULL) */
} BinRule;

struct BinRules {
    GArray *rules;    /* BinRule */
    GPtrArray *names; /* a file that names tiers: bin k + 1 is names[k] (bins_tier_name); else empty */
    gboolean numbered;
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
    g_ptr_array_unref(r->names);
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

/* A tier's name as --tiers spells one (trace-tiers.h), starting with a letter: never a bin's number. */
static gboolean bin_name_ok(const char *s)
{
    return g_ascii_isalpha(*s) && trace_tiers_name_ok(s);
}

const char *bins_tier_name(const BinRules *r, guint bin)
{
    return bin && bin <= r->names->len ? r->names->pdata[bin - 1] : NULL;
}

gboolean bins_name_tiers(const BinRules *r)
{
    return r->names->len > 0;
}

BinRules *bins_parse(const char *text, gsize len, const char *path, GError **error)
{
    BinRules *r = g_new0(BinRules, 1);
    r->rules = g_array_new(FALSE, FALSE, sizeof(BinRule));
    r->names = g_ptr_array_new_with_free_func(g_free);
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
        gboolean named = nf == 2 && bin_name_ok(f[0]);
        if (named) { /* a tier's name (--tiers): its bin is its place among the names, from 1 */
            guint at = 0;
            while (at < r->names->len && strcmp(r->names->pdata[at], f[0]))
                at++;
            if (at == r->names->len)
                g_ptr_array_add(r->names, g_strdup(f[0]));
            bin = at + 1;
        }
        if (nf != 2 || (!named && (!parse_u64(f[0], &bin) || bin >= 1024))) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s:%u: expected 'BIN RULE' with BIN a number below 1024 "
                        "or a tier's name", path, k + 1);
            ok = FALSE;
        } else if ((r->numbered |= !named) && r->names->len) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s:%u: bins go by number or by tier name, not both in "
                        "one file", path, k + 1);
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
