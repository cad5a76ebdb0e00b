/* alias-noop.c — metadata-only ops (rows of class noop: Reshape, Transpose as docs/spec.md §1
 * classifies it, Squeeze, Unsqueeze, Flatten, Identity) share their input's bytes, transitively and
 * across branches. The link goes whichever way is free: output into the input's buffer, or — when the
 * output is already placed (a concat slot, a pinned tensor's buffer) — the input into the output's,
 * which is how pins propagate backward through noop chains. A view of a tensor outside the arena (a
 * weight, a constant, a caller's input under --io outside) stays outside too. */
#include "memory/alias.h"
#include "ops/ops.h"

static gboolean noop_apply(AliasMap *m, GError **error)
{
    (void)error;
    for (guint s = 0; s < m->schedule->len; s++) {
        const Node *n = m->schedule->pdata[s];
        if (!liveness_node_is_view(n, &m->layout) || m->decided[n->index])
            continue;
        const Tensor *x = node_input(n, 0), *y = node_output(n, 0);
        if (!x || !y || !m->bytes[y->id]) {
            m->decided[n->index] = TRUE;
            continue;
        }
        if (!m->bytes[x->id]) {
            /* A view of bytes outside the arena stays outside (runtimes point at the weight or the caller's
             * input, or fold it); only a graph output or a pinned tensor must be copied in. */
            if (alias_view_outside(m, y->id, SHARE_NOOP))
                alias_note_shared(m, n, SHARE_NOOP);
            else
                alias_note_copy(m, n, SHARE_NOOP, "input '%s' is %s and '%s' must be in the arena", x->name,
                                alias_outside_reason(x), y->name);
            continue;
        }
        if (m->bytes[x->id] != m->bytes[y->id]) {
            alias_note_copy(m, n, SHARE_NOOP, "the last dimension changes under --pad-last %" G_GUINT64_FORMAT
                            ", so '%s' (%" G_GUINT64_FORMAT " B) and '%s' (%" G_GUINT64_FORMAT " B) differ in bytes",
                            m->layout.pad_last, x->name, m->bytes[x->id], y->name, m->bytes[y->id]);
            continue;
        }
        if (m->bin[x->id] != m->bin[y->id]) {
            alias_note_copy(m, n, SHARE_NOOP, "'%s' and '%s' are in different memory bins", x->name, y->name);
            continue;
        }
        guint64 ox, oy;
        gint rx = alias_root(m, x->id, &ox), ry = alias_root(m, y->id, &oy);
        if ((rx == ry && ox == oy) || alias_link(m, y->id, x->id, 0, SHARE_NOOP) ||
            alias_link(m, x->id, y->id, 0, SHARE_NOOP))
            alias_note_shared(m, n, SHARE_NOOP);
        else
            alias_note_copy(m, n, SHARE_NOOP, "'%s' and '%s' already live in two other buffers", x->name, y->name);
    }
    return TRUE;
}

const AliasStrategy alias_noop = {
    .name = "noop",
    .summary = "Reshape/Transpose/Squeeze/Unsqueeze/Flatten/Identity outputs share their input's bytes",
    .apply = noop_apply,
};
