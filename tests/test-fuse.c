/* test-fuse.c — --fuse ort and ort-disabled (sim/fuse/fuse.c): each rule fuses the pattern it names, and leaves it
 * alone where removing an intermediate would be wrong (a second reader, a graph output, other constants); a fused
 * Conv writes over its skip tensor only when the skip dies there, and every fused plan runs bit for bit with
 * its nothing-shared run (through the sim binary). */
#include "graphs/builder.h"
#include "fuse/fuse.h"
#include "model/onnx.h"
#include "tests/testutil.h"

#include <math.h>
#include <string.h>

/* Builds, infers and fuses; the report, and the model (to free). */
static Model *fused(Builder *b, FuseReport *report)
{
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    g_assert_no_error(error);
    g_assert_true(fuse_apply(m, "ort", report, &error));
    g_assert_no_error(error);
    return m;
}

/* Builds and writes to the scratch file `file`: its path (to free). */
static char *written(Builder *b, const char *file)
{
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_scratch_path(file);
    g_assert_true(onnx_write_file(m, path, &error));
    model_free(m);
    return path;
}

/* Builds, writes to the scratch file `file` (*path, to free), reads back, infers and fuses as --fuse `kind` does;
 * the report, and the fused model (to free). */
static Model *fused_kind_from_file(Builder *b, const char *kind, const char *file, FuseReport *report, char **path)
{
    GError *error = NULL;
    *path = written(b, file);
    Model *m = onnx_read_file(*path, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    g_assert_true(fuse_apply(m, kind, report, &error));
    g_assert_no_error(error);
    return m;
}

/* ... as ONNX Runtime does at its default level (--fuse ort). */
static Model *fused_from_file(Builder *b, const char *file, FuseReport *report, char **path)
{
    return fused_kind_from_file(b, "ort", file, report, path);
}

/* The number of nodes of op type `op` in m's graph. */
static guint count_ops(const Model *m, const char *op)
{
    guint n = 0;
    for (guint k = 0; k < m->graph->nodes->len; k++)
        n += !strcmp(((const Node *)m->graph->nodes->pdata[k])->op_type, op);
    return n;
}

static guint rule_index(const char *name)
{
    guint count;
    const FuseRule *rules = fuse_rule_table(&count);
    for (guint k = 0; k < count; k++)
        if (!strcmp(rules[k].name, name))
            return k;
    g_error("no fusion rule '%s'", name);
}

static const gint64 image[] = {1, 4, 6, 6}, kernel[] = {4, 4, 3, 3};

static const char *conv(Builder *b, const char *x, const char *w)
{
    return B_OPA(b, "Conv", attr_new_ints("pads", (const gint64[]){1, 1, 1, 1}, 4), x, w);
}

/* Add(Conv(x), skip): one FusedConv, the Conv's output gone; not when the Conv output has a second reader. */
static void test_conv_add(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("conv-add", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 4, image), *w = builder_weight(b, "w", DT_FLOAT, 4, kernel, TRUE);
    const char *skip = B_OP(b, "Relu", x);
    builder_output(b, B_OP(b, "Relu", B_OP(b, "Add", conv(b, x, w), skip)));
    Model *m = fused(b, &r);
    g_assert_cmpuint(r.sites[rule_index("conv-add")], ==, 1);
    g_assert_cmpuint(r.bytes[rule_index("conv-add")], ==, 4 * 36 * 4);
    g_assert_cmpuint(count_ops(m, "FusedConv"), ==, 1);
    g_assert_cmpuint(count_ops(m, "Conv"), ==, 0);
    g_assert_cmpuint(count_ops(m, "Add"), ==, 0);
    model_free(m);
    /* the Conv's output read again: nothing fused */
    b = builder_new("conv-add-read-twice", 13);
    x = builder_input(b, "x", DT_FLOAT, 4, image);
    w = builder_weight(b, "w", DT_FLOAT, 4, kernel, TRUE);
    const char *c = conv(b, x, w);
    builder_output(b, B_OP(b, "Add", c, B_OP(b, "Relu", x)));
    builder_output(b, B_OP(b, "Neg", c));
    m = fused(b, &r);
    g_assert_cmpuint(r.sites[rule_index("conv-add")], ==, 0);
    g_assert_cmpuint(count_ops(m, "Conv"), ==, 1);
    model_free(m);
    /* a skip of another shape (broadcast): nothing fused */
    b = builder_new("conv-add-broadcast", 13);
    x = builder_input(b, "x", DT_FLOAT, 4, image);
    w = builder_weight(b, "w", DT_FLOAT, 4, kernel, TRUE);
    builder_output(b, B_OP(b, "Add", conv(b, x, w), builder_weight(b, "bias", DT_FLOAT, 4, (const gint64[]){1, 4, 1, 1}, TRUE)));
    m = fused(b, &r);
    g_assert_cmpuint(r.sites[rule_index("conv-add")], ==, 0);
    model_free(m);
    fuse_report_clear(&r);
}

/* Mul(x, HardSigmoid(x)) with alpha 1/6 is HardSwish; with the default alpha 0.2 it is not. Mul(x, Sigmoid(x))
 * is SiLU; Mul(y, Sigmoid(x)) is not. */
static void test_activations(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("activations", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){3, 5});
    const char *hs = B_OPA(b, "HardSigmoid", attr_new_float("alpha", 1.0f / 6.0f), x);
    builder_output(b, B_OP(b, "Mul", x, hs));
    builder_output(b, B_OP(b, "Mul", B_OP(b, "HardSigmoid", x), x)); /* alpha 0.2: another function */
    builder_output(b, B_OP(b, "Mul", B_OP(b, "Sigmoid", x), x));
    const char *y = B_OP(b, "Neg", x);
    builder_output(b, B_OP(b, "Mul", y, B_OP(b, "Sigmoid", x)));
    Model *m = fused(b, &r);
    g_assert_cmpuint(r.sites[rule_index("hard-swish")], ==, 1);
    g_assert_cmpuint(r.sites[rule_index("silu")], ==, 1);
    g_assert_cmpuint(count_ops(m, "HardSwish"), ==, 1);
    g_assert_cmpuint(count_ops(m, "SiLU"), ==, 1);
    g_assert_cmpuint(count_ops(m, "HardSigmoid"), ==, 1);
    g_assert_cmpuint(count_ops(m, "Sigmoid"), ==, 1);
    model_free(m);
    fuse_report_clear(&r);
}

