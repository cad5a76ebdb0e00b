/* training.c — a training step's memory by role (training.h). */
#include "memory/training.h"
#include "base/max-flow.h"
#include "ops/ops.h"

#include <string.h>

#define TRAINING_KEY "arenasim.training."

/* The roles: the report's name, the json member (and the metadata key, arenasim.training.KEY, where the model names
 * the role), and whether the metadata names graph inputs (else any tensor). */
static const struct {
    const char *name, *key;
    gboolean named, inputs;
} role_names[TRAINING_ROLE_COUNT] = {
    [TRAINING_PARAMETERS] = {"parameters", "parameters", TRUE, TRUE},
    [TRAINING_BUFFERS] = {"buffers", "buffers", TRUE, TRUE},
    [TRAINING_OPTIMIZER_STATE] = {"optimizer state", "optimizer_state", TRUE, TRUE},
    [TRAINING_BATCH] = {"batch", "batch", FALSE, FALSE},
    [TRAINING_GRADIENTS] = {"gradients", "gradients", TRUE, FALSE},
    [TRAINING_SAVED] = {"saved activations", "saved_activations", FALSE, FALSE},
    [TRAINING_TRANSIENT] = {"transient", "transient", FALSE, FALSE},
};

const char *training_role_name(TrainingRole r)
{
    return role_names[r].name;
}

const char *training_role_key(TrainingRole r)
{
    return role_names[r].key;
}

void training_roles_free(TrainingRoles *r)
{
    if (!r)
        return;
    g_free(r->role);
    g_free(r->loss);
    g_free(r);
}

/* Each node's part of the step: the forward is the loss's value and what it depends on, the backward what depends
 * on that value (the value: the loss tensor, or what the Identities the exporter names it by copy), the rest free
 * (torch's detaches beside a saved output, the backward's arithmetic on saved tensors alone): free nodes may run
 * before the loss or after it. */
enum { PART_FREE, PART_FORWARD, PART_BACKWARD };

static void parts(const Graph *g, const Tensor *loss, guint8 *part)
{
    memset(part, PART_FREE, g->nodes->len);
    const Tensor *value = loss;
    while (value && value->producer && !strcmp(value->producer->op_type, "Identity") &&
           value->producer->inputs->len == 1 && node_input(value->producer, 0))
        value = node_input(value->producer, 0);
    if (!value)
        return;
    GPtrArray *stack = g_ptr_array_new();
    if (value->producer) {
        part[value->producer->index] = PART_FORWARD;
        g_ptr_array_add(stack, value->producer);
    }
    while (stack->len) {
        const Node *n = g_ptr_array_steal_index_fast(stack, stack->len - 1);
        for (guint k = 0; k < n->inputs->len; k++) {
            const Tensor *in = node_input(n, k);
            if (in && in->producer && part[in->producer->index] != PART_FORWARD) {
                part[in->producer->index] = PART_FORWARD;
                g_ptr_array_add(stack, in->producer);
            }
        }
    }
    for (guint c = 0; value->consumers && c < value->consumers->len; c++)
        g_ptr_array_add(stack, value->consumers->pdata[c]);
    while (stack->len) {
        const Node *n = g_ptr_array_steal_index_fast(stack, stack->len - 1);
        if (part[n->index] != PART_FREE)
            continue;
        part[n->index] = PART_BACKWARD;
        for (guint k = 0; k < n->outputs->len; k++) {
            const Tensor *made = n->outputs->pdata[k];
            for (guint c = 0; made && made->consumers && c < made->consumers->len; c++)
                g_ptr_array_add(stack, made->consumers->pdata[c]);
        }
    }
    g_ptr_array_unref(stack);
}

static gboolean names_read(const Graph *g, const char *key, const char *value, TrainingRole role, gboolean inputs,
                           TrainingRole *roles, gboolean *named, GError **error)
{
    char **names = g_strsplit(value, "\n", -1);
    gboolean ok = TRUE;
    for (char **n = names; ok && *n; n++) {
        if (!**n)
            continue; /* an empty list, or a trailing newline */
        const Tensor *t = g_hash_table_lookup(g->by_name, *n);
        const char *wrong = !t ? "is not a tensor of the graph"
                            : inputs && !t->is_graph_input ? "is not a graph input"
                            : named[t->id]                 ? "is named twice in the training roles"
                                                           : NULL;
        if (wrong) {
            char *shown = g_strescape(*n, NULL);
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "model metadata '" TRAINING_KEY "%s': '%s' %s", key, shown,
                        wrong);
            g_free(shown);
            ok = FALSE;
        } else {
            named[t->id] = TRUE;
            roles[t->id] = role;
        }
    }
    g_strfreev(names);
    return ok;
}

