/* place-pytorch.c — PyTorch's CUDA caching allocator, rebuilt from its documented rules as a baseline (the one
 * OLLA, MODeL and ROAM report against): requests rounded up to 512 B; those of at most 1 MiB served from a
 * small pool of 2 MiB segments, larger ones from a large pool (segments of 20 MiB below 10 MiB, else rounded
 * up to 2 MiB); a request takes the smallest free block of its pool that fits (lowest address among equals),
 * split when the rest is at least 512 B (small pool) or more than 1 MiB (large pool); a freed block merges
 * with free neighbours of its own segment only; no block fits: a new segment. Segments lie one after
 * another; the plan's offsets are addresses in them, and the detail reports what the allocator reserves
 * (every segment: PyTorch's "reserved" peak, the figure those papers compare). Alignment past 512 B (PyTorch's
 * own never asks it; a trace may) is honoured: the request is rounded to it and starts at a multiple of it, a
 * block's head of padding split off as a free block and a new segment started at such a multiple (the reserve
 * then counts the skipped bytes); pinned buffers keep their offsets, and the segments start above them. */
#include "plan/place.h"
#include "base/error.h"

#include <string.h>

#define KB 1024ull
#define MB (1024ull * 1024ull)
enum { MIN_BLOCK = 512 };

typedef struct Block {
    guint64 offset, size;
    guint segment;
    gboolean free, small;
    struct Block *prev, *next; /* neighbours in its segment */
} Block;

typedef struct {
    GTree *pools[2]; /* free blocks by (size, offset): [0] large, [1] small */
    GHashTable *live; /* offset -> Block* allocated */
    guint64 base;     /* where the first segment starts */
    guint64 reserved;
    guint segments;
} Allocator;

