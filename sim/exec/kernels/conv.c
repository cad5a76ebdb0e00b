/* conv.c — Conv (NCHW: im2col then one cblas_sgemm per group and image — a 1x1 window at stride 1 reads
 * the input as it is, a depthwise one is summed directly over its stride phases; groups, strides, pads,
 * dilations, auto_pad, bias) and ConvTranspose (sgemm then col2im). 1-D and 2-D windows take the tuned 2-D
 * path (a 1-D op as height 1); three or more spatial axes the N-d path. The window's geometry is window.h's;
 * the pools are pool.c. */
#include "exec/kernels/window.h"
#include "ops/ops.h"

#include "exec/blas.h"
#include <immintrin.h>
#include <math.h>
#include <string.h>

/* Whether window tap (ky, kx) reads the input for some output (else every output reads padding there: a
 * dilated window larger than its input, as a segmentation head's rates of 24 and 36 on a 20 x 20 map). */
static gboolean tap_reads_input(const Window *w, gint64 ky, gint64 kx)
{
    gint64 lo, hi;
    kernel_window_columns(w, kx, &lo, &hi);
    if (lo >= hi)
        return FALSE;
    for (gint64 oy = 0; oy < w->oh; oy++) {
        gint64 iy = oy * w->sh - w->pt + ky * w->dh;
        if (iy >= 0 && iy < w->h)
            return TRUE;
    }
    return FALSE;
}

/* im2col of one group of one image: row (ci, tap), column (oy, ox), for the taps listed (taps[t] = ky kw + kx,
 * n_taps of them: the ones that read the input); zero where the window hangs over the padding. Rows are
 * filled a run of valid columns at a time (a copy when the stride is 1). */
static void im2col(const Window *w, const float *planes, gint64 cg, const gint64 *taps, gint64 n_taps, float *col)
{
    gint64 cols = w->oh * w->ow;
    for (gint64 ci = 0; ci < cg; ci++) {
        const float *plane = planes + ci * w->h * w->w;
        for (gint64 t = 0; t < n_taps; t++) {
            gint64 ky = taps[t] / w->kw, kx = taps[t] % w->kw;
            float *row = col + (ci * n_taps + t) * cols;
            gint64 lo, hi, off = kx * w->dw - w->pl;
            kernel_window_columns(w, kx, &lo, &hi);
            for (gint64 oy = 0; oy < w->oh; oy++) {
                gint64 iy = oy * w->sh - w->pt + ky * w->dh;
                float *out = row + oy * w->ow;
                if (iy < 0 || iy >= w->h) {
                    memset(out, 0, sizeof(float) * (gsize)w->ow);
                    continue;
                }
                const float *in = plane + iy * w->w + off;
                memset(out, 0, sizeof(float) * (gsize)lo);
                if (w->sw == 1)
                    memcpy(out + lo, in + lo, sizeof(float) * (gsize)(hi - lo));
                else if (w->sw == 2) /* a constant stride: a vectorised gather of every other column */
                    for (gint64 ox = lo; ox < hi; ox++)
                        out[ox] = in[2 * ox];
                else
                    for (gint64 ox = lo; ox < hi; ox++)
                        out[ox] = in[ox * w->sw];
                memset(out + hi, 0, sizeof(float) * (gsize)(w->ow - hi));
            }
        }
    }
}

/* One channel of a depthwise convolution (one input and one output channel per group), summed through a
 * zero border: the per-row ranges of valid taps cost more than the sums on the planes of real models. The
 * bordered plane P (rows of pw columns, every one a window reaches) is split into its
 * sh x sw stride phases, Q[a][b][r][s] = P[r sh + a][s sw + b] (each qh x qw), so that every tap (ky, kx)
 * reads one phase at a fixed shift: P[oy sh + ky dh][ox sw + kx dw] = Q[ky dh % sh][kx dw % sw][oy + ky dh /
 * sh][ox + kx dw / sw]. All taps are then unit-stride reads of the phases at fixed offsets into a "wide"
 * output of qw columns a row (the columns past ow are sums nobody reads), summed without a branch; the valid
 * columns are copied out. At stride 1 the one phase is P itself. Each output gets bias, then the taps in
 * (ky, kx) order (a tap over the border adds k * 0). */
typedef struct {
    gint64 ph, pw, qh, qw; /* bordered plane, one phase */
    gint64 taps;           /* kh kw */
    gint64 *offsets;       /* each tap's offset into the phases, in (ky, kx) order */
} Phases;

