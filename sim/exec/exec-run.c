/* exec-run.c — a run (see exec.h): the schedule's steps in order, each timed, with run-time shapes where the
 * sizes are data-dependent, guarded branches skipped, 16-bit steps on float32 copies, folded outputs written,
 * and dying buffers poisoned on request. */
#include "exec/exec-internal.h"
#include "exec/kernel-table.h"
#include "exec/layout.h"
#include "ops/ops.h"
#include "ops/shape.h"

#include <math.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Folded outputs (plan-time values) of a node without a kernel. */
static void write_folded(Executor *e, const Node *n)
{
    for (guint k = 0; k < n->outputs->len; k++) {
        const Tensor *y = node_output(n, k);
        if (!y || !y->value || !e->tensors[y->id].data)
            continue;
        ExecTensor *x = &e->tensors[y->id];
        for (gsize j = 0; j < x->count && j < y->value->n; j++) {
            if (dtype_is_float(y->value->dtype))
                kernel_elem_set_f(x, j, value_get_f(y->value, j));
            else
                kernel_elem_set_i(x, j, value_get_i(y->value, j));
        }
    }
}

static void poison_buffer(Executor *e, guint b)
{
    const TraceBuffer *buf = trace_buffer(e->t, b);
    memset(e->arena[buf->bin] + e->plan->offsets[b], 0xFF, buf->size);
}

/* The kernels compute in float32. A node with FLOAT16 or BFLOAT16 tensors (a half-precision export) runs on
 * float32 copies of them (exact), and each such output is rounded back to its type (to nearest even) into
 * its planned bytes after the call, as ONNX Runtime's CPU provider does for ops without half kernels (it casts
 * around them, and folds the casts of weights when its session starts): a weight's copy is made once, at its
 * first use, and kept (e->wide_weights); the others lie in one scratch kept from step to step; the copies convert
 * whole arrays (kernel_16bit_to_float), and the step
 * may run on its library kernel, which packs a constant weight once as it does for float32. */
static gboolean run_widened(Executor *e, const KernelCall *call, gboolean library, GError **error)
{
    guint n = call->n_in + call->n_out;
    ExecTensor *wide = g_new0(ExecTensor, n + 1), **slots = g_new0(ExecTensor *, n + 1);
    gsize need = 0; /* the copies that are not weights': in e->wide_scratch, kept from step to step (no page faults) */
    for (guint k = 0; k < n; k++) {
        ExecTensor *t = k < call->n_in ? call->in[k] : call->out[k - call->n_in];
        const Tensor *x = k < call->n_in ? node_input(call->node, k) : NULL;
        if (is_16bit_float(t) && !(x && x->init))
            need += (t->count + 15) / 16 * 16;
    }
    if (need > e->wide_scratch_n) {
        g_free(e->wide_scratch);
        e->wide_scratch = g_new(float, need);
        e->wide_scratch_n = need;
    }
    float *next = e->wide_scratch;
    for (guint k = 0; k < n; k++) {
        ExecTensor *t = k < call->n_in ? call->in[k] : call->out[k - call->n_in];
        slots[k] = t;
        if (!is_16bit_float(t))
            continue;
        wide[k] = *t;
        wide[k].dtype = DT_FLOAT;
        slots[k] = &wide[k];
        const Tensor *x = k < call->n_in ? node_input(call->node, k) : NULL;
        if (x && x->init && t->count) { /* a weight: converted once, kept */
            if (!e->wide_weights[x->id]) {
                e->wide_weights[x->id] = g_new(float, t->count);
                kernel_16bit_to_float(t->dtype, t->data, e->wide_weights[x->id], t->count);
            }
            wide[k].data = e->wide_weights[x->id];
            continue;
        }
        wide[k].data = next;
        next += (t->count + 15) / 16 * 16;
        if (k < call->n_in)
            kernel_16bit_to_float(t->dtype, t->data, wide[k].data, t->count);
    }
    KernelCall widened = *call;
    widened.in = slots;
    widened.out = slots + call->n_in;
    gboolean ok = library ? call->row->library(&widened, error) : call->row->kernel(&widened, error);
    for (guint k = call->n_in; ok && k < n; k++)
        if (slots[k] == &wide[k])
            kernel_float_to_16bit(call->out[k - call->n_in]->dtype, wide[k].data, call->out[k - call->n_in]->data,
                                  wide[k].count);
    g_free(wide);
    g_free(slots);
    return ok;
}


