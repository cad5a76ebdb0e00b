/* test-kv.c — a decoder's KV cache planned at capacity (sim/memory/kv.h): the pairs found from the graph or
 * named, the cache one buffer of the capacity live for the whole step with the past inside it and its views
 * in it, every refusal one clear line; then through `sim`, planned and run inside the plan. */
#include "testutil.h"

#include "api/arenasim.h"
#include "memory/kv.h"
#include "plan/place.h"
#include "plan/verify.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

/* The graph traced with every sharing and the request; NULL with *error. */
static AliasMap *kv_trace(const Model *m, const KvRequest *kv, const LayoutOptions *layout, Trace **t, GError **error)
{
    const AliasStrategy **aliases = registry_alias_list_resolve("all", error);
    g_assert_nonnull(aliases);
    PipelineRecipe r = {.schedule = m->graph->order, .layout = *layout, .aliases = aliases, .kv = kv};
    PipelineResult built = {0};
    AliasMap *map = NULL;
    *t = NULL;
    if (pipeline_trace(m->graph, &r, &built, error)) {
        map = built.aliases;
        *t = built.trace;
        built.aliases = NULL;
        built.trace = NULL;
    }
    pipeline_result_clear(&built);
    g_free(aliases);
    return map;
}

static const TraceBuffer *buffer_named(const Trace *t, const char *name)
{
    for (guint k = 0; k < trace_count(t); k++)
        if (!strcmp(trace_buffer(t, k)->name, name))
            return trace_buffer(t, k);
    return NULL;
}

/* Past 3, capacity 8: the cache is 1·3·8·4 floats (384 B) live from step 0 to the last, the past inside it at 0,
 * the Transpose a view of it (as the seeds plan a Transpose); the other buffers: x (48 B), the slice (48 B), the
 * scores [1,3,1,4] (48 B). */
