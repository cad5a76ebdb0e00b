/* structured-place.c — the placement state of the structured strategies (structured-place.h). */
#include "structured/structured-place.h"

#include "base/error.h"
#include "structured/structured-check.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    guint other;          /* item */
    guint64 mine, theirs; /* the sizes of the two buffers the relation is between (members share an offset) */
    guint64 cost;         /* a penalty's weight; 0: hard, the bytes may not overlap */
} Relation;

typedef struct {
    guint64 size, align;
    GArray *pools; /* guint pool indices */
    GArray *rel;   /* Relation */
    gint64 start;
    guint64 duration, weight;
    gboolean pinned;
    guint pin_pool;
    guint64 pin_offset;
} Item;

typedef struct {
    guint item;
    guint64 peak, cost; /* the pool's before the placement */
} Undo;

struct StructuredState {
    const StructuredProblem *p;
    guint n; /* items */
    Item *items;
    guint *item_of; /* buffer -> item */
    gboolean *placed;
    guint *pool;
    guint64 *offset;
    guint64 *peak, *pool_cost, *bound; /* per pool */
    guint64 cost;
    GArray *undo; /* Undo */
};

static guint64 gcd64(guint64 a, guint64 b)
{
    while (b) {
        guint64 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static gboolean relate(StructuredState *s, guint a, guint b, guint64 sa, guint64 sb, guint64 cost, guint64 *count,
                       GError **error)
{
    if ((*count += 2) > STRUCTURED_PLACE_MAX_RELATIONS) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s: more than %u relations between buffers to place",
                    s->p->path, STRUCTURED_PLACE_MAX_RELATIONS);
        return FALSE;
    }
    Relation x = {b, sa, sb, cost}, y = {a, sb, sa, cost};
    g_array_append_val(s->items[a].rel, x);
    g_array_append_val(s->items[b].rel, y);
    return TRUE;
}

static gboolean share_pool(const Item *a, const Item *b)
{
    for (guint i = 0; i < a->pools->len; i++)
        for (guint j = 0; j < b->pools->len; j++)
            if (g_array_index(a->pools, guint, i) == g_array_index(b->pools, guint, j))
                return TRUE;
    return FALSE;
}

/* Items: one per colocation class, with the pools every member may use and one pin. */
static gboolean make_items(StructuredState *s, const guint *classes, GError **error)
{
    const StructuredProblem *p = s->p;
    guint nb = p->buffers->len;
    guint *index = g_new(guint, nb);
    for (guint i = 0; i < nb; i++)
        if (classes[i] == i)
            index[i] = s->n++;
    s->items = g_new0(Item, s->n ? s->n : 1);
    s->item_of = g_new(guint, nb);
    gboolean ok = TRUE;
    for (guint i = 0; i < nb && ok; i++) {
        const StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, i);
        guint it = s->item_of[i] = index[classes[i]];
        Item *item = &s->items[it];
        gint64 start = g_array_index(b->intervals, StructuredInterval, 0).lower;
        guint64 live = 0;
        for (guint k = 0; k < b->intervals->len; k++) {
            const StructuredInterval *v = &g_array_index(b->intervals, StructuredInterval, k);
            live += (guint64)(v->upper - v->lower);
        }
        if (!item->pools) {
            item->pools = g_array_copy(b->pools);
            item->rel = g_array_new(FALSE, FALSE, sizeof(Relation));
            item->align = b->align;
            item->start = start;
        } else {
            for (guint k = 0; k < item->pools->len;) { /* the pools every member may use */
                gboolean in = FALSE;
                for (guint j = 0; j < b->pools->len; j++)
                    in |= g_array_index(b->pools, guint, j) == g_array_index(item->pools, guint, k);
                if (in)
                    k++;
                else
                    g_array_remove_index(item->pools, k);
            }
            guint64 g = gcd64(item->align, b->align);
            if (item->align / g > G_MAXINT64 / b->align) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                            "%s: buffer %u: its colocated buffers' alignments "
                            "have no common multiple below 2^63",
                            p->path, b->id);
                ok = FALSE;
            }
            item->align = item->align / g * b->align;
            item->start = MIN(item->start, start);
            if (!item->pools->len) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                            "%s: buffer %u is colocated with buffers that share no "
                            "pool with it: no placement exists",
                            p->path, b->id);
                ok = FALSE;
            }
        }
        item->size = MAX(item->size, b->size);
        item->duration += live;
    }
    for (guint k = 0; k < p->pins->len && ok; k++) {
        const StructuredPin *pin = &g_array_index(p->pins, StructuredPin, k);
        Item *item = &s->items[s->item_of[pin->buffer]];
        if (item->pinned && (item->pin_pool != pin->pool || item->pin_offset != pin->offset)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                        "%s: buffer %u is pinned apart from a buffer it is "
                        "colocated with: no placement exists",
                        p->path, g_array_index(p->buffers, StructuredBuffer, pin->buffer).id);
            ok = FALSE;
        }
        item->pinned = TRUE;
        item->pin_pool = pin->pool;
        item->pin_offset = pin->offset;
    }
    for (guint i = 0; i < s->n && ok; i++) {
        Item *item = &s->items[i];
        gboolean allowed = !item->pinned;
        for (guint k = 0; k < item->pools->len && !allowed; k++)
            allowed = g_array_index(item->pools, guint, k) == item->pin_pool;
        if (!allowed ||
            (item->pinned && (item->pin_offset % item->align || item->pin_offset > G_MAXINT64 - item->size))) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                        "%s: a pinned buffer's colocated buffers cannot be at its "
                        "pin (pool or alignment): no placement exists",
                        p->path);
            ok = FALSE;
        }
    }
    g_free(index);
    return ok;
}