/* torch's exact GELU and LayerNorm written out; an intermediate that is a graph output keeps the pattern. */
static void test_gelu_and_layer_norm(void)
{
    FuseReport r = {0};
    for (int keep = 0; keep < 2; keep++) {
        Builder *b = builder_new("gelu-layer-norm", 13);
        const char *x = builder_input(b, "x", DT_FLOAT, 3, (const gint64[]){2, 4, 8});
        const char *erf = B_OP(b, "Erf", B_OP(b, "Div", x, builder_float_scalar(b, "sqrt2", 1.4142135f)));
        const char *inner = B_OP(b, "Mul", x, B_OP(b, "Add", erf, builder_float_scalar(b, "one", 1.0f)));
        const char *g = B_OP(b, "Mul", inner, builder_float_scalar(b, "half", 0.5f));
        const char *mean = B_OPA(b, "ReduceMean", attr_new_ints("axes", (const gint64[]){-1}, 1), g);
        const char *d = B_OP(b, "Sub", g, mean);
        const char *var = B_OPA(b, "ReduceMean", attr_new_ints("axes", (const gint64[]){-1}, 1),
                                B_OP(b, "Pow", d, builder_float_scalar(b, "two", 2.0f)));
        const char *norm = B_OP(b, "Div", d, B_OP(b, "Sqrt", B_OP(b, "Add", var, builder_float_scalar(b, "eps", 1e-5f))));
        const char *gamma = builder_weight(b, "gamma", DT_FLOAT, 1, (const gint64[]){8}, TRUE);
        const char *beta = builder_weight(b, "beta", DT_FLOAT, 1, (const gint64[]){8}, TRUE);
        builder_output(b, B_OP(b, "Add", B_OP(b, "Mul", norm, gamma), beta));
        if (keep) /* the variance is wanted too */
            builder_output(b, var);
        Model *m = fused(b, &r);
        g_assert_cmpuint(r.sites[rule_index("gelu")], ==, 1);
        g_assert_cmpuint(r.sites[rule_index("layer-norm")], ==, keep ? 0 : 1);
        g_assert_cmpuint(count_ops(m, "Gelu"), ==, 1);
        g_assert_cmpuint(count_ops(m, "Erf"), ==, 0);
        g_assert_cmpuint(count_ops(m, "LayerNormalization"), ==, keep ? 0 : 1);
        model_free(m);
    }
    fuse_report_clear(&r);
}

/* MatMul of matrices plus a bias row: Gemm; of a batch of matrices: left alone. */
static void test_matmul_add(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("matmul-add", 13);
    const char *a = builder_input(b, "a", DT_FLOAT, 2, (const gint64[]){5, 6});
    const char *w = builder_weight(b, "w", DT_FLOAT, 2, (const gint64[]){6, 3}, TRUE);
    const char *bias = builder_weight(b, "bias", DT_FLOAT, 1, (const gint64[]){3}, TRUE);
    builder_output(b, B_OP(b, "Add", B_OP(b, "MatMul", a, w), bias));
    const char *batch = builder_input(b, "batch", DT_FLOAT, 3, (const gint64[]){2, 5, 6});
    builder_output(b, B_OP(b, "Add", B_OP(b, "MatMul", batch, w), bias));
    Model *m = fused(b, &r);
    g_assert_cmpuint(r.sites[rule_index("matmul-add")], ==, 1);
    g_assert_cmpuint(count_ops(m, "Gemm"), ==, 1);
    g_assert_cmpuint(count_ops(m, "MatMul"), ==, 1);
    model_free(m);
    fuse_report_clear(&r);
}

/* The first output two --dump-outputs folders hold is the same bytes in both. */
static void assert_same_output(const char *dir_a, const char *dir_b)
{
    char *a_path = g_build_filename(dir_a, "output_0.pb", NULL), *b_path = g_build_filename(dir_b, "output_0.pb", NULL);
    char *a = NULL, *c = NULL;
    gsize na = 0, nc = 0;
    g_assert_true(g_file_get_contents(a_path, &a, &na, NULL) && g_file_get_contents(b_path, &c, &nc, NULL));
    g_assert_cmpuint(na, ==, nc);
    g_assert_cmpint(memcmp(a, c, na), ==, 0);
    g_free(a);
    g_free(c);
    g_free(a_path);
    g_free(b_path);
}

/* x [4, 8] plus rows 4 to 7 of a weight [12, 8] (Slice): the slice's output name in *rows. */
static Builder *sliced_weight_model(const char *name, gboolean with_data, const char **rows)
{
    Builder *b = builder_new(name, 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){4, 8});
    const char *w = builder_weight(b, "w", DT_FLOAT, 2, (const gint64[]){12, 8}, with_data);
    *rows = B_OP(b, "Slice", w, builder_int_vec(b, "starts", 1, (const gint64[]){4}),
                 builder_int_vec(b, "ends", 1, (const gint64[]){8}));
    builder_output(b, B_OP(b, "Add", x, *rows));
    return b;
}

/* A node of weights and known values alone is folded into a constant (outside the activations, still run);
 * one that reads an activation is not. */
static void test_constant_fold(void)
{
    FuseReport r = {0};
    const char *rows;
    Model *m = fused(sliced_weight_model("constant-fold", FALSE, &rows), &r);
    g_assert_cmpuint(r.sites[rule_index("constant-fold")], ==, 1);
    g_assert_cmpuint(r.bytes[rule_index("constant-fold")], ==, 4 * 8 * 4);
    const Tensor *folded = graph_tensor(m->graph, rows);
    g_assert_cmpint(folded->kind, ==, TENSOR_CONSTANT);
    g_assert_cmpint(graph_tensor(m->graph, "x")->kind, !=, TENSOR_CONSTANT);
    model_free(m);
    fuse_report_clear(&r);
}

