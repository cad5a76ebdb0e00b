/* kernel.h — what a real kernel sees: its node, its kernel row and its input and output tensors, already
 * bound to memory (inside the planned arena, or outside it for weights and the caller's buffers). The
 * kernels live in exec/kernels/, one file per family, and are named by the kernel table
 * (exec/kernel-table.c), which the executor binds to the op table's rows once; it calls them in schedule
 * order. Float32 is the compute type; int64/int32/bool/uint8 carry indices and masks; element access
 * through doubles and gint64 (elem_get_*) keeps every dtype correct where no fast path exists. The
 * families: elementwise, gemm, conv (and pooling), norm (softmax, normalisation, reductions), attention, movement,
 * resize, along-axis (arg/top-k selection and scans), indexing (element-wise gathers and scatters, triangle
 * and eye masks), dynamic (data-dependent sizes), recurrent, einsum, quantize (the integer and QLinear ops). */
#ifndef SIM_KERNEL_H
#define SIM_KERNEL_H

#include "model/graph.h"

#include <math.h>

typedef struct {
    void *data;        /* first element (NULL when count is 0) */
    DType dtype;
    int rank;
    const gint64 *dims;
    gsize count;       /* elements */
    /* A data-dependent tensor (Tensor.dynamic): its run-time dims (dims points here) and the elements its
     * planned bytes hold; NULL and 0 for every other tensor. */
    gint64 *own_dims;
    gsize capacity;
    /* Channel-blocked: a float tensor of images [N, C, H, W] whose channels (C a multiple of 16) lie 16 at a time
     * side by side at each position (oneDNN's nChw16c), as many bytes as row-major; only between kernels whose
     * rows read and write that layout (exec/layout.h). */
    gboolean blocked;
} ExecTensor;

/* Memory a kernel needs during one call (Conv's im2col matrix), kept by the executor from call to call and
 * run to run so that large temporaries are not mapped and zeroed by the system at every step. */
typedef struct KernelWorkspace KernelWorkspace;
KernelWorkspace *kernel_workspace_new(void);
void kernel_workspace_free(KernelWorkspace *w);

/* An elementwise op folded into the kernel that produces its input (KernelCall.epilogue). */
/* What a kernel may apply to its output as it writes it (KernelCall.epilogue): a folded activation. The Gelus
 * (BiasGelu's two forms) add a bias along the last axis first (KernelCall.epilogue_bias). */
typedef enum { EPILOGUE_NONE, EPILOGUE_RELU, EPILOGUE_CLIP, EPILOGUE_HARD_SWISH, EPILOGUE_SILU, EPILOGUE_GELU,
               EPILOGUE_GELU_TANH, EPILOGUE_KINDS /* their count */ } KernelEpilogue;

struct KernelRow;

/* Which member of a family a row's kernel computes (KernelRow.kind), so that one kernel function serves
 * several ops without comparing their names: how a reduction folds and finishes, which pool, which of a pair. */
typedef enum {
    KIND_NONE,
    KIND_REDUCE_SUM, KIND_REDUCE_MEAN, KIND_REDUCE_MAX, KIND_REDUCE_MIN, KIND_REDUCE_PROD, KIND_REDUCE_L1,
    KIND_REDUCE_L2, KIND_REDUCE_LOG_SUM, KIND_REDUCE_LOG_SUM_EXP, KIND_REDUCE_SUM_SQUARE,
    KIND_POOL_MAX, KIND_POOL_AVERAGE, KIND_POOL_LP, KIND_GLOBAL_POOL_MAX, KIND_GLOBAL_POOL_AVERAGE, KIND_GLOBAL_POOL_LP,
    KIND_ARG_MAX, KIND_ARG_MIN,
    KIND_SOFTMAX, KIND_LOG_SOFTMAX,
    KIND_GELU, KIND_HARD_SIGMOID, KIND_HARD_SWISH, KIND_LEAKY_RELU, KIND_ELU, KIND_SELU, KIND_CELU, KIND_MISH,
    KIND_THRESHOLDED_RELU, KIND_SHRINK, /* the unary maps with attributes */
    KIND_IS_INF, KIND_MOD, KIND_PRELU, KIND_BIT_SHIFT, KIND_MEAN, KIND_UPSAMPLE,
} KernelKind;