static Phases phases_new(const Window *w)
{
    Phases f;
    f.ph = MAX(w->h + w->pt, (w->oh - 1) * w->sh + (w->kh - 1) * w->dh + 1);
    f.pw = MAX(w->w + w->pl, (w->ow - 1) * w->sw + (w->kw - 1) * w->dw + 1);
    f.qh = (f.ph + w->sh - 1) / w->sh;
    f.qw = (f.pw + w->sw - 1) / w->sw;
    f.taps = w->kh * w->kw;
    f.offsets = g_new(gint64, f.taps);
    for (gint64 ky = 0; ky < w->kh; ky++)
        for (gint64 kx = 0; kx < w->kw; kx++) {
            gint64 y = ky * w->dh, x = kx * w->dw;
            f.offsets[ky * w->kw + kx] =
                ((y % w->sh) * w->sw + x % w->sw) * f.qh * f.qw + (y / w->sh) * f.qw + x / w->sw;
        }
    return f;
}

/* The last outputs of a plane are summed 16 at a time: up to 15 past its end, on reads up to 15 floats past
 * the phases. */
enum { TAPS_SLACK = 16 };

/* Floats of scratch depthwise_plane_phased needs: the phases, zeros that taps_sum may read past them, and
 * the wide output with the slack taps_sum may write. */
static gint64 phases_floats(const Window *w, const Phases *f)
{
    return w->sh * w->sw * f->qh * f->qw + TAPS_SLACK + w->oh * f->qw + TAPS_SLACK;
}

/* Whether the phased depthwise path suits the window: every stride within the bordered plane (a stride past
 * it leaves phases no window reads, yet each would be laid out), and its scratch countable in 64 bits and
 * within the plane's own size a few times over. Else the im2col path runs the convolution (a hostile
 * stride of 2^62 made the phase count wrap, and the path wrote past its workspace). */
static gboolean phases_fit(const Window *w)
{
    gint64 ph, pw, a, b, floats;
    if (__builtin_add_overflow(w->h, w->pt, &ph) || __builtin_add_overflow(w->w, w->pl, &pw) ||
        __builtin_mul_overflow(w->oh - 1, w->sh, &a) || __builtin_mul_overflow(w->kh - 1, w->dh, &b) ||
        __builtin_add_overflow(a, b + 1, &a) || __builtin_mul_overflow(w->ow - 1, w->sw, &b) ||
        __builtin_add_overflow(b, (w->kw - 1) * w->dw + 1, &b))
        return FALSE;
    ph = MAX(ph, a);
    pw = MAX(pw, b);
    if (w->sh > ph || w->sw > pw)
        return FALSE;
    /* sh qh <= 2 ph and sw qw <= 2 pw: the phases hold at most 4 ph pw floats, and the wide output oh qw */
    return !__builtin_mul_overflow(ph, pw, &floats) && !__builtin_mul_overflow(floats, 4, &floats) &&
           floats < ((gint64)1 << 40);
}

/* Sixteen floats at any alignment (GCC's vector extension: one register with AVX-512, two or four with
 * narrower vectors). */
typedef float TapVec __attribute__((vector_size(64), aligned(4)));

/* Outputs [i, i + 16 vectors) of taps_sum, held in registers across all the taps (one store each, not one
 * per tap; with four vectors their sums do not wait on each other). */
static inline __attribute__((always_inline)) void taps_block(const float *base, const gint64 *offsets,
                                                             const float *k, gint64 taps, float bias,
                                                             float *wide, gint64 i, int vectors)
{
    TapVec acc0 = bias - (TapVec){0}, acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (gint64 t = 0; t < taps; t++) {
        const TapVec *src = (const TapVec *)(base + offsets[t] + i);
        float kv = k[t];
        acc0 += kv * src[0];
        if (vectors == 4) {
            acc1 += kv * src[1];
            acc2 += kv * src[2];
            acc3 += kv * src[3];
        }
    }
    TapVec *dst = (TapVec *)(wide + i);
    dst[0] = acc0;
    if (vectors == 4) {
        dst[1] = acc1;
        dst[2] = acc2;
        dst[3] = acc3;
    }
}

/* wide[i] = bias + k[0] base[offsets[0] + i] + k[1] base[offsets[1] + i] + ..., in that order, for i < len
 * rounded up to TAPS_SLACK: 64 outputs at a time, then 16 (base and wide readable and writable that far). */
static inline __attribute__((always_inline)) void taps_sum(const float *base, const gint64 *offsets,
                                                           const float *k, gint64 taps, float bias, float *wide,
                                                           gint64 len)
{
    gint64 i = 0;
    for (; i + 64 <= len; i += 64)
        taps_block(base, offsets, k, taps, bias, wide, i, 4);
    for (; i < len; i += TAPS_SLACK)
        taps_block(base, offsets, k, taps, bias, wide, i, 1);
}

/* taps_sum compiled for AVX-512, AVX2 and the baseline (target_clones: the loader picks one for the CPU; as
 * -std=c11 contracts nothing into FMA, each is the same sums to the bit). */
__attribute__((target_clones("avx512f", "avx2", "default"))) static void
taps_sum_wide(const float *base, const gint64 *offsets, const float *k, gint64 taps, float bias, float *wide,
              gint64 len)
{
    taps_sum(base, offsets, k, taps, bias, wide, len);
}