static void test_capacity_buffer(void)
{
    Model *m = test_decode_step(3, FALSE);
    LayoutOptions layout = LAYOUT_DEFAULTS;
    KvRequest kv = {.capacity = 8};
    Trace *t;
    GError *error = NULL;
    AliasMap *map = kv_trace(m, &kv, &layout, &t, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(map->kv_pairs, ==, 1);
    g_assert_cmpuint(map->kv_bytes, ==, 384);
    const TraceBuffer *cache = buffer_named(t, "present.0.key");
    g_assert_nonnull(cache);
    g_assert_cmpuint(cache->size, ==, 384);
    g_assert_cmpuint(cache->first, ==, 0);
    g_assert_cmpuint(cache->last, ==, t->steps - 1);
    g_assert_null(buffer_named(t, "past_key_values.0.key"));
    guint64 off;
    Tensor *past = graph_tensor(m->graph, "past_key_values.0.key");
    g_assert_cmpint(alias_root(map, past->id, &off), ==, graph_tensor(m->graph, "present.0.key")->id);
    g_assert_cmpuint(off, ==, 0);
    g_assert_cmpuint(map->aliased_ops[SHARE_KV], ==, 1);
    guint64 total = 0;
    for (guint k = 0; k < trace_count(t); k++)
        total += trace_buffer(t, k)->size;
    g_assert_cmpuint(trace_count(t), ==, 4); /* the cache, x, the slice, the scores: the Transpose is a view of the cache */
    g_assert_cmpuint(total, ==, 384 + 48 + 48 + 48);
    Plan *plan = place_run_with(registry_place_find("best"), t, &test_place_options, &error);
    g_assert_no_error(error);
    g_assert_true(verify_plan(t, plan, &error));
    g_assert_cmpuint(plan->arena, ==, 384 + 64 + 64); /* at each step the cache and two 48 B buffers, 64-aligned */
    plan_free(plan);
    trace_free(t);
    alias_map_free(map);
    model_free(m);
}

/* Views of the cache are views of its live prefix, a Reshape too: the ReduceSum reads the cache's bytes. */
static void test_views(void)
{
    Model *m = test_decode_step(3, TRUE);
    LayoutOptions layout = LAYOUT_DEFAULTS;
    layout.transpose_moves = TRUE; /* as --run plans it: the Transpose a copy, the Reshape still a view */
    KvRequest kv = {.capacity = 8};
    Trace *t;
    GError *error = NULL;
    AliasMap *map = kv_trace(m, &kv, &layout, &t, &error);
    g_assert_no_error(error);
    const Tensor *present = graph_tensor(m->graph, "present.0.key");
    const Node *reshape = NULL;
    for (guint k = 0; k < present->consumers->len; k++)
        if (!strcmp(((const Node *)present->consumers->pdata[k])->op_type, "Reshape"))
            reshape = present->consumers->pdata[k];
    g_assert_nonnull(reshape);
    guint64 off;
    g_assert_cmpint(alias_root(map, node_output(reshape, 0)->id, &off), ==, present->id);
    g_assert_cmpuint(off, ==, 0);
    g_assert_null(buffer_named(t, node_output(reshape, 0)->name));
    trace_free(t);
    alias_map_free(map);
    model_free(m);
}

/* Named pairs: a pattern with one '*' each side, or the names whole; every mistake one line naming it. */
static void test_patterns(void)
{
    Model *m = test_decode_step(3, FALSE);
    static const struct {
        const char *pattern, *error;
    } cases[] = {
        {"past_key_values.*=present.*", NULL},
        {"past_key_values.0.key=present.0.key", NULL},
        {"past_key_values.*.key=present.*.key", NULL},
        {"past*=present*=x", "--kv takes PAST=PRESENT"},
        {"past_key_values.*=present", "--kv takes PAST=PRESENT"},
        {"nothing.*=present.*", "--kv nothing.*=present.* matches no graph input"},
        {"x=present.0.key", "'x' and 'present.0.key' are not a cache pair: 'present.0.key' is not made by a Concat "
                            "whose first input is 'x'"},
        {"past_key_values.*=missing.*", "the graph has no tensor 'missing.0.key'"},
    };
    for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
        const char *patterns[] = {cases[k].pattern, NULL};
        KvRequest kv = {.capacity = 8, .patterns = patterns};
        GArray *pairs = g_array_new(FALSE, FALSE, sizeof(KvPair));
        GError *error = NULL;
        gboolean ok = kv_pairs_find(m->graph, &kv, pairs, &error);
        if (cases[k].error) {
            g_assert_false(ok);
            g_assert_nonnull(error);
            assert_contains(error->message, cases[k].error);
            g_clear_error(&error);
        } else {
            g_assert_no_error(error);
            g_assert_cmpuint(pairs->len, ==, 1);
            g_assert_cmpint(g_array_index(pairs, KvPair, 0).axis, ==, 2);
        }
        g_array_unref(pairs);
    }
    model_free(m);
}

/* What the request refuses: a capacity under the present's length, a layout with the caller's inputs outside,
 * a graph with no pair. */
static void test_refusals(void)
{
    Model *m = test_decode_step(3, FALSE);
    LayoutOptions layout = LAYOUT_DEFAULTS;
    Trace *t;
    GError *error = NULL;
    KvRequest small = {.capacity = 3};
    g_assert_null(kv_trace(m, &small, &layout, &t, &error));
    g_assert_nonnull(error);
    assert_contains(error->message, "--kv-capacity 3 holds fewer tokens than 'present.0.key' has (4 along axis 2)");
    g_clear_error(&error);
    KvRequest kv = {.capacity = 4};
    layout.inputs_outside = TRUE;
    g_assert_null(kv_trace(m, &kv, &layout, &t, &error));
    assert_contains(error->message, "cannot be used with --io outside or inputs-outside");
    g_clear_error(&error);
    model_free(m);
    Builder *b = builder_new("plain", 13);
    builder_input(b, "a", DT_FLOAT, 1, (const gint64[]){4});
    builder_output(b, B_OP(b, "Relu", "a"));
    m = builder_finish(b, &error);
    g_assert_true(test_infer(m, NULL, &error));
    LayoutOptions plain = LAYOUT_DEFAULTS;
    g_assert_null(kv_trace(m, &kv, &plain, &t, &error));
    assert_contains(error->message, "the graph has no KV cache pair");
    g_clear_error(&error);
    model_free(m);
}

