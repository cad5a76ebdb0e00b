/* onnx-read.c — ModelProto (protobuf-c) to the graph model. Every rule a file can break gives a
 * GError naming the tensor, node or field; nothing here trusts the file. */
#include "model/onnx.h"
#include "model/proto-arena.h"
#include "model/proto-depth.h"
#include "onnx.pb-c.h"

#include <stdlib.h>
#include <string.h>

G_STATIC_ASSERT(G_BYTE_ORDER == G_LITTLE_ENDIAN);

#define S(x) ((x) ? (x) : "")

static gboolean read_graph(Graph *g, const Onnx__GraphProto *gp, int depth, GError **error);

static gboolean element_count(const char *what, const char *name, int rank, const gint64 *dims,
                              guint64 *out, GError **error)
{
    guint64 n = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': dimension %d is %" G_GINT64_FORMAT
                        " (negative)", what, name, k, dims[k]);
            return FALSE;
        }
        if (!graph_size_mul(n, (guint64)dims[k], &n)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                        "%s '%s': element count overflows 64 bits", what, name);
            return FALSE;
        }
    }
    *out = n;
    return TRUE;
}

/* Typed repeated fields become little-endian raw bytes of the declared element size. */
static GBytes *pack_ints(const void *src, gsize count, gsize src_size, guint elem_size)
{
    guint8 *out = g_malloc0(count * elem_size + 1);
    for (gsize k = 0; k < count; k++) {
        guint64 u = 0;
        memcpy(&u, (const guint8 *)src + k * src_size, src_size);
        memcpy(out + k * elem_size, &u, elem_size);
    }
    return g_bytes_new_take(out, count * elem_size);
}

/* The typed field ONNX stores each element type in (TensorProto's comments): 4 float_data, 5 int32_data (the
 * narrower integers, bool, and 16- and 8-bit floats as their bit patterns), 7 int64_data, 10 double_data,
 * 11 uint64_data; 0 for types with none (strings have string_data). */
static int typed_field_of(DType dt)
{
    switch (dt) {
    case DT_FLOAT: case DT_COMPLEX64: return 4;
    case DT_DOUBLE: case DT_COMPLEX128: return 10;
    case DT_INT64: return 7;
    case DT_UINT32: case DT_UINT64: return 11;
    case DT_INT32: case DT_INT16: case DT_INT8: case DT_UINT16: case DT_UINT8: case DT_BOOL: case DT_FLOAT16:
    case DT_BFLOAT16: case DT_FLOAT8E4M3FN: case DT_FLOAT8E4M3FNUZ: case DT_FLOAT8E5M2: case DT_FLOAT8E5M2FNUZ:
    case DT_UINT4: case DT_INT4: return 5;
    default: return 0;
    }
}

/* Whether v, from a wider typed field, is a value of dt (a bit pattern for the small floats). */
static gboolean fits_type(gint64 v, DType dt)
{
    switch (dt) {
    case DT_INT8: return v >= G_MININT8 && v <= G_MAXINT8;
    case DT_UINT8: case DT_FLOAT8E4M3FN: case DT_FLOAT8E4M3FNUZ: case DT_FLOAT8E5M2: case DT_FLOAT8E5M2FNUZ:
        return v >= 0 && v <= G_MAXUINT8;
    case DT_INT16: return v >= G_MININT16 && v <= G_MAXINT16;
    case DT_UINT16: case DT_FLOAT16: case DT_BFLOAT16: return v >= 0 && v <= G_MAXUINT16;
    case DT_BOOL: return v == 0 || v == 1;
    case DT_UINT32: return (guint64)v <= G_MAXUINT32;
    default: return TRUE;
    }
}

/* take_raw: tp was unpacked with the default allocator and raw_data moves into the TensorData (taken out of tp,
 * which free_unpacked then leaves alone) instead of being copied: one copy of a large input, not two. */
