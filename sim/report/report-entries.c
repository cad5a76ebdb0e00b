/* report-entries.c — several entry points in one arena, reported (see report-entries.h). */
#include "report/report-entries.h"
#include "base/escape.h"
#include "base/json-text.h"
#include "base/units.h"
#include "report/csv-table.h"

static void entry_clear(gpointer p)
{
    ReportEntry *e = p;
    g_free(e->name);
    g_free(e->dims);
}

void report_entries_init(ReportEntries *r)
{
    *r = (ReportEntries){0};
    r->entries = g_array_new(FALSE, TRUE, sizeof(ReportEntry));
    g_array_set_clear_func(r->entries, entry_clear);
}

void report_entries_clear(ReportEntries *r)
{
    if (r->entries)
        g_array_unref(r->entries);
    *r = (ReportEntries){0};
}

static guint64 alone_sum(const ReportEntries *r)
{
    guint64 sum = 0;
    for (guint k = 0; k < r->entries->len; k++)
        sum += g_array_index(r->entries, ReportEntry, k).alone_arena;
    return sum;
}

void report_entries_text(FILE *out, const ReportEntries *r)
{
    char *state = sim_format_bytes(r->state_bytes), *arena = sim_format_bytes(r->arena),
         *lb = sim_format_bytes(r->lower_bound), *sum = sim_format_bytes(alone_sum(r));
    fprintf(out, "entries        %u planned in one arena (order %s, strategy %s, alias %s)\n", r->entries->len,
            r->order, r->strategy, r->alias);
    fprintf(out, "state          %u buffer%s live through every entry (KV caches): %s\n", r->state_buffers,
            r->state_buffers == 1 ? "" : "s", state);
    fprintf(out, "\n%-24s %-32s %7s %8s %14s %18s\n", "entry", "dims", "steps", "buffers", "alone (B)",
            "transient peak (B)");
    for (guint k = 0; k < r->entries->len; k++) {
        const ReportEntry *e = &g_array_index(r->entries, ReportEntry, k);
        char *name = escape_terminal(e->name), *dims = escape_terminal(e->dims);
        fprintf(out, "%-24s %-32s %7u %8u %14" G_GUINT64_FORMAT " %18" G_GUINT64_FORMAT "\n", name, dims, e->steps,
                e->buffers, e->alone_arena, e->transient_peak);
        g_free(name);
        g_free(dims);
    }
    char *once = sim_format_bytes(alone_sum(r) - MIN(alone_sum(r), r->state_bytes));
    fprintf(out, "\narena          %s: the state once, each entry's other buffers beside it in its own steps\n", arena);
    fprintf(out, "lower bound    %s (max live bytes over the steps of all entries)\n", lb);
    fprintf(out, "apart          %s: each entry planned alone, summed; %s with the state counted once\n", sum, once);
    fprintf(out, "verified       %s\n", r->verified ? "yes" : "no (--no-verify)");
    g_free(state);
    g_free(arena);
    g_free(lb);
    g_free(sum);
    g_free(once);
}

/* The table's cells, a row per entry and a last row `together`: COLUMNS each, newly allocated (g_strfreev). */
static const char *const columns[] = {"entry", "dims", "steps", "buffers", "alone_arena_bytes", "transient_peak_bytes",
                                      "state_bytes", "arena_bytes", "lower_bound_bytes", "verified"};
enum { COLUMNS = G_N_ELEMENTS(columns) };

