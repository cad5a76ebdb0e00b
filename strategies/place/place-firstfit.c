/* place-firstfit.c — online first fit: replays alloc/free in time order like a runtime allocator;
 * each allocation takes the lowest-address free block that fits, freed blocks coalesce. */
#include "plan/freelist.h"
#include "plan/place.h"

static gpointer ff_create(const GArray *units) { return freelist_new(FREELIST_FIRST_FIT, units); }
static guint64 ff_alloc(gpointer s, guint64 size, guint64 align) { return freelist_alloc(s, size, align); }
static void ff_release(gpointer s, guint64 offset, guint64 size) { freelist_release(s, offset, size); }
static gboolean ff_reserve(gpointer s, guint64 offset, guint64 size) { return freelist_reserve(s, offset, size); }
static void ff_destroy(gpointer s) { freelist_free(s); }

const PlaceStrategy place_firstfit = {
    .name = "firstfit",
    .summary = "online: lowest-address free block that fits, coalescing free list",
    .kind = PLACE_ONLINE,
    .role = ROLE_HEURISTIC,
    .create = ff_create, .alloc = ff_alloc, .release = ff_release, .reserve = ff_reserve, .destroy = ff_destroy,
};
