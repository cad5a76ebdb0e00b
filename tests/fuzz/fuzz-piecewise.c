/* fuzz-piecewise.c — libFuzzer harness for the exact piecewise fit (base/piecewise.h) the range planner writes its
 * functions with. The bytes describe a grid (one or two variables, their first values and steps) and values on it:
 * stretches of polynomials of degree up to 3, some rounded up to a power of two (the staircases and residue classes
 * alignment makes), some raw bytes. The fit must give every point back exactly from its pieces, each point in one
 * piece, and write every piece as text; the one refusal it may give is the documented one (coefficients past 64
 * bits). Anything else aborts. */
#include "base/error.h"
#include "base/piecewise.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, gsize point)
{
    fprintf(stderr, "fuzz-piecewise: %s at point %" G_GSIZE_FORMAT "\n", what, point);
    abort();
}

/* The next byte, or 0 past the end. */
static guint next(const uint8_t *data, size_t size, size_t *at)
{
    return *at < size ? data[(*at)++] : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    size_t at = 0;
    guint mode = next(data, size, &at);
    guint vars = 1 + (mode & 1);
    PiecewiseAxis axes[2];
    gsize points = 1;
    for (guint v = 0; v < vars; v++) {
        guint lo = next(data, size, &at) % 200, step = 1 + next(data, size, &at) % 16, count = next(data, size, &at);
        axes[v] = (PiecewiseAxis){lo, step, vars == 1 ? 1 + count % 255 * 2 : 1 + count % 24};
        points *= axes[v].count;
    }
    guint64 *values = g_new(guint64, points);
    for (gsize k = 0; k < points;) { /* a stretch: a polynomial of the last variable, maybe rounded up, or raw bytes */
        guint head = next(data, size, &at), want = 1 + next(data, size, &at) % 96;
        gsize len = MIN(points - k, (gsize)want);
        gint64 c[4] = {next(data, size, &at), next(data, size, &at) % 64, next(data, size, &at) % 8,
                       head & 0x80 ? next(data, size, &at) % 2 : 0};
        guint64 align = head & 0x40 ? (guint64)1 << (head % 8) : 1;
        for (gsize i = 0; i < len; i++, k++) {
            gint64 x = axes[vars - 1].lo + (gint64)(k % axes[vars - 1].count) * axes[vars - 1].step;
            gint64 outer = vars == 2 ? 1 + (gint64)(k / axes[1].count) : 1;
            guint64 y = (guint64)((c[0] + c[1] * x + c[2] * x * x + c[3] * x * x * x) * outer);
            if ((head & 0x30) == 0x30) /* raw: a byte of noise, then large */
                y = ((guint64)next(data, size, &at) << (head % 48)) & ((guint64)1 << 62) - 1;
            values[k] = (y + align - 1) / align * align;
        }
    }
    GError *error = NULL;
    Piecewise *f = piecewise_fit(axes, vars, values, &error);
    if (!f) {
        if (!g_error_matches(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED) || !strstr(error->message, "pass 64 bits"))
            fail(error->message, 0);
        g_error_free(error);
        g_free(values);
        return 0;
    }
    for (gsize k = 0; k < points; k++) {
        gint64 x[2];
        gsize rest = k;
        for (guint v = vars; v-- > 0;) {
            x[v] = axes[v].lo + (gint64)(rest % axes[v].count) * axes[v].step;
            rest /= axes[v].count;
        }
        guint in = 0;
        for (guint p = 0; p < f->pieces->len; p++) {
            const PiecewisePiece *piece = &g_array_index(f->pieces, PiecewisePiece, p);
            gboolean inside = TRUE;
            for (guint v = 0; v < vars; v++)
                inside = inside && x[v] >= piece->from[v] && x[v] <= piece->to[v];
            in += inside;
        }
        guint64 got = 0;
        if (in != 1)
            fail("not in exactly one piece", k);
        if (!piecewise_eval(f, x, &got) || got != values[k])
            fail("a value the pieces do not give back", k);
    }
    const char *names[2] = {"batch", "seq"};
    for (guint p = 0; p < f->pieces->len; p++) {
        char *text = piecewise_text(f, p, vars == 2 ? names : names + 1);
        if (!text || !*text)
            fail("a piece without text", p);
        g_free(text);
        if (g_array_index(f->pieces, PiecewisePiece, p).modulus > 1)
            g_strfreev(piecewise_classes_text(f, p, vars == 2 ? names : names + 1));
    }
    piecewise_free(f);
    g_free(values);
    return 0;
}
