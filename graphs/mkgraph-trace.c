/* mkgraph-trace.c — `mkgraph trace`: a random trace, with --perfect 1 a perfect instance whose optimum is
 * known, with --staggered 1 a hard one like real accelerator traces (2: the same built as a packing,
 * whose placement --solution-out writes), or with --llm 1 an LLM-like one (graphs/tracegen.c), written as
 * a trace file — our text format, or MiniMalloc CSV when the output ends in .csv — for planning benchmarks
 * and for replaying in other tools. */
#include "graphs/mkgraph.h"
#include "graphs/tracegen.h"

static const MkParam trace_params[] = {
    {"buffers", "1000", "number of buffers"},
    {"seed", "1", "random seed"},
    {"min-size", "64", "smallest buffer (bytes; sizes are log-uniform)"},
    {"max-size", "1048576", "largest buffer (bytes)"},
    {"align", "64", "alignment of every buffer (0: random powers of two up to 256)"},
    {"perfect", "0", "1: a perfect instance (guillotine cuts of width x time; optimum = width)"},
    {"width", "1048576", "perfect: the rectangle's address extent in bytes"},
    {"time", "1048576", "perfect: the rectangle's time extent (steps = time / quantum)"},
    {"quantum", "1024", "perfect: cuts fall on multiples of this"},
    {"drop", "0", "perfect: percent of the rectangles dropped"},
    {"staggered", "0", "1: a hard instance like real accelerator traces (few power-of-two sizes, staggered lifetimes); "
                       "2: the same built as a packing within the capacity (a placement there exists); 3: harder, as "
                       "the real traces search missed (each section its own sizes in 512 B, buffers spanning two "
                       "sections, a capacity in 512 B)"},
    {"capacity", "0", "staggered: each section peaks at most here (0: a round 85% of its natural peak; packed: sized "
                      "to hold about the buffers asked)"},
    {"sections", "3", "staggered: separate peak sections"},
    {"spanning", "6", "staggered 3: percent of the buffers living across a section's gap into the next"},
    {"llm", "0", "1: an LLM-like trace (decoder layers repeated to about --buffers: per head [seq, seq] scores, a 4 x "
                 "d-model MLP, many small temporaries); 2: with a KV cache kept to the end; 3: with each product's "
                 "weights streamed into the arena ahead of it; 4: both"},
    {"seq", "128", "llm: sequence length"},
    {"d-model", "768", "llm: hidden size"},
    {"heads", "12", "llm: attention heads (must divide d-model)"},
    {NULL, NULL, NULL},
};

static Trace *build_trace(const MkParams *p, GArray **construction, GError **error)
{
    TraceGenOptions o = TRACEGEN_DEFAULTS;
    gint64 buffers = mk_int(p, "buffers", error), seed = mk_int(p, "seed", error), min = mk_int(p, "min-size", error),
           max = mk_int(p, "max-size", error), align = mk_int(p, "align", error);
    gint64 perfect = mk_int(p, "perfect", error), width = mk_int(p, "width", error), time = mk_int(p, "time", error),
           quantum = mk_int(p, "quantum", error), drop = mk_int(p, "drop", error);
    gint64 staggered = mk_int(p, "staggered", error), capacity = mk_int(p, "capacity", error),
           sections = mk_int(p, "sections", error), spanning = mk_int(p, "spanning", error);
    gint64 llm = mk_int(p, "llm", error), seq = mk_int(p, "seq", error), d_model = mk_int(p, "d-model", error),
           heads = mk_int(p, "heads", error);
    if (*error)
        return NULL;
    if (llm) {
        if (llm < 0 || llm > 4 || buffers < 1 || buffers > 10000000 || seq < 1 || seq > 65536 || d_model < 1 ||
            d_model > 65536 || heads < 1 || d_model % heads) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "llm traces need --llm 1 to 4, 1 <= buffers <= 1e7, seq and "
                        "d-model from 1 to 65536, heads dividing d-model");
            return NULL;
        }
        return tracegen_llm((guint)buffers, (guint32)seed, (guint)seq, (guint)d_model, (guint)heads, llm == 2 || llm == 4,
                            llm >= 3);
    }
    if (staggered) {
        if (staggered < 0 || staggered > 3 || (staggered == 2 && capacity > ((gint64)1 << 32)) || buffers < 1 || buffers > 10000000 || (capacity && capacity < 65536) || capacity > ((gint64)1 << 40) || sections < 1 ||
            sections > 1000 || spanning < 0 || spanning > 50) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "staggered traces need --staggered 1, 2 or 3, 1 <= buffers <= 1e7, "
                        "capacity 0 or from 64 KiB to 1 TiB (4 GiB packed), 1 to 1000 sections, spanning 0 to 50");
            return NULL;
        }
        if (staggered == 3)
            return tracegen_staggered_hard((guint)buffers, (guint32)seed, (guint64)capacity, (guint)sections, (guint)spanning);
        return staggered == 2 ? tracegen_staggered_packed((guint)buffers, (guint32)seed, (guint64)capacity, (guint)sections, construction)
                              : tracegen_staggered((guint)buffers, (guint32)seed, (guint64)capacity, (guint)sections);
    }
    if (perfect) {
        if (quantum < 1 || width < quantum || time < quantum || time / quantum > (1 << 24) || drop > 99) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "perfect traces need quantum <= width, time; time / quantum "
                        "<= 2^24; drop < 100");
            return NULL;
        }
        return tracegen_perfect((guint)buffers, (guint32)seed, (guint64)width, (guint64)time, (guint64)quantum, (guint)drop);
    }
    if (buffers < 1 || buffers > 100000000 || min < 1 || max < min || (align & (align - 1))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "trace needs 1 <= buffers <= 1e8, 1 <= min-size <= max-size, align a power of two or 0");
        return NULL;
    }
    o.buffers = (guint)buffers;
    o.seed = (guint32)seed;
    o.min_size = (guint64)min;
    o.max_size = (guint64)max;
    o.align = (guint64)align;
    return tracegen_random(&o);
}

const MkFamily mk_trace = {
    .name = "trace",
    .summary = "a random trace file (text, or MiniMalloc CSV for .csv), not a graph",
    .params = trace_params,
    .build_trace = build_trace,
};
