/* exec-prepare.c — the executor prepared (see exec.h): the schedule checked (a kernel for every op, the run's total
 * traffic), the steps marked (epilogues folded, 16-bit steps widened, data-dependent and run-once steps), the
 * layouts chosen, its life and its accessors. Binding is exec-bind.c, running exec-run.c. */
#include "exec/exec-internal.h"
#include "exec/kernel-table.h"
#include "exec/layout.h"
#include "base/files.h"
#include "exec/big-alloc.h"
#include "exec/blas.h"
#include "exec/onednn.h"
#include "ops/ops.h"
#include "ops/shape.h"
#include "base/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

ExecWeights *exec_weights_new(const Model *m)
{
    ExecWeights *w = g_new0(ExecWeights, 1);
    w->g = m->graph;
    w->data = g_new0(guint8 *, m->graph->tensors->len + 1);
    w->random = g_new0(gboolean, m->graph->tensors->len + 1);
    return w;
}

void exec_weights_free(ExecWeights *w)
{
    if (!w)
        return;
    for (guint k = 0; k < w->g->tensors->len; k++)
        big_alloc_free(w->data[k]);
    g_free(w->data);
    g_free(w->random);
    g_free(w);
}

static gboolean unsupported(const Node *n, GError **error, const char *what)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "node %s: %s", n->label, what);
    return FALSE;
}

/* The bytes a run's steps may read and write, all steps together: each step is bounded by memory, but their
 * number only by the file, and an unrolled Loop multiplies them (40,000 trips of an Add over 2^20 INT64 values,
 * from a 239-byte model, read and wrote 10^12 bytes: minutes of a busy core). ARENASIM_RUN_WORK=BYTES sets
 * another total. A floor of the work, not its measure: a product reads its operands' bytes once here. */
#define EXEC_RUN_TRAFFIC_DEFAULT (G_GUINT64_CONSTANT(1) << 38)

static guint64 run_traffic_limit(void)
{
    const char *limit = g_getenv("ARENASIM_RUN_WORK");
    return limit && g_ascii_isdigit(*limit) ? g_ascii_strtoull(limit, NULL, 10) : EXEC_RUN_TRAFFIC_DEFAULT;
}

/* Adds a step's inputs and outputs to *total; FALSE past `limit` (checked: sizes are 64-bit products). */
static gboolean add_traffic(const Node *n, guint64 limit, guint64 *total)
{
    for (guint io = 0; io < 2; io++) {
        const GPtrArray *values = io ? n->outputs : n->inputs;
        for (guint k = 0; k < values->len; k++) {
            const Tensor *v = values->pdata[k];
            if (v && v->shape_known && (v->bytes > limit - *total))
                return FALSE;
            *total += v && v->shape_known ? v->bytes : 0;
        }
    }
    return TRUE;
}

/* The steps' traffic within the run's total. */
static gboolean within_traffic(const GPtrArray *schedule, GError **error)
{
    guint64 traffic = 0, limit = run_traffic_limit();
    for (guint s = 0; s < schedule->len; s++) {
        const Node *n = schedule->pdata[s];
        if (kernel_row(n->op) && !n->op->plan_constant && !add_traffic(n, limit, &traffic)) {
            char *most = sim_format_bytes(limit);
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "node %s: --run would read and write more than %s "
                        "by this step, %u of %u (ARENASIM_RUN_WORK=BYTES sets another total)", n->label, most,
                        s + 1, schedule->len);
            g_free(most);
            return FALSE;
        }
    }
    return TRUE;
}