static TensorData *read_tensor(Onnx__TensorProto *tp, const char *what, gboolean take_raw, GError **error)
{
    const char *name = S(tp->name);
    if (!tp->has_data_type || !dtype_is_valid(tp->data_type)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': data type %d is not a valid ONNX type",
                    what, name, tp->has_data_type ? tp->data_type : 0);
        return NULL;
    }
    if (tp->n_dims > 64) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': rank %zu is beyond 64", what, name,
                    tp->n_dims);
        return NULL;
    }
    DType dt = (DType)tp->data_type;
    guint64 n;
    if (!element_count(what, name, (int)tp->n_dims, tp->dims, &n, error))
        return NULL;
    TensorData *t = tensor_data_new(name, dt, (int)tp->n_dims, tp->dims);
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        t->external = g_ptr_array_new_with_free_func(g_free);
        for (size_t k = 0; k < tp->n_external_data; k++) {
            g_ptr_array_add(t->external, g_strdup(S(tp->external_data[k]->key)));
            g_ptr_array_add(t->external, g_strdup(S(tp->external_data[k]->value)));
        }
        return t;
    }
    guint size = dtype_size(dt);
    guint64 want_bytes = 0;
    if (size && !graph_size_mul(n, size, &want_bytes)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': byte size overflows 64 bits", what, name);
        tensor_data_free(t);
        return NULL;
    }
    /* Complex types hold two components per element in the typed fields. */
    guint64 comps = (dt == DT_COMPLEX64 || dt == DT_COMPLEX128) ? 2 * n : n;
    size_t have = 0;
    /* a typed field holds only the types ONNX stores there, each value one of the type's: int32_data read for a
     * FLOAT was taken as bit patterns, an INT64 -1 in uint64_data for a UINT32 became 4294967295 */
    const struct { size_t count; int field; const char *name; } typed[] = {
        {tp->n_float_data, 4, "float_data"}, {tp->n_int32_data, 5, "int32_data"}, {tp->n_int64_data, 7, "int64_data"},
        {tp->n_double_data, 10, "double_data"}, {tp->n_uint64_data, 11, "uint64_data"}};
    for (gsize k = 0; !tp->has_raw_data && dt != DT_STRING && k < G_N_ELEMENTS(typed); k++)
        if (typed[k].count && typed[k].field != typed_field_of(dt)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': %s holds values, but ONNX stores %s elsewhere",
                        what, name, typed[k].name, dtype_name(dt));
            tensor_data_free(t);
            return NULL;
        }
    for (size_t k = 0; !tp->has_raw_data && k < tp->n_int32_data; k++)
        if (!fits_type(tp->int32_data[k], dt)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': int32_data value %d at %zu is not a value of %s",
                        what, name, tp->int32_data[k], k, dtype_name(dt));
            tensor_data_free(t);
            return NULL;
        }
    for (size_t k = 0; !tp->has_raw_data && k < tp->n_uint64_data; k++)
        if (!fits_type((gint64)tp->uint64_data[k], dt)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': uint64_data value %" G_GUINT64_FORMAT
                        " at %zu is not a value of %s", what, name, (guint64)tp->uint64_data[k], k, dtype_name(dt));
            tensor_data_free(t);
            return NULL;
        }
    if (dt == DT_STRING) {
        t->strings = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
        for (size_t k = 0; k < tp->n_string_data; k++)
            g_ptr_array_add(t->strings, g_bytes_new(tp->string_data[k].data, tp->string_data[k].len));
        have = tp->n_string_data;
    } else if (tp->has_raw_data) {
        if (tp->raw_data.len != want_bytes) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                        "%s '%s': raw_data holds %zu bytes, its shape needs %" G_GUINT64_FORMAT, what, name,
                        tp->raw_data.len, want_bytes);
            tensor_data_free(t);
            return NULL;
        }
        if (take_raw) {
            t->raw = g_bytes_new_with_free_func(tp->raw_data.data, tp->raw_data.len, free, tp->raw_data.data);
            tp->raw_data = (ProtobufCBinaryData){0};
            tp->has_raw_data = 0;
        } else {
            t->raw = g_bytes_new(tp->raw_data.data, tp->raw_data.len);
        }
        return t;
    } else if (tp->n_float_data) {
        have = tp->n_float_data;
        if (have == comps)
            t->raw = g_bytes_new(tp->float_data, have * sizeof(float));
    } else if (tp->n_double_data) {
        have = tp->n_double_data;
        if (have == comps)
            t->raw = g_bytes_new(tp->double_data, have * sizeof(double));
    } else if (tp->n_int32_data) {
        have = tp->n_int32_data;
        if (have == comps)
            t->raw = pack_ints(tp->int32_data, have, sizeof(int32_t), size);
    } else if (tp->n_int64_data) {
        have = tp->n_int64_data;
        if (have == comps)
            t->raw = pack_ints(tp->int64_data, have, sizeof(int64_t), size);
    } else if (tp->n_uint64_data) {
        have = tp->n_uint64_data;
        if (have == comps)
            t->raw = pack_ints(tp->uint64_data, have, sizeof(uint64_t), size);
    } else {
        return t; /* no data stored: the planner does not need weight bytes */
    }
    if (have != comps || (size == 0 && dt != DT_STRING)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                    "%s '%s': holds %zu values, its shape needs %" G_GUINT64_FORMAT, what, name, have, comps);
        tensor_data_free(t);
        return NULL;
    }
    return t;
}

