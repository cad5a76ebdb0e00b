/* builder.h — a small API for writing graphs in C: the synthetic generators (graphs/mkgraph) and the
 * tests build models with it. Errors are sticky: the first one is kept and returned by
 * builder_finish, so a generator can chain calls without checking each. */
#ifndef SIM_BUILDER_H
#define SIM_BUILDER_H

#include "model/graph.h"

typedef struct {
    Model *model;
    Graph *graph;
    int counter;   /* for generated tensor names */
    GError *error; /* first failure */
} Builder;

Builder *builder_new(const char *graph_name, gint64 opset);
/* Graph input of a static shape. Returns the name (owned by the graph). */
const char *builder_input(Builder *b, const char *name, DType dtype, int rank, const gint64 *dims);
/* Graph input with symbolic dims: params[k] non-NULL names dimension k (dims[k] ignored there). */
const char *builder_input_sym(Builder *b, const char *name, DType dtype, int rank, const gint64 *dims,
                        const char *const *params);
/* Marks an existing tensor as graph output (declared type left empty: shapes are inferred). */
void builder_output(Builder *b, const char *name);
/* Weight initializer; with_data fills deterministic pseudo-random values (seeded by the name),
 * otherwise the file carries shape only. */
const char *builder_weight(Builder *b, const char *name, DType dtype, int rank, const gint64 *dims, gboolean with_data);
/* Small INT64 / FLOAT constants as initializers (shape arithmetic inputs, scalars). */
const char *builder_ints(Builder *b, const char *name, int rank, const gint64 *dims, const gint64 *values);
const char *builder_int_vec(Builder *b, const char *name, gsize n, const gint64 *values);
const char *builder_float_scalar(Builder *b, const char *name, float value);
/* A node with n_out outputs named automatically (or from out_names when given); inputs is a
 * NULL-terminated list ("" for an omitted optional input); attrs is a NULL-terminated list of Attr*
 * whose ownership passes to the graph. Returns the first output's name (NULL after an error). */
const char *builder_node(Builder *b, const char *op, const char *const *inputs, int n_out, const char **out_names,
                   ...) G_GNUC_NULL_TERMINATED;
/* The usual one-output case. */
#define B_OP(b, op, ...) builder_node((b), (op), (const char *const[]){__VA_ARGS__, NULL}, 1, NULL, NULL)
#define B_OPA(b, op, attrs_, ...) builder_node((b), (op), (const char *const[]){__VA_ARGS__, NULL}, 1, NULL, attrs_, NULL)

/* Finalizes the graph and returns the model (the builder is freed), or NULL with the first error. */
Model *builder_finish(Builder *b, GError **error);

#endif
