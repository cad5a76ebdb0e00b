/* fuzz-plan.c — libFuzzer harness for placement itself: the bytes describe a trace directly (8 bytes a
 * buffer: size, lifetime, alignment, and now and then a pin or a group membership), so the fuzzer explores
 * shapes of traces rather than file syntax; every strategy's plan must pass the verifier. */
#include "tests/fuzz/fuzz-common.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Trace *t = trace_new("fuzz");
    for (size_t k = 0; k + 8 <= size && k < 8 * 400; k += 8) {
        const uint8_t *b = data + k;
        guint64 bytes = (guint64)(b[0] | b[1] << 8) << (b[2] % 12);
        guint first = b[3], last = first + b[4] % 32;
        guint64 align = (guint64)1 << (b[5] % 9);
        guint id = trace_add(t, "b", bytes ? bytes : 1, align, first, last);
        TraceBuffer *buf = trace_buffer(t, id);
        if (b[6] % 16 == 0)
            buf->fixed = (gint64)round_up((guint64)b[7] << 8, align);
        else if (b[6] % 16 == 1) {
            buf->group = b[7] % 4;
            buf->group_offset = round_up((guint64)b[7] << 10, align);
        }
        buf->bin = b[6] % 32 == 2 ? 1 : 0;
    }
    GError *error = NULL;
    if (trace_count(t) && trace_validate(t, &error))
        fuzz_plan_all(t);
    g_clear_error(&error);
    trace_free(t);
    return 0;
}