/* Inputs of at most this many elements are handed to run-time inference with their contents. */
#define RUNTIME_VALUE_ELEMENTS 64

/* x's contents into the tensor's run-time value, kept in the executor (a step's inference read them into a new
 * Value, freed after, at every dynamic step of every run). */
static const Value *run_value(Executor *e, const Tensor *t, const ExecTensor *x)
{
    if (!e->run_values)
        e->run_values = g_new0(Value *, e->g->tensors->len + 1);
    Value *v = e->run_values[t->id];
    if (!v || v->n != x->count || v->dtype != x->dtype) {
        value_free(v);
        v = e->run_values[t->id] = value_new(x->dtype, x->count);
    }
    if (x->dtype == DT_FLOAT)
        for (gsize j = 0; j < x->count; j++)
            v->f[j] = ((const float *)x->data)[j];
    else if (x->dtype == DT_INT64)
        memcpy(v->i, x->data, x->count * sizeof(gint64));
    else
        for (gsize j = 0; j < x->count; j++) {
            if (dtype_is_float(x->dtype))
                value_set_f(v, j, kernel_elem_get_f(x, j));
            else
                value_set_i(v, j, kernel_elem_get_i(x, j));
        }
    return v;
}

static void memo_put(ShapeMemo *m, const void *bytes, gsize n)
{
    if (!n) /* (an empty value's array may be NULL) */
        return;
    if (m->next_len + n > m->next_size) {
        m->next_size = MAX(2 * m->next_size, m->next_len + n);
        m->next = g_realloc(m->next, m->next_size);
    }
    memcpy(m->next + m->next_len, bytes, n);
    m->next_len += n;
}

/* shape_infer_runtime's output dims for n, unless the memo's last inference read the same: the same inputs' dims,
 * presence and contents (as the key holds them) give the same dims (see ShapeMemo). */
static gboolean memo_infer(ShapeMemo *m, const Node *n, gint64 opset, const gint64 *const *in_dims,
                           const Value *const *in_values, gint64 *const *out_dims, GError **error)
{
    m->next_len = 0;
    for (guint k = 0; k < n->inputs->len; k++) {
        const Tensor *t = node_input(n, k);
        const Value *v = in_values[k];
        guint8 tag = (guint8)((in_dims[k] != NULL) | (v != NULL) << 1);
        memo_put(m, &tag, 1);
        if (in_dims[k])
            memo_put(m, in_dims[k], (gsize)t->rank * sizeof(gint64));
        if (v) {
            memo_put(m, &v->dtype, sizeof v->dtype);
            memo_put(m, &v->n, sizeof v->n);
            memo_put(m, v->f ? (const void *)v->f : (const void *)v->i, v->n * sizeof(gint64));
        }
    }
    gsize outs = 0;
    for (guint k = 0; k < n->outputs->len; k++)
        outs += out_dims[k] ? (gsize)node_output(n, k)->rank : 0;
    if (m->valid && m->next_len == m->key_len && memcmp(m->next, m->key, m->key_len) == 0 && outs == m->out_len) {
        const gint64 *from = m->out;
        for (guint k = 0; k < n->outputs->len; k++)
            if (out_dims[k]) {
                memcpy(out_dims[k], from, (gsize)node_output(n, k)->rank * sizeof(gint64));
                from += node_output(n, k)->rank;
            }
        return TRUE;
    }
    m->valid = FALSE;
    if (!shape_infer_runtime(n, opset, in_dims, in_values, out_dims, error))
        return FALSE;
    guint8 *key = m->key; /* the new key becomes the memo's, its old buffer the next one's */
    gsize size = m->key_size;
    m->key = m->next;
    m->key_size = m->next_size;
    m->key_len = m->next_len;
    m->next = key;
    m->next_size = size;
    if (outs + 1 > m->out_size) { /* (one more: never NULL, even for outputs of rank 0 alone) */
        m->out = g_renew(gint64, m->out, outs + 1);
        m->out_size = outs + 1;
    }
    gint64 *to = m->out;
    for (guint k = 0; k < n->outputs->len; k++)
        if (out_dims[k]) {
            memcpy(to, out_dims[k], (gsize)node_output(n, k)->rank * sizeof(gint64));
            to += node_output(n, k)->rank;
        }
    m->out_len = outs;
    m->valid = TRUE;
    return TRUE;
}

