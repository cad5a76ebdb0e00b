/* exec.c — binding tensors to the planned arena and running the schedule (see exec.h). */
#include "exec/exec.h"
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


struct Executor {
    const Graph *g;
    ExecOptions options;
    const char *model_dir; /* external data paths are relative to it */
    gint64 opset;
    const GPtrArray *schedule;
    const Trace *t;
    const Plan *plan;
    guint8 **arena;        /* per bin, 64-byte aligned */
    guint64 arena_bytes;
    ExecTensor *tensors;   /* per tensor id */
    guint8 **own;          /* per tensor id: memory of its own (outside the arena), or NULL */
    guint8 **source;       /* per tensor id: bytes copied in before every run (inputs, weights in the arena) */
    gboolean *view_of_input; /* per tensor id: a noop view of a tensor outside the arena, bound when it runs */
    GPtrArray **dying;     /* per step: trace buffer ids whose last step it is (poisoned after it) */
    double *seconds;       /* per step */
    KernelEpilogue *epilogue; /* per step: the next step's activation (.folds_as) folded into this one (fold_epilogues) */
    float *epilogue_lo, *epilogue_hi;
    const float **epilogue_bias; /* per step: a folded BiasGelu's bias values (its count in epilogue_bias_n) */
    gsize *epilogue_bias_n;
    gboolean *folded;      /* per step: folded into the step before; does not run */
    gboolean *fold_copy;   /* per folded step: copies its input (activated by the step before) to its output */
    gboolean *widened;     /* per step: runs on float32 copies of its 16-bit float tensors (run_widened) */
    gboolean *dynamic;     /* per step: reads or writes data-dependent tensors (its shapes are inferred as it runs) */
    gboolean *once;        /* per step: computes constants into memory of its own: runs in the first run only (mark_once) */
    guint once_steps;
    gboolean *has_folded_on; /* per step: an output is the condition of an If folded at plan time (checked every run) */
    guint runs;            /* runs so far */
    gboolean guarded;      /* some step is guarded (an If's branch): steps run only when their guard and inputs say so */
    gboolean *computed;    /* per tensor id, while running a guarded schedule: computed (or given) in this run */
    KernelWorkspace *workspace; /* the kernels' temporaries, kept from step to step */
    KernelPrepared *prepared;   /* per step: what its library kernel keeps (KernelCall.prepared) */
    guint blocked;              /* tensors laid out channel-blocked (exec/layout.h) */
    guint random_weights;
    ExecWeights *weights;  /* lends weights and constants (executor_new_sharing), or NULL; its copies in
                              own/source are the lender's, not freed here */
};

/* Weights and constants filled once, lent to every executor of one model: read-only while lent (kernels
 * never write a weight: in-place reuse only takes dying activations, and poison only arena buffers). */
struct ExecWeights {
    const Graph *g;
    guint8 **data;     /* per tensor id, or NULL */
    gboolean *random;  /* per tensor id: filled with pseudo-random values */
};

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

