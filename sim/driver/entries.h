/* entries.h — several entry points planned in one arena (`sim --graph prefill.onnx --graph decode.onnx`): a
 * decoder's prefill and its decode step, run one after the other against the same state. Each entry is loaded and
 * traced as one binding is (its own dims: `--dim ENTRY:NAME=VALUE`, the others shared), with its KV caches planned
 * at capacity (memory/kv.h). The state is every tensor that is a cache pair's past or present in some entry, named
 * by the pair's present: one buffer each for the whole sequence (the largest size any entry gives it), so it lies
 * at one offset in every entry; in an entry where it is not a pair (the prefill's presents), it keeps a buffer of
 * its own (no sharing puts it inside another) and holds its tokens from the buffer's start, as the cache does. Every
 * other buffer lives in its entry's own stretch of steps, so the entries' transient buffers share what the state
 * leaves. The trace of all of them is placed once and verified. */
#ifndef SIM_DRIVER_ENTRIES_H
#define SIM_DRIVER_ENTRIES_H

#include "driver/driver.h"
#include "memory/pipeline.h"
#include "ops/shape.h"
#include "plan/plan.h"
#include "report/report-entries.h"

/* The most entries of one arena. */
#define ENTRIES_MAX 16

typedef struct {
    const char *path;   /* the model */
    const char *name;   /* its name in reports and in `--dim NAME:DIM=VALUE`: the file's name without ".onnx" */
    ShapeOptions *shape; /* its dims and shape options */
} EntrySpec;

/* The entry name a path gives (its base name without ".onnx"); newly allocated. */
char *entries_name(const char *path);
/* The entries' names (entries_name of each of n paths; two alike are refused) and their dims: a spec
 * "ENTRY:NAME=VALUE" binds that entry's only, any other every entry's (a range is refused: one value a dim), and the
 * bounds every entry's. names (n + 1 entries, left NULL-terminated) and shapes (n, shape_options_init'ed) are the
 * caller's. FALSE with a usage error. */
gboolean entries_bind(const char *const *paths, guint n, const char *const *dims, const char *const *bounds,
                      char **names, ShapeOptions *shapes, GError **error);

typedef struct {
    const EntrySpec *entries;
    guint n;
    const char *fuse;               /* --fuse, or NULL */
    const PipelineRecipe *recipe;   /* order, layout, KV cache (its aliases and bins from alias and bins_path) */
    const char *alias, *bins_path;
    const PlaceStrategy *strategy;
    const PlaceOptions *place;
    gboolean verify;
} EntriesJob;

/* What entries_plan keeps of each entry for a caller that runs them (driver/generate.h): the model loaded, its trace
 * and alias map, and each of its trace's buffers' id in the trace of all. */
typedef struct {
    DriverModel model;
    PipelineResult built;
    guint *joint;
} EntryPlanned;
void entries_planned_free(EntryPlanned *kept, guint n);

/* Plans the entries together: out (report_entries_clear) gets each entry's figures and the arena of all; *trace,
 * *plan and *kept (each the caller's, or NULL) the trace of all, its plan and the entries (job->n of them). FALSE
 * with *error naming the entry. */
gboolean entries_plan(const EntriesJob *job, ReportEntries *out, Trace **trace, Plan **plan, EntryPlanned **kept,
                      GError **error);

#endif
