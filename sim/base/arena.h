/* arena.h — a bump allocator for many small pieces that die together: pieces are carved from 1 MiB blocks
 * and released all at once, with no malloc header or free per piece. Its users: protobuf-c's unpacking
 * (model/proto-arena.c: millions of names, dims and attributes) and the record pools (base/record-pool.h:
 * the placed index's short lists, best fit's free blocks, verify's live buffers). Under AddressSanitizer
 * every piece is its own allocation, so a read or write past a piece's end is still caught. */
#ifndef SIM_BASE_ARENA_H
#define SIM_BASE_ARENA_H

#include <glib.h>

typedef struct Arena Arena;

Arena *arena_new(void);
/* Releases every piece the arena handed out. */
void arena_free(Arena *a);
/* `bytes` aligned for any type; NULL when memory runs out (or the size overflows). */
void *arena_try_alloc(Arena *a, gsize bytes);
/* The same, ending the program when memory runs out, as g_malloc does. */
void *arena_alloc(Arena *a, gsize bytes);

#endif
