/* test-onnx.c — ONNX reading and writing: a model with every attribute type, symbolic dims,
 * external-data and shape-only initializers and subgraphs (one with a sequence input) round-trips exactly; typed
 * TensorProto fields decode to the right values; the committed gpt2.onnx reads back to its own bytes. */
#include "tests/testutil.h"
#include "onnx.pb-c.h"

#include <string.h>

static GBytes *pack(const ProtobufCMessage *m)
{
    gsize len = protobuf_c_message_get_packed_size(m);
    guint8 *buf = g_malloc(len + 1);
    protobuf_c_message_pack(m, buf);
    return g_bytes_new_take(buf, len);
}

static Graph *then_branch(void)
{
    /* Reads the outer tensor 'x': a capture, which makes it an implicit input of the If node. */
    Graph *g = graph_new("then");
    const char *in[] = {"x"}, *out[] = {"then_out"};
    g_assert_nonnull(graph_add_node(g, "Identity", "", "then_id", in, 1, out, 1, NULL, NULL));
    gint64 d[2] = {2, 3};
    g_assert_true(graph_add_output(g, "then_out", type_info_new(DT_FLOAT, 2, d), NULL));
    return g;
}

static Model *every_attribute_model(void)
{
    Builder *b = builder_new("round-trip", 17);
    gint64 d[2] = {2, 3};
    const char *params[2] = {"batch", NULL};
    builder_input_sym(b, "x", DT_FLOAT, 2, d, params);
    builder_weight(b, "w", DT_FLOAT, 2, d, TRUE);
    builder_weight(b, "shape_only", DT_FLOAT, 2, d, FALSE);
    TensorData *ext = tensor_data_new("external", DT_FLOAT, 2, d);
    ext->external = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(ext->external, g_strdup("location"));
    g_ptr_array_add(ext->external, g_strdup("weights.bin"));
    g_ptr_array_add(ext->external, g_strdup("offset"));
    g_ptr_array_add(ext->external, g_strdup("4096"));
    g_assert_true(graph_add_initializer(b->graph, ext, NULL));

    Onnx__TypeProto tp = ONNX__TYPE_PROTO__INIT;
    Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
    tt.has_elem_type = TRUE;
    tt.elem_type = DT_INT8;
    tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp.tensor_type = &tt;
    Onnx__SparseTensorProto sp = ONNX__SPARSE_TENSOR_PROTO__INIT;
    int64_t sp_dims[1] = {7};
    sp.n_dims = 1;
    sp.dims = sp_dims;

    float floats[3] = {0.5f, -1.25f, 3.0f};
    gint64 ints[4] = {1, -2, 3, G_MAXINT64};
    Attr *strings = attr_new("names", ATTR_STRINGS);
    strings->strings = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
    g_ptr_array_add(strings->strings, graph_bytes_new_terminated("alpha", 5));
    g_ptr_array_add(strings->strings, graph_bytes_new_terminated("", 0));
    Attr *tensors = attr_new("tensors", ATTR_TENSORS);
    tensors->tensors = g_ptr_array_new_with_free_func((GDestroyNotify)tensor_data_free);
    Value *v = value_new(DT_INT32, 2);
    v->i[0] = -7;
    v->i[1] = 9;
    gint64 two = 2;
    g_ptr_array_add(tensors->tensors, tensor_data_from_value("t0", v, 1, &two));
    Attr *graphs = attr_new("bodies", ATTR_GRAPHS);
    graphs->graphs = g_ptr_array_new_with_free_func((GDestroyNotify)graph_free);
    Graph *body = graph_new("empty_body");
    TypeInfo *items = type_info_new(DT_INT8, 1, (const gint64[]){5}); /* a sequence, as a Loop body carries one */
    items->sequence = TRUE;
    g_assert_true(graph_add_input(body, "items", items, NULL));
    g_ptr_array_add(graphs->graphs, body);
    Attr *sparse = attr_new("sparse", ATTR_SPARSE_TENSOR);
    sparse->opaque = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
    g_ptr_array_add(sparse->opaque, pack(&sp.base));
    Attr *type = attr_new("type", ATTR_TYPE_PROTO);
    type->opaque = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
    g_ptr_array_add(type->opaque, pack(&tp.base));
    Attr *types = attr_new("types", ATTR_TYPE_PROTOS);
    types->opaque = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
    g_ptr_array_add(types->opaque, pack(&tp.base));
    g_ptr_array_add(types->opaque, pack(&tp.base));
    Attr *sparses = attr_new("sparses", ATTR_SPARSE_TENSORS);
    sparses->opaque = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
    g_ptr_array_add(sparses->opaque, pack(&sp.base));

    const char *custom = builder_node(b, "Custom", (const char *const[]){"x", "w", "", NULL}, 1, NULL,
                                attr_new_float("f", 0.1f), attr_new_int("i", -42), attr_new_string("s", "hello"),
                                attr_new_tensor("t", tensor_data_from_value("t", v, 1, &two)),
                                attr_new_floats("fs", floats, 3), attr_new_ints("is", ints, 4), strings, tensors,
                                graphs, sparse, type, types, sparses, NULL);
    value_free(v);
    const char *cond = builder_ints(b, "cond", 0, NULL, (gint64[]){1});
    const char *branch = builder_node(b, "If", (const char *const[]){cond, NULL}, 1, NULL,
                                attr_new_graph("then_branch", then_branch()), attr_new_graph("else_branch", then_branch()),
                                NULL);
    builder_output(b, custom);
    builder_output(b, branch);
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    model_set_opset(m, "com.example", 1);
    g_ptr_array_add(m->metadata, g_strdup("author"));
    g_ptr_array_add(m->metadata, g_strdup("tests"));
    return m;
}

