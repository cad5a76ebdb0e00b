/* onnx-write.c — the graph model to ModelProto (protobuf-c). Everything the reader keeps is written
 * back: tensors as raw_data (or external-data references), declared types, every attribute type. */
#include "model/onnx.h"
#include "onnx.pb-c.h"


/* Every protobuf-c struct built here is owned by the pool and freed in one go after packing. */
typedef struct {
    GPtrArray *allocs;   /* g_malloc'd structs and arrays */
    GPtrArray *unpacked; /* messages unpacked from opaque attribute bytes (protobuf-c owned) */
} Pool;

static gpointer pool_new(Pool *p, gsize size)
{
    gpointer mem = g_malloc0(size ? size : 1);
    g_ptr_array_add(p->allocs, mem);
    return mem;
}

#define POOL_NEW(p, T) ((T *)pool_new((p), sizeof(T)))
#define POOL_ARRAY(p, T, n) ((T *)pool_new((p), sizeof(T) * (n)))

/* protobuf-c does not write through string pointers, so the model's own strings are shared. */
static char *str(const char *s) { return (char *)(s ? s : ""); }

static Onnx__StringStringEntryProto **write_pairs(Pool *p, const GPtrArray *kv, size_t *n_out)
{
    size_t n = kv ? kv->len / 2 : 0;
    Onnx__StringStringEntryProto **out = POOL_ARRAY(p, Onnx__StringStringEntryProto *, n);
    for (size_t k = 0; k < n; k++) {
        Onnx__StringStringEntryProto *e = POOL_NEW(p, Onnx__StringStringEntryProto);
        onnx__string_string_entry_proto__init(e);
        e->key = str(kv->pdata[2 * k]);
        e->value = str(kv->pdata[2 * k + 1]);
        out[k] = e;
    }
    *n_out = n;
    return out;
}

static Onnx__TensorProto *write_tensor(Pool *p, const TensorData *t)
{
    Onnx__TensorProto *tp = POOL_NEW(p, Onnx__TensorProto);
    onnx__tensor_proto__init(tp);
    tp->name = str(t->name);
    tp->has_data_type = TRUE;
    tp->data_type = t->dtype;
    tp->n_dims = t->rank > 0 ? t->rank : 0;
    tp->dims = t->dims;
    if (t->external) {
        tp->has_data_location = TRUE;
        tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
        tp->external_data = write_pairs(p, t->external, &tp->n_external_data);
    } else if (t->strings) {
        tp->n_string_data = t->strings->len;
        tp->string_data = POOL_ARRAY(p, ProtobufCBinaryData, t->strings->len);
        for (guint k = 0; k < t->strings->len; k++) {
            gsize len;
            tp->string_data[k].data = (guint8 *)g_bytes_get_data(t->strings->pdata[k], &len);
            tp->string_data[k].len = len;
        }
    } else if (t->raw) {
        gsize len;
        tp->has_raw_data = TRUE;
        tp->raw_data.data = (guint8 *)g_bytes_get_data(t->raw, &len);
        tp->raw_data.len = len;
    }
    return tp;
}

static Onnx__TypeProto *write_type(Pool *p, const TypeInfo *t)
{
    if (!t)
        return NULL;
    Onnx__TypeProto *tp = POOL_NEW(p, Onnx__TypeProto);
    onnx__type_proto__init(tp);
    Onnx__TypeProto__Tensor *tt = POOL_NEW(p, Onnx__TypeProto__Tensor);
    onnx__type_proto__tensor__init(tt);
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    if (t->sequence) { /* a sequence of such tensors */
        Onnx__TypeProto *elem = tp;
        tp = POOL_NEW(p, Onnx__TypeProto);
        onnx__type_proto__init(tp);
        Onnx__TypeProto__Sequence *sq = POOL_NEW(p, Onnx__TypeProto__Sequence);
        onnx__type_proto__sequence__init(sq);
        sq->elem_type = elem;
        tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
        tp->sequence_type = sq;
    }
    tt->has_elem_type = TRUE;
    tt->elem_type = t->dtype;
    if (t->rank >= 0) {
        Onnx__TensorShapeProto *sp = POOL_NEW(p, Onnx__TensorShapeProto);
        onnx__tensor_shape_proto__init(sp);
        sp->n_dim = t->rank;
        sp->dim = POOL_ARRAY(p, Onnx__TensorShapeProto__Dimension *, t->rank);
        for (int k = 0; k < t->rank; k++) {
            Onnx__TensorShapeProto__Dimension *d = POOL_NEW(p, Onnx__TensorShapeProto__Dimension);
            onnx__tensor_shape_proto__dimension__init(d);
            if (t->params && t->params[k]) {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                d->dim_param = t->params[k];
            } else if (t->dims[k] >= 0) {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                d->dim_value = t->dims[k];
            }
            sp->dim[k] = d;
        }
        tt->shape = sp;
    }
    return tp;
}

