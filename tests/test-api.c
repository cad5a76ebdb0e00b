/* test-api.c — the planner as a library. In process: the public API (sim/api/arenasim.h) plans what the
 * command plans, to the byte; its errors are messages; its buffers are the plan. Installed (make install
 * into a folder of the build, ARENASIM_PREFIX): examples/plan.c built with pkg-config alone, and the Python
 * module run by Debian's python3, both against the command's bytes. */
#include "api/arenasim.h"
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

/* The arena `sim --format json` reports for a graph, a strategy (NULL: the default) and --dim bindings. */
static guint64 command_arena(const char *graph, const char *strategy, const char *order, const char *const *dims)
{
    GPtrArray *args = g_ptr_array_new();
    g_ptr_array_add(args, g_str_has_suffix(graph, ".onnx") ? "--graph" : "--trace");
    g_ptr_array_add(args, (gpointer)graph);
    g_ptr_array_add(args, "--format");
    g_ptr_array_add(args, "json");
    if (order) {
        g_ptr_array_add(args, "--order");
        g_ptr_array_add(args, (gpointer)order);
    }
    if (strategy) {
        g_ptr_array_add(args, "--strategy");
        g_ptr_array_add(args, (gpointer)strategy);
    }
    for (const char *const *d = dims; d && *d; d++) {
        g_ptr_array_add(args, "--dim");
        g_ptr_array_add(args, (gpointer)*d);
    }
    g_ptr_array_add(args, NULL);
    RunResult r = test_run("SIM_BIN", (const char *const *)args->pdata);
    g_assert_cmpint(r.status, ==, 0);
    const char *at = strstr(r.out, "\"arena_bytes\" : ");
    g_assert_nonnull(at);
    guint64 arena = g_ascii_strtoull(at + strlen("\"arena_bytes\" : "), NULL, 10);
    run_result_clear(&r);
    g_ptr_array_unref(args);
    return arena;
}

static void test_same_as_command(void)
{
    const char *strategies[] = {NULL, "bestfit", "greedy-size", "firstfit"};
    for (guint k = 0; k < G_N_ELEMENTS(strategies); k++) {
        arenasim_options o;
        arenasim_options_init(&o);
        o.strategy = strategies[k];
        char *error = NULL;
        arenasim_plan *p = arenasim_plan_file("graphs/gpt2.onnx", &o, &error);
        g_assert_null(error);
        g_assert_nonnull(p);
        g_assert_cmpuint(arenasim_plan_arena_bytes(p), ==,
                         command_arena("graphs/gpt2.onnx", strategies[k], NULL, NULL));
        g_assert_cmpuint(arenasim_plan_lower_bound_bytes(p), ==, 26124800); /* docs/corpus.md */
        g_assert_cmpstr(arenasim_plan_strategy(p), ==, strategies[k] ? strategies[k] : "best");
        g_assert_cmpuint(arenasim_plan_buffer_count(p), ==, 175);
        g_assert_cmpint(arenasim_plan_verify(p, &error), ==, 0);
        arenasim_plan_free(p);
    }
    /* A trace where the default portfolio needs its search and hill climb (a heuristic does not reach the
     * bound): the same work budget, the same seed, the same plan as the command's. */
    char *trace = test_scratch_path("api-random.trace");
    RunResult made = test_run("MKGRAPH_BIN", (const char *[]){"trace", "--buffers", "60", "--seed", "1", "-o", trace, NULL});
    g_assert_cmpint(made.status, ==, 0);
    run_result_clear(&made);
    arenasim_plan *rp = arenasim_plan_file(trace, NULL, NULL);
    g_assert_nonnull(rp);
    g_assert_cmpuint(arenasim_plan_arena_bytes(rp), ==, command_arena(trace, NULL, NULL, NULL));
    g_assert_cmpuint(arenasim_plan_arena_bytes(rp), >, arenasim_plan_lower_bound_bytes(rp));
    const char *kept = arenasim_plan_detail(rp); /* the search's plan, or the climb's from it */
    g_assert_true(g_str_has_prefix(kept, "kept search") || g_str_has_prefix(kept, "kept climb"));
    arenasim_plan_free(rp);
    g_free(trace);

    /* Symbolic dimensions bound as --dim binds them. */
    char *graph = test_write_symbolic_graph();
    arenasim_options o;
    arenasim_options_init(&o);
    const char *dims[] = {"batch=2", "seq=100", NULL};
    o.dims = dims;
    o.strategy = "bestfit";
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file(graph, &o, &error);
    g_assert_nonnull(p);
    guint64 arena = command_arena(graph, "bestfit", NULL, dims);
    g_assert_cmpuint(arenasim_plan_arena_bytes(p), ==, arena);
    g_assert_cmpuint(arena, >=, 2 * 100 * 4); /* at least the input */
    char *json = arenasim_plan_report_json(p), *field = g_strdup_printf("\"arena_bytes\" : %" G_GUINT64_FORMAT, arena);
    assert_contains(json, "\"dims\" : \"batch=2,seq=100\"");
    assert_contains(json, "\"strategy\" : \"bestfit\"");
    assert_contains(json, field);
    g_free(field);
    arenasim_free(json);
    arenasim_plan_free(p);
    g_free(graph);
}

/* The text of a JSON report without its "seconds" line (the one figure that is a clock's). */
static char *without_seconds(const char *json)
{
    GString *s = g_string_new(NULL);
    char **lines = g_strsplit(json, "\n", -1);
    for (char **l = lines; *l; l++)
        if (!strstr(*l, "\"seconds\" : "))
            g_string_append_printf(s, "%s\n", *l);
    g_strfreev(lines);
    return g_string_free(s, FALSE);
}

/* A range of dims from the library: at every point the arena `sim --dim seq=S` reports, the report the bytes of
 * `sim --dim seq=1:20 --format json` (its seconds aside), and what only a range refuses, refused. */
