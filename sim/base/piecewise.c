/* piecewise.c — exact piecewise polynomials over integer grids (piecewise.h): Newton's forward differences in
 * 128-bit integers, every operation checked, every piece checked at every point of its box. */
#include "base/piecewise.h"

#include "base/error.h"
#include "base/units.h"

#include <string.h>

typedef __int128 I128;
typedef unsigned __int128 U128;

#define TERMS_1 (PIECEWISE_DEGREE + 1)

/* A run of consecutive points that one polynomial of `degree` gives. */
typedef struct {
    guint start, len, degree;
} Run;

static gboolean add_ok(I128 a, I128 b, I128 *out) { return !__builtin_add_overflow(a, b, out); }
static gboolean mul_ok(I128 a, I128 b, I128 *out) { return !__builtin_mul_overflow(a, b, out); }

static U128 gcd_u(U128 a, U128 b)
{
    while (b) {
        U128 r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static U128 abs_u(I128 a) { return a < 0 ? (U128)0 - (U128)a : (U128)a; }

/* lcm(a, b) of positive numbers; FALSE past 63 bits. */
static gboolean lcm_ok(I128 a, I128 b, I128 *out)
{
    I128 g = (I128)gcd_u(abs_u(a), abs_u(b));
    return mul_ok(a / g, b, out) && *out <= G_MAXINT64;
}

/* How many points from `start` the degree-d polynomial through points start..start+d gives (at least d + 1),
 * all V components at once; y is point-major (point i, component c at y[i * V + c]). */
static guint run_reach(const I128 *y, guint m, guint V, guint start, guint d, I128 *table)
{
    /* table[c * TERMS_1 + j]: Δ^j of component c at the current point */
    for (guint c = 0; c < V; c++) {
        I128 col[TERMS_1];
        for (guint j = 0; j <= d; j++)
            col[j] = y[(gsize)(start + j) * V + c];
        for (guint j = 1; j <= d; j++) /* differences in place: col[k] becomes Δ^k at start */
            for (guint k = d; k >= j; k--)
                if (__builtin_sub_overflow(col[k], col[k - 1], &col[k]))
                    return 0;
        memcpy(table + (gsize)c * TERMS_1, col, sizeof col);
    }
    /* step the tables to point start + d (their last used point), then predict the next ones */
    guint reach = 1;
    for (guint i = start + 1; i < m; i++) {
        gboolean match = TRUE;
        for (guint c = 0; c < V; c++) {
            I128 *t = table + (gsize)c * TERMS_1;
            for (guint j = 0; j < d; j++)
                if (!add_ok(t[j], t[j + 1], &t[j]))
                    return reach;
            match = match && t[0] == y[(gsize)i * V + c];
        }
        if (!match)
            break;
        reach++;
    }
    return reach < d + 1 ? 0 : reach;
}

/* The runs of m points of V components, by the header's rule. */
static GArray *fit_runs(const I128 *y, guint m, guint V)
{
    GArray *runs = g_array_new(FALSE, FALSE, sizeof(Run));
    I128 *table = g_new(I128, (gsize)V * TERMS_1);
    for (guint s = 0; s < m;) {
        Run best = {s, run_reach(y, m, V, s, 0, table), 0};
        for (guint d = 1; d <= PIECEWISE_DEGREE && s + d < m; d++) {
            guint reach = run_reach(y, m, V, s, d, table);
            if (reach > d + 1 && reach > best.len)
                best = (Run){s, reach, d};
        }
        g_array_append_val(runs, best);
        s += best.len;
    }
    g_free(table);
    return runs;
}

/* The monomial coefficients (times Qd = step^d · d!) of the polynomial of degree d whose Newton coefficients at
 * x0 (step apart) are a[0..d]: N(x) = Σ_j a_j · Qd / (step^j · j!) · Π_{t<j} (x - x0 - t·step). */
static gboolean newton_to_monomial(const I128 *a, guint d, gint64 x0, gint64 step, I128 *coef, I128 *qd)
{
    I128 q = 1;
    for (guint j = 1; j <= d; j++)
        if (!mul_ok(q, (I128)step * j, &q))
            return FALSE;
    *qd = q;
    memset(coef, 0, sizeof(I128) * TERMS_1);
    I128 basis[TERMS_1] = {1}; /* Π_{t<j} (x - x0 - t·step), monomial coefficients */
    I128 scale = q;            /* Qd / (step^j · j!) */
    for (guint j = 0; j <= d; j++) {
        if (j > 0) {
            /* basis *= (x - c), c = x0 + (j-1)·step; scale /= step · j */
            I128 c = (I128)x0 + (I128)(j - 1) * step, next[TERMS_1] = {0};
            for (guint k = 0; k < j; k++) {
                I128 up, down;
                if (!add_ok(next[k + 1], basis[k], &next[k + 1]) || !mul_ok(basis[k], c, &down) ||
                    __builtin_sub_overflow(next[k], down, &up))
                    return FALSE;
                next[k] = up;
            }
            memcpy(basis, next, sizeof basis);
            scale /= (I128)step * j;
        }
        for (guint k = 0; k <= j; k++) {
            I128 term;
            if (!mul_ok(basis[k], scale, &term) || !mul_ok(term, a[j], &term) || !add_ok(coef[k], term, &coef[k]))
                return FALSE;
        }
    }
    return TRUE;
}

/* A piece under construction: 128-bit numerators over a 128-bit denominator. */
typedef struct {
    gint64 from[PIECEWISE_MAX_VARS], to[PIECEWISE_MAX_VARS];
    I128 *num;
    I128 den;
} Wide;

static void wide_clear(gpointer p) { g_free(((Wide *)p)->num); }

static gsize terms_of(guint vars)
{
    gsize t = 1;
    for (guint v = 0; v < vars; v++)
        t *= TERMS_1;
    return t;
}

static gboolean overflow(GError **error)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                "the values are no polynomial of degree %d or less over any stretch: their coefficients pass 64 bits",
                PIECEWISE_DEGREE);
    return FALSE;
}

