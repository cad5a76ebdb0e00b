/* test-range.c — planning over ranges of dims: the exact piecewise fit (base/piecewise.h) on values whose formula is
 * known, with rational coefficients, steps, several variables, breaks and random piecewise polynomials; and the
 * range planner through the sim binary (`--dim NAME=LO:HI`), its function checked against one `sim` run per value
 * (the per-binding oracle), its one plan verified at every value, and its refusals. */
#include "base/piecewise.h"
#include "tests/testutil.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
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

/* a clamp breaks the line once; a staircase (a rounding up) folds into one piece with a floor term */
static void test_piecewise_breaks(void)
{
    guint64 *v;
    Piecewise *p = fit_1d(1, 1, 100, clamped, &v);
    g_assert_cmpuint(p->pieces->len, ==, 2);
    const PiecewisePiece *a = &g_array_index(p->pieces, PiecewisePiece, 0);
    const PiecewisePiece *b = &g_array_index(p->pieces, PiecewisePiece, 1);
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
    g_assert_cmpuint(p->pieces->len, ==, 1); /* a constant for each step of 8, folded */
    char *stair = text_of(p, 0, "x");
    g_assert_cmpstr(stair, ==, "64·floor((x - 1) / 8) + 64");
    g_free(stair);
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

/* Alignment: a line rounded up to 64 bytes is a staircase folded into one piece; a quadratic rounded up, one
 * quasi-polynomial piece whose classes differ in their constant; two variables whose slices are such pieces are
 * written slice by slice. */
static guint64 rounded(gint64 x) { return (guint64)((9220 * x + 63) / 64 * 64); }
static guint64 rounded_square(gint64 x) { return (guint64)((32 * x * x + 2052 * x + 48 + 63) / 64 * 64 + 80); }

static void test_piecewise_quasi(void)
{
    guint64 *v;
    Piecewise *p = fit_1d(1, 1, 223, rounded, &v); /* a line rounded up: a staircase, folded */
    g_assert_cmpuint(p->pieces->len, ==, 1);
    char *text = text_of(p, 0, "seq");
    g_assert_cmpstr(text, ==, "9,216·seq + 64·floor((seq - 1) / 16) + 64");
    g_free(text);
    g_free(v);
    piecewise_free(p);
    p = fit_1d(224, 1, 289, rounded_square, &v); /* a quadratic rounded up: a quasi-polynomial */
    g_assert_cmpuint(p->pieces->len, ==, 1);
    g_assert_cmpuint(g_array_index(p->pieces, PiecewisePiece, 0).modulus, ==, 16);
    g_assert_true(piecewise_classes_share(p, 0));
    text = text_of(p, 0, "seq");
    g_assert_true(g_str_has_prefix(text, "32·seq^2 + 2,052·seq + c, c by seq mod 16: 0: "));
    g_free(text);
    for (gint64 x = 224; x <= 512; x++) {
        guint64 at;
        g_assert_true(piecewise_eval(p, &x, &at));
        g_assert_cmpuint(at, ==, rounded_square(x));
    }
    g_free(v);
    piecewise_free(p);
    /* batch × seq: slice by slice, each one piece */
    PiecewiseAxis axes[2] = {{1, 1, 4}, {1, 1, 100}};
    v = g_new(guint64, 400);
    for (gint64 b = 1; b <= 4; b++)
        for (gint64 x = 1; x <= 100; x++)
            v[(b - 1) * 100 + (x - 1)] = (guint64)((9220 * b * x + 63) / 64 * 64);
    GError *error = NULL;
    p = piecewise_fit(axes, 2, v, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->pieces->len, ==, 4);
    for (guint k = 0; k < 4; k++) /* batch=b alone in each box */
        g_assert_cmpint(g_array_index(p->pieces, PiecewisePiece, k).from[0], ==,
                        g_array_index(p->pieces, PiecewisePiece, k).to[0]);
    for (gint64 b = 1; b <= 4; b++)
        for (gint64 x = 1; x <= 100; x++) {
            guint64 at;
            g_assert_true(piecewise_eval(p, (const gint64[]){b, x}, &at));
            g_assert_cmpuint(at, ==, v[(b - 1) * 100 + (x - 1)]);
        }
    g_free(v);
    piecewise_free(p);
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
        const PiecewiseAxis *last = &axes[vars - 1];
        gint64 cut = last->lo + (gint64)g_rand_int_range(rng, 0, (gint32)last->count) * last->step;
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
                y += c[i][0] * (i == 0 ? 1 : i == 1 ? xs : i == 2 ? xs * xs : xs * xs * xs) *
                     (1 + (gint64)(c[i][1] % 3) * xb);
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

/* ---- the range planner through the sim binary ---- */

static char *torch_model(const char *name)
{
    char *rel = g_strdup_printf("graphs/models/torch/%s.onnx", name), *path = test_source_path(rel);
    g_free(rel);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        g_error("%s is missing: make models exports it", path); /* make test runs make models first */
    return path;
}

static JsonNode *json_root(const char *text, JsonParser **keep)
{
    *keep = json_parser_new();
    GError *error = NULL;
    g_assert_true(json_parser_load_from_data(*keep, text, -1, &error));
    g_assert_no_error(error);
    return json_parser_get_root(*keep);
}

static JsonObject *json_of(const char *text, JsonParser **keep) { return json_node_get_object(json_root(text, keep)); }

/* The value of a function of the report ("arena_by_dims", ...) at x (names[d] = x[d]), from its JSON alone. */
static guint64 json_function_at(JsonObject *report, const char *member, const char *const *names, const gint64 *x,
                                guint n)
{
    JsonArray *pieces = json_object_get_array_member(report, member);
    for (guint k = 0; k < json_array_get_length(pieces); k++) {
        JsonObject *p = json_array_get_object_element(pieces, k);
        JsonObject *from = json_object_get_object_member(p, "from"), *to = json_object_get_object_member(p, "to");
        gboolean inside = TRUE;
        for (guint d = 0; d < n; d++)
            inside = inside && x[d] >= json_object_get_int_member(from, names[d]) &&
                     x[d] <= json_object_get_int_member(to, names[d]);
        if (!inside)
            continue;
        JsonObject *poly = p; /* a quasi-polynomial: the class of x's residue */
        if (json_object_has_member(p, "classes")) {
            gint64 cycle = json_object_get_int_member(p, "cycle"), residue = ((x[n - 1] % cycle) + cycle) % cycle;
            JsonArray *classes = json_object_get_array_member(p, "classes");
            poly = NULL;
            for (guint c = 0; !poly && c < json_array_get_length(classes); c++) {
                JsonObject *cl = json_array_get_object_element(classes, c);
                JsonArray *residues = json_object_get_array_member(cl, "residues");
                for (guint q = 0; q < json_array_get_length(residues); q++)
                    if (json_array_get_int_element(residues, q) == residue)
                        poly = cl;
            }
            g_assert_nonnull(poly);
        }
        __int128 sum = 0;
        JsonArray *terms = json_object_get_array_member(poly, "terms");
        for (guint t = 0; t < json_array_get_length(terms); t++) {
            JsonObject *term = json_array_get_object_element(terms, t);
            __int128 v = json_object_get_int_member(term, "coef");
            JsonObject *pow = json_object_get_object_member(term, "pow");
            for (guint d = 0; d < n; d++)
                for (gint64 e = json_object_has_member(pow, names[d]) ? json_object_get_int_member(pow, names[d]) : 0;
                     e > 0; e--)
                    v *= x[d];
            sum += v;
        }
        if (json_object_has_member(p, "floor") && !json_object_get_null_member(p, "floor")) {
            JsonObject *fl = json_object_get_object_member(p, "floor");
            g_assert_cmpstr(json_object_get_string_member(fl, "var"), ==, names[n - 1]);
            sum += (__int128)json_object_get_int_member(fl, "coef") *
                   ((x[n - 1] - json_object_get_int_member(fl, "origin")) / json_object_get_int_member(fl, "period"));
        }
        gint64 den = json_object_get_int_member(poly, "den");
        g_assert_true(sum % den == 0);
        return (guint64)(sum / den);
    }
    g_error("no piece of %s holds the point", member);
}

/* GPT-2 (torch's export) over seq 1..24: the function in the JSON gives, at every seq, the arena and the lower bound
 * of `sim --dim seq=S` run on its own (the per-binding oracle, another process); --range-check agrees everywhere;
 * the plans verified at every point; the CSV has a row a point. */
static void test_range_gpt2_oracle(void)
{
    char *model = torch_model("gpt2-torch");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1:24",
                                                        "--range-check", "--range-one-plan", "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *keep;
    JsonObject *report = json_of(r.out, &keep);
    g_assert_cmpint(json_object_get_int_member(report, "points"), ==, 24);
    JsonObject *check = json_object_get_object_member(report, "check");
    g_assert_cmpint(json_object_get_int_member(check, "equal"), ==, 24);
    g_assert_cmpint(json_object_get_int_member(check, "traces_differ"), ==, 0);
    g_assert_cmpint(json_object_get_int_member(report, "interpolated_points"), >, 0); /* sized between loads */
    JsonArray *plans = json_object_get_array_member(report, "range_plans");
    gint64 covered = 0;
    for (guint k = 0; k < json_array_get_length(plans); k++)
        covered += json_object_get_int_member(json_array_get_object_element(plans, k), "points");
    g_assert_cmpint(covered, ==, 24); /* every point under a plan moved there and verified */
    g_assert_cmpuint(json_array_get_length(plans), ==, 2); /* seq 1, where the QKV Splits alias, and the rest */
    /* one plan for all: seq=1 loaded again with its buffers kept apart (the Splits copy there) */
    JsonObject *single = json_object_get_object_member(report, "one_plan");
    g_assert_cmpint(json_object_get_int_member(single, "points"), ==, 24);
    g_assert_cmpint(json_object_get_int_member(single, "kept_apart"), ==, 1);
    g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(single, "top"), "seq"), ==, 24);
    gint64 top = 24;
    g_assert_cmpuint(json_object_get_int_member(single, "arena_at_last_point"), ==,
                     json_function_at(report, "arena_by_dims", (const char *const[]){"seq"}, &top, 1));
    for (gint64 seq = 1; seq <= 24; seq++) {
        if (!test_sampled(seq))
            continue;
        char *bind = g_strdup_printf("seq=%" G_GINT64_FORMAT, seq);
        RunResult one = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", bind,
                                                              "--order", "file", "--format", "json", NULL});
        g_assert_cmpint(one.status, ==, 0);
        JsonParser *keep_one;
        JsonObject *row = json_array_get_object_element(json_node_get_array(json_root(one.out, &keep_one)), 0);
        const char *names[] = {"seq"};
        g_assert_cmpuint(json_function_at(report, "arena_by_dims", names, &seq, 1), ==,
                         (guint64)json_object_get_int_member(row, "arena_bytes"));
        g_assert_cmpuint(json_function_at(report, "lower_bound_by_dims", names, &seq, 1), ==,
                         (guint64)json_object_get_int_member(row, "lower_bound_bytes"));
        g_object_unref(keep_one);
        run_result_clear(&one);
        g_free(bind);
    }
    g_object_unref(keep);
    run_result_clear(&r);
    /* the CSV: a row a point, its columns the dims and the figures */
    r = test_run("SIM_BIN",
                 (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1:24", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    char **lines = g_strsplit(r.out, "\n", -1);
    g_assert_cmpstr(lines[0], ==, "seq,arena_bytes,lower_bound_bytes,range_plan_arena_bytes,placed");
    g_assert_cmpuint(g_strv_length(lines), ==, 26); /* header, 24 rows, the empty string after the last newline */
    g_assert_true(g_str_has_prefix(lines[24], "24,"));
    g_strfreev(lines);
    run_result_clear(&r);
    g_free(model);
}

/* Sized between loads or every point loaded (--range-every): the same figures at every point. */
static void test_range_sampled_is_every(void)
{
    char *model = torch_model("gpt2-torch");
    RunResult a = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1:60",
                                                        "--format", "csv", NULL});
    RunResult b = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1:60",
                                                        "--range-every", "--format", "csv", NULL});
    g_assert_cmpint(a.status, ==, 0);
    g_assert_cmpint(b.status, ==, 0);
    char **ra = g_strsplit(a.out, "\n", -1), **rb = g_strsplit(b.out, "\n", -1);
    g_assert_cmpuint(g_strv_length(ra), ==, g_strv_length(rb));
    for (guint k = 0; ra[k]; k++) { /* seq, arena, lower_bound (the placed column differs: fewer loads, fewer plans) */
        char **fa = g_strsplit(ra[k], ",", 4), **fb = g_strsplit(rb[k], ",", 4);
        for (guint c = 0; c < 3 && fa[c]; c++)
            g_assert_cmpstr(fa[c], ==, fb[c]);
        g_strfreev(fa);
        g_strfreev(fb);
    }
    g_strfreev(ra);
    g_strfreev(rb);
    run_result_clear(&a);
    run_result_clear(&b);
    /* and in text, the formula of the staircase the 64-byte alignment makes */
    RunResult t =
        test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=2:60", NULL});
    g_assert_cmpint(t.status, ==, 0);
    assert_contains(t.out, "arena          204,096·seq + 64·floor((seq - 1) / 16) + 64 B  for seq 2..60\n");
    assert_contains(t.out, "lower bound    204,100·seq B  for seq 2..60\n");
    run_result_clear(&t);
    g_free(model);
}

