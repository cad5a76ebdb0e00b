/* test-training.c — training steps (docs/training.md): graphs/export_training.py on the two small modules of its
 * own (Debian's torch), planned by `sim`; the report's roles (memory/training.h) against the bytes worked out by
 * hand, the optimizer's state, activation checkpointing, the order chosen with an optimizer step, and the
 * metadata's mistakes refused with one line each. */
#include "testutil.h"

#include "api/arenasim.h"
#include "base/max-flow.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* graphs/export_training.py MODEL OUT --batch 4 --size 16 --classes 10 [OPTIONS...]; the path of OUT. */
static char *export_step(const char *model, const char *name, const char *const *options)
{
    char *out = test_scratch_path(name), *script = test_source_path("graphs/export_training.py"), *err = NULL;
    const char *fixed[] = {"/usr/bin/python3", script, model, out, "--batch", "4", "--size", "16", "--classes", "10"};
    GPtrArray *argv = g_ptr_array_new();
    for (guint k = 0; k < G_N_ELEMENTS(fixed); k++)
        g_ptr_array_add(argv, (char *)fixed[k]);
    for (const char *const *o = options; o && *o; o++)
        g_ptr_array_add(argv, (char *)*o);
    g_ptr_array_add(argv, NULL);
    gint status = 0;
    g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                               &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL))
        g_error("graphs/export_training.py %s failed: %s", model, err);
    g_free(err);
    g_free(script);
    g_ptr_array_unref(argv);
    return out;
}

/* `sim --graph PATH --allow-unknown-ops --format json [EXTRA]`: the first row (the parser kept in *parser). */
static JsonObject *plan_json(const char *path, const char *extra, JsonParser **parser)
{
    RunResult r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--allow-unknown-ops", "--format", "json",
                                                          extra ? extra : "--order", extra ? "best" : "file", NULL});
    if (r.status != 0)
        g_error("sim %s: %s", path, r.err);
    *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(*parser, r.out, -1, NULL));
    run_result_clear(&r);
    return json_array_get_object_element(json_node_get_array(json_parser_get_root(*parser)), 0);
}

/* The bytes live when the loss is made in the file's order: `sim --map` of PATH, every buffer whose steps span the
 * one where the loss's buffer (the exporter's nll_loss_forward: its Identity `loss` shares its bytes) is made. */
static gint64 live_at_loss(const char *path)
{
    RunResult r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--allow-unknown-ops", "--order", "file",
                                                          "--map", NULL});
    g_assert_cmpint(r.status, ==, 0);
    char **lines = g_strsplit(r.out, "\n", -1);
    guint64 rows[4096][4];
    guint n = 0, loss = G_MAXUINT;
    for (char **l = lines; *l; l++) {
        char **f = g_strsplit(*l, " ", -1);
        gboolean row = g_strv_length(f) == 5;
        for (guint k = 0; row && k < 5; k++)
            row = k == 2 || g_ascii_string_to_unsigned(f[k], 10, 0, G_MAXUINT64, &rows[n][k - (k > 2)], NULL);
        if (row && !strcmp(f[2], "nll_loss_forward"))
            loss = n;
        if (row && n < G_N_ELEMENTS(rows) - 1)
            n++;
        g_strfreev(f);
    }
    g_assert_cmpuint(loss, <, n);
    gint64 live = 0;
    for (guint k = 0; k < n; k++)
        live += rows[k][2] <= rows[loss][2] && rows[loss][2] <= rows[k][3] ? (gint64)rows[k][1] : 0;
    g_strfreev(lines);
    run_result_clear(&r);
    return live;
}

static gint64 role(JsonObject *row, const char *name, const char *member)
{
    return json_object_get_int_member(json_object_get_object_member(json_object_get_object_member(row, "training"),
                                                                    name), member);
}

/* The MLP (Linear 64 -> 128, ReLU, Linear 128 -> 10) at batch 4: parameters (64 x 128 + 128 + 128 x 10 + 10) x 4 B =
 * 38,440 B, their gradients the same, the batch 4 x 64 floats + 4 int64 targets = 1,056 B; the saved activations
 * are the ReLU's output (4 x 128 x 4 B), the log-softmax's (4 x 10 x 4 B), the loss's total weight (4 B) and the
 * loss itself, which starts the backward (4 B) = 2,216 B. Every order holds the parameters, the batch (both read by
 * the backward) and the saved activations when the loss is made: 41,712 B. Every buffer has one role (their sum is
 * the trace's bytes), what is live at the peak step sums to the lower bound, and the parameters live through the
 * whole step. */