static Onnx__ValueInfoProto **write_value_infos(Pool *p, const GPtrArray *tensors, size_t *n_out)
{
    Onnx__ValueInfoProto **out = POOL_ARRAY(p, Onnx__ValueInfoProto *, tensors->len);
    for (guint k = 0; k < tensors->len; k++) {
        const Tensor *t = tensors->pdata[k];
        Onnx__ValueInfoProto *v = POOL_NEW(p, Onnx__ValueInfoProto);
        onnx__value_info_proto__init(v);
        v->name = str(t->name);
        v->type = write_type(p, t->declared);
        out[k] = v;
    }
    *n_out = tensors->len;
    return out;
}

static Onnx__GraphProto *write_graph(Pool *p, const Graph *g);

static gpointer unpack_opaque(Pool *p, const ProtobufCMessageDescriptor *desc, GBytes *b)
{
    gsize len;
    const guint8 *data = g_bytes_get_data(b, &len);
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, NULL, len, data);
    if (m)
        g_ptr_array_add(p->unpacked, m);
    return m;
}

static Onnx__AttributeProto *write_attr(Pool *p, const Attr *a)
{
    Onnx__AttributeProto *ap = POOL_NEW(p, Onnx__AttributeProto);
    onnx__attribute_proto__init(ap);
    ap->name = str(a->name);
    if (a->ref_attr_name)
        ap->ref_attr_name = a->ref_attr_name;
    ap->has_type = TRUE;
    ap->type = (Onnx__AttributeProto__AttributeType)a->type;
    switch (a->type) {
    case ATTR_FLOAT: ap->has_f = TRUE; ap->f = a->f; break;
    case ATTR_INT: ap->has_i = TRUE; ap->i = a->i; break;
    case ATTR_STRING: {
        gsize len;
        ap->has_s = TRUE;
        ap->s.data = (guint8 *)g_bytes_get_data(a->s, &len);
        ap->s.len = len;
        break;
    }
    case ATTR_FLOATS: ap->n_floats = a->floats->len; ap->floats = (float *)a->floats->data; break;
    case ATTR_INTS: ap->n_ints = a->ints->len; ap->ints = (int64_t *)a->ints->data; break;
    case ATTR_STRINGS:
        ap->n_strings = a->strings->len;
        ap->strings = POOL_ARRAY(p, ProtobufCBinaryData, a->strings->len);
        for (guint k = 0; k < a->strings->len; k++) {
            gsize len;
            ap->strings[k].data = (guint8 *)g_bytes_get_data(a->strings->pdata[k], &len);
            ap->strings[k].len = len;
        }
        break;
    case ATTR_TENSOR: ap->t = write_tensor(p, a->t); break;
    case ATTR_TENSORS:
        ap->n_tensors = a->tensors->len;
        ap->tensors = POOL_ARRAY(p, Onnx__TensorProto *, a->tensors->len);
        for (guint k = 0; k < a->tensors->len; k++)
            ap->tensors[k] = write_tensor(p, a->tensors->pdata[k]);
        break;
    case ATTR_GRAPH: ap->g = write_graph(p, a->g); break;
    case ATTR_GRAPHS:
        ap->n_graphs = a->graphs->len;
        ap->graphs = POOL_ARRAY(p, Onnx__GraphProto *, a->graphs->len);
        for (guint k = 0; k < a->graphs->len; k++)
            ap->graphs[k] = write_graph(p, a->graphs->pdata[k]);
        break;
    case ATTR_SPARSE_TENSOR:
        ap->sparse_tensor = unpack_opaque(p, &onnx__sparse_tensor_proto__descriptor, a->opaque->pdata[0]);
        break;
    case ATTR_TYPE_PROTO:
        ap->tp = unpack_opaque(p, &onnx__type_proto__descriptor, a->opaque->pdata[0]);
        break;
    case ATTR_SPARSE_TENSORS:
        ap->n_sparse_tensors = a->opaque->len;
        ap->sparse_tensors = POOL_ARRAY(p, Onnx__SparseTensorProto *, a->opaque->len);
        for (guint k = 0; k < a->opaque->len; k++)
            ap->sparse_tensors[k] = unpack_opaque(p, &onnx__sparse_tensor_proto__descriptor, a->opaque->pdata[k]);
        break;
    case ATTR_TYPE_PROTOS:
        ap->n_type_protos = a->opaque->len;
        ap->type_protos = POOL_ARRAY(p, Onnx__TypeProto *, a->opaque->len);
        for (guint k = 0; k < a->opaque->len; k++)
            ap->type_protos[k] = unpack_opaque(p, &onnx__type_proto__descriptor, a->opaque->pdata[k]);
        break;
    default: break;
    }
    return ap;
}

static char **tensor_names(Pool *p, const GPtrArray *tensors)
{
    char **names = POOL_ARRAY(p, char *, tensors->len);
    for (guint k = 0; k < tensors->len; k++) {
        const Tensor *t = tensors->pdata[k];
        names[k] = t ? t->name : "";
    }
    return names;
}

