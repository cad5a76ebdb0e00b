/* ops-control.c — If, Loop and Scan. An If whose condition is known before running (a constant, or shape
 * arithmetic folded at plan time) is replaced by the branch it takes (infer_fold_if), and a Loop whose trip
 * count is known and whose body never stops by itself is unrolled (infer_fold_loop): their nodes are then
 * planned and run like any others. Otherwise the bodies are kept in the graph model, and planning treats
 * such a node as one compute op: its output shapes come from the file (value_info or graph output
 * types, with symbolic dims bound), or for If from the then-branch's declared outputs. */
#include "ops/ops-families.h"

#include <string.h>

static gboolean static_type(const TypeInfo *t)
{
    if (!t || t->rank < 0 || t->dtype == DT_UNDEFINED)
        return FALSE;
    for (int k = 0; k < t->rank; k++)
        if (t->dims[k] < 0)
            return FALSE;
    return TRUE;
}

gboolean infer_control(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)cx;
    (void)op;
    (void)opset;
    const Attr *then_branch = node_attr(n, "then_branch");
    for (guint k = 0; k < n->outputs->len; k++) {
        Tensor *t = n->outputs->pdata[k];
        if (!t)
            continue;
        const TypeInfo *type = t->declared;
        if (type && type->sequence)
            return infer_fail(error, n, "output '%s' is a sequence, and this %s is not decided before running: a "
                              "sequence is planned when its elements are known at plan time (an If's condition, a "
                              "Loop's trip count)", t->name, n->op_type);
        if (!static_type(type) && then_branch && then_branch->g && k < then_branch->g->outputs->len)
            type = ((Tensor *)then_branch->g->outputs->pdata[k])->declared;
        if (!static_type(type))
            return infer_fail(error, n, "output '%s' needs a static shape in value_info (subgraph ops are "
                              "planned as one compute op and their shapes are not inferred)", t->name);
        if (!infer_set_output(n, k, type->dtype, type->rank, type->dims, error))
            return FALSE;
    }
    return TRUE;
}

char *infer_fold_prefix(const Node *n)
{
    return *n->name ? g_strdup(n->name) : g_strdup_printf("#%d", n->index);
}

Tensor *infer_add_ints(Graph *g, const char *prefix, const char *name, DType dtype, int rank, const gint64 *v,
                       guint count, GError **error)
{
    char *unique = graph_unique_name(g, prefix, name);
    TensorData *d = tensor_data_new(unique, dtype, rank, (const gint64[]){count});
    g_free(unique);
    gsize size = dtype_size(dtype);
    guint8 *bytes = g_malloc0(MAX(count, 1) * size);
    for (guint k = 0; k < count; k++) {
        if (dtype == DT_BOOL)
            bytes[k] = v[k] != 0;
        else
            memcpy(bytes + k * size, &v[k], size); /* INT64 */
    }
    d->raw = g_bytes_new_take(bytes, count * size);
    Tensor *t = graph_tensor_get_or_add(g, d->name);
    if (!graph_add_initializer(g, d, error))
        return NULL;
    t->kind = TENSOR_WEIGHT;
    return t;
}

static Tensor *add_int_constant(Graph *g, const char *prefix, const char *name, DType dtype, int rank, gint64 v,
                                GError **error)
{
    return infer_add_ints(g, prefix, name, dtype, rank, &v, 1, error);
}

/* Nodes [from, to) of g run only when `guard` is `when` (those that have no guard of their own yet); the
 * guard becomes an implicit input of each, so that it is computed first and kept until they run. */
static void guard_nodes(Graph *g, guint from, guint to, Tensor *guard, gboolean when)
{
    for (guint k = from; guard && k < to; k++) {
        Node *m = g->nodes->pdata[k];
        if (m->guard)
            continue;
        m->guard = guard;
        m->guard_when = when;
        if (!g_ptr_array_find(m->implicit_inputs, guard, NULL))
            g_ptr_array_add(m->implicit_inputs, guard);
        if (!g_ptr_array_find(guard->consumers, m, NULL))
            g_ptr_array_add(guard->consumers, m);
    }
}

/* An If whose condition only running decides: both branches are inlined, each one's nodes guarded by the
 * condition (the executor skips the branch not taken), and an IfSelect node (sim's own op) gives the If's
 * outputs from the branch taken. The plan holds both branches (an upper bound); the outputs are planned at
 * the larger of the two. */