/* Two dims (batch × seq) of the encoder–decoder, with a step: --range-check finds the function equal to each point's
 * own plan, no trace planned differs from the one loaded; --plot range draws it. */
static void test_range_decoder_two_dims(void)
{
    char *model = torch_model("decoder-torch");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1:2", "--dim", "seq=2:26:4",
                                                        "--dim", "mem=8", "--range-check", "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *keep;
    JsonObject *report = json_of(r.out, &keep);
    g_assert_cmpint(json_object_get_int_member(report, "points"), ==, 14);
    JsonObject *check = json_object_get_object_member(report, "check");
    g_assert_cmpint(json_object_get_int_member(check, "equal"), ==, 14);
    g_assert_cmpint(json_object_get_int_member(check, "traces_differ"), ==, 0);
    const char *names[] = {"batch", "seq"};
    gint64 x[2] = {2, 26};
    g_assert_cmpuint(json_function_at(report, "lower_bound_by_dims", names, x, 2), >,
                     json_function_at(report, "lower_bound_by_dims", names, (const gint64[]){1, 2}, 2));
    /* the JSON's functions give every row of the CSV, the per-point figures they were fitted from */
    RunResult csv = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1:2", "--dim", "seq=2:26:4",
                                                          "--dim", "mem=8", "--format", "csv", NULL});
    g_assert_cmpint(csv.status, ==, 0);
    char **rows = g_strsplit(csv.out, "\n", -1);
    g_assert_cmpstr(rows[0], ==, "batch,seq,arena_bytes,lower_bound_bytes,range_plan_arena_bytes,placed");
    guint checked = 0;
    for (char **row = rows + 1; *row && **row; row++, checked++) {
        gint64 point[2];
        guint64 arena, bound;
        g_assert_cmpint(sscanf(*row, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
                               &point[0], &point[1], &arena, &bound), ==, 4);
        g_assert_cmpuint(json_function_at(report, "arena_by_dims", names, point, 2), ==, arena);
        g_assert_cmpuint(json_function_at(report, "lower_bound_by_dims", names, point, 2), ==, bound);
    }
    g_assert_cmpuint(checked, ==, 14);
    g_strfreev(rows);
    run_result_clear(&csv);
    g_object_unref(keep);
    run_result_clear(&r);
    /* its picture: a line per batch, the checked points on them */
    char *png = test_scratch_path("decoder-range.png");
    r = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1:2", "--dim", "seq=2:26:4", "--dim",
                                              "mem=8", "--range-check", "--plot", "range", "--out", png, NULL});
    g_assert_cmpint(r.status, ==, 0);
    gchar *bytes = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(png, &bytes, &len, NULL));
    g_assert_cmpuint(len, >, 8);
    g_assert_cmpint(memcmp(bytes, "\x89PNG", 4), ==, 0);
    g_free(bytes);
    g_free(png);
    run_result_clear(&r);
    g_free(model);
}

