/* onednn.c — the products on oneDNN (exec/onednn.h): Conv and FusedConv over 1, 2 or 3 spatial axes, MatMul,
 * FusedMatMul and Gemm. Each node gets its primitive at its first call, kept in its KernelPrepared with its
 * constant weights reordered once into the layout the primitive reads (the packing ONNX Runtime does when a
 * session starts; those bytes are the executor's own memory, reported beside the arena). Activations stay
 * where the plan put them. A convolution reads and writes a channel-blocked tensor (ExecTensor.blocked, which
 * exec/layout.h chooses between such kernels) as it lies; a plain one it reorders into the blocked layout in
 * the kernel workspace, and its output back. A product reads and writes the planned bytes directly. The
 * convolutions our own kernel does faster between plain tensors (one tap, depthwise, a shallow product), and
 * the nodes oneDNN cannot run (a batch of transposed operands, an unsupported data type, a geometry it
 * refuses), run on the row's own kernel, decided at the node's first call. The same node gets the same
 * primitive in every executor, so a planned run and its reference give the same bits (--check). */
#include "exec/kernel.h"
#include "exec/kernel-table.h"
#include "exec/kernels/skinny.h"
#include "exec/onednn.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

typedef struct {
    dnnl_primitive_t prim;
    dnnl_primitive_t to_blocked, from_blocked, sum_to_blocked; /* reorders around a blocked convolution, or NULL */
    dnnl_memory_t src, wei, bias, dst;                         /* the plain tensors (handles set per call); wei
                                                                  is the packed copy when packed */
    dnnl_memory_t src_b, dst_b, scratch;                       /* blocked copies, the scratchpad: workspace */
    gsize src_b_bytes, dst_b_bytes, scratch_bytes;
    gboolean packed;   /* weights reordered once, at preparation */
    gboolean sum;      /* FusedConv: the product adds onto what the output holds */
    gboolean post_op;  /* the call's folded activation is the primitive's post-op (else applied after it) */
    /* Or no primitive: a product of at most 16 rows on our skinny kernel (skinny.h), its B packed in panels,
     * A's `rows` rows at a_row and a_col element strides, times alpha */
    KernelSkinny skinny;
    gint64 rows, a_row, a_col;
    float alpha;
    gboolean skinny_bias; /* Gemm's C row is added */
} Prim;

static void prim_free(void *p_)
{
    Prim *p = p_;
    dnnl_primitive_t prims[] = {p->prim, p->to_blocked, p->from_blocked, p->sum_to_blocked};
    for (gsize k = 0; k < G_N_ELEMENTS(prims); k++)
        if (prims[k])
            onednn.dnnl_primitive_destroy(prims[k]);
    dnnl_memory_t mems[] = {p->src, p->wei, p->bias, p->dst, p->src_b, p->dst_b, p->scratch};
    for (gsize k = 0; k < G_N_ELEMENTS(mems); k++)
        if (mems[k])
            onednn.dnnl_memory_destroy(mems[k]);
    kernel_skinny_clear(&p->skinny);
    g_free(p);
}

/* A plain float32 descriptor of `rank` dims with the given element strides (row-major when strides is NULL). */
static gboolean plain_md(dnnl_memory_desc_t *md, int rank, const gint64 *dims, const gint64 *strides)
{
    dnnl_dims_t d, s;
    gint64 step = 1;
    for (int k = rank - 1; k >= 0; k--) {
        d[k] = dims[k];
        s[k] = strides ? strides[k] : step;
        step *= MAX(dims[k], 1);
    }
    return onednn.dnnl_memory_desc_init_by_strides(md, rank, d, dnnl_f32, s) == dnnl_success;
}

static gboolean any_md(dnnl_memory_desc_t *md, int rank, const gint64 *dims)
{
    dnnl_dims_t d;
    for (int k = 0; k < rank; k++)
        d[k] = dims[k];
    return onednn.dnnl_memory_desc_init_by_tag(md, rank, d, dnnl_f32, dnnl_format_tag_any) == dnnl_success;
}

/* Memory over a descriptor, its handle set at every call (DNNL_MEMORY_NONE), or allocated by oneDNN. */
static gboolean memory(dnnl_memory_t *m, const dnnl_memory_desc_t *md, gboolean allocate)
{
    return onednn.dnnl_memory_create(m, md, onednn.engine, allocate ? DNNL_MEMORY_ALLOCATE : DNNL_MEMORY_NONE) ==
           dnnl_success;
}

static gboolean reorder(dnnl_primitive_t *r, const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to)
{
    dnnl_primitive_desc_t pd;
    if (onednn.dnnl_reorder_primitive_desc_create(&pd, from, onednn.engine, to, onednn.engine, NULL) != dnnl_success)
        return FALSE;
    gboolean ok = onednn.dnnl_primitive_create(r, pd) == dnnl_success;
    onednn.dnnl_primitive_desc_destroy(pd);
    return ok;
}

static gboolean run2(dnnl_primitive_t r, dnnl_memory_t from, dnnl_memory_t to)
{
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    return onednn.dnnl_primitive_execute(r, onednn.stream, 2, args) == dnnl_success;
}

/* The attributes every primitive gets: the scratchpad in our workspace; a sum onto the output; the product
 * scaled by alpha; and, when `epilogue` is not NULL, that call's folded activation as an eltwise post-op,
 * applied while each block of the output is in cache (not a separate pass over the output). Its values are
 * oneDNN's (its Relu writes -0 where ours writes 0, its HardSwish and swish round their own way); the reference
 * run of --check folds the same steps (exec-prepare.c), so the bits agree. A Clip to an infinite bound stays ours
 * (oneDNN's would clamp an infinity). */
