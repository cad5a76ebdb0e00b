/* test-alias.c — aliasing against the seeds' worked examples, exactly: noop chain 1600 -> 400 B and the
 * branching graph 2800 -> 800 B (docs/spec.md §1), the deallocation walk-through state by
 * state, the four pinned cases, Gather 9,830,400 B buffers, Slice offsets 7,864,320 and 6,553,600,
 * Concat Example 3 and Split Example 4 offsets, the 35,389,440-byte concat and split, the chained concat
 * 2·t1 + t2 + 2·t3 (docs/spec.md §2); the seed's error texts under --strict-runtime; GPT-2's QKV
 * Split falling back with its reason; bins and scratch; and every strategy under every alias set on
 * every corpus graph passing the verifier. */
#include "memory/alias-block.h"
#include "memory/bins.h"
#include "strategies/alias/ort-shapes.h"
#include "strategies/registry.h"
#include "tests/testutil.h"
#include "plan/place.h"
#include "plan/verify.h"

#include <string.h>

typedef struct {
    Model *model;
    AliasMap *map;
    Trace *trace;
    GHashTable *pins;
} Aliased;

static Model *family_model(const char *const *args)
{
    char *path = test_scratch_path("family.onnx");
    const char *argv[24];
    guint n = 0;
    for (; args[n]; n++)
        argv[n] = args[n];
    argv[n++] = "-o";
    argv[n++] = path;
    argv[n] = NULL;
    RunResult r = test_run("MKGRAPH_BIN", argv);
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    GError *error = NULL;
    Model *m = onnx_read_file(path, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    g_free(path);
    return m;
}

/* Aliases a model with `list`, align 1 (the seeds count bytes exactly), optional pins "NAME=OFFSET". */
static Aliased *alias_model(Model *m, const char *list, const char *const *pins, gboolean strict, GError **error)
{
    Aliased *a = g_new0(Aliased, 1);
    a->model = m;
    a->pins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    for (const char *const *p = pins; p && *p; p++)
        g_assert_true(alias_pins_parse(a->pins, *p, NULL));
    LayoutOptions lo = LAYOUT_DEFAULTS;
    lo.align = 1;
    const AliasStrategy **chosen = registry_alias_list_resolve(list, error);
    g_assert_nonnull(chosen);
    PipelineRecipe recipe = {.schedule = m->graph->order, .layout = lo, .pins = a->pins, .strict_runtime = strict,
                             .aliases = chosen};
    PipelineResult built = {0};
    if (pipeline_trace(m->graph, &recipe, &built, error))
        a->trace = g_steal_pointer(&built.trace);
    a->map = g_steal_pointer(&built.aliases);
    g_assert_nonnull(a->map);
    pipeline_result_clear(&built);
    g_free(chosen);
    return a;
}

/* The pipeline call with bins and scratch (the file's order, no pins): the map, the trace in *t. */
static AliasMap *pipeline_alias_trace_with(const Graph *g, const LayoutOptions *lo, const BinRules *bins,
                                           gboolean scratch, const char *list, Trace **t, GError **error)
{
    const AliasStrategy **chosen = registry_alias_list_resolve(list, error);
    PipelineRecipe recipe = {.schedule = g->order, .layout = *lo, .bins = bins, .scratch = scratch, .aliases = chosen};
    PipelineResult built = {0};
    g_assert_true(chosen && pipeline_trace(g, &recipe, &built, error));
    *t = g_steal_pointer(&built.trace);
    AliasMap *map = g_steal_pointer(&built.aliases);
    pipeline_result_clear(&built);
    g_free(chosen);
    return map;
}

static void aliased_free(Aliased *a)
{
    trace_free(a->trace);
    alias_map_free(a->map);
    g_hash_table_unref(a->pins);
    model_free(a->model);
    g_free(a);
}

static guint64 sum_bytes(const Aliased *a, gboolean after)
{
    guint64 s = 0;
    if (after)
        for (guint k = 0; k < trace_count(a->trace); k++)
            s += trace_buffer(a->trace, k)->size;
    else
        for (guint k = 0; k < a->model->graph->tensors->len; k++)
            s += a->map->bytes[k];
    return s;
}

static Plan *plan(const Aliased *a, const char *strategy)
{
    GError *error = NULL;
    Plan *p = place_run_with(registry_place_find(strategy), a->trace, &test_place_options, &error);
    g_assert_no_error(error);
    g_assert_true(verify_plan(a->trace, p, &error));
    return p;
}

/* Root and byte offset of a tensor by name. */
static gint root_of(const Aliased *a, const char *name, guint64 *offset)
{
    const Tensor *t = graph_tensor(a->model->graph, name);
    g_assert_nonnull(t);
    return alias_root(a->map, t->id, offset);
}

static const char *trace_name_of_root(const Aliased *a, const char *name)
{
    return ((const Tensor *)a->model->graph->tensors->pdata[root_of(a, name, NULL)])->name;
}

static void test_noop_chain(void)
{
    Aliased *a = alias_model(family_model((const char *[]){"noop-chain", NULL}), "all", NULL, FALSE, NULL);
    g_assert_cmpuint(sum_bytes(a, FALSE), ==, 1600); /* without aliasing: 4 x 400 */
    g_assert_cmpuint(sum_bytes(a, TRUE), ==, 400);   /* with: one block */
    for (const char *const *n = (const char *[]){"reshape", "transpose", "unsqueeze", NULL}; *n; n++)
        g_assert_cmpstr(trace_name_of_root(a, *n), ==, "input");
    Plan *p = plan(a, "bestfit");
    g_assert_cmpuint(p->arena, ==, 400);
    plan_free(p);
    aliased_free(a);
}

static void test_branching(void)
{
    Aliased *a = alias_model(family_model((const char *[]){"branches", NULL}), "all", NULL, FALSE, NULL);
    g_assert_cmpuint(sum_bytes(a, FALSE), ==, 2800);
    for (const char *const *n = (const char *[]){"reshape", "transpose", "unsqueeze", "flatten", NULL}; *n; n++)
        g_assert_cmpstr(trace_name_of_root(a, *n), ==, "input");
    g_assert_cmpstr(trace_name_of_root(a, "conv2_out"), ==, "conv2_out");
    /* The seed's 800 B is the arena: block 1 (input and its four views) and conv2's output, which takes the
     * slot of conv1's input x once x is dead; its "with aliasing" buffers sum to 1200 (x, block 1, conv2_out). */
    g_assert_cmpuint(sum_bytes(a, TRUE), ==, 1200);
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    for (guint k = 1; k < count; k++) { /* every strategy but naive and the runtimes' baselines */
        if (all[k]->role == ROLE_RUNTIME)
            continue;
        Plan *p = plan(a, all[k]->name);
        g_assert_cmpuint(p->arena, ==, 800);
        plan_free(p);
    }
    aliased_free(a);
}

static void expect_block(const AliasBlock *b, const char *owner, const char *aliases, gboolean is_free)
{
    g_assert_cmpstr(b->owner, ==, owner);
    GString *s = g_string_new(NULL);
    for (const GList *l = b->aliases.head; l; l = l->next)
        g_string_append_printf(s, "%s%s", l != b->aliases.head ? "," : "", (const char *)l->data);
    g_assert_cmpstr(s->str, ==, aliases);
    g_assert_cmpint(b->is_free, ==, is_free);
    g_string_free(s, TRUE);
}

/* 001's "Deallocation Example: Branching Graph", every state. */
static void test_deallocation_walkthrough(void)
{
    AliasBlock *b = alias_block_new("input");
    for (const char *const *n = (const char *[]){"reshape", "transpose", "unsqueeze", "flatten", NULL}; *n; n++)
        alias_block_add(b, *n);
    expect_block(b, "input", "reshape,transpose,unsqueeze,flatten", FALSE);
    g_assert_false(alias_block_release(b, "reshape"));
    expect_block(b, "input", "transpose,unsqueeze,flatten", FALSE);
    g_assert_false(alias_block_release(b, "input")); /* the primary owner goes: ownership transfers */
    expect_block(b, "transpose", "unsqueeze,flatten", FALSE);
    g_assert_false(alias_block_release(b, "transpose"));
    expect_block(b, "unsqueeze", "flatten", FALSE);
    g_assert_false(alias_block_release(b, "unsqueeze"));
    expect_block(b, "flatten", "", FALSE);
    g_assert_true(alias_block_release(b, "flatten")); /* the last alias: freed */
    expect_block(b, NULL, "", TRUE);
    alias_block_free(b);
}

/* 001's four intermediate/pinned cases on its pre-allocated subgraph, one test each. */
static void test_pinned_intermediate_intermediate(void)
{
    Aliased *a = alias_model(family_model((const char *[]){"pinned", NULL}), "all", NULL, FALSE, NULL);
    g_assert_cmpstr(trace_name_of_root(a, "transpose1"), ==, "input");
    g_assert_cmpuint(sum_bytes(a, FALSE), ==, 2800);
    /* The seed's Example 3 lists conv_out apart from [reshape2, output] (1600 B); its own rule
     * "intermediate -> pre-allocated: input aliases to the fixed output address" (backward propagation
     * through noop chains) puts conv_out there too. We follow the rule: three blocks, 1200 B. */
    g_assert_cmpstr(trace_name_of_root(a, "output"), ==, "conv_out");
    g_assert_cmpuint(sum_bytes(a, TRUE), ==, 1200);
    aliased_free(a);
}

static guint64 planned_offset(const char *pin_spec, const char *buffer)
{
    Aliased *a = alias_model(family_model((const char *[]){"pinned", NULL}), "all", (const char *[]){pin_spec, NULL}, FALSE,
                             NULL);
    Plan *p = plan(a, "greedy-size");
    guint64 offset = G_MAXUINT64;
    for (guint k = 0; k < trace_count(a->trace); k++)
        if (!strcmp(trace_buffer(a->trace, k)->name, buffer))
            offset = p->offsets[k];
    plan_free(p);
    aliased_free(a);
    return offset;
}

static void test_pinned_input_intermediate(void)
{
    /* Forward: input pinned at 0x1000; reshape1 and transpose1 live in its buffer, so they are there too. */
    g_assert_cmpuint(planned_offset("input=4096", "input"), ==, 4096);
    g_assert_cmpuint(planned_offset("transpose1=4096", "input"), ==, 4096);
}

static void test_pinned_intermediate_output(void)
{
    /* Backward: output pinned at 0x2000 pulls reshape2 and conv_out (its noop chain) to 0x2000. */
    g_assert_cmpuint(planned_offset("output=8192", "conv_out"), ==, 8192);
}

static void test_pinned_pinned(void)
{
    Aliased *a = alias_model(family_model((const char *[]){"pinned", NULL}), "all", (const char *[]){"input=4096", "reshape1=4096", NULL},
                             FALSE, NULL);
    g_assert_nonnull(a->trace); /* both pinned, and they match */
    aliased_free(a);
    GError *error = NULL;
    a = alias_model(family_model((const char *[]){"pinned", NULL}), "all", (const char *[]){"input=4096", "reshape1=8192", NULL},
                    FALSE, &error);
    g_assert_null(a->trace);
    g_assert_cmpstr(error->message, ==, "pins 'input' and 'reshape1' disagree: both live in buffer 'input', which they put "
                                        "at 4096 and 8192");
    g_clear_error(&error);
    aliased_free(a);
}

static void test_gather(void)
{
    /* Example 1: (100,16,16,64) -> 150 batches: one buffer of max(6,553,600, 9,830,400). */
    Aliased *a = alias_model(family_model((const char *[]){"gather", NULL}), "runtime", NULL, FALSE, NULL);
    g_assert_cmpuint(trace_count(a->trace), ==, 1);
    g_assert_cmpuint(trace_buffer(a->trace, 0)->size, ==, 9830400);
    aliased_free(a);
    /* The main example, (50,32,32,C) -> 30 batches, with the seed's padded C of 192. The seed writes
     * "50 x 32 x 32 x 192 x 4 = 9,830,400 bytes", but that product is 39,321,600: 9,830,400 is the element
     * count (its slice and concat examples multiply by 4 correctly). One buffer of the data's size. */
    a = alias_model(family_model((const char *[]){"gather", "--n", "50", "--h", "32", "--w", "32", "--c", "192", "--indices",
                                                  "30", NULL}), "runtime", NULL, FALSE, NULL);
    g_assert_cmpuint(trace_count(a->trace), ==, 1);
    g_assert_cmpuint(trace_buffer(a->trace, 0)->size, ==, 9830400 * 4);
    aliased_free(a);
}

static void test_slice(void)
{
    guint64 off;
    /* Example 2: batches [100:200) of (1000,16,16,64): 100 x 16,384 x 4 = 6,553,600. */
    Aliased *a = alias_model(family_model((const char *[]){"slice", NULL}), "runtime", NULL, FALSE, NULL);
    root_of(a, "output", &off);
    g_assert_cmpuint(off, ==, 6553600);
    aliased_free(a);
    /* The main example: start 10 of (50,32,32,C). The seed pads C=128 "to 192", which round_up(128, 64)
     * does not do (128 is a multiple of 64); C=192 reproduces its stride 32 x 32 x 192 and its 7,864,320. */
    a = alias_model(family_model((const char *[]){"slice", "--n", "50", "--h", "32", "--w", "32", "--c", "192", "--start",
                                                  "10", "--end", "30", NULL}), "runtime", NULL, FALSE, NULL);
    root_of(a, "output", &off);
    g_assert_cmpuint(off, ==, 7864320);
    aliased_free(a);
}

static void expect_offsets(const Aliased *a, const char *const *names, const guint64 *offsets, guint64 extent)
{
    for (guint k = 0; names[k]; k++) {
        guint64 off;
        root_of(a, names[k], &off);
        g_assert_cmpuint(off, ==, offsets[k]);
    }
    g_assert_cmpuint(trace_count(a->trace), ==, 1);
    g_assert_cmpuint(trace_buffer(a->trace, 0)->size, ==, extent);
}

static void test_concat_and_split(void)
{
    /* Concat Example 3. The seed's addresses from base 0x1000 are 0x1000, 0xA0000, ... — 0xA0000 - 0x1000 =
     * 651,264, not the 655,360 its own decimals give; the relative offsets are tested. */
    Aliased *a = alias_model(family_model((const char *[]){"concat", NULL}), "runtime", NULL, FALSE, NULL);
    expect_offsets(a, (const char *[]){"input_0", "input_1", "input_2", "input_3", NULL},
                   (const guint64[]){0, 655360, 1966080, 2949120}, 4587520);
    aliased_free(a);
    /* Split Example 4: 40, 100, 60 of 200 batches. */
    a = alias_model(family_model((const char *[]){"split", NULL}), "runtime", NULL, FALSE, NULL);
    expect_offsets(a, (const char *[]){"output_0", "output_1", "output_2", NULL}, (const guint64[]){0, 2621440, 9175040},
                   13107200);
    aliased_free(a);
    /* The main concat and split examples: 10, 20, 15 batches of (32,32,192 padded): 35,389,440 B. */
    a = alias_model(family_model((const char *[]){"concat", "--h", "32", "--w", "32", "--c", "192", "--sizes", "10,20,15",
                                                  NULL}), "runtime", NULL, FALSE, NULL);
    expect_offsets(a, (const char *[]){"input_0", "input_1", "input_2", NULL}, (const guint64[]){0, 7864320, 23592960},
                   35389440);
    aliased_free(a);
    a = alias_model(family_model((const char *[]){"split", "--h", "32", "--w", "32", "--c", "192", "--sizes", "10,20,15",
                                                  NULL}), "runtime", NULL, FALSE, NULL);
    expect_offsets(a, (const char *[]){"output_0", "output_1", "output_2", NULL}, (const guint64[]){0, 7864320, 23592960},
                   35389440);
    aliased_free(a);
}

static void test_chained_concat(void)
{
    /* t1, t2, t3 = 655,360, 1,310,720, 983,040 B. Nested: [t1 | t1' t2 t3' ] ... one region of
     * 2·t1 + t2 + 2·t3 = 4,587,520 B, with concat_0_out at t1 and two copies. */
    Aliased *a = alias_model(family_model((const char *[]){"chained-concat", NULL}), "all", NULL, FALSE, NULL);
    expect_offsets(a, (const char *[]){"tensor_1", "concat_0_out", "tensor_2", "tensor_3", NULL},
                   (const guint64[]){0, 655360, 655360 + 655360, 655360 + 2949120}, 2 * 655360 + 1310720 + 2 * 983040);
    g_assert_cmpuint(a->map->copied_ops[SHARE_DEDUP], ==, 2);
    aliased_free(a);
    /* Without concat-dedup the inner concat keeps its own region: the seed's duplicated layout. */
    a = alias_model(family_model((const char *[]){"chained-concat", NULL}), "runtime", NULL, FALSE, NULL);
    g_assert_cmpuint(sum_bytes(a, TRUE), ==, 2949120 + 4587520);
    aliased_free(a);
}

/* Concat of a split's pieces, in order, is no layout at all: x, its pieces and the result are one buffer. */
static void test_concat_of_split(void)
{
    Builder *b = builder_new("split-concat", 13);
    builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){6, 4});
    const char *parts[3] = {NULL, NULL, NULL};
    builder_node(b, "Relu", (const char *const[]){"x", NULL}, 1, (const char *[]){"r"}, NULL);
    builder_node(b, "Split", (const char *const[]){"r", NULL}, 3, parts, attr_new_int("axis", 0), NULL);
    builder_output(b, builder_node(b, "Concat", (const char *const[]){parts[0], parts[1], parts[2], NULL}, 1, (const char *[]){"y"},
                       attr_new_int("axis", 0), NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, "runtime", NULL, FALSE, NULL);
    g_assert_cmpstr(trace_name_of_root(a, "r"), ==, "y");
    g_assert_cmpstr(trace_name_of_root(a, parts[2]), ==, "y");
    g_assert_cmpuint(sum_bytes(a, TRUE), ==, 96 + 96); /* x (input) and the one shared buffer */
    aliased_free(a);
}

