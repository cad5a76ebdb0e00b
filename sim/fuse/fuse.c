/* fuse.c — the graph a runtime runs: its operator fusions applied before ordering and planning, so the
 * tensors they remove are never planned (--fuse ort). One table of rules; each finds its pattern ending at
 * a node, checks that every intermediate it removes is read by the pattern alone (and is no graph output),
 * and replaces the pattern by one node. The rules follow ONNX Runtime's graph transformers at its default
 * level (onnxruntime/core/optimizer: conv_add_act_fusion, pad_fusion, the HardSigmoid-Mul / Sigmoid-Mul
 * activation fusions, gelu_fusion, matmul_add_fusion; qdq_transformer's bias quantization, Relu removal before a
 * QuantizeLinear and QDQ Conv fusion); --fuse ort-transformers adds what its offline transformer
 * optimizer writes (SkipLayerNormalization, attention without a mask as one op: fusion_skiplayernorm,
 * fusion_attention, and the flash path of its CPU MultiHeadAttention). docs/DESIGN.md, "Fusion", says what each
 * saves. */
#include "fuse/fuse.h"
#include "ops/infer.h"
#include "ops/shape.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

/* t is read by n alone and is not a graph output: a fusion ending at n may remove it. */
static gboolean only_for(const Tensor *t, const Node *n)
{
    return t && !t->is_graph_output && t->consumers->len == 1 && t->consumers->pdata[0] == n && !t->dynamic;
}

/* The producer of t when it is op `type` (default domain) and computed (not folded to a value). */
static Node *made_by(const Tensor *t, const char *type)
{
    Node *p = t ? t->producer : NULL;
    return p && !strcmp(p->op_type, type) && (!*p->domain || !strcmp(p->domain, "ai.onnx")) && !t->value ? p : NULL;
}

/* A one-element constant input equal to v (within float rounding). */
static gboolean constant_is(const Tensor *t, double v)
{
    return t && t->value && !t->dynamic && t->value->n == 1 && fabs(value_get_f(t->value, 0) - v) <= 1e-6 * fabs(v) + 1e-7;
}

/* The Mul's other input than x, or NULL when x is not one of its two. */
static Tensor *other_input(const Node *mul, const Tensor *x)
{
    Tensor *a = node_input(mul, 0), *b = node_input(mul, 1);
    return a == x ? b : b == x ? a : NULL;
}

/* A copy of n's attributes but those named in `except` (NULL-terminated; NULL: none), for the node that replaces
 * it. */
static GPtrArray *copied_attrs(const Node *n, const char *const *except)
{
    GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    for (guint a = 0; a < n->attrs->len; a++) {
        const Attr *attr = n->attrs->pdata[a];
        gboolean keep = TRUE;
        for (int k = 0; except && except[k] && keep; k++)
            keep = strcmp(attr->name, except[k]) != 0;
        if (keep)
            g_ptr_array_add(attrs, attr_copy(attr));
    }
    return attrs;
}

struct Site {
    Graph *g;
    gint64 opset;
    GPtrArray *removed; /* Node*: the pattern's nodes other than the last */
    guint64 bytes;      /* the removed intermediates' bytes */
    GHashTable *with;   /* this pass's replacements: last node -> fused node, other pattern nodes -> NULL */
    GHashTable *before; /* expansions: last node -> GPtrArray of the nodes that run before its replacement */
    guint first_new;    /* nodes from this index on were made by this pass: not to be fused again in it */
};
typedef struct Site Site;

/* The node that replaces the pattern ending at `last`: op of `domain`, inputs, output `last`'s output 0,
 * attributes (owned), shapes inferred. The pattern's other nodes are in site->removed. */
static gboolean replace_in(Site *site, Node *last, const char *domain, const char *op, const char *const *inputs,
                           int n_in, GPtrArray *attrs, GError **error)
{
    Graph *g = site->g;
    Tensor *out = node_output(last, 0);
    char *name = graph_unique_name(g, *last->name ? last->name : "fused", op);
    graph_detach_node(last);
    g_hash_table_insert(site->with, last, NULL);
    for (guint k = 0; k < site->removed->len; k++) {
        Node *r = site->removed->pdata[k];
        graph_detach_node(r);
        g_hash_table_insert(site->with, r, NULL); /* the pattern's other nodes go, nothing in their place */
        for (guint o = 0; o < r->outputs->len; o++) {
            Tensor *t = node_output(r, o);
            if (t)
                site->bytes += t->bytes;
        }
    }
    const char *outputs[] = {out->name};
    Node *fused = graph_add_node(g, op, domain, name, inputs, n_in, outputs, 1, attrs, error);
    g_free(name);
    if (!fused)
        return FALSE;
    g_hash_table_insert(site->with, last, fused);
    fused->op = op_lookup(fused->domain, fused->op_type);
    return fused->op && shape_infer_node(fused, site->opset, error);
}

/* replace_in of the default domain, or sim's own (`internal`). */
static gboolean replace(Site *site, Node *last, const char *op, gboolean internal, const char *const *inputs, int n_in,
                        GPtrArray *attrs, GError **error)
{
    return replace_in(site, last, internal ? SIM_OP_DOMAIN : "", op, inputs, n_in, attrs, error);
}

/* Mul(x, HardSigmoid(x)) with HardSigmoid's alpha 1/6 and beta 1/2 is HardSwish(x) (opset 13 exports write
 * HardSwish so): the HardSigmoid output goes. */
static gboolean rule_hard_swish(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "Mul") || n->inputs->len != 2)
        return FALSE;
    for (int k = 0; k < 2; k++) {
        Tensor *h = node_input(n, (guint)k);
        Node *hs = made_by(h, "HardSigmoid");
        float alpha, beta;
        if (!hs || !only_for(h, n) || other_input(n, h) != node_input(hs, 0) ||
            !node_attr_float(hs, "alpha", 0.2f, &alpha, NULL) || !node_attr_float(hs, "beta", 0.5f, &beta, NULL) ||
            fabsf(alpha - 1.0f / 6.0f) > 1e-6f || fabsf(beta - 0.5f) > 1e-6f)
            continue;
        g_ptr_array_add(site->removed, hs);
        const char *in[] = {node_input(hs, 0)->name};
        return replace(site, n, "HardSwish", FALSE, in, 1, NULL, error) || TRUE;
    }
    return FALSE;
}

/* HardSwish(x) as ONNX defines it, x * HardSigmoid(x) with alpha 1/6 and beta 1/2: what ONNX Runtime runs at
 * level disabled, where its CPU kernels have no HardSwish of the default domain and it inlines the op's
 * function body (its profile of a mobilenet_v3 export shows HardSigmoid and Mul in every HardSwish's
 * place). The HardSigmoid output is a new intermediate, alive while the Mul runs. */
static gboolean rule_hard_swish_expand(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "HardSwish") || (*n->domain && strcmp(n->domain, "ai.onnx")) || n->inputs->len != 1 ||
        !node_input(n, 0) || !node_output(n, 0))
        return FALSE;
    Graph *g = site->g;
    Tensor *x = node_input(n, 0), *y = node_output(n, 0);
    char *sig_name = graph_unique_name(g, *n->name ? n->name : "expanded", "HardSigmoid");
    char *mul_name = graph_unique_name(g, *n->name ? n->name : "expanded", "Mul");
    char *h_name = graph_unique_name(g, y->name, "hard_sigmoid");
    graph_detach_node(n);
    GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    g_ptr_array_add(attrs, attr_new_float("alpha", 1.0f / 6.0f));
    g_ptr_array_add(attrs, attr_new_float("beta", 0.5f));
    const char *sig_in[] = {x->name}, *sig_out[] = {h_name}, *mul_in[] = {x->name, h_name}, *mul_out[] = {y->name};
    Node *sig = graph_add_node(g, "HardSigmoid", "", sig_name, sig_in, 1, sig_out, 1, attrs, error);
    Node *mul = sig ? graph_add_node(g, "Mul", "", mul_name, mul_in, 2, mul_out, 1, NULL, error) : NULL;
    g_free(sig_name);
    g_free(mul_name);
    g_free(h_name);
    g_hash_table_insert(site->with, n, mul);
    if (!mul)
        return TRUE;
    GPtrArray *first = g_ptr_array_new();
    g_ptr_array_add(first, sig);
    g_hash_table_insert(site->before, n, first);
    for (Node *made[] = {sig, mul, NULL}, **k = made; *k; k++) {
        (*k)->op = op_lookup((*k)->domain, (*k)->op_type);
        if (!(*k)->op || !shape_infer_node(*k, site->opset, error))
            return TRUE;
    }
    site->bytes = node_output(sig, 0)->bytes;
    return TRUE;
}

/* Mul(x, Sigmoid(x)) is SiLU(x) (Swish; EfficientNet, YOLO): the Sigmoid output goes. */
static gboolean rule_silu(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "Mul") || n->inputs->len != 2)
        return FALSE;
    for (int k = 0; k < 2; k++) {
        Tensor *s = node_input(n, (guint)k);
        Node *sig = made_by(s, "Sigmoid");
        if (!sig || !only_for(s, n) || other_input(n, s) != node_input(sig, 0))
            continue;
        g_ptr_array_add(site->removed, sig);
        const char *in[] = {node_input(sig, 0)->name};
        return replace(site, n, "SiLU", TRUE, in, 1, NULL, error) || TRUE;
    }
    return FALSE;
}

/* torch's exact GELU, x * 0.5 * (1 + erf(x / sqrt 2)), written Mul(Mul(x, Add(Erf(Div(x, 1.4142)), 1)), 0.5):
 * Gelu(x); the Div, Erf, Add and inner Mul outputs go. */
static gboolean rule_gelu(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "Mul") || n->inputs->len != 2)
        return FALSE;
    for (int k = 0; k < 2; k++) {
        Tensor *p = node_input(n, (guint)k), *half = node_input(n, (guint)(1 - k));
        Node *mul = made_by(p, "Mul");
        if (!mul || !only_for(p, n) || !constant_is(half, 0.5))
            continue;
        for (int j = 0; j < 2; j++) {
            Tensor *x = node_input(mul, (guint)j), *q = node_input(mul, (guint)(1 - j));
            Node *add = made_by(q, "Add");
            if (!add || !only_for(q, mul))
                continue;
            Tensor *e = constant_is(node_input(add, 1), 1.0) ? node_input(add, 0)
                        : constant_is(node_input(add, 0), 1.0) ? node_input(add, 1) : NULL;
            Node *erf = made_by(e, "Erf");
            if (!erf || !only_for(e, add))
                continue;
            Tensor *d = node_input(erf, 0);
            Node *div = made_by(d, "Div");
            if (!div || !only_for(d, erf) || node_input(div, 0) != x || !constant_is(node_input(div, 1), G_SQRT2))
                continue;
            g_ptr_array_add(site->removed, div);
            g_ptr_array_add(site->removed, erf);
            g_ptr_array_add(site->removed, add);
            g_ptr_array_add(site->removed, mul);
            const char *in[] = {x->name};
            return replace(site, n, "Gelu", FALSE, in, 1, NULL, error) || TRUE;
        }
    }
    return FALSE;
}

/* The other operand of a two-input node whose one operand is the constant v, or NULL. */
static Tensor *with_constant(const Node *n, double v)
{
    if (!n || n->inputs->len != 2)
        return NULL;
    Tensor *a = node_input(n, 0), *b = node_input(n, 1);
    return constant_is(b, v) ? a : constant_is(a, v) ? b : NULL;
}

