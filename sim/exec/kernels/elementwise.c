/* elementwise.c — unary maps, binary and n-ary ops with numpy broadcasting, Where, Cast, Clip,
 * Dropout (inference: a copy); the unary maps with attributes (LeakyRelu, Elu, Gelu, HardSigmoid, ...). The scalar functions are the op table's own (the ones shape
 * inference folds constants with), so a kernel and the folding agree by construction. An output may
 * share an input's buffer (in-place): every loop reads element k of that input before writing k. */
#include "exec/kernels/approx.h"
#include "exec/kernel.h"
#include "exec/kernel-table.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

/* `ivdep` on the loops whose output may be one of their inputs exactly (an in-place step), never a shifted view
 * of one: no iteration reads what an earlier one wrote, and GCC's runtime overlap check, which fails on exactly
 * the in-place case, is left out. */
#if defined(__clang__) /* only the fuzzing build, at -O1: no hint (clang warns on loops it then cannot vectorise) */
#define NO_LOOP_CARRIED_DEPENDENCE
#else
#define NO_LOOP_CARRIED_DEPENDENCE _Pragma("GCC ivdep")
#endif

/* tanh through one approx_exp (glibc's tanhf is several times slower), a short series near zero where
 * 1 - 2/(e^2x + 1) would lose relative precision: relative error at most 1.7e-6 against double tanh
 * (checked over [-12, 12] in steps of 1e-5). */
static inline float tanh_inline(float x)
{
    float a = fabsf(x), x2 = x * x;
    float series = x * (1.0f - x2 * (1.0f / 3.0f - x2 * (2.0f / 15.0f)));
    float far = x > 0 ? 1.0f : -1.0f;
    float mid = 1.0f - 2.0f / (approx_exp(2.0f * x) + 1.0f);
    return a < 0.0625f ? series : a > 9.0f ? far : mid;
}

static inline float sigmoid_inline(float x) { return 1.0f / (1.0f + approx_exp(-x)); }

/* The two above four lanes at a time: the same operations, so the same values (approx.h). */
static inline approx_v4 tanh_v4(approx_v4 x)
{
    approx_v4 a = (approx_v4)((approx_m4)x & 0x7fffffff), x2 = x * x;
    approx_v4 series = x * (1.0f - x2 * (1.0f / 3.0f - x2 * (2.0f / 15.0f)));
    const approx_v4 zero = {0, 0, 0, 0}, one = {1, 1, 1, 1};
    approx_v4 far = approx_select(x > zero, one, -one);
    approx_v4 mid = 1.0f - 2.0f / (approx_exp_v4(2.0f * x) + 1.0f);
    return approx_select(a < 0.0625f, series, approx_select(a > 9.0f, far, mid));
}

static inline approx_v4 sigmoid_v4(approx_v4 x) { return 1.0f / (1.0f + approx_exp_v4(-x)); }
static inline float silu_inline(float x) { return x * sigmoid_inline(x); }
static inline approx_v4 silu_v4(approx_v4 x) { return x * sigmoid_v4(x); }

float kernel_fast_tanh(float x) { return tanh_inline(x); }
float kernel_relu_f(float x) { return x > 0.0f ? x : 0.0f; }
float kernel_sigmoid_f(float x) { return sigmoid_inline(x); }
float kernel_silu_f(float x) { return silu_inline(x); }
float kernel_exp_f(float x) { return approx_exp(x); }
float kernel_erf_f(float x) { return approx_erf(x); }

/* The array forms the op table's rows name (OpInfo.unary_array). Where the CPU has AVX-512 or AVX2, the
 * scalar form's own loop compiled for it: the compiler vectorises it 16 or 8 lanes wide, and as -std=c11
 * contracts nothing into FMA, every element gets the scalar form's bits (/exec/approx checks); elsewhere
 * approx_map's four lanes. Erf over 4M floats: 3.2 ns an element four-wide, 0.8 with AVX-512. */
#define WIDE_ARRAY_OR(name, scalar, fallback)                                                                  \
    __attribute__((target("avx512f"))) static void name##_avx512(const float *in, float *out, gsize n)         \
    {                                                                                                          \
        for (gsize k = 0; k < n; k++)                                                                          \
            out[k] = scalar(in[k]);                                                                            \
    }                                                                                                          \
    __attribute__((target("avx2"))) static void name##_avx2(const float *in, float *out, gsize n)             \
    {                                                                                                          \
        for (gsize k = 0; k < n; k++)                                                                          \
            out[k] = scalar(in[k]);                                                                            \
    }                                                                                                          \
    void name(const float *in, float *out, gsize n)                                                            \
    {                                                                                                          \
        if (__builtin_cpu_supports("avx512f"))                                                                 \
            name##_avx512(in, out, n);                                                                         \
        else if (__builtin_cpu_supports("avx2"))                                                               \
            name##_avx2(in, out, n);                                                                           \
        else                                                                                                   \
            fallback;                                                                                          \
    }
#define WIDE_ARRAY(name, vec, scalar) WIDE_ARRAY_OR(name, scalar, approx_map(in, out, n, vec, scalar))
WIDE_ARRAY(kernel_exp_array, approx_exp_v4, approx_exp)
WIDE_ARRAY(kernel_erf_array, approx_erf_v4, approx_erf)
WIDE_ARRAY(kernel_tanh_array, tanh_v4, tanh_inline)
WIDE_ARRAY(kernel_sigmoid_array, sigmoid_v4, sigmoid_inline)
WIDE_ARRAY(kernel_silu_array, silu_v4, silu_inline)
/* HardSwish has no four-lane form: elsewhere its scalar loop (the compiler's own vectors). */
WIDE_ARRAY_OR(kernel_hard_swish_array, kernel_hard_swish_f, for (gsize k = 0; k < n; k++) out[k] = kernel_hard_swish_f(in[k]))

/* Relu, and a residual Add with its folded Relu (in may be out): each loop stamped for AVX-512, AVX2 and the
 * baseline, the CPU's widest taken (the same single operations, so the same bits). */
#define RELU_LOOPS(suffix, ...)                                                                                \
    __VA_ARGS__ static void relu##suffix(const float *in, float *out, gsize n)                                 \
    {                                                                                                          \
        NO_LOOP_CARRIED_DEPENDENCE                                                                             \
        for (gsize k = 0; k < n; k++)                                                                          \
            out[k] = in[k] > 0.0f ? in[k] : 0.0f;                                                              \
    }                                                                                                          \
    __VA_ARGS__ static void add_relu##suffix(const float *a, const float *b, float *out, gsize n)               \
    {                                                                                                          \
        NO_LOOP_CARRIED_DEPENDENCE                                                                             \
        for (gsize k = 0; k < n; k++) {                                                                        \
            float v = a[k] + b[k];                                                                             \
            out[k] = v > 0.0f ? v : 0.0f;                                                                      \
        }                                                                                                      \
    }
