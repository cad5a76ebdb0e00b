/* mkgraph.h — synthetic graph families for mkgraph: each family is one file (mkgraph-*.c) filling a
 * descriptor; mkgraph.c holds the registry and the command line. */
#ifndef MKGRAPH_H
#define MKGRAPH_H

#include "graphs/builder.h"
#include "trace/trace.h"

/* A family parameter: `--name value`; values are integers or comma-separated integer lists. */
typedef struct {
    const char *name;
    const char *dflt;
    const char *help;
} MkParam;

typedef struct {
    GHashTable *values; /* param name -> value text, every declared param present */
} MkParams;

/* Parsed parameter values; a malformed value sets *error (sticky: later calls keep it). */
gint64 mk_int(const MkParams *p, const char *name, GError **error);
/* A comma-separated list of integers (at least one). Newly allocated. */
GArray *mk_ints(const MkParams *p, const char *name, GError **error);

typedef struct {
    const char *name;
    const char *summary;
    const MkParam *params; /* terminated by {NULL} */
    Model *(*build)(const MkParams *p, GError **error); /* error is never NULL */
    /* Families that write a trace instead; a trace built as a placement also hands it back (one offset per
     * buffer, *construction set, caller unrefs), which `--solution-out FILE` writes as a MiniMalloc solution. */
    Trace *(*build_trace)(const MkParams *p, GArray **construction, GError **error);
} MkFamily;

/* The families (one file each), listed in mkgraph.c's registry. */
extern const MkFamily mk_gpt2, mk_block, mk_mlp, mk_noop_chain, mk_branches, mk_pinned, mk_gather, mk_slice,
    mk_concat, mk_split, mk_chained_concat, mk_densenet, mk_unet, mk_inception, mk_random, mk_trace, mk_identity_chain,
    mk_relu_chain;

#endif
