/* range.h — a model planned over ranges of its symbolic dims (`--dim NAME=LO:HI[:STEP]`). Points are loaded, their
 * shapes inferred and traced as one binding would be, so every size is the model's own: along the last dim, the ends,
 * the first four and the middle of each stretch; where those have one structure of the trace (the same buffers,
 * lifetimes, alignments and bins; only sizes differ) and each buffer's size is one polynomial of degree ≤ 3 through
 * them, the points between take their sizes from it, else the stretch is halved (every point loaded with `every`).
 * The points are met from the highest down, and the first point of each structure is placed by the strategy: that
 * plan, each buffer kept above the buffers it lay above, is moved to every later point of its structure (a longest
 * path over those pairs, in the order of its offsets) and verified against that point's trace. Where every plan
 * moved there is above the point's bound (alignment counted), the point is placed on its own too and the smaller
 * kept, so the arena at each point is never above the strategy's own plan of that point, and equal to it wherever
 * that one reaches the bound. The arena and the lower bound over the grid are then written as exact piecewise
 * polynomials (base/piecewise.h). */
#ifndef SIM_DRIVER_RANGE_H
#define SIM_DRIVER_RANGE_H

#include "memory/pipeline.h"
#include "ops/shape.h"
#include "plan/plan.h"
#include "report/report-range.h"

/* The most points of one range (all dims' counts multiplied): each is a load and a trace. */
#define RANGE_MAX_POINTS ((gsize)1 << 20)

/* Whether a --dim spec is a range (its value has a ':'). */
gboolean range_spec_is_range(const char *spec);
/* "NAME=LO:HI" or "NAME=LO:HI:STEP" (1 ≤ LO ≤ HI, STEP ≥ 1, HI = LO + a multiple of STEP). */
gboolean range_dim_parse(const char *spec, ReportRangeDim *out, GError **error);

/* --dim specs (NULL-terminated, or NULL) split: each range parsed into `ranges` (ReportRangeDim, its name owned:
 * range_dim_clear), each value bound in `shape` and its spec appended to `fixed` ("batch=1,mem=16"). FALSE with
 * *error naming the first bad spec. */
gboolean range_dims_split(const char *const *specs, ShapeOptions *shape, GArray *ranges, GString *fixed, GError **error);
/* An element clear function for an array of ReportRangeDim. */
void range_dim_clear(gpointer dim);

/* The dims together: 1 to PIECEWISE_MAX_VARS, each named once and not also bound to one value in `fixed` (the
 * ShapeOptions' dims, or NULL), at most RANGE_MAX_POINTS points in all (*points). */
gboolean range_dims_check(const ReportRangeDim *dims, guint n, GHashTable *fixed, gsize *points, GError **error);

typedef struct {
    const char *path;                /* the model */
    ShapeOptions *shape;             /* the dims bound to one value and the other shape options; the range's dims are
                                        set in it point by point and taken out again */
    const char *fuse;                /* --fuse, or NULL */
    const PipelineRecipe *recipe;    /* the order and the layout (its aliases and bins are set from alias, bins_path) */
    const char *alias, *bins_path;
    const PlaceStrategy *strategy;
    const PlaceOptions *place;
    gboolean check;                  /* --range-check: every point also loaded and placed on its own, compared */
    gboolean every;                  /* --range-every: every point loaded and traced (none sized between) */
    gboolean one_plan;               /* --range-one-plan: one plan for every point (ReportRange.one_plan) */
    const ReportRangeDim *dims;
    guint ndims;
} RangeJob;

/* Plans the grid; out's strings (graph, fixed, order, strategy, alias) are the caller's to set; its arrays are
 * report_range_clear's. FALSE with *error naming the point ("at seq=17: ...") when one fails. */
gboolean range_plan(const RangeJob *job, ReportRange *out, GError **error);

#endif