/* even[j] = src[2j], odd[j] = src[2j + 1] over n source values (the two never overlap src or each other). */
static void deinterleave_pair(const float *restrict src, gint64 n, float *restrict even, float *restrict odd)
{
    for (gint64 j = 0; j < n / 2; j++) {
        even[j] = src[2 * j];
        odd[j] = src[2 * j + 1];
    }
    if (n & 1)
        even[n / 2] = src[n - 1];
}

static void depthwise_plane_phased(const Window *w, const Phases *f, const float *in, const float *k,
                                   float bias, float *out, float *scratch, gboolean accumulate)
{
    gint64 phase = f->qh * f->qw;
    float *wide = scratch + w->sh * w->sw * phase + TAPS_SLACK;
    memset(scratch, 0, sizeof(float) * (gsize)(w->sh * w->sw * phase + TAPS_SLACK));
    for (gint64 iy = 0; iy < w->h; iy++) {
        gint64 y = iy + w->pt;
        float *rows = scratch + (y % w->sh) * w->sw * phase + (y / w->sh) * f->qw;
        const float *src = in + iy * w->w;
        if (w->sw == 1)
            memcpy(rows + w->pl, src, sizeof(float) * (gsize)w->w);
        else if (w->sw == 2) /* even and odd columns in one vectorised pass: x = ix + pl goes to phase x % 2 at x / 2 */
            deinterleave_pair(src, w->w, rows + (w->pl & 1) * phase + w->pl / 2,
                              rows + ((w->pl + 1) & 1) * phase + (w->pl + 1) / 2);
        else /* phase b gets the columns x = ix + pl = b (mod sw), at x / sw */
            for (gint64 b = 0; b < w->sw; b++) {
                gint64 ix = ((b - w->pl) % w->sw + w->sw) % w->sw;
                float *dst = rows + b * phase + (ix + w->pl) / w->sw;
                for (; ix < w->w; ix += w->sw)
                    *dst++ = src[ix];
            }
    }
    taps_sum_wide(scratch, f->offsets, k, f->taps, bias, wide, (w->oh - 1) * f->qw + w->ow);
    for (gint64 oy = 0; oy < w->oh; oy++)
        if (accumulate) /* FusedConv: onto what out holds */
            for (gint64 ox = 0; ox < w->ow; ox++)
                out[oy * w->ow + ox] += wide[oy * f->qw + ox];
        else
            memcpy(out + oy * w->ow, wide + oy * f->qw, sizeof(float) * (gsize)w->ow);
}

/* ---- N-d windows: any number of spatial axes (3-D video models and beyond), LpPool and MaxPool's indices at
 * any rank, ConvTranspose at every rank. Positions are walked with row-major odometers; the cost per element
 * is a few operations per axis. */
/* im2col over any number of axes: row (ci, window position), column (output position). */
static void im2col_nd(const KernelWindow *w, const float *planes, gint64 cg, float *col)
{
    gint64 kk[KERNEL_MAX_RANK], o[KERNEL_MAX_RANK];
    for (gint64 ci = 0; ci < cg; ci++) {
        memset(kk, 0, sizeof(kk));
        for (gint64 t = 0; t < w->k_size; t++, kernel_index_next(kk, w->k, w->s)) {
            float *row = col + (ci * w->k_size + t) * w->out_size;
            const float *plane = planes + ci * w->in_size;
            memset(o, 0, sizeof(o));
            for (gint64 p = 0; p < w->out_size; p++, kernel_index_next(o, w->out, w->s)) {
                gint64 src = kernel_window_source(w, o, kk);
                row[p] = src < 0 ? 0.0f : plane[src];
            }
        }
    }
}

/* Conv with three or more spatial axes: im2col then one sgemm per image and group. */
static gboolean conv_nd(const KernelCall *c, const ExecTensor *x, const ExecTensor *wt, const ExecTensor *bias,
                        ExecTensor *y, gint64 group, float beta, GError **error)
{
    KernelWindow w;
    if (!kernel_window_read(c, x, y, wt->dims + 2, &w, error))
        return FALSE;
    gint64 m = wt->dims[0], cg = w.c / group, mg = m / group, rows = cg * w.k_size, cols = w.out_size;
    float *col = kernel_workspace(c, sizeof(float) * (gsize)MAX(rows * cols, 1));
    if (!col)
        return kernel_fail(c, error, "its im2col workspace of %" G_GINT64_FORMAT " floats cannot be allocated", rows * cols);
    const float *px = x->data, *pw = wt->data, *pb = bias ? bias->data : NULL;
    float *py = y->data;
    for (gint64 n = 0; n < w.n; n++)
        for (gint64 g = 0; g < group; g++) {
            im2col_nd(&w, px + (n * w.c + g * cg) * w.in_size, cg, col);
            float *out = py + (n * m + g * mg) * cols;
            blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)cols, (int)rows, 1.0f,
                       pw + g * mg * rows, (int)rows, col, (int)cols, beta, out, (int)cols);
            for (gint64 oc = 0; (pb || c->epilogue) && oc < mg; oc++)
                kernel_epilogue_array(c, out + oc * cols, (gsize)cols, pb ? pb + g * mg + oc : NULL);
        }
    return TRUE;
}


