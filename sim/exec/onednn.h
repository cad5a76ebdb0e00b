/* onednn.h — oneDNN (Debian's libdnnl2, the library behind ONNX Runtime's and PyTorch's CPU convolutions),
 * opened when the executor first needs it, as OpenBLAS is (blas.h): linked, it would load its C++ runtime
 * and OpenMP into every planning-only run. The kernels of exec/kernels/onednn.c call it through the table
 * below; where it is missing (or `--kernels own`) the executor runs its own kernels for every op.
 * oneDNN runs on the calling thread's OpenMP team: one thread unless exec_set_threads says otherwise. */
#ifndef SIM_EXEC_ONEDNN_H
#define SIM_EXEC_ONEDNN_H

#include <glib.h>
#include <oneapi/dnnl/dnnl.h>

/* The entry points the kernels call, with the prototypes dnnl.h gives them. */
#define ONEDNN_CALLS(X)                                                                                           \
    X(dnnl_engine_create) X(dnnl_engine_destroy) X(dnnl_stream_create) X(dnnl_stream_destroy) X(dnnl_stream_wait)  \
    X(dnnl_memory_desc_init_by_tag) X(dnnl_memory_desc_init_by_strides) X(dnnl_memory_desc_get_size)               \
    X(dnnl_memory_desc_equal) X(dnnl_memory_create) X(dnnl_memory_destroy) X(dnnl_memory_set_data_handle)           \
    X(dnnl_dilated_convolution_forward_desc_init) X(dnnl_matmul_desc_init) X(dnnl_primitive_attr_create)          \
    X(dnnl_primitive_attr_destroy) X(dnnl_primitive_attr_set_post_ops) X(dnnl_primitive_attr_set_scratchpad_mode) \
    X(dnnl_primitive_attr_set_output_scales) X(dnnl_post_ops_create) X(dnnl_post_ops_destroy)                     \
    X(dnnl_post_ops_append_sum) X(dnnl_post_ops_append_eltwise) X(dnnl_primitive_desc_create)                     \
    X(dnnl_primitive_desc_destroy) X(dnnl_primitive_desc_query_md) X(dnnl_primitive_desc_query)                   \
    X(dnnl_reorder_primitive_desc_create) X(dnnl_primitive_create) X(dnnl_primitive_destroy)                      \
    X(dnnl_primitive_execute) X(dnnl_version) X(dnnl_pooling_v2_forward_desc_init)                              \
    X(dnnl_primitive_desc_iterator_create) X(dnnl_primitive_desc_iterator_next)                                   \
    X(dnnl_primitive_desc_iterator_fetch) X(dnnl_primitive_desc_iterator_destroy) X(dnnl_gemm_u8s8s32)               \
    X(dnnl_get_effective_cpu_isa)

typedef struct {
#define ONEDNN_FIELD(f) __typeof__(f) *f;
    ONEDNN_CALLS(ONEDNN_FIELD)
#undef ONEDNN_FIELD
    void (*set_num_threads)(int); /* OpenMP's omp_set_num_threads, from the library oneDNN loaded */
    guint threads;                /* its team's threads (onednn_open's count) */
    /* OpenMP's own entry points in that library (libgomp's ABI): our kernels' loops run on the same team
     * (kernel_parallel), never on a second pool of threads that would spin against it */
    void (*gomp_parallel)(void (*fn)(void *), void *data, unsigned threads, unsigned flags);
    int (*thread_num)(void), (*num_threads)(void);
    dnnl_engine_t engine;         /* the CPU */
    dnnl_stream_t stream;
} OnednnCalls;

/* Filled by onednn_open; NULL entries until then. */
extern OnednnCalls onednn;

/* Opens oneDNN once (the CPU engine and a stream), later calls only set the thread count; FALSE with an error
 * when the library cannot be loaded or has no CPU engine. */
gboolean onednn_open(guint threads, GError **error);
/* "oneDNN 2.6.3 (avx512_core)" and the like, once open; NULL before. */
const char *onednn_describe(void);

#endif
