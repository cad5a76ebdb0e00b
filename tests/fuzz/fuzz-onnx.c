/* fuzz-onnx.c — libFuzzer harness for the ONNX loader and everything behind it: bytes -> ModelProto ->
 * graph -> shape inference -> aliasing -> trace -> every strategy -> verifier, and the kernels: a plan of
 * at most 1 MiB runs in its arena under poison (the executor's own refusals are clean errors; a hostile
 * attribute that reads or writes out of bounds is ASan's). */
#include "exec/exec.h"
#include "memory/alias.h"
#include "memory/pipeline.h"
#include "tests/fuzz/fuzz-common.h"
#include "model/onnx.h"
#include "ops/shape.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    Model *m = onnx_read_bytes(data, size, NULL, &error);
    if (m) {
        ShapeOptions o;
        shape_options_init(&o);
        if (shape_infer(m, &o, &error)) {
            LayoutOptions lo = LAYOUT_DEFAULTS;
            const AliasStrategy **all = registry_alias_list_resolve("all", &error);
            Trace *t = NULL;
            AliasMap *map = all ? pipeline_alias_trace(m->graph, m->graph->order, &lo, all, NULL, &t, &error) : NULL;
            g_free(all);
            if (map) {
                if (t)
                    fuzz_plan_all(t);
                Plan *plan = t ? place_run(registry_place_baseline(), t, &error) : NULL;
                if (plan && plan->arena <= ((guint64)1 << 20)) {
                    g_setenv("ARENASIM_RUN_MEMORY", "268435456", FALSE); /* weights and outside tensors too */
                    Executor *e = executor_new(m, m->graph->order, map, t, plan, &error);
                    if (e)
                        executor_run(e, TRUE, &error);
                    executor_free(e);
                }
                g_clear_error(&error);
                plan_free(plan);
                trace_free(t);
            }
            alias_map_free(map);
        }
        shape_options_clear(&o);
    }
    g_clear_error(&error);
    model_free(m);
    return 0;
}