/* Depthwise planes [begin, end) of the batch's (image, channel) planes, each thread on its own slice of the
 * scratch; then the folded activation over each plane written. */
typedef struct {
    const KernelCall *c;
    const Window *w;
    const Phases *f;
    const float *px, *pw, *pb;
    float *py, *scratch;
    gint64 slice, m, cols;
    gboolean accumulate;
} DepthwiseJob;

static void depthwise_planes(void *data, gint64 begin, gint64 end, guint part)
{
    const DepthwiseJob *j = data;
    const Window *w = j->w;
    for (gint64 p = begin; p < end; p++) {
        gint64 n = p / j->m, ch = p % j->m;
        float *out = j->py + (n * j->m + ch) * j->cols;
        depthwise_plane_phased(w, j->f, j->px + (n * w->c + ch) * w->h * w->w, j->pw + ch * w->kh * w->kw,
                               j->pb ? j->pb[ch] : 0.0f, out, j->scratch + part * j->slice, j->accumulate);
        if (j->c->epilogue)
            kernel_epilogue_array(j->c, out, (gsize)j->cols, NULL);
    }
}

/* One convolution product, rows x cols = (rows x depth) (depth x cols) (+ beta out), in chunks of columns (and
 * rows): one sgemm per chunk on its slices of A, B and the output, then its bias and folded activation. The
 * chunks follow from the shape alone (gemm_chunks), never from the threads: OpenBLAS's sums for a column depend on
 * how wide a product it is part of, so a split by threads would give other bits on two threads than on one. */
typedef struct {
    const KernelCall *c;
    gint64 rows, cols, depth, chunk, row_chunk, col_chunks;
    const float *a, *b;
    float beta;
    float *out;
    const float *bias;
} GemmColumns;

/* The chunks of a product: columns about a million multiply-adds each (a multiple of 16, at least 256); where
 * that leaves one (a deep layer on a small map), the rows in two halves (a multiple of 16) when there are 128
 * or more. Each chunk is an sgemm that packs its slices again, so no more of them than two threads use: four
 * row chunks cost squeezenet's classifier (1000 x 512 on 13 x 13) 13% on one thread. */
static void gemm_chunks(GemmColumns *j)
{
    gint64 cols = (1 << 20) / MAX(j->rows * j->depth, 1);
    j->chunk = MAX((cols + 15) / 16 * 16, 256);
    j->col_chunks = (j->cols + j->chunk - 1) / j->chunk;
    j->row_chunk = j->rows;
    if (j->col_chunks < 2 && j->rows >= 128)
        j->row_chunk = ((j->rows + 1) / 2 + 15) / 16 * 16;
}

static void gemm_columns(void *data, gint64 begin, gint64 end, guint part)
{
    (void)part;
    const GemmColumns *j = data;
    for (gint64 chunk = begin; chunk < end; chunk++) {
        gint64 lo = chunk % j->col_chunks * j->chunk, hi = MIN(lo + j->chunk, j->cols);
        gint64 r0 = chunk / j->col_chunks * j->row_chunk, r1 = MIN(r0 + j->row_chunk, j->rows);
        blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(r1 - r0), (int)(hi - lo), (int)j->depth, 1.0f,
                   j->a + r0 * j->depth, (int)j->depth, j->b + lo, (int)j->cols, j->beta, j->out + r0 * j->cols + lo,
                   (int)j->cols);
        for (gint64 oc = r0; (j->bias || j->c->epilogue) && oc < r1; oc++)
            kernel_epilogue_array(j->c, j->out + oc * j->cols + lo, (gsize)(hi - lo), j->bias ? j->bias + oc : NULL);
    }
}

/* A 1x1 convolution whose input has few channels (depth <= SHALLOW_DEPTH: efficientnet's and mobilenet's
 * expansions, 16 -> 96 on 112 x 112) on a large map (SHALLOW_MIN_COLS positions or more), computed directly: sgemm with so short a K spends its time packing, and
 * the output then makes a second trip through memory for the bias and folded activation. Here each block of
 * SHALLOW_COLS columns is summed four output channels at a time in vectors (x's rows read once for the four),
 * each sum in channel order from 0 (or from the tensor a FusedConv adds), then its bias and activation
 * applied while the block is in cache. Blocks are fixed by the shape: the same bits at any thread count. */
enum { SHALLOW_DEPTH = 32, SHALLOW_COLS = 256, SHALLOW_MIN_COLS = 1024 };