/* Through the command: the folded Slice computes its constant in the first run only (as ONNX Runtime does when
 * its session starts; the report counts it), outside the arena, so later runs, poisoned, still read its values:
 * the last of three runs gives the unfused graph's output, bit for bit, and --check passes. */
static void test_constant_fold_runs_once(void)
{
    const char *rows;
    char *path = written(sliced_weight_model("constant-fold-once", TRUE, &rows), "constant-fold-once.onnx"), *plain = test_scratch_path("constant-fold-plain"),
         *fused_dir = test_scratch_path("constant-fold-fused");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--run", "--dump-outputs", plain, NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_null(strstr(r.out, "constants "));
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort", "--run", "--repeat", "3", "--check",
                                              "--poison", "--dump-outputs", fused_dir, NULL});
    if (r.status != 0)
        g_error("%s", r.err);
    g_assert_nonnull(strstr(r.out, "constants      1 steps that compute constants (--fuse's constant-fold) ran in "
                                   "the first run only"));
    g_assert_nonnull(strstr(r.out, "bit for bit, with poison"));
    run_result_clear(&r);
    assert_same_output(plain, fused_dir);
    g_free(path);
    g_free(plain);
    g_free(fused_dir);
}

/* Through the command: a residual block fused, planned and run. Where the skip dies at the Add, the fused
 * Conv writes over it (the plan's lower bound drops by the Conv's output); where the skip is read again, it
 * may not (the bound stays); both runs match the nothing-shared run bit for bit, with poison. */
static void test_fused_runs(void)
{
    for (int read_again = 0; read_again < 2; read_again++) {
        Builder *b = builder_new("residual", 13);
        const char *x = builder_input(b, "x", DT_FLOAT, 4, image), *w = builder_weight(b, "w", DT_FLOAT, 4, kernel, TRUE);
        const char *skip = B_OP(b, "Relu", x);
        const char *y = B_OP(b, "Relu", B_OP(b, "Add", conv(b, x, w), skip));
        builder_output(b, read_again ? B_OP(b, "Add", y, skip) : y);
        char *path = written(b, read_again ? "residual-read-again.onnx" : "residual.onnx");
        RunResult plain = test_run("SIM_BIN", (const char *[]){"--graph", path, "--format", "json", NULL});
        RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort", "--format", "json", NULL});
        g_assert_cmpint(plain.status, ==, 0);
        g_assert_cmpint(r.status, ==, 0);
        const char *lb_plain = strstr(plain.out, "\"lower_bound_bytes\" : "), *lb = strstr(r.out, "\"lower_bound_bytes\" : ");
        g_assert_nonnull(lb_plain);
        g_assert_nonnull(lb);
        guint64 before = g_ascii_strtoull(lb_plain + 22, NULL, 10), after = g_ascii_strtoull(lb + 22, NULL, 10);
        if (read_again)
            g_assert_cmpuint(after, ==, before);
        else
            g_assert_cmpuint(after, <, before);
        run_result_clear(&plain);
        run_result_clear(&r);
        r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort", "--run", "--check", "--poison",
                                                  "--compare", NULL});
        if (r.status != 0)
            g_error("a fused plan does not run bit for bit: %s", r.err);
        run_result_clear(&r);
        r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort", NULL});
        g_assert_cmpint(r.status, ==, 0);
        g_assert_nonnull(strstr(r.out, "conv-add              1  576 B"));
        run_result_clear(&r);
        g_free(path);
    }
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/gpt2.onnx", "--fuse", "tvm", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, "--fuse takes none, ort, ort-disabled"));
    run_result_clear(&r);
}

/* SiLU computes the bits the unfused Sigmoid and Mul compute: the two runs dump the same bytes. */
static void test_silu_same_bits(void)
{
    Builder *b = builder_new("silu", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){7, 33});
    builder_output(b, B_OP(b, "Mul", x, B_OP(b, "Sigmoid", x)));
    char *path = written(b, "silu.onnx"), *plain = test_scratch_path("silu-plain"),
         *fused_dir = test_scratch_path("silu-fused");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--run", "--dump-outputs", plain, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort", "--run", "--dump-outputs", fused_dir, NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_nonnull(strstr(r.out, "silu                  1"));
    run_result_clear(&r);
    assert_same_output(plain, fused_dir);
    g_free(path);
    g_free(plain);
    g_free(fused_dir);
}

/* --fuse ort-disabled is ONNX Runtime at level disabled: no fusion, but HardSwish (which its CPU kernels lack)
 * as its function body, HardSigmoid (alpha 1/6, beta 1/2) then Mul, with a new intermediate of the input's
 * size alive while the Mul runs; through the command, the expanded graph's plan runs and is checked. */
static void test_hard_swish_expand(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("hard-swish", 14);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){3, 5});
    builder_output(b, B_OP(b, "Relu", B_OP(b, "HardSwish", B_OP(b, "Neg", x))));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    char *path = test_scratch_path("hard-swish.onnx");
    g_assert_true(onnx_write_file(m, path, &error));
    g_assert_true(fuse_apply(m, "ort-disabled", &r, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(r.sites[rule_index("hardswish-expand")], ==, 1);
    g_assert_cmpuint(r.bytes[rule_index("hardswish-expand")], ==, 3 * 5 * 4);
    g_assert_cmpuint(r.sites[rule_index("hard-swish")], ==, 0);
    g_assert_cmpuint(count_ops(m, "HardSwish"), ==, 0);
    g_assert_cmpuint(count_ops(m, "HardSigmoid"), ==, 1);
    g_assert_cmpuint(count_ops(m, "Mul"), ==, 1);
    const char *order[] = {"Neg", "HardSigmoid", "Mul", "Relu"};
    g_assert_cmpuint(m->graph->order->len, ==, 4);
    for (guint k = 0; k < 4; k++)
        g_assert_cmpstr(((const Node *)m->graph->order->pdata[k])->op_type, ==, order[k]);
    float alpha = 0;
    const Node *sig = m->graph->order->pdata[1];
    g_assert_true(node_attr_float(sig, "alpha", 0.2f, &alpha, NULL));
    g_assert_cmpfloat(fabsf(alpha - 1.0f / 6.0f), <, 1e-7f);
    model_free(m);
    RunResult run = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort-disabled", "--run", "--check",
                                                         "--poison", NULL});
    if (run.status != 0)
        g_error("the expanded graph does not run: %s", run.err);
    g_assert_nonnull(strstr(run.out, "hardswish-expand      1  added: 60 B"));
    run_result_clear(&run);
    g_free(path);
    fuse_report_clear(&r);
}

