/* interrupt.h — Ctrl-C during planning: while a plan is being searched, SIGINT only raises a flag the
 * time-bounded strategies read (PlaceOptions.stop), so a long search ends early with its best plan, which is
 * then verified and reported as usual; outside planning SIGINT does what it always does. And the search's
 * progress lines, on stderr. */
#ifndef SIM_CLI_INTERRUPT_H
#define SIM_CLI_INTERRUPT_H

#include <glib.h>
#include <signal.h>

/* The flag SIGINT raises while caught (for PlaceOptions.stop). */
const volatile sig_atomic_t *interrupt_flag(void);
/* From now on SIGINT raises the flag; interrupt_release() puts the default action back. */
void interrupt_catch(void);
void interrupt_release(void);
/* A PlaceOptions.progress callback: "sim: LINE" on stderr. */
void interrupt_print_progress(const char *line);

#endif
