/* trace.h — the waist of the simulator: buffers with sizes, alignments and lifetimes. Everything
 * above (graphs, orders, aliasing) produces a trace; everything below (placement, verification,
 * reports, plots) only reads one. Traces can also be read from files (trace-io.c): our text format and
 * MiniMalloc's CSV. */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <glib.h>

#define TRACE_NONE (-1)

typedef struct {
    char *name;        /* in the trace's `names` */
    guint64 size;      /* bytes, as placed (padding included) */
    guint64 align;     /* offset alignment, a power of two */
    guint first, last; /* live during steps first..last inclusive */
    gint64 fixed;      /* pinned offset, or TRACE_NONE */
    gint64 group;      /* rigid group id, or TRACE_NONE: members keep group_offset from the group base */
    guint64 group_offset;
    guint bin;         /* memory bin: each bin is its own arena */
    /* Reuse class, for a runtime that gives a freed buffer only to an equal one (ONNX Runtime: the same
     * element size and static shape; the `ort` strategy): buffers of one class may take each other's bytes.
     * 0: none given (such a runtime matches by size); TRACE_REUSE_NONE: never reused (a shape it cannot
     * know before running). */
    guint64 reuse;
    /* Bytes the run moves through the buffer (memory tiers, trace-tiers.h): every tensor in it read once per
     * consumer and written once by its producer (views move nothing). trace_add sets one write and one read of
     * its size, as a trace that says nothing is taken to mean. */
    guint64 reads, writes;
    guint32 tiers;     /* the tiers it may be placed in, one bit per tier of Trace.tiers; 0: any */
} TraceBuffer;

#define TRACE_REUSE_NONE G_MAXUINT64

typedef struct {
    GArray *buffers; /* TraceBuffer; a buffer's id is its index */
    GStringChunk *names; /* every buffer's name, in a few large blocks (no allocation per buffer) */
    guint steps;     /* every buffer's last < steps */
    char *source;    /* what the trace was made from (a graph or file name) */
    guint64 *time_points; /* step -> the file's own time point, where a sparse file's time was compressed
                             (steps entries); NULL when steps are the file's time points */
    /* The memories a plan may use (TraceTier, trace-tiers.h), fastest first, or NULL: one arena per bin. With
     * tiers, which tier a buffer goes in is the plan's decision, written back as its bin (bin k: tier k). */
    GArray *tiers;
} Trace;

Trace *trace_new(const char *source);
void trace_free(Trace *t);
/* A copy with names and time points of its own. */
Trace *trace_copy(const Trace *t);
/* Appends a buffer (name copied); returns its id. */
guint trace_add(Trace *t, const char *name, guint64 size, guint64 align, guint first, guint last);
/* Room for n buffers in an empty trace, so a reader that knows its line count grows nothing. */
void trace_reserve(Trace *t, guint n);
static inline TraceBuffer *trace_buffer(const Trace *t, guint id) { return &g_array_index(t->buffers, TraceBuffer, id); }
static inline guint trace_count(const Trace *t) { return t->buffers->len; }

/* Checks the trace is well formed: sizes > 0, alignments powers of two, first <= last < steps, fixed
 * offsets aligned, groups consistent (members of a group share the bin; no two members fixed at
 * different bases); with tiers, every buffer's tiers are tiers there are, a group's members share them, and a
 * pinned buffer names one. */
gboolean trace_validate(const Trace *t, GError **error);

/* Max over steps of the bytes live at that step, summed over bins (each bin is its own arena): no
 * placement can use less. */
guint64 trace_lower_bound(const Trace *t);
/* Live bytes at every step (array of t->steps guint64), for one bin or all (bin < 0). */
guint64 *trace_live_bytes(const Trace *t, gint bin);
/* Highest bin number + 1 (with tiers, at least their count). */
guint trace_bins(const Trace *t);

/* x rounded up to a multiple of align. Alignments are powers of two (trace_check), which a mask rounds to
 * without the 64-bit division the planners' inner loops would otherwise pay on every gap they weigh; any
 * other alignment still rounds right, by division. */
static inline guint64 round_up(guint64 x, guint64 align)
{
    if (align <= 1)
        return x;
    if (G_LIKELY((align & (align - 1)) == 0))
        return (x + align - 1) & ~(align - 1);
    return (x + align - 1) / align * align;
}

/* Trace files (trace-io.c). The format is chosen by the file name: `.csv` is MiniMalloc's CSV
 * (header naming id, lower, upper [half-open] or end [inclusive], size, and optionally alignment and
 * offset — an offset is a fixed offset, as in MiniMalloc's problems, so a solution file replays as
 * pins); anything else is our text format (docs/trace-format.md). Errors name FILE:LINE. */
Trace *trace_read_file(const char *path, GError **error);
Trace *trace_parse(const char *text, gsize len, const char *path, gboolean csv, GError **error);
/* Writes the trace; with `offsets` (one per buffer) a CSV also gets the plan as its offset column.
 * No partial file is left behind on failure. */
gboolean trace_write_file(const Trace *t, const guint64 *offsets, const char *path, GError **error);
char *trace_to_text(const Trace *t);
/* A name as the text format (and the text --map) writes it: bytes that would break a whitespace- or
 * comma-separated field (blanks, controls, ',', '%') as %XX, an empty name as %00. Newly allocated. */
char *trace_name_escape(const char *name);
char *trace_to_csv(const Trace *t, const guint64 *offsets, GError **error);

#endif
