/* search.h — the state of the exact placement search (strategies/search/place-search.c) and the pieces it is
 * built from: bookkeeping and inference over the skyline (search-infer.c), the memo of failed states
 * (search-memo.c), MiniMalloc's search on the same state (search-sections.c), the budget (search-budget.c).
 * Internal to the search. */
#ifndef SIM_SEARCH_H
#define SIM_SEARCH_H

#include "plan/place.h"

typedef struct {
    const PlaceProblem *p;
    const PlaceUnit *unit_at; /* p's units (unit()): one load instead of three on the search's hottest paths */
    guint64 target;      /* a placement must end at or below this */
    guint steps;
    guint64 *h;          /* skyline: highest end of placed units live at each step */
    guint64 *left;       /* bytes of unplaced units live at each step */
    guint64 *left_first; /* ... of those, the ones starting at the step */
    guint64 *left_last;  /* ... the ones ending at the step */
    guint64 *left_only;  /* ... the ones living at the step alone */
    guint64 *peak;       /* per unit (index into p->units): highest skyline over its lifetime */
    struct PeakChange *peak_undo; /* earlier peaks, restored when a change is undone (search_push_peak) */
    guint peak_undo_len, peak_undo_cap;
    struct Raise *raises; /* the raises of the frames on the stack, each frame's after its parent's */
    guint raises_len, raises_cap;
    /* The part's units live at each step (search-live.c; read through search_live_at): per step t,
     * live[live_from[t] .. live_from[t + 1]); with live_tree, per node of a tree over the steps. */
    guint *live_from;
    guint *live;
    gboolean live_tree;
    guint tree_depth;    /* the tree's leaves are at this level */
    gsize tree_base[32 / 3 + 2]; /* index of level L's first node */
    guint *starts_from;  /* per step t: starts[starts_from[t] .. starts_from[t + 1]) are the part's units starting at t */
    guint *starts;
    guint *ends_from;    /* ... and ends[ends_from[t] .. ends_from[t + 1]) those ending at t */
    guint *ends;
    guint *starts_last;  /* parallel to starts: each one's last step (read by the layer check's hot loop) */
    guint *overlaps_from; /* per unit u: overlaps[overlaps_from[u] .. overlaps_from[u + 1]) share a step with it */
    guint *overlaps;      /* (NULL: too many to list, see search_overlaps_build) */
    gboolean overlaps_built; /* tried once per search */
    guint8 *reach;       /* scratch of run_tiled */
    guint *floors;       /* scratch of search_walk_skyline: (first, last) step pairs */
    guint64 *stack;      /* scratch of search_stacks_fit: STACK_MAX (release, size) pairs */
    gboolean stacking;   /* the part has slack somewhere: stacking inference runs (see solve_part) */
    guint part_ready;    /* part + 1 when the tables are as that part starts (its last attempt failed), else 0 */
    guint *cross;        /* per boundary t|t+1: unplaced units live on both sides */
    guint64 *zobrist;    /* per unit: a random key; a set of units is keyed by XOR */
    guint64 *start_keys; /* per step: the XOR of the keys of the unplaced units starting there */
    guint64 *failed;     /* open-addressing set of keys of states that have no completion (0: empty) */
    guint failed_slots;  /* a power of two */
    guint failed_count;
    gboolean *placed;
    guint64 *offsets;
    guint *units;        /* this part's units, in the candidate order */
    guint n;
    guint *rank;         /* per unit: its place in that order (search-sections.c's preorder rank) */
    GArray *candidates;  /* search-sections.c: each node's candidates, stacked */
    GArray *moved;       /* ... scratch: candidates whose offset rose */
    GArray *skyline_undo; /* ... skyline steps as they were before each placement */
    gboolean unaligned;   /* no unit of the part asks for an alignment (a minimum offset is the peak itself) */
    gboolean exact_raises; /* raises that lose no placement (see dfs_node), or faster coarse ones */
    gboolean sections_ours; /* search-sections.c with our inferences (memo, twins, skyline), or as published */
    const guint64 *guide;   /* the skyline engine's candidates nearest their offset here first (NULL: the turn's order) */
    guint64 nodes, max_nodes;
    guint64 clock_mask;  /* the clock is read when nodes & clock_mask is 0 */
    gint64 deadline;
    gboolean out_of_budget;
    gboolean interrupted;   /* options->stop was set */
    gboolean stacks_full;   /* the undo stacks reached SEARCH_STACKS_MAX bytes (search_budget_left) */
    /* progress (options->progress): what the search has, and when to say it next */
    guint64 best, bound;
    gint64 start, next_progress;
    guint64 nodes_at_last;
} Search;

