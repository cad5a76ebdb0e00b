/* fuse.h — the graph a runtime runs (--fuse): its operator fusions applied after shape inference and before
 * ordering, so that the tensors a fusion removes are not planned. */
#ifndef SIM_FUSE_H
#define SIM_FUSE_H

#include "model/graph.h"

struct Site;

/* One rewrite: its name (--fuse's report), what it does and which runtime does it, the --fuse kind it
 * belongs to ("ort": ONNX Runtime at its default level; "ort-disabled": at level disabled, where it fuses
 * nothing but still expands the ops its CPU kernels lack; "ort-transformers": after ONNX Runtime's offline
 * transformer optimizer, on top of "ort"), whether it expands one op into several (its
 * bytes are then intermediates added, not removed), and the rewrite of the pattern ending at a node (TRUE
 * when it rewrote, with *error set on a failure). */
typedef struct {
    const char *name;
    const char *summary;
    const char *kind;
    gboolean expands;
    gboolean (*apply)(struct Site *site, Node *n, GError **error);
} FuseRule;

/* What fuse_apply did: per rule (fuse_rule_table's order, `rules` of them), the sites rewritten and the bytes
 * of the intermediate tensors they removed (an expansion: added). Owns its kind and arrays: fuse_report_clear
 * frees them; a copy by value takes them over (clear only one of the two). */
typedef struct {
    gboolean applied;
    char *kind;
    guint rules;
    guint *sites;
    guint64 *bytes;
} FuseReport;

/* The rules, in the order they run. */
const FuseRule *fuse_rule_table(guint *count);
/* Whether `rule` runs under --fuse `kind`: its own kind, or one `kind` extends ("ort-transformers" runs the
 * "ort" rules first). */
gboolean fuse_rule_in_kind(const FuseRule *rule, const char *kind);
/* Whether --fuse takes `kind` ("none", or one of the kinds' table); the kinds, "none" first, joined by
 * `separator` ("none, ort, ..." for messages, "none|ort|..." for --help); --fuse's help text, from the same table
 * (both newly allocated). */
gboolean fuse_kind_known(const char *kind);
char *fuse_kind_names(const char *separator);
char *fuse_kind_help(void);
/* Applies the rewrites of `kind` ("ort", "ort-disabled", "ort-transformers"; "none" or NULL: nothing) to m's graph (shapes
 * inferred), each rule over every node once; data-dependent nodes and guarded branches are left alone. `report`
 * is zeroed ({0}) or a report of an earlier call, which is cleared first. */
gboolean fuse_apply(Model *m, const char *kind, FuseReport *report, GError **error);
void fuse_report_clear(FuseReport *report);

#endif
