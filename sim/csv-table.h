/* csv-table.h — reads a CSV table with a header row (RFC 4180: fields quoted with '"' when they hold a
 * comma, a quote or a newline; '""' inside quotes is a quote): what `sim --format csv` and
 * bench/sweep.sh write, read back for the table plots. Bad input is an error naming the line. */
#ifndef SIM_CSV_TABLE_H
#define SIM_CSV_TABLE_H

#include <glib.h>

typedef struct {
    GPtrArray *header; /* column names (char *) */
    GPtrArray *rows;   /* each a GPtrArray of char *, as many as the header */
    GArray *lines;     /* guint: the line each row starts on, for error messages */
} CsvTable;

CsvTable *csv_table_read(const char *path, GError **error);
/* The index of a column, or -1. */
gint csv_table_column(const CsvTable *t, const char *name);
const char *csv_table_cell(const CsvTable *t, guint row, guint column);
guint csv_table_line(const CsvTable *t, guint row);
void csv_table_free(CsvTable *t);

#endif
