/* kv.c — a decoder's KV cache planned at its capacity (see kv.h). */
#include "memory/kv.h"
#include "ops/ops.h"

#include <string.h>

/* The Concat axis of n for output y, or -1. */
static int concat_axis(const Node *n, const Tensor *y)
{
    gint64 a;
    if (!node_attr_int(n, "axis", 0, &a, NULL) || a < -(gint64)y->rank || a >= y->rank)
        return -1;
    return (int)(a < 0 ? a + y->rank : a);
}

/* Why past and present are not a cache pair, or NULL when they are (*pair filled). */
static char *pair_obstacle(const Tensor *past, const Tensor *present, KvPair *pair)
{
    if (!past->is_graph_input || past->init)
        return g_strdup_printf("'%s' is not a graph input", past->name);
    if (!present->is_graph_output)
        return g_strdup_printf("'%s' is not a graph output", present->name);
    const Node *n = present->producer;
    if (!n || !n->op || n->op->runtime != RUNTIME_CONCAT || n->inputs->len != 2 || node_input(n, 0) != past)
        return g_strdup_printf("'%s' is not made by a Concat whose first input is '%s'", present->name, past->name);
    const Tensor *slice = node_input(n, 1);
    if (!slice || slice == past || slice->is_graph_input || slice->init)
        return g_strdup_printf("the new slice of '%s' is not computed by the graph", present->name);
    if (!present->shape_known || !past->shape_known || past->rank != present->rank || past->dtype != present->dtype)
        return g_strdup_printf("'%s' and '%s' have no known shapes of one rank and type", past->name, present->name);
    int axis = concat_axis(n, present);
    if (axis < 0)
        return g_strdup_printf("the Concat making '%s' has no valid axis", present->name);
    *pair = (KvPair){past, present, n, axis};
    return NULL;
}

/* The text '*' stands for when name matches pattern (one '*' at most, or none: the whole name), or NULL. */
static char *star_match(const char *pattern, const char *name)
{
    const char *star = strchr(pattern, '*');
    if (!star)
        return strcmp(pattern, name) ? NULL : g_strdup("");
    gsize head = (gsize)(star - pattern), tail = strlen(star + 1), len = strlen(name);
    if (len < head + tail || strncmp(name, pattern, head) || strcmp(name + len - tail, star + 1))
        return NULL;
    return g_strndup(name + head, len - head - tail);
}

static guint stars(const char *s)
{
    guint n = 0;
    for (; *s; s++)
        n += *s == '*';
    return n;
}

static gboolean pattern_pairs(const Graph *g, const char *spec, GArray *pairs, GError **error)
{
    const char *eq = strchr(spec, '=');
    char *past = eq ? g_strndup(spec, (gsize)(eq - spec)) : NULL;
    const char *present = eq ? eq + 1 : NULL;
    gboolean ok = past && *past && *present && !strchr(present, '=') && stars(past) <= 1 &&
                  stars(past) == stars(present);
    if (!ok) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv takes PAST=PRESENT, each with one '*' or none, both alike "
                    "(\"past_key_values.*=present.*\"), not '%s'", spec);
        g_free(past);
        return FALSE;
    }
    guint found = 0;
    for (guint k = 0; ok && k < g->inputs->len; k++) {
        const Tensor *in = g->inputs->pdata[k];
        char *star = in->init ? NULL : star_match(past, in->name);
        if (!star)
            continue;
        const char *at = strchr(present, '*');
        char *name = at ? g_strdup_printf("%.*s%s%s", (int)(at - present), present, star, at + 1) : g_strdup(present);
        const Tensor *out = graph_tensor((Graph *)g, name);
        KvPair pair;
        char *why = out ? pair_obstacle(in, out, &pair) : g_strdup_printf("the graph has no tensor '%s'", name);
        if (why) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv %s: '%s' and '%s' are not a cache pair: %s", spec,
                        in->name, name, why);
            ok = FALSE;
        } else {
            g_array_append_val(pairs, pair);
            found++;
        }
        g_free(why);
        g_free(name);
        g_free(star);
    }
    if (ok && !found) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv %s matches no graph input", spec);
        ok = FALSE;
    }
    g_free(past);
    return ok;
}