static gboolean make_relations(StructuredState *s, const guint *classes, GError **error)
{
    const StructuredProblem *p = s->p;
    GHashTable *exclusions = structured_check_exclusions(p);
    GArray *pairs = g_array_new(FALSE, FALSE, sizeof(StructuredPair));
    guint64 count = 0;
    gboolean ok = structured_overlapping_pairs(p, pairs, STRUCTURED_PLACE_MAX_RELATIONS);
    if (!ok)
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s: more than %u pairs of buffers live at once", p->path,
                    STRUCTURED_PLACE_MAX_RELATIONS);
#define SIZE(b) (g_array_index(p->buffers, StructuredBuffer, (b)).size)
    for (guint k = 0; k < pairs->len && ok; k++) {
        const StructuredPair *q = &g_array_index(pairs, StructuredPair, k);
        guint64 key = structured_check_key(q->a, q->b);
        guint a = s->item_of[q->a], b = s->item_of[q->b];
        if (classes[q->a] != classes[q->b] && !g_hash_table_contains(exclusions, &key) &&
            share_pool(&s->items[a], &s->items[b]))
            ok = relate(s, a, b, SIZE(q->a), SIZE(q->b), 0, &count, error);
    }
    for (guint k = 0; k < p->separations->len && ok; k++) {
        const StructuredPair *q = &g_array_index(p->separations, StructuredPair, k);
        ok = relate(s, s->item_of[q->a], s->item_of[q->b], SIZE(q->a), SIZE(q->b), 0, &count, error);
    }
    for (guint k = 0; k < p->pins->len && ok; k++) {
        const StructuredPin *pin = &g_array_index(p->pins, StructuredPin, k);
        guint a = s->item_of[pin->buffer];
        for (guint i = 0; i < s->n && ok && pin->exclusive; i++)
            if (i != a && share_pool(&s->items[a], &s->items[i]))
                ok = relate(s, a, i, SIZE(pin->buffer), s->items[i].size, 0, &count, error);
    }
    for (guint k = 0; k < p->penalties->len && ok; k++) {
        const StructuredPair *q = &g_array_index(p->penalties, StructuredPair, k);
        guint a = s->item_of[q->a], b = s->item_of[q->b];
        if (q->cost && a != b && !structured_check_conflict(p, exclusions, q->a, q->b) &&
            share_pool(&s->items[a], &s->items[b])) {
            ok = relate(s, a, b, SIZE(q->a), SIZE(q->b), q->cost, &count, error);
            s->items[a].weight += q->cost;
            s->items[b].weight += q->cost;
        }
    }
