/* kernel-table.c — the executor's kernel rows (kernel-table.h), bound to the op table's rows by name. */
#include "exec/kernel-table.h"

#include "ops/infer.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static const KernelRow kernel_rows[] = {
    {.name = "Reshape", .kernel = kernel_view},
    {.name = "Transpose", .kernel = kernel_transpose},
    {.name = "Squeeze", .kernel = kernel_view},
    {.name = "Unsqueeze", .kernel = kernel_view},
    {.name = "Flatten", .kernel = kernel_view},
    {.name = "Identity", .kernel = kernel_view},
    {.name = "Gather", .kernel = kernel_gather},
    {.name = "Slice", .kernel = kernel_slice},
    {.name = "Concat", .kernel = kernel_concat, .layout = KERNEL_LAYOUT_CONCAT},
    {.name = "Split", .kernel = kernel_split},
    {.name = "Relu", .kernel = kernel_unary, .unary_f = kernel_relu_f, .unary_array = kernel_relu_array, .folds_as = EPILOGUE_RELU,
     .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Sigmoid", .kernel = kernel_unary, .unary_f = kernel_sigmoid_f, .unary_array = kernel_sigmoid_array,
     .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Tanh", .kernel = kernel_unary, .unary_f = kernel_fast_tanh, .unary_array = kernel_tanh_array,
     .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Exp", .kernel = kernel_unary, .unary_f = kernel_exp_f, .unary_array = kernel_exp_array},
    {.name = "Log", .kernel = kernel_unary},
    {.name = "Sqrt", .kernel = kernel_unary, .unary_f = sqrtf},
    {.name = "Abs", .kernel = kernel_unary},
    {.name = "Neg", .kernel = kernel_unary},
    {.name = "Reciprocal", .kernel = kernel_unary},
    {.name = "Erf", .kernel = kernel_unary, .unary_f = kernel_erf_f, .unary_array = kernel_erf_array},
    {.name = "Floor", .kernel = kernel_unary},
    {.name = "Ceil", .kernel = kernel_unary},
    {.name = "Round", .kernel = kernel_unary},
    {.name = "Sign", .kernel = kernel_unary},
    {.name = "Sin", .kernel = kernel_unary},
    {.name = "Cos", .kernel = kernel_unary},
    {.name = "Tan", .kernel = kernel_unary},
    {.name = "Softplus", .kernel = kernel_unary},
    {.name = "Softsign", .kernel = kernel_unary},
    {.name = "Not", .kernel = kernel_unary},
    {.name = "Gelu", .kind = KIND_GELU, .kernel = kernel_unary},
    {.name = "HardSigmoid", .kind = KIND_HARD_SIGMOID, .kernel = kernel_unary, .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "HardSwish", .kind = KIND_HARD_SWISH, .kernel = kernel_unary, .folds_as = EPILOGUE_HARD_SWISH,
     .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "LeakyRelu", .kind = KIND_LEAKY_RELU, .kernel = kernel_unary, .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Elu", .kind = KIND_ELU, .kernel = kernel_unary},
    {.name = "Selu", .kind = KIND_SELU, .kernel = kernel_unary},
    {.name = "Celu", .kind = KIND_CELU, .kernel = kernel_unary},
    {.name = "Mish", .kind = KIND_MISH, .kernel = kernel_unary},
    {.name = "ThresholdedRelu", .kind = KIND_THRESHOLDED_RELU, .kernel = kernel_unary},
    {.name = "Shrink", .kind = KIND_SHRINK, .kernel = kernel_unary},
    {.name = "InstanceNormalization", .kernel = kernel_instance_norm, .reads = "f f:c"},
    {.name = "LRN", .kernel = kernel_lrn},
    {.name = "Hardmax", .kernel = kernel_hardmax},
    {.name = "Clip", .kernel = kernel_clip, .folds_as = EPILOGUE_CLIP, .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Trilu", .kernel = kernel_trilu},
    {.name = "CumSum", .kernel = kernel_cumsum},
    {.name = "IsNaN", .kernel = kernel_unary},
    {.name = "IsInf", .kind = KIND_IS_INF, .kernel = kernel_unary},
    {.name = "Dropout", .kernel = kernel_dropout},
    {.name = "Cast", .kernel = kernel_cast, .reads_16bit = TRUE},
    {.name = "CastLike", .kernel = kernel_cast, .reads_16bit = TRUE},
    {.name = "EyeLike", .kernel = kernel_eye_like},
    {.name = "QuantizeLinear", .kernel = kernel_quantize_linear, .layout = KERNEL_LAYOUT_ELEMENTWISE, .reads = "f f -"},
    {.name = "DequantizeLinear", .kernel = kernel_dequantize_linear, .layout = KERNEL_LAYOUT_ELEMENTWISE,
     .reads = "- f -"},
    {.name = "DynamicQuantizeLinear", .kernel = kernel_dynamic_quantize_linear, .reads = "f"},
    {.name = "MatMulInteger", .kernel = kernel_matmul_integer, .library = kernel_matmul_integer_onednn},
    {.name = "QLinearMatMul", .kernel = kernel_qlinear_matmul, .library = kernel_qlinear_matmul,
     .reads = "- f - - f - f -"},
    {.name = "ConvInteger", .kernel = kernel_conv_integer, .library = kernel_conv_integer_onednn},
    {.name = "QLinearConv", .kernel = kernel_qlinear_conv, .library = kernel_qlinear_conv_onednn,
     .layout = KERNEL_LAYOUT_LIBRARY, .library_blocks = kernel_qlinear_conv_blocks, .reads = "- f - - f - f - -"},
    {.name = "Add", .kernel = kernel_binary, .arith = ARITH_ADD, .epilogue = TRUE, .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Sub", .kernel = kernel_binary, .arith = ARITH_SUB, .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Mul", .kernel = kernel_binary, .arith = ARITH_MUL, .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Div", .kernel = kernel_binary, .arith = ARITH_DIV, .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.name = "Pow", .kernel = kernel_binary, .arith = ARITH_POW},
    {.name = "Mod", .kind = KIND_MOD, .kernel = kernel_binary},
    {.name = "PRelu", .kind = KIND_PRELU, .kernel = kernel_binary, .reads = "x"},
    {.name = "BitShift", .kind = KIND_BIT_SHIFT, .kernel = kernel_binary},
    {.name = "Sum", .kernel = kernel_variadic},
    {.name = "Max", .kernel = kernel_variadic},
    {.name = "Min", .kernel = kernel_variadic},
    {.name = "Mean", .kind = KIND_MEAN, .kernel = kernel_variadic},
    {.name = "Equal", .kernel = kernel_binary},
    {.name = "Less", .kernel = kernel_binary},
    {.name = "Greater", .kernel = kernel_binary},
    {.name = "LessOrEqual", .kernel = kernel_binary},
    {.name = "GreaterOrEqual", .kernel = kernel_binary},
    {.name = "And", .kernel = kernel_binary},
    {.name = "Or", .kernel = kernel_binary},
    {.name = "Xor", .kernel = kernel_binary},
    {.name = "Where", .kernel = kernel_where, .reads = "b o o"},
    {.name = "MatMul", .kernel = kernel_matmul, .library = kernel_matmul_onednn, .epilogue = TRUE,
     .epilogue_gelu = TRUE, .reads = "f f"},
    {.name = "Gemm", .kernel = kernel_gemm, .library = kernel_gemm_onednn, .reads = "f f f"},
    {.name = "Einsum", .kernel = kernel_einsum},
    {.name = "Conv", .kernel = kernel_conv, .library = kernel_conv_onednn, .epilogue = TRUE,
     .layout = KERNEL_LAYOUT_LIBRARY, .library_blocks = kernel_conv_onednn_blocks, .reads = "f f f:C"},
    {.name = "ConvTranspose", .kernel = kernel_conv_transpose, .reads = "f f f:C"},
    {.name = "MaxPool", .kind = KIND_POOL_MAX,
     .kernel = kernel_pool, .library = kernel_pool_onednn,
     .layout = KERNEL_LAYOUT_LIBRARY, .library_blocks = kernel_pool_onednn_blocks},
    {.name = "AveragePool", .kind = KIND_POOL_AVERAGE,
     .kernel = kernel_pool, .library = kernel_pool_onednn,
     .layout = KERNEL_LAYOUT_LIBRARY, .library_blocks = kernel_pool_onednn_blocks},
    {.name = "LpPool", .kind = KIND_POOL_LP, .kernel = kernel_pool},
    {.name = "GlobalAveragePool", .kind = KIND_GLOBAL_POOL_AVERAGE,
     .kernel = kernel_global_pool, .library = kernel_pool_onednn,
     .layout = KERNEL_LAYOUT_LIBRARY, .library_blocks = kernel_pool_onednn_blocks},
    {.name = "GlobalMaxPool", .kind = KIND_GLOBAL_POOL_MAX,
     .kernel = kernel_global_pool, .library = kernel_pool_onednn,
     .layout = KERNEL_LAYOUT_LIBRARY, .library_blocks = kernel_pool_onednn_blocks},
    {.name = "GlobalLpPool", .kind = KIND_GLOBAL_POOL_LP, .kernel = kernel_global_pool},
    {.name = "LSTM", .kernel = kernel_recurrent},
    {.name = "GRU", .kernel = kernel_recurrent},
    {.name = "RNN", .kernel = kernel_recurrent},
    {.name = "BatchNormalization", .kernel = kernel_batch_norm, .reads = "f f:c"},
    {.name = "LayerNormalization", .kernel = kernel_layer_norm, .reads = "f"},
    {.name = "Softmax", .kind = KIND_SOFTMAX, .kernel = kernel_softmax},
    {.name = "LogSoftmax", .kind = KIND_LOG_SOFTMAX, .kernel = kernel_softmax},
    {.name = "ReduceSum", .kind = KIND_REDUCE_SUM, .kernel = kernel_reduce},
    {.name = "ReduceProd", .kind = KIND_REDUCE_PROD, .kernel = kernel_reduce},
    {.name = "ReduceMax", .kind = KIND_REDUCE_MAX, .kernel = kernel_reduce},
    {.name = "ReduceMin", .kind = KIND_REDUCE_MIN, .kernel = kernel_reduce},
    {.name = "ReduceMean", .kind = KIND_REDUCE_MEAN, .kernel = kernel_reduce},
    {.name = "ReduceL1", .kind = KIND_REDUCE_L1, .kernel = kernel_reduce},
    {.name = "ReduceL2", .kind = KIND_REDUCE_L2, .kernel = kernel_reduce},
    {.name = "ReduceLogSum", .kind = KIND_REDUCE_LOG_SUM, .kernel = kernel_reduce},
    {.name = "ReduceLogSumExp", .kind = KIND_REDUCE_LOG_SUM_EXP, .kernel = kernel_reduce},
    {.name = "ReduceSumSquare", .kind = KIND_REDUCE_SUM_SQUARE, .kernel = kernel_reduce},
    {.name = "ArgMax", .kind = KIND_ARG_MAX, .kernel = kernel_arg_reduce},
    {.name = "ArgMin", .kind = KIND_ARG_MIN, .kernel = kernel_arg_reduce},
    {.name = "TopK", .kernel = kernel_topk},
    {.name = "NonZero", .kernel = kernel_nonzero},
    {.name = "Compress", .kernel = kernel_compress},
    {.name = "Unique", .kernel = kernel_unique},
    {.name = "NonMaxSuppression", .kernel = kernel_nms},
    {.name = "RoiAlign", .kernel = kernel_roi_align},
    {.name = "GatherElements", .kernel = kernel_gather_elements},
    {.name = "GatherND", .kernel = kernel_gather_nd},
    {.name = "ScatterND", .kernel = kernel_scatter_nd},
    {.name = "ScatterElements", .kernel = kernel_scatter_elements},
    {.name = "Scatter", .kernel = kernel_scatter_elements},
    {.name = "Expand", .kernel = kernel_expand},
    {.name = "Tile", .kernel = kernel_tile},
    {.name = "Pad", .kernel = kernel_pad},
    {.name = "Resize", .kernel = kernel_resize},
    {.name = "GridSample", .kernel = kernel_grid_sample, .reads = "f f"},
    {.name = "Upsample", .kind = KIND_UPSAMPLE, .kernel = kernel_resize},
    {.name = "DepthToSpace", .kernel = kernel_depth_to_space},
    {.name = "SpaceToDepth", .kernel = kernel_space_to_depth},
    {.name = "Shape", .kernel = kernel_shape},
    {.name = "Size", .kernel = kernel_size},
    {.name = "ConstantOfShape", .kernel = kernel_constant_of_shape},
    {.name = "Range", .kernel = kernel_range},
    {.internal = TRUE, .name = "SiLU", .kernel = kernel_unary, .unary_f = kernel_silu_f, .unary_array = kernel_silu_array,
     .folds_as = EPILOGUE_SILU, .layout = KERNEL_LAYOUT_ELEMENTWISE},
    {.internal = TRUE, .name = "FusedConv", .kernel = kernel_conv, .library = kernel_conv_onednn, .epilogue = TRUE,
     .layout = KERNEL_LAYOUT_LIBRARY, .library_blocks = kernel_conv_onednn_blocks, .reads = "f f f:C f"},
    {.internal = TRUE, .name = "FusedMatMul", .kernel = kernel_matmul, .library = kernel_matmul_onednn, .reads = "f f"},
    {.internal = TRUE, .name = "BiasGelu", .kernel = kernel_bias_gelu, .folds_as = EPILOGUE_GELU, .reads = "f f:l"},
    {.internal = TRUE, .name = "SkipLayerNormalization", .kernel = kernel_skip_layer_norm, .reads = "f f:s f:l"},
    {.internal = TRUE, .name = "Attention", .kernel = kernel_attention, .reads = "f"},
    {.internal = TRUE, .name = "IfSelect", .kernel = kernel_if_select, .reads_computed = TRUE},
    {.internal = TRUE, .name = "ConcatComputed", .kernel = kernel_concat_computed, .reads_computed = TRUE},
    /* ONNX Runtime's QOperator contrib ops */
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearAdd", .kernel = kernel_qlinear_binary,
     .layout = KERNEL_LAYOUT_ELEMENTWISE, .reads = "- f - - f - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearMul", .kernel = kernel_qlinear_binary,
     .layout = KERNEL_LAYOUT_ELEMENTWISE, .reads = "- f - - f - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearSigmoid", .kernel = kernel_qlinear_unary,
     .layout = KERNEL_LAYOUT_ELEMENTWISE, .reads = "- f - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearLeakyRelu", .kernel = kernel_qlinear_unary,
     .layout = KERNEL_LAYOUT_ELEMENTWISE, .reads = "- f - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearSoftmax", .kernel = kernel_qlinear_softmax, .reads = "- f - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearWhere", .kernel = kernel_qlinear_where,
     .reads = "- - f - - f - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearGlobalAveragePool", .kernel = kernel_qlinear_global_average_pool,
     .reads = "- f - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearConcat", .kernel = kernel_qlinear_concat},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QLinearAveragePool", .kernel = kernel_qlinear_average_pool,
     .reads = "- f - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "QGemm", .kernel = kernel_qgemm, .reads = "- f - - f - - f -"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "MatMulIntegerToFloat", .kernel = kernel_matmul_integer_to_float,
     .library = kernel_matmul_integer_to_float, .reads = "- - f f - - f"},
    {.domain = OP_DOMAIN_MICROSOFT, .name = "DynamicQuantizeMatMul", .kernel = kernel_dynamic_quantize_matmul,
     .library = kernel_dynamic_quantize_matmul, .reads = "f - f - f"},
};

/* The domain of a row's op: sim's own, ONNX Runtime's, or ONNX's. */
static const char *row_domain(const KernelRow *row)
{
    return row->internal ? SIM_OP_DOMAIN : row->domain ? row->domain : "";
}

static GHashTable *by_op; /* const OpInfo * -> const KernelRow * */

static gpointer bind_rows(gpointer unused)
{
    (void)unused;
    GHashTable *h = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (gsize k = 0; k < G_N_ELEMENTS(kernel_rows); k++) {
        const OpInfo *op = op_lookup(row_domain(&kernel_rows[k]), kernel_rows[k].name);
        if (op)
            g_hash_table_insert(h, (gpointer)op, (gpointer)&kernel_rows[k]);
    }
    by_op = h;
    return h;
}

const char *kernel_table_unbound(void)
{
    for (gsize k = 0; k < G_N_ELEMENTS(kernel_rows); k++)
        if (!op_lookup(row_domain(&kernel_rows[k]), kernel_rows[k].name))
            return kernel_rows[k].name;
    return NULL;
}

const KernelRow *kernel_row(const OpInfo *op)
{
    static GOnce once = G_ONCE_INIT;
    g_once(&once, bind_rows, NULL);
    return op ? g_hash_table_lookup(by_op, op) : NULL;
}

/* The element type a kernel sees for t: 16-bit floats reach a row that does not read them as float32 copies. */
static DType seen_type(const KernelRow *row, const Tensor *t)
{
    return kernel_is_16bit_float(t->dtype) && !row->reads_16bit ? DT_FLOAT : t->dtype;
}

static gboolean reads_fail(const Node *n, GError **error, guint k, const Tensor *t, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);
static gboolean reads_fail(const Node *n, GError **error, guint k, const Tensor *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "node %s: input %u '%s': its kernel reads %s", n->label, k,
                t->name, what);
    g_free(what);
    return FALSE;
}

