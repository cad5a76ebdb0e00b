/* generate.c — a decoder's greedy generation run inside one plan (see generate.h). */
#include "driver/generate.h"
#include "base/error.h"
#include "driver/zoo.h"
#include "memory/kv.h"
#include "model/onnx.h"

#include <string.h>

void generate_result_init(GenerateResult *r)
{
    *r = (GenerateResult){0};
    report_entries_init(&r->plan);
    r->prompt = g_array_new(FALSE, FALSE, sizeof(gint64));
    r->tokens = g_array_new(FALSE, FALSE, sizeof(gint64));
    r->expected = g_array_new(FALSE, FALSE, sizeof(gint64));
}

void generate_result_clear(GenerateResult *r)
{
    report_entries_clear(&r->plan);
    if (r->prompt)
        g_array_unref(r->prompt);
    if (r->tokens)
        g_array_unref(r->tokens);
    if (r->expected)
        g_array_unref(r->expected);
    g_free(r->past_dim);
    *r = (GenerateResult){0};
}

ReportGenerate generate_report(const GenerateResult *r)
{
    return (ReportGenerate){.plan = &r->plan, .past_dim = r->past_dim, .prompt = (const gint64 *)r->prompt->data,
                            .prompt_len = r->prompt->len, .tokens = (const gint64 *)r->tokens->data,
                            .n_tokens = r->tokens->len, .expected = (const gint64 *)r->expected->data,
                            .n_expected = r->expected->len, .matched = r->matched, .seconds = r->seconds};
}

/* Seconds on the monotonic clock. */
static double now(void) { return (double)g_get_monotonic_time() / 1e6; }

/* Binds `name` in a shape that lacks it. */
static gboolean bind_missing(ShapeOptions *shape, const char *name, gint64 value, GError **error)
{
    if (!name || g_hash_table_contains(shape->dims, name))
        return TRUE;
    char *spec = g_strdup_printf("%s=%" G_GINT64_FORMAT, name, value);
    gboolean ok = shape_options_add_dim(shape, spec, error);
    g_free(spec);
    return ok;
}

/* The decode step's dims before it is loaded: its token input's (int64, [batch, seq]) length is 1 and a dim the
 * prompt bound keeps its value (the batch), unless --dim binds them; the one symbolic dim of its graph inputs left
 * is the cache length, returned. */
static char *past_dim(const EntrySpec *decode, const ShapeOptions *prefill, GError **error)
{
    Model *m = onnx_read_file(decode->path, error);
    if (!m)
        return NULL;
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < m->graph->inputs->len; k++) {
        const Tensor *t = m->graph->inputs->pdata[k];
        const TypeInfo *d = t->init ? NULL : t->declared;
        if (!d || !d->params || d->rank != 2 || (d->dtype != DT_INT64 && d->dtype != DT_INT32))
            continue;
        const gint64 *batch = d->params[0] ? g_hash_table_lookup(prefill->dims, d->params[0]) : NULL;
        ok = (!batch || bind_missing(decode->shape, d->params[0], *batch, error)) &&
             bind_missing(decode->shape, d->params[1], 1, error);
    }
    GPtrArray *names = g_ptr_array_new();
    for (guint k = 0; ok && k < m->graph->inputs->len; k++) {
        const Tensor *t = m->graph->inputs->pdata[k];
        for (int a = 0; !t->init && t->declared && t->declared->params && a < t->declared->rank; a++) {
            const char *name = t->declared->params[a];
            gboolean seen = FALSE;
            for (guint j = 0; name && j < names->len; j++)
                seen |= !strcmp(names->pdata[j], name);
            if (name && !seen && !g_hash_table_contains(decode->shape->dims, name))
                g_ptr_array_add(names, (gpointer)name);
        }
    }
    char *out = ok && names->len == 1 ? g_strdup(names->pdata[0]) : NULL;
    if (ok && !out) {
        GString *list = g_string_new(NULL);
        for (guint j = 0; j < names->len; j++)
            g_string_append_printf(list, "%s'%s'", j ? ", " : "", (const char *)names->pdata[j]);
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: --generate binds the decode step's cache length itself; "
                    "bind its other dims with --dim %s:NAME=VALUE (unbound: %s)", decode->path, decode->name,
                    names->len ? list->str : "none, so no dim is its cache length");
        g_string_free(list, TRUE);
    }
    g_ptr_array_unref(names);
    model_free(m);
    return out;
}

