/* test-corpus.c — the graph corpus: every mkgraph family loads, infers every shape and matches
 * hand-computed node counts and byte totals (derivations in the comments and docs/corpus.md); every
 * model in graphs/models/models.tsv loads with its documented dims, infers every shape, and agrees
 * with the ONNX project's own shape inference (fixtures in tests/data/reference-shapes/, made by
 * graphs/reference_shapes.py). */
#include "report/csv-table.h"
#include "report/info.h"
#include "tests/testutil.h"

#include <string.h>

typedef struct {
    const char *args[16]; /* family and parameters for mkgraph */
    guint nodes;
    guint64 input_bytes, activation_bytes, output_bytes;
} FamilyCase;

static const FamilyCase family_cases[] = {
    /* 001 seed: every tensor 400 B. Chain: input, reshape, transpose | unsqueeze = 1600 B in all. */
    {{"noop-chain"}, 3, 400, 800, 400},
    /* x -> conv1 -> input; reshape, transpose; unsqueeze, flatten; conv2: 7 x 400 = 2800 B. */
    {{"branches"}, 6, 400, 1200, 1200},
    /* input, reshape1, transpose1, intermediate, conv_out, reshape2, output: 7 x 400 = 2800 B. */
    {{"pinned"}, 6, 400, 2000, 400},
    /* 000 seed Example 1: 100 x 16 x 16 x 64 x 4 = 6,553,600 in; 150 batches = 9,830,400 out. */
    {{"gather"}, 1, 6553600, 0, 9830400},
    /* Example 2: 1000 batches = 65,536,000 in; batches [100:200) = 6,553,600 out. */
    {{"slice"}, 1, 65536000, 0, 6553600},
    /* Example 3: 655,360 + 1,310,720 + 983,040 + 1,638,400 = 4,587,520 in and out. */
    {{"concat"}, 1, 4587520, 0, 4587520},
    /* Example 4: 200 batches = 13,107,200 in and out. */
    {{"split"}, 1, 13107200, 0, 13107200},
    /* t1, t2, t3 = 10, 20, 15 batches of 65,536 B; concat_0 = 2,949,120; output = t1 + concat_0 + t3. */
    {{"chained-concat"}, 2, 2949120, 2949120, 655360 + 2949120 + 983040},
    /* 2 x (MatMul, Add, Relu) on [1, 8] floats (32 B): 5 intermediates, the last Relu the output. */
    {{"mlp", "--layers", "2", "--width", "8"}, 6, 32, 160, 32},
    /* d 64, s 32, 4 heads: 149,504 elements of intermediates (docs/corpus.md's block table at S=32, D=64,
     * H=4) = 598,016 B; output [1,32,64] = 8,192 B. */
    {{"block"}, 34, 8192, 598016, 8192},
    /* x [1,8,4,4] 512 B; layer 0 conv+relu [1,4,4,4] 2 x 256; concat [1,12,4,4] 768; layer 1 conv+relu
     * 2 x 256; output concat [1,16,4,4] 1024. */
    {{"densenet", "--blocks", "1", "--layers", "2", "--growth", "4", "--channels", "8", "--size", "4"}, 6, 512, 1792, 1024},
    /* x [1,3,4,4] 192; conv+relu 2 x 128, pool 32, conv+relu 2 x 64, resize 256, concat [1,6,4,4] 384,
     * conv+relu 2 x 128, final conv 64 (+ its relu, the output, 64); the scales are a constant. */
    {{"unet", "--depth", "1", "--channels", "2", "--size", "4"}, 12, 192, 1376, 64},
    /* x [1,4,2,2] 64; branches 1x1 (2 x 64), 1x1->3x3 (2 x 32 + 2 x 64), 1x1->5x5 (2 x 16 + 2 x 64),
     * pool->1x1 (64 + 2 x 64); concat [1,16,2,2] 256. */
    {{"inception", "--modules", "1", "--channels", "4", "--size", "2"}, 14, 64, 672, 256},
};