static gboolean post_op(dnnl_post_ops_t ops, const KernelCall *c)
{
    switch (c->epilogue) {
    case EPILOGUE_RELU: return onednn.dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f) == dnnl_success;
    case EPILOGUE_CLIP:
        return isfinite(c->epilogue_lo) && isfinite(c->epilogue_hi) &&
               onednn.dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_clip_v2, c->epilogue_lo, c->epilogue_hi) ==
                   dnnl_success;
    case EPILOGUE_HARD_SWISH:
        return onednn.dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_hardswish, 0.0f, 0.0f) == dnnl_success;
    case EPILOGUE_SILU: return onednn.dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_swish, 1.0f, 0.0f) == dnnl_success;
    case EPILOGUE_GELU: /* (the bias goes in as the product's own: product_prepare) */
        return onednn.dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_gelu_erf, 0.0f, 0.0f) == dnnl_success;
    case EPILOGUE_GELU_TANH:
        return onednn.dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_gelu_tanh, 0.0f, 0.0f) == dnnl_success;
    default: return FALSE;
    }
}

static dnnl_primitive_attr_t attributes(gboolean sum, float alpha, const KernelCall *epilogue)
{
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t ops;
    if (onednn.dnnl_primitive_attr_create(&attr) != dnnl_success)
        return NULL;
    if (onednn.dnnl_post_ops_create(&ops) != dnnl_success) {
        onednn.dnnl_primitive_attr_destroy(attr);
        return NULL;
    }
    gboolean ok = onednn.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) == dnnl_success;
    if (ok && sum)
        ok = onednn.dnnl_post_ops_append_sum(ops, 1.0f) == dnnl_success;
    if (ok && epilogue)
        ok = post_op(ops, epilogue);
    if (ok)
        ok = onednn.dnnl_primitive_attr_set_post_ops(attr, ops) == dnnl_success;
    if (ok && alpha != 1.0f)
        ok = onednn.dnnl_primitive_attr_set_output_scales(attr, 1, 0, &alpha) == dnnl_success;
    onednn.dnnl_post_ops_destroy(ops);
    if (!ok) {
        onednn.dnnl_primitive_attr_destroy(attr);
        return NULL;
    }
    return attr;
}

static gsize md_bytes(const dnnl_memory_desc_t *md) { return md ? onednn.dnnl_memory_desc_get_size(md) : 0; }
static gsize round64(gsize n) { return (n + 63) / 64 * 64; }

/* Everything after the primitive descriptor: the memories and reorders for src, weights, bias and dst, given
 * the plain descriptors of the tensors. The weights, when constant, are reordered now into the descriptor the
 * primitive asks for. */
static gboolean prim_finish(Prim *p, KernelPrepared *prep, dnnl_primitive_desc_t pd, const dnnl_memory_desc_t *src,
                            const dnnl_memory_desc_t *wei, void *wei_data, gboolean constant,
                            const dnnl_memory_desc_t *bias, const dnnl_memory_desc_t *dst)
{
    const dnnl_memory_desc_t *psrc = onednn.dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0),
                             *pwei = onednn.dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                             *pdst = onednn.dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0),
                             *pscr = onednn.dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (!psrc || !pwei || !pdst || onednn.dnnl_primitive_create(&p->prim, pd) != dnnl_success)
        return FALSE;
    if (!memory(&p->src, src, FALSE) || !memory(&p->dst, dst, FALSE) || (bias && !memory(&p->bias, bias, FALSE)))
        return FALSE;
    if (!onednn.dnnl_memory_desc_equal(psrc, src)) {
        p->src_b_bytes = round64(md_bytes(psrc));
        if (!memory(&p->src_b, psrc, FALSE) || !reorder(&p->to_blocked, src, psrc))
            return FALSE;
    }
    if (!onednn.dnnl_memory_desc_equal(pdst, dst)) {
        p->dst_b_bytes = round64(md_bytes(pdst));
        if (!memory(&p->dst_b, pdst, FALSE) || !reorder(&p->from_blocked, pdst, dst) ||
            (p->sum && !reorder(&p->sum_to_blocked, dst, pdst)))
            return FALSE;
    }
    p->scratch_bytes = round64(md_bytes(pscr));
    if (p->scratch_bytes && !memory(&p->scratch, pscr, FALSE))
        return FALSE;
    if (constant && !onednn.dnnl_memory_desc_equal(pwei, wei)) { /* pack the weights once */
        dnnl_memory_t user;
        dnnl_primitive_t r;
        if (!memory(&user, wei, FALSE))
            return FALSE;
        gboolean ok = onednn.dnnl_memory_set_data_handle(user, wei_data) == dnnl_success && reorder(&r, wei, pwei);
        if (ok) {
            ok = memory(&p->wei, pwei, TRUE) && run2(r, user, p->wei) &&
                 onednn.dnnl_stream_wait(onednn.stream) == dnnl_success;
            onednn.dnnl_primitive_destroy(r);
        }
        onednn.dnnl_memory_destroy(user);
        if (!ok)
            return FALSE;
        p->packed = TRUE;
        prep->bytes += md_bytes(pwei);
        return TRUE;
    }
    return onednn.dnnl_memory_desc_equal(pwei, wei) && memory(&p->wei, wei, FALSE);
}

/* Runs a prepared primitive on the call's tensors: the reorders into the workspace around it where the
 * primitive reads a blocked layout. */
static gboolean prim_run(const KernelCall *c, Prim *p, void *src, void *wei, void *bias, void *dst, GError **error)
{
    gsize total = p->src_b_bytes + p->dst_b_bytes + p->scratch_bytes;
    guint8 *ws = total ? kernel_workspace(c, total) : NULL;
    if (total && !ws)
        return kernel_fail(c, error, "its oneDNN workspace of %" G_GSIZE_FORMAT " bytes cannot be allocated", total);
    gboolean ok = onednn.dnnl_memory_set_data_handle(p->src, src) == dnnl_success &&
                  onednn.dnnl_memory_set_data_handle(p->dst, dst) == dnnl_success &&
                  (!p->bias || onednn.dnnl_memory_set_data_handle(p->bias, bias) == dnnl_success) &&
                  (p->packed || onednn.dnnl_memory_set_data_handle(p->wei, wei) == dnnl_success) &&
                  (!p->src_b || onednn.dnnl_memory_set_data_handle(p->src_b, ws) == dnnl_success) &&
                  (!p->dst_b || onednn.dnnl_memory_set_data_handle(p->dst_b, ws + p->src_b_bytes) == dnnl_success) &&
                  (!p->scratch || onednn.dnnl_memory_set_data_handle(p->scratch, ws + p->src_b_bytes + p->dst_b_bytes) ==
                                      dnnl_success);
    dnnl_memory_t in = p->src_b ? p->src_b : p->src, out = p->dst_b ? p->dst_b : p->dst;
    ok = ok && (!p->to_blocked || run2(p->to_blocked, p->src, p->src_b)) &&
         (!p->sum_to_blocked || run2(p->sum_to_blocked, p->dst, p->dst_b));
    if (ok) {
        dnnl_exec_arg_t args[5] = {{DNNL_ARG_SRC, in}, {DNNL_ARG_WEIGHTS, p->wei}, {DNNL_ARG_DST, out}};
        int n = 3;
        if (p->bias)
            args[n++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, p->bias};
        if (p->scratch)
            args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, p->scratch};
        ok = onednn.dnnl_primitive_execute(p->prim, onednn.stream, n, args) == dnnl_success;
    }
    ok = ok && (!p->from_blocked || run2(p->from_blocked, p->dst_b, p->dst)) &&
         onednn.dnnl_stream_wait(onednn.stream) == dnnl_success;
    return ok ? TRUE : kernel_fail(c, error, "oneDNN failed to run it");
}

