/* tracegen.c — random trace generation (see tracegen.h). About 8 buffers start per step, so the live
 * set stays in the tens to hundreds as in real graphs, at any trace length; deterministic for a seed. */
#include "graphs/tracegen.h"

#include <math.h>

/* Long-lived buffers (residual streams, skip connections) live for a stretch of the graph, not all of
 * it: bounding their lifetime keeps the number live at once independent of the trace's length, as in
 * real graphs, instead of growing with it. */
#define LONG_LIFE 2000

Trace *tracegen_random(const TraceGenOptions *o)
{
    GRand *r = g_rand_new_with_seed(o->seed);
    guint steps = MAX(o->buffers / 8, 4);
    Trace *t = trace_new("random");
    double lo = log((double)MAX(o->min_size, 1)), hi = log((double)MAX(o->max_size, o->min_size));
    for (guint k = 0; k < o->buffers; k++) {
        guint first = (guint)g_rand_int_range(r, 0, (gint32)steps);
        guint length;
        if (g_rand_double(r) < o->long_lived) /* long-lived: up to half the trace, at most LONG_LIFE steps */
            length = (guint)g_rand_int_range(r, 1, (gint32)MIN(steps / 2, LONG_LIFE) + 2);
        else
            length = (guint)floor(-log(1.0 - g_rand_double(r)) * 4.0); /* geometric-like, mean 4 steps */
        guint last = MIN(first + length, steps - 1);
        guint64 size = (guint64)exp(lo + (hi - lo) * g_rand_double(r));
        guint64 align = o->align ? o->align : (guint64)1 << g_rand_int_range(r, 0, 9);
        char name[32];
        g_snprintf(name, sizeof name, "b%u", k);
        trace_add(t, name, MAX(size, 1), align, first, last);
    }
    t->steps = steps;
    g_rand_free(r);
    return t;
}

typedef struct {
    guint64 t0, t1, a0, a1; /* [t0, t1) time, [a0, a1) address, in quanta */
} Rect;

Trace *tracegen_perfect(guint buffers, guint32 seed, guint64 width, guint64 time, guint64 quantum, guint drop_percent)
{
    GRand *r = g_rand_new_with_seed(seed);
    GArray *rects = g_array_new(FALSE, FALSE, sizeof(Rect));
    Rect all = {0, MAX(time / quantum, 1), 0, MAX(width / quantum, 1)};
    g_array_append_val(rects, all);
    while (rects->len < buffers) {
        /* Cut the largest rectangle that can still be cut, across its longer side more often. */
        guint pick = G_MAXUINT;
        guint64 best = 0;
        for (guint k = 0; k < rects->len; k++) {
            const Rect *x = &g_array_index(rects, Rect, k);
            guint64 area = (x->t1 - x->t0) * (x->a1 - x->a0);
            if ((x->t1 - x->t0 > 1 || x->a1 - x->a0 > 1) && area > best) {
                best = area;
                pick = k;
            }
        }
        if (pick == G_MAXUINT)
            break; /* every rectangle is one quantum square */
        Rect x = g_array_index(rects, Rect, pick), y = x;
        guint64 dt = x.t1 - x.t0, da = x.a1 - x.a0;
        gboolean cut_time = da <= 1 || (dt > 1 && g_rand_double(r) < (double)dt / (double)(dt + da));
        if (cut_time) {
            guint64 at = x.t0 + 1 + (guint64)g_rand_int_range(r, 0, (gint32)(dt - 1));
            x.t1 = at;
            y.t0 = at;
        } else {
            guint64 at = x.a0 + 1 + (guint64)g_rand_int_range(r, 0, (gint32)(da - 1));
            x.a1 = at;
            y.a0 = at;
        }
        g_array_index(rects, Rect, pick) = x;
        g_array_append_val(rects, y);
    }
    Trace *t = trace_new("perfect");
    for (guint k = 0; k < rects->len; k++) {
        const Rect *x = &g_array_index(rects, Rect, k);
        if (drop_percent && (guint)g_rand_int_range(r, 0, 100) < drop_percent)
            continue;
        char name[32];
        g_snprintf(name, sizeof name, "r%u", k);
        trace_add(t, name, (x->a1 - x->a0) * quantum, 1, (guint)x->t0, (guint)x->t1 - 1);
    }
    t->steps = (guint)MAX(time / quantum, 1);
    g_array_unref(rects);
    g_rand_free(r);
    return t;
}

