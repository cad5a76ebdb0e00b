/* skinny.c — products of at most 16 rows over weights packed once (skinny.h).
 *
 * With M rows, each weight read from memory takes part in M products: at M = 16 a 64-byte line of B feeds
 * 16 vector FMAs, 8 cycles of both FMA units, while memory delivers that line in 15. Such a product
 * is the speed of reading B. oneDNN 2.6's brgemm reads its packed B (16 x 64 blocks) at 8.6-8.9 GB/s on one
 * thread of an Intel Xeon VM whose plain read stream runs at 14.6 GB/s (768 x 3072 at M = 16, 1.1 GB of
 * weights cycled so that none stays in cache). Here each panel of 16 columns is one run of K lines read in
 * order, with software prefetches ahead of the hardware's (a line 512 bytes ahead into L1, one 8 KiB ahead
 * into L2), and the M sums of the panel stay in registers: 10.2-10.7 GB/s on the same test; without the
 * prefetches, 6.6. A is gathered first into [K][M] so that each step of k reads its M broadcasts from one
 * line (9.6 GB/s reading them down M rows). On AVX2, with half the registers, the rows go through each
 * panel in passes of 6 (skinny_pass_avx2). */
#include "exec/kernels/skinny.h"

#include "exec/big-alloc.h"
#include "exec/kernel.h"

#include <immintrin.h>
#include <string.h>

#define PANEL 16

static gboolean force_avx2;

static gboolean has_avx512(void) { return __builtin_cpu_supports("avx512f") && !force_avx2; }

gboolean kernel_skinny_supported(void)
{
    return __builtin_cpu_supports("avx512f") || (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
}

void kernel_skinny_force_avx2(gboolean on) { force_avx2 = on; }

gboolean kernel_skinny_pack(KernelSkinny *s, const float *b, gint64 k, gint64 n, gint64 stride_k, gint64 stride_n)
{
    memset(s, 0, sizeof *s);
    guint64 panels = ((guint64)n + PANEL - 1) / PANEL, floats, bytes;
    if (k <= 0 || n <= 0 || !g_uint64_checked_mul(&floats, panels * PANEL, (guint64)k) ||
        !g_uint64_checked_mul(&bytes, floats, sizeof(float)))
        return FALSE;
    s->panels = big_alloc(bytes); /* zeroed: the columns past N stay 0 */
    if (!s->panels)
        return FALSE;
    s->k = k;
    s->n = n;
    for (gint64 r = 0; r < k; r++)
        for (gint64 c = 0; c < n; c++)
            s->panels[(c / PANEL * k + r) * PANEL + c % PANEL] = b[r * stride_k + c * stride_n];
    return TRUE;
}

void kernel_skinny_clear(KernelSkinny *s)
{
    big_alloc_free(s->panels);
    memset(s, 0, sizeof *s);
}

guint64 kernel_skinny_bytes(const KernelSkinny *s)
{
    return s->panels ? ((guint64)s->n + PANEL - 1) / PANEL * PANEL * (guint64)s->k * sizeof(float) : 0;
}

typedef struct {
    const KernelSkinny *s;
    const float *at; /* A as [K][rows] */
    gint64 rows;
    float alpha;
    const float *bias;
    float *y;
} SkinnyJob;

/* Panels [begin, end) for R rows (a constant where it is inlined: the R sums are registers). */
__attribute__((target("avx512f"), always_inline)) static inline void skinny_panels(const SkinnyJob *j, gint64 begin,
                                                                                   gint64 end, const int R)
{
    const gint64 K = j->s->k, N = j->s->n;
    const float *at = j->at;
    for (gint64 p = begin; p < end; p++) {
        const float *bp = j->s->panels + p * K * PANEL;
        __m512 acc[KERNEL_SKINNY_ROWS];
#pragma GCC unroll 16
        for (int r = 0; r < R; r++)
            acc[r] = _mm512_setzero_ps();
        for (gint64 k = 0; k < K; k++) {
            __m512 b = _mm512_load_ps(bp + k * PANEL);
            _mm_prefetch((const char *)(bp + k * PANEL + 128), _MM_HINT_T0);
            _mm_prefetch((const char *)(bp + k * PANEL + 2048), _MM_HINT_T1);
#pragma GCC unroll 16
            for (int r = 0; r < R; r++)
                acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(at[k * R + r]), b, acc[r]);
        }
        const gint64 col = p * PANEL, width = MIN(PANEL, N - col);
        const __mmask16 mask = (__mmask16)((1u << width) - 1);
        const __m512 bias = j->bias ? _mm512_maskz_loadu_ps(mask, j->bias + col) : _mm512_setzero_ps();
#pragma GCC unroll 16
        for (int r = 0; r < R; r++) {
            __m512 v = j->bias ? _mm512_add_ps(acc[r], bias)
                               : j->alpha != 1.0f ? _mm512_mul_ps(acc[r], _mm512_set1_ps(j->alpha)) : acc[r];
            _mm512_mask_storeu_ps(j->y + r * N + col, mask, v);
        }
    }
}

/* One function per row count, the table indexed by it. */
#define SKINNY_ROWS(R)                                                                                            \
    __attribute__((target("avx512f"))) static void skinny_rows_##R(void *data, gint64 begin, gint64 end, guint part) \
    {                                                                                                             \
        (void)part;                                                                                               \
        skinny_panels(data, begin, end, R);                                                                       \
    }
