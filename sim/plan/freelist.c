/* freelist.c — coalescing free-block index for the online strategies (see freelist.h). Every block is in
 * one address index: the augmented treap for first fit, a plain ordered set for best fit (where a block
 * that shrinks or grows into free space keeps its place, so reshaping it is an assignment). Best fit's
 * blocks are also in an ordered set by (length, start). */
#include "plan/freelist.h"
#include "plan/gap-use.h"
#include "trace/trace.h"
#include "base/ordered-set.h"
#include "base/record-pool.h"
#include "base/treap.h"

typedef struct Block {
    union {
        TreapNode treap;  /* first fit: key = start, val = length */
        OrderedNode set;  /* best fit: key = start */
    } by_addr;
    OrderedNode by_len; /* best fit: key = length, tie = start; only while usable */
    guint64 start, len;
    gboolean usable;    /* some unit could fit in it (gap-use.h): only then does a fit look at it */
} Block;

struct FreeList {
    FreeListFit fit;
    GapUse gaps;
    Treap first_fit;    /* FREELIST_FIRST_FIT */
    OrderedSet by_addr, by_size; /* FREELIST_BEST_FIT */
    RecordPool *blocks;
};

#define BLOCK_OF(node, member) ((Block *)(void *)((char *)(node) - G_STRUCT_OFFSET(Block, member)))

static Block *block_by_addr(FreeList *f, gpointer node)
{
    if (!node)
        return NULL;
    return f->fit == FREELIST_FIRST_FIT ? BLOCK_OF(node, by_addr.treap) : BLOCK_OF(node, by_addr.set);
}

/* The block's length as first fit's subtrees see it: 0 for a block no unit could use, so no fit descends
 * to it. */
static guint64 fit_len(const FreeList *f, guint64 start, guint64 len)
{
    return gap_use_fits(&f->gaps, start, start + len) ? len : 0;
}

/* Best fit's size index holds the usable blocks only. */
static void index_by_size(FreeList *f, Block *b)
{
    b->usable = gap_use_fits(&f->gaps, b->start, b->start + b->len);
    if (!b->usable)
        return;
    b->by_len.key = b->len;
    b->by_len.tie = b->start;
    ordered_set_insert(&f->by_size, &b->by_len);
}

static void add_block(FreeList *f, guint64 start, guint64 len)
{
    Block *b = record_pool_take(f->blocks);
    b->start = start;
    b->len = len;
    if (f->fit == FREELIST_FIRST_FIT) {
        b->by_addr.treap.key = start;
        b->by_addr.treap.tie = 0;
        b->by_addr.treap.val = fit_len(f, start, len);
        treap_insert(&f->first_fit, &b->by_addr.treap);
    } else {
        b->by_addr.set.key = start;
        b->by_addr.set.tie = 0;
        ordered_set_insert(&f->by_addr, &b->by_addr.set);
        index_by_size(f, b);
    }
}

static void drop_block(FreeList *f, Block *b)
{
    if (f->fit == FREELIST_FIRST_FIT) {
        treap_remove(&f->first_fit, &b->by_addr.treap);
    } else {
        if (b->usable)
            ordered_set_remove(&f->by_size, &b->by_len);
        ordered_set_remove(&f->by_addr, &b->by_addr.set);
    }
    record_pool_give(f->blocks, b);
}

/* Block b becomes [start, start + len), keeping its place in address order (it shrinks or grows into
 * free space): no unlink and relink by address, and no allocation; the size index re-sorts it. */
static void reshape_block(FreeList *f, Block *b, guint64 start, guint64 len)
{
    b->start = start;
    b->len = len;
    if (f->fit == FREELIST_FIRST_FIT) {
        treap_reshape(&f->first_fit, &b->by_addr.treap, start, fit_len(f, start, len));
    } else {
        b->by_addr.set.key = start;
        if (b->usable)
            ordered_set_remove(&f->by_size, &b->by_len);
        index_by_size(f, b);
    }
}

/* The block with the largest start <= offset; NULL if none. */
static Block *block_at_or_before(FreeList *f, guint64 offset)
{
    if (f->fit == FREELIST_FIRST_FIT)
        return block_by_addr(f, treap_floor(&f->first_fit, offset));
    OrderedNode *after = offset == G_MAXUINT64 ? NULL : ordered_set_lower_bound(&f->by_addr, offset + 1, 0);
    return block_by_addr(f, after ? ordered_set_prev(after) : ordered_set_last(&f->by_addr));
}