/* TypeProto to TypeInfo (NULL when the file gives no type). A sequence of tensors is read where `sequences` allows
 * it (a subgraph's inputs and outputs, value_info: ops/ops-sequence.c folds what builds it); the main graph's
 * inputs and outputs must be tensors, as every other kind of value. */
static gboolean read_type(const char *what, const char *name, const Onnx__TypeProto *tp, gboolean sequences,
                          TypeInfo **out, GError **error)
{
    *out = NULL;
    if (!tp || tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) /* no type at all (ONNX allows it): inferred */
        return TRUE;
    gboolean sequence = tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && tp->sequence_type &&
                        tp->sequence_type->elem_type &&
                        tp->sequence_type->elem_type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    if (sequence && !sequences) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s '%s' is a sequence: its length and elements are "
                    "known only to the caller (a sequence is planned when the model builds it, its elements known "
                    "before running)", what, name);
        return FALSE;
    }
    if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && !sequence) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s '%s' is not a tensor (maps, optionals, sparse tensors and sequences of anything but "
                    "tensors are not planned)",
                    what, name);
        return FALSE;
    }
    const Onnx__TypeProto__Tensor *tt = sequence ? tp->sequence_type->elem_type->tensor_type : tp->tensor_type;
    gint64 elem = tt->has_elem_type ? tt->elem_type : 0;
    if (elem != 0 && !dtype_is_valid(elem)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': element type %" G_GINT64_FORMAT
                    " is not a valid ONNX type", what, name, elem);
        return FALSE;
    }
    if (tt->shape && tt->shape->n_dim > 64) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s '%s': rank %zu is beyond 64", what, name,
                    tt->shape->n_dim);
        return FALSE;
    }
    int rank = tt->shape ? (int)tt->shape->n_dim : -1;
    TypeInfo *t = type_info_new((DType)elem, rank, NULL);
    for (int k = 0; k < rank; k++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[k];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (d->dim_value < 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                            "%s '%s': dimension %d is %" G_GINT64_FORMAT " (negative)", what, name, k,
                            (gint64)d->dim_value);
                type_info_free(t);
                return FALSE;
            }
            t->dims[k] = d->dim_value;
        } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
                   *d->dim_param) {
            type_info_set_param(t, k, d->dim_param);
        }
    }
    t->sequence = sequence;
    *out = t;
    return TRUE;
}

static GPtrArray *bytes_array(const ProtobufCBinaryData *items, size_t n)
{
    GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
    for (size_t k = 0; k < n; k++)
        g_ptr_array_add(a, graph_bytes_new_terminated(items[k].data, items[k].len));
    return a;
}

static GBytes *pack_message(const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    guint8 *buf = g_malloc(len + 1);
    protobuf_c_message_pack(m, buf);
    return g_bytes_new_take(buf, len);
}

