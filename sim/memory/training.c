/* training.c — a training step's memory by role (training.h). */
#include "memory/training.h"

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
    g_free(r->at_loss);
    g_free(r);
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
    /* the forward (what the loss depends on) and the backward (what depends on the loss) */
    const Tensor *lt = g_hash_table_lookup(g->by_name, loss);
    gboolean *forward = g_new0(gboolean, g->nodes->len), *backward = g_new0(gboolean, g->nodes->len);
    GPtrArray *stack = g_ptr_array_new();
    if (lt->producer) {
        forward[lt->producer->index] = TRUE;
        g_ptr_array_add(stack, lt->producer);
    }
    while (stack->len) {
        const Node *n = g_ptr_array_steal_index_fast(stack, stack->len - 1);
        for (guint k = 0; k < n->inputs->len; k++) {
            const Tensor *in = node_input(n, k);
            if (in && in->producer && !forward[in->producer->index]) {
                forward[in->producer->index] = TRUE;
                g_ptr_array_add(stack, in->producer);
            }
        }
    }
    /* the backward starts from the loss's value: the loss tensor, or what an Identity of it (the exporter's
     * named output) copies */
    for (const Tensor *v = lt; v; v = v->producer && !strcmp(v->producer->op_type, "Identity") &&
                                      v->producer->inputs->len == 1 ? node_input(v->producer, 0) : NULL)
        for (guint c = 0; v->consumers && c < v->consumers->len; c++)
            if (!forward[((const Node *)v->consumers->pdata[c])->index])
                g_ptr_array_add(stack, v->consumers->pdata[c]);
    while (stack->len) {
        const Node *n = g_ptr_array_steal_index_fast(stack, stack->len - 1);
        if (backward[n->index])
            continue;
        backward[n->index] = TRUE;
        for (guint k = 0; k < n->outputs->len; k++) {
            const Tensor *made = n->outputs->pdata[k];
            for (guint c = 0; made && made->consumers && c < made->consumers->len; c++)
                g_ptr_array_add(stack, made->consumers->pdata[c]);
        }
    }
    /* saved activations: made by the forward, read by the backward; live at the loss with the state and the batch
     * the backward reads. A tensor may reach the backward through Identities of neither part (torch's detach of a
     * saved output, read again by the backward through a second detach): each may run before the loss or after,
     * but one of the copies, all of its size, is live at the loss either way. Marked in reverse topological order,
     * so an Identity's output is settled before its input. */
    gboolean *read_after = g_new0(gboolean, r->n_tensors);
    for (guint k = 0; k < r->n_tensors; k++) {
        const Tensor *t = g->tensors->pdata[k];
        for (guint c = 0; t->consumers && c < t->consumers->len; c++)
            read_after[k] = read_after[k] || backward[((const Node *)t->consumers->pdata[c])->index];
    }
    for (guint k = g->order->len; k-- > 0;) {
        const Node *n = g->order->pdata[k];
        const Tensor *in = n->inputs->len == 1 ? node_input(n, 0) : NULL;
        if (in && !forward[n->index] && !backward[n->index] && !strcmp(n->op_type, "Identity") &&
            n->outputs->len == 1 && n->outputs->pdata[0])
            read_after[in->id] = read_after[in->id] || read_after[((const Tensor *)n->outputs->pdata[0])->id];
    }
    r->at_loss = g_new0(gboolean, r->n_tensors);
    for (guint k = 0; ok && k < r->n_tensors; k++) {
        const Tensor *t = g->tensors->pdata[k];
        gboolean made_before = t->producer ? forward[t->producer->index] : t->is_graph_input;
        if (r->role[k] == TRAINING_TRANSIENT && t->producer && made_before && read_after[k])
            r->role[k] = TRAINING_SAVED;
        r->at_loss[k] = t == lt || (made_before && read_after[k]) ||
                        (r->role[k] < TRAINING_BATCH && t->is_graph_input && t->is_graph_output);
    }
    g_ptr_array_unref(stack);
    g_free(read_after);
    g_free(forward);
    g_free(backward);
    g_free(named);
    if (!ok) {
        training_roles_free(r);
        return FALSE;
    }
    *out = r;
    return TRUE;
}

void training_account(const TrainingRoles *r, const AliasMap *m, const Trace *t, TrainingSummary *out)
{
    memset(out, 0, sizeof *out);
    out->present = TRUE;
    guint n = trace_count(t);
    TrainingRole *role = g_new(TrainingRole, n);
    gboolean *at_loss = g_new0(gboolean, n);
    GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint b = 0; b < n; b++) {
        role[b] = TRAINING_TRANSIENT;
        g_hash_table_insert(by_name, trace_buffer(t, b)->name, GUINT_TO_POINTER(b + 1));
    }
    for (guint k = 0; k < r->n_tensors && k < m->g->tensors->len; k++) {
        if (r->role[k] == TRAINING_TRANSIENT && !r->at_loss[k])
            continue;
        gint root = alias_root(m, (gint)k, NULL);
        if (root < 0)
            continue;
        guint b = GPOINTER_TO_UINT(g_hash_table_lookup(by_name, ((const Tensor *)m->g->tensors->pdata[root])->name));
        if (b && r->role[k] < role[b - 1])
            role[b - 1] = r->role[k];
        if (b && r->at_loss[k])
            at_loss[b - 1] = TRUE;
    }
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
        out->floor += at_loss[b] ? x->size : 0;
    }
    g_free(at_loss);
    g_free(delta);
    g_hash_table_unref(by_name);
    g_free(role);
}
