/* structured-place.h — the state every structured strategy places with (docs/structured.md, "Strategies").
 * Colocated buffers are one item (they share a pool and an offset); an item's relations are the items it may
 * not share bytes with (lifetimes that overlap with no temporal exclusion, separations, exclusive pins: hard)
 * and those it pays a reuse penalty to share bytes with (soft). Placing an item at an offset of a pool is
 * checked against the items placed so far and the pool's reserved ranges; every placement can be undone, so a
 * search walks the tree with one state. Pinned items are placed when the state is made.
 *
 * Candidate offsets: an item is worth trying only at 0 or just above (aligned) an item it is related to or a
 * reserved range. Any placement can be pushed down, item by item, until each rests on one of those without
 * breaking a rule, raising a peak or adding a penalty; so the candidates lose nothing (the search's proof rests
 * on it). */
#ifndef SIM_STRUCTURED_PLACE_H
#define SIM_STRUCTURED_PLACE_H

#include "structured/structured.h"

#include <glib.h>

typedef struct StructuredState StructuredState;

/* The most relations between items the state builds (every hard pair and penalty, both ways). */
#define STRUCTURED_PLACE_MAX_RELATIONS (1u << 27)

/* A state with only the pinned items placed; NULL with an error when pins contradict each other or the
 * problem has more relations than the state holds. */
StructuredState *structured_place_new(const StructuredProblem *p, GError **error);
void structured_place_free(StructuredState *s);

guint structured_place_items(const StructuredState *s);
/* An item's facts, for orders: its extent (largest member), earliest start, live time, relation count, the
 * penalty weight it carries, and whether it was pinned. */
guint64 structured_place_size(const StructuredState *s, guint item);
gint64 structured_place_start(const StructuredState *s, guint item);
guint64 structured_place_duration(const StructuredState *s, guint item);
guint structured_place_degree(const StructuredState *s, guint item);
guint64 structured_place_weight(const StructuredState *s, guint item);
gboolean structured_place_pinned(const StructuredState *s, guint item);
gboolean structured_place_is_placed(const StructuredState *s, guint item);
/* Where a placed item is; the item a buffer belongs to. */
guint structured_place_item_pool(const StructuredState *s, guint item);
guint64 structured_place_item_offset(const StructuredState *s, guint item);
guint structured_place_item_of(const StructuredState *s, guint buffer);
/* The pools (indices) an item may use. */
const GArray *structured_place_pools(const StructuredState *s, guint item);

/* Appends to `out` (guint64) the offsets of `pool` at or above `floor` where `item` keeps every rule against
 * the placed items, ascending, once each. */
void structured_place_candidates(StructuredState *s, guint item, guint pool, guint64 floor, GArray *out);
/* The penalty weight placing `item` at (pool, offset) adds, against the placed items. */
guint64 structured_place_added_cost(const StructuredState *s, guint item, guint pool, guint64 offset);
/* Places an item (the caller has checked the offset is a candidate) / takes back the last placement. */
void structured_place_put(StructuredState *s, guint item, guint pool, guint64 offset);
void structured_place_undo(StructuredState *s);
/* The current highest byte of a pool (reserved ranges included), and the penalty weight paid so far. */
guint64 structured_place_peak(const StructuredState *s, guint pool);
guint64 structured_place_cost(const StructuredState *s);
/* The highest byte any placement reaches in a pool, at least: the most bytes live at once among buffers no
 * exclusion or colocation lets share, the largest item, the highest reserved byte. */
guint64 structured_place_pool_bound(const StructuredState *s, guint pool);
/* Every term of the objective for the placed items (pools restricted to `pools`, NULL: all), into
 * value[STRUCTURED_TERMS]. */
void structured_place_value(const StructuredState *s, const gboolean *pools, guint64 *value);
/* The items, sorted by `cmp` (given two guint item numbers and `data`), as a new array of
 * structured_place_items(s) (at least one) item numbers. Free with g_free. */
guint *structured_place_sorted(const StructuredState *s, GCompareDataFunc cmp, gpointer data);
/* Takes back every placement but the pins. */
void structured_place_reset(StructuredState *s);

/* How a constructive pass picks an item's place among the candidates of the pools it may use. */
typedef enum {
    STRUCTURED_FIT_LOWEST,   /* the first pool it fits in under the capacity (else its first), lowest offset there */
    STRUCTURED_FIT_CHEAPEST, /* the least overflow, then the least penalty, the least growth of the pool's peak,
                              * the lowest offset */
} StructuredFit;
/* Places the unplaced items of `order` (n of them) one after another as `fit` picks, adding the candidates weighed
 * to *work; FALSE with an error naming the buffer when one fits nowhere below 2^63 bytes. */
gboolean structured_place_pass(StructuredState *s, const guint *order, guint n, StructuredFit fit, guint64 *work,
                               GError **error);

/* The placement, one per buffer (every item must be placed). */
void structured_place_result(const StructuredState *s, StructuredPlace *out);

#endif