static void test_range(void)
{
    char *model = test_source_path("graphs/models/torch/gpt2-torch.onnx");
    arenasim_options o;
    arenasim_options_init(&o);
    const char *dims[] = {"batch=1", "seq=1:20", NULL};
    o.dims = dims;
    char *error = NULL;
    arenasim_range *r = arenasim_range_file(model, &o, &error);
    g_assert_null(error);
    g_assert_nonnull(r);
    g_assert_cmpuint(arenasim_range_dim_count(r), ==, 1);
    g_assert_cmpstr(arenasim_range_dim_name(r, 0), ==, "seq");
    for (gint64 seq = 1; seq <= 20; seq++) {
        if (!test_sampled((guint)seq))
            continue;
        char *bind = g_strdup_printf("seq=%" G_GINT64_FORMAT, seq);
        guint64 arena = 0, bound = 0;
        g_assert_cmpint(arenasim_range_arena_at(r, &seq, &arena), ==, 0);
        g_assert_cmpint(arenasim_range_lower_bound_at(r, &seq, &bound), ==, 0);
        g_assert_cmpuint(arena, ==, command_arena(model, NULL, "file", (const char *const[]){"batch=1", bind, NULL}));
        g_assert_cmpuint(bound, <=, arena);
        g_free(bind);
    }
    guint64 out;
    g_assert_cmpint(arenasim_range_arena_at(r, (const int64_t[]){21}, &out), ==, -1);
    char *json = arenasim_range_report_json(r), *mine = without_seconds(json);
    RunResult cmd = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=1:20",
                                                          "--format", "json", NULL});
    g_assert_cmpint(cmd.status, ==, 0);
    char *theirs = without_seconds(cmd.out);
    g_assert_cmpstr(mine, ==, theirs);
    g_free(mine);
    g_free(theirs);
    arenasim_free(json);
    run_result_clear(&cmd);
    arenasim_range_free(r);
    /* one binding is arenasim_plan_file's; a range is not */
    const char *one[] = {"batch=1", "seq=4", NULL};
    o.dims = one;
    g_assert_null(arenasim_range_file(model, &o, &error));
    assert_contains(error, "a range needs at least one \"NAME=LO:HI\"");
    arenasim_free(error);
    error = NULL;
    o.dims = dims;
    g_assert_null(arenasim_plan_file(model, &o, &error));
    assert_contains(error, "a range (NAME=LO:HI) is planned by arenasim_range_file");
    arenasim_free(error);
    error = NULL;
    o.order = "best";
    g_assert_null(arenasim_range_file(model, &o, &error));
    assert_contains(error, "order \"best\" chooses an order for one binding");
    arenasim_free(error);
    g_free(model);
}

/* The buffers are the plan: no two live at once share a byte, and each fits the arena. */
static void test_buffers(void)
{
    arenasim_plan *p = arenasim_plan_file("graphs/unet.onnx", NULL, NULL);
    g_assert_nonnull(p);
    size_t n = arenasim_plan_buffer_count(p);
    g_assert_cmpuint(n, >, 10);
    arenasim_buffer *b = g_new(arenasim_buffer, n);
    for (size_t k = 0; k < n; k++) {
        g_assert_cmpint(arenasim_plan_buffer(p, k, &b[k]), ==, 0);
        g_assert_nonnull(b[k].name);
        g_assert_cmpuint(b[k].offset + b[k].size, <=, arenasim_plan_arena_bytes(p));
        g_assert_cmpuint(b[k].first, <=, b[k].last);
        g_assert_cmpuint(b[k].last, <, arenasim_plan_steps(p));
        for (size_t j = 0; j < k; j++)
            if (b[j].first <= b[k].last && b[k].first <= b[j].last)
                g_assert_true(b[j].offset + b[j].size <= b[k].offset || b[k].offset + b[k].size <= b[j].offset);
    }
    arenasim_buffer out;
    g_assert_cmpint(arenasim_plan_buffer(p, n, &out), ==, -1);
    g_free(b);
    arenasim_plan_free(p);
    /* A trace file plans too. */
    const char *text = "arenasim-trace 1\nsteps 4\n0 a 100 0 1\n1 b 200 1 2\n2 c 120 2 3\n";
    char *trace = test_write_scratch("api.trace", text, strlen(text));
    p = arenasim_plan_file(trace, NULL, NULL);
    g_assert_nonnull(p);
    g_assert_cmpuint(arenasim_plan_buffer_count(p), ==, 3);
    g_assert_cmpuint(arenasim_plan_lower_bound_bytes(p), ==, 320);
    arenasim_plan_free(p);
    g_free(trace);
}

/* A plan made to run runs its kernels in the planned arena, checked bit for bit against a run with nothing
 * shared; a plan not made to run, or a trace, is refused with the reason. */
static void test_plan_run(void)
{
    arenasim_options o;
    arenasim_options_init(&o);
    o.strategy = "bestfit";
    o.run = 1;
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file("graphs/unet.onnx", &o, &error);
    g_assert_nonnull(p);
    g_assert_cmpint(arenasim_plan_run(p, 1, &error), ==, 0);
    g_assert_null(error);
    g_assert_cmpint(arenasim_plan_run(p, 0, &error), ==, 0);
    arenasim_plan_free(p);
    o.run = 0;
    p = arenasim_plan_file("graphs/unet.onnx", &o, &error);
    g_assert_cmpint(arenasim_plan_run(p, 1, &error), ==, -1);
    assert_contains(error, "graphs/unet.onnx: plan it to run first (arenasim_options.run)");
    arenasim_free(error);
    arenasim_plan_free(p);
    const char *text = "arenasim-trace 1\nsteps 2\n0 a 100 0 1\n";
    char *trace = test_write_scratch("api-run.trace", text, strlen(text));
    p = arenasim_plan_file(trace, NULL, NULL);
    g_assert_cmpint(arenasim_plan_run(p, 1, &error), ==, -1);
    assert_contains(error, "a trace has no kernels to run");
    arenasim_free(error);
    arenasim_plan_free(p);
    g_free(trace);
}

/* A KV cache planned at capacity through the library (kv_capacity, kv) and run inside the plan; the patterns
 * without a capacity refused. */
static void test_kv(void)
{
    char *graph = test_write_model(test_decode_step(3, FALSE), "api-kv.onnx");
    arenasim_options o;
    arenasim_options_init(&o);
    o.kv_capacity = 8;
    o.kv = (const char *const[]){"past_key_values.*=present.*", NULL};
    o.run = 1;
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file(graph, &o, &error);
    g_assert_null(error);
    /* planned to run: the cache (384 B), the Transpose's copy (192 B), x and the scores (48 B each, 64-aligned) */
    g_assert_cmpuint(arenasim_plan_arena_bytes(p), ==, 704);
    g_assert_cmpint(arenasim_plan_run(p, 1, &error), ==, 0);
    g_assert_null(error);
    arenasim_plan_free(p);
    o.kv_capacity = 0;
    g_assert_null(arenasim_plan_file(graph, &o, &error));
    assert_contains(error, "kv names the cache pairs that kv_capacity plans: give both");
    arenasim_free(error);
    g_free(graph);
}