/* The x of tanh's argument in the tanh GELU, sqrt(2/pi) * (x + 0.044715 * x^3) written out as
 * Mul(Add(x, Mul(Pow(x, 3), 0.044715)), 0.7978845608) (operands either way round), its nodes added to
 * `nodes` (4); NULL when t is not that or an intermediate is read elsewhere. */
static Tensor *tanh_gelu_argument(Tensor *t, const Node *tanh, Node **nodes)
{
    Node *scale = made_by(t, "Mul");
    Tensor *sum = with_constant(scale, 0.7978845608028654);
    Node *add = made_by(sum, "Add");
    if (!scale || !only_for(t, tanh) || !add || !only_for(sum, scale))
        return NULL;
    for (int k = 0; k < 2; k++) {
        Tensor *x = node_input(add, (guint)k), *cube_t = node_input(add, (guint)(1 - k));
        Node *cube_mul = made_by(cube_t, "Mul");
        Tensor *p = with_constant(cube_mul, 0.044715);
        Node *pow = made_by(p, "Pow");
        if (!cube_mul || !only_for(cube_t, add) || !pow || !only_for(p, cube_mul) || node_input(pow, 0) != x ||
            !constant_is(node_input(pow, 1), 3.0))
            continue;
        nodes[0] = pow;
        nodes[1] = cube_mul;
        nodes[2] = add;
        nodes[3] = scale;
        return x;
    }
    return NULL;
}

/* GPT-2's GELU, 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), written Mul(Mul(x, Add(Tanh(...), 1)),
 * 0.5) or Mul(Mul(x, 0.5), Add(Tanh(...), 1)): Gelu with approximate "tanh" (ONNX Runtime's FastGeluFusion);
 * the cube, the sum, the tanh and the products go. */
static gboolean rule_gelu_tanh(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "Mul") || n->inputs->len != 2)
        return FALSE;
    for (int k = 0; k < 2; k++) {
        Tensor *a = node_input(n, (guint)k), *b = node_input(n, (guint)(1 - k));
        Node *outer = made_by(a, "Mul"), *one_plus = NULL, *half_mul = NULL;
        Tensor *x = NULL, *t1 = NULL;
        if (!outer || !only_for(a, n))
            continue;
        if (constant_is(b, 0.5)) { /* Mul(Mul(x, t1), 0.5) */
            for (int j = 0; j < 2 && !x; j++) { /* the operand that is 1 + something */
                t1 = node_input(outer, (guint)j);
                one_plus = made_by(t1, "Add");
                x = one_plus && with_constant(one_plus, 1.0) ? node_input(outer, (guint)(1 - j)) : NULL;
            }
        } else { /* Mul(Mul(x, 0.5), t1) */
            half_mul = outer;
            x = with_constant(outer, 0.5);
            t1 = b;
            one_plus = made_by(t1, "Add");
        }
        Tensor *th = with_constant(one_plus, 1.0);
        Node *tanh = made_by(th, "Tanh"), *core[4];
        if (!x || !one_plus || !only_for(t1, half_mul ? n : outer) || !tanh || !only_for(th, one_plus) ||
            tanh_gelu_argument(node_input(tanh, 0), tanh, core) != x)
            continue;
        for (int c = 0; c < 4; c++)
            g_ptr_array_add(site->removed, core[c]);
        g_ptr_array_add(site->removed, tanh);
        g_ptr_array_add(site->removed, one_plus);
        g_ptr_array_add(site->removed, outer);
        GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
        g_ptr_array_add(attrs, attr_new_string("approximate", "tanh"));
        const char *in[] = {x->name};
        return replace(site, n, "Gelu", FALSE, in, 1, attrs, error) || TRUE;
    }
    return FALSE;
}

/* A MatMul, or a FusedMatMul an earlier rule made, and how it reads its operands: per operand, transposed in
 * its last two dims and batch-transposed (FusedMatMul's transA/B, transBatchA/B), and its scale. */
typedef struct {
    gint64 trans[2], batch[2];
    float alpha;
} MatMulForm;

static Node *matmul_of(const Tensor *t, MatMulForm *f)
{
    Node *p = t ? t->producer : NULL;
    gboolean plain = p && !strcmp(p->op_type, "MatMul") && (!*p->domain || !strcmp(p->domain, "ai.onnx"));
    gboolean fused = p && !strcmp(p->op_type, "FusedMatMul") && !strcmp(p->domain, SIM_OP_DOMAIN);
    if ((!plain && !fused) || t->value || p->inputs->len != 2)
        return NULL;
    *f = (MatMulForm){.alpha = 1.0f};
    if (fused && (!node_attr_int(p, "transA", 0, &f->trans[0], NULL) || !node_attr_int(p, "transB", 0, &f->trans[1], NULL) ||
                  !node_attr_int(p, "transBatchA", 0, &f->batch[0], NULL) ||
                  !node_attr_int(p, "transBatchB", 0, &f->batch[1], NULL) || !node_attr_float(p, "alpha", 1.0f, &f->alpha, NULL)))
        return NULL;
    return p;
}

static gboolean fused_matmul(Site *site, Node *last, const Tensor *a, const Tensor *b, const MatMulForm *f, GError **error)
{
    GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    g_ptr_array_add(attrs, attr_new_int("transA", f->trans[0]));
    g_ptr_array_add(attrs, attr_new_int("transB", f->trans[1]));
    if (f->batch[0])
        g_ptr_array_add(attrs, attr_new_int("transBatchA", 1));
    if (f->batch[1])
        g_ptr_array_add(attrs, attr_new_int("transBatchB", 1));
    g_ptr_array_add(attrs, attr_new_float("alpha", f->alpha));
    const char *in[] = {a->name, b->name};
    return replace(site, last, "FusedMatMul", TRUE, in, 2, attrs, error) || TRUE;
}

/* How a Transpose of rank r can be read by a FusedMatMul instead: 1 when it swaps the last two dims (trans),
 * 2 when it moves dim 0 just before the last ([1..r-2, 0, r-1]: transBatch), 3 for both ([1..r-2, r-1, 0]);
 * 0 otherwise. */
static int transpose_form(const Node *tr, int rank)
{
    const GArray *perm = NULL;
    if (rank < 2 || !node_attr_ints(tr, "perm", &perm, NULL))
        return 0;
    if (!perm) /* the default reverses every dim */
        return rank == 2 ? 1 : 0;
    if ((int)perm->len != rank)
        return 0;
    for (int form = 1; form <= 3; form++) {
        gboolean same = form == 1 || rank >= 3;
        for (int d = 0; d < rank && same; d++) {
            gint64 want = form == 1 ? (d == rank - 2 ? rank - 1 : d == rank - 1 ? rank - 2 : d)
                          : d < rank - 2 ? d + 1 : form == 2 ? (d == rank - 2 ? 0 : rank - 1) : (d == rank - 2 ? rank - 1 : 0);
            same = g_array_index(perm, gint64, d) == want;
        }
        if (same)
            return form;
    }
    return 0;
}

/* MatMul(A, Transpose(B)) where the Transpose swaps the last two dims, or moves dim 0 next to the last (both
 * operands of one rank >= 3): FusedMatMul reading B as it is (ONNX Runtime's MatmulTransposeFusion, its
 * transB and transBatchB); the transposed copy goes. */
static gboolean rule_matmul_transpose(Site *site, Node *n, GError **error)
{
    MatMulForm f;
    Tensor *t = node_output(n, 0);
    if (!t || matmul_of(t, &f) != n)
        return FALSE;
    Tensor *in[2] = {node_input(n, 0), node_input(n, 1)};
    gboolean any = FALSE;
    for (int k = 0; k < 2; k++) {
        Node *tr = made_by(in[k], "Transpose");
        if (!tr || !only_for(in[k], n) || in[0] == in[1] || f.batch[k])
            continue;
        int form = transpose_form(tr, in[k]->rank);
        if (form >= 2 && (in[0]->rank != in[1]->rank || f.trans[k]))
            continue; /* transBatch: operands of one rank, then the swap */
        if (!form)
            continue;
        g_ptr_array_add(site->removed, tr);
        in[k] = node_input(tr, 0);
        if (form & 1)
            f.trans[k] = !f.trans[k];
        if (form & 2)
            f.batch[k] = 1;
        any = TRUE;
    }
    return any && fused_matmul(site, n, in[0], in[1], &f, error);
}

/* A one-element constant operand of a Mul or Div, as the factor it scales by (Div: its inverse), and the other
 * operand; NULL when there is none (or the constant is the divided one). */
static Tensor *scaled_by(const Node *s, float *factor)
{
    if (!s || s->inputs->len != 2 || (strcmp(s->op_type, "Mul") && strcmp(s->op_type, "Div")))
        return NULL;
    gboolean div = !strcmp(s->op_type, "Div");
    for (int k = div ? 1 : 0; k < 2; k++) {
        Tensor *c = node_input(s, (guint)k);
        if (!c || !c->value || c->dynamic || c->value->n != 1 || !dtype_is_float(c->dtype))
            continue;
        double v = value_get_f(c->value, 0);
        if (v == 0.0 || !isfinite(v))
            continue;
        *factor = (float)(div ? 1.0 / v : v);
        return node_input(s, (guint)(1 - k));
    }
    return NULL;
}

/* A MatMul scaled by a constant, on its output (Div(MatMul(q, kT), sqrt(d)): the [seq, seq] scores written a
 * second time) or on an operand (MatMul(Div(q, sqrt(d)), kT)): FusedMatMul with alpha (ONNX Runtime's
 * MatMulScaleFusion); the unscaled product or the scaled operand goes. */
static gboolean rule_matmul_scale(Site *site, Node *n, GError **error)
{
    MatMulForm f;
    float factor;
    Tensor *x = scaled_by(n, &factor);
    Node *mm = x ? matmul_of(x, &f) : NULL;
    if (mm && only_for(x, n) && !g_hash_table_contains(site->with, mm) && (guint)mm->index < site->first_new) {
        /* on the output (of a MatMul this pass has not made) */
        g_ptr_array_add(site->removed, mm);
        f.alpha *= factor;
        return fused_matmul(site, n, node_input(mm, 0), node_input(mm, 1), &f, error);
    }
    Tensor *t = node_output(n, 0);
    if (!t || matmul_of(t, &f) != n)
        return FALSE;
    Tensor *in[2] = {node_input(n, 0), node_input(n, 1)};
    gboolean any = FALSE;
    for (int k = 0; k < 2; k++) { /* on an operand */
        Node *s = in[k] ? in[k]->producer : NULL;
        Tensor *inner = s && !in[k]->value && only_for(in[k], n) && in[0] != in[1] ? scaled_by(s, &factor) : NULL;
        if (!inner)
            continue;
        g_ptr_array_add(site->removed, s);
        in[k] = inner;
        f.alpha *= factor;
        any = TRUE;
    }
    return any && fused_matmul(site, n, in[0], in[1], &f, error);
}

static gboolean is_weight(const Tensor *t);

/* Gelu(Add(x, bias)) with the bias a weight over x's last dim (a linear layer's bias before its GELU):
 * BiasGelu(x, bias), either approximation (ONNX Runtime's BiasGeluFusion); the biased sum goes. */
