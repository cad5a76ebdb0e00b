/* range.c — a model planned over ranges of its dims (range.h): the points from the highest down, a plan per structure
 * of the trace moved to each of its points and verified there, points placed on their own where no moved plan reaches
 * the bound, and the arena and the bound fitted as exact piecewise polynomials. */
#include "driver/range.h"

#include "base/error.h"
#include "base/units.h"
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
        !parse_positive(c1 + 1, c2 ? c2 : c1 + strlen(c1), &hi) ||
        (c2 && !parse_positive(c2 + 1, c2 + strlen(c2), &step))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s' is not NAME=LO:HI or NAME=LO:HI:STEP with positive "
                    "integers", spec);
        return FALSE;
    }
    if (hi < lo) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s': HI is below LO", spec);
        return FALSE;
    }
    if ((hi - lo) % step) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--dim '%s': HI is not LO plus a multiple of STEP (the last point would be %" G_GINT64_FORMAT ")",
                    spec, hi - (hi - lo) % step);
        return FALSE;
    }
    *out = (ReportRangeDim){g_strndup(spec, (gsize)(eq - spec)), lo, hi, step};
    return TRUE;
}

gboolean range_dims_split(const char *const *specs, ShapeOptions *shape, GArray *ranges, GString *fixed, GError **error)
{
    for (const char *const *d = specs; d && *d; d++) {
        ReportRangeDim dim;
        if (range_spec_is_range(*d)) {
            if (!range_dim_parse(*d, &dim, error))
                return FALSE;
            g_array_append_val(ranges, dim);
        } else if (!shape_options_add_dim(shape, *d, error)) {
            return FALSE;
        } else {
            g_string_append_printf(fixed, "%s%s", fixed->len ? "," : "", *d);
        }
    }
    return TRUE;
}

void range_dim_clear(gpointer dim) { g_free(((ReportRangeDim *)dim)->name); }

gboolean range_dims_check(const ReportRangeDim *dims, guint n, GHashTable *fixed, gsize *points, GError **error)
{
    if (n == 0 || n > PIECEWISE_MAX_VARS) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "at most %d dims may be ranges, not %u", PIECEWISE_MAX_VARS, n);
        return FALSE;
    }
    *points = 1;
    for (guint d = 0; d < n; d++) {
        gsize count = (gsize)((dims[d].hi - dims[d].lo) / dims[d].step + 1);
        if (count > RANGE_MAX_POINTS || *points > RANGE_MAX_POINTS / count) {
            char *most = sim_format_count(RANGE_MAX_POINTS);
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                        "the range has more than %s points in all: narrow it or give a STEP", most);
            g_free(most);
            return FALSE;
        }
        *points *= count;
        for (guint e = 0; e < d; e++)
            if (!strcmp(dims[d].name, dims[e].name)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s' is given two ranges", dims[d].name);
                return FALSE;
            }
        if (fixed && g_hash_table_contains(fixed, dims[d].name)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--dim '%s' is given both a value and a range",
                        dims[d].name);
            return FALSE;
        }
    }
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

/* A plan of trace `of` (copied) that moves. The pairs by a sweep over time: each buffer meets the buffers still live
 * when it starts (O(n · most live)). */
