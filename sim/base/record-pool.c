/* record-pool.c — the record pool (see record-pool.h): records the arena carved, and a stack of the ones
 * given back, linked through their own first bytes. */
#include "base/record-pool.h"
#include "base/arena.h"

struct RecordPool {
    Arena *arena;
    gsize record_size;
    gpointer spare; /* top of the stack of given-back records */
};

RecordPool *record_pool_new(gsize record_size)
{
    RecordPool *p = g_new0(RecordPool, 1);
    p->arena = arena_new();
    p->record_size = MAX(record_size, sizeof(gpointer));
    return p;
}

void record_pool_free(RecordPool *p)
{
    if (!p)
        return;
    arena_free(p->arena);
    g_free(p);
}

gpointer record_pool_take(RecordPool *p)
{
    gpointer r = p->spare;
    if (!r)
        return arena_alloc(p->arena, p->record_size);
    p->spare = *(gpointer *)r;
    return r;
}

void record_pool_give(RecordPool *p, gpointer record)
{
    *(gpointer *)record = p->spare;
    p->spare = record;
}
