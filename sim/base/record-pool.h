/* record-pool.h — fixed-size records carved from an Arena (base/arena.h) and taken back for reuse, all freed
 * at once with the pool: the nodes of an index that inserts and removes millions of times (best fit's free
 * blocks, verify's live buffers, the placed index's list blocks of one size) without a malloc and a free
 * per record. A record never moves while the pool lives. */
#ifndef SIM_RECORD_POOL_H
#define SIM_RECORD_POOL_H

#include <glib.h>

typedef struct RecordPool RecordPool;

/* Records of record_size bytes (at least a pointer's). */
RecordPool *record_pool_new(gsize record_size);
void record_pool_free(RecordPool *p);
/* A record, its contents undefined. */
gpointer record_pool_take(RecordPool *p);
/* Gives a record back for the next take. */
void record_pool_give(RecordPool *p, gpointer record);

#endif
