/* entries.c — several entry points planned in one arena (see entries.h). */
#include "driver/entries.h"
#include "base/error.h"
#include "memory/kv.h"

#include <string.h>

char *entries_name(const char *path)
{
    char *base = g_path_get_basename(path);
    if (g_str_has_suffix(base, ".onnx"))
        base[strlen(base) - strlen(".onnx")] = '\0';
    return base;
}

/* Splits a spec "ENTRY:NAME=VALUE" naming one of `names` into the entry's index and "NAME=VALUE" (*spec_out, newly
 * allocated); a spec naming none gives -1 and a copy. */
static gint dim_target(const char *spec, char *const *names, guint n, char **spec_out)
{
    const char *eq = strchr(spec, '='), *colon = strchr(spec, ':');
    if (colon && (!eq || colon < eq))
        for (guint k = 0; k < n; k++)
            if (strlen(names[k]) == (gsize)(colon - spec) && !strncmp(spec, names[k], (gsize)(colon - spec))) {
                *spec_out = g_strdup(colon + 1);
                return (gint)k;
            }
    *spec_out = g_strdup(spec);
    return -1;
}

gboolean entries_bind(const char *const *paths, guint n, const char *const *dims, const char *const *bounds,
                      char **names, ShapeOptions *shapes, GError **error)
{
    for (guint k = 0; k < n; k++) {
        names[k] = entries_name(paths[k]);
        for (guint j = 0; j < k; j++)
            if (!strcmp(names[j], names[k])) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--graph %s and --graph %s have one name, '%s': entries "
                            "are told apart by their file names", paths[j], paths[k], names[k]);
                return FALSE;
            }
    }
    for (const char *const *d = dims; d && *d; d++) {
        char *spec;
        gint to = dim_target(*d, names, n, &spec);
        gboolean ok = !strchr(strchr(spec, '=') ? strchr(spec, '=') : spec, ':');
        if (!ok)
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s': entries take one value a dim", *d);
        for (guint k = 0; ok && k < n; k++)
            if (to < 0 || (guint)to == k)
                ok = shape_options_add_dim(&shapes[k], spec, error);
        g_free(spec);
        if (!ok)
            return FALSE;
    }
    for (const char *const *b = bounds; b && *b; b++)
        for (guint k = 0; k < n; k++)
            if (!shape_options_add_bound(&shapes[k], *b, error))
                return FALSE;
    return TRUE;
}

/* One entry loaded and traced. */
typedef struct {
    DriverModel model;
    GArray *pairs;           /* KvPair of its graph */
    PipelineResult built;
    GHashTable *apart;       /* the state's names it keeps apart (not its own pairs') */
    guint *joint;            /* per buffer of built.trace: its id in the trace of all */
} Entry;

static void entry_clear(Entry *e)
{
    pipeline_result_clear(&e->built);
    driver_model_clear(&e->model);
    if (e->pairs)
        g_array_unref(e->pairs);
    if (e->apart)
        g_hash_table_unref(e->apart);
    g_free(e->joint);
}

void entries_planned_free(EntryPlanned *kept, guint n)
{
    for (guint k = 0; kept && k < n; k++) {
        pipeline_result_clear(&kept[k].built);
        driver_model_clear(&kept[k].model);
        g_free(kept[k].joint);
    }
    g_free(kept);
}

/* The state: every pair's past and present name -> the pair's present name (the state buffer's name). */
static gboolean state_names(const EntriesJob *job, Entry *es, GHashTable *state, GError **error)
{
    for (guint k = 0; k < job->n; k++)
        for (guint p = 0; p < es[k].pairs->len; p++) {
            const KvPair *pair = &g_array_index(es[k].pairs, KvPair, p);
            const char *had = g_hash_table_lookup(state, pair->past->name);
            if (had && strcmp(had, pair->present->name)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: the cache '%s' is the past of '%s' here and of "
                            "'%s' in another entry", job->entries[k].name, pair->past->name, pair->present->name, had);
                return FALSE;
            }
            g_hash_table_insert(state, (gpointer)pair->past->name, (gpointer)pair->present->name);
            g_hash_table_insert(state, (gpointer)pair->present->name, (gpointer)pair->present->name);
        }
    return TRUE;
}

