/* layout.h — which activations lie channel-blocked (ExecTensor.blocked: oneDNN's nChw16c, 16 channels side by
 * side at each position) instead of row-major. A blocked convolution reading and writing plain tensors pays a
 * reorder on each side: on resnet50 a tenth of its time. Between kernels that all take the blocked layout
 * (the kernel table's .layout column: oneDNN's convolutions, elementwise ops on same-shaped tensors, a channel
 * Concat of one image) there is nothing to reorder. The layout has the plain layout's size when the channels
 * are a multiple of 16, so the plan does not change; it is chosen from the graph and the shapes alone, so a
 * planned run and its reference (--check) choose alike and give the same bits. */
#ifndef SIM_EXEC_LAYOUT_H
#define SIM_EXEC_LAYOUT_H

#include "exec/kernel.h"

/* Whether an executor binds t to memory (exec-bind.c, and the layouts chosen here): a known shape, and computed,
 * given or constant. */
gboolean exec_tensor_bound(const Tensor *t);

/* Sets tensors[id].blocked (the executor's tensors, bound; tensors[id].data NULL for one not bound) for the
 * largest set of tensors in which every one is written and read only by kernels that take the layout, in
 * their layouts as chosen; never a graph input or output, a weight, a data-dependent tensor, or one a step of
 * plain_step (per schedule step: not on the kernel its row names, e.g. guarded or data-dependent) touches. A step
 * on 16-bit floats is asked as its kernel sees it, on float32. Returns how many. Linear in the graph, but for the
 * library's own check of each convolution it touches (a primitive descriptor, no primitive). */
guint layout_choose(const GPtrArray *schedule, gint64 opset, const Graph *g, ExecTensor *tensors,
                    const gboolean *plain_step);

#endif
