/* report.c — run reports in four formats, the plan map and the ASCII plan (see report.h). */
#include "report/report.h"
#include "report/csv-table.h"
#include "base/escape.h"
#include "report/peak.h"
#include "report/report-entries.h"
#include "report/report-range.h"
#include "base/json-text.h"
#include "base/units.h"

#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

/* A field of a table as each format writes it: csv quoted (csv_table_quote); text and md escaped for the terminal
 * (base/escape.h: a newline in a name must not end the line, an escape sequence must not reach the
 * terminal), md with '|' escaped too. Newly allocated. */
static char *cell_text(const char *v)
{
    return escape_terminal(v);
}

static char *cell_md(const char *v)
{
    return escape_md_cell(v);
}

static char *cell_csv(const char *v)
{
    return csv_table_quote(v);
}

void report_row_fill(ReportRow *row, const Trace *t, const Plan *plan)
{
    row->buffers = trace_count(t);
    row->steps = t->steps;
    row->arena = plan->arena;
    row->lower_bound = plan->lower_bound;
    row->naive = plan->naive_arena;
    row->seconds = plan->seconds;
    row->detail = plan->detail ? plan->detail : "";
    row->search_nodes = plan->stats.nodes;
    row->climb_steps = plan->stats.steps;
    row->optimal = plan->stats.proven;
    row->trace_bytes = 0;
    for (guint k = 0; k < trace_count(t); k++)
        row->trace_bytes += trace_buffer(t, k)->size;
    row->tiers = t->tiers && plan->tier ? MIN(t->tiers->len, TRACE_TIERS_MAX) : 0;
    row->tier_cost = row->tier_bound = 0;
    row->slow_bytes = 0;
    for (guint j = 0; j < row->tiers; j++) {
        const TraceTier *tier = trace_tier(t->tiers, j);
        row->tier[j] = (ReportTier){.name = tier->name, .capacity = tier->capacity,
                                    .arena = j < plan->bins ? plan->bin_arena[j] : 0};
    }
    for (guint k = 0; row->tiers && k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        guint j = MIN(plan->tier[k], row->tiers - 1);
        ReportTier *r = &row->tier[j];
        r->buffers++;
        r->reads += b->reads;
        r->writes += b->writes;
        double cost = trace_tier_cost(t->tiers, j, b);
        r->cost += cost;
        row->tier_cost += cost;
        if (j)
            row->slow_bytes += b->reads + b->writes;
    }
    row->tier_bound = plan->tier_bound;
    row->tier_bound_cut = plan->tier_bound_cut;
}

static double pct(guint64 part, guint64 whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }
/* The arena above the lower bound (fragmentation), and below naive (what reuse saved). */
static guint64 row_fragmentation(const ReportRow *r) { return r->arena - MIN(r->arena, r->lower_bound); }
/* naive minus arena: negative when the strategy needs more than no reuse at all (PyTorch's segments can) */
static gint64 row_saved(const ReportRow *r) { return (gint64)r->naive - (gint64)r->arena; }
static double spct(gint64 part, guint64 whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }
/* sim_format_bytes of |v|, with a minus sign when v is negative. Newly allocated. */
static char *format_signed_bytes(gint64 v)
{
    char *b = sim_format_bytes(v < 0 ? (guint64)0 - (guint64)v : (guint64)v);
    if (v >= 0)
        return b;
    char *s = g_strconcat("-", b, NULL);
    g_free(b);
    return s;
}

/* Columns, in the one order every format uses. */
static const char *const columns[] = {
    "graph", "dims", "order", "strategy", "buffers", "steps", "arena_bytes", "lower_bound_bytes",
    "fragmentation_bytes", "fragmentation_pct", "naive_bytes", "savings_bytes", "savings_pct", "plan_seconds",
    "verified", "detail", "alias", "no_alias_bytes", "trace_bytes", "saved_noop_bytes", "saved_inplace_bytes",
    "saved_gather_bytes", "saved_slice_bytes", "saved_split_bytes", "saved_concat_bytes", "saved_concat_dedup_bytes",
    "fallbacks", "search_nodes", "climb_steps", "optimal",
};
/* The saved_*_bytes columns follow ShareKind from SHARE_NOOP to SHARE_DEDUP (the KV cache's past, SHARE_KV, is
 * reported by the cache's own lines); fallbacks and the work counts come after. */
#define FIRST_SAVED_COLUMN 19
#define FALLBACKS_COLUMN (FIRST_SAVED_COLUMN + SHARE_DEDUP)
G_STATIC_ASSERT(FALLBACKS_COLUMN + 4 == G_N_ELEMENTS(columns));