static gboolean fold_if_both(Graph *g, Node *n, Tensor *cond, GError **error)
{
    const Attr *branch[2] = {node_attr(n, "then_branch"), node_attr(n, "else_branch")};
    guint count = n->outputs->len;
    for (int b = 0; b < 2; b++) {
        if (!branch[b] || !branch[b]->g)
            return infer_fail(error, n, "attribute '%s' is not a graph", b ? "else_branch" : "then_branch");
        if (branch[b]->g->outputs->len != count)
            return infer_fail(error, n, "%s has %u outputs for the If's %u", b ? "else_branch" : "then_branch",
                              branch[b]->g->outputs->len, count);
    }
    Tensor **outs = g_new0(Tensor *, 2 * count + 1);
    char *prefix = infer_fold_prefix(n);
    guint first_new = g->nodes->len;
    Tensor *outer_guard = n->guard;
    gboolean outer_when = n->guard_when;
    graph_detach_node(n);
    gboolean ok = TRUE;
    for (int b = 0; ok && b < 2; b++) {
        char *side = g_strdup_printf("%s/%s", prefix, b ? "else" : "then");
        guint from = g->nodes->len;
        ok = graph_add_subgraph(g, branch[b]->g, side, NULL, outs + b * count, TRUE, NULL, error);
        guard_nodes(g, from, g->nodes->len, cond, b == 0);
        g_free(side);
    }
    if (ok) {
        const char **in = g_new0(const char *, 2 * count + 2), **out = g_new0(const char *, count + 1);
        in[0] = cond->name;
        for (guint k = 0; k < 2 * count; k++)
            in[1 + k] = outs[k]->name;
        for (guint k = 0; k < count; k++)
            out[k] = node_output(n, k) ? node_output(n, k)->name : "";
        char *name = graph_unique_name(g, prefix, "IfSelect");
        guint at = g->nodes->len;
        ok = graph_add_node(g, "IfSelect", SIM_OP_DOMAIN, name, in, (int)(2 * count + 1), out, (int)count, NULL,
                            error) != NULL;
        g_free(name);
        g_free(in);
        g_free(out);
        guard_nodes(g, first_new, ok ? at + 1 : g->nodes->len, outer_guard, outer_when); /* a branch inside a branch */
    }
    if (ok)
        graph_replace_node(g, n, first_new);
    g_free(outs);
    g_free(prefix);
    return ok;
}

gboolean infer_fold_if(InferCtx *cx, Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)cx;
    (void)opset;
    *folded = FALSE;
    const Tensor *cond = node_input(n, 0);
    if (!g || g->parent || !cond)
        return TRUE;
    gboolean decided = cond->value && cond->value->n == 1;
    gboolean truth = decided && value_get_f(cond->value, 0) != 0;
    for (int p = 0; decided && cond->dynamic && p < 2; p++) /* from data-dependent sizes: decided if it does not follow them */
        decided = cond->probe[p] && cond->probe[p]->n == 1 && (value_get_f(cond->probe[p], 0) != 0) == truth;
    if (!decided) { /* only running decides (a data-dependent size, or a value of the inputs): both branches */
        *folded = fold_if_both(g, n, (Tensor *)cond, error);
        return *folded;
    }
    if (cond->dynamic)
        ((Tensor *)cond)->folded_on = truth ? 2 : 1; /* the executor checks it held */
    Tensor *outer_guard = n->guard;
    gboolean outer_when = n->guard_when;
    const char *taken = truth ? "then_branch" : "else_branch";
    const Attr *branch = node_attr(n, taken);
    if (!branch || !branch->g)
        return infer_fail(error, n, "attribute '%s' is not a graph", taken);
    if (branch->g->outputs->len != n->outputs->len)
        return infer_fail(error, n, "%s has %u outputs for the If's %u", taken, branch->g->outputs->len, n->outputs->len);
    Tensor **outputs = g_new0(Tensor *, n->outputs->len);
    memcpy(outputs, n->outputs->pdata, n->outputs->len * sizeof(Tensor *));
    char *prefix = infer_fold_prefix(n);
    guint first_new = g->nodes->len;
    graph_detach_node(n);
    gboolean ok = graph_add_subgraph(g, branch->g, prefix, NULL, outputs, TRUE, NULL, error);
    guard_nodes(g, first_new, g->nodes->len, outer_guard, outer_when); /* inside a guarded branch: the same guard */
    if (ok)
        graph_replace_node(g, n, first_new);
    g_free(outputs);
    g_free(prefix);
    *folded = ok;
    return ok;
}

