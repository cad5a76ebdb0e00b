/* test-tiers.c — memory tiers (docs/tiers.md): the spec, each buffer's bytes moved from the graph, ExecuTorch's
 * greedy and banked_greedy against its own acceptance cases (their sizes, lifetimes and expected banks and
 * arenas, placed here as traces), ours never above it, the bound never above any plan and equal to the exact
 * optimum of its relaxation on small problems, the trace formats carrying tiers, and `sim --tiers` planned,
 * verified and run bit for bit. */
#include "testutil.h"

#include "plan/place.h"
#include "plan/tier-bound.h"
#include "plan/verify.h"
#include "trace/trace-tiers.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static void test_spec(void)
{
    GError *error = NULL;
    GArray *t = trace_tiers_parse("sram=256KiB,dram", &error);
    g_assert_no_error(error);
    g_assert_cmpuint(t->len, ==, 2);
    g_assert_cmpstr(trace_tier(t, 0)->name, ==, "sram");
    g_assert_cmpuint(trace_tier(t, 0)->capacity, ==, 262144);
    g_assert_cmpuint(trace_tier(t, 1)->capacity, ==, TRACE_TIER_UNBOUNDED);
    g_assert_cmpfloat(trace_tier(t, 0)->read_cost, ==, 0); /* the defaults: the tier's position */
    g_assert_cmpfloat(trace_tier(t, 1)->write_cost, ==, 1);
    char *back = trace_tiers_format(t);
    g_assert_cmpstr(back, ==, "sram=262144:0/0,dram:1/1");
    GArray *again = trace_tiers_parse(back, &error);
    g_assert_no_error(error);
    g_assert_cmpmem(again->data, again->len * sizeof(TraceTier), t->data, t->len * sizeof(TraceTier));
    g_array_unref(again);
    g_free(back);
    g_array_unref(t);
    t = trace_tiers_parse("tcm=64K:0.5/1,sram=1M:2,dram=1G:3/7", &error);
    g_assert_no_error(error);
    g_assert_cmpfloat(trace_tier(t, 0)->read_cost, ==, 0.5);
    g_assert_cmpfloat(trace_tier(t, 1)->write_cost, ==, 2);
    g_assert_cmpuint(trace_tier(t, 2)->capacity, ==, (guint64)1 << 30);
    g_array_unref(t);
    static const char *const bad[][2] = {
        {"", "names no tier"},
        {"dram,sram=1K", "has no capacity but is not the last"},
        {"a=1K:2,b:1", "costs less than 'a'"},
        {"a=1K,a", "names two tiers"},
        {"a=0,b", "is not a capacity"},
        {"a=12Q,b", "is not a capacity"},
        {"a=99999999999999999999,b", "is not a capacity"},
        {"a b=1K,c", "is not a tier name"},
        {"a=1K:-1,b", "is not a number"},
        {"a=1K:nan,b", "is not a number"},
        {"t0=1,t1=1,t2=1,t3=1,t4=1,t5=1,t6=1,t7=1,t8=1,t9=1,t10=1,t11=1,t12=1,t13=1,t14=1,t15=1,t16", "at most 16"},
    };
    for (guint k = 0; k < G_N_ELEMENTS(bad); k++) {
        g_assert_null(trace_tiers_parse(bad[k][0], &error));
        g_assert_nonnull(error);
        assert_contains(error->message, bad[k][1]);
        g_clear_error(&error);
    }
}

/* A trace of (size, first, last) units with the tiers of `spec` (NULL: none), each buffer aligned to `align`. */
static Trace *units_trace(const char *spec, const guint64 (*units)[3], guint n, guint64 align)
{
    Trace *t = trace_new("units");
    for (guint k = 0; k < n; k++) {
        char name[16];
        g_snprintf(name, sizeof name, "b%u", k);
        trace_add(t, name, units[k][0], align, (guint)units[k][1], (guint)units[k][2]);
    }
    if (spec) {
        GError *error = NULL;
        t->tiers = trace_tiers_parse(spec, &error);
        g_assert_no_error(error);
    }
    return t;
}

/* Planned with the strategy (the registry's options), its tiers applied to the trace and verified; NULL with
 * *error when the strategy refuses. */
