/* fuzz-structured.c — libFuzzer harness for structured problems (schema-v1 JSON): whatever the reader accepts,
 * greedy and a small search place, and the independent validator must accept both placements (a rejection is a
 * fault of the reader's checks or of the strategies: abort). */
#include "strategies/registry.h"
#include "structured/structured-check.h"
#include "structured/structured-json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    StructuredProblem *p = structured_json_parse((const char *)data, size, "fuzz.json", &error);
    g_clear_error(&error);
    if (!p || p->buffers->len > 200) {
        structured_free(p);
        return 0;
    }
    const char *names[] = {"greedy", "search"};
    for (guint k = 0; k < G_N_ELEMENTS(names); k++) {
        StructuredOptions o = registry_structured_options();
        o.budget_work = 2000;
        StructuredResult r = {0};
        StructuredObjective obj = {0};
        if (registry_structured_find(names[k])->solve(p, &o, &r, &error)) {
            if (!structured_check(p, r.place, &obj, &error)) {
                fprintf(stderr, "%s's placement broke a rule: %s\n", names[k], error->message);
                abort();
            }
        }
        g_clear_error(&error);
        structured_objective_clear(&obj);
        structured_strategy_result_clear(&r);
    }
    structured_free(p);
    return 0;
}
