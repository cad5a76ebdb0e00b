/* alias-concat.c — the Concat layout of docs/spec.md §2, shared by the runtime and
 * concat-dedup strategies: inputs laid out contiguously in the output (the output is their start),
 * planned in reverse topological order as a "reverse split" so an outer concat claims its inputs before
 * an inner one. The first claim on a tensor wins; a later concat that needs it at another position
 * copies it there — which yields the seed's 2·t1 + t2 + 2·t3 layout for a chained concat. */
#include "memory/alias.h"
#include "ops/ops.h"

#include <string.h>

static guint64 physical(const AliasMap *m, const Tensor *t)
{
    guint64 b = 0;
    return liveness_physical_bytes(t, m->layout.pad_last, &b) ? b : 0;
}

static gboolean concat_axis(const Node *n, const Tensor *y, int *axis)
{
    gint64 a;
    if (!node_attr_int(n, "axis", 0, &a, NULL) || a < -(gint64)y->rank || a >= y->rank)
        return FALSE;
    *axis = (int)(a < 0 ? a + y->rank : a);
    return TRUE;
}

/* Why input k cannot be placed in the concat's region, or NULL when it can. `seen` holds the inputs before
 * k (a set, not a scan of them: a Concat of 100,000 inputs scanned 5 billion). */
static char *input_obstacle(const AliasMap *m, const Node *n, guint k, gboolean nest, GHashTable *seen)
{
    const Tensor *x = node_input(n, k);
    if (!g_hash_table_add(seen, (gpointer)x))
        return g_strdup_printf("input '%s' appears twice; its second slot is a copy", x->name);
    if (!m->bytes[x->id])
        return g_strdup_printf("input '%s' is %s", x->name, alias_outside_reason(x));
    gboolean is_concat = x->producer && x->producer->op && x->producer->op->runtime == RUNTIME_CONCAT;
    if (is_concat && !nest)
        return g_strdup_printf("input '%s' is a concat output; nesting it needs concat-dedup", x->name);
    if (m->link[x->id].parent >= 0)
        return g_strdup_printf("input '%s' already lives in another buffer", x->name);
    if (m->bin[x->id] != m->bin[alias_root(m, node_output(n, 0)->id, NULL)])
        return g_strdup_printf("input '%s' is in another memory bin", x->name);
    return NULL;
}

gboolean alias_concat_pass(AliasMap *m, gboolean nest, GError **error)
{
    /* With concat-dedup on, it handles every concat (nesting needs the inner layouts decided with the outer
     * ones): links (bytes), copies and counts all go to one kind, so the report's rows agree. */
    const ShareKind kind = nest ? SHARE_DEDUP : SHARE_CONCAT;
    for (guint s = m->schedule->len; s-- > 0;) {
        const Node *n = m->schedule->pdata[s];
        if (!n->op || n->op->runtime != RUNTIME_CONCAT || m->decided[n->index])
            continue;
        const Tensor *y = node_output(n, 0);
        int axis;
        if (alias_node_dynamic(n)) {
            alias_note_copy(m, n, kind, "its sizes are data-dependent (known only when it runs)");
            continue;
        }
        if (!y || !m->bytes[y->id] || !concat_axis(n, y, &axis)) {
            alias_note_copy(m, n, kind, "the output has no buffer in the arena");
            continue;
        }
        if (!alias_leading_ones(y, axis)) {
            if (m->strict_runtime) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "node %s: concat_runtime: axis=%d requires all "
                            "leading dimensions to be 1 for memory aliasing", n->label, axis);
                return FALSE;
            }
            alias_note_copy(m, n, kind, "concat_runtime: axis=%d requires all leading dimensions to be 1 for "
                            "memory aliasing", axis);
            continue;
        }
        guint64 total = 0;
        for (guint k = 0; k < n->inputs->len; k++)
            total += physical(m, node_input(n, k));
        if (total != m->bytes[y->id]) {
            alias_note_copy(m, n, kind, "the inputs' padded sizes (%" G_GUINT64_FORMAT " B) do not add up to the "
                            "output's (%" G_GUINT64_FORMAT " B)", total, m->bytes[y->id]);
            continue;
        }
        guint64 offset = 0;
        guint placed = 0;
        GHashTable *seen = g_hash_table_new(NULL, NULL);
        for (guint k = 0; k < n->inputs->len; k++) {
            const Tensor *x = node_input(n, k);
            char *why = input_obstacle(m, n, k, nest, seen);
            if (!why && !alias_link(m, x->id, y->id, offset, kind))
                why = g_strdup_printf("input '%s' would make a cycle", x->name);
            if (why) {
                alias_note_copy(m, n, kind, "%s", why);
                g_free(why);
            } else {
                placed++;
            }
            offset += physical(m, x);
        }
        g_hash_table_unref(seen);
        if (placed)
            alias_note_shared(m, n, kind);
        m->decided[n->index] = TRUE;
    }
    return TRUE;
}
