/* units.h — human-readable byte counts for reports: "9,830,400 B (9.4 MiB)". */
#ifndef SIM_UNITS_H
#define SIM_UNITS_H

#include <glib.h>

/* "1,234,567" — digits grouped by thousands. Newly allocated. */
char *sim_format_count(guint64 n);
/* "1,234,567 B (1.2 MiB)"; below 1 KiB just "512 B". Newly allocated. */
char *sim_format_bytes(guint64 bytes);

#endif