static char **cells(const ReportEntries *r)
{
    guint rows = r->entries->len + 1;
    char **v = g_new0(char *, (gsize)rows * COLUMNS + 1);
    for (guint k = 0; k < r->entries->len; k++) {
        const ReportEntry *e = &g_array_index(r->entries, ReportEntry, k);
        char **c = v + (gsize)k * COLUMNS;
        c[0] = g_strdup(e->name);
        c[1] = g_strdup(e->dims);
        c[2] = g_strdup_printf("%u", e->steps);
        c[3] = g_strdup_printf("%u", e->buffers);
        c[4] = g_strdup_printf("%" G_GUINT64_FORMAT, e->alone_arena);
        c[5] = g_strdup_printf("%" G_GUINT64_FORMAT, e->transient_peak);
        c[6] = g_strdup_printf("%" G_GUINT64_FORMAT, e->state_bytes);
        for (guint j = 7; j < COLUMNS; j++)
            c[j] = g_strdup("");
    }
    char **c = v + (gsize)r->entries->len * COLUMNS;
    c[0] = g_strdup("together");
    c[1] = g_strdup("");
    c[2] = g_strdup_printf("%u", r->steps);
    c[3] = g_strdup_printf("%u", r->buffers);
    c[4] = g_strdup_printf("%" G_GUINT64_FORMAT, alone_sum(r));
    c[5] = g_strdup("");
    c[6] = g_strdup_printf("%" G_GUINT64_FORMAT, r->state_bytes);
    c[7] = g_strdup_printf("%" G_GUINT64_FORMAT, r->arena);
    c[8] = g_strdup_printf("%" G_GUINT64_FORMAT, r->lower_bound);
    c[9] = g_strdup(r->verified ? "yes" : "no");
    return v;
}

void report_entries_md(FILE *out, const ReportEntries *r)
{
    char **v = cells(r);
    for (guint k = 0; k < COLUMNS; k++)
        fprintf(out, "| %s ", columns[k]);
    fputs("|\n", out);
    for (guint k = 0; k < COLUMNS; k++)
        fputs(k < 2 || k == COLUMNS - 1 ? "|---" : "|---:", out);
    fputs("|\n", out);
    for (guint row = 0; row <= r->entries->len; row++) {
        for (guint k = 0; k < COLUMNS; k++) {
            char *cell = escape_md_cell(v[(gsize)row * COLUMNS + k]);
            fprintf(out, "| %s ", cell);
            g_free(cell);
        }
        fputs("|\n", out);
    }
    g_strfreev(v);
}

void report_entries_csv(FILE *out, const ReportEntries *r)
{
    char **v = cells(r);
    for (guint k = 0; k < COLUMNS; k++)
        fprintf(out, "%s%s", k ? "," : "", columns[k]);
    fputc('\n', out);
    for (guint row = 0; row <= r->entries->len; row++) {
        for (guint k = 0; k < COLUMNS; k++) {
            char *cell = csv_table_quote(v[(gsize)row * COLUMNS + k]);
            fprintf(out, "%s%s", k ? "," : "", cell);
            g_free(cell);
        }
        fputc('\n', out);
    }
    g_strfreev(v);
}

static void json_int(JsonBuilder *b, const char *name, guint64 v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, (gint64)v);
}

static void entries_members(JsonBuilder *b, const ReportEntries *r);

void report_entries_json(FILE *out, const ReportEntries *r)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    entries_members(b, r);
    json_builder_end_object(b);
    json_document_print(out, b);
}

static void entries_members(JsonBuilder *b, const ReportEntries *r)
{
    const char *texts[][2] = {{"order", r->order}, {"strategy", r->strategy}, {"alias", r->alias}};
    for (guint k = 0; k < G_N_ELEMENTS(texts); k++) {
        json_builder_set_member_name(b, texts[k][0]);
        json_add_text(b, texts[k][1]);
    }
    json_builder_set_member_name(b, "entries");
    json_builder_begin_array(b);
    for (guint k = 0; k < r->entries->len; k++) {
        const ReportEntry *e = &g_array_index(r->entries, ReportEntry, k);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "entry");
        json_add_text(b, e->name);
        json_builder_set_member_name(b, "dims");
        json_add_text(b, e->dims);
        json_int(b, "steps", e->steps);
        json_int(b, "buffers", e->buffers);
        json_int(b, "alone_arena_bytes", e->alone_arena);
        json_int(b, "transient_peak_bytes", e->transient_peak);
        json_int(b, "state_bytes", e->state_bytes);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_int(b, "state_buffers", r->state_buffers);
    json_int(b, "state_bytes", r->state_bytes);
    json_int(b, "steps", r->steps);
    json_int(b, "buffers", r->buffers);
    json_int(b, "alone_arena_sum_bytes", alone_sum(r));
    json_int(b, "arena_bytes", r->arena);
    json_int(b, "lower_bound_bytes", r->lower_bound);
    json_builder_set_member_name(b, "verified");
    json_builder_add_boolean_value(b, r->verified);
}

