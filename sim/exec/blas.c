/* blas.c — opening OpenBLAS with the thread count set first (see blas.h). */
#include "exec/blas.h"
#include "base/error.h"

#include <dlfcn.h>

#define OPENBLAS_SONAME "libopenblas.so.0"

BlasCalls blas;

static gboolean find(void *lib, const char *name, void **out, GError **error)
{
    if ((*out = dlsym(lib, name)))
        return TRUE;
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "%s has no %s: not OpenBLAS, or too old", OPENBLAS_SONAME,
                name);
    return FALSE;
}

static gboolean load(guint threads, GError **error)
{
    /* OpenBLAS takes its thread count from the environment as it loads; the caller's value comes back after. */
    char *before = g_strdup(g_getenv("OPENBLAS_NUM_THREADS"));
    char *count = g_strdup_printf("%u", threads);
    g_setenv("OPENBLAS_NUM_THREADS", count, TRUE);
    void *lib = dlopen(OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (before)
        g_setenv("OPENBLAS_NUM_THREADS", before, TRUE);
    else
        g_unsetenv("OPENBLAS_NUM_THREADS");
    g_free(count);
    g_free(before);
    if (!lib) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "cannot load OpenBLAS for the kernels: %s (make deps installs it)",
                    dlerror());
        return FALSE;
    }
    BlasCalls calls;
    if (!find(lib, "cblas_sgemm", (void **)&calls.sgemm, error) || !find(lib, "cblas_sgemv", (void **)&calls.sgemv, error) ||
        !find(lib, "cblas_sdot", (void **)&calls.sdot, error) ||
        !find(lib, "openblas_set_num_threads", (void **)&calls.set_num_threads, error) ||
        !find(lib, "openblas_get_num_threads", (void **)&calls.get_num_threads, error)) {
        dlclose(lib);
        return FALSE;
    }
    blas = calls; /* the library stays open for the rest of the process */
    return TRUE;
}

guint blas_open(guint threads, GError **error)
{
    threads = MAX(threads, 1);
    if (!blas.sgemm && !load(threads, error))
        return 0;
    blas.set_num_threads((int)threads);
    return (guint)MAX(blas.get_num_threads(), 1);
}
