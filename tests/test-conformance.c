/* test-conformance.c — the executor's kernels against data nobody here wrote: the ONNX project's node
 * tests as Debian's libonnx-testdata ships them (/usr/share/libonnx-testdata/data/node/NAME/model.onnx
 * with test_data_set_0/input_K.pb and output_K.pb). Every test whose ops all have kernels is planned
 * (all sharing, greedy-size, Transpose as a data move), run inside its arena with the test's inputs, and
 * each output compared: floats within 1e-4 relative (plus 1e-5 absolute near zero), integers exactly.
 * The pass count per op goes to the test output (TAP comments) and, when CONFORMANCE_MD is set, into that
 * markdown file (results/conformance.md via bench/figures.sh). A failing test fails this program unless
 * it is in known_failures below, each with its reason. */
#include "exec/exec.h"
#include "model/onnx.h"
#include "plan/place.h"
#include "strategies/registry.h"
#include "ops/shape.h"
#include "tests/testutil.h"

#include <math.h>
#include <string.h>

#define NODE_TESTS "/usr/share/libonnx-testdata/data/node"

/* Tests that run but disagree, and why (none may pass silently: the program fails if one starts passing
 * unlisted or an unlisted one fails). */
#define WINDOW_DATA_WRONG "the expected window is not symmetric (w[n] and w[N-n] differ by up to 1.1e-4, which no " \
                          "Hann, Hamming or Blackman window does); ours is the formula's value within 1e-6 (Hann, N 10, n 8: " \
                          "0.3454914 = 0.5 - 0.5 cos(1.6 pi); expected 0.3455620)"
static const char *const known_failures[][2] = {
    /* Run since their size input became a constant (read_with_scalars_fixed): the data shipped with ONNX
     * 1.12 carries the error, not the kernels (the expanded graph is Range, Mul, Cos, Sub, Add). */
    {"test_blackmanwindow_expanded", WINDOW_DATA_WRONG},
    {"test_blackmanwindow_symmetric_expanded", WINDOW_DATA_WRONG},
    {"test_hammingwindow_expanded", WINDOW_DATA_WRONG},
    {"test_hammingwindow_symmetric_expanded", WINDOW_DATA_WRONG},
    {"test_hannwindow_expanded", WINDOW_DATA_WRONG},
    {"test_hannwindow_symmetric_expanded", WINDOW_DATA_WRONG},
    /* onnx/onnx#3876: the 1.12 data truncates float32 to bfloat16; ONNX Runtime, and we, round to nearest even
     * (element 1: 0.48046875 here, 0.478515625 in the data) */
    {"test_cast_FLOAT_to_BFLOAT16", "the expected data truncates to bfloat16 where ONNX Runtime and we round to nearest "
                                    "even (onnx/onnx#3876)"},
    /* The expected values are written by hand to four decimals (onnx's backend test gridsample.py); torch's
     * grid_sample gives ours exactly (element 0: -0.140625, written -0.1406: 1.8e-4 relative) */
    {"test_gridsample_bicubic", "the expected data is rounded to four decimals; torch.nn.functional.grid_sample "
                                "gives our values exactly (element 0: -0.140625, written -0.1406)"},
    {NULL, NULL},
};

typedef struct {
    guint run, passed, not_run;
    GString *failed;
    char *why_not; /* the first reason a test of this op was not run */
} OpCount;

typedef enum { OUTCOME_PASS, OUTCOME_FAIL, OUTCOME_SKIP } Outcome;

/* Tests whose expected floats are written to fewer digits than the default tolerance asks for: the
 * absolute difference that rounding allows. */
static const struct {
    const char *prefix;
    double atol;
} written_rounded[] = {
    {"test_roialign_", 5e-5}, /* onnx's test script writes RoiAlign's expected Y to 4 decimals */
};

static double extra_atol(const char *test)
{
    for (gsize k = 0; k < G_N_ELEMENTS(written_rounded); k++)
        if (g_str_has_prefix(test, written_rounded[k].prefix))
            return written_rounded[k].atol;
    return 0.0;
}

