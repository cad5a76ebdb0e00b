/* structured.c — the structured problem in memory: lifetimes, pairs, colocation classes, objective vectors. */
#include "structured/structured.h"

#include <stdlib.h>
#include <string.h>

StructuredProblem *structured_new(const char *path)
{
    StructuredProblem *p = g_new0(StructuredProblem, 1);
    p->path = g_strdup(path ? path : "");
    p->pools = g_array_new(FALSE, TRUE, sizeof(StructuredPool));
    p->buffers = g_array_new(FALSE, TRUE, sizeof(StructuredBuffer));
    p->colocations = g_array_new(FALSE, TRUE, sizeof(StructuredPair));
    p->separations = g_array_new(FALSE, TRUE, sizeof(StructuredPair));
    p->exclusions = g_array_new(FALSE, TRUE, sizeof(StructuredPair));
    p->penalties = g_array_new(FALSE, TRUE, sizeof(StructuredPair));
    p->pins = g_array_new(FALSE, TRUE, sizeof(StructuredPin));
    return p;
}

void structured_free(StructuredProblem *p)
{
    if (!p)
        return;
    for (guint i = 0; i < p->pools->len; i++) {
        StructuredPool *pool = &g_array_index(p->pools, StructuredPool, i);
        g_free(pool->name);
        if (pool->reserved)
            g_array_free(pool->reserved, TRUE);
    }
    for (guint i = 0; i < p->buffers->len; i++) {
        StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, i);
        g_free(b->name);
        if (b->intervals)
            g_array_free(b->intervals, TRUE);
        if (b->pools)
            g_array_free(b->pools, TRUE);
    }
    GArray *arrays[] = {p->pools, p->buffers, p->colocations, p->separations, p->exclusions, p->penalties, p->pins};
    for (guint i = 0; i < G_N_ELEMENTS(arrays); i++)
        g_array_free(arrays[i], TRUE);
    g_free(p->path);
    g_free(p->profile);
    g_free(p->instance);
    g_free(p);
}

const char *structured_term_name(StructuredTerm term)
{
    static const char *const names[STRUCTURED_TERMS] = {"capacity_overflow", "total_peak", "max_peak", "reuse_cost"};
    return term < STRUCTURED_TERMS ? names[term] : "?";
}

void structured_objective_vector(const StructuredProblem *p, const StructuredObjective *o, guint64 *vector)
{
    for (guint i = 0; i < p->n_terms; i++)
        vector[i] = o->value[p->terms[i]];
}

int structured_compare(const StructuredProblem *p, const guint64 *a, const guint64 *b)
{
    for (guint i = 0; i < p->n_terms; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

void structured_objective_clear(StructuredObjective *o)
{
    g_free(o->pool_peak);
    memset(o, 0, sizeof *o);
}

gboolean structured_lifetimes_overlap(const StructuredBuffer *a, const StructuredBuffer *b)
{
    /* both lists sorted and disjoint: one merge pass */
    guint i = 0, j = 0;
    while (i < a->intervals->len && j < b->intervals->len) {
        const StructuredInterval *x = &g_array_index(a->intervals, StructuredInterval, i);
        const StructuredInterval *y = &g_array_index(b->intervals, StructuredInterval, j);
        if (x->lower < y->upper && y->lower < x->upper)
            return TRUE;
        if (x->upper <= y->upper)
            i++;
        else
            j++;
    }
    return FALSE;
}

typedef struct {
    gint64 at;
    guint buffer;
    gboolean start;
} SweepEvent;

static int sweep_cmp(gconstpointer a, gconstpointer b)
{
    const SweepEvent *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->start != y->start) /* half-open: an end at t comes before a start at t */
        return x->start ? 1 : -1;
    return x->buffer < y->buffer ? -1 : x->buffer > y->buffer;
}

static int u64_cmp(const void *a, const void *b)
{
    guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
    return x < y ? -1 : x > y;
}

static guint64 pair_key(guint a, guint b)
{
    return a < b ? ((guint64)a << 32) | b : ((guint64)b << 32) | a;
}

gboolean structured_overlapping_pairs(const StructuredProblem *p, GArray *pairs, guint64 limit)
{
    GArray *events = g_array_new(FALSE, FALSE, sizeof(SweepEvent));
    for (guint i = 0; i < p->buffers->len; i++) {
        const StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, i);
        for (guint k = 0; k < b->intervals->len; k++) {
            const StructuredInterval *v = &g_array_index(b->intervals, StructuredInterval, k);
            SweepEvent s = {v->lower, i, TRUE}, e = {v->upper, i, FALSE};
            g_array_append_val(events, s);
            g_array_append_val(events, e);
        }
    }
    g_array_sort(events, sweep_cmp);
    /* live buffers as an unordered list with positions, so a removal is O(1) */
    guint n = p->buffers->len;
    guint *live = g_new(guint, n ? n : 1), *where = g_new(guint, n ? n : 1), count = 0;
    GArray *keys = g_array_new(FALSE, FALSE, sizeof(guint64));
    gboolean ok = TRUE;
    for (guint e = 0; e < events->len && ok; e++) {
        const SweepEvent *ev = &g_array_index(events, SweepEvent, e);
        if (!ev->start) {
            guint at = where[ev->buffer];
            live[at] = live[--count];
            where[live[at]] = at;
            continue;
        }
        for (guint k = 0; k < count; k++) {
            guint64 key = pair_key(ev->buffer, live[k]);
            g_array_append_val(keys, key);
            if (keys->len > limit) {
                ok = FALSE;
                break;
            }
        }
        where[ev->buffer] = count;
        live[count++] = ev->buffer;
    }
    /* a pair met in several intervals once: sorted, then kept where it differs from the one before */
    if (ok && keys->len > 1)
        qsort(keys->data, keys->len, sizeof(guint64), u64_cmp);
    for (guint k = 0; k < keys->len && ok; k++) {
        guint64 key = g_array_index(keys, guint64, k);
        if (k && g_array_index(keys, guint64, k - 1) == key)
            continue;
        StructuredPair pair = {(guint)(key >> 32), (guint)(key & 0xffffffffu), 0};
        g_array_append_val(pairs, pair);
    }
    g_array_free(keys, TRUE);
    g_free(live);
    g_free(where);
    g_array_free(events, TRUE);
    return ok;
}

static guint find_root(guint *parent, guint x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

guint *structured_colocation_classes(const StructuredProblem *p)
{
    guint n = p->buffers->len;
    guint *parent = g_new(guint, n ? n : 1);
    for (guint i = 0; i < n; i++)
        parent[i] = i;
    for (guint k = 0; k < p->colocations->len; k++) {
        const StructuredPair *c = &g_array_index(p->colocations, StructuredPair, k);
        guint a = find_root(parent, c->a), b = find_root(parent, c->b);
        if (a != b)
            parent[MAX(a, b)] = MIN(a, b);
    }
    for (guint i = 0; i < n; i++)
        parent[i] = find_root(parent, i);
    return parent;
}