/* What a kernel keeps for its node from one call to the next, in every run of the executor: a library's
 * primitive, with the node's constant weights packed into the layout it reads (exec/kernels/onednn.c). Made
 * at the node's first call, freed with the executor. */
typedef struct KernelPrepared {
    void *state;
    void (*free)(void *state);
    guint64 bytes;     /* memory of the executor's own it holds (packed weights), reported beside the arena */
    const char *by;    /* the library that runs the node ("oneDNN 2.6.3"), NULL until it has */
    const char *algorithm; /* the library's algorithm where it chose one of several ("Winograd F(4x4,3x3)"), or
                              NULL */
    gboolean declined; /* the library cannot run this node: the row's own kernel does, from now on */
} KernelPrepared;

typedef struct KernelCall {
    const Node *node;
    const struct KernelRow *row; /* the node's kernel row (exec/kernel-table.h) */
    gint64 opset;
    guint n_in, n_out;
    ExecTensor *const *in;  /* NULL entries: omitted optional inputs */
    ExecTensor *const *out; /* NULL entries: omitted optional outputs */
    /* A following Relu, Clip (to [lo, hi]), HardSwish or SiLU the executor folded into this call
     * (KernelRow.epilogue rows only), or a BiasGelu (.epilogue_gelu rows): applied to output 0 as it is
     * written, exactly as the op's own kernel would (kernel_epilogue_array, kernel_epilogue_whole). The folded
     * node does not run. */
    KernelEpilogue epilogue;
    float epilogue_lo, epilogue_hi;
    const float *epilogue_bias; /* a folded BiasGelu's bias (epilogue_bias_n values along the last axis), or NULL */
    gsize epilogue_bias_n;
    KernelWorkspace *workspace; /* the executor's (kernel_workspace) */
    KernelPrepared *prepared;   /* the step's own, when the call runs the row's library kernel; else NULL */
    gboolean winograd, skinny;  /* the executor's options (exec.h's ExecOptions): what a library kernel may choose */
} KernelCall;

/* At least `bytes` of the call's workspace, 64-byte aligned, contents undefined; valid until the next
 * request. NULL when the system will not give that much (the kernel then fails, saying so). */
void *kernel_workspace(const KernelCall *c, gsize bytes);

typedef gboolean (*KernelFn)(const KernelCall *c, GError **error);

/* count x size zeroed bytes for a kernel's own use during one call (accumulators, index lists), weighed in the
 * run's one memory account with the arena and everything else the run holds; NULL with an error naming the node
 * and `what` when they are past it. Free with kernel_alloc_free. kernel_workspace is in the account too. */
void *kernel_alloc(const KernelCall *c, guint64 count, guint64 size, const char *what, GError **error);
void kernel_alloc_free(void *p);

/* Runs fn over [0, n) in contiguous parts, one per thread of the executor's team (oneDNN's OpenMP threads when
 * --threads asks for more than one; inline otherwise), no part smaller than `grain`; `part` numbers the part
 * (below kernel_threads()), for a per-thread slice of workspace. Returns when every part has. */
void kernel_parallel(gint64 n, gint64 grain, void (*fn)(void *data, gint64 begin, gint64 end, guint part), void *data);
/* map over n floats (in may be out), or the call's folded activation over a whole tensor (its Gelus with their
 * bias, the tensor's last axis the bias's), in blocks shared out among the threads; the same bits at any thread
 * count. */
void kernel_parallel_map(void (*map)(const float *in, float *out, gsize n), const float *in, float *out, gsize n);
void kernel_epilogue_whole(const KernelCall *c, float *data, gsize n);
/* The most parts kernel_parallel makes. */
guint kernel_threads(void);

/* The float arithmetic a binary row asks the kernel to do inline (KernelRow.arith). */
typedef enum { ARITH_NONE, ARITH_ADD, ARITH_SUB, ARITH_MUL, ARITH_DIV, ARITH_POW } KernelArith;
/* tanh through one expf (the kernel table's float form of Tanh). */
float kernel_fast_tanh(float x);
float kernel_relu_f(float x);
float kernel_sigmoid_f(float x);
/* x times kernel_sigmoid_f(x): sim's SiLU (--fuse ort), the bits of the unfused Sigmoid then Mul. */
float kernel_silu_f(float x);
/* exp and erf in float, vectorisable (exec/kernels/approx.h: relative error below 1e-7 and 1e-6). */
float kernel_exp_f(float x);
float kernel_erf_f(float x);
/* Those maps (and Relu) over float arrays, as wide as the CPU's vectors allow: each element gets its scalar
 * form's bits. */
