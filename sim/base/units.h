/* units.h — human-readable byte counts for reports: "9,830,400 B (9.4 MiB)". */
#ifndef SIM_UNITS_H
#define SIM_UNITS_H

#include <glib.h>

/* "1,234,567" — digits grouped by thousands. Newly allocated. */
char *sim_format_count(guint64 n);
/* "1,234,567 B (1.2 MiB)"; below 1 KiB just "512 B". Newly allocated. */
char *sim_format_bytes(guint64 bytes);
/* A byte count as people write it: digits, then optionally B, K/KiB, M/MiB, G/GiB, T/TiB (powers of 1024); no
 * blanks, no sign, nothing after. FALSE on anything else or past 2^64 - 1. */
gboolean sim_parse_bytes(const char *text, guint64 *out);

#endif