/* Whether the node's weight input k is a constant (initializer, Constant), so it may be packed once. */
static gboolean constant_input(const KernelCall *c, guint k)
{
    const Tensor *t = node_input(c->node, k);
    return t && t->init;
}

/* pd, unless it is oneDNN's reference implementation (plain loops, for a layout or geometry none of its
 * kernels takes, as for a depthwise layer between a blocked input and a channel-last output: orders of
 * magnitude slower than ours), which is destroyed: NULL. */
static dnnl_primitive_desc_t not_reference(dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    if (pd && onednn.dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl &&
        g_str_has_prefix(impl, "ref")) {
        onednn.dnnl_primitive_desc_destroy(pd);
        return NULL;
    }
    return pd;
}

/* A float32 descriptor of a tensor as it lies: row-major, or channel-blocked (ExecTensor.blocked: oneDNN's
 * nChw16c). */
static gboolean tensor_md(dnnl_memory_desc_t *md, const ExecTensor *t)
{
    if (!t->blocked)
        return plain_md(md, t->rank, t->dims, NULL);
    if (t->rank != 4)
        return FALSE;
    dnnl_dims_t d = {t->dims[0], t->dims[1], t->dims[2], t->dims[3]};
    return onednn.dnnl_memory_desc_init_by_tag(md, 4, d, dnnl_f32, dnnl_aBcd16b) == dnnl_success;
}

/* A convolution's tensors as they lie, for prim_finish. */
typedef struct {
    dnnl_memory_desc_t src, wei, bias, dst;
    gboolean has_bias, constant, sum, post_op;
    const char *winograd; /* the Winograd variant that runs it ("Winograd F(4x4,3x3)"), or NULL (direct) */
} ConvMds;

/* oneDNN's Winograd variants on AVX-512, by the tile of output each computes, and the implementation that has
 * it (its name in ONEDNN_VERBOSE=1). */
typedef struct {
    const char *name, *impl;
} WinogradVariant;

static const WinogradVariant winograd_f2 = {"Winograd F(2x2,3x3)", "wino_2x3"},
                             winograd_f4 = {"Winograd F(4x4,3x3)", "wino_4x3"};

/* Which Winograd variant runs a 2-D 3 x 3 stride-1 convolution of `in` -> `out` channels on an output map of
 * `positions`, or NULL for the direct kernel. Chosen from each variant's time alone on every such shape of the
 * corpus, one thread, weights from memory (bench/winograd.sh, results/winograd.md; docs/executor.md). The
 * product shrinks from 9 multiplications per output to 4 (F(2x2)) or 2.25 (F(4x4)), but the weights grow to
 * 16/9 or 36/9 of theirs, read from memory at every call, and each map is transformed in and out:
 *  - a map of under 13 x 13 positions runs direct: its products are too few to pay for the larger weights;
 *  - from 32 x 32 to 100 x 100 positions F(4x4); elsewhere F(2x2), whose smaller tiles keep the transformed
 *    map nearer the core on large maps and waste fewer positions at the edges of small ones;
 *  - from 16 to 32 input channels, only F(2x2), and only where the output has at least twice as many on a map
 *    of 27 x 27 or more (fewer than 16 are padded to 16 in its transforms): the transforms cost about what the
 *    few channels save, unless each transformed input feeds more products. */
static const WinogradVariant *winograd_variant(gint64 in, gint64 out, gint64 positions)
{
    if (in <= 32)
        return in >= 16 && out >= 2 * in && positions >= 729 ? &winograd_f2 : NULL;
    if (positions < 169)
        return NULL;
    return positions >= 1000 && positions < 10000 ? &winograd_f4 : &winograd_f2;
}

/* The primitive descriptor of oneDNN's implementation of the Winograd variant *v for cd under attr, else of
 * the other variant where oneDNN has only that one for the shape (its F(2x2) declines some shapes, which its
 * F(4x4) still runs faster than direct), with *v set to it; NULL where it has
 * neither (a CPU without AVX-512, a post-op it lacks). One pass over oneDNN's implementations. */
static dnnl_primitive_desc_t pd_of_variant(const void *cd, dnnl_primitive_attr_t attr, const WinogradVariant **v)
{
    const WinogradVariant *other = *v == &winograd_f2 ? &winograd_f4 : &winograd_f2;
    dnnl_primitive_desc_iterator_t it;
    if (onednn.dnnl_primitive_desc_iterator_create(&it, cd, attr, onednn.engine, NULL) != dnnl_success)
        return NULL;
    dnnl_primitive_desc_t fallback = NULL, found = NULL;
    do {
        dnnl_primitive_desc_t pd = onednn.dnnl_primitive_desc_iterator_fetch(it);
        const char *name = NULL;
        if (pd && onednn.dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) == dnnl_success && name &&
            strstr(name, (*v)->impl))
            found = pd;
        else if (pd && name && !fallback && strstr(name, other->impl))
            fallback = pd;
        else if (pd)
            onednn.dnnl_primitive_desc_destroy(pd);
    } while (!found && onednn.dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    onednn.dnnl_primitive_desc_iterator_destroy(it);
    if (found) {
        if (fallback)
            onednn.dnnl_primitive_desc_destroy(fallback);
        return found;
    }
    if (fallback)
        *v = other;
    return fallback;
}