/* Every op needs a kernel, or outputs all folded at plan time (their values are written instead). */
gboolean exec_check_schedule(const GPtrArray *schedule, GError **error)
{
    for (guint s = 0; s < schedule->len; s++) {
        const Node *n = schedule->pdata[s];
        if (!n->op)
            return unsupported(n, error, "the op is not in the op table, so the executor cannot run it");
        if (kernel_row(n->op) && !n->op->plan_constant && !kernel_row_check(kernel_row(n->op), n, error))
            return FALSE;
        if (kernel_row(n->op) || n->op->plan_constant)
            continue;
        gboolean folded = TRUE;
        for (guint k = 0; k < n->outputs->len && folded; k++) {
            const Tensor *y = node_output(n, k);
            folded = !y || (y->value && !y->dynamic); /* a data-dependent value is only a bound */
        }
        if (!folded) {
            char *what = g_strdup_printf("the executor has no kernel for %s", n->op_type);
            unsupported(n, error, what);
            g_free(what);
            return FALSE;
        }
    }
    return within_traffic(schedule, error);
}

/* A plan-time value of Clip's bound k (an omitted input: no bound), or FALSE when not known before running. */
static gboolean clip_bound(const Node *clip, guint k, float unbounded, float *out)
{
    const Tensor *t = node_input(clip, k);
    *out = unbounded;
    if (!t)
        return TRUE;
    if (!t->value || t->dynamic || t->value->n != 1)
        return FALSE;
    *out = (float)value_get_f(t->value, 0);
    return TRUE;
}

/* A BiasGelu folds when its bias is a weight of float values (or a view of one, the op table's metadata-only
 * rows: torch shares equal biases through an Identity), one per element of the last axis of its input y (as the matmul before it adds a bias): its
 * values, its count, and the form (approximate: none or tanh). */
static gboolean gelu_bias(const Executor *e, const Node *act, const ExecTensor *ey, KernelEpilogue *kind,
                          const float **bias, gsize *n)
{
    const Tensor *b = node_input(act, 1);
    while (b && !b->init && b->producer && b->producer->op->op_class == OP_NOOP && !b->producer->op->moves_data)
        b = node_input(b->producer, 0); /* a view of a weight, as its bytes lie (an exporter's shared bias) */
    const char *approximate;
    if (!b || !b->init || !exec_tensor_bound(b) || act->inputs->len != 2 ||
        !node_attr_string(act, "approximate", "none", &approximate, NULL))
        return FALSE;
    const ExecTensor *eb = &e->tensors[b->id];
    if (!eb->data || eb->dtype != DT_FLOAT || eb->blocked || ey->rank < 1 || eb->count != (gsize)ey->dims[ey->rank - 1] ||
        !eb->count || (strcmp(approximate, "none") && strcmp(approximate, "tanh")))
        return FALSE;
    *kind = !strcmp(approximate, "tanh") ? EPILOGUE_GELU_TANH : EPILOGUE_GELU;
    *bias = eb->data;
    *n = eb->count;
    return TRUE;
}

/* A Conv, Add or MatMul (the op table's .epilogue rows) whose output's one reader is an op the table lets fold
 * (.folds_as; a BiasGelu into .epilogue_gelu rows only): the activation is applied by the first op's kernel as
 * it writes (a oneDNN convolution's or product's post-op), and the folded step does not run. Where the in-place rule put the two on the same bytes nothing
 * else happens; elsewhere the folded step copies the output, which holds the activated values, into the
 * activation's bytes (fold_copy). Nothing in the plan changes — the output's bytes are its alone from the first
 * step to the second (it is live) and no other step reads them — so this is fusion that does not move a
 * lifetime, wherever the order put the activation (squeezenet's schedule runs both expand convolutions before
 * their Relus). It depends on the graph and the schedule alone, not on the plan, so --check's reference run
 * (nothing shared) folds alike, and a kernel's folded form (oneDNN's Relu writes -0 where ours writes 0) gives
 * both runs the same bits. */
