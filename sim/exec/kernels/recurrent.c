/* recurrent.c — the one-layer recurrent ops LSTM, GRU and RNN (ONNX operator specification; shapes in
 * ops/ops-recurrent.c). Per direction: one sgemm projects every step's input at once (X W^T, biases added);
 * then step by step one product of the state by R^T (GRU's default form: two, as the candidate reads r ⊙ H;
 * an sgemm, or below SMALL_PRODUCT multiply-adds over SMALL_STEPS steps or more our loop over R^T transposed once),
 * the gates through their activations, the new state written to Y. With sequence_lens each batch entry
 * runs its own length (the reverse direction from its own last step); Y is zero past it and Y_h (Y_c) hold
 * the state of its last step. Every input past X, W and R and every output is optional. */
#include "exec/kernel.h"
#include "ops/ops.h"

#include "exec/blas.h"
#include <math.h>
#include <string.h>

typedef enum {
    ACT_SIGMOID, ACT_TANH, ACT_RELU, ACT_AFFINE, ACT_LEAKY_RELU, ACT_THRESHOLDED_RELU, ACT_SCALED_TANH,
    ACT_HARD_SIGMOID, ACT_ELU, ACT_SOFTSIGN, ACT_SOFTPLUS,
} ActKind;

typedef struct {
    ActKind kind;
    float alpha, beta;
} Activation;

/* The activations the specification lists, with the parameters each takes (consumed from
 * activation_alpha / activation_beta in the order the activations are listed) and their defaults. */
static const struct {
    const char *name;
    ActKind kind;
    gboolean takes_alpha, takes_beta;
    float alpha, beta;
} activation_rows[] = {
    {"Sigmoid", ACT_SIGMOID, FALSE, FALSE, 0, 0},
    {"Tanh", ACT_TANH, FALSE, FALSE, 0, 0},
    {"Relu", ACT_RELU, FALSE, FALSE, 0, 0},
    {"Affine", ACT_AFFINE, TRUE, TRUE, 1.0f, 0.0f},
    {"LeakyRelu", ACT_LEAKY_RELU, TRUE, FALSE, 0.01f, 0},
    {"ThresholdedRelu", ACT_THRESHOLDED_RELU, TRUE, FALSE, 1.0f, 0},
    {"ScaledTanh", ACT_SCALED_TANH, TRUE, TRUE, 1.0f, 1.0f},
    {"HardSigmoid", ACT_HARD_SIGMOID, TRUE, TRUE, 0.2f, 0.5f},
    {"Elu", ACT_ELU, TRUE, FALSE, 1.0f, 0},
    {"Softsign", ACT_SOFTSIGN, FALSE, FALSE, 0, 0},
    {"Softplus", ACT_SOFTPLUS, FALSE, FALSE, 0, 0},
};

static inline float act_apply(const Activation *a, float x)
{
    switch (a->kind) {
    case ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case ACT_TANH: return tanhf(x);
    case ACT_RELU: return x > 0.0f ? x : 0.0f;
    case ACT_AFFINE: return a->alpha * x + a->beta;
    case ACT_LEAKY_RELU: return x >= 0.0f ? x : a->alpha * x;
    case ACT_THRESHOLDED_RELU: return x >= a->alpha ? x : 0.0f;
    case ACT_SCALED_TANH: return a->alpha * tanhf(a->beta * x);
    case ACT_HARD_SIGMOID: {
        float v = a->alpha * x + a->beta;
        return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    }
    case ACT_ELU: return x >= 0.0f ? x : a->alpha * (expf(x) - 1.0f);
    case ACT_SOFTSIGN: return x / (1.0f + fabsf(x));
    case ACT_SOFTPLUS: return log1pf(expf(x));
    }
    return x;
}

/* The node's activations, `per_dir` for each of `dirs` directions (a list of per_dir names serves both
 * directions); absent: the specification's defaults (LSTM Sigmoid, Tanh, Tanh; GRU Sigmoid, Tanh; RNN
 * Tanh). */