RELU_LOOPS(_plain)
RELU_LOOPS(_avx2, __attribute__((target("avx2"))))
RELU_LOOPS(_avx512, __attribute__((target("avx512f"))))

void kernel_relu_array(const float *in, float *out, gsize n)
{
    if (__builtin_cpu_supports("avx512f"))
        relu_avx512(in, out, n);
    else if (__builtin_cpu_supports("avx2"))
        relu_avx2(in, out, n);
    else
        relu_plain(in, out, n);
}

static void add_relu(const float *a, const float *b, float *out, gsize n)
{
    if (__builtin_cpu_supports("avx512f"))
        add_relu_avx512(a, b, out, n);
    else if (__builtin_cpu_supports("avx2"))
        add_relu_avx2(a, b, out, n);
    else
        add_relu_plain(a, b, out, n);
}

void kernel_epilogue_array(const KernelCall *c, float *row, gsize n, const float *b)
{
    float add = b ? *b : 0.0f, lo = c->epilogue_lo, hi = c->epilogue_hi;
    if (c->epilogue == EPILOGUE_RELU && b)
        for (gsize k = 0; k < n; k++) {
            float v = row[k] + add;
            row[k] = v > 0.0f ? v : 0.0f;
        }
    else if (c->epilogue == EPILOGUE_RELU)
        kernel_relu_array(row, row, n);
    else if (c->epilogue == EPILOGUE_HARD_SWISH || c->epilogue == EPILOGUE_SILU) {
        for (gsize k = 0; b && k < n; k++) /* (the sum stored, then mapped: the same bits as in one go) */
            row[k] += add;
        (c->epilogue == EPILOGUE_SILU ? kernel_silu_array : kernel_hard_swish_array)(row, row, n);
    }
    else if (c->epilogue == EPILOGUE_CLIP)
        for (gsize k = 0; k < n; k++) {
            float v = b ? row[k] + add : row[k];
            row[k] = v < lo ? lo : v > hi ? hi : v;
        }
    else if (b)
        for (gsize k = 0; k < n; k++)
            row[k] += add;
}

/* Elementwise passes over large arrays, shared out among the threads (kernel_parallel) in blocks of 16,384
 * elements: each element's arithmetic is the same wherever a part starts (the blocks are whole vectors), so the
 * bits do not depend on the thread count. */
enum { MAP_BLOCK = 16384 };

typedef struct {
    const KernelCall *c;
    void (*map)(const float *in, float *out, gsize n);
    const float *in, *bias;
    const float *b;
    float *out;
    gsize n, n_bias;
    int kind; /* 0: map, 1: the call's epilogue, 2: Add then Relu, 3: Gelu (tanh form when tanh) */
    gboolean tanh_form;
} BlockJob;

static void gelu_array(const float *in, const float *bias, gsize n_bias, gsize phase, float *out, gsize n,
                       gboolean tanh_form);

static void block_part(void *data, gint64 begin, gint64 end, guint part)
{
    (void)part;
    const BlockJob *j = data;
    gsize lo = (gsize)begin * MAP_BLOCK, hi = MIN((gsize)end * MAP_BLOCK, j->n);
    switch (j->kind) {
    case 0:
        j->map(j->in + lo, j->out + lo, hi - lo);
        break;
    case 1:
        kernel_epilogue_array(j->c, j->out + lo, hi - lo, NULL);
        break;
    case 2:
        add_relu(j->in + lo, j->b + lo, j->out + lo, hi - lo);
        break;
    default: /* the bias's phase at lo: the bias repeats every n_bias elements */
        gelu_array(j->in + lo, j->bias, j->n_bias, j->bias ? lo % j->n_bias : 0, j->out + lo, hi - lo, j->tanh_form);
    }
}

static void blocks_run(BlockJob *j)
{
    kernel_parallel((gint64)((j->n + MAP_BLOCK - 1) / MAP_BLOCK), 1, block_part, j);
}

void kernel_parallel_map(void (*map)(const float *in, float *out, gsize n), const float *in, float *out, gsize n)
{
    BlockJob j = {.map = map, .in = in, .out = out, .n = n, .kind = 0};
    blocks_run(&j);
}

void kernel_epilogue_whole(const KernelCall *c, float *data, gsize n)
{
    if (c->epilogue == EPILOGUE_GELU || c->epilogue == EPILOGUE_GELU_TANH) { /* a product's folded BiasGelu */
        BlockJob j = {.in = data, .bias = c->epilogue_bias, .n_bias = c->epilogue_bias_n, .out = data, .n = n,
                      .kind = 3, .tanh_form = c->epilogue == EPILOGUE_GELU_TANH};
        blocks_run(&j);
        return;
    }
    BlockJob j = {.c = c, .out = data, .n = n, .kind = 1};
    blocks_run(&j);
}

static gboolean same_shape(const ExecTensor *a, const ExecTensor *b)
{
    return a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof(gint64) * a->rank);
}

/* The unary maps with attributes (the op table has no scalar function for them); the Gelus run through
 * gelu_array, the others through parametric. */
typedef enum { P_GELU, P_GELU_TANH, P_HARD_SIGMOID, P_HARD_SWISH, P_LEAKY_RELU, P_ELU, P_SELU, P_CELU, P_MISH,
               P_THRESHOLDED_RELU, P_SHRINK, P_NONE } Parametric;

static double parametric(Parametric p, double alpha, double beta, double gamma, double x)
{
    switch (p) {
    case P_HARD_SIGMOID: return MAX(0.0, MIN(1.0, alpha * x + beta));
    case P_HARD_SWISH: return x * MAX(0.0, MIN(1.0, x / 6.0 + 0.5));
    case P_LEAKY_RELU: return x < 0 ? alpha * x : x;
    case P_ELU: return x < 0 ? alpha * (exp(x) - 1.0) : x;
    case P_SELU: return x <= 0 ? gamma * (alpha * exp(x) - alpha) : gamma * x;
    case P_CELU: return MAX(0.0, x) + MIN(0.0, alpha * (exp(x / alpha) - 1.0));
    case P_MISH: return x * tanh(log1p(exp(x)));
    case P_THRESHOLDED_RELU: return x > alpha ? x : 0.0;
    case P_SHRINK: return x < -gamma ? x + beta : x > gamma ? x - beta : 0.0; /* gamma: lambd, beta: bias */
    default: return x;
    }
}