/* The convolution's primitive descriptor over the call's tensors in their layouts (a blocked tensor is read
 * and written as it lies; a plain one through a reorder when the primitive wants another layout), with the
 * call's folded activation as a post-op where oneDNN takes it (m->post_op). NULL where oneDNN cannot run it (a
 * data type, a geometry it refuses) or, both tensors plain, where our own kernel is faster; *error set only
 * when reading the node failed. */
static dnnl_primitive_desc_t conv_pd(const KernelCall *c, ConvMds *m, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *w = kernel_in(c, 1), *bias = kernel_in(c, 2), *sum = kernel_in(c, 3);
    const ExecTensor *y = kernel_out(c, 0);
    gint64 group;
    if (!node_attr_int(c->node, "group", 1, &group, error))
        return NULL;
    if (bias && !bias->count)
        bias = NULL;
    if (x->dtype != DT_FLOAT || w->dtype != DT_FLOAT || (bias && bias->dtype != DT_FLOAT) ||
        (sum && sum->dtype != DT_FLOAT) || x->rank < 3 || x->rank > 5 || group < 1 || !x->count || w->blocked ||
        (bias && bias->blocked) || (sum && sum->blocked != y->blocked))
        return NULL;
    KernelWindow g;
    if (!kernel_window_read(c, x, y, w->dims + 2, &g, error))
        return NULL;
    gint64 taps = g.k_size;
    dnnl_dims_t st, dl, pl, pr;
    for (int a = 0; a < g.s; a++) {
        st[a] = g.stride[a];
        dl[a] = g.dil[a] - 1;
        pl[a] = g.pad[a];
        /* the end padding the output size implies */
        pr[a] = (g.out[a] - 1) * g.stride[a] + (g.k[a] - 1) * g.dil[a] + 1 - g.in[a] - g.pad[a];
        if (pl[a] < 0 || st[a] < 1 || g.dil[a] < 1)
            return NULL;
    }
    /* the weights [M, C/group, k...], or [group, M/group, C/group, k...] */
    gint64 wdims[KERNEL_MAX_RANK + 1];
    int wrank = w->rank;
    if (group > 1) {
        wdims[0] = group;
        wdims[1] = w->dims[0] / group;
        memcpy(wdims + 2, w->dims + 1, sizeof(gint64) * (gsize)(w->rank - 1));
        wrank++;
    } else {
        memcpy(wdims, w->dims, sizeof(gint64) * (gsize)w->rank);
    }
    gint64 positions = 1;
    for (int a = 0; a < g.s; a++)
        positions *= g.out[a];
    /* Where both tensors are plain, some convolutions run faster on our own kernel than between the reorders a
     * blocked one needs (docs/executor.md; the figures are in results/history.md). A one-tap window is one
     * sgemm over the planes as they lie, at any stride, down to maps of 65 positions; on 64 or fewer the
     * product is skinny and its weights dominate: OpenBLAS packs them at every call, oneDNN once. A depthwise
     * window is summed plane by plane. A shallow product (few channels times taps, under 64) costs less as
     * im2col and one sgemm. */
    gboolean plain = !x->blocked && !y->blocked;
    if (plain && ((taps == 1 && positions > 64) || (group > 1 && group == x->dims[1] && group == y->dims[1]) ||
                  x->dims[1] / group * taps < 64))
        return NULL;
    /* A one-tap window from a blocked input into channels that make no whole blocks (a plain output, which
     * oneDNN writes through a reorder): declined where the map has more positions than output channels and the
     * input is another convolution's output read by nothing else, so that the input turns plain and the one
     * sgemm above runs it. Where the weights outweigh the map, oneDNN's packed weights win; where the input has
     * other readers or another writer, they would turn plain too (results/history.md has the figures). Another
     * convolution: the same op (one kernel row each). */
    const Tensor *xt = node_input(c->node, 0);
    if (x->blocked && !y->blocked && y->dims[1] % 16 != 0 && taps == 1 && positions > 64 && positions >= y->dims[1] &&
        xt && xt->consumers->len == 1 && xt->producer && xt->producer->op == c->node->op)
        return NULL;
    m->constant = constant_input(c, 1);
    m->has_bias = bias != NULL;
    m->sum = sum != NULL;
    dnnl_memory_desc_t asrc, awei, adst;
    if (!tensor_md(&m->src, x) || !tensor_md(&m->dst, y) || !plain_md(&m->wei, wrank, wdims, NULL) ||
        (bias && !plain_md(&m->bias, 1, bias->dims, NULL)) || !any_md(&awei, wrank, wdims))
        return NULL;
    /* The primitive reads and writes a blocked tensor as it lies; a plain one through a reorder, into the blocked
     * layout when the other is blocked and its channels make whole blocks (else into the layout oneDNN picks:
     * mixing it with a blocked one can leave only the reference implementation) */
    ExecTensor bx = *x, by = *y;
    bx.blocked = by.blocked = !plain;
    if (!(bx.blocked && x->dims[1] % 16 == 0 ? tensor_md(&asrc, &bx) : any_md(&asrc, x->rank, x->dims)) ||
        !(by.blocked && y->dims[1] % 16 == 0 ? tensor_md(&adst, &by) : any_md(&adst, y->rank, y->dims)))
        return NULL;
    /* Winograd's minimal filtering where oneDNN has it and winograd_variant chooses it, with the variant it
     * chooses; the direct kernel elsewhere, and where oneDNN refuses that variant. */
    const WinogradVariant *variant =
        c->winograd && g.s == 2 && group == 1 && g.k[0] == 3 && g.k[1] == 3 && st[0] == 1 && st[1] == 1 &&
                dl[0] == 0 && dl[1] == 0 && m->constant
            ? winograd_variant(x->dims[1], y->dims[1], positions)
            : NULL;
    dnnl_primitive_desc_t pd = NULL;
    for (int alg = variant ? 0 : 1; alg < 2 && !pd; alg++) {
        dnnl_convolution_desc_t cd;
        if (onednn.dnnl_dilated_convolution_forward_desc_init(
                &cd, dnnl_forward_inference, alg == 0 ? dnnl_convolution_winograd : dnnl_convolution_direct, &asrc,
                m->constant ? &awei : &m->wei, bias ? &m->bias : NULL, &adst, st, dl, pl, pr) != dnnl_success)
            continue;
        for (int with_post_op = c->epilogue != EPILOGUE_NONE; with_post_op >= 0 && !pd; with_post_op--) {
            dnnl_primitive_attr_t attr = attributes(m->sum, 1.0f, with_post_op ? c : NULL);
            if (attr && alg == 0)
                pd = pd_of_variant(&cd, attr, &variant);
            else if (attr && onednn.dnnl_primitive_desc_create(&pd, &cd, attr, onednn.engine, NULL) != dnnl_success)
                pd = NULL;
            if (attr)
                onednn.dnnl_primitive_attr_destroy(attr);
            pd = not_reference(pd);
            m->post_op = pd && with_post_op;
            m->winograd = pd && alg == 0 ? variant->name : NULL;
        }
    }
    return pd;
}

