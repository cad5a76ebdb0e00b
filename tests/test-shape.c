/* test-shape.c — shape inference per op family against hand-computed shapes, broadcasting, the
 * exporters' shape-arithmetic folding, symbolic dims, and value_info checks. */
#include "tests/testutil.h"
#include "ops/ops.h"

#include <string.h>

static Model *finish(Builder *b, const char *const *dims)
{
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    test_infer(m, dims, &error);
    g_assert_no_error(error);
    return m;
}

#define DIMS(...) ((const gint64[]){__VA_ARGS__})
#define NDIMS(...) (sizeof((const gint64[]){__VA_ARGS__}) / sizeof(gint64))
#define INPUT(b, name, ...) builder_input((b), (name), DT_FLOAT, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))
#define WEIGHT(b, name, ...) builder_weight((b), (name), DT_FLOAT, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__), FALSE)
#define INTS(b, ...) builder_int_vec((b), NULL, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))
#define OUT(b, name, op, ...) builder_node((b), (op), (const char *const[]){__VA_ARGS__, NULL}, 1, (const char *[]){name}, NULL)
#define OUTA(b, name, op, attrs, ...)                                                                          \
    builder_node((b), (op), (const char *const[]){__VA_ARGS__, NULL}, 1, (const char *[]){name}, attrs, NULL)

static void test_broadcasting(void)
{
    Builder *b = builder_new("bcast", 17);
    INPUT(b, "a", 2, 1, 4);
    INPUT(b, "c", 3, 1);
    INPUT(b, "s", 1);
    OUT(b, "sum", "Add", "a", "c");
    OUT(b, "scalar", "Mul", "a", "s");
    OUT(b, "cmp", "Less", "a", "c");
    builder_input(b, "cond", DT_BOOL, 1, DIMS(4));
    OUT(b, "where", "Where", "cond", "c", "a");
    OUT(b, "max3", "Max", "a", "c", "s");
    Model *m = finish(b, NULL);
    assert_type(m, "sum", "FLOAT[2,3,4]");
    assert_type(m, "scalar", "FLOAT[2,1,4]");
    assert_type(m, "cmp", "BOOL[2,3,4]");
    assert_type(m, "where", "FLOAT[2,3,4]");
    assert_type(m, "max3", "FLOAT[2,3,4]");
    g_assert_cmpuint(graph_tensor(m->graph, "sum")->bytes, ==, 2 * 3 * 4 * 4);
    model_free(m);

    b = builder_new("bad-bcast", 17);
    INPUT(b, "a", 2, 3);
    INPUT(b, "c", 4, 3, 2);
    OUT(b, "y", "Add", "a", "c");
    char *msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'Add_n0' (Add): shapes [2,3] and [4,3,2] do not broadcast (dimension 1: 2 vs 3)");
    g_free(msg);
}

static void test_matmul_gemm(void)
{
    Builder *b = builder_new("mm", 17);
    INPUT(b, "a", 2, 3, 4, 5);
    WEIGHT(b, "w", 5, 6);
    INPUT(b, "v", 5);
    INPUT(b, "m", 3, 4);
    INPUT(b, "v4", 4);
    INPUT(b, "p", 2, 1, 3, 4);
    INPUT(b, "q", 5, 4, 6);
    OUT(b, "y", "MatMul", "a", "w");
    OUT(b, "vm", "MatMul", "v", "w");
    OUT(b, "mv", "MatMul", "m", "v4");
    OUT(b, "batched", "MatMul", "p", "q");
    INPUT(b, "g", 7, 5);
    WEIGHT(b, "gw", 6, 5);
    WEIGHT(b, "gb", 6);
    OUTA(b, "gemm", "Gemm", attr_new_int("transB", 1), "g", "gw", "gb");
    Model *m = finish(b, NULL);
    assert_type(m, "y", "FLOAT[2,3,4,6]");
    assert_type(m, "vm", "FLOAT[6]");
    assert_type(m, "mv", "FLOAT[3]");
    assert_type(m, "batched", "FLOAT[2,5,3,6]");
    assert_type(m, "gemm", "FLOAT[7,6]");
    model_free(m);

    b = builder_new("mm-bad", 17);
    INPUT(b, "a", 3, 4);
    INPUT(b, "c", 5, 6);
    OUT(b, "y", "MatMul", "a", "c");
    char *msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'MatMul_n0' (MatMul): MatMul inner dimensions differ: 'a' [3,4] and 'c' [5,6]");
    g_free(msg);
}