/* Newton coefficients of run r, component c (points start..start+d). */
static void newton_of(const I128 *y, guint V, const Run *r, guint c, I128 *a)
{
    for (guint j = 0; j <= r->degree; j++)
        a[j] = y[(gsize)(r->start + j) * V + c];
    for (guint j = 1; j <= r->degree; j++)
        for (guint k = r->degree; k >= j; k--)
            a[k] -= a[k - 1]; /* bounded by run_reach's checked differences */
}

/* Fits the grid of axes[0..vars) (values row-major) into Wide pieces appended to out. */
static gboolean fit_grid(const PiecewiseAxis *axes, guint vars, const I128 *values, GArray *out, GError **error)
{
    gsize inner = 1;
    for (guint v = 1; v < vars; v++)
        inner *= axes[v].count;
    if (vars == 1) {
        GArray *runs = fit_runs(values, axes[0].count, 1);
        gboolean ok = TRUE;
        for (guint k = 0; ok && k < runs->len; k++) {
            const Run *r = &g_array_index(runs, Run, k);
            I128 a[TERMS_1], coef[TERMS_1], qd;
            newton_of(values, 1, r, 0, a);
            Wide w = {.num = g_new0(I128, TERMS_1)};
            w.from[0] = axes[0].lo + (gint64)r->start * axes[0].step;
            w.to[0] = w.from[0] + (gint64)(r->len - 1) * axes[0].step;
            ok = newton_to_monomial(a, r->degree, w.from[0], axes[0].step, coef, &qd);
            memcpy(w.num, coef, sizeof coef);
            w.den = qd;
            g_array_append_val(out, w);
        }
        g_array_unref(runs);
        return ok || overflow(error);
    }
    /* each slice of the first axis fitted on the rest */
    guint m = axes[0].count;
    gsize sub_terms = terms_of(vars - 1);
    GArray **slices = g_new0(GArray *, m);
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < m; i++) {
        slices[i] = g_array_new(FALSE, FALSE, sizeof(Wide));
        g_array_set_clear_func(slices[i], wide_clear);
        ok = fit_grid(axes + 1, vars - 1, values + (gsize)i * inner, slices[i], error);
    }
    /* stretches of slices whose boxes agree; in each, the joint runs of every coefficient */
    for (guint a = 0; ok && a < m;) {
        GArray *first = slices[a];
        guint b = a + 1;
        for (; b < m && slices[b]->len == first->len; b++) {
            gboolean same = TRUE;
            for (guint p = 0; same && p < first->len; p++) {
                const Wide *x = &g_array_index(first, Wide, p), *z = &g_array_index(slices[b], Wide, p);
                same = !memcmp(x->from, z->from, sizeof x->from) && !memcmp(x->to, z->to, sizeof x->to);
            }
            if (!same)
                break;
        }
        guint P = first->len, len = b - a;
        gsize V = (gsize)P * sub_terms;
        I128 *lcm = g_new(I128, P);
        for (guint p = 0; ok && p < P; p++) {
            lcm[p] = 1;
            for (guint i = a; ok && i < b; i++)
                ok = lcm_ok(lcm[p], g_array_index(slices[i], Wide, p).den, &lcm[p]);
        }
        I128 *y = g_new(I128, (gsize)len * V);
        for (guint i = a; ok && i < b; i++)
            for (guint p = 0; ok && p < P; p++) {
                const Wide *w = &g_array_index(slices[i], Wide, p);
                for (gsize e = 0; ok && e < sub_terms; e++)
                    ok = mul_ok(w->num[e], lcm[p] / w->den, &y[(gsize)(i - a) * V + p * sub_terms + e]);
            }
        GArray *runs = ok ? fit_runs(y, len, (guint)V) : g_array_new(FALSE, FALSE, sizeof(Run));
        for (guint k = 0; ok && k < runs->len; k++) {
            const Run *r = &g_array_index(runs, Run, k);
            gint64 x0 = axes[0].lo + (gint64)(a + r->start) * axes[0].step;
            for (guint p = 0; ok && p < P; p++) {
                const Wide *model = &g_array_index(first, Wide, p);
                Wide w = {.num = g_new0(I128, sub_terms * TERMS_1)};
                w.from[0] = x0;
                w.to[0] = x0 + (gint64)(r->len - 1) * axes[0].step;
                memcpy(w.from + 1, model->from, sizeof(gint64) * (vars - 1));
                memcpy(w.to + 1, model->to, sizeof(gint64) * (vars - 1));
                I128 qd = 1;
                for (gsize e = 0; ok && e < sub_terms; e++) {
                    I128 an[TERMS_1], coef[TERMS_1];
                    newton_of(y, (guint)V, r, (guint)(p * sub_terms + e), an);
                    ok = newton_to_monomial(an, r->degree, x0, axes[0].step, coef, &qd);
                    for (guint e0 = 0; e0 < TERMS_1; e0++)
                        w.num[e0 + TERMS_1 * e] = coef[e0];
                }
                ok = ok && mul_ok(qd, lcm[p], &w.den);
                g_array_append_val(out, w);
            }
        }
        g_array_unref(runs);
        g_free(y);
        g_free(lcm);
        if (!ok)
            overflow(error);
        a = b;
    }
    for (guint i = 0; i < m; i++)
        if (slices[i])
            g_array_unref(slices[i]);
    g_free(slices);
    return ok;
}