/* The prepared primitive of this call, made now at its first call; NULL when the row's own kernel runs the
 * node (declined now or before), with *error set only when reading the node failed. */
typedef Prim *(*Prepare)(const KernelCall *c, KernelPrepared *prep, GError **error);

static Prim *prepared(const KernelCall *c, Prepare prepare, GError **error)
{
    KernelPrepared *prep = c->prepared;
    if (!prep || prep->declined)
        return NULL;
    if (!prep->state) {
        Prim *p = prepare(c, prep, error);
        if (!p) {
            prep->declined = TRUE;
            return NULL;
        }
        prep->state = p;
        prep->free = prim_free;
        prep->by = p->skinny.panels ? NULL : onednn_describe(); /* (the skinny kernel is our own) */
    }
    return prep->state;
}

static Prim *conv_prepare_call(const KernelCall *c, KernelPrepared *prep, GError **error)
{
    ConvMds m;
    dnnl_primitive_desc_t pd = conv_pd(c, &m, error);
    if (!pd)
        return NULL;
    Prim *p = g_new0(Prim, 1);
    p->sum = m.sum;
    p->post_op = m.post_op;
    gboolean ok = prim_finish(p, prep, pd, &m.src, &m.wei, kernel_in(c, 1)->data, m.constant,
                              m.has_bias ? &m.bias : NULL, &m.dst);
    onednn.dnnl_primitive_desc_destroy(pd);
    if (!ok) {
        prim_free(p);
        return NULL;
    }
    prep->algorithm = m.winograd;
    return p;
}

gboolean kernel_conv_onednn_blocks(const KernelCall *c)
{
    ConvMds m;
    dnnl_primitive_desc_t pd = onednn.engine ? conv_pd(c, &m, NULL) : NULL;
    if (pd)
        onednn.dnnl_primitive_desc_destroy(pd);
    return pd != NULL;
}

gboolean kernel_conv_onednn(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *w = kernel_in(c, 1), *bias = kernel_in(c, 2), *sum = kernel_in(c, 3);
    ExecTensor *y = kernel_out(c, 0);
    Prim *p = prepared(c, conv_prepare_call, error);
    if (!p && error && *error)
        return FALSE;
    if (!p && (x->blocked || y->blocked)) /* the layouts were chosen with kernel_conv_onednn_blocks */
        return kernel_fail(c, error, "oneDNN refused the channel-blocked layout chosen for its tensors");
    if (!p)
        return c->row->kernel(c, error);
    /* FusedConv: the products add onto the tensor it adds (in place when the plan put the output over it) */
    if (sum && sum->data != y->data)
        memcpy(y->data, sum->data, y->count * sizeof(float));
    if (!prim_run(c, p, x->data, w->data, p->bias ? bias->data : NULL, y->data, error))
        return FALSE;
    if (c->epilogue && !p->post_op)
        kernel_epilogue_whole(c, y->data, y->count);
    return TRUE;
}

/* A pooling's primitive descriptor (MaxPool, AveragePool and their global forms) over a channel-blocked input,
 * its output blocked too or of one position (then the same bytes in either layout); NULL for anything else
 * (a plain input, MaxPool's indices, a window that starts past the input). */
static dnnl_primitive_desc_t pool_pd(const KernelCall *c, dnnl_memory_desc_t *src, dnnl_memory_desc_t *dst)
{
    const ExecTensor *x = kernel_in(c, 0), *y = kernel_out(c, 0);
    KernelKind kind = kernel_kind(c);
    gboolean global = kind == KIND_GLOBAL_POOL_MAX || kind == KIND_GLOBAL_POOL_AVERAGE;
    gboolean is_max = kind == KIND_POOL_MAX || kind == KIND_GLOBAL_POOL_MAX;
    if (!x->blocked || x->dtype != DT_FLOAT || !y || y->dtype != DT_FLOAT || (c->n_out > 1 && kernel_out(c, 1)) ||
        x->rank < 3 || x->rank > 5 || y->rank != x->rank || !x->count)
        return NULL;
    int s = x->rank - 2;
    gint64 positions = 1;
    for (int a = 0; a < s; a++)
        positions *= y->dims[2 + a];
    if (!y->blocked && positions != 1)
        return NULL;
    dnnl_alg_kind_t alg = is_max ? dnnl_pooling_max : dnnl_pooling_avg_exclude_padding;
    dnnl_dims_t st, k, dl, pl, pr;
    if (global) {
        for (int a = 0; a < s; a++) {
            st[a] = 1;
            k[a] = x->dims[2 + a];
            dl[a] = pl[a] = pr[a] = 0;
        }
    } else {
        const GArray *shape = NULL;
        gint64 include_pad;
        KernelWindow g;
        if (!node_attr_ints(c->node, "kernel_shape", &shape, NULL) || !shape || shape->len != (guint)s ||
            !node_attr_int(c->node, "count_include_pad", 0, &include_pad, NULL) ||
            !kernel_window_read(c, x, y, (const gint64 *)(const void *)shape->data, &g, NULL))
            return NULL;
        if (!is_max && include_pad)
            alg = dnnl_pooling_avg_include_padding;
        for (int a = 0; a < s; a++) {
            st[a] = g.stride[a];
            k[a] = g.k[a];
            dl[a] = g.dil[a] - 1;
            pl[a] = g.pad[a];
            pr[a] = (g.out[a] - 1) * g.stride[a] + (g.k[a] - 1) * g.dil[a] + 1 - g.in[a] - g.pad[a];
            if (pl[a] < 0 || pr[a] < 0 || g.stride[a] < 1 || g.dil[a] < 1 || g.out[a] < 1 ||
                (g.out[a] - 1) * g.stride[a] - g.pad[a] >= g.in[a]) /* the last window starts inside */
                return NULL;
        }
    }
    ExecTensor out = *y;
    out.blocked = TRUE; /* (one position: the same bytes) */
    dnnl_pooling_v2_desc_t pd_desc;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t attr = attributes(FALSE, 1.0f, NULL);
    if (!attr || !tensor_md(src, x) || !tensor_md(dst, &out) ||
        onednn.dnnl_pooling_v2_forward_desc_init(&pd_desc, dnnl_forward_inference, alg, src, dst, st, k, dl, pl, pr) !=
            dnnl_success ||
        onednn.dnnl_primitive_desc_create(&pd, &pd_desc, attr, onednn.engine, NULL) != dnnl_success)
        pd = NULL;
    if (attr)
        onednn.dnnl_primitive_attr_destroy(attr);
    return not_reference(pd);
}