/* Memory tiers through the library: the plan the command makes (its tiers' arenas and the cost of bytes moved), a
 * plan of the same model without tiers untouched by it, run inside the tiers' arenas; a bad spec refused. */
static void test_tiers(void)
{
    const char *args[] = {"--graph", "graphs/mlp.onnx", "--tiers", "sram=1KiB,dram", "--format", "json", NULL};
    RunResult r = test_run("SIM_BIN", args);
    g_assert_cmpint(r.status, ==, 0);
    const char *at = strstr(r.out, "\"tier_cost\" : ");
    g_assert_nonnull(at);
    double cost = g_ascii_strtod(at + strlen("\"tier_cost\" : "), NULL);
    arenasim_options o;
    arenasim_options_init(&o);
    char *error = NULL;
    arenasim_model *m = arenasim_model_load("graphs/mlp.onnx", &o, &error);
    g_assert_null(error);
    o.tiers = "sram=1KiB,dram";
    o.run = 1;
    arenasim_plan *tiered = arenasim_model_plan(m, &o, &error);
    g_assert_null(error);
    g_assert_cmpstr(arenasim_plan_strategy(tiered), ==, "tiered");
    g_assert_cmpuint(arenasim_plan_tier_count(tiered), ==, 2);
    arenasim_tier sram, dram;
    g_assert_cmpint(arenasim_plan_tier(tiered, 0, &sram), ==, 0);
    g_assert_cmpint(arenasim_plan_tier(tiered, 1, &dram), ==, 0);
    g_assert_cmpint(arenasim_plan_tier(tiered, 2, &dram), ==, -1);
    g_assert_cmpstr(sram.name, ==, "sram");
    g_assert_cmpuint(sram.capacity, ==, 1024);
    g_assert_cmpuint(sram.arena, ==, 1024);
    g_assert_cmpuint(dram.arena, ==, 1024);
    g_assert_cmpuint(dram.capacity, ==, UINT64_MAX);
    g_assert_cmpfloat(arenasim_plan_tier_cost(tiered), ==, cost);
    g_assert_cmpfloat(arenasim_plan_tier_bound(tiered), <=, cost);
    g_assert_cmpuint(arenasim_plan_arena_bytes(tiered), ==, sram.arena + dram.arena);
    g_assert_cmpint(arenasim_plan_run(tiered, 1, &error), ==, 0);
    g_assert_null(error);
    o.tiers = NULL;
    o.run = 0;
    arenasim_plan *flat = arenasim_model_plan(m, &o, &error);
    g_assert_cmpuint(arenasim_plan_tier_count(flat), ==, 0);
    g_assert_cmpuint(arenasim_plan_arena_bytes(flat), ==, command_arena("graphs/mlp.onnx", NULL, NULL, NULL));
    arenasim_plan_free(flat);
    arenasim_plan_free(tiered);
    o.tiers = "dram,sram=1KiB";
    g_assert_null(arenasim_model_plan(m, &o, &error));
    assert_contains(error, "has no capacity but is not the last");
    arenasim_free(error);
    arenasim_model_free(m);
    run_result_clear(&r);
}

/* Entry points in one arena through the library, as test-kv.c has them through the command: the cache once, the
 * prefill's transient buffers beside it; one path refused. */
static void test_entries(void)
{
    char *prefill = test_write_model(test_prefill_step(), "api-prefill.onnx");
    char *decode = test_write_model(test_decode_step(3, FALSE), "api-decode.onnx");
    arenasim_options o;
    arenasim_options_init(&o);
    o.kv_capacity = 8;
    char *error = NULL;
    arenasim_entries *e = arenasim_entries_plan((const char *const[]){prefill, decode, NULL}, &o, &error);
    g_assert_null(error);
    g_assert_cmpuint(arenasim_entries_arena_bytes(e), ==, 384 + 192);
    g_assert_cmpuint(arenasim_entries_lower_bound_bytes(e), ==, 384 + 144);
    g_assert_cmpuint(arenasim_entries_state_bytes(e), ==, 384);
    char *json = arenasim_entries_report_json(e);
    assert_contains(json, "\"entry\" : \"api-prefill\"");
    arenasim_free(json);
    arenasim_entries_free(e);
    g_assert_null(arenasim_entries_plan((const char *const[]){decode, NULL}, &o, &error));
    assert_contains(error, "paths: 2 to 16 models planned in one arena");
    arenasim_free(error);
    g_free(prefill);
    g_free(decode);
}

/* A model handle loads once and plans many times, each plan with its own strategy and order; plans outlive the
 * handle; an options struct from a caller compiled with fewer fields (a smaller size) gives the later ones their
 * defaults, whatever bytes follow. */
static void test_model_handle(void)
{
    arenasim_options o;
    arenasim_options_init(&o);
    char *error = NULL;
    arenasim_model *m = arenasim_model_load("graphs/unet.onnx", &o, &error);
    g_assert_nonnull(m);
    const char *strategies[] = {"firstfit", "bestfit", "greedy-size"};
    arenasim_plan *plans[4];
    for (guint k = 0; k < 3; k++) {
        o.strategy = strategies[k];
        plans[k] = arenasim_model_plan(m, &o, &error);
        g_assert_nonnull(plans[k]);
        g_assert_cmpuint(arenasim_plan_arena_bytes(plans[k]), ==,
                         command_arena("graphs/unet.onnx", strategies[k], NULL, NULL));
    }
    o.order = "lazy";
    plans[3] = arenasim_model_plan(m, &o, &error);
    g_assert_nonnull(plans[3]);
    char *json = arenasim_plan_report_json(plans[3]);
    assert_contains(json, "\"order\" : \"lazy\"");
    arenasim_free(json);
    o.order = "sideways";
    g_assert_null(arenasim_model_plan(m, &o, &error));
    assert_contains(error, "unknown order 'sideways'");
    arenasim_free(error);
    arenasim_model_free(m); /* the plans keep what they need */
    for (guint k = 0; k < 4; k++) {
        g_assert_cmpint(arenasim_plan_verify(plans[k], &error), ==, 0);
        arenasim_plan_free(plans[k]);
    }
    /* a caller built before `bounds` and the fields after it: whatever follows its size is not read */
    arenasim_options older;
    arenasim_options_init(&older);
    older.strategy = "bestfit";
    older.size = offsetof(arenasim_options, bounds);
    older.pins = (const char *const *)(gsize)1; /* garbage past the size */
    older.bins = (const char *)(gsize)1;
    arenasim_plan *p = arenasim_plan_file("graphs/unet.onnx", &older, &error);
    g_assert_nonnull(p);
    g_assert_cmpuint(arenasim_plan_arena_bytes(p), ==, command_arena("graphs/unet.onnx", "bestfit", NULL, NULL));
    arenasim_plan_free(p);
    older.size = 0;
    g_assert_null(arenasim_plan_file("graphs/unet.onnx", &older, &error));
    assert_contains(error, "options: size is not set");
    arenasim_free(error);
}