/* GPT-2's tanh GELU in both of the orders exports write it (the half applied last, or to x first): Gelu with
 * approximate "tanh"; not when the tanh's output is read again, and the fused graph runs bit for bit with its
 * nothing-shared run through the command. */
static void test_gelu_tanh(void)
{
    FuseReport r = {0};
    for (int form = 0; form < 3; form++) {
        Builder *b = builder_new("gelu-tanh", 13);
        const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){4, 8});
        const char *cube = B_OP(b, "Pow", x, builder_float_scalar(b, "three", 3.0f));
        const char *arg = B_OP(b, "Mul", B_OP(b, "Add", x, B_OP(b, "Mul", cube, builder_float_scalar(b, "c", 0.044715f))),
                               builder_float_scalar(b, "k", 0.7978845608f));
        const char *th = B_OP(b, "Tanh", arg);
        const char *t1 = B_OP(b, "Add", th, builder_float_scalar(b, "one", 1.0f));
        const char *half = builder_float_scalar(b, "half", 0.5f);
        const char *y = form == 1 ? B_OP(b, "Mul", B_OP(b, "Mul", x, half), t1) : B_OP(b, "Mul", B_OP(b, "Mul", x, t1), half);
        builder_output(b, y);
        if (form == 2) /* the tanh wanted too */
            builder_output(b, th);
        char *path;
        Model *m = fused_from_file(b, "gelu-tanh.onnx", &r, &path);
        g_assert_cmpuint(r.sites[rule_index("gelu-tanh")], ==, form == 2 ? 0 : 1);
        g_assert_cmpuint(count_ops(m, "Tanh"), ==, form == 2 ? 1 : 0);
        g_assert_cmpuint(count_ops(m, "Gelu"), ==, form == 2 ? 0 : 1);
        model_free(m);
        RunResult run = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort", "--run", "--check",
                                                             "--poison", NULL});
        if (run.status != 0)
            g_error("the fused GELU does not run: %s", run.err);
        run_result_clear(&run);
        g_free(path);
    }
    fuse_report_clear(&r);
}

/* The values in output k of a run dumped into dir (--dump-outputs), as numbers. */
static Value *dumped(const char *dir, guint k)
{
    char *name = g_strdup_printf("output_%u.pb", k), *path = g_build_filename(dir, name, NULL);
    GError *error = NULL;
    TensorData *t = onnx_read_tensor_file(path, &error);
    g_assert_no_error(error);
    Value *v = tensor_data_value(t);
    g_assert_nonnull(v);
    tensor_data_free(t);
    g_free(path);
    g_free(name);
    return v;
}

/* The model at `path` run as the file has it and with --fuse ort (that plan checked bit for bit, with poison):
 * each of its `outputs` outputs the same to float rounding (the fused kernels round differently). */
/* ... under --fuse `kind`, its report saying `says` (unless NULL), each output within `tolerance` of the file's
 * (relative, plus as much absolute; 0: the same values). */
static void assert_kind_runs_within(const char *path, const char *kind, guint outputs, const char *what,
                                    const char *says, double tolerance)
{
    char *plain = g_strconcat(path, "-plain", NULL), *fused_dir = g_strconcat(path, "-fused", NULL);
    RunResult run = test_run("SIM_BIN", (const char *[]){"--graph", path, "--run", "--dump-outputs", plain, NULL});
    g_assert_cmpint(run.status, ==, 0);
    run_result_clear(&run);
    run = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", kind, "--run", "--check", "--poison",
                                                "--dump-outputs", fused_dir, NULL});
    if (run.status != 0)
        g_error("the fused %s do not run: %s", what, run.err);
    if (says)
        g_assert_nonnull(strstr(run.out, says));
    run_result_clear(&run);
    for (guint k = 0; k < outputs; k++) {
        Value *x = dumped(plain, k), *y = dumped(fused_dir, k);
        g_assert_cmpuint(x->n, ==, y->n);
        for (gsize i = 0; i < x->n; i++) {
            double p = value_get_f(x, i), q = value_get_f(y, i);
            g_assert_cmpfloat(fabs(p - q), <=, tolerance * (fabs(p) + 1.0));
        }
        value_free(x);
        value_free(y);
    }
    g_free(plain);
    g_free(fused_dir);
}

static void assert_kind_runs_like_file(const char *path, const char *kind, guint outputs, const char *what)
{
    assert_kind_runs_within(path, kind, outputs, what, NULL, 1e-5);
}

static void assert_fused_runs_like_file(const char *path, guint outputs, const char *what)
{
    assert_kind_runs_like_file(path, "ort", outputs, what);
}

/* MatMul(A, Transpose(B)) with the last two dims swapped is FusedMatMul reading B transposed; a scale by a
 * constant on the product (Div) or on an operand (Mul) folds into its alpha, on top of a transpose already
 * fused. Not fused: a Transpose read twice, a constant divided by the product. The fused graph computes what
 * the file's graph computes (to float rounding: the scale moves into the product), every FusedMatMul on
 * oneDNN. */
