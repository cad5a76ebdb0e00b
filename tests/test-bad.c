/* test-bad.c — bad input is normal input: each broken graph gives one exact error naming the node or
 * tensor, and truncated or hostile bytes never crash the reader (ASan run included). The file-level
 * cases through the `sim` binary (missing, empty, truncated, not protobuf) are in test-cli.c. */
#include "tests/testutil.h"
#include "onnx.pb-c.h"

#include <string.h>

#define DIMS(...) ((const gint64[]){__VA_ARGS__})
#define NDIMS(...) (sizeof((const gint64[]){__VA_ARGS__}) / sizeof(gint64))
#define INPUT(b, name, ...) builder_input((b), (name), DT_FLOAT, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))

static void expect_error(Builder *b, const char *expected)
{
    char *msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, expected);
    g_free(msg);
}

static void test_undefined_tensor(void)
{
    Builder *b = builder_new("undefined", 13);
    INPUT(b, "x", 2);
    B_OP(b, "Add", "x", "ghost");
    expect_error(b, "node 'Add_n1' (Add): input 'ghost' is not produced by any node and is not a graph input or "
                    "initializer");
}

static void test_cycle(void)
{
    Builder *b = builder_new("cycle", 13);
    INPUT(b, "x", 2);
    builder_node(b, "Add", (const char *const[]){"x", "b", NULL}, 1, (const char *[]){"a"}, NULL);
    builder_node(b, "Relu", (const char *const[]){"a", NULL}, 1, (const char *[]){"b"}, NULL);
    expect_error(b, "graph has a cycle: node 'Add_n0' (Add) reads 'b', which depends on the node's own output");
}

static void test_produced_twice(void)
{
    Builder *b = builder_new("twice", 13);
    INPUT(b, "x", 2);
    builder_node(b, "Relu", (const char *const[]){"x", NULL}, 1, (const char *[]){"y"}, NULL);
    builder_node(b, "Neg", (const char *const[]){"x", NULL}, 1, (const char *[]){"y"}, NULL);
    expect_error(b, "tensor 'y' is produced twice: by node 'Relu_n0' (Relu) and by node 'Neg_n1' (Neg)");
}

static void test_unknown_op(void)
{
    Builder *b = builder_new("unknown", 13);
    INPUT(b, "x", 2);
    builder_node(b, "Frobnicate", (const char *const[]){"x", NULL}, 1, (const char *[]){"y"}, NULL);
    expect_error(b, "node 'Frobnicate_n0' (Frobnicate): unknown op 'Frobnicate' (--allow-unknown-ops takes its "
                    "output shapes from value_info)");
}

static void test_zero_and_negative_dims(void)
{
    Builder *b = builder_new("zero", 13);
    INPUT(b, "x", 4, 0);
    B_OP(b, "Relu", "x");
    expect_error(b, "graph input 'x' dimension 1 is 0 (empty inputs are not planned)");

    /* A negative initializer dimension is refused by the reader. */
    b = builder_new("negative", 13);
    INPUT(b, "x", 2);
    builder_weight(b, "w", DT_FLOAT, 2, DIMS(-3, 2), FALSE);
    B_OP(b, "Add", "x", "w");
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    GBytes *bytes = onnx_write_bytes(m);
    gsize len;
    const guint8 *data = g_bytes_get_data(bytes, &len);
    g_assert_null(onnx_read_bytes(data, len, NULL, &error));
    g_assert_cmpstr(error->message, ==, "initializer 'w': dimension 0 is -3 (negative)");
    g_clear_error(&error);
    g_bytes_unref(bytes);
    model_free(m);

    /* So is a negative dim_value in a graph input's type. */
    Onnx__TensorShapeProto__Dimension d0 = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
    d0.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d0.dim_value = -7;
    Onnx__TensorShapeProto__Dimension *dims[1] = {&d0};
    Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
    shape.n_dim = 1;
    shape.dim = dims;
    Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
    tt.has_elem_type = TRUE;
    tt.elem_type = DT_FLOAT;
    tt.shape = &shape;
    Onnx__TypeProto tp = ONNX__TYPE_PROTO__INIT;
    tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp.tensor_type = &tt;
    Onnx__ValueInfoProto vi = ONNX__VALUE_INFO_PROTO__INIT;
    vi.name = "x";
    vi.type = &tp;
    Onnx__ValueInfoProto *inputs[1] = {&vi};
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.n_input = 1;
    g.input = inputs;
    Onnx__ModelProto mp = ONNX__MODEL_PROTO__INIT;
    mp.graph = &g;
    len = onnx__model_proto__get_packed_size(&mp);
    guint8 *buf = g_malloc(len);
    onnx__model_proto__pack(&mp, buf);
    g_assert_null(onnx_read_bytes(buf, len, NULL, &error));
    g_assert_cmpstr(error->message, ==, "graph input 'x': dimension 0 is -7 (negative)");
    g_clear_error(&error);
    g_free(buf);
}

