/* blas.h — OpenBLAS, opened when the executor first needs it rather than linked into the program.
 * Linked, OpenBLAS starts its thread pool while the program loads, before main: a worker per core, each
 * spinning on sched_yield for its timeout (about 0.1 s) before it sleeps — in every sim, planning-only runs
 * and the test suite's hundreds of runs included, a second core taken for up to 0.1 s a process (perf put
 * a 100k-buffer planning run's second thread at a fifth of its samples). OpenBLAS reads
 * OPENBLAS_NUM_THREADS only as it loads, so sim sets it to the count the run asks for (--threads, default
 * 1) and then opens the library: one thread means no pool at all. */
#ifndef SIM_EXEC_BLAS_H
#define SIM_EXEC_BLAS_H

#include <cblas.h>
#include <glib.h>

/* The entry points the kernels call, with the prototypes cblas.h gives them. */
typedef struct {
    __typeof__(cblas_sgemm) *sgemm;
    __typeof__(cblas_sgemv) *sgemv;
    __typeof__(cblas_sdot) *sdot;
    __typeof__(openblas_set_num_threads) *set_num_threads;
    __typeof__(openblas_get_num_threads) *get_num_threads;
} BlasCalls;

/* Filled by blas_open; the kernels run only after executor_new has opened it. */
extern BlasCalls blas;

/* Opens OpenBLAS once (with `threads` threads), later calls set the count; returns the count in force, or
 * 0 with an error when the library cannot be loaded. */
guint blas_open(guint threads, GError **error);

#endif