static void test_mlp_roles(void)
{
    char *path = export_step("mlp", "mlp.onnx", NULL);
    JsonParser *parser;
    JsonObject *row = plan_json(path, NULL, &parser);
    g_assert_cmpint(role(row, "parameters", "bytes"), ==, 38440);
    g_assert_cmpint(role(row, "parameters", "buffers"), ==, 4);
    g_assert_cmpint(role(row, "parameters", "at_peak_bytes"), ==, 38440);
    g_assert_cmpint(role(row, "gradients", "bytes"), ==, 38440);
    g_assert_cmpint(role(row, "batch", "bytes"), ==, 1056);
    g_assert_cmpint(role(row, "saved_activations", "bytes"), ==, 2216);
    JsonObject *training = json_object_get_object_member(row, "training");
    g_assert_cmpint(json_object_get_int_member(training, "loss_floor_bytes"), ==, 41712);
    g_assert_cmpint(role(row, "optimizer_state", "bytes"), ==, 0);
    const char *roles[] = {"parameters", "buffers", "optimizer_state", "batch", "gradients", "saved_activations",
                           "transient"};
    gint64 sum = 0, peak = 0;
    for (guint k = 0; k < G_N_ELEMENTS(roles); k++) {
        sum += role(row, roles[k], "bytes");
        peak += role(row, roles[k], "at_peak_bytes");
    }
    g_assert_cmpint(sum, ==, json_object_get_int_member(row, "trace_bytes"));
    g_assert_cmpint(peak, ==, json_object_get_int_member(row, "lower_bound_bytes"));
    /* the library's report: the same roles and floor as the command's */
    arenasim_options o;
    arenasim_options_init(&o);
    o.allow_unknown_ops = 1;
    o.order = "file";
    char *error = NULL;
    arenasim_plan *lib = arenasim_plan_file(path, &o, &error);
    if (!lib)
        g_error("%s", error);
    char *json = arenasim_plan_report_json(lib);
    assert_contains(json, "\"loss_floor_bytes\" : 41712");
    assert_contains(json, "\"saved_activations\" : {\n");
    g_assert_cmpuint(arenasim_plan_arena_bytes(lib), ==, json_object_get_int_member(row, "arena_bytes"));
    arenasim_free(json);
    arenasim_plan_free(lib);
    g_object_unref(parser);
    /* and through the Python module, installed under the prefix, by Debian's python3 (the native pass: the
     * sanitizer pass installs no library) */
    const char *prefix = g_getenv("ARENASIM_PREFIX");
    if (prefix) {
        char *pypath = g_strdup_printf("%s/lib/python3/dist-packages", prefix), *out = NULL, *err = NULL;
        char **envp = g_environ_setenv(g_get_environ(), "PYTHONPATH", pypath, TRUE);
        const char *py[] = {"/usr/bin/python3", "-c",
                            "import arenasim, sys\n"
                            "t = arenasim.plan(sys.argv[1], allow_unknown_ops=True).report['training']\n"
                            "print(t['loss_floor_bytes'], t['parameters']['bytes'], t['saved_activations']['bytes'])\n",
                            path, NULL};
        gint status = 0;
        g_assert_true(g_spawn_sync(NULL, (char **)py, envp, 0, NULL, NULL, &out, &err, &status, NULL));
        if (!g_spawn_check_wait_status(status, NULL))
            g_error("python: %s", err);
        g_assert_cmpstr(out, ==, "41712 38440 2216\n");
        g_free(out);
        g_free(err);
        g_free(pypath);
        g_strfreev(envp);
    }
    /* the text report's lines */
    RunResult r = test_run("SIM_BIN", (const char *const[]){"--graph", path, "--allow-unknown-ops", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "training       parameters 38,440 B (37.5 KiB) (4 buffers), batch 1,056 B (1.0 KiB) (2 "
                           "buffers), gradients 38,440 B (37.5 KiB) (4 buffers), saved activations 2,216 B (2.2 KiB)");
    assert_contains(r.out, "\n  at the loss  41,712 B (40.7 KiB) in every order (the state, and what the forward or "
                           "the batch keeps for the backward)\n");
    assert_contains(r.out, "\n  at the peak  step ");
    run_result_clear(&r);
    g_free(path);
}

/* The CNN (two conv blocks with batch norm, a residual add, pooling, a head): with SGD and momentum the optimizer
 * state is one momentum buffer per parameter (its bytes equal the parameters'), with Adam two; the plan that chooses
 * the order runs the updates early (no gradient waits for the end) and is below the file order's; checkpointing the
 * second block saves fewer activations and recomputes its forward in the backward (more nodes). */
static void test_cnn_forms(void)
{
    char *plain = export_step("cnn", "cnn.onnx", NULL);
    char *momentum = export_step("cnn", "cnn-momentum.onnx", (const char *const[]){"--optimizer", "momentum", NULL});
    char *adam = export_step("cnn", "cnn-adam.onnx", (const char *const[]){"--optimizer", "adam", NULL});
    char *ck = export_step("cnn", "cnn-ck.onnx", (const char *const[]){"--checkpoint", "block", NULL});
    JsonParser *p1, *p2, *p3, *p4, *p5;
    JsonObject *a = plan_json(plain, NULL, &p1), *m = plan_json(momentum, NULL, &p2), *d = plan_json(adam, NULL, &p3);
    JsonObject *c = plan_json(ck, NULL, &p4), *best = plan_json(momentum, "--order", &p5);
    gint64 params = role(a, "parameters", "bytes");
    g_assert_cmpint(params, ==, (16 * 3 * 9 + 16 * 16 * 9 + 2 * 2 * 16 + 16 * 10 + 10) * 4);
    g_assert_cmpint(role(m, "optimizer_state", "bytes"), ==, params);
    g_assert_cmpint(role(d, "optimizer_state", "bytes"), ==, 2 * params);
    g_assert_cmpint(role(m, "optimizer_state", "at_peak_bytes"), ==, params);
    g_assert_cmpint(role(a, "gradients", "bytes"), ==, params);
    /* with the updates in the graph, gradients die at their update: the order that runs updates early holds fewer */
    g_assert_cmpint(json_object_get_int_member(best, "arena_bytes"), <, json_object_get_int_member(m, "arena_bytes"));
    g_assert_cmpstr(json_object_get_string_member(best, "order"), !=, "file");
    g_assert_cmpint(role(best, "gradients", "at_peak_bytes"), <, role(m, "gradients", "at_peak_bytes"));
    /* no order goes below the floor: the file's and the chosen one's lower bounds are above it */
    for (guint k = 0; k < 2; k++) {
        JsonObject *x = k ? best : m;
        g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(x, "training"), "loss_floor_bytes"),
                        <=, json_object_get_int_member(x, "lower_bound_bytes"));
    }
    /* the floor is what the file's order holds when the loss is made, to the byte: torch's saved ReLU outputs reach
     * the backward through a detach made beside the forward and another made beside the backward, Identities of
     * neither part, and count (a floor of only the tensors the backward reads directly misses them) */
    g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(a, "training"), "loss_floor_bytes"), ==,
                    live_at_loss(plain));
    /* checkpointing */
    g_assert_cmpint(role(c, "saved_activations", "bytes"), <, role(a, "saved_activations", "bytes"));
    g_assert_cmpint(json_object_get_int_member(c, "steps"), >, json_object_get_int_member(a, "steps"));
    g_assert_cmpint(json_object_get_int_member(c, "arena_bytes"), <, json_object_get_int_member(a, "arena_bytes"));
    g_object_unref(p1);
    g_object_unref(p2);
    g_object_unref(p3);
    g_object_unref(p4);
    g_object_unref(p5);
    /* the exporter's own refusals */
    char *script = test_source_path("graphs/export_training.py"), *out = test_scratch_path("x.onnx"), *err = NULL;
    const char *argv[] = {"/usr/bin/python3", script, "cnn", out, "--checkpoint", "nothing*", NULL};
    gint status = 0;
    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status,
                               NULL));
    g_assert_false(g_spawn_check_wait_status(status, NULL));
    assert_contains(err, "export_training.py: cnn: --checkpoint 'nothing*' matches no module\n");
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    g_free(err);
    /* any module: FILE.py:FUNCTION returning (module, example, target); a name it does not define is one line */
    const char *module = "import torch\nfrom torch import nn\n"
                         "def make():\n"
                         "    return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4)), "
                         "torch.randn(8, 16), torch.randint(0, 4, (8,))\n";
    char *file = test_write_scratch("mine.py", module, strlen(module));
    char *spec = g_strdup_printf("%s:make", file), *mine = export_step(spec, "mine.onnx", NULL);
    JsonParser *p6;
    JsonObject *row = plan_json(mine, NULL, &p6);
    g_assert_cmpint(role(row, "parameters", "bytes"), ==, (16 * 32 + 32 + 32 * 4 + 4) * 4);
    g_object_unref(p6);
    char *wrong = g_strdup_printf("%s:nope", file);
    const char *argv2[] = {"/usr/bin/python3", script, wrong, out, NULL};
    err = NULL;
    g_assert_true(g_spawn_sync(NULL, (char **)argv2, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status,
                               NULL));
    g_assert_false(g_spawn_check_wait_status(status, NULL));
    char *said = g_strdup_printf("export_training.py: %s: %s defines no function 'nope'\n", wrong, file);
    assert_contains(err, said);
    g_free(said);
    g_free(err);
    g_free(wrong);
    g_free(mine);
    g_free(spec);
    g_free(file);
    g_free(script);
    g_free(out);
    g_free(plain);
    g_free(momentum);
    g_free(adam);
    g_free(ck);
}

