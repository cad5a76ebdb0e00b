/* onnx.h — reading and writing ONNX ModelProto files (protobuf-c, schema from Debian's libonnx-dev).
 *
 * The reader turns a file into a finalized Model (graph_finalize has run: names resolved, structure
 * validated); shapes are not inferred here (shape.h). The writer is the inverse: a model written and
 * read back is the same model (tests/test-onnx.c). */
#ifndef SIM_ONNX_H
#define SIM_ONNX_H

#include "model/graph.h"

/* Subgraphs nested deeper than this are refused (hostile files could otherwise exhaust the stack). */
#define ONNX_MAX_SUBGRAPH_DEPTH 32
/* Protobuf messages inside messages: 3 per subgraph level and a margin for the model's own levels. */
#define ONNX_MAX_MESSAGE_DEPTH (3u * ONNX_MAX_SUBGRAPH_DEPTH + 16u)

Model *onnx_read_file(const char *path, GError **error);
/* dir: the folder that external-data locations are relative to (may be NULL). */
Model *onnx_read_bytes(const guint8 *data, gsize len, const char *dir, GError **error);

/* A TensorProto file (the ONNX test data's input_K.pb / output_K.pb), its data copied once out of the mapped file
 * (a typed field only of a type ONNX puts there, each value within the element type). */
TensorData *onnx_read_tensor_file(const char *path, GError **error);
/* The same file's name, element type and dims, without its data (raw NULL), read from the tags alone: what its
 * data will take can be weighed before a byte of it is read. */
TensorData *onnx_read_tensor_header(const char *path, GError **error);

GBytes *onnx_write_bytes(const Model *m);
/* A TensorProto's bytes (as the ONNX test data's output_K.pb holds them). */
GBytes *onnx_write_tensor_bytes(const TensorData *t);
/* A TensorProto file (as the ONNX test data's output_K.pb), written as sim_write_file writes. */
gboolean onnx_write_tensor_file(const TensorData *t, const char *path, GError **error);
gboolean onnx_write_file(const Model *m, const char *path, GError **error);

#endif