static Model *load_inferred(const char *path, const char *dim_spec)
{
    GError *error = NULL;
    Model *m = onnx_read_file(path, &error);
    g_assert_no_error(error);
    char **dims = g_strcmp0(dim_spec, "-") ? g_strsplit(dim_spec, ",", -1) : NULL;
    test_infer(m, (const char *const *)dims, &error);
    g_strfreev(dims);
    g_assert_no_error(error);
    return m;
}

static void test_family(gconstpointer data)
{
    const FamilyCase *c = data;
    char *path = test_scratch_path("family.onnx");
    const char *args[20];
    guint n = 0;
    for (; c->args[n]; n++)
        args[n] = c->args[n];
    args[n++] = "-o";
    args[n++] = path;
    args[n] = NULL;
    RunResult r = test_run("MKGRAPH_BIN", args);
    g_assert_cmpstr(r.err, ==, "");
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    Model *m = load_inferred(path, "-");
    GraphStats s;
    info_graph_stats(m->graph, &s);
    g_assert_cmpuint(s.n_unknown_shapes, ==, 0);
    g_assert_cmpuint(s.n_nodes, ==, c->nodes);
    g_assert_cmpuint(s.bytes_by_kind[TENSOR_INPUT], ==, c->input_bytes);
    g_assert_cmpuint(s.bytes_by_kind[TENSOR_INTERMEDIATE], ==, c->activation_bytes);
    g_assert_cmpuint(s.bytes_by_kind[TENSOR_OUTPUT], ==, c->output_bytes);
    model_free(m);
    g_free(path);
}

/* The random family: deterministic for a seed, every node of the requested count, all shapes known. */
static void test_random_family(void)
{
    char *a = test_scratch_path("random-a.onnx"), *b = test_scratch_path("random-b.onnx");
    for (int k = 0; k < 2; k++) {
        RunResult r = test_run("MKGRAPH_BIN", (const char *[]){"random", "--nodes", "60", "--seed", "7", "-o",
                                                               k ? b : a, NULL});
        g_assert_cmpint(r.status, ==, 0);
        run_result_clear(&r);
    }
    gchar *da, *db;
    gsize la, lb;
    g_assert_true(g_file_get_contents(a, &da, &la, NULL) && g_file_get_contents(b, &db, &lb, NULL));
    g_assert_true(la == lb && memcmp(da, db, la) == 0);
    Model *m = load_inferred(a, "-");
    GraphStats s;
    info_graph_stats(m->graph, &s);
    g_assert_cmpuint(s.n_nodes, ==, 60);
    g_assert_cmpuint(s.n_unknown_shapes, ==, 0);
    model_free(m);
    g_free(da);
    g_free(db);
    g_free(a);
    g_free(b);
}

/* The committed graphs/<family>.onnx are exactly what mkgraph writes today (make graphs): the
 * generators are deterministic and the committed files are not stale. */
static void test_committed_graphs_are_current(void)
{
    char *dir = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", NULL);
    RunResult list = test_run("MKGRAPH_BIN", (const char *[]){"--list", NULL});
    char **lines = g_strsplit(list.out, "\n", -1);
    guint checked = 0;
    for (char **line = lines; *line; line++) {
        if (!**line || **line == ' ')
            continue;
        char *family = g_strndup(*line, strcspn(*line, " "));
        if (!strcmp(family, "trace")) { /* writes a trace file, not a graph: nothing committed */
            g_free(family);
            continue;
        }
        char *committed = g_strconcat(dir, "/", family, ".onnx", NULL);
        char *fresh = test_scratch_path("fresh.onnx");
        RunResult r = test_run("MKGRAPH_BIN", (const char *[]){family, "-o", fresh, NULL});
        g_assert_cmpint(r.status, ==, 0);
        gchar *a, *b;
        gsize la, lb;
        if (!g_file_get_contents(committed, &a, &la, NULL))
            g_error("%s is missing: run make graphs", committed);
        g_assert_true(g_file_get_contents(fresh, &b, &lb, NULL));
        if (la != lb || memcmp(a, b, la))
            g_error("%s differs from what mkgraph %s writes: run make graphs", committed, family);
        checked++;
        g_free(a);
        g_free(b);
        run_result_clear(&r);
        g_free(fresh);
        g_free(committed);
        g_free(family);
    }
    g_assert_cmpuint(checked, ==, 17);
    g_strfreev(lines);
    run_result_clear(&list);
    g_free(dir);
}