static void test_fused_matmul(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("fused-matmul", 13);
    const char *a = builder_input(b, "a", DT_FLOAT, 3, (const gint64[]){2, 3, 4});
    const char *bb = builder_input(b, "b", DT_FLOAT, 3, (const gint64[]){2, 5, 4});
    const char *w = builder_weight(b, "w", DT_FLOAT, 2, (const gint64[]){4, 6}, TRUE);
    const char *bt = B_OPA(b, "Transpose", attr_new_ints("perm", (const gint64[]){0, 2, 1}, 3), bb);
    builder_output(b, B_OP(b, "Div", B_OP(b, "MatMul", a, bt), builder_float_scalar(b, "eight", 8.0f)));
    builder_output(b, B_OP(b, "MatMul", B_OP(b, "Mul", a, builder_float_scalar(b, "half", 0.5f)), w));
    const char *bt2 = B_OPA(b, "Transpose", attr_new_ints("perm", (const gint64[]){0, 2, 1}, 3), bb);
    builder_output(b, B_OP(b, "MatMul", a, bt2));
    builder_output(b, bt2); /* read twice: stays */
    builder_output(b, B_OP(b, "Div", builder_float_scalar(b, "one", 1.0f), B_OP(b, "MatMul", a, w)));
    /* scaled on an operand and on the output: the operand's scale folds in; the output's stays (one pass makes
     * a FusedMatMul once: a second rewrite of the node it just made would orphan it) */
    builder_output(b, B_OP(b, "Mul", B_OP(b, "MatMul", B_OP(b, "Mul", a, builder_float_scalar(b, "quarter", 0.25f)), w),
                         builder_float_scalar(b, "two", 2.0f)));
    /* sequence-first operands, as torch's MultiheadAttention has them: [s, batch, d] moved to [batch, s, d]
     * ([1, 0, 2]: transBatch) and to [batch, d, s] ([1, 2, 0]: transBatch and trans) */
    const char *sa = builder_input(b, "sa", DT_FLOAT, 3, (const gint64[]){3, 2, 4});
    const char *sb = builder_input(b, "sb", DT_FLOAT, 3, (const gint64[]){5, 2, 4});
    builder_output(b, B_OP(b, "MatMul", B_OPA(b, "Transpose", attr_new_ints("perm", (const gint64[]){1, 0, 2}, 3), sa),
                           B_OPA(b, "Transpose", attr_new_ints("perm", (const gint64[]){1, 2, 0}, 3), sb)));
    char *path;
    Model *m = fused_from_file(b, "fused-matmul.onnx", &r, &path);
    g_assert_cmpuint(r.sites[rule_index("matmul-transpose")], ==, 2);
    g_assert_cmpuint(r.sites[rule_index("matmul-scale")], ==, 3);
    g_assert_cmpuint(count_ops(m, "FusedMatMul"), ==, 4);
    g_assert_cmpuint(count_ops(m, "Mul"), ==, 1);
    g_assert_cmpuint(count_ops(m, "MatMul"), ==, 2);
    g_assert_cmpuint(count_ops(m, "Transpose"), ==, 1);
    g_assert_cmpuint(count_ops(m, "Div"), ==, 1);
    model_free(m);
    assert_fused_runs_like_file(path, 7, "MatMuls");
    /* oneDNN runs all four, the batch-transposed one too (its operands' dims and strides permuted); the skinny
     * kernel, which would take the products of few rows by a constant, is off */
    RunResult run = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort", "--run", "--skinny", "off",
                                                         NULL});
    g_assert_cmpint(run.status, ==, 0);
    const char *row = strstr(run.out, "\nFusedMatMul ");
    g_assert_nonnull(row);
    char *line = g_strndup(row + 1, strcspn(row + 1, "\n"));
    if (!g_str_has_prefix(line, "FusedMatMul                  4 ") || !g_str_has_suffix(line, "  all"))
        g_error("not every FusedMatMul ran on oneDNN: %s", line);
    g_free(line);
    run_result_clear(&run);
    g_free(path);
    fuse_report_clear(&r);
}

/* Gelu(Add(x, bias)) with a weight over the last dim is BiasGelu (erf and tanh forms); not when the sum is read
 * again or the other operand is computed. The fused graph computes what the file's graph computes. */
static void test_bias_gelu(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("bias-gelu", 20);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){3, 8});
    const char *bias = builder_weight(b, "bias", DT_FLOAT, 1, (const gint64[]){8}, TRUE);
    builder_output(b, B_OP(b, "Gelu", B_OP(b, "Add", x, bias)));
    builder_output(b, B_OPA(b, "Gelu", attr_new_string("approximate", "tanh"), B_OP(b, "Add", bias, B_OP(b, "Neg", x))));
    const char *twice = B_OP(b, "Add", B_OP(b, "Relu", x), bias);
    builder_output(b, B_OP(b, "Gelu", twice));
    builder_output(b, twice); /* the sum read again: stays */
    builder_output(b, B_OP(b, "Gelu", B_OP(b, "Add", x, B_OP(b, "Sigmoid", x)))); /* no weight: stays */
    char *path;
    Model *m = fused_from_file(b, "bias-gelu.onnx", &r, &path);
    g_assert_cmpuint(r.sites[rule_index("bias-gelu")], ==, 2);
    g_assert_cmpuint(count_ops(m, "BiasGelu"), ==, 2);
    g_assert_cmpuint(count_ops(m, "Gelu"), ==, 2);
    model_free(m);
    assert_fused_runs_like_file(path, 5, "BiasGelu ops");
    g_free(path);
    fuse_report_clear(&r);
}

/* A BiasGelu right after a MatMul of constant weights (a transformer's MLP) runs inside the product: on
 * oneDNN its bias is the product's own and the Gelu its post-op (both forms), on our own kernels a pass over
 * the product. Either way the report counts both folds, the fused run agrees with its nothing-shared
 * reference bit for bit, and with the file's graph (our own Gelu, unfused) to float rounding. */