/* Columns holding numbers: right-aligned in md, numbers in json. */
static gboolean column_is_number(guint c) { return (c >= 4 && c <= 13) || (c >= 17 && c < FALLBACKS_COLUMN + 3); }

static char *cell(const ReportRow *r, guint c)
{
    guint64 frag = row_fragmentation(r);
    gint64 saved = row_saved(r);
    if (!r->buffers && column_is_number(c)) /* an order that could not run: no figures (its detail says why) */
        return g_strdup("");
    switch (c) {
    case 0: return g_strdup(r->graph);
    case 1: return g_strdup(r->dims);
    case 2: return g_strdup(r->order);
    case 3: return g_strdup(r->strategy);
    case 4: return g_strdup_printf("%u", r->buffers);
    case 5: return g_strdup_printf("%u", r->steps);
    case 6: return g_strdup_printf("%" G_GUINT64_FORMAT, r->arena);
    case 7: return g_strdup_printf("%" G_GUINT64_FORMAT, r->lower_bound);
    case 8: return g_strdup_printf("%" G_GUINT64_FORMAT, frag);
    case 9: return g_strdup_printf("%.2f", pct(frag, r->lower_bound));
    case 10: return g_strdup_printf("%" G_GUINT64_FORMAT, r->naive);
    case 11: return g_strdup_printf("%" G_GINT64_FORMAT, saved);
    case 12: return g_strdup_printf("%.2f", spct(saved, r->naive));
    case 13: return g_strdup_printf("%.6f", r->seconds);
    case 14: return g_strdup(r->verified ? "yes" : "no");
    case 15:
        if (r->unknown_ops)
            return g_strdup_printf("%s%splanned from value_info (--allow-unknown-ops): %s", r->detail ? r->detail : "",
                                   r->detail && *r->detail ? "; " : "", r->unknown_ops);
        return g_strdup(r->detail ? r->detail : "");
    case 16: return g_strdup(r->alias ? r->alias : "none");
    case 17: return g_strdup_printf("%" G_GUINT64_FORMAT, r->no_alias_bytes);
    case 18: return g_strdup_printf("%" G_GUINT64_FORMAT, r->trace_bytes);
    default:
        if (c < FALLBACKS_COLUMN)
            return g_strdup_printf("%" G_GUINT64_FORMAT, r->saved[c - FIRST_SAVED_COLUMN + SHARE_NOOP]);
        if (c == FALLBACKS_COLUMN)
            return g_strdup_printf("%u", r->fallbacks);
        if (c == FALLBACKS_COLUMN + 3)
            return g_strdup(r->optimal ? "yes" : "no");
        return g_strdup_printf("%" G_GUINT64_FORMAT, c == FALLBACKS_COLUMN + 1 ? r->search_nodes : r->climb_steps);
    }
}

/* A training step's bytes by role: every role with a buffer, then what is live at the peak step. */
static void training_print(FILE *out, const TrainingSummary *t)
{
    for (int pass = 0; pass < 2; pass++) {
        GString *line = g_string_new(NULL);
        for (guint r = 0; r < TRAINING_ROLE_COUNT; r++) {
            guint64 bytes = pass ? t->at_peak[r] : t->bytes[r];
            if (!t->buffers[r] || (pass && !bytes))
                continue;
            char *b = sim_format_bytes(bytes);
            g_string_append_printf(line, "%s%s %s", line->len ? ", " : "", training_role_name(r), b);
            if (!pass)
                g_string_append_printf(line, " (%u buffer%s)", t->buffers[r], t->buffers[r] == 1 ? "" : "s");
            g_free(b);
        }
        if (pass) {
            fprintf(out, "  at the peak  step %u: %s\n", t->peak_step, line->str);
            char *floor = sim_format_bytes(t->floor), *end = sim_format_bytes(t->end_floor);
            fprintf(out, "  at the loss  %s in every order (the state, and what the forward or the batch keeps for "
                    "the backward)\n", floor);
            fprintf(out, "  at the end   %s in every order (the outputs: the gradients, the loss, the state the step "
                    "returns)\n", end);
            char *step = sim_format_bytes(t->step_floor);
            fprintf(out, "  at a step    %s in every order (while one node runs: what it reads and makes, and the "
                    "least the others leave live)\n", step);
            g_free(floor);
            g_free(end);
            g_free(step);
        }
        else
            fprintf(out, "training       %s\n", line->str);
        g_string_free(line, TRUE);
    }
}

