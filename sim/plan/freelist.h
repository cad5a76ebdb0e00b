/* freelist.h — the free address space of an online allocator: coalescing free blocks, indexed for the one
 * fit the list was made for. First fit keeps them in a treap by address whose subtrees know their longest
 * block (the lowest-address fit in O(log n)); best fit keeps them in order by address (neighbours to merge
 * with) and by (length, address) (the smallest fit). Neither pays for the other's index. The space is
 * unbounded: the top block runs to the end of the address range, so an allocation that fits nowhere else
 * extends the arena. */
#ifndef SIM_FREELIST_H
#define SIM_FREELIST_H

#include <glib.h>

typedef struct FreeList FreeList;

typedef enum {
    FREELIST_FIRST_FIT, /* the lowest-address free block that holds the request */
    FREELIST_BEST_FIT,  /* the smallest such block (ties: lowest address); the top block only when nothing else fits */
} FreeListFit;

/* units (PlaceUnit, or NULL): what the list will be asked for, so that its fit searches no block none of
 * them could use (gap-use.h); the blocks it picks are the same without. */
FreeList *freelist_new(FreeListFit fit, const GArray *units);
void freelist_free(FreeList *f);
/* Takes size bytes at an offset aligned to align (a power of two) from the block the list's fit picks. */
guint64 freelist_alloc(FreeList *f, guint64 size, guint64 align);
/* Returns [offset, offset + size) to the free space, merging with free neighbours. */
void freelist_release(FreeList *f, guint64 offset, guint64 size);
/* Takes [offset, offset + size) out of the free space; FALSE when part of it is not free. */
gboolean freelist_reserve(FreeList *f, guint64 offset, guint64 size);

#endif