static gboolean rule_bias_gelu(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "Gelu") || (*n->domain && strcmp(n->domain, "ai.onnx")) || n->inputs->len != 1)
        return FALSE;
    Tensor *t = node_input(n, 0);
    Node *add = made_by(t, "Add");
    if (!add || !only_for(t, n) || add->inputs->len != 2)
        return FALSE;
    for (int k = 0; k < 2; k++) {
        Tensor *x = node_input(add, (guint)k), *bias = node_input(add, (guint)(1 - k));
        if (!x || !bias || !is_weight(bias) || is_weight(x) || bias->rank != 1 || x->rank < 1 ||
            bias->dims[0] != x->dims[x->rank - 1] || x->dtype != DT_FLOAT || bias->dtype != DT_FLOAT ||
            t->rank != x->rank || memcmp(t->dims, x->dims, sizeof(gint64) * (gsize)x->rank))
            continue;
        const char *approximate = "none";
        node_attr_string(n, "approximate", "none", &approximate, NULL);
        g_ptr_array_add(site->removed, add);
        GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
        g_ptr_array_add(attrs, attr_new_string("approximate", approximate));
        const char *in[] = {x->name, bias->name};
        return replace(site, n, "BiasGelu", TRUE, in, 2, attrs, error) || TRUE;
    }
    return FALSE;
}

/* Add(Conv(x, w, b), skip) of one shape: a Conv that accumulates into the skip tensor (FusedConv, in place
 * over it when it dies here: the Conv's output and the skip never coexist); a Relu or Clip after it folds
 * into the kernel as for any Conv. */
static gboolean rule_conv_add(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "Add") || n->inputs->len != 2)
        return FALSE;
    for (int k = 0; k < 2; k++) {
        Tensor *c = node_input(n, (guint)k), *skip = node_input(n, (guint)(1 - k)), *y = node_output(n, 0);
        Node *conv = made_by(c, "Conv");
        if (!conv || !only_for(c, n) || !skip || skip == c || skip->rank != c->rank || skip->dtype != c->dtype ||
            !y || y->rank != c->rank || skip->dynamic)
            continue;
        gboolean same = TRUE;
        for (int d = 0; d < c->rank && same; d++)
            same = skip->dims[d] == c->dims[d] && y->dims[d] == c->dims[d];
        if (!same)
            continue;
        g_ptr_array_add(site->removed, conv);
        GPtrArray *attrs = copied_attrs(conv, NULL);
        Tensor *b = node_input(conv, 2);
        const char *in[] = {node_input(conv, 0)->name, node_input(conv, 1)->name, b ? b->name : "", skip->name};
        return replace(site, n, "FusedConv", TRUE, in, 4, attrs, error) || TRUE;
    }
    return FALSE;
}

/* The spatial pads of a Pad that adds zeros around the images and nothing else: its pads (an attribute
 * before opset 11, a constant input from it on) zero on the batch and channel axes, none negative, its value
 * 0, its mode constant, no axes input. pads holds rank * 2 entries (begins, then ends); FALSE otherwise. */
static gboolean zero_spatial_pads(const Node *pad, gint64 opset, gint64 *pads, int rank)
{
    const char *mode;
    if (!node_attr_string(pad, "mode", "constant", &mode, NULL) || strcmp(mode, "constant") || rank < 3 ||
        rank > 8 || pad->inputs->len > 3)
        return FALSE;
    if (opset >= 11) {
        const Tensor *p = node_input(pad, 1), *v = node_input(pad, 2);
        if (!p || !p->value || p->dynamic || p->value->n != (gsize)rank * 2 || (v && !constant_is(v, 0.0)))
            return FALSE;
        for (int k = 0; k < rank * 2; k++)
            pads[k] = value_get_i(p->value, (gsize)k);
    } else {
        const GArray *p = NULL;
        float value;
        if (!node_attr_ints(pad, "pads", &p, NULL) || !p || p->len != (guint)rank * 2 ||
            !node_attr_float(pad, "value", 0.0f, &value, NULL) || value != 0.0f)
            return FALSE;
        for (int k = 0; k < rank * 2; k++)
            pads[k] = g_array_index(p, gint64, k);
    }
    for (int k = 0; k < rank * 2; k++)
        if (pads[k] < 0 || pads[k] > G_MAXINT32 || ((k % rank) < 2 && pads[k] != 0))
            return FALSE;
    return TRUE;
}

/* Conv or AveragePool of a Pad of zeros around the images, the padded tensor read by it alone: the window op
 * with the pads added to its own, the padded tensor never made (ONNX Runtime's PadFusion). The window must
 * give its pads explicitly (a pads attribute, no auto_pad). An AveragePool then counts the pads in its
 * divisor (count_include_pad 1), so it may take them only when it counted its own, or had none: the values
 * stay the unfused pair's. ONNX Runtime also folds such a Pad into a MaxPool, whose padding is then -inf
 * where the Pad's was 0: other values wherever a window sees only negative ones, so not here. */
static gboolean rule_pad_window(Site *site, Node *n, GError **error)
{
    gboolean pool = !strcmp(n->op_type, "AveragePool");
    if ((strcmp(n->op_type, "Conv") && !pool) || (*n->domain && strcmp(n->domain, "ai.onnx")))
        return FALSE;
    Tensor *padded = node_input(n, 0);
    Node *pad = made_by(padded, "Pad");
    const char *auto_pad;
    const GArray *own = NULL;
    gint64 include = 0, pads[16];
    if (!pad || !only_for(padded, n) || !node_input(pad, 0) || !node_attr_string(n, "auto_pad", "NOTSET", &auto_pad, NULL) ||
        strcmp(auto_pad, "NOTSET") || !node_attr(n, "pads") || !node_attr_ints(n, "pads", &own, NULL) ||
        !node_attr_int(n, "count_include_pad", 0, &include, NULL))
        return FALSE;
    int rank = padded->rank, s = rank - 2;
    if (!own || own->len != (guint)s * 2 || !zero_spatial_pads(pad, site->opset, pads, rank))
        return FALSE;
    gboolean own_pads = FALSE;
    for (guint k = 0; k < own->len; k++) {
        gint64 p = g_array_index(own, gint64, k);
        if (p < 0 || p > G_MAXINT32) /* (sums stay far from overflow) */
            return FALSE;
        own_pads = own_pads || p != 0;
    }
    if (pool && own_pads && !include)
        return FALSE;
    gint64 sum[16];
    for (int a = 0; a < s; a++) {
        sum[a] = g_array_index(own, gint64, a) + pads[2 + a];
        sum[s + a] = g_array_index(own, gint64, s + a) + pads[rank + 2 + a];
    }
    g_ptr_array_add(site->removed, pad);
    GPtrArray *attrs = copied_attrs(n, (const char *const[]){"pads", "count_include_pad", NULL});
    g_ptr_array_add(attrs, attr_new_ints("pads", sum, (gsize)s * 2));
    if (pool)
        g_ptr_array_add(attrs, attr_new_int("count_include_pad", 1));
    const char *in[4] = {node_input(pad, 0)->name, "", "", ""};
    for (guint k = 1; k < n->inputs->len && k < 4; k++)
        in[k] = node_input(n, k) ? node_input(n, k)->name : "";
    return replace(site, n, n->op_type, FALSE, in, (int)MIN(n->inputs->len, 4), attrs, error) || TRUE;
}

/* Add(MatMul(a, b), bias) with a and b matrices and the bias broadcast over rows: Gemm(a, b, bias); the
 * MatMul output goes (ONNX Runtime's MatMulAddFusion, for 2-D products). */
static gboolean rule_matmul_add(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "Add") || n->inputs->len != 2)
        return FALSE;
    for (int k = 0; k < 2; k++) {
        Tensor *m = node_input(n, (guint)k), *bias = node_input(n, (guint)(1 - k));
        Node *mm = made_by(m, "MatMul");
        if (!mm || !only_for(m, n) || !bias || bias == m || m->rank != 2 || node_input(mm, 0)->rank != 2 ||
            node_input(mm, 1)->rank != 2 || bias->rank < 1 || bias->rank > 2 || bias->dtype != m->dtype)
            continue;
        gint64 cols = m->dims[1], rows = m->dims[0];
        gboolean fits = bias->dims[bias->rank - 1] == cols && (bias->rank == 1 || bias->dims[0] == 1 || bias->dims[0] == rows);
        if (!fits)
            continue;
        g_ptr_array_add(site->removed, mm);
        const char *in[] = {node_input(mm, 0)->name, node_input(mm, 1)->name, bias->name};
        return replace(site, n, "Gemm", FALSE, in, 3, NULL, error) || TRUE;
    }
    return FALSE;
}

/* A weight or constant (an initializer, perhaps one whose bytes the file leaves out, or an Identity of one),
 * not a computed tensor. */
static gboolean is_weight(const Tensor *t)
{
    while (t && t->producer && !strcmp(t->producer->op_type, "Identity")) /* torch shares equal weights so */
        t = node_input(t->producer, 0);
    return t && !t->dynamic && (t->init || t->kind == TENSOR_WEIGHT || t->kind == TENSOR_CONSTANT);
}

/* A weight or constant, or a value the planner knows (shape arithmetic): what constant folding may read. */
static gboolean known_before_running(const Tensor *t)
{
    return is_weight(t) || (t && t->value && !t->dynamic);
}

/* t is read only by nodes among `within` (n of them) and is not a graph output. */
static gboolean only_within(const Tensor *t, Node *const *within, int n)
{
    if (!t || t->is_graph_output || t->dynamic)
        return FALSE;
    for (guint k = 0; k < t->consumers->len; k++) {
        gboolean in = FALSE;
        for (int j = 0; j < n && !in; j++)
            in = t->consumers->pdata[k] == within[j];
        if (!in)
            return FALSE;
    }
    return TRUE;
}

/* A ReduceMean over the last axis only, keeping it. */
static gboolean mean_of_last_axis(const Node *r, const Tensor *x)
{
    gint64 keep;
    const GArray *axes = NULL;
    if (!node_attr_int(r, "keepdims", 1, &keep, NULL) || !keep || !node_attr_ints(r, "axes", &axes, NULL))
        return FALSE;
    const Tensor *axes_t = node_input(r, 1);
    gint64 axis;
    if (axes && axes->len == 1)
        axis = g_array_index(axes, gint64, 0);
    else if (!axes && axes_t && axes_t->value && !axes_t->dynamic && axes_t->value->n == 1)
        axis = value_get_i(axes_t->value, 0);
    else
        return FALSE;
    return axis == -1 || axis == x->rank - 1;
}

/* LayerNorm as torch writes it before opset 17: Add(Mul(Div(Sub(x, ReduceMean(x)), Sqrt(Add(ReduceMean(Pow(
 * Sub(...), 2)), eps))), gamma), beta) over the last axis: LayerNormalization(x, gamma, beta); the centred
 * x, its square, the variance, the deviation and the normalised x go (ONNX Runtime's LayerNormFusion). */