/* The value of piece p at x, exactly; FALSE on overflow or a remainder. */
static gboolean piece_value(const PiecewisePiece *p, guint vars, const gint64 *x, guint64 *out)
{
    const gint64 *num = p->num;
    gint64 den = p->den;
    if (p->modulus > 1) {
        guint r = (guint)(((x[vars - 1] - p->from[vars - 1]) / p->step) % p->modulus);
        num = p->class_num + (gsize)r * terms_of(vars);
        den = p->class_den[r];
    }
    I128 sum = 0;
    if (p->period) {
        I128 steps = ((I128)x[vars - 1] - p->origin) / p->period; /* x_last ≥ origin in the box */
        if (!mul_ok(steps, p->jump, &sum))
            return FALSE;
    }
    gsize terms = terms_of(vars);
    for (gsize e = 0; e < terms; e++) {
        if (!num[e])
            continue;
        I128 term = num[e];
        for (guint v = 0; v < vars; v++)
            for (guint k = piecewise_power((guint)e, v); k > 0; k--)
                if (!mul_ok(term, x[v], &term))
                    return FALSE;
        if (!add_ok(sum, term, &sum))
            return FALSE;
    }
    if (sum % den || sum < 0 || sum / den > (I128)G_MAXUINT64)
        return FALSE;
    *out = (guint64)(sum / den);
    return TRUE;
}

/* Whether a quasi-polynomial's classes differ only in their constant term. */
static gboolean classes_share(const PiecewisePiece *p, guint terms)
{
    for (guint r = 1; r < p->modulus; r++)
        if (p->class_den[r] != p->class_den[0] ||
            memcmp(p->class_num + (gsize)r * terms + 1, p->class_num + 1, sizeof(gint64) * (terms - 1)))
            return FALSE;
    return p->modulus > 1;
}

/* The first class with class r's formula. */
static guint class_same(const PiecewisePiece *p, guint terms, guint r)
{
    for (guint q = 0; q < r; q++)
        if (p->class_den[q] == p->class_den[r] &&
            !memcmp(p->class_num + (gsize)q * terms, p->class_num + (gsize)r * terms, sizeof(gint64) * terms))
            return q;
    return r;
}

/* An array of pieces with what each owns. */
static void pieces_free(GArray *pieces)
{
    for (guint k = 0; k < pieces->len; k++) {
        PiecewisePiece *p = &g_array_index(pieces, PiecewisePiece, k);
        g_free(p->num);
        g_free(p->class_num);
        g_free(p->class_den);
    }
    g_array_unref(pieces);
}

/* num[0..terms) over den reduced into 64-bit numerators and a positive denominator; FALSE past 63 bits. */
static gboolean reduce_poly(const I128 *num, I128 den, guint terms, gint64 *out_num, gint64 *out_den)
{
    U128 g = abs_u(den);
    for (guint e = 0; e < terms; e++)
        g = gcd_u(g, abs_u(num[e]));
    I128 d = den / (I128)g;
    if (d <= 0 || d > G_MAXINT64)
        return FALSE;
    *out_den = (gint64)d;
    for (guint e = 0; e < terms; e++) {
        I128 n = num[e] / (I128)g;
        if (n < G_MININT64 || n > G_MAXINT64)
            return FALSE;
        out_num[e] = (gint64)n;
    }
    return TRUE;
}

