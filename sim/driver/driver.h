/* driver.h — a model or a trace to verified plans, the stages a front end composes, written once: the
 * time-bounded strategies' budgets from what was given, the model loaded (the data set's dims bound, shapes
 * inferred, fusions applied), graph to trace with names resolved, and a plan placed and verified with its
 * report row. The command (sim/cli) and the public API (sim/api, and Python through it) configure these and
 * print or return what they give; run.h runs and checks the plans. */
#ifndef SIM_DRIVER_DRIVER_H
#define SIM_DRIVER_DRIVER_H

#include "fuse/fuse.h"
#include "memory/pipeline.h"
#include "ops/shape.h"
#include "plan/place.h"
#include "report/peak.h"
#include "report/report.h"

/* The longest budget in seconds: past a year nothing is meant, and past 9.2e12 seconds their microseconds
 * overflow 64 bits. */
#define DRIVER_SECONDS_MAX 31536000.0

/* The placement options from the budgets given (0: not given): the registry's defaults; the default strategy
 * (none named) on its own work budget, the same plan on any machine, unless a budget is given; a work budget
 * alone bounds the search with no clock; seconds, when given, bound it too. */
PlaceOptions driver_place_options(gboolean strategy_named, guint64 budget_work, double budget_seconds);

/* How tensors lie in the arena, as the command's flags and the API's fields name it (NULL or 0: the default). */
typedef struct {
    guint64 pad_last;      /* --pad-last: the last dimension padded to a multiple (1: none) */
    guint64 align;         /* --align: a power of two */
    const char *weights;   /* --weights: "arena" or "outside" */
    const char *io;        /* --io: "arena", "outside" or "inputs-outside" */
    const char *transpose; /* --transpose: "view" or "move" (the default: move when planned to run) */
    gboolean run;          /* planned to run */
} DriverLayout;

/* The layout options from the choices; FALSE with a usage error naming the option without its dashes
 * ("align takes a power of two"). */
gboolean driver_layout(const DriverLayout *c, LayoutOptions *out, GError **error);
/* --search-engines: "skyline", "sections", "guided" or "both" (NULL: both). */
gboolean driver_search_engines(const char *name, SearchEngines *out, GError **error);

/* A model loaded for planning, and what loading it found. */
typedef struct {
    Model *model;
    GPtrArray *inputs;      /* TensorData* of the data set (driver/zoo.h), or NULL */
    char *bound_dims;       /* "NAME=VALUE,..." the data set's shapes bound, or NULL */
    char *unknown_ops;      /* "GridSample (2), Foo (1)": ops planned from value_info (--allow-unknown-ops), or NULL */
    FuseReport fused;       /* what the fusions did */
} DriverModel;

/* Loads `path`, binds the dims the data set in inputs_dir (or NULL) gives that `shape` leaves unbound, infers
 * its shapes and applies `fuse` ("none" or NULL: nothing). mark (or NULL) is called after each stage. FALSE
 * with *error set; what was loaded stays in *out for driver_model_clear. */
gboolean driver_model_load(const char *path, const char *inputs_dir, ShapeOptions *shape, const char *fuse,
                           void (*mark)(const char *phase), DriverModel *out, GError **error);
void driver_model_clear(DriverModel *m);

/* Graph to trace with the choices named: the order, the alias strategies by list ("all", "none", "noop,..."),
 * and a bins file read (or NULL); the rest of the recipe as given. */
gboolean driver_trace(const Graph *g, const PipelineRecipe *recipe, const char *alias, const char *bins_path,
                      PipelineResult *out, GError **error);

/* Places the trace with the strategy, then (when verify) verifies the plan; mark (or NULL) after each. A plan
 * that breaks the trace's rules is an error naming the strategy, never returned. A tiered plan's tiers are written
 * into the trace's bins (plan_tiers_apply), so every reader of bins (reports, pictures, the executor's arenas)
 * sees one arena per tier. */
Plan *driver_plan(const PlaceStrategy *s, Trace *t, const PlaceOptions *options, gboolean verify,
                  void (*mark)(const char *phase), GError **error);

/* Memory tiers (trace/trace-tiers.h) given to a trace (NULL: none given): they replace any the trace file declared,
 * and its buffers' tier masks must name tiers there are; without tiers, a buffer held to a tier is an error. A bins
 * file (bins_path, or NULL) that names tiers holds the buffers of its rules to them (and one that numbers bins is
 * refused with tiers, as one that names tiers is without). */
