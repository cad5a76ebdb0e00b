/* report-entries.h — the report of several entry points planned in one arena (driver/entries.h): per entry its
 * steps, buffers, its arena planned alone and its transient peak (its own buffers, the state aside); the state
 * shared by all; the one arena and its lower bound. Each format's writer is a column of the format table
 * (report.h's report_entries_print): text for people; md and csv a row per entry and a last row `together`; json
 * one document. */
#ifndef SIM_REPORT_ENTRIES_H
#define SIM_REPORT_ENTRIES_H

#include <glib.h>
#include <stdio.h>

typedef struct {
    char *name;               /* the entry's name */
    char *dims;               /* its dims, "seq=128,batch=1" */
    guint steps, buffers;     /* its schedule's steps and its trace's buffers (the state's among them) */
    guint64 alone_arena;      /* its trace planned on its own by the same strategy */
    guint64 transient_peak;   /* the most bytes of its buffers other than the state live at one step */
    guint64 state_bytes;      /* the state's bytes at this entry's sizes */
} ReportEntry;

typedef struct ReportEntries {
    const char *strategy, *order, *alias;
    GArray *entries;          /* ReportEntry */
    guint state_buffers;      /* the state: KV caches and the tensors of their names */
    guint64 state_bytes;      /* ... their bytes in the one arena (each at the largest size an entry gives it) */
    guint steps, buffers;     /* the trace of all entries */
    guint64 arena, lower_bound;
    gboolean verified;
} ReportEntries;

/* A greedy generation run in that arena (driver/generate.h): after the plan's report, the tokens. */
typedef struct ReportGenerate {
    const ReportEntries *plan;
    const char *past_dim;     /* the decode step's cache length dim */
    const gint64 *prompt, *tokens, *expected;
    guint prompt_len, n_tokens, n_expected;
    guint matched;            /* leading tokens equal to the expected */
    double seconds;           /* the steps' runs */
} ReportGenerate;

void report_entries_init(ReportEntries *r);
void report_entries_clear(ReportEntries *r);
/* The format table's writers (report.c): what report_entries_print calls. */
void report_entries_text(FILE *out, const ReportEntries *r);
void report_entries_md(FILE *out, const ReportEntries *r);
void report_entries_csv(FILE *out, const ReportEntries *r);
void report_entries_json(FILE *out, const ReportEntries *r);
void report_generate_text(FILE *out, const ReportGenerate *g);
void report_generate_md(FILE *out, const ReportGenerate *g);
void report_generate_csv(FILE *out, const ReportGenerate *g);
void report_generate_json(FILE *out, const ReportGenerate *g);

#endif