static void print_text_one(FILE *out, const ReportRow *r)
{
    guint64 frag = row_fragmentation(r);
    gint64 saved = row_saved(r);
    char *arena = sim_format_bytes(r->arena), *lb = sim_format_bytes(r->lower_bound), *fr = sim_format_bytes(frag),
         *nv = sim_format_bytes(r->naive), *sv = format_signed_bytes(saved);
    char *graph = cell_text(r->graph), *dims = cell_text(r->dims);
    fprintf(out, "graph          %s (dims: %s)\n", graph, dims);
    g_free(graph);
    g_free(dims);
    fprintf(out, "order          %s (%u steps)\n", r->order, r->steps);
    fprintf(out, "strategy       %s%s%s%s\n", r->strategy, *r->detail ? " (" : "", r->detail, *r->detail ? ")" : "");
    fprintf(out, "buffers        %u\n", r->buffers);
    fprintf(out, "arena          %s\n", arena);
    fprintf(out, "lower bound    %s (max live bytes over steps)\n", lb);
    fprintf(out, "fragmentation  %s (%.2f%% of the lower bound)%s\n", fr, pct(frag, r->lower_bound),
            r->optimal && frag ? "; no placement does better" : "");
    fprintf(out, "naive          %s (no reuse)\n", nv);
    fprintf(out, "savings        %s (%.2f%% of naive%s)\n", sv, spct(saved, r->naive),
            saved < 0 ? ": more than no reuse at all" : "");
    fprintf(out, "planning       %.6f s\n", r->seconds);
    if (r->search_nodes || r->climb_steps) /* the counted work, the same on any machine under --budget-work */
        fprintf(out, "work           %" G_GUINT64_FORMAT " search nodes, %" G_GUINT64_FORMAT " climb steps\n",
                r->search_nodes, r->climb_steps);
    fprintf(out, "verified       %s\n", r->verified ? "yes" : "no (--no-verify)");
    if (r->unknown_ops) {
        char *ops = cell_text(r->unknown_ops);
        fprintf(out, "unknown ops    %s: planned from the file's value_info (--allow-unknown-ops), not inferred; "
                "--run cannot run them\n", ops);
        g_free(ops);
    }
    if (r->bounded)
        fprintf(out, "sizes          an upper-bound plan: %u data-dependent tensor%s planned at %s bound%s\n", r->bounded,
                r->bounded == 1 ? "" : "s", r->bounded == 1 ? "its" : "their", r->bounded == 1 ? "" : "s");
    if (r->kv_pairs) {
        char *cache = sim_format_bytes(r->kv_bytes), *rest = sim_format_bytes(r->arena - MIN(r->kv_bytes, r->arena));
        fprintf(out, "kv cache       %u pair%s at %" G_GUINT64_FORMAT " tokens: %s, live for the whole step (the arena's "
                "other %s)\n", r->kv_pairs, r->kv_pairs == 1 ? "" : "s", r->kv_capacity, cache, rest);
        g_free(cache);
        g_free(rest);
    }
    if (r->training.present)
        training_print(out, &r->training);
    for (guint j = 0; j < r->tiers; j++) {
        const ReportTier *x = &r->tier[j];
        char *used = sim_format_bytes(x->arena), *rd = sim_format_count(x->reads), *wr = sim_format_count(x->writes);
        char *cap = x->capacity == TRACE_TIER_UNBOUNDED ? g_strdup("none") : sim_format_bytes(x->capacity);
        fprintf(out, "%-15s%s: %s (capacity: %s), %" G_GUINT64_FORMAT " buffer%s, %s B read, %s B written, cost %.0f\n",
                j ? "" : "tiers", x->name, used, cap, x->buffers, x->buffers == 1 ? "" : "s", rd, wr, x->cost);
        g_free(used);
        g_free(rd);
        g_free(wr);
        g_free(cap);
    }
    if (r->tiers) {
        char *slow = sim_format_count(r->slow_bytes);
        fprintf(out, "tier cost      %.0f (%s B moved in the tiers after the first); no plan costs less than %.0f%s\n",
                r->tier_cost, slow, r->tier_bound,
                r->tier_bound_cut ? " (one step's bound: the flow's work ran out)" : "");
        g_free(slow);
    }
    char *no_alias = sim_format_bytes(r->no_alias_bytes), *traced = sim_format_bytes(r->trace_bytes);
    fprintf(out, "aliasing       %s: %s in buffers, %s without sharing\n", r->alias ? r->alias : "none", traced, no_alias);
    g_free(no_alias);
    g_free(traced);
    g_free(arena);
    g_free(lb);
    g_free(fr);
    g_free(nv);
    g_free(sv);
}