/* Through the command: the report's cache line and json object, a range over the past length whose arena is
 * the cache plus what grows with it, and the usage errors. */
static void test_sim(void)
{
    Model *m = test_decode_step(3, FALSE);
    char *path = test_write_model(m, "decode.onnx");
    RunResult r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--kv-capacity", "8", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "kv cache       1 pair at 8 tokens: 384 B, live for the whole step");
    assert_contains(r.out, "arena          512 B");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--kv-capacity", "8", "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\"capacity_tokens\" : 8");
    assert_contains(r.out, "\"cache_bytes\" : 384");
    run_result_clear(&r);
    /* Run inside the plan: the Concat grows the cache in place (each head's past moves to its wider place, the
     * last first), and every output equals the run with nothing shared, bit for bit, dead buffers poisoned. */
    r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--kv-capacity", "8", "--run", "--check",
                                                  "--poison", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "equal the reference run (nothing shared) bit for bit, with poison");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--kv", "a=b", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "--kv names the cache pairs that --kv-capacity N plans: give both");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--kv-capacity", "0", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "--kv-capacity takes a positive number of tokens");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--kv-capacity", "2", NULL});
    g_assert_cmpint(r.status, !=, 0);
    assert_contains(r.err, "--kv-capacity 2 holds fewer tokens than 'present.0.key' has (4 along axis 2)");
    run_result_clear(&r);
    g_free(path);
}

/* Two entry points in one arena: the cache (384 B at capacity 8) once for both, the prefill's present in it; each
 * entry's other buffers in its own steps. */
