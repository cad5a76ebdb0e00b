/* alias-runtime.c — the runtime ops of docs/spec.md §2, with its layout model (last dimension
 * padded to --pad-last): Split outputs are consecutive views of the input; Slice is a view at
 * start x stride bytes (stride from the padded shape; the address may be unaligned); Gather writes into
 * its data's buffer, sized max(data, output), when the data dies there; Concat inputs are laid out
 * contiguously in the output (alias-concat.c), concat outputs not nested (that is concat-dedup's).
 * Every one needs all dimensions before its axis to be 1; otherwise the op copies and the report says
 * why, or with --strict-runtime the seed's error text ends the run. */
#include "memory/alias.h"
#include "ops/ops.h"

#include <string.h>

static gboolean leading_ones_or_fail(AliasMap *m, const Node *n, const Tensor *t, int axis, ShareKind kind,
                                     const char *op, GError **error, gboolean *fail)
{
    *fail = FALSE;
    if (alias_leading_ones(t, axis))
        return TRUE;
    if (m->strict_runtime) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "node %s: %s_runtime: axis=%d requires all leading dimensions to be 1 for memory aliasing", n->label,
                    op, axis);
        *fail = TRUE;
        return FALSE;
    }
    alias_note_copy(m, n, kind, "%s_runtime: axis=%d requires all leading dimensions to be 1 for memory aliasing", op,
                    axis);
    return FALSE;
}

static int attr_axis(const Node *n, int rank, gint64 dflt)
{
    gint64 a;
    if (!node_attr_int(n, "axis", dflt, &a, NULL))
        a = dflt;
    return (int)(a < 0 ? a + rank : a);
}

/* Split outputs already laid out back to back in one buffer (a concat of them claimed them first)? */
static gboolean outputs_contiguous(const AliasMap *m, const Node *n, gint *root, guint64 *base)
{
    guint64 expect = 0;
    for (guint k = 0; k < n->outputs->len; k++) {
        const Tensor *o = node_output(n, k);
        guint64 off;
        gint r = o ? alias_root(m, o->id, &off) : -1;
        if (!o || m->link[o->id].parent < 0 || (k && (r != *root || off != expect)))
            return FALSE;
        if (k == 0) {
            *root = r;
            *base = off;
        }
        expect = off + m->bytes[o->id];
    }
    return n->outputs->len > 0;
}

static gboolean split_node(AliasMap *m, const Node *n, GError **error)
{
    const Tensor *x = node_input(n, 0);
    int axis = attr_axis(n, x->rank, 0);
    gboolean fail;
    if (!m->bytes[x->id]) {
        alias_note_copy(m, n, SHARE_SPLIT, "input '%s' is %s", x->name, alias_outside_reason(x));
        return TRUE;
    }
    if (!leading_ones_or_fail(m, n, x, axis, SHARE_SPLIT, "split", error, &fail))
        return !fail;
    guint64 total = 0;
    for (guint k = 0; k < n->outputs->len; k++) {
        const Tensor *o = node_output(n, k);
        if (!o || !m->bytes[o->id]) {
            alias_note_copy(m, n, SHARE_SPLIT, "an output has no buffer");
            return TRUE;
        }
        total += m->bytes[o->id];
    }
    if (total != m->bytes[x->id]) {
        alias_note_copy(m, n, SHARE_SPLIT, "the outputs' padded sizes (%" G_GUINT64_FORMAT " B) do not add up to the "
                        "input's (%" G_GUINT64_FORMAT " B)", total, m->bytes[x->id]);
        return TRUE;
    }
    gint root;
    guint64 base;
    if (outputs_contiguous(m, n, &root, &base)) {
        /* Concat(Split(x)) in order: x itself can sit where its pieces already are — both ops vanish. */
        if (alias_link(m, x->id, root, base, SHARE_SPLIT))
            alias_note_shared(m, n, SHARE_SPLIT);
        else
            alias_note_copy(m, n, SHARE_SPLIT, "input '%s' already lives in another buffer", x->name);
        return TRUE;
    }
    guint64 offset = 0;
    guint placed = 0;
    for (guint k = 0; k < n->outputs->len; k++) {
        const Tensor *o = node_output(n, k);
        if (alias_link(m, o->id, x->id, offset, SHARE_SPLIT))
            placed++;
        else
            alias_note_copy(m, n, SHARE_SPLIT, "output '%s' already lives in another buffer", o->name);
        offset += m->bytes[o->id];
    }
    if (placed)
        alias_note_shared(m, n, SHARE_SPLIT);
    return TRUE;
}

/* The start along `axis` from the Slice's parameters (inputs from opset 10, attributes before). */
static gboolean slice_start(const Node *n, const Tensor *x, int axis, gint64 *start, gint64 *step)
{
    const Attr *starts_attr = node_attr(n, "starts");
    const GArray *attr_axes = NULL;
    GArray *starts = NULL, *axes = NULL, *steps = NULL;
    if (starts_attr && starts_attr->type == ATTR_INTS) {
        starts = g_array_copy(starts_attr->ints);
        node_attr_ints(n, "axes", &attr_axes, NULL);
        axes = attr_axes ? g_array_copy((GArray *)attr_axes) : NULL;
    } else {
        const Tensor *ts = node_input(n, 1), *ta = node_input(n, 3), *tp = node_input(n, 4);
        if (!ts || !ts->value || (ta && !ta->value) || (tp && !tp->value))
            return FALSE;
        starts = g_array_new(FALSE, FALSE, sizeof(gint64));
        g_array_append_vals(starts, ts->value->i, ts->value->n);
        if (ta) {
            axes = g_array_new(FALSE, FALSE, sizeof(gint64));
            g_array_append_vals(axes, ta->value->i, ta->value->n);
        }
        if (tp) {
            steps = g_array_new(FALSE, FALSE, sizeof(gint64));
            g_array_append_vals(steps, tp->value->i, tp->value->n);
        }
    }
    gboolean found = FALSE;
    for (guint k = 0; k < starts->len; k++) {
        gint64 a = axes ? g_array_index(axes, gint64, k) : (gint64)k;
        if (a < 0)
            a += x->rank;
        if (a != axis)
            continue;
        gint64 s = g_array_index(starts, gint64, k), dim = x->dims[axis];
        if (s < 0)
            s = MAX(s + dim, 0);
        *start = MIN(s, dim);
        *step = steps ? g_array_index(steps, gint64, k) : 1;
        found = TRUE;
    }
    g_array_unref(starts);
    if (axes)
        g_array_unref(axes);
    if (steps)
        g_array_unref(steps);
    return found;
}