/* splitmix64: deterministic values from a tensor's name. */
static guint64 mix(guint64 *state)
{
    guint64 z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform(guint64 *state) { return (double)(mix(state) >> 11) / 9007199254740992.0; }

/* Pseudo-random contents: floats uniform in [-scale, scale) (a 1-D weight — a bias, a norm scale or
 * variance — in [0.5, 1.5) so it stays positive), integers and booleans zero. */
static void fill_pseudo_random(ExecTensor *x, const char *name, gboolean weight)
{
    guint64 state = g_str_hash(name) * 0x100000001b3ull + 1;
    if (!dtype_is_float(x->dtype)) {
        memset(x->data, 0, x->count * dtype_size(x->dtype));
        return;
    }
    double fan_in = x->rank >= 2 && x->dims[0] ? (double)x->count / (double)x->dims[0] : 1.0;
    double scale = weight ? 1.0 / sqrt(MAX(fan_in, 1.0)) : 1.0;
    for (gsize k = 0; k < x->count; k++) {
        double u = uniform(&state);
        kernel_elem_set_f(x, k, weight && x->rank <= 1 ? 0.5 + u : (2.0 * u - 1.0) * scale);
    }
}

/* What a graph input is for, read from the graph, so that generated inputs exercise the model: integer ids
 * that index a table (a Gather's indices, through views and casts) stay inside it; a mask is ones with its
 * last quarter zeros (padding, so a mask that masks nothing or everything cannot hide a wrong plan);
 * positions count up along the last axis. Anything else: floats uniform in [-1, 1), integers zero. */
typedef enum { INPUT_PLAIN, INPUT_IDS, INPUT_MASK, INPUT_POSITIONS } InputRole;

static gboolean is_pass_through(const Node *n)
{
    static const char *const ops[] = {"Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity", "Expand"};
    for (guint k = 0; k < G_N_ELEMENTS(ops); k++)
        if (!strcmp(n->op_type, ops[k]))
            return TRUE;
    return FALSE;
}

/* The smallest table size any Gather indexed by t (through pass-through ops) has, or 0 when none. */
static gint64 indexed_table(const Tensor *t, guint depth)
{
    gint64 smallest = 0;
    for (guint c = 0; t->consumers && c < t->consumers->len && depth < 8; c++) {
        const Node *n = t->consumers->pdata[c];
        gint64 found = 0;
        if ((!strcmp(n->op_type, "Gather") || !strcmp(n->op_type, "GatherElements")) && node_input(n, 1) == t) {
            const Tensor *data = node_input(n, 0);
            gint64 axis = 0;
            node_attr_int(n, "axis", 0, &axis, NULL);
            if (data && data->shape_known && data->rank > 0) {
                int a = (int)(axis < 0 ? axis + data->rank : axis);
                if (a >= 0 && a < data->rank)
                    found = data->dims[a];
            }
        } else if (is_pass_through(n) && node_output(n, 0) && node_input(n, 0) == t) {
            found = indexed_table(node_output(n, 0), depth + 1);
        }
        if (found > 0 && (!smallest || found < smallest))
            smallest = found;
    }
    return smallest;
}

static InputRole input_role(const Tensor *t, gint64 *table)
{
    *table = 0;
    if (dtype_is_float(t->dtype))
        return INPUT_PLAIN;
    char *lower = g_ascii_strdown(t->name, -1);
    InputRole role = strstr(lower, "mask") ? INPUT_MASK : strstr(lower, "position") || strstr(lower, "pos_id") ? INPUT_POSITIONS
                                                                                                              : INPUT_PLAIN;
    g_free(lower);
    if (role == INPUT_PLAIN && (*table = indexed_table(t, 0)) > 0)
        role = INPUT_IDS;
    return role;
}

/* A graph input's generated contents (see InputRole). */
static void fill_input(ExecTensor *x, const Tensor *t)
{
    gint64 table;
    InputRole role = input_role(t, &table);
    if (role == INPUT_PLAIN) {
        fill_pseudo_random(x, t->name, FALSE);
        return;
    }
    gsize last = x->rank > 0 && x->dims[x->rank - 1] > 0 ? (gsize)x->dims[x->rank - 1] : 1;
    guint64 state = g_str_hash(t->name) * 0x100000001b3ull + 1;
    for (gsize k = 0; k < x->count; k++) {
        gsize along = k % last;
        gint64 v = role == INPUT_IDS         ? (gint64)(mix(&state) % (guint64)table)
                   : role == INPUT_POSITIONS ? (gint64)along
                                             : (gint64)(along < last - last / 4); /* a mask: the last quarter pads */
        kernel_elem_set_i(x, k, v);
    }
}

/* External data (ONNX's `location`, `offset`, `length` keys): the range of a regular file under the model's
 * folder (symlinks resolved), read alone (files.h). */
static gboolean read_external(const Executor *e, const Tensor *t, void *to, gsize bytes, GError **error)
{
    const char *location = NULL;
    guint64 offset = 0, length = bytes;
    for (guint k = 0; k + 1 < t->init->external->len; k += 2) {
        const char *key = t->init->external->pdata[k], *value = t->init->external->pdata[k + 1];
        char *end = NULL;
        if (!strcmp(key, "location"))
            location = value;
        else if (!strcmp(key, "offset") || !strcmp(key, "length")) {
            guint64 v = g_ascii_strtoull(value, &end, 10);
            if (!*value || *end || !g_ascii_isdigit(*value)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "initializer '%s': external data %s '%s' is not a "
                            "number", t->name, key, value);
                return FALSE;
            }
            *(strcmp(key, "offset") ? &length : &offset) = v;
        }
    }
    if (length != bytes) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "initializer '%s': external data length %" G_GUINT64_FORMAT
                    " is not its %" G_GSIZE_FORMAT " bytes", t->name, length, bytes);
        return FALSE;
    }
    GError *io = NULL;
    if (!sim_read_range_inside(e->model_dir ? e->model_dir : ".", location ? location : "", offset, bytes, to, &io)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "initializer '%s': external data '%s': %s", t->name,
                    location ? location : "", io->message);
        g_error_free(io);
        return FALSE;
    }
    return TRUE;
}

