/* alias.c — the alias map: links, roots, lifetimes of shared buffers, pins, savings, and the trace
 * with one buffer per root (see alias.h). */
#include "memory/alias.h"
#include "memory/alias-block.h"
#include "memory/alias-index.h"
#include "ops/ops.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const share_names[SHARE_KIND_COUNT] = {
    "own", "noop", "inplace", "gather", "slice", "split", "concat", "concat-dedup", "kv",
};

const char *alias_share_kind_name(ShareKind k) { return k < SHARE_KIND_COUNT ? share_names[k] : "?"; }

const char *alias_outside_reason(const Tensor *t)
{
    if (t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT)
        return "a weight or constant outside the arena";
    if (t->is_graph_input || t->is_graph_output)
        return t->is_graph_input ? "a graph input, outside the arena (--io)" : "a graph output, outside the arena (--io)";
    return "a view of a tensor outside the arena";
}

AliasMap *alias_map_new(const Graph *g, const GPtrArray *schedule, const LayoutOptions *layout, const guint *bins,
                        GHashTable *pins, GError **error)
{
    Lifetimes l;
    memset(&l, 0, sizeof l);
    if (!liveness_compute(g, schedule, layout, &l, error)) {
        liveness_clear(&l);
        return NULL;
    }
    guint n = g->tensors->len;
    AliasMap *m = g_new0(AliasMap, 1);
    m->g = g;
    m->schedule = schedule;
    m->layout = *layout;
    m->step_of = l.step_of;
    m->bytes = l.bytes;
    m->birth = l.birth;
    m->death = l.death;
    m->bin = g_new0(guint, n + 1);
    if (bins)
        memcpy(m->bin, bins, n * sizeof(guint));
    m->link = g_new(AliasLink, n + 1);
    for (guint k = 0; k < n; k++)
        m->link[k] = (AliasLink){-1, 0, SHARE_OWN};
    m->structural = g_new0(gboolean, n + 1);
    m->decided = g_new0(gboolean, g->nodes->len + 1);
    m->fallbacks = g_array_new(FALSE, TRUE, sizeof(AliasFallback));
    m->pins = pins;
    m->index = alias_index_new(n);
    for (guint k = 0; k < n; k++) { /* the bytes the caller owns: written over by no op */
        const Tensor *x = g->tensors->pdata[k];
        m->index->is_owned_out[k] = x->is_graph_output || (pins && g_hash_table_contains(pins, x->name));
        m->index->is_owned_in[k] = x->is_graph_input;
        m->index->owned_out[k] = m->bytes[k] && m->index->is_owned_out[k];
        m->index->owned_in[k] = m->bytes[k] && m->index->is_owned_in[k];
    }
    return m;
}

void alias_map_free(AliasMap *m)
{
    if (!m)
        return;
    g_free(m->reserve);
    g_free(m->step_of);
    g_free(m->bytes);
    g_free(m->birth);
    g_free(m->death);
    g_free(m->bin);
    g_free(m->link);
    g_free(m->structural);
    g_free(m->decided);
    g_free(m->reuse);
    for (guint k = 0; k < m->fallbacks->len; k++)
        g_free(g_array_index(m->fallbacks, AliasFallback, k).why);
    g_array_unref(m->fallbacks);
    alias_index_free(m->index);
    g_free(m);
}

gint alias_root(const AliasMap *m, gint t, guint64 *offset)
{
    gint64 position, root_position;
    const UnionFind *u = &m->index->all;
    gint root = u->top[alias_index_rep(u, t, &position)];
    alias_index_rep(u, root, &root_position);
    if (offset)
        *offset = (guint64)(position - root_position);
    return root;
}

gint alias_structural_root(const AliasMap *m, gint t)
{
    const UnionFind *u = &m->index->structural;
    return u->top[alias_index_rep(u, t, NULL)];
}

guint *alias_structural_deaths(const AliasMap *m)
{
    guint n = m->g->tensors->len;
    guint *death = g_new0(guint, n + 1);
    for (guint k = 0; k < n; k++) {
        if (!m->bytes[k])
            continue;
        gint r = alias_structural_root(m, (gint)k);
        death[r] = MAX(death[r], m->death[k]);
    }
    return death;
}

