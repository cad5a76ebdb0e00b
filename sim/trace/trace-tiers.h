/* trace-tiers.h — memories with more than one place (docs/tiers.md): an ordered list of tiers, fastest first,
 * each with a capacity (or none) and a cost per byte read and per byte written. A tiered trace leaves the tier of
 * each buffer to the plan (a buffer may be limited to some tiers, TraceBuffer.tiers); the plan's cost is the sum
 * over buffers of their bytes read and written times their tier's costs.
 *
 *     --tiers sram=256KiB,dram             NAME[=CAPACITY][:READ[/WRITE]], comma-separated
 *
 * A capacity is a byte count (sim_parse_bytes: 262144, 256K, 256KiB); none means unbounded, which only the last
 * tier may be. Costs default to the tier's position (0 for the first, 1 for the second, ...), reads and writes
 * alike, so with two tiers a plan's cost is the bytes it moves through the slow one. */
#ifndef SIM_TRACE_TIERS_H
#define SIM_TRACE_TIERS_H

#include "trace/trace.h"

#define TRACE_TIERS_MAX 16u
#define TRACE_TIER_UNBOUNDED G_MAXUINT64
#define TRACE_TIER_NAME_MAX 64u

typedef struct {
    char name[TRACE_TIER_NAME_MAX + 1]; /* letters, digits, '_', '-' and '.' */
    guint64 capacity;                   /* bytes, or TRACE_TIER_UNBOUNDED */
    double read_cost, write_cost;       /* per byte, >= 0, never below an earlier tier's */
} TraceTier;

/* Whether s is a tier's name: 1 to 64 letters, digits, '_', '-' and '.'. */
gboolean trace_tiers_name_ok(const char *s);
/* Parses a spec (above) into TraceTier rows; errors quote the part that is wrong. */
GArray *trace_tiers_parse(const char *spec, GError **error);
/* The spec back, every field written ("sram=262144:0/0,dram:1/1"): it parses to the same rows. */
char *trace_tiers_format(const GArray *tiers);
GArray *trace_tiers_copy(const GArray *tiers);
/* Index of the tier named `name`, or -1. */
gint trace_tiers_find(const GArray *tiers, const char *name);
/* Parses "NAME|NAME..." (tier names) into a mask of Trace.tiers. */
gboolean trace_tiers_mask_parse(const GArray *tiers, const char *text, guint32 *mask, GError **error);
/* The mask as "NAME|NAME" (newly allocated). */
char *trace_tiers_mask_format(const GArray *tiers, guint32 mask);
static inline const TraceTier *trace_tier(const GArray *tiers, guint k) { return &g_array_index(tiers, TraceTier, k); }
/* What buffer b costs in tier k: its bytes read and written times the tier's costs. */
static inline double trace_tier_cost(const GArray *tiers, guint k, const TraceBuffer *b)
{
    const TraceTier *t = trace_tier(tiers, k);
    return (double)b->reads * t->read_cost + (double)b->writes * t->write_cost;
}
/* The tiers buffer b may use (all when its mask is 0). */
static inline guint32 trace_tiers_allowed(const Trace *t, const TraceBuffer *b)
{
    guint32 all = t->tiers->len >= 32 ? G_MAXUINT32 : (1u << t->tiers->len) - 1;
    return b->tiers ? b->tiers & all : all;
}

#endif
