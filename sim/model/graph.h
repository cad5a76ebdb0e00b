/* graph.h — the graph model every pass works on: tensors, nodes, attributes, graphs and models.
 *
 * A graph is built by name (graph_add_*), in any order, then graph_finalize() resolves the names,
 * links producers and consumers, classifies tensors (input, output, weight, constant, intermediate),
 * validates (defined before use, produced once, no cycle) and computes a topological order.
 * Shapes are filled in later by shape inference (shape.h). */
#ifndef SIM_GRAPH_H
#define SIM_GRAPH_H

#include "model/dtype.h"
#include "base/error.h"
#include "base/files.h"
#include "model/value.h"

#include <glib.h>


typedef enum {
    TENSOR_INTERMEDIATE,
    TENSOR_INPUT,
    TENSOR_OUTPUT,
    TENSOR_WEIGHT,
    TENSOR_CONSTANT,
    TENSOR_KIND_COUNT
} TensorKind;
const char *tensor_kind_name(TensorKind k);

/* A declared type, as a graph input/output or value_info gives it. */
typedef struct {
    DType dtype;
    int rank;       /* -1: the file gives no shape */
    gint64 *dims;   /* -1 where the dimension is symbolic or unknown */
    char **params;  /* dim_param per dimension (NULL entries where none); NULL when no dim has one */
    gboolean sequence; /* a sequence of tensors of `dtype` (a subgraph's input or output, a value_info); rank and
                          dims are then the elements' where the file gives them */
} TypeInfo;
TypeInfo *type_info_new(DType dtype, int rank, const gint64 *dims);
void type_info_set_param(TypeInfo *t, int axis, const char *param);
TypeInfo *type_info_copy(const TypeInfo *t);
void type_info_free(TypeInfo *t);
/* "INT64 [batch,seq]": sizes, and symbolic dimensions by name ("?" where unnamed). Newly allocated. */
char *type_info_to_string(const TypeInfo *t);

/* Tensor contents as stored in a file: an initializer or a tensor-valued attribute. */
typedef struct {
    char *name;
    DType dtype;
    int rank;
    gint64 *dims;
    GBytes *raw;         /* little-endian element data; NULL when external or empty */
    GPtrArray *strings;  /* GBytes* elements of a STRING tensor, else NULL */
    GPtrArray *external; /* char* key, value, key, value, ... (external_data); NULL when inline */
} TensorData;
TensorData *tensor_data_new(const char *name, DType dtype, int rank, const gint64 *dims);
TensorData *tensor_data_from_value(const char *name, const Value *v, int rank, const gint64 *dims);
TensorData *tensor_data_copy(const TensorData *t);
void tensor_data_free(TensorData *t);
/* Decoded numeric value when inline and at most VALUE_MAX_ELEMENTS elements; else NULL. */
Value *tensor_data_value(const TensorData *t);

typedef enum {
    ATTR_UNDEFINED = 0,
    ATTR_FLOAT = 1,
    ATTR_INT = 2,
    ATTR_STRING = 3,
    ATTR_TENSOR = 4,
    ATTR_GRAPH = 5,
    ATTR_FLOATS = 6,
    ATTR_INTS = 7,
    ATTR_STRINGS = 8,
    ATTR_TENSORS = 9,
    ATTR_GRAPHS = 10,
    ATTR_SPARSE_TENSOR = 11,
    ATTR_SPARSE_TENSORS = 12,
    ATTR_TYPE_PROTO = 13,
    ATTR_TYPE_PROTOS = 14,
    ATTR_TYPE_COUNT
} AttrType;
const char *attr_type_name(AttrType t);

struct Graph;

/* One node attribute; the member matching `type` holds the value. Sparse tensors and type protos
 * are kept as their packed protobuf bytes (`opaque`), which is enough to write them back. */
typedef struct {
    char *name;
    AttrType type;
    char *ref_attr_name; /* set only inside function bodies */
    float f;
    gint64 i;
    GBytes *s;
    GArray *floats;      /* float */
    GArray *ints;        /* gint64 */
    GPtrArray *strings;  /* GBytes* */
    TensorData *t;
    struct Graph *g;
    GPtrArray *tensors;  /* TensorData* */
    GPtrArray *graphs;   /* Graph* */
    GPtrArray *opaque;   /* GBytes*: packed SparseTensorProto / TypeProto messages */
} Attr;
Attr *attr_new(const char *name, AttrType type);
Attr *attr_new_int(const char *name, gint64 v);
Attr *attr_new_float(const char *name, float v);
Attr *attr_new_string(const char *name, const char *v);
Attr *attr_new_ints(const char *name, const gint64 *v, gsize n);
Attr *attr_new_floats(const char *name, const float *v, gsize n);
Attr *attr_new_tensor(const char *name, TensorData *t);
Attr *attr_new_graph(const char *name, struct Graph *g);
/* A copy of an attribute that holds no graph (NULL for one that does). */
Attr *attr_copy(const Attr *a);
void attr_free(Attr *a);

