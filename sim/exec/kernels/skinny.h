/* skinny.h — products of a few rows over constant weights (exec/kernels/skinny.c): [M, K] x [K, N] with M at
 * most KERNEL_SKINNY_ROWS, B packed once into panels of 16 columns. A decoder's step at a short sequence and a
 * classifier's head are such products: each weight is read from memory once per inference and used M times,
 * so the time is the stream of B, which this kernel reads once, in order. */
#ifndef SIM_EXEC_KERNELS_SKINNY_H
#define SIM_EXEC_KERNELS_SKINNY_H

#include <glib.h>

#define KERNEL_SKINNY_ROWS 16

/* B packed: ceil(N / 16) panels, each K rows of 16 floats (the columns past N zero). */
typedef struct {
    float *panels;
    gint64 k, n;
} KernelSkinny;

/* Whether this CPU runs the kernel (AVX-512F, or AVX2 with FMA); elsewhere the products stay oneDNN's. */
gboolean kernel_skinny_supported(void);
/* The AVX2 kernel even where AVX-512F runs (tests and bench/skinny-products.c: it gives the same bits). */
void kernel_skinny_force_avx2(gboolean on);
/* Packs B (element [k][n] at b[k * stride_k + n * stride_n]) into s. FALSE when the memory is refused. */
gboolean kernel_skinny_pack(KernelSkinny *s, const float *b, gint64 k, gint64 n, gint64 stride_k, gint64 stride_n);
void kernel_skinny_clear(KernelSkinny *s);
/* The bytes the panels take (the executor's own memory, reported beside the arena). */
guint64 kernel_skinny_bytes(const KernelSkinny *s);
/* y[m * N + n] = alpha * sum over k of a[m * a_row + k * a_col] * B[k][n], plus bias[n] when bias is not NULL
 * (then alpha is 1), for m < rows (1 to KERNEL_SKINNY_ROWS). `work` holds rows * K floats (A gathered so that
 * each step of k reads one line). Each sum runs k in order, one FMA per term: the same bits at any thread
 * count. */
void kernel_skinny_run(const KernelSkinny *s, const float *a, gint64 rows, gint64 a_row, gint64 a_col, float alpha,
                       const float *bias, float *y, float *work);

#endif