static Plan *plan_with(const char *strategy, Trace *t, GError **error)
{
    PlaceOptions options = registry_place_options();
    Plan *p = place_run_with(registry_place_find(strategy), t, &options, error);
    if (p) {
        plan_tiers_apply(p, t);
        GError *wrong = NULL;
        gboolean ok = verify_plan(t, p, &wrong);
        g_assert_no_error(wrong);
        g_assert_true(ok);
    }
    return p;
}

static double plan_cost(const Trace *t, const Plan *p)
{
    double cost = 0;
    for (guint k = 0; k < trace_count(t); k++)
        cost += trace_tier_cost(t->tiers, p->tier[k], trace_buffer(t, k));
    return cost;
}

/* ExecuTorch's TestSingleBankEquivalence: greedy's offsets, worked by hand from exir's rules, and banked_greedy
 * with one bank the same offset for offset. */
static void test_executorch_greedy(void)
{
    static const guint64 fresh[][3] = {{1024, 0, 4}, {512, 1, 6}, {2048, 5, 9}, {256, 7, 12}, {512, 11, 15}};
    /* largest first (the later 512 first): 2048 opens object 0; 1024 and the later 512 ride in it at 0 (no
     * overlap); the earlier 512 meets both and finds no room above them: object 1 (512 B at 2048); 256 rides
     * in object 1 */
    static const guint64 want[] = {0, 2048, 0, 2048, 0};
    static const guint64 coarse_sizes[] = {899, 534, 508, 696, 940, 910, 331};
    /* at alignment 256, sorted by the size as given: 940, 910, 899, 696, 534, 508, 331 */
    static const guint64 coarse_want[] = {0, 1024, 2816, 2048, 0, 1024, 2816};
    for (guint flat = 0; flat < 2; flat++) {
        Trace *t = units_trace(flat ? "sram=1MiB" : NULL, fresh, G_N_ELEMENTS(fresh), 16);
        GError *error = NULL;
        Plan *p = plan_with("banked-greedy", t, &error);
        g_assert_no_error(error);
        for (guint k = 0; k < G_N_ELEMENTS(want); k++)
            g_assert_cmpuint(p->offsets[k], ==, want[k]);
        g_assert_cmpuint(p->arena, ==, 2560);
        plan_free(p);
        trace_free(t);
        guint64 coarse[G_N_ELEMENTS(coarse_sizes)][3];
        for (guint k = 0; k < G_N_ELEMENTS(coarse_sizes); k++) {
            coarse[k][0] = coarse_sizes[k];
            coarse[k][1] = k;
            coarse[k][2] = k + 3;
        }
        t = units_trace(flat ? "sram=1MiB" : NULL, (const guint64(*)[3])coarse, G_N_ELEMENTS(coarse), 256);
        p = plan_with("banked-greedy", t, &error);
        g_assert_no_error(error);
        for (guint k = 0; k < G_N_ELEMENTS(coarse_want); k++)
            g_assert_cmpuint(p->offsets[k], ==, coarse_want[k]);
        g_assert_cmpuint(p->arena, ==, 3328);
        plan_free(p);
        trace_free(t);
    }
}

/* The tiers chosen, sorted, as a string ("0 0 1"). */
static char *sorted_tiers(const Plan *p, guint n)
{
    guint *tiers = g_memdup2(p->tier, sizeof(guint) * n);
    for (guint a = 0; a < n; a++)
        for (guint b = a + 1; b < n; b++)
            if (tiers[b] < tiers[a]) {
                guint x = tiers[a];
                tiers[a] = tiers[b];
                tiers[b] = x;
            }
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < n; k++)
        g_string_append_printf(s, "%s%u", k ? " " : "", tiers[k]);
    g_free(tiers);
    return g_string_free(s, FALSE);
}

/* ExecuTorch's TestPlacement, TestFastBankIsFilled and TestPreAssignedMemIds: spills, cascades, capacities,
 * reuse within a bank, refusals naming the sizes and banks, and buffers held to one bank (its pins). */
