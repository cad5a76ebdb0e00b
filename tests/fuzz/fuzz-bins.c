/* fuzz-bins.c — libFuzzer harness for the --bins file parser. */
#include "memory/bins.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    BinRules *r = bins_parse((const char *)data, size, "fuzz", &error);
    g_clear_error(&error);
    bins_free(r);
    return 0;
}