static void test_byte_size_overflow(void)
{
    Builder *b = builder_new("overflow", 13);
    INPUT(b, "x", 4294967296, 4294967296, 16);
    B_OP(b, "Relu", "x");
    expect_error(b, "tensor 'x' [4294967296,4294967296,16] of FLOAT: byte size overflows 64 bits");

    b = builder_new("overflow-intermediate", 13);
    INPUT(b, "x", 1, 1);
    B_OP(b, "Expand", "x", builder_int_vec(b, NULL, 2, DIMS(G_MAXINT64 / 2, 4)));
    expect_error(b, "node 'Expand_n2' (Expand): tensor 'Expand_1' [4611686018427387903,4] of FLOAT: byte size "
                    "overflows 64 bits");
}

static void test_attribute_of_wrong_type(void)
{
    Builder *b = builder_new("attr", 13);
    INPUT(b, "x", 2, 3);
    B_OPA(b, "Concat", attr_new_string("axis", "1"), "x", "x");
    expect_error(b, "node 'Concat_n1' (Concat): attribute 'axis' must be INT, not STRING (ONNX's Concat, opset 13)");
}

static void test_reshape_mismatch(void)
{
    Builder *b = builder_new("reshape", 13);
    INPUT(b, "x", 2, 3, 4);
    B_OP(b, "Reshape", "x", builder_int_vec(b, NULL, 2, DIMS(5, 5)));
    expect_error(b, "node 'Reshape_n2' (Reshape): cannot reshape 'x' [2,3,4] (24 elements) to [5,5] (25 elements): "
                    "element counts differ");

    b = builder_new("reshape-infer", 13);
    INPUT(b, "x", 2, 3, 4);
    B_OP(b, "Reshape", "x", builder_int_vec(b, NULL, 2, DIMS(5, -1)));
    expect_error(b, "node 'Reshape_n2' (Reshape): cannot reshape 'x' [2,3,4] (24 elements) to [5,1] with -1 at 1: "
                    "element counts differ");
}

/* Huge Range / ConstantOfShape outputs get a shape and a byte count, never materialised values. */
static void test_huge_generated_tensors_are_not_materialised(void)
{
    Builder *b = builder_new("huge", 13);
    gint64 zero = 0, big = (gint64)1 << 40, one = 1;
    builder_node(b, "Range",
           (const char *const[]){builder_ints(b, NULL, 0, NULL, &zero), builder_ints(b, NULL, 0, NULL, &big),
                                 builder_ints(b, NULL, 0, NULL, &one), NULL},
           1, (const char *[]){"r"}, NULL);
    builder_node(b, "ConstantOfShape", (const char *const[]){builder_int_vec(b, NULL, 2, DIMS(1 << 20, 1 << 20)), NULL}, 1,
           (const char *[]){"c"}, NULL);
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    assert_type(m, "r", "INT64[1099511627776]");
    assert_type(m, "c", "FLOAT[1048576,1048576]");
    g_assert_null(graph_tensor(m->graph, "r")->value);
    g_assert_null(graph_tensor(m->graph, "c")->value);
    g_assert_cmpuint(graph_tensor(m->graph, "c")->bytes, ==, (guint64)4 << 40);
    model_free(m);
}

/* Every prefix of a valid model either reads (and infers or fails cleanly) or is refused cleanly. */
static void test_every_truncation(void)
{
    Builder *b = builder_new("small", 13);
    INPUT(b, "x", 2, 3, 4);
    const char *y = B_OPA(b, "Softmax", attr_new_int("axis", -1), B_OP(b, "Relu", "x"));
    builder_output(b, B_OP(b, "Reshape", y, builder_int_vec(b, NULL, 2, DIMS(0, -1))));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    GBytes *bytes = onnx_write_bytes(m);
    model_free(m);
    gsize len;
    const guint8 *data = g_bytes_get_data(bytes, &len);
    guint refused = 0;
    for (gsize cut = 0; cut < len; cut++) {
        guint8 *copy = g_memdup2(data, cut);
        Model *part = onnx_read_bytes(copy, cut, NULL, &error);
        if (part) {
            if (!test_infer(part, NULL, &error))
                g_clear_error(&error);
            model_free(part);
        } else {
            g_assert_nonnull(error);
            g_clear_error(&error);
            refused++;
        }
        g_free(copy);
    }
    g_assert_cmpuint(refused, >, len / 2);
    g_bytes_unref(bytes);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/bad/undefined-tensor", test_undefined_tensor);
    g_test_add_func("/bad/cycle", test_cycle);
    g_test_add_func("/bad/produced-twice", test_produced_twice);
    g_test_add_func("/bad/unknown-op", test_unknown_op);
    g_test_add_func("/bad/zero-and-negative-dims", test_zero_and_negative_dims);
    g_test_add_func("/bad/byte-size-overflow", test_byte_size_overflow);
    g_test_add_func("/bad/attribute-type", test_attribute_of_wrong_type);
    g_test_add_func("/bad/reshape-mismatch", test_reshape_mismatch);
    g_test_add_func("/bad/huge-generated", test_huge_generated_tensors_are_not_materialised);
    g_test_add_func("/bad/every-truncation", test_every_truncation);
    return g_test_run();
}