/* Text comparison: one line per strategy, aligned. */
static void print_text_table(FILE *out, const ReportRow *rows, guint n)
{
    fprintf(out, "graph %s (dims: %s), alias %s, %u steps\n\n", rows[0].graph, rows[0].dims,
            rows[0].alias ? rows[0].alias : "none", rows[0].steps);
    fprintf(out, "%-10s %-18s %9s %16s %16s %10s %10s %12s  %s\n", "order", "strategy", "buffers", "lower bound (B)",
            "arena (B)", "vs LB", "saved", "plan (s)", "detail");
    for (guint k = 0; k < n; k++) {
        const ReportRow *r = &rows[k];
        if (!r->buffers) { /* an order that could not run: sim said why on stderr */
            fprintf(out, "%-10s %-18s %9s %16s %16s\n", r->order, r->strategy, "-", "-", "(failed)");
            continue;
        }
        fprintf(out, "%-10s %-18s %9u %16" G_GUINT64_FORMAT " %16" G_GUINT64_FORMAT " %9.2f%% %9.2f%% %12.6f  %s%s\n", r->order,
                r->strategy, r->buffers, r->lower_bound, r->arena, pct(row_fragmentation(r), r->lower_bound),
                spct(row_saved(r), r->naive), r->seconds, r->detail, r->verified ? "" : " (not verified)");
    }
}

/* The builder's document, pretty-printed, then the builder freed. */
static guint *map_order(const Trace *t, const guint64 *offsets);

/* The plan as an array of {offset, size, name, first, last}, sorted as --map sorts it. */
static void json_add_plan(JsonBuilder *b, const Trace *t, const guint64 *offsets)
{
    guint *order = map_order(t, offsets);
    json_builder_set_member_name(b, "plan");
    json_builder_begin_array(b);
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *buf = trace_buffer(t, order[k]);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "offset");
        json_builder_add_int_value(b, (gint64)offsets[order[k]]);
        json_builder_set_member_name(b, "size");
        json_builder_add_int_value(b, (gint64)buf->size);
        json_builder_set_member_name(b, "name");
        json_add_text(b, buf->name);
        json_builder_set_member_name(b, "first");
        json_builder_add_int_value(b, buf->first);
        json_builder_set_member_name(b, "last");
        json_builder_add_int_value(b, buf->last);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    g_free(order);
}

/* A tiered plan's tiers (docs/report-format.md): "tiers": [{name, capacity (null: none), arena, buffers, reads,
 * writes, cost}], "tier_cost", "tier_bound", "slow_tier_bytes". */
static void json_add_training(JsonBuilder *b, const TrainingSummary *t)
{
    json_builder_set_member_name(b, "training");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "peak_step");
    json_builder_add_int_value(b, t->peak_step);
    json_builder_set_member_name(b, "loss_floor_bytes");
    json_builder_add_int_value(b, (gint64)t->floor);
    json_builder_set_member_name(b, "end_floor_bytes");
    json_builder_add_int_value(b, (gint64)t->end_floor);
    json_builder_set_member_name(b, "step_floor_bytes");
    json_builder_add_int_value(b, (gint64)t->step_floor);
    for (guint r = 0; r < TRAINING_ROLE_COUNT; r++) {
        json_builder_set_member_name(b, training_role_key(r));
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "buffers");
        json_builder_add_int_value(b, t->buffers[r]);
        json_builder_set_member_name(b, "bytes");
        json_builder_add_int_value(b, (gint64)t->bytes[r]);
        json_builder_set_member_name(b, "at_peak_bytes");
        json_builder_add_int_value(b, (gint64)t->at_peak[r]);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
}

static void json_add_tiers(JsonBuilder *b, const ReportRow *r)
{
    json_builder_set_member_name(b, "tiers");
    json_builder_begin_array(b);
    for (guint j = 0; j < r->tiers; j++) {
        const ReportTier *x = &r->tier[j];
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, x->name);
        json_builder_set_member_name(b, "capacity");
        if (x->capacity == TRACE_TIER_UNBOUNDED)
            json_builder_add_null_value(b);
        else
            json_builder_add_int_value(b, (gint64)x->capacity);
        const char *names[] = {"arena", "buffers", "reads", "writes"};
        guint64 values[] = {x->arena, x->buffers, x->reads, x->writes};
        for (guint k = 0; k < G_N_ELEMENTS(names); k++) {
            json_builder_set_member_name(b, names[k]);
            json_builder_add_int_value(b, (gint64)values[k]);
        }
        json_builder_set_member_name(b, "cost");
        json_builder_add_double_value(b, x->cost);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "tier_cost");
    json_builder_add_double_value(b, r->tier_cost);
    json_builder_set_member_name(b, "tier_bound");
    json_builder_add_double_value(b, r->tier_bound);
    json_builder_set_member_name(b, "tier_bound_cut_short");
    json_builder_add_boolean_value(b, r->tier_bound_cut);
    json_builder_set_member_name(b, "slow_tier_bytes");
    json_builder_add_int_value(b, (gint64)r->slow_bytes);
}