/* Whether node m is the IfSelect that merges the branches guarded by `cond` (fold_if_both): its input 0. */
static gboolean merges(const Node *m, const Tensor *cond)
{
    return m->op_type && !strcmp(m->op_type, "IfSelect") && m->domain && !strcmp(m->domain, SIM_OP_DOMAIN) &&
           node_input(m, 0) == cond && m->inputs->len == 2 * m->outputs->len + 1;
}

gboolean infer_drop_failed_branch(Graph *g, Node *n, const GError *why, guint *restart)
{
    Tensor *cond = n->guard;
    if (!cond || g->parent)
        return FALSE;
    gboolean when = n->guard_when;
    /* The branch: the nodes guarded as n is, and every node fed by them (the branches nested in it: their nodes
     * read its tensors, their guards are its tensors), up to the IfSelect that merges it */
    GHashTable *dead = g_hash_table_new(NULL, NULL);
    GPtrArray *todo = g_ptr_array_new(), *mergers = g_ptr_array_new();
    for (guint k = 0; k < g->nodes->len; k++) {
        Node *m = g->nodes->pdata[k];
        if (m->guard == cond && m->guard_when == when && !merges(m, cond)) {
            g_hash_table_add(dead, m);
            g_ptr_array_add(todo, m);
        }
    }
    gboolean clean = TRUE;
    while (clean && todo->len) {
        Node *m = g_ptr_array_steal_index_fast(todo, todo->len - 1);
        for (guint o = 0; clean && o < m->outputs->len; o++) {
            const Tensor *t = node_output(m, o);
            if (!t)
                continue;
            clean = !t->is_graph_output;
            for (guint c = 0; clean && c < t->consumers->len; c++) {
                Node *r = t->consumers->pdata[c];
                if (merges(r, cond)) {
                    if (!g_ptr_array_find(mergers, r, NULL))
                        g_ptr_array_add(mergers, r);
                } else if (!g_hash_table_contains(dead, r)) {
                    g_hash_table_add(dead, r);
                    g_ptr_array_add(todo, r);
                }
            }
        }
    }
    /* The IfSelect must take the other side from outside the branch, and not have lost that side already (both
     * branches failing: the second failure is the error) */
    for (guint k = 0; clean && k < mergers->len; k++) {
        const Node *m = mergers->pdata[k];
        guint count = m->outputs->len;
        clean = !node_attr(m, "never");
        for (guint j = 0; clean && j < count; j++) {
            const Tensor *live = node_input(m, 1 + (when ? count : 0) + j);
            clean = live && (!live->producer || !g_hash_table_contains(dead, live->producer));
        }
    }
    clean = clean && mergers->len > 0;
    if (clean) {
        for (guint k = 0; k < mergers->len; k++) {
            Node *m = mergers->pdata[k];
            guint count = m->outputs->len;
            for (guint j = 0; j < count; j++) { /* the branch's side: no input */
                guint slot = 1 + (when ? 0 : count) + j;
                Tensor *t = m->inputs->pdata[slot];
                m->inputs->pdata[slot] = NULL;
                gboolean still = FALSE; /* (a tensor read at another slot too stays a consumer's input) */
                for (guint i = 0; t && i < m->inputs->len; i++)
                    still = still || m->inputs->pdata[i] == t;
                if (t && !still)
                    g_ptr_array_remove(t->consumers, m);
            }
            g_ptr_array_add(m->attrs, attr_new_int("never", when ? 1 : 2));
            g_ptr_array_add(m->attrs, attr_new_string("never_why", why ? why->message : "its inference failed"));
        }
        GHashTable *with = g_hash_table_new(NULL, NULL);
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, dead);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
            graph_detach_node(key);
            g_hash_table_insert(with, key, NULL);
        }
        *restart = g->order->len;
        for (guint k = 0; k < g->order->len; k++)
            if (g_hash_table_contains(dead, g->order->pdata[k])) {
                *restart = k;
                break;
            }
        graph_replace_nodes(g, with, NULL, g->nodes->len);
        g_hash_table_unref(with);
    }
    g_hash_table_unref(dead);
    g_ptr_array_unref(todo);
    g_ptr_array_unref(mergers);
    return clean;
}

