/* search-live.c — which of the part's units live at a step, for the search's checks: by step or by tree.
 *
 * By step (while the lifetimes add up to at most SEARCH_SPAN_MAX buffer-steps, or PlaceOptions'
 * search_by_step_max): each step's own list, every unit at every step of its lifetime. Past that (60,000
 * buffers each living across a thousand others' starts add up to 2^27), a tree over the steps with eight
 * children per node: each unit is listed at the nodes that tile its lifetime (at most fourteen a level), so
 * the units live at t are the lists on the path from the root to t's leaf, and the index grows with the
 * units and the depth, not with the lifetimes.
 * The live index is made once per search, of every unit not pinned (parts share no step, so a part's steps
 * list its own units alone). The units starting at a step and those ending at it have their own lists (one
 * entry a unit), made per part in the part's candidate order. The search's choices do not depend on the form: the candidates come from
 * the start and end lists, and what it asks of the live units (the lowest offset above, whether one sits on
 * a floor, the releases stacked at a step, the peaks to raise) does not depend on the order they come in. */
#include "strategies/search/search.h"

#include <string.h>

#define TREE_BITS 3
#define TREE_FANOUT (1u << TREE_BITS)

/* Calls visit(node) on the nodes of a tree of the given depth and level bases that tile steps [lo, hi) (as
 * plan/placed-index.c's tiling: bottom up, the nodes at either end of a level until both ends line up with
 * the level above). */
#define FOR_TILES(depth, base, lo_step, hi_step, visit)                                                        \
    do {                                                                                                       \
        gsize lo_ = (lo_step), hi_ = (hi_step);                                                                \
        for (guint level_ = (depth); lo_ < hi_; level_--, lo_ >>= TREE_BITS, hi_ >>= TREE_BITS) {              \
            for (; lo_ < hi_ && (lo_ & (TREE_FANOUT - 1)); lo_++)                                              \
                visit((base)[level_] + lo_);                                                                   \
            for (; lo_ < hi_ && (hi_ & (TREE_FANOUT - 1)); hi_--)                                              \
                visit((base)[level_] + hi_ - 1);                                                               \
        }                                                                                                      \
    } while (0)

/* The tree's shape over `steps` steps: its depth and where each level's nodes begin; returns the number of
 * nodes. */
static gsize tree_shape(guint steps, guint *depth, gsize *base)
{
    steps = MAX(steps, 1);
    for (*depth = 0; ((guint64)1 << (TREE_BITS * *depth)) < steps; (*depth)++)
        ;
    gsize nodes = 0;
    for (guint level = 0; level <= *depth; level++) {
        base[level] = nodes;
        nodes += ((gsize)(steps - 1) >> (TREE_BITS * (*depth - level))) + 1;
    }
    return nodes;
}

/* The index's entries for the units (which[0 .. n), or the first n but the pinned, which the index never lists):
 * their lifetimes' sum by step, and past SEARCH_SPAN_MAX (or by_step_max) their tiles. */
static guint64 index_entries(const PlaceUnit *units, const guint *which, guint n, guint steps, guint64 by_step_max,
                             gboolean *tree)
{
    guint64 span = 0, tiles = 0;
    for (guint k = 0; k < n; k++) {
        const PlaceUnit *x = &units[which ? which[k] : k];
        span += !which && x->fixed != TRACE_NONE ? 0 : (guint64)(x->last - x->first) + 1;
    }
    *tree = span > (by_step_max ? by_step_max : SEARCH_SPAN_MAX);
    if (!*tree)
        return span;
    guint depth;
    gsize base[SEARCH_SLICES_MAX];
    tree_shape(steps, &depth, base);
#define COUNT(node) ((void)(node), tiles++)
    for (guint k = 0; k < n; k++) {
        const PlaceUnit *x = &units[which ? which[k] : k];
        if (which || x->fixed == TRACE_NONE)
            FOR_TILES(depth, base, x->first, (gsize)x->last + 1, COUNT);
    }
#undef COUNT
    return tiles;
}

guint64 search_live_entries(const PlaceProblem *p, gboolean *tree)
{
    return index_entries((const PlaceUnit *)(void *)p->units->data, NULL, p->units->len, p->steps,
                         p->options ? p->options->search_by_step_max : 0, tree);
}

/* Lists the units s->units names (CSR: list[from[t] .. from[t + 1]) for key t of `keys`), each under the keys
 * `by` gives it (every step of its lifetime, its first or last step, or its tiles), in s->units' order; list
 * has room for them all. */
typedef enum { BY_LIFETIME, BY_FIRST, BY_LAST, BY_TILES } ListBy;

static void list_units(Search *s, guint *from, gsize keys, guint *list, ListBy by)
{
    memset(from, 0, (keys + 1) * sizeof(guint));
    for (int pass = 0; pass < 2; pass++) {
        for (guint k = 0; k < s->n; k++) {
            guint u = s->units[k];
            const PlaceUnit *x = unit(s, u);
#define PUT(key) (pass == 0 ? (void)from[(key) + 1]++ : (void)(list[from[key]++] = u))
            if (by == BY_FIRST)
                PUT(x->first);
            else if (by == BY_LAST)
                PUT(x->last);
            else if (by == BY_LIFETIME)
                for (guint t = x->first; t <= x->last; t++)
                    PUT(t);
            else
                FOR_TILES(s->tree_depth, s->tree_base, x->first, (gsize)x->last + 1, PUT);
#undef PUT
        }
        if (pass == 0)
            for (gsize t = 0; t < keys; t++)
                from[t + 1] += from[t];
        else /* the fill moved every from[t] to the next one's start */
            for (gsize t = keys; t > 0; t--)
                from[t] = from[t - 1];
        from[0] = 0;
    }
}

void search_index_live(Search *s)
{
    g_free(s->live);
    g_free(s->live_from);
    guint64 entries = index_entries(s->unit_at, s->units, s->n, s->steps,
                                    s->p->options ? s->p->options->search_by_step_max : 0, &s->live_tree);
    gsize keys = s->live_tree ? tree_shape(s->steps, &s->tree_depth, s->tree_base) : s->steps;
    s->live_from = g_new(guint, keys + 1);
    s->live = g_new(guint, entries + 1);
    list_units(s, s->live_from, keys, s->live, s->live_tree ? BY_TILES : BY_LIFETIME);
}

void search_index_part(Search *s)
{
    list_units(s, s->starts_from, s->steps, s->starts, BY_FIRST);
    list_units(s, s->ends_from, s->steps, s->ends, BY_LAST);
    for (guint i = 0; i < s->n; i++) {
        s->starts_last[i] = unit(s, s->starts[i])->last;
        s->rank[s->units[i]] = i;
    }
}

guint search_units_around(const Search *s, guint from, guint to, SearchSlice *out)
{
    guint listed;
    if (!s->live_tree) {
        listed = s->live_from[to + 1] - s->live_from[from];
        if (listed >= s->n)
            return out[0] = (SearchSlice){s->units, s->n}, 1;
        return out[0] = (SearchSlice){s->live + s->live_from[from], listed}, 1;
    }
    /* those live at `from`, and those starting after it */
    guint slices = search_live_at(s, from, out);
    guint after = s->starts_from[from + 1];
    out[slices] = (SearchSlice){s->starts + after, s->starts_from[to + 1] - after};
    slices += out[slices].len != 0;
    return slices;
}