/* `want` distinct sizes, each drawn by `draw` and given its own weight (returned: the weights' sum). */
static double distinct_sizes(GRand *r, guint want, guint64 (*draw)(GRand *r), guint64 *sizes, double *weight)
{
    double total = 0;
    guint picked = 0;
    while (picked < want) {
        guint64 size = draw(r);
        gboolean seen = FALSE;
        for (guint k = 0; k < picked; k++)
            seen = seen || sizes[k] == size;
        if (seen)
            continue;
        sizes[picked] = size;
        weight[picked] = 0.2 + g_rand_double(r);
        total += weight[picked++];
    }
    return total;
}

static guint64 power_of_two_size(GRand *r) { return (guint64)1024 << g_rand_int_range(r, 0, 7); }

/* The staggered families' sizes: four of the powers of two from 1 to 64 KiB, each with its own weight
 * (returned: the weights' sum). */
static double staggered_sizes(GRand *r, guint64 sizes[4], double weight[4])
{
    return distinct_sizes(r, 4, power_of_two_size, sizes, weight);
}

/* One of the four sizes, by weight. */
static guint weighted_pick(GRand *r, const double weight[4], double total)
{
    double pick = g_rand_double(r) * total;
    guint k = 0;
    while (k < 3 && pick >= weight[k])
        pick -= weight[k++];
    return k;
}

/* A buffer [first, last] of `size` bytes, named by its number, if it keeps every step's live bytes within the
 * capacity. */
static gboolean capped_add(Trace *t, guint64 *live, guint64 capacity, guint64 size, guint first, guint last,
                           guint *made)
{
    guint64 peak = 0;
    for (guint x = first; x <= last; x++)
        peak = MAX(peak, live[x]);
    if (peak + size > capacity)
        return FALSE;
    for (guint x = first; x <= last; x++)
        live[x] += size;
    char name[32];
    g_snprintf(name, sizeof name, "b%u", (*made)++);
    trace_add(t, name, size, 1, first, last);
    return TRUE;
}

/* The smallest of the sections' peak live bytes (each section `length` steps and a gap of `gap`). */
static guint64 lowest_section_peak(const guint64 *live, guint sections, guint length, guint gap)
{
    guint64 lowest = G_MAXUINT64;
    for (guint s = 0; s < sections; s++) {
        guint64 peak = 0;
        for (guint x = s * (length + gap); x < (s + 1) * (length + gap); x++)
            peak = MAX(peak, live[x]);
        lowest = MIN(lowest, peak);
    }
    return lowest;
}

/* One staggered instance; *lowest_peak receives the smallest of the sections' peak live bytes. */
static Trace *staggered(guint buffers, guint32 seed, guint64 capacity, guint sections, guint64 *lowest_peak)
{
    GRand *r = g_rand_new_with_seed(seed);
    sections = MAX(sections, 1);
    guint64 sizes[4];
    double weight[4], total = staggered_sizes(r, sizes, weight);
    guint per_section = MAX(buffers / sections, 1), length = MAX(per_section / 2, 16), gap = 2;
    guint steps = sections * (length + gap);
    guint64 *live = g_new0(guint64, steps + 1);
    Trace *t = trace_new("staggered");
    guint made = 0;
    for (guint s = 0; s < sections && made < buffers; s++) {
        guint lo = s * (length + gap), hi = lo + length - 1; /* the section's steps [lo, hi] */
        guint want = s + 1 == sections ? buffers - made : per_section, fails = 0, added = 0;
        while (added < want && fails < 200) {
            guint k = weighted_pick(r, weight, total);
            guint first = (guint)g_rand_int_range(r, (gint32)lo, (gint32)hi + 1);
            guint span = 1 + (guint)floor(-log(1.0 - g_rand_double(r)) * length / 3.0); /* staggered, overlapping */
            if (!capped_add(t, live, capacity, sizes[k], first, MIN(first + span, hi), &made)) {
                fails++; /* the section is full here: its peak stays at the capacity */
                continue;
            }
            added++;
            fails = 0;
        }
    }
    t->steps = steps;
    *lowest_peak = lowest_section_peak(live, sections, length, gap);
    g_free(live);
    g_rand_free(r);
    return t;
}

Trace *tracegen_staggered(guint buffers, guint32 seed, guint64 capacity, guint sections)
{
    guint64 lowest;
    if (!capacity) { /* a round capacity every section reaches: 85% of the lowest natural peak, in 64 KiB */
        trace_free(staggered(buffers, seed, G_MAXUINT64, sections, &lowest));
        capacity = MAX(lowest / 100 * 85 / 65536 * 65536, 65536);
    }
    return staggered(buffers, seed, capacity, sections, &lowest);
}

