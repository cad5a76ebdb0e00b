/* fuzz-onnx.c — libFuzzer harness for the ONNX loader and everything behind it: bytes -> ModelProto ->
 * graph -> shape inference -> aliasing -> trace -> every strategy -> verifier, and the kernels: a plan of
 * at most 1 MiB runs in its arena under poison (the executor's own refusals are clean errors; a hostile
 * attribute that reads or writes out of bounds is ASan's). Two more than byte mutations:
 *  - a type-swap mutator (one time in four): a model that loads gets one graph input's declared element type, or
 *    one initializer's (to another of the same width, so its bytes still fit), changed, and is written back; the
 *    door (ONNX's schemas) and the kernels' .reads must refuse what does not fit, where byte flips rarely reach
 *    a type field that still parses;
 *  - a differential run: a model that ran is fused as ONNX Runtime's transformer optimizer would
 *    (--fuse ort-transformers) and run again, under the same sanitizers; where both ran, the outputs must agree
 *    within float32 rounding of the fused arithmetic (a fused LayerNorm that read a scale it should not have
 *    gives other values, or ASan's report); a quantizing model runs both ways but is not compared (the QDQ
 *    fusions compute on integers, as ORT does, which may move a value by a quantization step). */
#include "exec/check.h"
#include "exec/exec.h"
#include "memory/alias.h"
#include "fuse/fuse.h"
#include "memory/pipeline.h"
#include "tests/fuzz/fuzz-common.h"
#include "model/onnx.h"
#include "ops/shape.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* A model loaded, inferred, planned by the baseline and run (the plan at most 1 MiB); NULL when any step refused.
 * The executor is the caller's, with the model, alias map, trace and plan it holds on to. */
typedef struct {
    Model *m;
    AliasMap *map;
    Trace *t;
    Plan *plan;
    Executor *e;
} Ran;

static void ran_clear(Ran *r)
{
    executor_free(r->e);
    plan_free(r->plan);
    trace_free(r->t);
    alias_map_free(r->map);
    model_free(r->m);
    memset(r, 0, sizeof *r);
}

/* Plans m (every strategy verified) and runs the baseline's plan; r->e is set when it ran. Takes m. */
static void plan_and_run(Model *m, const char *fuse, gboolean plan_all, Ran *r)
{
    GError *error = NULL;
    memset(r, 0, sizeof *r);
    r->m = m;
    ShapeOptions o;
    shape_options_init(&o);
    FuseReport report = {0};
    gboolean ok = shape_infer(m, &o, &error) && (!fuse || fuse_apply(m, fuse, &report, &error));
    fuse_report_clear(&report);
    shape_options_clear(&o);
    if (ok) {
        LayoutOptions lo = LAYOUT_DEFAULTS;
        const AliasStrategy **all = registry_alias_list_resolve("all", &error);
        r->map = all ? pipeline_alias_trace(m->graph, m->graph->order, &lo, all, NULL, &r->t, &error) : NULL;
        g_free(all);
    }
    if (r->map && r->t) {
        if (plan_all)
            fuzz_plan_all(r->t);
        r->plan = place_run(registry_place_baseline(), r->t, &error);
        if (r->plan && r->plan->arena <= ((guint64)1 << 20)) {
            g_setenv("ARENASIM_RUN_MEMORY", "268435456", FALSE); /* weights and outside tensors too */
            r->e = executor_new(m, m->graph->order, r->map, r->t, r->plan, &error);
            if (r->e && !executor_run(r->e, TRUE, &error)) {
                executor_free(r->e);
                r->e = NULL;
            }
        }
    }
    g_clear_error(&error);
}

/* The two runs' outputs agree within what a fused op's other order of float32 arithmetic changes: relative to
 * each output's largest magnitude, where every value of both is finite. */
