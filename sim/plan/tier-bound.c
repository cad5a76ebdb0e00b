/* tier-bound.c — the lower bound on a tiered problem's cost (tier-bound.h): per boundary between tiers, a
 * min-cost flow along the compressed time axis by successive shortest paths. */
#include "plan/tier-bound.h"
#include "trace/trace-tiers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    guint unit, a, b;    /* nodes: the point of its first step and the point past its last */
    double w;            /* what a byte kept inside saves, in the flow being solved */
    double d;            /* its whole step of cost: what it owes beyond the boundary */
    guint64 size;        /* its bytes */
    guint64 cap, flow;   /* the bytes the flow may keep inside (0: put out), and keeps */
} Job;

typedef struct {
    double key;
    guint node;
} HeapItem;

typedef struct {
    HeapItem *items;
    guint len, size;
} Heap;

static void heap_push(Heap *h, double key, guint node)
{
    if (h->len == h->size) {
        h->size = h->size ? h->size * 2 : 64;
        h->items = g_renew(HeapItem, h->items, h->size);
    }
    guint k = h->len++;
    while (k && h->items[(k - 1) / 2].key > key) {
        h->items[k] = h->items[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h->items[k] = (HeapItem){key, node};
}

static HeapItem heap_pop(Heap *h)
{
    HeapItem top = h->items[0], last = h->items[--h->len];
    guint k = 0;
    for (;;) {
        guint c = 2 * k + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && h->items[c + 1].key < h->items[c].key)
            c++;
        if (h->items[c].key >= last.key)
            break;
        h->items[k] = h->items[c];
        k = c;
    }
    if (h->len)
        h->items[k] = last;
    return top;
}

static int cmp_u64(const void *x, const void *y)
{
    guint64 a = *(const guint64 *)x, b = *(const guint64 *)y;
    return a < b ? -1 : a > b;
}

static guint point_of(const guint64 *points, guint n, guint64 v)
{
    guint lo = 0, hi = n;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (points[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int by_gain(const void *x, const void *y)
{
    const Job *a = *(Job *const *)x, *b = *(Job *const *)y;
    return a->w > b->w ? -1 : a->w < b->w ? 1 : (a->unit > b->unit) - (a->unit < b->unit);
}

/* The weaker bound of one step: the jobs live at the step with the most bytes, the capacity filled by the
 * best savings per byte (a fractional knapsack); what stays out is owed. */
static double busiest_step(const PlaceProblem *p, const Job *jobs, guint n, guint64 capacity)
{
    guint steps = p->steps;
    for (guint k = 0; k < n; k++)
        steps = MAX(steps, g_array_index(p->units, PlaceUnit, jobs[k].unit).last + 1);
    guint64 *delta = g_new0(guint64, (gsize)steps + 1), live = 0, most = 0;
    guint at = 0;
    for (guint k = 0; k < n; k++) {
        const PlaceUnit *u = &g_array_index(p->units, PlaceUnit, jobs[k].unit);
        delta[u->first] += jobs[k].cap;
        delta[u->last + 1] -= jobs[k].cap;
    }
    for (guint s = 0; s < steps; s++) {
        live += delta[s];
        if (live > most) {
            most = live;
            at = s;
        }
    }
    g_free(delta);
    GPtrArray *there = g_ptr_array_new();
    for (guint k = 0; k < n; k++) {
        const PlaceUnit *u = &g_array_index(p->units, PlaceUnit, jobs[k].unit);
        if (u->first <= at && at <= u->last)
            g_ptr_array_add(there, (gpointer)&jobs[k]);
    }
    qsort(there->pdata, there->len, sizeof(gpointer), by_gain);
    double owed = 0;
    guint64 room = capacity;
    for (guint k = 0; k < there->len; k++) {
        const Job *j = there->pdata[k];
        guint64 in = MIN(room, j->cap);
        room -= in;
        owed += j->w * (double)(j->cap - in);
    }
    g_ptr_array_unref(there);
    return owed;
}

/* The time axis and the jobs on it, for one boundary: the flows solved again and again under branching. */
typedef struct {
    Job *jobs;
    guint m, N;
    guint *out_at, *in_at, *out, *in;
    double *pot, *dist, *d; /* d: per job, its whole step of cost */
    guint64 *idle;
    gint *via;
    gboolean *done;
    Heap heap;
    guint64 capacity;
    guint64 work, limit;    /* the searches' work so far (nodes taken and edges weighed), and its limit */
} Axis;

/* The min-cost flow of the axis's jobs (their w set by the caller): the most savings the capacity allows, as
 * flows on the jobs. FALSE when the search budget ran out first. */
static gboolean axis_solve(Axis *x)
{
    Job *jobs = x->jobs;
    guint N = x->N;
    for (guint k = 0; k < x->m; k++)
        jobs[k].flow = 0;
    memset(x->idle, 0, sizeof(guint64) * N);
    memset(x->pot, 0, sizeof(double) * N);
    for (guint v = 1; v < N; v++) { /* shortest distances in the acyclic start: costs only fall along time */
        x->pot[v] = x->pot[v - 1];
        for (guint e = x->in_at[v]; e < x->in_at[v + 1]; e++)
            if (jobs[x->in[e]].cap)
                x->pot[v] = MIN(x->pot[v], x->pot[jobs[x->in[e]].a] - jobs[x->in[e]].w);
    }
    double *pot = x->pot, *dist = x->dist;
    guint64 sent = 0;
    while (sent < x->capacity) {
        if (x->work > x->limit)
            return FALSE;
        for (guint v = 0; v < N; v++) {
            dist[v] = INFINITY;
            x->done[v] = FALSE;
        }
        dist[0] = 0;
        x->via[0] = 0;
        x->heap.len = 0;
        heap_push(&x->heap, 0, 0);
        while (x->heap.len) {
            HeapItem it = heap_pop(&x->heap);
            guint v = it.node;
            if (x->done[v])
                continue;
            x->done[v] = TRUE;
            x->work += 1 + (x->out_at[v + 1] - x->out_at[v]) + (x->in_at[v + 1] - x->in_at[v]);
#define RELAX(to, c, how)                                                                                              \
    do {                                                                                                               \
        double nd = dist[v] + MAX((c) + pot[v] - pot[to], 0.0);                                                \
        if (nd < dist[to]) {                                                                                           \
            dist[to] = nd;                                                                                             \
            x->via[to] = (how);                                                                                        \
            heap_push(&x->heap, nd, (to));                                                                             \
        }                                                                                                              \
    } while (0)
            if (v + 1 < N)
                RELAX(v + 1, 0.0, 0);
            if (v && x->idle[v - 1])
                RELAX(v - 1, 0.0, G_MININT);
            for (guint e = x->out_at[v]; e < x->out_at[v + 1]; e++) {
                const Job *j = &jobs[x->out[e]];
                if (j->flow < j->cap)
                    RELAX(j->b, -j->w, (gint)x->out[e] + 1);
            }
            for (guint e = x->in_at[v]; e < x->in_at[v + 1]; e++) {
                const Job *j = &jobs[x->in[e]];
                if (j->flow)
                    RELAX(j->a, j->w, -((gint)x->in[e] + 1));
            }
#undef RELAX
        }
        double path = dist[N - 1] + pot[N - 1] - pot[0];
        if (!(path < -1e-12))
            break;
        guint64 delta = x->capacity - sent; /* the bottleneck, walking back from the sink */
        for (guint v = N - 1; v;) {
            gint how = x->via[v];
            if (how == 0) {
                v--;
            } else if (how == G_MININT) {
                delta = MIN(delta, x->idle[v]);
                v++;
            } else if (how > 0) {
                delta = MIN(delta, jobs[how - 1].cap - jobs[how - 1].flow);
                v = jobs[how - 1].a;
            } else {
                delta = MIN(delta, jobs[-how - 1].flow);
                v = jobs[-how - 1].b;
            }
        }
        for (guint v = N - 1; v;) {
            gint how = x->via[v];
            if (how == 0) {
                x->idle[v - 1] += delta;
                v--;
            } else if (how == G_MININT) {
                x->idle[v] -= delta;
                v++;
            } else if (how > 0) {
                jobs[how - 1].flow += delta;
                v = jobs[how - 1].a;
            } else {
                jobs[-how - 1].flow -= delta;
                v = jobs[-how - 1].b;
            }
        }
        sent += delta;
        for (guint v = 0; v < N; v++)
            if (isfinite(dist[v]))
                pot[v] += dist[v];
    }
    return TRUE;
}

/* The relaxation of a branch: jobs put out owe their whole step and carry nothing; jobs held inside save more
 * per byte than any free job (so the flow fills them first; Axis), and a branch that cannot hold them all is
 * infeasible (INFINITY); dropped jobs are left to the relaxation. *fraction gets the free job of most bytes the
 * flow keeps partly inside, or -1 (the relaxation's optimum is then a choice of whole jobs). -1 when the search
 * budget ran out. */
enum { FREE, HELD_IN, PUT_OUT, DROPPED };

static double branch_value(Axis *x, const guint8 *state, double big, gint *fraction)
{
    double owed = 0;
    for (guint k = 0; k < x->m; k++) {
        Job *j = &x->jobs[k];
        j->cap = state[k] == PUT_OUT || state[k] == DROPPED ? 0 : j->size;
        j->w = state[k] == HELD_IN ? big : j->d / (double)j->size;
        owed += state[k] == PUT_OUT ? j->d : 0;
    }
    if (!axis_solve(x))
        return -1;
    double value = owed;
    guint64 most = 0;
    *fraction = -1;
    for (guint k = 0; k < x->m; k++) {
        const Job *j = &x->jobs[k];
        if (state[k] == HELD_IN && j->flow < j->size)
            return INFINITY;
        if (state[k] != FREE)
            continue;
        value += j->d * (double)(j->size - j->flow) / (double)j->size;
        if (j->flow && j->flow < j->size && j->size > most) {
            most = j->size;
            *fraction = (gint)k;
        }
    }
    return value;
}

/* A branch of the search over the fractional jobs: its jobs' states, and its relaxation's cost. */
typedef struct {
    double value;
    guint8 *state;
} Branch;

static void branch_push(GPtrArray *open, double value, guint8 *state)
{
    Branch *b = g_new(Branch, 1);
    b->value = value;
    b->state = state;
    g_ptr_array_add(open, b);
}

/* The open branch of least value (ties: the first opened), taken out. */
static Branch *branch_pop(GPtrArray *open)
{
    guint at = 0;
    for (guint k = 1; k < open->len; k++)
        if (((Branch *)open->pdata[k])->value < ((Branch *)open->pdata[at])->value)
            at = k;
    return g_ptr_array_steal_index(open, at);
}

static void branch_free(gpointer data)
{
    Branch *b = data;
    g_free(b->state);
    g_free(b);
}

/* Boundary j: the cost owed beyond it (tier-bound.h). */
static double boundary(const PlaceProblem *p, guint j, guint64 limit, guint branches, double *inside,
                       gboolean *cut_short)
{
    const PlaceTiers *T = p->tiers;
    guint count = T->count, n = p->units->len;
    guint64 capacity = 0;
    for (guint i = 0; i <= j; i++) {
        guint64 c = trace_tier(T->tiers, i)->capacity;
        capacity = c > G_MAXUINT64 - capacity ? G_MAXUINT64 : capacity + c;
    }
    guint32 below = (2u << j) - 1, above = ~below;
    double owed = 0, most_w = 0;
    GArray *jobs_a = g_array_new(FALSE, FALSE, sizeof(Job));
    GArray *held = g_array_new(FALSE, FALSE, sizeof(gboolean));
    for (guint u = 0; u < n; u++) {
        double d = T->cost[(gsize)u * count + j + 1] - T->cost[(gsize)u * count + j];
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        gboolean only_below = !(T->allowed[u] & above);
        if (!(d > 0) && !only_below)
            continue; /* nothing saved inside: left out of the relaxation */
        if (!(T->allowed[u] & below) || unit->size > capacity) { /* it cannot lie below the boundary at all */
            owed += MAX(d, 0.0);
            continue;
        }
        Job job = {u, unit->first, unit->last + 1, 0, MAX(d, 0.0), unit->size, unit->size, 0};
        g_array_append_val(jobs_a, job);
        g_array_append_val(held, only_below);
        most_w = MAX(most_w, job.d / (double)job.size);
    }
    /* only jobs live at a step where all of them do not fit can be put out by an optimum: the rest stay inside */
    guint steps = p->steps;
    for (guint k = 0; k < jobs_a->len; k++)
        steps = MAX(steps, g_array_index(jobs_a, Job, k).b);
    guint64 *live = g_new0(guint64, (gsize)steps + 1);
    for (guint k = 0; k < jobs_a->len; k++) {
        const Job *x = &g_array_index(jobs_a, Job, k);
        live[x->a] += x->size;
        live[x->b] -= x->size;
    }
    guint *over = g_new0(guint, (gsize)steps + 2); /* prefix counts of the steps over the capacity */
    for (guint64 s = 0, now = 0; s < steps; s++) {
        now += live[s];
        over[s + 1] = over[s] + (now > capacity);
    }
    guint kept = 0;
    for (guint k = 0; k < jobs_a->len; k++) {
        const Job *x = &g_array_index(jobs_a, Job, k);
        if (over[x->b] > over[x->a]) {
            g_array_index(jobs_a, Job, kept) = *x;
            g_array_index(held, gboolean, kept) = g_array_index(held, gboolean, k);
            kept++;
        }
    }
    g_array_set_size(jobs_a, kept);
    g_free(live);
    g_free(over);
    Job *jobs = (Job *)(void *)jobs_a->data;
    guint m = jobs_a->len;
    if (!m) {
        g_array_unref(jobs_a);
        g_array_unref(held);
        return owed;
    }
    guint64 *points = g_new(guint64, 2 * (gsize)m);
    for (guint k = 0; k < m; k++) {
        points[2 * k] = jobs[k].a;
        points[2 * k + 1] = jobs[k].b;
    }
    qsort(points, 2 * (gsize)m, sizeof(guint64), cmp_u64);
    guint N = 0;
    for (guint k = 0; k < 2 * m; k++)
        if (!N || points[N - 1] != points[k])
            points[N++] = points[k];
    for (guint k = 0; k < m; k++) {
        jobs[k].a = point_of(points, N, jobs[k].a);
        jobs[k].b = point_of(points, N, jobs[k].b);
    }
    Axis x = {.jobs = jobs, .m = m, .N = N, .capacity = capacity, .limit = limit};
    x.out_at = g_new0(guint, N + 1);
    x.in_at = g_new0(guint, N + 1);
    x.out = g_new(guint, m);
    x.in = g_new(guint, m);
    for (guint k = 0; k < m; k++) {
        x.out_at[jobs[k].a + 1]++;
        x.in_at[jobs[k].b + 1]++;
    }
    for (guint v = 0; v < N; v++) {
        x.out_at[v + 1] += x.out_at[v];
        x.in_at[v + 1] += x.in_at[v];
    }
    guint *fo = g_memdup2(x.out_at, sizeof(guint) * (N + 1)), *fi = g_memdup2(x.in_at, sizeof(guint) * (N + 1));
    for (guint k = 0; k < m; k++) {
        x.out[fo[jobs[k].a]++] = k;
        x.in[fi[jobs[k].b]++] = k;
    }
    g_free(fo);
    g_free(fi);
    x.pot = g_new0(double, N);
    x.dist = g_new(double, N);
    x.idle = g_new0(guint64, N);
    x.via = g_new(gint, N);
    x.done = g_new(gboolean, N);
    double big = 4 * most_w + 1;
    /* the root: units held below the boundary held inside, or left to the relaxation when they cannot all be */
    guint8 *root = g_new0(guint8, m);
    for (guint k = 0; k < m; k++)
        root[k] = g_array_index(held, gboolean, k) ? HELD_IN : FREE;
    gint fraction;
    double value = branch_value(&x, root, big, &fraction);
    if (isinf(value)) {
        for (guint k = 0; k < m; k++)
            root[k] = root[k] == HELD_IN ? DROPPED : FREE;
        value = branch_value(&x, root, big, &fraction);
    }
    double bound;
    if (value < 0) { /* the flow's budget ran out: the busiest step's bound */
        *cut_short = TRUE;
        for (guint k = 0; k < m; k++) {
            jobs[k].w = jobs[k].d / (double)jobs[k].size;
            jobs[k].cap = jobs[k].size;
        }
        bound = busiest_step(p, jobs, m, capacity);
        g_free(root);
    } else {
        for (guint k = 0; inside && k < m; k++)
            inside[jobs[k].unit] = root[k] == DROPPED ? 1.0 : (double)jobs[k].flow / (double)jobs[k].size;
        /* best first over the fractional jobs: a job in or out; the least open value is a bound at every moment,
         * and a branch whose optimum takes whole jobs only is a choice the relaxation allows (an incumbent) */
        GPtrArray *open = g_ptr_array_new_with_free_func(branch_free);
        branch_push(open, value, root);
        double incumbent = INFINITY, stopped_at = INFINITY; /* stopped_at: the branch the budget stopped at */
        guint solved = 0;
        while (open->len) {
            Branch *b = branch_pop(open);
            if (b->value >= incumbent) { /* the least open branch: no better choice is left */
                branch_free(b);
                break;
            }
            gint frac;
            double again = branch_value(&x, b->state, big, &frac); /* its flow again, for the job to branch on */
            if (again < 0 || solved + 2 > branches) {
                *cut_short = TRUE;
                stopped_at = b->value;
                branch_free(b);
                break;
            }
            if (frac < 0) { /* whole jobs only: a choice the relaxation allows */
                incumbent = MIN(incumbent, again);
                branch_free(b);
                continue;
            }
            for (guint side = 0; side < 2; side++) {
                guint8 *child = g_memdup2(b->state, m);
                child[frac] = side ? PUT_OUT : HELD_IN;
                gint unused;
                double v = branch_value(&x, child, big, &unused);
                solved++;
                if (v < 0) {
                    *cut_short = TRUE;
                    v = b->value; /* unknown: no more than its parent's is claimed */
                }
                if (v < incumbent)
                    branch_push(open, v, child);
                else
                    g_free(child);
            }
            branch_free(b);
        }
        bound = MIN(incumbent, stopped_at); /* the least of the incumbent and every branch still open */
        for (guint k = 0; k < open->len; k++)
            bound = MIN(bound, ((Branch *)open->pdata[k])->value);
        g_ptr_array_unref(open);
    }
    g_free(x.heap.items);
    g_free(points);
    g_free(x.out_at);
    g_free(x.in_at);
    g_free(x.out);
    g_free(x.in);
    g_free(x.pot);
    g_free(x.dist);
    g_free(x.idle);
    g_free(x.via);
    g_free(x.done);
    g_array_unref(jobs_a);
    g_array_unref(held);
    return owed + bound;
}

TierBound tier_bound_compute(const PlaceProblem *p, guint64 work_limit, double *inside)
{
    TierBound b = {0};
    const PlaceTiers *T = p->tiers;
    guint n = p->units->len;
    if (inside)
        for (guint u = 0; u < n; u++)
            inside[u] = (T->allowed[u] & 1u) ? 1.0 : 0.0;
    for (guint u = 0; u < n; u++) /* every unit's cost in the first tier, then each boundary's step beyond it */
        b.cost += T->cost[(gsize)u * T->count];
    guint64 limit = work_limit ? work_limit : TIER_BOUND_WORK;
    double beyond = 0;
    for (guint j = 0; j + 1 < T->count; j++)
        beyond += boundary(p, j, limit, 256, j == 0 ? inside : NULL, &b.cut_short);
    b.cost += beyond;
    return b;
}