static Onnx__GraphProto *write_graph(Pool *p, const Graph *g)
{
    Onnx__GraphProto *gp = POOL_NEW(p, Onnx__GraphProto);
    onnx__graph_proto__init(gp);
    gp->name = str(g->name);
    if (g->doc && *g->doc)
        gp->doc_string = g->doc;
    gp->n_node = g->nodes->len;
    gp->node = POOL_ARRAY(p, Onnx__NodeProto *, g->nodes->len);
    for (guint k = 0; k < g->nodes->len; k++) {
        const Node *n = g->nodes->pdata[k];
        Onnx__NodeProto *np = POOL_NEW(p, Onnx__NodeProto);
        onnx__node_proto__init(np);
        np->name = n->name;
        np->op_type = n->op_type;
        np->domain = n->domain;
        np->doc_string = n->doc;
        np->n_input = n->inputs->len;
        np->input = tensor_names(p, n->inputs);
        np->n_output = n->outputs->len;
        np->output = tensor_names(p, n->outputs);
        np->n_attribute = n->attrs->len;
        np->attribute = POOL_ARRAY(p, Onnx__AttributeProto *, n->attrs->len);
        for (guint a = 0; a < n->attrs->len; a++)
            np->attribute[a] = write_attr(p, n->attrs->pdata[a]);
        gp->node[k] = np;
    }
    gp->n_initializer = g->initializers->len;
    gp->initializer = POOL_ARRAY(p, Onnx__TensorProto *, g->initializers->len);
    for (guint k = 0; k < g->initializers->len; k++)
        gp->initializer[k] = write_tensor(p, ((const Tensor *)g->initializers->pdata[k])->init);
    gp->input = write_value_infos(p, g->inputs, &gp->n_input);
    gp->output = write_value_infos(p, g->outputs, &gp->n_output);
    gp->value_info = write_value_infos(p, g->value_infos, &gp->n_value_info);
    return gp;
}

GBytes *onnx_write_bytes(const Model *m)
{
    Pool pool = {g_ptr_array_new_with_free_func(g_free), g_ptr_array_new()};

    Onnx__ModelProto mp = ONNX__MODEL_PROTO__INIT;
    mp.has_ir_version = TRUE;
    mp.ir_version = m->ir_version;
    mp.producer_name = str(m->producer_name);
    mp.producer_version = str(m->producer_version);
    mp.domain = str(m->domain);
    mp.has_model_version = TRUE;
    mp.model_version = m->model_version;
    if (m->doc && *m->doc)
        mp.doc_string = m->doc;
    mp.n_opset_import = m->opsets->len;
    mp.opset_import = POOL_ARRAY(&pool, Onnx__OperatorSetIdProto *, m->opsets->len);
    for (guint k = 0; k < m->opsets->len; k++) {
        const OpsetId *o = &g_array_index(m->opsets, OpsetId, k);
        Onnx__OperatorSetIdProto *op = POOL_NEW(&pool, Onnx__OperatorSetIdProto);
        onnx__operator_set_id_proto__init(op);
        op->domain = o->domain;
        op->has_version = TRUE;
        op->version = o->version;
        mp.opset_import[k] = op;
    }
    mp.metadata_props = write_pairs(&pool, m->metadata, &mp.n_metadata_props);
    mp.graph = write_graph(&pool, m->graph);

    size_t len = onnx__model_proto__get_packed_size(&mp);
    guint8 *buf = g_malloc(len + 1);
    onnx__model_proto__pack(&mp, buf);

    for (guint k = 0; k < pool.unpacked->len; k++)
        protobuf_c_message_free_unpacked(pool.unpacked->pdata[k], NULL);
    g_ptr_array_unref(pool.unpacked);
    g_ptr_array_unref(pool.allocs);
    return g_bytes_new_take(buf, len);
}

/* bytes (taken) to path: a temporary renamed over a regular file (no partial file is ever left behind); in place
 * over a device. */
static gboolean write_taken(GBytes *bytes, const char *path, GError **error)
{
    gsize len;
    const char *data = g_bytes_get_data(bytes, &len);
    gboolean ok = sim_write_file(path, data, len, error);
    g_bytes_unref(bytes);
    return ok;
}

gboolean onnx_write_file(const Model *m, const char *path, GError **error)
{
    return write_taken(onnx_write_bytes(m), path, error);
}

GBytes *onnx_write_tensor_bytes(const TensorData *t)
{
    Pool pool = {g_ptr_array_new_with_free_func(g_free), g_ptr_array_new()};
    Onnx__TensorProto *tp = write_tensor(&pool, t);
    size_t len = onnx__tensor_proto__get_packed_size(tp);
    guint8 *buf = g_malloc(len + 1);
    onnx__tensor_proto__pack(tp, buf);
    g_ptr_array_unref(pool.unpacked);
    g_ptr_array_unref(pool.allocs);
    return g_bytes_new_take(buf, len);
}

gboolean onnx_write_tensor_file(const TensorData *t, const char *path, GError **error)
{
    return write_taken(onnx_write_tensor_bytes(t), path, error);
}
