/* piecewise.h — exact piecewise polynomials over a grid of integers: given a value at every point of a grid (each
 * axis LO, LO+STEP, ..., HI), the fewest pieces the greedy rule below finds, each a box of the grid and a polynomial
 * with rational coefficients that gives every point of its box exactly. The range planner (driver/range.h) writes
 * the arena and the lower bound as functions of a model's dims with it.
 *
 * The rule, on one axis: from the first point not yet covered, the polynomial of each degree d ≤ PIECEWISE_DEGREE
 * through the next d + 1 points (Newton's forward differences, exact in 128-bit integers) is extended while it
 * gives the next point; the degree that reaches furthest wins (the lower on a tie), and a degree above 0 counts only
 * when at least one point past the d + 1 it was made from confirms it. On several axes: the first axis's slices are
 * fitted on the rest; consecutive slices whose boxes agree merge where every coefficient is itself a polynomial of
 * the first axis by the same rule. Staircases along the last axis are then folded into one piece (PiecewisePiece's
 * floor term). On one variable, where alignment makes a polynomial of the residues (a quadratic rounded up to 64
 * bytes), the same greedy rule is also run over the classes of each period 2, 4, ..., 64 at once (quasi-polynomial
 * pieces), and kept when it gives fewer formulas to read. Every piece is checked at every point of its box before
 * it is returned. */
#ifndef SIM_BASE_PIECEWISE_H
#define SIM_BASE_PIECEWISE_H

#include <glib.h>

/* The highest power of one variable a piece may have, and the most variables. */
#define PIECEWISE_DEGREE 4
#define PIECEWISE_MAX_VARS 4

typedef struct {
    gint64 lo, step; /* step > 0 */
    guint count;     /* points: lo, lo + step, ..., lo + (count - 1) * step */
} PiecewiseAxis;

/* One piece: a box (per variable the first and last grid value, inclusive) and (Σ num[e] · Π x_i^e_i + jump ·
 * floor((x_last - origin) / period)) / den, where e_i is digit i of e in base PIECEWISE_DEGREE + 1 (variable 0 the
 * lowest digit) and x_last the last variable. den > 0. The floor term (period > 0; 0: none) is a staircase folded
 * from three or more pieces along the last variable that differ only in their constant, by `jump` each `period`
 * (the rounding of an offset up to an alignment makes them). */
typedef struct {
    gint64 from[PIECEWISE_MAX_VARS], to[PIECEWISE_MAX_VARS];
    gint64 *num;
    gint64 den;
    gint64 jump, origin, period;
    /* A quasi-polynomial (one variable only; modulus 0: none): the points of the box fall in `modulus` classes by
     * their index from `from` (class r: (x - from) / step ≡ r mod modulus), each its own polynomial: class r's
     * numerators at class_num + r · terms over class_den[r]; num and den are then class 0's. */
    guint modulus;
    gint64 step;
    gint64 *class_num, *class_den;
} PiecewisePiece;

typedef struct {
    guint vars;
    guint terms;    /* (PIECEWISE_DEGREE + 1)^vars: the length of every piece's num */
    GArray *pieces; /* PiecewisePiece, in the grid's order (variable 0 slowest) */
} Piecewise;

/* Fits values (one per grid point, row-major: the last axis fastest; each below 2^63) exactly. NULL with *error
 * when one is not, an axis is empty, there are more than PIECEWISE_MAX_VARS, or a coefficient does not fit 64
 * bits (then the values are no polynomial of low degree anywhere near, and no formula would help a reader). */
Piecewise *piecewise_fit(const PiecewiseAxis *axes, guint vars, const guint64 *values, GError **error);
void piecewise_free(Piecewise *f);
/* The value at x (one integer per variable): FALSE when x is in no piece. Exact: a piece's numerator at x is a
 * multiple of its den by construction. */
gboolean piecewise_eval(const Piecewise *f, const gint64 *x, guint64 *out);
/* Piece k's formula for a reader, terms by falling total degree, the floor term before the constant:
 * "3,072·seq + 2,555,904", "(3·seq^2 + seq) / 2", "204,096·seq + 64·floor((seq - 1) / 16) + 64", "0"; a
 * quasi-polynomial's classes as piecewise_classes_share says, or "seq ≡ 0, 8 (mod 16): F; seq ≡ ...: G". names:
 * one per variable (already safe for the reader's medium). */
char *piecewise_text(const Piecewise *f, guint k, const char *const *names);
/* Piece k's quasi-polynomial classes for a reader: the classes with one formula grouped, each group its residues of
 * x modulo step · modulus, ascending ("1, 3, 5"), and its formula; NULL-terminated pairs (residues, formula),
 * g_strfreev. */
char **piecewise_classes_text(const Piecewise *f, guint k, const char *const *names);
/* Piece k's quasi-polynomial classes with one formula: piecewise_class_same gives the first class with class r's
 * formula (r itself for the first of each formula), piecewise_class_residues the residues of x modulo step · modulus
 * of every class with the formula of r (such a first class), ascending (an array of gint64, g_array_unref). */
guint piecewise_class_same(const Piecewise *f, guint k, guint r);
GArray *piecewise_class_residues(const Piecewise *f, guint k, guint r);
/* Whether piece k is a quasi-polynomial whose classes differ only in their constant (piecewise_text then writes
 * it as one formula and the constant by residue: "32·seq^2 + 2,052·seq + c, c by seq mod 16: 0: 128, 1: 284, ..."). */
gboolean piecewise_classes_share(const Piecewise *f, guint k);
/* The exponent of variable v in term e. */
static inline guint piecewise_power(guint e, guint v)
{
    for (guint i = 0; i < v; i++)
        e /= PIECEWISE_DEGREE + 1;
    return e % (PIECEWISE_DEGREE + 1);
}

#endif