static Prim *pool_prepare_call(const KernelCall *c, KernelPrepared *prep, GError **error)
{
    (void)prep;
    (void)error;
    dnnl_memory_desc_t src, dst;
    dnnl_primitive_desc_t pd = pool_pd(c, &src, &dst);
    if (!pd)
        return NULL;
    Prim *p = g_new0(Prim, 1);
    const dnnl_memory_desc_t *pscr = onednn.dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    p->scratch_bytes = round64(md_bytes(pscr));
    gboolean ok = onednn.dnnl_primitive_create(&p->prim, pd) == dnnl_success && memory(&p->src, &src, FALSE) &&
                  memory(&p->dst, &dst, FALSE) && (!p->scratch_bytes || memory(&p->scratch, pscr, FALSE));
    onednn.dnnl_primitive_desc_destroy(pd);
    if (!ok) {
        prim_free(p);
        return NULL;
    }
    return p;
}

gboolean kernel_pool_onednn_blocks(const KernelCall *c)
{
    dnnl_memory_desc_t src, dst;
    dnnl_primitive_desc_t pd = onednn.engine ? pool_pd(c, &src, &dst) : NULL;
    if (pd)
        onednn.dnnl_primitive_desc_destroy(pd);
    return pd != NULL;
}

gboolean kernel_pool_onednn(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0);
    ExecTensor *y = kernel_out(c, 0);
    Prim *p = prepared(c, pool_prepare_call, error);
    if (!p && x->blocked)
        return kernel_fail(c, error, "oneDNN refused the channel-blocked layout chosen for its tensors");
    if (!p)
        return c->row->kernel(c, error);
    void *ws = p->scratch_bytes ? kernel_workspace(c, p->scratch_bytes) : NULL;
    if (p->scratch_bytes && !ws)
        return kernel_fail(c, error, "its oneDNN workspace of %" G_GSIZE_FORMAT " bytes cannot be allocated",
                           p->scratch_bytes);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, p->src}, {DNNL_ARG_DST, p->dst}, {DNNL_ARG_SCRATCHPAD, p->scratch}};
    gboolean ok = onednn.dnnl_memory_set_data_handle(p->src, x->data) == dnnl_success &&
                  onednn.dnnl_memory_set_data_handle(p->dst, y->data) == dnnl_success &&
                  (!p->scratch || onednn.dnnl_memory_set_data_handle(p->scratch, ws) == dnnl_success) &&
                  onednn.dnnl_primitive_execute(p->prim, onednn.stream, p->scratch ? 3 : 2, args) == dnnl_success &&
                  onednn.dnnl_stream_wait(onednn.stream) == dnnl_success;
    return ok ? TRUE : kernel_fail(c, error, "oneDNN failed to run it");
}

/* A matmul primitive over the given descriptors; `packed` (a constant B) lets oneDNN choose the weights'
 * layout, into which they are reordered once. With `epilogue` (a call with a folded activation), the
 * activation is the primitive's post-op where oneDNN takes it (p->post_op), a folded BiasGelu's bias
 * (`epilogue_bias`, in place of `bias`, which is then NULL) its own bias, added before the post-op. */
static Prim *product_prepare(KernelPrepared *prep, const dnnl_memory_desc_t *src,
                             const dnnl_memory_desc_t *wei, const dnnl_memory_desc_t *packed, void *wei_data,
                             const dnnl_memory_desc_t *bias, const dnnl_memory_desc_t *dst, float alpha,
                             const KernelCall *epilogue, const dnnl_memory_desc_t *epilogue_bias)
{
    Prim *p = g_new0(Prim, 1);
    gboolean ok = FALSE;
    for (int with_post_op = epilogue != NULL; with_post_op >= 0 && !ok; with_post_op--) {
        const dnnl_memory_desc_t *b = with_post_op && epilogue_bias ? epilogue_bias : bias;
        dnnl_primitive_attr_t attr = attributes(FALSE, alpha, with_post_op ? epilogue : NULL);
        dnnl_matmul_desc_t md;
        dnnl_primitive_desc_t pd = NULL;
        ok = attr && onednn.dnnl_matmul_desc_init(&md, src, packed ? packed : wei, b, dst) == dnnl_success &&
             onednn.dnnl_primitive_desc_create(&pd, &md, attr, onednn.engine, NULL) == dnnl_success &&
             prim_finish(p, prep, pd, src, wei, wei_data, packed != NULL, b, dst);
        p->post_op = ok && with_post_op;
        if (pd)
            onednn.dnnl_primitive_desc_destroy(pd);
        if (attr)
            onednn.dnnl_primitive_attr_destroy(attr);
        if (!ok) { /* a fresh one for the try without the post-op */
            prim_free(p);
            p = g_new0(Prim, 1);
        }
    }
    if (!ok) {
        prim_free(p);
        return NULL;
    }
    return p;
}