static gboolean rule_layer_norm(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "Add") || n->inputs->len != 2)
        return FALSE;
    for (int k = 0; k < 2; k++) {
        Tensor *mt = node_input(n, (guint)k), *beta = node_input(n, (guint)(1 - k));
        Node *mul = made_by(mt, "Mul");
        if (!mul || !only_for(mt, n) || !is_weight(beta) || beta->rank != 1)
            continue;
        for (int j = 0; j < 2; j++) {
            Tensor *qt = node_input(mul, (guint)j), *gamma = node_input(mul, (guint)(1 - j));
            Node *div = made_by(qt, "Div");
            if (!div || !only_for(qt, mul) || !is_weight(gamma) || gamma->rank != 1)
                continue;
            Tensor *dt = node_input(div, 0), *st = node_input(div, 1);
            Node *sub = made_by(dt, "Sub"), *sq = made_by(st, "Sqrt");
            if (!sub || !sq || !only_for(st, div))
                continue;
            Tensor *at = node_input(sq, 0);
            Node *add = made_by(at, "Add");
            if (!add || !only_for(at, sq))
                continue;
            Tensor *vt = node_input(add, 0), *eps = node_input(add, 1);
            if (!made_by(vt, "ReduceMean")) {
                Tensor *swap = vt;
                vt = eps;
                eps = swap;
            }
            Node *var = made_by(vt, "ReduceMean");
            if (!var || !only_for(vt, add) || !eps || !eps->value || eps->dynamic || eps->value->n != 1)
                continue;
            Tensor *pt = node_input(var, 0);
            Node *pow = made_by(pt, "Pow");
            if (!pow || !only_for(pt, var) || node_input(pow, 0) != dt || !constant_is(node_input(pow, 1), 2.0))
                continue;
            Tensor *x = node_input(sub, 0), *mean_t = node_input(sub, 1);
            Node *mean = made_by(mean_t, "ReduceMean");
            Node *users[] = {pow, div};
            if (!mean || !only_for(mean_t, sub) || node_input(mean, 0) != x || !only_within(dt, users, 2) ||
                !mean_of_last_axis(mean, x) || !mean_of_last_axis(var, x) || x->rank < 1 ||
                gamma->dims[0] != x->dims[x->rank - 1] || beta->dims[0] != x->dims[x->rank - 1] || x->dtype != DT_FLOAT)
                continue;
            Node *inner[] = {mean, sub, pow, var, add, sq, div, mul};
            for (gsize i = 0; i < G_N_ELEMENTS(inner); i++)
                g_ptr_array_add(site->removed, inner[i]);
            GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
            g_ptr_array_add(attrs, attr_new_int("axis", -1));
            g_ptr_array_add(attrs, attr_new_float("epsilon", (float)value_get_f(eps->value, 0)));
            const char *in[] = {x->name, gamma->name, beta->name};
            return replace(site, n, "LayerNormalization", FALSE, in, 3, attrs, error) || TRUE;
        }
    }
    return FALSE;
}

/* LayerNormalization over the last axis of Add(x, skip), two tensors of one shape, the sum read by the
 * LayerNorm alone: SkipLayerNormalization(x, skip, gamma, beta) (ONNX Runtime's SkipLayerNormFusion, and its
 * transformer optimizer's); the sum goes. A pre-norm block (GPT-2, ViT) reads its residual sum again in the
 * next residual Add, so it stays unfused there, as in ONNX Runtime. */
static gboolean rule_skip_layer_norm(Site *site, Node *n, GError **error)
{
    gint64 axis;
    if (strcmp(n->op_type, "LayerNormalization") || (*n->domain && strcmp(n->domain, "ai.onnx")) ||
        n->inputs->len < 2 || n->outputs->len > 1 || !node_attr_int(n, "axis", -1, &axis, NULL))
        return FALSE;
    Tensor *t = node_input(n, 0), *gamma = node_input(n, 1), *beta = node_input(n, 2);
    Node *add = made_by(t, "Add");
    if (!add || !only_for(t, n) || add->inputs->len != 2 || t->rank < 1 || (axis != -1 && axis != t->rank - 1) ||
        t->dtype != DT_FLOAT || !gamma || gamma->rank != 1 || gamma->dims[0] != t->dims[t->rank - 1] ||
        (beta && (beta->rank != 1 || beta->dims[0] != t->dims[t->rank - 1])))
        return FALSE;
    Tensor *x = node_input(add, 0), *skip = node_input(add, 1);
    if (!x || !skip || x->rank != t->rank || skip->rank != t->rank || memcmp(x->dims, t->dims, sizeof(gint64) * (gsize)t->rank) ||
        memcmp(skip->dims, t->dims, sizeof(gint64) * (gsize)t->rank) || x->dtype != DT_FLOAT || skip->dtype != DT_FLOAT)
        return FALSE; /* no broadcast: both operands of the sum's shape */
    float eps;
    if (!node_attr_float(n, "epsilon", 1e-5f, &eps, NULL))
        return FALSE;
    g_ptr_array_add(site->removed, add);
    GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    g_ptr_array_add(attrs, attr_new_float("epsilon", eps));
    const char *in[] = {x->name, skip->name, gamma->name, beta ? beta->name : ""};
    return replace(site, n, "SkipLayerNormalization", TRUE, in, beta ? 4 : 3, attrs, error) || TRUE;
}

/* MatMul(Softmax(MatMul(Q, K) [scaled]), V), the Softmax over the last axis, nothing between the products and
 * it (the scale already a FusedMatMul's alpha): sim's Attention(Q, K, V), which never writes the [queries,
 * keys] scores nor the probabilities; both go. ONNX Runtime's transformer optimizer writes such attention as
 * MultiHeadAttention, and its CPU kernel then takes its flash path (tiles of Q and K, no score matrix)
 * exactly when there is no mask, no bias on the scores and no causal flag; with one it keeps the whole
 * [batch, heads, queries, keys] scores in temporary memory. So a mask (an Add or Where between the product
 * and the Softmax: GPT-2's causal mask, Swin's position bias) leaves the pattern alone. Each product may read
 * its right operand transposed or batch-transposed, and the first its left batch-transposed, as FusedMatMul
 * does. */
static gboolean rule_attention(Site *site, Node *n, GError **error)
{
    MatMulForm pv, qk;
    Tensor *out = node_output(n, 0);
    if (!out || matmul_of(out, &pv) != n || pv.trans[0] || pv.batch[0] || pv.alpha != 1.0f)
        return FALSE;
    Tensor *p = node_input(n, 0), *v = node_input(n, 1);
    Node *softmax = made_by(p, "Softmax");
    gint64 axis;
    if (!softmax || !only_for(p, n) || !v || v == p ||
        !node_attr_int(softmax, "axis", site->opset >= 13 ? -1 : 1, &axis, NULL) || p->rank < 2 ||
        (axis != -1 && axis != p->rank - 1) || p->dtype != DT_FLOAT)
        return FALSE;
    Tensor *scores = node_input(softmax, 0);
    Node *mm = scores ? matmul_of(scores, &qk) : NULL;
    if (!mm || !only_for(scores, softmax) || qk.trans[0] || g_hash_table_contains(site->with, mm) ||
        (guint)mm->index >= site->first_new)
        return FALSE;
    Tensor *q = node_input(mm, 0), *k = node_input(mm, 1);
    if (!q || !k || q->rank < 2 || k->rank < 2 || v->rank < 2 || q->dtype != DT_FLOAT)
        return FALSE;
    g_ptr_array_add(site->removed, mm);
    g_ptr_array_add(site->removed, softmax);
    GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    g_ptr_array_add(attrs, attr_new_float("scale", qk.alpha));
    const char *names[] = {"transBatchQ", "transK", "transBatchK", "transV", "transBatchV"};
    gint64 values[] = {qk.batch[0], qk.trans[1], qk.batch[1], pv.trans[1], pv.batch[1]};
    for (gsize a = 0; a < G_N_ELEMENTS(names); a++)
        if (values[a])
            g_ptr_array_add(attrs, attr_new_int(names[a], 1));
    const char *in[] = {q->name, k->name, v->name};
    return replace(site, n, "Attention", TRUE, in, 3, attrs, error) || TRUE;
}

/* A new initializer named from `base` and `what`: `dtype`, rank 1 of n elements or (n < 0) a scalar, its bytes
 * `values`; its shape and value set. Its name. */
static const char *new_constant(Site *site, const char *base, const char *what, DType dtype, const void *values,
                                int n, GError **error)
{
    char *name = graph_unique_name(site->g, base, what);
    int rank = n < 0 ? 0 : 1;
    const gint64 dims[] = {n};
    TensorData *d = tensor_data_new(name, dtype, rank, dims);
    d->raw = g_bytes_new(values, (gsize)MAX(n, 1) * dtype_size(dtype));
    g_free(name);
    if (!graph_add_initializer(site->g, d, error))
        return NULL;
    Tensor *t = graph_tensor(site->g, d->name);
    t->kind = TENSOR_WEIGHT;
    if (!infer_set_shape(t, dtype, rank, dims, TRUE, error))
        return NULL;
    t->value = tensor_data_value(d);
    return t->name;
}

/* A new int64 initializer holding `n` values (a Reshape's shape); its name. */
static const char *shape_constant(Site *site, const char *base, const gint64 *values, int n, GError **error)
{
    return new_constant(site, base, "shape", DT_INT64, values, n, error);
}

/* A new node of the default domain (or sim's, `internal`) with one output named from `base`, its shapes inferred. */
static Node *add_node(Site *site, const char *op, gboolean internal, const char *base, const char *const *inputs,
                      int n_in, GPtrArray *attrs, GError **error)
{
    char *name = graph_unique_name(site->g, base, op), *out = graph_unique_name(site->g, base, "out");
    const char *outputs[] = {out};
    Node *n = graph_add_node(site->g, op, internal ? SIM_OP_DOMAIN : "", name, inputs, n_in, outputs, 1, attrs,
                             error);
    g_free(name);
    g_free(out);
    if (n && (!(n->op = op_lookup(n->domain, n->op_type)) || !shape_infer_node(n, site->opset, error)))
        return NULL;
    return n;
}

/* One operand of a MatMul that is grouped-query attention's repeat_kv: X [b, g, t, d] unsqueezed at axis 2, expanded
 * to [b, g, r, t, d] and reshaped to [b, g·r, t, d], optionally through a Transpose of its last two dims; the
 * Unsqueeze's output (kept) returned, r in *repeats, the nodes that go in site->removed. */
static Tensor *repeat_kv_of(Site *site, Tensor *b, const Node *mm, gint64 *repeats, gboolean *transposed)
{
    Node *tr = made_by(b, "Transpose");
    *transposed = tr && only_for(b, mm) && b->rank == 4 && transpose_form(tr, 4) == 1;
    Tensor *r = *transposed ? node_input(tr, 0) : b;
    Node *reshape = made_by(r, "Reshape");
    Tensor *e = reshape && only_for(r, *transposed ? tr : mm) ? node_input(reshape, 0) : NULL;
    Node *expand = made_by(e, "Expand");
    Tensor *u = expand && only_for(e, reshape) ? node_input(expand, 0) : NULL;
    Node *unsqueeze = made_by(u, "Unsqueeze");
    Tensor *x = unsqueeze ? node_input(unsqueeze, 0) : NULL;
    if (!x || !x->shape_known || x->rank != 4 || r->rank != 4 || e->rank != 5 || u->rank != 5 || u->dims[2] != 1 ||
        u->dims[0] != x->dims[0] || u->dims[1] != x->dims[1] || u->dims[3] != x->dims[2] || e->dims[0] != x->dims[0] ||
        e->dims[1] != x->dims[1] || e->dims[3] != x->dims[2] || e->dims[4] != x->dims[3] || r->dims[0] != x->dims[0] ||
        r->dims[1] != x->dims[1] * e->dims[2] || r->dims[2] != x->dims[2] || r->dims[3] != x->dims[3] ||
        r->dtype != DT_FLOAT)
        return NULL;
    if (*transposed)
        g_ptr_array_add(site->removed, tr);
    g_ptr_array_add(site->removed, reshape);
    g_ptr_array_add(site->removed, expand);
    *repeats = e->dims[2];
    return u;
}