static gboolean read_activations(const KernelCall *c, int per_dir, int dirs, Activation *out, GError **error)
{
    static const ActKind defaults[3][3] = {{ACT_TANH}, {ACT_SIGMOID, ACT_TANH}, {ACT_SIGMOID, ACT_TANH, ACT_TANH}};
    const GPtrArray *names;
    const GArray *alphas, *betas;
    if (!node_attr_strings(c->node, "activations", &names, error) ||
        !node_attr_floats(c->node, "activation_alpha", &alphas, error) ||
        !node_attr_floats(c->node, "activation_beta", &betas, error))
        return FALSE;
    if (!names || !names->len) {
        for (int k = 0; k < per_dir * dirs; k++)
            out[k] = (Activation){.kind = defaults[per_dir - 1][k % per_dir]};
        return TRUE;
    }
    if ((int)names->len != per_dir * dirs && (int)names->len != per_dir)
        return kernel_fail(c, error, "attribute 'activations' lists %u functions; %s takes %d per direction (%d in all)",
                           names->len, c->node->op->name, per_dir, per_dir * dirs);
    guint next_alpha = 0, next_beta = 0;
    for (int k = 0; k < per_dir * dirs; k++) {
        const char *name = g_bytes_get_data(names->pdata[(guint)k % names->len], NULL);
        gsize row = 0;
        while (row < G_N_ELEMENTS(activation_rows) && g_ascii_strcasecmp(activation_rows[row].name, name ? name : ""))
            row++;
        if (row == G_N_ELEMENTS(activation_rows)) {
            char *shown = g_strescape(name ? name : "", NULL);
            gboolean r = kernel_fail(c, error, "activation '%s' is not one the specification lists", shown);
            g_free(shown);
            return r;
        }
        out[k] = (Activation){.kind = activation_rows[row].kind, .alpha = activation_rows[row].alpha,
                              .beta = activation_rows[row].beta};
        /* each listed function takes its parameters once, so a list for one direction is read once */
        if ((int)names->len == per_dir * dirs || k < per_dir) {
            if (activation_rows[row].takes_alpha && alphas && next_alpha < alphas->len)
                out[k].alpha = g_array_index(alphas, float, next_alpha++);
            if (activation_rows[row].takes_beta && betas && next_beta < betas->len)
                out[k].beta = g_array_index(betas, float, next_beta++);
        } else {
            out[k] = out[k - per_dir];
        }
    }
    return TRUE;
}

static inline float clipped(float x, float clip) { return clip > 0.0f ? (x < -clip ? -clip : x > clip ? clip : x) : x; }

typedef struct {
    int gates, dirs;
    gint64 seq, batch, input, hidden;
    gboolean batch_first;
    float clip;
    gboolean input_forget, linear_before_reset;
    gboolean reverse; /* direction 'reverse': the one direction runs backwards (bidirectional: the second) */
    Activation act[6];
} Recurrent;

/* The row of X (and of the projections) at step t of batch entry b; the offsets of Y's (t, d, b) row and of
 * a state tensor's (d, b) row, in elements. */
static gint64 x_row(const Recurrent *r, gint64 t, gint64 b) { return r->batch_first ? b * r->seq + t : t * r->batch + b; }
static gint64 y_row(const Recurrent *r, gint64 t, int d, gint64 b)
{
    return (r->batch_first ? (b * r->seq + t) * r->dirs + d : (t * r->dirs + d) * r->batch + b) * r->hidden;
}
static gint64 state_row(const Recurrent *r, int d, gint64 b) { return (r->batch_first ? b * r->dirs + d : d * r->batch + b) * r->hidden; }

static const float *optional_float(const KernelCall *c, guint k, GError **error, gboolean *ok)
{
    const ExecTensor *t = kernel_in(c, k);
    *ok = !t || kernel_need_float(c, t, c->node->op->name, error);
    return t && *ok ? t->data : NULL;
}

/* A step's products below this many multiply-adds run as our loop over R^T, not an sgemm call: a speech model's
 * hidden sizes of 10 to 64 make products of a few thousand, which a call costs more than. */
enum { SMALL_PRODUCT = 1 << 16, SMALL_STEPS = 4 };

/* out [rows x cols] (ldo apart) = h [rows x H] times the columns col0.. of wt (R^T: H rows of GH), as sgemm with
 * R's rows would, summed k by k along R^T's rows (a loop the compiler vectorises). */
static void small_product(const float *h, gint64 rows, gint64 H, const float *wt, gint64 gh, gint64 col0,
                          gint64 cols, float *out, gint64 ldo)
{
    for (gint64 b = 0; b < rows; b++) {
        float *o = out + b * ldo;
        memset(o, 0, sizeof(float) * (gsize)cols);
        for (gint64 k = 0; k < H; k++) {
            float hk = h[b * H + k];
            const float *wk = wt + k * gh + col0;
            for (gint64 g = 0; g < cols; g++)
                o[g] += hk * wk[g];
        }
    }
}