static void test_executorch_banked(void)
{
    GError *error = NULL;
    const guint64 three[][3] = {{1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}};
    Trace *t = units_trace("fast=2KiB,slow=64KiB", three, 3, 16);
    Plan *p = plan_with("banked-greedy", t, &error);
    char *got = sorted_tiers(p, 3);
    g_assert_cmpstr(got, ==, "0 0 1");
    g_assert_cmpuint(p->bin_arena[0], ==, 2048);
    g_assert_cmpuint(p->bin_arena[1], ==, 1024);
    g_free(got);
    plan_free(p);
    trace_free(t);
    const guint64 six[][3] = {{1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}};
    t = units_trace("tcm=2KiB,sram=2KiB,dram=64KiB", six, 6, 16);
    p = plan_with("banked-greedy", t, &error);
    got = sorted_tiers(p, 6);
    g_assert_cmpstr(got, ==, "0 0 1 1 2 2");
    g_assert_cmpuint(p->bin_arena[0], ==, 2048);
    g_assert_cmpuint(p->bin_arena[1], ==, 2048);
    g_free(got);
    plan_free(p);
    trace_free(t);
    guint64 sixteen[16][3];
    for (guint k = 0; k < 16; k++) {
        sixteen[k][0] = 512;
        sixteen[k][1] = k;
        sixteen[k][2] = k + 20;
    }
    t = units_trace("fast=2KiB,slow=8KiB", (const guint64(*)[3])sixteen, 16, 16);
    p = plan_with("banked-greedy", t, &error); /* verified within both capacities */
    g_assert_no_error(error);
    plan_free(p);
    trace_free(t);
    const guint64 reuse[][3] = {{1024, 0, 4}, {1024, 5, 9}};
    t = units_trace("fast=2KiB,slow=8KiB", reuse, 2, 16);
    p = plan_with("banked-greedy", t, &error);
    g_assert_cmpuint(p->tier[0], ==, 0);
    g_assert_cmpuint(p->tier[1], ==, 0);
    g_assert_cmpuint(p->offsets[0], ==, p->offsets[1]);
    g_assert_cmpuint(p->bin_arena[0], ==, 1024);
    g_assert_cmpuint(p->bin_arena[1], ==, 0);
    plan_free(p);
    trace_free(t);
    const guint64 huge[][3] = {{16384, 0, 4}};
    t = units_trace("fast=1KiB,slow=2KiB", huge, 1, 16);
    g_assert_null(plan_with("banked-greedy", t, &error));
    assert_contains(error->message, "16384");
    assert_contains(error->message, "fast");
    assert_contains(error->message, "slow");
    g_clear_error(&error);
    trace_free(t);
    /* short lifetimes: two 4 KiB objects in the 8 KiB bank hold most of 200 buffers */
    guint64 many[200][3];
    for (guint k = 0; k < 200; k++) {
        many[k][0] = 4096;
        many[k][1] = k;
        many[k][2] = k + 1;
    }
    t = units_trace("fast=8KiB,slow=64MiB", (const guint64(*)[3])many, 200, 16);
    p = plan_with("banked-greedy", t, &error);
    guint fast = 0;
    for (guint k = 0; k < 200; k++)
        fast += p->tier[k] == 0;
    g_assert_cmpuint(fast, >, 100);
    plan_free(p);
    trace_free(t);
    /* held to one tier (ExecuTorch's pins): kept there, placed first, sharing with the rest */
    const guint64 pin_slow[][3] = {{256, 0, 10}, {256, 0, 10}};
    t = units_trace("fast=4KiB,slow=64KiB", pin_slow, 2, 16);
    trace_buffer(t, 0)->tiers = 2;
    p = plan_with("banked-greedy", t, &error);
    g_assert_cmpuint(p->tier[0], ==, 1);
    g_assert_cmpuint(p->tier[1], ==, 0);
    plan_free(p);
    trace_free(t);
    const guint64 around[][3] = {{1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}};
    t = units_trace("fast=2KiB,slow=64KiB", around, 4, 16);
    trace_buffer(t, 0)->tiers = 1;
    p = plan_with("banked-greedy", t, &error);
    got = sorted_tiers(p, 4);
    g_assert_cmpstr(got, ==, "0 0 1 1");
    g_assert_cmpuint(p->tier[0], ==, 0);
    g_free(got);
    plan_free(p);
    trace_free(t);
    /* the pin is the smallest: a first-come rule would fill the bank before it */
    const guint64 reserved[][3] = {{1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}, {1024, 0, 10}, {256, 0, 10}};
    t = units_trace("fast=2KiB,slow=64KiB", reserved, 5, 16);
    trace_buffer(t, 4)->tiers = 1;
    p = plan_with("banked-greedy", t, &error);
    got = sorted_tiers(p, 5);
    g_assert_cmpstr(got, ==, "0 0 1 1 1");
    g_assert_cmpuint(p->tier[4], ==, 0);
    g_free(got);
    plan_free(p);
    trace_free(t);
    const guint64 share[][3] = {{1024, 0, 4}, {1024, 5, 9}};
    t = units_trace("fast=4KiB,slow=64KiB", share, 2, 16);
    trace_buffer(t, 0)->tiers = 1;
    p = plan_with("banked-greedy", t, &error);
    g_assert_cmpuint(p->offsets[0], ==, p->offsets[1]);
    g_assert_cmpuint(p->bin_arena[0], ==, 1024);
    plan_free(p);
    trace_free(t);
    const guint64 small_pin[][3] = {{64, 0, 4}, {512, 5, 9}};
    t = units_trace("fast=4KiB,slow=64KiB", small_pin, 2, 16);
    trace_buffer(t, 0)->tiers = 1;
    p = plan_with("banked-greedy", t, &error);
    g_assert_cmpuint(p->tier[1], ==, 0);
    g_assert_cmpuint(p->bin_arena[0], ==, 576); /* 64 + 512, against greedy's 512 */
    plan_free(p);
    trace_free(t);
    const guint64 big_pin[][3] = {{4096, 0, 10}};
    t = units_trace("fast=1KiB,slow=64KiB", big_pin, 1, 16);
    trace_buffer(t, 0)->tiers = 1;
    g_assert_null(plan_with("banked-greedy", t, &error));
    assert_contains(error->message, "4096");
    assert_contains(error->message, "fast");
    g_clear_error(&error);
    trace_free(t);
    t = units_trace("fast=2KiB,slow=64KiB", three, 3, 16);
    for (guint k = 0; k < 3; k++)
        trace_buffer(t, k)->tiers = 1;
    g_assert_null(plan_with("banked-greedy", t, &error));
    assert_contains(error->message, "pinned to one tier, no fallback tier");
    g_clear_error(&error);
    trace_free(t);
}

