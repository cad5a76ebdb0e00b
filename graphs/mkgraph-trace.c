/* mkgraph-trace.c — `mkgraph trace`: a random trace (sim/tracegen.c) written as a trace file — our text
 * format, or MiniMalloc CSV when the output ends in .csv — for planning benchmarks and for replaying
 * in other tools. */
#include "mkgraph.h"
#include "tracegen.h"

static const MkParam trace_params[] = {
    {"buffers", "1000", "number of buffers"},
    {"seed", "1", "random seed"},
    {"min-size", "64", "smallest buffer (bytes; sizes are log-uniform)"},
    {"max-size", "1048576", "largest buffer (bytes)"},
    {"align", "64", "alignment of every buffer (0: random powers of two up to 256)"},
    {NULL, NULL, NULL},
};

static Trace *build_trace(const MkParams *p, GError **error)
{
    TraceGenOptions o = TRACEGEN_DEFAULTS;
    gint64 buffers = mk_int(p, "buffers", error), seed = mk_int(p, "seed", error), min = mk_int(p, "min-size", error),
           max = mk_int(p, "max-size", error), align = mk_int(p, "align", error);
    if (*error)
        return NULL;
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
    return trace_random(&o);
}

const MkFamily mk_trace = {
    .name = "trace",
    .summary = "a random trace file (text, or MiniMalloc CSV for .csv), not a graph",
    .params = trace_params,
    .build_trace = build_trace,
};
