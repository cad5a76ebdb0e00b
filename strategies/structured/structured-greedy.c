/* structured-greedy.c — `greedy` for structured problems: five orders (start time, size, size x live time,
 * penalty weight, relation count), each buffer at the candidate with the least overflow, then the least reuse
 * penalty, the least growth of its pool's peak, the lowest offset; the best of the five by the problem's own
 * objective (dsa-solver's canonical greedy in spirit). */
#include "structured/structured-place.h"
#include "structured/structured-strategy.h"

#include <string.h>

typedef struct {
    const StructuredState *s;
    guint rule;
} OrderBy;

static int key_cmp(guint64 x, guint64 y, gboolean larger_first)
{
    if (x == y)
        return 0;
    return (x > y) == larger_first ? -1 : 1;
}

static int by_rule(gconstpointer a, gconstpointer b, gpointer data)
{
    const OrderBy *o = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    const StructuredState *s = o->s;
    int c = 0;
    switch (o->rule) {
    case 0:
        if (structured_place_start(s, x) != structured_place_start(s, y))
            return structured_place_start(s, x) < structured_place_start(s, y) ? -1 : 1;
        c = key_cmp(structured_place_size(s, x), structured_place_size(s, y), TRUE);
        break;
    case 1:
        c = key_cmp(structured_place_size(s, x), structured_place_size(s, y), TRUE);
        break;
    case 2: { /* bytes x time, in double: the product of two 63-bit numbers is no 64-bit one */
        double ax = (double)structured_place_size(s, x) * (double)structured_place_duration(s, x);
        double ay = (double)structured_place_size(s, y) * (double)structured_place_duration(s, y);
        c = ax == ay ? 0 : ax > ay ? -1 : 1;
        break;
    }
    case 3:
        c = key_cmp(structured_place_weight(s, x), structured_place_weight(s, y), TRUE);
        break;
    default:
        c = key_cmp(structured_place_degree(s, x), structured_place_degree(s, y), TRUE);
        break;
    }
    if (!c)
        c = key_cmp(structured_place_size(s, x), structured_place_size(s, y), TRUE);
    if (!c && structured_place_start(s, x) != structured_place_start(s, y))
        c = structured_place_start(s, x) < structured_place_start(s, y) ? -1 : 1;
    return c ? c : (x < y ? -1 : x > y);
}

static gboolean greedy_solve(const StructuredProblem *p, const StructuredOptions *o, StructuredResult *r,
                             GError **error)
{
    (void)o;
    StructuredState *s = structured_place_new(p, error);
    if (!s)
        return FALSE;
    guint n = structured_place_items(s);
    guint64 value[STRUCTURED_TERMS], vb[STRUCTURED_TERMS], vv[STRUCTURED_TERMS];
    r->place = g_new(StructuredPlace, p->buffers->len);
    gboolean ok = TRUE;
    for (guint rule = 0; rule < 5 && ok; rule++) {
        OrderBy by = {s, rule};
        guint *order = structured_place_sorted(s, by_rule, &by);
        ok = structured_place_pass(s, order, n, STRUCTURED_FIT_CHEAPEST, &r->work, error);
        g_free(order);
        if (!ok)
            break;
        structured_place_value(s, NULL, value);
        for (guint t = 0; t < p->n_terms; t++)
            vv[t] = value[p->terms[t]];
        if (!rule || structured_compare(p, vv, vb) < 0) {
            memcpy(vb, vv, sizeof vb);
            structured_place_result(s, r->place);
        }
        structured_place_reset(s);
    }
    if (!ok)
        structured_strategy_result_clear(r);
    structured_place_free(s);
    return ok;
}

const StructuredStrategy structured_greedy = {
    "greedy", "five orders, each buffer where it adds the least overflow, then penalty, then peak; the best order",
    greedy_solve};
