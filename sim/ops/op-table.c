/* op-table.c — the op table: the one place that lists the ONNX operators the simulator knows, one row
 * each, with the scalar functions elementwise rows use for constant folding. Semantics follow the
 * ONNX operator specification; op classes follow docs/spec.md §1 (noop) and
 * docs/spec.md §2 (runtime). */
#include "ops/ops-families.h"

#include <math.h>

static const char *const op_class_names[OP_CLASS_COUNT] = {"compute", "noop", "runtime"};

const char *op_class_name(OpClass c) { return c < OP_CLASS_COUNT ? op_class_names[c] : "?"; }

/* ---- scalar functions (double, and int64 where integer semantics differ) ---- */
static double f_relu(double x) { return x > 0 ? x : 0; }
static double f_sigmoid(double x) { return 1 / (1 + exp(-x)); }
static double f_neg(double x) { return -x; }
static double f_reciprocal(double x) { return 1 / x; }
static double f_sign(double x) { return (x > 0) - (x < 0); }
static double f_not(double x) { return x == 0; }
static double f_isnan(double x) { return isnan(x); }
static double f_isinf(double x) { return isinf(x) != 0; }
static double f_softplus(double x) { return log1p(exp(x)); }
static double f_softsign(double x) { return x / (1 + fabs(x)); }
static double f_add(double a, double b) { return a + b; }
static double f_sub(double a, double b) { return a - b; }
static double f_mul(double a, double b) { return a * b; }
static double f_div(double a, double b) { return a / b; }
static double f_max(double a, double b) { return a > b || isnan(a) ? a : b; }
static double f_min(double a, double b) { return a < b || isnan(a) ? a : b; }
static double f_mod(double a, double b) { return fmod(a, b); }
static double f_eq(double a, double b) { return a == b; }
static double f_lt(double a, double b) { return a < b; }
static double f_gt(double a, double b) { return a > b; }
static double f_le(double a, double b) { return a <= b; }
static double f_ge(double a, double b) { return a >= b; }
static double f_and(double a, double b) { return a != 0 && b != 0; }
static double f_or(double a, double b) { return a != 0 || b != 0; }
static double f_xor(double a, double b) { return (a != 0) != (b != 0); }
/* Wrapping integer arithmetic (through unsigned: no undefined behaviour on hostile constants). */
static gint64 i_add(gint64 a, gint64 b) { return (gint64)((guint64)a + (guint64)b); }
static gint64 i_sub(gint64 a, gint64 b) { return (gint64)((guint64)a - (guint64)b); }
static gint64 i_mul(gint64 a, gint64 b) { return (gint64)((guint64)a * (guint64)b); }
static gint64 i_div(gint64 a, gint64 b) { return b == 0 || (a == G_MININT64 && b == -1) ? 0 : a / b; }
/* ONNX Mod with fmod = 0: the result takes the divisor's sign (Python semantics). */
static gint64 i_mod(gint64 a, gint64 b)
{
    if (b == 0 || b == -1)
        return 0;
    gint64 r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static gint64 i_max(gint64 a, gint64 b) { return MAX(a, b); }
static gint64 i_min(gint64 a, gint64 b) { return MIN(a, b); }
static gint64 i_eq(gint64 a, gint64 b) { return a == b; }
static gint64 i_lt(gint64 a, gint64 b) { return a < b; }
static gint64 i_gt(gint64 a, gint64 b) { return a > b; }
static gint64 i_le(gint64 a, gint64 b) { return a <= b; }
static gint64 i_ge(gint64 a, gint64 b) { return a >= b; }

/* ---- row builders ---- */
/* (more columns after fn: designated initialisers, e.g. .shape_inputs = 1u << 1) */
#define OP(n, cls, imin, imax, omin, omax, fn, ...)                                                         \
    {.name = n, .op_class = cls, .min_inputs = imin, .max_inputs = imax, .min_outputs = omin,               \
     .max_outputs = omax, .infer = fn, __VA_ARGS__}
#define RUNTIME_OP(n, kind, imin, imax, omin, omax, fn, ...)                                                \
    {.name = n, .op_class = OP_RUNTIME, .runtime = kind, .min_inputs = imin, .max_inputs = imax,             \
     .min_outputs = omin, .max_outputs = omax, .infer = fn, __VA_ARGS__}
/* Unary maps; fn NULL: a parametric map the kernel computes from the op's attributes (or none). */
#define UNARY(n, fn) {.name = n, .op_class = OP_COMPUTE, .min_inputs = 1, .max_inputs = 1, .min_outputs = 1,   \
                      .max_outputs = 1, .infer = infer_unary, .elementwise = TRUE, .unary = fn}
