/* zoo.h — tensors in the ONNX model zoo's test-data layout: a folder (test_data_set_0/, or the folder
 * holding it) of input_K.pb and output_K.pb files, one TensorProto each, K counting the graph's inputs (those
 * that are not initializers) and outputs in order. torch's own outputs saved this way are the oracle a run
 * is checked against (--inputs, --expect, --dump-outputs). */
#ifndef SIM_DRIVER_ZOO_H
#define SIM_DRIVER_ZOO_H

#include "exec/exec.h"
#include "ops/shape.h"

/* The data set's input_K.pb for every graph input that is not an initializer (TensorData*, in that order). */
GPtrArray *zoo_read_inputs(const Model *m, const char *dir, GError **error);
/* Binds each symbolic dimension of the graph inputs from the data (a --dim given wins; two inputs that
 * disagree on one name are an error), appending "NAME=VALUE" for each it binds to `bound` (comma-separated, for
 * the report's dims). Call before shape inference. */
gboolean zoo_bind_dims(const Model *m, const GPtrArray *inputs, ShapeOptions *shape, GString *bound, GError **error);
/* The data set's output_K.pb (K = k), as a tensor: what a run that is no one graph's (a generation's tokens) is
 * checked against. NULL with *error naming the file. */
TensorData *zoo_read_output(const char *dir, guint k, GError **error);
/* Gives the data to the executor's graph inputs. */
gboolean zoo_set_inputs(Executor *e, const Model *m, const GPtrArray *inputs, GError **error);
/* How far a run's outputs were from the expected ones, over every element of every output. */
typedef struct {
    double worst;      /* the largest |a - b| / (atol + rtol |b|): 1 is the edge of the tolerance */
    double max_abs;    /* the largest |a - b| */
    double max_rel;    /* the largest |a - b| / |b| over b != 0 */
    double need_atol;  /* the smallest atol that passes at the given rtol (0 when any does) */
    double need_rtol;  /* the smallest rtol that passes at the given atol (inf: none, an expected 0 is off by more
                          than atol) */
} ZooExpect;
/* output_K.pb for every graph output, compared with the run's: the same element type and dims, then floats
 * within |a - b| <= atol + rtol |b| (NaN equals NaN, as numpy's allclose with equal_nan), integers exactly. The
 * figures cover every element; a failure names the first element beyond the tolerance, how far off the output
 * was and the tolerances that would pass. */
gboolean zoo_expect_outputs(const Executor *e, const char *dir, double rtol, double atol, ZooExpect *stats,
                            GError **error);
/* The run's outputs as output_K.pb in dir (made when missing). */
gboolean zoo_write_outputs(const Executor *e, const char *dir, GError **error);

#endif
