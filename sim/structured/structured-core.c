/* structured-core.c — a pool's capacity-free projection as a trace (structured-core.h). */
#include "structured/structured-core.h"

#include "base/error.h"

#include <stdlib.h>
#include <string.h>

static int i64_cmp(const void *a, const void *b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return x < y ? -1 : x > y;
}

static guint time_index(const gint64 *times, guint n, gint64 t)
{
    guint lo = 0, hi = n; /* the first index with times[index] >= t */
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (times[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

Trace *structured_core_trace(const StructuredProblem *p, const char *pool_name, GError **error)
{
    guint q = G_MAXUINT;
    for (guint k = 0; k < p->pools->len && q == G_MAXUINT; k++) {
        const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, k);
        char *id = g_strdup_printf("%u", pool->id);
        if (!strcmp(pool->name, pool_name) || !strcmp(id, pool_name))
            q = k;
        g_free(id);
    }
    if (q == G_MAXUINT) {
        GString *names = g_string_new(NULL);
        for (guint k = 0; k < p->pools->len; k++)
            g_string_append_printf(names, "%s%s", k ? ", " : "", g_array_index(p->pools, StructuredPool, k).name);
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: no pool is named '%s' (the pools: %s)", p->path, pool_name,
                    names->str);
        g_string_free(names, TRUE);
        return NULL;
    }
    if (p->colocations->len || p->exclusions->len) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: colocations and temporal exclusions have no sound "
                    "capacity-free projection",
                    p->path);
        return NULL;
    }
    GArray *times = g_array_new(FALSE, FALSE, sizeof(gint64));
    for (guint i = 0; i < p->buffers->len; i++) {
        const StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, i);
        gboolean here = FALSE;
        for (guint k = 0; k < b->pools->len; k++)
            here |= g_array_index(b->pools, guint, k) == q;
        if (here && b->pools->len > 1) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                        "%s: buffer %u may choose its pool: no sound "
                        "projection of one pool",
                        p->path, b->id);
            g_array_free(times, TRUE);
            return NULL;
        }
        for (guint k = 0; here && k < b->intervals->len; k++) {
            const StructuredInterval *v = &g_array_index(b->intervals, StructuredInterval, k);
            g_array_append_val(times, v->lower);
            g_array_append_val(times, v->upper);
        }
    }
    if (times->len > 1)
        qsort(times->data, times->len, sizeof(gint64), i64_cmp);
    guint n = 0;
    for (guint k = 0; k < times->len; k++)
        if (!n || g_array_index(times, gint64, n - 1) != g_array_index(times, gint64, k))
            g_array_index(times, gint64, n++) = g_array_index(times, gint64, k);
    char *source = g_strdup_printf("%s pool %s", p->path, g_array_index(p->pools, StructuredPool, q).name);
    Trace *t = trace_new(source);
    g_free(source);
    t->steps = n > 1 ? n - 1 : 1;
    for (guint i = 0; i < p->buffers->len; i++) {
        const StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, i);
        if (g_array_index(b->pools, guint, 0) != q)
            continue;
        for (guint k = 0; k < b->intervals->len; k++) {
            const StructuredInterval *v = &g_array_index(b->intervals, StructuredInterval, k);
            char *name = b->intervals->len == 1 ? g_strdup(b->name) : g_strdup_printf("%s@interval%u", b->name, k);
            guint first = time_index((gint64 *)times->data, n, v->lower);
            guint last = time_index((gint64 *)times->data, n, v->upper) - 1; /* half-open to inclusive steps */
            trace_add(t, name, b->size, 1, first, last);
            g_free(name);
        }
    }
    g_array_free(times, TRUE);
    if (!trace_count(t)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s: no buffer is in pool '%s'", p->path, pool_name);
        trace_free(t);
        return NULL;
    }
    return t;
}