/* Unary maps with optional extra inputs (Clip's min/max, Trilu's k). */
#define UNARY_N(n, imax) {.name = n, .op_class = OP_COMPUTE, .min_inputs = 1, .max_inputs = imax,             \
                          .min_outputs = 1, .max_outputs = 1, .infer = infer_unary, .elementwise = TRUE}
#define PREDICATE(n, fn) {.name = n, .op_class = OP_COMPUTE, .min_inputs = 1, .max_inputs = 1,                \
                          .min_outputs = 1, .max_outputs = 1, .infer = infer_unary, .elementwise = TRUE,       \
                          .unary = fn, .fixed_out_dtype = DT_BOOL}
#define BINARY(n, f, i) {.name = n, .op_class = OP_COMPUTE, .min_inputs = 2, .max_inputs = 2,                 \
                         .min_outputs = 1, .max_outputs = 1, .infer = infer_nary, .elementwise = TRUE,         \
                         .binary = f, .binary_int = i}
#define COMPARE(n, f, i) {.name = n, .op_class = OP_COMPUTE, .min_inputs = 2, .max_inputs = 2,                \
                          .min_outputs = 1, .max_outputs = 1, .infer = infer_nary, .elementwise = TRUE,        \
                          .binary = f, .binary_int = i, .fixed_out_dtype = DT_BOOL}
#define VARIADIC(n, f, i) {.name = n, .op_class = OP_COMPUTE, .min_inputs = 1, .max_inputs = -1,              \
                           .min_outputs = 1, .max_outputs = 1, .infer = infer_nary, .elementwise = TRUE,       \
                           .binary = f, .binary_int = i}
#define REDUCE(n, f) {.name = n, .op_class = OP_COMPUTE, .min_inputs = 1, .max_inputs = 2, .min_outputs = 1,  \
                      .max_outputs = 1, .infer = infer_reduce, .binary = f, .shape_inputs = 1u << 1}

