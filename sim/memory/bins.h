/* bins.h — memory bins (docs/spec.md §1: each bin has its own allocator and arena; aliases never
 * cross bins). A bins file assigns tensors to bins by rules, first match wins, unmatched tensors in bin 0:
 *
 *     # bin  rule
 *     1      name=*attn*        a glob on the tensor name (GLib's g_pattern_match_simple: * and ?)
 *     2      size>=1048576      the tensor's physical bytes
 *     sram   name=*attn*        with --tiers: a tier's name, the tensors held to that tier
 */
#ifndef SIM_BINS_H
#define SIM_BINS_H

#include "model/graph.h"

typedef struct BinRules BinRules;

/* Errors name FILE:LINE. */
BinRules *bins_parse(const char *text, gsize len, const char *path, GError **error);
BinRules *bins_read_file(const char *path, GError **error);
void bins_free(BinRules *r);
/* A file may name memory tiers (--tiers, docs/tiers.md) instead of numbering bins: `sram name=*attn*` holds those
 * tensors to that tier. Named bins are numbered from 1 by first appearance; bins_tier_name gives a bin's tier
 * (NULL: bin 0, the tensors no rule matched, free to go in any tier). One file names or numbers, not both. */
gboolean bins_name_tiers(const BinRules *r);
const char *bins_tier_name(const BinRules *r, guint bin);
/* Bin of every tensor of g (indexed by tensor id), given each tensor's physical bytes. Newly allocated. */
guint *bins_assign(const BinRules *r, const Graph *g, const guint64 *bytes);

#endif