static void print_json(FILE *out, const ReportRow *rows, guint n)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_array(b);
    for (guint k = 0; k < n; k++) {
        json_builder_begin_object(b);
        for (guint c = 0; c < G_N_ELEMENTS(columns); c++) {
            char *v = cell(&rows[k], c);
            json_builder_set_member_name(b, columns[c]);
            if (column_is_number(c) && !rows[k].buffers) {
                json_builder_add_null_value(b);
            } else if (column_is_number(c)) {
                if (c == 9 || c == 12 || c == 13)
                    json_builder_add_double_value(b, g_ascii_strtod(v, NULL));
                else
                    json_builder_add_int_value(b, g_ascii_strtoll(v, NULL, 10));
            } else if (c == 14) {
                json_builder_add_boolean_value(b, rows[k].verified);
            } else {
                json_add_text(b, v);
            }
            g_free(v);
        }
        if (rows[k].bounded) { /* an upper-bound plan (the member is absent from exact ones) */
            json_builder_set_member_name(b, "data_dependent_tensors");
            json_builder_add_int_value(b, rows[k].bounded);
        }
        if (rows[k].map_trace)
            json_add_plan(b, rows[k].map_trace, rows[k].map_offsets);
        if (rows[k].kv_pairs) {
            json_builder_set_member_name(b, "kv");
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "pairs");
            json_builder_add_int_value(b, rows[k].kv_pairs);
            json_builder_set_member_name(b, "capacity_tokens");
            json_builder_add_int_value(b, (gint64)rows[k].kv_capacity);
            json_builder_set_member_name(b, "cache_bytes");
            json_builder_add_int_value(b, (gint64)rows[k].kv_bytes);
            json_builder_end_object(b);
        }
        if (rows[k].training.present)
            json_add_training(b, &rows[k].training);
        if (rows[k].tiers)
            json_add_tiers(b, &rows[k]);
        if (rows[k].peak)
            peak_witness_json(b, rows[k].peak_trace, rows[k].peak);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_document_print(out, b);
}

/* md for people: the graph, dims, alias and steps once above the table, then one short line per row with
 * sizes in binary units (exact bytes in --wide, csv and json). */
static void print_md_compact(FILE *out, const ReportRow *rows, guint n)
{
    char *graph = cell_md(rows[0].graph), *dims = cell_md(rows[0].dims),
         *alias = cell_md(rows[0].alias ? rows[0].alias : "none");
    fprintf(out, "**%s** (dims %s), alias %s, %u steps\n\n", graph, dims, alias, rows[0].steps);
    g_free(graph);
    g_free(dims);
    g_free(alias);
    fprintf(out, "| order | strategy | buffers | lower bound | arena | over lower bound | saved vs naive | plan (s) | detail |\n");
    fprintf(out, "|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (guint k = 0; k < n; k++) {
        const ReportRow *r = &rows[k];
        char *order = cell_md(r->order), *strategy = cell_md(r->strategy);
        if (!r->buffers) { /* an order that could not run: sim said why on stderr */
            fprintf(out, "| %s | %s | - | | (failed) | | | | |\n", order, strategy);
        } else {
            char *lb = g_format_size_full(r->lower_bound, G_FORMAT_SIZE_IEC_UNITS),
                 *arena = g_format_size_full(r->arena, G_FORMAT_SIZE_IEC_UNITS), *detail = cell_md(r->detail);
            fprintf(out, "| %s | %s | %u | %s | %s | %.2f%% | %.2f%% | %.6f | %s%s |\n", order, strategy, r->buffers, lb, arena,
                    pct(row_fragmentation(r), r->lower_bound),
                    spct(row_saved(r), r->naive), r->seconds, detail,
                    r->verified ? "" : " (not verified)");
            g_free(lb);
            g_free(arena);
            g_free(detail);
        }
        g_free(order);
        g_free(strategy);
    }
    fprintf(out, "\nLower bound: the most bytes live at once. Exact bytes and every column: --wide (or --format csv).\n");
}

