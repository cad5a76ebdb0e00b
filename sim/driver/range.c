/* range.c — a model planned over ranges of its dims (range.h): the points from the highest down, a plan per structure
 * of the trace moved to each of its points and verified there, points placed on their own where no moved plan reaches
 * the bound, and the arena and the bound fitted as exact piecewise polynomials. */
#include "driver/range.h"

#include "base/error.h"
#include "driver/driver.h"
#include "plan/verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

gboolean range_spec_is_range(const char *spec)
{
    const char *eq = strrchr(spec, '=');
    return eq && strchr(eq, ':') != NULL;
}

/* A positive decimal integer, the whole of [p, end). */
static gboolean parse_positive(const char *p, const char *end, gint64 *out)
{
    char *text = g_strndup(p, (gsize)(end - p)), *stop;
    errno = 0;
    long long v = *text ? strtoll(text, &stop, 10) : 0;
    gboolean ok = *text && !*stop && !errno && v > 0 && g_ascii_isdigit(*text);
    g_free(text);
    *out = v;
    return ok;
}

gboolean range_dim_parse(const char *spec, ReportRangeDim *out, GError **error)
{
    memset(out, 0, sizeof *out);
    const char *eq = strrchr(spec, '=');
    const char *c1 = eq ? strchr(eq, ':') : NULL, *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    gint64 lo = 0, hi = 0, step = 1;
    if (!eq || eq == spec || !c1 || (c2 && strchr(c2 + 1, ':')) || !parse_positive(eq + 1, c1, &lo) ||
        !parse_positive(c1 + 1, c2 ? c2 : c1 + strlen(c1), &hi) || (c2 && !parse_positive(c2 + 1, c2 + strlen(c2), &step))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s' is not NAME=LO:HI or NAME=LO:HI:STEP with positive "
                    "integers", spec);
        return FALSE;
    }
    if (hi < lo) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s': HI is below LO", spec);
        return FALSE;
    }
    if ((hi - lo) % step) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s': HI is not LO plus a multiple of STEP (the last point "
                    "would be %" G_GINT64_FORMAT ")", spec, hi - (hi - lo) % step);
        return FALSE;
    }
    *out = (ReportRangeDim){g_strndup(spec, (gsize)(eq - spec)), lo, hi, step};
    return TRUE;
}

/* A plan that moves: the buffers of a structure in the order of their offsets (bin by bin), and for each the buffers
 * it lay above among those live with it. */
typedef struct {
    Trace *t;           /* the structure (the point it was made at) */
    guint64 *offsets;
    guint *order;       /* buffer ids by (bin, offset) */
    gsize *first_pred;  /* CSR: preds of buffer b are preds[first_pred[b] .. first_pred[b + 1]) */
    guint *preds;
    gsize edges;
    guint64 arena;      /* its arena where it was made */
} Moved;

static void moved_free(Moved *m)
{
    if (!m)
        return;
    trace_free(m->t);
    g_free(m->offsets);
    g_free(m->order);
    g_free(m->first_pred);
    g_free(m->preds);
    g_free(m);
}