static gboolean close_enough(const ExecTensor *got, const TensorData *want, double atol, gsize *bad)
{
    ExecTensor w = {.data = (void *)g_bytes_get_data(want->raw, NULL), .dtype = want->dtype, .count = got->count};
    for (gsize k = 0; k < got->count; k++) {
        if (dtype_is_float(got->dtype)) {
            double a = kernel_elem_get_f(got, k), b = kernel_elem_get_f(&w, k);
            if (isnan(a) && isnan(b))
                continue;
            if (!(fabs(a - b) <= 1e-4 * fabs(b) + 1e-5 + atol) && !(isinf(a) && a == b)) {
                *bad = k;
                return FALSE;
            }
        } else if (kernel_elem_get_i(got, k) != kernel_elem_get_i(&w, k)) {
            *bad = k;
            return FALSE;
        }
    }
    return TRUE;
}

/* ONNX 1.12's test data stores BFLOAT16 tensors as UINT16 bits: read them as what the model declares. */
static void bfloat16_as_declared(TensorData *d, DType declared)
{
    if (d && d->dtype == DT_UINT16 && declared == DT_BFLOAT16)
        d->dtype = DT_BFLOAT16;
}

/* The largest test input made a constant: scalars (TopK's K, Range's bounds) and the short vectors of
 * shapes, pads, repeats, scales, sizes and roi (Expand, Pad, Tile, Resize). */
#define FIXED_INPUT_MAX 16

/* The model of node test `dir` again, with each of the `fed` inputs (by name) whose test data holds at
 * most FIXED_INPUT_MAX elements made an initializer of that value. `fed` holds the names of the test's
 * inputs. */
static Model *read_with_scalars_fixed(const char *dir, const GPtrArray *fed, GError **error)
{
    char *path = g_build_filename(dir, "model.onnx", NULL);
    Model *m = onnx_read_file(path, error);
    g_free(path);
    for (guint k = 0; m && k < fed->len; k++) {
        char *name = g_strdup_printf("input_%u.pb", k);
        char *file = g_build_filename(dir, "test_data_set_0", name, NULL);
        TensorData *d = onnx_read_tensor_file(file, NULL);
        g_free(file);
        g_free(name);
        Tensor *x = graph_tensor(m->graph, fed->pdata[k]);
        gint64 count = 1;
        for (int a = 0; d && a < d->rank; a++)
            count *= d->dims[a];
        if (d && x && count <= FIXED_INPUT_MAX) {
            g_free(d->name);
            d->name = g_strdup(x->name);
            if (graph_add_initializer(m->graph, d, error)) {
                x->kind = TENSOR_WEIGHT;
                continue;
            }
            model_free(m);
            return NULL;
        }
        tensor_data_free(d);
    }
    return m;
}