/* ---- tables with separators: md's pipes and rule, or comma-separated (csv, and text's tables) ---- */
static void delimited(FILE *out, gboolean md, char *(*cell_fn)(const char *), const char *const *names,
                      const gboolean *numbers, guint ncols, const char *const *values, guint nrows)
{
    for (guint k = 0; k < ncols; k++)
        fprintf(out, md ? "| %s " : (k ? ",%s" : "%s"), names[k]);
    fprintf(out, md ? "|\n" : "\n");
    if (md) {
        for (guint k = 0; k < ncols; k++)
            fprintf(out, numbers[k] ? "|---:" : "|---");
        fprintf(out, "|\n");
    }
    for (guint r = 0; r < nrows; r++) {
        for (guint k = 0; k < ncols; k++) {
            char *q = cell_fn(values[(gsize)r * ncols + k]);
            fprintf(out, md ? "| %s " : (k ? ",%s" : "%s"), q);
            g_free(q);
        }
        fprintf(out, md ? "|\n" : "\n");
    }
}

/* The report's rows with every column, as a delimited table. */
static void all_columns(FILE *out, gboolean md, char *(*cell_fn)(const char *), const ReportRow *rows, guint n)
{
    guint ncols = G_N_ELEMENTS(columns);
    char **values = g_new0(char *, (gsize)n * ncols + 1);
    gboolean numbers[G_N_ELEMENTS(columns)];
    for (guint c = 0; c < ncols; c++)
        numbers[c] = column_is_number(c);
    for (guint k = 0; k < n; k++)
        for (guint c = 0; c < ncols; c++)
            values[(gsize)k * ncols + c] = cell(&rows[k], c);
    delimited(out, md, cell_fn, columns, numbers, ncols, (const char *const *)values, n);
    g_strfreev(values);
}

/* The sharing summary: per kind, ops shared and copied and bytes saved; then the fallbacks' lines (all of them,
 * or fewer lines summarising them: fallbacks is their count). */
static void aliasing_lines(FILE *out, const char *head, const char *line, const char *item, const guint *shared,
                           const guint *copied, const guint64 *saved, const char *const *kind_names, guint kinds,
                           const GPtrArray *notes, guint fallbacks)
{
    fputs(head, out);
    for (guint k = 1; k < kinds; k++) {
        if (!shared[k] && !copied[k])
            continue;
        char *b = sim_format_bytes(saved[k]);
        fprintf(out, line, kind_names[k], shared[k], copied[k], b);
        g_free(b);
    }
    if (fallbacks && notes->len < fallbacks)
        fprintf(out, "\n%u fallbacks (those of one kind and reason on one line; --verbose lists each):\n", fallbacks);
    else if (fallbacks)
        fprintf(out, "\n%u fallback%s:\n", fallbacks, fallbacks == 1 ? "" : "s");
    for (guint k = 0; k < notes->len; k++) {
        char *note = cell_text(notes->pdata[k]);
        fprintf(out, "%s%s\n", item, note);
        g_free(note);
    }
}

/* --map: a header, then `offset size name first last` a buffer a line. */
static void map_lines(FILE *out, const char *header, const char *line, char *(*cell_fn)(const char *), const Trace *t,
                      const guint64 *offsets, const guint *order)
{
    fputs(header, out);
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, order[k]);
        char *name = cell_fn(b->name);
        fprintf(out, line, offsets[order[k]], b->size, name, b->first, b->last);
        g_free(name);
    }
}

/* ---- text: for a reader, aligned ---- */
static void text_report(FILE *out, gboolean wide, const ReportRow *rows, guint n)
{
    (void)wide;
    if (n == 1)
        print_text_one(out, rows);
    else
        print_text_table(out, rows, n);
}

static void text_table(FILE *out, const char *const *names, const gboolean *numbers, guint ncols,
                       const char *const *values, guint nrows)
{
    delimited(out, FALSE, cell_text, names, numbers, ncols, values, nrows);
}

static void text_record(FILE *out, const char *const *names, const char *const *values, const gboolean *numbers,
                        guint n)
{
    text_table(out, names, numbers, n, values, 1);
}

static void text_aliasing(FILE *out, const guint *shared, const guint *copied, const guint64 *saved,
                          const char *const *kind_names, guint kinds, const GPtrArray *notes, guint fallbacks)
{
    aliasing_lines(out, "\nsharing          ops shared  ops copied  bytes saved\n", "%-16s %10u  %10u  %s\n", "  ", shared,
                   copied, saved, kind_names, kinds, notes, fallbacks);
}

/* Names escaped as the trace format escapes them, so every line splits into its five fields. */
static void text_map(FILE *out, const Trace *t, const guint64 *offsets, const guint *order)
{
    map_lines(out, "# offset size name first last\n",
              "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %s %u %u\n", trace_name_escape, t, offsets, order);
}

/* ---- md: for a page; compact unless --wide ---- */
static void md_report(FILE *out, gboolean wide, const ReportRow *rows, guint n)
{
    if (wide)
        all_columns(out, TRUE, cell_md, rows, n);
    else
        print_md_compact(out, rows, n);
}