#undef SIZE
    g_array_free(pairs, TRUE);
    g_hash_table_destroy(exclusions);
    return ok;
}

typedef struct {
    gint64 at;
    gint64 delta;
} Step;

static int step_cmp(gconstpointer a, gconstpointer b)
{
    const Step *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return (x->delta > 0) - (y->delta > 0); /* half-open: an end before a start at the same time */
}

/* A pool's static bound: the most bytes live at once among buffers fixed to it that nothing lets share, the
 * largest item fixed to it (a pinned one where it is pinned), its highest reserved byte. */
static void make_bounds(StructuredState *s, const guint *classes)
{
    const StructuredProblem *p = s->p;
    GHashTable *excluded = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint k = 0; k < p->exclusions->len; k++) {
        const StructuredPair *e = &g_array_index(p->exclusions, StructuredPair, k);
        g_hash_table_add(excluded, GUINT_TO_POINTER(e->a + 1));
        g_hash_table_add(excluded, GUINT_TO_POINTER(e->b + 1));
    }
    guint *class_size = g_new0(guint, p->buffers->len);
    for (guint i = 0; i < p->buffers->len; i++)
        class_size[classes[i]]++;
    GArray *steps = g_array_new(FALSE, FALSE, sizeof(Step));
    for (guint q = 0; q < p->pools->len; q++) {
        const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, q);
        guint64 bound = 0;
        for (guint k = 0; k < pool->reserved->len; k++)
            bound = MAX(bound, g_array_index(pool->reserved, StructuredRange, k).end);
        for (guint it = 0; it < s->n; it++) {
            const Item *item = &s->items[it];
            if (item->pools->len == 1 && g_array_index(item->pools, guint, 0) == q)
                bound = MAX(bound, item->pinned ? item->pin_offset + item->size : item->size);
        }
        g_array_set_size(steps, 0);
        for (guint i = 0; i < p->buffers->len; i++) {
            const StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, i);
            const Item *item = &s->items[s->item_of[i]];
            if (item->pools->len != 1 || g_array_index(item->pools, guint, 0) != q || class_size[classes[i]] > 1 ||
                g_hash_table_contains(excluded, GUINT_TO_POINTER(i + 1)))
                continue;
            for (guint k = 0; k < b->intervals->len; k++) {
                const StructuredInterval *v = &g_array_index(b->intervals, StructuredInterval, k);
                Step up = {v->lower, (gint64)b->size}, down = {v->upper, -(gint64)b->size};
                g_array_append_val(steps, up);
                g_array_append_val(steps, down);
            }
        }
        g_array_sort(steps, step_cmp);
        guint64 live = 0; /* an end comes before a start at one time: never below 0 */
        for (guint k = 0; k < steps->len; k++) {
            gint64 delta = g_array_index(steps, Step, k).delta;
            if (delta > 0 && (guint64)delta > (guint64)G_MAXINT64 - live) { /* more than 2^63 bytes at once */
                bound = G_MAXUINT64;
                break;
            }
            live = delta > 0 ? live + (guint64)delta : live - (guint64)-delta;
            bound = MAX(bound, live);
        }
        s->bound[q] = bound;
    }
    g_array_free(steps, TRUE);
    g_free(class_size);
    g_hash_table_destroy(excluded);
}

