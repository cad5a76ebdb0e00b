/* proto-arena.c — a bump allocator for protobuf-c's unpacking (see proto-arena.h). Pieces are carved from
 * 1 MiB blocks; a piece larger than a quarter block (a weight's raw bytes) gets a block of its own so the
 * rest of the current block is not wasted. Under AddressSanitizer every piece is its own allocation, so
 * that a read past the end of a string or an array the unpacker made is still caught. */
#include "model/proto-arena.h"

#include <glib.h>
#include <stdalign.h>
#include <stddef.h>

#define BLOCK_BYTES ((gsize)1 << 20)
#define PIECE_ALIGN (alignof(max_align_t))

typedef struct {
    ProtobufCAllocator base; /* first: the allocator pointer is the arena's */
    GPtrArray *blocks;       /* every block (g_free) */
    guint8 *next;            /* the free part of the current block */
    gsize left;              /* bytes free from next on */
} ProtoArena;

static void *own_block(ProtoArena *a, gsize bytes)
{
    void *p = g_try_malloc(bytes ? bytes : 1);
    if (p)
        g_ptr_array_add(a->blocks, p);
    return p;
}

static void *arena_alloc(void *data, size_t size)
{
    ProtoArena *a = data;
#ifdef __SANITIZE_ADDRESS__
    return own_block(a, size);
#else
    gsize need = (size + PIECE_ALIGN - 1) & ~(PIECE_ALIGN - 1);
    if (need < size)
        return NULL; /* rounding up overflowed */
    if (need > BLOCK_BYTES / 4)
        return own_block(a, size);
    if (need > a->left) {
        if (!(a->next = own_block(a, BLOCK_BYTES))) {
            a->left = 0;
            return NULL;
        }
        a->left = BLOCK_BYTES;
    }
    void *p = a->next;
    a->next += need;
    a->left -= need;
    return p;
#endif
}

static void arena_free_piece(void *data, void *piece)
{
    (void)data;
    (void)piece; /* released with the arena */
}

ProtobufCAllocator *proto_arena_new(void)
{
    ProtoArena *a = g_new0(ProtoArena, 1);
    a->base.alloc = arena_alloc;
    a->base.free = arena_free_piece;
    a->base.allocator_data = a;
    a->blocks = g_ptr_array_new_with_free_func(g_free);
    return &a->base;
}

void proto_arena_free(ProtobufCAllocator *arena)
{
    if (!arena)
        return;
    ProtoArena *a = arena->allocator_data;
    g_ptr_array_unref(a->blocks);
    g_free(a);
}
