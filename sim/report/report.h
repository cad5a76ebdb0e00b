/* report.h — what a planning run reports: one row per (graph, order, strategy) with the arena, the
 * lower bound (max live bytes: XLA's no-fragmentation heap), fragmentation, the naive no-reuse sum and
 * the savings against it, and the planning time; in text, md, csv or json with stable column names
 * (docs/report-format.md). Each format is one row of the format table: its writers and its flags, which
 * the command's options and other writers read; adding a format is its functions and a row. Plus the plan itself: `--map` (one buffer a line, parseable) and `--ascii`. */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include "memory/alias.h"
#include "memory/training.h"
#include "plan/plan.h"
#include "trace/trace-tiers.h"

#include <stdio.h>

struct ReportFormatRow;
struct ReportRange;
struct ReportEntries;
struct ReportGenerate;
/* A report format: a row of the format table (report.c). */
typedef const struct ReportFormatRow *ReportFormat;
/* By name (text, md, csv, json); NULL when there is none. */
ReportFormat report_format_find(const char *name);
/* "text, md, csv, json" for messages. Newly allocated. */
char *report_format_names(void);

/* One memory tier of a tiered plan: its arena and the bytes its buffers move. */
typedef struct {
    const char *name;
    guint64 capacity;     /* TRACE_TIER_UNBOUNDED: none */
    guint64 arena, buffers, reads, writes;
    double cost;
} ReportTier;

typedef struct {
    const char *graph;    /* model or trace file */
    const char *dims;     /* bound symbolic dims, "-" when none */
    const char *order;    /* operator order used */
    const char *strategy;
    guint buffers, steps;
    guint64 arena, lower_bound, naive;
    double seconds;
    const char *detail;   /* e.g. "kept greedy-size", or "" */
    gboolean verified;
    const char *alias;    /* alias strategies applied ("none", "all", or a list) */
    guint64 no_alias_bytes; /* every tensor its own buffer: the seeds' "without aliasing" total */
    guint64 trace_bytes;  /* sum of the trace's buffer sizes after sharing: the seeds' "with aliasing" total */
    guint64 saved[SHARE_KIND_COUNT]; /* bytes each kind of sharing saved (index SHARE_OWN unused) */
    guint fallbacks;      /* ops an alias strategy had to copy (each reason is in the text/md report) */
    guint64 search_nodes, climb_steps; /* the work of the time-bounded strategies (plan.h's PlaceStats) */
    gboolean optimal;     /* no plan has a smaller arena: at the bound, or proven by the search */
    guint bounded;        /* data-dependent tensors planned at upper bounds (0: an exact plan) */
    guint kv_pairs;       /* KV cache pairs planned at capacity (memory/kv.h; 0: none): text and json report them */
    guint64 kv_capacity, kv_bytes; /* ... their tokens and the bytes of their buffers */
    TrainingSummary training; /* a training step's bytes by role (memory/training.h; .present FALSE: none): text
                                 and json report them */
    guint tiers;          /* memory tiers (docs/tiers.md; 0: none): text and json report them */
    ReportTier tier[TRACE_TIERS_MAX];
    double tier_cost, tier_bound; /* the plan's cost of bytes moved, and no plan's is less */
    gboolean tier_bound_cut;      /* ... a weaker bound (tier-bound.h) */
    guint64 slow_bytes;           /* bytes read and written in every tier but the first */
    const char *unknown_ops; /* ops planned from the file's value_info (--allow-unknown-ops): "GridSample (2)", or
                                NULL; the detail carries it in every format */
    const Trace *map_trace;      /* with --map in json: the plan goes into the row as "plan" */
    const struct PeakWitness *peak; /* in json: the peak witness goes into the row as "peak" (report/peak.h) */
    const Trace *peak_trace;     /* ... of this trace */
    const guint64 *map_offsets;
} ReportRow;

/* Fills the numbers of a row from a trace and its plan (naive: the no-reuse arena of the same trace). */
void report_row_fill(ReportRow *row, const Trace *t, const Plan *plan);
/* One row, or a comparison table of several, in the given format. md is compact (the columns a reader
 * compares, sizes in binary units) unless `wide`: then, like csv and json, every column in exact bytes. */
