/* layout.c — the channel-blocked tensors (layout.h): every tensor that may be blocked starts blocked, and each
 * step whose kernel does not take its tensors as they stand makes all of them plain, which puts the steps on
 * either side back in question; each tensor turns plain at most once. */
#include "exec/layout.h"

#include "exec/kernel-table.h"

#include <string.h>

gboolean exec_tensor_bound(const Tensor *t)
{
    return t && t->shape_known && (t->producer || t->is_graph_input || t->init);
}

/* The tensors that may lie blocked: a float (32- or 16-bit) or 8-bit activation of images (rank 4) whose
 * channels make whole blocks, read by some step and neither given nor returned. A 16-bit float's steps run on
 * float32 copies of it (exec-run.c's run_widened), converted element by element, so the copies lie as it does.
 * Not video (rank 5): oneDNN 2.6's blocked 3-D convolutions are slower than the channel-last ones it picks
 * between reorders (results/history.md). */
static gboolean may_block(const Tensor *t, const ExecTensor *x)
{
    gboolean typed = x->dtype == DT_FLOAT || kernel_is_16bit_float(x->dtype) || x->dtype == DT_UINT8 ||
                     x->dtype == DT_INT8;
    return t->producer && !t->is_graph_output && !t->dynamic && !t->init && t->consumers->len && x->data && typed &&
           x->rank == 4 && x->dims[1] > 0 && x->dims[1] % 16 == 0;
}

static gboolean takes_blocked(const Node *n)
{
    const KernelRow *row = kernel_row(n->op);
    return row && row->layout != KERNEL_LAYOUT_PLAIN;
}

/* The tensor a step's kernel sees: the executor's, or for a 16-bit float one (its step runs widened) a float32
 * view of it in `views` (which holds a slot for each of the step's tensors). */
static ExecTensor *seen(ExecTensor *t, ExecTensor *views, guint k)
{
    if (!kernel_is_16bit_float(t->dtype))
        return t;
    views[k] = *t;
    views[k].dtype = DT_FLOAT;
    return &views[k];
}

/* Step n's call on the executor's tensors as its kernel sees them (in and out hold the pointers; views the
 * float32 views of 16-bit floats). */
static KernelCall call_of(const Node *n, gint64 opset, ExecTensor *tensors, GPtrArray *in, GPtrArray *out,
                          GArray *views)
{
    g_ptr_array_set_size(in, 0);
    g_ptr_array_set_size(out, 0);
    g_array_set_size(views, n->inputs->len + n->outputs->len);
    ExecTensor *view = (ExecTensor *)(void *)views->data;
    for (guint k = 0; k < n->inputs->len; k++) {
        const Tensor *x = node_input(n, k);
        g_ptr_array_add(in, exec_tensor_bound(x) ? seen(&tensors[x->id], view, k) : NULL);
    }
    for (guint k = 0; k < n->outputs->len; k++) {
        const Tensor *y = node_output(n, k);
        g_ptr_array_add(out, exec_tensor_bound(y) ? seen(&tensors[y->id], view, n->inputs->len + k) : NULL);
    }
    return (KernelCall){.node = n, .row = kernel_row(n->op), .opset = opset, .n_in = in->len, .n_out = out->len,
                        .in = (ExecTensor *const *)in->pdata, .out = (ExecTensor *const *)out->pdata};
}

/* Whether the step's kernel takes its tensors in their layouts as they stand. */
static gboolean accepts(const KernelCall *c)
{
    gboolean any = FALSE;
    for (guint k = 0; k < c->n_in; k++)
        any = any || (c->in[k] && c->in[k]->blocked);
    for (guint k = 0; k < c->n_out; k++)
        any = any || (c->out[k] && c->out[k]->blocked);
    if (!any)
        return TRUE;
    const ExecTensor *y = kernel_out(c, 0);
    if (!c->row || !y)
        return FALSE;
    for (guint k = 1; k < c->n_out; k++)
        if (c->out[k] && c->out[k]->blocked)
            return FALSE;
    gint64 axis;
    switch (c->row->layout) {
    case KERNEL_LAYOUT_ELEMENTWISE:
        for (guint k = 0; k < c->n_in; k++) {
            const ExecTensor *x = c->in[k];
            gboolean per_channel = x && y->blocked && c->n_in == 2 && kernel_per_channel(x, y) &&
                                   (c->row->arith == ARITH_ADD || c->row->arith == ARITH_SUB ||
                                    c->row->arith == ARITH_MUL || c->row->arith == ARITH_DIV);
            if (x && !per_channel && !(x->count == 1 && !x->blocked) &&
                (x->blocked != y->blocked || x->rank != y->rank ||
                 memcmp(x->dims, y->dims, sizeof(gint64) * (gsize)y->rank) != 0))
                return FALSE;
        }
        return TRUE;
    case KERNEL_LAYOUT_CONCAT:
        if (!node_attr_int(c->node, "axis", 0, &axis, NULL) || kernel_axis(axis, y->rank) != 1 || y->dims[0] != 1)
            return FALSE;
        for (guint k = 0; k < c->n_in; k++)
            if (c->in[k] && c->in[k]->blocked != y->blocked)
                return FALSE;
        return TRUE;
    case KERNEL_LAYOUT_LIBRARY:
        return c->row->library_blocks && c->row->library_blocks(c);
    case KERNEL_LAYOUT_PLAIN:
    default:
        return FALSE;
    }
}

