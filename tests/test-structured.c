/* test-structured.c — structured placement problems (schema-v1, docs/structured.md): the problems built here of
 * each constraint kind at their hand-worked optima, the independent validator against placements that break each
 * rule, the search against exhaustive enumeration on random small problems, solution envelopes written and read
 * back (and refused for another input), the command's report and refusals, and the shared PyPTO corpus
 * (../shared/dsa-pypto: every problem reads, plans and validates; the published DSA-RP figures met; every pool's
 * capacity-free projection planned at its lower bound). */
#include "driver/driver-structured.h"
#include "plan/place.h"
#include "plan/verify.h"
#include "strategies/registry.h"
#include "structured/structured-check.h"
#include "structured/structured-json.h"
#include "testutil.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

static StructuredProblem *parse(const char *json)
{
    GError *e = NULL;
    StructuredProblem *p = structured_json_parse(json, strlen(json), "t.json", &e);
    g_assert_no_error(e);
    return p;
}

static gboolean solve(const StructuredProblem *p, const char *strategy, guint64 budget, StructuredResult *r)
{
    StructuredOptions o = registry_structured_options();
    o.budget_work = budget;
    memset(r, 0, sizeof *r);
    GError *e = NULL;
    gboolean ok = registry_structured_find(strategy)->solve(p, &o, r, &e);
    g_assert_no_error(e);
    return ok;
}

/* Every example of tests/data/structured/expected.tsv: the search proves the hand-worked optimum; greedy and
 * first fit give placements the validator accepts, never better than it. */
static void test_examples(void)
{
    char *path = test_source_path("tests/data/structured/expected.tsv"), *text = test_read_file(path);
    char **lines = g_strsplit(text, "\n", -1);
    guint cases = 0;
    for (char **l = lines; *l; l++) {
        if (!**l || **l == '#')
            continue;
        char **cols = g_strsplit(*l, "\t", 2);
        char *rel = g_strconcat("tests/data/structured/", cols[0], NULL), *file = test_source_path(rel);
        GError *e = NULL;
        StructuredProblem *p = structured_json_read(file, &e);
        g_assert_no_error(e);
        StructuredResult r;
        StructuredObjective o;
        solve(p, "search", 0, &r);
        g_assert_true(r.proven);
        g_assert_true(structured_check(p, r.place, &o, &e));
        char **terms = g_strsplit(cols[1], ",", -1);
        for (char **t = terms; *t; t++) {
            char **kv = g_strsplit(*t, "=", 2);
            guint which = STRUCTURED_TERMS;
            for (guint k = 0; k < STRUCTURED_TERMS; k++)
                if (!strcmp(kv[0], structured_term_name((StructuredTerm)k)))
                    which = k;
            g_assert_cmpuint(which, <, STRUCTURED_TERMS);
            if (o.value[which] != g_ascii_strtoull(kv[1], NULL, 10))
                g_error("%s: %s is %" G_GUINT64_FORMAT ", not %s", cols[0], kv[0], o.value[which], kv[1]);
            g_strfreev(kv);
        }
        guint64 best[STRUCTURED_TERMS], v[STRUCTURED_TERMS];
        structured_objective_vector(p, &o, best);
        for (const char *const *s = (const char *const[]){"greedy", "first-fit", NULL}; *s; s++) {
            StructuredResult g;
            StructuredObjective go;
            solve(p, *s, 0, &g);
            g_assert_true(structured_check(p, g.place, &go, &e));
            structured_objective_vector(p, &go, v);
            g_assert_cmpint(structured_compare(p, best, v), <=, 0);
            structured_objective_clear(&go);
            structured_strategy_result_clear(&g);
        }
        g_strfreev(terms);
        structured_objective_clear(&o);
        structured_strategy_result_clear(&r);
        structured_free(p);
        g_free(file);
        g_free(rel);
        g_strfreev(cols);
        cases++;
    }
    g_assert_cmpuint(cases, >=, 16);
    g_strfreev(lines);
    g_free(text);
    g_free(path);
}

