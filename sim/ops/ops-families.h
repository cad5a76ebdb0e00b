/* ops-families.h — the shape-inference functions of each op family (ops-*.c), as the op table
 * (op-table.c) points to them. Private to sim/ops/. */
#ifndef SIM_OPS_FAMILIES_H
#define SIM_OPS_FAMILIES_H

#include "ops/infer.h"

#include <string.h>

#define INFER_FN(name) gboolean name(InferCtx *cx, const OpInfo *op, Node *n, gint64 opset, GError **error)
#define FOLD_FN(name) gboolean name(InferCtx *cx, Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error)

/* Folds (ops-control.c, ops-sequence.c). The most unrolled Loops and sequence splits may add to one graph, all
 * together (Graph.unrolled_nodes), counted in nodes and their input and output slots (a Loop's trip count x its
 * body's each, and a Loop inside an unrolled body counts again); past it, a Loop stays one node. A total, not a
 * cap per Loop: 200 Loops each at a per-Loop cap were 20 million nodes (5.8 GB) from a 33 KB model; and of slots,
 * not only nodes: 50,000 trips of a 6,000-input Sum were 50,000 nodes but 3*10^8 inputs (4.1 GB) from a 36 KB
 * model. */
#define INFER_UNROLL_MAX_SLOTS 300000
/* The prefix of the names a fold gives: the node's name, or "#index". Newly allocated. */
char *infer_fold_prefix(const Node *n);
/* A new weight of g named PREFIX/NAME (made unique) holding `count` integers: INT64 or BOOL, rank 0 (count 1) or
 * 1. NULL with `error` set when g refuses it. */
Tensor *infer_add_ints(Graph *g, const char *prefix, const char *name, DType dtype, int rank, const gint64 *v,
                       guint count, GError **error);

/* ops-elementwise.c */
INFER_FN(infer_unary);
INFER_FN(infer_nary);
INFER_FN(infer_where);
INFER_FN(infer_cast);
INFER_FN(infer_cast_like);
INFER_FN(infer_dropout);
/* ops-linalg.c */
INFER_FN(infer_matmul);
INFER_FN(infer_gemm);
/* Gemm's output [M, N] from A and B under the node's transA and transB (matrices, inner dimensions equal). */
gboolean ops_linalg_gemm_shape(Node *n, const Tensor *a, const Tensor *b, gint64 out[2], GError **error);
INFER_FN(infer_einsum);
INFER_FN(infer_attention);
INFER_FN(infer_matmul_integer);
INFER_FN(infer_matmul_integer_to_float);
INFER_FN(infer_qlinear_matmul);
guint64 ops_linalg_attention_scratch(const Node *n);
/* ops-quantize.c */
INFER_FN(infer_quantize_linear);
INFER_FN(infer_dequantize_linear);
INFER_FN(infer_dynamic_quantize_linear);
INFER_FN(infer_qlinear_binary);
INFER_FN(infer_qlinear_unary);
INFER_FN(infer_qlinear_softmax);
INFER_FN(infer_qlinear_where);
INFER_FN(infer_qlinear_global_average_pool);
INFER_FN(infer_qlinear_concat);
INFER_FN(infer_qlinear_average_pool);
INFER_FN(infer_qgemm);
/* ops-conv.c */
INFER_FN(infer_conv);
INFER_FN(infer_conv_integer);
INFER_FN(infer_qlinear_conv);
INFER_FN(infer_fused_conv);
INFER_FN(infer_conv_transpose);
INFER_FN(infer_pool);
INFER_FN(infer_global_pool);
guint64 ops_conv_im2col_scratch(const Node *n);
/* ops-dynamic.c */
INFER_FN(infer_nonzero);
INFER_FN(infer_compress);
INFER_FN(infer_unique);
INFER_FN(infer_nms);
INFER_FN(infer_roi_align);
/* ops-recurrent.c */
INFER_FN(infer_recurrent);
guint64 ops_recurrent_scratch(const Node *n);
/* ops-norm.c */
INFER_FN(infer_batch_norm);
INFER_FN(infer_layer_norm);
INFER_FN(infer_skip_layer_norm);
INFER_FN(infer_softmax);
INFER_FN(infer_reduce);
INFER_FN(infer_arg_reduce);
INFER_FN(infer_topk);
/* ops-layout.c */
INFER_FN(infer_identity);
INFER_FN(infer_reshape);
INFER_FN(infer_transpose);
INFER_FN(infer_squeeze);
INFER_FN(infer_unsqueeze);
INFER_FN(infer_flatten);
INFER_FN(infer_depth_to_space);
INFER_FN(infer_space_to_depth);
/* ops-runtime.c */
INFER_FN(infer_gather);
INFER_FN(infer_gather_elements);
INFER_FN(infer_gather_nd);
INFER_FN(infer_slice);
/* One axis of a Slice (step not 0): the elements it takes from an axis of `dim` (ONNX's clamping of negative and
 * out-of-range starts and ends), the first of them in *first; the others follow at `step`. */
gint64 ops_runtime_slice_axis(gint64 dim, gint64 start, gint64 end, gint64 step, gint64 *first);
INFER_FN(infer_concat);
INFER_FN(infer_split);
INFER_FN(infer_scatter);
/* ops-generate.c */
INFER_FN(infer_shape_op);
INFER_FN(infer_size_op);
INFER_FN(infer_constant);
INFER_FN(infer_constant_of_shape);
INFER_FN(infer_range);
INFER_FN(infer_expand);
INFER_FN(infer_tile);
INFER_FN(infer_pad);
INFER_FN(infer_resize);
INFER_FN(infer_grid_sample);
INFER_FN(infer_upsample);
INFER_FN(infer_eye_like);
/* ops-control.c */
INFER_FN(infer_control);
INFER_FN(infer_if_select);
INFER_FN(infer_concat_computed);
gboolean infer_fold_if(InferCtx *cx, Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error);
gboolean infer_fold_loop(InferCtx *cx, Graph *g, Node *n, gint64 opset, gboolean *folded, GError **error);
/* Node n, in a branch of an If that only running decides (inlined by infer_fold_if, guarded), failed its inference
 * (`why`): that branch cannot run at these dims, so it is planned as never taken. Its nodes (and the branches nested
 * in it) leave the graph, the If's IfSelect gets no input from it and says at run time, should the condition choose
 * it, why it was not planned. FALSE (the graph unchanged) when n is not in such a branch; else *restart is the first
 * position of g->order whose nodes moved (inference goes on from there). */
gboolean infer_drop_failed_branch(Graph *g, Node *n, const GError *why, guint *restart);
/* ops-sequence.c: the sequence ops, each folded into moves of the elements (its row's .fold); infer_sequence refuses
 * one left unfolded */
FOLD_FN(infer_fold_sequence_empty);
FOLD_FN(infer_fold_sequence_construct);
FOLD_FN(infer_fold_sequence_insert);
FOLD_FN(infer_fold_sequence_erase);
FOLD_FN(infer_fold_sequence_at);
FOLD_FN(infer_fold_sequence_length);
FOLD_FN(infer_fold_concat_from_sequence);
FOLD_FN(infer_fold_split_to_sequence);
INFER_FN(infer_sequence);

#endif