/* Every state tensor in the arena lies in the buffer of its own name's state (its pair's present; the trace names a
 * buffer by its root): a cache inside another buffer would lie elsewhere in this entry than in the others. */
static gboolean state_is_rooted(const AliasMap *m, GHashTable *state, GError **error)
{
    for (guint k = 0; k < m->g->tensors->len; k++) {
        const Tensor *t = m->g->tensors->pdata[k];
        const char *name = m->bytes[k] ? g_hash_table_lookup(state, t->name) : NULL;
        if (!name)
            continue;
        const Tensor *root = m->g->tensors->pdata[alias_root(m, (gint)k, NULL)];
        if (g_strcmp0(g_hash_table_lookup(state, root->name), name)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "the cache '%s' lies inside '%s', another buffer: it would "
                        "not be at the cache's offset", t->name, root->name);
            return FALSE;
        }
    }
    return TRUE;
}

/* The most bytes of buffers other than the state's live at one step of an entry's trace. */
static guint64 transient_peak(const Trace *t, const gboolean *is_state)
{
    guint64 *delta = g_new0(guint64, (gsize)t->steps + 1), *gone = g_new0(guint64, (gsize)t->steps + 1), live = 0,
            peak = 0;
    for (guint b = 0; b < trace_count(t); b++)
        if (!is_state[b]) {
            delta[trace_buffer(t, b)->first] += trace_buffer(t, b)->size;
            gone[trace_buffer(t, b)->last + 1] += trace_buffer(t, b)->size;
        }
    for (guint s = 0; s < t->steps; s++) {
        live += delta[s];
        live -= gone[s];
        peak = MAX(peak, live);
    }
    g_free(delta);
    g_free(gone);
    return peak;
}

/* The trace of all entries: the state first (a buffer each, the largest size and alignment any entry gives it,
 * live from the first step to the last), then each entry's other buffers in its own stretch of steps, named
 * "ENTRY/NAME", their rigid groups renumbered apart. */
