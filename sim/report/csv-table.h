/* csv-table.h — CSV in both directions, one rule (RFC 4180: fields quoted with '"' when they hold a
 * comma, a quote or a line break; '""' inside quotes is a quote). csv_table_quote is the only way the tool
 * writes a CSV field (reports, --profile); the reader takes back what `sim --format csv` and
 * bench/sweep.py write, for the table plots. Bad input is an error naming the line. */
#ifndef SIM_CSV_TABLE_H
#define SIM_CSV_TABLE_H

#include <glib.h>

typedef struct {
    GPtrArray *header; /* column names (char *) */
    GPtrArray *rows;   /* each a GPtrArray of char *, as many as the header */
    GArray *lines;     /* guint: the line each row starts on, for error messages */
} CsvTable;

/* A field as written: quoted when it holds ',', '"', '\n' or '\r' (or leading/trailing blanks). Newly allocated. */
char *csv_table_quote(const char *field);

CsvTable *csv_table_read(const char *path, GError **error);
/* The same from bytes in memory (fuzzers, tests). */
CsvTable *csv_table_parse(const char *text, gsize length, GError **error);
/* The index of a column, or -1. */
gint csv_table_column(const CsvTable *t, const char *name);
const char *csv_table_cell(const CsvTable *t, guint row, guint column);
guint csv_table_line(const CsvTable *t, guint row);
void csv_table_free(CsvTable *t);
/* Keeps the rows whose COLUMN is VALUE (spec "COLUMN=VALUE"; a graph also by its file name without .onnx),
 * in their order; an error when the column is unknown or no row is left. */
gboolean csv_table_where(CsvTable *t, const char *spec, GError **error);
/* Drops the rows whose COLUMN is empty (a report's row for an order that could not run has no figures; its
 * detail says why), in place, keeping the others in their order; how many went. Nothing when the table has no
 * such column. */
guint csv_table_drop_empty(CsvTable *t, const char *column);

#endif