typedef struct {
    const KernelCall *c;
    const float *w, *x, *bias;
    float *out;
    gint64 rows, depth, cols;
    gboolean accumulate;
} ShallowJob;

/* Four channels' sums over two vectors of columns (then one), kept in registers through the depth: FMA (one
 * rounding per product and sum), V lanes wide; LOAD, FMA, STORE, SET1 and ZERO are the width's intrinsics.
 * Eight sums in flight keep both FMA units busy where four waited on their own latency (results/history.md;
 * each sum is the same chain, so the same bits). The
 * columns past the last whole vector go one at a time with fmaf, the same operation. */
#define SHALLOW_BLOCK(NAME, TARGET, VEC, V, LOAD, STORE, FMA, SET1, ZERO)                                       \
    __attribute__((target(TARGET))) static void NAME(const ShallowJob *j, gint64 begin, gint64 end)             \
    {                                                                                                           \
        const gint64 cols = j->cols, depth = j->depth, rows = j->rows;                                          \
        for (gint64 b = begin; b < end; b++) {                                                                  \
            const gint64 lo = b * SHALLOW_COLS, hi = MIN(lo + SHALLOW_COLS, cols), wide = lo + (hi - lo) / V * V; \
            for (gint64 m = 0; m < rows; m += 4) {                                                              \
                const gint64 group = MIN(4, rows - m);                                                          \
                const float *w0 = j->w + m * depth, *w1 = group > 1 ? w0 + depth : w0;                          \
                const float *w2 = group > 2 ? w0 + 2 * depth : w0, *w3 = group > 3 ? w0 + 3 * depth : w0;       \
                float *o0 = j->out + m * cols, *o1 = group > 1 ? o0 + cols : o0;                                \
                float *o2 = group > 2 ? o0 + 2 * cols : o0, *o3 = group > 3 ? o0 + 3 * cols : o0;               \
                gint64 e = lo;                                                                                  \
                for (; e + 2 * V <= wide; e += 2 * V) { /* two vectors: eight independent sums in flight */     \
                    VEC a0 = j->accumulate ? LOAD(o0 + e) : ZERO(), a1 = j->accumulate ? LOAD(o1 + e) : ZERO();  \
                    VEC a2 = j->accumulate ? LOAD(o2 + e) : ZERO(), a3 = j->accumulate ? LOAD(o3 + e) : ZERO();  \
                    VEC b0 = j->accumulate ? LOAD(o0 + e + V) : ZERO(), b1 = j->accumulate ? LOAD(o1 + e + V) : ZERO(); \
                    VEC b2 = j->accumulate ? LOAD(o2 + e + V) : ZERO(), b3 = j->accumulate ? LOAD(o3 + e + V) : ZERO(); \
                    for (gint64 k = 0; k < depth; k++) {                                                        \
                        VEC v = LOAD(j->x + k * cols + e), u = LOAD(j->x + k * cols + e + V);                   \
                        VEC s0 = SET1(w0[k]), s1 = SET1(w1[k]), s2 = SET1(w2[k]), s3 = SET1(w3[k]);            \
                        a0 = FMA(s0, v, a0);                                                                    \
                        a1 = FMA(s1, v, a1);                                                                    \
                        a2 = FMA(s2, v, a2);                                                                    \
                        a3 = FMA(s3, v, a3);                                                                    \
                        b0 = FMA(s0, u, b0);                                                                    \
                        b1 = FMA(s1, u, b1);                                                                    \
                        b2 = FMA(s2, u, b2);                                                                    \
                        b3 = FMA(s3, u, b3);                                                                    \
                    }                                                                                           \
                    STORE(o3 + e, a3);                                                                          \
                    STORE(o3 + e + V, b3);                                                                      \
                    STORE(o2 + e, a2);                                                                          \
                    STORE(o2 + e + V, b2);                                                                      \
                    STORE(o1 + e, a1);                                                                          \
                    STORE(o1 + e + V, b1);                                                                      \
                    STORE(o0 + e, a0);                                                                          \
                    STORE(o0 + e + V, b0);                                                                      \
                }                                                                                               \
                for (; e < wide; e += V) {                                                                      \
                    VEC a0 = j->accumulate ? LOAD(o0 + e) : ZERO(), a1 = j->accumulate ? LOAD(o1 + e) : ZERO();  \
                    VEC a2 = j->accumulate ? LOAD(o2 + e) : ZERO(), a3 = j->accumulate ? LOAD(o3 + e) : ZERO();  \
                    for (gint64 k = 0; k < depth; k++) {                                                        \
                        VEC v = LOAD(j->x + k * cols + e);                                                      \
                        a0 = FMA(SET1(w0[k]), v, a0);                                                           \
                        a1 = FMA(SET1(w1[k]), v, a1);                                                           \
                        a2 = FMA(SET1(w2[k]), v, a2);                                                           \
                        a3 = FMA(SET1(w3[k]), v, a3);                                                           \
                    }                                                                                           \
                    STORE(o3 + e, a3); /* a group of fewer than four writes its last channel more than once */ \
                    STORE(o2 + e, a2);                                                                          \
                    STORE(o1 + e, a1);                                                                          \
                    STORE(o0 + e, a0);                                                                          \
                }                                                                                               \
                for (gint64 r = 0; r < group; r++)                                                              \
                    for (gint64 t = wide; t < hi; t++) {                                                        \
                        float a = j->accumulate ? j->out[(m + r) * cols + t] : 0.0f;                            \
                        for (gint64 k = 0; k < depth; k++)                                                      \
                            a = fmaf(j->w[(m + r) * depth + k], j->x[k * cols + t], a);                         \
                        j->out[(m + r) * cols + t] = a;                                                         \
                    }                                                                                           \
                for (gint64 r = 0; (j->bias || j->c->epilogue) && r < group; r++)                               \
                    kernel_epilogue_array(j->c, j->out + (m + r) * cols + lo, (gsize)(hi - lo),                 \
                                          j->bias ? j->bias + m + r : NULL);                                    \
            }                                                                                                   \
        }                                                                                                       \
    }
