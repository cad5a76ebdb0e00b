/* testutil.h — shared helpers for the g_test programs: running shape inference on a built model,
 * describing a tensor's inferred type, running the sim and mkgraph binaries, scratch files. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include "graphs/builder.h"
#include "memory/alias.h"
#include "memory/pipeline.h"
#include "model/onnx.h"
#include "plan/plan.h"
#include "strategies/registry.h"
#include "ops/shape.h"

/* Shape inference with optional "NAME=VALUE" bindings (NULL-terminated). */
gboolean test_infer(Model *m, const char *const *dims, GError **error);
/* "FLOAT[1,3,224,224]" for an inferred tensor; "?" when unknown or absent. Newly allocated. */
char *test_type_of(const Model *m, const char *tensor);
/* Assert shorthand: the inferred type of `tensor` equals `expect`. */
#define assert_type(m, tensor, expect)                                                                      \
    do {                                                                                                   \
        char *got_ = test_type_of((m), (tensor));                                                          \
        g_assert_cmpstr(got_, ==, (expect));                                                               \
        g_free(got_);                                                                                      \
    } while (0)

/* Placement options for tests: search and climb bounded by counters (nodes, steps), not by time, so
 * every result is the same on any machine. */
extern const PlaceOptions test_place_options;

/* A scratch sym.onnx: input 'ids' FLOAT [batch,seq] through one Relu, both dims symbolic. Its path,
 * newly allocated. */
char *test_write_symbolic_graph(void);

/* The trace with no aliasing (the pipeline call with no alias strategy). */
Trace *trace_from_graph(const Graph *g, const GPtrArray *schedule, const LayoutOptions *o, GError **error);

/* The alias map and trace of a graph in its file order through the one pipeline call, with the alias
 * strategies `alias` names ("all", "none", a comma list); NULL on failure. */
AliasMap *test_alias_trace(const Graph *g, const LayoutOptions *layout, const char *alias, Trace **trace, GError **error);

/* Builds, finalizes and infers; returns the error message (or NULL on success). Newly allocated. */
char *test_finish_error(Builder *b, const char *const *dims);

typedef struct {
    int status; /* exit status */
    char *out;
    char *err;
} RunResult;
/* Runs a test binary (SIM_BIN / MKGRAPH_BIN environment variables) with the given arguments. */
RunResult test_run(const char *binary_env, const char *const *args);
void run_result_clear(RunResult *r);

/* A fresh scratch folder for this test program (removed at exit) and a path inside it. */
char *test_scratch_path(const char *name);
/* A whole file's contents (the test fails when it cannot be read). Newly allocated. */
char *test_read_file(const char *path);
/* Its number of lines ('\n' bytes). */
guint test_count_lines(const char *path);
/* A path in the repository (SIM_SOURCE_DIR). Newly allocated. */
char *test_source_path(const char *name);
/* Fails the test, showing both, unless haystack holds needle. */
void assert_contains(const char *haystack, const char *needle);
/* Whether this CPU has what oneDNN's Winograd convolutions need (its avx512_core: AVX-512 F, BW, VL and DQ). */
gboolean test_cpu_has_avx512_core(void);
/* Writes bytes to a scratch file; returns its path. */
char *test_write_scratch(const char *name, const void *data, gsize len);
/* The model written as ONNX to a new scratch file (test_scratch_path), and freed; the path (g_free it). */
char *test_write_model(Model *m, const char *name);

/* A decoder's step of one layer with a KV cache (sim/memory/kv.h), shapes inferred: past_key_values.0.key
 * [1,3,past,4] and the new slice Relu(x) (x [1,3,1,4]) joined along axis 2 into present.0.key (a graph output),
 * read through a Transpose by a MatMul (the scores, a graph output); `reshape` adds a Reshape of the present read
 * by a ReduceSum (a graph output too). past < 0: the cache length is the symbolic dim "past_seq" (3 for the
 * shapes). */
Model *test_decode_step(gint64 past, gboolean reshape);
/* Its prefill, shapes inferred: x [1,3,3,4] through a Relu into present.0.key (a graph output, three tokens),
 * summed into a scalar output. */
Model *test_prefill_step(void);

/* The committed graphs (graphs/NAME.onnx) the tests' sweeps walk, NULL-terminated: the one list. */
extern const char *const test_corpus_graphs[];
/* graphs/NAME.onnx under SIM_SOURCE_DIR (g_free it). */
char *test_corpus_graph_path(const char *name);
/* A sweep's case, named (g_test_add_data_func: PATH is the sweep's path, then the case's own parts, e.g.
 * "/exec/graphs-check/gpt2/firstfit/all"), its data a string freed with the test. A sweep is sampled where
 * ARENASIM_TEST_SAMPLE=N is set (the sanitizer pass: every Nth case of all the sweeps' cases of the program,
 * in registration order); the native pass runs every case. Returns whether the case was added. */
gboolean test_add_case(const char *path, const char *data, GTestDataFunc fn);
/* Whether item k of a loop inside one test runs under the same sampling (every Nth, or all). */
gboolean test_sampled(guint k);
/* The same with the count read from another variable (unset: every case). */
gboolean test_sampled_by(const char *variable, guint k);

#endif