static void md_table(FILE *out, const char *const *names, const gboolean *numbers, guint ncols, const char *const *values,
                     guint nrows)
{
    delimited(out, TRUE, cell_md, names, numbers, ncols, values, nrows);
}

static void md_record(FILE *out, const char *const *names, const char *const *values, const gboolean *numbers, guint n)
{
    md_table(out, names, numbers, n, values, 1);
}

static void md_aliasing(FILE *out, const guint *shared, const guint *copied, const guint64 *saved,
                        const char *const *kind_names, guint kinds, const GPtrArray *notes, guint fallbacks)
{
    aliasing_lines(out, "\n| sharing | ops shared | ops copied | bytes saved |\n|---|---:|---:|---:|\n",
                   "| %s | %u | %u | %s |\n", "- ", shared, copied, saved, kind_names, kinds, notes, fallbacks);
}

static void md_map(FILE *out, const Trace *t, const guint64 *offsets, const guint *order)
{
    map_lines(out, "\n| offset | size | name | first | last |\n|---:|---:|---|---:|---:|\n",
              "| %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %s | %u | %u |\n", cell_md, t, offsets, order);
}

/* ---- csv: for programs ---- */
static void csv_report(FILE *out, gboolean wide, const ReportRow *rows, guint n)
{
    (void)wide;
    all_columns(out, FALSE, cell_csv, rows, n);
}

static void csv_table(FILE *out, const char *const *names, const gboolean *numbers, guint ncols,
                      const char *const *values, guint nrows)
{
    delimited(out, FALSE, cell_csv, names, numbers, ncols, values, nrows);
}

static void csv_record(FILE *out, const char *const *names, const char *const *values, const gboolean *numbers, guint n)
{
    csv_table(out, names, numbers, n, values, 1);
}

/* Alone on stdout: one CSV (the pipeline prints no report row with it). */
static void csv_map(FILE *out, const Trace *t, const guint64 *offsets, const guint *order)
{
    map_lines(out, "offset,size,name,first,last\n", "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,%u,%u\n", cell_csv,
              t, offsets, order);
}

/* ---- json: for programs; one document ---- */
static void json_report(FILE *out, gboolean wide, const ReportRow *rows, guint n)
{
    (void)wide;
    print_json(out, rows, n);
}

static void json_table(FILE *out, const char *const *names, const gboolean *numbers, guint ncols,
                       const char *const *values, guint nrows)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_array(b);
    for (guint r = 0; r < nrows; r++) {
        json_builder_begin_object(b);
        for (guint k = 0; k < ncols; k++) {
            const char *v = values[(gsize)r * ncols + k];
            json_builder_set_member_name(b, names[k]);
            if (numbers[k])
                json_builder_add_double_value(b, g_ascii_strtod(v, NULL));
            else
                json_add_text(b, v);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_document_print(out, b);
}

/* One row in json: an object, not an array. */
static void json_record(FILE *out, const char *const *names, const char *const *values, const gboolean *numbers,
                        guint n)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    for (guint k = 0; k < n; k++) {
        json_builder_set_member_name(b, names[k]);
        if (numbers[k])
            json_builder_add_int_value(b, g_ascii_strtoll(values[k], NULL, 10));
        else
            json_add_text(b, values[k]);
    }
    json_builder_end_object(b);
    json_document_print(out, b);
}

/* The format table: a format is its writers and a row. */
static const ReportFormatRow format_rows[] = {
    {.name = "text", .prose = TRUE, .notes = TRUE, .peak = TRUE, .item = "  ", .block = "", .report = text_report,
     .table = text_table, .record = text_record, .aliasing = text_aliasing, .map = text_map,
     .range = report_range_text, .entries = report_entries_text,
     .generate = report_generate_text},
    {.name = "md", .notes = TRUE, .peak = TRUE, .item = "- ", .block = "    ", .widens = TRUE, .report = md_report, .table = md_table,
     .record = md_record, .aliasing = md_aliasing, .map = md_map, .range = report_range_md,
     .entries = report_entries_md, .generate = report_generate_md},
    {.name = "csv", .map_alone = TRUE, .report = csv_report, .table = csv_table, .record = csv_record, .map = csv_map,
     .range = report_range_csv, .entries = report_entries_csv, .generate = report_generate_csv},
    {.name = "json", .peak = TRUE, .report = json_report, .table = json_table, .record = json_record,
     .range = report_range_json, .entries = report_entries_json,
     .generate = report_generate_json},
};

ReportFormat report_format_find(const char *name)
{
    for (guint k = 0; name && k < G_N_ELEMENTS(format_rows); k++)
        if (!strcmp(name, format_rows[k].name))
            return &format_rows[k];
    return NULL;
}