static void test_conv_and_pools(void)
{
    Builder *b = builder_new("conv", 17);
    INPUT(b, "x", 1, 3, 224, 224);
    WEIGHT(b, "w", 64, 3, 7, 7);
    builder_node(b, "Conv", (const char *const[]){"x", "w", NULL}, 1, (const char *[]){"c1"},
           attr_new_ints("strides", DIMS(2, 2), 2), attr_new_ints("pads", DIMS(3, 3, 3, 3), 4), NULL);
    builder_node(b, "Conv", (const char *const[]){"x", "w", NULL}, 1, (const char *[]){"same"},
           attr_new_ints("strides", DIMS(2, 2), 2), attr_new_string("auto_pad", "SAME_UPPER"), NULL);
    WEIGHT(b, "dw", 64, 1, 3, 3);
    builder_node(b, "Conv", (const char *const[]){"c1", "dw", NULL}, 1, (const char *[]){"depthwise"},
           attr_new_int("group", 64), attr_new_ints("pads", DIMS(1, 1, 1, 1), 4),
           attr_new_ints("dilations", DIMS(1, 1), 2), NULL);
    builder_node(b, "MaxPool", (const char *const[]){"c1", NULL}, 1, (const char *[]){"pool"},
           attr_new_ints("kernel_shape", DIMS(3, 3), 2), attr_new_ints("strides", DIMS(2, 2), 2),
           attr_new_ints("pads", DIMS(1, 1, 1, 1), 4), NULL);
    INPUT(b, "six", 1, 1, 6, 6);
    builder_node(b, "AveragePool", (const char *const[]){"six", NULL}, 1, (const char *[]){"ceil"},
           attr_new_ints("kernel_shape", DIMS(3, 3), 2), attr_new_ints("strides", DIMS(2, 2), 2),
           attr_new_int("ceil_mode", 1), NULL);
    builder_node(b, "AveragePool", (const char *const[]){"six", NULL}, 1, (const char *[]){"floor"},
           attr_new_ints("kernel_shape", DIMS(3, 3), 2), attr_new_ints("strides", DIMS(2, 2), 2), NULL);
    OUT(b, "gap", "GlobalAveragePool", "pool");
    INPUT(b, "t", 1, 16, 14, 14);
    WEIGHT(b, "tw", 16, 8, 4, 4);
    builder_node(b, "ConvTranspose", (const char *const[]){"t", "tw", NULL}, 1, (const char *[]){"up"},
           attr_new_ints("strides", DIMS(2, 2), 2), attr_new_ints("pads", DIMS(1, 1, 1, 1), 4), NULL);
    Model *m = finish(b, NULL);
    assert_type(m, "c1", "FLOAT[1,64,112,112]");
    assert_type(m, "same", "FLOAT[1,64,112,112]");
    assert_type(m, "depthwise", "FLOAT[1,64,112,112]");
    assert_type(m, "pool", "FLOAT[1,64,56,56]");
    assert_type(m, "ceil", "FLOAT[1,1,3,3]");
    assert_type(m, "floor", "FLOAT[1,1,2,2]");
    assert_type(m, "gap", "FLOAT[1,64,1,1]");
    assert_type(m, "up", "FLOAT[1,8,28,28]");
    model_free(m);

    b = builder_new("conv-bad", 17);
    INPUT(b, "x", 1, 3, 8, 8);
    WEIGHT(b, "w", 4, 2, 3, 3);
    OUT(b, "y", "Conv", "x", "w");
    char *msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'Conv_n0' (Conv): input channels 3 != weight channels 2 x group 1");
    g_free(msg);
}

