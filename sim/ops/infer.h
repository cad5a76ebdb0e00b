/* infer.h — helpers shared by the op families' shape-inference functions (ops-*.c): setting outputs
 * with overflow-checked sizes, reading constant inputs, axes, broadcasting, errors naming the node. */
#ifndef SIM_INFER_H
#define SIM_INFER_H

#include "ops/ops.h"

#define MAX_RANK 64

/* The state of one inference (shape_infer's of a model, shape_infer_runtime's of a node), passed to every op's
 * inference and the helpers below: never kept in globals, so that two inferences, on two threads or one after
 * the other, share nothing. */
typedef struct InferCtx {
    guint64 values_left;     /* what is left of the total of value elements (SHAPE_VALUES_MAX_ELEMENTS) */
    GHashTable *bounds;      /* the user's --bound table (tensor name -> gint64*), or NULL: the op's own bound */
    int probing;             /* shape.c's probes: data-dependent sizes come out one larger (1) or zero (2); 0 */
    gboolean running;        /* inferring a node with the sizes of a run (shape_infer_runtime) */
    GPtrArray *most_values;  /* values infer_input_value_most made for the node being inferred */
    gboolean took_most;
} InferCtx;
/* No limit, no bounds, no probe: a context for inferring one node on its own (a fusion's new node). */
void infer_ctx_init(InferCtx *cx);
void infer_ctx_clear(InferCtx *cx);

/* Sets `error` to "node LABEL: <message>" (SIM_ERROR_SHAPE) and returns FALSE. */
gboolean infer_fail(GError **error, const Node *n, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/* Input k must be present with a known shape. */
gboolean infer_input(const Node *n, guint k, Tensor **out, GError **error);
/* Records dtype and shape of a tensor, checking that no dimension is negative and that the byte size
 * fits 64 bits; element types without a fixed size are refused unless allow_unsized. */
gboolean infer_set_shape(Tensor *t, DType dtype, int rank, const gint64 *dims, gboolean allow_unsized,
                          GError **error);
/* Records dtype and shape of output k (skipped when that output is omitted), checking that the byte
 * size fits 64 bits and no dimension is negative. */
gboolean infer_set_output(Node *n, guint k, DType dtype, int rank, const gint64 *dims, GError **error);
/* Output k takes the value v (owned); dropped when the output is omitted. */
void infer_set_value(Node *n, guint k, Value *v);
/* Output k gets input j's dtype and shape (and value when `with_value`). */
gboolean infer_same_as_input(Node *n, guint k, guint j, gboolean with_value, GError **error);

/* Input k must be present with a known value (shape arithmetic); `what` names the role. */
gboolean infer_input_value(const Node *n, guint k, const char *what, const Value **out, GError **error);
/* A list of integers from an INTS attribute or, when the attribute is absent, from input k (which may
 * itself be absent: *present = FALSE). k < 0 means the attribute is the only source. */
gboolean infer_int_list(const Node *n, const char *attr, int k, const char *what, GArray **out,
                        gboolean *present, GError **error);

/* Negative axes count from the end; out of [-rank, rank) is an error. */
gboolean infer_axis(const Node *n, gint64 axis, int rank, int *out, GError **error);

/* Numpy multidirectional broadcasting of two shapes. */
gboolean infer_broadcast(const Node *n, int ra, const gint64 *a, int rb, const gint64 *b, int *rank,
                         gint64 *out, GError **error);
/* Flat index into an input of shape (in_rank, in_dims) for output element `flat` of shape
 * (rank, dims), under broadcasting. */
gsize infer_broadcast_source(int rank, const gint64 *dims, int in_rank, const gint64 *in_dims, gsize flat);

/* Element count of a shape; FALSE on overflow. */
gboolean shape_numel(int rank, const gint64 *dims, guint64 *out);
/* TRUE when a value with this shape may be materialised (VALUE_MAX_ELEMENTS, and what is left of the
 * total in the context). Ops ask before computing a value, so one past the total costs nothing. */
gboolean infer_value_fits(const InferCtx *cx, int rank, const gint64 *dims);
/* Takes n elements from the total: FALSE (and nothing taken) when fewer are left. */
gboolean infer_values_take(InferCtx *cx, guint64 n);

/* Data-dependent sizes. Output k of n has a size along `axis` known only when it is computed: `derived`
 * is the most the op can give (NonZero: its input's elements), `why` says so (static text). The output is
 * marked dynamic and the dimension to plan returned: the user's --bound for that tensor when smaller. */
gint64 infer_dynamic_dim(const InferCtx *cx, Node *n, guint k, gint64 derived, int axis, const char *why);
/* Input k's value, or when only running computes it, the top of each element's range (ranges.c), as
 * integers rounded up: an upper bound for the sizes an op makes from it (Resize's sizes, ConstantOfShape's
 * shape, Expand's, Tile's repeats). Then the node's outputs are planned as data-dependent (infer_node marks
 * them); in a probe, those elements come out one larger, or zero. The value is owned until the node's
 * inference ends. */
gboolean infer_input_value_most(InferCtx *cx, const Node *n, guint k, const char *what, const Value **out,
                                GError **error);
/* Whether infer_input_value_most bounded a size since the last call, and clears it (shape.c). */
gboolean infer_took_most(InferCtx *cx);
/* Element k's range: an exact value, or the range propagated to t (ranges.c); FALSE when unbounded. */
gboolean infer_range_at(const Tensor *t, gsize k, double *lo, double *hi);
/* The ranges of n's outputs from its inputs', where n's op has a rule (ranges.c). */
void ranges_node(Node *n);
/* ops-sequence.c, for shape.c: a node of a row without .sequences that reads a sequence: an Identity of one is
 * folded (the same elements), any other is refused; a node reading no sequence is left alone (*folded FALSE). */
gboolean infer_fold_sequence_reader(Graph *g, Node *n, gboolean *folded, GError **error);
/* Whether input k is present and data-dependent. */
static inline gboolean infer_input_dynamic(const Node *n, guint k)
{
    const Tensor *t = node_input(n, k);
    return t && t->dynamic;
}

#endif