gboolean alias_structural_protected(const AliasMap *m, gint t, gboolean inputs)
{
    gint rep = alias_index_rep(&m->index->structural, t, NULL);
    return m->index->owned_out[rep] || (inputs && m->index->owned_in[rep]);
}

/* Whether a share of kind `kind` may join child to parent: a data-dependent tensor (its size and offsets
 * known only when it runs) shares only as a metadata view of the same bytes (not a Transpose, whose view
 * reorders them). */
static gboolean dynamic_allows(const AliasMap *m, gint child, gint parent, ShareKind kind)
{
    const Tensor *c = m->g->tensors->pdata[child], *p = m->g->tensors->pdata[parent];
    if (!c->dynamic && !p->dynamic)
        return TRUE;
    return kind == SHARE_NOOP && c->producer && strcmp(c->producer->op_type, "Transpose");
}

gboolean alias_node_dynamic(const Node *n)
{
    for (guint k = 0; k < n->inputs->len + n->outputs->len; k++) {
        const Tensor *t = k < n->inputs->len ? node_input(n, k) : node_output(n, k - n->inputs->len);
        if (t && t->dynamic)
            return TRUE;
    }
    return FALSE;
}

gboolean alias_link(AliasMap *m, gint child, gint parent, guint64 offset, ShareKind kind)
{
    if (child == parent || m->link[child].parent >= 0 || !m->bytes[child] || !m->bytes[parent] ||
        !dynamic_allows(m, child, parent, kind) || (m->reserve && m->reserve[child]) ||
        (m->keep_apart && g_hash_table_contains(m->keep_apart, ((const Tensor *)m->g->tensors->pdata[child])->name)))
        return FALSE;
    gint root = alias_root(m, parent, NULL);
    if (root == child || m->bin[child] != m->bin[root])
        return FALSE;
    m->link[child] = (AliasLink){parent, offset, kind};
    m->structural[child] = kind != SHARE_INPLACE;
    AliasIndex *x = m->index;
    x->next_sibling[child] = x->first_child[parent];
    x->first_child[parent] = child;
    alias_index_attach(&x->all, child, parent, offset);
    if (m->structural[child]) { /* the child's structural tree joins the parent's, with its owned members */
        gint a = alias_index_rep(&x->structural, child, NULL), b = alias_index_rep(&x->structural, parent, NULL);
        guint out = x->owned_out[a] + x->owned_out[b], in = x->owned_in[a] + x->owned_in[b];
        alias_index_attach(&x->structural, child, parent, offset);
        gint joined = alias_index_rep(&x->structural, child, NULL);
        x->owned_out[joined] = out;
        x->owned_in[joined] = in;
    }
    return TRUE;
}

/* Can t leave the arena with everything an earlier pass placed inside it? Read-only views of it (noop,
 * Slice, Split pieces) can follow it out, unless one is a graph output or pinned; a tensor written into
 * it (an in-place output, a Gather over its data, a concat piece) needs its bytes in the arena. */
static gboolean can_leave(const AliasMap *m, gint t)
{
    const Tensor *tensor = m->g->tensors->pdata[t];
    if (tensor->is_graph_output || (m->pins && g_hash_table_contains(m->pins, tensor->name)))
        return FALSE;
    for (gint k = m->index->first_child[t]; k >= 0; k = m->index->next_sibling[k]) {
        ShareKind kind = m->link[k].kind;
        if ((kind != SHARE_NOOP && kind != SHARE_SLICE && kind != SHARE_SPLIT) || !can_leave(m, k))
            return FALSE;
    }
    return TRUE;
}

/* Moves t and the views inside it out of the arena; each one's bytes count as saved by its kind. */
static void leave(AliasMap *m, gint t, ShareKind kind)
{
    AliasIndex *x = m->index;
    for (gint k = x->first_child[t], next; k >= 0; k = next) {
        next = x->next_sibling[k];
        ShareKind inner = m->link[k].kind;
        m->link[k] = (AliasLink){-1, 0, SHARE_OWN};
        m->structural[k] = FALSE;
        x->next_sibling[k] = -1;
        leave(m, k, inner);
    }
    x->first_child[t] = -1;
    /* Without bytes it takes no further part; the union-find keeps it (alias-index.h), the counts drop it. */
    gint rep = alias_index_rep(&x->structural, t, NULL);
    x->owned_out[rep] -= m->bytes[t] && x->is_owned_out[t];
    x->owned_in[rep] -= m->bytes[t] && x->is_owned_in[t];
    m->outside_saved[kind] += m->bytes[t];
    m->bytes[t] = 0;
}