/* MatMul(A, K or V repeated from its key/value heads to the query heads: repeat_kv_of) is the MatMul of A with
 * its heads split into [groups, repeats] and the unrepeated tensor, broadcast over the repeats, its output's heads
 * merged again (K's Transpose read as FusedMatMul's transB): the expanded copy of the cache goes, as ONNX Runtime's
 * GroupQueryAttention reads the cache's key/value heads where they lie. */
static gboolean rule_repeat_kv(Site *site, Node *n, GError **error)
{
    Tensor *y = node_output(n, 0), *a = node_input(n, 0), *b = node_input(n, 1);
    gint64 r;
    gboolean transposed;
    Tensor *u = strcmp(n->op_type, "MatMul") || (*n->domain && strcmp(n->domain, "ai.onnx")) || !a || !y ||
                        !a->shape_known || a->rank != 4 || y->rank != 4 || a == b || (guint)n->index >= site->first_new
                    ? NULL
                    : repeat_kv_of(site, b, n, &r, &transposed);
    if (!u || a->dims[0] != u->dims[0] || a->dims[1] != u->dims[1] * r) {
        g_ptr_array_set_size(site->removed, 0);
        return FALSE;
    }
    guint64 saved = 0; /* the expanded copy, and the transposed one: the Reshape between is a view */
    for (guint k = 0; k < site->removed->len; k++)
        if (strcmp(((const Node *)site->removed->pdata[k])->op_type, "Reshape"))
            saved += node_output(site->removed->pdata[k], 0)->bytes;
    const char *base = *n->name ? n->name : "repeat_kv";
    const gint64 split[] = {a->dims[0], u->dims[1], r, a->dims[2], a->dims[3]};
    const char *split_shape = shape_constant(site, base, split, 5, error);
    const char *merged_shape = split_shape ? shape_constant(site, base, y->dims, 4, error) : NULL;
    Node *a5 = merged_shape ? add_node(site, "Reshape", FALSE, base, (const char *[]){a->name, split_shape}, 2, NULL,
                                       error)
                            : NULL;
    GPtrArray *attrs = NULL;
    if (transposed) {
        attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
        g_ptr_array_add(attrs, attr_new_int("transA", 0));
        g_ptr_array_add(attrs, attr_new_int("transB", 1));
        g_ptr_array_add(attrs, attr_new_float("alpha", 1.0f));
    }
    Node *mm = a5 ? add_node(site, transposed ? "FusedMatMul" : "MatMul", transposed, base,
                             (const char *[]){node_output(a5, 0)->name, u->name}, 2, attrs, error)
                  : (attrs ? (g_ptr_array_unref(attrs), NULL) : NULL);
    if (!mm)
        return TRUE; /* *error says why */
    GPtrArray *first = g_ptr_array_new();
    g_ptr_array_add(first, a5);
    g_ptr_array_add(first, mm);
    g_hash_table_insert(site->before, n, first);
    const char *in[] = {node_output(mm, 0)->name, merged_shape};
    if (!replace(site, n, "Reshape", FALSE, in, 2, NULL, error))
        return TRUE;
    site->bytes = saved;
    return TRUE;
}

/* An 8-bit type, as ONNX Runtime's QDQ fusions take. */
static gboolean quantized_8bit(DType t) { return t == DT_UINT8 || t == DT_INT8; }

/* Known values: one, or also `per` of them (a scale or zero point per output channel), or any number (per < 0). */
static gboolean known_values(const Tensor *t, gint64 per)
{
    return t && t->value && !t->dynamic && (t->value->n == 1 || per < 0 || (per > 0 && (gint64)t->value->n == per));
}

/* A weight, or a tensor computed from weights and known values alone (a weight's QuantizeLinear, which ONNX
 * Runtime folds into an 8-bit initializer before its QDQ fusions). */
static gboolean constant_tensor(const Tensor *t)
{
    if (known_before_running(t))
        return TRUE;
    if (!t || !t->producer || t->dynamic)
        return FALSE;
    for (guint k = 0; k < t->producer->inputs->len; k++) {
        const Tensor *in = node_input(t->producer, k);
        if (in && !known_before_running(in))
            return FALSE;
    }
    return TRUE;
}

/* A zero point that is one int8 initializer value: that value in *v. */
static gboolean int8_zero_point(const Tensor *t, gint64 *v)
{
    if (!t || !t->init || t->dtype != DT_INT8 || !t->value || t->value->n != 1 || t->dynamic)
        return FALSE;
    *v = value_get_i(t->value, 0);
    return TRUE;
}

/* A QuantizeLinear to int8 read by one DequantizeLinear alone (and not a graph output), each with its zero point
 * one int8 initializer value, the same: both uint8, at that zero point plus 128, as ONNX Runtime's
 * QDQS8ToU8Transformer rewrites them where its int8 kernels are not allowed (QDQIsInt8Allowed: false but on ARM, so
 * on x86). Each quantized value is the int8 one plus 128, each dequantized value the same; the QDQ fusions after
 * then see uint8 activations. (Its other half, a lone DequantizeLinear of int8 weights read by no Conv, MatMul or
 * Gemm made uint8 too, is not modelled: its results are the same, only which fusions apply could differ.) */
static gboolean rule_qdq_s8_to_u8(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "DequantizeLinear") || *n->domain || n->inputs->len != 3 || node_attr(n, "block_size"))
        return FALSE;
    Tensor *quantized = node_input(n, 0);
    Node *q = made_by(quantized, "QuantizeLinear");
    gint64 zq, zdq;
    if (!q || q->inputs->len != 3 || !only_for(quantized, n) || g_hash_table_contains(site->with, q) ||
        node_attr(q, "block_size") || node_attr(q, "output_dtype") || !node_input(q, 0) || !node_input(q, 1) ||
        !node_input(n, 1) ||
        !int8_zero_point(node_input(q, 2), &zq) || !int8_zero_point(node_input(n, 2), &zdq) || zq != zdq)
        return FALSE;
    const char *base = *q->name ? q->name : "quantize";
    guint8 shifted = (guint8)(zq + 128);
    const char *zero = new_constant(site, base, "zero_point_u8", DT_UINT8, &shifted, -1, error);
    Node *requantized = zero ? add_node(site, "QuantizeLinear", FALSE, base,
                                        (const char *[]){node_input(q, 0)->name, node_input(q, 1)->name, zero}, 3,
                                        copied_attrs(q, NULL), error)
                             : NULL;
    if (!requantized)
        return TRUE; /* *error says why */
    GPtrArray *first = g_ptr_array_new();
    g_ptr_array_add(first, requantized);
    g_hash_table_insert(site->before, n, first);
    g_ptr_array_add(site->removed, q);
    const char *in[] = {node_output(requantized, 0)->name, node_input(n, 1)->name, zero};
    if (!replace(site, n, "DequantizeLinear", FALSE, in, 3, copied_attrs(n, NULL), error))
        return TRUE;
    site->bytes = 0; /* the quantized tensor takes as many bytes in its new type */
    return TRUE;
}

/* A Conv or Gemm of two DequantizeLinear outputs with a float bias initializer (one value per output channel; or an
 * Identity of one, which ONNX Runtime folds first, as torch writes biases it shares):
 * the bias quantized to int32 on the grid of x_scale * w_scale and dequantized again, DequantizeLinear(Cast(Round(
 * bias / (x_scale * w_scale)), INT32), x_scale * w_scale), as ONNX Runtime's BiasQuantization writes it before its
 * QDQ fusions: x's scale one value, w's one or one per output channel (axis 0 of a Conv's weight, of a Gemm's the
 * axis its transB makes the columns'). The new nodes read weights alone: constant-fold computes all but the
 * DequantizeLinear, which ONNX Runtime leaves to run (a QDQ fusion then takes the int32 bias). */
static gboolean rule_qdq_bias(Site *site, Node *n, GError **error)
{
    gboolean gemm = !strcmp(n->op_type, "Gemm");
    if ((strcmp(n->op_type, "Conv") && !gemm) || *n->domain || n->inputs->len < 3)
        return FALSE;
    Tensor *bias = node_input(n, 2), *xf = node_input(n, 0), *wf = node_input(n, 1);
    Node *dqx = made_by(xf, "DequantizeLinear"), *dqw = made_by(wf, "DequantizeLinear");
    if (!bias || !is_weight(bias) || bias->dtype != DT_FLOAT || bias->rank != 1 || !dqx || !dqw ||
        dqx->inputs->len < 2 || dqw->inputs->len < 2 || node_attr(dqw, "block_size"))
        return FALSE;
    Tensor *xs = node_input(dqx, 1), *ws = node_input(dqw, 1);
    gint64 axis = 1, trans_b = 0;
    if (!node_attr_int(dqw, "axis", 1, &axis, NULL) || !node_attr_int(n, "transB", 0, &trans_b, NULL) ||
        !xs || xs->rank != 0 || !ws || ws->dtype != DT_FLOAT || xs->dtype != DT_FLOAT)
        return FALSE;
    gboolean per_channel = ws->rank != 0;
    if (per_channel && (ws->rank != 1 || ws->dims[0] != bias->dims[0] || axis != (gemm && !trans_b ? 1 : 0)))
        return FALSE;
    const char *base = *n->name ? n->name : "bias";
    GPtrArray *cast_attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free), *dq_attrs = NULL;
    g_ptr_array_add(cast_attrs, attr_new_int("to", DT_INT32));
    if (per_channel) {
        dq_attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
        g_ptr_array_add(dq_attrs, attr_new_int("axis", 0));
    }
    Node *scale = add_node(site, "Mul", FALSE, base, (const char *[]){xs->name, ws->name}, 2, NULL, error);
    const char *scale_out = scale ? node_output(scale, 0)->name : NULL;
    Node *div = scale ? add_node(site, "Div", FALSE, base, (const char *[]){bias->name, scale_out}, 2, NULL, error)
                      : NULL;
    Node *round = div ? add_node(site, "Round", FALSE, base, (const char *[]){node_output(div, 0)->name}, 1, NULL,
                                 error) : NULL;
    Node *cast = round ? add_node(site, "Cast", FALSE, base, (const char *[]){node_output(round, 0)->name}, 1,
                                  cast_attrs, error) : (g_ptr_array_unref(cast_attrs), NULL);
    Node *dq = cast ? add_node(site, "DequantizeLinear", FALSE, base,
                               (const char *[]){node_output(cast, 0)->name, scale_out}, 2, dq_attrs, error)
                    : (dq_attrs ? (g_ptr_array_unref(dq_attrs), NULL) : NULL);
    if (!dq)
        return TRUE; /* *error says why */
    GPtrArray *first = g_ptr_array_new();
    Node *made[] = {scale, div, round, cast, dq};
    for (gsize k = 0; k < G_N_ELEMENTS(made); k++)
        g_ptr_array_add(first, made[k]);
    g_hash_table_insert(site->before, n, first);
    GPtrArray *attrs = copied_attrs(n, NULL);
    const char *inputs[] = {xf->name, wf->name, node_output(dq, 0)->name};
    if (!replace(site, n, n->op_type, FALSE, inputs, 3, attrs, error))
        return TRUE;
    site->bytes = 0; /* nothing removed: the bias takes another value */
    return TRUE;
}