void report_print(FILE *out, ReportFormat f, gboolean wide, const ReportRow *rows, guint n);
/* One row of named columns in md, csv or json (numbers[k]: a number in json, right-aligned in md). */
void report_print_row(FILE *out, ReportFormat f, const char *const *names, const char *const *values,
                      const gboolean *numbers, guint n);
/* A table: ncols named columns, nrows rows of values (row-major); json: an array of objects. */
void report_print_table(FILE *out, ReportFormat f, const char *const *names, const gboolean *numbers, guint ncols,
                        const char *const *values, guint nrows);
/* What aliasing did: per kind, ops shared and copied and bytes saved, then the fallbacks' lines, each with its
 * reason: `notes`, the `fallbacks` notes themselves or fewer lines that summarise them (text and md; csv and json
 * carry the per-kind bytes saved and the fallback count in the row). */
void report_aliasing(FILE *out, ReportFormat f, const guint *shared, const guint *copied, const guint64 *saved,
                     const char *const *kind_names, guint kinds, const GPtrArray *notes, guint fallbacks);
/* `offset size name first last`, sorted by offset (then name), one buffer a line; in md and csv a table
 * after a blank line; in json nothing here (the row carries the plan: map_trace). */
void report_map(FILE *out, ReportFormat f, const Trace *t, const guint64 *offsets);
/* What the command's other writers ask of a format (the row's flags). */
typedef struct ReportFormatRow {
    const char *name;       /* --format NAME */
    gboolean prose;         /* written for a reader as aligned lines (text): a run's and --info's summaries
                               as sentences; every other format writes them as tables */
    gboolean notes;         /* the sharing table, fallbacks, fusions and bounds follow the report (text, md) */
    const char *item;       /* how a note's line starts ("  ", md's "- ") */
    const char *block;      /* how a preformatted line starts ("", md's "    ": a code block) */
    gboolean widens;        /* --wide changes it: every column instead of the compact form (md) */
    gboolean map_alone;     /* --map is the whole of stdout, without the report's row (csv: one table) */
    gboolean peak;          /* the report shows the peak witness (report/peak.h): after it (text, md) or in its row
                               (json); csv, for sweeps, has none, so nothing computes it there */
    void (*report)(FILE *out, gboolean wide, const ReportRow *rows, guint n);
    void (*table)(FILE *out, const char *const *names, const gboolean *numbers, guint ncols, const char *const *values,
                  guint nrows);
    void (*record)(FILE *out, const char *const *names, const char *const *values, const gboolean *numbers, guint n);
    /* the sharing summary (NULL: the row's columns carry it) */
    void (*aliasing)(FILE *out, const guint *shared, const guint *copied, const guint64 *saved,
                     const char *const *kind_names, guint kinds, const GPtrArray *notes, guint fallbacks);
    /* --map, buffers in `order` (NULL: the report's row carries the plan) */
    void (*map)(FILE *out, const Trace *t, const guint64 *offsets, const guint *order);
    /* a range of dims planned (report-range.h) */
    void (*range)(FILE *out, const struct ReportRange *r);
    /* several entry points planned in one arena (report-entries.h) */
    void (*entries)(FILE *out, const struct ReportEntries *r);
    /* a generation run in that arena (report-entries.h) */
    void (*generate)(FILE *out, const struct ReportGenerate *g);
} ReportFormatRow;

/* A range of dims planned (report-range.h), in the format's writer. */
void report_range_print(FILE *out, ReportFormat f, const struct ReportRange *r);
/* Several entry points planned in one arena (report-entries.h), in the format's writer. */
void report_entries_print(FILE *out, ReportFormat f, const struct ReportEntries *r);
/* A generation run in that arena (report-entries.h), in the format's writer. */
void report_generate_print(FILE *out, ReportFormat f, const struct ReportGenerate *g);

/* The plan drawn in characters: time across, address down, one letter per buffer. */
void report_ascii(FILE *out, const Trace *t, const Plan *plan, guint width, guint height);

#endif