char *report_format_names(void)
{
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < G_N_ELEMENTS(format_rows); k++)
        g_string_append_printf(s, "%s%s", k ? ", " : "", format_rows[k].name);
    return g_string_free(s, FALSE);
}

void report_entries_print(FILE *out, ReportFormat f, const ReportEntries *r)
{
    f->entries(out, r);
}

void report_generate_print(FILE *out, ReportFormat f, const ReportGenerate *g)
{
    f->generate(out, g);
}

void report_range_print(FILE *out, ReportFormat f, const ReportRange *r)
{
    f->range(out, r);
}

void report_print(FILE *out, ReportFormat f, gboolean wide, const ReportRow *rows, guint n)
{
    f->report(out, wide, rows, n);
}

void report_print_row(FILE *out, ReportFormat f, const char *const *names, const char *const *values,
                      const gboolean *numbers, guint n)
{
    f->record(out, names, values, numbers, n);
}

void report_print_table(FILE *out, ReportFormat f, const char *const *names, const gboolean *numbers, guint ncols,
                        const char *const *values, guint nrows)
{
    f->table(out, names, numbers, ncols, values, nrows);
}

void report_aliasing(FILE *out, ReportFormat f, const guint *shared, const guint *copied, const guint64 *saved,
                     const char *const *kind_names, guint kinds, const GPtrArray *notes, guint fallbacks)
{
    if (f->aliasing)
        f->aliasing(out, shared, copied, saved, kind_names, kinds, notes, fallbacks);
}

typedef struct {
    const Trace *t;
    const guint64 *offsets;
} MapCtx;

static gint by_offset(gconstpointer a, gconstpointer b, gpointer data)
{
    const MapCtx *c = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    if (c->offsets[x] != c->offsets[y])
        return c->offsets[x] < c->offsets[y] ? -1 : 1;
    gint r = strcmp(trace_buffer(c->t, x)->name, trace_buffer(c->t, y)->name);
    return r ? r : (x < y ? -1 : x > y);
}

/* The plan's buffers sorted by offset, then name: the order every format of --map uses. */
static guint *map_order(const Trace *t, const guint64 *offsets)
{
    guint n = trace_count(t);
    guint *order = g_new(guint, n + 1);
    for (guint k = 0; k < n; k++)
        order[k] = k;
    MapCtx c = {t, offsets};
    g_qsort_with_data(order, (gint)n, sizeof(guint), by_offset, &c);
    return order;
}

void report_map(FILE *out, ReportFormat f, const Trace *t, const guint64 *offsets)
{
    if (!f->map)
        return; /* json: the report carries the plan in its row (ReportRow.map_trace) */
    guint *order = map_order(t, offsets);
    f->map(out, t, offsets, order);
    g_free(order);
}

void report_ascii(FILE *out, const Trace *t, const Plan *plan, guint width, guint height)
{
    static const char symbols[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    guint64 arena = 0;
    for (guint k = 0; k < trace_count(t); k++)
        arena = MAX(arena, plan->offsets[k] + trace_buffer(t, k)->size);
    width = MAX(1, MIN(width, t->steps));
    if (arena == 0 || t->steps == 0) {
        fprintf(out, "(empty plan)\n");
        return;
    }
    height = MAX(1, height);
    char *grid = g_malloc((gsize)width * height);
    memset(grid, '.', (gsize)width * height);
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        guint c0 = (guint)((guint64)b->first * width / t->steps), c1 = (guint)((guint64)b->last * width / t->steps);
        guint r0 = (guint)((double)plan->offsets[k] * height / (double)arena);
        guint r1 = (guint)(((double)(plan->offsets[k] + b->size) * height - 1) / (double)arena);
        for (guint r = r0; r <= MIN(r1, height - 1); r++)
            for (guint c = c0; c <= MIN(c1, width - 1); c++)
                grid[(gsize)r * width + c] = symbols[k % (sizeof symbols - 1)];
    }
    char *top = sim_format_bytes(arena);
    fprintf(out, "address 0 (top) to %s (bottom) down, steps 0..%u across; one letter per buffer (cycling)\n", top,
            t->steps - 1);
    for (guint r = 0; r < height; r++)
        fprintf(out, "|%.*s|\n", (int)width, grid + (gsize)r * width);
    guint shown = MIN(trace_count(t), (guint)(sizeof symbols - 1));
    for (guint k = 0; k < shown; k++)
        fprintf(out, "%s%c=%s", k ? " " : "", symbols[k], trace_buffer(t, k)->name);
    if (shown)
        fprintf(out, "%s\n", trace_count(t) > shown ? " ..." : "");
    g_free(top);
    g_free(grid);
}
