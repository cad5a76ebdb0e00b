/* big-alloc.c — memory for the executor (see big-alloc.h).
 *
 * Blocks of 2 MiB or more are mapped directly (already zero, so nothing writes them before the run does)
 * and advised onto transparent huge pages: this kernel's THP mode is `madvise`, so anonymous memory gets
 * 4 KiB pages unless asked, and on this VM every page fault is expensive. `sim --run --check --poison`
 * of GPT-2 (weights, ~500 MB, filled at load; a nothing-shared reference arena of 409 MiB) spent over
 * half its time in page faults. Each block carries a 64-byte header saying how to give it back. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and madvise are not POSIX */
#include "exec/big-alloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEADER 64
#define HUGE_PAGE ((guint64)2 << 20)
#define MAPPED 0x6d6170706564ULL /* "mapped" */
#define ALLOCATED 0x616c6c6f63ULL /* "alloc" */

typedef struct {
    guint64 kind;
    void *base;
    gsize length;
    guint64 counted; /* what the block adds to the total held (big_alloc_held) */
} Header;

/* Everything the executors of this process hold at once (arenas, weights, tensors outside the arena, a
 * --check reference's own arena): what a run asks for is weighed against it, not alone. */
static gint64 held;

guint64 big_alloc_held(void) { return (guint64)g_atomic_pointer_get((gpointer *)&held); }

static void hold(gint64 delta) { g_atomic_pointer_add((gpointer *)&held, (gssize)delta); }

guint64 big_alloc_available(void)
{
    /* MemAvailable: what the kernel can give without swapping; read once, when the first run starts, so
     * that what this process then holds is counted against it once, by big_alloc_held. */
    static gsize once;
    static guint64 available;
    if (g_once_init_enter(&once)) {
        guint64 found = G_MAXUINT64;
        gchar *text = NULL;
        const char *limit = g_getenv("ARENASIM_RUN_MEMORY"); /* bytes a run may hold, on a shared machine */
        if (limit && g_ascii_isdigit(*limit)) {
            found = g_ascii_strtoull(limit, NULL, 10);
        } else if (g_file_get_contents("/proc/meminfo", &text, NULL, NULL)) {
            const char *line = strstr(text, "MemAvailable:");
            if (line)
                found = g_ascii_strtoull(line + strlen("MemAvailable:"), NULL, 10) * 1024;
            g_free(text);
        }
        if (found == G_MAXUINT64) { /* no /proc: physical memory */
            long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
            found = pages > 0 && page > 0 ? (guint64)pages * (guint64)page : G_MAXUINT64;
        }
        available = found;
        g_once_init_leave(&once, 1);
    }
    return available;
}

guint64 big_alloc_room(void)
{
    guint64 available = big_alloc_available(), taken = big_alloc_held();
    return taken <= available ? available - taken : 0;
}

void *big_alloc_within(guint64 bytes)
{
    guint64 rounded = (MAX(bytes, 1) + 63) / 64 * 64;
    return rounded >= bytes && rounded <= big_alloc_room() ? big_alloc(bytes) : NULL;
}

void *big_alloc(guint64 bytes)
{
    guint64 need = (MAX(bytes, 1) + 63) / 64 * 64 + HEADER;
    if (need < bytes || need > G_MAXSIZE - 2 * HUGE_PAGE)
        return NULL;
    if (need < HUGE_PAGE) {
        void *p = NULL;
        if (posix_memalign(&p, 64, (size_t)need))
            return NULL;
        memset(p, 0, (size_t)need);
        ((Header *)p)->kind = ALLOCATED;
        ((Header *)p)->counted = need;
        hold((gint64)need);
        return (char *)p + HEADER;
    }
    /* one huge page of slack, so the block can start on a huge-page boundary */
    gsize span = (gsize)((need + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE), length = span + (gsize)HUGE_PAGE;
    void *base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    char *start = (char *)(((guintptr)base + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE);
    madvise(start, span, MADV_HUGEPAGE); /* advice: where THP is off, the block still works */
    Header *h = (Header *)start;
    h->kind = MAPPED;
    h->base = base;
    h->length = length;
    h->counted = span;
    hold((gint64)span);
    return start + HEADER;
}

void big_alloc_free(void *p)
{
    if (!p)
        return;
    Header *h = (Header *)((char *)p - HEADER);
    hold(-(gint64)h->counted);
    if (h->kind == MAPPED)
        munmap(h->base, h->length);
    else
        free(h);
}