gboolean alias_view_outside(AliasMap *m, gint t, ShareKind kind)
{
    if (!m->bytes[t] || ((const Tensor *)m->g->tensors->pdata[t])->dynamic || !can_leave(m, t))
        return FALSE;
    leave(m, t, kind);
    return TRUE;
}

char *alias_fallback_note(const AliasFallback *f)
{
    return g_strdup_printf("%s: node %s copies: %s", alias_share_kind_name(f->kind), f->node->label, f->why);
}

GPtrArray *alias_fallback_notes(const AliasMap *m)
{
    GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
    for (guint k = 0; k < m->fallbacks->len; k++)
        g_ptr_array_add(lines, alias_fallback_note(&g_array_index(m->fallbacks, AliasFallback, k)));
    return lines;
}

/* A fallback's reason with every quoted name as '...': the key that groups fallbacks of one reason whatever the
 * tensors it names. Newly allocated. */
static char *fallback_reason_class(const char *why)
{
    GString *key = g_string_new(NULL);
    for (const char *p = why; *p; p++) {
        const char *close = *p == '\'' ? strchr(p + 1, '\'') : NULL;
        if (close) {
            g_string_append(key, "'...'");
            p = close;
        } else {
            g_string_append_c(key, *p);
        }
    }
    return g_string_free(key, FALSE);
}

GPtrArray *alias_fallback_summary(const AliasMap *m)
{
    /* one pass: each (kind, reason with its names masked) a group, in the order of its first fallback */
    typedef struct {
        guint first, nodes, entries;
        const Node *last; /* a node refused for several inputs counts once */
        char *reason;
        GString *who;     /* the first three nodes' labels */
    } Group;
    GArray *groups = g_array_new(FALSE, TRUE, sizeof(Group));
    GHashTable *index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL); /* "kind\nreason" -> group + 1 */
    for (guint k = 0; k < m->fallbacks->len; k++) {
        const AliasFallback *f = &g_array_index(m->fallbacks, AliasFallback, k);
        char *reason = fallback_reason_class(f->why);
        char *key = g_strdup_printf("%d\n%s", (int)f->kind, reason);
        guint g = GPOINTER_TO_UINT(g_hash_table_lookup(index, key));
        if (!g) {
            Group fresh = {.first = k, .reason = reason, .who = g_string_new(NULL)};
            g_array_append_val(groups, fresh);
            g = groups->len;
            g_hash_table_insert(index, key, GUINT_TO_POINTER(g));
        } else {
            g_free(key);
            g_free(reason);
        }
        Group *grp = &g_array_index(groups, Group, g - 1);
        grp->entries++;
        if (grp->last == f->node)
            continue;
        if (grp->nodes < 3)
            g_string_append_printf(grp->who, "%s%s", grp->nodes ? ", " : "", f->node->label);
        grp->nodes++;
        grp->last = f->node;
    }
    GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
    for (guint g = 0; g < groups->len; g++) {
        Group *grp = &g_array_index(groups, Group, g);
        const AliasFallback *f = &g_array_index(m->fallbacks, AliasFallback, grp->first);
        if (grp->entries == 1)
            g_ptr_array_add(lines, alias_fallback_note(f));
        else
            g_ptr_array_add(lines, g_strdup_printf("%s: %u node%s: %s (%s%s)", alias_share_kind_name(f->kind),
                                                   grp->nodes, grp->nodes == 1 ? " copies" : "s copy", grp->reason,
                                                   grp->who->str, grp->nodes > 3 ? ", ..." : ""));
        g_string_free(grp->who, TRUE);
        g_free(grp->reason);
    }
    g_array_unref(groups);
    g_hash_table_unref(index);
    return lines;
}