gboolean driver_tiers_attach(Trace *t, const GArray *tiers, const char *bins_path, GError **error);
/* The bins file (or NULL) read and held to the tiers' rule above, before anything is traced: one that names tiers
 * needs tiers, one that numbers bins refuses them. */
gboolean driver_bins_check(const char *bins_path, gboolean tiers, GError **error);

/* The order a graph is planned in: `order`, except the file's order taken by default (not named) on a file whose
 * node order is not topological (an fp16 converter appends its Casts at the end): Kahn's topological order then,
 * which the caller says in its report. */
#define DRIVER_ORDER_NOT_TOPOLOGICAL "the file's node order is not topological: planned in topological order (topo)"
#define DRIVER_ORDER_NOT_TOPOLOGICAL_BEST "the file's node order is not topological: chosen among the other orders"
const OrderStrategy *driver_order_for(const Graph *g, const OrderStrategy *order, gboolean named);

/* --order best, and the default for one model's plan: the order and sharing whose plan is smallest. Every order of
 * the registry but the exhaustive ones (`optimal`, which may run for long; when `recipe`'s order is one, as with
 * --order optimal, it is the first candidate, always made, outside the work budget, and its failure is the error)
 * makes a trace from `recipe` (its order replaced) under the sharing `alias` and, unless the sharing was named
 * (`alias_named`), under the strategies that lengthen no lifetime too (registry_alias_short_list); `s` places each
 * under `options`, and the order and sharing
 * (*alias_kept: `alias` or that list, both outliving the call) with the smallest arena are kept, the first on a tie
 * (the file's order under the sharing asked for first). The candidates are bounded by counted work, the same on any
 * machine: after the first, a candidate is made only while the candidates made so far plus it, times the graph's
 * nodes, stay within `work` (node-plans; 0: DRIVER_BEST_WORK), so by default a graph of 1,000,000 nodes or more
 * gets the file's order alone and a 200,000-node one five candidates. *made (or NULL) gets the candidates made,
 * *skipped those the budget left out. `said` (or NULL) gets "file 27200 B, topo 26688 B, ...; with --alias
 * noop,inplace: file ...". NULL with *error when no order made a plan (the last order's error). `problem_io` (or
 * NULL): the graph's order problem, made here when *problem_io is NULL, and left there for the caller's trace. */
#define DRIVER_ORDER_BEST "best"
#define DRIVER_BEST_WORK 1000000u
/* --order NAME: the registry's order, or with *best set the file's order standing in until driver_best_order
 * chooses. No name: `best` where `portfolio` says one model's single plan may choose its order (not a range, entry
 * points, tiers or --orders), else the file's. FALSE with a usage error listing every name, "best" too. */
gboolean driver_order_find(const char *name, gboolean portfolio, const OrderStrategy **order, gboolean *best,
                           GError **error);
const OrderStrategy *driver_best_order(const Graph *g, const PipelineRecipe *recipe, const char *alias,
                                       gboolean alias_named, const char **alias_kept, const char *bins_path,
                                       const PlaceStrategy *s, const PlaceOptions *options, guint64 work,
                                       OrderProblem **problem_io, GString *said, guint *made, guint *skipped,
                                       GError **error);

/* What each sharing refused at the peak would have given (PeakRefusal.arena_shared): the trace again with the
 * copy's buffer gone and the buffer of the node's first input (its root's, where it is in the arena) living as long
 * as the copy did, placed by the same strategy and options (seconds capped at one). The first DRIVER_PEAK_LIFTS
 * refusals of each peak, on traces of at most DRIVER_PEAK_LIFT_BUFFERS buffers (each lift is a whole placement,
 * not to be repeated eight times over a million buffers); the others, and a placement that fails, leave 0. */
#define DRIVER_PEAK_LIFTS 8
#define DRIVER_PEAK_LIFT_BUFFERS 100000u
void driver_peak_lift(PeakWitness *w, const Trace *t, const AliasMap *aliases, const PlaceStrategy *s,
                      const PlaceOptions *options);

/* A plan's report row before its plan: what it is made from and, for a model, what sharing saved (aliases NULL
 * for a trace file). */
ReportRow driver_report_row(const char *source, const char *dims, const char *order, const char *alias,
                            const AliasMap *aliases, guint64 no_alias_bytes);
/* The plan's figures into the row; a trace file's bytes before sharing are its own (from_model FALSE). */
void driver_report_fill(ReportRow *row, const Trace *t, const Plan *plan, gboolean verified, gboolean from_model);

#endif