/* The block with the smallest start >= offset; NULL if none. */
static Block *block_at_or_after(FreeList *f, guint64 offset)
{
    if (f->fit == FREELIST_FIRST_FIT)
        return block_by_addr(f, treap_ceil(&f->first_fit, offset));
    return block_by_addr(f, ordered_set_lower_bound(&f->by_addr, offset, 0));
}

FreeList *freelist_new(FreeListFit fit, const GArray *units)
{
    FreeList *f = g_new0(FreeList, 1);
    f->fit = fit;
    gap_use_init(&f->gaps, units);
    treap_init(&f->first_fit);
    ordered_set_init(&f->by_addr);
    ordered_set_init(&f->by_size);
    f->blocks = record_pool_new(sizeof(Block));
    add_block(f, 0, G_MAXUINT64); /* the whole (unbounded) space */
    return f;
}

void freelist_free(FreeList *f)
{
    if (!f)
        return;
    record_pool_free(f->blocks);
    g_free(f);
}

/* Aligned start of `size` bytes in block b, or G_MAXUINT64 when they do not fit. */
static guint64 fit_start(const Block *b, guint64 size, guint64 align)
{
    guint64 start = round_up(b->start, align);
    guint64 pad = start - b->start;
    if (start < b->start || pad > b->len || b->len - pad < size)
        return G_MAXUINT64;
    return start;
}

typedef struct {
    guint64 size, align;
} Request;

static gboolean accept_aligned(const TreapNode *n, gpointer data)
{
    const Request *r = data;
    return fit_start(BLOCK_OF(n, by_addr.treap), r->size, r->align) != G_MAXUINT64;
}

/* Takes [start, start + size) out of block b, keeping the pieces on either side (b itself is the first). */
static void carve(FreeList *f, Block *b, guint64 start, guint64 size)
{
    guint64 b_start = b->start, b_end_len = b->len - (start - b_start) - size;
    if (start > b_start) {
        reshape_block(f, b, b_start, start - b_start);
        if (b_end_len > 0)
            add_block(f, start + size, b_end_len);
    } else if (b_end_len > 0) {
        reshape_block(f, b, start + size, b_end_len);
    } else {
        drop_block(f, b);
    }
}

static Block *pick_first(FreeList *f, guint64 size, guint64 align)
{
    Request r = {size, align};
    return block_by_addr(f, treap_first_fit(&f->first_fit, size, accept_aligned, &r));
}

static Block *pick_best(FreeList *f, guint64 size, guint64 align)
{
    for (OrderedNode *n = ordered_set_lower_bound(&f->by_size, size, 0); n; n = ordered_set_next(n))
        if (fit_start(BLOCK_OF(n, by_len), size, align) != G_MAXUINT64)
            return BLOCK_OF(n, by_len);
    return NULL;
}

guint64 freelist_alloc(FreeList *f, guint64 size, guint64 align)
{
    Block *b = f->fit == FREELIST_FIRST_FIT ? pick_first(f, size, align) : pick_best(f, size, align);
    g_assert(b); /* the top block always fits */
    guint64 start = fit_start(b, size, align);
    carve(f, b, start, size);
    return start;
}

void freelist_release(FreeList *f, guint64 offset, guint64 size)
{
    guint64 start = offset, len = size;
    Block *next = block_at_or_after(f, offset + size);
    /* No free block starts inside the range given back, so in best fit's address order the block before
     * `next` is the one at or before offset: a step from next, not a second descent. */
    Block *prev = f->fit == FREELIST_FIRST_FIT ? block_at_or_before(f, offset)
                  : block_by_addr(f, next ? ordered_set_prev(&next->by_addr.set) : ordered_set_last(&f->by_addr));
    if (prev && prev->start + prev->len == offset) {
        start = prev->start;
        len += prev->len;
    } else {
        prev = NULL;
    }
    if (next && next->start == offset + size) {
        len = next->len > G_MAXUINT64 - len ? G_MAXUINT64 - start : len + next->len;
        if (prev)
            drop_block(f, next); /* prev takes it in */
    } else {
        next = NULL;
    }
    /* The merged block reuses a neighbour when there is one (its place in address order holds). */
    if (prev)
        reshape_block(f, prev, start, len);
    else if (next)
        reshape_block(f, next, start, len);
    else
        add_block(f, start, len);
}

gboolean freelist_reserve(FreeList *f, guint64 offset, guint64 size)
{
    Block *b = block_at_or_before(f, offset);
    if (!b || offset - b->start > b->len || b->len - (offset - b->start) < size)
        return FALSE;
    carve(f, b, offset, size);
    return TRUE;
}