static gboolean parametric_of(const KernelCall *c, Parametric *p, double *alpha, double *beta, double *gamma,
                              GError **error)
{
    static const struct {
        KernelKind kind;
        Parametric p;
        float alpha, beta, gamma;
    } rows[] = {{KIND_GELU, P_GELU, 0, 0, 0}, {KIND_HARD_SIGMOID, P_HARD_SIGMOID, 0.2f, 0.5f, 0},
                {KIND_HARD_SWISH, P_HARD_SWISH, 0, 0, 0}, {KIND_LEAKY_RELU, P_LEAKY_RELU, 0.01f, 0, 0},
                {KIND_ELU, P_ELU, 1.0f, 0, 0},
                {KIND_SELU, P_SELU, 1.67326319217681884765625f, 0, 1.05070102214813232421875f},
                {KIND_CELU, P_CELU, 1.0f, 0, 0}, {KIND_MISH, P_MISH, 0, 0, 0},
                {KIND_THRESHOLDED_RELU, P_THRESHOLDED_RELU, 1.0f, 0, 0}, {KIND_SHRINK, P_SHRINK, 0, 0, 0.5f}};
    for (gsize k = 0; k < G_N_ELEMENTS(rows); k++) {
        if (rows[k].kind != kernel_kind(c))
            continue;
        float a, b, g;
        const char *approximate;
        gboolean shrink = rows[k].p == P_SHRINK; /* its attributes are called bias and lambd */
        if (!node_attr_float(c->node, "alpha", rows[k].alpha, &a, error) ||
            !node_attr_float(c->node, shrink ? "bias" : "beta", rows[k].beta, &b, error) ||
            !node_attr_float(c->node, shrink ? "lambd" : "gamma", rows[k].gamma, &g, error) ||
            !node_attr_string(c->node, "approximate", "none", &approximate, error))
            return FALSE;
        *p = rows[k].p == P_GELU && !strcmp(approximate, "tanh") ? P_GELU_TANH : rows[k].p;
        *alpha = a, *beta = b, *gamma = g;
        return TRUE;
    }
    return kernel_fail(c, error, "the executor has no kernel for %s", c->node->op->name);
}

/* gelu_array's arithmetic in one pass over a run of x and its bias (NULL: none), compiled for AVX-512 (the scalar
 * forms inlined, vectorised 16 lanes wide: the same operations as its three passes, so the same bits). */
#define GELU_CONSTANTS                                                                                         \
    const float inv_sqrt2 = 0.70710678118654752f, k0 = 0.79788456080286536f, k1 = 0.044715f;                  \
    (void)inv_sqrt2, (void)k0, (void)k1
#define GELU_LOOP(v_of)                                                                                        \
    if (tanh_form)                                                                                             \
        for (gsize k = 0; k < n; k++) {                                                                        \
            float v = v_of, t = tanh_inline(k0 * (v + k1 * (v * v * v)));                                      \
            out[k] = v * (t + 1.0f) * 0.5f;                                                                    \
        }                                                                                                      \
    else                                                                                                       \
        for (gsize k = 0; k < n; k++) {                                                                        \
            float v = v_of, t = approx_erf(v * inv_sqrt2);                                                     \
            out[k] = v * (t + 1.0f) * 0.5f;                                                                    \
        }
__attribute__((target("avx512f"))) static void gelu_run_avx512(const float *restrict in, const float *restrict bias,
                                                                float *restrict out, gsize n, gboolean tanh_form)
{
    GELU_CONSTANTS;
    if (bias) {
        GELU_LOOP(in[k] + bias[k])
    } else {
        GELU_LOOP(in[k])
    }
}

/* The same in place (out is x: each element read, then written). */
__attribute__((target("avx512f"))) static void gelu_run_avx512_in_place(float *restrict out,
                                                                         const float *restrict bias, gsize n,
                                                                         gboolean tanh_form)
{
    GELU_CONSTANTS;
    if (bias) {
        GELU_LOOP(out[k] + bias[k])
    } else {
        GELU_LOOP(out[k])
    }
}

/* Gelu in float over in[k] (+ bias[k % n_bias] when bias is given), through the vectorised erf and tanh: as the
 * exporters' unfused ops compute it (x / sqrt 2, Erf, + 1, times x, times 1/2; the tanh form with its cube), not
 * through double-precision libm per element, which was a fifth of a ViT's run. On AVX-512 in one pass
 * (gelu_run_avx512); elsewhere, or where in and out overlap without being one array, in three passes over blocks
 * that stay in the first-level cache. */
static void gelu_array(const float *in, const float *bias, gsize n_bias, gsize phase, float *out, gsize n,
                       gboolean tanh_form)
{
    if (__builtin_cpu_supports("avx512f") && (in == out || in + n <= out || out + n <= in)) {
        for (gsize at = 0, j = phase; at < n;) { /* runs that stop where the bias wraps */
            gsize run = bias ? MIN(n - at, n_bias - j) : n - at;
            if (in == out)
                gelu_run_avx512_in_place(out + at, bias ? bias + j : NULL, run, tanh_form);
            else
                gelu_run_avx512(in + at, bias ? bias + j : NULL, out + at, run, tanh_form);
            at += run;
            j = bias && j + run == n_bias ? 0 : j + run;
        }
        return;
    }
    enum { BLOCK = 1024 };
    float v[BLOCK], t[BLOCK];
    const float inv_sqrt2 = 0.70710678118654752f, k0 = 0.79788456080286536f, k1 = 0.044715f;
    gsize j = phase; /* the bias's index at `at` (no division per element) */
    for (gsize at = 0; at < n; at += BLOCK) {
        gsize m = MIN((gsize)BLOCK, n - at);
        for (gsize k = 0; k < m;) { /* runs that stop where the bias wraps */
            gsize run = bias ? MIN(m - k, n_bias - j) : m - k;
            for (gsize e = 0; e < run; e++)
                v[k + e] = bias ? in[at + k + e] + bias[j + e] : in[at + k + e];
            k += run;
            j = bias && j + run == n_bias ? 0 : j + run;
        }
        if (tanh_form) {
            for (gsize k = 0; k < m; k++)
                t[k] = k0 * (v[k] + k1 * (v[k] * v[k] * v[k]));
            kernel_tanh_array(t, t, m);
        } else {
            for (gsize k = 0; k < m; k++)
                t[k] = v[k] * inv_sqrt2;
            kernel_erf_array(t, t, m);
        }
        for (gsize k = 0; k < m; k++)
            out[at + k] = v[k] * (t[k] + 1.0f) * 0.5f;
    }
}