/* A concat output read by two concats nests in one; the other copies it, and says so. */
static void test_concat_feeding_two(void)
{
    Builder *b = builder_new("two-outer", 13);
    const gint64 d[2] = {1, 8};
    for (const char *const *n = (const char *[]){"a", "b", "c", "d", NULL}; *n; n++)
        builder_input(b, *n, DT_FLOAT, 2, d);
    builder_node(b, "Concat", (const char *const[]){"a", "b", NULL}, 1, (const char *[]){"inner"}, attr_new_int("axis", 1), NULL);
    builder_output(b, builder_node(b, "Concat", (const char *const[]){"inner", "c", NULL}, 1, (const char *[]){"y1"},
                       attr_new_int("axis", 1), NULL));
    builder_output(b, builder_node(b, "Concat", (const char *const[]){"inner", "d", NULL}, 1, (const char *[]){"y2"},
                       attr_new_int("axis", 1), NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, "all", NULL, FALSE, NULL);
    g_assert_cmpstr(trace_name_of_root(a, "inner"), ==, "y2"); /* the reverse pass meets y2 first */
    gboolean said = FALSE;
    GPtrArray *notes = alias_fallback_notes(a->map);
    for (guint k = 0; k < notes->len; k++)
        said |= strstr(notes->pdata[k], "input 'inner' already lives in another buffer") != NULL;
    g_ptr_array_unref(notes);
    g_assert_true(said);
    aliased_free(a);
}

/* A Slice of a noop view of a weight (torch's exports deduplicate a weight through an Identity, then slice
 * the position table): the runtime pass puts the Slice inside the view before the noop pass sees that the
 * view's input is outside the arena; both then leave the arena together, nothing is copied in (once the
 * view stayed in, whole, to keep the Slice: 11 MiB of GPT-2's weights in its arena). */
static void test_slice_of_weight_view_stays_outside(void)
{
    Builder *b = builder_new("weight-view", 13);
    const gint64 wshape[2] = {8, 16}, xshape[2] = {4, 16};
    builder_input(b, "x", DT_FLOAT, 2, xshape);
    builder_weight(b, "w", DT_FLOAT, 2, wshape, FALSE);
    builder_node(b, "Identity", (const char *const[]){"w", NULL}, 1, (const char *[]){"iw"}, NULL);
    builder_node(b, "Slice", (const char *const[]){"iw", builder_int_vec(b, NULL, 1, (const gint64[]){0}),
                                             builder_int_vec(b, NULL, 1, (const gint64[]){4}),
                                             builder_int_vec(b, NULL, 1, (const gint64[]){0}), NULL},
           1, (const char *[]){"s"}, NULL);
    builder_output(b, builder_node(b, "Add", (const char *const[]){"x", "s", NULL}, 1, (const char *[]){"y"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, "all", NULL, FALSE, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(a->map->bytes[graph_tensor(m->graph, "iw")->id], ==, 0);
    g_assert_cmpuint(a->map->bytes[graph_tensor(m->graph, "s")->id], ==, 0);
    g_assert_cmpuint(sum_bytes(a, TRUE), ==, 2 * 4 * 16 * 4); /* x and y only */
    g_assert_cmpuint(a->map->outside_saved[SHARE_NOOP], ==, 8 * 16 * 4);
    g_assert_cmpuint(a->map->outside_saved[SHARE_SLICE], ==, 4 * 16 * 4);
    aliased_free(a);
}

static void expect_strict_error(Model *m, const char *expected)
{
    GError *error = NULL;
    Aliased *a = alias_model(m, "all", NULL, TRUE, &error);
    g_assert_null(a->trace);
    g_assert_cmpstr(error->message, ==, expected);
    g_error_free(error);
    aliased_free(a);
}

static Model *one_op(const char *op, const gint64 *shape, Attr *attr, const char *second)
{
    Builder *b = builder_new("strict", 13);
    builder_input(b, "x", DT_FLOAT, 2, shape);
    if (second && !strcmp(second, "x2"))
        builder_input(b, "x2", DT_FLOAT, 2, shape);
    const char *in2 = second && !strcmp(second, "idx") ? builder_int_vec(b, "idx", 2, (const gint64[]){0, 1}) : second;
    const char *y;
    if (!strcmp(op, "Slice"))
        y = builder_node(b, op, (const char *const[]){"x", builder_int_vec(b, NULL, 1, (const gint64[]){1}),
                                                builder_int_vec(b, NULL, 1, (const gint64[]){3}),
                                                builder_int_vec(b, NULL, 1, (const gint64[]){1}), NULL}, 1, (const char *[]){"y"}, NULL);
    else if (!strcmp(op, "Split"))
        y = builder_node(b, op, (const char *const[]){"x", NULL}, 2, (const char *[]){"y", "z"}, attr, NULL);
    else
        y = builder_node(b, op, (const char *const[]){"x", in2, NULL}, 1, (const char *[]){"y"}, attr, NULL);
    builder_output(b, y);
    if (!strcmp(op, "Split"))
        builder_output(b, "z");
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    return m;
}

static void test_strict_runtime_errors(void)
{
    const gint64 shape[2] = {2, 10};
    expect_strict_error(one_op("Slice", shape, NULL, NULL),
                        "node 'Slice_n3' (Slice): slice_runtime: axis=1 requires all leading dimensions to be 1 for memory "
                        "aliasing");
    expect_strict_error(one_op("Split", shape, attr_new_int("axis", 1), NULL),
                        "node 'Split_n0' (Split): split_runtime: axis=1 requires all leading dimensions to be 1 for memory "
                        "aliasing");
    expect_strict_error(one_op("Concat", shape, attr_new_int("axis", 1), "x2"),
                        "node 'Concat_n0' (Concat): concat_runtime: axis=1 requires all leading dimensions to be 1 for "
                        "memory aliasing");
    expect_strict_error(one_op("Gather", shape, attr_new_int("axis", 1), "idx"),
                        "node 'Gather_n0' (Gather): gather_runtime: axis=1 requires all leading dimensions to be 1 for "
                        "memory aliasing");
    /* The seed's validation text for a Slice whose starts and axes differ in length (shape inference). */
    Builder *b = builder_new("slice-axes", 13);
    builder_input(b, "x", DT_FLOAT, 2, shape);
    builder_node(b, "Slice", (const char *const[]){"x", builder_int_vec(b, NULL, 1, (const gint64[]){1}),
                                            builder_int_vec(b, NULL, 1, (const gint64[]){3}),
                                            builder_int_vec(b, NULL, 2, (const gint64[]){0, 1}), NULL}, 1, (const char *[]){"y"}, NULL);
    char *msg = test_finish_error(b, NULL);
    g_assert_cmpstr(msg, ==, "node 'Slice_n3' (Slice): slice_runtime: starts and axes must have the same length (starts 1, "
                             "axes 2)");
    g_free(msg);
    /* Example 1's larger output: allowed (max) by default, the seed's size rule under --strict-runtime. */
    expect_strict_error(family_model((const char *[]){"gather", NULL}),
                        "node 'Gather_n0' (Gather): gather_runtime: output physical size exceeds input physical size "
                        "after C-dimension padding");
}

/* GPT-2's QKV Split on the last axis, with batch·seq = 128 > 1, falls back to copies and says why. */
static void test_gpt2_split_fallback(void)
{
    char *path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL);
    GError *error = NULL;
    Model *m = onnx_read_file(path, &error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, "all", NULL, FALSE, NULL);
    g_assert_cmpuint(a->map->copied_ops[SHARE_SPLIT], ==, 12);
    g_assert_cmpuint(a->map->aliased_ops[SHARE_SPLIT], ==, 0);
    guint split_notes = 0;
    GPtrArray *notes = alias_fallback_notes(a->map);
    for (guint k = 0; k < notes->len; k++)
        split_notes += g_str_has_suffix(notes->pdata[k], "copies: split_runtime: axis=2 requires all leading "
                                                         "dimensions to be 1 for memory aliasing");
    g_ptr_array_unref(notes);
    g_assert_cmpuint(split_notes, ==, 12);
    g_assert_cmpuint(a->map->aliased_ops[SHARE_NOOP], ==, 97);
    aliased_free(a);
    g_free(path);
}

/* Bins: a noop across bins copies; each bin is its own arena. */
static void test_bins(void)
{
    GError *error = NULL;
    const char rules_text[] = "# bin rule\n1 name=*transpose*\n2 size>=1000000000\n";
    BinRules *rules = bins_parse(rules_text, sizeof rules_text - 1, "b.bins", &error);
    g_assert_no_error(error);
    Model *m = family_model((const char *[]){"noop-chain", NULL});
    LayoutOptions lo = LAYOUT_DEFAULTS;
    lo.align = 1;
    Trace *t = NULL;
    AliasMap *map = pipeline_alias_trace_with(m->graph, &lo, rules, FALSE, "all", &t, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(map->copied_ops[SHARE_NOOP], ==, 2); /* into and out of bin 1 */
    Plan *p = place_run(registry_place_find("bestfit"), t, &error);
    g_assert_true(verify_plan(t, p, &error));
    g_assert_cmpuint(p->bins, ==, 2);
    g_assert_cmpuint(p->bin_arena[1], ==, 400);
    plan_free(p);
    trace_free(t);
    alias_map_free(map);
    model_free(m);
    bins_free(rules);
    g_assert_null(bins_parse("1 colour=red\n", 13, "b.bins", &error));
    g_assert_cmpstr(error->message, ==, "b.bins:1: rule 'colour=red' is neither name=GLOB nor size>=BYTES");
    g_clear_error(&error);
}

/* Scratch from the op table: conv1's im2col of a 3x3 kernel over 10x10 outputs, 9 x 100 floats, one step. */
static void test_scratch(void)
{
    Model *m = family_model((const char *[]){"branches", NULL});
    GError *error = NULL;
    LayoutOptions lo = LAYOUT_DEFAULTS;
    lo.align = 1;
    Trace *t = NULL;
    AliasMap *map = pipeline_alias_trace_with(m->graph, &lo, NULL, TRUE, "none", &t, &error);
    g_assert_no_error(error);
    guint scratch = 0;
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        if (g_str_has_suffix(b->name, "#scratch")) {
            g_assert_cmpuint(b->size, ==, 9 * 100 * 4);
            g_assert_cmpuint(b->first, ==, b->last);
            scratch++;
        }
    }
    g_assert_cmpuint(scratch, ==, 2);
    /* what each buffer holds, for the HTML view: one line per buffer, the scratch ones naming their node */
    char **about = alias_buffer_about(map, t);
    g_assert_nonnull(about);
    g_assert_cmpuint(g_strv_length(about), ==, trace_count(t));
    for (guint k = 0; k < trace_count(t); k++)
        g_assert_true(g_str_has_suffix(trace_buffer(t, k)->name, "#scratch") == g_str_has_prefix(about[k], "workspace of '"));
    g_strfreev(about);
    /* a trace that is not this map's gets none */
    Trace *other = trace_new("other");
    trace_add(other, "not-a-tensor", 64, 1, 0, 0);
    g_assert_null(alias_buffer_about(map, other));
    trace_free(other);
    trace_free(t);
    alias_map_free(map);
    model_free(m);
}

/* A Reshape that changes the padded last dimension is not metadata-only: a copy, with the reason. */
static void test_padding_breaks_noop(void)
{
    Builder *b = builder_new("reshape-pad", 13);
    builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){4, 6});
    builder_output(b, builder_node(b, "Reshape", (const char *const[]){"x", builder_int_vec(b, NULL, 2, (const gint64[]){6, 4}), NULL}, 1,
                       (const char *[]){"y"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_true(test_infer(m, NULL, &error));
    LayoutOptions lo = LAYOUT_DEFAULTS;
    lo.pad_last = 64; /* x: 4 rows of 64 floats, y: 6 rows of 64 floats */
    AliasMap *map = alias_map_new(m->graph, m->graph->order, &lo, NULL, NULL, &error);
    g_assert_true(registry_alias_apply_list(map, "noop", &error));
    g_assert_cmpuint(map->copied_ops[SHARE_NOOP], ==, 1);
    char *note = alias_fallback_note(&g_array_index(map->fallbacks, AliasFallback, 0));
    g_assert_cmpstr(note, ==, "noop: node 'Reshape_n1' (Reshape) copies: the last dimension changes under "
                              "--pad-last 64, so 'x' (1024 B) and 'y' (1536 B) differ in bytes");
    g_free(note);
    alias_map_free(map);
    model_free(m);
}

/* In-place chains (design log: one root map for alias and in-place): Exp cannot write over the graph
 * input x, Relu writes over Exp's output, Neg over Relu's — one buffer for all three. */
static void test_inplace_chain(void)
{
    Builder *b = builder_new("chain", 13);
    builder_input(b, "x", DT_FLOAT, 1, (const gint64[]){64});
    const char *e = builder_node(b, "Exp", (const char *const[]){"x", NULL}, 1, (const char *[]){"e"}, NULL);
    const char *r = builder_node(b, "Relu", (const char *const[]){e, NULL}, 1, (const char *[]){"r"}, NULL);
    const char *n = builder_node(b, "Neg", (const char *const[]){r, NULL}, 1, (const char *[]){"n"}, NULL);
    builder_output(b, builder_node(b, "Add", (const char *const[]){n, "x", NULL}, 1, (const char *[]){"y"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, "inplace", NULL, FALSE, NULL);
    g_assert_cmpstr(trace_name_of_root(a, "e"), ==, "e");
    g_assert_cmpstr(trace_name_of_root(a, "r"), ==, "e");
    g_assert_cmpstr(trace_name_of_root(a, "n"), ==, "e");
    g_assert_cmpstr(trace_name_of_root(a, "y"), ==, "y"); /* a graph output is never written in place */
    g_assert_cmpuint(a->map->aliased_ops[SHARE_INPLACE], ==, 2);
    aliased_free(a);
}

/* A read of the shape alone (Shape, Size, EyeLike's input, CastLike's target) keeps no bytes alive when the shape
 * is known: the Exp's output dies at the Relu that reads its values, so the Relu writes over it although a Shape,
 * a Size and a CastLike read it later; the plan runs and matches the reference run with every dead buffer
 * poisoned. A Sigmoid reading it later (its values) keeps it. */
static void test_metadata_reads(void)
{
    for (int values_later = 0; values_later < 2; values_later++) {
        Builder *b = builder_new("metadata", 17);
        builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){16, 64});
        builder_node(b, "Exp", (const char *const[]){"x", NULL}, 1, (const char *[]){"e"}, NULL);
        builder_node(b, "Relu", (const char *const[]){"e", NULL}, 1, (const char *[]){"r"}, NULL);
        builder_node(b, "Neg", (const char *const[]){"r", NULL}, 1, (const char *[]){"n"}, NULL);
        builder_output(b, builder_node(b, "Tanh", (const char *const[]){"n", NULL}, 1, (const char *[]){"y"}, NULL));
        builder_output(b, builder_node(b, "Shape", (const char *const[]){"e", NULL}, 1, (const char *[]){"s"}, NULL));
        builder_output(b, builder_node(b, "Size", (const char *const[]){"e", NULL}, 1, (const char *[]){"z"}, NULL));
        builder_output(b, builder_node(b, "CastLike", (const char *const[]){"n", "e", NULL}, 1, (const char *[]){"c"},
                                       NULL));
        if (values_later)
            builder_output(b, builder_node(b, "Sigmoid", (const char *const[]){"e", NULL}, 1, (const char *[]){"g"},
                                           NULL));
        GError *error = NULL;
        Model *m = builder_finish(b, &error);
        g_assert_no_error(error);
        char *path = test_write_model(m, values_later ? "metadata-values.onnx" : "metadata.onnx");
        m = onnx_read_file(path, &error);
        g_assert_no_error(error);
        g_assert_true(test_infer(m, NULL, &error));
        Aliased *a = alias_model(m, "inplace", NULL, FALSE, NULL); /* takes m */
        g_assert_cmpstr(trace_name_of_root(a, "r"), ==, values_later ? "r" : "e");
        aliased_free(a);
        RunResult run = test_run("SIM_BIN", (const char *[]){"--graph", path, "--order", "file", "--alias", "all",
                                                              "--run", "--check", "--poison", NULL});
        g_assert_cmpint(run.status, ==, 0);
        assert_contains(run.out, "equal the reference run (nothing shared) bit for bit, with poison");
        /* at the peak: x, y and the chain e = r = n = c in place (4 KiB each), s and z (24 B); e keeps bytes of its
         * own, 4 KiB more, when the Sigmoid reads its values later */
        assert_contains(run.out, values_later ? "lower bound    16,408 B" : "lower bound    12,312 B");
        run_result_clear(&run);
        g_free(path);
    }
}

/* An elementwise output that is a concat piece takes no bytes of its own: the input dying there takes the
 * piece's place (squeezenet's Conv, Relu, Concat), so the op still runs in place; an input read again later
 * keeps its own bytes. */
static void test_inplace_into_concat_piece(void)
{
    Builder *b = builder_new("piece", 13);
    builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){1, 8});
    builder_node(b, "Exp", (const char *const[]){"x", NULL}, 1, (const char *[]){"e1"}, NULL);
    builder_node(b, "Relu", (const char *const[]){"e1", NULL}, 1, (const char *[]){"r1"}, NULL);
    builder_node(b, "Exp", (const char *const[]){"x", NULL}, 1, (const char *[]){"e2"}, NULL);
    builder_node(b, "Relu", (const char *const[]){"e2", NULL}, 1, (const char *[]){"r2"}, NULL);
    builder_output(b, builder_node(b, "Neg", (const char *const[]){"e2", NULL}, 1, (const char *[]){"n"}, NULL));
    builder_node(b, "Concat", (const char *const[]){"r1", "r2", NULL}, 1, (const char *[]){"c"}, attr_new_int("axis", 1), NULL);
    builder_output(b, builder_node(b, "Sigmoid", (const char *const[]){"c", NULL}, 1, (const char *[]){"y"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, "all", NULL, FALSE, NULL);
    guint64 offset = 1;
    g_assert_cmpstr(trace_name_of_root(a, "e1"), ==, "c");
    g_assert_cmpint(root_of(a, "e1", &offset), ==, root_of(a, "r1", NULL));
    g_assert_cmpuint(offset, ==, 0);
    g_assert_cmpstr(trace_name_of_root(a, "r2"), ==, "c");
    g_assert_cmpstr(trace_name_of_root(a, "e2"), ==, "e2"); /* Neg reads it after the Relu */
    g_assert_cmpuint(a->map->aliased_ops[SHARE_INPLACE], ==, 1);
    Plan *p = plan(a, "greedy-size");
    plan_free(p);
    aliased_free(a);
}

/* The real models of graphs/models/models.tsv under no aliasing and all of it, every strategy. */
static void test_models_alias_sets(void)
{
    char *dir = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "models", NULL);
    char *list = g_build_filename(dir, "models.tsv", NULL), *text;
    g_assert_true(g_file_get_contents(list, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    guint count, models = 0;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    for (char **line = lines; *line; line++) {
        if (!**line || **line == '#')
            continue;
        char **f = g_strsplit(*line, "\t", 3);
        char *path = g_build_filename(dir, f[1], NULL);
        char **dims = strcmp(f[2], "-") ? g_strsplit(f[2], ",", -1) : NULL;
        for (const char *const *set = (const char *[]){"none", "all", NULL}; *set; set++) {
            GError *error = NULL;
            Model *m = onnx_read_file(path, &error);
            g_assert_no_error(error);
            g_assert_true(test_infer(m, (const char *const *)dims, &error));
            Aliased *a = alias_model(m, *set, NULL, FALSE, &error);
            g_assert_no_error(error);
            for (guint k = 0; k < count; k++)
                plan_free(plan(a, all[k]->name));
            aliased_free(a);
        }
        models++;
        g_strfreev(dims);
        g_free(path);
        g_strfreev(f);
    }
    g_assert_cmpuint(models, ==, 25);
    g_strfreev(lines);
    g_free(text);
    g_free(list);
    g_free(dir);
}

/* The alias sets to try, from the registry: none, each strategy alone, all but each one, all. */
static GPtrArray *alias_sets(void)
{
    GPtrArray *sets = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(sets, g_strdup("none"));
    guint n;
    const AliasStrategy *const *aliases = registry_alias_strategies(&n);
    for (guint k = 0; k < n; k++) {
        g_ptr_array_add(sets, g_strdup(aliases[k]->name));
        GString *others = g_string_new(NULL);
        for (guint j = 0; j < n; j++)
            if (j != k)
                g_string_append_printf(others, "%s%s", others->len ? "," : "", aliases[j]->name);
        g_ptr_array_add(sets, g_string_free(others, FALSE));
    }
    g_ptr_array_add(sets, g_strdup("all"));
    return sets;
}

/* Every strategy under one alias set on one committed graph (/alias/corpus-all-alias-sets/GRAPH/SET, over every
 * graph and set): the verifier accepts every plan. */
static void test_corpus_alias_set(gconstpointer data)
{
    char **f = g_strsplit(data, "\t", 2);
    guint count;
    const PlaceStrategy *const *all = registry_place_strategies(&count);
    char *path = test_corpus_graph_path(f[0]);
    GError *error = NULL;
    Model *m = onnx_read_file(path, &error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, f[1], NULL, FALSE, &error);
    g_assert_no_error(error);
    for (guint k = 0; k < count; k++)
        plan_free(plan(a, all[k]->name));
    aliased_free(a);
    g_free(path);
    g_strfreev(f);
}

static void add_corpus_alias_sets(void)
{
    GPtrArray *sets = alias_sets();
    for (const char *const *g = test_corpus_graphs; *g; g++)
        for (guint s = 0; s < sets->len; s++) {
            char *path = g_strdup_printf("/alias/corpus-all-alias-sets/%s/%s", *g, (const char *)sets->pdata[s]);
            char *data = g_strjoin("\t", *g, (const char *)sets->pdata[s], NULL);
            test_add_case(path, data, test_corpus_alias_set);
            g_free(data);
            g_free(path);
        }
    g_ptr_array_unref(sets);
}

/* `--alias ort`, ONNX Runtime's CPU rule: Relu writes over its dying input when ORT knows both shapes, Add
 * never does; a Reshape to a computed shape (Shape -> Reshape) gives a shape ORT does not know, so the Relu
 * after it copies and those buffers are never reused (class none); buffers of one element size and shape
 * share a class. `all` leaves the rule out. */
static void test_ort_rule(void)
{
    Builder *b = builder_new("ort-rule", 13);
    builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){4, 8});
    builder_node(b, "Sigmoid", (const char *const[]){"x", NULL}, 1, (const char *[]){"a"}, NULL); /* x: an input */
    builder_node(b, "Relu", (const char *const[]){"a", NULL}, 1, (const char *[]){"r"}, NULL);      /* in place */
    builder_node(b, "Add", (const char *const[]){"r", "r", NULL}, 1, (const char *[]){"s"}, NULL);  /* never */
    builder_node(b, "Shape", (const char *const[]){"s", NULL}, 1, (const char *[]){"shape"}, NULL);
    builder_node(b, "Reshape", (const char *const[]){"s", "shape", NULL}, 1, (const char *[]){"q"}, NULL);
    builder_node(b, "Relu", (const char *const[]){"q", NULL}, 1, (const char *[]){"t"}, NULL);      /* unknown shape */
    builder_output(b, builder_node(b, "Mul", (const char *const[]){"t", "t", NULL}, 1, (const char *[]){"y"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, "ort", NULL, FALSE, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(trace_name_of_root(a, "r"), ==, "a");
    g_assert_cmpstr(trace_name_of_root(a, "s"), ==, "s");
    g_assert_cmpstr(trace_name_of_root(a, "t"), ==, "t");
    g_assert_cmpuint(a->map->aliased_ops[SHARE_INPLACE], ==, 1);
    const guint64 *reuse = a->map->reuse;
    guint64 ca = reuse[graph_tensor(m->graph, "a")->id], cs = reuse[graph_tensor(m->graph, "s")->id];
    g_assert_cmpuint(ca, !=, 0);
    g_assert_cmpuint(ca, !=, TRACE_REUSE_NONE);
    g_assert_cmpuint(cs, ==, ca); /* both float [4, 8] */
    g_assert_cmpuint(reuse[graph_tensor(m->graph, "shape")->id], !=, ca); /* int64 [2] */
    g_assert_cmpuint(reuse[graph_tensor(m->graph, "q")->id], ==, TRACE_REUSE_NONE);
    g_assert_cmpuint(reuse[graph_tensor(m->graph, "t")->id], ==, TRACE_REUSE_NONE);
    for (guint k = 0; k < trace_count(a->trace); k++) { /* the classes reach the trace */
        const TraceBuffer *tb = trace_buffer(a->trace, k);
        if (!strcmp(tb->name, "q"))
            g_assert_cmpuint(tb->reuse, ==, TRACE_REUSE_NONE);
        if (!strcmp(tb->name, "a"))
            g_assert_cmpuint(tb->reuse, ==, ca);
    }
    aliased_free(a);
    const AliasStrategy **all = registry_alias_list_resolve("all", &error);
    for (guint k = 0; all[k]; k++)
        g_assert_false(all[k]->runtime_rule);
    g_free(all);
}

/* ORT's load-time inference knows a shape dim by dim: a GPT's position ids come from a Range over the
 * sequence length, a shape ORT does not know ([?]), Unsqueeze and Gather carry that unknown row count into
 * the position embeddings ([1, ?, 4]), and Add with the token embeddings ([1, 8, 4]) is known whole again
 * (the unknown rows must be 8), so the Relu after it may write in place and the sum has a reuse class. */
static void test_ort_rule_dims(void)
{
    Builder *b = builder_new("ort-dims", 13);
    builder_input(b, "ids", DT_INT64, 2, (const gint64[]){1, 8});
    builder_weight(b, "wte", DT_FLOAT, 2, (const gint64[]){32, 4}, FALSE);
    builder_weight(b, "wpe", DT_FLOAT, 2, (const gint64[]){16, 4}, FALSE);
    builder_node(b, "Shape", (const char *const[]){"ids", NULL}, 1, (const char *[]){"shape"}, NULL);
    builder_node(b, "Gather", (const char *const[]){"shape", builder_ints(b, NULL, 0, NULL, (const gint64[]){1}), NULL}, 1,
                 (const char *[]){"len"}, NULL);
    builder_node(b, "Range", (const char *const[]){builder_ints(b, NULL, 0, NULL, (const gint64[]){0}), "len",
                                                   builder_ints(b, NULL, 0, NULL, (const gint64[]){1}), NULL},
                 1, (const char *[]){"positions"}, NULL);
    builder_node(b, "Unsqueeze", (const char *const[]){"positions", builder_int_vec(b, NULL, 1, (const gint64[]){0}), NULL}, 1,
                 (const char *[]){"pos_ids"}, NULL);
    builder_node(b, "Gather", (const char *const[]){"wpe", "pos_ids", NULL}, 1, (const char *[]){"pos"}, NULL);
    builder_node(b, "Gather", (const char *const[]){"wte", "ids", NULL}, 1, (const char *[]){"tok"}, NULL);
    builder_node(b, "Add", (const char *const[]){"tok", "pos", NULL}, 1, (const char *[]){"h"}, NULL);
    builder_node(b, "Relu", (const char *const[]){"h", NULL}, 1, (const char *[]){"r"}, NULL);
    builder_output(b, builder_node(b, "Mul", (const char *const[]){"r", "r", NULL}, 1, (const char *[]){"y"}, NULL));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    Aliased *a = alias_model(m, "ort", NULL, FALSE, &error);
    g_assert_no_error(error);
    const guint64 *reuse = a->map->reuse;
    g_assert_cmpuint(reuse[graph_tensor(m->graph, "positions")->id], ==, TRACE_REUSE_NONE);
    g_assert_cmpuint(reuse[graph_tensor(m->graph, "pos")->id], ==, TRACE_REUSE_NONE);
    g_assert_cmpuint(reuse[graph_tensor(m->graph, "h")->id], !=, TRACE_REUSE_NONE);
    g_assert_cmpuint(reuse[graph_tensor(m->graph, "h")->id], ==, reuse[graph_tensor(m->graph, "tok")->id]);
    g_assert_cmpstr(trace_name_of_root(a, "r"), ==, "h");
    aliased_free(a);
}

/* The shapes ORT knows (ort-shapes.c): a graph input's symbolic dims stay symbols through ops that pass them on
 * (Relu, Transpose, a Reshape copying a dim with 0) and become unknown where a dim is computed from one (a
 * Conv's output width, a Concat along it); numbers stay numbers. The reuse rule then lets two tensors of the
 * same symbols share and never one of an unknown shape. */
static void test_ort_shapes(void)
{
    Builder *b = builder_new("ort-shapes", 13);
    builder_input_sym(b, "x", DT_FLOAT, 4, (const gint64[]){1, 2, 8, 0},
                      (const char *const[]){"batch", NULL, NULL, "width"});
    builder_weight(b, "w", DT_FLOAT, 4, (const gint64[]){2, 2, 3, 3}, FALSE);
    builder_node(b, "Relu", (const char *const[]){"x", NULL}, 1, (const char *[]){"r"}, NULL);
    builder_node(b, "Transpose", (const char *const[]){"r", NULL}, 1, (const char *[]){"t"},
                 attr_new_ints("perm", (const gint64[]){0, 1, 3, 2}, 4), NULL);
    builder_node(b, "Reshape", (const char *const[]){"t", builder_int_vec(b, NULL, 3, (const gint64[]){0, 2, -1}), NULL}, 1,
                 (const char *[]){"flat"}, NULL);
    builder_node(b, "Conv", (const char *const[]){"r", "w", NULL}, 1, (const char *[]){"c"},
                 attr_new_ints("pads", (const gint64[]){1, 1, 1, 1}, 4), NULL);
    builder_node(b, "Concat", (const char *const[]){"r", "c", NULL}, 1, (const char *[]){"cat"}, attr_new_int("axis", 3), NULL);
    builder_output(b, "flat");
    builder_output(b, "cat");
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, (const char *const[]){"batch=1", "width=16", NULL}, &error));
    OrtShapes *s = ort_shapes_infer(m->graph, m->graph->order);
    const gint64 *r = s->dims[graph_tensor(m->graph, "r")->id], *t = s->dims[graph_tensor(m->graph, "t")->id];
    const gint64 *flat = s->dims[graph_tensor(m->graph, "flat")->id], *c = s->dims[graph_tensor(m->graph, "c")->id];
    const gint64 *cat = s->dims[graph_tensor(m->graph, "cat")->id];
    g_assert_true(ORT_DIM_IS_SYMBOL(r[0]) && ORT_DIM_IS_SYMBOL(r[3]) && r[0] != r[3]);
    g_assert_cmpint(r[1], ==, 2);
    g_assert_cmpint(r[2], ==, 8);
    g_assert_cmpint(t[2], ==, r[3]); /* the width moved by the Transpose */
    g_assert_cmpint(t[3], ==, 8);
    g_assert_cmpint(flat[0], ==, r[0]); /* 0: the batch copied */
    g_assert_cmpint(flat[1], ==, 2);
    g_assert_cmpint(flat[2], ==, ORT_DIM_UNKNOWN); /* -1 over a symbol */
    g_assert_cmpint(c[0], ==, r[0]);
    g_assert_cmpint(c[2], ==, 8);
    g_assert_cmpint(c[3], ==, ORT_DIM_UNKNOWN); /* a Conv's width computed from a symbolic one */
    g_assert_cmpint(cat[3], ==, ORT_DIM_UNKNOWN);
    g_assert_cmpint(cat[2], ==, 8);
    g_assert_true(ort_shapes_complete(s, graph_tensor(m->graph, "t")));
    g_assert_false(ort_shapes_complete(s, graph_tensor(m->graph, "c")));
    g_assert_true(ort_shapes_equal(s, graph_tensor(m->graph, "x"), graph_tensor(m->graph, "r")));
    g_assert_false(ort_shapes_equal(s, graph_tensor(m->graph, "r"), graph_tensor(m->graph, "t")));
    ort_shapes_free(s);
    model_free(m);
}

/* Under ORT's rule an output nothing reads (Dropout's mask) lives to the end of the run (ORT releases a value
 * after its last reader, and it has none); under our own sharing it dies where it is made. */
static void test_ort_unread_output(void)
{
    for (int ort = 0; ort < 2; ort++) {
        Builder *b = builder_new("unread", 13);
        builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){4, 8});
        builder_node(b, "Relu", (const char *const[]){"x", NULL}, 1, (const char *[]){"r"}, NULL);
        builder_node(b, "Dropout", (const char *const[]){"r", NULL}, 2, (const char *[]){"d", "mask"}, NULL);
        builder_node(b, "Neg", (const char *const[]){"d", NULL}, 1, (const char *[]){"n"}, NULL);
        builder_output(b, builder_node(b, "Neg", (const char *const[]){"n", NULL}, 1, (const char *[]){"y"}, NULL));
        GError *error = NULL;
        Model *m = builder_finish(b, &error);
        g_assert_no_error(error);
        g_assert_true(test_infer(m, NULL, &error));
        Aliased *a = alias_model(m, ort ? "ort" : "none", NULL, FALSE, &error);
        g_assert_no_error(error);
        gboolean found = FALSE;
        for (guint k = 0; k < trace_count(a->trace); k++) {
            const TraceBuffer *tb = trace_buffer(a->trace, k);
            if (strcmp(tb->name, "mask"))
                continue;
            found = TRUE;
            g_assert_cmpuint(tb->last, ==, ort ? a->trace->steps - 1 : tb->first);
        }
        g_assert_true(found);
        aliased_free(a);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/alias/ort-rule", test_ort_rule);
    g_test_add_func("/alias/ort-rule-dims", test_ort_rule_dims);
    g_test_add_func("/alias/ort-shapes", test_ort_shapes);
    g_test_add_func("/alias/ort-unread-output", test_ort_unread_output);
    g_test_add_func("/alias/slice-of-weight-view-outside", test_slice_of_weight_view_stays_outside);
    g_test_add_func("/alias/noop/chain", test_noop_chain);
    g_test_add_func("/alias/noop/branching", test_branching);
    g_test_add_func("/alias/noop/deallocation-walkthrough", test_deallocation_walkthrough);
    g_test_add_func("/alias/pinned/intermediate-intermediate", test_pinned_intermediate_intermediate);
    g_test_add_func("/alias/pinned/pinned-input", test_pinned_input_intermediate);
    g_test_add_func("/alias/pinned/pinned-output", test_pinned_intermediate_output);
    g_test_add_func("/alias/pinned/pinned-pinned", test_pinned_pinned);
    g_test_add_func("/alias/noop/padding", test_padding_breaks_noop);
    g_test_add_func("/alias/runtime/gather", test_gather);
    g_test_add_func("/alias/runtime/slice", test_slice);
    g_test_add_func("/alias/runtime/concat-and-split", test_concat_and_split);
    g_test_add_func("/alias/runtime/concat-of-split", test_concat_of_split);
    g_test_add_func("/alias/runtime/strict-errors", test_strict_runtime_errors);
    g_test_add_func("/alias/dedup/chained", test_chained_concat);
    g_test_add_func("/alias/dedup/feeding-two", test_concat_feeding_two);
    g_test_add_func("/alias/gpt2-split-fallback", test_gpt2_split_fallback);
    g_test_add_func("/alias/bins", test_bins);
    g_test_add_func("/alias/scratch", test_scratch);
    add_corpus_alias_sets();
    g_test_add_func("/alias/models-alias-sets", test_models_alias_sets);
    g_test_add_func("/alias/inplace-chain", test_inplace_chain);
    g_test_add_func("/alias/metadata-reads", test_metadata_reads);
    g_test_add_func("/alias/inplace-into-concat-piece", test_inplace_into_concat_piece);
    return g_test_run();
}
