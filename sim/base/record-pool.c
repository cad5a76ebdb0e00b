/* record-pool.c — the record pool (see record-pool.h): chunks in a list, records given back kept in a
 * stack linked through their own first bytes. */
#include "base/record-pool.h"

struct RecordPool {
    gsize record_size;
    guint chunk_records;
    GPtrArray *chunks;
    guint used; /* records handed out of the newest chunk */
    gpointer spare; /* top of the stack of given-back records */
};

RecordPool *record_pool_new(gsize record_size, guint chunk_records)
{
    RecordPool *p = g_new0(RecordPool, 1);
    p->record_size = MAX(record_size, sizeof(gpointer));
    p->chunk_records = MAX(chunk_records, 1);
    p->chunks = g_ptr_array_new_with_free_func(g_free);
    p->used = p->chunk_records;
    return p;
}

void record_pool_free(RecordPool *p)
{
    if (!p)
        return;
    g_ptr_array_unref(p->chunks);
    g_free(p);
}

gpointer record_pool_take(RecordPool *p)
{
    gpointer r = p->spare;
    if (r) {
        p->spare = *(gpointer *)r;
        return r;
    }
    if (p->used == p->chunk_records) {
        g_ptr_array_add(p->chunks, g_malloc_n(p->chunk_records, p->record_size));
        p->used = 0;
    }
    return (char *)g_ptr_array_index(p->chunks, p->chunks->len - 1) + (gsize)p->used++ * p->record_size;
}

void record_pool_give(RecordPool *p, gpointer record)
{
    *(gpointer *)record = p->spare;
    p->spare = record;
}