/* One node test: SKIP when the executor cannot run it (its reason in *why), else PASS or FAIL. */
static Outcome run_one(const char *dir, char **op, char **why)
{
    GError *error = NULL;
    char *path = g_build_filename(dir, "model.onnx", NULL);
    Model *m = onnx_read_file(path, &error);
    g_free(path);
    Outcome outcome = OUTCOME_SKIP;
    AliasMap *aliases = NULL;
    Trace *t = NULL;
    Plan *plan = NULL;
    Executor *e = NULL;
    ShapeOptions so;
    shape_options_init(&so);
    /* The test's own inputs, numbered before any becomes a constant. */
    GPtrArray *fed = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; m && i < m->graph->inputs->len; i++)
        if (!((Tensor *)m->graph->inputs->pdata[i])->init)
            g_ptr_array_add(fed, g_strdup(((Tensor *)m->graph->inputs->pdata[i])->name));
    if (m && !shape_infer(m, &so, &error) &&
        (strstr(error->message, "must be a constant") || strstr(error->message, "unbound symbolic"))) {
        /* TopK's K, Range's bounds, Resize's scales: values the planner needs before running. The test's
         * short inputs become initializers, as an exporter with fixed values writes them (so does an empty input
         * whose size is a symbolic dimension: --dim binds only positive sizes). */
        g_clear_error(&error);
        model_free(m);
        m = read_with_scalars_fixed(dir, fed, &error);
        shape_options_clear(&so);
        shape_options_init(&so);
        if (m)
            shape_infer(m, &so, &error);
    }
    if (!m || error) {
        *why = g_strdup_printf("not planned: %s", error->message);
        *op = g_strdup(m && m->graph->nodes->len ? ((Node *)m->graph->nodes->pdata[0])->op_type : "?");
        goto out;
    }
    const Graph *g = m->graph;
    *op = g_strdup(g->nodes->len == 1 ? ((Node *)g->nodes->pdata[0])->op_type : "(several ops)");
    LayoutOptions layout = LAYOUT_DEFAULTS;
    layout.transpose_moves = TRUE;
    if (!(aliases = test_alias_trace(g, &layout, "all", &t, &error)) || !(plan = place_run(registry_place_find("greedy-size"), t, &error))) {
        *why = g_strdup_printf("not planned: %s", error->message);
        goto out;
    }
    e = executor_new(m, g->order, aliases, t, plan, &error);
    if (!e) {
        *why = g_strdup(error->message);
        goto out;
    }
    /* Inputs: the graph inputs that are not initializers, in order, from input_K.pb. */
    for (guint k = 0; k < fed->len; k++) {
        const Tensor *x = graph_tensor((Graph *)g, fed->pdata[k]);
        if (x->init)
            continue; /* made a constant above */
        char *name = g_strdup_printf("input_%u.pb", k);
        char *file = g_build_filename(dir, "test_data_set_0", name, NULL);
        TensorData *d = onnx_read_tensor_file(file, &error);
        bfloat16_as_declared(d, x->dtype);
        gboolean ok = d && executor_set_input(e, x->name, d, &error);
        tensor_data_free(d);
        g_free(file);
        g_free(name);
        if (!ok) {
            *why = g_strdup_printf("inputs: %s", error->message);
            goto out;
        }
    }
    if (!executor_run(e, TRUE, &error)) {
        /* a kernel that does not cover this case says so (a dtype, a rank, training mode): not run */
        outcome = g_error_matches(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED) ? OUTCOME_SKIP : OUTCOME_FAIL;
        *why = g_strdup_printf("run: %s", error->message);
        goto out;
    }
    outcome = OUTCOME_FAIL;
    for (guint o = 0; o < executor_output_count(e); o++) {
        const char *out_name;
        const ExecTensor *got = executor_output(e, o, &out_name);
        char *name = g_strdup_printf("output_%u.pb", o);
        char *file = g_build_filename(dir, "test_data_set_0", name, NULL);
        TensorData *want = onnx_read_tensor_file(file, &error);
        bfloat16_as_declared(want, got->dtype);
        g_free(file);
        g_free(name);
        gsize bad = 0;
        if (!want || !want->raw || want->dtype != got->dtype || g_bytes_get_size(want->raw) != got->count * dtype_size(got->dtype)) {
            *why = g_strdup_printf("output '%s': expected data unreadable or of another type/size", out_name);
            tensor_data_free(want);
            goto out;
        }
        gboolean same_shape = want->rank == got->rank; /* data-dependent outputs: the run's shape, not the bound */
        for (int d = 0; same_shape && d < got->rank; d++)
            same_shape = want->dims[d] == got->dims[d];
        if (!same_shape) {
            char *gs = graph_dims_to_string(got->rank, got->dims), *ws = graph_dims_to_string(want->rank, want->dims);
            *why = g_strdup_printf("output '%s' has shape %s, expected %s", out_name, gs, ws);
            g_free(gs);
            g_free(ws);
            tensor_data_free(want);
            goto out;
        }
        char *test = g_path_get_basename(dir);
        gboolean same = close_enough(got, want, extra_atol(test), &bad);
        g_free(test);
        if (!same) {
            ExecTensor w = {.data = (void *)g_bytes_get_data(want->raw, NULL), .dtype = want->dtype, .count = got->count};
            *why = g_strdup_printf("output '%s' differs at element %" G_GSIZE_FORMAT ": %.9g, expected %.9g", out_name, bad,
                                   kernel_elem_get_f(got, bad), kernel_elem_get_f(&w, bad));
            tensor_data_free(want);
            goto out;
        }
        tensor_data_free(want);
    }
    outcome = OUTCOME_PASS;