static void fold_epilogues(Executor *e)
{
    guint steps = e->schedule->len;
    e->epilogue = g_new0(KernelEpilogue, steps + 1);
    e->epilogue_lo = g_new0(float, steps + 1);
    e->epilogue_hi = g_new0(float, steps + 1);
    e->epilogue_bias = g_new0(const float *, steps + 1);
    e->epilogue_bias_n = g_new0(gsize, steps + 1);
    e->folded = g_new0(gboolean, steps + 1);
    e->fold_copy = g_new0(gboolean, steps + 1);
    GHashTable *step_of = g_hash_table_new(NULL, NULL); /* Node* -> its step + 1 */
    for (guint s = 0; s < steps; s++)
        g_hash_table_insert(step_of, e->schedule->pdata[s], GUINT_TO_POINTER(s + 1));
    for (guint s = 0; s + 1 < steps; s++) {
        const Node *n = e->schedule->pdata[s];
        const Tensor *y = node_output(n, 0);
        if (!kernel_row(n->op) || !kernel_row(n->op)->epilogue || e->folded[s] || !y || y->consumers->len != 1)
            continue;
        const Node *act = y->consumers->pdata[0];
        guint next = GPOINTER_TO_UINT(g_hash_table_lookup(step_of, act));
        if (next-- <= s + 1 || !kernel_row(act->op) || act->guard != n->guard || act->guard_when != n->guard_when)
            continue;
        const Tensor *z = node_output(act, 0);
        if (node_input(act, 0) != y || !z || y->is_graph_output || !exec_tensor_bound(y) ||
            !exec_tensor_bound(z) || y->dynamic || z->dynamic)
            continue;
        const ExecTensor *ey = &e->tensors[y->id], *ez = &e->tensors[z->id];
        KernelEpilogue kind = kernel_row(act->op)->folds_as;
        /* float32; or 16-bit floats (the step runs widened) under a Relu or a Clip, which commute with the rounding
         * back: max(round(x), 0) is round(max(x, 0)), and so for a Clip's bounds, which (opset 11 on) are of the
         * input's type, values the rounding keeps; so folding changes no bit */
        gboolean half = is_16bit_float(ey) && (kind == EPILOGUE_RELU || kind == EPILOGUE_CLIP);
        if (!ey->data || !ez->data || (ey->dtype != DT_FLOAT && !half) || ez->dtype != ey->dtype ||
            ey->count != ez->count || e->view_of_input[y->id] || e->view_of_input[z->id])
            continue;
        float lo = -INFINITY, hi = INFINITY; /* Clip's bounds must be known before running (opset 11's inputs) */
        if (kind == EPILOGUE_NONE || (kind == EPILOGUE_CLIP && !(e->opset >= 11 && clip_bound(act, 1, -INFINITY, &lo) &&
                                                                 clip_bound(act, 2, INFINITY, &hi))))
            continue;
        if (kind == EPILOGUE_GELU &&
            (!kernel_row(n->op)->epilogue_gelu || !gelu_bias(e, act, ey, &kind, &e->epilogue_bias[s], &e->epilogue_bias_n[s])))
            continue;
        e->epilogue[s] = kind;
        e->epilogue_lo[s] = lo;
        e->epilogue_hi[s] = hi;
        e->folded[next] = TRUE;
        e->fold_copy[next] = ey->data != ez->data;
    }
    g_hash_table_destroy(step_of);
}


/* The steps that read or write data-dependent tensors; whether any is guarded; each step's kernel row and what a
 * guarded step waits for (its needs), so that a run looks none of it up. */