gboolean kernel_bias_gelu(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *bias = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    const char *approximate;
    if (!kernel_need_float(c, x, "BiasGelu", error) || !kernel_need_float(c, bias, "BiasGelu", error) ||
        !node_attr_string(c->node, "approximate", "none", &approximate, error))
        return FALSE;
    gsize n = bias->count;
    if (!n || x->count % n)
        return kernel_fail(c, error, "its bias of %zu elements does not divide its input of %zu", n, x->count);
    BlockJob job = {.in = x->data, .bias = bias->data, .n_bias = n, .out = y->data, .n = y->count, .kind = 3,
                    .tanh_form = !strcmp(approximate, "tanh")};
    blocks_run(&job);
    return TRUE;
}

gboolean kernel_unary(const KernelCall *c, GError **error)
{
    const OpInfo *op = c->node->op;
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    if (!op->unary) {
        Parametric p = P_NONE;
        double alpha = 0, beta = 0, gamma = 0;
        if (!parametric_of(c, &p, &alpha, &beta, &gamma, error) || !kernel_need_float(c, x, op->name, error))
            return FALSE;
        const float *in = x->data;
        float *out = y->data;
        gsize n = y->count; /* (a local: a store through out could alias y's fields, which stops vectorising) */
        /* The common ones of vision models in float, one loop each (the compiler vectorises them). */
        float a = (float)alpha, b = (float)beta;
        /* (comparisons, not fminf/fmaxf: those are libm calls at -O2; a NaN x still gives NaN) */
        if (p == P_HARD_SWISH) {
            kernel_parallel_map(kernel_hard_swish_array, in, out, y->count);
        } else if (p == P_GELU || p == P_GELU_TANH) {
            BlockJob j = {.in = in, .out = out, .n = y->count, .kind = 3, .tanh_form = p == P_GELU_TANH};
            blocks_run(&j);
        }
        else if (p == P_HARD_SIGMOID)
            for (gsize k = 0; k < n; k++) {
                float t = a * in[k] + b;
                out[k] = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
            }
        else if (p == P_LEAKY_RELU)
            for (gsize k = 0; k < n; k++)
                out[k] = in[k] < 0.0f ? a * in[k] : in[k];
        else
            for (gsize k = 0; k < n; k++)
                out[k] = (float)parametric(p, alpha, beta, gamma, in[k]);
        return TRUE;
    }
    if (!kernel_elem_supported(x->dtype) || !kernel_elem_supported(y->dtype))
        return kernel_fail(c, error, "element type %s is not supported by the executor", dtype_name(x->dtype));
    if (kernel_kind(c) == KIND_IS_INF) { /* which infinities count: its attributes */
        gint64 neg, pos;
        if (!node_attr_int(c->node, "detect_negative", 1, &neg, error) || !node_attr_int(c->node, "detect_positive", 1, &pos, error))
            return FALSE;
        for (gsize k = 0; k < y->count; k++) {
            double v = kernel_elem_get_f(x, k);
            kernel_elem_set_i(y, k, isinf(v) && ((v > 0 && pos) || (v < 0 && neg)));
        }
        return TRUE;
    }
    if (x->dtype == DT_FLOAT && y->dtype == DT_FLOAT) {
        const float *in = x->data;
        float *out = y->data;
        if (c->row->unary_array) { /* the common ones: an array form the compiler vectorises */
            kernel_parallel_map(c->row->unary_array, in, out, y->count);
        } else if (c->row->unary_f) {
            for (gsize k = 0; k < y->count; k++)
                out[k] = c->row->unary_f(in[k]);
        } else {
            for (gsize k = 0; k < y->count; k++)
                out[k] = (float)op->unary(in[k]);
        }
        return TRUE;
    }
    if (x->dtype == DT_BOOL && y->dtype == DT_BOOL) { /* Not over a mask: a bool has two values to map */
        const guint8 *in = x->data, map[2] = {op->unary(0.0) != 0.0, op->unary(1.0) != 0.0};
        guint8 *out = y->data;
        for (gsize k = 0; k < y->count; k++)
            out[k] = map[in[k] != 0];
        return TRUE;
    }
    for (gsize k = 0; k < y->count; k++)
        kernel_elem_set_f(y, k, op->unary(kernel_elem_get_f(x, k)));
    return TRUE;
}

typedef KernelArith Arith;

static inline float arith(Arith op, float x, float y)
{
    switch (op) {
    case ARITH_ADD: return x + y;
    case ARITH_SUB: return x - y;
    case ARITH_MUL: return x * y;
    case ARITH_DIV: return x / y;
    default: return powf(x, y);
    }
}

/* The float arithmetic loops: y[k] = a[k] OP b[k], a[k] OP s or s OP b[k]. Each is written with its op
 * fixed (arith_loop, inlined with a constant op), so the compiler vectorises it; arith_array is compiled
 * for AVX-512, for AVX2 and for the baseline (target_clones: the loader picks one for the CPU), Pow
 * staying powf per element. `ivdep`: y may be a or b themselves (an in-place Add writes its input), never
 * a shifted view of them, so no iteration reads what an earlier one wrote and the loops need no runtime
 * overlap check — one that GCC would otherwise add, and fail on exactly the in-place case. Each element
 * gets the same single IEEE operation as the scalar loop had (C11 contracts nothing into FMA): the same
 * bits. */
typedef enum { BOTH_ARRAYS, RIGHT_SCALAR, LEFT_SCALAR } ArithForm;

static inline __attribute__((always_inline)) void arith_loop(Arith op, ArithForm form, const float *a,
                                                             const float *b, float *y, gsize n)
{
    if (form == BOTH_ARRAYS) {
        NO_LOOP_CARRIED_DEPENDENCE
        for (gsize k = 0; k < n; k++)
            y[k] = arith(op, a[k], b[k]);
    } else if (form == RIGHT_SCALAR) {
        float s = b[0];
        NO_LOOP_CARRIED_DEPENDENCE
        for (gsize k = 0; k < n; k++)
            y[k] = arith(op, a[k], s);
    } else {
        float s = a[0];
        NO_LOOP_CARRIED_DEPENDENCE
        for (gsize k = 0; k < n; k++)
            y[k] = arith(op, s, b[k]);
    }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) static void