/* Memory for --run, asked for politely: a plan bigger than the machine, or than what the system gives, is an
 * error saying how many bytes were wanted, not an abort. Zeroed, aligned to 64 bytes, large blocks on huge
 * pages (big-alloc.c). */
static void *exec_alloc(guint64 bytes, const char *what, GError **error)
{
    /* Weighed with everything the run already holds (both executors of --check included) against what the
     * system could give when the run started: a run that would not fit ends here with one line, before the
     * kernel's out-of-memory killer ends it with none. */
    void *p = big_alloc_within(bytes);
    if (p)
        return p;
    char *want = sim_format_bytes(bytes), *have = sim_format_bytes(big_alloc_available()),
         *taken = sim_format_bytes(big_alloc_held());
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "--run needs %s for %s and cannot have it (the run holds %s "
                "already; %s were available when it started)", want, what, taken, have);
    g_free(want);
    g_free(have);
    g_free(taken);
    return NULL;
}

/* A weight's or constant's values into x: raw bytes of the right size, external data, a folded value,
 * else (shapes-only initializers) pseudo-random values. */
static gboolean fill_weight(Executor *e, const Tensor *t, ExecTensor *x, GError **error)
{
    gsize bytes = x->count * dtype_size(x->dtype);
    if (t->init && t->init->external)
        return read_external(e, t, x->data, bytes, error);
    if (t->init && t->init->raw && g_bytes_get_size(t->init->raw) == bytes) {
        memcpy(x->data, g_bytes_get_data(t->init->raw, NULL), bytes);
        return TRUE;
    }
    if (t->value && t->value->n == x->count) {
        for (gsize k = 0; k < x->count; k++) {
            if (dtype_is_float(t->value->dtype))
                kernel_elem_set_f(x, k, value_get_f(t->value, k));
            else
                kernel_elem_set_i(x, k, value_get_i(t->value, k));
        }
        return TRUE;
    }
    fill_pseudo_random(x, t->name, TRUE);
    e->random_weights++;
    return TRUE;
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


/* The trace buffer holding each alias root, by name (alias_map_to_trace names a root's buffer after it). */
static GHashTable *buffers_by_name(const Trace *t)
{
    GHashTable *h = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint b = 0; b < trace_count(t); b++)
        g_hash_table_insert(h, (gpointer)trace_buffer(t, b)->name, GUINT_TO_POINTER(b + 1));
    return h;
}

/* Tensor k's weight or constant bytes into *slot (own or source) and x->data: the lender's copy when it has
 * one, else newly allocated and filled, and then the lender's (executor_free leaves the lender's copies). Graph inputs (even
 * with an initializer) are never shared: executor_set_input may overwrite them. */
static gboolean bind_weight(Executor *e, guint k, const Tensor *t, ExecTensor *x, guint8 **slot, gsize bytes,
                            const char *what, GError **error)
{
    ExecWeights *w = t->is_graph_input ? NULL : e->weights;
    if (w && w->data[k]) {
        x->data = *slot = w->data[k];
        e->random_weights += w->random[k];
        return TRUE;
    }
    x->data = *slot = exec_alloc(bytes, what, error);
    guint random_before = e->random_weights;
    if (!x->data || !fill_weight(e, t, x, error))
        return FALSE;
    if (w) {
        w->data[k] = *slot;
        w->random[k] = e->random_weights > random_before;
    }
    return TRUE;
}