typedef struct {
    char *name, *path, *dims;
} ModelRow;

static void check_against_reference(const Model *m, const char *name)
{
    char *fixture = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "tests", "data", "reference-shapes", name, NULL);
    char *fixture_tsv = g_strconcat(fixture, ".tsv", NULL);
    gchar *text;
    g_assert_true(g_file_get_contents(fixture_tsv, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    GString *mismatches = g_string_new(NULL);
    guint checked = 0;
    for (char **line = lines; *line; line++) {
        if (!**line || **line == '#')
            continue;
        char **f = g_strsplit(*line, "\t", 3);
        g_assert_cmpuint(g_strv_length(f), ==, 3);
        char *expected = g_strconcat(f[1], f[2], NULL);
        char *got = test_type_of(m, f[0]);
        if (strcmp(expected, got))
            g_string_append_printf(mismatches, "  %s: reference %s, ours %s\n", f[0], expected, got);
        checked++;
        g_free(expected);
        g_free(got);
        g_strfreev(f);
    }
    if (mismatches->len)
        g_error("%s: %s", name, mismatches->str);
    g_assert_cmpuint(checked, >, 0);
    g_test_message("%s: %u tensors agree with the ONNX reference", name, checked);
    g_string_free(mismatches, TRUE);
    g_strfreev(lines);
    g_free(text);
    g_free(fixture);
    g_free(fixture_tsv);
}

static void test_model(gconstpointer data)
{
    const ModelRow *row = data;
    if (!g_file_test(row->path, G_FILE_TEST_EXISTS))
        g_error("%s is missing: run make models", row->path);
    Model *m = load_inferred(row->path, row->dims);
    GraphStats s;
    info_graph_stats(m->graph, &s);
    g_assert_cmpuint(s.n_unknown_shapes, ==, 0);
    check_against_reference(m, row->name);
    model_free(m);
}

/* The default strategy (no --strategy: best on a small work budget) finds, on every corpus model, the arena
 * the published run of best with ten seconds found (results/corpus-strategies.csv), and says whether it is
 * optimal: at the lower bound once rounded to the alignment, or within 1% of it where padding keeps the
 * bound out of reach. */
static void test_default_strategy(gconstpointer data)
{
    const ModelRow *row = data;
    GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(args, g_strdup("--graph"));
    g_ptr_array_add(args, g_strdup(row->path));
    g_ptr_array_add(args, g_strdup("--format"));
    g_ptr_array_add(args, g_strdup("csv"));
    char **dims = strcmp(row->dims, "-") ? g_strsplit(row->dims, ",", -1) : g_new0(char *, 1);
    for (char **d = dims; *d; d++) {
        g_ptr_array_add(args, g_strdup("--dim"));
        g_ptr_array_add(args, g_strdup(*d));
    }
    g_strfreev(dims);
    g_ptr_array_add(args, NULL);
    RunResult r = test_run("SIM_BIN", (const char *const *)args->pdata);
    g_assert_cmpint(r.status, ==, 0);
    GError *error = NULL;
    CsvTable *got = csv_table_parse(r.out, strlen(r.out), &error);
    g_assert_no_error(error);
    g_assert_cmpstr(csv_table_cell(got, 0, (guint)csv_table_column(got, "strategy")), ==, "best");
    guint64 arena = g_ascii_strtoull(csv_table_cell(got, 0, (guint)csv_table_column(got, "arena_bytes")), NULL, 10);
    guint64 bound = g_ascii_strtoull(csv_table_cell(got, 0, (guint)csv_table_column(got, "lower_bound_bytes")), NULL, 10);
    char *published_path = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "results", "corpus-strategies.csv", NULL);
    CsvTable *published = csv_table_read(published_path, &error);
    g_assert_no_error(error);
    guint64 best = 0;
    gint graph = csv_table_column(published, "graph"), strategy = csv_table_column(published, "strategy");
    char *canonical = g_canonicalize_filename(row->path, NULL); /* graphs/models/../gpt2.onnx is graphs/gpt2.onnx */
    for (guint k = 0; k < published->rows->len; k++)
        if (g_str_has_suffix(canonical, csv_table_cell(published, k, (guint)graph)) &&
            !strcmp(csv_table_cell(published, k, (guint)strategy), "best"))
            best = g_ascii_strtoull(csv_table_cell(published, k, (guint)csv_table_column(published, "arena_bytes")), NULL, 10);
    if (!best)
        g_error("%s: no row of best in %s", row->name, published_path);
    if (arena > best)
        g_error("%s: the default strategy's arena %" G_GUINT64_FORMAT " B is above best's published %" G_GUINT64_FORMAT " B",
                row->name, arena, best);
    const char *optimal = csv_table_cell(got, 0, (guint)csv_table_column(got, "optimal"));
    if (strcmp(optimal, "yes") && (double)arena > 1.01 * (double)bound)
        g_test_message("%s: %" G_GUINT64_FORMAT " B, %.2f%% above the lower bound, not proven optimal in the default budget",
                       row->name, arena, 100.0 * (double)(arena - bound) / (double)bound);
    g_free(canonical);
    csv_table_free(published);
    csv_table_free(got);
    g_free(published_path);
    run_result_clear(&r);
    g_ptr_array_unref(args);
}