/* One direction d over every batch entry: proj (seq x batch rows of gates x hidden) already holds X W^T plus
 * the biases that add outside the gates' products; wt is R^T (H x GH) where the products are small, else NULL;
 * lanes (5 x hidden floats) where an LSTM has its default activations, else NULL. */
static void run_direction(const KernelCall *c, const Recurrent *r, int d, const float *proj, const float *wr,
                          const float *wt, const float *rb, const float *peep, const gint32 *lens, float *h,
                          float *cell, float *rec, float *gated, float *lanes)
{
    gint64 H = r->hidden, GH = r->gates * H;
    const Activation *act = r->act + d * (r->gates == 4 ? 3 : r->gates == 3 ? 2 : 1);
    ExecTensor *y = kernel_out(c, 0);
    float *py = y ? y->data : NULL;
    gboolean reverse = d == 1 || r->reverse;
    for (gint64 s = 0; s < r->seq; s++) {
        /* the recurrent products of this step (GRU's default form: z and r only; the candidate below) */
        gboolean split = r->gates == 3 && !r->linear_before_reset;
        if (wt)
            small_product(h, r->batch, H, wt, GH, 0, split ? 2 * H : GH, rec, GH);
        else
            blas.sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)r->batch, (int)(split ? 2 * H : GH), (int)H, 1.0f,
                       h, (int)H, wr, (int)H, 0.0f, rec, (int)GH);
        if (split) { /* r ⊙ H for every entry that steps, then its product with R_h */
            for (gint64 b = 0; b < r->batch; b++) {
                gint64 len = lens ? lens[b] : r->seq;
                gint64 t = reverse ? len - 1 - s : s;
                const float *p = proj + x_row(r, t, b) * GH;
                for (gint64 k = 0; k < H; k++) {
                    float rg = s < len ? act_apply(&act[0], clipped(p[H + k] + rec[b * GH + H + k], r->clip)) : 0.0f;
                    gated[b * H + k] = rg * h[b * H + k];
                }
            }
            if (wt)
                small_product(gated, r->batch, H, wt, GH, 2 * H, H, rec + 2 * H, GH);
            else
                blas.sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)r->batch, (int)H, (int)H, 1.0f, gated, (int)H,
                           wr + 2 * H * H, (int)H, 0.0f, rec + 2 * H, (int)GH);
        }
        for (gint64 b = 0; b < r->batch; b++) {
            gint64 len = lens ? lens[b] : r->seq;
            if (s >= len)
                continue;
            gint64 t = reverse ? len - 1 - s : s;
            const float *p = proj + x_row(r, t, b) * GH;
            float *q = rec + b * GH, *hb = h + b * H;
            if (r->gates == 1) {
                for (gint64 k = 0; k < H; k++)
                    hb[k] = act_apply(&act[0], clipped(p[k] + q[k], r->clip));
            } else if (r->gates == 3) { /* gates z, r, h */
                for (gint64 k = 0; k < H; k++) {
                    float z = act_apply(&act[0], clipped(p[k] + q[k], r->clip));
                    float cand;
                    if (r->linear_before_reset) {
                        float rg = act_apply(&act[0], clipped(p[H + k] + q[H + k], r->clip));
                        cand = p[2 * H + k] + rg * (q[2 * H + k] + (rb ? rb[2 * H + k] : 0.0f));
                    } else {
                        cand = p[2 * H + k] + q[2 * H + k];
                    }
                    float hh = act_apply(&act[1], clipped(cand, r->clip));
                    hb[k] = (1.0f - z) * hh + z * hb[k];
                }
            } else if (lanes) { /* LSTM's default activations, a gate at a time over the hidden units (the Sigmoid
                                   * and Tanh ops' vectorised forms, approx.h's exp): the same steps as below */
                float *cb = cell + b * H, *ig = lanes, *fg = ig + H, *cg = fg + H, *og = cg + H, *tc = og + H;
                for (gint64 k = 0; k < H; k++) {
                    ig[k] = clipped(p[k] + q[k] + (peep ? peep[k] * cb[k] : 0.0f), r->clip);
                    fg[k] = clipped(p[2 * H + k] + q[2 * H + k] + (peep ? peep[2 * H + k] * cb[k] : 0.0f), r->clip);
                    cg[k] = clipped(p[3 * H + k] + q[3 * H + k], r->clip);
                }
                kernel_sigmoid_array(ig, ig, (gsize)H);
                if (!r->input_forget)
                    kernel_sigmoid_array(fg, fg, (gsize)H);
                kernel_tanh_array(cg, cg, (gsize)H);
                for (gint64 k = 0; k < H; k++) {
                    cb[k] = (r->input_forget ? 1.0f - ig[k] : fg[k]) * cb[k] + ig[k] * cg[k];
                    og[k] = clipped(p[H + k] + q[H + k] + (peep ? peep[H + k] * cb[k] : 0.0f), r->clip);
                }
                kernel_sigmoid_array(og, og, (gsize)H);
                kernel_tanh_array(cb, tc, (gsize)H);
                for (gint64 k = 0; k < H; k++)
                    hb[k] = og[k] * tc[k];
            } else { /* gates i, o, f, c; peepholes i, o, f */
                float *cb = cell + b * H;
                for (gint64 k = 0; k < H; k++) {
                    float ig = act_apply(&act[0], clipped(p[k] + q[k] + (peep ? peep[k] * cb[k] : 0.0f), r->clip));
                    float fg = r->input_forget ? 1.0f - ig
                                               : act_apply(&act[0], clipped(p[2 * H + k] + q[2 * H + k] +
                                                                                (peep ? peep[2 * H + k] * cb[k] : 0.0f),
                                                                            r->clip));
                    float cg = act_apply(&act[1], clipped(p[3 * H + k] + q[3 * H + k], r->clip));
                    cb[k] = fg * cb[k] + ig * cg;
                    float og = act_apply(&act[0], clipped(p[H + k] + q[H + k] + (peep ? peep[H + k] * cb[k] : 0.0f), r->clip));
                    hb[k] = og * act_apply(&act[2], cb[k]);
                }
            }
            if (py)
                memcpy(py + y_row(r, t, d, b), hb, sizeof(float) * (gsize)H);
        }
    }
}