arith_array(Arith op, ArithForm form, const float *a, const float *b, float *y, gsize n)
{
    switch (op) { /* each case inlines arith_loop with its op a constant */
    case ARITH_ADD: arith_loop(ARITH_ADD, form, a, b, y, n); break;
    case ARITH_SUB: arith_loop(ARITH_SUB, form, a, b, y, n); break;
    case ARITH_MUL: arith_loop(ARITH_MUL, form, a, b, y, n); break;
    case ARITH_DIV: arith_loop(ARITH_DIV, form, a, b, y, n); break;
    default: arith_loop(op, form, a, b, y, n); break;
    }
}

/* y[k] = x[k] OP s for a scalar s; Pow by 2 or 3 as products, by 0.5 as a square root. */
static void arith_scalar_right(Arith op, const float *x, float s, float *y, gsize n)
{
    if (op == ARITH_POW && s == 2.0f) {
        for (gsize k = 0; k < n; k++)
            y[k] = x[k] * x[k];
    } else if (op == ARITH_POW && s == 3.0f) {
        for (gsize k = 0; k < n; k++)
            y[k] = x[k] * x[k] * x[k];
    } else if (op == ARITH_POW && s == 0.5f) {
        for (gsize k = 0; k < n; k++)
            y[k] = sqrtf(x[k]);
    } else {
        arith_array(op, RIGHT_SCALAR, x, &s, y, n);
    }
}

/* Float Add/Sub/Mul/Div/Pow where b has the shape of a's trailing dimensions (a bias, a scale) or is a
 * scalar, or a and b have one shape: loops the compiler vectorises. FALSE: not one of these shapes. */
static gboolean arith_fast(Arith op, const ExecTensor *a, const ExecTensor *b, ExecTensor *y)
{
    if ((op == ARITH_ADD || op == ARITH_MUL) && !same_shape(a, y) && same_shape(b, y)) {
        const ExecTensor *t = a; /* commutative: the full-shape operand first (scale * x in a squeeze-excite) */
        a = b;
        b = t;
    }
    const float *pa = a->data, *pb = b->data;
    float *py = y->data;
    if (op == ARITH_NONE || !same_shape(a, y))
        return FALSE;
    if (same_shape(b, y)) {
        arith_array(op, BOTH_ARRAYS, pa, pb, py, y->count);
        return TRUE;
    }
    if (b->count == 1) {
        arith_scalar_right(op, pa, pb[0], py, y->count);
        return TRUE;
    }
    /* b one value per block: y's leading dimensions, then 1s (a LayerNorm's mean or deviation [.., 1], a
     * per-channel scale [N, C, 1, 1]) */
    int kept = 0;
    while (kept < y->rank && b->rank == y->rank && b->dims[kept] == y->dims[kept])
        kept++;
    gboolean ones_after = b->rank == y->rank && kept < y->rank;
    for (int d = kept; ones_after && d < y->rank; d++)
        ones_after = b->dims[d] == 1;
    if (ones_after) {
        gsize row = y->count / MAX(b->count, 1);
        for (gsize r = 0; r < b->count; r++)
            arith_scalar_right(op, pa + r * row, pb[r], py + r * row, row);
        return TRUE;
    }
    /* b equal to y's trailing dimensions (leading 1s allowed): repeat it along the rows */
    int lead = 0;
    while (lead < b->rank && b->dims[lead] == 1)
        lead++;
    int tail = b->rank - lead;
    if (tail > y->rank || memcmp(b->dims + lead, y->dims + y->rank - tail, sizeof(gint64) * tail))
        return FALSE;
    gsize row = b->count;
    for (gsize r = 0; r < y->count / row; r++)
        arith_array(op, BOTH_ARRAYS, pa + r * row, pb, py + r * row, row);
    return TRUE;
}

/* Any other broadcast whose innermost dimensions form a block that both operands read whole, or that one
 * reads whole while the other gives one value for it (a mask [1, W, 1, N, N] over attention scores
 * [1, W, H, N, N]): per block, one offset for each operand from the outer dimensions, then `fn` runs a loop
 * over the block. FALSE when the block would be shorter than 4 elements (the element walk does it). */
typedef enum { BOTH_WHOLE, B_ONE_VALUE, A_ONE_VALUE, UNDECIDED } BlockMode;
typedef void (*BlockFn)(gconstpointer ctx, BlockMode mode, gsize oa, gsize ob, gsize out, gsize inner);

static gboolean broadcast_blocked(const ExecTensor *a, const ExecTensor *b, const ExecTensor *y, BlockFn fn,
                                  gconstpointer ctx)
{
    int r = y->rank;
    if (r == 0 || r > KERNEL_MAX_RANK || a->rank > r || b->rank > r)
        return FALSE;
    gint64 sa[KERNEL_MAX_RANK], sb[KERNEL_MAX_RANK];
    kernel_broadcast_strides(a, r, y->dims, sa);
    kernel_broadcast_strides(b, r, y->dims, sb);
    BlockMode mode = UNDECIDED;
    gint64 inner = 1;
    int d = r;
    for (; d > 0; d--) {
        gint64 n = y->dims[d - 1];
        if (n == 1)
            continue;
        gboolean a_whole = sa[d - 1] == inner, b_whole = sb[d - 1] == inner; /* inner >= 1: never also 0 */
        BlockMode here = a_whole && b_whole ? BOTH_WHOLE : a_whole && sb[d - 1] == 0 ? B_ONE_VALUE
                         : sa[d - 1] == 0 && b_whole                                 ? A_ONE_VALUE
                                                                                     : UNDECIDED;
        if (here == UNDECIDED || (mode != UNDECIDED && here != mode)) /* the block keeps one pattern */
            break;
        mode = here;
        inner *= n;
    }
    if (mode == UNDECIDED || inner < 4)
        return FALSE;
    gint64 idx[KERNEL_MAX_RANK] = {0}, oa = 0, ob = 0;
    for (gsize block = 0; block < y->count / (gsize)inner; block++) {
        fn(ctx, mode, (gsize)oa, (gsize)ob, block * (gsize)inner, (gsize)inner);
        for (int e = d - 1; e >= 0; e--) { /* the next block: the outer index, and both offsets */
            oa += sa[e];
            ob += sb[e];
            if (++idx[e] < y->dims[e])
                break;
            oa -= sa[e] * y->dims[e];
            ob -= sb[e] * y->dims[e];
            idx[e] = 0;
        }
    }
    return TRUE;
}