/* ConcatComputed (sim's own op, made by infer_fold_loop for a trip count only running decides): its inputs, of one
 * shape, along axis 0 — planned as all of them, data-dependent: the kernel takes those computed this run. */
gboolean infer_concat_computed(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    Tensor *first, *x;
    if (!infer_input(n, 0, &first, error))
        return FALSE;
    if (first->rank < 1)
        return infer_fail(error, n, "input '%s' has rank 0", first->name);
    gint64 dims[MAX_RANK];
    memcpy(dims, first->dims, (gsize)first->rank * sizeof(gint64));
    dims[0] = 0;
    for (guint k = 0; k < n->inputs->len; k++) {
        if (!infer_input(n, k, &x, error))
            return FALSE;
        gboolean same = x->dtype == first->dtype && x->rank == first->rank;
        for (int d = 1; same && d < x->rank; d++)
            same = x->dims[d] == first->dims[d];
        if (!same)
            return infer_fail(error, n, "input '%s' does not match input '%s' in type or shape", x->name, first->name);
        if (__builtin_add_overflow(dims[0], x->dims[0], &dims[0]))
            return infer_fail(error, n, "its length overflows 64 bits");
    }
    dims[0] = infer_dynamic_dim(cx, n, 0, dims[0], 0,
                                "Loop: every iteration's scan output (its trip count is data-dependent)");
    return infer_set_output(n, 0, first->dtype, first->rank, dims, error);
}

/* IfSelect (sim's own op, made by fold_if_both): inputs the condition, then the then-branch's outputs, then the
 * else-branch's; output k is the taken branch's output k. Where the branches give it one shape it has that shape;
 * else it is planned at the larger of the two (same type and rank), data-dependent: the kernel sets the real
 * shape. Attribute `never` (1: then, 2: else; `never_why` the reason) names a branch planned as never taken, whose
 * inputs are absent. */
gboolean infer_if_select(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    guint count = n->outputs->len;
    if (n->inputs->len != 2 * count + 1)
        return infer_fail(error, n, "has %u inputs for %u outputs (a condition, then two per output)", n->inputs->len,
                          count);
    gint64 never;
    if (!node_attr_int(n, "never", 0, &never, error))
        return FALSE;
    for (guint k = 0; k < count; k++) {
        Tensor *a, *b;
        /* a branch planned as never taken (infer_drop_failed_branch) has no inputs here: the other's shape */
        if ((never != 1 && !infer_input(n, 1 + k, &a, error)) ||
            (never != 2 && !infer_input(n, 1 + count + k, &b, error)))
            return FALSE;
        if (never)
            a = b = never == 1 ? b : a;
        if (a->dtype != b->dtype || a->rank != b->rank)
            return infer_fail(error, n, "the branches give output %u as %s of rank %d and %s of rank %d (its plan needs "
                              "one type and rank)", k, dtype_name(a->dtype), a->rank, dtype_name(b->dtype), b->rank);
        gint64 dims[MAX_RANK];
        gboolean same = !a->dynamic && !b->dynamic;
        for (int d = 0; d < a->rank; d++) {
            dims[d] = MAX(a->dims[d], b->dims[d]);
            same = same && a->dims[d] == b->dims[d];
        }
        if (!same) { /* either branch's shape: planned at the larger, the kernel sets the real one */
            gint64 first = infer_dynamic_dim(cx, n, k, a->rank ? dims[0] : 1, 0,
                                             "If: the larger of its branches' outputs (its condition is decided when "
                                             "the model runs)");
            if (a->rank)
                dims[0] = first;
        }
        if (!infer_set_output(n, k, a->dtype, a->rank, dims, error))
            return FALSE;
    }
    return TRUE;
}

/* Whether a Loop body never stops by itself: its condition output is its condition input, a true
 * constant, or an Identity of either. */
static gboolean body_keeps_going(const Graph *body)
{
    const Tensor *t = body->outputs->pdata[0];
    while (t->producer && !strcmp(t->producer->op_type, "Identity") && node_input(t->producer, 0))
        t = node_input(t->producer, 0);
    if (t == body->inputs->pdata[1])
        return TRUE;
    if (t->outer)
        return t->outer->value && t->outer->value->n == 1 && value_get_f(t->outer->value, 0) != 0;
    if (t->init && !t->producer) {
        Value *v = tensor_data_value(t->init);
        gboolean yes = v && v->n == 1 && value_get_f(v, 0) != 0;
        value_free(v);
        return yes;
    }
    return FALSE;
}


