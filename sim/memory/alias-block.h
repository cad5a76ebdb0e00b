/* alias-block.h — a shared memory block's bookkeeping as docs/spec.md §1 defines it: a primary
 * owner (the first tensor allocated to it) and a list of aliases; releasing the owner hands ownership to
 * the first alias; releasing an alias drops it from the list; the block is free when the last one goes.
 * alias_map_to_trace replays each root's releases through it to find when the buffer dies. Every
 * operation is O(1) (a queue, and an index from name to its place in it): a root may have 200,000 members. */
#ifndef SIM_ALIAS_BLOCK_H
#define SIM_ALIAS_BLOCK_H

#include <glib.h>

typedef struct {
    char *owner;        /* NULL once free */
    GQueue aliases;     /* char*, in the order they joined */
    GHashTable *where;  /* alias name -> its GList link in `aliases` */
    gboolean is_free;
} AliasBlock;

AliasBlock *alias_block_new(const char *owner);
void alias_block_free(AliasBlock *b);
void alias_block_add(AliasBlock *b, const char *alias);
/* Deallocates `name` (the owner or an alias); TRUE when that freed the block. Unknown names change
 * nothing and return FALSE. */
gboolean alias_block_release(AliasBlock *b, const char *name);

#endif