/* The run-time shapes of step s's outputs, from its inputs' run-time shapes (and contents, where the plan
 * held a value: shape arithmetic): the op's own inference on copies of its tensors. An output where
 * data-dependence starts is left to its kernel (kernel_set_dims); any other must fit its planned bytes. */
static gboolean runtime_shapes(Executor *e, guint s, GError **error)
{
    const Node *n = e->schedule->pdata[s];
    enum { FEW = 16 }; /* inputs and outputs whose slots live on the stack */
    guint ni = n->inputs->len, no = n->outputs->len;
    const gint64 *few_dims[FEW] = {NULL};
    const Value *few_values[FEW] = {NULL};
    gint64 *few_out[FEW] = {NULL};
    const gint64 **in_dims = ni <= FEW ? few_dims : g_new0(const gint64 *, ni);
    const Value **in_values = ni <= FEW ? few_values : g_new0(const Value *, ni);
    gint64 **out_dims = no <= FEW ? few_out : g_new0(gint64 *, no);
    gsize out_ranks = 0;
    for (guint k = 0; k < no; k++)
        out_ranks += node_output(n, k) ? (gsize)node_output(n, k)->rank : 0;
    gint64 *out_block = g_new0(gint64, out_ranks + 1), *next_out = out_block;
    for (guint k = 0; k < ni; k++) {
        const Tensor *t = node_input(n, k);
        if (!t || !exec_tensor_bound(t) || (e->guarded && !e->computed[t->id]))
            continue;
        const ExecTensor *x = &e->tensors[t->id];
        if (t->dynamic)
            in_dims[k] = x->dims;
        /* contents a size may follow (shape arithmetic, Resize's sizes, Slice's bounds): as they are now; a larger
         * input only where the op's row says its output's shape follows its values (a Gemm's weights, known to the
         * plan, were copied element by element at every run of a detector's box head: 25,088 of them) */
        gboolean by_value = k < 32 && (n->op->shape_inputs >> k) & 1;
        if ((x->count <= RUNTIME_VALUE_ELEMENTS || (t->value && by_value)) && x->count <= VALUE_MAX_ELEMENTS)
            in_values[k] = run_value(e, t, x);
    }
    for (guint k = 0; k < no; k++) {
        const Tensor *t = node_output(n, k);
        if (t && t->dynamic && exec_tensor_bound(t)) {
            out_dims[k] = next_out;
            next_out += t->rank;
        }
    }
    gboolean ok = memo_infer(&e->shape_memo[s], n, e->opset, in_dims, in_values, out_dims, error);
    for (guint k = 0; ok && k < no; k++) {
        const Tensor *t = node_output(n, k);
        if (!out_dims[k])
            continue;
        ExecTensor *y = &e->tensors[t->id];
        gsize count = 1;
        for (int d = 0; d < t->rank; d++)
            count *= (gsize)out_dims[k][d];
        if (t->bound_why && count > y->capacity)
            continue; /* where data-dependence starts, the kernel sets the real size (kernel_set_dims) */
        if (count > y->capacity) {
            char *name = g_strescape(t->name, NULL);
            g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                        "node %s: tensor '%s' holds %" G_GSIZE_FORMAT " elements when it runs, above the %" G_GSIZE_FORMAT
                        " of its plan (its data-dependent bounds did not bound it; set them with --bound)", n->label, name,
                        count, y->capacity);
            g_free(name);
            ok = FALSE;
            break;
        }
        memcpy(y->own_dims, out_dims[k], sizeof(gint64) * (gsize)t->rank);
        y->count = count;
    }
    g_free(out_block);
    if (ni > FEW) {
        g_free(in_dims);
        g_free(in_values);
    }
    if (no > FEW)
        g_free(out_dims);
    return ok;
}

/* How many times a data-dependent step's shapes may change under its library kernel: each change prepares the kernel
 * again (a oneDNN primitive made, its weights packed); past this, the row's own kernel runs it from then on. */