/* An entry's own plan: each buffer of its trace where the plan of all put it (the caller frees offsets). */
static Plan entry_plan(const Plan *all, const guint *joint, guint buffers)
{
    Plan p = {.strategy = all->strategy, .bins = all->bins, .bin_arena = all->bin_arena, .arena = all->arena,
              .lower_bound = all->lower_bound};
    p.offsets = g_new0(guint64, buffers + 1);
    for (guint b = 0; b < buffers; b++)
        p.offsets[b] = all->offsets[joint[b]];
    return p;
}

/* The argmax of the last row of the logits (the first float output that is no cache), the first on a tie. */
static gboolean next_token(const Executor *e, GHashTable *state, gint64 *token, GError **error)
{
    for (guint k = 0; k < executor_output_count(e); k++) {
        const char *name;
        const ExecTensor *x = executor_output(e, k, &name);
        if (g_hash_table_contains(state, name) || !dtype_is_float(x->dtype) || x->rank < 1 || !x->count)
            continue;
        gsize vocab = (gsize)x->dims[x->rank - 1], row = x->count / vocab - 1;
        gsize best = 0;
        for (gsize j = 1; j < vocab; j++)
            if (kernel_elem_get_f(x, row * vocab + j) > kernel_elem_get_f(x, row * vocab + best))
                best = j;
        *token = (gint64)best;
        return TRUE;
    }
    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "no output but the caches: no logits to take a token from");
    return FALSE;
}

/* The decode step's graph inputs: its pasts (the arena's) into `held`, the one other input (the token) named. */
static const char *decode_inputs(const Graph *g, const KvRequest *kv, GHashTable *held, GError **error)
{
    GArray *pairs = g_array_new(FALSE, FALSE, sizeof(KvPair));
    const char *token = NULL;
    gboolean ok = kv_pairs_find(g, kv, pairs, error);
    for (guint p = 0; ok && p < pairs->len; p++)
        g_hash_table_add(held, g_strdup(g_array_index(pairs, KvPair, p).past->name));
    for (guint k = 0; ok && k < g->inputs->len; k++) {
        const Tensor *t = g->inputs->pdata[k];
        if (t->init || g_hash_table_contains(held, t->name))
            continue;
        if (token || dtype_is_float(t->dtype) || !t->shape_known || t->rank != 2 || t->dims[1] != 1) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "--generate: the decode step takes '%s' besides its "
                        "cache%s%s: a step is fed one token id [batch 1, 1] and its cache", t->name,
                        token ? " and " : "", token ? token : "");
            ok = FALSE;
        }
        token = t->name;
    }
    if (ok && !token) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "--generate: the decode step takes no token input");
        ok = FALSE;
    }
    g_array_unref(pairs);
    return ok ? token : NULL;
}

/* Whether a step's trace has the longest step's buffers and lifetimes, none larger (its plan then holds). */
static gboolean same_structure(const Trace *t, const Trace *longest, gint64 length, GError **error)
{
    gboolean same = trace_count(t) == trace_count(longest) && t->steps == longest->steps;
    for (guint b = 0; same && b < trace_count(t); b++) {
        const TraceBuffer *x = trace_buffer(t, b), *y = trace_buffer(longest, b);
        same = !strcmp(x->name, y->name) && x->first == y->first && x->last == y->last && x->align == y->align &&
               x->bin == y->bin && x->size <= y->size && x->group == y->group && x->fixed == y->fixed;
    }
    if (!same)
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "--generate: the decode step at cache length %" G_GINT64_FORMAT
                    " traces other buffers than the longest step: the longest step's plan does not hold for it", length);
    return same;
}