/* How many of n's inputs are given (an optional one left out is an empty name). */
static guint present_inputs(const Node *n)
{
    guint present = 0;
    for (guint k = 0; k < n->inputs->len; k++)
        present += node_input(n, k) != NULL;
    return present;
}

/* ONNX Runtime's QDQ node groups (its qdq_selectors): a target op whose first `n_dq` inputs are each a
 * DequantizeLinear read by it alone and whose output is read by one QuantizeLinear alone (or by a Relu read by it
 * alone, when the QuantizeLinear's zero point is its type's least, uint8 0 or int8 -128: the clamp is the Relu,
 * which its ReluQuantFusion removes). Scales and zero points are known values; the activations' one each. */
#define QDQ_MAX_INPUTS 64
typedef struct {
    Node *q, *relu, *target;
    Node *dq[QDQ_MAX_INPUTS];
    guint n_dq;
    Tensor *q_scale, *q_zero;
} QdqGroup;

/* The DequantizeLinear of input k of `target` (read by it alone, its scale and zero point known, `per` values of
 * each allowed besides one; an int32 one, a bias, may leave its zero point out); NULL otherwise. */
static Node *qdq_input(const Node *target, guint k, gint64 per)
{
    Tensor *t = node_input(target, k);
    Node *dq = made_by(t, "DequantizeLinear");
    Tensor *x = dq ? node_input(dq, 0) : NULL;
    if (!dq || !only_for(t, target) || dq->inputs->len < 2 || dq->inputs->len > 3 || node_attr(dq, "block_size") || !x)
        return NULL;
    Tensor *scale = node_input(dq, 1), *zero = node_input(dq, 2);
    if (!zero && x->dtype != DT_INT32)
        return NULL;
    return known_values(scale, per) && (!zero || known_values(zero, per)) && scale->dtype == DT_FLOAT ? dq : NULL;
}

/* The group ending at QuantizeLinear q around a target of `op` with n_dq dequantized inputs (all of its inputs
 * when n_dq is 0), the first one-value per tensor, the others `per` values where per > 0. */
static gboolean qdq_group(Site *site, Node *q, const char *op, guint n_dq, gint64 per, QdqGroup *grp)
{
    memset(grp, 0, sizeof *grp);
    Tensor *y = node_output(q, 0), *in = node_input(q, 0);
    grp->q_scale = node_input(q, 1);
    grp->q_zero = node_input(q, 2);
    if (strcmp(q->op_type, "QuantizeLinear") || *q->domain || q->inputs->len != 3 || !y || !in ||
        !known_values(grp->q_scale, 0) || !known_values(grp->q_zero, 0) || !quantized_8bit(y->dtype) ||
        node_attr(q, "block_size"))
        return FALSE;
    Node *relu = made_by(in, "Relu");
    double least = y->dtype == DT_UINT8 ? 0 : -128;
    Tensor *out = relu && only_for(in, q) && value_get_f(grp->q_zero->value, 0) == least ? node_input(relu, 0) : in;
    grp->relu = out == in ? NULL : relu;
    grp->target = made_by(out, op);
    if (!grp->target || grp->target->outputs->len != 1 || !only_for(out, grp->relu ? grp->relu : q) ||
        g_hash_table_contains(site->with, grp->target))
        return FALSE;
    guint present = present_inputs(grp->target);
    if (!n_dq)
        n_dq = present;
    if (n_dq > G_N_ELEMENTS(grp->dq) || n_dq > present)
        return FALSE;
    for (guint k = 0; k < n_dq; k++)
        if (!(grp->dq[k] = qdq_input(grp->target, k, k ? per : 0)))
            return FALSE;
    grp->n_dq = n_dq;
    grp->q = q;
    return TRUE;
}

/* The group's DequantizeLinear nodes, target and Relu into site->removed (the QuantizeLinear is the last). */
static void qdq_remove(Site *site, const QdqGroup *grp)
{
    for (guint k = 0; k < grp->n_dq; k++)
        g_ptr_array_add(site->removed, grp->dq[k]);
    g_ptr_array_add(site->removed, grp->target);
    if (grp->relu)
        g_ptr_array_add(site->removed, grp->relu);
}

/* Input k of the group, its scale and zero point: three names into in[]. */
static void qdq_operand(const QdqGroup *grp, guint k, const char **in)
{
    for (int j = 0; j < 3; j++)
        in[j] = node_input(grp->dq[k], (guint)j)->name;
}

static DType qdq_type(const QdqGroup *grp, guint k) { return node_input(grp->dq[k], 0)->dtype; }

/* Conv and MatMul (its QDQ Conv and MatMul fusions): QLinearConv and QLinearMatMul of 8-bit x and w, the
 * output x's type; w a constant with one scale and zero point, or one per output channel (a Conv's axis 0); a
 * Conv's bias the int32 one qdq-bias made. x in int8 is fused only where its int8 kernels are allowed (its
 * QDQIsInt8Allowed, a property of the CPU): not modelled, so uint8 x only. */
static gboolean rule_qdq_conv(Site *site, Node *n, GError **error)
{
    QdqGroup grp;
    gboolean conv = qdq_group(site, n, "Conv", 0, -1, &grp); /* (qdq_group clears grp first) */
    if (!conv && !qdq_group(site, n, "MatMul", 2, -1, &grp))
        return FALSE;
    Tensor *wf = node_input(grp.target, 1), *ws = node_input(grp.dq[1], 1), *wz = node_input(grp.dq[1], 2);
    gint64 channels = conv && wf->rank > 0 ? wf->dims[0] : wf->rank == 2 ? wf->dims[1] : 0, axis = 1;
    if (!node_attr_int(grp.dq[1], "axis", 1, &axis, NULL) || qdq_type(&grp, 0) != DT_UINT8 ||
        node_output(n, 0)->dtype != DT_UINT8 || !quantized_8bit(qdq_type(&grp, 1)) ||
        !constant_tensor(node_input(grp.dq[1], 0)) || !known_values(ws, channels) || !known_values(wz, channels) ||
        (ws->value->n > 1 && axis != (conv ? 0 : 1)) || grp.n_dq > 3 || (grp.dq[2] && qdq_type(&grp, 2) != DT_INT32))
        return FALSE;
    qdq_remove(site, &grp);
    const char *in[9];
    qdq_operand(&grp, 0, in);
    qdq_operand(&grp, 1, in + 3);
    in[6] = grp.q_scale->name;
    in[7] = grp.q_zero->name;
    in[8] = grp.dq[2] ? node_input(grp.dq[2], 0)->name : NULL;
    return replace(site, n, conv ? "QLinearConv" : "QLinearMatMul", FALSE, in, grp.dq[2] ? 9 : 8,
                   conv ? copied_attrs(grp.target, NULL) : NULL, error) || TRUE;
}

/* Gemm (its QDQ Gemm fusion): com.microsoft QGemm of 8-bit A and B (B int8 where A is), the int32 bias qdq-bias
 * made (beta 1), quantized out at A's type; a Gemm read by no QuantizeLinear gives float out (QGemm without
 * y_scale), the group then ending at the Gemm itself. */
static gboolean rule_qdq_gemm(Site *site, Node *n, GError **error)
{
    QdqGroup grp;
    gboolean quantized = qdq_group(site, n, "Gemm", 0, -1, &grp);
    if (!quantized) {
        memset(&grp, 0, sizeof grp);
        guint present = present_inputs(n);
        if (strcmp(n->op_type, "Gemm") || *n->domain || present < 2 || present > 3 || !node_output(n, 0))
            return FALSE;
        /* float out only where no QuantizeLinear reads it (else its group), nor a Relu or Clip read by one node (ORT
         * then looks for a QuantizeLinear after that, and without one fuses nothing) */
        const Tensor *y = node_output(n, 0);
        for (guint k = 0; k < y->consumers->len; k++) {
            const Node *c = y->consumers->pdata[k];
            const Tensor *co = node_output(c, 0);
            if (!strcmp(c->op_type, "QuantizeLinear") ||
                (y->consumers->len == 1 && (!strcmp(c->op_type, "Relu") || !strcmp(c->op_type, "Clip")) && co &&
                 co->consumers->len == 1 && !co->is_graph_output))
                return FALSE;
        }
        grp.target = n;
        for (guint k = 0; k < present; k++)
            if (!(grp.dq[k] = qdq_input(n, k, k ? -1 : 0)))
                return FALSE;
        grp.n_dq = present;
    }
    Tensor *bf = node_input(grp.target, 1);
    gint64 trans_b = 0, cols, axis = 1;
    float beta = 1;
    if (!node_attr_int(grp.target, "transB", 0, &trans_b, NULL) || !node_attr_int(grp.dq[1], "axis", 1, &axis, NULL) ||
        !node_attr_float(grp.target, "beta", 1, &beta, NULL) || bf->rank != 2)
        return FALSE;
    cols = bf->dims[trans_b ? 0 : 1];
    Tensor *bs = node_input(grp.dq[1], 1), *bz = node_input(grp.dq[1], 2);
    DType a = qdq_type(&grp, 0), b = qdq_type(&grp, 1);
    if (!quantized_8bit(a) || !quantized_8bit(b) || (a == DT_INT8 && b != DT_INT8) ||
        (quantized && node_output(n, 0)->dtype != a) || !known_values(bs, cols) || !known_values(bz, cols) ||
        (bs->value->n > 1 && axis != (trans_b ? 0 : 1)) || grp.n_dq > 3 ||
        (grp.dq[2] && (qdq_type(&grp, 2) != DT_INT32 || beta != 1)))
        return FALSE;
    if (quantized)
        qdq_remove(site, &grp);
    else
        for (guint k = 0; k < grp.n_dq; k++)
            g_ptr_array_add(site->removed, grp.dq[k]);
    const char *in[9];
    qdq_operand(&grp, 0, in);
    qdq_operand(&grp, 1, in + 3);
    in[6] = grp.dq[2] ? node_input(grp.dq[2], 0)->name : "";
    in[7] = quantized ? grp.q_scale->name : NULL;
    in[8] = quantized ? grp.q_zero->name : NULL;
    GPtrArray *attrs = copied_attrs(grp.target, (const char *const[]){"beta", NULL}); /* transA, transB, alpha */
    return replace_in(site, n, OP_DOMAIN_MICROSOFT, "QGemm", in, quantized ? 9 : grp.dq[2] ? 7 : 6, attrs, error) ||
           TRUE;
}

/* The ops ONNX Runtime's QDQ fusions give a com.microsoft QLinear form of: one 8-bit input (unary), two (binary),
 * any number (Concat), its type the output's. */
static const struct {
    const char *op, *qlinear;
    guint inputs; /* 1, 2, or 0: every input */
} qdq_qlinear_ops[] = {
    {"AveragePool", "QLinearAveragePool", 1}, {"GlobalAveragePool", "QLinearGlobalAveragePool", 1},
    {"LeakyRelu", "QLinearLeakyRelu", 1},     {"Sigmoid", "QLinearSigmoid", 1},
    {"Add", "QLinearAdd", 2},                 {"Mul", "QLinearMul", 2},
    {"Concat", "QLinearConcat", 0},
};

/* DequantizeLinear inputs -> op -> QuantizeLinear, every type one 8-bit type: the op's com.microsoft QLinear form
 * (its UnaryReplaceWithQLinear, BinaryReplaceWithQLinear, VariadicReplaceWithQLinear). Softmax, which it fuses
 * too, has no QLinear kernel here and stays. */
