/* window.h — the geometry of a window op (Conv, ConvTranspose, the pools), shared by conv.c and pool.c: the
 * tuned 2-D path's plane (`Window`; a 1-D op as height 1) and the N-d path's `KernelWindow` (exec/kernel.h).
 * The attributes are read once, per ONNX: strides, pads, dilations and auto_pad (SAME_UPPER puts the odd unit
 * of padding after, SAME_LOWER before). */
#ifndef SIM_KERNEL_WINDOW_H
#define SIM_KERNEL_WINDOW_H

#include "exec/kernel.h"

/* Spatial geometry of a window op: 2-D (a 1-D op has height 1, kernel 1, stride 1, no padding). */
typedef struct {
    gint64 n, c, h, w;       /* input */
    gint64 oh, ow;           /* output */
    gint64 kh, kw, sh, sw, dh, dw;
    gint64 pt, pl;           /* top and left padding */
} Window;

/* An ints attribute's k-th value, or dflt when it has fewer. */
static inline gint64 kernel_ints_at(const GArray *a, guint k, gint64 dflt)
{
    return a && k < a->len ? g_array_index(a, gint64, k) : dflt;
}

/* The product of v[0..n): an N-d window's positions. */
static inline gint64 kernel_window_product(const gint64 *v, int n)
{
    gint64 p = 1;
    for (int k = 0; k < n; k++)
        p *= v[k];
    return p;
}

/* The 2-D window of c's node over input x and output y (rank 3 or 4; kernel_dims: height and width, or the
 * width alone for rank 3). */
gboolean kernel_window_plane(const KernelCall *c, const ExecTensor *x, const ExecTensor *y, const gint64 *kernel_dims,
                             Window *w, GError **error);
/* The valid output columns [*lo, *hi) of one kernel column kx: those whose input column falls inside the row. */
void kernel_window_columns(const Window *w, gint64 kx, gint64 *lo, gint64 *hi);
/* The input offset (within one plane) that output position o reads at window position kk, or -1 in the
 * padding (inline: the N-d paths call it per element and position). */
static inline gint64 kernel_window_source(const KernelWindow *w, const gint64 *o, const gint64 *kk)
{
    gint64 off = 0;
    for (int a = 0; a < w->s; a++) {
        gint64 i = o[a] * w->stride[a] - w->pad[a] + kk[a] * w->dil[a];
        if (i < 0 || i >= w->in[a])
            return -1;
        off = off * w->in[a] + i;
    }
    return off;
}

/* A walk over the input offsets (within one plane) of output position o's window that fall inside the input, in
 * window order (the last axis fastest):
 *     for (KernelWindowWalk it = {.w = &w, .o = o}; kernel_window_next(&it, &src);) ... */
typedef struct {
    const KernelWindow *w;
    const gint64 *o;
    gint64 t, kk[KERNEL_MAX_RANK];
} KernelWindowWalk;

static inline gboolean kernel_window_next(KernelWindowWalk *it, gint64 *src)
{
    while (it->t < it->w->k_size) {
        *src = kernel_window_source(it->w, it->o, it->kk);
        it->t++;
        kernel_index_next(it->kk, it->w->k, it->w->s);
        if (*src >= 0)
            return TRUE;
    }
    return FALSE;
}

#endif