/* The run of one class from index s: points s, s + p, s + 2p, ... of y (m points), the degree and reach (in the
 * class's points) by the header's rule. */
static Run class_run(const I128 *y, guint m, guint s, guint p, I128 *vals, I128 *table)
{
    guint c = (m - 1 - s) / p + 1;
    for (guint k = 0; k < c; k++)
        vals[k] = y[s + (gsize)k * p];
    Run best = {0, run_reach(vals, c, 1, 0, 0, table), 0};
    for (guint d = 1; d <= PIECEWISE_DEGREE && d < c; d++) {
        guint reach = run_reach(vals, c, 1, 0, d, table);
        if (reach > d + 1 && reach > best.len)
            best = (Run){0, reach, d};
    }
    return best;
}

/* A stretch of one variable's points and its period (1: one polynomial). */
typedef struct {
    guint start, len, period;
} Stretch;

/* The header's rule over the classes of each period at once: from the first point not covered, the period whose
 * classes all stay polynomials furthest (at least three points each) wins, the smaller on a tie, one polynomial
 * (period 1) unless a period reaches further. */
static GArray *quasi_stretches(const I128 *y, guint m)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(Stretch));
    I128 *vals = g_new(I128, m + 1), table[TERMS_1];
    for (guint s = 0; s < m;) {
        Stretch best = {s, class_run(y, m, s, 1, vals, table).len, 1};
        for (guint p = 2; p <= 64 && 3 * p <= m - s; p *= 2) {
            guint end = m;
            for (guint r = 0; r < p && end - s > best.len; r++)
                end = MIN(end, s + r + p * class_run(y, m, s + r, p, vals, table).len);
            if (end - s >= 3 * p && end - s > best.len)
                best = (Stretch){s, end - s, p};
        }
        g_array_append_val(out, best);
        s += best.len;
    }
    g_free(vals);
    return out;
}

/* The lines a reader reads for a piece: one, or a quasi-polynomial's distinct formulas unless they differ only in
 * their constant (then one line: piecewise_classes_share). */
static guint piece_formulas(const PiecewisePiece *p, guint terms)
{
    if (p->modulus <= 1 || classes_share(p, terms))
        return 1;
    guint distinct = 0;
    for (guint r = 0; r < p->modulus; r++)
        distinct += class_same(p, terms, r) == r;
    return distinct;
}

/* One variable's values as quasi-polynomial pieces (quasi_stretches), NULL past 63 bits. */
static GArray *quasi_pieces(const PiecewiseAxis *axis, const I128 *y)
{
    GArray *stretches = quasi_stretches(y, axis->count);
    GArray *pieces = g_array_new(FALSE, TRUE, sizeof(PiecewisePiece));
    I128 *vals = g_new(I128, axis->count + 1);
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < stretches->len; k++) {
        const Stretch *st = &g_array_index(stretches, Stretch, k);
        PiecewisePiece piece = {.from = {axis->lo + (gint64)st->start * axis->step}, .step = axis->step,
                                .modulus = st->period > 1 ? st->period : 0};
        piece.to[0] = piece.from[0] + (gint64)(st->len - 1) * axis->step;
        piece.class_num = g_new0(gint64, (gsize)st->period * TERMS_1);
        piece.class_den = g_new0(gint64, st->period);
        for (guint r = 0; ok && r < st->period; r++) {
            I128 table[TERMS_1], a[TERMS_1], coef[TERMS_1], qd;
            guint c = (st->len - 1 - r) / st->period + 1; /* the class's points inside the stretch */
            Run run = class_run(y, st->start + st->len, st->start + r, st->period, vals, table);
            run.len = c;
            newton_of(vals, 1, &run, 0, a);
            ok = newton_to_monomial(a, run.degree, piece.from[0] + (gint64)r * axis->step,
                                    axis->step * (gint64)st->period, coef, &qd) &&
                 reduce_poly(coef, qd, TERMS_1, piece.class_num + (gsize)r * TERMS_1, &piece.class_den[r]);
        }
        piece.num = g_memdup2(piece.class_num, sizeof(gint64) * TERMS_1);
        piece.den = piece.class_den[0];
        if (!piece.modulus) {
            g_clear_pointer(&piece.class_num, g_free);
            g_clear_pointer(&piece.class_den, g_free);
        }
        g_array_append_val(pieces, piece);
    }
    g_free(vals);
    g_array_unref(stretches);
    if (!ok) {
        pieces_free(pieces);
        return NULL;
    }
    return pieces;
}