static void mark_dynamic(Executor *e)
{
    guint steps = e->schedule->len;
    e->dynamic = g_new0(gboolean, steps + 1);
    e->shape_memo = g_new0(ShapeMemo, steps + 1);
    e->library_shapes = g_new0(LibraryShapes, steps + 1);
    e->rows = g_new0(const KernelRow *, steps + 1);
    e->needs_at = g_new0(gsize, steps + 1);
    GArray *needs = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint s = 0; s < steps; s++) {
        const Node *n = e->schedule->pdata[s];
        e->rows[s] = kernel_row(n->op);
        e->guarded = e->guarded || n->guard;
        for (guint k = 0; k < n->inputs->len + n->outputs->len && !e->dynamic[s]; k++) {
            const Tensor *x = k < n->inputs->len ? node_input(n, k) : node_output(n, k - n->inputs->len);
            e->dynamic[s] = x && exec_tensor_bound(x) && x->dynamic;
        }
        e->needs_at[s] = needs->len;
        for (guint k = 0; !(e->rows[s] && e->rows[s]->reads_computed) && k < n->inputs->len; k++) {
            const Tensor *x = node_input(n, k);
            if (x && exec_tensor_bound(x)) {
                guint id = (guint)x->id;
                g_array_append_val(needs, id);
            }
        }
        for (guint k = 0; k < n->implicit_inputs->len; k++) {
            guint id = (guint)((const Tensor *)n->implicit_inputs->pdata[k])->id;
            g_array_append_val(needs, id);
        }
    }
    e->needs_at[steps] = needs->len;
    e->needs = (guint *)(void *)g_array_free(needs, FALSE);
}

/* The steps that compute constants (--fuse's constant-fold made their outputs constants: they read only weights,
 * constants and values the planner knows) into memory of the executor's own, outside the arena, where no run
 * poisons or reuses them: they run in the executor's first run only, as ONNX Runtime folds them once when its
 * session starts. A guarded or data-dependent step always runs. */
static void mark_once(Executor *e)
{
    e->once = g_new0(gboolean, e->schedule->len + 1);
    e->has_folded_on = g_new0(gboolean, e->schedule->len + 1);
    for (guint s = 0; s < e->schedule->len; s++) {
        const Node *n = e->schedule->pdata[s];
        gboolean once = kernel_row(n->op) && !n->op->plan_constant && !n->guard && !e->dynamic[s] && !e->folded[s] &&
                        n->outputs->len > 0;
        for (guint k = 0; k < n->outputs->len && once; k++) {
            const Tensor *y = node_output(n, k);
            once = !y || (y->kind == TENSOR_CONSTANT && e->own[y->id] && e->tensors[y->id].data == e->own[y->id]);
        }
        e->once[s] = once;
        e->once_steps += once;
        for (guint k = 0; k < n->outputs->len; k++)
            e->has_folded_on[s] = e->has_folded_on[s] || (node_output(n, k) && node_output(n, k)->folded_on);
    }
}

/* The steps whose kernel gets float32 copies: any 16-bit float tensor among its inputs and outputs, unless
 * its row reads them as they are (Cast). Tensor types are fixed once bound, so this is decided once. */
static void mark_widened(Executor *e)
{
    e->widened = g_new0(gboolean, e->schedule->len + 1);
    e->wide_weights = g_new0(float *, e->g->tensors->len + 1);
    for (guint s = 0; s < e->schedule->len; s++) {
        const Node *n = e->schedule->pdata[s];
        if (!kernel_row(n->op) || kernel_row(n->op)->reads_16bit)
            continue;
        for (guint k = 0; k < n->inputs->len + n->outputs->len && !e->widened[s]; k++) {
            const Tensor *x = k < n->inputs->len ? node_input(n, k) : node_output(n, k - n->inputs->len);
            e->widened[s] = x && exec_tensor_bound(x) && is_16bit_float(&e->tensors[x->id]);
        }
    }
}

Executor *executor_new(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                       const Plan *plan, GError **error)
{
    return executor_new_sharing(m, schedule, aliases, t, plan, NULL, NULL, error);
}

static Executor *executor_make(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                               const Plan *plan, const ExecOptions *options, ExecWeights *weights,
                               guint8 *const *borrowed, GHashTable *held, GError **error);

Executor *executor_new_sharing(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                               const Plan *plan, const ExecOptions *options, ExecWeights *weights, GError **error)
{
    return executor_make(m, schedule, aliases, t, plan, options, weights, NULL, NULL, error);
}