#define ONE_POOL                                                                                                       \
    "\"pools\":[{\"id\":0,\"name\":\"P\",\"capacity\":null,\"reserved_ranges\":[{\"begin\":0,\"end\":16}]},"           \
    "{\"id\":1,\"name\":\"Q\",\"capacity\":null,\"reserved_ranges\":[]}]"
static const char *RULES =
    "{\"schema_version\":1,\"profile\":\"pypto_research_v1\",\"instance\":\"rules\",\"metadata\":{\"lifetime_"
    "ordering\":"
    "\"pypto_read_before_write\",\"solver_input\":\"pre_memory_reuse\"},\"problem\":{" ONE_POOL ",\"buffers\":["
    "{\"id\":10,\"name\":\"a\",\"size\":32,\"alignment\":16,\"live_intervals\":[{\"lower\":0,\"upper\":4}],\"allowed_"
    "pools\":[0]},"
    "{\"id\":11,\"name\":\"b\",\"size\":32,\"alignment\":16,\"live_intervals\":[{\"lower\":2,\"upper\":6}],\"allowed_"
    "pools\":[0]},"
    "{\"id\":12,\"name\":\"c\",\"size\":16,\"alignment\":16,\"live_intervals\":[{\"lower\":8,\"upper\":9}],\"allowed_"
    "pools\":[0]},"
    "{\"id\":13,\"name\":\"d\",\"size\":16,\"alignment\":16,\"live_intervals\":[{\"lower\":0,\"upper\":9}],\"allowed_"
    "pools\":[0,1]},"
    "{\"id\":14,\"name\":\"e\",\"size\":16,\"alignment\":16,\"live_intervals\":[{\"lower\":8,\"upper\":9}],\"allowed_"
    "pools\":[0]},"
    "{\"id\":15,\"name\":\"f\",\"size\":16,\"alignment\":16,\"live_intervals\":[{\"lower\":20,\"upper\":21}],\"allowed_"
    "pools\":[0]}],"
    "\"constraints\":{\"colocations\":[{\"first\":12,\"second\":14}],\"separations\":[{\"first\":10,\"second\":12}],"
    "\"temporal_exclusions\":[{\"first\":10,\"second\":13}],\"pinned_allocations\":[{\"buffer\":15,\"pool\":0,"
    "\"offset\":96,"
    "\"exclusive_for_all_time\":true}]},\"cost_model\":{\"reuse_penalties\":[{\"first\":11,\"second\":12,\"cost\":7,"
    "\"reason\":\"generic\"}]},\"objective\":{\"aggregation\":\"lexicographic\",\"terms\":[\"total_peak\",\"reuse_"
    "cost\"]}}}";

/* The validator against one placement that keeps every rule and one that breaks each. */
static void test_validator(void)
{
    StructuredProblem *p = parse(RULES);
    /* a at 16, b at 48, c and e at 16 (colocated; c separated from a? a is 16..48, c 16..32: broken) -> c at 48 */
    StructuredPlace good[] = {{0, 16}, {0, 48}, {0, 48}, {0, 16}, {0, 48}, {0, 96}};
    StructuredObjective o;
    GError *e = NULL;
    /* d at 16 overlaps a (excluded: fine) but is live with b: b is at 48, d at 16..32: clear */
    g_assert_true(structured_check(p, good, &o, &e));
    g_assert_no_error(e);
    g_assert_cmpuint(o.value[STRUCTURED_TOTAL_PEAK], ==, 112 + 0); /* P: pin end 112; Q: empty */
    g_assert_cmpuint(o.value[STRUCTURED_REUSE_COST], ==, 7);       /* b (48..80) and c (48..64) share bytes */
    structured_objective_clear(&o);
    struct {
        guint buffer, pool;
        guint64 offset;
        const char *says;
    } bad[] = {
        {0, 0, 24, "is not aligned"},
        {0, 0, 0, "reserved range"},
        {0, 1, 16, "may not use"},
        {1, 0, 32, "live at once and share bytes"},
        {2, 0, 16, "do not share a pool and offset"},
        {5, 0, 112, "not where it is pinned"},
        {3, 0, 96, "pinned for all time"},
    };
    for (guint k = 0; k < G_N_ELEMENTS(bad); k++) {
        StructuredPlace place[6];
        memcpy(place, good, sizeof good);
        place[bad[k].buffer] = (StructuredPlace){bad[k].pool, bad[k].offset};
        g_assert_false(structured_check(p, place, &o, &e));
        assert_contains(e->message, bad[k].says);
        g_clear_error(&e);
    }
    /* the separation: a and c (time apart) on shared bytes */
    StructuredPlace sep[6];
    memcpy(sep, good, sizeof good);
    sep[2] = sep[4] = (StructuredPlace){0, 16};
    sep[3] = (StructuredPlace){1, 0}; /* d out of the way, in Q */
    g_assert_false(structured_check(p, sep, &o, &e));
    assert_contains(e->message, "separated buffers 10 and 12");
    g_clear_error(&e);
    structured_free(p);
}

