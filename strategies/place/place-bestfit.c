/* place-bestfit.c — online best fit: replays alloc/free in time order; each allocation takes the
 * smallest free block that fits (ties: lowest address), freed blocks coalesce. */
#include "plan/freelist.h"
#include "plan/place.h"

static gpointer bf_create(const GArray *units) { return freelist_new(FREELIST_BEST_FIT, units); }
static guint64 bf_alloc(gpointer s, guint64 size, guint64 align) { return freelist_alloc(s, size, align); }
static void bf_release(gpointer s, guint64 offset, guint64 size) { freelist_release(s, offset, size); }
static gboolean bf_reserve(gpointer s, guint64 offset, guint64 size) { return freelist_reserve(s, offset, size); }
static void bf_destroy(gpointer s) { freelist_free(s); }

const PlaceStrategy place_bestfit = {
    .name = "bestfit",
    .summary = "online: smallest free block that fits (ties to the lowest address), coalescing free list",
    .kind = PLACE_ONLINE,
    .role = ROLE_HEURISTIC,
    .create = bf_create, .alloc = bf_alloc, .release = bf_release, .reserve = bf_reserve, .destroy = bf_destroy,
};