/* The token of .reads for input k (the last one stands for every further input): its start, and its length in
 * *len. */
static const char *reads_token(const char *reads, guint k, gsize *len)
{
    const char *tok = reads;
    for (guint j = 0; j < k && strchr(tok, ' '); j++)
        tok = strchr(tok, ' ') + 1;
    *len = strcspn(tok, " ");
    return tok;
}

gboolean kernel_row_check(const KernelRow *row, const Node *n, GError **error)
{
    const Tensor *x0 = node_input(n, 0), *y0 = node_output(n, 0);
    for (guint k = 0; row->reads && k < n->inputs->len; k++) {
        const Tensor *t = node_input(n, k);
        if (!t || !t->shape_known)
            continue;
        gsize len;
        const char *tok = reads_token(row->reads, k, &len);
        DType want = tok[0] == 'f' ? DT_FLOAT : tok[0] == 'b' ? DT_BOOL : tok[0] == 'o' && y0 ? seen_type(row, y0)
                     : tok[0] == 'x' && x0 ? seen_type(row, x0) : DT_UNDEFINED;
        if (want != DT_UNDEFINED && seen_type(row, t) != want)
            return reads_fail(n, error, k, t, "%s elements, not %s", dtype_name(want), dtype_name(t->dtype));
        char rule = len > 2 && tok[1] == ':' ? tok[2] : 0;
        const Tensor *whose = rule == 'C' ? y0 : x0; /* the tensor the count follows */
        if (!rule || !whose || !whose->shape_known)
            continue;
        if (rule == 's') {
            if (whose->rank == t->rank && !memcmp(whose->dims, t->dims, sizeof(gint64) * (gsize)t->rank))
                continue;
            char *want_dims = graph_dims_to_string(whose->rank, whose->dims);
            char *got = graph_dims_to_string(t->rank, t->dims);
            reads_fail(n, error, k, t, "the shape of input 0, %s, not %s", want_dims, got);
            g_free(want_dims);
            g_free(got);
            return FALSE;
        }
        /* c and C: dims[1] of input 0 or output 0; l: input 0's last axis */
        int axis = rule == 'l' ? whose->rank - 1 : 1;
        guint64 count;
        if (axis < 0 || axis >= whose->rank || !shape_numel(t->rank, t->dims, &count) ||
            count == (guint64)whose->dims[axis])
            continue;
        char *got = graph_dims_to_string(t->rank, t->dims);
        reads_fail(n, error, k, t, "%s: %" G_GINT64_FORMAT " elements, not %s",
                   rule == 'l' ? "one value per element of the last axis" : rule == 'C' ? "one value per output channel"
                                                                            : "one value per channel",
                   whose->dims[axis], got);
        g_free(got);
        return FALSE;
    }
    return TRUE;
}

const KernelRow *kernel_table(gsize *count)
{
    *count = G_N_ELEMENTS(kernel_rows);
    return kernel_rows;
}