/* Random small problems: the search, when it proves, matches the best of every placement on a grid of offsets
 * (each buffer at a multiple of its alignment below the sum of sizes), scored by the validator alone. */
static void test_exhaustive(void)
{
    GRand *rng = g_rand_new_with_seed(68);
    guint proven = 0;
    for (guint round = 0; round < 60; round++) {
        guint n = 2 + g_rand_int_range(rng, 0, 3); /* 2..4 buffers */
        gboolean rp = round % 2;
        GString *j = g_string_new(NULL);
        g_string_append_printf(
            j,
            "{\"schema_version\":1,\"profile\":\"pypto_research_v1\",\"instance\":\"r%u\",\"metadata\":"
            "{\"lifetime_ordering\":\"pypto_read_before_write\",\"solver_input\":\"pre_memory_reuse\"},"
            "\"problem\":{\"pools\":[{\"id\":0,\"name\":\"P\",\"capacity\":%s,\"reserved_ranges\":[]}],"
            "\"buffers\":[",
            round, rp ? "64" : "null");
        guint64 total = 0;
        for (guint i = 0; i < n; i++) {
            guint size = 16 * g_rand_int_range(rng, 1, 4), lo = g_rand_int_range(rng, 0, 5);
            guint hi = lo + g_rand_int_range(rng, 1, 4);
            total += size;
            g_string_append_printf(j,
                                   "%s{\"id\":%u,\"name\":\"b%u\",\"size\":%u,\"alignment\":%u,\"live_intervals\":"
                                   "[{\"lower\":%u,\"upper\":%u}],\"allowed_pools\":[0]}",
                                   i ? "," : "", i, i, size, g_rand_boolean(rng) ? 16 : 32, lo, hi);
        }
        g_string_append(j, "],\"constraints\":{\"colocations\":[],\"separations\":[");
        guint a = g_rand_int_range(rng, 0, n), b = (a + 1) % n;
        if (g_rand_boolean(rng))
            g_string_append_printf(j, "{\"first\":%u,\"second\":%u}", a, b);
        g_string_append(j, "],\"temporal_exclusions\":[");
        if (g_rand_int_range(rng, 0, 3) == 0)
            g_string_append_printf(j, "{\"first\":%u,\"second\":%u}", b, (b + 1) % n == b ? a : (b + 1) % n);
        g_string_append(j, "],\"pinned_allocations\":[]},\"cost_model\":{\"reuse_penalties\":[");
        for (guint i = 0; i + 1 < n; i++)
            g_string_append_printf(j, "%s{\"first\":%u,\"second\":%u,\"cost\":%u,\"reason\":\"generic\"}", i ? "," : "",
                                   i, i + 1, 1 + g_rand_int_range(rng, 0, 5));
        g_string_append_printf(j, "]},\"objective\":{\"aggregation\":\"lexicographic\",\"terms\":%s}}}",
                               rp ? "[\"capacity_overflow\",\"reuse_cost\"]" : "[\"total_peak\",\"reuse_cost\"]");
        GError *e = NULL;
        StructuredProblem *p = structured_json_parse(j->str, j->len, "r.json", &e);
        if (!p) { /* a separation between an excluded pair, say: not a problem to solve */
            g_clear_error(&e);
            g_string_free(j, TRUE);
            continue;
        }
        StructuredResult r;
        StructuredObjective o;
        solve(p, "search", 0, &r);
        g_assert_true(structured_check(p, r.place, &o, &e));
        guint64 found[STRUCTURED_TERMS], best[STRUCTURED_TERMS], v[STRUCTURED_TERMS];
        structured_objective_vector(p, &o, found);
        structured_objective_clear(&o);
        /* every placement on the grid */
        guint steps = (guint)(total / 16) + 1, combos = 1;
        for (guint i = 0; i < n; i++)
            combos *= steps;
        StructuredPlace place[4];
        gboolean have = FALSE;
        for (guint c = 0; c < combos; c++) {
            guint x = c;
            for (guint i = 0; i < n; i++, x /= steps)
                place[i] = (StructuredPlace){0, (guint64)(x % steps) * 16};
            if (!structured_check(p, place, &o, NULL))
                continue;
            structured_objective_vector(p, &o, v);
            structured_objective_clear(&o);
            if (!have || structured_compare(p, v, best) < 0)
                memcpy(best, v, sizeof v);
            have = TRUE;
        }
        g_assert_true(have);
        g_assert_cmpint(structured_compare(p, found, best), <=, 0); /* never worse than the grid's best */
        if (r.proven) {
            g_assert_cmpint(structured_compare(p, found, best), ==, 0);
            proven++;
        }
        structured_strategy_result_clear(&r);
        structured_free(p);
        g_string_free(j, TRUE);
    }
    g_assert_cmpuint(proven, >=, 40);
    g_rand_free(rng);
}

