/* alias-inplace.c — in-place reuse: an elementwise op's output (or a row's named input, OpInfo.inplace_input:
 * a fused Conv accumulating into its skip tensor) takes the buffer of a same-size input that dies at this op (docs/spec.md §4.1: one root map
 * for aliases and in-place, so chains of in-place ops work). "Dies here" is judged on the input's
 * graph-structural alias tree, never on earlier in-place decisions, so decisions do not feed back into
 * consumer counts. Graph inputs and outputs and pinned tensors are never overwritten. */
#include "memory/alias.h"
#include "ops/ops.h"

static gboolean inplace_apply(AliasMap *m, GError **error)
{
    (void)error;
    guint *death = alias_structural_deaths(m);
    for (guint s = 0; s < m->schedule->len; s++) {
        const Node *n = m->schedule->pdata[s];
        const Tensor *y = node_output(n, 0);
        /* A Transpose that moves data (--transpose move) may write over its dying input too: the kernel
         * transposes through a temporary. */
        gboolean moving_transpose = m->layout.transpose_moves && n->op && n->op->moves_data;
        if (!n->op || !(n->op->elementwise || moving_transpose || n->op->inplace_input) || !y || !m->bytes[y->id])
            continue;
        /* An output already placed inside another tensor (a concat piece: squeezenet's Relus write into their
         * Concat) takes no bytes of its own; the dying input takes the output's place instead, so the op still
         * runs in place and the input needs no buffer either. */
        gboolean placed = m->link[y->id].parent >= 0;
        if (placed && !n->op->elementwise)
            continue;
        for (guint k = 0; k < n->inputs->len; k++) {
            if (n->op->inplace_input && k + 1 != (guint)n->op->inplace_input)
                continue; /* a row that names the one input its output may overwrite */
            const Tensor *x = node_input(n, k);
            if (!x || x == y || !m->bytes[x->id] || m->bytes[x->id] != m->bytes[y->id] || y->is_graph_output)
                continue;
            gint r = alias_structural_root(m, x->id);
            if (death[r] != s || alias_structural_protected(m, x->id, TRUE))
                continue;
            /* A row that is not elementwise (a FusedConv) still reads its other inputs while it writes: none of
             * them may be the bytes it writes over (Conv(t) + t) */
            gboolean read_too = FALSE;
            for (guint j = 0; !n->op->elementwise && j < n->inputs->len && !read_too; j++) {
                const Tensor *other = node_input(n, j);
                read_too = j != k && other && m->bytes[other->id] && alias_structural_root(m, other->id) == r;
            }
            if (read_too)
                continue;
            if (placed ? alias_link(m, x->id, y->id, 0, SHARE_INPLACE) : alias_link(m, y->id, x->id, 0, SHARE_INPLACE)) {
                alias_note_shared(m, n, SHARE_INPLACE);
                break;
            }
        }
        const Tensor *x0 = node_input(n, 0);
        if (moving_transpose && !placed && m->link[y->id].parent < 0 && x0 && m->bytes[x0->id])
            alias_note_copy(m, n, SHARE_INPLACE, "Transpose moves data (--transpose move) and '%s' %s", x0->name,
                            death[alias_structural_root(m, x0->id)] != s ? "is read again later"
                            : y->is_graph_output ? "cannot take a graph output's place"
                                                 : "shares bytes with a graph input, output or pin");
    }
    g_free(death);
    return TRUE;
}

const AliasStrategy alias_inplace = {
    .name = "inplace",
    .summary = "an elementwise op writes over a same-size input that dies there (chains work)",
    .apply = inplace_apply,
};
