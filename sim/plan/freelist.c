/* freelist.c — coalescing free-block index for the online strategies (see freelist.h). */
#include "plan/freelist.h"
#include "trace/trace.h"
#include "base/treap.h"

typedef struct {
    TreapNode node; /* key = start, val = length */
} Block;

struct FreeList {
    Treap by_addr;
    GTree *by_size; /* Block*, ordered by (length, start) */
};

#define START(b) ((b)->node.key)
#define LEN(b) ((b)->node.val)

static gint by_size_cmp(gconstpointer a, gconstpointer b)
{
    const Block *x = a, *y = b;
    if (LEN(x) != LEN(y))
        return LEN(x) < LEN(y) ? -1 : 1;
    return START(x) < START(y) ? -1 : START(x) > START(y);
}

static void add_block(FreeList *f, guint64 start, guint64 len)
{
    Block *b = g_new(Block, 1);
    b->node.key = start;
    b->node.tie = 0;
    b->node.val = len;
    treap_insert(&f->by_addr, &b->node);
    g_tree_insert(f->by_size, b, b);
}

static void drop_block(FreeList *f, Block *b)
{
    g_tree_remove(f->by_size, b);
    treap_remove(&f->by_addr, &b->node);
    g_free(b);
}

FreeList *freelist_new(void)
{
    FreeList *f = g_new0(FreeList, 1);
    treap_init(&f->by_addr);
    f->by_size = g_tree_new(by_size_cmp);
    add_block(f, 0, G_MAXUINT64); /* the whole (unbounded) space */
    return f;
}

static gboolean drop_all(gpointer key, gpointer value, gpointer data)
{
    (void)key;
    g_ptr_array_add(data, value);
    return FALSE;
}

void freelist_free(FreeList *f)
{
    if (!f)
        return;
    GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
    g_tree_foreach(f->by_size, drop_all, all);
    g_tree_destroy(f->by_size);
    g_ptr_array_unref(all);
    g_free(f);
}

/* Aligned start of `size` bytes in block b, or G_MAXUINT64 when they do not fit. */
static guint64 fit_start(const Block *b, guint64 size, guint64 align)
{
    guint64 start = round_up(START(b), align);
    guint64 pad = start - START(b);
    if (start < START(b) || pad > LEN(b) || LEN(b) - pad < size)
        return G_MAXUINT64;
    return start;
}

typedef struct {
    guint64 size, align;
} Request;

static gboolean accept_aligned(const TreapNode *n, gpointer data)
{
    const Request *r = data;
    return fit_start((const Block *)n, r->size, r->align) != G_MAXUINT64;
}

/* Block b becomes [start, start + len), keeping its place in address order (it shrinks or grows into
 * free space): one treap descent instead of an unlink and a relink, and no allocation; the size index
 * re-sorts it. */
static void reshape_block(FreeList *f, Block *b, guint64 start, guint64 len)
{
    g_tree_remove(f->by_size, b);
    treap_reshape(&f->by_addr, &b->node, start, len);
    g_tree_insert(f->by_size, b, b);
}

/* Takes [start, start + size) out of block b, keeping the pieces on either side (b itself is the first). */
static void carve(FreeList *f, Block *b, guint64 start, guint64 size)
{
    guint64 b_start = START(b), b_end_len = LEN(b) - (start - b_start) - size;
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

guint64 freelist_alloc_first(FreeList *f, guint64 size, guint64 align)
{
    Request r = {size, align};
    Block *b = (Block *)treap_first_fit(&f->by_addr, size, accept_aligned, &r);
    g_assert(b); /* the top block always fits */
    guint64 start = fit_start(b, size, align);
    carve(f, b, start, size);
    return start;
}

guint64 freelist_alloc_best(FreeList *f, guint64 size, guint64 align)
{
    Block probe = {.node = {.key = 0, .val = size}};
    for (GTreeNode *n = g_tree_lower_bound(f->by_size, &probe); n; n = g_tree_node_next(n)) {
        Block *b = g_tree_node_value(n);
        guint64 start = fit_start(b, size, align);
        if (start != G_MAXUINT64) {
            carve(f, b, start, size);
            return start;
        }
    }
    g_assert_not_reached(); /* the top block always fits */
}

void freelist_release(FreeList *f, guint64 offset, guint64 size)
{
    guint64 start = offset, len = size;
    Block *prev = (Block *)treap_floor(&f->by_addr, offset);
    if (prev && START(prev) + LEN(prev) == offset) {
        start = START(prev);
        len += LEN(prev);
    } else {
        prev = NULL;
    }
    Block *next = (Block *)treap_ceil(&f->by_addr, offset + size);
    if (next && START(next) == offset + size) {
        len = LEN(next) > G_MAXUINT64 - len ? G_MAXUINT64 - start : len + LEN(next);
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
    Block *b = (Block *)treap_floor(&f->by_addr, offset);
    if (!b || offset - START(b) > LEN(b) || LEN(b) - (offset - START(b)) < size)
        return FALSE;
    carve(f, b, offset, size);
    return TRUE;
}
