/* huge-pages.h — how large inputs get their memory from glibc's malloc: on transparent huge pages, with
 * large freed blocks kept for reuse and without fast bins (see huge-pages.c). */
#ifndef SIM_HUGE_PAGES_H
#define SIM_HUGE_PAGES_H

#include <glib.h>

/* Inputs of at least this many bytes are worth a second start (about 7 ms) with huge pages. */
#define HUGE_PAGES_MIN_INPUT ((gint64)4 << 20)

/* Re-executes this program with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 added when `path` names a file of at
 * least HUGE_PAGES_MIN_INPUT bytes, unless that tunable is set already, ARENASIM_SMALL_PAGES is set, or
 * valgrind watches the process. Returns only when it did not re-execute (or the exec failed: the run goes
 * on with small pages). Call before reading any input. */
void huge_pages_exec(char **argv, const char *path);

/* Keeps blocks up to 32 MiB (glibc's largest mmap threshold) in malloc's heap instead of mappings of their
 * own, so a growing array's freed blocks are reused rather than unmapped and faulted in again; and turns
 * glibc's fast bins off, whose small freed blocks every large request first sweeps back together. Call
 * once, in the process that plans (a setting made before an exec does not survive it). */
void huge_pages_tune_malloc(void);

#endif