static void test_bias_gelu_folds(void)
{
    Builder *b = builder_new("bias-gelu-fold", 20);
    const char *x = builder_input(b, "x", DT_FLOAT, 3, (const gint64[]){2, 6, 8});
    const char *w = builder_weight(b, "w", DT_FLOAT, 2, (const gint64[]){8, 16}, TRUE);
    const char *w2 = builder_weight(b, "w2", DT_FLOAT, 2, (const gint64[]){8, 16}, TRUE);
    const char *bias = builder_weight(b, "bias", DT_FLOAT, 1, (const gint64[]){16}, TRUE);
    const char *bias2 = builder_weight(b, "bias2", DT_FLOAT, 1, (const gint64[]){16}, TRUE);
    builder_output(b, B_OP(b, "Gelu", B_OP(b, "Add", B_OP(b, "MatMul", x, w), bias)));
    builder_output(b, B_OPA(b, "Gelu", attr_new_string("approximate", "tanh"), B_OP(b, "Add", B_OP(b, "MatMul", x, w2), bias2)));
    FuseReport r = {0};
    char *path;
    Model *m = fused_from_file(b, "bias-gelu-fold.onnx", &r, &path);
    g_assert_cmpuint(count_ops(m, "BiasGelu"), ==, 2);
    model_free(m);
    const char *says = "fused          2 Relu/Clip/HardSwish/SiLU/BiasGelu steps run inside the Add, MatMul or Conv before them";
    assert_kind_runs_within(path, "ort", 2, "folded BiasGelus", says, 1e-5);
    RunResult run = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", "ort", "--kernels", "own", "--run",
                                                          "--check", "--poison", NULL});
    g_assert_cmpint(run.status, ==, 0);
    g_assert_nonnull(strstr(run.out, says));
    g_assert_nonnull(strstr(run.out, "equal the reference run (nothing shared) bit for bit, with poison"));
    run_result_clear(&run);
    g_free(path);
    fuse_report_clear(&r);
}


/* The lower bound sim reports for the model at path under --fuse `kind`. */
static guint64 lower_bound(const char *path, const char *kind)
{
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--fuse", kind, "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    const char *lb = strstr(r.out, "\"lower_bound_bytes\" : ");
    g_assert_nonnull(lb);
    guint64 bytes = g_ascii_strtoull(lb + 22, NULL, 10);
    run_result_clear(&r);
    return bytes;
}

/* Softmax(Q Kt / 8) V (K transposed by a Transpose, the scale a Div: FusedMatMul first) is one Attention under
 * --fuse ort-transformers, and the scores and probabilities go: the lower bound drops. So is one whose K the
 * whole batch shares (broadcast) and whose V is read transposed. Not fused: a mask added
 * before the Softmax (ONNX Runtime's kernel then keeps its scores), the probabilities read again, a Softmax
 * over another axis, and nothing at all under --fuse ort. The fused graph computes what the file's does. */
static void test_attention(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("attention", 13);
    const gint64 qdims[] = {2, 3, 40, 8}, vdims[] = {2, 3, 40, 5};
    const char *q = builder_input(b, "q", DT_FLOAT, 4, qdims), *k = builder_input(b, "k", DT_FLOAT, 4, qdims);
    const char *v = builder_input(b, "v", DT_FLOAT, 4, vdims);
    const char *mask = builder_weight(b, "mask", DT_FLOAT, 2, (const gint64[]){40, 40}, TRUE);
    const char *kt = B_OPA(b, "Transpose", attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), k);
    const char *scores = B_OP(b, "Div", B_OP(b, "MatMul", q, kt), builder_float_scalar(b, "eight", 8.0f));
    builder_output(b, B_OP(b, "MatMul", B_OP(b, "Softmax", scores), v));
    /* K shared by the batch ([1, 3, 40, 8]: broadcast), V read transposed: fused too */
    const char *k1 = builder_input(b, "k1", DT_FLOAT, 4, (const gint64[]){1, 3, 40, 8});
    const char *vt = builder_input(b, "vt", DT_FLOAT, 4, (const gint64[]){2, 3, 5, 40});
    builder_output(b, B_OP(b, "MatMul", B_OP(b, "Softmax", B_OP(b, "MatMul", q, B_OPA(b, "Transpose",
                       attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), k1))),
                           B_OPA(b, "Transpose", attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), vt)));
    /* masked: stays */
    builder_output(b, B_OP(b, "MatMul", B_OP(b, "Softmax", B_OP(b, "Add", B_OP(b, "MatMul", q, B_OPA(b, "Transpose",
                       attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), k)), mask)), v));
    /* the probabilities read again: stay */
    const char *probs = B_OP(b, "Softmax", B_OP(b, "MatMul", v, B_OPA(b, "Transpose",
                             attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), v)));
    builder_output(b, B_OP(b, "MatMul", probs, q));
    builder_output(b, probs);
    /* a Softmax over the queries' axis: stays */
    builder_output(b, B_OP(b, "MatMul", B_OPA(b, "Softmax", attr_new_int("axis", 2), B_OP(b, "MatMul", q, B_OPA(b,
                       "Transpose", attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), k))), v));
    char *path;
    Model *m = fused_kind_from_file(b, "ort-transformers", "attention.onnx", &r, &path);
    g_assert_cmpuint(r.sites[rule_index("attention")], ==, 2);
    g_assert_cmpuint(r.bytes[rule_index("attention")], ==, 2 * 2 * 2 * 3 * 40 * 40 * sizeof(float));
    g_assert_cmpuint(count_ops(m, "Attention"), ==, 2);
    g_assert_cmpuint(count_ops(m, "Softmax"), ==, 3);
    model_free(m);
    GError *error = NULL;
    m = onnx_read_file(path, &error); /* under --fuse ort: no Attention */
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    g_assert_true(fuse_apply(m, "ort", &r, &error));
    g_assert_cmpuint(count_ops(m, "Attention"), ==, 0);
    g_assert_cmpuint(count_ops(m, "Softmax"), ==, 5);
    model_free(m);
    assert_kind_runs_like_file(path, "ort-transformers", 6, "attention");
    g_free(path);

    /* alone, the attention is the peak: fused, the bound drops by the two [2, 3, 40, 40] tensors it removes */
    b = builder_new("attention-alone", 13);
    q = builder_input(b, "q", DT_FLOAT, 4, qdims);
    k = builder_input(b, "k", DT_FLOAT, 4, qdims);
    v = builder_input(b, "v", DT_FLOAT, 4, vdims);
    kt = B_OPA(b, "Transpose", attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), k);
    builder_output(b, B_OP(b, "MatMul", B_OP(b, "Softmax", B_OP(b, "MatMul", q, kt)), v));
    m = fused_kind_from_file(b, "ort-transformers", "attention-alone.onnx", &r, &path);
    model_free(m);
    guint64 before = lower_bound(path, "ort"), after = lower_bound(path, "ort-transformers");
    g_assert_cmpuint(before, >=, after + 2 * 3 * 40 * 40 * sizeof(float));
    g_free(path);
    fuse_report_clear(&r);
}