/* The solution envelope: written, read back to the same objective; refused for another input or when broken. */
static void test_solution(void)
{
    char *problem = test_write_scratch("rules.json", RULES, strlen(RULES)), *sol = test_scratch_path("rules-sol.json");
    DriverStructuredJob job = {
        .path = problem, .strategy = registry_structured[0], .options = registry_structured_options()};
    DriverStructured r, back;
    GError *e = NULL;
    g_assert_true(driver_structured_plan(&job, &r, &e));
    g_assert_true(driver_structured_write_solution(&r, sol, &e));
    DriverStructuredJob replay = {.path = problem, .solution = sol};
    g_assert_true(driver_structured_plan(&replay, &back, &e));
    g_assert_no_error(e);
    for (guint t = 0; t < STRUCTURED_TERMS; t++)
        g_assert_cmpuint(back.objective.value[t], ==, r.objective.value[t]);
    char *text = test_read_file(sol);
    assert_contains(text, r.problem->fingerprint);
    driver_structured_clear(&back);
    /* another input: one byte of a size changed */
    char *other_text = g_strdup(RULES), *at = strstr(other_text, "\"size\":32");
    at[8] = '1'; /* 31 */
    char *other = test_write_scratch("other.json", other_text, strlen(other_text));
    DriverStructuredJob wrong = {.path = other, .solution = sol};
    g_assert_false(driver_structured_plan(&wrong, &back, &e));
    assert_contains(e->message, "the solution is for another input");
    g_clear_error(&e);
    driver_structured_clear(&back);
    /* a placement missing, and a placement that breaks a rule */
    const char *edits[][3] = {{"\"buffer\" : 10,", "\"buffer\" : 11,", "a second time"},
                              {"\"offset\" : 96", "\"offset\" : 80", "not where it is pinned"}};
    for (guint k = 0; k < G_N_ELEMENTS(edits); k++) {
        char **parts = g_strsplit(text, edits[k][0], 2);
        g_assert_nonnull(parts[1]);
        char *edited = g_strconcat(parts[0], edits[k][1], parts[1], NULL);
        char *path = test_write_scratch("edited.json", edited, strlen(edited));
        DriverStructuredJob bad = {.path = problem, .solution = path};
        g_assert_false(driver_structured_plan(&bad, &back, &e));
        assert_contains(e->message, edits[k][2]);
        g_clear_error(&e);
        driver_structured_clear(&back);
        g_free(path);
        g_free(edited);
        g_strfreev(parts);
    }
    driver_structured_clear(&r);
    g_free(text);
    g_free(other);
    g_free(other_text);
    g_free(sol);
    g_free(problem);
}