static void outputs_agree(const Executor *a, const Executor *b)
{
    guint n = executor_output_count(a);
    if (n != executor_output_count(b))
        return;
    for (guint k = 0; k < n; k++) {
        const char *name;
        const ExecTensor *x = executor_output(a, k, &name), *y = executor_output(b, k, &name);
        if (x->dtype != y->dtype || x->count != y->count || !dtype_is_float(x->dtype))
            continue;
        double scale = 0;
        gboolean finite = TRUE;
        for (gsize j = 0; j < x->count && finite; j++) {
            double u = kernel_elem_get_f(x, j), v = kernel_elem_get_f(y, j);
            finite = isfinite(u) && isfinite(v) && fabs(u) < 1e30 && fabs(v) < 1e30;
            scale = MAX(scale, fabs(v));
        }
        for (gsize j = 0; j < x->count && finite; j++) {
            double u = kernel_elem_get_f(x, j), v = kernel_elem_get_f(y, j);
            if (fabs(u - v) > 1e-3 * (1 + scale)) {
                fprintf(stderr, "fuzz: output '%s' element %zu is %.9g unfused and %.9g fused (--fuse "
                        "ort-transformers)\n", name, j, u, v);
                abort();
            }
        }
    }
}

/* Whether the model quantizes: ONNX Runtime's QDQ fusions (--fuse ort) compute its quantized ops on integers, which
 * may move a value by a quantization step (by design: ORT's own outputs), so the two runs are not compared. */
static gboolean quantizes(const Graph *g)
{
    for (guint k = 0; k < g->nodes->len; k++) {
        const char *op = ((const Node *)g->nodes->pdata[k])->op_type;
        if (!strcmp(op, "QuantizeLinear") || !strcmp(op, "DynamicQuantizeLinear"))
            return TRUE;
    }
    return FALSE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    Model *m = onnx_read_bytes(data, size, NULL, &error);
    g_clear_error(&error);
    if (!m)
        return 0;
    Ran plain;
    plan_and_run(m, NULL, TRUE, &plain);
    if (plain.e) {
        Model *again = onnx_read_bytes(data, size, NULL, &error);
        g_clear_error(&error);
        Ran fused;
        if (again) {
            gboolean quantized = quantizes(again->graph);
            plan_and_run(again, "ort-transformers", FALSE, &fused);
            if (fused.e && !quantized)
                outputs_agree(plain.e, fused.e);
            ran_clear(&fused);
        }
    }
    ran_clear(&plain);
    return 0;
}

/* Element types of one width, so that an initializer's bytes still fit after a swap. */
static DType same_width(DType t, unsigned int pick)
{
    static const DType w1[] = {DT_UINT8, DT_INT8, DT_BOOL}, w2[] = {DT_FLOAT16, DT_BFLOAT16, DT_INT16, DT_UINT16},
                       w4[] = {DT_FLOAT, DT_INT32, DT_UINT32}, w8[] = {DT_DOUBLE, DT_INT64, DT_UINT64};
    switch (dtype_size(t)) {
    case 1: return w1[pick % G_N_ELEMENTS(w1)];
    case 2: return w2[pick % G_N_ELEMENTS(w2)];
    case 4: return w4[pick % G_N_ELEMENTS(w4)];
    case 8: return w8[pick % G_N_ELEMENTS(w8)];
    default: return t;
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    if (seed % 4)
        return LLVMFuzzerMutate(data, size, max_size);
    GError *error = NULL;
    Model *m = onnx_read_bytes(data, size, NULL, &error);
    g_clear_error(&error);
    if (!m)
        return LLVMFuzzerMutate(data, size, max_size);
    Graph *g = m->graph;
    guint candidates = g->inputs->len + g->initializers->len;
    gboolean swapped = FALSE;
    if (candidates) {
        guint k = (seed / 4) % candidates;
        Tensor *t = k < g->inputs->len ? g->inputs->pdata[k] : g->initializers->pdata[k - g->inputs->len];
        if (t->init && t->init->raw) {
            t->init->dtype = same_width(t->init->dtype, seed / 16);
            swapped = TRUE;
        } else if (t->declared && t->declared->dtype != DT_UNDEFINED) {
            static const DType any[] = {DT_FLOAT, DT_INT8, DT_UINT8, DT_INT64, DT_INT32, DT_BOOL, DT_FLOAT16,
                                        DT_DOUBLE};
            t->declared->dtype = any[(seed / 16) % G_N_ELEMENTS(any)];
            swapped = TRUE;
        }
    }
    size_t out = 0;
    if (swapped) {
        GBytes *b = onnx_write_bytes(m);
        gsize len;
        const void *bytes = g_bytes_get_data(b, &len);
        if (len <= max_size) {
            memcpy(data, bytes, len);
            out = len;
        }
        g_bytes_unref(b);
    }
    model_free(m);
    return out ? out : LLVMFuzzerMutate(data, size, max_size);
}