/* A data-dependent size (NonZero over a symbolic N) planned at its bound at every point, and smaller with --bound:
 * the range says it is an upper-bound plan, and the check agrees at every point either way; the same for the graph
 * ONNX Runtime runs (--fuse). */
static void test_range_bounded(void)
{
    Builder *b = builder_new("nz", 14);
    builder_input_sym(b, "x", DT_FLOAT, 2, (const gint64[]){-1, 4}, (const char *[]){"N", NULL});
    const char *nz = builder_node(b, "NonZero", (const char *const[]){B_OP(b, "Relu", "x"), NULL}, 1,
                                  (const char *[]){"nz"}, NULL);
    builder_output(b, B_OP(b, "Transpose", nz));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_write_model(m, "nz.onnx");
    guint64 top[2] = {0, 0};
    for (guint k = 0; k < 2; k++) {
        RunResult r = test_run("SIM_BIN", k ? (const char *[]){"--graph", path, "--dim", "N=1:40", "--bound", "nz=10",
                                                              "--range-check", "--format", "json", NULL}
                                            : (const char *[]){"--graph", path, "--dim", "N=1:40", "--range-check",
                                                              "--format", "json", NULL});
        g_assert_cmpint(r.status, ==, 0);
        JsonParser *keep;
        JsonObject *report = json_of(r.out, &keep);
        g_assert_cmpint(json_object_get_int_member(report, "data_dependent_tensors"), ==, 1);
        g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(report, "check"), "equal"), ==, 40);
        gint64 n = 40;
        top[k] = json_function_at(report, "arena_by_dims", (const char *const[]){"N"}, &n, 1);
        g_object_unref(keep);
        run_result_clear(&r);
    }
    g_assert_cmpuint(top[1], <, top[0]); /* the bound plans it smaller */
    g_free(path);
    /* and the graph a runtime runs (--fuse): every point as its binding planned alone */
    char *model = torch_model("gpt2-torch");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1:12", "--fuse",
                                                        "ort-transformers", "--range-check", "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *keep;
    JsonObject *report = json_of(r.out, &keep);
    g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(report, "check"), "equal"), ==, 12);
    g_object_unref(keep);
    run_result_clear(&r);
    g_free(model);
}