/* What the step report names the skinny kernel by (KernelPrepared.algorithm). */
#define SKINNY_ALGORITHM "skinny product (our own kernel, B in 16-column panels)"

/* The product on our skinny kernel (skinny.h) in place of a primitive: `rows` rows of A (at a_row and a_col
 * element strides) times a constant B of k x n (at b_k and b_n), times alpha. NULL where it does not apply
 * (more rows, a CPU with neither AVX-512 nor AVX2, --skinny off) or the panels' memory is refused (oneDNN's
 * primitive then tries). On one thread of an Intel Xeon VM, weights read from memory, every such shape of the
 * corpus ran faster than on oneDNN's (results/skinny.md; skinny.c says why). */
static Prim *skinny_prepare(const KernelCall *c, KernelPrepared *prep, gint64 rows, gint64 a_row, gint64 a_col,
                            const float *b, gint64 k, gint64 n, gint64 b_k, gint64 b_n, float alpha)
{
    if (!c->skinny || rows < 1 || rows > KERNEL_SKINNY_ROWS || !kernel_skinny_supported())
        return NULL;
    Prim *p = g_new0(Prim, 1);
    if (!kernel_skinny_pack(&p->skinny, b, k, n, b_k, b_n)) {
        g_free(p);
        return NULL;
    }
    p->rows = rows;
    p->a_row = a_row;
    p->a_col = a_col;
    p->alpha = alpha;
    prep->bytes += kernel_skinny_bytes(&p->skinny);
    prep->algorithm = SKINNY_ALGORITHM;
    return p;
}

static gboolean skinny_call(const KernelCall *c, const Prim *p, const float *a, const float *bias, float *y,
                            GError **error)
{
    gsize bytes = (gsize)p->rows * (gsize)p->skinny.k * sizeof(float);
    float *work = kernel_workspace(c, bytes);
    if (!work)
        return kernel_fail(c, error, "its workspace of %" G_GSIZE_FORMAT " bytes cannot be allocated", bytes);
    kernel_skinny_run(&p->skinny, a, p->rows, p->a_row, p->a_col, p->alpha, bias, y, work);
    return TRUE;
}

/* MatMul and FusedMatMul: [..., M, K] x [..., K, N], batch dims broadcast. A 2-D B with a whole batch of A is
 * one [batches x M, K] x [K, N] product, over weights packed once when B is a constant; anything else reads
 * both operands as they lie (transposed through strides). FusedMatMul's transBatchA/B (an operand [X0, X1..,
 * X(r-1)] read as the batch X1.. of [X0, X(r-1)] matrices: sequence-first attention's heads) is a permutation of
 * the operand's dims and strides too, both operands of the output's rank. */
static Prim *matmul_prepare_call(const KernelCall *c, KernelPrepared *prep, GError **error)
{
    const ExecTensor *a = kernel_in(c, 0), *b = kernel_in(c, 1);
    const ExecTensor *y = kernel_out(c, 0);
    gint64 trans[2] = {0, 0}, batch[2] = {0, 0};
    float alpha = 1.0f;
    if (!node_attr_int(c->node, "transA", 0, &trans[0], error) || !node_attr_int(c->node, "transB", 0, &trans[1], error) ||
        !node_attr_float(c->node, "alpha", 1.0f, &alpha, error) ||
        !node_attr_int(c->node, "transBatchA", 0, &batch[0], error) ||
        !node_attr_int(c->node, "transBatchB", 0, &batch[1], error))
        return NULL;
    if (a->dtype != DT_FLOAT || b->dtype != DT_FLOAT || a->rank < 2 || b->rank < 2 || y->rank > DNNL_MAX_NDIMS ||
        !y->count || ((batch[0] || batch[1]) && (a->rank != y->rank || b->rank != y->rank || y->rank < 3)))
        return NULL;
    int r = y->rank;
    gint64 ad[DNNL_MAX_NDIMS], bd[DNNL_MAX_NDIMS], as[DNNL_MAX_NDIMS], bs[DNNL_MAX_NDIMS];
    const ExecTensor *ops[2] = {a, b};
    gint64 *dims[2] = {ad, bd}, *strides[2] = {as, bs};
    for (int o = 0; o < 2; o++) { /* each operand at the output's rank, leading dims 1; a transpose as strides */
        const ExecTensor *t = ops[o];
        int lead = r - t->rank;
        gint64 step = 1, st[DNNL_MAX_NDIMS];
        for (int k = t->rank - 1; k >= 0; k--) {
            st[k] = step;
            step *= MAX(t->dims[k], 1);
        }
        for (int k = 0; k < r; k++) {
            dims[o][k] = k < lead ? 1 : t->dims[k - lead];
            strides[o][k] = k < lead ? step : st[k - lead];
        }
        if (batch[o]) { /* dim 0 moves to the rows: [X1.., X0, X(r-1)] */
            gint64 d0 = dims[o][0], s0 = strides[o][0];
            for (int k = 0; k < r - 2; k++) {
                dims[o][k] = dims[o][k + 1];
                strides[o][k] = strides[o][k + 1];
            }
            dims[o][r - 2] = d0;
            strides[o][r - 2] = s0;
        }
        if (trans[o]) {
            gint64 d = dims[o][r - 1], s = strides[o][r - 1];
            dims[o][r - 1] = dims[o][r - 2];
            strides[o][r - 1] = strides[o][r - 2];
            dims[o][r - 2] = d;
            strides[o][r - 2] = s;
        }
    }
    for (int k = 0; (batch[0] || batch[1]) && k < r - 2; k++)
        if (ad[k] != bd[k]) /* our own kernel's rule: a batch-transposed product does not broadcast its batch */
            return NULL;
    gboolean batches_whole = TRUE, b_shared = TRUE;
    gint64 rows = 1;
    for (int k = 0; k < r - 2; k++) {
        batches_whole = batches_whole && ad[k] == y->dims[k];
        b_shared = b_shared && bd[k] == 1;
        rows *= y->dims[k];
    }
    /* One B for a whole batch of A: one [rows x M, K] x [K, N] product, not a batch of rows products of M = 1
     * rows (results/history.md), its B packed if constant */
    gboolean flat = b_shared && batches_whole && !trans[0] && !batch[0], packed = flat && constant_input(c, 1);
    Prim *skinny = packed ? skinny_prepare(c, prep, rows * ad[r - 2], ad[r - 1], 1, b->data, bd[r - 2], bd[r - 1],
                                           bs[r - 2], bs[r - 1], alpha)
                          : NULL;
    if (skinny) /* (A is the flat [rows x M, K] as it lies) */
        return skinny;
    dnnl_memory_desc_t src, wei, dst, awei;
    if (flat) {
        gint64 sd[2] = {rows * ad[r - 2], ad[r - 1]}, wd[2] = {bd[r - 2], bd[r - 1]}, ws[2] = {bs[r - 2], bs[r - 1]},
               dd[2] = {rows * y->dims[r - 2], y->dims[r - 1]};
        if (!plain_md(&src, 2, sd, NULL) || !plain_md(&wei, 2, wd, ws) || !plain_md(&dst, 2, dd, NULL) ||
            !any_md(&awei, 2, wd))
            return NULL;
    } else if (!plain_md(&src, r, ad, as) || !plain_md(&wei, r, bd, bs) || !plain_md(&dst, r, y->dims, NULL)) {
        return NULL;
    }
    /* A folded activation as the product's post-op where the product is one flat [rows, N] matrix (a
     * BiasGelu's bias as the product's own, [1, N]); otherwise the row's epilogue runs after the product */
    gint64 bd1[2] = {1, y->dims[r - 1]};
    dnnl_memory_desc_t gelu_bias;
    gboolean biased = c->epilogue_bias && flat && plain_md(&gelu_bias, 2, bd1, NULL);
    return product_prepare(prep, &src, &wei, packed ? &awei : NULL, b->data, NULL, &dst, alpha,
                           c->epilogue && flat && (biased || !c->epilogue_bias) ? c : NULL, biased ? &gelu_bias : NULL);
}