static gint by_size_then_offset(gconstpointer a, gconstpointer b, gpointer unused)
{
    (void)unused;
    const Block *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static guint64 round_to(guint64 v, guint64 to) { return (v + to - 1) / to * to; }

/* The segment a request of `size` (rounded) makes when nothing fits. */
static guint64 segment_size(guint64 size)
{
    if (size <= MB)
        return 2 * MB;
    if (size < 10 * MB)
        return 20 * MB;
    return round_to(size, 2 * MB);
}

static guint64 pt_alloc(Allocator *a, guint64 size, guint64 align)
{
    guint64 granule = MAX((guint64)MIN_BLOCK, align);
    guint64 want = size < granule ? granule : round_to(size, granule);
    gboolean small = want <= MB;
    GTree *pool = a->pools[small];
    Block key = {.offset = 0, .size = want};
    /* The smallest free block that holds the request at an aligned start: every block starts at a multiple of
     * 512 B, so below that it is the first that is large enough; past it (a trace's own alignments) a block may
     * need a head of padding, which is split off as a free block of its own. */
    Block *b = NULL;
    guint64 head = 0;
    for (GTreeNode *node = g_tree_lower_bound(pool, &key); node && !b; node = g_tree_node_next(node)) {
        Block *c = g_tree_node_key(node);
        guint64 start = round_to(c->offset, granule);
        if (start - c->offset <= c->size - want) {
            b = c;
            head = start - c->offset;
        }
    }
    if (b) {
        g_tree_steal(pool, b);
        if (head) {
            Block *h = g_new0(Block, 1);
            *h = (Block){.offset = b->offset, .size = head, .segment = b->segment, .free = TRUE, .small = b->small,
                         .prev = b->prev, .next = b};
            if (b->prev)
                b->prev->next = h;
            b->prev = h;
            b->offset += head;
            b->size -= head;
            g_tree_insert(a->pools[h->small], h, h);
        }
    } else {
        b = g_new0(Block, 1);
        a->reserved = round_to(a->base + a->reserved, granule) - a->base; /* a segment starts aligned */
        b->offset = a->base + a->reserved;
        b->size = segment_size(want);
        b->segment = a->segments++;
        b->small = small;
        a->reserved += b->size;
    }
    guint64 rest = b->size - want;
    if (small ? rest >= MIN_BLOCK : rest > MB) { /* split: the request at the block's start, the rest free */
        Block *r = g_new0(Block, 1);
        *r = (Block){.offset = b->offset + want, .size = rest, .segment = b->segment, .free = TRUE, .small = b->small,
                     .prev = b, .next = b->next};
        if (b->next)
            b->next->prev = r;
        b->next = r;
        b->size = want;
        g_tree_insert(a->pools[r->small], r, r);
    }
    b->free = FALSE;
    g_hash_table_insert(a->live, &b->offset, b);
    return b->offset;
}

static void pt_free(Allocator *a, guint64 offset)
{
    Block *b = g_hash_table_lookup(a->live, &offset);
    if (!b)
        return;
    g_hash_table_remove(a->live, &offset);
    b->free = TRUE;
    for (int side = 0; side < 2; side++) { /* merge with a free neighbour of the same segment */
        Block *n = side ? b->next : b->prev;
        if (!n || !n->free)
            continue;
        g_tree_steal(a->pools[n->small], n);
        if (side) { /* n after b */
            b->size += n->size;
            b->next = n->next;
            if (n->next)
                n->next->prev = b;
        } else { /* n before b: b joins it */
            b->offset = n->offset;
            b->size += n->size;
            b->prev = n->prev;
            if (n->prev)
                n->prev->next = b;
        }
        g_free(n);
    }
    g_tree_insert(a->pools[b->small], b, b);
}

static gint by_first(gconstpointer x, gconstpointer y, gpointer data)
{
    const PlaceUnit *u = data;
    guint a = *(const guint *)x, b = *(const guint *)y;
    return (u[a].first > u[b].first) - (u[a].first < u[b].first);
}

static gint by_last(gconstpointer x, gconstpointer y, gpointer data)
{
    const PlaceUnit *u = data;
    guint a = *(const guint *)x, b = *(const guint *)y;
    return (u[a].last > u[b].last) - (u[a].last < u[b].last);
}

static gboolean pytorch_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    guint n = p->units->len;
    const PlaceUnit *units = (const PlaceUnit *)(void *)p->units->data;
    (void)error;
    guint64 above = 0; /* pinned buffers keep their offsets: the segments start above them all */
    for (guint u = 0; u < n; u++)
        if (units[u].fixed != TRACE_NONE)
            above = MAX(above, (guint64)units[u].fixed + units[u].size);
    guint *born = g_new(guint, n + 1), *dies = g_new(guint, n + 1);
    for (guint u = 0; u < n; u++)
        born[u] = dies[u] = u;
    place_sort(born, n, by_first, (gpointer)units);
    place_sort(dies, n, by_last, (gpointer)units);
    Allocator a = {.live = g_hash_table_new(g_int64_hash, g_int64_equal), .base = round_to(above, 2 * MB)};
    for (int k = 0; k < 2; k++)
        a.pools[k] = g_tree_new_full(by_size_then_offset, NULL, g_free, NULL);
    /* each step: its allocations, then the frees of what dies there (the order replay_online uses) */
    guint bi = 0, di = 0;
    while (bi < n || di < n) {
        guint step = bi < n ? units[born[bi]].first : G_MAXUINT;
        if (di < n && units[dies[di]].last < step)
            step = units[dies[di]].last;
        for (; bi < n && units[born[bi]].first == step; bi++)
            if (units[born[bi]].fixed == TRACE_NONE)
                offsets[born[bi]] = pt_alloc(&a, units[born[bi]].size, units[born[bi]].align);
        for (; di < n && units[dies[di]].last == step; di++)
            if (units[dies[di]].fixed == TRACE_NONE)
                pt_free(&a, offsets[dies[di]]);
    }
    char *reserved = g_strdup_printf("%" G_GUINT64_FORMAT, a.reserved);
    *detail = g_strdup_printf("reserves %s B in %u segment%s", reserved, a.segments, a.segments == 1 ? "" : "s");
    g_free(reserved);
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, a.live); /* blocks still allocated at the end (none after every free) */
    while (g_hash_table_iter_next(&it, NULL, &value))
        g_free(value);
    g_hash_table_unref(a.live);
    for (int k = 0; k < 2; k++)
        g_tree_destroy(a.pools[k]);
    g_free(born);
    g_free(dies);
    return TRUE;
}

const PlaceStrategy place_pytorch = {
    .name = "pytorch",
    .summary = "PyTorch's CUDA caching allocator: 512 B rounding, small and large pools of segments, best-fit "
               "blocks split and merged within a segment (reports what it reserves)",
    .kind = PLACE_OFFLINE,
    .role = ROLE_RUNTIME,
    .plan = pytorch_plan,
};