/* Pins and bins: a pinned buffer stays where it is pinned at every point (a move that would cross it is refused and
 * the point placed alone), a bin rule by size moves buffers between bins as seq grows (new structures); at every
 * point the arena is the one the point gets alone. */
static void test_range_pins_and_bins(void)
{
    char *model = torch_model("gpt2-torch"), *bins = test_source_path("graphs/bins.txt");
    const char *pinned[] = {"--graph", model, "--dim", "batch=1", "--dim", "seq=1:20", "--pin", "input_ids=4096",
                            "--range-check", "--format", "json", NULL};
    const char *binned[] = {"--graph", model, "--dim", "batch=1", "--dim", "seq=1:20", "--bins", bins, "--range-check",
                            "--range-one-plan", "--format", "json", NULL};
    for (guint k = 0; k < 2; k++) {
        RunResult r = test_run("SIM_BIN", k ? binned : pinned);
        g_assert_cmpint(r.status, ==, 0);
        JsonParser *keep;
        JsonObject *report = json_of(r.out, &keep);
        JsonObject *check = json_object_get_object_member(report, "check");
        g_assert_cmpint(json_object_get_int_member(check, "equal"), ==, 20);
        g_assert_cmpint(json_object_get_int_member(check, "traces_differ"), ==, 0);
        if (k == 1) /* size >= 1 MiB goes to bin 2 from seq 6 on: more structures than without bins */
            g_assert_cmpuint(json_array_get_length(json_object_get_array_member(report, "range_plans")), >=, 3);
        g_object_unref(keep);
        run_result_clear(&r);
    }
    g_free(bins);
    g_free(model);
}