out:
    g_clear_error(&error);
    g_ptr_array_unref(fed);
    executor_free(e);
    plan_free(plan);
    trace_free(t);
    alias_map_free(aliases);
    shape_options_clear(&so);
    model_free(m);
    return outcome;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *known_reason(const char *test)
{
    for (gsize k = 0; known_failures[k][0]; k++)
        if (!strcmp(known_failures[k][0], test))
            return known_failures[k][1];
    return NULL;
}

static void test_node_tests(void)
{
    GDir *d = g_dir_open(NODE_TESTS, 0, NULL);
    if (!d) {
        g_test_fail_printf("%s is missing (make deps installs libonnx-testdata)", NODE_TESTS);
        return;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (const char *n; (n = g_dir_read_name(d));)
        g_ptr_array_add(names, g_strdup(n));
    g_dir_close(d);
    g_ptr_array_sort(names, compare_names);
    GHashTable *ops = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GPtrArray *op_order = g_ptr_array_new();
    guint run = 0, passed = 0, skipped = 0;
    GString *unexpected = g_string_new(NULL);
    for (guint k = 0; k < names->len; k++) {
        const char *name = names->pdata[k];
        char *dir = g_build_filename(NODE_TESTS, name, NULL);
        char *op = NULL, *why = NULL;
        Outcome outcome = run_one(dir, &op, &why);
        g_free(dir);
        OpCount *c = g_hash_table_lookup(ops, op);
        if (!c) {
            c = g_new0(OpCount, 1);
            c->failed = g_string_new(NULL);
            g_hash_table_insert(ops, g_strdup(op), c);
            g_ptr_array_add(op_order, g_strdup(op));
        }
        if (outcome == OUTCOME_SKIP) {
            skipped++;
            c->not_run++;
            if (!c->why_not) /* the reason without the node's name: "node #0 (Op): why" -> "why" */
                c->why_not = g_strdup(strstr(why, "): ") ? strstr(why, "): ") + 3 : why);
        } else {
            c->run++;
            run++;
            const char *reason = known_reason(name);
            if (outcome == OUTCOME_PASS) {
                c->passed++;
                passed++;
                if (reason)
                    g_string_append_printf(unexpected, "%s passes but is listed as a known failure\n", name);
            } else {
                g_string_append_printf(c->failed, "%s%s", c->failed->len ? ", " : "", name);
                if (!reason)
                    g_string_append_printf(unexpected, "%s: %s\n", name, why);
            }
        }
        g_free(op);
        g_free(why);
    }
    g_ptr_array_sort(op_order, compare_names);
    GString *md = g_string_new(NULL);
    g_string_append_printf(md, "# Kernel conformance: the ONNX node tests\n\nMade by `tests/test-conformance.c` (`make test`; "
                           "`bench/figures.sh conformance` writes this file). Debian's libonnx-testdata, %u node tests: "
                           "%u run, %u pass, %u not run (an op without a kernel, a case a kernel does not cover — "
                           "float16, training mode — or a model the planner refuses). Each is planned with all sharing and greedy-size, run in its arena with "
                           "poison, and compared with the test's outputs: floats within 1e-4 relative (+1e-5 absolute), "
                           "integers exactly. *Not run* gives the first reason met for that op.\n\n| op | run | pass | not run | failing tests, or why not run |\n|---|---:|---:|---:|---|\n",
                           names->len, run, passed, skipped);
    for (guint k = 0; k < op_order->len; k++) {
        OpCount *c = g_hash_table_lookup(ops, op_order->pdata[k]);
        if (c->run)
            g_test_message("%s: %u/%u", (const char *)op_order->pdata[k], c->passed, c->run);
        char *why = c->why_not ? g_strescape(c->why_not, NULL) : NULL;
        for (char *p = why; p && *p; p++)
            if (*p == '|')
                *p = '/';
        g_string_append_printf(md, "| %s | %u | %u | %u | %s%s%s |\n", (const char *)op_order->pdata[k], c->run,
                               c->passed, c->not_run, c->failed->str, c->failed->len && why ? "; " : "", why ? why : "");
        g_free(why);
    }
    g_test_message("node tests: %u, run %u, passed %u, not run %u", names->len, run, passed, skipped);
    const char *md_path = g_getenv("CONFORMANCE_MD");
    if (md_path)
        g_assert_true(g_file_set_contents(md_path, md->str, (gssize)md->len, NULL));
    if (unexpected->len)
        g_test_fail_printf("unexpected conformance results:\n%s", unexpected->str);
    g_assert_cmpuint(run, >=, 640); /* the executor covers most of the common ops */
    /* Ops real exports use (issues 21 and 39): each has node tests, and every one of them runs and passes. */
    static const char *const required[] = {"ArgMax", "ArgMin", "AveragePool", "Compress", "ConvTranspose", "CumSum",
                                           "DepthToSpace", "Einsum", "Expand", "EyeLike", "GatherElements", "GRU",
                                           "Hardmax", "InstanceNormalization", "LRN", "LSTM", "NonMaxSuppression",
                                           "NonZero", "Pad", "Range", "Resize", "RNN", "RoiAlign", "ScatterElements",
                                           "ScatterND", "Size", "SpaceToDepth", "Tile", "TopK", "Trilu", "Unique",
                                           "Upsample", "Where"};
    for (gsize k = 0; k < G_N_ELEMENTS(required); k++) {
        const OpCount *c = g_hash_table_lookup(ops, required[k]);
        if (!c || !c->run || c->passed != c->run)
            g_test_fail_printf("%s: %u of %u node tests run pass (%u not run)", required[k], c ? c->passed : 0,
                               c ? c->run : 0, c ? c->not_run : 0);
    }
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, ops);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        g_string_free(((OpCount *)value)->failed, TRUE);
        g_free(((OpCount *)value)->why_not);
        g_free(value);
    }
    g_hash_table_unref(ops);
    g_ptr_array_set_free_func(op_order, g_free);
    g_ptr_array_unref(op_order);
    g_ptr_array_unref(names);
    g_string_free(unexpected, TRUE);
    g_string_free(md, TRUE);
}

/* ONNX's own models of sequences (libonnx-testdata's simple/test_sequence_model1..8: SequenceEmpty, Construct,
 * Insert, Erase, At, Length, ConcatFromSequence with and without a new axis, SplitToSequence by ones, by a chunk and
 * by sizes, keepdims 0): the sequences folded at plan time (their positions, short inputs, become constants as for
 * the node tests), planned, run in the arena and compared with the expected outputs: all eight pass. */
static void test_sequence_models(void)
{
    for (int k = 1; k <= 8; k++) {
        char *dir = g_strdup_printf("/usr/share/libonnx-testdata/data/simple/test_sequence_model%d", k);
        char *op = NULL, *why = NULL;
        Outcome outcome = run_one(dir, &op, &why);
        if (outcome != OUTCOME_PASS)
            g_test_fail_printf("test_sequence_model%d: %s", k, why ? why : "differs");
        g_free(op);
        g_free(why);
        g_free(dir);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/conformance/node-tests", test_node_tests);
    g_test_add_func("/conformance/sequence-models", test_sequence_models);
    return g_test_run();
}