SKINNY_ROWS(1) SKINNY_ROWS(2) SKINNY_ROWS(3) SKINNY_ROWS(4) SKINNY_ROWS(5) SKINNY_ROWS(6) SKINNY_ROWS(7)
SKINNY_ROWS(8) SKINNY_ROWS(9) SKINNY_ROWS(10) SKINNY_ROWS(11) SKINNY_ROWS(12) SKINNY_ROWS(13) SKINNY_ROWS(14)
SKINNY_ROWS(15) SKINNY_ROWS(16)

static void (*const skinny_rows[KERNEL_SKINNY_ROWS + 1])(void *, gint64, gint64, guint) = {
    NULL,            skinny_rows_1,  skinny_rows_2,  skinny_rows_3,  skinny_rows_4,  skinny_rows_5,
    skinny_rows_6,   skinny_rows_7,  skinny_rows_8,  skinny_rows_9,  skinny_rows_10, skinny_rows_11,
    skinny_rows_12,  skinny_rows_13, skinny_rows_14, skinny_rows_15, skinny_rows_16};

/* AVX2 (16 vector registers): a panel's 16 columns are two vectors, so a pass over it keeps at most 6 rows'
 * sums (12 registers, with the two of B and a broadcast), and the rows go through the panel in passes of 6;
 * the first pass reads the panel from memory (prefetched as above), the others from cache. Each sum is the
 * same FMAs in the same order as on AVX-512, so the same bits. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
skinny_pass_avx2(const SkinnyJob *j, const float *bp, gint64 col, gint64 r0, const int R, gboolean prefetch)
{
    const gint64 K = j->s->k, N = j->s->n, rows = j->rows;
    const float *at = j->at + r0;
    __m256 lo[6], hi[6];
#pragma GCC unroll 6
    for (int r = 0; r < R; r++)
        lo[r] = hi[r] = _mm256_setzero_ps();
    for (gint64 k = 0; k < K; k++) {
        __m256 b0 = _mm256_load_ps(bp + k * PANEL), b1 = _mm256_load_ps(bp + k * PANEL + 8);
        if (prefetch) {
            _mm_prefetch((const char *)(bp + k * PANEL + 128), _MM_HINT_T0);
            _mm_prefetch((const char *)(bp + k * PANEL + 2048), _MM_HINT_T1);
        }
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            __m256 a = _mm256_set1_ps(at[k * rows + r]);
            lo[r] = _mm256_fmadd_ps(a, b0, lo[r]);
            hi[r] = _mm256_fmadd_ps(a, b1, hi[r]);
        }
    }
    const gint64 width = MIN(PANEL, N - col);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mlo = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)width), lanes),
                  mhi = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)width - 8), lanes);
    const __m256 blo = j->bias ? _mm256_maskload_ps(j->bias + col, mlo) : _mm256_setzero_ps(),
                 bhi = j->bias ? _mm256_maskload_ps(j->bias + col + 8, mhi) : _mm256_setzero_ps();
    const __m256 alpha = _mm256_set1_ps(j->alpha);
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        __m256 v0 = j->bias ? _mm256_add_ps(lo[r], blo) : j->alpha != 1.0f ? _mm256_mul_ps(lo[r], alpha) : lo[r];
        __m256 v1 = j->bias ? _mm256_add_ps(hi[r], bhi) : j->alpha != 1.0f ? _mm256_mul_ps(hi[r], alpha) : hi[r];
        float *out = j->y + (r0 + r) * N + col;
        _mm256_maskstore_ps(out, mlo, v0);
        _mm256_maskstore_ps(out + 8, mhi, v1);
    }
}

__attribute__((target("avx2,fma"))) static void skinny_panels_avx2(void *data, gint64 begin, gint64 end, guint part)
{
    (void)part;
    const SkinnyJob *j = data;
    for (gint64 p = begin; p < end; p++) {
        const float *bp = j->s->panels + p * j->s->k * PANEL;
        for (gint64 r0 = 0; r0 < j->rows; r0 += 6) {
            gboolean first = r0 == 0;
            switch (MIN(6, j->rows - r0)) { /* each count its own code: the sums stay registers */
            case 1: skinny_pass_avx2(j, bp, p * PANEL, r0, 1, first); break;
            case 2: skinny_pass_avx2(j, bp, p * PANEL, r0, 2, first); break;
            case 3: skinny_pass_avx2(j, bp, p * PANEL, r0, 3, first); break;
            case 4: skinny_pass_avx2(j, bp, p * PANEL, r0, 4, first); break;
            case 5: skinny_pass_avx2(j, bp, p * PANEL, r0, 5, first); break;
            default: skinny_pass_avx2(j, bp, p * PANEL, r0, 6, first); break;
            }
        }
    }
}

void kernel_skinny_run(const KernelSkinny *s, const float *a, gint64 rows, gint64 a_row, gint64 a_col, float alpha,
                       const float *bias, float *y, float *work)
{
    g_return_if_fail(rows >= 1 && rows <= KERNEL_SKINNY_ROWS);
    for (gint64 k = 0; k < s->k; k++)
        for (gint64 r = 0; r < rows; r++)
            work[k * rows + r] = a[r * a_row + k * a_col];
    SkinnyJob j = {.s = s, .at = work, .rows = rows, .alpha = alpha, .bias = bias, .y = y};
    /* parts of at least 8 panels (8 x K lines): a thread's share stays one long run of B */
    kernel_parallel((s->n + PANEL - 1) / PANEL, 8, has_avx512() ? skinny_rows[rows] : skinny_panels_avx2, &j);
}