gboolean training_roles_read(const Model *m, TrainingRoles **out, GError **error)
{
    *out = NULL;
    const Graph *g = m->graph;
    const char *loss = NULL;
    gboolean any = FALSE;
    for (guint k = 0; m->metadata && k + 1 < m->metadata->len; k += 2) {
        const char *key = m->metadata->pdata[k];
        if (g_str_has_prefix(key, TRAINING_KEY)) {
            any = TRUE;
            if (!strcmp(key, TRAINING_KEY "loss"))
                loss = m->metadata->pdata[k + 1];
        }
    }
    if (!any)
        return TRUE;
    if (!loss || !g_hash_table_lookup(g->by_name, loss)) {
        char *shown = loss ? g_strescape(loss, NULL) : NULL;
        g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "model metadata '" TRAINING_KEY "loss': %s%s%s",
                    shown ? "'" : "", shown ? shown : "missing, and the other training roles need it",
                    shown ? "' is not a tensor of the graph" : "");
        g_free(shown);
        return FALSE;
    }
    TrainingRoles *r = g_new0(TrainingRoles, 1);
    r->n_tensors = g->tensors->len;
    r->role = g_new(TrainingRole, r->n_tensors);
    gboolean *named = g_new0(gboolean, r->n_tensors);
    for (guint k = 0; k < r->n_tensors; k++) {
        const Tensor *t = g->tensors->pdata[k];
        r->role[k] = t->is_graph_input && t->kind != TENSOR_WEIGHT ? TRAINING_BATCH : TRAINING_TRANSIENT;
    }
    gboolean ok = TRUE;
    for (guint k = 0; ok && m->metadata && k + 1 < m->metadata->len; k += 2) {
        const char *key = m->metadata->pdata[k];
        if (!g_str_has_prefix(key, TRAINING_KEY) || !strcmp(key, TRAINING_KEY "loss"))
            continue;
        const char *role = key + strlen(TRAINING_KEY);
        guint j = 0;
        while (j < TRAINING_ROLE_COUNT && (!role_names[j].named || strcmp(role, role_names[j].key)))
            j++;
        if (j == TRAINING_ROLE_COUNT) {
            char *shown = g_strescape(key, NULL);
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "model metadata '%s': not a training role (loss, "
                        "parameters, buffers, optimizer_state, gradients)", shown);
            g_free(shown);
            ok = FALSE;
            break;
        }
        ok = names_read(g, role_names[j].key, m->metadata->pdata[k + 1], (TrainingRole)j, role_names[j].inputs,
                        r->role, named, error);
    }
    guint8 *part = g_new(guint8, g->nodes->len);
    parts(g, g_hash_table_lookup(g->by_name, loss), part);
    /* saved activations: made by the forward, read by the backward. A tensor may reach the backward through
     * Identities of neither part (torch's detach of a saved output, read again by the backward through a second
     * detach): marked in reverse topological order, so an Identity's output is settled before its input. */
    gboolean *read_after = g_new0(gboolean, r->n_tensors);
    for (guint k = 0; k < r->n_tensors; k++) {
        const Tensor *t = g->tensors->pdata[k];
        for (guint c = 0; t->consumers && c < t->consumers->len; c++)
            read_after[k] = read_after[k] || part[((const Node *)t->consumers->pdata[c])->index] == PART_BACKWARD;
    }
    for (guint k = g->order->len; k-- > 0;) {
        const Node *n = g->order->pdata[k];
        const Tensor *in = n->inputs->len == 1 ? node_input(n, 0) : NULL;
        if (in && part[n->index] == PART_FREE && !strcmp(n->op_type, "Identity") && n->outputs->len == 1 &&
            n->outputs->pdata[0])
            read_after[in->id] = read_after[in->id] || read_after[((const Tensor *)n->outputs->pdata[0])->id];
    }
    for (guint k = 0; ok && k < r->n_tensors; k++) {
        const Tensor *t = g->tensors->pdata[k];
        if (r->role[k] == TRAINING_TRANSIENT && t->producer && part[t->producer->index] == PART_FORWARD &&
            read_after[k])
            r->role[k] = TRAINING_SAVED;
    }
    r->loss = g_strdup(loss);
    g_free(read_after);
    g_free(part);
    g_free(named);
    if (!ok) {
        training_roles_free(r);
        return FALSE;
    }
    *out = r;
    return TRUE;
}

