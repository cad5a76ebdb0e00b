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

#define HEADER 64
#define HUGE_PAGE ((guint64)2 << 20)
#define MAPPED 0x6d6170706564ULL /* "mapped" */
#define ALLOCATED 0x616c6c6f63ULL /* "alloc" */

typedef struct {
    guint64 kind;
    void *base;
    gsize length;
} Header;

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
    return start + HEADER;
}

void big_free(void *p)
{
    if (!p)
        return;
    Header *h = (Header *)((char *)p - HEADER);
    if (h->kind == MAPPED)
        munmap(h->base, h->length);
    else
        free(h);
}