/* ExecuTorch's planner scans every object's buffers for each buffer: refused above 100,000 units, one line, before
 * any work (a comparison leaves it out and goes on). */
static void test_executorch_limit(void)
{
    Trace *t = trace_new("many");
    for (guint k = 0; k <= 100000; k++)
        trace_add(t, "b", 8, 8, k % 16, k % 16);
    GError *error = NULL;
    PlaceOptions options = registry_place_options();
    g_assert_null(place_run_with(registry_place_find("banked-greedy"), t, &options, &error));
    g_assert_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED);
    assert_contains(error->message, "100001 units");
    g_clear_error(&error);
    trace_free(t);
}

/* ExecuTorch's test_does_not_strand_a_spec_that_would_ride_free_in_a_faster_bank: no buffer sits in the slow bank
 * when the fast bank's residents with it pack to no more bytes (greedy's packing) within the capacity. */
static void test_executorch_no_free_readmission(void)
{
    guint64 specs[120][3];
    for (guint k = 0; k < 120; k++) {
        specs[k][0] = 4096 + 16 * k;
        specs[k][1] = k;
        specs[k][2] = k + 3;
    }
    Trace *t = units_trace("fast=16KiB,slow=64MiB", (const guint64(*)[3])specs, 120, 16);
    GError *error = NULL;
    Plan *p = plan_with("banked-greedy", t, &error);
    g_assert_no_error(error);
    guint slow = 0;
    for (guint k = 0; k < 120; k++) {
        if (p->tier[k] != 1)
            continue;
        slow++;
        guint64 sub[121][3];
        guint n = 0;
        for (guint j = 0; j < 120; j++)
            if (p->tier[j] == 0)
                memcpy(sub[n++], specs[j], sizeof specs[j]);
        Trace *residents = units_trace(NULL, (const guint64(*)[3])sub, n, 16);
        memcpy(sub[n++], specs[k], sizeof specs[k]);
        Trace *with = units_trace(NULL, (const guint64(*)[3])sub, n, 16);
        Plan *before = plan_with("banked-greedy", residents, &error), *after = plan_with("banked-greedy", with, &error);
        g_assert_false(after->arena == before->arena && after->arena <= 16384);
        plan_free(before);
        plan_free(after);
        trace_free(residents);
        trace_free(with);
    }
    g_assert_cmpuint(slow, >, 0);
    plan_free(p);
    trace_free(t);
}

