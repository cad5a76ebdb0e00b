/* mkgraph-random.c — a random DAG for property tests and ordering studies: every tensor is
 * float32 [1, L] with L a power of two or a sum of them (a Concat); each node picks its inputs among recent
 * tensors (older ones with small probability) and is one of Relu, Sigmoid, Add (of two same-length tensors, or
 * x + x), Concat (of up to --fanout inputs), Slice (a half), Split (two halves of an even length), Reshape (a noop
 * view), Gather (of a prefix) or MatMul (to a new length). Tensors nobody reads become graph outputs.
 * Deterministic for the same --seed. */
#include "graphs/mkgraph.h"

static const MkParam random_params[] = {
    {"nodes", "40", "number of nodes"},
    {"fanout", "3", "most inputs of a Concat"},
    {"seed", "1", "random seed"},
    {"max-width", "4096", "largest L (a power of two >= 64)"},
    {NULL, NULL, NULL},
};

typedef struct {
    const char *name;
    gint64 len;
} Val;

static Val pick(GRand *r, GArray *vals)
{
    guint n = vals->len, recent = MIN(n, 6u);
    guint k = g_rand_double(r) < 0.8 ? n - 1 - (guint)g_rand_int_range(r, 0, (gint32)recent)
                                     : (guint)g_rand_int_range(r, 0, (gint32)n);
    return g_array_index(vals, Val, k);
}

static Model *build_random(const MkParams *p, GError **error)
{
    gint64 nodes = mk_int(p, "nodes", error), fanout = mk_int(p, "fanout", error), seed = mk_int(p, "seed", error),
           max_width = mk_int(p, "max-width", error);
    if (*error)
        return NULL;
    if (nodes < 1 || fanout < 2 || max_width < 64 || (max_width & (max_width - 1))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "random needs nodes >= 1, fanout >= 2, max-width a power of two >= 64");
        return NULL;
    }
    GRand *r = g_rand_new_with_seed((guint32)seed);
    Builder *b = builder_new("random", 13);
    GArray *vals = g_array_new(FALSE, FALSE, sizeof(Val));
    gint64 dims[2] = {1, 256};
    Val in = {builder_input(b, "x", DT_FLOAT, 2, dims), 256};
    g_array_append_val(vals, in);
    gint64 one = 1;
    for (gint64 k = 0; k < nodes && !b->error; k++) {
        Val x = pick(r, vals), out = {NULL, x.len};
        switch (g_rand_int_range(r, 0, 9)) {
        case 0: out.name = B_OP(b, "Relu", x.name); break;
        case 1: out.name = B_OP(b, "Sigmoid", x.name); break;
        case 2: { /* Add of two same-length tensors; x + x when no partner is near */
            Val y = pick(r, vals);
            out.name = B_OP(b, "Add", x.name, y.len == x.len ? y.name : x.name);
            break;
        }
        case 3: { /* Concat along axis 1 */
            guint n = (guint)g_rand_int_range(r, 2, (gint32)fanout + 1);
            const char **list = g_new0(const char *, n + 1);
            out.len = 0;
            for (guint j = 0; j < n; j++) {
                Val y = j ? pick(r, vals) : x;
                list[j] = y.name;
                out.len += y.len;
            }
            if (out.len > max_width) { /* too wide: a plain Relu instead */
                out.name = B_OP(b, "Relu", x.name);
                out.len = x.len;
            } else {
                out.name = builder_node(b, "Concat", list, 1, NULL, attr_new_int("axis", 1), NULL);
            }
            g_free(list);
            break;
        }
        case 4: { /* Slice: a half */
            gint64 start = x.len >= 128 && g_rand_boolean(r) ? x.len / 2 : 0, end = start + MAX(x.len / 2, 1);
            out.name = B_OP(b, "Slice", x.name, builder_int_vec(b, NULL, 1, &start), builder_int_vec(b, NULL, 1, &end),
                            builder_int_vec(b, NULL, 1, &one));
            out.len = end - start;
            break;
        }
        case 5: { /* Split into two halves; both become values */
            if (x.len < 128 || x.len % 2) { /* a Concat of lengths may be odd: no two halves */
                out.name = B_OP(b, "Relu", x.name);
                break;
            }
            const char *halves[2] = {NULL, NULL};
            builder_node(b, "Split", (const char *const[]){x.name, NULL}, 2, halves, attr_new_int("axis", 1), NULL);
            Val second = {halves[1], x.len / 2};
            g_array_append_val(vals, second);
            out.name = halves[0];
            out.len = x.len / 2;
            break;
        }
        case 6: { /* Reshape to the same [1, L]: a metadata-only view */
            gint64 shape[2] = {1, -1};
            out.name = B_OP(b, "Reshape", x.name, builder_int_vec(b, NULL, 2, shape));
            break;
        }
        case 7: { /* Gather a prefix of columns */
            gint64 count = MAX(x.len / 4, 1);
            gint64 *idx = g_new(gint64, count);
            for (gint64 j = 0; j < count; j++)
                idx[j] = j;
            out.name = builder_node(b, "Gather", (const char *const[]){x.name, builder_int_vec(b, NULL, count, idx), NULL}, 1, NULL,
                              attr_new_int("axis", 1), NULL);
            out.len = count;
            g_free(idx);
            break;
        }
        default: { /* MatMul to a new power-of-two length */
            gint64 len = (gint64)64 << g_rand_int_range(r, 0, 7);
            len = MIN(len, max_width);
            gint64 w_dims[2] = {x.len, len};
            char w[32];
            g_snprintf(w, sizeof w, "w%" G_GINT64_FORMAT, k);
            out.name = B_OP(b, "MatMul", x.name, builder_weight(b, w, DT_FLOAT, 2, w_dims, FALSE));
            out.len = len;
            break;
        }
        }
        g_array_append_val(vals, out);
    }
    /* Everything nobody reads is a graph output. */
    for (guint k = 1; k < vals->len && !b->error; k++) {
        Val v = g_array_index(vals, Val, k);
        Tensor *t = graph_tensor(b->graph, v.name);
        if (t && t->consumers->len == 0)
            builder_output(b, v.name);
    }
    g_array_unref(vals);
    g_rand_free(r);
    return builder_finish(b, error);
}

const MkFamily mk_random = {
    .name = "random",
    .summary = "random DAG of mixed op classes over [1, L] tensors",
    .params = random_params,
    .build = build_random,
};