/* Per tensor id, the trace's buffer holding its bytes (its index + 1), or 0: none (outside the arena). */
static guint *buffers_of(const AliasMap *m, GHashTable *by_name)
{
    guint *buffer = g_new0(guint, m->g->tensors->len + 1);
    for (guint k = 0; k < m->g->tensors->len; k++) {
        gint root = alias_root(m, (gint)k, NULL);
        if (root >= 0)
            buffer[k] = GPOINTER_TO_UINT(g_hash_table_lookup(by_name,
                                                             ((const Tensor *)m->g->tensors->pdata[root])->name));
    }
    return buffer;
}

/* Work the cuts of one plan's floors may do, counted in nodes, tensors and readers looked at and edges the flows
 * visit: about a second; a torchvision training step takes tens of millions. */
#define CUT_WORK 400000000u

/* The fewest bytes of the buffers not `left` out (NULL: none) that an order leaves live at a moment, when the nodes
 * before it are a set B holding every node whose vertex is 0 (the source), none whose vertex is 1 (the sink), and
 * every producer of what it holds: a minimum cut (base/max-flow.h). A buffer is live then when a tensor in its
 * bytes is made in B (or is a graph input) and one is read outside B or is a graph output. Each other node is a
 * vertex (>= 2) with an edge to each producer of what it reads (a reader in B has its producers in B, at no
 * cost); a buffer is two vertices, y (reached from each maker) and x (reaching each reader and, for an output, the
 * sink), joined by an edge of its size, the one edge a cut pays for it. The order that runs B first holds exactly
 * the cut's bytes then. */
static guint64 cut_bytes(const Graph *g, const Trace *t, const guint *buffer, const guint *vertex, guint vertices,
                         const guint8 *left, guint64 *work)
{
    guint n = trace_count(t);
    MaxFlow *f = max_flow_new(vertices + 2 * n);
    for (guint b = 0; b < n; b++)
        if (!left || !left[b])
            max_flow_edge(f, vertices + 2 * b, vertices + 2 * b + 1, trace_buffer(t, b)->size);
    for (guint k = 0; k < g->tensors->len; k++) {
        const Tensor *x = g->tensors->pdata[k];
        guint b = buffer[k];
        if (!b-- || (left && left[b]))
            continue;
        max_flow_edge(f, x->producer ? vertex[x->producer->index] : 0, vertices + 2 * b, MAX_FLOW_UNBOUNDED);
        for (guint c = 0; x->consumers && c < x->consumers->len; c++)
            max_flow_edge(f, vertices + 2 * b + 1, vertex[((const Node *)x->consumers->pdata[c])->index],
                          MAX_FLOW_UNBOUNDED);
        if (x->is_graph_output)
            max_flow_edge(f, vertices + 2 * b + 1, 1, MAX_FLOW_UNBOUNDED);
    }
    for (guint k = 0; k < g->nodes->len; k++) {
        const Node *c = g->nodes->pdata[k];
        for (guint i = 0; vertex[k] >= 2 && i < c->inputs->len + (c->implicit_inputs ? c->implicit_inputs->len : 0);
             i++) {
            const Tensor *in = i < c->inputs->len ? node_input(c, i) : c->implicit_inputs->pdata[i - c->inputs->len];
            if (in && in->producer)
                max_flow_edge(f, vertex[k], vertex[in->producer->index], MAX_FLOW_UNBOUNDED);
        }
    }
    guint64 cut = max_flow_run(f, 0, 1, work, NULL);
    max_flow_free(f);
    return cut;
}

/* The fewest bytes live just after the loss's value is made, over every order: the cut with the forward as the
 * source and the backward as the sink. The order that runs the source side first, the loss's value last in it,
 * holds exactly that, so the floor is tight. */