/* The exact optimum of the bound's relaxation by enumeration: the least cost of the buffers left out such that
 * the rest fit the first tier's capacity at every step (two tiers, n <= 12). */
static double relaxation_optimum(const Trace *t)
{
    guint n = trace_count(t);
    guint64 capacity = trace_tier(t->tiers, 0)->capacity;
    double best = INFINITY;
    for (guint mask = 0; mask < (1u << n); mask++) { /* mask: the buffers inside */
        gboolean fits = TRUE;
        for (guint s = 0; fits && s < t->steps; s++) {
            guint64 live = 0;
            for (guint k = 0; k < n; k++) {
                const TraceBuffer *b = trace_buffer(t, k);
                if ((mask >> k & 1) && b->first <= s && s <= b->last)
                    live += b->size;
            }
            fits = live <= capacity;
        }
        if (!fits)
            continue;
        double cost = 0;
        for (guint k = 0; k < n; k++)
            cost += trace_tier_cost(t->tiers, mask >> k & 1 ? 0 : 1, trace_buffer(t, k));
        best = MIN(best, cost);
    }
    return best;
}

/* Random tiered traces: ours never costs more than banked_greedy, every plan verifies (capacities too), the bound
 * never exceeds either, and on these small problems it is the exact optimum of its relaxation. */
static void test_random(void)
{
    GRand *rand = g_rand_new_with_seed(67);
    guint beaten = 0, tight = 0;
    for (guint round = 0; round < 200; round++) {
        guint n = (guint)g_rand_int_range(rand, 2, 12), steps = (guint)g_rand_int_range(rand, 2, 16);
        Trace *t = trace_new("random");
        guint64 most = 0;
        for (guint k = 0; k < n; k++) {
            char name[16];
            g_snprintf(name, sizeof name, "b%u", k);
            guint a = (guint)g_rand_int_range(rand, 0, (gint32)steps);
            guint b = (guint)g_rand_int_range(rand, (gint32)a, (gint32)steps);
            guint64 size = 64 * (guint64)g_rand_int_range(rand, 1, 33);
            guint id = trace_add(t, name, size, 64, a, b);
            trace_buffer(t, id)->reads = size * (guint64)g_rand_int_range(rand, 0, 5);
            trace_buffer(t, id)->writes = size;
            most += size;
        }
        t->steps = steps;
        guint64 fast = MAX(most * (guint64)g_rand_int_range(rand, 10, 70) / 100, 64);
        char *spec = g_strdup_printf("fast=%" G_GUINT64_FORMAT ",slow", fast);
        GError *error = NULL;
        t->tiers = trace_tiers_parse(spec, &error);
        g_assert_no_error(error);
        Trace *u = trace_copy(t);
        Plan *ours = plan_with("tiered", t, &error);
        g_assert_no_error(error);
        Plan *theirs = plan_with("banked-greedy", u, &error);
        double exact = relaxation_optimum(t);
        if (theirs) {
            g_assert_cmpfloat(plan_cost(t, ours), <=, plan_cost(u, theirs));
            beaten += plan_cost(t, ours) < plan_cost(u, theirs);
            g_assert_cmpfloat(theirs->tier_bound, <=, plan_cost(u, theirs) + 1e-6);
        }
        g_clear_error(&error); /* banked_greedy may find no room where ours does */
        g_assert_cmpfloat(ours->tier_bound, <=, plan_cost(t, ours) + 1e-6);
        g_assert_false(ours->tier_bound_cut);
        g_assert_cmpfloat(fabs(ours->tier_bound - exact), <=, 1e-6 * MAX(exact, 1));
        tight += fabs(plan_cost(t, ours) - exact) < 1e-6;
        plan_free(ours);
        plan_free(theirs);
        trace_free(t);
        trace_free(u);
        g_free(spec);
    }
    g_assert_cmpuint(beaten, >, 10);
    g_assert_cmpuint(tight, >, 100);
    g_rand_free(rand);
}

