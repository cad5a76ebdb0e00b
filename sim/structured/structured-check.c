/* structured-check.c — the independent validator and the objective (structured-check.h). */
#include "structured/structured-check.h"

#include "base/error.h"

#include <string.h>

static guint64 *key_new(guint64 k)
{
    guint64 *p = g_new(guint64, 1);
    *p = k;
    return p;
}

/* A pair key's hash with both halves mixed (g_int64_hash folds the halves with xor: pairs (a, b) and (a^x, b^x)
 * collide, and a sweep's pairs are just such neighbours). */
static guint key_hash(gconstpointer k)
{
    guint64 x = *(const guint64 *)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (guint)x;
}

GHashTable *structured_check_exclusions(const StructuredProblem *p)
{
    GHashTable *set = g_hash_table_new_full(key_hash, g_int64_equal, g_free, NULL);
    for (guint i = 0; i < p->exclusions->len; i++) {
        const StructuredPair *e = &g_array_index(p->exclusions, StructuredPair, i);
        g_hash_table_add(set, key_new(structured_check_key(e->a, e->b)));
    }
    return set;
}

gboolean structured_check_conflict(const StructuredProblem *p, GHashTable *exclusions, guint a, guint b)
{
    guint64 key = structured_check_key(a, b);
    if (g_hash_table_contains(exclusions, &key))
        return FALSE;
    return structured_lifetimes_overlap(&g_array_index(p->buffers, StructuredBuffer, a),
                                        &g_array_index(p->buffers, StructuredBuffer, b));
}

static gboolean broken(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean broken(GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "the placement breaks a rule: %s", what);
    g_free(what);
    return FALSE;
}

/* An early refusal: the objective's pool peaks freed, nothing reported. */
#define refuse(o, error, ...) (structured_objective_clear(o), broken((error), __VA_ARGS__))

#define ID(i) (g_array_index(p->buffers, StructuredBuffer, (i)).id)

