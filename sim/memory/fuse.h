/* fuse.h — the graph a runtime runs (--fuse): its operator fusions applied after shape inference and before
 * ordering, so that the tensors a fusion removes are not planned. */
#ifndef SIM_FUSE_H
#define SIM_FUSE_H

#include "model/graph.h"

struct Site;

/* One fusion: its name (--fuse's report), what it does and which runtime does it, and the rewrite of the
 * pattern ending at a node (TRUE when it rewrote, with *error set on a failure). */
typedef struct {
    const char *name;
    const char *summary;
    gboolean (*apply)(struct Site *site, Node *n, GError **error);
} FuseRule;

#define FUSE_MAX_RULES 16

/* What fuse_apply did: per rule (fuse_rule_table's order), the sites rewritten and the bytes of the
 * intermediate tensors they removed. */
typedef struct {
    gboolean applied;
    guint sites[FUSE_MAX_RULES];
    guint64 bytes[FUSE_MAX_RULES];
} FuseReport;

/* The rules, in the order they run. */
const FuseRule *fuse_rule_table(guint *count);
/* Applies the fusions of `kind` ("ort"; "none" or NULL: nothing) to m's graph (shapes inferred), each rule
 * over every node once; data-dependent nodes and guarded branches are left alone. */
gboolean fuse_apply(Model *m, const char *kind, FuseReport *report, GError **error);

#endif