gboolean kernel_recurrent(const KernelCall *c, GError **error)
{
    const ExecTensor *x = kernel_in(c, 0), *w = kernel_in(c, 1), *rt = kernel_in(c, 2), *lens_t = kernel_in(c, 4);
    Recurrent r = {.gates = ops_recurrent_gates(c->node->op->name)};
    gint64 layout, input_forget, lbr;
    const char *direction;
    gboolean ok = TRUE;
    if (!kernel_need_float(c, x, c->node->op->name, error) || !kernel_need_float(c, w, c->node->op->name, error) ||
        !kernel_need_float(c, rt, c->node->op->name, error) || !ops_recurrent_directions(c->node, &r.dirs, error) ||
        !node_attr_string(c->node, "direction", "forward", &direction, error) ||
        !node_attr_int(c->node, "layout", 0, &layout, error) ||
        !node_attr_float(c->node, "clip", 0.0f, &r.clip, error) ||
        !node_attr_int(c->node, "input_forget", 0, &input_forget, error) ||
        !node_attr_int(c->node, "linear_before_reset", 0, &lbr, error))
        return FALSE;
    const float *bias = optional_float(c, 3, error, &ok);
    const float *h0 = ok ? optional_float(c, 5, error, &ok) : NULL;
    const float *c0 = ok && r.gates == 4 ? optional_float(c, 6, error, &ok) : NULL;
    const float *peep = ok && r.gates == 4 ? optional_float(c, 7, error, &ok) : NULL;
    int per_dir = r.gates == 4 ? 3 : r.gates == 3 ? 2 : 1;
    if (!ok || !read_activations(c, per_dir, r.dirs, r.act, error))
        return FALSE;
    r.batch_first = layout == 1;
    r.reverse = !strcmp(direction, "reverse");
    r.input_forget = input_forget != 0;
    r.linear_before_reset = lbr != 0;
    r.seq = x->dims[r.batch_first ? 1 : 0];
    r.batch = x->dims[r.batch_first ? 0 : 1];
    r.input = x->dims[2];
    r.hidden = w->dims[1] / r.gates;
    gint64 H = r.hidden, GH = r.gates * H;
    gint32 *lens = NULL;
    if (lens_t) {
        lens = g_new(gint32, (gsize)MAX(r.batch, 1));
        for (gint64 b = 0; b < r.batch; b++) {
            gint64 v = kernel_elem_get_i(lens_t, (gsize)b);
            if (v < 0 || v > r.seq) {
                g_free(lens);
                return kernel_fail(c, error, "sequence_lens[%" G_GINT64_FORMAT "] is %" G_GINT64_FORMAT
                                   ", outside [0, %" G_GINT64_FORMAT "]", b, v, r.seq);
            }
            lens[b] = (gint32)v;
        }
    }
    /* workspace: the projections, then H, C, one step's products, GRU's r ⊙ H and R^T where the products are small */
    /* (R^T costs a pass over R per run: worth it only over several steps; a streaming model's one step, an LSTM of
     * 128 as Silero VAD runs per window, spent 150 us transposing for a 65,536-term product) */
    gboolean small = r.batch * GH * H <= SMALL_PRODUCT && r.seq >= SMALL_STEPS;
    gsize proj_floats = (gsize)(r.seq * r.batch * GH), state_floats = (gsize)(r.batch * H);
    gsize floats =
        proj_floats + 3 * state_floats + (gsize)(r.batch * GH) + (small ? (gsize)(GH * H) : 0) + (gsize)(5 * H);
    float *proj = kernel_workspace(c, sizeof(float) * (floats + 16));
    if (!proj) {
        g_free(lens);
        return kernel_fail(c, error, "its workspace of %" G_GSIZE_FORMAT " floats cannot be allocated", floats);
    }
    float *h = proj + proj_floats, *cell = h + state_floats, *gated = cell + state_floats, *rec = gated + state_floats;
    float *wt = small ? rec + r.batch * GH : NULL, *lanes = rec + r.batch * GH + (small ? GH * H : 0);
    if (!(r.gates == 4 && r.act[0].kind == ACT_SIGMOID && r.act[1].kind == ACT_TANH && r.act[2].kind == ACT_TANH &&
          (r.dirs == 1 || (r.act[3].kind == ACT_SIGMOID && r.act[4].kind == ACT_TANH && r.act[5].kind == ACT_TANH))))
        lanes = NULL;
    ExecTensor *y = kernel_out(c, 0), *yh = kernel_out(c, 1), *yc = r.gates == 4 ? kernel_out(c, 2) : NULL;
    if (y && y->count)
        memset(y->data, 0, sizeof(float) * y->count); /* zero past each entry's length */
    for (int d = 0; d < r.dirs; d++) {
        const float *wd = (const float *)w->data + d * GH * r.input, *rd = (const float *)rt->data + d * GH * H;
        const float *wb = bias ? bias + d * 2 * GH : NULL, *rb = bias ? wb + GH : NULL;
        /* X W^T for every step at once: proj's row k is X's row k (X is [rows, input] in either layout) */
        blas.sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)(r.seq * r.batch), (int)GH, (int)r.input, 1.0f,
                   x->data, (int)r.input, wd, (int)r.input, 0.0f, proj, (int)GH);
        if (bias) /* every bias adds outside the products, except GRU's R_bh under linear_before_reset */
            for (gint64 row = 0; row < r.seq * r.batch; row++)
                for (gint64 k = 0; k < GH; k++)
                    proj[row * GH + k] += wb[k] + (r.gates == 3 && r.linear_before_reset && k >= 2 * H ? 0.0f : rb[k]);
        for (gint64 b = 0; b < r.batch; b++) {
            if (h0)
                memcpy(h + b * H, h0 + state_row(&r, d, b), sizeof(float) * (gsize)H);
            else
                memset(h + b * H, 0, sizeof(float) * (gsize)H);
            if (c0)
                memcpy(cell + b * H, c0 + state_row(&r, d, b), sizeof(float) * (gsize)H);
            else
                memset(cell + b * H, 0, sizeof(float) * (gsize)H);
        }
        for (gint64 g = 0; wt && g < GH; g++) /* R^T */
            for (gint64 k = 0; k < H; k++)
                wt[k * GH + g] = rd[g * H + k];
        run_direction(c, &r, d, proj, rd, wt, rb, peep ? peep + d * 3 * H : NULL, lens, h, cell, rec, gated, lanes);
        for (gint64 b = 0; b < r.batch; b++) {
            if (yh)
                memcpy((float *)yh->data + state_row(&r, d, b), h + b * H, sizeof(float) * (gsize)H);
            if (yc)
                memcpy((float *)yc->data + state_row(&r, d, b), cell + b * H, sizeof(float) * (gsize)H);
        }
    }
    g_free(lens);
    return TRUE;
}
