/* onednn.c — opening oneDNN at run time (see onednn.h). */
#include "exec/onednn.h"
#include "base/error.h"

#include <dlfcn.h>

#define ONEDNN_SONAME "libdnnl.so.2"

OnednnCalls onednn;
static char *description;

static gboolean load(GError **error)
{
    void *lib = dlopen(ONEDNN_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "cannot load oneDNN: %s (make deps installs it; --kernels own runs without it)",
                    dlerror());
        return FALSE;
    }
    OnednnCalls calls = {0};
#define ONEDNN_FIND(f)                                                                                            \
    if (!(calls.f = (__typeof__(f) *)dlsym(lib, #f))) {                                                           \
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s has no %s: not oneDNN 2, or too old", ONEDNN_SONAME, \
                    #f);                                                                                          \
        dlclose(lib);                                                                                             \
        return FALSE;                                                                                             \
    }
    ONEDNN_CALLS(ONEDNN_FIND)
#undef ONEDNN_FIND
    /* dlsym on the handle searches the libraries oneDNN itself loaded: its OpenMP runtime */
    calls.set_num_threads = (void (*)(int))dlsym(lib, "omp_set_num_threads");
    calls.gomp_parallel = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(lib, "GOMP_parallel");
    calls.thread_num = (int (*)(void))dlsym(lib, "omp_get_thread_num");
    calls.num_threads = (int (*)(void))dlsym(lib, "omp_get_num_threads");
    if (calls.dnnl_engine_create(&calls.engine, dnnl_cpu, 0) != dnnl_success ||
        calls.dnnl_stream_create(&calls.stream, calls.engine, dnnl_stream_default_flags) != dnnl_success) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "oneDNN has no CPU engine here");
        dlclose(lib);
        return FALSE;
    }
    onednn = calls; /* the library stays open for the rest of the process */
    const dnnl_version_t *v = onednn.dnnl_version();
    description = g_strdup_printf("oneDNN %d.%d.%d", v->major, v->minor, v->patch);
    return TRUE;
}

gboolean onednn_open(guint threads, GError **error)
{
    if (!onednn.engine && !load(error))
        return FALSE;
    if (onednn.set_num_threads)
        onednn.set_num_threads((int)MAX(threads, 1));
    onednn.threads = onednn.set_num_threads && onednn.gomp_parallel && onednn.thread_num && onednn.num_threads ? MAX(threads, 1) : 1;
    return TRUE;
}

const char *onednn_describe(void) { return description; }