/* A body's nodes, inputs and outputs together: what one trip adds. */
static guint64 body_slots(const Graph *body)
{
    guint64 slots = 0;
    for (guint k = 0; k < body->nodes->len; k++) {
        const Node *b = body->nodes->pdata[k];
        slots += 1 + b->inputs->len + b->outputs->len + b->implicit_inputs->len;
    }
    return MAX(slots, 1);
}

gboolean infer_fold_loop(InferCtx *cx, Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)
{
    (void)cx;
    *folded = FALSE;
    const Attr *body_attr = node_attr(n, "body");
    const Tensor *trip_t = node_input(n, 0), *cond = node_input(n, 1);
    if (!g || g->parent || !body_attr || !body_attr->g || !trip_t || !trip_t->value || trip_t->value->n != 1)
        return TRUE;
    /* A trip count only running decides (data-dependent): unrolled to its bound, each iteration guarded by
     * i < M, the carried values passed on through IfSelect, the scan outputs joined by ConcatComputed. */
    gboolean guarded = trip_t->dynamic;
    Graph *body = body_attr->g;
    /* M, cond (both optional, the trailing ones may be left out), then the carried values */
    guint carried = n->inputs->len > 2 ? n->inputs->len - 2 : 0;
    guint scans = n->outputs->len >= carried ? n->outputs->len - carried : 0;
    if (n->outputs->len < carried || body->inputs->len != 2 + carried || body->outputs->len != 1 + carried + scans)
        return infer_fail(error, n, "the body has %u inputs and %u outputs for the Loop's %u inputs and %u outputs",
                          body->inputs->len, body->outputs->len, n->inputs->len, n->outputs->len);
    gint64 trip = value_get_i(trip_t->value, 0);
    if (cond && (!cond->value || cond->dynamic || cond->value->n != 1))
        return TRUE; /* stops on a value only running knows */
    if (cond && value_get_f(cond->value, 0) == 0)
        trip = 0;
    for (guint k = 0; k < carried; k++)
        if (!node_input(n, 2 + k))
            return TRUE;
    guint64 adds;
    if (trip < 0 || !graph_size_mul((guint64)trip, body_slots(body), &adds))
        adds = G_MAXUINT64;
    if (adds > INFER_UNROLL_MAX_SLOTS - MIN(g->unrolled_nodes, INFER_UNROLL_MAX_SLOTS) ||
        (trip > 0 && !body_keeps_going(body)) || (trip == 0 && scans > 0) || !graph_subgraph_copyable(body))
        return TRUE;

    g->unrolled_nodes += adds;
    char *prefix = infer_fold_prefix(n);
    guint first_new = g->nodes->len;
    guint n_body_out = body->outputs->len;
    Tensor **inputs = g_new0(Tensor *, body->inputs->len), **outputs = g_new0(Tensor *, n_body_out);
    Tensor ***scan_parts = g_new0(Tensor **, scans ? scans : 1);
    for (guint k = 0; k < scans; k++)
        scan_parts[k] = g_new0(Tensor *, trip);
    Tensor *loop_cond = (Tensor *)cond;
    GHashTable *weights = g_hash_table_new(NULL, NULL); /* one copy of each body initializer */
    for (guint k = 0; k < carried; k++)
        inputs[2 + k] = node_input(n, 2 + k);
    graph_detach_node(n);
    gboolean ok = loop_cond || (loop_cond = add_int_constant(g, prefix, "cond", DT_BOOL, 0, 1, error));
    Tensor **runs = g_new0(Tensor *, trip + 1); /* guarded: iteration i's guard, i < M */
    for (gint64 i = 0; ok && i < trip; i++) {
        char *iteration = g_strdup_printf("%s/%" G_GINT64_FORMAT, prefix, i);
        inputs[0] = add_int_constant(g, iteration, "iter", DT_INT64, 0, i, error);
        inputs[1] = loop_cond;
        ok = inputs[0] != NULL;
        if (ok && guarded) {
            char *name = graph_unique_name(g, iteration, "runs");
            const char *in[] = {inputs[0]->name, trip_t->name};
            ok = graph_add_node(g, "Less", "", name, in, 2, (const char *const *)&name, 1, NULL, error) != NULL;
            runs[i] = ok ? graph_tensor(g, name) : NULL;
            g_free(name);
        }
        memset(outputs, 0, n_body_out * sizeof(Tensor *));
        for (guint k = 0; !guarded && i == trip - 1 && k < carried; k++)
            outputs[1 + k] = node_output(n, k);
        guint body_first = g->nodes->len;
        ok = ok && graph_add_subgraph(g, body, iteration, inputs, outputs, FALSE, weights, error);
        guard_nodes(g, body_first, g->nodes->len, runs[i], TRUE);
        for (guint k = 0; ok && k < carried; k++) {
            if (!guarded) {
                inputs[2 + k] = outputs[1 + k];
                continue;
            }
            /* what the next iteration reads: this one's value if it ran, else what this one read */
            Tensor *last = i == trip - 1 ? node_output(n, k) : NULL;
            char *name = last ? g_strdup(last->name) : graph_unique_name(g, iteration, "carried");
            char *select = graph_unique_name(g, iteration, "IfSelect");
            const char *in[] = {runs[i]->name, outputs[1 + k]->name, inputs[2 + k]->name};
            ok = graph_add_node(g, "IfSelect", SIM_OP_DOMAIN, select, in, 3, (const char *const *)&name, 1, NULL,
                                error) != NULL;
            inputs[2 + k] = ok ? graph_tensor(g, name) : NULL;
            g_free(name);
            g_free(select);
        }
        for (guint k = 0; ok && k < scans; k++)
            scan_parts[k][i] = outputs[1 + carried + k];
        g_free(iteration);
    }
    /* No iteration: the carried values come out as they went in. */
    for (guint k = 0; ok && trip == 0 && k < carried; k++) {
        Tensor *out = node_output(n, k);
        char *name = graph_unique_name(g, prefix, "Identity");
        ok = !out || graph_add_node(g, "Identity", "", name, (const char *const *)&inputs[2 + k]->name, 1,
                                    (const char *const *)&out->name, 1, NULL, error);
        g_free(name);
    }
    /* Each scan output: the iterations' values stacked on a new first axis. */
    Tensor *axes = ok && scans && opset >= 13 ? add_int_constant(g, prefix, "axes", DT_INT64, 1, 0, error) : NULL;
    ok = ok && (!scans || opset < 13 || axes);
    for (guint k = 0; ok && k < scans; k++) {
        Tensor *out = node_output(n, carried + k);
        if (!out)
            continue;
        GPtrArray *parts = g_ptr_array_new_with_free_func(g_free);
        for (gint64 i = 0; ok && i < trip; i++) {
            char *iteration = g_strdup_printf("%s/%" G_GINT64_FORMAT, prefix, i);
            char *name = graph_unique_name(g, iteration, "unsqueezed");
            g_free(iteration);
            const char *in[] = {scan_parts[k][i]->name, axes ? axes->name : NULL};
            GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
            if (!axes)
                g_ptr_array_add(attrs, attr_new_ints("axes", (const gint64[]){0}, 1));
            guint at = g->nodes->len;
            ok = graph_add_node(g, "Unsqueeze", "", name, in, axes ? 2 : 1, (const char *const *)&name, 1, attrs,
                                error) != NULL;
            guard_nodes(g, at, g->nodes->len, runs[i], TRUE);
            g_ptr_array_add(parts, name);
        }
        if (ok) {
            GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
            if (!guarded)
                g_ptr_array_add(attrs, attr_new_int("axis", 0));
            char *name = graph_unique_name(g, prefix, guarded ? "ConcatComputed" : "Concat");
            ok = graph_add_node(g, guarded ? "ConcatComputed" : "Concat", guarded ? SIM_OP_DOMAIN : "", name,
                                (const char *const *)parts->pdata, (int)parts->len, (const char *const *)&out->name, 1,
                                attrs, error) != NULL;
            g_free(name);
        }
        g_ptr_array_unref(parts);
    }
    guard_nodes(g, first_new, g->nodes->len, n->guard, n->guard_when); /* unrolled inside a guarded branch */
    if (ok)
        graph_replace_node(g, n, first_new);
    for (guint k = 0; k < scans; k++)
        g_free(scan_parts[k]);
    g_free(scan_parts);
    g_free(runs);
    g_hash_table_unref(weights);
    g_free(inputs);
    g_free(outputs);
    g_free(prefix);
    *folded = ok;
    return ok;
}