/* Gemm: A [M, K] x B [K, N] (either transposed) times alpha, plus C as a bias row ([N] or [1, N], beta 1) —
 * the Linear layers of every export. Another C, or alpha with a bias, runs on the row's own kernel. */
static Prim *gemm_prepare_call(const KernelCall *c, KernelPrepared *prep, GError **error)
{
    const ExecTensor *a = kernel_in(c, 0), *b = kernel_in(c, 1), *bias = kernel_in(c, 2);
    const ExecTensor *y = kernel_out(c, 0);
    gint64 trans_a, trans_b;
    float alpha, beta;
    if (!node_attr_int(c->node, "transA", 0, &trans_a, error) || !node_attr_int(c->node, "transB", 0, &trans_b, error) ||
        !node_attr_float(c->node, "alpha", 1.0f, &alpha, error) || !node_attr_float(c->node, "beta", 1.0f, &beta, error))
        return NULL;
    if (bias && (!bias->count || beta == 0.0f))
        bias = NULL;
    gint64 N = y->dims[1];
    if (a->dtype != DT_FLOAT || b->dtype != DT_FLOAT || (bias && bias->dtype != DT_FLOAT) || !y->count ||
        (bias && (beta != 1.0f || alpha != 1.0f || (gint64)bias->count != N || bias->rank > 2 ||
                  (bias->rank == 2 && bias->dims[0] != 1))))
        return NULL;
    gint64 ad[2] = {y->dims[0], a->dims[trans_a ? 0 : 1]}, as[2] = {trans_a ? 1 : a->dims[1], trans_a ? a->dims[1] : 1};
    gint64 bd[2] = {ad[1], N}, bs[2] = {trans_b ? 1 : b->dims[1], trans_b ? b->dims[1] : 1}, cd[2] = {1, N};
    gboolean constant = constant_input(c, 1);
    Prim *skinny = constant ? skinny_prepare(c, prep, y->dims[0], as[0], as[1], b->data, bd[0], N, bs[0], bs[1], alpha)
                            : NULL;
    if (skinny) {
        skinny->skinny_bias = bias != NULL;
        return skinny;
    }
    dnnl_memory_desc_t src, wei, awei, dst, bmd;
    if (!plain_md(&src, 2, ad, as) || !plain_md(&wei, 2, bd, bs) || !plain_md(&dst, 2, y->dims, NULL) ||
        !any_md(&awei, 2, bd) || (bias && !plain_md(&bmd, 2, cd, NULL)))
        return NULL;
    return product_prepare(prep, &src, &wei, constant ? &awei : NULL, b->data, bias ? &bmd : NULL, &dst, alpha, NULL,
                           NULL);
}

gboolean kernel_matmul_onednn(const KernelCall *c, GError **error)
{
    Prim *p = prepared(c, matmul_prepare_call, error);
    if (!p)
        return error && *error ? FALSE : c->row->kernel(c, error);
    ExecTensor *y = kernel_out(c, 0);
    if (p->skinny.panels ? !skinny_call(c, p, kernel_in(c, 0)->data, NULL, y->data, error)
                         : !prim_run(c, p, kernel_in(c, 0)->data, kernel_in(c, 1)->data,
                                     p->bias ? (void *)c->epilogue_bias : NULL, y->data, error))
        return FALSE;
    if (c->epilogue && !p->post_op)
        kernel_epilogue_whole(c, y->data, y->count);
    return TRUE;
}

gboolean kernel_gemm_onednn(const KernelCall *c, GError **error)
{
    Prim *p = prepared(c, gemm_prepare_call, error);
    if (!p)
        return error && *error ? FALSE : c->row->kernel(c, error);
    const ExecTensor *bias = kernel_in(c, 2);
    if (p->skinny.panels)
        return skinny_call(c, p, kernel_in(c, 0)->data, p->skinny_bias ? bias->data : NULL, kernel_out(c, 0)->data,
                           error);
    return prim_run(c, p, kernel_in(c, 0)->data, kernel_in(c, 1)->data, p->bias ? bias->data : NULL,
                    kernel_out(c, 0)->data, error);
}