/* Old files (IR 1) leave `type` unset; the field that is filled tells the type. */
static AttrType attr_type_of(const Onnx__AttributeProto *ap)
{
    if (ap->has_type)
        return (AttrType)ap->type;
    if (ap->n_floats) return ATTR_FLOATS;
    if (ap->n_ints) return ATTR_INTS;
    if (ap->n_strings) return ATTR_STRINGS;
    if (ap->n_tensors) return ATTR_TENSORS;
    if (ap->n_graphs) return ATTR_GRAPHS;
    if (ap->t) return ATTR_TENSOR;
    if (ap->g) return ATTR_GRAPH;
    if (ap->has_s) return ATTR_STRING;
    if (ap->has_i) return ATTR_INT;
    if (ap->has_f) return ATTR_FLOAT;
    return ATTR_UNDEFINED;
}

static Graph *read_subgraph(const Onnx__GraphProto *gp, int depth, GError **error)
{
    if (depth >= ONNX_MAX_SUBGRAPH_DEPTH) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "subgraphs nested deeper than %d levels",
                    ONNX_MAX_SUBGRAPH_DEPTH);
        return NULL;
    }
    Graph *g = graph_new(gp->name);
    if (!read_graph(g, gp, depth + 1, error)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static Attr *read_attr(const Onnx__AttributeProto *ap, const char *node_label, int depth, GError **error)
{
    AttrType type = attr_type_of(ap);
    if (type <= ATTR_UNDEFINED || type >= ATTR_TYPE_COUNT) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "node %s: attribute '%s' has no valid type",
                    node_label, S(ap->name));
        return NULL;
    }
    Attr *a = attr_new(S(ap->name), type);
    if (ap->ref_attr_name)
        a->ref_attr_name = g_strdup(ap->ref_attr_name);
    switch (type) {
    case ATTR_FLOAT: a->f = ap->f; break;
    case ATTR_INT: a->i = ap->i; break;
    case ATTR_STRING: a->s = graph_bytes_new_terminated(ap->s.data, ap->s.len); break;
    case ATTR_FLOATS:
        a->floats = g_array_sized_new(FALSE, FALSE, sizeof(float), ap->n_floats);
        g_array_append_vals(a->floats, ap->floats, ap->n_floats);
        break;
    case ATTR_INTS:
        a->ints = g_array_sized_new(FALSE, FALSE, sizeof(gint64), ap->n_ints);
        g_array_append_vals(a->ints, ap->ints, ap->n_ints);
        break;
    case ATTR_STRINGS: a->strings = bytes_array(ap->strings, ap->n_strings); break;
    case ATTR_TENSOR:
        if (!ap->t || !(a->t = read_tensor(ap->t, "attribute tensor", FALSE, error)))
            goto fail;
        break;
    case ATTR_TENSORS:
        a->tensors = g_ptr_array_new_with_free_func((GDestroyNotify)tensor_data_free);
        for (size_t k = 0; k < ap->n_tensors; k++) {
            TensorData *t = read_tensor(ap->tensors[k], "attribute tensor", FALSE, error);
            if (!t)
                goto fail;
            g_ptr_array_add(a->tensors, t);
        }
        break;
    case ATTR_GRAPH:
        if (!ap->g || !(a->g = read_subgraph(ap->g, depth, error)))
            goto fail;
        break;
    case ATTR_GRAPHS:
        a->graphs = g_ptr_array_new_with_free_func((GDestroyNotify)graph_free);
        for (size_t k = 0; k < ap->n_graphs; k++) {
            Graph *g = read_subgraph(ap->graphs[k], depth, error);
            if (!g)
                goto fail;
            g_ptr_array_add(a->graphs, g);
        }
        break;
    case ATTR_SPARSE_TENSOR:
    case ATTR_TYPE_PROTO: {
        const ProtobufCMessage *m = type == ATTR_SPARSE_TENSOR ? (const ProtobufCMessage *)ap->sparse_tensor
                                                               : (const ProtobufCMessage *)ap->tp;
        if (!m)
            goto fail;
        a->opaque = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
        g_ptr_array_add(a->opaque, pack_message(m));
        break;
    }
    case ATTR_SPARSE_TENSORS:
    case ATTR_TYPE_PROTOS: {
        gboolean sparse = type == ATTR_SPARSE_TENSORS;
        size_t n = sparse ? ap->n_sparse_tensors : ap->n_type_protos;
        a->opaque = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
        for (size_t k = 0; k < n; k++)
            g_ptr_array_add(a->opaque, pack_message(sparse ? (const ProtobufCMessage *)ap->sparse_tensors[k]
                                                            : (const ProtobufCMessage *)ap->type_protos[k]));
        break;
    }
    default: break;
    }
    return a;
