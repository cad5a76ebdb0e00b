/* fuzz-trace.c — libFuzzer harness for the trace parsers (built twice: FUZZ_CSV selects MiniMalloc's CSV,
 * else our text format); every trace that parses is planned by every strategy and verified. */
#include "tests/fuzz/fuzz-common.h"

#include <stdint.h>

#ifndef FUZZ_CSV
#define FUZZ_CSV FALSE
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    Trace *t = trace_parse((const char *)data, size, "fuzz", FUZZ_CSV, &error);
    if (t)
        fuzz_plan_all(t);
    g_clear_error(&error);
    trace_free(t);
    return 0;
}