static const OpInfo op_rows[] = {
    /* metadata-only views (docs/spec.md §1) */
    OP("Reshape", OP_NOOP, 1, 2, 1, 1, infer_reshape, .shape_inputs = 1u << 1),
    {.name = "Transpose", .op_class = OP_NOOP, .moves_data = TRUE, .min_inputs = 1, .max_inputs = 1, .min_outputs = 1,
     .max_outputs = 1, .infer = infer_transpose},
    OP("Squeeze", OP_NOOP, 1, 2, 1, 1, infer_squeeze, .shape_inputs = 1u << 1),
    OP("Unsqueeze", OP_NOOP, 1, 2, 1, 1, infer_unsqueeze, .shape_inputs = 1u << 1),
    OP("Flatten", OP_NOOP, 1, 1, 1, 1, infer_flatten),
    OP("Identity", OP_NOOP, 1, 1, 1, 1, infer_identity),
    /* offset views and contiguous layouts (docs/spec.md §2) */
    RUNTIME_OP("Gather", RUNTIME_GATHER, 2, 2, 1, 1, infer_gather),
    RUNTIME_OP("Slice", RUNTIME_SLICE, 1, 5, 1, 1, infer_slice, .shape_inputs = 0x1eu),
    RUNTIME_OP("Concat", RUNTIME_CONCAT, 1, -1, 1, 1, infer_concat),
    RUNTIME_OP("Split", RUNTIME_SPLIT, 1, 2, 1, -1, infer_split, .shape_inputs = 1u << 1),
    /* unary elementwise */
    OP("Relu", OP_COMPUTE, 1, 1, 1, 1, infer_unary, .elementwise = TRUE, .unary = f_relu),
    UNARY("Sigmoid", f_sigmoid),
    UNARY("Tanh", tanh),
    UNARY("Exp", exp),
    UNARY("Log", log),
    UNARY("Sqrt", sqrt),
    UNARY("Abs", fabs),
    UNARY("Neg", f_neg),
    UNARY("Reciprocal", f_reciprocal),
    UNARY("Erf", erf),
    UNARY("Floor", floor),
    UNARY("Ceil", ceil),
    UNARY("Round", nearbyint),
    UNARY("Sign", f_sign),
    UNARY("Sin", sin),
    UNARY("Cos", cos),
    UNARY("Tan", tan),
    UNARY("Softplus", f_softplus),
    UNARY("Softsign", f_softsign),
    UNARY("Not", f_not),
    UNARY("Gelu", NULL),
    UNARY("HardSigmoid", NULL),
    OP("HardSwish", OP_COMPUTE, 1, 1, 1, 1, infer_unary, .elementwise = TRUE),
    UNARY("LeakyRelu", NULL),
    UNARY("Elu", NULL),
    UNARY("Selu", NULL),
    UNARY("Celu", NULL),
    UNARY("Mish", NULL),
    UNARY("ThresholdedRelu", NULL),
    UNARY("Shrink", NULL),
    /* normalisations the in-place rule may treat as elementwise (their kernels read each row first) */
    OP("InstanceNormalization", OP_COMPUTE, 3, 3, 1, 1, infer_unary, .elementwise = TRUE),
    UNARY("LRN", NULL),
    UNARY("Hardmax", NULL),
    OP("Clip", OP_COMPUTE, 1, 3, 1, 1, infer_unary, .elementwise = TRUE),
    UNARY_N("Trilu", 2),
    UNARY_N("CumSum", 2),
    UNARY_N("GroupNormalization", 3),
    PREDICATE("IsNaN", f_isnan),
    PREDICATE("IsInf", f_isinf),
    OP("Dropout", OP_COMPUTE, 1, 3, 1, 2, infer_dropout),
    OP("Cast", OP_COMPUTE, 1, 1, 1, 1, infer_cast),
    OP("CastLike", OP_COMPUTE, 2, 2, 1, 1, infer_cast_like, .metadata_inputs = 1u << 1),
    OP("EyeLike", OP_COMPUTE, 1, 1, 1, 1, infer_eye_like, .metadata_inputs = 1u << 0),
    /* quantization (ops-quantize.c) */
    OP("QuantizeLinear", OP_COMPUTE, 2, 3, 1, 1, infer_quantize_linear),
    OP("DequantizeLinear", OP_COMPUTE, 2, 3, 1, 1, infer_dequantize_linear),
    OP("DynamicQuantizeLinear", OP_COMPUTE, 1, 1, 3, 3, infer_dynamic_quantize_linear),
    OP("MatMulInteger", OP_COMPUTE, 2, 4, 1, 1, infer_matmul_integer),
    OP("QLinearMatMul", OP_COMPUTE, 8, 8, 1, 1, infer_qlinear_matmul),
    OP("ConvInteger", OP_COMPUTE, 2, 4, 1, 1, infer_conv_integer),
    OP("QLinearConv", OP_COMPUTE, 8, 9, 1, 1, infer_qlinear_conv),
    /* binary and n-ary elementwise, numpy broadcasting */
    /* a residual Add may take the Relu after it */
    OP("Add", OP_COMPUTE, 2, 2, 1, 1, infer_nary, .elementwise = TRUE, .binary = f_add, .binary_int = i_add),
    BINARY("Sub", f_sub, i_sub),
    BINARY("Mul", f_mul, i_mul),
    BINARY("Div", f_div, i_div),
    BINARY("Pow", pow, NULL),
    BINARY("Mod", f_mod, i_mod),
    BINARY("PRelu", NULL, NULL),
    BINARY("BitShift", NULL, NULL) /* the kernel reads its direction */,
    VARIADIC("Sum", f_add, i_add),
    VARIADIC("Max", f_max, i_max),
    VARIADIC("Min", f_min, i_min),
    VARIADIC("Mean", NULL, NULL),
    COMPARE("Equal", f_eq, i_eq),
    COMPARE("Less", f_lt, i_lt),
    COMPARE("Greater", f_gt, i_gt),
    COMPARE("LessOrEqual", f_le, i_le),
    COMPARE("GreaterOrEqual", f_ge, i_ge),
    COMPARE("And", f_and, NULL),
    COMPARE("Or", f_or, NULL),
    COMPARE("Xor", f_xor, NULL),
    OP("Where", OP_COMPUTE, 3, 3, 1, 1, infer_where),
    /* linear algebra and windows */
    OP("MatMul", OP_COMPUTE, 2, 2, 1, 1, infer_matmul),
    OP("Gemm", OP_COMPUTE, 2, 3, 1, 1, infer_gemm),
    OP("Einsum", OP_COMPUTE, 1, -1, 1, 1, infer_einsum),
    OP("Conv", OP_COMPUTE, 2, 3, 1, 1, infer_conv, .scratch = ops_conv_im2col_scratch),
    OP("ConvTranspose", OP_COMPUTE, 2, 3, 1, 1, infer_conv_transpose),
    OP("MaxPool", OP_COMPUTE, 1, 1, 1, 2, infer_pool),
    OP("AveragePool", OP_COMPUTE, 1, 1, 1, 1, infer_pool),
    OP("LpPool", OP_COMPUTE, 1, 1, 1, 1, infer_pool),
    OP("GlobalAveragePool", OP_COMPUTE, 1, 1, 1, 1, infer_global_pool),
    OP("GlobalMaxPool", OP_COMPUTE, 1, 1, 1, 1, infer_global_pool),
    OP("GlobalLpPool", OP_COMPUTE, 1, 1, 1, 1, infer_global_pool),
    /* recurrent layers (every input past X, W, R and every output optional) */
    OP("LSTM", OP_COMPUTE, 3, 8, 0, 3, infer_recurrent, .scratch = ops_recurrent_scratch),
    OP("GRU", OP_COMPUTE, 3, 6, 0, 2, infer_recurrent, .scratch = ops_recurrent_scratch),
    OP("RNN", OP_COMPUTE, 3, 6, 0, 2, infer_recurrent, .scratch = ops_recurrent_scratch),
    /* normalisation, softmax, reductions */
    OP("BatchNormalization", OP_COMPUTE, 5, 5, 1, 5, infer_batch_norm),
    OP("LayerNormalization", OP_COMPUTE, 2, 3, 1, 3, infer_layer_norm),
    OP("Softmax", OP_COMPUTE, 1, 1, 1, 1, infer_softmax),
    OP("LogSoftmax", OP_COMPUTE, 1, 1, 1, 1, infer_softmax),
    REDUCE("ReduceSum", f_add),
    REDUCE("ReduceProd", f_mul),
    REDUCE("ReduceMax", f_max),
    REDUCE("ReduceMin", f_min),
    REDUCE("ReduceMean", NULL),
    REDUCE("ReduceL1", NULL),
    REDUCE("ReduceL2", NULL),
    REDUCE("ReduceLogSum", NULL),
    REDUCE("ReduceLogSumExp", NULL),
    REDUCE("ReduceSumSquare", NULL),
    OP("ArgMax", OP_COMPUTE, 1, 1, 1, 1, infer_arg_reduce),
    OP("ArgMin", OP_COMPUTE, 1, 1, 1, 1, infer_arg_reduce),
    OP("TopK", OP_COMPUTE, 1, 2, 2, 2, infer_topk, .shape_inputs = 1u << 1),
    /* sizes that depend on values (ops-dynamic.c: planned at an upper bound unless the input is a constant) */
    OP("NonZero", OP_COMPUTE, 1, 1, 1, 1, infer_nonzero),
    OP("Compress", OP_COMPUTE, 2, 2, 1, 1, infer_compress),
    OP("Unique", OP_COMPUTE, 1, 1, 1, 4, infer_unique),
    OP("NonMaxSuppression", OP_COMPUTE, 2, 5, 1, 1, infer_nms),
    OP("RoiAlign", OP_COMPUTE, 3, 3, 1, 1, infer_roi_align),
    /* data movement that computes */
    OP("GatherElements", OP_COMPUTE, 2, 2, 1, 1, infer_gather_elements),
    OP("GatherND", OP_COMPUTE, 2, 2, 1, 1, infer_gather_nd),
    OP("ScatterND", OP_COMPUTE, 3, 3, 1, 1, infer_scatter),
    OP("ScatterElements", OP_COMPUTE, 3, 3, 1, 1, infer_scatter),
    OP("Scatter", OP_COMPUTE, 3, 3, 1, 1, infer_scatter), /* opset 9-10's name for it */
    OP("Expand", OP_COMPUTE, 2, 2, 1, 1, infer_expand, .shape_inputs = 1u << 1),
    OP("Tile", OP_COMPUTE, 2, 2, 1, 1, infer_tile, .shape_inputs = 1u << 1),
    OP("Pad", OP_COMPUTE, 1, 4, 1, 1, infer_pad, .shape_inputs = 0xeu),
    OP("Resize", OP_COMPUTE, 1, 4, 1, 1, infer_resize, .shape_inputs = 0xeu),
    OP("GridSample", OP_COMPUTE, 2, 2, 1, 1, infer_grid_sample),
    OP("Upsample", OP_COMPUTE, 1, 2, 1, 1, infer_upsample, .shape_inputs = 1u << 1),
    OP("DepthToSpace", OP_COMPUTE, 1, 1, 1, 1, infer_depth_to_space),
    OP("SpaceToDepth", OP_COMPUTE, 1, 1, 1, 1, infer_space_to_depth),
    /* shape arithmetic and constants */
    OP("Shape", OP_COMPUTE, 1, 1, 1, 1, infer_shape_op, .metadata_inputs = 1u << 0),
    OP("Size", OP_COMPUTE, 1, 1, 1, 1, infer_size_op, .metadata_inputs = 1u << 0),
    OP("Constant", OP_COMPUTE, 0, 0, 1, 1, infer_constant, .plan_constant = TRUE),
    OP("ConstantOfShape", OP_COMPUTE, 1, 1, 1, 1, infer_constant_of_shape, .shape_inputs = 1u << 0),
    OP("Range", OP_COMPUTE, 3, 3, 1, 1, infer_range, .shape_inputs = 0x7u),
    /* control flow: one compute op each, shapes from the file */
    OP("If", OP_COMPUTE, 1, 1, 1, -1, infer_control, .fold = infer_fold_if),
    /* M and cond are both optional */
    OP("Loop", OP_COMPUTE, 0, -1, 1, -1, infer_control, .fold = infer_fold_loop),
    OP("Scan", OP_COMPUTE, 1, -1, 1, -1, infer_control),
    /* sequences of tensors, known before running: folded into moves of their elements (ops-sequence.c) */
    OP("SequenceEmpty", OP_COMPUTE, 0, 0, 1, 1, infer_sequence, .fold = infer_fold_sequence_empty,
       .sequences = TRUE),
    OP("SequenceConstruct", OP_COMPUTE, 1, -1, 1, 1, infer_sequence, .fold = infer_fold_sequence_construct,
       .sequences = TRUE),
    OP("SequenceInsert", OP_COMPUTE, 2, 3, 1, 1, infer_sequence, .fold = infer_fold_sequence_insert,
       .sequences = TRUE),
    OP("SequenceErase", OP_COMPUTE, 1, 2, 1, 1, infer_sequence, .fold = infer_fold_sequence_erase,
       .sequences = TRUE),
    OP("SequenceAt", OP_COMPUTE, 2, 2, 1, 1, infer_sequence, .fold = infer_fold_sequence_at,
       .sequences = TRUE),
    OP("SequenceLength", OP_COMPUTE, 1, 1, 1, 1, infer_sequence, .fold = infer_fold_sequence_length,
       .sequences = TRUE),
    OP("ConcatFromSequence", OP_COMPUTE, 1, 1, 1, 1, infer_sequence, .fold = infer_fold_concat_from_sequence,
       .sequences = TRUE),
    OP("SplitToSequence", OP_COMPUTE, 1, 2, 1, 1, infer_sequence, .fold = infer_fold_split_to_sequence,
       .sequences = TRUE),
};