static guint64 size_in_512(GRand *r) { return (guint64)512 * (guint64)g_rand_int_range(r, 1, 129); }

/* The hard family's sizes for one section: 3 to 6 distinct multiples of 512 B up to 64 KiB, each weighted
 * (returned: how many; *total: the weights' sum). */
static guint hard_sizes(GRand *r, guint64 sizes[6], double weight[6], double *total)
{
    guint want = (guint)g_rand_int_range(r, 3, 7);
    *total = distinct_sizes(r, want, size_in_512, sizes, weight);
    return want;
}

/* One hard instance; *lowest_peak receives the smallest of the sections' peak live bytes. */
static Trace *staggered_hard(guint buffers, guint32 seed, guint64 capacity, guint sections, guint spanning,
                             guint64 *lowest_peak)
{
    GRand *r = g_rand_new_with_seed(seed);
    sections = MAX(sections, 1);
    guint per_section = MAX(buffers / sections, 1), length = MAX(per_section / 2, 16), gap = 2;
    guint steps = sections * (length + gap);
    guint64 *live = g_new0(guint64, steps + 1);
    Trace *t = trace_new("staggered-hard");
    guint made = 0, spans = sections > 1 ? buffers * spanning / 100 : 0;
    static const guint64 long_sizes[] = {8 * 512, 12 * 512, 24 * 512, 40 * 512, 64 * 512};
    for (guint k = 0, fails = 0; k < spans && fails < 200;) { /* from one section into the next, across its gap */
        guint s = (guint)g_rand_int_range(r, 0, (gint32)sections - 1), lo = s * (length + gap);
        guint first = lo + (guint)g_rand_int_range(r, 0, (gint32)length);
        guint reach = first + length + gap + (guint)g_rand_int_range(r, 0, (gint32)length); /* (MIN reads twice) */
        guint last = MIN(reach, lo + 2 * length + gap - 1);
        guint64 size = long_sizes[g_rand_int_range(r, 0, G_N_ELEMENTS(long_sizes))];
        if (capped_add(t, live, capacity, size, first, last, &made)) {
            k++;
            fails = 0;
        } else {
            fails++;
        }
    }
    for (guint s = 0; s < sections && made < buffers; s++) {
        guint64 sizes[6];
        double weight[6], total;
        guint kinds = hard_sizes(r, sizes, weight, &total);
        guint lo = s * (length + gap), hi = lo + length - 1;
        guint want = s + 1 == sections ? buffers - made : (buffers - spans) / sections, fails = 0, added = 0;
        while (added < want && fails < 200) {
            double pick = g_rand_double(r) * total;
            guint k = 0;
            while (k + 1 < kinds && pick >= weight[k])
                pick -= weight[k++];
            guint first = (guint)g_rand_int_range(r, (gint32)lo, (gint32)hi + 1);
            guint span = 1 + (guint)floor(-log(1.0 - g_rand_double(r)) * length / 3.0);
            if (capped_add(t, live, capacity, sizes[k], first, MIN(first + span, hi), &made)) {
                added++;
                fails = 0;
            } else {
                fails++;
            }
        }
    }
    t->steps = steps;
    *lowest_peak = lowest_section_peak(live, sections, length, gap);
    g_free(live);
    g_rand_free(r);
    return t;
}

Trace *tracegen_staggered_hard(guint buffers, guint32 seed, guint64 capacity, guint sections, guint spanning)
{
    guint64 lowest;
    if (!capacity) { /* 85% of the lowest natural peak, in 512 B: not a round number */
        trace_free(staggered_hard(buffers, seed, G_MAXUINT64, sections, spanning, &lowest));
        capacity = MAX(lowest / 100 * 85 / 512 * 512, 65536);
    }
    return staggered_hard(buffers, seed, capacity, sections, spanning, &lowest);
}

/* A strip of the capacity in grains (bits), one bitmap per step: set bits are taken. */
typedef struct {
    guint words;   /* 64-bit words per step */
    guint64 *bits; /* steps x words */
} Strip;

/* The lowest grain offset where `need` grains are free at every step of [first, last], or G_MAXUINT64. */
static guint64 strip_lowest_fit(const Strip *s, guint first, guint last, guint need, guint grains, guint64 *scratch)
{
    for (guint w = 0; w < s->words; w++) {
        guint64 taken = 0;
        for (guint t = first; t <= last; t++)
            taken |= s->bits[(gsize)t * s->words + w];
        scratch[w] = taken;
    }
    guint run = 0;
    for (guint g = 0; g < grains; g++) {
        run = scratch[g / 64] >> (g % 64) & 1 ? 0 : run + 1;
        if (run == need)
            return g + 1 - need;
    }
    return G_MAXUINT64;
}

