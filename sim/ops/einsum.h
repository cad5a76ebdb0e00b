/* einsum.h — an Einsum equation read against its operands' shapes: which label each dimension of each
 * operand and of the output carries, and every label's size. Shape inference (ops-linalg.c) takes the
 * output shape from it, the kernel (exec/kernels/einsum.c) its loops. The grammar is the ONNX
 * specification's: "term,term->term" with letters a-z and A-Z, "..." once per term for broadcast
 * dimensions (right-aligned, sizes of 1 broadcast), spaces ignored; without "->" the output is every
 * letter used exactly once, in alphabetical order, after the ellipsis' dimensions. */
#ifndef SIM_EINSUM_H
#define SIM_EINSUM_H

#include "base/error.h"

#include <glib.h>

#define EINSUM_MAX_LABELS 64 /* 52 letters and the ellipsis' dimensions */
#define EINSUM_MAX_OPERANDS 8

typedef struct {
    int n_inputs;
    int n_labels;                              /* labels 0..n_labels-1 */
    gint64 size[EINSUM_MAX_LABELS];            /* each label's extent (the broadcast of its dimensions) */
    int rank[EINSUM_MAX_OPERANDS];             /* each input's rank */
    int label[EINSUM_MAX_OPERANDS][EINSUM_MAX_LABELS]; /* input k's dimension d carries label[k][d] */
    int out_rank;
    int out_label[EINSUM_MAX_LABELS];
} EinsumSpec;

/* Reads `equation` for n_inputs operands of the given ranks and dims. FALSE with a message saying what is
 * wrong (a term count, a character, a rank, two sizes for one label). */
gboolean einsum_parse(const char *equation, int n_inputs, const int *ranks, const gint64 *const *dims,
                      EinsumSpec *spec, GError **error);

#endif