static void test_norm_softmax_reduce(void)
{
    Builder *b = builder_new("norm", 18);
    INPUT(b, "x", 2, 3, 4);
    WEIGHT(b, "g", 4);
    builder_node(b, "LayerNormalization", (const char *const[]){"x", "g", NULL}, 3,
           (const char *[]){"ln", "mean", "inv"}, NULL);
    INPUT(b, "img", 2, 5, 7, 7);
    WEIGHT(b, "s", 5);
    OUT(b, "bn", "BatchNormalization", "img", "s", "s", "s", "s");
    OUTA(b, "sm", "Softmax", attr_new_int("axis", -1), "x");
    builder_node(b, "ReduceMean", (const char *const[]){"x", INTS(b, 1), NULL}, 1, (const char *[]){"mean1"},
           attr_new_int("keepdims", 0), NULL);
    OUT(b, "sum_all", "ReduceSum", "x");
    builder_node(b, "ArgMax", (const char *const[]){"x", NULL}, 1, (const char *[]){"arg"}, attr_new_int("axis", 2),
           attr_new_int("keepdims", 0), NULL);
    builder_node(b, "TopK", (const char *const[]){"x", INTS(b, 2), NULL}, 2, (const char *[]){"topv", "topi"}, NULL);
    Model *m = finish(b, NULL);
    assert_type(m, "ln", "FLOAT[2,3,4]");
    assert_type(m, "mean", "FLOAT[2,3,1]");
    assert_type(m, "bn", "FLOAT[2,5,7,7]");
    assert_type(m, "sm", "FLOAT[2,3,4]");
    assert_type(m, "mean1", "FLOAT[2,4]");
    assert_type(m, "sum_all", "FLOAT[1,1,1]");
    assert_type(m, "arg", "INT64[2,3]");
    assert_type(m, "topv", "FLOAT[2,3,2]");
    assert_type(m, "topi", "INT64[2,3,2]");
    model_free(m);
}

static void test_noop_views(void)
{
    Builder *b = builder_new("views", 13);
    INPUT(b, "x", 2, 3, 4);
    OUT(b, "r", "Reshape", "x", INTS(b, 0, -1));
    OUT(b, "t", "Transpose", "x");
    OUTA(b, "tp", "Transpose", attr_new_ints("perm", DIMS(1, 0, 2), 3), "x");
    OUT(b, "u", "Unsqueeze", "x", INTS(b, 0, -1));
    OUT(b, "sq", "Squeeze", "u", INTS(b, 0));
    OUT(b, "sq_all", "Squeeze", "u");
    INPUT(b, "f4", 2, 3, 4, 5);
    OUTA(b, "fl", "Flatten", attr_new_int("axis", 2), "f4");
    OUT(b, "id", "Identity", "x");
    Model *m = finish(b, NULL);
    assert_type(m, "r", "FLOAT[2,12]");
    assert_type(m, "t", "FLOAT[4,3,2]");
    assert_type(m, "tp", "FLOAT[3,2,4]");
    assert_type(m, "u", "FLOAT[1,2,3,4,1]");
    assert_type(m, "sq", "FLOAT[2,3,4,1]");
    assert_type(m, "sq_all", "FLOAT[2,3,4]");
    assert_type(m, "fl", "FLOAT[6,20]");
    assert_type(m, "id", "FLOAT[2,3,4]");
    model_free(m);

    /* Opset 11: Squeeze/Unsqueeze take axes as attributes. */
    b = builder_new("views11", 11);
    INPUT(b, "x", 3, 4);
    OUTA(b, "u", "Unsqueeze", attr_new_ints("axes", DIMS(1), 1), "x");
    OUTA(b, "s", "Squeeze", attr_new_ints("axes", DIMS(1), 1), "u");
    m = finish(b, NULL);
    assert_type(m, "u", "FLOAT[3,1,4]");
    assert_type(m, "s", "FLOAT[3,4]");
    model_free(m);
}