/* Piece b continues a's staircase along the last variable: the same box in the others, right after a in the last, the
 * same den and numerators but the constant. */
static gboolean stair_next(const PiecewisePiece *a, const PiecewisePiece *b, guint vars, guint terms, gint64 step)
{
    for (guint v = 0; v + 1 < vars; v++)
        if (a->from[v] != b->from[v] || a->to[v] != b->to[v])
            return FALSE;
    if (b->from[vars - 1] != a->to[vars - 1] + step || a->den != b->den || a->period || b->period)
        return FALSE;
    return !memcmp(a->num + 1, b->num + 1, sizeof(gint64) * (terms - 1));
}

/* Runs of three or more pieces that step by one constant every `period` become one piece with a floor term. */
static void fold_staircases(Piecewise *f, gint64 step)
{
    GArray *folded = g_array_new(FALSE, TRUE, sizeof(PiecewisePiece));
    guint n = f->pieces->len, last = f->vars - 1;
    for (guint k = 0; k < n;) {
        PiecewisePiece *a = &g_array_index(f->pieces, PiecewisePiece, k);
        guint end = k + 1; /* pieces k+1 .. end-1 each one period long, their constants jump apart */
        gint64 jump = 0, period = 0;
        if (k + 1 < n && stair_next(a, &g_array_index(f->pieces, PiecewisePiece, k + 1), f->vars, f->terms, step)) {
            const PiecewisePiece *b = &g_array_index(f->pieces, PiecewisePiece, k + 1);
            period = b->to[last] - b->from[last] + step;
            gboolean fits = !__builtin_sub_overflow(b->num[0], a->num[0], &jump) &&
                            a->to[last] - a->from[last] + step <= period;
            for (end = k + 2; fits && end < n; end++) {
                const PiecewisePiece *p = &g_array_index(f->pieces, PiecewisePiece, end - 1),
                                     *q = &g_array_index(f->pieces, PiecewisePiece, end);
                gint64 d;
                if (!stair_next(p, q, f->vars, f->terms, step) || __builtin_sub_overflow(q->num[0], p->num[0], &d) ||
                    d != jump || q->to[last] - q->from[last] + step > period)
                    break;
                if (q->to[last] - q->from[last] + step < period) { /* a shorter last one ends the run */
                    end++;
                    break;
                }
            }
            if (!fits)
                end = k + 1;
        }
        if (end - k >= 3) {
            const PiecewisePiece *b = &g_array_index(f->pieces, PiecewisePiece, k + 1),
                                 *z = &g_array_index(f->pieces, PiecewisePiece, end - 1);
            a->jump = jump;
            a->period = period;
            a->origin = b->from[last] - period;
            a->to[last] = z->to[last];
            for (guint j = k + 1; j < end; j++)
                g_free(g_array_index(f->pieces, PiecewisePiece, j).num);
        } else {
            end = k + 1;
        }
        g_array_append_val(folded, *a);
        k = end;
    }
    g_array_unref(f->pieces);
    f->pieces = folded;
}

/* Every slice of the last variable (the others fixed) fitted on its own with one variable (its quasi-polynomials
 * too), each piece lifted to all the variables: a box of one point in the others, its terms in the last alone. */
static GArray *slice_pieces(const PiecewiseAxis *axes, guint vars, const guint64 *values, GError **error)
{
    guint m = axes[vars - 1].count, terms = (guint)terms_of(vars);
    gsize slices = 1, lift = terms_of(vars - 1); /* the last variable's power e is term e · lift */
    for (guint v = 0; v + 1 < vars; v++)
        slices *= axes[v].count;
    GArray *out = g_array_new(FALSE, TRUE, sizeof(PiecewisePiece));
    for (gsize sl = 0; sl < slices; sl++) {
        Piecewise *one = piecewise_fit(&axes[vars - 1], 1, values + sl * m, error);
        if (!one) {
            pieces_free(out);
            return NULL;
        }
        gint64 outer[PIECEWISE_MAX_VARS];
        gsize rest = sl;
        for (guint v = vars - 1; v-- > 0;) {
            outer[v] = axes[v].lo + (gint64)(rest % axes[v].count) * axes[v].step;
            rest /= axes[v].count;
        }
        for (guint k = 0; k < one->pieces->len; k++) {
            const PiecewisePiece *q = &g_array_index(one->pieces, PiecewisePiece, k);
            PiecewisePiece p = {.den = q->den, .jump = q->jump, .origin = q->origin, .period = q->period,
                                .modulus = q->modulus, .step = q->step, .num = g_new0(gint64, terms)};
            for (guint v = 0; v + 1 < vars; v++)
                p.from[v] = p.to[v] = outer[v];
            p.from[vars - 1] = q->from[0];
            p.to[vars - 1] = q->to[0];
            for (guint e = 0; e < TERMS_1; e++)
                p.num[e * lift] = q->num[e];
            if (q->modulus > 1) {
                p.class_num = g_new0(gint64, (gsize)q->modulus * terms);
                p.class_den = g_memdup2(q->class_den, sizeof(gint64) * q->modulus);
                for (guint r = 0; r < q->modulus; r++)
                    for (guint e = 0; e < TERMS_1; e++)
                        p.class_num[(gsize)r * terms + e * lift] = q->class_num[(gsize)r * TERMS_1 + e];
            }
            g_array_append_val(out, p);
        }
        piecewise_free(one);
    }
    return out;
}