static GPtrArray *read_models_list(void)
{
    char *dir = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "models", NULL);
    char *list = g_build_filename(dir, "models.tsv", NULL);
    gchar *text;
    g_assert_true(g_file_get_contents(list, &text, NULL, NULL));
    GPtrArray *rows = g_ptr_array_new();
    char **lines = g_strsplit(text, "\n", -1);
    for (char **line = lines; *line; line++) {
        if (!**line || **line == '#')
            continue;
        char **f = g_strsplit(*line, "\t", 3);
        g_assert_cmpuint(g_strv_length(f), ==, 3);
        ModelRow *row = g_new0(ModelRow, 1);
        row->name = g_strdup(f[0]);
        row->path = g_build_filename(dir, f[1], NULL);
        row->dims = g_strdup(f[2]);
        g_ptr_array_add(rows, row);
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(text);
    g_free(list);
    g_free(dir);
    return rows;
}

static void model_row_free(gpointer p)
{
    ModelRow *row = p;
    g_free(row->name);
    g_free(row->path);
    g_free(row->dims);
    g_free(row);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (gsize k = 0; k < G_N_ELEMENTS(family_cases); k++) {
        char *path = g_strdup_printf("/corpus/family/%s-%zu", family_cases[k].args[0], k);
        g_test_add_data_func(path, &family_cases[k], test_family);
        g_free(path);
    }
    g_test_add_func("/corpus/family/random", test_random_family);
    g_test_add_func("/corpus/committed-graphs", test_committed_graphs_are_current);
    GPtrArray *models = read_models_list();
    g_ptr_array_set_free_func(models, model_row_free);
    for (guint k = 0; k < models->len; k++) {
        const ModelRow *row = models->pdata[k];
        char *path = g_strdup_printf("/corpus/model/%s", row->name);
        g_test_add_data_func(path, row, test_model);
        g_free(path);
        path = g_strdup_printf("/corpus/default-strategy/%s", row->name);
        g_test_add_data_func(path, row, test_default_strategy);
        g_free(path);
    }
    int status = g_test_run();
    g_ptr_array_unref(models);
    return status;
}