void alias_note_copy(AliasMap *m, const Node *n, ShareKind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    AliasFallback f = {.node = n, .kind = kind, .why = why};
    g_array_append_val(m->fallbacks, f);
    m->copied_ops[kind]++;
    m->decided[n->index] = TRUE;
}

void alias_note_shared(AliasMap *m, const Node *n, ShareKind kind)
{
    m->aliased_ops[kind]++;
    m->decided[n->index] = TRUE;
}

guint64 alias_axis_stride(const AliasMap *m, const Tensor *t, int axis)
{
    guint64 stride = dtype_size(t->dtype);
    for (int k = axis + 1; k < t->rank; k++)
        stride *= k == t->rank - 1 ? round_up((guint64)t->dims[k], m->layout.pad_last) : (guint64)t->dims[k];
    return stride;
}

gboolean alias_leading_ones(const Tensor *t, int axis)
{
    for (int k = 0; k < axis; k++)
        if (t->dims[k] != 1)
            return FALSE;
    return TRUE;
}

gboolean alias_pins_parse(GHashTable *pins, const char *spec, GError **error)
{
    const char *eq = strrchr(spec, '=');
    char *end = NULL;
    errno = 0;
    long long v = eq ? strtoll(eq + 1, &end, 0) : -1;
    if (!eq || eq == spec || !eq[1] || *end || errno || v < 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--pin '%s' is not NAME=OFFSET (a non-negative byte offset)", spec);
        return FALSE;
    }
    char *name = g_strndup(spec, eq - spec);
    if (g_hash_table_contains(pins, name)) { /* not "the last one wins": the user meant one of them */
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--pin names '%s' twice", name);
        g_free(name);
        return FALSE;
    }
    gint64 *boxed = g_new(gint64, 1);
    *boxed = v;
    g_hash_table_insert(pins, name, boxed);
    return TRUE;
}

void alias_savings(const AliasMap *m, guint64 saved[SHARE_KIND_COUNT])
{
    memcpy(saved, m->outside_saved, SHARE_KIND_COUNT * sizeof(guint64));
    for (guint k = 0; k < m->g->tensors->len; k++) {
        const AliasLink *l = &m->link[k];
        if (l->parent < 0 || !m->bytes[k])
            continue;
        /* What sticks out past the parent's own bytes (a gather output larger than its data) was not saved. */
        guint64 end = l->offset + m->bytes[k], parent = m->bytes[l->parent];
        saved[l->kind] += m->bytes[k] - (end > parent ? MIN(end - parent, m->bytes[k]) : 0);
    }
}

/* Pinned root offsets from the pins; pins that disagree about one root are an error naming both. */
static gboolean pin_roots(const AliasMap *m, GHashTable *pins, gint64 *root_fixed, const char **pinned_by, GError **error)
{
    /* In name order, so that an error names the same two pins every run. */
    GList *names = g_list_sort(g_hash_table_get_keys(pins), (GCompareFunc)strcmp);
    gboolean ok = TRUE;
    for (GList *l = names; ok && l; l = l->next) {
        gpointer key = l->data, value = g_hash_table_lookup(pins, key);
        const Tensor *t = graph_tensor((Graph *)m->g, key);
        if (!t) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--pin names '%s', which is not a tensor of the graph",
                        (const char *)key);
            ok = FALSE;
            break;
        }
        if (!m->bytes[t->id]) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--pin names '%s', which has no buffer in the arena", t->name);
            ok = FALSE;
            break;
        }
        guint64 off;
        gint r = alias_root(m, t->id, &off);
        gint64 want = *(const gint64 *)value;
        if ((guint64)want < off) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                        "pin '%s'=%" G_GINT64_FORMAT " would put its buffer '%s' below address 0 ('%s' lies %" G_GUINT64_FORMAT
                        " bytes into it)", t->name, want, ((Tensor *)m->g->tensors->pdata[r])->name, t->name, off);
            ok = FALSE;
            break;
        }
        gint64 base = want - (gint64)off;
        if (root_fixed[r] != TRACE_NONE && root_fixed[r] != base) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                        "pins '%s' and '%s' disagree: both live in buffer '%s', which they put at %" G_GINT64_FORMAT " and %"
                        G_GINT64_FORMAT, pinned_by[r], t->name, ((Tensor *)m->g->tensors->pdata[r])->name, root_fixed[r],
                        base);
            ok = FALSE;
            break;
        }
        root_fixed[r] = base;
        pinned_by[r] = t->name;
    }
    g_list_free(names);
    return ok;
}

