/* mkgraph.h — synthetic graph families for mkgraph: each family is one file (mkgraph-*.c) filling a
 * descriptor; mkgraph.c holds the registry and the command line. */
#ifndef MKGRAPH_H
#define MKGRAPH_H

#include "builder.h"

typedef struct {
    const char *name;
    gint64 dflt;
    const char *help;
} MkParam;

typedef struct {
    GHashTable *values; /* param name -> gint64*, every declared param present */
} MkParams;

gint64 mk_param(const MkParams *p, const char *name);

typedef struct {
    const char *name;
    const char *summary;
    const MkParam *params; /* terminated by {NULL} */
    Model *(*build)(const MkParams *p, GError **error);
} MkFamily;

extern const MkFamily mk_gpt2;

#endif