fail:
    if (error && !*error)
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "node %s: attribute '%s' of type %s holds no value",
                    node_label, a->name, attr_type_name(type));
    else
        g_prefix_error(error, "node %s, attribute '%s': ", node_label, a->name);
    attr_free(a);
    return NULL;
}

static gboolean read_value_infos(Graph *g, Onnx__ValueInfoProto **items, size_t n, const char *role,
                                 gboolean (*add)(Graph *, const char *, TypeInfo *, GError **), gboolean sequences,
                                 GError **error)
{
    for (size_t k = 0; k < n; k++) {
        TypeInfo *t = NULL;
        GError *type_error = NULL;
        if (!read_type(role, S(items[k]->name), items[k]->type, sequences, &t, &type_error)) {
            /* A non-tensor value_info is only a hint we cannot use; inputs and outputs must be tensors. */
            if (add == graph_add_value_info && type_error->code == SIM_ERROR_UNSUPPORTED) {
                g_clear_error(&type_error);
                continue;
            }
            g_propagate_error(error, type_error);
            return FALSE;
        }
        if (!add(g, S(items[k]->name), t, error))
            return FALSE;
    }
    return TRUE;
}

/* A graph input's dimension with neither a size nor a name (ONNX allows it: unknown, as Silero VAD v5 declares its
 * audio's) is named INPUT.AXIS, so that --dim binds it and it is listed with the unbound names; a name the inputs
 * already use is not taken twice (a ' is added). */
static void name_anonymous_dims(Graph *g)
{
    GHashTable *taken = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint k = 0; k < g->inputs->len; k++) {
        const TypeInfo *d = ((const Tensor *)g->inputs->pdata[k])->declared;
        for (int a = 0; d && d->params && a < d->rank; a++)
            if (d->params[a])
                g_hash_table_add(taken, d->params[a]);
    }
    for (guint k = 0; k < g->inputs->len; k++) {
        const Tensor *t = g->inputs->pdata[k];
        TypeInfo *d = t->declared;
        for (int a = 0; d && a < d->rank; a++) {
            if (d->dims[a] >= 0 || (d->params && d->params[a]))
                continue;
            if (!d->params)
                d->params = g_new0(char *, d->rank);
            char *name = g_strdup_printf("%s.%d", t->name, a);
            while (g_hash_table_contains(taken, name)) {
                char *longer = g_strconcat(name, "'", NULL);
                g_free(name);
                name = longer;
            }
            d->params[a] = name;
            g_hash_table_add(taken, name);
        }
    }
    g_hash_table_unref(taken);
}

static gboolean read_graph(Graph *g, const Onnx__GraphProto *gp, int depth, GError **error)
{
    g_free(g->doc);
    g->doc = g_strdup(S(gp->doc_string));
    if (gp->n_sparse_initializer) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "sparse initializers are not supported ('%s')",
                    S(gp->sparse_initializer[0]->values ? gp->sparse_initializer[0]->values->name : NULL));
        return FALSE;
    }
    for (size_t k = 0; k < gp->n_initializer; k++) {
        TensorData *t = read_tensor(gp->initializer[k], "initializer", FALSE, error);
        if (!t || !graph_add_initializer(g, t, error))
            return FALSE;
    }
    if (!read_value_infos(g, gp->input, gp->n_input, "graph input", graph_add_input, depth > 0, error))
        return FALSE;
    if (depth == 0)
        name_anonymous_dims(g);
    for (size_t k = 0; k < gp->n_node; k++) {
        const Onnx__NodeProto *np = gp->node[k];
        char *label = np->name && *np->name ? g_strdup_printf("'%s' (%s)", np->name, S(np->op_type))
                                            : g_strdup_printf("#%zu (%s)", k, S(np->op_type));
        if (!np->op_type || !*np->op_type) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "node %s has no op_type", label);
            g_free(label);
            return FALSE;
        }
        GPtrArray *attrs = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
        for (size_t a = 0; a < np->n_attribute; a++) {
            Attr *attr = read_attr(np->attribute[a], label, depth, error);
            if (!attr) {
                g_ptr_array_unref(attrs);
                g_free(label);
                return FALSE;
            }
            g_ptr_array_add(attrs, attr);
        }
        g_free(label);
        Node *n = graph_add_node(g, np->op_type, np->domain, np->name, (const char *const *)np->input,
                                 (int)np->n_input, (const char *const *)np->output, (int)np->n_output, attrs,
                                 error);
        if (!n)
            return FALSE;
        n->doc = g_strdup(np->doc_string);
    }
    if (!read_value_infos(g, gp->output, gp->n_output, "graph output", graph_add_output, depth > 0, error))
        return FALSE;
    return read_value_infos(g, gp->value_info, gp->n_value_info, "value_info", graph_add_value_info, TRUE, error);
}