Piecewise *piecewise_fit(const PiecewiseAxis *axes, guint vars, const guint64 *values, GError **error)
{
    if (vars == 0 || vars > PIECEWISE_MAX_VARS) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "a piecewise function has 1 to %d variables, not %u",
                    PIECEWISE_MAX_VARS, vars);
        return NULL;
    }
    gsize points = 1;
    for (guint v = 0; v < vars; v++) {
        if (axes[v].count == 0 || axes[v].step <= 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "variable %u of a piecewise function has no points", v);
            return NULL;
        }
        points *= axes[v].count;
    }
    for (gsize k = 0; k < points; k++)
        if (values[k] > G_MAXINT64) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "value %" G_GSIZE_FORMAT " is %" G_GUINT64_FORMAT
                        ": a piecewise function's values are below 2^63", k, values[k]);
            return NULL;
        }
    I128 *wide = g_new(I128, points);
    for (gsize k = 0; k < points; k++)
        wide[k] = values[k];
    GArray *pieces = g_array_new(FALSE, FALSE, sizeof(Wide));
    g_array_set_clear_func(pieces, wide_clear);
    gboolean ok = fit_grid(axes, vars, wide, pieces, error);
    Piecewise *f = g_new0(Piecewise, 1);
    f->vars = vars;
    f->terms = (guint)terms_of(vars);
    f->pieces = g_array_new(FALSE, TRUE, sizeof(PiecewisePiece));
    for (guint k = 0; ok && k < pieces->len; k++) { /* reduced to 64 bits */
        const Wide *w = &g_array_index(pieces, Wide, k);
        PiecewisePiece p = {.num = g_new0(gint64, f->terms), .den = 1};
        memcpy(p.from, w->from, sizeof p.from);
        memcpy(p.to, w->to, sizeof p.to);
        ok = reduce_poly(w->num, w->den, f->terms, p.num, &p.den) || overflow(error);
        g_array_append_val(f->pieces, p);
    }
    g_array_unref(pieces);
    if (ok)
        fold_staircases(f, axes[vars - 1].step);
    /* the quasi-polynomial pieces where the plain ones are many (on at most 65,536 points: the greedy rule over the
     * periods may meet each point once per period and start) */
    GArray *quasi = ok && vars == 1 && f->pieces->len > 2 && axes[0].count <= 65536 ? quasi_pieces(axes, wide) : NULL;
    guint plain = f->pieces->len, read = 0;
    for (guint k = 0; quasi && k < quasi->len; k++)
        read += piece_formulas(&g_array_index(quasi, PiecewisePiece, k), f->terms);
    if (quasi && read < plain) { /* fewer formulas to read: the quasi-polynomial pieces */
        pieces_free(f->pieces);
        f->pieces = g_steal_pointer(&quasi);
    }
    if (quasi)
        pieces_free(quasi);
    g_free(wide);
    if (ok && vars > 1 && f->pieces->len > 2) { /* each slice of the last variable on its own, where that reads shorter */
        GArray *sliced = slice_pieces(axes, vars, values, error);
        ok = sliced != NULL;
        guint whole = 0, apart = 0;
        for (guint k = 0; ok && k < f->pieces->len; k++)
            whole += piece_formulas(&g_array_index(f->pieces, PiecewisePiece, k), f->terms);
        for (guint k = 0; ok && k < sliced->len; k++)
            apart += piece_formulas(&g_array_index(sliced, PiecewisePiece, k), f->terms);
        GArray *drop = ok && apart < whole ? f->pieces : sliced;
        if (ok && apart < whole)
            f->pieces = sliced;
        if (drop)
            pieces_free(drop);
    }
    /* every point of every box, again from the 64-bit piece */
    for (guint k = 0; ok && k < f->pieces->len; k++) {
        const PiecewisePiece *p = &g_array_index(f->pieces, PiecewisePiece, k);
        gsize count = 1;
        guint n[PIECEWISE_MAX_VARS];
        for (guint v = 0; v < vars; v++)
            count *= n[v] = (guint)((p->to[v] - p->from[v]) / axes[v].step + 1);
        for (gsize i = 0; ok && i < count; i++) {
            gint64 x[PIECEWISE_MAX_VARS];
            gsize flat = 0, rest = i;
            for (guint v = vars; v-- > 0;) {
                guint at = (guint)(rest % n[v]);
                rest /= n[v];
                x[v] = p->from[v] + (gint64)at * axes[v].step;
            }
            for (guint v = 0; v < vars; v++)
                flat = flat * axes[v].count + (gsize)((x[v] - axes[v].lo) / axes[v].step);
            guint64 got;
            ok = piece_value(p, vars, x, &got) && got == values[flat];
        }
        if (!ok)
            overflow(error);
    }
    if (!ok) {
        piecewise_free(f);
        return NULL;
    }
    return f;
}

