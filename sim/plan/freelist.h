/* freelist.h — the free address space of an online allocator: coalescing free blocks indexed by
 * address (a treap whose subtrees know their longest block: lowest-address fit in O(log n)) and by
 * (length, address) (smallest fit). The space is unbounded: the top block runs to the end of the
 * address range, so an allocation that fits nowhere else extends the arena. */
#ifndef SIM_FREELIST_H
#define SIM_FREELIST_H

#include <glib.h>

typedef struct FreeList FreeList;

FreeList *freelist_new(void);
void freelist_free(FreeList *f);
/* Lowest-address free block that holds size bytes at an aligned offset. */
guint64 freelist_alloc_first(FreeList *f, guint64 size, guint64 align);
/* Smallest such block (ties: lowest address); the top block only when nothing else fits. */
guint64 freelist_alloc_best(FreeList *f, guint64 size, guint64 align);
/* Returns [offset, offset + size) to the free space, merging with free neighbours. */
void freelist_release(FreeList *f, guint64 offset, guint64 size);
/* Takes [offset, offset + size) out of the free space; FALSE when part of it is not free. */
gboolean freelist_reserve(FreeList *f, guint64 offset, guint64 size);

#endif