/* The command: the report, the envelope, the check, a pool as a trace, and what it refuses. */
static void test_cli(void)
{
    char *problem = test_write_scratch("cli.json", RULES, strlen(RULES)), *sol = test_scratch_path("cli-sol.json");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--trace", problem, "--solution-out", sol, NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "optimal, proven");
    assert_contains(r.out, "objective  total_peak 112, reuse_cost 0");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", problem, "--check-solution", sol, "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\"status\" : \"checked\"");
    run_result_clear(&r);
    char *reserved = test_source_path("tests/data/structured/reserved.json");
    r = test_run("SIM_BIN", (const char *[]){"--trace", reserved, "--pool", "Vec", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, ",128,128,0,"); /* two 64-byte buffers live at once: the arena at its bound */
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", problem, "--pool", "P", NULL}); /* colocations: no projection */
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "colocations and temporal exclusions have no sound capacity-free projection");
    run_result_clear(&r);
    g_free(reserved);
    const char *refusals[][4] = {
        {"--strategy", "bestfit",
         "unknown strategy for structured problems 'bestfit' (one of: search, greedy, first-fit)", NULL},
        {"--map", "--map", "a structured problem (--trace FILE.json) takes", NULL},
        {"--pool", "R", "no pool is named 'R' (the pools: P, Q)", NULL},
        {"--solution-out", "x.csv", "--solution-out writes a structured problem's solution envelope", NULL},
    };
    for (guint k = 0; k < G_N_ELEMENTS(refusals); k++) {
        const char *args[] = {"--trace", problem, refusals[k][0], refusals[k][1], NULL};
        if (!strcmp(refusals[k][0], refusals[k][1]))
            args[3] = NULL;
        r = test_run("SIM_BIN", args);
        g_assert_cmpint(r.status, !=, 0);
        assert_contains(r.err, refusals[k][2]);
        guint lines = 0;
        for (const char *c = r.err; *c; c++)
            lines += *c == '\n';
        g_assert_cmpuint(lines, ==, 1); /* one line */
        run_result_clear(&r);
    }
    /* over capacity: reported, and no envelope */
    char *over = test_source_path("tests/data/structured/overflow.json"), *out = test_scratch_path("over-sol.json");
    r = test_run("SIM_BIN", (const char *[]){"--trace", over, "--solution-out", out, NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.out, "fits       no");
    assert_contains(r.err, "over the pools' capacities, which is no solution");
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    run_result_clear(&r);
    char *penalty = test_source_path("tests/data/structured/penalty.json");
    r = test_run("SIM_BIN", (const char *[]){"--trace", penalty, "--compare", "--format", "csv", NULL});
    g_assert_cmpint(r.status, ==, 0); /* a row per strategy: the search proves 3, first fit pays 5 */
    assert_contains(r.out, ",search,3,1,2,0,0,128,128,3,128,yes,optimal,");
    assert_contains(r.out, ",first-fit,3,1,2,0,0,128,128,5,128,yes,heuristic,");
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--trace", penalty, "--compare", "--check-solution", penalty, NULL});
    g_assert_cmpint(r.status, ==, 2);
    assert_contains(r.err, "--check-solution checks a placement someone made");
    run_result_clear(&r);
    g_free(penalty);
    r = test_run("SIM_BIN", (const char *[]){"--list", NULL});
    assert_contains(r.out, "structured problem strategies");
    run_result_clear(&r);
    g_free(over);
    g_free(out);
    g_free(sol);
    g_free(problem);
}

static void collect(const char *dir, GPtrArray *files)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        char *path = g_build_filename(dir, name, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_DIR))
            collect(path, files);
        if (g_str_has_suffix(name, ".json"))
            g_ptr_array_add(files, g_strdup(path));
        g_free(path);
    }
    if (d)
        g_dir_close(d);
}

/* Every problem file of the shared corpus (../shared/dsa-pypto/problems, or $DSA_PYPTO_DIR's); NULL, the test
 * marked skipped, when it is not there. */
static GPtrArray *corpus_files(void)
{
    const char *env = g_getenv("DSA_PYPTO_DIR");
    char *dir = env ? g_strdup(env) : test_source_path("../shared/dsa-pypto");
    char *problems = g_build_filename(dir, "problems", NULL);
    GPtrArray *files = NULL;
    if (g_file_test(problems, G_FILE_TEST_IS_DIR)) {
        files = g_ptr_array_new_with_free_func(g_free);
        collect(problems, files);
    } else {
        g_test_skip("../shared/dsa-pypto is not there (set DSA_PYPTO_DIR)");
    }
    g_free(problems);
    g_free(dir);
    return files;
}

