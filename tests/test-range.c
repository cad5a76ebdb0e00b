/* test-range.c — planning over ranges of dims: the exact piecewise fit (base/piecewise.h) on values whose formula is
 * known, with rational coefficients, steps, several variables, breaks and random piecewise polynomials; and the
 * range planner through the sim binary (`--dim NAME=LO:HI`), its function checked against one `sim` run per value
 * (the per-binding oracle), its one plan verified at every value, and its refusals. */
#include "base/piecewise.h"
#include "tests/testutil.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* Values of f over a 1-D grid, fitted; the caller frees both. */
static Piecewise *fit_1d(gint64 lo, gint64 step, guint count, guint64 (*f)(gint64), guint64 **values)
{
    *values = g_new(guint64, count);
    for (guint i = 0; i < count; i++)
        (*values)[i] = f(lo + (gint64)i * step);
    PiecewiseAxis axis = {lo, step, count};
    GError *error = NULL;
    Piecewise *p = piecewise_fit(&axis, 1, *values, &error);
    g_assert_no_error(error);
    return p;
}

static char *text_of(const Piecewise *p, guint k, const char *name)
{
    return piecewise_text(p, k, (const char *const[]){name});
}

static guint64 gpt2_like(gint64 x) { return 3072 * (guint64)x + 2555904; }
static guint64 triangle(gint64 x) { return (guint64)(x * (x + 1) / 2); }
static guint64 clamped(gint64 x) { return 10 * (guint64)MIN(x, 50); }
static guint64 staircase(gint64 x) { return 64 * (guint64)((x + 7) / 8); }
static guint64 cubic(gint64 x) { return (guint64)(7 * x * x * x + 48 * x * x + 1); }

static void test_piecewise_linear(void)
{
    guint64 *v;
    Piecewise *p = fit_1d(1, 1, 1024, gpt2_like, &v);
    g_assert_cmpuint(p->pieces->len, ==, 1);
    char *text = text_of(p, 0, "seq");
    g_assert_cmpstr(text, ==, "3,072·seq + 2,555,904");
    const PiecewisePiece *piece = &g_array_index(p->pieces, PiecewisePiece, 0);
    g_assert_cmpint(piece->from[0], ==, 1);
    g_assert_cmpint(piece->to[0], ==, 1024);
    guint64 at;
    g_assert_true(piecewise_eval(p, (const gint64[]){777}, &at));
    g_assert_cmpuint(at, ==, gpt2_like(777));
    g_assert_false(piecewise_eval(p, (const gint64[]){1025}, &at)); /* outside every piece */
    g_free(text);
    g_free(v);
    piecewise_free(p);
}

/* x(x+1)/2: a rational formula; and a cubic on a step of 16 */
static void test_piecewise_rational_and_step(void)
{
    guint64 *v;
    Piecewise *p = fit_1d(1, 1, 100, triangle, &v);
    g_assert_cmpuint(p->pieces->len, ==, 1);
    char *text = text_of(p, 0, "n");
    g_assert_cmpstr(text, ==, "(n^2 + n) / 2");
    g_free(text);
    g_free(v);
    piecewise_free(p);
    p = fit_1d(16, 16, 64, cubic, &v);
    g_assert_cmpuint(p->pieces->len, ==, 1);
    text = text_of(p, 0, "seq");
    g_assert_cmpstr(text, ==, "7·seq^3 + 48·seq^2 + 1");
    g_assert_cmpint(g_array_index(p->pieces, PiecewisePiece, 0).to[0], ==, 16 * 64);
    g_free(text);
    g_free(v);
    piecewise_free(p);
}

/* a clamp breaks the line once; a staircase (a rounding up) is exact piece by piece */
static void test_piecewise_breaks(void)
{
    guint64 *v;
    Piecewise *p = fit_1d(1, 1, 100, clamped, &v);
    g_assert_cmpuint(p->pieces->len, ==, 2);
    const PiecewisePiece *a = &g_array_index(p->pieces, PiecewisePiece, 0), *b = &g_array_index(p->pieces, PiecewisePiece, 1);
    g_assert_cmpint(a->to[0], ==, 50);
    g_assert_cmpint(b->from[0], ==, 51);
    char *ta = text_of(p, 0, "x"), *tb = text_of(p, 1, "x");
    g_assert_cmpstr(ta, ==, "10·x");
    g_assert_cmpstr(tb, ==, "500");
    g_free(ta);
    g_free(tb);
    g_free(v);
    piecewise_free(p);
    p = fit_1d(1, 1, 64, staircase, &v);
    for (gint64 x = 1; x <= 64; x++) {
        guint64 at;
        g_assert_true(piecewise_eval(p, &x, &at));
        g_assert_cmpuint(at, ==, staircase(x));
    }
    g_assert_cmpuint(p->pieces->len, <=, 8); /* a constant for each step of 8 */
    g_free(v);
    piecewise_free(p);
}

