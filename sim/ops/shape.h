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
    GHashTable *bounds;         /* data-dependent tensor name -> gint64* most (from --bound NAME=MAX) */
} ShapeOptions;

void shape_options_init(ShapeOptions *o);
void shape_options_clear(ShapeOptions *o);
/* Parses "NAME=VALUE" (VALUE a positive integer) into o->dims. */
gboolean shape_options_add_dim(ShapeOptions *o, const char *spec, GError **error);
/* Parses "NAME=MAX" (MAX a non-negative integer) into o->bounds: the most a data-dependent tensor's
 * data-dependent dimension may be at run time. */
gboolean shape_options_add_bound(ShapeOptions *o, const char *spec, GError **error);

gboolean shape_infer(Model *m, const ShapeOptions *o, GError **error);
/* One node's op inference on its own (a rewrite's new node, its inputs inferred), with a context of its own. */
gboolean shape_infer_node(Node *n, gint64 opset, GError **error);
/* The graph inputs' symbolic dimensions no --dim bound (after shape_infer), each once, in input order:
 * a NULL-terminated list (g_strfreev it), empty when every dimension is a size. */
char **shape_unbound_dims(const Graph *g);

/* Run-time inference of one node that reads or writes data-dependent tensors, on copies of its tensors
 * (the graph is not touched): input k takes in_dims[k] (NULL: its planned shape) and, when in_values[k] is
 * set, those contents; the op's inference then writes each output's shape into out_dims[k] (rank entries;
 * NULL: not wanted). */
gboolean shape_infer_runtime(const Node *n, gint64 opset, const gint64 *const *in_dims, const Value *const *in_values,
                             gint64 *const *out_dims, GError **error);

#endif