static const char *meta(const char *path, const char *key, char **owned)
{
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_file(parser, path, NULL));
    JsonObject *m = json_object_get_object_member(json_node_get_object(json_parser_get_root(parser)), "metadata");
    *owned = g_strdup(json_object_get_string_member_with_default(m, key, ""));
    g_object_unref(parser);
    return *owned;
}

typedef struct {
    gboolean soft_fits, hard_fits, soft_proven;
    guint64 soft_cost, hard_cost;
    gboolean seen_soft, seen_hard;
} Pair;

/* Every problem of the corpus reads, is placed by every strategy and validates, and its envelope reads back; on
 * the 54 DSA-RP pairs every placement that fits a published method found is found, the sum of the best reuse
 * costs is at most the published best, and as many optima are proven. */
static void test_corpus(void)
{
    GPtrArray *files = corpus_files();
    if (!files)
        return;
    g_assert_cmpuint(files->len, ==, 273);
    GHashTable *pairs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    char *sol = test_scratch_path("corpus-sol.json");
    for (guint i = 0; i < files->len; i++) {
        const char *file = files->pdata[i];
        for (guint k = 0; registry_structured[k]; k++) {
            DriverStructuredJob job = {
                .path = file, .strategy = registry_structured[k], .options = registry_structured_options()};
            DriverStructured r, back;
            GError *e = NULL;
            if (!driver_structured_plan(&job, &r, &e))
                g_error("%s (%s): %s", file, registry_structured[k]->name, e->message);
            if (k == 0) {
                char *fp = NULL, *policy = NULL;
                meta(file, "corpus_source_fingerprint_fnv1a64", &fp);
                meta(file, "dsa_rp_edge_policy", &policy);
                if (*policy) {
                    Pair *pair = g_hash_table_lookup(pairs, fp);
                    if (!pair)
                        g_hash_table_insert(pairs, g_strdup(fp), pair = g_new0(Pair, 1));
                    gboolean soft = !strcmp(policy, "soft_v1"), fits = r.objective.value[STRUCTURED_OVERFLOW] == 0;
                    if (soft) {
                        pair->seen_soft = TRUE;
                        pair->soft_fits = fits;
                        pair->soft_cost = r.objective.value[STRUCTURED_REUSE_COST];
                        pair->soft_proven = r.report.proven;
                    } else {
                        pair->seen_hard = TRUE;
                        pair->hard_fits = fits;
                        pair->hard_cost = r.objective.value[STRUCTURED_REUSE_COST];
                    }
                }
                g_free(fp);
                g_free(policy);
                if (!r.objective.value[STRUCTURED_OVERFLOW]) { /* the envelope, back to the same objective */
                    g_assert_true(driver_structured_write_solution(&r, sol, &e));
                    DriverStructuredJob replay = {.path = file, .solution = sol};
                    g_assert_true(driver_structured_plan(&replay, &back, &e));
                    g_assert_cmpmem(back.objective.value, sizeof back.objective.value, r.objective.value,
                                    sizeof r.objective.value);
                    driver_structured_clear(&back);
                }
            }
            driver_structured_clear(&r);
        }
    }
    /* against the published figures */
    char *pub_path = test_source_path("tests/data/structured/dsa-rp-published.tsv"), *pub = test_read_file(pub_path);
    char **lines = g_strsplit(pub, "\n", -1);
    guint n = 0, pub_fits = 0, pub_proven = 0, soft_fits = 0, hard_fits = 0, proven = 0;
    guint64 pub_sum = 0, sum = 0;
    for (char **l = lines; *l; l++) {
        if (!**l || **l == '#')
            continue;
        char **c = g_strsplit(*l, "\t", -1);
        Pair *pair = g_hash_table_lookup(pairs, c[0]);
        g_assert_nonnull(pair);
        g_assert_true(pair->seen_soft && pair->seen_hard);
        gboolean pub_fit = strcmp(c[4], "-") != 0;
        pub_fits += pub_fit;
        pub_proven += !strcmp(c[5], "true");
        if (pub_fit) { /* a placement that fits exists: ours fits, at or below the best cost published */
            guint64 best = pair->soft_fits ? pair->soft_cost : G_MAXUINT64;
            if (pair->hard_fits)
                best = MIN(best, pair->hard_cost);
            if (best > g_ascii_strtoull(c[4], NULL, 10))
                g_error("pair %s (%s): our best cost %" G_GUINT64_FORMAT " is above the published %s", c[0], c[1], best,
                        c[4]);
            pub_sum += g_ascii_strtoull(c[4], NULL, 10);
            sum += best;
        }
        if (!strcmp(c[3], "true") && !pair->hard_fits)
            g_error("pair %s (%s): a method fit the hard variant; we do not", c[0], c[1]);
        soft_fits += pair->soft_fits;
        hard_fits += pair->hard_fits;
        proven += (pair->soft_fits && pair->soft_proven) || (pair->soft_fits && pair->soft_cost == 0) ||
                  (pair->hard_fits && pair->hard_cost == 0);
        n++;
        g_strfreev(c);
    }
    g_assert_cmpuint(n, ==, 54);
    g_assert_cmpuint(soft_fits, >=, pub_fits);
    g_assert_cmpuint(sum, <=, pub_sum);
    g_assert_cmpuint(proven, >=, pub_proven);
    g_test_message("DSA-RP pairs: %u fit (published %u), %u hard fit, cost %" G_GUINT64_FORMAT
                   " (published %" G_GUINT64_FORMAT "), %u proven (published %u)",
                   soft_fits, pub_fits, hard_fits, sum, pub_sum, proven, pub_proven);
    g_strfreev(lines);
    g_free(pub);
    g_free(pub_path);
    g_free(sol);
    g_hash_table_destroy(pairs);
    g_ptr_array_free(files, TRUE);
}

