/* tracegen.h — random traces for property tests and planning benchmarks (mkgraph trace): lifetimes
 * mostly short with a few long-lived buffers, sizes log-uniform, like activation traces of real graphs. */
#ifndef SIM_TRACEGEN_H
#define SIM_TRACEGEN_H

#include "trace/trace.h"

typedef struct {
    guint buffers;
    guint32 seed;
    guint64 min_size, max_size; /* log-uniform in [min_size, max_size] */
    guint64 align;              /* 0: a random power of two from 1 to 256 per buffer */
    double long_lived;          /* fraction of long-lived buffers (up to half the trace, at most 2000 steps) */
} TraceGenOptions;

#define TRACEGEN_DEFAULTS {.buffers = 1000, .seed = 1, .min_size = 64, .max_size = 1 << 20, .align = 64, .long_lived = 0.02}

Trace *tracegen_random(const TraceGenOptions *o);

/* A perfect instance: a `width` (bytes) x `time` rectangle cut by random guillotine cuts at multiples of
 * `quantum` (in both directions) into `buffers` rectangles, each a buffer (size = height, lifetime = its
 * span of time / quantum steps). Every step is full, so the optimal arena is exactly `width`; with
 * `drop_percent` of the rectangles removed it is at most that. Alignment 1. */
Trace *tracegen_perfect(guint buffers, guint32 seed, guint64 width, guint64 time, guint64 quantum, guint drop_percent);

/* Staggered: an instance like the traces of production accelerators that make exact placement hard, not a
 * guillotine cut. `buffers` buffers of four sizes (powers of two from 1 to 64 KiB, chosen and weighted by
 * the seed) with overlapping, staggered lifetimes in `sections` separate stretches of time; a buffer that
 * would push a section's live bytes over `capacity` goes elsewhere (so each section peaks at or just
 * under a round capacity: several peak sections, the lower bound near the capacity). capacity 0: 85% of
 * the sections' lowest peak without a cap, rounded down to 64 KiB. Fewer buffers than asked when the
 * sections fill up first. Alignment 1. */
Trace *tracegen_staggered(guint buffers, guint32 seed, guint64 capacity, guint sections);

/* Staggered, hard: tracegen_staggered's sections and capacity, with what made the real traces it missed hard
 * (results/search.md): each section its own 3 to 6 sizes, multiples of 512 B up to 64 KiB; `spanning` percent of
 * the buffers (32 KiB at most) living from one section across its gap into the next, made first; and a
 * capacity (0: 85% of the lowest natural peak) in 512 B, not a round number. Alignment 1. */
Trace *tracegen_staggered_hard(guint buffers, guint32 seed, guint64 capacity, guint sections, guint spanning);

/* Staggered and packed: buffers like tracegen_staggered's, but each section is built as a placement — every
 * buffer goes at the lowest free offset (1 KiB grains) across its lifetime in a strip `capacity` wide, and
 * sections are filled until 400 buffers in a row find no room. So a placement within the capacity exists
 * (its offsets, one per buffer, go to *offsets when asked; the caller unrefs them), and where the lower
 * bound reaches the capacity the optimum is known. capacity 0: scaled (in 64 KiB) so the sections hold
 * about `buffers`. The strip's holes make it no guillotine cut. Alignment 1. */
Trace *tracegen_staggered_packed(guint buffers, guint32 seed, guint64 capacity, guint sections, GArray **offsets);

/* LLM-like: decoder layers repeated until about `buffers` buffers (each layer the same sizes: a residual
 * stream of seq x d_model floats living across the layer; LayerNorm's statistics; Q, K and V; per head a
 * [seq, seq] score matrix, its softmax and a context; the 4 x d_model MLP), among a compiler's small
 * temporaries (64 B to 4 KiB, a step to three, from the seed). kv_cache: K and V live to the end (a
 * prefill's cache), else only while the heads read them. stream: each product's weights and bias are
 * loaded into the arena 4 to 64 ops ahead of it (from the seed) and freed after it, as an accelerator's
 * compiler streams them: large buffers overlapping at staggered times. Alignment 64. */
Trace *tracegen_llm(guint buffers, guint32 seed, guint seq, guint d_model, guint heads, gboolean kv_cache,
                    gboolean stream);

#endif