static gboolean fits_hard(const StructuredState *s, guint item, guint pool, guint64 offset)
{
    const Item *it = &s->items[item];
    if (offset > G_MAXINT64 - it->size)
        return FALSE;
    const StructuredPool *q = &g_array_index(s->p->pools, StructuredPool, pool);
    for (guint k = 0; k < q->reserved->len; k++) {
        const StructuredRange *r = &g_array_index(q->reserved, StructuredRange, k);
        if (structured_bytes_overlap(offset, it->size, r->begin, r->end - r->begin))
            return FALSE;
    }
    for (guint k = 0; k < it->rel->len; k++) {
        const Relation *r = &g_array_index(it->rel, Relation, k);
        if (!r->cost && s->placed[r->other] && s->pool[r->other] == pool &&
            structured_bytes_overlap(offset, r->mine, s->offset[r->other], r->theirs))
            return FALSE;
    }
    return TRUE;
}

void structured_place_put(StructuredState *s, guint item, guint pool, guint64 offset)
{
    Undo u = {item, s->peak[pool], s->pool_cost[pool]};
    guint64 added = structured_place_added_cost(s, item, pool, offset);
    g_array_append_val(s->undo, u);
    s->placed[item] = TRUE;
    s->pool[item] = pool;
    s->offset[item] = offset;
    s->peak[pool] = MAX(s->peak[pool], offset + s->items[item].size);
    s->pool_cost[pool] += added;
    s->cost += added;
}

void structured_place_undo(StructuredState *s)
{
    Undo u = g_array_index(s->undo, Undo, s->undo->len - 1);
    g_array_set_size(s->undo, s->undo->len - 1);
    guint pool = s->pool[u.item];
    s->cost -= s->pool_cost[pool] - u.cost;
    s->pool_cost[pool] = u.cost;
    s->peak[pool] = u.peak;
    s->placed[u.item] = FALSE;
}

StructuredState *structured_place_new(const StructuredProblem *p, GError **error)
{
    StructuredState *s = g_new0(StructuredState, 1);
    s->p = p;
    guint *classes = structured_colocation_classes(p);
    gboolean ok = make_items(s, classes, error) && make_relations(s, classes, error);
    guint n = MAX(s->n, 1), pools = MAX(p->pools->len, 1);
    s->placed = g_new0(gboolean, n);
    s->pool = g_new0(guint, n);
    s->offset = g_new0(guint64, n);
    s->peak = g_new0(guint64, pools);
    s->pool_cost = g_new0(guint64, pools);
    s->bound = g_new0(guint64, pools);
    s->undo = g_array_new(FALSE, FALSE, sizeof(Undo));
    if (ok) {
        make_bounds(s, classes);
        for (guint q = 0; q < p->pools->len; q++) {
            const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, q);
            for (guint k = 0; k < pool->reserved->len; k++)
                s->peak[q] = MAX(s->peak[q], g_array_index(pool->reserved, StructuredRange, k).end);
        }
    }
    for (guint i = 0; i < s->n && ok; i++) {
        const Item *it = &s->items[i];
        if (!it->pinned)
            continue;
        if (!fits_hard(s, i, it->pin_pool, it->pin_offset)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                        "%s: pinned buffers share bytes they may not share (or a "
                        "reserved range): no placement exists",
                        p->path);
            ok = FALSE;
        } else {
            structured_place_put(s, i, it->pin_pool, it->pin_offset);
        }
    }
    g_array_set_size(s->undo, 0); /* pins are never taken back */
    g_free(classes);
    if (!ok) {
        structured_place_free(s);
        return NULL;
    }
    return s;
}

void structured_place_free(StructuredState *s)
{
    if (!s)
        return;
    for (guint i = 0; i < s->n; i++) {
        if (s->items[i].pools)
            g_array_free(s->items[i].pools, TRUE);
        if (s->items[i].rel)
            g_array_free(s->items[i].rel, TRUE);
    }
    g_free(s->items);
    g_free(s->item_of);
    g_free(s->placed);
    g_free(s->pool);
    g_free(s->offset);
    g_free(s->peak);
    g_free(s->pool_cost);
    g_free(s->bound);
    g_array_free(s->undo, TRUE);
    g_free(s);
}