/* Grouped-query attention's repeat_kv (Unsqueeze at axis 2, Expand over the repeats, Reshape into the query heads)
 * read by a MatMul, K through a Transpose of its last two dims: the MatMul of the query heads split into [groups,
 * repeats] with the unrepeated tensor, broadcast, its heads merged again; the expanded copies (and K's transposed
 * one) go, and the outputs are the file's to float rounding. Not fused: an expanded tensor read twice. */
static void test_repeat_kv(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("repeat-kv", 13);
    const char *q = builder_input(b, "q", DT_FLOAT, 4, (const gint64[]){1, 6, 2, 4});
    const char *k = builder_input(b, "k", DT_FLOAT, 4, (const gint64[]){1, 2, 5, 4});
    const char *v = builder_input(b, "v", DT_FLOAT, 4, (const gint64[]){1, 2, 5, 4});
    const char *axes = builder_int_vec(b, "axes", 1, (const gint64[]){2});
    const char *to5 = builder_int_vec(b, "to5", 5, (const gint64[]){1, 2, 3, 5, 4});
    const char *to4 = builder_int_vec(b, "to4", 4, (const gint64[]){1, 6, 5, 4});
    const char *ke = B_OP(b, "Reshape", B_OP(b, "Expand", B_OP(b, "Unsqueeze", k, axes), to5), to4);
    const char *ve = B_OP(b, "Reshape", B_OP(b, "Expand", B_OP(b, "Unsqueeze", v, axes), to5), to4);
    const char *kt = B_OPA(b, "Transpose", attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), ke);
    const char *probs = B_OP(b, "Softmax", B_OP(b, "MatMul", q, kt));
    builder_output(b, B_OP(b, "MatMul", probs, ve));
    /* read twice (also a graph output): stays */
    const char *again = B_OP(b, "Reshape", B_OP(b, "Expand", B_OP(b, "Unsqueeze", v, axes), to5), to4);
    builder_output(b, B_OP(b, "MatMul", probs, again));
    builder_output(b, again);
    char *path;
    Model *m = fused_kind_from_file(b, "ort-transformers", "repeat-kv.onnx", &r, &path);
    g_assert_cmpuint(r.sites[rule_index("repeat-kv")], ==, 2);
    /* K: the expanded [1,2,3,5,4] and the transposed [1,6,4,5]; V: the expanded one; 120 floats each */
    g_assert_cmpuint(r.bytes[rule_index("repeat-kv")], ==, 3 * 120 * sizeof(float));
    g_assert_cmpuint(count_ops(m, "Expand"), ==, 1);
    model_free(m);
    assert_kind_runs_like_file(path, "ort-transformers", 3, "repeat-kv");
    g_free(path);
    fuse_report_clear(&r);
}

/* LayerNormalization of Add(x, y) of one shape, the sum read by it alone, is SkipLayerNormalization (the bits of
 * the unfused pair); not when the sum is read again (a pre-norm residual) or the Add broadcasts a bias. */
static void test_skip_layer_norm(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("skip-layer-norm", 17);
    const gint64 dims[] = {2, 5, 16};
    const char *x = builder_input(b, "x", DT_FLOAT, 3, dims), *y = builder_input(b, "y", DT_FLOAT, 3, dims);
    const char *gamma = builder_weight(b, "gamma", DT_FLOAT, 1, (const gint64[]){16}, TRUE);
    const char *beta = builder_weight(b, "beta", DT_FLOAT, 1, (const gint64[]){16}, TRUE);
    builder_output(b, B_OPA(b, "LayerNormalization", attr_new_float("epsilon", 1e-5f), B_OP(b, "Add", x, y), gamma, beta));
    const char *sum = B_OP(b, "Add", B_OP(b, "Relu", x), y);
    builder_output(b, B_OP(b, "LayerNormalization", sum, gamma, beta));
    builder_output(b, B_OP(b, "Add", sum, x)); /* the sum read again: stays */
    builder_output(b, B_OP(b, "LayerNormalization", B_OP(b, "Add", B_OP(b, "Neg", x), gamma), gamma)); /* a bias: stays */
    char *path;
    Model *m = fused_kind_from_file(b, "ort-transformers", "skip-layer-norm.onnx", &r, &path);
    g_assert_cmpuint(r.sites[rule_index("skip-layer-norm")], ==, 1);
    g_assert_cmpuint(r.bytes[rule_index("skip-layer-norm")], ==, 2 * 5 * 16 * sizeof(float));
    g_assert_cmpuint(count_ops(m, "SkipLayerNormalization"), ==, 1);
    g_assert_cmpuint(count_ops(m, "LayerNormalization"), ==, 2);
    model_free(m);
    /* the same values as the unfused pair: the sum in float, then the LayerNorm's own arithmetic */
    assert_kind_runs_within(path, "ort-transformers", 4, "SkipLayerNormalization", "skip-layer-norm       1", 0.0);
    g_free(path);
    fuse_report_clear(&r);
}

/* A shallow 1x1 on a large map (16 channels, 41 x 41: conv.c's direct kernel) added to its skip: the FusedConv
 * starts each sum from the skip, and computes what the file's Conv and Add compute, to float rounding. */