static double f_silu(double x) { return x / (1 + exp(-x)); }

/* sim's own ops (domain SIM_OP_DOMAIN): what planning adds, never listed among the ONNX ones. */
static const OpInfo internal_rows[] = {
    /* fusions (sim/fuse/fuse.c, --fuse ort) */
    OP("SiLU", OP_COMPUTE, 1, 1, 1, 1, infer_unary, .elementwise = TRUE, .unary = f_silu),
    /* Conv(X, W, B) + Sum, accumulated into output 0, which may take Sum's bytes (input 4) */
    OP("FusedConv", OP_COMPUTE, 4, 4, 1, 1, infer_fused_conv, .scratch = ops_conv_im2col_scratch, .inplace_input = 4),
    /* Gelu(x + bias), the bias a weight over x's last dim (ONNX Runtime's BiasGelu); element for element over
     * x, so it may write over x where x dies */
    OP("BiasGelu", OP_COMPUTE, 2, 2, 1, 1, infer_unary, .elementwise = TRUE),
    /* MatMul with either operand transposed (its last two dims swapped) and the product scaled: transA, transB,
     * alpha (ONNX Runtime's FusedMatMul: MatMulScaleFusion, MatmulTransposeFusion) */
    OP("FusedMatMul", OP_COMPUTE, 2, 2, 1, 1, infer_matmul),
    /* LayerNormalization over the last axis of x + skip (ONNX Runtime's SkipLayerNormalization, --fuse
     * ort-transformers): x, skip, gamma, beta */
    OP("SkipLayerNormalization", OP_COMPUTE, 3, 4, 1, 1, infer_skip_layer_norm),
    /* Softmax(scale * Q K) V without the scores as a tensor, a block of query rows at a time (ONNX Runtime's
     * MultiHeadAttention on its flash path, --fuse ort-transformers): Q, K, V */
    OP("Attention", OP_COMPUTE, 3, 3, 1, 1, infer_attention, .scratch = ops_linalg_attention_scratch),
    /* an If's outputs from the branch its data-dependent condition takes (ops-control.c's fold_if_both) */
    OP("IfSelect", OP_COMPUTE, 1, -1, 0, -1, infer_if_select),
    /* a Loop's scan output from the iterations that ran (a trip count only running decides: infer_fold_loop) */
    OP("ConcatComputed", OP_COMPUTE, 1, -1, 1, 1, infer_concat_computed),
};