/* A point that fails names itself, in one line, and nothing is printed on stdout. */
static void test_range_point_error(void)
{
    char *model = torch_model("gpt2-torch");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1020:1030",
                                                        NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_cmpstr(r.out, ==, "");
    assert_contains(r.err, ": at seq=");
    assert_contains(r.err, "index 1024 is out of range for axis 0 of size 1024\n");
    g_assert_cmpuint(strlen(r.err), ==, (gsize)(strchr(r.err, '\n') - r.err) + 1);
    run_result_clear(&r);
    g_free(model);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/piecewise/linear", test_piecewise_linear);
    g_test_add_func("/piecewise/rational-and-step", test_piecewise_rational_and_step);
    g_test_add_func("/piecewise/breaks", test_piecewise_breaks);
    g_test_add_func("/piecewise/two-vars", test_piecewise_two_vars);
    g_test_add_func("/piecewise/quasi", test_piecewise_quasi);
    g_test_add_func("/piecewise/random", test_piecewise_random);
    g_test_add_func("/range/gpt2-oracle", test_range_gpt2_oracle);
    g_test_add_func("/range/sampled-is-every", test_range_sampled_is_every);
    g_test_add_func("/range/decoder-two-dims", test_range_decoder_two_dims);
    g_test_add_func("/range/bounded", test_range_bounded);
    g_test_add_func("/range/pins-and-bins", test_range_pins_and_bins);
    g_test_add_func("/range/point-error", test_range_point_error);
    return g_test_run();
}
