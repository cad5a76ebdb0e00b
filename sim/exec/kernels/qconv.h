/* qconv.h — an 8-bit 2-D convolution on AVX-512 VNNI (exec/kernels/qconv.c): QLinearConv's sums and their
 * requantization in one pass, over activations laid out channel-blocked (16 channels side by side at each
 * position, as the float tensors between oneDNN's kernels: ExecTensor.blocked) or row-major, int8 weights packed
 * once. Each output position reads its window where it lies (no im2col matrix): per block of up to 6 positions
 * and 64 output channels, 24 sums held in registers while 4 input channels of a position at a time are
 * broadcast against 16 channels' weights (vpdpbusd: unsigned by signed bytes into int32), then requantized and
 * stored as bytes. The requantization is quantize.c's, as ONNX Runtime computes it: the same bits. */
#ifndef SIM_EXEC_KERNELS_QCONV_H
#define SIM_EXEC_KERNELS_QCONV_H

#include "exec/kernels/window.h"

#include <glib.h>

/* The weights packed: int8 [M, C, KH, KW] with zero point 0, in groups of 64 output channels; or depthwise (one
 * channel a group, M groups: [M, 1, KH, KW]), 16 channels' taps side by side as int32, each position's sums by
 * int32 products (no quad of channels to sum). */
typedef struct KernelQconv KernelQconv;

/* Whether this CPU runs the kernel (AVX-512 with VNNI, vpdpbusd): quantize.c's other VNNI products ask it too. */
gboolean kernel_qconv_supported(void);
/* w: M x C x KH x KW signed bytes, `group` 1; or M x 1 x KH x KW with `group` M (depthwise; c then M too). NULL
 * when the memory is refused. */
KernelQconv *kernel_qconv_pack(const gint8 *w, gint64 m, gint64 c, gint64 group, gint64 kh, gint64 kw);
void kernel_qconv_free(void *q);
/* The bytes the packed weights take (the executor's own memory, reported beside the arena). */
guint64 kernel_qconv_bytes(const KernelQconv *q);

/* One call: x [N, C, H, W] as the window says (uint8, or int8 where x_signed), y [N, M, OH, OW] (uint8, or int8
 * where y_signed), each channel-blocked (C, M multiples of 16) or row-major. y = requantized (sum over the window
 * of (x - zx) w + bias), per output channel m: (float)(that sum) * multiplier[m], held to [lo, hi] (y's range less
 * its zero point), rounded half to even, plus `zero`. */
typedef struct {
    const Window *win;
    const void *x;
    gboolean x_blocked, x_signed;
    gint64 zx;
    void *y;
    gboolean y_blocked, y_signed;
    const float *multiplier; /* per output channel */
    const gint32 *bias;      /* per output channel */
    float lo, hi, zero;
} KernelQconvCall;

/* The bytes of work memory a call needs (64-byte aligned by the caller); 0 when the kernel does not take the
 * call: its sums could pass int32 (a window of more than 33,025 terms, or a bias that large), or the shapes are
 * not the packed weights'. */
gsize kernel_qconv_work_bytes(const KernelQconv *q, const KernelQconvCall *call);
/* Runs the call (kernel_qconv_work_bytes not 0) with `work` of that many bytes; its parts shared among the
 * executor's threads (kernel_parallel), the same bits at any count. */
void kernel_qconv_run(const KernelQconv *q, const KernelQconvCall *call, void *work);

#endif