Executor *executor_new_in(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                          const Plan *plan, const ExecOptions *options, guint8 *const *arena, GHashTable *held,
                          GError **error)
{
    return executor_make(m, schedule, aliases, t, plan, options, NULL, arena, held, error);
}

guint8 **exec_arena_new(const Plan *plan, GError **error)
{
    guint8 **arena = g_new0(guint8 *, plan->bins + 1);
    for (guint b = 0; b < plan->bins; b++)
        if (!(arena[b] = exec_alloc(plan->bin_arena[b], "the planned arena", error))) {
            exec_arena_free(arena, b);
            return NULL;
        }
    return arena;
}

void exec_arena_free(guint8 **arena, guint bins)
{
    for (guint b = 0; arena && b < bins; b++)
        big_alloc_free(arena[b]);
    g_free(arena);
}

static Executor *executor_make(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                               const Plan *plan, const ExecOptions *options, ExecWeights *weights,
                               guint8 *const *borrowed, GHashTable *held, GError **error)
{
    static const ExecOptions defaults = EXEC_OPTIONS_DEFAULTS;
    const ExecOptions *o = options ? options : &defaults;
    const Graph *g = m->graph;
    gint64 opset = model_onnx_opset(m);
    if (!blas.sgemm && !blas_open(1, error)) /* not opened by exec_set_threads: one thread */
        return NULL;
    if (o->kernels == EXEC_KERNELS_ONEDNN && !onednn.engine && !onednn_open(1, error))
        return NULL;
    if (aliases->layout.pad_last > 1) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "the executor runs dense tensors: --pad-last %" G_GUINT64_FORMAT " pads them (use --pad-last 1)",
                    aliases->layout.pad_last);
        return NULL;
    }
    if (!exec_check_schedule(schedule, error))
        return NULL;
    Executor *e = g_new0(Executor, 1);
    guint n = g->tensors->len;
    e->g = g;
    e->options = *o;
    e->model_dir = m->dir;
    e->opset = opset;
    e->schedule = schedule;
    e->t = t;
    e->plan = plan;
    e->arena = g_new0(guint8 *, plan->bins + 1);
    for (guint b = 0; b < plan->bins; b++)
        e->arena_bytes += plan->bin_arena[b];
    e->tensors = g_new0(ExecTensor, n + 1);
    e->own = g_new0(guint8 *, n + 1);
    e->source = g_new0(guint8 *, n + 1);
    g_assert(!weights || weights->g == g);
    e->weights = weights;
    e->view_of_input = g_new0(gboolean, n + 1);
    e->seconds = g_new0(double, schedule->len + 1);
    e->prepared = g_new0(KernelPrepared, schedule->len + 1);
    e->dying = g_new0(GPtrArray *, schedule->len + 1);
    for (guint b = 0; b < trace_count(t); b++) {
        guint last = trace_buffer(t, b)->last;
        if (last + 1 >= schedule->len) /* alive at the end: outputs, pins; never poisoned */
            continue;
        if (!e->dying[last])
            e->dying[last] = g_ptr_array_new();
        g_ptr_array_add(e->dying[last], GUINT_TO_POINTER(b));
    }
    gboolean ok = TRUE;
    e->borrowed = borrowed != NULL;
    e->held = held ? g_hash_table_ref(held) : NULL;
    for (guint b = 0; b < plan->bins && ok; b++)
        ok = (e->arena[b] = borrowed ? borrowed[b] : exec_alloc(plan->bin_arena[b], "the planned arena", error)) !=
             NULL;
    if (!ok || !exec_bind(e, aliases, error)) {
        executor_free(e);
        return NULL;
    }
    fold_epilogues(e);
    mark_widened(e);
    mark_dynamic(e);
    mark_once(e);
    if (o->kernels == EXEC_KERNELS_ONEDNN && o->layouts == EXEC_LAYOUTS_BLOCKED) {
        gboolean *plain = g_new0(gboolean, schedule->len + 1); /* steps not on their library kernel */
        for (guint s = 0; s < schedule->len; s++)
            plain[s] = e->dynamic[s] || ((const Node *)schedule->pdata[s])->guard;
        e->blocked = layout_choose(schedule, opset, g, e->tensors, plain);
        g_free(plain);
    }
    e->workspace = kernel_workspace_new();
    return e;
}