typedef struct {
    Arith op;
    const float *a, *b;
    float *y;
} ArithBlocks;

static void arith_block(gconstpointer ctx, BlockMode mode, gsize oa, gsize ob, gsize out, gsize inner)
{
    const ArithBlocks *x = ctx;
    if (mode == BOTH_WHOLE)
        arith_array(x->op, BOTH_ARRAYS, x->a + oa, x->b + ob, x->y + out, inner);
    else if (mode == B_ONE_VALUE)
        arith_scalar_right(x->op, x->a + oa, x->b[ob], x->y + out, inner);
    else
        arith_array(x->op, LEFT_SCALAR, x->a + oa, x->b + ob, x->y + out, inner);
}

/* The op table's function over float operands, into float or bool (a comparison: the masks of swin_t's
 * shifted windows, [64, 49, 49] Equal and Where a few times a stage), one block at a time. */
typedef struct {
    double (*f)(double, double);
    const float *a, *b;
    void *y;
    gboolean to_bool;
} TableBlocks;

static void table_block(gconstpointer ctx, BlockMode mode, gsize oa, gsize ob, gsize out, gsize inner)
{
    const TableBlocks *x = ctx;
    gsize step_a = mode == A_ONE_VALUE ? 0 : 1, step_b = mode == B_ONE_VALUE ? 0 : 1;
    const float *a = x->a + oa, *b = x->b + ob;
    if (x->to_bool) {
        guint8 *y = (guint8 *)x->y + out;
        for (gsize k = 0; k < inner; k++)
            y[k] = x->f(a[k * step_a], b[k * step_b]) != 0.0;
    } else {
        float *y = (float *)x->y + out;
        for (gsize k = 0; k < inner; k++)
            y[k] = (float)x->f(a[k * step_a], b[k * step_b]);
    }
}

/* out = f(a, b) with broadcasting; integer semantics when both inputs are integers. */
static gboolean binary_apply(const KernelCall *c, const ExecTensor *a, const ExecTensor *b, ExecTensor *y,
                             GError **error)
{
    const OpInfo *op = c->node->op;
    gboolean prelu = kernel_kind(c) == KIND_PRELU;
    if (kernel_kind(c) == KIND_BIT_SHIFT) { /* unsigned integers, shifted left or right by the second input */
        const char *direction;
        if (!node_attr_string(c->node, "direction", "LEFT", &direction, error))
            return FALSE;
        gboolean left = !strcmp(direction, "LEFT");
        const ExecTensor *ins[2] = {a, b};
        KernelWalk w;
        kernel_walk_init(&w, y, 2, ins);
        for (gsize k = 0; k < y->count; k++, kernel_walk_next(&w)) {
            guint64 v = (guint64)kernel_elem_get_i(a, w.off[0]), s = (guint64)kernel_elem_get_i(b, w.off[1]);
            kernel_elem_set_i(y, k, (gint64)(s >= 64 ? 0 : left ? v << s : v >> s));
        }
        kernel_walk_clear(&w);
        return TRUE;
    }
    if (!op->binary && !prelu)
        return kernel_fail(c, error, "the executor has no kernel for %s", op->name);
    if (!kernel_elem_supported(a->dtype) || !kernel_elem_supported(b->dtype) || !kernel_elem_supported(y->dtype))
        return kernel_fail(c, error, "element type %s is not supported by the executor", dtype_name(a->dtype));
    gboolean ints = !dtype_is_float(a->dtype) && !dtype_is_float(b->dtype) && op->binary_int;
    gint64 fmod_attr = 0;
    if (kernel_kind(c) == KIND_MOD && !node_attr_int(c->node, "fmod", 0, &fmod_attr, error))
        return FALSE;
    if (fmod_attr) { /* C's remainder: the sign of the dividend */
        const ExecTensor *ins[2] = {a, b};
        KernelWalk w;
        kernel_walk_init(&w, y, 2, ins);
        for (gsize k = 0; k < y->count; k++, kernel_walk_next(&w)) {
            if (ints) {
                gint64 d = kernel_elem_get_i(b, w.off[1]);
                kernel_elem_set_i(y, k, d ? kernel_elem_get_i(a, w.off[0]) % d : 0);
            } else {
                kernel_elem_set_f(y, k, fmod(kernel_elem_get_f(a, w.off[0]), kernel_elem_get_f(b, w.off[1])));
            }
        }
        kernel_walk_clear(&w);
        return TRUE;
    }
    if (!prelu && a->dtype == DT_FLOAT && b->dtype == DT_FLOAT && y->dtype == DT_FLOAT) {
        const float *pa = a->data, *pb = b->data;
        float *py = y->data;
        Arith ar = c->row->arith;
        if (arith_fast(ar, a, b, y))
            return TRUE;
        if (ar == ARITH_ADD || ar == ARITH_MUL) { /* commutative: the broadcast side may be the first */
            if (arith_fast(ar, b, a, y))
                return TRUE;
        }
        if (ar != ARITH_NONE ? broadcast_blocked(a, b, y, arith_block, &(ArithBlocks){ar, pa, pb, py})
                             : broadcast_blocked(a, b, y, table_block, &(TableBlocks){op->binary, pa, pb, py, FALSE}))
            return TRUE;
        const ExecTensor *ins[2] = {a, b};
        KernelWalk w;
        kernel_walk_init(&w, y, 2, ins);
        for (gsize k = 0; k < y->count; k++, kernel_walk_next(&w))
            py[k] = (float)op->binary(pa[w.off[0]], pb[w.off[1]]);
        kernel_walk_clear(&w);
        return TRUE;
    }
    if (!prelu && a->dtype == DT_FLOAT && b->dtype == DT_FLOAT && y->dtype == DT_BOOL &&
        broadcast_blocked(a, b, y, table_block, &(TableBlocks){op->binary, a->data, b->data, y->data, TRUE}))
        return TRUE;
    const ExecTensor *ins[2] = {a, b};
    KernelWalk w;
    kernel_walk_init(&w, y, 2, ins);
    for (gsize k = 0; k < y->count; k++, kernel_walk_next(&w)) {
        if (prelu) {
            double x = kernel_elem_get_f(a, w.off[0]);
            kernel_elem_set_f(y, k, x < 0 ? x * kernel_elem_get_f(b, w.off[1]) : x);
        } else if (ints) {
            kernel_elem_set_i(y, k, op->binary_int(kernel_elem_get_i(a, w.off[0]), kernel_elem_get_i(b, w.off[1])));
        } else {
            kernel_elem_set_f(y, k, op->binary(kernel_elem_get_f(a, w.off[0]), kernel_elem_get_f(b, w.off[1])));
        }
    }
    kernel_walk_clear(&w);
    return TRUE;
}

