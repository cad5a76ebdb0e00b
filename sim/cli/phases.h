/* phases.h — where a run's time and memory go. The pipeline marks the end of each phase (load, shapes,
 * order, liveness, sharing, trace, naive, place, verify, report, run — the executor under --run — and output:
 * pictures and files); `sim --phases FILE` writes one CSV row
 * per phase: seconds spent in it (summed when a phase runs several times, as place does under --compare)
 * and the peak resident set at its end. bench/plan-scaling.sh fits each phase's growth from these. */
#ifndef SIM_PHASES_H
#define SIM_PHASES_H

#include <glib.h>

/* Ends the phase that ran since the previous mark (or since the process started). */
void phases_mark(const char *phase);
/* phase,seconds,peak_rss_kib — one row per phase, in the order each first ended. */
gboolean phases_write(const char *path, GError **error);

#endif
