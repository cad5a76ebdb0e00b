/* structured.h — a structured placement problem (dsa-solver's schema-v1, docs/structured.md): pools with
 * capacities and reserved byte ranges; buffers with sizes, alignments, one or more half-open live intervals and
 * the pools they may use; colocations (one pool and offset), separations (disjoint addresses whatever the
 * lifetimes), temporal exclusions (overlapping lifetimes that never coexist), pins, weighted reuse penalties,
 * and a lexicographic objective. Built in memory (structured-json.c reads and writes the files), checked by an
 * independent validator (structured-check.c) and placed by the structured strategies (strategies/structured/).
 * Buffers, pools and pairs refer to each other by index here; the file's ids are kept for output. */
#ifndef SIM_STRUCTURED_H
#define SIM_STRUCTURED_H

#include <glib.h>

typedef struct {
    gint64 lower, upper; /* half-open: live at lower .. upper - 1 */
} StructuredInterval;

typedef struct {
    guint64 begin, end; /* half-open bytes */
} StructuredRange;

typedef struct {
    guint32 id;
    char *name;
    gboolean bounded; /* FALSE: no capacity */
    guint64 capacity;
    GArray *reserved; /* StructuredRange: bytes no buffer may use, at any time */
} StructuredPool;

typedef struct {
    guint32 id;
    char *name;
    guint64 size, align;
    GArray *intervals; /* StructuredInterval, sorted, merged where they overlap or touch */
    GArray *pools;     /* guint: indices of the pools it may use, in the file's order */
} StructuredBuffer;

typedef struct {
    guint a, b;   /* buffer indices */
    guint64 cost; /* a reuse penalty's weight; 0 for the other pairs */
} StructuredPair;

typedef struct {
    guint buffer, pool;
    guint64 offset;
    gboolean exclusive; /* no other buffer of the pool may use its bytes, at any time */
} StructuredPin;

/* The objective's terms (schema-v1's metric names, structured_term_name). */
typedef enum {
    STRUCTURED_OVERFLOW,   /* capacity_overflow: bytes over capacity, summed over pools */
    STRUCTURED_TOTAL_PEAK, /* total_peak: every pool's peak (highest byte used, reserved ranges too), summed */
    STRUCTURED_MAX_PEAK,   /* max_peak: the largest pool peak */
    STRUCTURED_REUSE_COST, /* reuse_cost: the weights of penalised pairs that share bytes */
    STRUCTURED_TERMS
} StructuredTerm;

typedef struct {
    char *path; /* the file read */
    char *profile, *instance;
    char fingerprint[17]; /* FNV-1a 64 of the document's canonical form, 16 hex digits */
    GArray *pools;        /* StructuredPool */
    GArray *buffers;      /* StructuredBuffer */
    GArray *colocations, *separations, *exclusions, *penalties; /* StructuredPair */
    GArray *pins;                                               /* StructuredPin */
    StructuredTerm terms[STRUCTURED_TERMS];
    guint n_terms;
} StructuredProblem;

/* A placement: for every buffer its pool index and offset. */
typedef struct {
    guint pool;
    guint64 offset;
} StructuredPlace;

/* What a placement achieves: every term, whatever the problem asks for, and each pool's peak. */
typedef struct {
    guint64 value[STRUCTURED_TERMS];
    guint64 *pool_peak; /* per pool index */
} StructuredObjective;

StructuredProblem *structured_new(const char *path);
void structured_free(StructuredProblem *p);
const char *structured_term_name(StructuredTerm term);
/* The problem's objective as a vector in its own term order (n_terms values) compared lexicographically:
 * <0, 0, >0. */
int structured_compare(const StructuredProblem *p, const guint64 *a, const guint64 *b);
void structured_objective_vector(const StructuredProblem *p, const StructuredObjective *o, guint64 *vector);
void structured_objective_clear(StructuredObjective *o);

/* Whether two buffers' lifetimes overlap (some interval of each meets one of the other). */
gboolean structured_lifetimes_overlap(const StructuredBuffer *a, const StructuredBuffer *b);
/* Every pair of buffers of `pools`-compatible lifetimes that overlap, as (a < b) pairs, found by a sweep over
 * the intervals (n log n + pairs); at most `limit` pairs, else FALSE. */
gboolean structured_overlapping_pairs(const StructuredProblem *p, GArray *pairs, guint64 limit);

/* Colocation classes: class[i] is the smallest buffer index colocated (transitively) with buffer i. Free with
 * g_free. */
guint *structured_colocation_classes(const StructuredProblem *p);

/* a + b, held at G_MAXUINT64 (a sum of pool peaks, each below 2^63, may pass 2^64 with hostile sizes: never wraps). */
static inline guint64 structured_add(guint64 a, guint64 b)
{
    return a > G_MAXUINT64 - b ? G_MAXUINT64 : a + b;
}

/* Half-open byte ranges [a, a + sa) and [b, b + sb) share a byte. */
static inline gboolean structured_bytes_overlap(guint64 a, guint64 sa, guint64 b, guint64 sb)
{
    return sa && sb && a < b + sb && b < a + sa;
}

#endif