/* The maximum flow against the minimum cut by brute force (every side of every vertex but source and sink) on
 * random graphs of up to 11 vertices, capacities small and unbounded mixed; a run cut short by its work bound
 * says so and returns no more than the maximum. */
static void test_max_flow(void)
{
    GRand *rand = g_rand_new_with_seed(7);
    guint cut_short = 0;
    for (guint round = 0; round < 400; round++) {
        guint n = g_rand_int_range(rand, 2, 12), m = g_rand_int_range(rand, 0, 3 * n);
        guint from[36], to[36];
        guint64 cap[36];
        MaxFlow *f = max_flow_new(n);
        for (guint e = 0; e < m; e++) {
            from[e] = g_rand_int_range(rand, 0, n);
            to[e] = g_rand_int_range(rand, 0, n);
            cap[e] = g_rand_int_range(rand, 0, 8) == 0 ? MAX_FLOW_UNBOUNDED : g_rand_int_range(rand, 0, 100);
            max_flow_edge(f, from[e], to[e], cap[e]);
        }
        guint64 least = G_MAXUINT64;
        for (guint side = 0; side < (1u << (n - 2)); side++) { /* bit v-2: vertex v on the source's side */
            guint64 cut = 0;
            for (guint e = 0; e < m; e++) {
                gboolean a = from[e] == 0 || (from[e] > 1 && (side >> (from[e] - 2) & 1));
                gboolean b = to[e] == 0 || (to[e] > 1 && (side >> (to[e] - 2) & 1));
                if (a && !b && from[e] != to[e])
                    cut = MIN(cut + cap[e], MAX_FLOW_UNBOUNDED);
            }
            least = MIN(least, cut);
        }
        gboolean complete = FALSE;
        g_assert_cmpuint(max_flow_run(f, 0, 1, NULL, &complete), ==, least);
        g_assert_true(complete);
        guint64 work = 3;
        g_assert_cmpuint(max_flow_run(f, 0, 1, &work, &complete), <=, least);
        cut_short += !complete;
        g_assert_true(complete || work == 0);
        max_flow_free(f);
    }
    g_assert_cmpuint(cut_short, >, 100);
    g_rand_free(rand);
    /* the first shortest path found (s-a-c-t) blocks the others: the second unit goes back over a-c (s-b-c-a-d-t) */
    enum { S, T, A, B, C, D };
    MaxFlow *f = max_flow_new(6);
    const guint edges[][2] = {{S, A}, {S, B}, {A, C}, {A, D}, {B, C}, {C, T}, {D, T}};
    for (guint e = 0; e < G_N_ELEMENTS(edges); e++)
        max_flow_edge(f, edges[e][0], edges[e][1], 1);
    g_assert_cmpuint(max_flow_run(f, S, T, NULL, NULL), ==, 2);
    max_flow_free(f);
}

