/* window.c — the geometry of window ops (window.h): the 2-D plane of the tuned path and the N-d window, read
 * from a node's attributes, and the positions a window reads. */
#include "exec/kernels/window.h"
#include "ops/ops.h"

#include <string.h>



gboolean kernel_window_plane(const KernelCall *c, const ExecTensor *x, const ExecTensor *y, const gint64 *kernel_dims,
                             Window *w, GError **error)
{
    if (x->rank != 3 && x->rank != 4)
        return kernel_fail(c, error, "the 2-D window path takes inputs of rank 3 or 4, not %d", x->rank);
    gboolean one_d = x->rank == 3;
    const GArray *strides = NULL, *pads = NULL, *dil = NULL;
    const char *auto_pad;
    if (!node_attr_ints(c->node, "strides", &strides, error) || !node_attr_ints(c->node, "pads", &pads, error) ||
        !node_attr_ints(c->node, "dilations", &dil, error) ||
        !node_attr_string(c->node, "auto_pad", "NOTSET", &auto_pad, error))
        return FALSE;
    *w = (Window){.n = x->dims[0], .c = x->dims[1], .h = one_d ? 1 : x->dims[2], .w = x->dims[x->rank - 1],
                  .oh = one_d ? 1 : y->dims[2], .ow = y->dims[y->rank - 1],
                  .kh = one_d ? 1 : kernel_dims[0], .kw = kernel_dims[one_d ? 0 : 1],
                  .sh = one_d ? 1 : kernel_ints_at(strides, 0, 1), .sw = kernel_ints_at(strides, one_d ? 0 : 1, 1),
                  .dh = one_d ? 1 : kernel_ints_at(dil, 0, 1), .dw = kernel_ints_at(dil, one_d ? 0 : 1, 1)};
    if (!strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER")) {
        gint64 th = MAX(0, (w->oh - 1) * w->sh + (w->kh - 1) * w->dh + 1 - w->h);
        gint64 tw = MAX(0, (w->ow - 1) * w->sw + (w->kw - 1) * w->dw + 1 - w->w);
        gboolean upper = !strcmp(auto_pad, "SAME_UPPER");
        w->pt = one_d ? 0 : upper ? th / 2 : (th + 1) / 2;
        w->pl = upper ? tw / 2 : (tw + 1) / 2;
    } else {
        w->pt = one_d ? 0 : kernel_ints_at(pads, 0, 0);
        w->pl = kernel_ints_at(pads, one_d ? 0 : 1, 0);
    }
    return TRUE;
}

/* The valid output columns [*lo, *hi) of one kernel column kx: those whose input column ix = ox sw - pl +
 * kx dw falls inside [0, w). */
void kernel_window_columns(const Window *w, gint64 kx, gint64 *lo, gint64 *hi)
{
    gint64 off = kx * w->dw - w->pl; /* ix = ox sw + off */
    *lo = off >= 0 ? 0 : (-off + w->sw - 1) / w->sw;
    *hi = off >= w->w ? 0 : MIN(w->ow, (w->w - 1 - off) / w->sw + 1);
    *lo = MIN(*lo, *hi);
}

gboolean kernel_window_read(const KernelCall *c, const ExecTensor *x, const ExecTensor *y, const gint64 *kernel_dims,
                            KernelWindow *w, GError **error)
{
    const GArray *strides = NULL, *pads = NULL, *dil = NULL;
    const char *auto_pad;
    if (x->rank > KERNEL_MAX_RANK)
        return kernel_fail(c, error, "input rank %d is above the executor's %d", x->rank, KERNEL_MAX_RANK);
    if (!node_attr_ints(c->node, "strides", &strides, error) || !node_attr_ints(c->node, "pads", &pads, error) ||
        !node_attr_ints(c->node, "dilations", &dil, error) ||
        !node_attr_string(c->node, "auto_pad", "NOTSET", &auto_pad, error))
        return FALSE;
    memset(w, 0, sizeof(*w));
    w->s = x->rank - 2;
    w->n = x->dims[0];
    w->c = x->dims[1];
    gboolean same = !strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER");
    for (int a = 0; a < w->s; a++) {
        w->in[a] = x->dims[2 + a];
        w->out[a] = y->dims[2 + a];
        w->k[a] = kernel_dims[a];
        w->stride[a] = kernel_ints_at(strides, (guint)a, 1);
        w->dil[a] = kernel_ints_at(dil, (guint)a, 1);
        if (same) {
            gint64 total = MAX(0, (w->out[a] - 1) * w->stride[a] + (w->k[a] - 1) * w->dil[a] + 1 - w->in[a]);
            w->pad[a] = !strcmp(auto_pad, "SAME_UPPER") ? total / 2 : (total + 1) / 2;
        } else {
            w->pad[a] = strcmp(auto_pad, "VALID") ? kernel_ints_at(pads, (guint)a, 0) : 0;
        }
    }
    w->in_size = kernel_window_product(w->in, w->s);
    w->out_size = kernel_window_product(w->out, w->s);
    w->k_size = kernel_window_product(w->k, w->s);
    return TRUE;
}