/* Bytes moved from the graph: x -> Relu r; Reshape v (a view of r); Neg(v) an output; Add(r, r) z; Mul(r, z) w an
 * output. r's buffer is written once and read by Add (once, whatever its slots), Mul and Neg (through v). */
static void test_traffic(void)
{
    Builder *b = builder_new("traffic", 17);
    const gint64 dims[] = {1, 256}, flat[] = {256};
    builder_input(b, "x", DT_FLOAT, 2, dims);
    const char *r = B_OP(b, "Relu", "x");
    const char *shape = builder_ints(b, "shape", 1, (const gint64[]){1}, flat);
    const char *v = B_OP(b, "Reshape", r, shape);
    const char *nv = B_OP(b, "Neg", v);
    const char *z = B_OP(b, "Add", r, r);
    const char *w = B_OP(b, "Mul", r, z);
    builder_output(b, nv);
    builder_output(b, w);
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    g_assert_true(test_infer(m, NULL, &error));
    LayoutOptions layout = LAYOUT_DEFAULTS;
    Trace *t = NULL;
    AliasMap *map = test_alias_trace(m->graph, &layout, "noop", &t, &error);
    g_assert_no_error(error);
    guint seen = 0;
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *x = trace_buffer(t, k);
        guint64 reads = !strcmp(x->name, r) ? 3072 : 1024;
        g_assert_cmpuint(x->size, ==, 1024);
        g_assert_cmpuint(x->reads, ==, reads);
        g_assert_cmpuint(x->writes, ==, 1024);
        seen++;
    }
    g_assert_cmpuint(seen, ==, 5); /* x, r (with v), nv, z, w */
    alias_map_free(map);
    trace_free(t);
    model_free(m);
}

/* The text format carries the tiers, each buffer's bytes moved and the tiers it may use; a plan's CSV solution
 * carries each buffer's tier and replays as a fully pinned plan with the same arenas. */