/* The floor at the loss is a minimum cut over every order: with SiLU in place, torch's backward works out the
 * activation's derivative from a clone of its input, in nodes of neither part (Sigmoid, Sub, Mul, Add, fill_) that
 * may run before the loss or after; one tensor of each such chain is live at the loss either way, and the file's
 * order holds the floor to the byte (a floor of the tensors the backward reads directly, or through Identities
 * only, was 114,912 B where this order holds 180,448). At the end every order holds the outputs: the parameters
 * (930 floats) and their gradients, the batch-norm statistics (2 x (2 x 8 floats + one int64)) and the loss. While
 * one node runs, every order holds what it reads and makes and the least the others leave live (the same cut with
 * the node's ancestors before it and its descendants after): 245,688 B, where the nine heuristic orders peak at
 * 245,688 (lazy, local) to 311,556 B. */
static void test_floor_cut(void)
{
    const char *module = "import torch\nfrom torch import nn\n"
                         "def make():\n"
                         "    torch.manual_seed(0)\n"
                         "    m = nn.Sequential(\n"
                         "        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.SiLU(inplace=True),\n"
                         "        nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.SiLU(inplace=True),\n"
                         "        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))\n"
                         "    return m, torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))\n";
    char *file = test_write_scratch("silu.py", module, strlen(module));
    char *spec = g_strdup_printf("%s:make", file);
    char *script = test_source_path("graphs/export_training.py"), *out = test_scratch_path("silu.onnx"), *err = NULL;
    const char *argv[] = {"/usr/bin/python3", script, spec, out, NULL};
    gint status = 0;
    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status,
                               NULL));
    if (!g_spawn_check_wait_status(status, NULL))
        g_error("export_training.py %s: %s", spec, err);
    JsonParser *parser;
    JsonObject *row = plan_json(out, NULL, &parser);
    JsonObject *training = json_object_get_object_member(row, "training");
    g_assert_cmpint(json_object_get_int_member(training, "loss_floor_bytes"), ==, live_at_loss(out));
    g_assert_cmpint(json_object_get_int_member(training, "loss_floor_bytes"), ==, 180448);
    g_assert_cmpint(json_object_get_int_member(training, "end_floor_bytes"), ==, 2 * 930 * 4 + 2 * (16 * 4 + 8) + 4);
    /* while one node runs: no order's peak of live bytes is below the floor, and the least of them is on it */
    gint64 step = json_object_get_int_member(training, "step_floor_bytes"), least = G_MAXINT64;
    const char *orders[] = {"file", "topo", "dfs", "ort", "freed", "lazy", "event", "event-gap", "local"};
    for (guint k = 0; k < G_N_ELEMENTS(orders); k++) {
        RunResult r = test_run("SIM_BIN", (const char *const[]){"--graph", out, "--allow-unknown-ops", "--order",
                                                              orders[k], "--format", "json", NULL});
        g_assert_cmpint(r.status, ==, 0);
        JsonParser *each = json_parser_new();
        g_assert_true(json_parser_load_from_data(each, r.out, -1, NULL));
        JsonObject *o = json_array_get_object_element(json_node_get_array(json_parser_get_root(each)), 0);
        g_assert_cmpint(json_object_get_int_member(o, "lower_bound_bytes"), >=, step);
        least = MIN(least, json_object_get_int_member(o, "lower_bound_bytes"));
        g_object_unref(each);
        run_result_clear(&r);
    }
    g_assert_cmpint(least, ==, step);
    g_assert_cmpint(step, ==, 245688);
    g_object_unref(parser);
    g_free(err);
    g_free(out);
    g_free(script);
    g_free(spec);
    g_free(file);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/training/mlp-roles", test_mlp_roles);
    g_test_add_func("/training/cnn-forms", test_cnn_forms);
    g_test_add_func("/training/floor-cut", test_floor_cut);
    g_test_add_func("/training/max-flow", test_max_flow);
    return g_test_run();
}