/* A model must compute something: an ONNX graph without outputs is invalid. */
static gboolean has_outputs(const Graph *g, GError **error)
{
    if (g->outputs->len)
        return TRUE;
    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "the graph has no outputs (%u nodes): nothing to compute", g->nodes->len);
    return FALSE;
}

Model *onnx_read_bytes(const guint8 *data, gsize len, const char *dir, GError **error)
{
    if (len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "file is empty, not an ONNX model");
        return NULL;
    }
    /* Every subgraph level nests three messages (a graph's node, its attribute, the attribute's graph); the
     * model, its graph and the deepest leaf (a tensor's shape's dimension) a few more. Deeper than that is
     * refused before protobuf-c's recursive unpacking sees it. */
    if (!proto_depth_within(&onnx__model_proto__descriptor, data, len, ONNX_MAX_MESSAGE_DEPTH)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "messages nest more than %u levels deep (subgraphs inside "
                    "subgraphs more than %d deep)", ONNX_MAX_MESSAGE_DEPTH, ONNX_MAX_SUBGRAPH_DEPTH);
        return NULL;
    }
    ProtobufCAllocator *arena = proto_arena_new();
    Onnx__ModelProto *mp = onnx__model_proto__unpack(arena, len, data);
    if (!mp) {
        proto_arena_free(arena);
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT,
                    "not a valid ONNX protobuf (truncated or corrupt, %zu bytes)", len);
        return NULL;
    }
    Model *m = NULL;
    if (!mp->graph) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "not an ONNX model: it has no graph");
        goto out;
    }
    m = model_new();
    m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
    g_free(m->producer_name);
    m->producer_name = g_strdup(S(mp->producer_name));
    g_free(m->producer_version);
    m->producer_version = g_strdup(S(mp->producer_version));
    g_free(m->domain);
    m->domain = g_strdup(S(mp->domain));
    g_free(m->doc);
    m->doc = g_strdup(S(mp->doc_string));
    m->model_version = mp->has_model_version ? mp->model_version : 0;
    m->dir = g_strdup(dir ? dir : ".");
    for (size_t k = 0; k < mp->n_opset_import; k++)
        model_set_opset(m, S(mp->opset_import[k]->domain), mp->opset_import[k]->version);
    for (size_t k = 0; k < mp->n_metadata_props; k++) {
        g_ptr_array_add(m->metadata, g_strdup(S(mp->metadata_props[k]->key)));
        g_ptr_array_add(m->metadata, g_strdup(S(mp->metadata_props[k]->value)));
    }
    m->graph = graph_new(mp->graph->name);
    if (!read_graph(m->graph, mp->graph, 0, error) || !has_outputs(m->graph, error) || !graph_finalize(m->graph, error)) {
        model_free(m);
        m = NULL;
    }
out:
    proto_arena_free(arena); /* mp with it */
    return m;
}

Model *onnx_read_file(const char *path, GError **error)
{
    gchar *data = NULL;
    gsize len = 0;
    if (!sim_read_file(path, SIM_MODEL_MAX_BYTES, &data, &len, error))
        return NULL;
    char *dir = g_path_get_dirname(path);
    Model *m = onnx_read_bytes((const guint8 *)data, len, dir, error);
    g_free(dir);
    g_free(data);
    return m;
}