/* y = a OP b over a channel-blocked y (ExecTensor.blocked, exec/layout.h), one operand y's shape in y's layout
 * and the other one value per channel (kernel_per_channel): a squeeze-excite's scale. A block's 16 values
 * repeat at every position, so each block is arith_array's loop against a row of them repeated (its vector
 * forms: a loop of 16 at a time took twice as long). Each element is the plain loop's a OP b. */
static void arith_channels_blocked(Arith op, const ExecTensor *whole, const ExecTensor *per, gboolean per_first,
                                   ExecTensor *y)
{
    enum { REPEATS = 64 };
    gint64 n = y->dims[0], blocks = y->dims[1] / 16, hw = y->dims[2] * y->dims[3];
    gboolean per_image = per->rank == 4 && per->dims[0] == n && n > 1;
    const float *pw = whole->data, *pc = per->data;
    float *py = y->data, row[16 * REPEATS];
    for (gint64 i = 0; i < n; i++)
        for (gint64 blk = 0; blk < blocks; blk++) {
            const float *scale = pc + (per_image ? i * y->dims[1] : 0) + blk * 16;
            for (int r = 0; r < REPEATS; r++)
                memcpy(row + r * 16, scale, sizeof(float) * 16);
            gsize at = (gsize)((i * blocks + blk) * hw) * 16, end = at + (gsize)hw * 16;
            for (; at < end; at += 16 * REPEATS) {
                gsize len = MIN(end - at, (gsize)(16 * REPEATS));
                if (per_first)
                    arith_array(op, BOTH_ARRAYS, row, pw + at, py + at, len);
                else
                    arith_array(op, BOTH_ARRAYS, pw + at, row, py + at, len);
            }
        }
}

gboolean kernel_per_channel(const ExecTensor *t, const ExecTensor *y)
{
    if (t->dtype != DT_FLOAT || y->rank != 4 || (t->rank != 3 && t->rank != 4)) /* (blocked: the same bytes) */
        return FALSE;
    const gint64 *d = t->dims + t->rank - 3;
    return d[0] == y->dims[1] && d[1] == 1 && d[2] == 1 && (t->rank == 3 || t->dims[0] == 1 || t->dims[0] == y->dims[0]);
}

gboolean kernel_binary(const KernelCall *c, GError **error)
{
    const ExecTensor *a = kernel_in(c, 0), *b = kernel_in(c, 1);
    ExecTensor *y = kernel_out(c, 0);
    Arith ar = c->row->arith;
    if (y->blocked && (ar == ARITH_ADD || ar == ARITH_SUB || ar == ARITH_MUL || ar == ARITH_DIV) &&
        (kernel_per_channel(a, y) || kernel_per_channel(b, y))) {
        gboolean per_first = kernel_per_channel(a, y);
        arith_channels_blocked(ar, per_first ? b : a, per_first ? a : b, per_first, y);
        if (c->epilogue)
            kernel_epilogue_whole(c, y->data, y->count);
        return TRUE;
    }
    /* A residual connection: Add of one shape with a folded Relu, one loop */
    if (c->epilogue == EPILOGUE_RELU && c->row->arith == ARITH_ADD && a->dtype == DT_FLOAT &&
        b->dtype == DT_FLOAT && y->dtype == DT_FLOAT && same_shape(a, y) && same_shape(b, y)) {
        BlockJob j = {.in = a->data, .b = b->data, .out = y->data, .n = y->count, .kind = 2};
        blocks_run(&j);
        return TRUE;
    }
    if (!binary_apply(c, a, b, y, error))
        return FALSE;
    if (c->epilogue) /* any other shape: the folded activation over the result */
        kernel_epilogue_whole(c, y->data, y->count);
    return TRUE;
}

gboolean kernel_variadic(const KernelCall *c, GError **error)
{
    ExecTensor *y = kernel_out(c, 0);
    gboolean mean = kernel_kind(c) == KIND_MEAN;
    if (mean && y->dtype != DT_FLOAT)
        return kernel_need_float(c, y, "Mean", error);
    /* y = in0 broadcast, then y = f(y, in_k); Mean sums and divides. An input sharing y's buffer can only
     * be in0 (in-place takes a same-size input), which the first step reads in place. */
    const ExecTensor *first = kernel_in(c, 0);
    {
        const ExecTensor *ins[1] = {first};
        KernelWalk w;
        kernel_walk_init(&w, y, 1, ins);
        gsize size = dtype_size(y->dtype);
        if (first->data != y->data || !same_shape(first, y)) {
            void *copy = g_memdup2(first->data, first->count * size);
            for (gsize k = 0; k < y->count; k++, kernel_walk_next(&w))
                memcpy((char *)y->data + k * size, (const char *)copy + w.off[0] * size, size);
            g_free(copy);
        }
        kernel_walk_clear(&w);
    }
    for (guint k = 1; k < c->n_in; k++) {
        const ExecTensor *x = kernel_in(c, k);
        if (!x)
            continue;
        if (mean) {
            const ExecTensor *ins[1] = {x};
            KernelWalk w;
            kernel_walk_init(&w, y, 1, ins);
            float *py = y->data;
            for (gsize j = 0; j < y->count; j++, kernel_walk_next(&w))
                py[j] += (float)kernel_elem_get_f(x, w.off[0]);
            kernel_walk_clear(&w);
        } else if (!binary_apply(c, y, x, y, error)) {
            return FALSE;
        }
    }
    if (mean) {
        float *py = y->data;
        for (gsize j = 0; j < y->count; j++)
            py[j] /= (float)c->n_in;
    }
    return TRUE;
}