static void test_runtime_ops(void)
{
    Builder *b = builder_new("runtime", 13);
    INPUT(b, "data", 3, 4, 5);
    builder_input(b, "idx", DT_INT64, 2, DIMS(2, 6));
    OUTA(b, "g", "Gather", attr_new_int("axis", 1), "data", "idx");
    INPUT(b, "m", 10, 20);
    OUT(b, "sl", "Slice", "m", INTS(b, 2, -5), INTS(b, 8, G_MAXINT64), INTS(b, 0, 1), INTS(b, 2, 1));
    OUT(b, "rev", "Slice", "m", INTS(b, -1), INTS(b, G_MININT64), INTS(b, 1), INTS(b, -1));
    OUT(b, "empty", "Slice", "m", INTS(b, 5), INTS(b, 2), INTS(b, 0));
    INPUT(b, "c1", 2, 3);
    INPUT(b, "c2", 2, 5);
    OUTA(b, "cat", "Concat", attr_new_int("axis", -1), "c1", "c2");
    INPUT(b, "s", 6, 9);
    builder_node(b, "Split", (const char *const[]){"s", INTS(b, 2, 3, 4), NULL}, 3, (const char *[]){"s0", "s1", "s2"},
           attr_new_int("axis", 1), NULL);
    builder_node(b, "Split", (const char *const[]){"s", NULL}, 3, (const char *[]){"e0", "e1", "e2"}, NULL);
    Model *m = finish(b, NULL);
    assert_type(m, "g", "FLOAT[3,2,6,5]");
    assert_type(m, "sl", "FLOAT[3,5]");
    assert_type(m, "rev", "FLOAT[10,20]");
    assert_type(m, "empty", "FLOAT[0,20]");
    assert_type(m, "cat", "FLOAT[2,8]");
    assert_type(m, "s0", "FLOAT[6,2]");
    assert_type(m, "s2", "FLOAT[6,4]");
    assert_type(m, "e1", "FLOAT[2,9]");
    model_free(m);

    b = builder_new("split-bad", 13);
    INPUT(b, "s", 6, 9);
    builder_node(b, "Split", (const char *const[]){"s", INTS(b, 2, 3), NULL}, 2, (const char *[]){"a", "c"},
           attr_new_int("axis", 1), NULL);
    char *msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'Split_n1' (Split): split sizes sum to 5 but axis 1 of 's' has 9");
    g_free(msg);

    b = builder_new("concat-bad", 13);
    INPUT(b, "c1", 2, 3);
    INPUT(b, "c2", 4, 5);
    OUTA(b, "cat", "Concat", attr_new_int("axis", 1), "c1", "c2");
    msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'Concat_n0' (Concat): input 'c2' has size 4 on axis 0, input 'c1' has 2 "
                             "(only axis 1 may differ)");
    g_free(msg);
}

static void test_generators(void)
{
    Builder *b = builder_new("gen", 14);
    INPUT(b, "x", 2, 3, 4);
    OUT(b, "shape", "Shape", "x");
    OUT(b, "zeros", "ConstantOfShape", "shape");
    gint64 zero = 0, ten = 10, three = 3;
    OUT(b, "range", "Range", builder_ints(b, NULL, 0, NULL, &zero), builder_ints(b, NULL, 0, NULL, &ten),
        builder_ints(b, NULL, 0, NULL, &three));
    INPUT(b, "col", 3, 1);
    OUT(b, "expand", "Expand", "col", INTS(b, 2, 1, 6));
    OUT(b, "tile", "Tile", "x", INTS(b, 1, 2, 3));
    OUT(b, "pad", "Pad", "x", INTS(b, 0, 1, 2, 0, 1, 2));
    INPUT(b, "img", 1, 3, 10, 20);
    OUT(b, "resize_sizes", "Resize", "img", "", "", INTS(b, 1, 3, 25, 40));
    gint64 scales_dims[1] = {4};
    builder_node(b, "Constant", (const char *const[]){NULL}, 1, (const char *[]){"scales"},
           attr_new_floats("value_floats", (const float[]){1, 1, 2, 2.5f}, 4), NULL);
    (void)scales_dims;
    OUT(b, "resize_scales", "Resize", "img", "", "scales");
    OUTA(b, "cast", "Cast", attr_new_int("to", DT_FLOAT16), "x");
    OUT(b, "trilu", "Trilu", "x");
    OUT(b, "erf", "Erf", "x");
    OUT(b, "gelu", "Gelu", "x");
    OUT(b, "hsig", "HardSigmoid", "x");
    OUT(b, "hswish", "HardSwish", "x");
    OUT(b, "leaky", "LeakyRelu", "x");
    OUT(b, "clip", "Clip", "x", "", "");
    builder_node(b, "Dropout", (const char *const[]){"x", NULL}, 2, (const char *[]){"drop", "mask"}, NULL);
    Model *m = finish(b, NULL);
    assert_type(m, "shape", "INT64[3]");
    assert_type(m, "zeros", "FLOAT[2,3,4]");
    assert_type(m, "range", "INT64[4]");
    assert_type(m, "expand", "FLOAT[2,3,6]");
    assert_type(m, "tile", "FLOAT[2,6,12]");
    assert_type(m, "pad", "FLOAT[2,5,8]");
    assert_type(m, "resize_sizes", "FLOAT[1,3,25,40]");
    assert_type(m, "resize_scales", "FLOAT[1,3,20,50]");
    assert_type(m, "scales", "FLOAT[4]");
    assert_type(m, "cast", "FLOAT16[2,3,4]");
    assert_type(m, "trilu", "FLOAT[2,3,4]");
    assert_type(m, "mask", "BOOL[2,3,4]");
    g_assert_cmpint(graph_tensor(m->graph, "scales")->kind, ==, TENSOR_CONSTANT);
    const Value *r = graph_tensor(m->graph, "range")->value;
    g_assert_cmpint(r->i[3], ==, 9);
    model_free(m);
}