/* A trace built in memory plans as the same trace read from a file does; a buffer that breaks the rules, or one
 * added after planning, is refused with a message. */
static void test_trace_builder(void)
{
    const char *text = "arenasim-trace 1\nsteps 4\n0 a 100 0 1\n1 b 50 1 2\n2 c 100 2 3\n3 d 64 0 3 align=64\n";
    char *path = test_write_scratch("api-built.trace", text, strlen(text));
    arenasim_model *t = arenasim_trace_new();
    char *error = NULL;
    g_assert_cmpint(arenasim_trace_add(t, "a", 100, 0, 1, 0, &error), ==, 0);
    g_assert_cmpint(arenasim_trace_add(t, "b", 50, 1, 2, 0, &error), ==, 0);
    g_assert_cmpint(arenasim_trace_add(t, "c", 100, 2, 3, 0, &error), ==, 0);
    g_assert_cmpint(arenasim_trace_add(t, "d", 64, 0, 3, 64, &error), ==, 0);
    g_assert_cmpint(arenasim_trace_add(t, "e", 64, 3, 2, 0, &error), ==, -1);
    assert_contains(error, "buffer 'e' needs a size and first <= last");
    arenasim_free(error);
    arenasim_options o;
    arenasim_options_init(&o);
    for (const char *const *s = (const char *const[]){"firstfit", "bestfit", "search", NULL}; *s; s++) {
        o.strategy = *s;
        arenasim_plan *built = arenasim_model_plan(t, &o, &error), *read = arenasim_plan_file(path, &o, &error);
        g_assert_nonnull(built);
        g_assert_nonnull(read);
        g_assert_cmpuint(arenasim_plan_arena_bytes(built), ==, arenasim_plan_arena_bytes(read));
        g_assert_cmpuint(arenasim_plan_buffer_count(built), ==, 4);
        arenasim_plan_free(built);
        arenasim_plan_free(read);
    }
    g_assert_cmpint(arenasim_trace_add(t, "late", 8, 0, 0, 0, &error), ==, -1);
    assert_contains(error, "planned already");
    arenasim_free(error);
    arenasim_model_free(t);
    g_free(path);
}

/* Every planning and run flag of the command is a field of the API's options (its comment names the flag); what
 * is left out is said here, with the reason. */
static void test_covers_the_command(void)
{
    static const char *const not_options[] = {
        "graph", "trace",                  /* the path given to arenasim_model_load */
        "compare", "orders",               /* loops over plans: arenasim_model_plan per strategy or order */
        "list", "list-ops", "version", "info", /* listings: arenasim_names, arenasim_version */
        "progress",                        /* the command's progress lines on stderr; the library never prints */
        "format", "wide", "verbose", "map", "ascii", /* how the command prints; the library returns data */
        "plot", "out", "from", "x", "y", "where", "steps", "addresses", "facet", "title", "html", "chrome-trace",
        "profile", "phases", "trace-out", "solution-out", /* files the command writes from the results */
        "check-solution",                  /* arenasim_structured_plan's `solution` argument */
        "help", "help-all", NULL};
    RunResult r = test_run("SIM_BIN", (const char *[]){"--help", NULL});
    g_assert_cmpint(r.status, ==, 0);
    char *header_path = test_source_path("sim/api/arenasim.h"), *header = test_read_file(header_path);
    GRegex *flag = g_regex_new("^\\s+(?:-\\w, )?--([a-z][a-z-]*)", G_REGEX_MULTILINE, 0, NULL);
    GMatchInfo *match;
    guint seen = 0;
    for (g_regex_match(flag, r.out, 0, &match); g_match_info_matches(match); g_match_info_next(match, NULL)) {
        char *name = g_match_info_fetch(match, 1);
        if (!g_strv_contains(not_options, name)) {
            char *pattern = g_strdup_printf("--%s[^a-z-]", name);
            if (!g_regex_match_simple(pattern, header, 0, 0))
                g_error("sim --%s has no field in arenasim.h's options (nor a reason in this test to leave it out)",
                        name);
            g_free(pattern);
            seen++;
        }
        g_free(name);
    }
    g_match_info_free(match);
    g_assert_cmpuint(seen, >=, 35); /* the walk read the table (39 flags when written) */
    g_regex_unref(flag);
    g_free(header);
    g_free(header_path);
    run_result_clear(&r);
}

/* The "peak" member (the peak witness) of the first row of a json report, as text. */
static char *peak_member(const char *json)
{
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, json, -1, NULL));
    JsonObject *row = json_array_get_object_element(json_node_get_array(json_parser_get_root(parser)), 0);
    g_assert_true(json_object_has_member(row, "peak"));
    char *text = json_to_string(json_object_get_member(row, "peak"), FALSE);
    g_object_unref(parser);
    return text;
}

/* The library's report carries the peak witness the command prints in json: the same step, buffers, producers,
 * readers and refusals; its live bytes are the plan's lower bound. */
static void test_peak_witness(void)
{
    arenasim_options o;
    arenasim_options_init(&o);
    o.order = "file"; /* the plan whose peak has a refusal (the default keeps one without) */
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file("graphs/random.onnx", &o, &error);
    g_assert_nonnull(p);
    char *json = arenasim_plan_report_json(p), *ours = peak_member(json);
    char *bound = g_strdup_printf("\"live_bytes\":%" G_GUINT64_FORMAT ",", arenasim_plan_lower_bound_bytes(p));
    assert_contains(ours, bound);
    assert_contains(ours, "\"refused\":[{\"note\":");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", "graphs/random.onnx", "--order", "file", "--format",
                                                        "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    char *command = peak_member(r.out);
    g_assert_cmpstr(ours, ==, command);
    g_free(command);
    run_result_clear(&r);
    g_free(bound);
    g_free(ours);
    arenasim_free(json);
    arenasim_plan_free(p);
}

