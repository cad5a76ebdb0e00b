/* report-range.h — what planning over ranges of dims found (driver/range.h fills it), and its report: the arena and
 * the lower bound as exact piecewise polynomials of the dims, the plans that hold over the range (one per structure
 * of the trace: each moved to every point and verified there), how many points were placed on their own, and with
 * --range-check each point's own plan beside the function; in text, md, json ("arena_by_dims", ...) and csv (one row
 * per point, for tables and pictures). docs/report-format.md names every field. report_range_print (report.h) writes
 * it in a format. */
#ifndef SIM_REPORT_RANGE_H
#define SIM_REPORT_RANGE_H

#include "base/piecewise.h"

#include <stdio.h>

/* One dim planned over a range: NAME=LO:HI[:STEP]. */
typedef struct {
    char *name;
    gint64 lo, hi, step;
} ReportRangeDim;

/* A plan that holds over the points whose traces have one structure (the same buffers, lifetimes, alignments and
 * bins; only sizes differ): the plan of the structure's highest point, each buffer kept above the buffers it lay
 * above there (its offset at a point: the highest end below it, rounded up to its alignment). */
typedef struct {
    gsize top;            /* the point it was made at (the structure's highest, the last axis fastest) */
    gsize points;         /* points of this structure, each verified with the plan moved there */
    gsize refused;        /* points of this structure where the moved plan crossed a pinned offset (placed alone) */
    guint buffers;
    gsize edges;          /* pairs of buffers one of which is kept above the other */
    guint64 arena_at_top;
} ReportRangePlan;

/* A structure's points past the most plans kept (REPORT_RANGE_MAX_PLANS) are placed on their own. */
#define REPORT_RANGE_MAX_PLANS 64

typedef struct ReportRange {
    const char *graph;    /* the model */
    const char *fixed;    /* the dims bound to one value, "batch=1", or "-" */
    const char *order, *strategy, *alias;
    guint ndims;
    ReportRangeDim dims[PIECEWISE_MAX_VARS];
    gsize points;         /* Π over dims of their counts; point k: row-major, the last dim fastest */
    /* per point */
    guint64 *arena;       /* the smallest arena found: the range plan moved there, or the point placed on its own */
    guint64 *lower_bound; /* the trace's (max live bytes) */
    guint64 *plan_arena;  /* the arena of its structure's range plan there (0: a point placed alone) */
    guint8 *placed;       /* placed on its own: the plans moved there were above the bound */
    guint64 *checked;     /* --range-check: the point placed on its own by the strategy, whatever the rest; or NULL */
    Piecewise *arena_fn, *bound_fn;
    GArray *plans;        /* ReportRangePlan */
    gsize alone;          /* points of structures past REPORT_RANGE_MAX_PLANS */
    gboolean grouped;     /* the trace has rigid groups: no plan is moved, every point is placed on its own */
    gboolean every;       /* --range-every: every point loaded (none sized between loaded points) */
    guint bounded;        /* data-dependent tensors planned at a bound (--bound), the most at a loaded point; 0: exact */
    gsize loaded;         /* points loaded, shapes inferred and traced for the plan (not --range-check's) */
    gsize interpolated;   /* points whose trace was sized by their stretch's polynomials */
    gsize mismatched;     /* --range-check: points whose loaded trace differs from the one they were planned with */
    double seconds;       /* the whole range, loads and traces included */
    /* --range-one-plan: the plan of the structure with the most points moved to every point, the others loaded with
     * its buffers kept apart (a sharing they would take, refused: alias.h's keep_apart) */
    gboolean one_plan;
    gsize one_plan_top;          /* the point it was made at */
    gsize one_plan_kept_apart;   /* points of other structures it was moved to and verified at */
    guint64 *one_plan_arena;     /* per point: its arena there (0: it could not be moved there) */
} ReportRange;

/* How many points were placed on their own (placed), and how many the one plan was moved to (one_plan_arena). */
gsize report_range_placed(const ReportRange *r);
gsize report_range_one_plan_points(const ReportRange *r);
/* Point k's value of every dim. */
void report_range_point(const ReportRange *r, gsize k, gint64 *x);
/* The writers of the format table's range column (report.c: report_range_print chooses by format). */
void report_range_text(FILE *out, const ReportRange *r);
void report_range_md(FILE *out, const ReportRange *r);
void report_range_csv(FILE *out, const ReportRange *r);
void report_range_json(FILE *out, const ReportRange *r);
void report_range_clear(ReportRange *r);

#endif
