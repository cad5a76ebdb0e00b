/* op-schema.h — ONNX's own operator schemas, the door every node of the default domain passes: the table is
 * generated at build time from Debian's onnx (sim/ops/onnx-schemas.py writes $(BUILD)/gen/onnx-schemas.c), one
 * row per operator version, and op_schema_check holds a node to its row for the model's opset the way
 * onnx.checker does: input and output counts, required inputs, every input's and output's element type among
 * its type variable's allowed ones, one element type per shared variable (Where's X and Y, Conv's X, W and B),
 * attribute types, required attributes, no attribute the operator does not define. */
#ifndef SIM_OPS_OP_SCHEMA_H
#define SIM_OPS_OP_SCHEMA_H

#include "model/graph.h"

typedef enum { OP_PARAM_SINGLE, OP_PARAM_OPTIONAL, OP_PARAM_VARIADIC } OpParamOption;
/* The bit of OpSchemaVar.types for values that are not tensors (onnx-schemas.py's NOT_A_TENSOR_BIT). */
#define OP_SCHEMA_NOT_A_TENSOR 31

/* A formal input or output: its name in the specification and the type variable it takes. */
typedef struct {
    const char *name;
    guint8 var;          /* index into the row's vars */
    guint8 option;       /* OpParamOption */
    gboolean homogeneous; /* a variadic parameter whose values all take one type */
} OpSchemaParam;

/* A type variable ("T"), or a parameter's fixed type as a variable of its own. */
typedef struct {
    const char *name;
    guint32 types;       /* bit k: element type k (DType) allowed; bit OP_SCHEMA_NOT_A_TENSOR: a non-tensor value
                            (sequences, ...) */
    gboolean shared;     /* more than one value takes it: they must agree */
} OpSchemaVar;

typedef struct {
    const char *name;
    int type;            /* AttrType */
    gboolean required;
} OpSchemaAttr;

typedef struct {
    const char *name;
    int since;           /* the opset this version came in */
    int min_inputs, max_inputs, min_outputs, max_outputs;
    const OpSchemaParam *in;
    guint n_in;
    const OpSchemaParam *out;
    guint n_out;
    const OpSchemaVar *vars;
    guint n_vars;
    const OpSchemaAttr *attrs;
    guint n_attrs;
    gboolean deprecated;
} OpSchema;

/* The generated table, sorted by name, then version. */
extern const OpSchema op_schema_rows[];
extern const gsize op_schema_row_count;
/* The newest opset the table knows, and the onnx release it came from. */
extern const gint64 op_schema_newest_opset;
extern const char op_schema_onnx_version[];

/* The version of op_type a model importing `opset` runs (the newest since at or before it; a deprecated one
 * gives the version before it), or NULL when ONNX has none then; *first (may be NULL) is set to the opset the
 * operator first came in (0 when ONNX has no such operator at all). */
const OpSchema *op_schema_find(const char *op_type, gint64 opset, int *first);

/* Holds a node of the default domain to its schema: its attributes and inputs (outputs FALSE: called before
 * shape inference, the inputs' types known), or its outputs (TRUE: after). Nodes of other domains, and ops ONNX
 * does not define, pass (the op table refuses what it does not know). For a model newer than the table
 * (opset above op_schema_newest_opset) only the rules no later version has changed are held: one element type
 * per shared type variable. FALSE with one line naming the node, the value and the rule. */
gboolean op_schema_check(const Node *n, gint64 opset, gboolean outputs, GError **error);

#endif