guint structured_place_items(const StructuredState *s)
{
    return s->n;
}
guint64 structured_place_size(const StructuredState *s, guint item)
{
    return s->items[item].size;
}
gint64 structured_place_start(const StructuredState *s, guint item)
{
    return s->items[item].start;
}
guint64 structured_place_duration(const StructuredState *s, guint item)
{
    return s->items[item].duration;
}
guint structured_place_degree(const StructuredState *s, guint item)
{
    return s->items[item].rel->len;
}
guint64 structured_place_weight(const StructuredState *s, guint item)
{
    return s->items[item].weight;
}
gboolean structured_place_pinned(const StructuredState *s, guint item)
{
    return s->items[item].pinned;
}
gboolean structured_place_is_placed(const StructuredState *s, guint item)
{
    return s->placed[item];
}
const GArray *structured_place_pools(const StructuredState *s, guint item)
{
    return s->items[item].pools;
}
guint64 structured_place_peak(const StructuredState *s, guint pool)
{
    return s->peak[pool];
}
guint structured_place_item_pool(const StructuredState *s, guint item)
{
    return s->pool[item];
}
guint64 structured_place_item_offset(const StructuredState *s, guint item)
{
    return s->offset[item];
}
guint structured_place_item_of(const StructuredState *s, guint buffer)
{
    return s->item_of[buffer];
}
guint64 structured_place_cost(const StructuredState *s)
{
    return s->cost;
}
guint64 structured_place_pool_bound(const StructuredState *s, guint pool)
{
    return s->bound[pool];
}

static int u64_cmp(const void *a, const void *b)
{
    guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
    return x < y ? -1 : x > y;
}

void structured_place_candidates(StructuredState *s, guint item, guint pool, guint64 floor, GArray *out)
{
    const Item *it = &s->items[item];
    guint from = out->len;
    guint64 zero = 0;
    if (!floor)
        g_array_append_val(out, zero);
    const StructuredPool *q = &g_array_index(s->p->pools, StructuredPool, pool);
    for (guint k = 0; k < q->reserved->len; k++) {
        guint64 c = round_up(g_array_index(q->reserved, StructuredRange, k).end, it->align);
        if (c >= floor)
            g_array_append_val(out, c);
    }
    for (guint k = 0; k < it->rel->len; k++) {
        const Relation *r = &g_array_index(it->rel, Relation, k);
        if (!s->placed[r->other] || s->pool[r->other] != pool)
            continue;
        guint64 end = s->offset[r->other] + r->theirs;
        if (end > G_MAXINT64 - it->align)
            continue;
        guint64 c = round_up(end, it->align);
        if (c >= floor)
            g_array_append_val(out, c);
    }
    if (out->len - from > 1)
        qsort(&g_array_index(out, guint64, from), out->len - from, sizeof(guint64), u64_cmp);
    guint kept = from;
    for (guint k = from; k < out->len; k++) {
        guint64 c = g_array_index(out, guint64, k);
        if ((kept > from && g_array_index(out, guint64, kept - 1) == c) || !fits_hard(s, item, pool, c))
            continue;
        g_array_index(out, guint64, kept++) = c;
    }
    g_array_set_size(out, kept);
}

guint64 structured_place_added_cost(const StructuredState *s, guint item, guint pool, guint64 offset)
{
    const Item *it = &s->items[item];
    guint64 cost = 0;
    for (guint k = 0; k < it->rel->len; k++) {
        const Relation *r = &g_array_index(it->rel, Relation, k);
        if (r->cost && s->placed[r->other] && s->pool[r->other] == pool &&
            structured_bytes_overlap(offset, r->mine, s->offset[r->other], r->theirs))
            cost += r->cost;
    }
    return cost;
}

void structured_place_value(const StructuredState *s, const gboolean *pools, guint64 *value)
{
    memset(value, 0, STRUCTURED_TERMS * sizeof *value);
    for (guint q = 0; q < s->p->pools->len; q++) {
        if (pools && !pools[q])
            continue;
        const StructuredPool *pool = &g_array_index(s->p->pools, StructuredPool, q);
        value[STRUCTURED_TOTAL_PEAK] = structured_add(value[STRUCTURED_TOTAL_PEAK], s->peak[q]);
        value[STRUCTURED_MAX_PEAK] = MAX(value[STRUCTURED_MAX_PEAK], s->peak[q]);
        if (pool->bounded && s->peak[q] > pool->capacity)
            value[STRUCTURED_OVERFLOW] = structured_add(value[STRUCTURED_OVERFLOW], s->peak[q] - pool->capacity);
        value[STRUCTURED_REUSE_COST] = structured_add(value[STRUCTURED_REUSE_COST], s->pool_cost[q]);
    }
}