static gboolean rule_qdq_qlinear(Site *site, Node *n, GError **error)
{
    QdqGroup grp;
    gsize row = 0;
    gboolean found = FALSE;
    for (; !found && row < G_N_ELEMENTS(qdq_qlinear_ops); row++)
        found = qdq_group(site, n, qdq_qlinear_ops[row].op, qdq_qlinear_ops[row].inputs, 0, &grp);
    if (!found || grp.n_dq != grp.target->inputs->len)
        return FALSE;
    row--;
    DType t = node_output(n, 0)->dtype;
    for (guint k = 0; k < grp.n_dq; k++)
        if (qdq_type(&grp, k) != t)
            return FALSE;
    gboolean variadic = qdq_qlinear_ops[row].inputs == 0; /* QLinearConcat: the output's scale and zero point first */
    const char *in[3 * QDQ_MAX_INPUTS + 2];
    guint at = 0;
    if (variadic) {
        in[at++] = grp.q_scale->name;
        in[at++] = grp.q_zero->name;
    }
    for (guint k = 0; k < grp.n_dq; k++, at += 3)
        qdq_operand(&grp, k, in + at);
    if (!variadic) {
        in[at++] = grp.q_scale->name;
        in[at++] = grp.q_zero->name;
    }
    qdq_remove(site, &grp);
    return replace_in(site, n, OP_DOMAIN_MICROSOFT, qdq_qlinear_ops[row].qlinear, in, (int)at,
                      copied_attrs(grp.target, NULL), error) || TRUE;
}

/* ONNX Runtime's DropQDQNodesRules: the ops that move 8-bit values without changing them. */
static const char *const qdq_drop_ops[] = {"Expand", "Flatten", "Gather", "GatherElements", "Reshape", "Slice",
                                            "Squeeze", "Tile", "Transpose", "Unsqueeze", "MaxPool"};

/* DequantizeLinear -> op -> QuantizeLinear with the same type, scale and zero point on both sides, the op one that
 * moves values (qdq_drop_ops; MaxPool from opset 12, its scale positive): the op on the 8-bit tensor, the pair
 * gone (its DropQDQNodesRules; no Relu between). */
static gboolean rule_qdq_drop(Site *site, Node *n, GError **error)
{
    QdqGroup grp;
    gsize row = 0;
    gboolean found = FALSE;
    for (; !found && row < G_N_ELEMENTS(qdq_drop_ops); row++)
        found = qdq_group(site, n, qdq_drop_ops[row], 1, 0, &grp);
    if (!found || grp.relu)
        return FALSE;
    Tensor *xs = node_input(grp.dq[0], 1), *xz = node_input(grp.dq[0], 2);
    gboolean maxpool = !strcmp(grp.target->op_type, "MaxPool");
    if (qdq_type(&grp, 0) != node_output(n, 0)->dtype ||
        value_get_f(xs->value, 0) != value_get_f(grp.q_scale->value, 0) ||
        value_get_f(xz->value, 0) != value_get_f(grp.q_zero->value, 0) ||
        (maxpool && (site->opset < 12 || value_get_f(xs->value, 0) <= 0 || grp.target->outputs->len != 1)))
        return FALSE;
    qdq_remove(site, &grp);
    GPtrArray *names = g_ptr_array_new();
    g_ptr_array_add(names, (gpointer)node_input(grp.dq[0], 0)->name);
    for (guint k = 1; k < grp.target->inputs->len; k++)
        g_ptr_array_add(names, (gpointer)(node_input(grp.target, k) ? node_input(grp.target, k)->name : ""));
    gboolean ok = replace(site, n, grp.target->op_type, FALSE, (const char *const *)names->pdata, (int)names->len,
                          copied_attrs(grp.target, NULL), error);
    g_ptr_array_unref(names);
    return ok || TRUE;
}

/* A node that reads only weights and constants computes a constant: ONNX Runtime folds it when the session
 * starts (its ConstantFolding), so its output is a weight, outside the activations (torch's attention slices
 * its packed in-projection weight with Slice at run time). The node still runs here, writing its output into
 * memory of its own (in the executor's first run only, as ONNX Runtime's session start); it is not planned. */
static gboolean rule_constant_fold(Site *site, Node *n, GError **error)
{
    (void)error;
    if (!n->op || n->op->plan_constant || !n->inputs->len || !strcmp(n->domain, SIM_OP_DOMAIN))
        return FALSE;
    if (!strcmp(n->op_type, "DequantizeLinear")) /* ONNX Runtime's ConstantFolding leaves it to run (a QDQ fusion */
        return FALSE;                               /* reads its quantized input) */
    for (guint k = 0; k < n->inputs->len; k++) { /* weights, constants, and values the planner knows (shapes) */
        Tensor *t = node_input(n, k);
        if (t && !known_before_running(t))
            return FALSE;
    }
    for (guint k = 0; k < n->implicit_inputs->len; k++)
        if (!is_weight(n->implicit_inputs->pdata[k]))
            return FALSE;
    guint64 bytes = 0;
    for (guint k = 0; k < n->outputs->len; k++) {
        Tensor *t = node_output(n, k);
        if (t && (t->is_graph_output || t->dynamic || t->kind != TENSOR_INTERMEDIATE))
            return FALSE;
    }
    for (guint k = 0; k < n->outputs->len; k++) {
        Tensor *t = node_output(n, k);
        if (t) {
            t->kind = TENSOR_CONSTANT;
            bytes += t->bytes;
        }
    }
    site->bytes = bytes;
    return TRUE;
}

/* The first input of n made by a node of op `type` (default domain), as ONNX Runtime's FirstParentByType finds it. */
static Node *first_parent(Node *n, const char *type)
{
    for (guint k = 0; k < n->inputs->len; k++) {
        Node *p = made_by(node_input(n, k), type);
        if (p)
            return p;
    }
    return NULL;
}

/* A tensor of shape known and one element. */
static gboolean one_value(const Tensor *t)
{
    if (!t || !t->shape_known)
        return FALSE;
    for (int d = 0; d < t->rank; d++)
        if (t->dims[d] != 1)
            return FALSE;
    return TRUE;
}

/* ONNX Runtime's MatMulIntegerToFloatFusion at `mul`: Mul (opset 7 on; 1.30 fuses Mul-14 too) of a Cast of a
 * MatMulInteger and of a Mul of the two scales, each of those read by the next alone. Ours adds what its kernel
 * needs to compute the same thing: the Cast to float, A uint8, the first scale one value. The MatMulInteger in *mmi,
 * the scales' Mul in *scales. */
static gboolean integer_product_scaled(const Site *site, Node *mul, Node **mmi, Node **cast, Node **scales)
{
    if (strcmp(mul->op_type, "Mul") || (*mul->domain && strcmp(mul->domain, "ai.onnx")) || mul->inputs->len != 2 ||
        site->opset < 7)
        return FALSE;
    *cast = first_parent(mul, "Cast");
    *mmi = *cast ? first_parent(*cast, "MatMulInteger") : NULL;
    *scales = first_parent(mul, "Mul");
    gint64 to;
    if (!*mmi || !*scales || !only_for(node_output(*cast, 0), mul) || !only_for(node_output(*mmi, 0), *cast) ||
        !only_for(node_output(*scales, 0), mul) || !node_attr_int(*cast, "to", 0, &to, NULL) || to != 1 /* FLOAT */ ||
        node_input(*mmi, 0)->dtype != DT_UINT8 || !one_value(node_input(*scales, 0)))
        return FALSE;
    return TRUE;
}

/* The bias ONNX Runtime takes into MatMulIntegerToFloat: the second input of the Add that alone reads the product,
 * a weight of shape [1, ..., 1, N], N > 1 (ours: N the product's columns). */
static Tensor *product_bias(Node *mul, Node **add)
{
    Tensor *y = node_output(mul, 0);
    *add = y && !y->is_graph_output && y->consumers->len == 1 ? y->consumers->pdata[0] : NULL;
    if (!*add || strcmp((*add)->op_type, "Add") || (*(*add)->domain && strcmp((*add)->domain, "ai.onnx")) ||
        (*add)->inputs->len != 2 || node_input(*add, 0) != y)
        return NULL;
    Tensor *bias = node_input(*add, 1);
    if (!bias || !is_weight(bias) || !bias->shape_known || bias->rank < 1 || y->rank < 1 ||
        bias->dims[bias->rank - 1] <= 1 || bias->dims[bias->rank - 1] != y->dims[y->rank - 1])
        return NULL;
    for (int d = 0; d + 1 < bias->rank; d++)
        if (bias->dims[d] != 1)
            return NULL;
    return bias;
}

/* MatMulInteger -> Cast -> Mul by the product of the two scales (-> Add of a bias): com.microsoft
 * MatMulIntegerToFloat, as ONNX Runtime's MatMulIntegerToFloatFusion (the int32 product and its float copy go).
 * Found at the Add when there is a bias, else at the Mul. */
static gboolean rule_matmul_integer_to_float(Site *site, Node *n, GError **error)
{
    Node *mul = n, *mmi, *cast, *scales, *add = NULL;
    Tensor *bias = NULL;
    if (!strcmp(n->op_type, "Add")) { /* the bias form: its first input the scaled product */
        mul = made_by(node_input(n, 0), "Mul");
        if (!mul || !integer_product_scaled(site, mul, &mmi, &cast, &scales) || !(bias = product_bias(mul, &add)) ||
            add != n)
            return FALSE;
    } else if (!integer_product_scaled(site, mul, &mmi, &cast, &scales) || product_bias(mul, &add)) {
        return FALSE; /* (with a bias the Add, later in the order, is the site) */
    }
    g_ptr_array_add(site->removed, mmi);
    g_ptr_array_add(site->removed, cast);
    g_ptr_array_add(site->removed, scales);
    if (bias)
        g_ptr_array_add(site->removed, mul);
    Tensor *a_zp = node_input(mmi, 2), *b_zp = node_input(mmi, 3);
    const char *in[] = {node_input(mmi, 0)->name, node_input(mmi, 1)->name, node_input(scales, 0)->name,
                        node_input(scales, 1)->name, a_zp ? a_zp->name : "", b_zp ? b_zp->name : "",
                        bias ? bias->name : ""};
    return replace_in(site, n, OP_DOMAIN_MICROSOFT, "MatMulIntegerToFloat", in, bias ? 7 : 6, NULL, error) || TRUE;
}

/* DynamicQuantizeLinear -> MatMulIntegerToFloat with B, its scale, zero point and bias weights, the three outputs
 * read by it alone: com.microsoft DynamicQuantizeMatMul, as ONNX Runtime's DynamicQuantizeMatMulFusion (A's
 * quantized copy goes: the kernel quantizes into scratch). */
