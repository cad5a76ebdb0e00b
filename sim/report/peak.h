/* peak.h — why the arena is what it is: the peak witness. No plan of a trace is smaller than the most bytes live
 * at one step (the lower bound), so the witness names that step and what is live there: each buffer (largest
 * first) with the node that made its tensor and the nodes that read it, and the sharing an alias strategy refused
 * for a buffer live there, with its reason and the live bytes the step would hold had that copy shared. With
 * several bins (each its own arena) there is one peak per bin. */
#ifndef SIM_PEAK_H
#define SIM_PEAK_H

#include "memory/alias.h"
#include "trace/trace.h"

#include <json-glib/json-glib.h>
#include <stdio.h>

/* One buffer live at the peak. */
typedef struct {
    guint buffer;          /* trace buffer id */
    const Node *producer;  /* the node that made the buffer's tensor; NULL: a graph input, a trace without a graph */
    const GPtrArray *readers; /* const Node*: the tensor's consumers, or NULL */
} PeakBuffer;

/* A sharing refused (a fallback: an op made a copy) for a tensor whose buffer is live at the peak. */
typedef struct {
    const AliasFallback *fallback; /* the alias map's */
    guint buffer;          /* the copy's buffer */
    guint64 live_without;  /* the peak step's live bytes had the copy taken no bytes of its own */
    guint64 arena_shared;  /* the arena had the copy shared, placed again (driver_peak_lift), or 0: not computed */
} PeakRefusal;

typedef struct {
    guint bin;
    guint step;            /* the first step with the most live bytes */
    const Node *node;      /* the node run at that step (NULL for a trace without a graph) */
    guint64 live;          /* its live bytes: the bin's lower bound */
    GArray *buffers;       /* PeakBuffer, largest first (then by name) */
    GArray *refused;       /* PeakRefusal, in the alias map's order */
} PeakBin;

typedef struct PeakWitness {
    GArray *bins;          /* PeakBin, one per bin with buffers */
} PeakWitness;

/* The witness of trace t (its buffers named after their root tensors, as alias_map_to_trace names them); g,
 * schedule and aliases may be NULL (a trace read from a file): then no producers, readers or refusals. */
PeakWitness *peak_witness_new(const Trace *t, const Graph *g, const GPtrArray *schedule, const AliasMap *aliases);
void peak_witness_free(PeakWitness *w);
/* The witness for a reader (text and md: `block` starts each line, as the other notes do), the `limit` largest
 * buffers of each peak (0: all) and then how many more. */
void peak_witness_print(FILE *out, const char *block, const Trace *t, const PeakWitness *w, guint limit);
/* The witness as a json member "peak": an array of {bin, step, node, op, live_bytes, buffers: [{name, bytes,
 * first, last, producer, producer_op, readers}], refused: [{note, buffer, live_without_bytes}]}. */
void peak_witness_json(JsonBuilder *b, const Trace *t, const PeakWitness *w);

#endif