void kernel_exp_array(const float *in, float *out, gsize n);
void kernel_erf_array(const float *in, float *out, gsize n);
void kernel_tanh_array(const float *in, float *out, gsize n);
void kernel_sigmoid_array(const float *in, float *out, gsize n);
void kernel_silu_array(const float *in, float *out, gsize n);
void kernel_relu_array(const float *in, float *out, gsize n);
/* row[k] = the call's epilogue of row[k] + *b (without the add when b is NULL: -0 + 0 would turn -0 into
 * +0), one loop per case so each vectorises; the values are the unfused ops' to the bit. Not for the Gelus
 * (their bias runs along the tensor's last axis: kernel_epilogue_whole), which only .epilogue_gelu rows get. */
void kernel_epilogue_array(const KernelCall *c, float *row, gsize n, const float *b);
/* A contiguous run's maximum, and its sum in double, each kept in eight independent lanes so that the loop
 * is not one chain of dependent operations (a Softmax row of 128 took 128 adds' latency in a row; a global
 * pool over 56 x 56, 3136). The lanes fix the order of the sum: every run gives the same bits. Inline, so a
 * caller compiled for AVX-512 or AVX2 (target_clones) gets them compiled so too (results/history.md,
 * "Measurements that stood in code comments"). */
#define KERNEL_LANES 8
static inline float kernel_lanes_max(const float *x, gint64 n)
{
    float m[KERNEL_LANES];
    for (int l = 0; l < KERNEL_LANES; l++)
        m[l] = -INFINITY;
    gint64 j = 0;
    for (; j + KERNEL_LANES <= n; j += KERNEL_LANES)
        for (int l = 0; l < KERNEL_LANES; l++)
            m[l] = MAX(m[l], x[j + l]);
    for (; j < n; j++)
        m[0] = MAX(m[0], x[j]);
    float top = m[0];
    for (int l = 1; l < KERNEL_LANES; l++)
        top = MAX(top, m[l]);
    return top;
}

static inline double kernel_lanes_sum(const float *x, gint64 n)
{
    double s[KERNEL_LANES] = {0};
    gint64 j = 0;
    for (; j + KERNEL_LANES <= n; j += KERNEL_LANES)
        for (int l = 0; l < KERNEL_LANES; l++)
            s[l] += x[j + l];
    for (; j < n; j++)
        s[0] += x[j];
    double sum = 0;
    for (int l = 0; l < KERNEL_LANES; l++)
        sum += s[l];
    return sum;
}
void kernel_hard_swish_array(const float *in, float *out, gsize n);

/* HardSwish in float, x clamp(x / 6 + 1/2, 0, 1), the one definition its kernel and its folded form use
 * (comparisons, not fminf/fmaxf: those are libm calls at -O2; a NaN x still gives NaN). */
static inline float kernel_hard_swish_f(float x)
{
    float t = x * (1.0f / 6.0f) + 0.5f;
    return x * (t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t);
}

/* A data-dependent op's output k takes its real shape (its planned rank; at most the elements its planned
 * bytes hold, else an error naming the tensor and its bound): dims and count change for the kernels after
 * it. */
