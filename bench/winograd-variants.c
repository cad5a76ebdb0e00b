/* winograd-variants.c — one 3 x 3 stride-1 convolution on oneDNN (Debian's libdnnl), one thread, by each
 * implementation oneDNN offers for it: the direct kernel and Winograd's F(2x2,3x3) and F(4x4,3x3). The rule in
 * sim/exec/kernels/onednn.c (winograd_variant) was chosen from these figures; bench/winograd.sh runs this over
 * the corpus's shapes and writes results/winograd.md.
 * Usage: winograd-variants IN OUT SIDE PAD — prints one line per implementation: its name and the best of 15
 * calls in ms. Source and output channel-blocked (as the executor lays them), the weights packed once into
 * the implementation's layout and filled (never the zero page, which would stay in cache), a 256 MiB buffer
 * written between calls so that the weights come from memory as they do in a model's run. */
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FLUSH_BYTES ((size_t)256 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static dnnl_memory_t filled(const dnnl_memory_desc_t *md, dnnl_engine_t engine)
{
    dnnl_memory_t m;
    void *data;
    if (dnnl_memory_create(&m, md, engine, DNNL_MEMORY_ALLOCATE) != dnnl_success ||
        dnnl_memory_get_data_handle(m, &data) != dnnl_success) {
        fprintf(stderr, "winograd-variants: cannot allocate a memory\n");
        exit(1);
    }
    float *f = data;
    for (size_t k = 0, n = dnnl_memory_desc_get_size(md) / sizeof(float); k < n; k++)
        f[k] = (float)((k * 2654435761u) % 1000) / 1000.0f - 0.5f;
    return m;
}

/* Times every implementation of cd but oneDNN's reference loops. */
static void time_all(const dnnl_convolution_desc_t *cd, const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                     const dnnl_memory_desc_t *bias, dnnl_engine_t engine, dnnl_stream_t stream, unsigned char *flush)
{
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t ops;
    dnnl_primitive_attr_create(&attr);
    dnnl_post_ops_create(&ops);
    dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f);
    dnnl_primitive_attr_set_post_ops(attr, ops);
    dnnl_primitive_desc_iterator_t it;
    if (dnnl_primitive_desc_iterator_create(&it, cd, attr, engine, NULL) != dnnl_success)
        return;
    do {
        dnnl_primitive_desc_t pd = dnnl_primitive_desc_iterator_fetch(it);
        const char *name = NULL;
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name);
        if (!name || !strncmp(name, "ref", 3)) {
            dnnl_primitive_desc_destroy(pd);
            continue;
        }
        dnnl_primitive_t prim;
        dnnl_primitive_create(&prim, pd);
        dnnl_memory_t s = filled(src, engine), d = filled(dst, engine), b = filled(bias, engine),
                      w = filled(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), engine),
                      scratch = filled(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0), engine);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, d},
                                  {DNNL_ARG_SCRATCHPAD, scratch}};
        double best = 1e9;
        for (int call = 0; call < 15; call++) {
            for (size_t k = 0; k < FLUSH_BYTES; k += 64)
                flush[k]++;
            double t0 = now();
            dnnl_primitive_execute(prim, stream, 5, args);
            dnnl_stream_wait(stream);
            double t = now() - t0;
            best = t < best ? t : best;
        }
        printf("%s %.3f\n", name, best * 1e3);
        dnnl_memory_t all[] = {s, d, b, w, scratch};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            dnnl_memory_destroy(all[k]);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
    } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
    dnnl_post_ops_destroy(ops);
    dnnl_primitive_attr_destroy(attr);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: winograd-variants IN OUT SIDE PAD\n");
        return 2;
    }
    long in = atol(argv[1]), out = atol(argv[2]), side = atol(argv[3]), pad = atol(argv[4]);
    if (in < 1 || out < 1 || side < 3 || pad < 0 || pad > 1 || in > 4096 || out > 4096 || side > 1024) {
        fprintf(stderr, "winograd-variants: IN and OUT 1..4096, SIDE 3..1024, PAD 0 or 1\n");
        return 2;
    }
    long side_out = side + 2 * pad - 2;
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        fprintf(stderr, "winograd-variants: oneDNN has no CPU engine\n");
        return 1;
    }
    dnnl_memory_desc_t src, wei, dst, bias;
    dnnl_dims_t sd = {1, in, side, side}, wd = {out, in, 3, 3}, dd = {1, out, side_out, side_out}, bd = {out};
    dnnl_dims_t strides = {1, 1}, pads = {pad, pad};
    dnnl_memory_desc_init_by_tag(&src, 4, sd, dnnl_f32, dnnl_aBcd16b);
    dnnl_memory_desc_init_by_tag(&wei, 4, wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&dst, 4, dd, dnnl_f32, dnnl_aBcd16b);
    dnnl_memory_desc_init_by_tag(&bias, 1, bd, dnnl_f32, dnnl_a);
    unsigned char *flush = calloc(FLUSH_BYTES, 1);
    if (!flush)
        return 1;
    dnnl_alg_kind_t algs[] = {dnnl_convolution_direct, dnnl_convolution_winograd};
    for (int a = 0; a < 2; a++) {
        dnnl_convolution_desc_t cd;
        if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, algs[a], &src, &wei, &bias, &dst, strides,
                                               pads, pads) == dnnl_success)
            time_all(&cd, &src, &dst, &bias, engine, stream, flush);
    }
    free(flush);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(engine);
    return 0;
}
