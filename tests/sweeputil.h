/* sweeputil.h — bench/sweep.py in the background, with runs that hang, for the sweep tests. The sweep runs with
 * SIM_BIN = a wrapper around the sim under test that sleeps on greedy-size while the folder $SWEEP_TEST_HANG
 * exists (recording its pid there), and with $SWEEP_TEST_FLAKY kills itself on greedy-breadth the first time;
 * so what finishes before a fault is fixed, whatever the machine's speed. */
#ifndef SWEEPUTIL_H
#define SWEEPUTIL_H

#include <glib.h>

typedef struct {
    GPid pid;  /* the sweep, leader of its own process group */
    char *err; /* the file its stderr goes to */
} Background;

/* Starts bench/sweep.py args (NULL-terminated) from the repository, its runs hanging in `hang`. */
Background sweep_start(const char *const *args, const char *hang, const char *err_name);
/* Waits for it: its exit status (128 + the signal that ended it), *said what it wrote on stderr. */
int sweep_wait(Background *b, char **said);
/* Waits, two minutes at most, until n runs hang in `hang` (the test fails with a message past that). */
void sweep_wait_hanging(const char *hang, guint n);
/* Every run that hung in `hang` has ended (twenty seconds at most); the folder is emptied. */
void sweep_assert_hanging_ended(const char *hang);
/* A table's rows as "graph|dims|order|alias|strategy" keys; the test fails when one run has two rows. */
GHashTable *sweep_table_keys(const char *path);
/* How many runs a table holds (sweep_table_keys' count). */
guint sweep_table_runs(const char *path);
/* Whether the keys hold graph's run of strategy (no dims, file order, alias all). */
gboolean sweep_has_key(GHashTable *keys, const char *graph, const char *strategy);

#endif