void piecewise_free(Piecewise *f)
{
    if (!f)
        return;
    pieces_free(f->pieces);
    g_free(f);
}

gboolean piecewise_eval(const Piecewise *f, const gint64 *x, guint64 *out)
{
    for (guint k = 0; k < f->pieces->len; k++) {
        const PiecewisePiece *p = &g_array_index(f->pieces, PiecewisePiece, k);
        gboolean inside = TRUE;
        for (guint v = 0; inside && v < f->vars; v++)
            inside = x[v] >= p->from[v] && x[v] <= p->to[v];
        if (inside)
            return piece_value(p, f->vars, x, out);
    }
    return FALSE;
}

static guint total_degree(guint e, guint vars)
{
    guint d = 0;
    for (guint v = 0; v < vars; v++)
        d += piecewise_power(e, v);
    return d;
}

static gint by_degree(gconstpointer a, gconstpointer b, gpointer vars)
{
    guint x = *(const guint *)a, y = *(const guint *)b, n = GPOINTER_TO_UINT(vars);
    guint dx = total_degree(x, n), dy = total_degree(y, n);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return x > y ? -1 : x < y; /* the higher power of the last variable first */
}

/* " + 64·floor((seq - 1) / 16)" (first: no sign before a positive jump). */
static void floor_term(GString *s, const PiecewisePiece *p, const char *name, gboolean first)
{
    guint64 mag = p->jump < 0 ? (guint64)0 - (guint64)p->jump : (guint64)p->jump;
    g_string_append(s, first ? (p->jump < 0 ? "-" : "") : p->jump < 0 ? " - " : " + ");
    if (mag != 1) {
        char *count = sim_format_count(mag);
        g_string_append_printf(s, "%s·", count);
        g_free(count);
    }
    if (p->origin == 0)
        g_string_append_printf(s, "floor(%s / %" G_GINT64_FORMAT ")", name, p->period);
    else
        g_string_append_printf(s, "floor((%s %s %" G_GINT64_FORMAT ") / %" G_GINT64_FORMAT ")", name,
                               p->origin < 0 ? "+" : "-", p->origin < 0 ? -p->origin : p->origin, p->period);
}

/* A polynomial (num over den, with p's floor term when p is given) for a reader. */
static char *poly_text(const gint64 *num, gint64 den, const PiecewisePiece *p, guint vars, guint terms,
                       const char *const *names)
{
    guint *order = g_new(guint, terms), n = 0;
    for (guint e = 0; e < terms; e++)
        if (num[e])
            order[n++] = e;
    g_qsort_with_data(order, (gint)n, sizeof(guint), by_degree, GUINT_TO_POINTER(vars));
    gboolean floor = p && p->period;
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < n; i++) {
        if (floor && total_degree(order[i], vars) == 0)
            floor_term(s, p, names[vars - 1], s->len == 0);
        gint64 c = num[order[i]];
        guint64 mag = c < 0 ? (guint64)0 - (guint64)c : (guint64)c;
        if (s->len == 0)
            g_string_append(s, c < 0 ? "-" : "");
        else
            g_string_append(s, c < 0 ? " - " : " + ");
        gboolean constant = total_degree(order[i], vars) == 0;
        if (mag != 1 || constant) {
            char *count = sim_format_count(mag);
            g_string_append(s, count);
            g_free(count);
        }
        gboolean first = mag == 1 && !constant;
        for (guint v = 0; v < vars; v++) {
            guint power = piecewise_power(order[i], v);
            if (!power)
                continue;
            g_string_append_printf(s, "%s%s", first ? "" : "·", names[v]);
            first = FALSE;
            if (power > 1)
                g_string_append_printf(s, "^%u", power);
        }
    }
    if (floor && (n == 0 || total_degree(order[n - 1], vars) != 0))
        floor_term(s, p, names[vars - 1], s->len == 0);
    if (n == 0 && !floor)
        g_string_append(s, "0");
    g_free(order);
    if (den != 1) {
        char *d = sim_format_count((guint64)den);
        if (n + floor > 1) {
            g_string_prepend_c(s, '(');
            g_string_append_c(s, ')');
        }
        g_string_append_printf(s, " / %s", d);
        g_free(d);
    }
    return g_string_free(s, FALSE);
}