/* batch × seq: one piece where the formula is one, and a separate row where batch 1 differs */
static void test_piecewise_two_vars(void)
{
    PiecewiseAxis axes[2] = {{1, 1, 8}, {1, 1, 64}};
    guint64 *v = g_new(guint64, 8 * 64), *w = g_new(guint64, 8 * 64);
    for (gint64 b = 1; b <= 8; b++)
        for (gint64 s = 1; s <= 64; s++) {
            v[(b - 1) * 64 + (s - 1)] = (guint64)(b * (48 * s * s + 3072 * s) + 1000);
            w[(b - 1) * 64 + (s - 1)] = (guint64)(b == 1 ? 10 * s : 20 * b * s);
        }
    GError *error = NULL;
    Piecewise *p = piecewise_fit(axes, 2, v, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->pieces->len, ==, 1);
    char *text = piecewise_text(p, 0, (const char *const[]){"batch", "seq"});
    g_assert_cmpstr(text, ==, "48·batch·seq^2 + 3,072·batch·seq + 1,000");
    g_free(text);
    piecewise_free(p);
    p = piecewise_fit(axes, 2, w, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->pieces->len, ==, 2);
    text = piecewise_text(p, 1, (const char *const[]){"batch", "seq"});
    g_assert_cmpstr(text, ==, "20·batch·seq");
    g_assert_cmpint(g_array_index(p->pieces, PiecewisePiece, 1).from[0], ==, 2);
    g_free(text);
    piecewise_free(p);
    g_free(v);
    g_free(w);
}

/* Random piecewise polynomials (breaks, degrees up to 3, steps) on one and two variables: every point read back
 * exactly from the fit, every point in exactly one piece; random 63-bit values too (no formula: pieces of one).
 * And values past 2^63, refused. */
static void test_piecewise_random(void)
{
    GRand *rng = g_rand_new_with_seed(20261128);
    for (guint round = 0; round < 200; round++) {
        guint vars = 1 + round % 2;
        PiecewiseAxis axes[2];
        gsize points = 1;
        for (guint d = 0; d < vars; d++) {
            axes[d] = (PiecewiseAxis){g_rand_int_range(rng, 0, 50), g_rand_int_range(rng, 1, 5),
                                      (guint)g_rand_int_range(rng, 1, vars == 1 ? 300 : 40)};
            points *= axes[d].count;
        }
        guint64 *v = g_new(guint64, points);
        gint64 c[4][4];
        gint64 cut = axes[vars - 1].lo + (gint64)g_rand_int_range(rng, 0, (gint32)axes[vars - 1].count) * axes[vars - 1].step;
        for (gsize k = 0; k < points; k++) {
            gint64 x[2] = {0, 0};
            gsize rest = k;
            for (guint d = vars; d-- > 0;) {
                x[d] = axes[d].lo + (gint64)(rest % axes[d].count) * axes[d].step;
                rest /= axes[d].count;
            }
            if (k == 0 || (vars == 1 && x[0] == cut))
                for (guint i = 0; i < 4; i++)
                    for (guint j = 0; j < 4; j++)
                        c[i][j] = g_rand_int_range(rng, 0, 1000);
            gint64 y = 0, xs = x[vars - 1], xb = vars == 2 ? x[0] : 1;
            for (guint i = 0; i < 4; i++)
                y += c[i][0] * (i == 0 ? 1 : i == 1 ? xs : i == 2 ? xs * xs : xs * xs * xs) * (1 + (gint64)(c[i][1] % 3) * xb);
            v[k] = round % 7 == 6 ? g_rand_int(rng) * (guint64)g_rand_int(rng) / 2 : (guint64)y;
        }
        GError *error = NULL;
        Piecewise *p = piecewise_fit(axes, vars, v, &error);
        g_assert_no_error(error);
        for (gsize k = 0; k < points; k++) {
            gint64 x[2] = {0, 0};
            gsize rest = k;
            for (guint d = vars; d-- > 0;) {
                x[d] = axes[d].lo + (gint64)(rest % axes[d].count) * axes[d].step;
                rest /= axes[d].count;
            }
            guint inside = 0;
            for (guint q = 0; q < p->pieces->len; q++) {
                const PiecewisePiece *piece = &g_array_index(p->pieces, PiecewisePiece, q);
                gboolean in = TRUE;
                for (guint d = 0; d < vars; d++)
                    in = in && x[d] >= piece->from[d] && x[d] <= piece->to[d];
                inside += in;
            }
            g_assert_cmpuint(inside, ==, 1);
            guint64 at = 0;
            g_assert_true(piecewise_eval(p, x, &at));
            g_assert_cmpuint(at, ==, v[k]);
        }
        piecewise_free(p);
        g_free(v);
    }
    g_rand_free(rng);
    PiecewiseAxis axis = {1, 1, 2};
    GError *error = NULL;
    g_assert_null(piecewise_fit(&axis, 1, (const guint64[]){1, (guint64)1 << 63}, &error));
    g_assert_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED);
    g_assert_nonnull(strstr(error->message, "2^63"));
    g_error_free(error);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/piecewise/linear", test_piecewise_linear);
    g_test_add_func("/piecewise/rational-and-step", test_piecewise_rational_and_step);
    g_test_add_func("/piecewise/breaks", test_piecewise_breaks);
    g_test_add_func("/piecewise/two-vars", test_piecewise_two_vars);
    g_test_add_func("/piecewise/random", test_piecewise_random);
    return g_test_run();
}