/* The exporters' arithmetic: Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), Unsqueeze(d1 * d2))). */
static void test_shape_arithmetic_folding(void)
{
    Builder *b = builder_new("fold", 13);
    INPUT(b, "x", 2, 3, 4);
    gint64 i0 = 0, i1 = 1, i2 = 2;
    const char *shape = B_OP(b, "Shape", "x");
    const char *d0 = B_OP(b, "Gather", shape, builder_ints(b, NULL, 0, NULL, &i0));
    const char *d1 = B_OP(b, "Gather", shape, builder_ints(b, NULL, 0, NULL, &i1));
    const char *d2 = B_OP(b, "Gather", shape, builder_ints(b, NULL, 0, NULL, &i2));
    const char *prod = B_OP(b, "Mul", d1, d2);
    const char *u0 = B_OP(b, "Unsqueeze", d0, INTS(b, 0));
    const char *u1 = B_OP(b, "Unsqueeze", prod, INTS(b, 0));
    const char *target = OUTA(b, "target", "Concat", attr_new_int("axis", 0), u0, u1);
    OUT(b, "y", "Reshape", "x", target);
    /* Slice on a shape tensor, Cast, Equal/Where: more of what exporters emit. */
    const char *tail = OUT(b, "tail", "Slice", shape, INTS(b, 1), INTS(b, G_MAXINT64));
    const char *as_float = OUTA(b, "as_float", "Cast", attr_new_int("to", DT_FLOAT), tail);
    OUT(b, "is_three", "Equal", tail, INTS(b, 3, 3));
    OUT(b, "picked", "Where", "is_three", tail, INTS(b, -1, -1));
    (void)as_float;
    Model *m = finish(b, NULL);
    assert_type(m, "y", "FLOAT[2,12]");
    const Value *t = graph_tensor(m->graph, "target")->value;
    g_assert_nonnull(t);
    g_assert_cmpuint(t->n, ==, 2);
    g_assert_cmpint(t->i[0], ==, 2);
    g_assert_cmpint(t->i[1], ==, 12);
    const Value *picked = graph_tensor(m->graph, "picked")->value;
    g_assert_cmpint(picked->i[0], ==, 3);
    g_assert_cmpint(picked->i[1], ==, -1);
    g_assert_cmpfloat(graph_tensor(m->graph, "as_float")->value->f[1], ==, 4.0);
    model_free(m);
}

static void test_symbolic_dims(void)
{
    Builder *b = builder_new("sym", 13);
    builder_input_sym(b, "ids", DT_INT64, 2, DIMS(-1, -1), (const char *[]){"batch", "seq"});
    builder_input_sym(b, "mask", DT_INT64, 2, DIMS(-1, -1), (const char *[]){"batch", "seq"});
    OUT(b, "y", "Add", "ids", "mask");
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_false(test_infer(m, NULL, &error));
    g_assert_cmpstr(error->message, ==,
                    "unbound symbolic dimensions: batch (input 'ids' dim 0, input 'mask' dim 0), seq (input 'ids' dim "
                    "1, input 'mask' dim 1); bind each with --dim NAME=VALUE");
    g_clear_error(&error);
    g_assert_true(test_infer(m, (const char *[]){"batch=2", "seq=16", NULL}, &error));
    g_assert_no_error(error);
    assert_type(m, "y", "INT64[2,16]");
    model_free(m);
}

static void test_value_info_checked(void)
{
    Builder *b = builder_new("vi", 13);
    INPUT(b, "x", 2, 3);
    OUT(b, "y", "Relu", "x");
    OUT(b, "z", "Relu", "y");
    graph_add_value_info(b->graph, "y", type_info_new(DT_FLOAT, 2, DIMS(2, 3)), NULL);
    graph_add_value_info(b->graph, "z", type_info_new(DT_FLOAT, 2, DIMS(2, 4)), NULL);
    char *msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'Relu_n1' (Relu): tensor 'z' is inferred as FLOAT [2,3] but the file declares FLOAT "
                             "[2,4] (-1: symbolic)");
    g_free(msg);
}

