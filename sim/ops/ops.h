/* ops.h — the op table: everything the planner knows about an ONNX operator lives in its one row
 * (class for aliasing, arity, shape inference with constant folding, elementwise scalar functions, the
 * kernel's workspace). The executor's kernels are rows of their own (exec/kernel-table.h), bound to these
 * by name.
 * op-table.c holds the table; the ops-*.c files hold the inference functions it points to. */
#ifndef SIM_OPS_H
#define SIM_OPS_H

#include "model/graph.h"

/* How an op's output may share memory (docs/spec.md §2, docs/spec.md §1). */
typedef enum {
    OP_COMPUTE, /* writes new values: its own output buffer */
    OP_NOOP,    /* metadata only (Reshape, Transpose as the seeds classify it, Squeeze, ...) */
    OP_RUNTIME, /* may be an offset view or contiguous layout (Gather, Slice, Concat, Split) */
    OP_CLASS_COUNT
} OpClass;
const char *op_class_name(OpClass c);

/* For OP_RUNTIME rows: which of docs/spec.md §2's layouts the op can take. */
typedef enum { RUNTIME_NONE, RUNTIME_GATHER, RUNTIME_SLICE, RUNTIME_CONCAT, RUNTIME_SPLIT } RuntimeKind;

struct OpInfo;
struct InferCtx;
/* An op's inference: output dtypes and shapes (values when the inputs are known), with the state of the model's
 * inference (ops/infer.h's InferCtx) passed, never kept in globals. */
typedef gboolean (*OpInferFn)(struct InferCtx *cx, const struct OpInfo *op, Node *n, gint64 opset, GError **error);

typedef struct OpInfo {
    const char *name;
    OpClass op_class;
    gboolean moves_data;          /* OP_NOOP rows whose kernel moves bytes (Transpose): a view only as the
                                     seeds plan it, a data move under --transpose move */
    RuntimeKind runtime;          /* OP_RUNTIME rows: the layout rule */
    int min_inputs, max_inputs;   /* max -1: variadic */
    int min_outputs, max_outputs;
    OpInferFn infer;              /* output dtypes and shapes; values when inputs are known */
    gboolean elementwise;         /* output 0 has the shape of input 0 element for element */
    gboolean plan_constant;       /* outputs are known before running (Constant): never in the arena */
    double (*unary)(double);      /* scalar function, for folding and (later) kernels */
    double (*binary)(double, double);
    gint64 (*binary_int)(gint64, gint64); /* integer semantics where they differ (Div, Mod) */
    DType fixed_out_dtype;        /* e.g. BOOL for comparisons; DT_UNDEFINED: from the inputs */
    guint64 (*scratch)(const Node *n); /* single-step workspace bytes the kernel needs, or NULL */
    guint shape_inputs;           /* a bit per input whose values (not only shape) the output's shape depends on:
                                     Reshape's shape, Slice's starts..steps, a Reduce's axes (ONNX's definitions) */
    guint metadata_inputs;        /* a bit per input of which the op reads only the shape and type, never the
                                     bytes: Shape's, Size's and EyeLike's input, CastLike's target. Such a read does
                                     not keep a buffer alive when the shape is known before running */
    int inplace_input;            /* k + 1: output 0 may take input k's bytes when that input dies here (a fused
                                     Conv accumulating over its skip tensor); 0: none (elementwise rows any input) */
    /* Control flow decided before running (an If whose condition is known, a Loop whose trip count is):
     * replaces node n of g by what it would run and sets *folded; leaves the graph alone when it cannot
     * know. NULL: never. */
    gboolean (*fold)(struct InferCtx *cx, Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error);
    gboolean sequences;           /* reads or makes sequences of tensors (ops-sequence.c folds it); a node of
                                     another row reading a sequence is refused (infer_fold_sequence_reader) */
} OpInfo;

/* Whether node n reads t's bytes (not only its shape and type, per the row's metadata_inputs, where t's shape is
 * known before running); a node with no row reads every input. */
gboolean op_reads_bytes(const Node *n, const Tensor *t);

/* The row for (domain, op_type); NULL when the op is not in the table. "" and "ai.onnx" are the
 * default domain. */
const OpInfo *op_lookup(const char *domain, const char *op_type);
/* The whole table, for listings and tests. */
const OpInfo *op_table(gsize *count);
/* ONNX Runtime's contrib ops sim plans and runs (domain OP_DOMAIN_MICROSOFT: its quantizer's QOperator ops). */
#define OP_DOMAIN_MICROSOFT "com.microsoft"
const OpInfo *op_table_microsoft(gsize *count);
/* The domain of sim's own ops (IfSelect: made when an If's condition is data-dependent), never an ONNX one. */
#define SIM_OP_DOMAIN "arenasim.internal"

/* The recurrent ops (ops-recurrent.c): gates per direction (LSTM 4, GRU 3, RNN 1) and the directions the
 * node's 'direction' attribute asks for (1, or 2 when bidirectional; an unknown value is an error). */
/* sim's Attention kernel: the query rows it computes at once, their scores its workspace (ops_linalg_attention_scratch). */
gint64 ops_linalg_attention_rows(gint64 queries, gint64 keys);
int ops_recurrent_gates(const char *op_name);
gboolean ops_recurrent_directions(const Node *n, int *out, GError **error);

#endif