/* ONNX Runtime's contrib ops of domain OP_DOMAIN_MICROSOFT that its quantizer writes (QOperator format): the
 * quantized tensors, each with its scale and zero point (per tensor), as ops-quantize.c says. */
static const OpInfo microsoft_rows[] = {
    /* A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point: C = A + B (or A * B), broadcast */
    OP("QLinearAdd", OP_COMPUTE, 7, 8, 1, 1, infer_qlinear_binary),
    OP("QLinearMul", OP_COMPUTE, 7, 8, 1, 1, infer_qlinear_binary),
    /* X, X_scale, X_zero_point, Y_scale, Y_zero_point: an element-wise function of X */
    OP("QLinearSigmoid", OP_COMPUTE, 4, 5, 1, 1, infer_qlinear_unary),
    OP("QLinearLeakyRelu", OP_COMPUTE, 4, 5, 1, 1, infer_qlinear_unary),
    /* X, X_scale, x_zero_point, y_scale, y_zero_point: Softmax (attribute `opset`: which one, `axis`) */
    OP("QLinearSoftmax", OP_COMPUTE, 4, 5, 1, 1, infer_qlinear_softmax),
    /* condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point: Where, requantized */
    OP("QLinearWhere", OP_COMPUTE, 9, 9, 1, 1, infer_qlinear_where),
    /* X, x_scale, x_zero_point, y_scale, y_zero_point: the mean over the spatial axes (channels_last: NHWC) */
    OP("QLinearGlobalAveragePool", OP_COMPUTE, 5, 5, 1, 1, infer_qlinear_global_average_pool),
    /* X, x_scale, x_zero_point, y_scale, y_zero_point: AveragePool's window (NCHW) */
    OP("QLinearAveragePool", OP_COMPUTE, 4, 5, 1, 1, infer_qlinear_average_pool),
    /* A, a_scale, a_zero_point, B, b_scale, b_zero_point, C (int32 bias), y_scale, y_zero_point: Gemm of 8-bit
     * matrices, quantized out, or float out without y_scale */
    OP("QGemm", OP_COMPUTE, 6, 9, 1, 1, infer_qgemm),
    /* Y_scale, Y_zero_point, then X, X_scale, X_zero_point per input: Concat along axis, each requantized */
    OP("QLinearConcat", OP_COMPUTE, 5, -1, 1, 1, infer_qlinear_concat),
    /* A (uint8), B (8-bit), a_scale, b_scale[, a_zero_point, b_zero_point, bias]: the integer MatMul times
     * a_scale * b_scale, in float, plus the bias (ONNX Runtime's fusion of MatMulInteger, Cast and Mul) */
    OP("MatMulIntegerToFloat", OP_COMPUTE, 4, 7, 1, 1, infer_matmul_integer_to_float),
    /* A (float), B (8-bit), b_scale[, b_zero_point, bias]: A quantized as DynamicQuantizeLinear quantizes it,
     * then MatMulIntegerToFloat (ONNX Runtime's fusion of the two) */
    OP("DynamicQuantizeMatMul", OP_COMPUTE, 3, 5, 1, 1, infer_matmul_integer_to_float),
};