static gboolean slice_node(AliasMap *m, const Node *n, GError **error)
{
    const Tensor *x = node_input(n, 0), *y = node_output(n, 0);
    if (!m->bytes[x->id] || !m->bytes[y->id]) {
        alias_note_copy(m, n, SHARE_SLICE, "input '%s' is %s", x->name, alias_outside_reason(x));
        return TRUE;
    }
    int axis = -1, sliced = 0;
    for (int k = 0; k < x->rank; k++)
        if (x->dims[k] != y->dims[k]) {
            axis = k;
            sliced++;
        }
    if (sliced > 1) {
        alias_note_copy(m, n, SHARE_SLICE, "it slices %d axes; a view needs one", sliced);
        return TRUE;
    }
    gint64 start = 0, step = 1;
    if (sliced == 1) {
        gboolean fail;
        if (!leading_ones_or_fail(m, n, x, axis, SHARE_SLICE, "slice", error, &fail))
            return !fail;
        if (!slice_start(n, x, axis, &start, &step)) {
            alias_note_copy(m, n, SHARE_SLICE, "its starts are not known constants");
            return TRUE;
        }
        if (step != 1) {
            alias_note_copy(m, n, SHARE_SLICE, "step %" G_GINT64_FORMAT " is not 1: a strided slice is not contiguous", step);
            return TRUE;
        }
        if (axis == x->rank - 1 && m->layout.pad_last > 1) {
            alias_note_copy(m, n, SHARE_SLICE, "it slices the padded last dimension");
            return TRUE;
        }
    }
    guint64 offset = sliced ? (guint64)start * alias_axis_stride(m, x, axis) : 0;
    if (alias_link(m, y->id, x->id, offset, SHARE_SLICE))
        alias_note_shared(m, n, SHARE_SLICE);
    else
        alias_note_copy(m, n, SHARE_SLICE, "output '%s' already lives in another buffer", y->name);
    return TRUE;
}

static gboolean gather_node(AliasMap *m, const Node *n, const guint *death, guint step, GError **error)
{
    const Tensor *x = node_input(n, 0), *y = node_output(n, 0);
    if (!m->bytes[x->id]) {
        alias_note_copy(m, n, SHARE_GATHER, "data '%s' is %s", x->name, alias_outside_reason(x));
        return TRUE;
    }
    int axis = attr_axis(n, x->rank, 0);
    gboolean fail;
    if (!leading_ones_or_fail(m, n, x, axis, SHARE_GATHER, "gather", error, &fail))
        return !fail;
    if (m->bytes[y->id] > m->bytes[x->id] && m->strict_runtime) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "node %s: gather_runtime: output physical size exceeds "
                    "input physical size after C-dimension padding", n->label);
        return FALSE;
    }
    /* The seed's gather writes over its data, graph inputs included; never over outputs or pins. */
    if (death[alias_structural_root(m, x->id)] != step || alias_structural_protected(m, x->id, FALSE)) {
        alias_note_copy(m, n, SHARE_GATHER, "data '%s' is still needed after this step, so the gather cannot write over it",
                        x->name);
        return TRUE;
    }
    if (alias_link(m, y->id, x->id, 0, SHARE_GATHER))
        alias_note_shared(m, n, SHARE_GATHER);
    else
        alias_note_copy(m, n, SHARE_GATHER, "output '%s' already lives in another buffer", y->name);
    return TRUE;
}

static gboolean runtime_apply(AliasMap *m, GError **error)
{
    if (!alias_concat_pass(m, FALSE, error))
        return FALSE;
    guint *death = alias_structural_deaths(m);
    gboolean ok = TRUE;
    for (guint s = 0; ok && s < m->schedule->len; s++) {
        const Node *n = m->schedule->pdata[s];
        if (!n->op || m->decided[n->index])
            continue;
        if (n->op->runtime != RUNTIME_NONE && n->op->runtime != RUNTIME_CONCAT && alias_node_dynamic(n)) {
            alias_note_copy(m, n, n->op->runtime == RUNTIME_SPLIT ? SHARE_SPLIT : n->op->runtime == RUNTIME_SLICE ? SHARE_SLICE
                                                                                                            : SHARE_GATHER,
                            "its sizes are data-dependent (known only when it runs)");
            continue;
        }
        switch (n->op->runtime) {
        case RUNTIME_SPLIT: ok = split_node(m, n, error); break;
        case RUNTIME_SLICE: ok = slice_node(m, n, error); break;
        case RUNTIME_GATHER: ok = gather_node(m, n, death, s, error); break;
        default: continue;
        }
        m->decided[n->index] = TRUE;
    }
    g_free(death);
    return ok;
}

const AliasStrategy alias_runtime = {
    .name = "runtime",
    .summary = "Split/Slice views, Gather in its dying data's buffer, Concat inputs laid out in the output",
    .apply = runtime_apply,
    .lengthens = TRUE,
};