void structured_place_result(const StructuredState *s, StructuredPlace *out)
{
    for (guint i = 0; i < s->p->buffers->len; i++) {
        guint it = s->item_of[i];
        out[i] = (StructuredPlace){s->pool[it], s->offset[it]};
    }
}

guint *structured_place_sorted(const StructuredState *s, GCompareDataFunc cmp, gpointer data)
{
    guint *order = g_new(guint, s->n ? s->n : 1);
    for (guint i = 0; i < s->n; i++)
        order[i] = i;
    g_qsort_with_data(order, s->n, sizeof(guint), cmp, data);
    return order;
}

void structured_place_reset(StructuredState *s)
{
    while (s->undo->len)
        structured_place_undo(s);
}

gboolean structured_place_pass(StructuredState *s, const guint *order, guint n, StructuredFit fit, guint64 *work,
                               GError **error)
{
    GArray *cands = g_array_new(FALSE, FALSE, sizeof(guint64));
    for (guint k = 0; k < n; k++) {
        guint item = order[k];
        if (s->placed[item])
            continue;
        const Item *it = &s->items[item];
        gboolean found = FALSE;
        guint best_pool = 0;
        guint64 best_offset = 0, best_key[4] = {0};
        for (guint j = 0; j < it->pools->len; j++) {
            guint q = g_array_index(it->pools, guint, j);
            const StructuredPool *pool = &g_array_index(s->p->pools, StructuredPool, q);
            g_array_set_size(cands, 0);
            structured_place_candidates(s, item, q, 0, cands);
            *work += cands->len;
            for (guint c = 0; c < cands->len; c++) {
                guint64 off = g_array_index(cands, guint64, c), end = off + it->size;
                guint64 peak = MAX(s->peak[q], end);
                guint64 over = pool->bounded && peak > pool->capacity ? peak - MAX(s->peak[q], pool->capacity) : 0;
                guint64 key[4];
                if (fit == STRUCTURED_FIT_LOWEST) { /* the first pool it fits in, the lowest offset there */
                    key[0] = over > 0;
                    key[1] = j;
                    key[2] = off;
                    key[3] = 0;
                } else { /* the least overflow, then penalty, then growth of the pool's peak, then offset */
                    key[0] = over;
                    key[1] = structured_place_added_cost(s, item, q, off);
                    key[2] = peak - s->peak[q];
                    key[3] = off;
                }
                if (!found || key[0] < best_key[0] ||
                    (key[0] == best_key[0] &&
                     (key[1] < best_key[1] ||
                      (key[1] == best_key[1] &&
                       (key[2] < best_key[2] || (key[2] == best_key[2] && key[3] < best_key[3])))))) {
                    found = TRUE;
                    best_pool = q;
                    best_offset = off;
                    memcpy(best_key, key, sizeof key);
                }
                if (fit == STRUCTURED_FIT_LOWEST)
                    break; /* ascending: the first candidate is this pool's lowest */
            }
        }
        if (!found) { /* above everything placed there is room, unless that is past 2^63 bytes */
            guint b = 0;
            while (s->item_of[b] != item)
                b++;
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s: buffer %u fits in none of its pools below 2^63 "
                        "bytes (what must lie apart from it is that large): no placement exists", s->p->path,
                        g_array_index(s->p->buffers, StructuredBuffer, b).id);
            g_array_free(cands, TRUE);
            return FALSE;
        }
        structured_place_put(s, item, best_pool, best_offset);
    }
    g_array_free(cands, TRUE);
    return TRUE;
}