static Moved *moved_new(const Trace *of, const guint64 *offsets)
{
    guint n = trace_count(of);
    Moved *m = g_new0(Moved, 1);
    Trace *t = m->t = trace_copy(of);
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

/* A bound no plan of t goes below, bin by bin, that counts alignment: at each step the buffers live there lie one
 * above the other at offsets that are multiples of g, the smallest alignment among them, so each but the top one
 * takes its size rounded up to g, and the arena, rounded up to the bin's largest alignment A, is at least
 * Σ round_up(size, g) rounded up to A (the top one's padding is less than g, which that rounding absorbs). Pinned
 * buffers' ends count too. A plan that reaches it is optimal; with every alignment one, it is place.c's bound.
 * The same sweep gives the trace's lower bound (trace_lower_bound: the most bytes live, bin by bin) into *lower. */
static guint64 aligned_bound(const Trace *t, guint64 *lower)
{
    guint bins = trace_bins(t), n = trace_count(t);
    guint steps = MAX(t->steps, 1);
    /* buffers by first step and by last step, to sweep the steps */
    guint *starts = g_new0(guint, (gsize)steps + 1), *ends = g_new0(guint, (gsize)steps + 1);
    guint *by_first = g_new(guint, n + 1), *by_last = g_new(guint, n + 1);
    for (guint k = 0; k < n; k++) {
        starts[trace_buffer(t, k)->first + 1]++;
        ends[trace_buffer(t, k)->last + 1]++;
    }
    for (guint s = 0; s < steps; s++) {
        starts[s + 1] += starts[s];
        ends[s + 1] += ends[s];
    }
    for (guint k = 0; k < n; k++) {
        by_first[starts[trace_buffer(t, k)->first]++] = k;
        by_last[ends[trace_buffer(t, k)->last]++] = k;
    }
    guint64 total = 0;
    *lower = 0;
    for (guint bin = 0; bin < bins; bin++) {
        /* the alignments the bin has (powers of two: their exponents), and per exponent the live bytes rounded up to
         * it and how many live buffers have it */
        guint exps[64], nexp = 0, slot[64];
        guint64 rounded[64] = {0}, most = 0, largest = 1, pinned = 0, live = 0, most_live = 0;
        guint count[64] = {0};
        gboolean has[64] = {FALSE};
        for (guint k = 0; k < n; k++) {
            const TraceBuffer *b = trace_buffer(t, k);
            if (b->bin != bin)
                continue;
            largest = MAX(largest, b->align);
            has[g_bit_nth_lsf(b->align, -1)] = TRUE;
            if (b->fixed != TRACE_NONE)
                pinned = MAX(pinned, (guint64)b->fixed + b->size);
        }
        for (guint e = 0; e < 64; e++)
            if (has[e]) {
                slot[e] = nexp;
                exps[nexp++] = e;
            }
        guint i = 0, j = 0;
        for (guint s = 0; s < steps; s++) {
            for (; i < n && trace_buffer(t, by_first[i])->first == s; i++) {
                const TraceBuffer *b = trace_buffer(t, by_first[i]);
                if (b->bin != bin)
                    continue;
                count[slot[g_bit_nth_lsf(b->align, -1)]]++;
                live += b->size;
                for (guint q = 0; q < nexp; q++)
                    rounded[q] += round_up(b->size, (guint64)1 << exps[q]);
            }
            most_live = MAX(most_live, live);
            for (guint q = 0; q < nexp; q++)
                if (count[q]) { /* g = 2^exps[q], the smallest alignment live */
                    most = MAX(most, round_up(rounded[q], largest));
                    break;
                }
            for (; j < n && trace_buffer(t, by_last[j])->last == s; j++) {
                const TraceBuffer *b = trace_buffer(t, by_last[j]);
                if (b->bin != bin)
                    continue;
                count[slot[g_bit_nth_lsf(b->align, -1)]]--;
                live -= b->size;
                for (guint q = 0; q < nexp; q++)
                    rounded[q] -= round_up(b->size, (guint64)1 << exps[q]);
            }
        }
        total += round_up(MAX(most, pinned), largest);
        *lower += most_live;
    }
    g_free(starts);
    g_free(ends);
    g_free(by_first);
    g_free(by_last);
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

/* The state of one range: the job, the report being filled, the structures met. */
typedef struct {
    const RangeJob *job;
    ReportRange *out;
    GArray *structures; /* Structure */
    gint *structure_of; /* per point: its Structure, or -1 (placed alone) */
} Ranging;

/* Point x loaded, inferred and traced as one binding is (by `recipe`: the job's, or one keeping buffers apart);
 * *bounded (or NULL) takes the most data-dependent tensors planned at a bound so far. */
static Trace *point_trace(const RangeJob *job, const PipelineRecipe *recipe, const gint64 *x, guint *bounded,
                          GError **error)
{
    for (guint d = 0; d < job->ndims; d++)
        g_hash_table_replace(job->shape->dims, g_strdup(job->dims[d].name), g_memdup2(&x[d], sizeof(gint64)));
    DriverModel model;
    PipelineResult built = {0};
    Trace *t = NULL;
    if (driver_model_load(job->path, NULL, job->shape, job->fuse, NULL, &model, error) &&
        driver_trace(model.model->graph, recipe, job->alias, job->bins_path, &built, error)) {
        t = g_steal_pointer(&built.trace);
        guint count = 0;
        for (guint k = 0; k < model.model->graph->tensors->len; k++)
            count += ((const Tensor *)model.model->graph->tensors->pdata[k])->bound_why != NULL;
        if (bounded)
            *bounded = MAX(*bounded, count);
    }
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

/* Point i with its trace t (loaded, or sized by its stretch's polynomials): the bound, its structure's plan moved
 * there, and a placement of its own where no plan moved there reaches the bound. `known`: t's structure when the
 * caller knows it (a copy of a loaded trace, sizes aside), else -1: found by comparing. */
static gboolean range_point(Ranging *r, gsize i, Trace *t, gint known, GError **error)
{
    ReportRange *out = r->out;
    const RangeJob *job = r->job;
    out->grouped = out->grouped || grouped(t);
    guint64 bound = aligned_bound(t, &out->lower_bound[i]), best = G_MAXUINT64;
    guint nb = trace_count(t), bins = trace_bins(t);
    guint64 *offsets = g_new(guint64, nb + 1), *bin_arena = g_new(guint64, bins + 1);
    Structure *s = known >= 0 && !out->grouped ? &g_array_index(r->structures, Structure, known) : NULL;
    for (guint k = 0; known < 0 && !out->grouped && !s && k < r->structures->len; k++)
        if (same_structure(g_array_index(r->structures, Structure, k).top->t, t))
            s = &g_array_index(r->structures, Structure, k);
    if (s) {
        r->structure_of[i] = (gint)(s - (Structure *)r->structures->data);
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
    Plan *own = NULL;
    gboolean ok = TRUE;
    if (best > bound) { /* no plan moved here reaches the bound: placed on its own */
        own = driver_plan(job->strategy, t, job->place, TRUE, NULL, error);
        ok = own != NULL;
    }
    if (own) {
        out->placed[i] = 1;
        if (!s && !out->grouped && r->structures->len < REPORT_RANGE_MAX_PLANS) {
            Structure fresh = {.top = moved_new(t, own->offsets), .plan = out->plans->len};
            ReportRangePlan p = {.top = i, .points = 1, .buffers = nb, .edges = fresh.top->edges,
                                 .arena_at_top = own->arena};
            g_array_append_val(r->structures, fresh);
            g_array_append_val(out->plans, p);
            r->structure_of[i] = (gint)r->structures->len - 1;
            out->plan_arena[i] = own->arena;
        } else if (!s && !out->grouped) {
            out->alone++;
        } else if (s && own->arena < best) {
            moved_free(s->recent);
            s->recent = moved_new(t, own->offsets);
        }
        best = MIN(best, own->arena);
    }
    out->arena[i] = best;
    if (ok && out->checked)
        out->checked[i] = own ? own->arena : 0; /* range_check_point places the others */
    plan_free(own);
    g_free(offsets);
    g_free(bin_arena);
    return ok;
}

/* One slice of the grid: the last dim's points with the others fixed (outer: their values), each trace loaded once
 * and kept by its index. */
typedef struct {
    Ranging *r;
    gint64 x[PIECEWISE_MAX_VARS];
    gsize first;        /* the slice's first point */
    GHashTable *loaded; /* index in the slice -> Trace* */
} Slice;

/* Index i's trace, loaded when it is not yet; `planning`: a load the plan needs (counted), not only the check's. */
static Trace *slice_trace(Slice *sl, guint i, gboolean planning, GError **error)
{
    Trace *t = g_hash_table_lookup(sl->loaded, GUINT_TO_POINTER(i + 1));
    if (t)
        return t;
    const ReportRangeDim *last = &sl->r->job->dims[sl->r->job->ndims - 1];
    sl->x[sl->r->job->ndims - 1] = last->lo + (gint64)i * last->step;
    if (!(t = point_trace(sl->r->job, sl->r->job->recipe, sl->x, &sl->r->out->bounded, error))) {
        char *where = point_name(sl->r->job, sl->x);
        g_prefix_error(error, "at %s: ", where);
        g_free(where);
        return NULL;
    }
    sl->r->out->loaded += planning;
    g_hash_table_insert(sl->loaded, GUINT_TO_POINTER(i + 1), t);
    return t;
}

/* A stretch of a slice, [a, b], of one structure whose every buffer's size is a polynomial of the index of degree
 * ≤ 3: Newton's forward differences at index a (diff[4 * buffer + j] = Δ^j), or a single point loaded. */
typedef struct {
    guint a, b;
    gint64 *diff; /* NULL: a = b, the point's own trace */
} Stretch;

/* Size of buffer k at index i by the stretch's differences: Σ_j Δ^j · C(i - a, j), exactly; 0 past 63 bits. */
static guint64 stretch_size(const Stretch *st, guint k, guint i)
{
    __int128 sum = 0, choose = 1, t = (__int128)i - st->a;
    for (guint j = 0; j < 4; j++) {
        if (j > 0)
            choose = choose * (t - (j - 1)) / j;
        if (!choose)
            break;
        sum += (__int128)st->diff[4 * k + j] * choose;
    }
    return sum > 0 && sum <= G_MAXINT64 ? (guint64)sum : 0;
}

/* The fewest points loaded that pin down [a, b] (the header of range.h says how): fewer than RANGE_DENSE points are
 * loaded one by one; else a, a+1, a+2, a+3, the middle, b-1 and b are. Where their structures differ, the change is
 * found by halving and each side done again; where they agree, each buffer's size is the lowest-degree polynomial
 * through a..a+3 that gives every other sample, or the stretch is halved. */
#define RANGE_DENSE 8
static gboolean find_stretches(Slice *sl, guint a, guint b, GArray *stretches, GError **error)
{
    if (sl->r->job->every || b - a + 1 < RANGE_DENSE) {
        for (guint i = a; i <= b; i++) {
            if (!slice_trace(sl, i, TRUE, error))
                return FALSE;
            Stretch one = {i, i, NULL};
            g_array_append_val(stretches, one);
        }
        return TRUE;
    }
    guint samples[] = {a, a + 1, a + 2, a + 3, a + (b - a) / 2, b - 1, b};
    const Trace *ts[G_N_ELEMENTS(samples)];
    for (guint k = 0; k < G_N_ELEMENTS(samples); k++)
        if (!(ts[k] = slice_trace(sl, samples[k], TRUE, error)))
            return FALSE;
    for (guint k = 1; k < G_N_ELEMENTS(samples); k++) {
        if (same_structure(ts[0], ts[k]))
            continue;
        guint lo = samples[k - 1], hi = samples[k]; /* the structure changes in (lo, hi]: halve to find where */
        const Trace *before = ts[k - 1];
        while (hi - lo > 1) {
            guint mid = lo + (hi - lo) / 2;
            const Trace *tm = slice_trace(sl, mid, TRUE, error);
            if (!tm)
                return FALSE;
            if (same_structure(before, tm))
                lo = mid;
            else
                hi = mid;
        }
        return find_stretches(sl, a, lo, stretches, error) && find_stretches(sl, hi, b, stretches, error);
    }
    guint n = trace_count(ts[0]);
    gint64 *diff = g_new0(gint64, 4 * (gsize)n + 4);
    Stretch st = {a, b, diff};
    gboolean fits = TRUE;
    for (guint k = 0; fits && k < n; k++) {
        __int128 d[4];
        for (guint j = 0; j < 4; j++)
            d[j] = trace_buffer(ts[j], k)->size;
        for (guint j = 1; j < 4; j++)
            for (guint q = 3; q >= j; q--)
                d[q] -= d[q - 1];
        fits = FALSE;
        for (guint degree = 0; !fits && degree < 4; degree++) {
            for (guint j = 0; j < 4; j++)
                diff[4 * k + j] = j <= degree ? (gint64)d[j] : 0;
            fits = TRUE;
            for (guint q = 0; fits && q < G_N_ELEMENTS(samples); q++)
                fits = stretch_size(&st, k, samples[q]) == trace_buffer(ts[q], k)->size;
        }
    }
    if (fits) {
        g_array_append_val(stretches, st);
        return TRUE;
    }
    g_free(diff);
    guint mid = a + (b - a) / 2;
    return find_stretches(sl, a, mid, stretches, error) && find_stretches(sl, mid + 1, b, stretches, error);
}

/* --range-check at point i: the point loaded and placed on its own, whatever the function did; its sizes against
 * the trace the point was planned with. */
static gboolean range_check_point(Ranging *r, Slice *sl, guint i, const Trace *planned, GError **error)
{
    gsize at = sl->first + i;
    Trace *t = slice_trace(sl, i, FALSE, error);
    if (!t)
        return FALSE;
    gboolean same = same_structure(t, planned);
    for (guint k = 0; same && k < trace_count(t); k++)
        same = trace_buffer(t, k)->size == trace_buffer(planned, k)->size;
    r->out->mismatched += !same;
    if (r->out->placed[at] && same)
        return TRUE; /* its own plan was made there */
    Plan *own = driver_plan(r->job->strategy, t, r->job->place, TRUE, NULL, error);
    if (own)
        r->out->checked[at] = own->arena;
    plan_free(own);
    return own != NULL;
}

static gboolean range_slice(Ranging *r, gsize first, const gint64 *outer, GError **error)
{
    const ReportRangeDim *last = &r->job->dims[r->job->ndims - 1];
    guint m = (guint)((last->hi - last->lo) / last->step + 1);
    Slice sl = {.r = r, .first = first,
                .loaded = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)trace_free)};
    memcpy(sl.x, outer, sizeof(gint64) * r->job->ndims);
    GArray *stretches = g_array_new(FALSE, FALSE, sizeof(Stretch));
    gboolean ok = find_stretches(&sl, 0, m - 1, stretches, error);
    for (guint s = stretches->len; ok && s-- > 0;) { /* from the highest down */
        const Stretch *st = &g_array_index(stretches, Stretch, s);
        Trace *sized = st->diff ? trace_copy(g_hash_table_lookup(sl.loaded, GUINT_TO_POINTER(st->b + 1))) : NULL;
        for (guint i = st->b + 1; ok && i-- > st->a;) {
            Trace *t = g_hash_table_lookup(sl.loaded, GUINT_TO_POINTER(i + 1));
            gboolean sizes = t == NULL;
            gint known = -1; /* sized from the stretch's top: its structure, found there */
            for (guint k = 0; sizes && k < trace_count(sized); k++) /* between the loaded points: the polynomials */
                sizes = (trace_buffer(sized, k)->size = stretch_size(st, k, i)) > 0;
            if (sizes) {
                t = sized;
                known = r->structure_of[first + st->b];
                r->out->interpolated++;
            } else if (!t) { /* a polynomial that dips to no size between its samples: the point loaded */
                ok = (t = slice_trace(&sl, i, TRUE, error)) != NULL;
            }
            ok = ok && range_point(r, first + i, t, known, error) &&
                 (!r->job->check || range_check_point(r, &sl, i, t, error));
            if (!ok && error && *error && !g_str_has_prefix((*error)->message, "at ")) {
                sl.x[r->job->ndims - 1] = last->lo + (gint64)i * last->step;
                char *where = point_name(r->job, sl.x);
                g_prefix_error(error, "at %s: ", where);
                g_free(where);
            }
            g_hash_table_remove(sl.loaded, GUINT_TO_POINTER(i + 1)); /* done with: only the structures keep copies */
        }
        trace_free(sized);
    }
    for (guint s = 0; s < stretches->len; s++)
        g_free(g_array_index(stretches, Stretch, s).diff);
    g_array_unref(stretches);
    g_hash_table_unref(sl.loaded);
    return ok;
}

/* --range-one-plan: the plan of the structure with the most points moved to every point; the points of the others
 * loaded again with its buffers kept apart, so that they take its structure where they can. */
static gboolean range_one_plan(Ranging *r, GError **error)
{
    ReportRange *out = r->out;
    out->one_plan_arena = g_new0(guint64, out->points);
    if (!r->structures->len)
        return TRUE;
    guint most = 0;
    for (guint k = 1; k < r->structures->len; k++)
        if (g_array_index(out->plans, ReportRangePlan, k).points > g_array_index(out->plans, ReportRangePlan, most).points)
            most = k;
    const Moved *plan = g_array_index(r->structures, Structure, most).top;
    out->one_plan_top = g_array_index(out->plans, ReportRangePlan, most).top;
    GHashTable *apart = g_hash_table_new(g_str_hash, g_str_equal); /* its buffers' names: their roots' */
    for (guint k = 0; k < trace_count(plan->t); k++)
        g_hash_table_add(apart, trace_buffer(plan->t, k)->name);
    PipelineRecipe recipe = *r->job->recipe;
    recipe.keep_apart = apart;
    guint nb = trace_count(plan->t), bins = trace_bins(plan->t);
    guint64 *offsets = g_new(guint64, nb + 1), *bin_arena = g_new(guint64, bins + 1);
    gboolean ok = TRUE;
    for (gsize i = 0; ok && i < out->points; i++) {
        if (r->structure_of[i] == (gint)most) { /* moved there and verified already */
            out->one_plan_arena[i] = out->plan_arena[i];
            continue;
        }
        gint64 x[PIECEWISE_MAX_VARS];
        report_range_point(out, i, x);
        Trace *t = point_trace(r->job, &recipe, x, NULL, error);
        if (!(ok = t != NULL)) {
            char *where = point_name(r->job, x);
            g_prefix_error(error, "at %s: ", where);
            g_free(where);
        } else if (same_structure(plan->t, t) && trace_bins(t) == bins) {
            guint64 moved = moved_arena(plan, t, offsets, bin_arena);
            if (moved != G_MAXUINT64) {
                out->one_plan_arena[i] = moved;
                out->one_plan_kept_apart++;
            }
        }
        trace_free(t);
    }
    g_free(offsets);
    g_free(bin_arena);
    g_hash_table_unref(apart);
    return ok;
}

gboolean range_plan(const RangeJob *job, ReportRange *out, GError **error)
{
    gint64 began = g_get_monotonic_time();
    out->ndims = job->ndims;
    if (!range_dims_check(job->dims, job->ndims, job->shape->dims, &out->points, error))
        return FALSE;
    for (guint d = 0; d < job->ndims; d++) {
        const ReportRangeDim *dim = &job->dims[d];
        out->dims[d] = (ReportRangeDim){g_strdup(dim->name), dim->lo, dim->hi, dim->step};
    }
    gsize n = out->points;
    const ReportRangeDim *last = &job->dims[job->ndims - 1];
    gsize m = (gsize)((last->hi - last->lo) / last->step + 1);
    out->arena = g_new0(guint64, n);
    out->lower_bound = g_new0(guint64, n);
    out->plan_arena = g_new0(guint64, n);
    out->placed = g_new0(guint8, n);
    out->checked = job->check ? g_new0(guint64, n) : NULL;
    out->plans = g_array_new(FALSE, TRUE, sizeof(ReportRangePlan));
    out->every = job->every;
    Ranging r = {.job = job, .out = out, .structures = g_array_new(FALSE, TRUE, sizeof(Structure)),
                 .structure_of = g_new(gint, n)};
    for (gsize i = 0; i < n; i++)
        r.structure_of[i] = -1;
    out->one_plan = job->one_plan;
    gboolean ok = TRUE;
    for (gsize first = n; ok && first > 0;) { /* the slices from the highest down */
        first -= m;
        gint64 x[PIECEWISE_MAX_VARS];
        report_range_point(out, first, x);
        ok = range_slice(&r, first, x, error);
    }
    if (ok && job->one_plan && !out->grouped)
        ok = range_one_plan(&r, error);
    for (guint k = 0; k < r.structures->len; k++) {
        moved_free(g_array_index(r.structures, Structure, k).top);
        moved_free(g_array_index(r.structures, Structure, k).recent);
    }
    g_array_unref(r.structures);
    g_free(r.structure_of);
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