/* A protobuf varint at *p (before end), or FALSE. */
static gboolean wire_varint(const guint8 **p, const guint8 *end, guint64 *out)
{
    guint64 v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        guint8 b = *(*p)++;
        v |= (guint64)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return TRUE;
        }
    }
    return FALSE;
}

/* The TensorProto's dims (field 1, packed or not), data_type (2) and name (8) from the top-level tags, every
 * other field skipped by its length; FALSE when the bytes are not protobuf. */
static gboolean scan_tensor_header(const guint8 *p, gsize len, TensorData **out)
{
    const guint8 *end = p + len;
    GArray *dims = g_array_new(FALSE, FALSE, sizeof(gint64));
    gint64 type = 0;
    char *name = NULL;
    gboolean ok = TRUE;
    while (ok && p < end) {
        guint64 key, v;
        ok = wire_varint(&p, end, &key);
        guint field = (guint)(key >> 3), wire = (guint)(key & 7);
        if (!ok)
            break;
        if (wire == 0) {
            ok = wire_varint(&p, end, &v);
            if (ok && field == 1)
                g_array_append_val(dims, v);
            else if (ok && field == 2)
                type = (gint64)v;
        } else if (wire == 2) {
            ok = wire_varint(&p, end, &v) && v <= (guint64)(end - p);
            if (ok && field == 1) { /* packed dims */
                const guint8 *q = p, *stop = p + v;
                while (ok && q < stop) {
                    guint64 d;
                    ok = wire_varint(&q, stop, &d);
                    if (ok)
                        g_array_append_val(dims, d);
                }
            } else if (ok && field == 8) {
                g_free(name);
                name = g_strndup((const char *)p, (gsize)v);
            }
            if (ok)
                p += v;
        } else if (wire == 5 || wire == 1) {
            gsize n = wire == 5 ? 4 : 8;
            ok = (gsize)(end - p) >= n;
            p += ok ? n : 0;
        } else {
            ok = FALSE;
        }
        ok = ok && dims->len <= 64;
    }
    if (ok)
        *out = tensor_data_new(name ? name : "", (DType)(dtype_is_valid(type) ? type : DT_UNDEFINED), (int)dims->len,
                               (const gint64 *)(void *)dims->data);
    if (ok && !dtype_is_valid(type)) {
        tensor_data_free(*out);
        *out = NULL;
        ok = FALSE;
    }
    g_array_unref(dims);
    g_free(name);
    return ok;
}

TensorData *onnx_read_tensor_header(const char *path, GError **error)
{
    GMappedFile *m = sim_map_file(path, SIM_MODEL_MAX_BYTES, error);
    if (!m)
        return NULL;
    TensorData *t = NULL;
    gboolean ok = scan_tensor_header((const guint8 *)g_mapped_file_get_contents(m), g_mapped_file_get_length(m), &t);
    g_mapped_file_unref(m);
    if (!ok) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "not a TensorProto (protobuf decoding failed)");
        return NULL;
    }
    guint64 n;
    if (!element_count("tensor", t->name, t->rank, t->dims, &n, error)) {
        tensor_data_free(t);
        return NULL;
    }
    return t;
}

TensorData *onnx_read_tensor_file(const char *path, GError **error)
{
    GMappedFile *m = sim_map_file(path, SIM_MODEL_MAX_BYTES, error);
    if (!m)
        return NULL;
    const guint8 *bytes = (const guint8 *)g_mapped_file_get_contents(m);
    gsize len = g_mapped_file_get_length(m);
    gboolean shallow = len && proto_depth_within(&onnx__tensor_proto__descriptor, bytes, len, ONNX_MAX_MESSAGE_DEPTH);
    Onnx__TensorProto *tp = shallow ? onnx__tensor_proto__unpack(NULL, len, bytes) : NULL;
    g_mapped_file_unref(m);
    if (!tp) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "not a TensorProto (protobuf decoding failed)");
        return NULL;
    }
    TensorData *t = read_tensor(tp, "tensor", TRUE, error);
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return t;
}