struct Node;
struct OpInfo;

typedef struct Tensor {
    int id;
    char *name;
    TensorKind kind;
    gboolean is_graph_input;
    gboolean is_graph_output;
    gboolean has_value_info;
    /* Filled by shape inference. */
    DType dtype;
    int rank;
    gint64 *dims;
    gboolean shape_known;
    guint64 bytes;        /* dtype size x elements, valid when shape_known */
    Value *value;         /* known contents (constants, folded shape arithmetic), or NULL */
    /* Data-dependent (NonZero's rows, a computed TopK K, and everything computed from such a tensor): dims,
     * and value if any, are upper bounds at plan time; the real ones are known only when it is computed. */
    gboolean dynamic;
    const char *bound_why; /* where data-dependence starts: how the bound was set (static text), else NULL */
    int bound_axis;        /* ... and which dimension is data-dependent */
    /* A data-dependent tensor's probes: its dims (and value) again, inferred with every data-dependent size one
     * larger (probe 0) and zero (probe 1). A dim or element equal to both does not follow those sizes (an If
     * may fold on it; the executor checks that it held). */
    gint64 *probe_dims[2];
    Value *probe[2];
    guint8 folded_on;      /* an If was folded on this data-dependent condition: 0 no, 1 assumed false, 2 true */
    /* Contents only running computes, bounded (ops/ranges.c): element k lies in [range_lo[k], range_hi[k]]
     * (DOUBLE values of one element, for every element, or of as many as the tensor); NULL: unbounded. */
    Value *range_lo, *range_hi;
    /* A sequence value known before running (ops/ops-sequence.c): its elements in order (Tensor* of this graph,
     * not owned; a tensor may appear more than once). The sequence ops are folded into moves of these, so no
     * node reads or writes the sequence itself; its own shape is [0] and it takes no bytes. NULL: a tensor. */
    GPtrArray *elements;
    /* From the file. */
    TypeInfo *declared;   /* graph input/output type or value_info; NULL if none */
    TensorData *init;     /* initializer data (weights), or the value of a Constant node */
    struct Tensor *outer; /* in a subgraph: the enclosing graph's tensor this name captures */
    /* Links, set by graph_finalize. */
    struct Node *producer;
    GPtrArray *consumers; /* Node*, each consuming node once */
} Tensor;

typedef struct Node {
    int index;            /* position in the file */
    char *name;
    char *op_type;
    char *domain;
    char *doc;
    char *label;          /* "'name' (Op)" or "#index (Op)", for messages */
    GPtrArray *inputs;    /* Tensor*, NULL for an omitted optional input ("") */
    GPtrArray *outputs;   /* Tensor*, NULL for an omitted optional output */
    GPtrArray *attrs;     /* Attr* */
    GPtrArray *implicit_inputs; /* outer tensors read by this node's subgraphs */
    const struct OpInfo *op;    /* row of the op table, set by shape inference */
    /* Inlined from a branch of an If whose condition only running decides: the node runs only when `guard`
     * (also one of its implicit inputs) is guard_when. NULL: always. */
    struct Tensor *guard;
    gboolean guard_when;
} Node;

typedef struct Graph {
    char *name;
    char *doc;
    GPtrArray *tensors;      /* Tensor*, index = id */
    GHashTable *by_name;     /* name -> Tensor* */
    GPtrArray *nodes;        /* Node*, file order */
    GPtrArray *inputs;       /* Tensor*: declared graph inputs, file order (initializers included
                                when the file lists them as inputs too) */
    GPtrArray *outputs;      /* Tensor*: graph outputs, file order */
    GPtrArray *initializers; /* Tensor*: file order */
    GPtrArray *value_infos;  /* Tensor*: tensors that carried a value_info entry, file order */
    GPtrArray *order;        /* Node*: a topological order (file order when the file is sorted) */
    gboolean file_order_is_topological;
    struct Graph *parent;    /* enclosing graph of a subgraph */
    GPtrArray *captures;     /* Tensor* of the enclosing graph that this subgraph reads */
    guint64 unrolled_nodes;  /* nodes, and their input and output slots, unrolled Loops added (ops-control.c keeps
                                the total bounded) */
    gboolean finalized;
} Graph;

typedef struct {
    char *domain;
    gint64 version;
} OpsetId;

typedef struct {
    gint64 ir_version;
    char *producer_name;
    char *producer_version;
    char *domain;
    gint64 model_version;
    char *doc;
    GArray *opsets;      /* OpsetId */
    GPtrArray *metadata; /* char* key, value, key, value, ... */
    Graph *graph;
    char *dir;           /* folder of the file; external data paths are relative to it */
} Model;

