/* fuzz-plan.c — libFuzzer harness for placement itself: the bytes describe a trace directly (8 bytes a
 * buffer: size, lifetime, alignment, and now and then a pin or a group membership), so the fuzzer explores
 * shapes of traces rather than file syntax; every strategy's plan must pass the verifier. */
#include "tests/fuzz/fuzz-common.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A large trace from a few bytes (the first 0xff): up to 1,024 buffers whose lifetimes run from their
 * start to a common end (a staircase: the sum of lifetimes grows as n^2 / 2) or are short, each from a
 * 4-byte pattern repeated — the shapes 8 bytes a buffer cannot reach in 64 KiB. Not more: the greedy
 * planners' gap search is quadratic at worst in the buffers alive together when their gaps are usable by
 * some buffer (docs/robustness.md), and at 16,384 mixed sizes every strategy in turn took 20 s, at 2,048
 * 1.6 s (half of it the exact searches' 200 nodes), unsanitized: the fuzzer's limit is 10 s a case, under
 * sanitizers. The search's index limit has its own test
 * (test-hostile's staircase). */
static Trace *large_trace(const uint8_t *data, size_t size)
{
    Trace *t = trace_new("fuzz-large");
    guint n = 1 + ((data[1] | (guint)data[2] << 8) & 0x3ff);
    gboolean staircase = data[3] & 1;
    const uint8_t *pattern = data + 4;
    gsize plen = size - 4;
    for (guint k = 0; k < n; k++) {
        const uint8_t *b = pattern + (gsize)(k * 4) % (plen / 4 * 4);
        guint64 bytes = 1 + ((guint64)b[0] << (b[1] % 8));
        guint64 align = (guint64)1 << (b[2] % 8);
        guint first = k, last = staircase ? n : k + b[3] % 64;
        trace_add(t, "b", bytes, align, first, last);
    }
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 8 && data[0] == 0xff) {
        Trace *t = large_trace(data, size);
        GError *error = NULL;
        if (trace_validate(t, &error))
            fuzz_plan_all(t);
        g_clear_error(&error);
        trace_free(t);
        return 0;
    }
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