SHALLOW_BLOCK(shallow_blocks_avx512, "avx512f,fma", __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_fmadd_ps,
              _mm512_set1_ps, _mm512_setzero_ps)
SHALLOW_BLOCK(shallow_blocks_avx2, "avx2,fma", __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_fmadd_ps,
              _mm256_set1_ps, _mm256_setzero_ps)

/* Whether this CPU has the vectors the direct kernel needs (elsewhere sgemm does these products). */
static gboolean shallow_supported(void)
{
    return __builtin_cpu_supports("avx512f") || (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
}

static void shallow_blocks(void *data, gint64 begin, gint64 end, guint part)
{
    (void)part;
    if (__builtin_cpu_supports("avx512f"))
        shallow_blocks_avx512(data, begin, end);
    else
        shallow_blocks_avx2(data, begin, end);
}

gboolean kernel_conv(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *wt = kernel_in(c, 1), *bias = kernel_in(c, 2), *sum = kernel_in(c, 3);
    ExecTensor *y = kernel_out(c, 0);
    gint64 group;
    if (!kernel_need_float(c, x, "Conv", error) || !kernel_need_float(c, wt, "Conv", error) ||
        !node_attr_int(c->node, "group", 1, &group, error) || (sum && !kernel_need_float(c, sum, "Conv", error)))
        return FALSE;
    /* FusedConv: the products accumulate onto the tensor it adds (already in place when the plan put the output
     * over it; else copied there first), then the bias, then the epilogue */
    if (sum && sum->data != y->data && y->count)
        memcpy(y->data, sum->data, y->count * sizeof(float));
    float beta = sum ? 1.0f : 0.0f;
    if (x->rank > 4)
        return conv_nd(c, x, wt, bias, y, group, beta, error);
    Window w;
    if (!kernel_window_plane(c, x, y, wt->dims + 2, &w, error))
        return FALSE;
    gint64 m = wt->dims[0], cg = w.c / group, mg = m / group, cols = w.oh * w.ow, rows = cg * w.kh * w.kw;
    const float *px = x->data, *pw = wt->data, *pb = bias ? bias->data : NULL;
    float *py = y->data;
    if (cg == 1 && mg == 1 && phases_fit(&w)) { /* depthwise */
        if (!cols) /* nothing to write */
            return TRUE;
        Phases f = phases_new(&w);
        gint64 floats = phases_floats(&w, &f);
        gint64 slice = (floats + 15) / 16 * 16; /* each thread's scratch, 64 bytes apart */
        float *scratch = kernel_workspace(c, sizeof(float) * (gsize)(slice * kernel_threads()));
        if (!scratch) {
            g_free(f.offsets);
            return kernel_fail(c, error, "its depthwise workspace of %" G_GINT64_FORMAT " floats cannot be allocated",
                               floats);
        }
        DepthwiseJob job = {.c = c, .w = &w, .f = &f, .px = px, .pw = pw, .pb = pb, .py = py, .scratch = scratch,
                            .slice = slice, .m = m, .cols = cols, .accumulate = sum != NULL};
        kernel_parallel(w.n * m, MAX(16384 / MAX(cols * w.kh * w.kw, 1), 1), depthwise_planes, &job);
        g_free(f.offsets);
        return TRUE;
    }
    /* A 1x1 window at stride 1 without padding reads the input planes as they are: no im2col. */
    gboolean pointwise = w.kh == 1 && w.kw == 1 && w.sh == 1 && w.sw == 1 && w.pt == 0 && w.pl == 0 && w.oh == w.h &&
                         w.ow == w.w;
    /* Taps that read only padding add nothing: left out of im2col and of the product, with the weights of the
     * rest gathered into a matrix of their own (K shrinks from cg kh kw to cg taps) */
    gint64 *taps = g_new(gint64, (gsize)MAX(w.kh * w.kw, 1)), n_taps = 0;
    for (gint64 t = 0; t < w.kh * w.kw; t++)
        if (pointwise || tap_reads_input(&w, t / w.kw, t % w.kw))
            taps[n_taps++] = t;
    gboolean gathered = !pointwise && n_taps < w.kh * w.kw;
    gint64 k_rows = cg * n_taps;
    gsize floats = pointwise ? 0 : (gsize)(k_rows * cols) + (gathered ? (gsize)(mg * k_rows) : 0);
    float *col = pointwise ? NULL : kernel_workspace(c, sizeof(float) * MAX(floats, 1));
    if (!pointwise && !col) {
        g_free(taps);
        return kernel_fail(c, error, "its im2col workspace of %" G_GSIZE_FORMAT " floats cannot be allocated", floats);
    }
    float *wg = gathered ? col + k_rows * cols : NULL;
    for (gint64 n = 0; n < w.n; n++) {
        for (gint64 g = 0; g < group; g++) {
            const float *planes = px + ((n * w.c) + g * cg) * w.h * w.w;
            if (!pointwise)
                im2col(&w, planes, cg, taps, n_taps, col);
            const float *wm = pw + g * mg * rows;
            if (gathered && (n == 0 || group > 1)) /* the group's weights for the taps that read the input (wg holds one group) */
                for (gint64 oc = 0; oc < mg; oc++)
                    for (gint64 ci = 0; ci < cg; ci++)
                        for (gint64 t = 0; t < n_taps; t++)
                            wg[(oc * cg + ci) * n_taps + t] = wm[(oc * cg + ci) * w.kh * w.kw + taps[t]];
            float *out = py + ((n * m) + g * mg) * cols;
            if (!k_rows) { /* every tap over padding: only the bias and the tensor it adds */
                if (!sum)
                    memset(out, 0, sizeof(float) * (gsize)(mg * cols));
                for (gint64 oc = 0; (pb || c->epilogue) && oc < mg; oc++)
                    kernel_epilogue_array(c, out + oc * cols, (gsize)cols, pb ? pb + g * mg + oc : NULL);
            } else if (pointwise && k_rows <= SHALLOW_DEPTH && cols >= SHALLOW_MIN_COLS && shallow_supported()) {
                ShallowJob job = {.c = c, .w = wm, .x = planes, .bias = pb ? pb + g * mg : NULL, .out = out, .rows = mg,
                                  .depth = k_rows, .cols = cols, .accumulate = sum != NULL};
                kernel_parallel((cols + SHALLOW_COLS - 1) / SHALLOW_COLS, 2, shallow_blocks, &job);
            } else { /* the product and its epilogue, the columns shared out among the threads */
                GemmColumns job = {.c = c, .rows = mg, .cols = cols, .depth = k_rows, .a = gathered ? wg : wm,
                                   .b = pointwise ? planes : col, .beta = beta, .out = out,
                                   .bias = pb ? pb + g * mg : NULL};
                gemm_chunks(&job);
                kernel_parallel(job.col_chunks * ((mg + job.row_chunk - 1) / job.row_chunk), 1, gemm_columns, &job);
            }
        }
    }
    g_free(taps);
    return TRUE;
}

/* ConvTranspose at any rank: per image and group col = W_g^T X_g (rows: output channel and window
 * position; columns: input position), then col2im adds each entry at its output position (stride,
 * dilation; the padding from pads, or the one that gives the inferred output size: the specification's
 * total padding, its odd unit after under SAME_UPPER, before otherwise). */
/* Adds one row of ConvTranspose's columns (window position kk, one value per input position) into its output
 * plane: input position i lands on output i stride - pad + kk dil. Per axis the inputs that land inside the output
 * are one range, so the last axis is one strided loop per row of the others (no test per element). */
static void col2im_row(const KernelWindow *w, const gint64 *kk, const float *row, float *plane)
{
    gint64 lo[KERNEL_MAX_RANK], hi[KERNEL_MAX_RANK], off[KERNEL_MAX_RANK], i[KERNEL_MAX_RANK];
    gint64 in_step[KERNEL_MAX_RANK], out_step[KERNEL_MAX_RANK];
    int last = w->s - 1;
    for (int a = last; a >= 0; a--) {
        off[a] = kk[a] * w->dil[a] - w->pad[a];
        lo[a] = off[a] >= 0 ? 0 : (-off[a] + w->stride[a] - 1) / w->stride[a];
        hi[a] = off[a] >= w->out[a] ? 0 : MIN(w->in[a], (w->out[a] - 1 - off[a]) / w->stride[a] + 1);
        if (lo[a] >= hi[a])
            return; /* this window position lands outside the output for every input */
        in_step[a] = a == last ? 1 : in_step[a + 1] * w->in[a + 1];
        out_step[a] = a == last ? 1 : out_step[a + 1] * w->out[a + 1];
        i[a] = lo[a];
    }
    gint64 stride = w->stride[last];
    for (;;) {
        gint64 src = 0, dst = 0;
        for (int a = 0; a < last; a++) {
            src += i[a] * in_step[a];
            dst += (i[a] * w->stride[a] + off[a]) * out_step[a];
        }
        const float *from = row + src;
        float *to = plane + dst + off[last];
        if (stride == 1)
            for (gint64 j = lo[last]; j < hi[last]; j++)
                to[j] += from[j];
        else
            for (gint64 j = lo[last]; j < hi[last]; j++)
                to[j * stride] += from[j];
        int a = last - 1; /* the next row of the other axes */
        while (a >= 0 && ++i[a] == hi[a]) {
            i[a] = lo[a];
            a--;
        }
        if (a < 0)
            return;
    }
}

gboolean kernel_conv_transpose(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *wt = kernel_in(c, 1), *bias = kernel_in(c, 2);
    ExecTensor *y = kernel_out(c, 0);
    gint64 group;
    const GArray *strides = NULL, *pads = NULL, *dil = NULL;
    const char *auto_pad;
    if (!kernel_need_float(c, x, "ConvTranspose", error) || !kernel_need_float(c, wt, "ConvTranspose", error) ||
        !node_attr_int(c->node, "group", 1, &group, error) || !node_attr_ints(c->node, "strides", &strides, error) ||
        !node_attr_ints(c->node, "pads", &pads, error) || !node_attr_ints(c->node, "dilations", &dil, error) ||
        !node_attr_string(c->node, "auto_pad", "NOTSET", &auto_pad, error))
        return FALSE;
    if (x->rank > KERNEL_MAX_RANK)
        return kernel_fail(c, error, "input rank %d is above the executor's %d", x->rank, KERNEL_MAX_RANK);
    if (!y->count) /* no output channels (a weight [C, 0, ...]): nothing to write, and no bytes to pass on */
        return TRUE;
    KernelWindow w = {.s = x->rank - 2, .n = x->dims[0], .c = x->dims[1]};
    gboolean derived = strcmp(auto_pad, "NOTSET") || node_attr(c->node, "output_shape");
    for (int a = 0; a < w.s; a++) {
        w.in[a] = x->dims[2 + a];
        w.out[a] = y->dims[2 + a];
        w.k[a] = wt->dims[2 + a];
        w.stride[a] = kernel_ints_at(strides, (guint)a, 1);
        w.dil[a] = kernel_ints_at(dil, (guint)a, 1);
        if (derived) {
            gint64 total = MAX(0, w.stride[a] * (w.in[a] - 1) + (w.k[a] - 1) * w.dil[a] + 1 - w.out[a]);
            w.pad[a] = !strcmp(auto_pad, "SAME_UPPER") ? total / 2 : total - total / 2;
        } else {
            w.pad[a] = kernel_ints_at(pads, (guint)a, 0);
        }
    }
    w.in_size = kernel_window_product(w.in, w.s);
    w.out_size = kernel_window_product(w.out, w.s);
    w.k_size = kernel_window_product(w.k, w.s);
    gint64 m = y->dims[1], cg = w.c / group, mg = m / group, rows = mg * w.k_size, cols = w.in_size;
    float *col = kernel_workspace(c, sizeof(float) * (gsize)MAX(rows * cols, 1));
    if (!col)
        return kernel_fail(c, error, "its col2im workspace of %" G_GINT64_FORMAT " floats cannot be allocated", rows * cols);
    const float *px = x->data, *pw = wt->data;
    float *py = y->data;
    memset(py, 0, y->count * sizeof(float));
    gint64 kk[KERNEL_MAX_RANK];
    for (gint64 n = 0; n < w.n; n++)
        for (gint64 g = 0; g < group; g++) {
            /* W_g is [cg, mg * window]: col = W_g^T [rows x cg] times X_g [cg x cols] */
            blas.sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)rows, (int)cols, (int)cg, 1.0f, pw + g * cg * rows,
                       (int)rows, px + (n * w.c + g * cg) * cols, (int)cols, 0.0f, col, (int)cols);
            for (gint64 oc = 0; oc < mg; oc++) {
                float *plane = py + (n * m + g * mg + oc) * w.out_size;
                memset(kk, 0, sizeof(kk));
                for (gint64 t = 0; t < w.k_size; t++, kernel_index_next(kk, w.k, w.s))
                    col2im_row(&w, kk, col + (oc * w.k_size + t) * cols, plane);
                if (bias)
                    for (gint64 k = 0; k < w.out_size; k++)
                        plane[k] += ((const float *)bias->data)[g * mg + oc];
            }
        }
    return TRUE;
}