static Trace *joined(const EntriesJob *job, Entry *es, GHashTable *state, ReportEntries *out, GError **error)
{
    Trace *all = trace_new(job->entries[0].path);
    GHashTable *slot = g_hash_table_new(g_str_hash, g_str_equal); /* state name -> buffer id + 1 */
    gboolean **is_state = g_new0(gboolean *, job->n), ok = TRUE;
    for (guint k = 0; ok && k < job->n; k++) { /* the state */
        const Trace *t = es[k].built.trace;
        is_state[k] = g_new0(gboolean, trace_count(t) + 1);
        es[k].joint = g_new0(guint, trace_count(t) + 1);
        for (guint b = 0; ok && b < trace_count(t); b++) {
            const TraceBuffer *tb = trace_buffer(t, b);
            const char *name = g_hash_table_lookup(state, tb->name);
            if (!name)
                continue;
            is_state[k][b] = TRUE;
            g_array_index(out->entries, ReportEntry, k).state_bytes += tb->size;
            guint id = GPOINTER_TO_UINT(g_hash_table_lookup(slot, name));
            if (!id) {
                id = trace_add(all, name, tb->size, tb->align, 0, 0) + 1;
                trace_buffer(all, id - 1)->bin = tb->bin;
                g_hash_table_insert(slot, (gpointer)name, GUINT_TO_POINTER(id));
            }
            es[k].joint[b] = id - 1;
            TraceBuffer *s = trace_buffer(all, id - 1);
            if (tb->fixed != TRACE_NONE || tb->group != TRACE_NONE || s->bin != tb->bin) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "%s: the cache '%s' is pinned, in a rigid group or in "
                            "another memory bin than in another entry: the entries place it together",
                            job->entries[k].path, tb->name);
                ok = FALSE;
            }
            s->size = MAX(s->size, tb->size);
            s->align = MAX(s->align, tb->align);
        }
    }
    out->state_buffers = trace_count(all);
    guint steps = 0;
    gint64 groups = 0;
    for (guint k = 0; ok && k < job->n; k++) { /* each entry's own buffers, in its steps */
        const Trace *t = es[k].built.trace;
        gint64 most_group = -1;
        for (guint b = 0; b < trace_count(t); b++) {
            const TraceBuffer *tb = trace_buffer(t, b);
            if (is_state[k][b])
                continue;
            char *name = g_strdup_printf("%s/%s", job->entries[k].name, tb->name);
            guint id = trace_add(all, name, tb->size, tb->align, steps + tb->first, steps + tb->last);
            g_free(name);
            es[k].joint[b] = id;
            TraceBuffer *n = trace_buffer(all, id);
            n->fixed = tb->fixed;
            n->bin = tb->bin;
            n->reuse = tb->reuse;
            if (tb->group != TRACE_NONE) {
                n->group = groups + tb->group;
                n->group_offset = tb->group_offset;
                most_group = MAX(most_group, tb->group);
            }
        }
        g_array_index(out->entries, ReportEntry, k).transient_peak = transient_peak(t, is_state[k]);
        groups += most_group + 1;
        steps += t->steps;
    }
    all->steps = MAX(steps, 1);
    for (guint s = 0; s < out->state_buffers; s++) {
        trace_buffer(all, s)->last = all->steps - 1;
        out->state_bytes += trace_buffer(all, s)->size;
    }
    for (guint k = 0; k < job->n; k++)
        g_free(is_state[k]);
    g_free(is_state);
    g_hash_table_unref(slot);
    if (ok && !out->state_buffers) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "the entries share no state: plan them together with their KV "
                    "caches at a capacity (--kv-capacity N), or each on its own");
        ok = FALSE;
    }
    if (!ok) {
        trace_free(all);
        return NULL;
    }
    return all;
}

/* Entry k planned on its own by the job's strategy, its state as the one arena holds it (each buffer at its largest
 * size, `all`'s, live through the entry): ReportEntry.alone_arena. */
static gboolean alone(const EntriesJob *job, guint k, const Trace *own, GHashTable *state, const Trace *all,
                      ReportEntries *out, GError **error)
{
    Trace *t = trace_copy(own);
    for (guint b = 0; b < trace_count(t); b++) {
        TraceBuffer *tb = trace_buffer(t, b);
        const char *name = g_hash_table_lookup(state, tb->name);
        for (guint s = 0; name && s < out->state_buffers; s++) /* the state comes first in `all` */
            if (!strcmp(trace_buffer(all, s)->name, name)) {
                tb->size = trace_buffer(all, s)->size;
                tb->first = 0;
                tb->last = t->steps - 1;
            }
    }
    Plan *plan = driver_plan(job->strategy, t, job->place, job->verify, NULL, error);
    trace_free(t);
    if (!plan)
        return FALSE;
    g_array_index(out->entries, ReportEntry, k).alone_arena = plan->arena;
    plan_free(plan);
    return TRUE;
}

