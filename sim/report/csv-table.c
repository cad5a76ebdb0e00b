/* csv-table.c — CSV quoting and the CSV reader (see csv-table.h). */
#include "report/csv-table.h"
#include "base/error.h"
#include "base/files.h"

#include <string.h>

char *csv_table_quote(const char *field)
{
    size_t n = strlen(field);
    if (!strpbrk(field, ",\"\n\r") && !(n && (g_ascii_isspace(field[0]) || g_ascii_isspace(field[n - 1]))))
        return g_strdup(field);
    GString *q = g_string_new("\"");
    for (const char *p = field; *p; p++) {
        if (*p == '"')
            g_string_append_c(q, '"');
        g_string_append_c(q, *p);
    }
    g_string_append_c(q, '"');
    return g_string_free(q, FALSE);
}

/* Splits one record starting at *p; advances *p past its line end and counts the lines it spans. */
static GPtrArray *read_record(const char **p, const char *end, guint *line, GError **error)
{
    GPtrArray *fields = g_ptr_array_new_with_free_func(g_free);
    GString *field = g_string_new(NULL);
    const char *c = *p;
    guint start = *line;
    for (;;) {
        if (c < end && *c == '"') {
            for (c++;; c++) {
                if (c >= end) {
                    g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "line %u: a quoted field is not closed", start);
                    goto fail;
                }
                if (*c == '"') {
                    if (c + 1 < end && c[1] == '"') {
                        g_string_append_c(field, '"');
                        c++;
                        continue;
                    }
                    c++;
                    break;
                }
                if (*c == '\n')
                    (*line)++;
                g_string_append_c(field, *c);
            }
            if (c < end && *c != ',' && *c != '\n' && *c != '\r') {
                g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "line %u: text after a closing quote", *line);
                goto fail;
            }
        } else {
            while (c < end && *c != ',' && *c != '\n' && *c != '\r') {
                if (*c == '"') {
                    g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "line %u: a quote inside an unquoted field", *line);
                    goto fail;
                }
                g_string_append_c(field, *c++);
            }
        }
        g_ptr_array_add(fields, g_string_free(field, FALSE));
        field = g_string_new(NULL);
        if (c < end && *c == ',') {
            c++;
            continue;
        }
        if (c < end && *c == '\r')
            c++;
        if (c < end && *c == '\n')
            c++;
        (*line)++;
        break;
    }
    g_string_free(field, TRUE);
    *p = c;
    return fields;
fail:
    g_string_free(field, TRUE);
    g_ptr_array_unref(fields);
    return NULL;
}

CsvTable *csv_table_read(const char *path, GError **error)
{
    char *text;
    gsize length;
    if (!sim_read_file(path, SIM_TEXT_MAX_BYTES, &text, &length, error))
        return NULL;
    CsvTable *t = csv_table_parse(text, length, error);
    g_free(text);
    return t;
}

CsvTable *csv_table_parse(const char *text, gsize length, GError **error)
{
    CsvTable *t = g_new0(CsvTable, 1);
    t->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    t->lines = g_array_new(FALSE, FALSE, sizeof(guint));
    const char *p = text, *end = text + length;
    guint line = 1;
    if (memchr(text, '\0', length)) { /* other bytes are kept as they are: a label is made valid where it is drawn */
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "not a text file (NUL bytes)");
        goto fail;
    }
    if (length == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "empty file: a CSV table starts with its header row");
        goto fail;
    }
    if (length >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) /* a UTF-8 byte-order mark, as spreadsheets write it */
        p += 3;
    if (!(t->header = read_record(&p, end, &line, error)))
        goto fail;
    while (p < end) {
        guint first = line;
        if (*p == '\n' || *p == '\r') { /* a blank line */
            p += (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
            line++;
            continue;
        }
        GPtrArray *row = read_record(&p, end, &line, error);
        if (!row)
            goto fail;
        if (row->len != t->header->len) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "line %u: %u fields where the header has %u", first, row->len,
                        t->header->len);
            g_ptr_array_unref(row);
            goto fail;
        }
        g_ptr_array_add(t->rows, row);
        g_array_append_val(t->lines, first);
    }
    return t;
fail:
    csv_table_free(t);
    return NULL;
}

gint csv_table_column(const CsvTable *t, const char *name)
{
    for (guint k = 0; k < t->header->len; k++)
        if (!strcmp(t->header->pdata[k], name))
            return (gint)k;
    return -1;
}

const char *csv_table_cell(const CsvTable *t, guint row, guint column)
{
    return g_ptr_array_index((GPtrArray *)t->rows->pdata[row], column);
}

guint csv_table_line(const CsvTable *t, guint row) { return g_array_index(t->lines, guint, row); }

void csv_table_free(CsvTable *t)
{
    if (!t)
        return;
    if (t->header)
        g_ptr_array_unref(t->header);
    g_ptr_array_unref(t->rows);
    g_array_unref(t->lines);
    g_free(t);
}

/* Whether cell matches value: equal, or for the graph column the file name without .onnx (as the plots
 * name graphs). */
static gboolean cell_matches(const char *column, const char *cell, const char *value)
{
    if (!strcmp(cell, value))
        return TRUE;
    if (strcmp(column, "graph"))
        return FALSE;
    char *base = g_path_get_basename(cell);
    if (g_str_has_suffix(base, ".onnx"))
        base[strlen(base) - 5] = '\0';
    gboolean same = !strcmp(base, value);
    g_free(base);
    return same;
}

/* Keeps row r when keep[r], in order, every row owned once. */
static void keep_rows(CsvTable *t, const gboolean *keep)
{
    guint kept = 0;
    for (guint r = 0; r < t->rows->len; r++) {
        if (!keep[r])
            continue;
        GPtrArray *row = t->rows->pdata[r];
        t->rows->pdata[r] = t->rows->pdata[kept]; /* swapped, so every row stays owned once */
        t->rows->pdata[kept] = row;
        g_array_index(t->lines, guint, kept) = g_array_index(t->lines, guint, r);
        kept++;
    }
    g_ptr_array_set_size(t->rows, kept);
    g_array_set_size(t->lines, kept);
}

guint csv_table_drop_empty(CsvTable *t, const char *column)
{
    gint c = csv_table_column(t, column);
    if (c < 0)
        return 0;
    guint before = t->rows->len;
    gboolean *keep = g_new(gboolean, before + 1);
    for (guint r = 0; r < before; r++)
        keep[r] = *csv_table_cell(t, r, (guint)c) != '\0';
    keep_rows(t, keep);
    g_free(keep);
    return before - t->rows->len;
}

gboolean csv_table_where(CsvTable *t, const char *spec, GError **error)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--where '%s' is not COLUMN=VALUE", spec);
        return FALSE;
    }
    char *column = g_strndup(spec, (gsize)(eq - spec));
    gint c = csv_table_column(t, column);
    if (c < 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--where names column '%s', which the table does not have", column);
        g_free(column);
        return FALSE;
    }
    gboolean *keep = g_new(gboolean, t->rows->len + 1);
    for (guint r = 0; r < t->rows->len; r++)
        keep[r] = cell_matches(column, csv_table_cell(t, r, (guint)c), eq + 1);
    keep_rows(t, keep);
    g_free(keep);
    guint kept = t->rows->len;
    if (!kept)
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--where %s: no row has %s '%s'", spec, column, eq + 1);
    g_free(column);
    return kept > 0;
}