/* Every pool of every pypto_hard_v1 problem, projected capacity-free: the default trace strategy plans it at its
 * lower bound (so at the published reference peak, which no plan can beat and ours reaches). */
static void test_projections(void)
{
    GPtrArray *files = corpus_files();
    if (!files)
        return;
    guint planned = 0;
    for (guint i = 0; i < files->len; i++) {
        GError *e = NULL;
        StructuredProblem *p = structured_json_read(files->pdata[i], &e);
        g_assert_no_error(e);
        if (strcmp(p->profile, "pypto_hard_v1") != 0) {
            structured_free(p);
            continue;
        }
        for (guint q = 0; q < p->pools->len; q++) {
            const char *name = g_array_index(p->pools, StructuredPool, q).name;
            Trace *t = driver_structured_core(files->pdata[i], name, &e);
            if (!t) { /* a pool no buffer uses */
                assert_contains(e->message, "no buffer is in pool");
                g_clear_error(&e);
                continue;
            }
            PlaceOptions o = registry_place_options();
            o.budget_work = PLACE_DEFAULT_WORK;
            Plan *plan = place_run_with(registry_place_find(PLACE_DEFAULT_STRATEGY), t, &o, &e);
            g_assert_no_error(e);
            g_assert_true(verify_plan(t, plan, &e));
            if (plan->arena != trace_lower_bound(t))
                g_error("%s pool %s: arena %" G_GUINT64_FORMAT " above the bound %" G_GUINT64_FORMAT,
                        (char *)files->pdata[i], name, plan->arena, trace_lower_bound(t));
            plan_free(plan);
            trace_free(t);
            planned++;
        }
        structured_free(p);
    }
    g_assert_cmpuint(planned, >=, 300);
    g_ptr_array_free(files, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/structured/examples", test_examples);
    g_test_add_func("/structured/validator", test_validator);
    g_test_add_func("/structured/exhaustive", test_exhaustive);
    g_test_add_func("/structured/solution", test_solution);
    g_test_add_func("/structured/cli", test_cli);
    g_test_add_func("/structured/corpus", test_corpus);
    g_test_add_func("/structured/projections", test_projections);
    return g_test_run();
}
