/* mkgraph-runtime.c — the examples of docs/spec.md §2 as graphs, NHWC float32 with their
 * exact shapes: gather (Example 1: (100,16,16,64) gathering 150 batches), slice (Example 2: batches
 * [100:200) of (1000,16,16,64)), concat (Example 3: N = 10, 20, 15, 25), split (Example 4: 40, 100,
 * 60 of 200), and the chained concat (t1, Concat(t1, t2, t3), t3). H, W, C and the sizes are
 * parameters, so the seed's other examples (e.g. (50,32,32,128)) are one flag away. */
#include "graphs/mkgraph.h"

#define HWC_PARAMS                                                                                         \
    {"h", "16", "height (NHWC)"}, {"w", "16", "width"}, {"c", "64", "channels (last dimension)"}

static const MkParam gather_params[] = {HWC_PARAMS, {"n", "100", "batches in the data"},
                                        {"indices", "150", "batches gathered (index i picks batch i mod n)"},
                                        {NULL, NULL, NULL}};
static const MkParam slice_params[] = {HWC_PARAMS, {"n", "1000", "batches in the input"},
                                       {"start", "100", "first batch"}, {"end", "200", "end batch (exclusive)"},
                                       {NULL, NULL, NULL}};
static const MkParam concat_params[] = {HWC_PARAMS, {"sizes", "10,20,15,25", "batches of each input"},
                                        {NULL, NULL, NULL}};
static const MkParam split_params[] = {HWC_PARAMS, {"sizes", "40,100,60", "batches of each output"},
                                       {NULL, NULL, NULL}};
static const MkParam chained_params[] = {HWC_PARAMS, {"sizes", "10,20,15", "batches of t1, t2, t3"},
                                         {NULL, NULL, NULL}};

typedef struct {
    gint64 h, w, c;
} Hwc;

static gboolean read_hwc(const MkParams *p, Hwc *hwc, GError **error)
{
    hwc->h = mk_int(p, "h", error);
    hwc->w = mk_int(p, "w", error);
    hwc->c = mk_int(p, "c", error);
    if (!*error && (hwc->h < 1 || hwc->w < 1 || hwc->c < 1))
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "h, w and c must be >= 1");
    return !*error;
}

static const char *nhwc_input(Builder *b, const char *name, gint64 n, const Hwc *hwc)
{
    gint64 dims[4] = {n, hwc->h, hwc->w, hwc->c};
    return builder_input(b, name, DT_FLOAT, 4, dims);
}

static GArray *positive_list(const MkParams *p, const char *name, guint want, GError **error)
{
    GArray *v = mk_ints(p, name, error);
    for (guint k = 0; !*error && k < v->len; k++)
        if (g_array_index(v, gint64, k) < 1)
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--%s entries must be >= 1", name);
    if (!*error && want && v->len != want)
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "--%s takes %u sizes", name, want);
    return v;
}

static Model *build_gather(const MkParams *p, GError **error)
{
    Hwc hwc;
    if (!read_hwc(p, &hwc, error))
        return NULL;
    gint64 n = mk_int(p, "n", error), count = mk_int(p, "indices", error);
    if (*error || n < 1 || count < 1) {
        if (!*error)
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "n and indices must be >= 1");
        return NULL;
    }
    Builder *b = builder_new("gather", 13);
    const char *data = nhwc_input(b, "data", n, &hwc);
    gint64 *idx = g_new(gint64, count);
    for (gint64 k = 0; k < count; k++)
        idx[k] = k % n;
    const char *indices = builder_int_vec(b, "indices", count, idx);
    g_free(idx);
    builder_output(b, builder_node(b, "Gather", (const char *const[]){data, indices, NULL}, 1, (const char *[]){"output"},
                       attr_new_int("axis", 0), NULL));
    return builder_finish(b, error);
}

static Model *build_slice(const MkParams *p, GError **error)
{
    Hwc hwc;
    if (!read_hwc(p, &hwc, error))
        return NULL;
    gint64 n = mk_int(p, "n", error), start = mk_int(p, "start", error), end = mk_int(p, "end", error);
    if (*error || n < 1 || start >= end || end > n) {
        if (!*error)
            g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE, "need 0 <= start < end <= n");
        return NULL;
    }
    Builder *b = builder_new("slice", 13);
    const char *x = nhwc_input(b, "input", n, &hwc);
    gint64 zero = 0;
    builder_output(b, builder_node(b, "Slice",
                       (const char *const[]){x, builder_int_vec(b, "starts", 1, &start), builder_int_vec(b, "ends", 1, &end),
                                             builder_int_vec(b, "axes", 1, &zero), NULL},
                       1, (const char *[]){"output"}, NULL));
    return builder_finish(b, error);
}