/* graphs/random.onnx planned under o: its arena, and the order its report names (NULL: not looked at). */
static void plan_random(const arenasim_options *o, guint64 arena, const char *order)
{
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file("graphs/random.onnx", o, &error);
    g_assert_nonnull(p);
    g_assert_cmpuint(arenasim_plan_arena_bytes(p), ==, arena);
    if (order) {
        char *json = arenasim_plan_report_json(p), *want = g_strdup_printf("\"order\" : \"%s\"", order);
        assert_contains(json, want);
        g_free(want);
        arenasim_free(json);
    }
    arenasim_plan_free(p);
}

/* order "best" through the library (also its default): the order and sharing the command keeps, with the same
 * arena; a named sharing is kept; order_work bounds the candidates; "file" plans the file's order alone, and
 * "optimal" the exact order unless a heuristic one plans smaller. */
static void test_order_best(void)
{
    arenasim_options o;
    arenasim_options_init(&o);
    o.order = "best";
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file("graphs/random.onnx", &o, &error);
    g_assert_nonnull(p);
    char *json = arenasim_plan_report_json(p);
    assert_contains(json, "\"alias\" : \"noop,inplace\"");
    arenasim_free(json);
    arenasim_plan_free(p);
    plan_random(&o, 26304, "local");
    o.alias = "all";
    plan_random(&o, 26688, "topo");
    o.alias = NULL;
    o.order = NULL; /* the default: the same choice, and order_work bounds it as --order-work does */
    plan_random(&o, 26304, "local");
    o.order_work = 100; /* 40 nodes: two plans (file and topo under all sharing) */
    plan_random(&o, 26688, "topo");
    o.order_work = 0;
    o.order = "file";
    plan_random(&o, 27200, "file");
    o.order = "optimal"; /* the exact order beside the heuristic ones: 26,816 B alone under all sharing */
    plan_random(&o, 26304, "optimal");
    o.order = "bestest";
    g_assert_null(arenasim_plan_file("graphs/random.onnx", &o, &error));
    assert_contains(error, "unknown order 'bestest'");
    arenasim_free(error);
}

/* One plan's report, as JSON, made in whichever thread calls. */
typedef struct {
    const char *path;
    arenasim_options o;
    char *expected;      /* made alone, before the threads */
    guint differed;
} SidePlan;

static char *plan_json(const SidePlan *side)
{
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file(side->path, &side->o, &error);
    if (!p)
        g_error("%s: %s", side->path, error);
    char *json = arenasim_plan_report_json(p);
    arenasim_plan_free(p);
    GRegex *clock = g_regex_new("\"plan_seconds\" : [^,]*", 0, 0, NULL); /* the one figure a clock sets */
    char *blanked = g_regex_replace_literal(clock, json, -1, 0, "\"plan_seconds\" : -", 0, NULL);
    g_regex_unref(clock);
    g_free(json);
    return blanked;
}

static gpointer plan_repeatedly(gpointer data)
{
    SidePlan *side = data;
    for (int k = 0; k < 8; k++) {
        char *json = plan_json(side);
        if (strcmp(json, side->expected)) {
            side->differed++;
            g_printerr("%s in a thread:\n%s\nalone:\n%s\n", side->path, json, side->expected);
        }
        g_free(json);
    }
    return NULL;
}

/* Two plans with different options in two threads of one process give the bytes each gives alone: the
 * inference's state is a context each call makes (ops/infer.h), the executor's options are the executor's. */
static void test_two_threads(void)
{
    char *symbolic = test_write_symbolic_graph();
    static const char *const dims[] = {"batch=2", "seq=100", NULL};
    SidePlan sides[2];
    arenasim_options_init(&sides[0].o);
    sides[0].path = "graphs/gpt2.onnx";
    sides[0].o.strategy = "bestfit";
    sides[0].o.order = "lazy";
    arenasim_options_init(&sides[1].o);
    sides[1].path = symbolic;
    sides[1].o.strategy = "greedy-size";
    sides[1].o.dims = dims;
    sides[1].o.alias = "noop,inplace";
    for (int k = 0; k < 2; k++) {
        sides[k].expected = plan_json(&sides[k]);
        sides[k].differed = 0;
    }
    g_assert_cmpstr(sides[0].expected, !=, sides[1].expected);
    GThread *threads[2];
    for (int k = 0; k < 2; k++)
        threads[k] = g_thread_new("plan", plan_repeatedly, &sides[k]);
    for (int k = 0; k < 2; k++) {
        g_thread_join(threads[k]);
        g_assert_cmpuint(sides[k].differed, ==, 0);
        g_free(sides[k].expected);
    }
    g_free(symbolic);
}