static void push(GQueue *queue, gboolean *queued, guint step)
{
    if (!queued[step]) {
        queued[step] = TRUE;
        g_queue_push_tail(queue, GUINT_TO_POINTER(step));
    }
}

guint layout_choose(const GPtrArray *schedule, gint64 opset, const Graph *g, ExecTensor *tensors,
                    const gboolean *plain_step)
{
    guint steps = schedule->len, n = g->tensors->len;
    GHashTable *step_of = g_hash_table_new(NULL, NULL); /* Node* -> its step + 1 */
    gboolean *kept_plain = g_new0(gboolean, n + 1);     /* per tensor id */
    for (guint s = 0; s < steps; s++) {
        const Node *node = schedule->pdata[s];
        g_hash_table_insert(step_of, (gpointer)node, GUINT_TO_POINTER(s + 1));
        for (guint k = 0; k < node->implicit_inputs->len; k++) /* read by a subgraph's steps */
            kept_plain[((const Tensor *)node->implicit_inputs->pdata[k])->id] = TRUE;
        for (guint k = 0; plain_step[s] && k < node->inputs->len + node->outputs->len; k++) {
            const Tensor *t = k < node->inputs->len ? node_input(node, k) : node_output(node, k - node->inputs->len);
            if (t)
                kept_plain[t->id] = TRUE;
        }
    }
    for (guint id = 0; id < n; id++) {
        const Tensor *t = g->tensors->pdata[id];
        ExecTensor *x = &tensors[id];
        x->blocked = !kept_plain[id] && exec_tensor_bound(t) && may_block(t, x) && takes_blocked(t->producer) &&
                     g_hash_table_contains(step_of, t->producer);
        for (guint k = 0; x->blocked && k < t->consumers->len; k++) {
            const Node *reader = t->consumers->pdata[k];
            x->blocked = takes_blocked(reader) && g_hash_table_contains(step_of, reader);
        }
    }
    GQueue queue = G_QUEUE_INIT;
    gboolean *queued = g_new0(gboolean, steps + 1);
    for (guint s = 0; s < steps; s++)
        push(&queue, queued, s);
    GPtrArray *in = g_ptr_array_new(), *out = g_ptr_array_new();
    GArray *views = g_array_new(FALSE, TRUE, sizeof(ExecTensor));
    while (!g_queue_is_empty(&queue)) {
        guint s = GPOINTER_TO_UINT(g_queue_pop_head(&queue));
        queued[s] = FALSE;
        const Node *node = schedule->pdata[s];
        KernelCall c = call_of(node, opset, tensors, in, out, views);
        if (accepts(&c))
            continue;
        for (guint k = 0; k < node->inputs->len + node->outputs->len; k++) {
            const Tensor *t = k < node->inputs->len ? node_input(node, k) : node_output(node, k - node->inputs->len);
            if (!t || !tensors[t->id].blocked)
                continue;
            tensors[t->id].blocked = FALSE; /* its writer and readers are asked again */
            push(&queue, queued, GPOINTER_TO_UINT(g_hash_table_lookup(step_of, t->producer)) - 1);
            for (guint r = 0; r < t->consumers->len; r++)
                push(&queue, queued, GPOINTER_TO_UINT(g_hash_table_lookup(step_of, t->consumers->pdata[r])) - 1);
        }
    }
    guint blocked = 0;
    for (guint id = 0; id < n; id++)
        blocked += tensors[id].blocked;
    g_ptr_array_unref(in);
    g_ptr_array_unref(out);
    g_array_unref(views);
    g_free(queued);
    g_free(kept_plain);
    g_hash_table_destroy(step_of);
    return blocked;
}