static void test_fused_shallow(void)
{
    Builder *b = builder_new("fused-shallow", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 4, (const gint64[]){1, 16, 41, 41});
    const char *w = builder_weight(b, "w", DT_FLOAT, 4, (const gint64[]){16, 16, 1, 1}, TRUE);
    const char *bias = builder_weight(b, "bias", DT_FLOAT, 1, (const gint64[]){16}, TRUE);
    const char *skip = B_OP(b, "Relu", x);
    builder_output(b, B_OP(b, "Relu", B_OP(b, "Add", B_OP(b, "Conv", skip, w, bias), skip)));
    FuseReport r = {0};
    char *path;
    Model *m = fused_from_file(b, "fused-shallow.onnx", &r, &path);
    g_assert_cmpuint(r.sites[rule_index("conv-add")], ==, 1);
    model_free(m);
    assert_fused_runs_like_file(path, 1, "shallow FusedConv");
    g_free(path);
    fuse_report_clear(&r);
}

/* A Pad of zeros around the images folds into the Conv or AveragePool after it (an AveragePool then counting
 * the pads: count_include_pad 1), the padded tensor gone, the values the pair's. Not folded: a Pad read twice,
 * one with another value, one over the channels, one before a MaxPool (its padding is -inf), an AveragePool
 * with pads of its own it does not count, one without a pads attribute (ONNX Runtime's condition). */
static void test_pad_window(void)
{
    FuseReport r = {0};
    Builder *b = builder_new("pad-window", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 4, image);
    const char *w = builder_weight(b, "w", DT_FLOAT, 4, kernel, TRUE);
    const char *around = builder_int_vec(b, "around", 8, (const gint64[]){0, 0, 1, 2, 0, 0, 1, 0});
    const char *channels = builder_int_vec(b, "channels", 8, (const gint64[]){0, 1, 0, 0, 0, 0, 0, 0});
    const char *one = builder_float_scalar(b, "one", 1.0f);
    const char *y = B_OP(b, "Neg", x); /* negative values: a -inf padding would show */
    builder_output(b, builder_node(b, "AveragePool", (const char *const[]){B_OP(b, "Pad", y, around), NULL}, 1, NULL,
                                   attr_new_ints("kernel_shape", (const gint64[]){3, 3}, 2),
                                   attr_new_ints("pads", (const gint64[]){0, 0, 0, 0}, 4), NULL));
    builder_output(b, B_OPA(b, "Conv", attr_new_ints("pads", (const gint64[]){1, 0, 0, 1}, 4),
                            B_OP(b, "Pad", x, around), w));
    builder_output(b, builder_node(b, "AveragePool", (const char *const[]){B_OP(b, "Pad", y, around), NULL}, 1, NULL,
                                   attr_new_ints("kernel_shape", (const gint64[]){3, 3}, 2),
                                   attr_new_ints("pads", (const gint64[]){1, 1, 1, 1}, 4),
                                   attr_new_int("count_include_pad", 1), NULL));
    /* stay */
    const char *twice = B_OP(b, "Pad", x, around);
    builder_output(b, B_OPA(b, "Conv", attr_new_ints("pads", (const gint64[]){0, 0, 0, 0}, 4), twice, w));
    builder_output(b, twice);
    builder_output(b, B_OPA(b, "Conv", attr_new_ints("pads", (const gint64[]){0, 0, 0, 0}, 4),
                            B_OP(b, "Pad", x, around, one), w));
    builder_output(b, B_OPA(b, "AveragePool", attr_new_ints("kernel_shape", (const gint64[]){3, 3}, 2),
                            B_OP(b, "Pad", y, channels)));
    builder_output(b, B_OPA(b, "MaxPool", attr_new_ints("kernel_shape", (const gint64[]){3, 3}, 2),
                            B_OP(b, "Pad", y, around)));
    builder_output(b, B_OPA(b, "AveragePool", attr_new_ints("kernel_shape", (const gint64[]){3, 3}, 2),
                            B_OP(b, "Pad", y, around)));
    builder_output(b, builder_node(b, "AveragePool", (const char *const[]){B_OP(b, "Pad", y, around), NULL}, 1, NULL,
                                   attr_new_ints("kernel_shape", (const gint64[]){3, 3}, 2),
                                   attr_new_ints("pads", (const gint64[]){1, 1, 1, 1}, 4), NULL));
    char *path;
    Model *m = fused_from_file(b, "pad-window.onnx", &r, &path);
    g_assert_cmpuint(r.sites[rule_index("pad-window")], ==, 3);
    g_assert_cmpuint(r.bytes[rule_index("pad-window")], ==, 3 * 4 * 8 * 8 * sizeof(float)); /* [1, 4, 8, 8] each */
    g_assert_cmpuint(count_ops(m, "Pad"), ==, 6);
    model_free(m);
    assert_fused_runs_like_file(path, 10, "Pad + window");
    g_free(path);
    fuse_report_clear(&r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/fuse/conv-add", test_conv_add);
    g_test_add_func("/fuse/activations", test_activations);
    g_test_add_func("/fuse/gelu-and-layer-norm", test_gelu_and_layer_norm);
    g_test_add_func("/fuse/matmul-add", test_matmul_add);
    g_test_add_func("/fuse/constant-fold", test_constant_fold);
    g_test_add_func("/fuse/constant-fold-runs-once", test_constant_fold_runs_once);
    g_test_add_func("/fuse/fused-runs", test_fused_runs);
    g_test_add_func("/fuse/silu-same-bits", test_silu_same_bits);
    g_test_add_func("/fuse/hard-swish-expand", test_hard_swish_expand);
    g_test_add_func("/fuse/gelu-tanh", test_gelu_tanh);
    g_test_add_func("/fuse/fused-matmul", test_fused_matmul);
    g_test_add_func("/fuse/bias-gelu", test_bias_gelu);
    g_test_add_func("/fuse/bias-gelu-folds", test_bias_gelu_folds);
    g_test_add_func("/fuse/attention", test_attention);
    g_test_add_func("/fuse/repeat-kv", test_repeat_kv);
    g_test_add_func("/fuse/fused-shallow", test_fused_shallow);
    g_test_add_func("/fuse/skip-layer-norm", test_skip_layer_norm);
    g_test_add_func("/fuse/pad-window", test_pad_window);
    return g_test_run();
}