/* Checks after a change only look at the steps it can have affected: a window [lo, hi) of steps. */
typedef struct {
    guint lo, hi;
} Window;

/* A raise of the lowest stretch (place-search.c's dfs_node), undone when its frame returns. */
typedef struct Raise {
    guint from, to;
    guint64 was;
    guint peaks; /* peak_undo_len before the raise */
} Raise;

typedef struct PeakChange {
    guint u;
    guint64 was;
} PeakChange;

/* Room for one more of the `size`-byte entries of a stack of `len` in `data` holding *cap (doubling). */
static inline void *search_room(void *data, guint len, guint *cap, gsize size)
{
    if (G_UNLIKELY(len == *cap)) {
        *cap = MAX(2 * *cap, 256);
        data = g_realloc_n(data, *cap, size);
    }
    return data;
}

/* Records unit u's peak before a change (an inline push: this and its undo run at every node). */
static inline void search_push_peak(Search *s, guint u, guint64 was)
{
    s->peak_undo = search_room(s->peak_undo, s->peak_undo_len, &s->peak_undo_cap, sizeof(PeakChange));
    s->peak_undo[s->peak_undo_len++] = (PeakChange){u, was};
}

/* search_stacks_fit judges steps with at most this many unplaced units live (insertion sort), the rest not. */
#define STACK_MAX 64

/* The guided turn orders a node's candidates when the step lists at most this many. */
#define GUIDED_MAX 64

/* The most entries of the search's live index (search-live.c): by step while the lifetimes add up to at most
 * this many buffer-steps, else by tree, as long as its tiles number at most this many. 2^26 entries of 4
 * bytes; every count and offset into the index then fits its 32 bits. */
#define SEARCH_SPAN_MAX ((guint64)1 << 26)

/* The most bytes the search's undo stacks (the peaks, the raises, the sections' candidates and skyline) may
 * hold, unless the options say (search_stacks_max): they grow with the depth times what a placement changes,
 * which on 60,000 buffers each living beside a thousand others reaches gigabytes within a minute. Past it
 * the search stops as if out of budget. */
#define SEARCH_STACKS_MAX ((guint64)1 << 30)

static inline guint64 search_stacks_max(const Search *s)
{
    return s->p->options && s->p->options->search_stacks_max ? s->p->options->search_stacks_max : SEARCH_STACKS_MAX;
}

/* Failed states remembered: up to 2^21 keys (16 MiB; 1024 per unit, so small problems clear a small
 * table per target); when three quarters are taken, no more are added. */
#define FAILED_SLOTS_MAX (1u << 21)

static inline const PlaceUnit *unit(const Search *s, guint u) { return &s->unit_at[u]; }

/* Part of a list of units: at[0 .. len). */
typedef struct {
    const guint *at;
    guint len;
} SearchSlice;

/* The most slices search_live_at and search_units_around give: one a level of the tree, and one more. */
#define SEARCH_SLICES_MAX (32 / 3 + 3)

/* The part's units live at step t, as slices of the index (one per step, or one per level of the tree, each
 * unit once); returns how many slices. */