Graph *graph_new(const char *name);
void graph_free(Graph *g);
Tensor *graph_tensor(Graph *g, const char *name); /* lookup; NULL if absent */
Tensor *graph_tensor_get_or_add(Graph *g, const char *name);
/* Building. Each returns FALSE with a GError when the name is already taken in that role. */
gboolean graph_add_input(Graph *g, const char *name, TypeInfo *type, GError **error);
gboolean graph_add_output(Graph *g, const char *name, TypeInfo *type, GError **error);
gboolean graph_add_value_info(Graph *g, const char *name, TypeInfo *type, GError **error);
gboolean graph_add_initializer(Graph *g, TensorData *data, GError **error);
/* Input/output names: "" means an omitted optional slot. Takes ownership of attrs (may be NULL). */
Node *graph_add_node(Graph *g, const char *op_type, const char *domain, const char *name,
                     const char *const *inputs, int n_inputs, const char *const *outputs, int n_outputs,
                     GPtrArray *attrs, GError **error);
gboolean graph_finalize(Graph *g, GError **error);
/* Graph surgery (inline.c), for control flow decided before running. A node is replaced in three steps:
 * graph_detach_node (it stops consuming and producing), graph_add_subgraph once or more (nodes appended to
 * g->nodes), graph_replace_node (the appended nodes take its place in file and topological order; node
 * is freed). graph_add_subgraph copies (or, with `move`, moves: once, from a subgraph about to be freed)
 * sub's nodes into g with `prefix` on every new name; sub's input k reads inputs[k] (inputs may be NULL);
 * output k is written into outputs[k] when that is set, else *outputs[k] is set to the tensor holding it.
 * `weights` (a pointer-keyed table, or NULL) lets copies share one copy of each of sub's initializers. */
void graph_detach_node(Node *node);
gboolean graph_add_subgraph(Graph *g, Graph *sub, const char *prefix, Tensor *const *inputs, Tensor **outputs,
                            gboolean move, GHashTable *weights, GError **error);
void graph_replace_node(Graph *g, Node *node, guint first_new);
/* Many replacements at once, in one pass (graph_replace_node renumbers every node each time): each node of
 * `with` (Node* -> Node*, detached by the caller) is replaced by its value, one of the nodes appended since
 * index first_new, at its place in file and topological order, or dropped when the value is NULL; `before`
 * (Node* -> GPtrArray* of appended nodes, or NULL) puts more appended nodes just before a replacement (an op
 * expanded into several). Every appended node must be placed so. The replaced nodes are freed. */
void graph_replace_nodes(Graph *g, GHashTable *with, GHashTable *before, guint first_new);
/* Whether sub's nodes can be copied (rather than moved): none holds a subgraph of its own. */
gboolean graph_subgraph_copyable(const Graph *sub);
/* "prefix/name", or "prefix/name~2", ...: the first name g does not use yet. */
char *graph_unique_name(Graph *g, const char *prefix, const char *name);
/* Frees a node that no graph holds any more. */
void node_free(Node *n);

const Attr *node_attr(const Node *n, const char *name);
/* Typed attribute access: absent -> default (or NULL), present with another type -> error. */
gboolean node_attr_int(const Node *n, const char *name, gint64 dflt, gint64 *out, GError **error);
gboolean node_attr_float(const Node *n, const char *name, float dflt, float *out, GError **error);
gboolean node_attr_string(const Node *n, const char *name, const char *dflt, const char **out,
                          GError **error);
gboolean node_attr_ints(const Node *n, const char *name, const GArray **out, GError **error);
gboolean node_attr_floats(const Node *n, const char *name, const GArray **out, GError **error);
/* A STRINGS attribute: GBytes each, NUL-terminated (they read as C strings). */
gboolean node_attr_strings(const Node *n, const char *name, const GPtrArray **out, GError **error);
/* Input slot k, or NULL when the slot is absent or omitted. */
Tensor *node_input(const Node *n, guint k);
Tensor *node_output(const Node *n, guint k);

Model *model_new(void);
void model_free(Model *m);
/* Version imported for the default ONNX domain ("" or "ai.onnx"); 0 if none. */
gint64 model_onnx_opset(const Model *m);
void model_set_opset(Model *m, const char *domain, gint64 version);

/* Checked arithmetic on sizes: FALSE on overflow. */
gboolean graph_size_mul(guint64 a, guint64 b, guint64 *out);
gboolean graph_size_add(guint64 a, guint64 b, guint64 *out);
/* Bytes that are also readable as a C string (a NUL follows the last byte, outside the length). */
GBytes *graph_bytes_new_terminated(const void *data, gsize len);
/* "[1,3,224,224]", newly allocated. */
char *graph_dims_to_string(int rank, const gint64 *dims);

#endif
