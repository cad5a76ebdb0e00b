/* alias-concat-dedup.c — chained concats (docs/spec.md §2.7): a
 * concat output feeding another concat is nested inside the outer one's region, and a tensor needed at
 * two positions is copied once, so Concat(t1, Concat(t1, t2, t3), t3) takes 2·t1 + t2 + 2·t3 bytes.
 * Runs before `runtime`, which then lays out the concats left undecided without nesting. */
#include "memory/alias.h"

static gboolean dedup_apply(AliasMap *m, GError **error) { return alias_concat_pass(m, TRUE, error); }

const AliasStrategy alias_concat_dedup = {
    .name = "concat-dedup",
    .summary = "chained concats nest inside the outer concat; a tensor needed twice is copied once",
    .apply = dedup_apply,
    .lengthens = TRUE,
};