static gint by_bin_offset(gconstpointer a, gconstpointer b, gpointer data)
{
    const Moved *m = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    guint bx = trace_buffer(m->t, x)->bin, by = trace_buffer(m->t, y)->bin;
    if (bx != by)
        return bx < by ? -1 : 1;
    if (m->offsets[x] != m->offsets[y])
        return m->offsets[x] < m->offsets[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static gint by_first(gconstpointer a, gconstpointer b, gpointer data)
{
    const Trace *t = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    guint fx = trace_buffer(t, x)->first, fy = trace_buffer(t, y)->first;
    if (fx != fy)
        return fx < fy ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The pairs by a sweep over time: each buffer meets the buffers still live when it starts (O(n · most live)). */
static Moved *moved_new(Trace *t, const guint64 *offsets, guint64 arena)
{
    guint n = trace_count(t);
    Moved *m = g_new0(Moved, 1);
    m->t = t;
    m->arena = arena;
    m->offsets = g_memdup2(offsets, sizeof(guint64) * (n + 1));
    m->order = g_new(guint, n + 1);
    guint *by_start = g_new(guint, n + 1);
    for (guint k = 0; k < n; k++)
        m->order[k] = by_start[k] = k;
    g_qsort_with_data(m->order, (gint)n, sizeof(guint), by_bin_offset, m);
    g_qsort_with_data(by_start, (gint)n, sizeof(guint), by_first, t);
    GArray *pairs = g_array_new(FALSE, FALSE, sizeof(guint) * 2); /* (below, above) */
    GArray *live = g_array_new(FALSE, FALSE, sizeof(guint));
    gsize *count = g_new0(gsize, n + 1);
    for (guint i = 0; i < n; i++) {
        guint b = by_start[i];
        const TraceBuffer *tb = trace_buffer(t, b);
        guint kept = 0;
        for (guint j = 0; j < live->len; j++) {
            guint a = g_array_index(live, guint, j);
            const TraceBuffer *ta = trace_buffer(t, a);
            if (ta->last < tb->first)
                continue;
            g_array_index(live, guint, kept++) = a;
            if (ta->bin != tb->bin)
                continue;
            guint pair[2] = {offsets[a] < offsets[b] ? a : b, offsets[a] < offsets[b] ? b : a};
            g_array_append_val(pairs, pair);
            count[pair[1]]++;
        }
        g_array_set_size(live, kept);
        g_array_append_val(live, b);
    }
    m->edges = pairs->len;
    m->first_pred = g_new0(gsize, n + 1);
    for (guint b = 0; b < n; b++)
        m->first_pred[b + 1] = m->first_pred[b] + count[b];
    m->preds = g_new(guint, pairs->len + 1);
    memset(count, 0, sizeof(gsize) * (n + 1));
    for (guint k = 0; k < pairs->len; k++) {
        const guint *pair = &g_array_index(pairs, guint, 2 * k);
        m->preds[m->first_pred[pair[1]] + count[pair[1]]++] = pair[0];
    }
    g_free(count);
    g_free(by_start);
    g_array_unref(pairs);
    g_array_unref(live);
    return m;
}

/* The plan moved to trace t (of m's structure): offsets and per-bin arenas (each bin's highest end rounded up to its
 * largest alignment, as place.c rounds), their sum returned. */
static guint64 moved_apply(const Moved *m, const Trace *t, guint64 *offsets, guint64 *bin_arena)
{
    guint n = trace_count(t), bins = trace_bins(t);
    guint64 *align = g_new0(guint64, bins + 1);
    memset(bin_arena, 0, sizeof(guint64) * bins);
    for (guint i = 0; i < n; i++) {
        guint b = m->order[i];
        const TraceBuffer *tb = trace_buffer(t, b);
        guint64 at = 0;
        for (gsize k = m->first_pred[b]; k < m->first_pred[b + 1]; k++) {
            guint a = m->preds[k];
            at = MAX(at, offsets[a] + trace_buffer(t, a)->size);
        }
        offsets[b] = tb->fixed != TRACE_NONE ? (guint64)tb->fixed : round_up(at, tb->align);
        bin_arena[tb->bin] = MAX(bin_arena[tb->bin], offsets[b] + tb->size);
        align[tb->bin] = MAX(align[tb->bin], tb->align);
    }
    guint64 arena = 0;
    for (guint bin = 0; bin < bins; bin++)
        arena += bin_arena[bin] = round_up(bin_arena[bin], MAX(align[bin], 1));
    g_free(align);
    return arena;
}

/* Only sizes differ. */
static gboolean same_structure(const Trace *a, const Trace *b)
{
    if (a->steps != b->steps || trace_count(a) != trace_count(b))
        return FALSE;
    for (guint k = 0; k < trace_count(a); k++) {
        const TraceBuffer *x = trace_buffer(a, k), *y = trace_buffer(b, k);
        if (x->first != y->first || x->last != y->last || x->align != y->align || x->fixed != y->fixed ||
            x->group != y->group || x->group_offset != y->group_offset || x->bin != y->bin || x->reuse != y->reuse ||
            strcmp(x->name, y->name))
            return FALSE;
    }
    return TRUE;
}

/* The bound a plan is proven at (place.c's, bin by bin): the most bytes live at a step and the highest pinned end,
 * rounded up to the bin's largest alignment. */
static guint64 rounded_bound(const Trace *t)
{
    guint bins = trace_bins(t);
    guint64 total = 0;
    for (guint bin = 0; bin < bins; bin++) {
        guint64 *live = trace_live_bytes(t, (gint)bin), most = 0, align = 1;
        for (guint s = 0; s < t->steps; s++)
            most = MAX(most, live[s]);
        for (guint k = 0; k < trace_count(t); k++) {
            const TraceBuffer *b = trace_buffer(t, k);
            if (b->bin != bin)
                continue;
            align = MAX(align, b->align);
            if (b->fixed != TRACE_NONE)
                most = MAX(most, (guint64)b->fixed + b->size);
        }
        total += round_up(most, align);
        g_free(live);
    }
    return total;
}

static gboolean grouped(const Trace *t)
{
    for (guint k = 0; k < trace_count(t); k++)
        if (trace_buffer(t, k)->group != TRACE_NONE)
            return TRUE;
    return FALSE;
}

/* One structure: the plan of its highest point, and the last plan a point of it was placed with, when smaller there. */
typedef struct {
    Moved *top, *recent;
    gsize plan; /* its ReportRangePlan */
} Structure;

/* Point x loaded, inferred and traced as one binding is. */
static Trace *point_trace(const RangeJob *job, const gint64 *x, GError **error)
{
    for (guint d = 0; d < job->ndims; d++)
        g_hash_table_replace(job->shape->dims, g_strdup(job->dims[d].name), g_memdup2(&x[d], sizeof(gint64)));
    DriverModel model;
    PipelineResult built = {0};
    Trace *t = NULL;
    if (driver_model_load(job->path, NULL, job->shape, job->fuse, NULL, &model, error) &&
        driver_trace(model.model->graph, job->recipe, job->alias, job->bins_path, &built, error))
        t = g_steal_pointer(&built.trace);
    pipeline_result_clear(&built);
    driver_model_clear(&model);
    for (guint d = 0; d < job->ndims; d++)
        g_hash_table_remove(job->shape->dims, job->dims[d].name);
    return t;
}

static char *point_name(const RangeJob *job, const gint64 *x)
{
    GString *s = g_string_new(NULL);
    for (guint d = 0; d < job->ndims; d++)
        g_string_append_printf(s, "%s%s=%" G_GINT64_FORMAT, d ? "," : "", job->dims[d].name, x[d]);
    return g_string_free(s, FALSE);
}

/* The arena of a plan moved to t, or G_MAXUINT64 when it does not verify there (a pinned offset it would cross). */
static guint64 moved_arena(const Moved *m, const Trace *t, guint64 *offsets, guint64 *bin_arena)
{
    guint64 arena = moved_apply(m, t, offsets, bin_arena);
    return verify_offsets(t, offsets, bin_arena, NULL) ? arena : G_MAXUINT64;
}

gboolean range_plan(const RangeJob *job, ReportRange *out, GError **error)
{
    gint64 began = g_get_monotonic_time();
    out->ndims = job->ndims;
    out->points = 1;
    if (job->ndims == 0 || job->ndims > PIECEWISE_MAX_VARS) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "a range has 1 to %d dims, not %u", PIECEWISE_MAX_VARS, job->ndims);
        return FALSE;
    }
    for (guint d = 0; d < job->ndims; d++) {
        const ReportRangeDim *dim = &job->dims[d];
        out->dims[d] = (ReportRangeDim){g_strdup(dim->name), dim->lo, dim->hi, dim->step};
        gsize count = (gsize)((dim->hi - dim->lo) / dim->step + 1);
        if (count > RANGE_MAX_POINTS || out->points > RANGE_MAX_POINTS / count) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "the range has more than %" G_GSIZE_FORMAT " points in all "
                        "(each is loaded and traced): narrow it or give a STEP", RANGE_MAX_POINTS);
            return FALSE;
        }
        out->points *= count;
        for (guint e = 0; e < d; e++)
            if (!strcmp(dim->name, job->dims[e].name)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim %s is given twice", dim->name);
                return FALSE;
            }
        if (g_hash_table_contains(job->shape->dims, dim->name)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim %s is given both a value and a range", dim->name);
            return FALSE;
        }
    }
    gsize n = out->points;
    out->arena = g_new0(guint64, n);
    out->lower_bound = g_new0(guint64, n);
    out->plan_arena = g_new0(guint64, n);
    out->placed = g_new0(guint8, n);
    out->checked = job->check ? g_new0(guint64, n) : NULL;
    out->plans = g_array_new(FALSE, TRUE, sizeof(ReportRangePlan));
    GArray *structures = g_array_new(FALSE, TRUE, sizeof(Structure));
    gboolean ok = TRUE;
    for (gsize i = n; ok && i-- > 0;) { /* from the highest point down: a structure's first point is its top */
        gint64 x[PIECEWISE_MAX_VARS];
        report_range_point(out, i, x);
        Trace *t = point_trace(job, x, error);
        ok = t != NULL;
        Plan *own = NULL;
        if (ok) {
            out->lower_bound[i] = trace_lower_bound(t);
            out->grouped = out->grouped || grouped(t);
            guint64 bound = rounded_bound(t), best = G_MAXUINT64;
            guint nb = trace_count(t), bins = trace_bins(t);
            guint64 *offsets = g_new(guint64, nb + 1), *bin_arena = g_new(guint64, bins + 1);
            Structure *s = NULL;
            for (guint k = 0; !out->grouped && !s && k < structures->len; k++)
                if (same_structure(g_array_index(structures, Structure, k).top->t, t))
                    s = &g_array_index(structures, Structure, k);
            if (s) {
                ReportRangePlan *p = &g_array_index(out->plans, ReportRangePlan, s->plan);
                guint64 moved = moved_arena(s->top, t, offsets, bin_arena);
                if (moved != G_MAXUINT64) {
                    out->plan_arena[i] = best = moved;
                    p->points++;
                } else {
                    p->refused++;
                }
                if (best > bound && s->recent)
                    best = MIN(best, moved_arena(s->recent, t, offsets, bin_arena));
            }
            if (best > bound) { /* no plan moved here reaches the bound: placed on its own */
                own = driver_plan(job->strategy, t, job->place, TRUE, NULL, error);
                ok = own != NULL;
            }
            if (own) {
                out->placed[i] = 1;
                out->placed_points++;
                if (!s && !out->grouped && structures->len < REPORT_RANGE_MAX_PLANS) {
                    Structure fresh = {.top = moved_new(t, own->offsets, own->arena), .plan = out->plans->len};
                    ReportRangePlan p = {.top = i, .points = 1, .buffers = nb, .edges = fresh.top->edges,
                                         .arena_at_top = own->arena};
                    g_array_append_val(structures, fresh);
                    g_array_append_val(out->plans, p);
                    out->plan_arena[i] = own->arena;
                    t = NULL; /* the structure's now */
                } else if (!s && !out->grouped) {
                    out->alone++;
                } else if (own->arena < best) {
                    moved_free(s->recent);
                    s->recent = moved_new(t, own->offsets, own->arena);
                    t = NULL;
                }
                best = MIN(best, own->arena);
            }
            out->arena[i] = best;
            if (ok && job->check) { /* the per-binding oracle: the strategy on this point alone */
                if (own) {
                    out->checked[i] = own->arena;
                } else {
                    Plan *alone = driver_plan(job->strategy, t, job->place, TRUE, NULL, error);
                    ok = alone != NULL;
                    out->checked[i] = ok ? alone->arena : 0;
                    plan_free(alone);
                }
            }
            g_free(offsets);
            g_free(bin_arena);
        }
        plan_free(own);
        trace_free(t);
        if (!ok && error && *error) {
            char *where = point_name(job, x);
            g_prefix_error(error, "at %s: ", where);
            g_free(where);
        }
    }
    for (guint k = 0; k < structures->len; k++) {
        moved_free(g_array_index(structures, Structure, k).top);
        moved_free(g_array_index(structures, Structure, k).recent);
    }
    g_array_unref(structures);
    if (ok) {
        PiecewiseAxis axes[PIECEWISE_MAX_VARS];
        for (guint d = 0; d < job->ndims; d++)
            axes[d] = (PiecewiseAxis){job->dims[d].lo, job->dims[d].step,
                                      (guint)((job->dims[d].hi - job->dims[d].lo) / job->dims[d].step + 1)};
        ok = (out->arena_fn = piecewise_fit(axes, job->ndims, out->arena, error)) &&
             (out->bound_fn = piecewise_fit(axes, job->ndims, out->lower_bound, error));
    }
    out->seconds = (double)(g_get_monotonic_time() - began) / G_USEC_PER_SEC;
    return ok;
}