/* A two-node model whose only output is empty (a Slice of none of x's rows, [0, 3]): nothing a check can compare. */
static char *write_empty_output_model(void)
{
    Builder *b = builder_new("empty", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){2, 3});
    const char *none = builder_int_vec(b, "none", 1, (const gint64[]){0});
    const char *rows = builder_int_vec(b, "rows", 1, (const gint64[]){0});
    const char *h = builder_node(b, "Slice", (const char *const[]){x, none, none, rows, NULL}, 1, (const char *[]){"h"},
                                 NULL);
    builder_output(b, builder_node(b, "Neg", (const char *const[]){h, NULL}, 1, (const char *[]){"y"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    return test_write_model(m, "api-empty-output.onnx");
}

#define EMPTY_VERDICT "--check: every output is empty, which a check cannot tell from a right answer"

/* The run and its check are the driver's, one policy for the command and the library: the empty output is
 * refused by `sim --run --check --poison` and by arenasim_plan_run in the same words (the library reported it
 * "checked bit for bit, with poison"); Python's verdict is in /api/installed. */
static void test_run_same_verdict(void)
{
    char *path = write_empty_output_model();
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", path, "--run", "--check", "--poison", NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, EMPTY_VERDICT);
    run_result_clear(&r);
    arenasim_options o;
    arenasim_options_init(&o);
    o.run = 1;
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file(path, &o, &error);
    g_assert_nonnull(p);
    g_assert_cmpint(arenasim_plan_run(p, 1, &error), ==, -1);
    assert_contains(error, EMPTY_VERDICT);
    arenasim_free(error);
    g_assert_cmpint(arenasim_plan_run(p, 0, &error), ==, 0); /* not checked: nothing to refuse */
    arenasim_plan_free(p);
    g_free(path);
}

/* Errors are messages naming the file or the option, never an exit. */
static void test_errors(void)
{
    struct {
        const char *path, *strategy, *order, *alias, *fuse;
        const char *expect;
    } cases[] = {
        {"graphs/no-such.onnx", NULL, NULL, NULL, NULL, "graphs/no-such.onnx: "},
        {"graphs/gpt2.onnx", "bestfitt", NULL, NULL, NULL, "unknown strategy 'bestfitt' (one of: naive, firstfit,"},
        {"graphs/gpt2.onnx", NULL, "sideways", NULL, NULL, "unknown order 'sideways' (one of: file,"},
        {"graphs/gpt2.onnx", NULL, NULL, "noop,nope", NULL, "unknown alias strategy 'nope'"},
        {"graphs/gpt2.onnx", NULL, NULL, NULL, "tvm", "fuse takes none, ort, ort-disabled, ort-transformers, not 'tvm'"},
        {NULL, NULL, NULL, NULL, NULL, "no file given"},
    };
    for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
        arenasim_options o;
        arenasim_options_init(&o);
        o.strategy = cases[k].strategy;
        o.order = cases[k].order;
        o.alias = cases[k].alias;
        o.fuse = cases[k].fuse;
        char *error = NULL;
        g_assert_null(arenasim_plan_file(cases[k].path, &o, &error));
        g_assert_nonnull(error);
        assert_contains(error, cases[k].expect);
        arenasim_free(error);
    }
    /* a NaN budget passed both range comparisons */
    arenasim_options nan_budget;
    arenasim_options_init(&nan_budget);
    nan_budget.budget_seconds = NAN;
    char *nan_error = NULL;
    g_assert_null(arenasim_plan_file("graphs/gpt2.onnx", &nan_budget, &nan_error));
    assert_contains(nan_error, "budget_seconds takes 0 to 31,536,000");
    arenasim_free(nan_error);
    const char *dims[] = {"seq", NULL};
    arenasim_options o;
    arenasim_options_init(&o);
    o.dims = dims;
    g_assert_null(arenasim_plan_file("graphs/gpt2.onnx", &o, NULL)); /* no error pointer: still no crash */
    g_assert_cmpstr(arenasim_names(ARENASIM_STRATEGIES)[0], ==, "naive");
    g_assert_cmpstr(arenasim_names(ARENASIM_ORDERS)[0], ==, "file");
    g_assert_nonnull(arenasim_names(ARENASIM_ALIASES)[0]);
}

/* Runs argv with extra environment (NULL-terminated "NAME=VALUE"), from the repository's folder. */
static RunResult run_env(const char *const *argv, const char *const *env)
{
    char **envp = g_get_environ();
    for (const char *const *e = env; e && *e; e++) {
        char **kv = g_strsplit(*e, "=", 2);
        envp = g_environ_setenv(envp, kv[0], kv[1], TRUE);
        g_strfreev(kv);
    }
    RunResult r = {0};
    int wait_status = 0;
    GError *error = NULL;
    gboolean ok = g_spawn_sync(NULL, (char **)argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, &r.out, &r.err, &wait_status,
                               &error);
    g_assert_no_error(error);
    g_assert_true(ok);
    r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    g_strfreev(envp);
    return r;
}

/* A structured problem through the API: the command's objective, every buffer placed, the envelope written and
 * checked back, and options.pool's projection planned as a trace. */
static void test_structured(void)
{
    char *path = test_source_path("tests/data/structured/penalty.json"), *error = NULL;
    arenasim_options o;
    arenasim_options_init(&o);
    arenasim_structured *s = arenasim_structured_plan(path, &o, NULL, &error);
    g_assert_null(error);
    g_assert_nonnull(s);
    g_assert_cmpuint(arenasim_structured_term(s, "reuse_cost"), ==, 3);
    g_assert_cmpuint(arenasim_structured_term(s, "bank_cost"), ==, UINT64_MAX);
    g_assert_true(arenasim_structured_fits(s) && arenasim_structured_proven(s));
    g_assert_cmpuint(arenasim_structured_buffer_count(s), ==, 3);
    uint32_t id, pool;
    uint64_t offset;
    g_assert_cmpint(arenasim_structured_buffer(s, 2, &id, &pool, &offset), ==, 0);
    g_assert_cmpuint(id, ==, 2);
    g_assert_cmpint(arenasim_structured_buffer(s, 3, &id, &pool, &offset), ==, -1);
    char *sol = test_scratch_path("api-structured.json");
    g_assert_cmpint(arenasim_structured_write_solution(s, sol, &error), ==, 0);
    arenasim_structured *back = arenasim_structured_plan(path, &o, sol, &error);
    g_assert_nonnull(back);
    g_assert_cmpuint(arenasim_structured_term(back, "reuse_cost"), ==, 3);
    g_assert_cmpstr(arenasim_structured_fingerprint(back), ==, arenasim_structured_fingerprint(s));
    arenasim_structured_free(back);
    arenasim_structured_free(s);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--trace", path, "--format", "csv", NULL});
    assert_contains(r.out, ",0,128,128,3,"); /* the command's objective, the same */
    run_result_clear(&r);
    o.strategy = "worstfit";
    g_assert_null(arenasim_structured_plan(path, &o, NULL, &error));
    assert_contains(error, "unknown strategy for structured problems 'worstfit'");
    arenasim_free(error);
    error = NULL;
    o.strategy = "bestfit";
    o.pool = "UB";
    arenasim_plan *p = arenasim_plan_file(path, &o, &error);
    g_assert_null(error);
    g_assert_cmpuint(arenasim_plan_arena_bytes(p), ==, 128);
    arenasim_plan_free(p);
    o.pool = NULL;
    g_assert_null(arenasim_plan_file(path, &o, &error));
    assert_contains(error, "is planned by arenasim_structured_plan");
    arenasim_free(error);
    g_free(sol);
    g_free(path);
}

static void test_installed(void)
{
    const char *prefix = g_getenv("ARENASIM_PREFIX");
    if (!prefix) {
        g_test_skip("ARENASIM_PREFIX is not set: make check installs the library there (not in the sanitizer builds, "
                    "whose library needs the sanitizers' runtime loaded first)");
        return;
    }
    char *pc_path = g_strdup_printf("PKG_CONFIG_PATH=%s/lib/pkgconfig", prefix);
    const char *env[] = {pc_path, NULL};
    RunResult r = run_env((const char *[]){"pkg-config", "--cflags", "--libs", "arenasim", NULL}, env);
    g_assert_cmpint(r.status, ==, 0);
    char *flags = g_strstrip(g_strdup(r.out));
    run_result_clear(&r);
    /* examples/plan.c, built with what pkg-config says and nothing else. */
    char *exe = test_scratch_path("plan"), *src = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "examples", "plan.c", NULL);
    char *build = g_strdup_printf("cc -std=c11 -Wall -Werror %s -o %s %s", src, exe, flags);
    r = run_env((const char *[]){"sh", "-c", build, NULL}, env);
    if (r.status != 0)
        g_error("%s:\n%s", build, r.err);
    run_result_clear(&r);
    char *expect = g_strdup_printf("%" G_GUINT64_FORMAT "\n", command_arena("graphs/gpt2.onnx", "bestfit", NULL, NULL));
    r = run_env((const char *[]){exe, "graphs/gpt2.onnx", "bestfit", NULL}, NULL);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.out, ==, expect);
    run_result_clear(&r);
    r = run_env((const char *[]){exe, "graphs/gpt2.onnx", "worstfit", NULL}, NULL);
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "plan: unknown strategy 'worstfit'");
    run_result_clear(&r);

    /* The Python module, installed under the prefix, by Debian's python3. */
    char *pypath = g_strdup_printf("PYTHONPATH=%s/lib/python3/dist-packages", prefix);
    const char *pyenv[] = {pypath, NULL};
    const char *script =
        "import arenasim, sys\n"
        "p = arenasim.plan('graphs/gpt2.onnx', 'bestfit')\n"
        "print(p.arena_bytes)\n"
        "assert p.lower_bound_bytes == 26124800 and len(p.buffers) == 175, p\n"
        "assert p.report['arena_bytes'] == p.arena_bytes and p.report['strategy'] == 'bestfit'\n"
        "b = max(p.buffers, key=lambda b: b.offset + b.size)\n"
        "assert b.offset + b.size <= p.arena_bytes\n"
        "d = arenasim.plan(sys.argv[1], dims={'batch': 2, 'seq': 100}, budget_work=1000)\n"
        "assert d.report['dims'] == 'batch=2,seq=100' and d.arena_bytes >= 800, d.report\n"
        "rows = arenasim.compare('graphs/unet.onnx', ['firstfit', 'greedy-size'])\n"
        "assert [r['strategy'] for r in rows] == ['firstfit', 'greedy-size'], rows\n"
        "r = arenasim.plan('graphs/unet.onnx', 'bestfit', run=True)\n"
        "assert r.run == 'checked bit for bit, with poison', r\n"
        "try:\n" /* the driver's check policy, as the command and C have it */
        "    arenasim.plan(sys.argv[2], run=True, check=True)\n"
        "    sys.exit('an empty output passed the check')\n"
        "except arenasim.Error as e:\n"
        "    assert '" EMPTY_VERDICT "' in str(e), e\n"
        "import pandas\n" /* the tables a researcher makes of them, in one line each */
        "df = pandas.DataFrame(p.buffers)\n"
        "assert list(df.columns) == ['name', 'offset', 'size', 'first', 'last', 'bin'] and len(df) == 175, df\n"
        "assert (df.offset + df['size']).max() <= p.arena_bytes\n"
        "t = pandas.DataFrame(rows)\n"
        "assert list(t.strategy) == ['firstfit', 'greedy-size'] and t.arena_bytes.min() >= t.lower_bound_bytes.max()\n"
        "assert 'best' in arenasim.names() and 'file' in arenasim.names('orders')\n"
        /* the default order is the smallest plan's, bounded by order_work as the command's --order-work */
        "o = arenasim.plan('graphs/random.onnx')\n"
        "assert (o.arena_bytes, o.report['order']) == (26304, 'local'), o.report\n"
        "o = arenasim.plan('graphs/random.onnx', order_work=100)\n"
        "assert (o.arena_bytes, o.report['order']) == (26688, 'topo'), o.report\n"
        /* compare() loads the model once (the library's loads counted), and a loaded model plans without its file */
        "loads = []\n"
        "class Counting:\n"
        "    def __getattr__(self, name):\n"
        "        f = getattr(lib, name)\n"
        "        if name in ('arenasim_model_load', 'arenasim_plan_file'):\n"
        "            return lambda *a: (loads.append(name), f(*a))[1]\n"
        "        return f\n"
        "lib, arenasim._lib = arenasim._lib, Counting()\n"
        "rows3 = arenasim.compare('graphs/unet.onnx', ['firstfit', 'bestfit', 'greedy-size'])\n"
        "arenasim._lib = lib\n"
        "assert loads == ['arenasim_model_load'] and len(rows3) == 3, loads\n"
        "import shutil, os, tempfile\n"
        "copy = os.path.join(tempfile.mkdtemp(), 'unet.onnx')\n"
        "shutil.copy('graphs/unet.onnx', copy)\n"
        "with arenasim.load(copy) as m:\n"
        "    os.remove(copy)\n"
        "    assert [m.plan(s).arena_bytes for s in ('firstfit', 'bestfit', 'greedy-size')] == "
        "[r['arena_bytes'] for r in rows3]\n"
        "    assert m.plan('bestfit', order='lazy').report['order'] == 'lazy'\n"
        "t = arenasim.trace([('a', 100, 0, 1), ('b', 50, 1, 2), {'name': 'c', 'size': 100, 'first': 2, 'last': 3}])\n"
        "assert t.plan('bestfit').arena_bytes == 150 == t.plan('bestfit').lower_bound_bytes, t.plan('bestfit')\n"
        "r2 = arenasim.plan('graphs/unet.onnx', 'bestfit', run=True, run_options={'threads': 1, 'repeat': 2})\n"
        "assert r2.run == 'checked bit for bit, with poison', r2\n"
        "try:\n"
        "    arenasim.plan('graphs/unet.onnx', frobnicate=1)\n"
        "    sys.exit('an unknown option was taken')\n"
        "except arenasim.Error as e:\n"
        "    assert \"unknown option 'frobnicate'\" in str(e), e\n"
        "try:\n"
        "    arenasim.plan('graphs/gpt2.onnx', 'worstfit')\n"
        "    sys.exit('no exception')\n"
        "except arenasim.Error as e:\n"
        "    assert \"unknown strategy 'worstfit'\" in str(e), e\n"
        /* what the command refuses, refused with its words: no wrapped integer, no NaN, no name cut at a NUL */
        "bad = [({'budget_work': -1}, 'budget_work takes a positive number'), ({'align': 2**64}, 'align takes a whole "
        "number'), ({'align': 3}, 'align takes a power of two'), ({'budget_seconds': float('nan')}, 'budget_seconds "
        "takes a finite number'), ({'budget_seconds': 1e13}, 'at most 31,536,000 seconds'), ({'strategy': "
        "'bestfit\\0x'}, 'strategy holds a NUL byte')]\n"
        "for kw, words in bad:\n"
        "    try:\n"
        "        arenasim.plan('graphs/gpt2.onnx', **kw)\n"
        "        sys.exit('no exception for %r' % kw)\n"
        "    except arenasim.Error as e:\n"
        "        assert words in str(e), (kw, str(e))\n"
        "rr = arenasim.plan_range(sys.argv[3], dims={'batch': 1, 'seq': range(1, 21)})\n"
        "one = arenasim.plan(sys.argv[3], dims={'batch': 1, 'seq': 20})\n"
        "assert rr.dims == ['seq'] and rr.arena_at(seq=20) == one.arena_bytes, (rr.arena_at(seq=20), one.arena_bytes)\n"
        "assert rr.report['points'] == 20 and rr.formula().startswith('seq 1..16: 204,096'), rr.formula()\n"
        "one = arenasim.plan_range(sys.argv[3], dims={'batch': 1, 'seq': (1, 20)}, one_plan=True)\n"
        "assert one.pieces() == rr.pieces() and one.report['one_plan']['points'] == 20, one.report['one_plan']\n"
        "try:\n"
        "    rr.arena_at(seq=21)\n"
        "    sys.exit('a point outside the range had an arena')\n"
        "except arenasim.Error as e:\n"
        "    assert 'is not a point of the range' in str(e), e\n"
        "kv = arenasim.plan(sys.argv[4], kv_capacity=8, kv={'past_key_values.*': 'present.*'})\n"
        "assert kv.arena_bytes == 512, kv\n"
        "assert kv.report['kv'] == {'pairs': 1, 'capacity_tokens': 8, 'cache_bytes': 384}, kv.report\n"
        "e = arenasim.plan_entries([sys.argv[5], sys.argv[4]], kv_capacity=8)\n"
        "assert (e.arena_bytes, e.state_bytes) == (576, 384), e\n"
        "assert [x['state_bytes'] for x in e.report['entries']] == [144, 384], e.report\n"
        "t = arenasim.plan('graphs/mlp.onnx', tiers='sram=1KiB,dram', run=True)\n"
        "assert t.strategy == 'tiered' and [x.name for x in t.tiers] == ['sram', 'dram'], t\n"
        "assert t.tiers[0].capacity == 1024 and t.tiers[1].capacity is None and t.tier_bound <= t.tier_cost, t.tiers\n"
        "assert t.report['tiers'][0]['arena'] == t.tiers[0].arena and t.run.startswith('checked'), t.report\n"
        /* a structured problem (docs/structured.md): placed, proven, its envelope written and checked back */
        "sp = 'tests/data/structured/penalty.json'\n"
        "st = arenasim.plan_structured(sp, solution_out=os.path.join(tempfile.mkdtemp(), 's.json'))\n"
        "assert st.objective['reuse_cost'] == 3 and st.fits and st.proven and len(st.placements) == 3, st\n"
        "out = os.path.join(tempfile.mkdtemp(), 'sol.json')\n"
        "arenasim.plan_structured(sp, 'greedy', solution_out=out)\n"
        "back = arenasim.plan_structured(sp, solution=out)\n"
        "assert back.objective['reuse_cost'] == 3 and back.fingerprint == st.fingerprint, back\n"
        "assert arenasim.names('structured')[0] == 'search'\n"
        "assert arenasim.plan(sp, 'bestfit', pool='UB').arena_bytes == 128\n"
        "try:\n"
        "    arenasim.plan_structured('tests/data/structured/overflow.json', solution_out=out)\n"
        "    sys.exit('an envelope over capacity was written')\n"
        "except arenasim.Error as e:\n"
        "    assert 'which is no solution' in str(e), e\n"
        "try:\n"
        "    arenasim.plan('graphs/gpt2.onnx\\0.x', 'bestfit')\n"
        "    sys.exit('a path cut at its NUL was planned')\n"
        "except arenasim.Error as e:\n"
        "    assert 'the path holds a NUL byte' in str(e), e\n";
    char *graph = test_write_symbolic_graph(), *empty = write_empty_output_model();
    char *torch_gpt2 = test_source_path("graphs/models/torch/gpt2-torch.onnx");
    char *decode = test_write_model(test_decode_step(3, FALSE), "api-kv-python.onnx");
    char *prefill = test_write_model(test_prefill_step(), "api-prefill-python.onnx");
    r = run_env((const char *[]){"/usr/bin/python3", "-c", script, graph, empty, torch_gpt2, decode, prefill, NULL},
                pyenv);
    g_free(decode);
    g_free(prefill);
    g_free(torch_gpt2);
    g_free(graph);
    g_free(empty);
    if (r.status != 0)
        g_error("python3:\n%s%s", r.out, r.err);
    g_assert_cmpstr(r.out, ==, expect);
    run_result_clear(&r);
    g_free(pypath);
    g_free(expect);
    g_free(build);
    g_free(src);
    g_free(exe);
    g_free(flags);
    g_free(pc_path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/api/same-as-command", test_same_as_command);
    g_test_add_func("/api/buffers", test_buffers);
    g_test_add_func("/api/errors", test_errors);
    g_test_add_func("/api/run", test_plan_run);
    g_test_add_func("/api/model-handle", test_model_handle);
    g_test_add_func("/api/tiers", test_tiers);
    g_test_add_func("/api/structured", test_structured);
    g_test_add_func("/api/trace-builder", test_trace_builder);
    g_test_add_func("/api/covers-the-command", test_covers_the_command);
    g_test_add_func("/api/two-threads", test_two_threads);
    g_test_add_func("/api/peak-witness", test_peak_witness);
    g_test_add_func("/api/order-best", test_order_best);
    g_test_add_func("/api/run-same-verdict", test_run_same_verdict);
    g_test_add_func("/api/range", test_range);
    g_test_add_func("/api/kv", test_kv);
    g_test_add_func("/api/entries", test_entries);
    g_test_add_func("/api/installed", test_installed);
    return g_test_run();
}
