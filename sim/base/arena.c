/* arena.c — the bump allocator of arena.h. A piece larger than a quarter block (a weight's raw bytes in a
 * model being unpacked) gets a block of its own, so the rest of the current block is not wasted. */
#include "base/arena.h"

#include <stdalign.h>
#include <stddef.h>

#define BLOCK_BYTES ((gsize)1 << 20)
#define PIECE_ALIGN (alignof(max_align_t))

struct Arena {
    GPtrArray *blocks; /* every block (g_free) */
    guint8 *next;      /* the free part of the current block */
    gsize left;        /* bytes free from next on */
};

Arena *arena_new(void)
{
    Arena *a = g_new0(Arena, 1);
    a->blocks = g_ptr_array_new_with_free_func(g_free);
    return a;
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    g_ptr_array_unref(a->blocks);
    g_free(a);
}

static void *own_block(Arena *a, gsize bytes)
{
    void *p = g_try_malloc(bytes ? bytes : 1);
    if (p)
        g_ptr_array_add(a->blocks, p);
    return p;
}

void *arena_try_alloc(Arena *a, gsize bytes)
{
#ifdef __SANITIZE_ADDRESS__
    return own_block(a, bytes);
#else
    gsize need = (bytes + PIECE_ALIGN - 1) & ~(PIECE_ALIGN - 1);
    if (need < bytes)
        return NULL; /* rounding up overflowed */
    if (need > BLOCK_BYTES / 4)
        return own_block(a, bytes);
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

void *arena_alloc(Arena *a, gsize bytes)
{
    void *p = arena_try_alloc(a, bytes);
    if (!p)
        g_error("out of memory: %" G_GSIZE_FORMAT " bytes for an arena", bytes);
    return p;
}