guint executor_folded_steps(const Executor *e, guint *copies)
{
    guint count = 0;
    if (copies)
        *copies = 0;
    for (guint s = 0; s < e->schedule->len; s++) {
        count += e->folded[s];
        if (copies)
            *copies += e->fold_copy[s];
    }
    return count;
}

gboolean executor_set_input(Executor *e, const char *name, const TensorData *d, GError **error)
{
    const Tensor *t = graph_tensor((Graph *)e->g, name);
    if (!t || !t->is_graph_input) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "'%s' is not a graph input", name);
        return FALSE;
    }
    ExecTensor *x = &e->tensors[t->id];
    gsize bytes = x->count * dtype_size(x->dtype);
    if (d->dtype != x->dtype || !d->raw || g_bytes_get_size(d->raw) != bytes) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_SHAPE, "input '%s': the data is not %" G_GSIZE_FORMAT " elements of %s",
                    name, x->count, dtype_name(x->dtype));
        return FALSE;
    }
    guint8 *to = e->source[t->id] ? e->source[t->id] : e->own[t->id];
    if (to && bytes)
        memcpy(to, g_bytes_get_data(d->raw, NULL), bytes);
    return TRUE;
}

/* One pool of threads, not two: with oneDNN's kernels its OpenMP team takes the count and OpenBLAS runs
 * on the calling thread. Two pools on the same cores each spun after their work and held the core the
 * other needed next, and made to sleep at once instead, each woke for every small call: either was slower at
 * two threads than at one (docs/executor.md, results/history.md). With our own kernels OpenBLAS's pool is
 * the only one. */
/* Threads of the probe: each waits until released, so that all are alive at once, as a pool's are. */
typedef struct {
    GMutex lock;
    GCond go;
    gboolean released;
} ThreadProbe;

static gpointer probe_wait(gpointer data)
{
    ThreadProbe *p = data;
    g_mutex_lock(&p->lock);
    while (!p->released)
        g_cond_wait(&p->go, &p->lock);
    g_mutex_unlock(&p->lock);
    return NULL;
}

/* Whether the system gives this process n - 1 more threads at once (with the default stack each, as libgomp and
 * OpenBLAS make theirs): a pool that cannot start ends the process with the library's own line (libgomp:
 * "Thread creation failed") in the middle of a run, so it is asked first; *made says how many it gave. */
static gboolean threads_available(guint n, guint *made)
{
    ThreadProbe p = {.released = FALSE};
    g_mutex_init(&p.lock);
    g_cond_init(&p.go);
    GThread **t = g_new0(GThread *, n + 1);
    *made = 0;
    for (guint k = 0; k + 1 < n; k++) {
        if (!(t[k] = g_thread_try_new("probe", probe_wait, &p, NULL)))
            break;
        (*made)++;
    }
    g_mutex_lock(&p.lock);
    p.released = TRUE;
    g_cond_broadcast(&p.go);
    g_mutex_unlock(&p.lock);
    for (guint k = 0; k < *made; k++)
        g_thread_join(t[k]);
    g_free(t);
    g_cond_clear(&p.go);
    g_mutex_clear(&p.lock);
    return *made + 1 >= n;
}

guint exec_set_threads(guint n, ExecKernels kernels, GError **error)
{
    guint made;
    if (n > 1 && !threads_available(n, &made)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "--threads %u: the system gives this process %u more "
                    "threads beside its own (a limit on its processes or memory: ulimit -u, ulimit -v), so a pool of "
                    "%u cannot start", n, made, n);
        return 0;
    }
    if (kernels == EXEC_KERNELS_ONEDNN)
        return onednn_open(n, error) && blas_open(1, error) ? MAX(n, 1) : 0;
    onednn.threads = 1; /* our own loops stay on the calling thread: OpenBLAS's pool has the threads */
    return blas_open(n, error);
}

