/* proto-arena.h — one arena for everything protobuf-c allocates while unpacking a message: a large model
 * unpacks into millions of small pieces (names, dims, attributes), and giving each back to malloc one by
 * one left glibc's heap cut into as many free chunks, which every later small allocation had to sort
 * through (docs/DESIGN.md, "Unpacking into an arena"). The arena hands out pieces from a few big blocks and
 * releases them all at once. */
#ifndef SIM_MODEL_PROTO_ARENA_H
#define SIM_MODEL_PROTO_ARENA_H

#include <protobuf-c/protobuf-c.h>

/* An allocator to pass to protobuf-c's unpack functions. Its free does nothing; proto_arena_free releases
 * every piece it handed out, so the unpacked message must not be used (nor given to free_unpacked) after. */
ProtobufCAllocator *proto_arena_new(void);
void proto_arena_free(ProtobufCAllocator *arena);

#endif