static void test_formats(void)
{
    const char *text = "arenasim-trace 1\nsteps 4\ntiers fast=1KiB:0/0,slow:1/2\n0 a 512 0 3 reads=2048 writes=512\n"
                       "1 b 768 1 2 tier=slow\n2 c 512 2 3 tier=fast|slow\n";
    GError *error = NULL;
    Trace *t = trace_parse(text, strlen(text), "t.trace", FALSE, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(t->tiers->len, ==, 2);
    g_assert_cmpuint(trace_buffer(t, 0)->reads, ==, 2048);
    g_assert_cmpuint(trace_buffer(t, 1)->tiers, ==, 2);
    g_assert_cmpuint(trace_buffer(t, 2)->tiers, ==, 3);
    char *written = trace_to_text(t);
    Trace *back = trace_parse(written, strlen(written), "t.trace", FALSE, &error);
    g_assert_no_error(error);
    char *again = trace_to_text(back);
    g_assert_cmpstr(again, ==, written);
    g_free(again);
    g_free(written);
    trace_free(back);
    Plan *p = plan_with("tiered", t, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->tier[1], ==, 1);
    g_assert_cmpuint(p->tier[0], ==, 0); /* the most read per byte: inside */
    char *csv = trace_to_csv(t, p->offsets, &error);
    g_assert_no_error(error);
    assert_contains(csv, "id,lower,upper,size,offset,tier,reads,writes\n");
    Trace *replay = trace_parse(csv, strlen(csv), "sol.csv", TRUE, &error);
    g_assert_no_error(error);
    replay->tiers = trace_tiers_copy(t->tiers);
    Plan *q = plan_with("tiered", replay, &error);
    g_assert_no_error(error);
    for (guint k = 0; k < trace_count(t); k++) {
        g_assert_cmpuint(q->offsets[k], ==, p->offsets[k]);
        g_assert_cmpuint(q->tier[k], ==, p->tier[k]);
    }
    g_assert_cmpuint(q->bin_arena[0], ==, p->bin_arena[0]);
    g_free(csv);
    plan_free(q);
    plan_free(p);
    trace_free(replay);
    trace_free(t);
    static const char *const bad[][2] = {
        {"arenasim-trace 1\n0 a 8 0 1 tier=fast\n", "before a 'tiers SPEC' line"},
        {"arenasim-trace 1\ntiers f=1K,s\n0 a 8 0 1 tier=warm\n", "no tier 'warm'"},
        {"arenasim-trace 1\n0 a 8 0 1\ntiers f=1K,s\n", "before the buffers"},
        {"arenasim-trace 1\ntiers f=1K,s\n0 a 8 0 1 fixed=0\n", "not to one tier"},
    };
    for (guint k = 0; k < G_N_ELEMENTS(bad); k++) {
        g_assert_null(trace_parse(bad[k][0], strlen(bad[k][0]), "bad.trace", FALSE, &error));
        assert_contains(error->message, bad[k][1]);
        g_clear_error(&error);
    }
}

static guint lines_of(const char *text)
{
    guint n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Through `sim`: a model planned in tiers, reported (text and json), run inside the tiers' arenas bit for bit; the
 * refusals one line each. */
static void test_sim(void)
{
    char *model = test_source_path("graphs/mlp.onnx");
    const char *json_args[] = {"--graph", model, "--tiers", "sram=1KiB,dram", "--format", "json", NULL};
    RunResult r = test_run("SIM_BIN", json_args);
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, r.out, -1, NULL));
    JsonObject *row = json_array_get_object_element(json_node_get_array(json_parser_get_root(parser)), 0);
    g_assert_cmpstr(json_object_get_string_member(row, "strategy"), ==, "tiered");
    JsonArray *tiers = json_object_get_array_member(row, "tiers");
    g_assert_cmpuint(json_array_get_length(tiers), ==, 2);
    /* mlp's 1 KiB buffers: three in the 1 KiB sram at a time, three in dram; 12,288 B moved there, the bound */
    g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(tiers, 0), "arena"), ==, 1024);
    g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(tiers, 1), "arena"), ==, 1024);
    g_assert_cmpint(json_object_get_int_member(row, "slow_tier_bytes"), ==, 12288);
    g_assert_cmpfloat(json_object_get_double_member(row, "tier_bound"), <=,
                      json_object_get_double_member(row, "tier_cost"));
    g_object_unref(parser);
    run_result_clear(&r);
    for (guint s = 0; s < 2; s++) {
        const char *run_args[] = {"--graph", model, "--tiers", "sram=1KiB,dram", "--strategy",
                                  s ? "banked-greedy" : "tiered", "--run", "--check", "--poison", NULL};
        r = test_run("SIM_BIN", run_args);
        g_assert_cmpint(r.status, ==, 0);
        assert_contains(r.out, "tiers          sram:");
        assert_contains(r.out, "bit for bit");
        run_result_clear(&r);
    }
    /* the HTML view: one lane per tier, each buffer naming its tier */
    char *html = test_scratch_path("tiers.html");
    const char *html_args[] = {"--graph", model, "--tiers", "sram=1KiB,dram", "--html", html, NULL};
    r = test_run("SIM_BIN", html_args);
    g_assert_cmpint(r.status, ==, 0);
    char *page = test_read_file(html);
    assert_contains(page, "data-tier=\"sram\"");
    assert_contains(page, "data-tier=\"dram\"");
    g_free(page);
    g_free(html);
    run_result_clear(&r);
    /* a bins file naming a tier holds its tensors there (sharing never crosses tiers); numbers with tiers, or names
     * without them, are refused */
    char *held = test_write_scratch("tiers-bins.txt", "dram name=*\n", strlen("dram name=*\n"));
    char *numbered = test_source_path("graphs/bins.txt");
    const char *bins_args[] = {"--graph", model, "--tiers", "sram=1KiB,dram", "--bins", held, "--format", "json", NULL};
    r = test_run("SIM_BIN", bins_args);
    g_assert_cmpint(r.status, ==, 0);
    assert_contains(r.out, "\"name\" : \"sram\",\n        \"capacity\" : 1024,\n        \"arena\" : 0,");
    run_result_clear(&r);
    const char *numbered_args[] = {"--graph", model, "--tiers", "sram=1KiB,dram", "--bins", numbered, NULL};
    r = test_run("SIM_BIN", numbered_args);
    g_assert_cmpint(r.status, !=, 0);
    assert_contains(r.err, "with --tiers a bins file names tiers");
    run_result_clear(&r);
    const char *untiered_args[] = {"--graph", model, "--bins", held, NULL};
    r = test_run("SIM_BIN", untiered_args);
    g_assert_cmpint(r.status, !=, 0);
    assert_contains(r.err, "the bins file names tiers ('dram'): give them with --tiers");
    run_result_clear(&r);
    g_free(held);
    g_free(numbered);
    static const char *const refused[][4] = {
        {"--tiers", "sram=1KiB,dram", "--strategy", "bestfit"},
        {"--tiers", "dram,sram=1K", NULL, NULL},
        {"--tiers", "sram=1,dram=2", NULL, NULL},
        {"--tiers", "sram=1,dram=2", "--compare", NULL}, /* every strategy refuses: said once */
    };
    static const char *const why[] = {"name one that chooses tiers", "has no capacity but is not the last",
                                      "is larger than every tier it may use", "is larger than every tier it may use"};
    for (guint k = 0; k < G_N_ELEMENTS(refused); k++) {
        const char *args[] = {"--graph", model, refused[k][0], refused[k][1], refused[k][2], refused[k][3], NULL};
        r = test_run("SIM_BIN", args);
        g_assert_cmpint(r.status, !=, 0);
        assert_contains(r.err, why[k]);
        g_assert_cmpuint(lines_of(r.err), ==, 1);
        run_result_clear(&r);
    }
    g_free(model);
}

