/* huge-pages.c — malloc on transparent huge pages for runs on large inputs. A million-buffer trace fills
 * hundreds of MiB of arrays and index lists; on 4 KiB pages every one of their pages costs a fault and a
 * TLB entry, and on this project's virtual machines a fault is slow (bestfit on a 1M-buffer trace spent
 * 11% of its time in the kernel's fault path). glibc gives malloc's memory to transparent huge pages
 * (madvise) when the tunable glibc.malloc.hugetlb is 1, but reads tunables only when a process starts,
 * so sim starts itself again with it set, once it knows its input is large (the second start costs about
 * 7 ms, which small inputs would feel); results/history.md, "The planning process's memory", has the
 * measurements. Where the kernel's THP mode is "never" the tunable changes nothing.
 * Blocks from 128 KiB up are, by default, mappings of their own until freeing one raises glibc's threshold:
 * the arrays and tables a 200k-node model grows by doubling (tensor and node lists, the name table) were
 * each mapped, zeroed page by page on first touch and unmapped again (116 munmap calls where one is left
 * with the threshold fixed at its maximum), a large share of a 200k-node model's load phase (results/history.md,
 * the same section).
 * Fast bins off: glibc parks small freed blocks in "fast bins" without merging them, and the next large
 * request (a calloc of the placed index's nodes, a list's growth) first walks all of them to merge them
 * (malloc_consolidate and unlink_chunk were 11% of a 200k-node transformer stack's profile, its earlier
 * phases having freed hundreds of thousands of small blocks); without them 200k-node graphs plan faster and
 * 1M-buffer traces are unchanged (results/history.md, the same section). */
#include "cli/huge-pages.h"

#include <glib/gstdio.h>
#include <malloc.h>
#include <sys/auxv.h>
#include <string.h>
#include <unistd.h>

#define TUNABLE "glibc.malloc.hugetlb"

void huge_pages_exec(char **argv, const char *path)
{
    GStatBuf st;
    if (!path || g_stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (gint64)st.st_size < HUGE_PAGES_MIN_INPUT)
        return; /* small, or not a file we can size (the run itself will say what is wrong with it) */
    const char *tunables = g_getenv("GLIBC_TUNABLES");
    const char *preload = g_getenv("LD_PRELOAD");
    if (g_getenv("ARENASIM_SMALL_PAGES") || (tunables && strstr(tunables, TUNABLE)))
        return; /* asked not to, or already the second start */
    if (preload && strstr(preload, "vgpreload"))
        return; /* valgrind does not follow an exec unless told to: the checked run would escape it */
    if (getauxval(AT_BASE) == 0)
        return; /* started through the dynamic loader (ld.so ./sim ...): /proc/self/exe is the loader, which
                   would read sim's arguments as its own; a normal start has the loader's base here */
    char *before = g_strdup(tunables); /* g_setenv may free the string g_getenv returned */
    char *value = before && *before ? g_strconcat(before, ":" TUNABLE "=1", NULL) : g_strdup(TUNABLE "=1");
    if (g_setenv("GLIBC_TUNABLES", value, TRUE)) {
        execv("/proc/self/exe", argv);
        /* No /proc, or exec refused: go on as we are, with the environment as it was. */
        if (before)
            g_setenv("GLIBC_TUNABLES", before, TRUE);
        else
            g_unsetenv("GLIBC_TUNABLES");
    }
    g_free(value);
    g_free(before);
}

void huge_pages_tune_malloc(void)
{
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* refused (returns 0) only above the maximum: nothing to handle */
#endif
#ifdef M_MXFAST
    mallopt(M_MXFAST, 0);
#endif
}