static inline guint search_live_at(const Search *s, guint t, SearchSlice *out)
{
    if (!s->live_tree) {
        out[0] = (SearchSlice){s->live + s->live_from[t], s->live_from[t + 1] - s->live_from[t]};
        return 1;
    }
    guint slices = 0;
    for (guint level = 0; level <= s->tree_depth; level++) {
        gsize node = s->tree_base[level] + (t >> (3 * (s->tree_depth - level)));
        guint len = s->live_from[node + 1] - s->live_from[node];
        if (len)
            out[slices++] = (SearchSlice){s->live + s->live_from[node], len};
    }
    return slices;
}

/* search-live.c: slices holding every unit of the part that lives somewhere in [from, to] (and maybe others,
 * placed or not, so callers still test; by step, a unit living at several of the steps is listed at each,
 * and when that is more than the part's units, the part's units); returns how many. */
guint search_units_around(const Search *s, guint from, guint to, SearchSlice *out);
/* The entries the live index of all p's units would hold, and whether it would be a tree (their lifetimes
 * add up to more than SEARCH_SPAN_MAX buffer-steps, or the options' search_by_step_max). */
guint64 search_live_entries(const PlaceProblem *p, gboolean *tree);
/* Lists the units s->units names (every unit not pinned) live at each step: by step (or by tree, past
 * SEARCH_SPAN_MAX buffer-steps). Once per search. */
void search_index_live(Search *s);
/* Lists the part's units (s->units, in the candidate order) by first and by last step; sets s->rank. */
void search_index_part(Search *s);

/* Slices holding every unit sharing a step with unit u (maybe u too, and others: callers still test): its
 * overlap list when the search has them, which names each once, else those around its lifetime. */
static inline guint search_units_overlapping(const Search *s, guint u, SearchSlice *out)
{
    if (!s->overlaps_from)
        return search_units_around(s, unit(s, u)->first, unit(s, u)->last, out);
    out[0] = (SearchSlice){s->overlaps + s->overlaps_from[u], s->overlaps_from[u + 1] - s->overlaps_from[u]};
    return 1;
}

/* search-budget.c: FALSE once the node or time budget is spent or a stop was requested (checks the clock
 * every clock_mask + 1 nodes, and prints progress). */
gboolean search_budget_left(Search *s);

/* search-sections.c: MiniMalloc's search over the part's units (s->units, in preorder) in [lo, hi). */
gboolean search_sections_solve(Search *s, guint lo, guint hi);

/* search-infer.c */
void search_count_unplaced(Search *s, const PlaceUnit *x, gint sign);
void search_raise_peaks(Search *s, guint from, guint to, guint64 level);
gboolean search_raise_peaks_of(Search *s, guint u, guint64 level);
void search_restore_peaks(Search *s, guint mark);
void search_overlaps_build(Search *s);
Window search_changed_window(const Search *s, guint lo, guint hi, guint from, guint to);
gboolean search_columns_can_fill(const Search *s, guint lo, guint hi, Window w);
gboolean search_floors_supported(const Search *s, Window w);
gboolean search_stacks_fit(const Search *s, guint t, guint64 base);
gboolean search_stacks_fit_after(const Search *s, guint lo, guint hi, guint from, guint to, guint mark, guint64 base,
                          guint64 top);
gboolean search_layers_tiled(const Search *s, guint lo, guint hi, guint from, guint to, guint64 cap);
gboolean search_rests_on(const Search *s, const PlaceUnit *x, guint p, guint q, gboolean from_right);
guint search_walk_skyline(const Search *s, guint lo, guint hi, guint *a, guint *b);
guint search_tightest_floor(const Search *s, guint floors, guint *p_out, guint *q_out, gboolean *from_right);
guint64 search_lowest_above(const Search *s, guint u, guint64 v);

/* search-memo.c */
guint64 search_mix64(guint64 x); /* splitmix64's finaliser */
guint64 search_state_key(const Search *s, guint lo, guint hi);
gboolean search_failed_before(const Search *s, guint64 key);
void search_remember_failed(Search *s, guint64 key);

#endif