static Model *build_concat(const MkParams *p, GError **error)
{
    Hwc hwc;
    if (!read_hwc(p, &hwc, error))
        return NULL;
    GArray *sizes = positive_list(p, "sizes", 0, error);
    Model *m = NULL;
    if (!*error) {
        Builder *b = builder_new("concat", 13);
        const char **inputs = g_new0(const char *, sizes->len + 1);
        for (guint k = 0; k < sizes->len; k++) {
            char name[32];
            g_snprintf(name, sizeof name, "input_%u", k);
            inputs[k] = nhwc_input(b, name, g_array_index(sizes, gint64, k), &hwc);
        }
        builder_output(b, builder_node(b, "Concat", inputs, 1, (const char *[]){"output"}, attr_new_int("axis", 0), NULL));
        g_free(inputs);
        m = builder_finish(b, error);
    }
    g_array_unref(sizes);
    return m;
}

static Model *build_split(const MkParams *p, GError **error)
{
    Hwc hwc;
    if (!read_hwc(p, &hwc, error))
        return NULL;
    GArray *sizes = positive_list(p, "sizes", 0, error);
    Model *m = NULL;
    if (!*error) {
        gint64 total = 0;
        for (guint k = 0; k < sizes->len; k++)
            total += g_array_index(sizes, gint64, k);
        Builder *b = builder_new("split", 13);
        const char *x = nhwc_input(b, "input", total, &hwc);
        const char **outs = g_new0(const char *, sizes->len + 1);
        char **names = g_new0(char *, sizes->len + 1);
        for (guint k = 0; k < sizes->len; k++)
            outs[k] = names[k] = g_strdup_printf("output_%u", k);
        builder_node(b, "Split", (const char *const[]){x, builder_int_vec(b, "split", sizes->len, (gint64 *)sizes->data), NULL},
               (int)sizes->len, outs, attr_new_int("axis", 0), NULL);
        for (guint k = 0; k < sizes->len; k++)
            builder_output(b, outs[k]);
        g_strfreev(names);
        g_free(outs);
        m = builder_finish(b, error);
    }
    g_array_unref(sizes);
    return m;
}

static Model *build_chained(const MkParams *p, GError **error)
{
    Hwc hwc;
    if (!read_hwc(p, &hwc, error))
        return NULL;
    GArray *sizes = positive_list(p, "sizes", 3, error);
    Model *m = NULL;
    if (!*error) {
        Builder *b = builder_new("chained-concat", 13);
        const char *t1 = nhwc_input(b, "tensor_1", g_array_index(sizes, gint64, 0), &hwc);
        const char *t2 = nhwc_input(b, "tensor_2", g_array_index(sizes, gint64, 1), &hwc);
        const char *t3 = nhwc_input(b, "tensor_3", g_array_index(sizes, gint64, 2), &hwc);
        const char *c0 = builder_node(b, "Concat", (const char *const[]){t1, t2, t3, NULL}, 1,
                                (const char *[]){"concat_0_out"}, attr_new_int("axis", 0), NULL);
        builder_output(b, builder_node(b, "Concat", (const char *const[]){t1, c0, t3, NULL}, 1, (const char *[]){"output"},
                           attr_new_int("axis", 0), NULL));
        m = builder_finish(b, error);
    }
    g_array_unref(sizes);
    return m;
}

const MkFamily mk_gather = {
    .name = "gather",
    .summary = "000 seed Example 1: Gather of batches along N (NHWC)",
    .params = gather_params,
    .build = build_gather,
};
const MkFamily mk_slice = {
    .name = "slice",
    .summary = "000 seed Example 2: Slice of batches along N (NHWC)",
    .params = slice_params,
    .build = build_slice,
};
const MkFamily mk_concat = {
    .name = "concat",
    .summary = "000 seed Example 3: Concat along N of inputs with the given batches",
    .params = concat_params,
    .build = build_concat,
};
const MkFamily mk_split = {
    .name = "split",
    .summary = "000 seed Example 4: Split along N into the given batches",
    .params = split_params,
    .build = build_split,
};
const MkFamily mk_chained_concat = {
    .name = "chained-concat",
    .summary = "000 seed: Concat(t1, Concat(t1, t2, t3), t3) along N",
    .params = chained_params,
    .build = build_chained,
};