#define LIBRARY_REMADE_MAX 8

/* Whether a data-dependent step's call may run on the library kernel the executor prepared for it: yes while its
 * tensors' dims are those the kernel was prepared for (a detector's mask head sees as many boxes in every run of one
 * image); when they changed, the prepared kernel (or its refusal) is dropped, to be made again for the new ones, up
 * to LIBRARY_REMADE_MAX times. */
static gboolean library_fits(Executor *e, guint s, const KernelCall *call)
{
    LibraryShapes *l = &e->library_shapes[s];
    gsize len = 0;
    for (guint k = 0; k < call->n_in + call->n_out; k++) {
        const ExecTensor *t = k < call->n_in ? call->in[k] : call->out[k - call->n_in];
        len += 1 + (t ? (gsize)t->rank : 0);
    }
    gint64 *dims = g_new(gint64, len + 1), *at = dims;
    for (guint k = 0; k < call->n_in + call->n_out; k++) {
        const ExecTensor *t = k < call->n_in ? call->in[k] : call->out[k - call->n_in];
        *at++ = t ? t->rank : -1;
        for (int d = 0; t && d < t->rank; d++)
            *at++ = t->dims[d];
    }
    KernelPrepared *prep = &e->prepared[s];
    if (l->dims && (l->len != len || memcmp(l->dims, dims, len * sizeof(gint64)) != 0)) {
        if (prep->free && prep->state)
            prep->free(prep->state);
        /* (a kernel that declined the old shapes, say a batch of none, is asked again about the new ones) */
        *prep = (KernelPrepared){.declined = ++l->remade > LIBRARY_REMADE_MAX};
    }
    g_free(l->dims);
    l->dims = dims;
    l->len = len;
    return !prep->declined;
}

/* In a guarded schedule, whether step n runs in this run: its guard (if any) was computed and holds, and so
 * was everything it reads (a node of a branch not taken, or fed by one, does not run). The ops that read what
 * was computed (IfSelect, ConcatComputed) run on whatever was. */
static gboolean step_runs(const Executor *e, guint s)
{
    const Node *n = e->schedule->pdata[s];
    if (n->guard && (!e->computed[n->guard->id] || (kernel_elem_get_f(&e->tensors[n->guard->id], 0) != 0) != n->guard_when))
        return FALSE;
    for (gsize k = e->needs_at[s]; k < e->needs_at[s + 1]; k++)
        if (!e->computed[e->needs[k]])
            return FALSE;
    return TRUE;
}

