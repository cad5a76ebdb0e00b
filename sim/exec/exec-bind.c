/* exec-bind.c — every tensor bound to its bytes (see exec-internal.h): arena tensors at their planned
 * offsets, weights and constants filled (raw bytes, external data under the model's folder, folded values, or
 * pseudo-random when a file carries none), graph inputs generated to suit what reads them. */
#include "exec/exec-internal.h"
#include "base/files.h"
#include "base/units.h"
#include "exec/big-alloc.h"
#include "exec/layout.h"
#include "ops/ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static gboolean read_external(const Executor *e, const Tensor *t, const TensorData *d, void *to, gsize bytes,
                              GError **error)
{
    const char *location = NULL;
    guint64 offset = 0, length = bytes;
    for (guint k = 0; k + 1 < d->external->len; k += 2) {
        const char *key = d->external->pdata[k], *value = d->external->pdata[k + 1];
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
void *exec_alloc(guint64 bytes, const char *what, GError **error)
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

/* The contents the file gives a weight or constant: its initializer's, or its Constant node's `value` tensor's. */
static const TensorData *file_data(const Tensor *t)
{
    if (t->init)
        return t->init;
    const Node *p = t->producer;
    const Attr *a = p && p->op && p->op->plan_constant ? node_attr(p, "value") : NULL;
    return a && a->type == ATTR_TENSOR ? a->t : NULL;
}

/* A weight's or constant's values into x: raw bytes of the right size (an initializer's, or a Constant node's:
 * one past the values shape inference keeps, 65,536 elements, was filled with made-up values, Silero VAD v5's
 * STFT basis among them), external data, a folded value, else (shapes-only initializers) pseudo-random values. */
static gboolean fill_weight(Executor *e, const Tensor *t, ExecTensor *x, GError **error)
{
    gsize bytes = x->count * dtype_size(x->dtype);
    const TensorData *d = file_data(t);
    if (d && d->external)
        return read_external(e, t, d, x->data, bytes, error);
    if (d && d->raw && g_bytes_get_size(d->raw) == bytes) {
        memcpy(x->data, g_bytes_get_data(d->raw, NULL), bytes);
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

gboolean exec_bind(Executor *e, const AliasMap *m, GError **error)
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
            gboolean held = t->is_graph_input && e->held && g_hash_table_contains(e->held, t->name);
            if (!held && (t->is_graph_input || t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT || constant)) {
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