static void test_unknown_ops(void)
{
    Builder *b = builder_new("unknown", 13);
    INPUT(b, "x", 2, 3);
    OUT(b, "y", "FancyOp", "x");
    OUT(b, "z", "Relu", "y");
    graph_add_value_info(b->graph, "y", type_info_new(DT_FLOAT, 2, DIMS(5, 7)), NULL);
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_false(test_infer(m, NULL, &error));
    g_assert_cmpstr(error->message, ==,
                    "node 'FancyOp_n0' (FancyOp): unknown op 'FancyOp' (--allow-unknown-ops takes its output shapes "
                    "from value_info)");
    g_clear_error(&error);
    ShapeOptions o;
    shape_options_init(&o);
    o.allow_unknown_ops = TRUE;
    g_assert_true(shape_infer(m, &o, &error));
    shape_options_clear(&o);
    assert_type(m, "z", "FLOAT[5,7]");
    model_free(m);
}

/* A branch that reshapes x [2,3] to `to` (two dims), as the If's output. */
static Graph *reshape_branch(const char *name, const gint64 *to)
{
    Graph *g = graph_new(name);
    char *shape = g_strdup_printf("%s_shape", name), *out = g_strdup_printf("%s_out", name);
    TensorData *d = tensor_data_new(shape, DT_INT64, 1, (const gint64[]){2});
    d->raw = g_bytes_new(to, 2 * sizeof(gint64));
    GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
    g_ptr_array_add(attrs, attr_new_tensor("value", d));
    g_assert_nonnull(graph_add_node(g, "Constant", "", shape, NULL, 0, (const char *const[]){shape}, 1, attrs, NULL));
    g_assert_nonnull(graph_add_node(g, "Reshape", "", out, (const char *const[]){"x", shape}, 2,
                                    (const char *const[]){out}, 1, NULL, NULL));
    graph_add_output(g, out, NULL, NULL);
    g_free(shape);
    g_free(out);
    return g;
}

/* An If on an input's value whose else branch cannot run at the graph's dims (a Reshape of x's 6 elements to 8, as
 * Silero VAD v5's 8 kHz branch at the 16 kHz window) is planned as never taken: the then branch alone, the
 * IfSelect told which side is gone and why. Both branches failing is one error, the second's. */
static void test_if_never_taken(void)
{
    Builder *b = builder_new("never", 13);
    INPUT(b, "x", 2, 3);
    const char *cond = builder_input(b, "c", DT_BOOL, 0, NULL);
    builder_node(b, "If", (const char *const[]){cond, NULL}, 1, (const char *[]){"y"},
                 attr_new_graph("then_branch", reshape_branch("then", (const gint64[]){3, 2})),
                 attr_new_graph("else_branch", reshape_branch("else", (const gint64[]){4, 2})), NULL);
    builder_output(b, "y");
    Model *m = finish(b, NULL);
    assert_type(m, "y", "FLOAT[3,2]");
    const Node *select = graph_tensor(m->graph, "y")->producer;
    g_assert_cmpstr(select->op_type, ==, "IfSelect");
    g_assert_nonnull(node_input(select, 1));
    g_assert_null(node_input(select, 2));
    gint64 never;
    const char *why;
    g_assert_true(node_attr_int(select, "never", 0, &never, NULL));
    g_assert_cmpint(never, ==, 2);
    g_assert_true(node_attr_string(select, "never_why", "", &why, NULL));
    g_assert_nonnull(strstr(why, "cannot reshape 'x' [2,3] (6 elements) to [4,2] (8 elements)"));
    guint reshapes = 0;
    for (guint k = 0; k < m->graph->nodes->len; k++)
        reshapes += !strcmp(((const Node *)m->graph->nodes->pdata[k])->op_type, "Reshape");
    g_assert_cmpuint(reshapes, ==, 1);
    model_free(m);

    b = builder_new("never-both", 13);
    INPUT(b, "x", 2, 3);
    cond = builder_input(b, "c", DT_BOOL, 0, NULL);
    builder_node(b, "If", (const char *const[]){cond, NULL}, 1, (const char *[]){"y"},
                 attr_new_graph("then_branch", reshape_branch("then", (const gint64[]){5, 2})),
                 attr_new_graph("else_branch", reshape_branch("else", (const gint64[]){4, 2})), NULL);
    builder_output(b, "y");
    char *msg = test_finish_error(b, NULL);
    g_assert_nonnull(strstr(msg, "cannot reshape 'x' [2,3] (6 elements) to [4,2] (8 elements)"));
    g_free(msg);
}