static void test_round_trip_every_attribute(void)
{
    Model *m = every_attribute_model();
    GBytes *first = onnx_write_bytes(m);
    GError *error = NULL;
    gsize len;
    const guint8 *data = g_bytes_get_data(first, &len);
    Model *back = onnx_read_bytes(data, len, NULL, &error);
    g_assert_no_error(error);
    GBytes *second = onnx_write_bytes(back);
    g_assert_true(g_bytes_equal(first, second));

    /* And the model itself came back, not just some bytes. */
    g_assert_cmpuint(back->graph->nodes->len, ==, 2);
    const Node *custom = back->graph->nodes->pdata[0];
    g_assert_cmpuint(custom->attrs->len, ==, 13);
    gint64 i;
    float f;
    const char *s;
    const GArray *ints;
    g_assert_true(node_attr_int(custom, "i", 0, &i, NULL));
    g_assert_cmpint(i, ==, -42);
    g_assert_true(node_attr_float(custom, "f", 0, &f, NULL));
    g_assert_cmpfloat(f, ==, 0.1f);
    g_assert_true(node_attr_string(custom, "s", NULL, &s, NULL));
    g_assert_cmpstr(s, ==, "hello");
    g_assert_true(node_attr_ints(custom, "is", &ints, NULL));
    g_assert_cmpint(g_array_index(ints, gint64, 3), ==, G_MAXINT64);
    g_assert_null(node_input(custom, 2)); /* the omitted optional input stays omitted */
    const Tensor *x = graph_tensor(back->graph, "x");
    g_assert_cmpstr(x->declared->params[0], ==, "batch");
    g_assert_cmpint(x->declared->dims[1], ==, 3);
    const Tensor *ext = graph_tensor(back->graph, "external");
    g_assert_cmpstr(ext->init->external->pdata[1], ==, "weights.bin");
    g_assert_null(ext->init->raw);
    g_assert_null(graph_tensor(back->graph, "shape_only")->init->raw);
    /* The If body captures 'x': an implicit input, so x is consumed by both nodes. */
    const Node *branch = back->graph->nodes->pdata[1];
    g_assert_cmpuint(branch->implicit_inputs->len, ==, 1);
    g_assert_cmpuint(x->consumers->len, ==, 2);
    g_assert_cmpint(model_onnx_opset(back), ==, 17);
    const Graph *body = node_attr(custom, "bodies")->graphs->pdata[0];
    const TypeInfo *items = ((const Tensor *)body->inputs->pdata[0])->declared;
    g_assert_true(items->sequence);
    g_assert_cmpint(items->dtype, ==, DT_INT8);
    g_assert_cmpint(items->dims[0], ==, 5);

    g_bytes_unref(first);
    g_bytes_unref(second);
    model_free(back);
    model_free(m);
}

