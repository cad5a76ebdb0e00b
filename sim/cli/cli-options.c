/* cli-options.c — single-valued options given once, numbers checked (see cli-options.h). */
#include "cli/cli-options.h"

#include <math.h>
#include <string.h>

typedef struct {
    const char *long_name;
    char short_name;
    GOptionArg arg;
    gpointer target;
    gboolean given;
} StrictOption;

struct CliStrict {
    GArray *options; /* StrictOption */
};

static StrictOption *find(CliStrict *s, const char *option_name)
{
    for (guint k = 0; k < s->options->len; k++) {
        StrictOption *o = &g_array_index(s->options, StrictOption, k);
        if ((g_str_has_prefix(option_name, "--") && !strcmp(option_name + 2, o->long_name)) ||
            (option_name[0] == '-' && option_name[1] == o->short_name && o->short_name && !option_name[2]))
            return o;
    }
    return NULL;
}

static gboolean store(const gchar *option_name, const gchar *value, gpointer data, GError **error)
{
    StrictOption *o = find(data, option_name);
    if (!o) { /* cannot happen: every callback here was registered from the table */
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "%s: unknown option", option_name);
        return FALSE;
    }
    if (o->given) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s is given twice: it takes one value",
                    o->long_name);
        return FALSE;
    }
    o->given = TRUE;
    if (o->arg == G_OPTION_ARG_INT64) {
        gint64 v;
        if (!g_ascii_string_to_signed(value, 10, G_MININT64, G_MAXINT64, &v, NULL)) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s takes a whole number, not '%s'",
                        o->long_name, value);
            return FALSE;
        }
        *(gint64 *)o->target = v;
    } else if (o->arg == G_OPTION_ARG_DOUBLE) {
        char *end = NULL;
        double v = g_ascii_strtod(value, &end);
        if (!*value || *end || !isfinite(v)) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s takes a finite number, not '%s'",
                        o->long_name, value);
            return FALSE;
        }
        *(double *)o->target = v;
    } else {
        *(char **)o->target = g_strdup(value);
    }
    return TRUE;
}

CliStrict *cli_strict_new(GOptionEntry *entries, GOptionGroup **main_group)
{
    CliStrict *s = g_new0(CliStrict, 1);
    s->options = g_array_new(FALSE, FALSE, sizeof(StrictOption));
    for (GOptionEntry *e = entries; e->long_name; e++) {
        if (e->arg != G_OPTION_ARG_STRING && e->arg != G_OPTION_ARG_FILENAME && e->arg != G_OPTION_ARG_INT64 &&
            e->arg != G_OPTION_ARG_DOUBLE)
            continue;
        StrictOption o = {.long_name = e->long_name, .short_name = e->short_name, .arg = e->arg, .target = e->arg_data};
        g_array_append_val(s->options, o);
        if (e->arg == G_OPTION_ARG_FILENAME)
            e->flags |= G_OPTION_FLAG_FILENAME;
        e->arg = G_OPTION_ARG_CALLBACK;
        e->arg_data = (gpointer)store;
    }
    *main_group = g_option_group_new(NULL, NULL, NULL, s, NULL);
    g_option_group_add_entries(*main_group, entries);
    return s;
}

gboolean cli_strict_given(const CliStrict *s, const char *long_name)
{
    for (guint k = 0; k < s->options->len; k++) {
        const StrictOption *o = &g_array_index(s->options, StrictOption, k);
        if (!strcmp(o->long_name, long_name))
            return o->given;
    }
    return FALSE;
}

void cli_strict_free(CliStrict *s)
{
    if (!s)
        return;
    g_array_unref(s->options);
    g_free(s);
}