gboolean executor_run(Executor *e, gboolean poison, GError **error)
{
    const Graph *g = e->g;
    if (poison && !e->borrowed) /* a borrowed arena holds state another executor left */
        for (guint b = 0; b < e->plan->bins; b++)
            memset(e->arena[b], 0xFF, e->plan->bin_arena[b]);
    for (guint k = 0; k < g->tensors->len; k++)
        if (e->source[k])
            memcpy(e->tensors[k].data, e->source[k], e->tensors[k].count * dtype_size(e->tensors[k].dtype));
    GPtrArray *in = g_ptr_array_new(), *out = g_ptr_array_new();
    gboolean ok = TRUE;
    if (e->guarded) {
        if (!e->computed)
            e->computed = g_new0(gboolean, g->tensors->len + 1);
        for (guint k = 0; k < g->tensors->len; k++)
            e->computed[k] = !((const Tensor *)g->tensors->pdata[k])->producer;
    }
    /* One clock read per step: each step's time runs from the previous step's end (the loop's bookkeeping in
     * between is the step's too) */
    double start = now(), end = start;
    for (guint s = 0; s < e->schedule->len && ok; s++, start = end) {
        const Node *n = e->schedule->pdata[s];
        /* Nothing to do: a branch not taken (its buffers hold nothing this run); or, unguarded, bound already (a
         * Constant's value) or computed in the first run (mark_once) */
        if (e->guarded ? !step_runs(e, s)
                       : (n->op->plan_constant || (e->once[s] && e->runs)) && !e->has_folded_on[s]) {
            if (poison && e->dying[s])
                for (guint k = 0; k < e->dying[s]->len; k++)
                    poison_buffer(e, GPOINTER_TO_UINT(e->dying[s]->pdata[k]));
            e->seconds[s] = (end = now()) - start;
            continue;
        }
        g_ptr_array_set_size(in, 0);
        g_ptr_array_set_size(out, 0);
        for (guint k = 0; k < n->inputs->len; k++) {
            const Tensor *x = node_input(n, k);
            gboolean absent = !x || !exec_tensor_bound(x) || (e->guarded && !e->computed[x->id]);
            g_ptr_array_add(in, absent ? NULL : &e->tensors[x->id]);
        }
        for (guint k = 0; k < n->outputs->len; k++) {
            const Tensor *y = node_output(n, k);
            if (y && e->view_of_input[y->id]) /* a view of outside bytes: the same bytes */
                e->tensors[y->id].data = e->tensors[node_input(n, 0)->id].data;
            g_ptr_array_add(out, y && exec_tensor_bound(y) ? &e->tensors[y->id] : NULL);
        }
        const Tensor *y0 = node_output(n, 0);
        if (e->folded[s] && e->fold_copy[s]) { /* done by the step before, into its own output (fold_epilogues) */
            const ExecTensor *from = &e->tensors[node_input(n, 0)->id];
            memcpy(e->tensors[y0->id].data, from->data, from->count * dtype_size(from->dtype));
        } else if (n->op->plan_constant || (y0 && e->view_of_input[y0->id]) || e->folded[s] || (e->once[s] && e->runs)) {
            /* bound already: a Constant's value, or a view pointing at the bytes it views; or done by the
             * step before (fold_epilogues); or constants computed in the first run (mark_once) */
        } else if (!e->rows[s]) {
            write_folded(e, n);
        } else if (e->dynamic[s] && !runtime_shapes(e, s, error)) {
            ok = FALSE;
        } else {
            const KernelRow *row = e->rows[s];
            /* the library where the row has it; on data-dependent shapes, while they stay as it was prepared for */
            gboolean library = e->options.kernels == EXEC_KERNELS_ONEDNN && row->library;
            KernelCall call = {.node = n, .row = row, .opset = e->opset, .n_in = in->len, .n_out = out->len,
                               .in = (ExecTensor *const *)in->pdata, .out = (ExecTensor *const *)out->pdata,
                               .epilogue = e->epilogue[s], .epilogue_lo = e->epilogue_lo[s],
                               .epilogue_hi = e->epilogue_hi[s], .epilogue_bias = e->epilogue_bias[s],
                               .epilogue_bias_n = e->epilogue_bias_n[s], .workspace = e->workspace,
                               .prepared = library ? &e->prepared[s] : NULL, .winograd = e->options.winograd,
                               .skinny = e->options.skinny};
            if (library && e->dynamic[s] && !library_fits(e, s, &call)) {
                library = FALSE;
                call.prepared = NULL;
            }
            ok = e->widened[s]  ? run_widened(e, &call, library, error)
                 : library          ? row->library(&call, error)
                                    : row->kernel(&call, error);
        }
        for (guint k = 0; ok && e->guarded && k < n->outputs->len; k++)
            if (node_output(n, k))
                e->computed[node_output(n, k)->id] = TRUE;
        for (guint k = 0; ok && k < n->outputs->len; k++) { /* an If folded at plan time on this condition */
            const Tensor *y = node_output(n, k);
            if (y && y->folded_on && e->tensors[y->id].count &&
                (kernel_elem_get_f(&e->tensors[y->id], 0) != 0) != (y->folded_on == 2)) {
                char *name = g_strescape(y->name, NULL);
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH,
                            "node %s: condition '%s' is %s when it runs, but the plan folded its If assuming %s (it "
                            "depends on data-dependent sizes in a way the plan could not see)", n->label, name,
                            y->folded_on == 2 ? "false" : "true", y->folded_on == 2 ? "true" : "false");
                g_free(name);
                ok = FALSE;
            }
        }
        if (ok && poison && e->dying[s])
            for (guint k = 0; k < e->dying[s]->len; k++)
                poison_buffer(e, GPOINTER_TO_UINT(e->dying[s]->pdata[k]));
        e->seconds[s] = (end = now()) - start;
    }
    g_ptr_array_unref(in);
    g_ptr_array_unref(out);
    e->runs += ok;
    return ok;
}