static gboolean rule_dynamic_quantize_matmul(Site *site, Node *n, GError **error)
{
    if (strcmp(n->op_type, "MatMulIntegerToFloat") || strcmp(n->domain, OP_DOMAIN_MICROSOFT) || n->inputs->len < 4)
        return FALSE;
    Tensor *b_zp = n->inputs->len > 5 ? node_input(n, 5) : NULL, *bias = n->inputs->len > 6 ? node_input(n, 6) : NULL;
    if (!is_weight(node_input(n, 1)) || !is_weight(node_input(n, 3)) || (b_zp && !is_weight(b_zp)) ||
        (bias && !is_weight(bias)))
        return FALSE;
    Node *dql = first_parent(n, "DynamicQuantizeLinear");
    if (!dql || dql->outputs->len != 3)
        return FALSE;
    for (guint k = 0; k < 3; k++) /* its three output edges, all to n (ONNX Runtime's CheckOutputEdges(3)) */
        if (!only_for(node_output(dql, k), n))
            return FALSE;
    g_ptr_array_add(site->removed, dql);
    const char *in[] = {node_input(dql, 0)->name, node_input(n, 1)->name, node_input(n, 3)->name,
                        b_zp ? b_zp->name : "", bias ? bias->name : ""};
    return replace_in(site, n, OP_DOMAIN_MICROSOFT, "DynamicQuantizeMatMul", in, bias ? 5 : 4, NULL, error) || TRUE;
}

static const FuseRule fuse_rules[] = {
    /* before constant-fold, which then folds the weights' QuantizeLinear and the bias's quantization */
    {"qdq-s8-to-u8", "QuantizeLinear -> DequantizeLinear of int8 activations at one zero point: both uint8, the zero "
     "point plus 128 (ONNX Runtime's QDQS8ToU8Transformer on x86)", "ort", FALSE, rule_qdq_s8_to_u8},
    {"qdq-bias", "the float bias of a Conv or Gemm of DequantizeLinear outputs put on the int32 grid of their scales' "
     "product (ONNX Runtime's BiasQuantization)", "ort", FALSE, rule_qdq_bias},
    {"qdq-conv", "DequantizeLinear -> Conv or MatMul (-> Relu) -> QuantizeLinear: QLinearConv with the int32 bias, "
     "QLinearMatMul (ONNX Runtime's QDQ Conv and MatMul fusions, ReluQuantFusion)", "ort", FALSE, rule_qdq_conv},
    {"qdq-gemm", "DequantizeLinear -> Gemm (-> QuantizeLinear): com.microsoft QGemm, 8-bit or float out (ONNX "
     "Runtime's QDQ Gemm fusion)", "ort", FALSE, rule_qdq_gemm},
    {"qdq-qlinear", "DequantizeLinear -> Add, Mul, Concat, AveragePool, GlobalAveragePool, LeakyRelu or Sigmoid -> "
     "QuantizeLinear: its com.microsoft QLinear op (ONNX Runtime's QDQ fusions)", "ort", FALSE, rule_qdq_qlinear},
    {"qdq-drop", "DequantizeLinear -> a move (Reshape, Transpose, MaxPool, ...) -> QuantizeLinear at the same scale: "
     "the move on 8-bit data (ONNX Runtime's DropQDQNodesRules)", "ort", FALSE, rule_qdq_drop},
    {"constant-fold", "a node of weights and constants alone: computed once, a weight (ONNX Runtime's ConstantFolding)",
     "ort", FALSE, rule_constant_fold},
    /* after constant-fold, as ONNX Runtime's level-2 fusions run after its level-1 ConstantFolding */
    {"matmul-integer-to-float", "MatMulInteger -> Cast -> Mul by the scales' product (-> Add of a bias): com.microsoft "
     "MatMulIntegerToFloat (ONNX Runtime's MatMulIntegerToFloatFusion)", "ort", FALSE, rule_matmul_integer_to_float},
    {"dynamic-quantize-matmul", "DynamicQuantizeLinear -> MatMulIntegerToFloat of weights: com.microsoft "
     "DynamicQuantizeMatMul (ONNX Runtime's DynamicQuantizeMatMulFusion)", "ort", FALSE, rule_dynamic_quantize_matmul},
    {"conv-add", "Conv + Add of its skip: accumulated in place over the skip (ONNX Runtime's Conv+Add+Relu fusion)",
     "ort", FALSE, rule_conv_add},
    {"pad-window", "a Pad of zeros around the images before a Conv or AveragePool: the window's own pads (ONNX "
     "Runtime's PadFusion)", "ort", FALSE, rule_pad_window},
    {"hard-swish", "x * HardSigmoid(x) (alpha 1/6, beta 1/2): HardSwish", "ort", FALSE, rule_hard_swish},
    {"silu", "x * Sigmoid(x): SiLU, one pass", "ort", FALSE, rule_silu},
    {"gelu", "x * 0.5 * (1 + erf(x / sqrt 2)): Gelu", "ort", FALSE, rule_gelu},
    {"gelu-tanh", "0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))): Gelu, tanh form (ONNX Runtime's FastGelu)",
     "ort", FALSE, rule_gelu_tanh},
    {"bias-gelu", "Gelu of a sum with a bias over the last dim: BiasGelu", "ort", FALSE, rule_bias_gelu},
    {"repeat-kv", "MatMul of K or V repeated to the query heads (grouped-query attention): the MatMul broadcast over "
     "the repeats, no expanded copy (ONNX Runtime's GroupQueryAttention)", "ort-transformers", FALSE, rule_repeat_kv},
    {"matmul-add", "MatMul of matrices + a bias over rows: Gemm", "ort", FALSE, rule_matmul_add},
    {"matmul-scale", "a MatMul scaled by a constant, on its output or an operand: FusedMatMul with alpha", "ort", FALSE,
     rule_matmul_scale},
    {"matmul-transpose", "MatMul of a Transpose (last two dims, or dim 0 to the rows): FusedMatMul reading it as it is",
     "ort", FALSE, rule_matmul_transpose},
    {"layer-norm", "LayerNorm written out (mean, centre, variance, divide, scale, shift): LayerNormalization",
     "ort", FALSE, rule_layer_norm},
    {"skip-layer-norm", "LayerNorm of a sum of two tensors of one shape, read by it alone: SkipLayerNormalization",
     "ort-transformers", FALSE, rule_skip_layer_norm},
    {"attention", "Softmax(Q K) V with no mask between: one Attention, no [queries, keys] scores (ONNX Runtime's "
     "MultiHeadAttention on its flash path)", "ort-transformers", FALSE, rule_attention},
    {"hardswish-expand", "HardSwish as its function body, x * HardSigmoid(x): ONNX Runtime's CPU kernels lack it",
     "ort-disabled", TRUE, rule_hard_swish_expand},
};

const FuseRule *fuse_rule_table(guint *count)
{
    *count = G_N_ELEMENTS(fuse_rules);
    return fuse_rules;
}

/* The kinds --fuse takes, each with the kind whose rules it runs first (its own after them, in table order),
 * and what it plans (sim --help). */
static const struct {
    const char *name;
    const char *extends;
    const char *summary;
} fuse_kinds[] = {
    {"ort", NULL,
     "applies ONNX Runtime's operator fusions first (a Conv accumulating into its skip tensor, a zero Pad into the Conv "
     "or AveragePool after it, HardSwish, SiLU, Gelu, MatMul+Add as Gemm, MatMul with a Transpose or a scale, QDQ "
     "groups as QLinear ops, dynamically quantized MatMuls as DynamicQuantizeMatMul), so their intermediates are "
     "never planned"},
    {"ort-disabled", NULL,
     "is ONNX Runtime at graph optimisation level disabled (no fusion; the ops its CPU kernels lack, HardSwish, "
     "expanded into their ONNX function bodies)"},
    {"ort-transformers", "ort",
     "is ort after ONNX Runtime's transformer optimizer (an Add before a LayerNorm as SkipLayerNormalization, "
     "attention without a mask as one op that never writes its scores)"},
};

gboolean fuse_rule_in_kind(const FuseRule *rule, const char *kind)
{
    for (int depth = 0; kind && depth < (int)G_N_ELEMENTS(fuse_kinds); depth++) {
        if (!strcmp(rule->kind, kind))
            return TRUE;
        const char *up = NULL;
        for (gsize k = 0; k < G_N_ELEMENTS(fuse_kinds); k++)
            if (!strcmp(fuse_kinds[k].name, kind))
                up = fuse_kinds[k].extends;
        kind = up;
    }
    return FALSE;
}

gboolean fuse_kind_known(const char *kind)
{
    if (!kind || !strcmp(kind, "none"))
        return TRUE;
    for (gsize k = 0; k < G_N_ELEMENTS(fuse_kinds); k++)
        if (!strcmp(fuse_kinds[k].name, kind))
            return TRUE;
    return FALSE;
}

char *fuse_kind_names(const char *separator)
{
    GString *s = g_string_new("none");
    for (gsize k = 0; k < G_N_ELEMENTS(fuse_kinds); k++)
        g_string_append_printf(s, "%s%s", separator, fuse_kinds[k].name);
    return g_string_free(s, FALSE);
}

char *fuse_kind_help(void)
{
    GString *s = g_string_new("Plan the graph a runtime runs:");
    for (gsize k = 0; k < G_N_ELEMENTS(fuse_kinds); k++)
        g_string_append_printf(s, " %s %s;", fuse_kinds[k].name, fuse_kinds[k].summary);
    g_string_append(s, " none (the default) plans the file's graph");
    return g_string_free(s, FALSE);
}

gboolean fuse_apply(Model *m, const char *kind, FuseReport *report, GError **error)
{
    fuse_report_clear(report);
    if (!kind || !strcmp(kind, "none"))
        return TRUE;
    if (!fuse_kind_known(kind)) {
        char *kinds = fuse_kind_names(", ");
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--fuse takes %s, not '%s'", kinds, kind);
        g_free(kinds);
        return FALSE;
    }
    report->rules = G_N_ELEMENTS(fuse_rules);
    report->sites = g_new0(guint, report->rules);
    report->bytes = g_new0(guint64, report->rules);
    Graph *g = m->graph;
    Site site = {.g = g, .opset = model_onnx_opset(m), .removed = g_ptr_array_new()};
    gboolean ok = TRUE;
    /* Each rule in one pass over the nodes (a node a site took is not looked at again), the replacements
     * then made at once. */
    for (guint r = 0; ok && r < G_N_ELEMENTS(fuse_rules); r++) {
        if (!fuse_rule_in_kind(&fuse_rules[r], kind))
            continue;
        guint first_new = g->nodes->len, ordered = g->order->len;
        site.first_new = first_new;
        site.with = g_hash_table_new(NULL, NULL);
        site.before = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_ptr_array_unref);
        for (guint k = 0; ok && k < ordered; k++) { /* in topological order: folded constants feed the next */
            Node *n = g->order->pdata[k];
            if (n->guard || !n->op || g_hash_table_contains(site.with, n))
                continue;
            gboolean dynamic = FALSE;
            for (guint i = 0; i < n->inputs->len && !dynamic; i++)
                dynamic = node_input(n, i) && node_input(n, i)->dynamic;
            if (dynamic)
                continue;
            g_ptr_array_set_size(site.removed, 0);
            site.bytes = 0;
            GError *local = NULL;
            if (!fuse_rules[r].apply(&site, n, &local))
                continue;
            if (local) {
                g_propagate_error(error, local);
                ok = FALSE;
                break;
            }
            report->sites[r]++;
            report->bytes[r] += site.bytes;
        }
        graph_replace_nodes(g, site.with, site.before, first_new);
        g_hash_table_unref(site.with);
        g_hash_table_unref(site.before);
    }
    g_ptr_array_unref(site.removed);
    report->applied = TRUE;
    report->kind = g_strdup(kind);
    return ok;
}

void fuse_report_clear(FuseReport *report)
{
    g_free(report->kind);
    g_free(report->sites);
    g_free(report->bytes);
    memset(report, 0, sizeof *report);
}
