/* skinny-products.c — one product [M, K] x [K, N] over constant weights, one thread, on the executor's skinny
 * kernel (sim/exec/kernels/skinny.h, from build/libsim.a) and on oneDNN's matmul with its weights packed once
 * (Debian's libdnnl, the primitive the executor uses otherwise). bench/skinny.sh runs it over the corpus's
 * shapes and writes results/skinny.md.
 * Usage: skinny-products M K N [avx2] — prints "skinny MS GBPS" and "onednn MS GBPS [implementation]": the best of
 * 5 passes, each one call per copy of the weights; the copies (distinct, filled, at least 1 GiB in all) are
 * cycled so that each call reads its weights from memory, as a model's run does. GB/s: the packed weights'
 * bytes per second. Both results are compared (relative 1e-4) so that a wrong kernel cannot look fast. With
 * avx2, both as on a CPU without AVX-512: our AVX2 kernel, and oneDNN held to AVX2 (dnnl_set_max_cpu_isa). */
#include "exec/kernels/skinny.h"

#include <oneapi/dnnl/dnnl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PASSES 5
#define LEAST_BYTES ((size_t)1 << 30)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fail(const char *what)
{
    fprintf(stderr, "skinny-products: %s\n", what);
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "avx2")))
        fail("usage: skinny-products M K N [avx2]");
    if (argc == 5) { /* before oneDNN's first primitive, which fixes its ISA */
        kernel_skinny_force_avx2(1);
        if (dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2) != dnnl_success)
            fail("oneDNN cannot be held to AVX2");
    }
    long m = atol(argv[1]), k = atol(argv[2]), n = atol(argv[3]);
    if (m < 1 || m > KERNEL_SKINNY_ROWS || k < 1 || n < 1 || k > (1L << 20) || n > (1L << 20))
        fail("M is 1 to 16, K and N 1 to 2^20");
    if (!kernel_skinny_supported())
        fail("this CPU has neither AVX-512F nor AVX2 with FMA");
    size_t weight_bytes = (size_t)k * (size_t)n * sizeof(float);
    int copies = (int)((LEAST_BYTES + weight_bytes - 1) / weight_bytes);
    copies = copies < 2 ? 2 : copies;
    float *a = malloc((size_t)m * (size_t)k * sizeof(float)), *b = malloc(weight_bytes);
    size_t out_bytes = (size_t)m * (size_t)n * sizeof(float);
    float *y_ours = malloc(out_bytes), *y_dnnl = malloc(out_bytes);
    float *work = malloc((size_t)m * (size_t)k * sizeof(float));
    KernelSkinny *ours = calloc((size_t)copies, sizeof *ours);
    if (!a || !b || !y_ours || !y_dnnl || !work || !ours)
        fail("out of memory");
    for (long i = 0; i < m * k; i++)
        a[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&stream, engine, 0) != dnnl_success)
        fail("no oneDNN CPU engine");
    dnnl_memory_desc_t src, wei, any, dst;
    dnnl_dims_t sd = {m, k}, wd = {k, n}, dd = {m, n};
    dnnl_memory_desc_init_by_tag(&src, 2, sd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&wei, 2, wd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&any, 2, wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&dst, 2, dd, dnnl_f32, dnnl_ab);
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd, rpd;
    dnnl_primitive_t prim, reorder;
    const char *impl = "?";
    if (dnnl_matmul_desc_init(&md, &src, &any, NULL, &dst) != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &md, NULL, engine, NULL) != dnnl_success ||
        dnnl_primitive_create(&prim, pd) != dnnl_success)
        fail("oneDNN refuses the product");
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    const dnnl_memory_desc_t *packed = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    if (dnnl_reorder_primitive_desc_create(&rpd, &wei, engine, packed, engine, NULL) != dnnl_success ||
        dnnl_primitive_create(&reorder, rpd) != dnnl_success)
        fail("oneDNN cannot pack the weights");
    dnnl_memory_t msrc, mdst, mplain, *mpacked = calloc((size_t)copies, sizeof *mpacked);
    if (!mpacked || dnnl_memory_create(&msrc, &src, engine, a) != dnnl_success ||
        dnnl_memory_create(&mdst, &dst, engine, y_dnnl) != dnnl_success ||
        dnnl_memory_create(&mplain, &wei, engine, b) != dnnl_success)
        fail("oneDNN memories");
    for (int c = 0; c < copies; c++) { /* each copy its own values: nothing shared, nothing on the zero page */
        for (size_t i = 0; i < (size_t)k * (size_t)n; i++)
            b[i] = (float)(((i + (size_t)c * 131) * 2654435761u) % 1000) / 1000.0f - 0.5f;
        if (!kernel_skinny_pack(&ours[c], b, k, n, n, 1))
            fail("out of memory for the panels");
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, mplain}, {DNNL_ARG_TO, NULL}};
        if (dnnl_memory_create(&mpacked[c], packed, engine, DNNL_MEMORY_ALLOCATE) != dnnl_success)
            fail("out of memory for oneDNN's packed weights");
        args[1].memory = mpacked[c];
        if (dnnl_primitive_execute(reorder, stream, 2, args) != dnnl_success ||
            dnnl_stream_wait(stream) != dnnl_success)
            fail("oneDNN's packing failed");
    }
    double best_ours = INFINITY, best_dnnl = INFINITY;
    for (int pass = 0; pass < PASSES; pass++) {
        double t = now();
        for (int c = 0; c < copies; c++)
            kernel_skinny_run(&ours[c], a, m, k, 1, 1.0f, NULL, y_ours, work);
        t = (now() - t) / copies;
        best_ours = t < best_ours ? t : best_ours;
        t = now();
        for (int c = 0; c < copies; c++) {
            dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, msrc}, {DNNL_ARG_WEIGHTS, mpacked[c]}, {DNNL_ARG_DST, mdst}};
            if (dnnl_primitive_execute(prim, stream, 3, args) != dnnl_success)
                fail("oneDNN's product failed");
        }
        dnnl_stream_wait(stream);
        t = (now() - t) / copies;
        best_dnnl = t < best_dnnl ? t : best_dnnl;
    }
    for (long i = 0; i < m * n; i++) /* the last copy's product, both ways */
        if (fabsf(y_ours[i] - y_dnnl[i]) > 1e-4f * (1.0f + fabsf(y_dnnl[i])))
            fail("the two products differ");
    printf("skinny %.4f %.2f\n", best_ours * 1e3, (double)weight_bytes / best_ours / 1e9);
    printf("onednn %.4f %.2f %s\n", best_dnnl * 1e3, (double)weight_bytes / best_dnnl / 1e9, impl);
    return 0;
}