gboolean kernel_set_dims(const KernelCall *c, guint k, const gint64 *dims, GError **error);
/* Input/output k, or NULL when absent. */
const ExecTensor *kernel_in(const KernelCall *c, guint k);
/* The call's row's kind (KernelRow.kind). */
KernelKind kernel_kind(const KernelCall *c);
ExecTensor *kernel_out(const KernelCall *c, guint k);
/* A kernel's failure: "node X (Op): what" as a SIM_ERROR_UNSUPPORTED error; always FALSE. */
gboolean kernel_fail(const KernelCall *c, GError **error, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* Requires float32 for the listed tensors (NULL-terminated indices into in, -1 ends). */
gboolean kernel_need_float(const KernelCall *c, const ExecTensor *t, const char *what, GError **error);

/* Element k of any numeric dtype, as a double or an integer; and stores. */
double kernel_elem_get_f(const ExecTensor *t, gsize k);
gint64 kernel_elem_get_i(const ExecTensor *t, gsize k);
void kernel_elem_set_f(ExecTensor *t, gsize k, double v);
void kernel_elem_set_i(ExecTensor *t, gsize k, gint64 v);
gboolean kernel_elem_supported(DType d);
/* Whether d is a 16-bit float (FLOAT16, BFLOAT16): the types every row but Cast's gets as float32 copies. */
static inline gboolean kernel_is_16bit_float(DType d)
{
    return d == DT_FLOAT16 || d == DT_BFLOAT16;
}
/* n 16-bit floats (FLOAT16 or BFLOAT16: `dtype`) to float32, exactly; and back, rounding to nearest, ties to even
 * (as kernel_elem_set_f). FLOAT16 through the CPU's conversion instructions (F16C) where it has them. */
void kernel_16bit_to_float(DType dtype, const guint16 *in, float *out, gsize n);
void kernel_float_to_16bit(DType dtype, const float *in, guint16 *out, gsize n);

/* Row-major strides of t aligned to an output of rank `rank` (numpy broadcasting: missing leading
 * dimensions and dimensions of 1 get stride 0). strides must hold `rank` entries. */
void kernel_broadcast_strides(const ExecTensor *t, int rank, const gint64 *out_dims, gint64 *strides);
/* Advances a row-major index over dims (the last dimension fastest), wrapping to all zeros at the end. */
void kernel_index_next(gint64 *idx, const gint64 *dims, int rank);
/* Walks an output in row-major order keeping, per input (up to 3), the element offset numpy broadcasting maps
 * it to: off[k] for input k at the current output element. */
typedef struct {
    int rank;
    const gint64 *dims;
    guint n;
    gint64 *strides; /* n x rank */
    gint64 *idx;     /* rank */
    gint64 off[3];
} KernelWalk;
void kernel_walk_init(KernelWalk *w, const ExecTensor *out, guint n, const ExecTensor *const *ins);
void kernel_walk_next(KernelWalk *w); /* to the next output element */
void kernel_walk_clear(KernelWalk *w);
/* Copies bytes, through a temporary when the ranges overlap but differ. */
void kernel_move(void *dst, const void *src, gsize bytes);
/* Index k of ind wrapped into [0, dim) (a negative index counts from the end, once), or FALSE with an error
 * naming it and the axis: an index never reads outside its tensor. */
gboolean kernel_index_at(const KernelCall *c, const ExecTensor *ind, gsize k, gint64 dim, int axis, gint64 *out,
                         GError **error);
/* An axis attribute normalised to [0, rank). */
int kernel_axis(gint64 axis, int rank);
/* The largest rank the kernels' fixed index arrays take. */
#define KERNEL_MAX_RANK 16

/* A window op's geometry over its spatial axes (Conv, ConvTranspose, the pools), read from the node. */
typedef struct {
    int s;                                   /* spatial axes */
    gint64 n, c;                             /* images, channels */
    gint64 in[KERNEL_MAX_RANK], out[KERNEL_MAX_RANK], k[KERNEL_MAX_RANK];
    gint64 stride[KERNEL_MAX_RANK], dil[KERNEL_MAX_RANK], pad[KERNEL_MAX_RANK]; /* pad: before each axis */
    gint64 in_size, out_size, k_size;        /* products over the spatial axes */
} KernelWindow;
/* The geometry of x -> y under the node's strides, dilations, pads and auto_pad (SAME: the padding the output
 * size implies, its odd unit after (SAME_UPPER) or before (SAME_LOWER); VALID: none). */
gboolean kernel_window_read(const KernelCall *c, const ExecTensor *x, const ExecTensor *y,
                            const gint64 *kernel_dims, KernelWindow *w, GError **error);
/* outer x len x inner around `axis` of t (len may be NULL). */
void kernel_axis_geometry(const ExecTensor *t, int axis, gint64 *outer, gint64 *len, gint64 *inner);
/* The rows of Softmax, LogSoftmax and Hardmax: before opset 13 the tail from `axis` (default 1) is one
 * row (inner 1); from 13 one axis (default -1), strided by inner. */
gboolean kernel_coerced_rows(const KernelCall *c, const ExecTensor *x, gint64 *outer, gint64 *len, gint64 *inner,
                             GError **error);
/* x's bytes to read while writing y: x's own, or a copy (*copy, to free) when aliasing made them overlap. */
const void *kernel_input_apart(const ExecTensor *x, const ExecTensor *y, void **copy);
/* dst = src permuted: dst's dimension d is src's dimension perm[d]; elements of `size` bytes; rank at
 * most KERNEL_MAX_RANK; the two must not overlap. */
void kernel_permute(void *dst, const void *src, gsize size, int rank, const gint64 *x_dims, const gint64 *perm);

/* The families (each in its own file). */
gboolean kernel_unary(const KernelCall *c, GError **error);
/* BiasGelu(x, bias): Gelu(x + bias), the bias over x's last dim (attribute approximate as Gelu's). */
gboolean kernel_bias_gelu(const KernelCall *c, GError **error);
gboolean kernel_binary(const KernelCall *c, GError **error);
/* Whether t holds one float per channel of the image tensor y ([C, 1, 1], [1, C, 1, 1] or [N, C, 1, 1], the same
 * bytes blocked or not): the operand kernel_binary's arithmetic broadcasts over a channel-blocked y. */
gboolean kernel_per_channel(const ExecTensor *t, const ExecTensor *y);
gboolean kernel_variadic(const KernelCall *c, GError **error);
gboolean kernel_where(const KernelCall *c, GError **error);
gboolean kernel_cast(const KernelCall *c, GError **error);
/* quantize.c */
gboolean kernel_quantize_linear(const KernelCall *c, GError **error);
gboolean kernel_dequantize_linear(const KernelCall *c, GError **error);
gboolean kernel_dynamic_quantize_linear(const KernelCall *c, GError **error);
gboolean kernel_matmul_integer(const KernelCall *c, GError **error);
gboolean kernel_qlinear_matmul(const KernelCall *c, GError **error);
gboolean kernel_conv_integer(const KernelCall *c, GError **error);
gboolean kernel_qlinear_conv(const KernelCall *c, GError **error);
/* ConvInteger, QLinearConv and MatMulInteger with their sums on oneDNN's integer GEMM where the CPU sums exactly
 * (AVX-512 VNNI), else as the rows' own kernels (QLinearMatMul's row has kernel_qlinear_matmul for both) */
gboolean kernel_conv_integer_onednn(const KernelCall *c, GError **error);
gboolean kernel_matmul_integer_onednn(const KernelCall *c, GError **error);
gboolean kernel_qlinear_conv_onednn(const KernelCall *c, GError **error);
/* Whether QLinearConv's library kernel runs the call on our own direct convolution (exec/kernels/qconv.h), which
 * takes x and y channel-blocked or row-major: AVX-512 VNNI, an image (rank 4) of one group or depthwise (a
 * channel a group, one output channel each), constant int8 weights with zero point 0, 8-bit x and y. */
gboolean kernel_qlinear_conv_blocks(const KernelCall *c);
gboolean kernel_qlinear_binary(const KernelCall *c, GError **error);
gboolean kernel_qlinear_unary(const KernelCall *c, GError **error);
gboolean kernel_qlinear_softmax(const KernelCall *c, GError **error);
gboolean kernel_qlinear_where(const KernelCall *c, GError **error);
gboolean kernel_qlinear_global_average_pool(const KernelCall *c, GError **error);
gboolean kernel_qlinear_concat(const KernelCall *c, GError **error);
gboolean kernel_qlinear_average_pool(const KernelCall *c, GError **error);
gboolean kernel_qgemm(const KernelCall *c, GError **error);
gboolean kernel_matmul_integer_to_float(const KernelCall *c, GError **error);
gboolean kernel_dynamic_quantize_matmul(const KernelCall *c, GError **error);
gboolean kernel_clip(const KernelCall *c, GError **error);
gboolean kernel_dropout(const KernelCall *c, GError **error);
gboolean kernel_matmul(const KernelCall *c, GError **error);
gboolean kernel_gemm(const KernelCall *c, GError **error);
gboolean kernel_conv(const KernelCall *c, GError **error);
/* The same ops on oneDNN (exec/kernels/onednn.c): each runs the call's row's own kernel where oneDNN cannot. */
gboolean kernel_conv_onednn(const KernelCall *c, GError **error);
gboolean kernel_matmul_onednn(const KernelCall *c, GError **error);
gboolean kernel_gemm_onednn(const KernelCall *c, GError **error);
/* Whether kernel_conv_onednn runs the call on oneDNN with its tensors in their layouts (.blocked as they are
 * now): the weights and bias plain, a FusedConv's skip in its output's layout. */
gboolean kernel_conv_onednn_blocks(const KernelCall *c);
/* MaxPool, AveragePool and their global forms on oneDNN over a channel-blocked input (the row's own kernel runs
 * every plain one), and whether it takes the call's layouts. */
gboolean kernel_pool_onednn(const KernelCall *c, GError **error);
gboolean kernel_pool_onednn_blocks(const KernelCall *c);
gboolean kernel_conv_transpose(const KernelCall *c, GError **error);
gboolean kernel_pool(const KernelCall *c, GError **error);
gboolean kernel_global_pool(const KernelCall *c, GError **error);
gboolean kernel_batch_norm(const KernelCall *c, GError **error);
gboolean kernel_layer_norm(const KernelCall *c, GError **error);
gboolean kernel_softmax(const KernelCall *c, GError **error);
/* Softmax of one contiguous row into out (out may be in): what kernel_softmax computes for it. */
void kernel_softmax_row(const float *in, float *out, gint64 len);
gboolean kernel_skip_layer_norm(const KernelCall *c, GError **error);
gboolean kernel_attention(const KernelCall *c, GError **error);
gboolean kernel_reduce(const KernelCall *c, GError **error);
gboolean kernel_view(const KernelCall *c, GError **error);
gboolean kernel_transpose(const KernelCall *c, GError **error);
gboolean kernel_concat(const KernelCall *c, GError **error);
gboolean kernel_split(const KernelCall *c, GError **error);
gboolean kernel_slice(const KernelCall *c, GError **error);
gboolean kernel_gather(const KernelCall *c, GError **error);
gboolean kernel_expand(const KernelCall *c, GError **error);
gboolean kernel_resize(const KernelCall *c, GError **error);
gboolean kernel_grid_sample(const KernelCall *c, GError **error);
gboolean kernel_pad(const KernelCall *c, GError **error);
gboolean kernel_tile(const KernelCall *c, GError **error);
gboolean kernel_range(const KernelCall *c, GError **error);
gboolean kernel_shape(const KernelCall *c, GError **error);
gboolean kernel_constant_of_shape(const KernelCall *c, GError **error);
gboolean kernel_depth_to_space(const KernelCall *c, GError **error);
gboolean kernel_space_to_depth(const KernelCall *c, GError **error);
gboolean kernel_instance_norm(const KernelCall *c, GError **error);
gboolean kernel_lrn(const KernelCall *c, GError **error);
gboolean kernel_hardmax(const KernelCall *c, GError **error);
gboolean kernel_arg_reduce(const KernelCall *c, GError **error);
gboolean kernel_topk(const KernelCall *c, GError **error);
gboolean kernel_cumsum(const KernelCall *c, GError **error);
gboolean kernel_trilu(const KernelCall *c, GError **error);
gboolean kernel_eye_like(const KernelCall *c, GError **error);
gboolean kernel_gather_elements(const KernelCall *c, GError **error);
gboolean kernel_gather_nd(const KernelCall *c, GError **error);
gboolean kernel_scatter_elements(const KernelCall *c, GError **error);
gboolean kernel_scatter_nd(const KernelCall *c, GError **error);
gboolean kernel_einsum(const KernelCall *c, GError **error);
gboolean kernel_recurrent(const KernelCall *c, GError **error);
gboolean kernel_size(const KernelCall *c, GError **error);
gboolean kernel_nonzero(const KernelCall *c, GError **error);
gboolean kernel_compress(const KernelCall *c, GError **error);
gboolean kernel_unique(const KernelCall *c, GError **error);
gboolean kernel_nms(const KernelCall *c, GError **error);
gboolean kernel_roi_align(const KernelCall *c, GError **error);
gboolean kernel_if_select(const KernelCall *c, GError **error);
gboolean kernel_concat_computed(const KernelCall *c, GError **error);

#endif