static void test_entries(void)
{
    char *prefill = test_write_model(test_prefill_step(), "prefill.onnx"), *decode = test_write_model(test_decode_step(3, FALSE), "decode.onnx");
    RunResult r = test_run("SIM_BIN", (const char *const[]){"--graph", prefill, "--graph", decode, "--kv-capacity",
                                                          "8", "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, r.out, -1, NULL));
    JsonObject *o = json_node_get_object(json_parser_get_root(parser));
    g_assert_cmpint(json_object_get_int_member(o, "state_buffers"), ==, 1);
    g_assert_cmpint(json_object_get_int_member(o, "state_bytes"), ==, 384);
    /* the cache, then the prefill's x (144 B, 64-aligned: 192) or its sum, or the decode's two 48 B buffers */
    g_assert_cmpint(json_object_get_int_member(o, "arena_bytes"), ==, 384 + 192);
    g_assert_cmpint(json_object_get_int_member(o, "lower_bound_bytes"), ==, 384 + 144);
    JsonArray *entries = json_object_get_array_member(o, "entries");
    g_assert_cmpuint(json_array_get_length(entries), ==, 2);
    JsonObject *first = json_array_get_object_element(entries, 0), *second = json_array_get_object_element(entries, 1);
    g_assert_cmpstr(json_object_get_string_member(first, "entry"), ==, "prefill");
    g_assert_cmpint(json_object_get_int_member(first, "state_bytes"), ==, 144); /* three tokens of the cache */
    g_assert_cmpint(json_object_get_int_member(second, "state_bytes"), ==, 384);
    g_assert_cmpint(json_object_get_int_member(first, "alone_arena_bytes"), ==, 384 + 192);
    g_assert_cmpint(json_object_get_int_member(second, "alone_arena_bytes"), ==, 384 + 128);
    g_object_unref(parser);
    run_result_clear(&r);
    /* each entry's dims by name; a range, two models of one name, and entries sharing nothing refused */
    r = test_run("SIM_BIN", (const char *const[]){"--graph", prefill, "--graph", decode, "--kv-capacity", "8", "--dim",
                                                  "decode:seq=1:4", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "--dim 'decode:seq=1:4': entries take one value a dim");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *const[]){"--graph", decode, "--graph", decode, "--kv-capacity", "8", NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "have one name, 'decode': entries are told apart by their file names");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *const[]){"--graph", prefill, "--graph", decode, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "the entries share no state");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *const[]){"--graph", prefill, "--graph", decode, "--kv-capacity", "8", "--run",
                                                  NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "several --graph plan entry points in one arena and report it");
    run_result_clear(&r);
    /* a generation whose prefill writes no cache the decode step reads: refused before anything runs */
    char *prompt = test_scratch_path("prompt"), *input = g_build_filename(prompt, "input_0.pb", NULL);
    g_assert_cmpint(g_mkdir(prompt, 0700), ==, 0);
    TensorData *x = tensor_data_new("ids", DT_INT64, 2, (const gint64[]){1, 3});
    x->raw = g_bytes_new_take(g_new0(gint64, 3), 3 * sizeof(gint64));
    GError *error = NULL;
    g_assert_true(onnx_write_tensor_file(x, input, &error));
    tensor_data_free(x);
    Builder *b = builder_new("no-cache", 13);
    builder_input(b, "ids", DT_INT64, 2, (const gint64[]){1, 3});
    builder_output(b, B_OPA(b, "Cast", attr_new_int("to", DT_FLOAT), "ids"));
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *no_cache = test_write_model(m, "no-cache.onnx");
    char *symbolic = test_write_model(test_decode_step(-1, FALSE), "decode-symbolic.onnx");
    r = test_run("SIM_BIN", (const char *const[]){"--graph", no_cache, "--graph", symbolic, "--kv-capacity", "8",
                                                  "--generate", "2", "--inputs", prompt, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "writes no cache 'present.0.key' (no graph output of that name)");
    run_result_clear(&r);
    g_free(symbolic);
    g_free(no_cache);
    g_free(input);
    g_free(prompt);
    g_free(prefill);
    g_free(decode);
}

/* A greedy generation inside one plan against torch's own (bench/export_decode.py, Debian's torch): the
 * GPT-2-style and LLaMA-style decoders' prefill and decode step, the caches kept in the arena from step to step,
 * every token equal to torch's, dead buffers poisoned; a wrong expected token makes the run fail. The sanitizer
 * pass makes 8 tokens, the native one 32. */
static void test_generate_torch(void)
{
    char *dir = test_scratch_path("decoders"), *script = test_source_path("bench/export_decode.py");
    char *argv[] = {"/usr/bin/python3", script, dir, NULL}, *err = NULL;
    gint status = 0;
    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL))
        g_error("bench/export_decode.py failed: %s", err);
    const char *tokens = g_getenv("ARENASIM_TEST_SAMPLE") ? "8" : "32";
    for (guint m = 0; m < 2; m++) {
        const char *model = m ? "llama" : "gpt2";
        char *prefill = g_strdup_printf("%s/%s-prefill.onnx", dir, model), *decode = g_strdup_printf("%s/%s-kv.onnx",
                                                                                                      dir, model);
        char *data = g_strdup_printf("%s/%s-generate", dir, model), *want = g_strdup_printf(
                                                                        "check          %s of %s tokens equal those "
                                                                        "expected\n", tokens, tokens);
        RunResult r = test_run("SIM_BIN", (const char *const[]){"--graph", prefill, "--graph", decode, "--kv-capacity",
                                                              "64", "--generate", tokens, "--inputs", data,
                                                              "--expect", data, "--poison", NULL});
        if (r.status != 0)
            g_error("%s: %s%s", model, r.out, r.err);
        assert_contains(r.out, want);
        assert_contains(r.out, "state          8 buffers live through every entry (KV caches)");
        run_result_clear(&r);
        if (m == 0) { /* torch's tokens with the fourth changed: the run says so and fails */
            char *wrong = g_strdup_printf("%s/wrong", dir);
            const char *edit = "import sys, onnx\nfrom onnx import numpy_helper\n"
                               "t = numpy_helper.to_array(onnx.load_tensor(sys.argv[1] + '/output_0.pb')).copy()\n"
                               "t[0, 3] = (t[0, 3] + 1) % 8000\n"
                               "open(sys.argv[2] + '/output_0.pb', 'wb').write(numpy_helper.from_array(t)"
                               ".SerializeToString())\n";
            g_assert_cmpint(g_mkdir(wrong, 0700), ==, 0);
            char *py[] = {"/usr/bin/python3", "-c", (char *)edit, data, wrong, NULL};
            g_assert_true(g_spawn_sync(NULL, py, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, NULL));
            g_assert_true(g_spawn_check_wait_status(status, NULL));
            r = test_run("SIM_BIN", (const char *const[]){"--graph", prefill, "--graph", decode, "--kv-capacity", "64",
                                                          "--generate", tokens, "--inputs", data, "--expect", wrong,
                                                          NULL});
            g_assert_cmpint(r.status, ==, 1);
            assert_contains(r.out, "3 of");
            assert_contains(r.err, "the tokens differ from those expected");
            run_result_clear(&r);
            g_free(wrong);
            /* the library and Python (installed: make check's prefix) make the same tokens */
            arenasim_options o;
            arenasim_options_init(&o);
            o.kv_capacity = 64;
            o.inputs = data;
            arenasim_run_options ro;
            arenasim_run_options_init(&ro);
            ro.expect = data;
            char *error = NULL;
            arenasim_generation *g = arenasim_generate(prefill, decode, 8, &o, &ro, &error);
            g_assert_null(error);
            g_assert_cmpuint(arenasim_generation_token_count(g), ==, 8);
            g_assert_cmpuint(arenasim_generation_matched(g), ==, 8);
            g_assert_cmpuint(arenasim_generation_arena_bytes(g), >, 0);
            arenasim_generation_free(g);
            const char *prefix = g_getenv("ARENASIM_PREFIX");
            if (prefix) {
                char *pypath = g_strdup_printf("PYTHONPATH=%s/lib/python3/dist-packages", prefix);
                const char *check = "import sys, arenasim\n"
                                     "g = arenasim.generate(sys.argv[1], sys.argv[2], 8, kv_capacity=64, "
                                     "inputs=sys.argv[3], run_options={'expect': sys.argv[3]})\n"
                                     "assert g.matched == 8 and len(g.tokens) == 8, g\n"
                                     "assert g.report['tokens'] == g.tokens\n"
                                     "assert g.report['plan']['state_buffers'] == 8\n";
                char *argv3[] = {"/usr/bin/python3", "-c", (char *)check, prefill, decode, data, NULL};
                char *env[] = {pypath, NULL}, *out = NULL, *perr = NULL;
                g_assert_true(g_spawn_sync(NULL, argv3, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &perr, &status, NULL));
                if (!g_spawn_check_wait_status(status, NULL))
                    g_error("python3: %s%s", out, perr);
                g_free(out);
                g_free(perr);
                g_free(pypath);
            }
        }
        g_free(prefill);
        g_free(decode);
        g_free(data);
        g_free(want);
    }
    g_free(err);
    g_free(script);
    g_free(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/kv/capacity-buffer", test_capacity_buffer);
    g_test_add_func("/kv/views", test_views);
    g_test_add_func("/kv/patterns", test_patterns);
    g_test_add_func("/kv/refusals", test_refusals);
    g_test_add_func("/kv/sim", test_sim);
    g_test_add_func("/kv/entries", test_entries);
    g_test_add_func("/kv/generate-torch", test_generate_torch);
    return g_test_run();
}
