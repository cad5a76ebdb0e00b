/* structured-first-fit.c — `first-fit` for structured problems: buffers by start time (larger first at a tie),
 * each at the lowest offset where it keeps every rule, in the first pool it fits in under the capacity. Blind
 * to reuse penalties: the baseline every structured comparison starts from (dsa-solver's first fit). */
#include "structured/structured-place.h"
#include "structured/structured-strategy.h"

static int by_start(gconstpointer a, gconstpointer b, gpointer data)
{
    const StructuredState *order_state = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    gint64 sx = structured_place_start(order_state, x), sy = structured_place_start(order_state, y);
    if (sx != sy)
        return sx < sy ? -1 : 1;
    guint64 zx = structured_place_size(order_state, x), zy = structured_place_size(order_state, y);
    if (zx != zy)
        return zx > zy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static gboolean first_fit_solve(const StructuredProblem *p, const StructuredOptions *o, StructuredResult *r,
                                GError **error)
{
    (void)o;
    StructuredState *s = structured_place_new(p, error);
    if (!s)
        return FALSE;
    guint n = structured_place_items(s), *order = structured_place_sorted(s, by_start, s);
    gboolean ok = structured_place_pass(s, order, n, STRUCTURED_FIT_LOWEST, &r->work, error);
    if (ok) {
        r->place = g_new(StructuredPlace, p->buffers->len);
        structured_place_result(s, r->place);
    }
    g_free(order);
    structured_place_free(s);
    return ok;
}

const StructuredStrategy structured_first_fit = {
    "first-fit", "by start time, each buffer at the lowest offset that keeps the rules; blind to penalties",
    first_fit_solve};
