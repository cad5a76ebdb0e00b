/* shape.h — shape inference: gives every tensor of a model a static dtype and shape (and a value,
 * where shape arithmetic can be folded), from the graph inputs' declared types with symbolic dims
 * bound by the user, through the op table. Real exports usually carry no value_info; where a file
 * does, inferred shapes are checked against it. */
#ifndef SIM_SHAPE_H
#define SIM_SHAPE_H

#include "model/graph.h"

/* The most elements of constant values (value.h) one model keeps at plan time, in total: 2^24 (128 MiB as
 * 64-bit numbers), 256 times VALUE_MAX_ELEMENTS. */
#define SHAPE_VALUES_MAX_ELEMENTS ((guint64)1 << 24)

typedef struct {
    GHashTable *dims;           /* symbolic dim name -> gint64* value (from --dim NAME=VALUE) */
    gboolean allow_unknown_ops; /* unknown ops take their output shapes from value_info */
    gboolean partial;           /* (--info) an unbound symbolic input dimension is no error: that input, and
                                   every node that reads what depends on it, keeps no shape */
} ShapeOptions;

void shape_options_init(ShapeOptions *o);
void shape_options_clear(ShapeOptions *o);
/* Parses "NAME=VALUE" (VALUE a positive integer) into o->dims. */
gboolean shape_options_add_dim(ShapeOptions *o, const char *spec, GError **error);

gboolean shape_infer(Model *m, const ShapeOptions *o, GError **error);
/* The graph inputs' symbolic dimensions no --dim bound (after shape_infer), each once, in input order:
 * a NULL-terminated list (g_strfreev it), empty when every dimension is a size. */
char **shape_unbound_dims(const Graph *g);

#endif