static void test_file_round_trip(void)
{
    Model *m = every_attribute_model();
    char *path = test_scratch_path("every.onnx");
    GError *error = NULL;
    g_assert_true(onnx_write_file(m, path, &error));
    Model *back = onnx_read_file(path, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(back->graph->tensors->len, ==, m->graph->tensors->len);
    model_free(back);
    model_free(m);
    g_free(path);
}

/* Typed fields (float_data, int64_data, int32_data for BOOL and INT8) decode like raw_data. */
static void test_typed_tensor_fields(void)
{
    Onnx__TensorProto f = ONNX__TENSOR_PROTO__INIT, i64 = ONNX__TENSOR_PROTO__INIT, b = ONNX__TENSOR_PROTO__INIT;
    float fv[2] = {1.5f, -2.0f};
    int64_t iv[3] = {-1, 0, 1LL << 40};
    int32_t bv[2] = {1, 0};
    int64_t d2[1] = {2}, d3[1] = {3};
    f.name = "f"; f.has_data_type = TRUE; f.data_type = DT_FLOAT; f.n_dims = 1; f.dims = d2;
    f.n_float_data = 2; f.float_data = fv;
    i64.name = "i"; i64.has_data_type = TRUE; i64.data_type = DT_INT64; i64.n_dims = 1; i64.dims = d3;
    i64.n_int64_data = 3; i64.int64_data = iv;
    b.name = "b"; b.has_data_type = TRUE; b.data_type = DT_BOOL; b.n_dims = 1; b.dims = d2;
    b.n_int32_data = 2; b.int32_data = bv;
    Onnx__TensorProto *inits[3] = {&f, &i64, &b};
    Onnx__ValueInfoProto out = ONNX__VALUE_INFO_PROTO__INIT;
    out.name = "f"; /* a model must have an output: the initializer itself will do */
    Onnx__ValueInfoProto *outs[1] = {&out};
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.name = "typed";
    g.n_initializer = 3;
    g.initializer = inits;
    g.n_output = 1;
    g.output = outs;
    Onnx__ModelProto mp = ONNX__MODEL_PROTO__INIT;
    mp.graph = &g;
    GBytes *bytes = pack(&mp.base);
    gsize len;
    const guint8 *data = g_bytes_get_data(bytes, &len);
    GError *error = NULL;
    Model *m = onnx_read_bytes(data, len, NULL, &error);
    g_assert_no_error(error);
    Value *vf = tensor_data_value(graph_tensor(m->graph, "f")->init);
    Value *vi = tensor_data_value(graph_tensor(m->graph, "i")->init);
    Value *vb = tensor_data_value(graph_tensor(m->graph, "b")->init);
    g_assert_cmpfloat(vf->f[0], ==, 1.5);
    g_assert_cmpfloat(vf->f[1], ==, -2.0);
    g_assert_cmpint(vi->i[2], ==, 1LL << 40);
    g_assert_cmpint(vi->i[0], ==, -1);
    g_assert_cmpint(vb->i[0], ==, 1);
    g_assert_cmpint(vb->i[1], ==, 0);
    value_free(vf);
    value_free(vi);
    value_free(vb);
    model_free(m);
    g_bytes_unref(bytes);
}

/* A value whose TypeProto is present but empty (no type at all: ONNX allows it, and Silero VAD's nested If writes its
 * branch outputs so) is read as untyped and inferred, not refused as a sequence or map. */
static void test_empty_type(void)
{
    Onnx__TypeProto typed = ONNX__TYPE_PROTO__INIT, empty = ONNX__TYPE_PROTO__INIT;
    Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
    Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
    Onnx__TensorShapeProto__Dimension d0 = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT, d1 = d0;
    d0.value_case = d1.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d0.dim_value = 2;
    d1.dim_value = 3;
    Onnx__TensorShapeProto__Dimension *dims[2] = {&d0, &d1};
    shape.n_dim = 2;
    shape.dim = dims;
    tt.has_elem_type = TRUE;
    tt.elem_type = DT_FLOAT;
    tt.shape = &shape;
    typed.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    typed.tensor_type = &tt;
    Onnx__ValueInfoProto in = ONNX__VALUE_INFO_PROTO__INIT, out = ONNX__VALUE_INFO_PROTO__INIT;
    in.name = "x";
    in.type = &typed;
    out.name = "y";
    out.type = &empty; /* value_case NOT_SET */
    Onnx__ValueInfoProto *ins[1] = {&in}, *outs[1] = {&out};
    char *node_in[1] = {"x"}, *node_out[1] = {"y"};
    Onnx__NodeProto relu = ONNX__NODE_PROTO__INIT;
    relu.op_type = "Relu";
    relu.n_input = 1;
    relu.input = node_in;
    relu.n_output = 1;
    relu.output = node_out;
    Onnx__NodeProto *nodes[1] = {&relu};
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.name = "untyped";
    g.n_node = 1;
    g.node = nodes;
    g.n_input = 1;
    g.input = ins;
    g.n_output = 1;
    g.output = outs;
    Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    opset.has_version = TRUE;
    opset.version = 13;
    Onnx__OperatorSetIdProto *opsets[1] = {&opset};
    Onnx__ModelProto mp = ONNX__MODEL_PROTO__INIT;
    mp.graph = &g;
    mp.n_opset_import = 1;
    mp.opset_import = opsets;
    GBytes *bytes = pack(&mp.base);
    gsize len;
    const guint8 *data = g_bytes_get_data(bytes, &len);
    GError *error = NULL;
    Model *m = onnx_read_bytes(data, len, NULL, &error);
    g_assert_no_error(error);
    ShapeOptions so;
    shape_options_init(&so);
    g_assert_true(shape_infer(m, &so, &error));
    g_assert_no_error(error);
    const Tensor *y = graph_tensor(m->graph, "y");
    g_assert_cmpint(y->dtype, ==, DT_FLOAT);
    g_assert_cmpint(y->rank, ==, 2);
    g_assert_cmpint(y->dims[1], ==, 3);
    shape_options_clear(&so);
    model_free(m);
    g_bytes_unref(bytes);
}

static void test_gpt2_file_reads_back_to_its_bytes(void)
{
    char *path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL);
    gchar *original;
    gsize len;
    g_assert_true(g_file_get_contents(path, &original, &len, NULL));
    GError *error = NULL;
    Model *m = onnx_read_file(path, &error);
    g_assert_no_error(error);
    GBytes *again = onnx_write_bytes(m);
    GBytes *orig = g_bytes_new_take(original, len);
    g_assert_true(g_bytes_equal(orig, again));
    g_bytes_unref(orig);
    g_bytes_unref(again);
    model_free(m);
    g_free(path);
}