/* Reads the prompt (the prefill's inputs) and binds the dims it gives into the prefill's shape. */
static GPtrArray *read_prompt(const GenerateJob *job, GenerateResult *out, GError **error)
{
    Model *m = onnx_read_file(job->prefill.path, error);
    GPtrArray *inputs = m ? zoo_read_inputs(m, job->inputs_dir, error) : NULL;
    GString *bound = g_string_new(NULL);
    if (inputs && !zoo_bind_dims(m, inputs, job->prefill.shape, bound, error))
        g_clear_pointer(&inputs, g_ptr_array_unref);
    for (guint k = 0; inputs && k < inputs->len; k++) {
        const TensorData *d = inputs->pdata[k];
        if (d->dtype != DT_INT64 || !d->raw)
            continue;
        gsize n = g_bytes_get_size(d->raw) / sizeof(gint64);
        g_array_append_vals(out->prompt, g_bytes_get_data(d->raw, NULL), (guint)n);
        break;
    }
    g_string_free(bound, TRUE);
    if (m)
        model_free(m);
    return inputs;
}

static gboolean read_expected(const char *dir, GArray *expected, GError **error)
{
    TensorData *d = zoo_read_output(dir, 0, error);
    gboolean ok = d && d->dtype == DT_INT64 && d->raw;
    if (d && !ok)
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: the tokens expected (output_0.pb) are int64 ids", dir);
    if (ok)
        g_array_append_vals(expected, g_bytes_get_data(d->raw, NULL),
                            (guint)(g_bytes_get_size(d->raw) / sizeof(gint64)));
    if (d)
        tensor_data_free(d);
    return ok;
}