guint executor_blocked_tensors(const Executor *e) { return e->blocked; }

guint executor_once_steps(const Executor *e) { return e->once_steps; }

double executor_node_seconds(const Executor *e, guint step) { return e->seconds[step]; }
guint executor_output_count(const Executor *e) { return e->g->outputs->len; }

const ExecTensor *executor_output(const Executor *e, guint k, const char **name)
{
    const Tensor *t = e->g->outputs->pdata[k];
    *name = t->name;
    return &e->tensors[t->id];
}

guint executor_random_weights(const Executor *e) { return e->random_weights; }
guint64 executor_arena_bytes(const Executor *e) { return e->arena_bytes; }

guint64 executor_prepared_bytes(const Executor *e)
{
    guint64 total = 0;
    for (guint s = 0; s < e->schedule->len; s++)
        total += e->prepared[s].bytes;
    return total;
}

const char *executor_step_library(const Executor *e, guint step, guint64 *bytes)
{
    if (bytes)
        *bytes = e->prepared[step].bytes;
    return e->prepared[step].by;
}

const char *executor_step_algorithm(const Executor *e, guint step) { return e->prepared[step].algorithm; }

void executor_free(Executor *e)
{
    if (!e)
        return;
    guint n = e->g->tensors->len;
    for (guint k = 0; e->run_values && k < n; k++)
        value_free(e->run_values[k]);
    g_free(e->run_values);
    for (guint k = 0; k < n; k++) {
        const guint8 *lent = e->weights ? e->weights->data[k] : NULL; /* the lender outlives its executors */
        if (e->own[k] != lent)
            big_alloc_free(e->own[k]);
        if (e->source[k] != lent)
            big_alloc_free(e->source[k]);
    }
    for (guint b = 0; !e->borrowed && b < e->plan->bins; b++)
        big_alloc_free(e->arena[b]);
    if (e->held)
        g_hash_table_unref(e->held);
    for (guint s = 0; s < e->schedule->len; s++)
        if (e->dying[s])
            g_ptr_array_unref(e->dying[s]);
    g_free(e->dying);
    g_free(e->epilogue);
    g_free(e->epilogue_lo);
    g_free(e->epilogue_bias);
    g_free(e->epilogue_bias_n);
    g_free(e->epilogue_hi);
    g_free(e->folded);
    g_free(e->fold_copy);
    g_free(e->widened);
    for (guint k = 0; e->wide_weights && k < e->g->tensors->len; k++)
        g_free(e->wide_weights[k]);
    g_free(e->wide_weights);
    g_free(e->wide_scratch);
    g_free(e->dynamic);
    for (guint s = 0; e->shape_memo && s < e->schedule->len; s++) {
        g_free(e->shape_memo[s].key);
        g_free(e->shape_memo[s].next);
        g_free(e->shape_memo[s].out);
    }
    g_free(e->shape_memo);
    for (guint s = 0; e->library_shapes && s < e->schedule->len; s++)
        g_free(e->library_shapes[s].dims);
    g_free(e->library_shapes);
    g_free(e->rows);
    g_free(e->needs);
    g_free(e->needs_at);
    g_free(e->once);
    g_free(e->has_folded_on);
    g_free(e->computed);
    for (guint k = 0; k < n; k++)
        g_free(e->tensors[k].own_dims);
    kernel_workspace_free(e->workspace);
    for (guint s = 0; e->prepared && s < e->schedule->len; s++)
        if (e->prepared[s].free)
            e->prepared[s].free(e->prepared[s].state);
    g_free(e->prepared);
    g_free(e->arena);
    g_free(e->tensors);
    g_free(e->own);
    g_free(e->source);
    g_free(e->view_of_input);
    g_free(e->seconds);
    g_free(e);
}