/* An If whose condition is a value of the inputs (known only when running) is both branches, each node guarded by
 * the condition, and sim's IfSelect takes the If's outputs from the branch taken: exact where both branches give
 * one shape. A Loop takes its outputs from value_info; a control op whose output shape the file does not give is
 * an error naming the output. (With a known condition the If is replaced by its branch: test-exec's
 * /exec/if-folded.) */
static void test_control_flow(void)
{
    Builder *b = builder_new("control", 13);
    INPUT(b, "x", 2, 3);
    gint64 one = 1;
    const char *cond = builder_input(b, "c", DT_BOOL, 0, NULL);
    Graph *then_g = graph_new("then"), *else_g = graph_new("else");
    g_assert_nonnull(graph_add_node(then_g, "Relu", "", "r", (const char *const[]){"x"}, 1,
                                    (const char *const[]){"t_out"}, 1, NULL, NULL));
    graph_add_output(then_g, "t_out", type_info_new(DT_FLOAT, 2, DIMS(2, 3)), NULL);
    g_assert_nonnull(graph_add_node(else_g, "Neg", "", "n", (const char *const[]){"x"}, 1,
                                    (const char *const[]){"e_out"}, 1, NULL, NULL));
    graph_add_output(else_g, "e_out", type_info_new(DT_FLOAT, 2, DIMS(2, 3)), NULL);
    builder_node(b, "If", (const char *const[]){cond, NULL}, 1, (const char *[]){"branch"},
           attr_new_graph("then_branch", then_g), attr_new_graph("else_branch", else_g), NULL);
    const char *trips = builder_input(b, "trips", DT_INT64, 0, NULL); /* a trip count known only when running */
    Graph *body = graph_new("body");
    builder_node(b, "Loop", (const char *const[]){trips, "", "x", NULL}, 1, (const char *[]){"looped"},
           attr_new_graph("body", body), NULL);
    graph_add_value_info(b->graph, "looped", type_info_new(DT_FLOAT, 2, DIMS(2, 3)), NULL);
    Model *m = finish(b, NULL);
    assert_type(m, "branch", "FLOAT[2,3]");
    assert_type(m, "looped", "FLOAT[2,3]");
    const Tensor *branch = graph_tensor(m->graph, "branch");
    g_assert_cmpstr(branch->producer->op_type, ==, "IfSelect");
    g_assert_false(branch->dynamic); /* both branches give [2,3]: an exact plan */
    guint guarded = 0;
    for (guint k = 0; k < m->graph->nodes->len; k++) {
        const Node *n = m->graph->nodes->pdata[k];
        if (!strcmp(n->op_type, "Relu") || !strcmp(n->op_type, "Neg")) {
            g_assert_true(n->guard == graph_tensor(m->graph, "c"));
            g_assert_true(n->guard_when == !strcmp(n->op_type, "Relu"));
            guarded++;
        }
    }
    g_assert_cmpuint(guarded, ==, 2);
    model_free(m);

    b = builder_new("loop-unknown", 13);
    INPUT(b, "x", 2, 3);
    trips = builder_input(b, "trips", DT_INT64, 0, NULL);
    builder_node(b, "Loop", (const char *const[]){trips, "", "x", NULL}, 1, (const char *[]){"looped"},
           attr_new_graph("body", graph_new("body")), NULL);
    char *msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'Loop_n0' (Loop): output 'looped' needs a static shape in value_info (subgraph "
                             "ops are planned as one compute op and their shapes are not inferred)");
    g_free(msg);

    /* A known condition picks a branch that must give every output of the If; a known trip count unrolls
     * a body that must fit the Loop. */
    b = builder_new("loop-bad-body", 13);
    INPUT(b, "x", 2, 3);
    builder_node(b, "Loop", (const char *const[]){builder_ints(b, "three", 0, NULL, (const gint64[]){3}), "", "x", NULL}, 1,
           (const char *[]){"looped"}, attr_new_graph("body", graph_new("body")), NULL);
    msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'Loop_n0' (Loop): the body has 0 inputs and 0 outputs for the Loop's 3 inputs and "
                             "1 outputs");
    g_free(msg);
    /* A trip count too large to unroll leaves the Loop one node, planned from its declared shapes. */
    b = builder_new("loop-huge", 13);
    INPUT(b, "x", 2, 3);
    body = graph_new("body");
    graph_add_input(body, "i", type_info_new(DT_INT64, 0, NULL), NULL);
    graph_add_input(body, "c", type_info_new(DT_BOOL, 0, NULL), NULL);
    graph_add_input(body, "v", type_info_new(DT_FLOAT, 2, DIMS(2, 3)), NULL);
    graph_add_output(body, "c", NULL, NULL);
    graph_add_output(body, "v", NULL, NULL);
    builder_node(b, "Loop", (const char *const[]){builder_ints(b, "many", 0, NULL, (const gint64[]){G_GINT64_CONSTANT(1) << 60}), "", "x",
                                            NULL},
           1, (const char *[]){"looped"}, attr_new_graph("body", body), NULL);
    graph_add_value_info(b->graph, "looped", type_info_new(DT_FLOAT, 2, DIMS(2, 3)), NULL);
    m = finish(b, NULL);
    g_assert_cmpstr(graph_tensor(m->graph, "looped")->producer->op_type, ==, "Loop");
    assert_type(m, "looped", "FLOAT[2,3]");
    model_free(m);
    b = builder_new("if-short-branch", 13);
    INPUT(b, "x", 2, 3);
    cond = builder_ints(b, "cond", 0, NULL, &one);
    builder_node(b, "If", (const char *const[]){cond, NULL}, 1, (const char *[]){"branch"},
           attr_new_graph("then_branch", graph_new("then")), attr_new_graph("else_branch", graph_new("else")), NULL);
    msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'If_n0' (If): then_branch has 0 outputs for the If's 1");
    g_free(msg);
}