gboolean entries_plan(const EntriesJob *job, ReportEntries *out, Trace **trace, Plan **plan, EntryPlanned **kept,
                      GError **error)
{
    Entry *es = g_new0(Entry, job->n);
    GHashTable *state = g_hash_table_new(g_str_hash, g_str_equal);
    gboolean ok = job->n >= 2 && job->n <= ENTRIES_MAX;
    if (!ok)
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "entries: 2 to %d models planned together, not %u", ENTRIES_MAX,
                    job->n);
    /* each loaded, its cache pairs found */
    for (guint k = 0; ok && k < job->n; k++) {
        es[k].pairs = g_array_new(FALSE, FALSE, sizeof(KvPair));
        ok = driver_model_load(job->entries[k].path, NULL, job->entries[k].shape, job->fuse, NULL, &es[k].model,
                               error) &&
             (!job->recipe->kv || kv_pairs_find(es[k].model.model->graph, job->recipe->kv, es[k].pairs, error));
        if (!ok)
            g_prefix_error(error, "%s: ", job->entries[k].path);
    }
    ok = ok && state_names(job, es, state, error);
    /* each traced: the state kept in buffers of its own where it is not the entry's own cache pair */
    for (guint k = 0; ok && k < job->n; k++) {
        es[k].apart = g_hash_table_new(g_str_hash, g_str_equal);
        GHashTable *own = g_hash_table_new(g_str_hash, g_str_equal);
        for (guint p = 0; p < es[k].pairs->len; p++) {
            g_hash_table_add(own, (gpointer)g_array_index(es[k].pairs, KvPair, p).past->name);
            g_hash_table_add(own, (gpointer)g_array_index(es[k].pairs, KvPair, p).present->name);
        }
        GHashTableIter it;
        gpointer name;
        g_hash_table_iter_init(&it, state);
        while (g_hash_table_iter_next(&it, &name, NULL))
            if (!g_hash_table_contains(own, name))
                g_hash_table_add(es[k].apart, name);
        g_hash_table_unref(own);
        PipelineRecipe r = *job->recipe;
        r.keep_apart = es[k].apart;
        if (!es[k].pairs->len)
            r.kv = NULL; /* a prefill: no pair of its own, its presents the state's */
        ok = driver_trace(es[k].model.model->graph, &r, job->alias, job->bins_path, &es[k].built, error) &&
             state_is_rooted(es[k].built.aliases, state, error);
        if (!ok) {
            g_prefix_error(error, "%s: ", job->entries[k].path);
            break;
        }
        ReportEntry e = {.name = g_strdup(job->entries[k].name), .steps = es[k].built.trace->steps,
                         .buffers = trace_count(es[k].built.trace)};
        GString *dims = g_string_new(NULL);
        GList *names = g_list_sort(g_hash_table_get_keys(job->entries[k].shape->dims), (GCompareFunc)strcmp);
        for (GList *l = names; l; l = l->next)
            g_string_append_printf(dims, "%s%s=%" G_GINT64_FORMAT, dims->len ? "," : "", (const char *)l->data,
                                   *(const gint64 *)g_hash_table_lookup(job->entries[k].shape->dims, l->data));
        g_list_free(names);
        e.dims = g_string_free(dims, FALSE);
        g_array_append_val(out->entries, e);
    }
    Trace *all = ok ? joined(job, es, state, out, error) : NULL;
    for (guint k = 0; all && k < job->n; k++) /* alone, by the same strategy: what the one arena is measured by */
        if (!alone(job, k, es[k].built.trace, state, all, out, error)) {
            g_prefix_error(error, "%s: ", job->entries[k].path);
            g_clear_pointer(&all, trace_free);
        }
    Plan *placed = all ? driver_plan(job->strategy, all, job->place, job->verify, NULL, error) : NULL;
    if (placed) {
        out->steps = all->steps;
        out->buffers = trace_count(all);
        out->arena = placed->arena;
        out->lower_bound = placed->lower_bound;
        out->verified = job->verify;
    }
    if (placed && kept) {
        *kept = g_new0(EntryPlanned, job->n);
        for (guint k = 0; k < job->n; k++) {
            (*kept)[k] = (EntryPlanned){es[k].model, es[k].built, es[k].joint};
            es[k].model = (DriverModel){0};
            es[k].built = (PipelineResult){0};
            es[k].joint = NULL;
        }
    }
    for (guint k = 0; k < job->n; k++)
        entry_clear(&es[k]);
    g_free(es);
    g_hash_table_unref(state);
    if (!placed) {
        if (all)
            trace_free(all);
        return FALSE;
    }
    if (trace)
        *trace = all;
    else
        trace_free(all);
    if (plan)
        *plan = placed;
    else
        plan_free(placed);
    return TRUE;
}
