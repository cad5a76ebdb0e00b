/* proto-arena.c — protobuf-c's allocator on an Arena (base/arena.h; see proto-arena.h): its alloc is the
 * arena's, its free does nothing, and proto_arena_free releases everything at once. */
#include "model/proto-arena.h"
#include "base/arena.h"

typedef struct {
    ProtobufCAllocator base; /* first: the allocator pointer is the arena's */
    Arena *arena;
} ProtoArena;

static void *piece_alloc(void *data, size_t size)
{
    ProtoArena *a = data;
    return arena_try_alloc(a->arena, size);
}

static void piece_free(void *data, void *piece)
{
    (void)data;
    (void)piece; /* released with the arena */
}

ProtobufCAllocator *proto_arena_new(void)
{
    ProtoArena *a = g_new0(ProtoArena, 1);
    a->base.alloc = piece_alloc;
    a->base.free = piece_free;
    a->base.allocator_data = a;
    a->arena = arena_new();
    return &a->base;
}

void proto_arena_free(ProtobufCAllocator *arena)
{
    if (!arena)
        return;
    ProtoArena *a = arena->allocator_data;
    arena_free(a->arena);
    g_free(a);
}