static gint compare_gint64(gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return x < y ? -1 : x > y;
}

guint piecewise_class_same(const Piecewise *f, guint k, guint r)
{
    return class_same(&g_array_index(f->pieces, PiecewisePiece, k), f->terms, r);
}

GArray *piecewise_class_residues(const Piecewise *f, guint k, guint r)
{
    const PiecewisePiece *p = &g_array_index(f->pieces, PiecewisePiece, k);
    gint64 cycle = p->step * (gint64)p->modulus;
    GArray *residues = g_array_new(FALSE, FALSE, sizeof(gint64));
    for (guint q = r; q < p->modulus; q++)
        if (class_same(p, f->terms, q) == r) {
            gint64 residue = ((p->from[f->vars - 1] + (gint64)q * p->step) % cycle + cycle) % cycle;
            g_array_append_val(residues, residue);
        }
    g_array_sort(residues, compare_gint64);
    return residues;
}

char **piecewise_classes_text(const Piecewise *f, guint k, const char *const *names)
{
    const PiecewisePiece *p = &g_array_index(f->pieces, PiecewisePiece, k);
    GPtrArray *out = g_ptr_array_new();
    for (guint r = 0; r < p->modulus; r++) {
        if (class_same(p, f->terms, r) != r)
            continue;
        GArray *residues = piecewise_class_residues(f, k, r);
        GString *text = g_string_new(NULL);
        for (guint q = 0; q < residues->len; q++)
            g_string_append_printf(text, "%s%" G_GINT64_FORMAT, q ? ", " : "", g_array_index(residues, gint64, q));
        g_array_unref(residues);
        g_ptr_array_add(out, g_string_free(text, FALSE));
        g_ptr_array_add(out, poly_text(p->class_num + (gsize)r * f->terms, p->class_den[r], NULL, f->vars, f->terms,
                                       names));
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

gboolean piecewise_classes_share(const Piecewise *f, guint k)
{
    return classes_share(&g_array_index(f->pieces, PiecewisePiece, k), f->terms);
}

char *piecewise_text(const Piecewise *f, guint k, const char *const *names)
{
    const PiecewisePiece *p = &g_array_index(f->pieces, PiecewisePiece, k);
    if (p->modulus <= 1)
        return poly_text(p->num, p->den, p, f->vars, f->terms, names);
    const char *x = names[f->vars - 1];
    gint64 cycle = p->step * (gint64)p->modulus;
    GString *s = g_string_new(NULL);
    if (piecewise_classes_share(f, k)) { /* "P + c, c by seq mod 16: 0: 128, 1: 284, ..." */
        gint64 *num = g_memdup2(p->class_num, sizeof(gint64) * f->terms);
        num[0] = 0;
        char *rest = poly_text(num, p->class_den[0], NULL, f->vars, f->terms, names);
        g_free(num);
        gboolean zero = !strcmp(rest, "0");
        g_string_append_printf(s, "%s%sc%s, c by %s mod %" G_GINT64_FORMAT ":", p->class_den[0] != 1 ? "(" : "",
                               zero ? "" : rest, zero ? "" : "", x, cycle);
        if (!zero) { /* "P + c": the constant after the rest */
            g_string_truncate(s, 0);
            g_string_append_printf(s, "%s%s + c%s, c by %s mod %" G_GINT64_FORMAT ":", p->class_den[0] != 1 ? "(" : "",
                                   rest, p->class_den[0] != 1 ? ")" : "", x, cycle);
        }
        g_free(rest);
        for (gint64 residue = 0; residue < cycle; residue += p->step) {
            guint r = (guint)((((residue - p->from[f->vars - 1]) % cycle + cycle) % cycle) / p->step);
            char *c = sim_format_count((guint64)ABS(p->class_num[(gsize)r * f->terms]));
            g_string_append_printf(s, "%s %" G_GINT64_FORMAT ": %s%s", residue ? "," : "", residue,
                                   p->class_num[(gsize)r * f->terms] < 0 ? "-" : "", c);
            g_free(c);
        }
        if (p->class_den[0] != 1)
            g_string_append_printf(s, " (over %" G_GINT64_FORMAT ")", p->class_den[0]);
        return g_string_free(s, FALSE);
    }
    /* "seq ≡ 0, 8 (mod 16): F; seq ≡ ...: G" */
    char **classes = piecewise_classes_text(f, k, names);
    for (char **c = classes; c[0]; c += 2)
        g_string_append_printf(s, "%s%s ≡ %s (mod %" G_GINT64_FORMAT "): %s", s->len ? "; " : "", x, c[0], cycle, c[1]);
    g_strfreev(classes);
    return g_string_free(s, FALSE);
}