static guint64 loss_cut(const Graph *g, const Trace *t, const guint *buffer, const char *loss, guint64 *work)
{
    const Tensor *lt = loss ? g_hash_table_lookup(g->by_name, loss) : NULL;
    if (!lt)
        return 0;
    guint8 *part = g_new(guint8, g->nodes->len);
    parts(g, lt, part);
    guint *vertex = g_new(guint, g->nodes->len), vertices = 2;
    for (guint k = 0; k < g->nodes->len; k++)
        vertex[k] = part[k] == PART_FORWARD ? 0 : part[k] == PART_BACKWARD ? 1 : vertices++;
    guint64 cut = cut_bytes(g, t, buffer, vertex, vertices, NULL, work);
    g_free(vertex);
    g_free(part);
    return cut;
}

/* The bytes another order could save while n runs by writing its output over an input in place (the in-place
 * sharing an order decides: an op that may run in place, its first output over an input of at least its size that
 * dies there), when this plan's sharing gave the output bytes of its own: that output's buffer, else 0. */
static guint64 overlay(const Node *n, const guint *buffer, const Trace *t)
{
    const Tensor *y = n->outputs->len ? n->outputs->pdata[0] : NULL;
    if (!y || !buffer[y->id] || !n->op || !(n->op->elementwise || n->op->inplace_input || n->op->moves_data))
        return 0;
    guint64 size = trace_buffer(t, buffer[y->id] - 1)->size;
    gboolean fits = FALSE;
    for (guint k = 0; k < n->inputs->len; k++) {
        const Tensor *x = node_input(n, k);
        if (x && buffer[x->id] == buffer[y->id])
            return 0; /* already in place */
        fits = fits || (x && buffer[x->id] && trace_buffer(t, buffer[x->id] - 1)->size >= size);
    }
    return fits ? size : 0;
}

enum { FREE, BEFORE, AFTER };

/* Marks side[u] BEFORE for v's ancestors and AFTER for v and its descendants (the rest stay FREE); returns the
 * nodes it visited. */
static guint64 mark_sides(const Graph *g, guint v, guint8 *side, guint *stack)
{
    guint64 visited = 0;
    memset(side, FREE, g->nodes->len);
    for (guint dir = BEFORE; dir <= AFTER; dir++) {
        guint depth = 0;
        stack[depth++] = v;
        while (depth) {
            const Node *x = g->nodes->pdata[stack[--depth]];
            visited++;
            for (guint i = 0; dir == BEFORE && i < x->inputs->len; i++) {
                const Tensor *in = node_input(x, i);
                if (in && in->producer && !side[in->producer->index]) {
                    side[in->producer->index] = BEFORE;
                    stack[depth++] = (guint)in->producer->index;
                }
            }
            for (guint o = 0; dir == AFTER && o < x->outputs->len; o++) {
                const Tensor *out = x->outputs->pdata[o];
                for (guint c = 0; out && out->consumers && c < out->consumers->len; c++) {
                    const Node *y = out->consumers->pdata[c];
                    if (!side[y->index]) {
                        side[y->index] = AFTER;
                        stack[depth++] = (guint)y->index;
                    }
                }
            }
        }
    }
    side[v] = AFTER;
    return visited;
}

/* The most bytes every order holds while one node runs, at least `floor` (the loss's cut): per node v, the buffers
 * holding what v reads or makes, and the least the others leave live then (cut_bytes with v's ancestors as the
 * source and v and its descendants as the sink). A buffer is fixed when a tensor in it is made by an ancestor (or
 * is a graph input) and another is read by a descendant (or is a graph output): every order holds it; the cut
 * weighs only the undecided ones. Only nodes whose every undecided buffer would lift the floor are cut. */
