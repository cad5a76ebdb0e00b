/* arenasim.h — arenasim as a library: how big must the activation arena of a model be, and where does each
 * buffer go? Load an ONNX model (binding its symbolic dimensions) or a trace, plan it with a placement
 * strategy, read the plan, check it. The same pipeline and the same bytes as the `sim` command.
 *
 *   arenasim_options o;
 *   arenasim_options_init(&o);
 *   o.strategy = "greedy-size";
 *   char *error = NULL;
 *   arenasim_plan *p = arenasim_plan_file("gpt2.onnx", &o, &error);
 *   if (!p) { fprintf(stderr, "%s\n", error); arenasim_free(error); return 1; }
 *   printf("%llu\n", (unsigned long long)arenasim_plan_arena_bytes(p));
 *   arenasim_plan_free(p);
 *
 * Build with `pkg-config --cflags --libs arenasim`. Errors are messages (never an exit, never a print).
 * Call it from one thread at a time (any thread). Strings the library returns are freed with
 * arenasim_free; strings inside a plan live as long as the plan. */
#ifndef ARENASIM_H
#define ARENASIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API's version: a change that breaks a caller raises it, and the library's soname with it. */
#define ARENASIM_API_VERSION 1

typedef struct arenasim_plan arenasim_plan;

typedef struct {
    const char *strategy;    /* placement strategy (arenasim_names(ARENASIM_STRATEGIES)); NULL: "best" */
    const char *order;       /* operator order; NULL: "file" (the model's own) */
    const char *alias;       /* which tensors may share bytes: "all", "none" or a comma list; NULL: "all" */
    const char *fuse;        /* "ort": plan the graph ONNX Runtime runs after its fusions ("ort-disabled",
                                "ort-transformers": sim --fuse); NULL: "none" */
    const char *const *dims; /* "NAME=VALUE" bindings of symbolic dimensions, NULL-terminated; or NULL */
    uint64_t budget_work;    /* search nodes the time-bounded strategies may spend (the same plan on any
                                machine); 0: the default, 20,000 for "best" when no seconds are given */
    double budget_seconds;   /* seconds they may spend instead; 0: the default (10) */
    uint64_t align;          /* every buffer's offset alignment, a power of two; 0: 64 */
    int verify;              /* nonzero: check that no two buffers live at once overlap (the default) */
    int run;                 /* nonzero: a plan to run (arenasim_plan_run): a Transpose is planned as a copy, as
                                `sim --run` plans it (a dense kernel cannot read a transposed view) */
} arenasim_options;

/* The defaults, as `sim` has them. */
void arenasim_options_init(arenasim_options *o);

/* Plans a file: a path ending in ".onnx" is a model (its shapes inferred), any other a trace (arenasim's
 * text format or MiniMalloc's CSV). NULL with *error set (a message naming the file and what is wrong)
 * when it cannot. */
arenasim_plan *arenasim_plan_file(const char *path, const arenasim_options *o, char **error);
void arenasim_plan_free(arenasim_plan *p);

/* The arena: the highest end of any buffer, rounded up to the largest alignment. */
uint64_t arenasim_plan_arena_bytes(const arenasim_plan *p);
/* The most bytes live at one step: no plan needs less. */
uint64_t arenasim_plan_lower_bound_bytes(const arenasim_plan *p);
/* The arena with no reuse at all (every buffer its own bytes). */
uint64_t arenasim_plan_naive_bytes(const arenasim_plan *p);
/* The strategy that made the plan, and its note (e.g. which heuristic "best" kept). */
const char *arenasim_plan_strategy(const arenasim_plan *p);
const char *arenasim_plan_detail(const arenasim_plan *p);
/* Steps of the schedule (a model's operators in order, or a trace's time points). */
uint32_t arenasim_plan_steps(const arenasim_plan *p);

typedef struct {
    const char *name;     /* the tensor (or the trace's buffer name); lives as long as the plan */
    uint64_t offset;      /* bytes from the arena's start */
    uint64_t size;        /* bytes, padding included */
    uint32_t first, last; /* live from step first to step last, inclusive */
    uint32_t bin;         /* memory bin (each bin its own arena; 0 without bins) */
} arenasim_buffer;

size_t arenasim_plan_buffer_count(const arenasim_plan *p);
/* Buffer k (0 <= k < arenasim_plan_buffer_count) into *out; 0, or -1 when k is out of range. */
int arenasim_plan_buffer(const arenasim_plan *p, size_t k, arenasim_buffer *out);

/* Checks the plan again: 0, or -1 with *error naming the two buffers that overlap. */
int arenasim_plan_verify(const arenasim_plan *p, char **error);

/* Runs the model's kernels inside the planned arena (a model planned with options.run; weights the file
 * lacks are drawn at random, inputs as `sim --run` fills them) and, with `check`, checks it as `sim --run
 * --check --poison` does: free bytes poisoned, every output equal byte for byte to a run with nothing
 * shared, and no output degenerate (NaN or one value everywhere). 0, or -1 with *error saying why. */
int arenasim_plan_run(const arenasim_plan *p, int check, char **error);

/* The plan's report row as `sim --format json` prints it (a JSON array of one object). */
char *arenasim_plan_report_json(const arenasim_plan *p);

typedef enum { ARENASIM_STRATEGIES, ARENASIM_ORDERS, ARENASIM_ALIASES } arenasim_list;
/* The names of a list, NULL-terminated, in the registry's order; static. */
const char *const *arenasim_names(arenasim_list which);

/* The library's version, e.g. "0.3". */
const char *arenasim_version(void);
/* Frees a string the library returned. */
void arenasim_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