/* The 16-bit floats: every half code reads back to itself (NaNs stay NaN), and rounding to half or bfloat16
 * is to nearest with ties to even, subnormals and overflow included (values from IEEE 754 binary16). */
static void test_sixteen_bit_floats(void)
{
    for (guint32 h = 0; h < 65536; h++) {
        double x = dtype_half_to_double((guint16)h);
        if (x != x)
            g_assert_true(dtype_double_to_half(x) != dtype_double_to_half(0.0) && ((dtype_double_to_half(x) >> 10) & 0x1f) == 31);
        else
            g_assert_cmphex(dtype_double_to_half(x), ==, h);
    }
    static const struct {
        double x;
        guint16 half;
    } cases[] = {
        {1.0, 0x3c00}, {-2.0, 0xc000}, {65504.0, 0x7bff}, {65519.99, 0x7bff}, {65520.0, 0x7c00}, {1e9, 0x7c00},
        {0x1p-24, 0x0001}, {0x1p-25, 0x0000}, {0x3p-25, 0x0002}, {0x1p-14, 0x0400}, {0x3ffp-24 + 0x1p-25, 0x0400},
        {1.0 + 0x1p-11, 0x3c00}, {1.0 + 0x3p-11, 0x3c02}, {-0.0, 0x8000},
    };
    for (gsize k = 0; k < G_N_ELEMENTS(cases); k++)
        g_assert_cmphex(dtype_double_to_half(cases[k].x), ==, cases[k].half);
    g_assert_cmphex(dtype_double_to_bfloat16(1.0), ==, 0x3f80);
    g_assert_cmphex(dtype_double_to_bfloat16(1.0 + 0x1p-8), ==, 0x3f80); /* tie: to even */
    g_assert_cmphex(dtype_double_to_bfloat16(1.0 + 0x3p-8), ==, 0x3f82);
    g_assert_cmphex(dtype_double_to_bfloat16(1.0 + 0x1p-9), ==, 0x3f80); /* below the tie */
    g_assert_cmpfloat(dtype_bfloat16_to_double(0x3f82), ==, 1.015625);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/onnx/round-trip/every-attribute", test_round_trip_every_attribute);
    g_test_add_func("/onnx/round-trip/file", test_file_round_trip);
    g_test_add_func("/onnx/read/typed-fields", test_typed_tensor_fields);
    g_test_add_func("/onnx/read/empty-type", test_empty_type);
    g_test_add_func("/onnx/dtype/sixteen-bit-floats", test_sixteen_bit_floats);
    g_test_add_func("/onnx/round-trip/gpt2", test_gpt2_file_reads_back_to_its_bytes);
    return g_test_run();
}