/* One packed instance at a capacity (in grains); offsets (bytes, per buffer) receive the construction.
 * *filled: every section got its share of the buffers before 400 in a row found no room. */
static Trace *packed(guint buffers, guint32 seed, guint grains, guint sections, GArray *offsets, gboolean *filled)
{
    const guint64 grain = 1024;
    GRand *r = g_rand_new_with_seed(seed);
    guint64 sizes[4];
    double weight[4], total = staggered_sizes(r, sizes, weight);
    guint per_section = MAX(buffers / sections, 1), length = MAX(per_section / 2, 16), gap = 2;
    guint steps = sections * (length + gap);
    Strip strip = {(grains + 63) / 64, NULL};
    strip.bits = g_new0(guint64, (gsize)steps * strip.words);
    guint64 *scratch = g_new(guint64, strip.words);
    Trace *t = trace_new("staggered-packed");
    guint made = 0;
    *filled = TRUE;
    for (guint s = 0; s < sections; s++) {
        guint lo = s * (length + gap), hi = lo + length - 1;
        guint want = s + 1 == sections ? buffers - made : per_section, added = 0, fails = 0;
        for (; added < want && fails < 400; added++) {
            guint k = weighted_pick(r, weight, total);
            guint first = (guint)g_rand_int_range(r, (gint32)lo, (gint32)hi + 1);
            guint span = 1 + (guint)floor(-log(1.0 - g_rand_double(r)) * length / 3.0);
            guint last = MIN(first + span, hi), need = (guint)(sizes[k] / grain);
            guint64 at = strip_lowest_fit(&strip, first, last, need, grains, scratch);
            if (at == G_MAXUINT64) {
                fails++;
                added--;
                continue;
            }
            for (guint x = first; x <= last; x++)
                for (guint g = (guint)at; g < at + need; g++)
                    strip.bits[(gsize)x * strip.words + g / 64] |= (guint64)1 << (g % 64);
            char name[32];
            g_snprintf(name, sizeof name, "b%u", made++);
            trace_add(t, name, sizes[k], 1, first, last);
            guint64 bytes = at * grain;
            g_array_append_val(offsets, bytes);
            fails = 0;
        }
        *filled = *filled && added == want;
    }
    t->steps = steps;
    g_free(scratch);
    g_free(strip.bits);
    g_rand_free(r);
    return t;
}

Trace *tracegen_staggered_packed(guint buffers, guint32 seed, guint64 capacity, guint sections, GArray **offsets)
{
    sections = MAX(sections, 1);
    GArray *placed = g_array_new(FALSE, FALSE, sizeof(guint64));
    gboolean filled;
    Trace *t = NULL;
    if (capacity) {
        t = packed(buffers, seed, (guint)(capacity / 1024), sections, placed, &filled);
    } else { /* the narrowest strip, in 16 KiB, that holds them all: crowded, so the lower bound comes near it */
        for (guint grains = 64; !t || !filled; grains += 16) {
            if (t)
                trace_free(t);
            g_array_set_size(placed, 0);
            t = packed(buffers, seed, grains, sections, placed, &filled);
            if (grains >= (1u << 22))
                break; /* 4 GiB: never for these sizes */
        }
    }
    if (offsets)
        *offsets = placed;
    else
        g_array_unref(placed);
    return t;
}

/* The LLM generator's state: the trace, the step now, the seed's stream and the buffer count. */
typedef struct {
    Trace *t;
    GRand *r;
    guint step, made;
} Llm;

static guint llm_add(Llm *g, guint64 size, guint first, guint last)
{
    char name[32];
    g_snprintf(name, sizeof name, "b%u", g->made++);
    return trace_add(g->t, name, size, 64, first, last);
}

/* One op of the layer: the step advances, and some ops leave a compiler's small temporaries (masks, scalars,
 * reduction partials: 64 B to 4 KiB, log-uniform) living a step to three. */
static guint llm_op(Llm *g)
{
    guint now = g->step++;
    while (g_rand_double(g->r) < 0.4) {
        guint64 size = (guint64)exp(log(64.0) + (log(4096.0) - log(64.0)) * g_rand_double(g->r));
        llm_add(g, size / 64 * 64 + 64, now, now + (guint)g_rand_int_range(g->r, 0, 3));
    }
    return now;
}