gboolean kv_pairs_find(const Graph *g, const KvRequest *r, GArray *pairs, GError **error)
{
    if (r->patterns) {
        for (const char *const *p = r->patterns; *p; p++)
            if (!pattern_pairs(g, *p, pairs, error))
                return FALSE;
    } else {
        for (guint k = 0; k < g->inputs->len; k++) {
            const Tensor *in = g->inputs->pdata[k];
            for (guint c = 0; !in->init && c < in->consumers->len; c++) {
                const Node *n = in->consumers->pdata[c];
                KvPair pair;
                char *why = node_output(n, 0) ? pair_obstacle(in, node_output(n, 0), &pair) : g_strdup("");
                if (!why)
                    g_array_append_val(pairs, pair);
                g_free(why);
            }
        }
    }
    /* A tensor in two pairs would be two caches in one buffer. */
    GHashTable *seen = g_hash_table_new(NULL, NULL);
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < pairs->len; k++) {
        const KvPair *p = &g_array_index(pairs, KvPair, k);
        if (!g_hash_table_add(seen, (gpointer)p->past) || !g_hash_table_add(seen, (gpointer)p->present)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv names '%s' and '%s' in more than one pair",
                        p->past->name, p->present->name);
            ok = FALSE;
        }
    }
    g_hash_table_unref(seen);
    return ok;
}

/* The present's bytes with `capacity` along the axis (the layout's padding of the last dim kept). */
static gboolean capacity_bytes(const AliasMap *m, const KvPair *p, guint64 capacity, guint64 *out)
{
    Tensor t = *p->present;
    gint64 dims[t.rank > 0 ? t.rank : 1];
    memcpy(dims, t.dims, (gsize)t.rank * sizeof(gint64));
    dims[p->axis] = (gint64)capacity;
    t.dims = dims;
    return liveness_physical_bytes(&t, m->layout.pad_last, out);
}

gboolean kv_apply(AliasMap *m, const KvRequest *r, GError **error)
{
    if (!r || !r->capacity)
        return TRUE;
    if (m->layout.inputs_outside || m->layout.outputs_outside) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv-capacity plans the cache in the arena: it cannot be "
                    "used with --io outside or inputs-outside");
        return FALSE;
    }
    if (r->capacity > G_MAXINT64) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv-capacity %" G_GUINT64_FORMAT " is too large",
                    r->capacity);
        return FALSE;
    }
    GArray *pairs = g_array_new(FALSE, FALSE, sizeof(KvPair));
    gboolean ok = kv_pairs_find(m->g, r, pairs, error);
    if (ok && !pairs->len) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv-capacity: the graph has no KV cache pair (a Concat of a "
                    "graph input with a new slice, making a graph output); name them with --kv PAST=PRESENT");
        ok = FALSE;
    }
    for (guint k = 0; ok && k < pairs->len; k++) {
        const KvPair *p = &g_array_index(pairs, KvPair, k);
        gint64 tokens = p->present->dims[p->axis];
        guint64 bytes;
        if ((guint64)tokens > r->capacity) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv-capacity %" G_GUINT64_FORMAT " holds fewer tokens "
                        "than '%s' has (%" G_GINT64_FORMAT " along axis %d)", r->capacity, p->present->name, tokens,
                        p->axis);
            ok = FALSE;
        } else if (!capacity_bytes(m, p, r->capacity, &bytes)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv-capacity %" G_GUINT64_FORMAT ": the cache '%s' "
                        "would overflow 64 bits", r->capacity, p->present->name);
            ok = FALSE;
        } else if (bytes && m->bytes[p->present->id]) { /* before any alias strategy: present roots nothing yet */
            if (!m->reserve)
                m->reserve = g_new0(guint64, m->g->tensors->len + 1);
            m->reserve[p->present->id] = bytes;
            m->kv_bytes += bytes;
            m->kv_pairs++;
            if (m->bytes[p->past->id] && !alias_link(m, p->past->id, p->present->id, 0, SHARE_KV)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--kv-capacity: '%s' cannot lie in the cache '%s' "
                            "(another memory bin, or kept apart)", p->past->name, p->present->name);
                ok = FALSE;
            } else {
                alias_note_shared(m, p->concat, SHARE_KV);
                m->decided[p->concat->index] = TRUE;
            }
        }
    }
    m->kv_capacity = r->capacity;
    g_array_unref(pairs);
    return ok;
}