/* Every row of the op table (and of ONNX Runtime's contrib ops) has an inference function and a sane arity. */
static void test_op_table_rows(void)
{
    gsize count;
    const OpInfo *ops = op_table(&count);
    g_assert_cmpuint(count, >, 100);
    for (gsize k = 0; k < count; k++) {
        g_assert_nonnull(ops[k].infer);
        g_assert_true(ops[k].max_inputs < 0 || ops[k].max_inputs >= ops[k].min_inputs);
        g_assert_true(op_lookup("", ops[k].name) == &ops[k]);
        g_assert_true(op_lookup("ai.onnx", ops[k].name) == &ops[k]);
    }
    g_assert_null(op_lookup("com.microsoft", "Add"));
    ops = op_table_microsoft(&count); /* ONNX Runtime's contrib ops: found in their domain only */
    g_assert_cmpuint(count, >=, 6);
    for (gsize k = 0; k < count; k++) {
        g_assert_nonnull(ops[k].infer);
        g_assert_true(op_lookup(OP_DOMAIN_MICROSOFT, ops[k].name) == &ops[k]);
        g_assert_null(op_lookup("", ops[k].name));
    }
    g_assert_cmpint(op_lookup("", "Transpose")->op_class, ==, OP_NOOP);
    g_assert_cmpint(op_lookup("", "Split")->op_class, ==, OP_RUNTIME);
    g_assert_cmpint(op_lookup("", "MatMul")->op_class, ==, OP_COMPUTE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/shape/broadcasting", test_broadcasting);
    g_test_add_func("/shape/matmul-gemm", test_matmul_gemm);
    g_test_add_func("/shape/conv-pool", test_conv_and_pools);
    g_test_add_func("/shape/norm-softmax-reduce", test_norm_softmax_reduce);
    g_test_add_func("/shape/noop-views", test_noop_views);
    g_test_add_func("/shape/runtime-ops", test_runtime_ops);
    g_test_add_func("/shape/generators", test_generators);
    g_test_add_func("/shape/folding", test_shape_arithmetic_folding);
    g_test_add_func("/shape/symbolic-dims", test_symbolic_dims);
    g_test_add_func("/shape/value-info", test_value_info_checked);
    g_test_add_func("/shape/unknown-ops", test_unknown_ops);
    g_test_add_func("/shape/control-flow", test_control_flow);
    g_test_add_func("/shape/if-never-taken", test_if_never_taken);
    g_test_add_func("/shape/op-table", test_op_table_rows);
    return g_test_run();
}