/* "a b c" of n ids. Newly allocated. */
static char *ids_text(const gint64 *ids, guint n)
{
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < n; k++)
        g_string_append_printf(s, "%s%" G_GINT64_FORMAT, k ? " " : "", ids[k]);
    return g_string_free(s, FALSE);
}

static char *check_text(const ReportGenerate *g)
{
    if (!g->n_expected)
        return g_strdup("none (no --expect)");
    guint n = MIN(g->n_tokens, g->n_expected);
    return g_strdup_printf("%u of %u tokens equal those expected%s", g->matched, n,
                           g->matched == n ? "" : ", the first differing one ends the count");
}

void report_generate_text(FILE *out, const ReportGenerate *g)
{
    report_entries_text(out, g->plan);
    char *prompt = ids_text(g->prompt, g->prompt_len), *tokens = ids_text(g->tokens, g->n_tokens);
    char *check = check_text(g);
    char *dim = escape_terminal(g->past_dim);
    fprintf(out, "\ngenerate       %u tokens after a prompt of %u, every step in the arena above (%s %u..%u), runs "
            "%.3f s\n", g->n_tokens, g->prompt_len, dim, g->prompt_len, g->prompt_len + MAX(g->n_tokens, 2) - 2,
            g->seconds);
    fprintf(out, "prompt         %s\ntokens         %s\ncheck          %s\n", prompt, tokens, check);
    g_free(prompt);
    g_free(tokens);
    g_free(check);
    g_free(dim);
}

static const char *const generate_columns[] = {"prompt", "tokens", "expected", "matched", "seconds"};

static char **generate_cells(const ReportGenerate *g)
{
    char **v = g_new0(char *, G_N_ELEMENTS(generate_columns) + 1);
    v[0] = ids_text(g->prompt, g->prompt_len);
    v[1] = ids_text(g->tokens, g->n_tokens);
    v[2] = ids_text(g->expected, g->n_expected);
    v[3] = g_strdup_printf("%u", g->matched);
    v[4] = g_strdup_printf("%.3f", g->seconds);
    return v;
}

void report_generate_md(FILE *out, const ReportGenerate *g)
{
    report_entries_md(out, g->plan);
    char **v = generate_cells(g);
    fputc('\n', out);
    for (guint k = 0; k < G_N_ELEMENTS(generate_columns); k++)
        fprintf(out, "| %s ", generate_columns[k]);
    fputs("|\n|---|---|---|---:|---:|\n", out);
    for (guint k = 0; k < G_N_ELEMENTS(generate_columns); k++)
        fprintf(out, "| %s ", v[k]); /* ids and numbers: nothing to escape */
    fputs("|\n", out);
    g_strfreev(v);
}

void report_generate_csv(FILE *out, const ReportGenerate *g)
{
    report_entries_csv(out, g->plan);
    char **v = generate_cells(g);
    fputc('\n', out);
    for (guint k = 0; k < G_N_ELEMENTS(generate_columns); k++)
        fprintf(out, "%s%s", k ? "," : "", generate_columns[k]);
    fputc('\n', out);
    for (guint k = 0; k < G_N_ELEMENTS(generate_columns); k++)
        fprintf(out, "%s%s", k ? "," : "", v[k]);
    fputc('\n', out);
    g_strfreev(v);
}

static void ids_json(JsonBuilder *b, const char *name, const gint64 *ids, guint n)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_array(b);
    for (guint k = 0; k < n; k++)
        json_builder_add_int_value(b, ids[k]);
    json_builder_end_array(b);
}

void report_generate_json(FILE *out, const ReportGenerate *g)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "plan");
    json_builder_begin_object(b);
    entries_members(b, g->plan);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "past_dim");
    json_add_text(b, g->past_dim);
    ids_json(b, "prompt", g->prompt, g->prompt_len);
    ids_json(b, "tokens", g->tokens, g->n_tokens);
    ids_json(b, "expected", g->expected, g->n_expected);
    json_int(b, "matched", g->matched);
    json_builder_set_member_name(b, "seconds");
    json_builder_add_double_value(b, g->seconds);
    json_builder_end_object(b);
    json_document_print(out, b);
}