static GHashTable *op_index;

static gpointer build_index(gpointer unused)
{
    (void)unused;
    GHashTable *h = g_hash_table_new(g_str_hash, g_str_equal);
    for (gsize k = 0; k < G_N_ELEMENTS(op_rows); k++)
        g_hash_table_insert(h, (gpointer)op_rows[k].name, (gpointer)&op_rows[k]);
    op_index = h;
    return h;
}

gboolean op_reads_bytes(const Node *n, const Tensor *t)
{
    guint metadata = n->op && t->shape_known && !t->dynamic ? n->op->metadata_inputs : 0;
    gboolean named = FALSE; /* a read the inputs do not name (a capture of a subgraph) reads bytes */
    for (guint k = 0; k < n->inputs->len; k++) {
        if (node_input(n, k) != t)
            continue;
        named = TRUE;
        if (k >= 32 || !(metadata & (1u << k)))
            return TRUE;
    }
    return !named;
}

const OpInfo *op_lookup(const char *domain, const char *op_type)
{
    static GOnce once = G_ONCE_INIT;
    g_once(&once, build_index, NULL);
    if (domain && !strcmp(domain, SIM_OP_DOMAIN)) {
        for (gsize k = 0; k < G_N_ELEMENTS(internal_rows); k++)
            if (!strcmp(internal_rows[k].name, op_type))
                return &internal_rows[k];
        return NULL;
    }
    if (domain && !strcmp(domain, OP_DOMAIN_MICROSOFT)) {
        for (gsize k = 0; k < G_N_ELEMENTS(microsoft_rows); k++)
            if (!strcmp(microsoft_rows[k].name, op_type))
                return &microsoft_rows[k];
        return NULL;
    }
    if (domain && *domain && strcmp(domain, "ai.onnx") != 0)
        return NULL;
    return g_hash_table_lookup(op_index, op_type);
}

const OpInfo *op_table(gsize *count)
{
    *count = G_N_ELEMENTS(op_rows);
    return op_rows;
}

const OpInfo *op_table_microsoft(gsize *count)
{
    *count = G_N_ELEMENTS(microsoft_rows);
    return microsoft_rows;
}