/* A corpus model through `sim --format json`: the bytes moved through the slow tier, and the bound. */
static void corpus_tiered(const char *strategy, guint64 *slow, double *bound, gboolean *cut)
{
    char *model = test_source_path("graphs/models/torch/resnet50.onnx");
    const char *args[] = {"--graph", model, "--dim", "batch=1", "--tiers", "sram=3612672,dram", "--strategy", strategy,
                          "--format", "json", NULL};
    RunResult r = test_run("SIM_BIN", args);
    g_assert_cmpint(r.status, ==, 0);
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_data(parser, r.out, -1, NULL));
    JsonObject *row = json_array_get_object_element(json_node_get_array(json_parser_get_root(parser)), 0);
    *slow = (guint64)json_object_get_int_member(row, "slow_tier_bytes");
    *bound = json_object_get_double_member(row, "tier_bound");
    *cut = json_object_get_boolean_member(row, "tier_bound_cut_short");
    g_object_unref(parser);
    run_result_clear(&r);
    g_free(model);
}

/* ResNet-50 with a fast tier of half its arena (7,225,344 B): the bound is the exact optimum of its relaxation,
 * 58,204,160 B, which scipy's MILP (HiGHS) also gives for the same trace (the fractional relaxation alone says
 * 42,950,656 B); ours moves fewer bytes than banked_greedy (91,119,616 B) and no fewer than the bound. */
static void test_corpus_bound(void)
{
    guint64 ours, banked;
    double bound, again;
    gboolean cut, cut_again;
    corpus_tiered("tiered", &ours, &bound, &cut);
    corpus_tiered("banked-greedy", &banked, &again, &cut_again);
    g_assert_false(cut);
    g_assert_cmpfloat(bound, ==, 58204160);
    g_assert_cmpfloat(again, ==, bound);
    g_assert_cmpuint(banked, ==, 91119616);
    g_assert_cmpuint(ours, <, banked);
    g_assert_cmpfloat((double)ours, >=, bound);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tiers/spec", test_spec);
    g_test_add_func("/tiers/executorch-greedy", test_executorch_greedy);
    g_test_add_func("/tiers/executorch-banked", test_executorch_banked);
    g_test_add_func("/tiers/executorch-no-free-readmission", test_executorch_no_free_readmission);
    g_test_add_func("/tiers/executorch-limit", test_executorch_limit);
    g_test_add_func("/tiers/random", test_random);
    g_test_add_func("/tiers/traffic", test_traffic);
    g_test_add_func("/tiers/formats", test_formats);
    g_test_add_func("/tiers/sim", test_sim);
    g_test_add_func("/tiers/corpus-bound", test_corpus_bound);
    return g_test_run();
}