static guint64 step_floor(const Graph *g, const Trace *t, const guint *buffer, guint64 floor, guint64 *work)
{
    guint n = g->nodes->len, buffers = trace_count(t);
    guint8 *side = g_new(guint8, n + 1);
    guint *vertex = g_new(guint, n + 1), *stack = g_new(guint, n + 1);
    guint8 *left = g_new(guint8, buffers + 1), *made = g_new(guint8, buffers + 1), *read = g_new(guint8, buffers + 1);
    for (guint v = 0; v < n && *work; v++) {
        guint64 done = mark_sides(g, v, side, stack);
        guint vertices = 2;
        for (guint u = 0; u < n; u++)
            vertex[u] = side[u] == BEFORE ? 0 : side[u] == AFTER ? 1 : vertices++;
        /* per buffer: touched by v (left[b]); made before v (an ancestor, a graph input: 1) or by a free node (2);
         * read after v (a descendant, a graph output: 1) or by a free node (2) */
        memset(left, 0, buffers);
        memset(made, 0, buffers);
        memset(read, 0, buffers);
        for (guint k = 0; k < g->tensors->len; k++) {
            const Tensor *x = g->tensors->pdata[k];
            guint b = buffer[k];
            if (!b--)
                continue;
            done++;
            guint p = x->producer ? vertex[x->producer->index] : 0;
            left[b] |= x->producer && (guint)x->producer->index == v;
            made[b] = made[b] == 1 || p == 0 ? 1 : p >= 2 ? 2 : made[b];
            read[b] = MAX(read[b], x->is_graph_output ? 1 : 0);
            for (guint c = 0; x->consumers && c < x->consumers->len; c++, done++) {
                guint q = vertex[((const Node *)x->consumers->pdata[c])->index];
                left[b] |= (guint)((const Node *)x->consumers->pdata[c])->index == v;
                read[b] = read[b] == 1 || q == 1 ? 1 : q >= 2 ? 2 : read[b];
            }
        }
        guint64 fixed = 0, open = 0;
        for (guint b = 0; b < buffers; b++) {
            guint64 size = trace_buffer(t, b)->size;
            if (left[b] || (made[b] == 1 && read[b] == 1))
                fixed += size;
            else if (made[b] && read[b])
                open += size;
            left[b] = left[b] || (made[b] == 1 && read[b] == 1) || !made[b] || !read[b]; /* not the cut's */
        }
        *work -= MIN(done, *work);
        fixed -= MIN(fixed, overlay(g->nodes->pdata[v], buffer, t));
        if (fixed + open > floor)
            floor = MAX(floor, fixed + (open ? cut_bytes(g, t, buffer, vertex, vertices, left, work) : 0));
    }
    g_free(side);
    g_free(vertex);
    g_free(stack);
    g_free(left);
    g_free(made);
    g_free(read);
    return floor;
}

void training_account(const TrainingRoles *r, const AliasMap *m, const Trace *t, TrainingSummary *out)
{
    memset(out, 0, sizeof *out);
    out->present = TRUE;
    guint n = trace_count(t);
    TrainingRole *role = g_new(TrainingRole, n);
    gboolean *output = g_new0(gboolean, n);
    GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint b = 0; b < n; b++) {
        role[b] = TRAINING_TRANSIENT;
        g_hash_table_insert(by_name, trace_buffer(t, b)->name, GUINT_TO_POINTER(b + 1));
    }
    guint *buffer = buffers_of(m, by_name);
    for (guint k = 0; k < m->g->tensors->len; k++) {
        guint b = buffer[k];
        if (b && k < r->n_tensors && r->role[k] < role[b - 1])
            role[b - 1] = r->role[k];
        if (b && ((const Tensor *)m->g->tensors->pdata[k])->is_graph_output)
            output[b - 1] = TRUE;
    }
    guint64 work = CUT_WORK;
    out->floor = loss_cut(m->g, t, buffer, r->loss, &work);
    out->step_floor = step_floor(m->g, t, buffer, out->floor, &work);
    g_free(buffer);
    /* the peak step: a sweep of births and deaths */
    gint64 *delta = g_new0(gint64, t->steps + 2);
    for (guint b = 0; b < n; b++) {
        const TraceBuffer *x = trace_buffer(t, b);
        delta[MIN(x->first, t->steps)] += (gint64)x->size;
        delta[MIN(x->last, t->steps) + 1] -= (gint64)x->size;
    }
    gint64 live = 0, most = -1;
    for (guint s = 0; s <= t->steps; s++) {
        live += delta[s];
        if (live > most) {
            most = live;
            out->peak_step = s;
        }
    }
    for (guint b = 0; b < n; b++) {
        const TraceBuffer *x = trace_buffer(t, b);
        out->buffers[role[b]]++;
        out->bytes[role[b]] += x->size;
        if (x->first <= out->peak_step && out->peak_step <= x->last)
            out->at_peak[role[b]] += x->size;
        out->end_floor += output[b] ? x->size : 0;
    }
    g_free(output);
    g_free(delta);
    g_hash_table_unref(by_name);
    g_free(role);
}
