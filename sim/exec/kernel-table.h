/* kernel-table.h — the executor's kernels, one row per op it runs: the kernel function and what the
 * executor needs to know of it (a float32 form of a unary map, inline arithmetic, whether it takes an
 * epilogue or folds into one, whether it reads 16-bit floats or uncomputed inputs). The op table
 * (ops/op-table.c) keeps the planning columns only; the executor binds each op row to its kernel row by
 * name once (kernel_row). Adding a kernel is a function in exec/kernels/ and a row here. */
#ifndef SIM_EXEC_KERNEL_TABLE_H
#define SIM_EXEC_KERNEL_TABLE_H

#include "exec/kernel.h"
#include "ops/ops.h"

/* The tensor layouts a row's kernel reads and writes (ExecTensor.blocked; exec/layout.h chooses them). */
typedef enum {
    KERNEL_LAYOUT_PLAIN,       /* row-major only (the default) */
    KERNEL_LAYOUT_ELEMENTWISE, /* element by element: each input of the output's shape in the output's layout, or
                                  a scalar; with .arith Add, Sub, Mul or Div, also one value per channel of a
                                  blocked output (kernel_per_channel: a squeeze-excite's scale) */
    KERNEL_LAYOUT_CONCAT,      /* whole pieces one after another: channel-blocked ones over the channels of one
                                  image (axis 1, one image), every piece a whole number of blocks */
    KERNEL_LAYOUT_LIBRARY,     /* its library kernel, where .library_blocks accepts the call's layouts */
} KernelLayout;

typedef struct KernelRow {
    const char *name;          /* the op's name in the op table */
    gboolean internal;         /* one of sim's own ops (SIM_OP_DOMAIN) */
    const char *domain;        /* else its op's domain (OP_DOMAIN_MICROSOFT), or NULL for ONNX's */
    KernelFn kernel;
    KernelFn library;          /* the op on oneDNN, run instead of `kernel` when the executor uses the library
                                  (ExecOptions.kernels); it falls back on `kernel` where the library cannot */
    float (*unary_f)(float);   /* float32 form of the row's unary map, for the kernel's fast path, or NULL */
    void (*unary_array)(const float *in, float *out, gsize n); /* the same over an array, vectorised, or NULL */
    KernelArith arith;         /* binary ops computed inline on floats (ARITH_NONE: through the op's binary) */
    gboolean epilogue;         /* the kernel can clamp its output as it writes it (KernelCall.epilogue) */
    gboolean epilogue_gelu;    /* ... and also take the Gelus with a bias along the last axis (a product's) */
    KernelEpilogue folds_as;   /* what this op is when folded into such a kernel (EPILOGUE_NONE: never) */
    gboolean reads_16bit;      /* takes FLOAT16/BFLOAT16 tensors as they are (Cast: one rounding); every other
                                  kernel gets float32 copies of them and its outputs rounded back */
    gboolean reads_computed;   /* sim's own ops after guarded branches (IfSelect, ConcatComputed): the step runs
                                  though some inputs were not computed this run (the kernel sees NULL) */
    KernelLayout layout;
    gboolean (*library_blocks)(const KernelCall *c);
    KernelKind kind;           /* which member of its kernel's family the row is (a reduction's fold, a pool) */
    /* What the kernel reads of each input, checked once when the executor binds the step (kernel_row_check), so
     * that a rule missed at the door cannot become a read past a tensor: one token per input, space-separated,
     * the last one standing for every further input; NULL: nothing to hold. A token is an element type, then
     * optionally ':' and a count:
     *   f  float32 (a 16-bit float the executor widens counts as float32, unless .reads_16bit)
     *   b  bool      o  output 0's type      x  input 0's type      -  any type
     *   :c one value per channel of input 0 (its dims[1])      :C one per channel of output 0 (its dims[1])
     *   :l one per element of input 0's last axis             :s input 0's shape */
    const char *reads;
} KernelRow;

/* The kernel row of an op row; NULL when the executor has no kernel for it. */
const KernelRow *kernel_row(const OpInfo *op);
/* Holds node n's inputs, as planned, to its row's .reads: FALSE with one line naming the node, the input and
 * what the kernel reads. */
gboolean kernel_row_check(const KernelRow *row, const Node *n, GError **error);
/* The whole table, for listings and tests. */
const KernelRow *kernel_table(gsize *count);
/* The first row whose name no op row has (in its domain), or NULL: a row bound by name to nothing would never
 * run, so the tests hold the table to this. */
const char *kernel_table_unbound(void);

#endif