static gint by_birth(gconstpointer a, gconstpointer b, gpointer data)
{
    const AliasMap *m = data;
    guint x = GPOINTER_TO_UINT(*(gconstpointer const *)a), y = GPOINTER_TO_UINT(*(gconstpointer const *)b);
    if (m->birth[x] != m->birth[y])
        return m->birth[x] < m->birth[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static gint by_death(gconstpointer a, gconstpointer b, gpointer data)
{
    const AliasMap *m = data;
    guint x = GPOINTER_TO_UINT(*(gconstpointer const *)a), y = GPOINTER_TO_UINT(*(gconstpointer const *)b);
    if (m->death[x] != m->death[y])
        return m->death[x] < m->death[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* When a shared buffer dies: its members join the block in birth order (the first is the primary
 * owner), leave it in death order with ownership passing on, and the block is free at the release that
 * empties it (docs/spec.md §1.2). */
static guint root_death(const AliasMap *m, GPtrArray *members)
{
    g_qsort_with_data(members->pdata, (gint)members->len, sizeof(gpointer), by_birth, (gpointer)m);
    const Tensor *owner = m->g->tensors->pdata[GPOINTER_TO_UINT(members->pdata[0])];
    AliasBlock *block = alias_block_new(owner->name);
    for (guint k = 1; k < members->len; k++)
        alias_block_add(block, ((const Tensor *)m->g->tensors->pdata[GPOINTER_TO_UINT(members->pdata[k])])->name);
    g_qsort_with_data(members->pdata, (gint)members->len, sizeof(gpointer), by_death, (gpointer)m);
    guint death = 0;
    for (guint k = 0; k < members->len; k++) {
        guint t = GPOINTER_TO_UINT(members->pdata[k]);
        if (alias_block_release(block, ((const Tensor *)m->g->tensors->pdata[t])->name))
            death = m->death[t];
    }
    alias_block_free(block);
    return death;
}

/* Bytes each root's buffer moves in a run (TraceBuffer.reads, .writes), indexed by root tensor: a node reads each
 * of its inputs once and writes each output once, except what sharing made free — a view (noop, slice, split)
 * moves nothing, and a Concat whose inputs were laid out in its output writes only the inputs it copies. A graph
 * input is written by the caller, a graph output read by the caller. */
static void root_traffic(const AliasMap *m, guint64 *reads, guint64 *writes)
{
    const Graph *g = m->g;
    for (guint s = 0; s < m->schedule->len; s++) {
        const Node *node = m->schedule->pdata[s];
        gboolean moves = FALSE;
        for (guint k = 0; k < node->outputs->len; k++) {
            const Tensor *o = node->outputs->pdata[k];
            if (o && o->id >= 0 && m->bytes[o->id]) {
                ShareKind kind = m->link[o->id].kind;
                moves |= kind != SHARE_NOOP && kind != SHARE_SLICE && kind != SHARE_SPLIT;
            }
        }
        if (!moves)
            continue;
        for (guint k = 0; k < node->inputs->len; k++) {
            const Tensor *in = node->inputs->pdata[k];
            if (!in || in->id < 0 || !m->bytes[in->id])
                continue;
            gboolean seen = FALSE; /* one read per consumer, whatever its slots */
            for (guint j = 0; j < k && !seen; j++)
                seen = node->inputs->pdata[j] == in;
            const AliasLink *l = &m->link[in->id];
            gboolean laid_out = FALSE; /* a Concat input already where the output wants it */
            for (guint j = 0; j < node->outputs->len && (l->kind == SHARE_CONCAT || l->kind == SHARE_DEDUP); j++)
                laid_out |= node->outputs->pdata[j] && l->parent == ((const Tensor *)node->outputs->pdata[j])->id;
            if (!seen && !laid_out)
                reads[alias_root(m, in->id, NULL)] += m->bytes[in->id];
        }
        for (guint k = 0; k < node->outputs->len; k++) {
            const Tensor *o = node->outputs->pdata[k];
            if (!o || o->id < 0 || !m->bytes[o->id])
                continue;
            guint64 written = m->bytes[o->id];
            for (guint j = 0; j < node->inputs->len; j++) {
                const Tensor *in = node->inputs->pdata[j];
                if (in && in->id >= 0 && m->link[in->id].parent == o->id &&
                    (m->link[in->id].kind == SHARE_CONCAT || m->link[in->id].kind == SHARE_DEDUP))
                    written -= MIN(written, m->bytes[in->id]);
            }
            writes[alias_root(m, o->id, NULL)] += written;
        }
    }
    for (guint k = 0; k < g->inputs->len; k++) {
        const Tensor *in = g->inputs->pdata[k];
        if (in->id >= 0 && m->bytes[in->id])
            writes[alias_root(m, in->id, NULL)] += m->bytes[in->id];
    }
    for (guint k = 0; k < g->outputs->len; k++) {
        const Tensor *out = g->outputs->pdata[k];
        if (out->id >= 0 && m->bytes[out->id])
            reads[alias_root(m, out->id, NULL)] += m->bytes[out->id];
    }
}

Trace *alias_map_to_trace(const AliasMap *m, GHashTable *pins, GError **error)
{
    guint n = m->g->tensors->len, steps = MAX(m->schedule->len, 1);
    guint64 *extent = g_new0(guint64, n + 1);
    guint *first = g_new(guint, n + 1), *last = g_new0(guint, n + 1);
    gint64 *fixed = g_new(gint64, n + 1);
    const char **pinned_by = g_new0(const char *, n + 1);
    for (guint k = 0; k < n; k++) {
        first[k] = G_MAXUINT;
        fixed[k] = TRACE_NONE;
    }
    GPtrArray **members = g_new0(GPtrArray *, n + 1);
    Trace *t = NULL;
    guint64 *reads = NULL, *writes = NULL;
    for (guint k = 0; k < n; k++) {
        if (!m->bytes[k])
            continue;
        guint64 off;
        gint r = alias_root(m, (gint)k, &off);
        if (!m->bytes[r]) { /* an invariant of the alias map: a tensor in the arena lives in a root that is */
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "tensor '%s' lives in '%s', which has no buffer",
                        ((const Tensor *)m->g->tensors->pdata[k])->name, ((const Tensor *)m->g->tensors->pdata[r])->name);
            for (guint j = 0; j < n; j++)
                if (members[j])
                    g_ptr_array_unref(members[j]);
            g_free(members);
            goto out;
        }
        extent[r] = MAX(extent[r], off + m->bytes[k]);
        first[r] = MIN(first[r], m->birth[k]);
        if (!members[r])
            members[r] = g_ptr_array_new();
        g_ptr_array_add(members[r], GUINT_TO_POINTER(k));
    }
    for (guint r = 0; r < n; r++)
        if (members[r]) {
            last[r] = root_death(m, members[r]);
            g_ptr_array_unref(members[r]);
        }
    g_free(members);
    if (pins && !pin_roots(m, pins, fixed, pinned_by, error))
        goto out;
    t = trace_new(m->g->name);
    t->steps = steps;
    reads = g_new0(guint64, n + 1);
    writes = g_new0(guint64, n + 1);
    root_traffic(m, reads, writes);
    for (guint k = 0; k < n; k++) {
        if (!m->bytes[k] || m->link[k].parent >= 0)
            continue;
        const Tensor *tensor = m->g->tensors->pdata[k];
        gboolean pinned = fixed[k] != TRACE_NONE;
        if (pinned && (guint64)fixed[k] % m->layout.align) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "pin of '%s' puts buffer '%s' at %" G_GINT64_FORMAT
                        ", which is not a multiple of --align %" G_GUINT64_FORMAT, pinned_by[k], tensor->name, fixed[k],
                        m->layout.align);
            trace_free(t);
            t = NULL;
            goto out;
        }
        if (m->reserve) /* a buffer reserved larger than its members (a KV cache's capacity) */
            extent[k] = MAX(extent[k], m->reserve[k]);
        /* Pre-allocated tensors are never freed: a pinned buffer lives for the whole run. */
        guint id = trace_add(t, tensor->name, extent[k], m->layout.align, pinned ? 0 : first[k], pinned ? steps - 1 : last[k]);
        trace_buffer(t, id)->fixed = fixed[k];
        trace_buffer(t, id)->bin = m->bin[k];
        trace_buffer(t, id)->reuse = m->reuse ? m->reuse[k] : 0;
        trace_buffer(t, id)->reads = reads[k];
        trace_buffer(t, id)->writes = writes[k];
    }
    /* Scratch: single-step workspace of the nodes whose op row asks for it. */
    for (guint s = 0; s < m->schedule->len; s++) {
        const Node *node = m->schedule->pdata[s];
        guint64 bytes = m->scratch && node->op && node->op->scratch ? node->op->scratch(node) : 0;
        if (!bytes)
            continue;
        char *name = g_strdup_printf("%s#scratch", *node->name ? node->name : node->label);
        trace_add(t, name, bytes, m->layout.align, s, s);
        g_free(name);
    }
    t->steps = steps;
out:
    g_free(reads);
    g_free(writes);
    g_free(extent);
    g_free(first);
    g_free(last);
    g_free(fixed);
    g_free(pinned_by);
    return t;
}

static const char *tensor_origin(const Tensor *tensor)
{
    if (tensor->producer)
        return NULL;
    switch (tensor->kind) {
    case TENSOR_WEIGHT: return "a weight";
    case TENSOR_CONSTANT: return "a constant";
    default: return tensor->is_graph_input ? "a graph input" : "made by no node";
    }
}

char **alias_buffer_about(const AliasMap *m, const Trace *t)
{
    guint n = m->g->tensors->len, buffers = trace_count(t);
    /* the tensors living in each root's bytes, in tensor order */
    GPtrArray **members = g_new0(GPtrArray *, n + 1);
    for (guint k = 0; k < n; k++) {
        if (!m->bytes[k] || m->link[k].parent < 0)
            continue;
        guint64 off;
        gint r = alias_root(m, (gint)k, &off);
        if (!members[r])
            members[r] = g_ptr_array_new();
        g_ptr_array_add(members[r], GUINT_TO_POINTER(k));
    }
    char **about = g_new0(char *, buffers + 1);
    guint id = 0;
    gboolean match = TRUE;
    for (guint k = 0; k < n && match; k++) {
        if (!m->bytes[k] || m->link[k].parent >= 0)
            continue;
        const Tensor *tensor = m->g->tensors->pdata[k];
        if (id >= buffers || strcmp(trace_buffer(t, id)->name, tensor->name)) {
            match = FALSE;
            break;
        }
        GString *s = g_string_new(NULL);
        const char *origin = tensor_origin(tensor);
        if (origin)
            g_string_append(s, origin);
        else
            g_string_append_printf(s, "made by %s", tensor->producer->label);
        guint count = members[k] ? members[k]->len : 0;
        if (count)
            g_string_append_printf(s, "; shared by %u tensor%s:", count, count == 1 ? "" : "s");
        for (guint j = 0; j < MIN(count, ALIAS_ABOUT_MEMBERS); j++) {
            guint c = GPOINTER_TO_UINT(members[k]->pdata[j]);
            g_string_append_printf(s, "%s %s (%s)", j ? "," : "", ((const Tensor *)m->g->tensors->pdata[c])->name,
                                   alias_share_kind_name(m->link[c].kind));
        }
        if (count > ALIAS_ABOUT_MEMBERS)
            g_string_append_printf(s, " and %u more", count - ALIAS_ABOUT_MEMBERS);
        about[id++] = g_string_free(s, FALSE);
    }
    /* then the scratch buffers, in schedule order */
    for (guint s = 0; match && s < m->schedule->len; s++) {
        const Node *node = m->schedule->pdata[s];
        if (!(m->scratch && node->op && node->op->scratch && node->op->scratch(node)))
            continue;
        if (id >= buffers) {
            match = FALSE;
            break;
        }
        about[id++] = g_strdup_printf("workspace of %s", node->label);
    }
    for (guint k = 0; k < n; k++)
        if (members[k])
            g_ptr_array_unref(members[k]);
    g_free(members);
    if (!match || id != buffers) {
        g_strfreev(about);
        return NULL;
    }
    return about;
}