/* A product's weights and bias streamed into the arena: loaded 4 to 64 ops ahead of the product (from the
 * seed: a compiler's prefetch, overlapping the ops before it), freed after it. */
static void llm_weights(Llm *g, guint64 weights, guint64 bias, guint use)
{
    guint lead = (guint)g_rand_int_range(g->r, 4, 65);
    llm_add(g, weights, use > lead ? use - lead : 0, use);
    llm_add(g, bias, use > lead / 2 ? use - lead / 2 : 0, use);
}

Trace *tracegen_llm(guint buffers, guint32 seed, guint seq, guint d_model, guint heads, gboolean kv_cache,
                    gboolean stream)
{
    Llm g = {trace_new("llm"), g_rand_new_with_seed(seed), 0, 0};
    GArray *cache = g_array_new(FALSE, FALSE, sizeof(guint)); /* K and V kept to the end */
    const guint64 f = 4, row = (guint64)seq * d_model * f, head = (guint64)seq * (d_model / heads) * f,
                  scores = (guint64)seq * seq * f, stats = (guint64)seq * f;
    guint x_from = llm_op(&g); /* the embeddings: the residual stream's first value */
    guint64 x_size = row;
    while (g.made + 1 < buffers) {
        /* attention: LayerNorm (mean and 1/sigma rows), Q, K, V; per head scores, softmax and its context */
        guint ln = llm_op(&g), q = llm_op(&g), k = llm_op(&g), v = llm_op(&g);
        llm_add(&g, stats, ln, ln);
        llm_add(&g, stats, ln, ln);
        guint heads_from = g.step;
        for (guint h = 0; h < heads; h++) {
            guint s = llm_op(&g), p = llm_op(&g), c = llm_op(&g);
            llm_add(&g, scores, s, p);
            llm_add(&g, scores, p, c);
            llm_add(&g, head, c, heads_from + 3 * heads); /* until the heads are joined */
        }
        guint joined = llm_op(&g), proj = llm_op(&g), add1 = llm_op(&g);
        if (stream) { /* Q, K, V and the projection's weights and biases, loaded ahead of their product */
            llm_weights(&g, (guint64)d_model * d_model * f, (guint64)d_model * f, q);
            llm_weights(&g, (guint64)d_model * d_model * f, (guint64)d_model * f, k);
            llm_weights(&g, (guint64)d_model * d_model * f, (guint64)d_model * f, v);
            llm_weights(&g, (guint64)d_model * d_model * f, (guint64)d_model * f, proj);
        }
        llm_add(&g, row, ln, v);                                  /* LayerNorm's output, read by Q, K and V */
        llm_add(&g, row, q, heads_from + 3 * heads - 1);          /* Q, read by every head's scores */
        for (guint kv = 0; kv < 2; kv++) { /* K and V: read by the heads, or kept in the cache */
            guint id = llm_add(&g, row, kv ? v : k, heads_from + 3 * heads - 1);
            if (kv_cache)
                g_array_append_val(cache, id);
        }
        llm_add(&g, row, joined, proj);
        llm_add(&g, row, proj, add1);
        llm_add(&g, x_size, x_from, add1); /* the residual stream until the first Add */
        /* MLP: LayerNorm, the 4d-wide product and its Gelu, the product back, the second Add */
        guint ln2 = llm_op(&g), fc1 = llm_op(&g), act = llm_op(&g), fc2 = llm_op(&g), add2 = llm_op(&g);
        llm_add(&g, stats, ln2, ln2);
        llm_add(&g, stats, ln2, ln2);
        llm_add(&g, row, ln2, fc1);
        llm_add(&g, 4 * row, fc1, act);
        llm_add(&g, 4 * row, act, fc2);
        llm_add(&g, row, fc2, add2);
        llm_add(&g, row, add1, add2); /* the stream between the Adds */
        if (stream) {
            llm_weights(&g, 4 * (guint64)d_model * d_model * f, 4 * (guint64)d_model * f, fc1);
            llm_weights(&g, 4 * (guint64)d_model * d_model * f, (guint64)d_model * f, fc2);
        }
        x_from = add2;
    }
    llm_add(&g, x_size, x_from, g.step); /* the last stream value, the output */
    for (guint k = 0; k < cache->len; k++)
        trace_buffer(g.t, g_array_index(cache, guint, k))->last = g.step;
    g.t->steps = g.step + 1;
    g_array_unref(cache);
    g_rand_free(g.r);
    return g.t;
}