static gboolean bind(Executor *e, const AliasMap *m, GError **error)
{
    const Graph *g = e->g;
    guint n = g->tensors->len;
    GHashTable *by_name = buffers_by_name(e->t);
    gboolean ok = TRUE;
    for (guint k = 0; k < n && ok; k++) {
        const Tensor *t = g->tensors->pdata[k];
        ExecTensor *x = &e->tensors[k];
        if (!exec_tensor_bound(t))
            continue;
        *x = (ExecTensor){.dtype = t->dtype, .rank = t->rank, .dims = t->dims, .count = 1};
        for (int d = 0; d < t->rank; d++)
            x->count *= (gsize)t->dims[d];
        if (t->dynamic) { /* dims of its own, set when it is computed; its planned bytes are its capacity */
            x->own_dims = g_new0(gint64, t->rank ? t->rank : 1);
            memcpy(x->own_dims, t->dims, sizeof(gint64) * (gsize)t->rank);
            x->dims = x->own_dims;
            x->capacity = x->count;
        }
        gsize bytes = x->count * dtype_size(t->dtype);
        if (m->bytes[k]) { /* in the arena: its root's buffer, at its offset in the root */
            guint64 off;
            gint r = alias_root(m, (gint)k, &off);
            const Tensor *root = g->tensors->pdata[r];
            guint b = GPOINTER_TO_UINT(g_hash_table_lookup(by_name, root->name));
            if (!b || off + bytes > trace_buffer(e->t, b - 1)->size) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "tensor '%s' has no place in the plan (buffer '%s')",
                            t->name, root->name);
                ok = FALSE;
                break;
            }
            const TraceBuffer *buf = trace_buffer(e->t, b - 1);
            x->data = e->arena[buf->bin] + e->plan->offsets[b - 1] + off;
            gboolean constant = t->producer && t->producer->op && t->producer->op->plan_constant;
            if (t->is_graph_input || t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT || constant) {
                /* the bytes to put there before every run */
                ExecTensor staged = *x;
                if (t->is_graph_input && !t->init) {
                    staged.data = e->source[k] = exec_alloc(bytes, "a copy of an input or weight", error);
                    if (!staged.data)
                        ok = FALSE;
                    else
                        fill_input(&staged, t);
                } else {
                    ok = bind_weight(e, k, t, &staged, &e->source[k], bytes, "a copy of an input or weight", error);
                }
            }
            continue;
        }
        if (!bytes)
            continue;
        const Node *p = t->producer;
        if (liveness_node_is_view(p, &m->layout) && node_input(p, 0) && !m->bytes[node_input(p, 0)->id]) {
            e->view_of_input[k] = TRUE; /* a view of bytes outside the arena: points at them when it runs */
            continue;
        }
        gboolean computed = p && p->op && !p->op->plan_constant && !t->init; /* a constant its node computes */
        if (!computed &&
            (t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT || t->init || (p && p->op && p->op->plan_constant))) {
            ok = bind_weight(e, k, t, x, &e->own[k], bytes, "a tensor outside the arena", error);
            continue;
        }
        x->data = e->own[k] = exec_alloc(bytes, "a tensor outside the arena", error);
        if (!x->data)
            ok = FALSE;
        else if (t->is_graph_input)
            fill_input(x, t);
    }
    g_hash_table_unref(by_name);
    return ok;
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
        if (!ey->data || !ez->data || ey->dtype != DT_FLOAT || ez->dtype != DT_FLOAT || ey->count != ez->count ||
            e->view_of_input[y->id] || e->view_of_input[z->id])
            continue;
        float lo = -INFINITY, hi = INFINITY; /* Clip's bounds must be known before running (opset 11's inputs) */
        KernelEpilogue kind = kernel_row(act->op)->folds_as;
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

static gboolean is_16bit_float(const ExecTensor *t) { return t && (t->dtype == DT_FLOAT16 || t->dtype == DT_BFLOAT16); }