gboolean structured_check(const StructuredProblem *p, const StructuredPlace *place, StructuredObjective *o,
                          GError **error)
{
    guint n = p->buffers->len;
    memset(o, 0, sizeof *o);
    o->pool_peak = g_new0(guint64, p->pools->len);
    for (guint i = 0; i < n; i++) {
        const StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, i);
        const StructuredPlace *at = &place[i];
        gboolean allowed = FALSE;
        for (guint k = 0; k < b->pools->len; k++)
            allowed |= g_array_index(b->pools, guint, k) == at->pool;
        if (at->pool >= p->pools->len || !allowed)
            return refuse(o, error, "buffer %u is in a pool it may not use", b->id);
        if (at->offset % b->align)
            return refuse(o, error, "buffer %u at offset %" G_GUINT64_FORMAT " is not aligned to %" G_GUINT64_FORMAT,
                          b->id, at->offset, b->align);
        if (at->offset > G_MAXINT64 - b->size)
            return refuse(o, error, "buffer %u ends past 2^63 bytes", b->id);
        const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, at->pool);
        for (guint k = 0; k < pool->reserved->len; k++) {
            const StructuredRange *r = &g_array_index(pool->reserved, StructuredRange, k);
            if (structured_bytes_overlap(at->offset, b->size, r->begin, r->end - r->begin))
                return refuse(o, error, "buffer %u overlaps a reserved range of pool %u", b->id, pool->id);
        }
        o->pool_peak[at->pool] = MAX(o->pool_peak[at->pool], at->offset + b->size);
    }
    for (guint k = 0; k < p->pins->len; k++) {
        const StructuredPin *pin = &g_array_index(p->pins, StructuredPin, k);
        if (place[pin->buffer].pool != pin->pool || place[pin->buffer].offset != pin->offset)
            return refuse(o, error, "buffer %u is not where it is pinned", ID(pin->buffer));
    }
    for (guint k = 0; k < p->colocations->len; k++) {
        const StructuredPair *c = &g_array_index(p->colocations, StructuredPair, k);
        if (place[c->a].pool != place[c->b].pool || place[c->a].offset != place[c->b].offset)
            return refuse(o, error, "colocated buffers %u and %u do not share a pool and offset", ID(c->a), ID(c->b));
    }
    guint *classes = structured_colocation_classes(p);
    GHashTable *exclusions = structured_check_exclusions(p);
    GArray *pairs = g_array_new(FALSE, FALSE, sizeof(StructuredPair));
    gboolean ok = TRUE;
    if (!structured_overlapping_pairs(p, pairs, STRUCTURED_CHECK_MAX_PAIRS))
        ok = broken(error, "more than %u pairs of buffers live at once: too many to check", STRUCTURED_CHECK_MAX_PAIRS);
    for (guint k = 0; k < pairs->len && ok; k++) {
        const StructuredPair *q = &g_array_index(pairs, StructuredPair, k);
        guint64 key = structured_check_key(q->a, q->b);
        if (classes[q->a] == classes[q->b] || g_hash_table_contains(exclusions, &key) ||
            place[q->a].pool != place[q->b].pool)
            continue;
        if (structured_bytes_overlap(place[q->a].offset, g_array_index(p->buffers, StructuredBuffer, q->a).size,
                                     place[q->b].offset, g_array_index(p->buffers, StructuredBuffer, q->b).size))
            ok = broken(error, "buffers %u and %u are live at once and share bytes", ID(q->a), ID(q->b));
    }
    for (guint k = 0; k < p->pins->len && ok; k++) {
        const StructuredPin *pin = &g_array_index(p->pins, StructuredPin, k);
        if (!pin->exclusive)
            continue;
        guint64 size = g_array_index(p->buffers, StructuredBuffer, pin->buffer).size;
        for (guint i = 0; i < n && ok; i++)
            if (classes[i] != classes[pin->buffer] && place[i].pool == pin->pool &&
                structured_bytes_overlap(place[i].offset, g_array_index(p->buffers, StructuredBuffer, i).size,
                                         pin->offset, size))
                ok =
                    broken(error, "buffer %u uses the bytes of buffer %u, pinned for all time", ID(i), ID(pin->buffer));
    }
    for (guint k = 0; k < p->separations->len && ok; k++) {
        const StructuredPair *s = &g_array_index(p->separations, StructuredPair, k);
        if (place[s->a].pool == place[s->b].pool &&
            structured_bytes_overlap(place[s->a].offset, g_array_index(p->buffers, StructuredBuffer, s->a).size,
                                     place[s->b].offset, g_array_index(p->buffers, StructuredBuffer, s->b).size))
            ok = broken(error, "separated buffers %u and %u share bytes", ID(s->a), ID(s->b));
    }
    for (guint k = 0; k < p->penalties->len && ok; k++) {
        const StructuredPair *q = &g_array_index(p->penalties, StructuredPair, k);
        if (place[q->a].pool == place[q->b].pool && classes[q->a] != classes[q->b] &&
            !structured_check_conflict(p, exclusions, q->a, q->b) &&
            structured_bytes_overlap(place[q->a].offset, g_array_index(p->buffers, StructuredBuffer, q->a).size,
                                     place[q->b].offset, g_array_index(p->buffers, StructuredBuffer, q->b).size))
            o->value[STRUCTURED_REUSE_COST] = structured_add(o->value[STRUCTURED_REUSE_COST], q->cost);
    }
    for (guint k = 0; k < p->pools->len; k++) {
        const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, k);
        for (guint r = 0; r < pool->reserved->len; r++)
            o->pool_peak[k] = MAX(o->pool_peak[k], g_array_index(pool->reserved, StructuredRange, r).end);
        o->value[STRUCTURED_TOTAL_PEAK] = structured_add(o->value[STRUCTURED_TOTAL_PEAK], o->pool_peak[k]);
        o->value[STRUCTURED_MAX_PEAK] = MAX(o->value[STRUCTURED_MAX_PEAK], o->pool_peak[k]);
        if (pool->bounded && o->pool_peak[k] > pool->capacity)
            o->value[STRUCTURED_OVERFLOW] =
                structured_add(o->value[STRUCTURED_OVERFLOW], o->pool_peak[k] - pool->capacity);
    }
    g_array_free(pairs, TRUE);
    g_hash_table_destroy(exclusions);
    g_free(classes);
    if (!ok)
        structured_objective_clear(o);
    return ok;
}
