/* mkgraph-params.c — the families' parameter values, parsed (mkgraph.h): apart from the command's registry
 * (mkgraph.c), which names every family, so that no family calls back into the file that lists it. */
#include "graphs/mkgraph.h"
#include "base/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

GArray *mk_ints(const MkParams *p, const char *name, GError **error)
{
    const char *text = g_hash_table_lookup(p->values, name);
    g_assert(text); /* families only ask for params they declare */
    GArray *out = g_array_new(FALSE, FALSE, sizeof(gint64));
    char **parts = g_strsplit(text, ",", -1);
    for (char **part = parts; *part; part++) {
        char *end;
        errno = 0;
        long long v = strtoll(*part, &end, 10);
        if (!**part || *end || errno || v < 0) {
            if (error && !*error)
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--%s '%s' is not a non-negative integer%s", name,
                            text, strchr(text, ',') ? " list" : "");
            break;
        }
        g_array_append_val(out, v);
    }
    g_strfreev(parts);
    if (out->len == 0) {
        gint64 zero = 0;
        g_array_append_val(out, zero);
    }
    return out;
}

gint64 mk_int(const MkParams *p, const char *name, GError **error)
{
    GArray *v = mk_ints(p, name, error);
    gint64 first = g_array_index(v, gint64, 0);
    if (v->len != 1 && error && !*error)
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--%s takes one integer", name);
    g_array_unref(v);
    return first;
}