/* The steps that read or write data-dependent tensors; whether any is guarded. */
static void mark_dynamic(Executor *e)
{
    e->dynamic = g_new0(gboolean, e->schedule->len + 1);
    for (guint s = 0; s < e->schedule->len; s++) {
        const Node *n = e->schedule->pdata[s];
        e->guarded = e->guarded || n->guard;
        for (guint k = 0; k < n->inputs->len + n->outputs->len && !e->dynamic[s]; k++) {
            const Tensor *x = k < n->inputs->len ? node_input(n, k) : node_output(n, k - n->inputs->len);
            e->dynamic[s] = x && exec_tensor_bound(x) && x->dynamic;
        }
    }
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

Executor *executor_new_sharing(const Model *m, const GPtrArray *schedule, const AliasMap *aliases, const Trace *t,
                               const Plan *plan, const ExecOptions *options, ExecWeights *weights, GError **error)
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
    for (guint b = 0; b < plan->bins && ok; b++)
        ok = (e->arena[b] = exec_alloc(plan->bin_arena[b], "the planned arena", error)) != NULL;
    if (!ok || !bind(e, aliases, error)) {
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
            plain[s] = e->dynamic[s] || e->widened[s] || ((const Node *)schedule->pdata[s])->guard;
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
 * other needed next: resnet50 at two threads took 109-119 ms against 52 at one; made to sleep at once
 * instead, each woke for every small call (mobilenet_v3_small: 1.7 ms at one thread, 3.9-4.3 at two); one
 * pool: 41-43 and 1.9-2.0 ms (docs/executor.md). With our own kernels OpenBLAS's pool is the only one. */
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
 * its planned bytes after the call, as ONNX Runtime's CPU provider does for ops without half kernels. */
static gboolean run_widened(const KernelCall *call, GError **error)
{
    guint n = call->n_in + call->n_out;
    ExecTensor *wide = g_new0(ExecTensor, n + 1), **slots = g_new0(ExecTensor *, n + 1);
    for (guint k = 0; k < n; k++) {
        ExecTensor *t = k < call->n_in ? call->in[k] : call->out[k - call->n_in];
        slots[k] = t;
        if (!is_16bit_float(t))
            continue;
        wide[k] = *t;
        wide[k].dtype = DT_FLOAT;
        wide[k].data = t->count ? g_new(float, t->count) : NULL;
        for (gsize j = 0; k < call->n_in && j < t->count; j++)
            ((float *)wide[k].data)[j] = (float)kernel_elem_get_f(t, j);
        slots[k] = &wide[k];
    }
    KernelCall widened = *call;
    widened.in = slots;
    widened.out = slots + call->n_in;
    gboolean ok = call->row->kernel(&widened, error);
    for (guint k = call->n_in; ok && k < n; k++)
        if (slots[k] == &wide[k])
            for (gsize j = 0; j < wide[k].count; j++)
                kernel_elem_set_f(call->out[k - call->n_in], j, ((const float *)wide[k].data)[j]);
    for (guint k = 0; k < n; k++)
        g_free(slots[k] == &wide[k] ? wide[k].data : NULL);
    g_free(wide);
    g_free(slots);
    return ok;
}


/* Inputs of at most this many elements are handed to run-time inference with their contents. */
#define RUNTIME_VALUE_ELEMENTS 64

/* The run-time shapes of step s's outputs, from its inputs' run-time shapes (and contents, where the plan
 * held a value: shape arithmetic): the op's own inference on copies of its tensors. An output where
 * data-dependence starts is left to its kernel (kernel_set_dims); any other must fit its planned bytes. */
static gboolean runtime_shapes(Executor *e, const Node *n, GError **error)
{
    guint ni = n->inputs->len, no = n->outputs->len;
    const gint64 **in_dims = g_new0(const gint64 *, ni + 1);
    Value **in_values = g_new0(Value *, ni + 1);
    gint64 **out_dims = g_new0(gint64 *, no + 1);
    for (guint k = 0; k < ni; k++) {
        const Tensor *t = node_input(n, k);
        if (!t || !exec_tensor_bound(t) || (e->guarded && !e->computed[t->id]))
            continue;
        const ExecTensor *x = &e->tensors[t->id];
        if (t->dynamic)
            in_dims[k] = x->dims;
        /* contents a size may follow (shape arithmetic, Resize's sizes, Slice's bounds): as they are now */
        if ((t->value || x->count <= RUNTIME_VALUE_ELEMENTS) && x->count <= VALUE_MAX_ELEMENTS) {
            in_values[k] = value_new(x->dtype, x->count);
            for (gsize j = 0; j < x->count; j++) {
                if (dtype_is_float(x->dtype))
                    value_set_f(in_values[k], j, kernel_elem_get_f(x, j));
                else
                    value_set_i(in_values[k], j, kernel_elem_get_i(x, j));
            }
        }
    }
    for (guint k = 0; k < no; k++) {
        const Tensor *t = node_output(n, k);
        if (t && t->dynamic && exec_tensor_bound(t))
            out_dims[k] = g_new0(gint64, t->rank ? t->rank : 1);
    }
    gboolean ok = shape_infer_runtime(n, e->opset, in_dims, (const Value *const *)in_values, out_dims, error);
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
    for (guint k = 0; k < ni; k++)
        value_free(in_values[k]);
    for (guint k = 0; k < no; k++)
        g_free(out_dims[k]);
    g_free(in_dims);
    g_free(in_values);
    g_free(out_dims);
    return ok;
}

/* In a guarded schedule, whether step n runs in this run: its guard (if any) was computed and holds, and so
 * was everything it reads (a node of a branch not taken, or fed by one, does not run). The ops that read what
 * was computed (IfSelect, ConcatComputed) run on whatever was. */
static gboolean step_runs(const Executor *e, const Node *n)
{
    if (n->guard && (!e->computed[n->guard->id] || (kernel_elem_get_f(&e->tensors[n->guard->id], 0) != 0) != n->guard_when))
        return FALSE;
    for (guint k = 0; !(kernel_row(n->op) && kernel_row(n->op)->reads_computed) && k < n->inputs->len; k++) {
        const Tensor *x = node_input(n, k);
        if (x && exec_tensor_bound(x) && !e->computed[x->id])
            return FALSE;
    }
    for (guint k = 0; k < n->implicit_inputs->len; k++)
        if (!e->computed[((const Tensor *)n->implicit_inputs->pdata[k])->id])
            return FALSE;
    return TRUE;
}

gboolean executor_run(Executor *e, gboolean poison, GError **error)
{
    const Graph *g = e->g;
    if (poison)
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
        if (e->guarded ? !step_runs(e, n)
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
            memcpy(e->tensors[y0->id].data, from->data, from->count * sizeof(float));
        } else if (n->op->plan_constant || (y0 && e->view_of_input[y0->id]) || e->folded[s] || (e->once[s] && e->runs)) {
            /* bound already: a Constant's value, or a view pointing at the bytes it views; or done by the
             * step before (fold_epilogues); or constants computed in the first run (mark_once) */
        } else if (!kernel_row(n->op)) {
            write_folded(e, n);
        } else if (e->dynamic[s] && !runtime_shapes(e, n, error)) {
            ok = FALSE;
        } else {
            const KernelRow *row = kernel_row(n->op);
            /* the library where the row has it; never on shapes that change from run to run */
            gboolean library = e->options.kernels == EXEC_KERNELS_ONEDNN && row->library && !e->dynamic[s] &&
                               !e->widened[s];
            KernelCall call = {.node = n, .row = row, .opset = e->opset, .n_in = in->len, .n_out = out->len,
                               .in = (ExecTensor *const *)in->pdata, .out = (ExecTensor *const *)out->pdata,
                               .epilogue = e->epilogue[s], .epilogue_lo = e->epilogue_lo[s],
                               .epilogue_hi = e->epilogue_hi[s], .epilogue_bias = e->epilogue_bias[s],
                               .epilogue_bias_n = e->epilogue_bias_n[s], .workspace = e->workspace,
                               .prepared = library ? &e->prepared[s] : NULL, .winograd = e->options.winograd,
                               .skinny = e->options.skinny};
            ok = e->widened[s] ? run_widened(&call, error) : library ? row->library(&call, error) : row->kernel(&call, error);
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
    for (guint k = 0; k < n; k++) {
        const guint8 *lent = e->weights ? e->weights->data[k] : NULL; /* the lender outlives its executors */
        if (e->own[k] != lent)
            big_alloc_free(e->own[k]);
        if (e->source[k] != lent)
            big_alloc_free(e->source[k]);
    }
    for (guint b = 0; b < e->plan->bins; b++)
        big_alloc_free(e->arena[b]);
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
    g_free(e->dynamic);
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