gboolean kernel_where(const KernelCall *c, GError **error)
{
    const ExecTensor *cond = kernel_in(c, 0), *x = kernel_in(c, 1), *z = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    if (!kernel_elem_supported(x->dtype))
        return kernel_fail(c, error, "element type %s is not supported by the executor", dtype_name(x->dtype));
    gsize size = dtype_size(y->dtype);
    const guint8 *pc = cond->data;
    /* The attention mask: the condition y's trailing dimensions, each value y's shape or a scalar (swin_t's
     * masks take both from scalars). */
    int lead = 0; /* the condition's leading 1s broadcast */
    while (lead < cond->rank && cond->dims[lead] == 1)
        lead++;
    int tail = cond->rank - lead;
    gboolean x_whole = same_shape(x, y), z_whole = same_shape(z, y);
    if (size == 4 && (x_whole || x->count == 1) && (z_whole || z->count == 1) && cond->count && tail <= y->rank &&
        !memcmp(cond->dims + lead, y->dims + y->rank - tail, sizeof(gint64) * tail)) {
        const guint32 *px = x->data, *pz = z->data;
        guint32 *py = y->data;
        gsize period = cond->count;
        for (gsize r = 0; r < y->count / period; r++) { /* the condition repeats every period elements */
            const guint32 *xr = x_whole ? px + r * period : px, *zr = z_whole ? pz + r * period : pz;
            guint32 *yr = py + r * period;
            if (x_whole && z_whole)
                for (gsize k = 0; k < period; k++)
                    yr[k] = pc[k] ? xr[k] : zr[k];
            else if (x_whole)
                for (gsize k = 0; k < period; k++)
                    yr[k] = pc[k] ? xr[k] : zr[0];
            else if (z_whole)
                for (gsize k = 0; k < period; k++)
                    yr[k] = pc[k] ? xr[0] : zr[k];
            else
                for (gsize k = 0; k < period; k++)
                    yr[k] = pc[k] ? xr[0] : zr[0];
        }
        return TRUE;
    }
    const ExecTensor *ins[3] = {cond, x, z}; /* any other broadcast: an element walk */
    KernelWalk w;
    kernel_walk_init(&w, y, 3, ins);
    if (size == 4) {
        const guint32 *px = x->data, *pz = z->data;
        guint32 *py = y->data;
        for (gsize k = 0; k < y->count; k++, kernel_walk_next(&w))
            py[k] = pc[w.off[0]] ? px[w.off[1]] : pz[w.off[2]];
        kernel_walk_clear(&w);
        return TRUE;
    }
    for (gsize k = 0; k < y->count; k++, kernel_walk_next(&w)) {
        const ExecTensor *from = pc[w.off[0]] ? x : z;
        memcpy((char *)y->data + k * size, (const char *)from->data + (pc[w.off[0]] ? w.off[1] : w.off[2]) * size, size);
    }
    kernel_walk_clear(&w);
    return TRUE;
}

gboolean kernel_cast(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    if (!kernel_elem_supported(x->dtype) || !kernel_elem_supported(y->dtype))
        return kernel_fail(c, error, "Cast from %s to %s is not supported by the executor", dtype_name(x->dtype),
                           dtype_name(y->dtype));
    if (x->dtype == y->dtype) {
        kernel_move(y->data, x->data, y->count * dtype_size(y->dtype));
        return TRUE;
    }
    /* float32 to and from the 16-bit floats (a half-precision model's input and output Casts): whole arrays, the
     * same rounding as one element at a time (different sizes: never the same bytes) */
    gboolean x_half = kernel_is_16bit_float(x->dtype), y_half = kernel_is_16bit_float(y->dtype);
    if (x->dtype == DT_FLOAT && y_half) {
        kernel_float_to_16bit(y->dtype, x->data, y->data, y->count);
        return TRUE;
    }
    if (x_half && y->dtype == DT_FLOAT) {
        kernel_16bit_to_float(x->dtype, x->data, y->data, y->count);
        return TRUE;
    }
    /* Integers of at most 32 bits to float32 (a dynamically quantized product's Cast): one loop each; the values
     * kernel_elem_set_f gives (exact in a double, then rounded once) */
    gsize n = y->count;
    float *out = y->data;
    if (y->dtype == DT_FLOAT && x->dtype == DT_INT32) {
        const gint32 *in = x->data;
        for (gsize k = 0; k < n; k++)
            out[k] = (float)in[k];
        return TRUE;
    }
    if (y->dtype == DT_FLOAT && (x->dtype == DT_UINT8 || x->dtype == DT_INT8)) {
        const guint8 *u = x->data;
        const gint8 *s = x->data;
        for (gsize k = 0; k < n; k++)
            out[k] = x->dtype == DT_UINT8 ? (float)u[k] : (float)s[k];
        return TRUE;
    }
    /* A narrower output may share the input's buffer only if same size (in-place): element order is kept. */
    for (gsize k = 0; k < y->count; k++) {
        if (dtype_is_float(x->dtype) || dtype_is_float(y->dtype))
            kernel_elem_set_f(y, k, kernel_elem_get_f(x, k));
        else
            kernel_elem_set_i(y, k, kernel_elem_get_i(x, k));
    }
    return TRUE;
}

gboolean kernel_clip(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *lo_t = kernel_in(c, 1), *hi_t = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    if (!kernel_need_float(c, x, "Clip", error))
        return FALSE;
    float lo = -INFINITY, hi = INFINITY;
    if (c->opset < 11) {
        if (!node_attr_float(c->node, "min", -INFINITY, &lo, error) || !node_attr_float(c->node, "max", INFINITY, &hi, error))
            return FALSE;
    } else {
        if (lo_t && lo_t->count)
            lo = (float)kernel_elem_get_f(lo_t, 0);
        if (hi_t && hi_t->count)
            hi = (float)kernel_elem_get_f(hi_t, 0);
    }
    const float *in = x->data;
    float *out = y->data;
    gsize n = y->count; /* (a local: a store through out could alias y's fields, which stops vectorising) */
    for (gsize k = 0; k < n; k++)
        out[k] = in[k] < lo ? lo : in[k] > hi ? hi : in[k];
    return TRUE;
}

gboolean kernel_dropout(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *ratio = kernel_in(c, 1), *training = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0), *mask = kernel_out(c, 1);
    /* Training mode with ratio 0 (torchvision's Swin exports it so) keeps everything: the identity too. */
    double p = ratio && ratio->count ? kernel_elem_get_f(ratio, 0) : 0.5;
    if (training && training->count && kernel_elem_get_i(training, 0) && p != 0.0)
        return kernel_fail(c, error, "Dropout in training mode with ratio %g draws a random mask; the executor runs "
                           "inference", p);
    kernel_move(y->data, x->data, y->count * dtype_size(y->dtype));
    if (mask && mask->data)
        memset(mask->data, 1, mask->count * dtype_size(mask->dtype)); /* inference: everything kept */
    return TRUE;
}