gboolean generate_run(const GenerateJob *job, GenerateResult *out, GError **error)
{
    if (!job->tokens || job->tokens > GENERATE_MAX_TOKENS || !job->recipe->kv) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--generate takes 1 to %u tokens and a --kv-capacity",
                    GENERATE_MAX_TOKENS);
        return FALSE;
    }
    GPtrArray *prompt = read_prompt(job, out, error);
    if (!prompt)
        return FALSE;
    if (!out->prompt->len) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: the prompt has no int64 ids", job->inputs_dir);
        g_ptr_array_unref(prompt);
        return FALSE;
    }
    if (job->expect_dir && !read_expected(job->expect_dir, out->expected, error)) {
        g_ptr_array_unref(prompt);
        return FALSE;
    }
    gint64 first = (gint64)out->prompt->len, longest = first + (gint64)MAX(job->tokens, 2) - 2;
    out->past_dim = past_dim(&job->decode, job->prefill.shape, error);
    gboolean ok = out->past_dim != NULL;
    if (ok) {
        char *spec = g_strdup_printf("%s=%" G_GINT64_FORMAT, out->past_dim, longest);
        ok = shape_options_add_dim(job->decode.shape, spec, error);
        g_free(spec);
    }
    /* the plan: the prefill and the longest decode step in one arena */
    EntrySpec specs[2] = {job->prefill, job->decode};
    EntriesJob ej = {.entries = specs, .n = 2, .fuse = job->fuse, .recipe = job->recipe, .alias = job->alias,
                     .bins_path = job->bins_path, .strategy = job->strategy, .place = job->place, .verify = TRUE};
    Trace *all = NULL;
    Plan *plan = NULL;
    EntryPlanned *kept = NULL;
    ok = ok && entries_plan(&ej, &out->plan, &all, &plan, &kept, error);
    guint8 **arena = ok ? exec_arena_new(plan, error) : NULL;
    ok = arena != NULL;
    GHashTable *state = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint s = 0; ok && s < out->plan.state_buffers; s++) {
        const char *name = trace_buffer(all, s)->name;
        const Tensor *t = graph_tensor(kept[0].model.model->graph, name);
        g_hash_table_add(state, g_strdup(name));
        if (!t || !t->is_graph_output) { /* the first step's past would be bytes nothing wrote */
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: the prefill writes no cache '%s' (no graph output of "
                        "that name), which the decode step reads", job->prefill.path, name);
            ok = FALSE;
        }
    }
    ExecOptions exec = job->exec;
    exec.layouts = EXEC_LAYOUTS_PLAIN; /* the caches are read as they lie, step after step */
    /* the prefill over the prompt */
    if (ok) {
        Plan own = entry_plan(plan, kept[0].joint, trace_count(kept[0].built.trace));
        Executor *e = executor_new_in(kept[0].model.model, kept[0].built.schedule, kept[0].built.aliases,
                                      kept[0].built.trace, &own, &exec, arena, NULL, error);
        double start = now();
        gint64 token;
        ok = e && zoo_set_inputs(e, kept[0].model.model, prompt, error) && executor_run(e, job->poison, error) &&
             next_token(e, state, &token, error);
        out->seconds += now() - start;
        if (ok)
            g_array_append_val(out->tokens, token);
        else
            g_prefix_error(error, "%s: ", job->prefill.path);
        executor_free(e);
        g_free(own.offsets);
    }
    /* the decode steps, each at its cache length, in the longest step's places */
    for (gint64 length = first; ok && out->tokens->len < job->tokens; length++) {
        DriverModel at = {0};
        PipelineResult built = {0};
        const EntryPlanned *step = &kept[1];
        if (length != longest) {
            ShapeOptions *shape = job->decode.shape;
            char *spec = g_strdup_printf("%s=%" G_GINT64_FORMAT, out->past_dim, length);
            g_hash_table_remove(shape->dims, out->past_dim);
            ok = shape_options_add_dim(shape, spec, error) &&
                 driver_model_load(job->decode.path, NULL, shape, job->fuse, NULL, &at, error) &&
                 driver_trace(at.model->graph, job->recipe, job->alias, job->bins_path, &built, error) &&
                 same_structure(built.trace, kept[1].built.trace, length, error);
            g_free(spec);
        }
        const Model *model = length != longest ? at.model : step->model.model;
        const PipelineResult *traced = length != longest ? &built : &step->built;
        GHashTable *held = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        const char *token_input = ok ? decode_inputs(model->graph, job->recipe->kv, held, error) : NULL;
        Plan own = entry_plan(plan, step->joint, trace_count(step->built.trace));
        Executor *e = token_input ? executor_new_in(model, traced->schedule, traced->aliases, traced->trace, &own,
                                                    &exec, arena, held, error)
                                  : NULL;
        ok = e != NULL;
        if (ok) {
            gint64 last = g_array_index(out->tokens, gint64, out->tokens->len - 1), token;
            TensorData *d = tensor_data_new(token_input, DT_INT64, 2, (const gint64[]){1, 1});
            d->raw = g_bytes_new(&last, sizeof last);
            double start = now();
            ok = executor_set_input(e, token_input, d, error) && executor_run(e, job->poison, error) &&
                 next_token(e, state, &token, error);
            out->seconds += now() - start;
            tensor_data_free(d);
            if (ok)
                g_array_append_val(out->tokens, token);
        }
        if (!ok)
            g_prefix_error(error, "%s at %s=%" G_GINT64_FORMAT ": ", job->decode.path, out->past_dim, length);
        executor_free(e);
        g_free(own.offsets);
        g_hash_table_unref(held);
        pipeline_result_clear(&built);
        driver_model_clear(&at);
    }
    for (guint k = 0; k < out->tokens->len && k < out->expected->len; k++) {
        if (g_array_index(out->tokens, gint64, k) != g_array_index(out->expected, gint64, k))
            break;
        out->matched++;
    }
    g_hash_table_unref(state);
    exec_arena_free(arena, plan ? plan->bins : 0);
    entries_planned_free(kept, 2);
    if (plan)
        plan_free(plan);
    if (all)
        trace_free(all);
    g_ptr_array_unref(prompt);
    return ok;
}
