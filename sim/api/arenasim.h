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
 * Loading and planning may run in several threads at once, each handle used by one thread at a time (nothing
 * of a plan's is kept in globals); runs go one at a time in a process, whose thread pool the kernels share.
 * Strings the library returns are freed with arenasim_free; strings inside a plan live as long as the plan. */
#ifndef ARENASIM_H
#define ARENASIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API's version: a change that breaks a caller raises it, and the library's soname with it. Options structs
 * grow without breaking callers: each starts with its size, which its _init function sets to the size the caller
 * was compiled with; the library reads the fields within that size and gives the later ones their defaults.
 * Fields are only ever added at the end. */
#define ARENASIM_API_VERSION 2

typedef struct arenasim_model arenasim_model;
typedef struct arenasim_plan arenasim_plan;

/* Planning options, one field per planning flag of the `sim` command (named in each comment); NULL or 0 gives
 * the command's default. */
typedef struct {
    size_t size;               /* sizeof(arenasim_options), set by arenasim_options_init */
    const char *strategy;      /* --strategy: a placement strategy (arenasim_names(ARENASIM_STRATEGIES)); "best" */
    const char *order;         /* --order: the operator order; "best" (the order and sharing set whose plan is
                                  smallest), but "file" (the model's own) with tiers, a range or entry points;
                                  "optimal" without those: the exact order, unless a heuristic one plans smaller */
    const char *alias;         /* --alias: which tensors may share bytes: "all", "none" or a comma list; "all" */
    const char *fuse;          /* --fuse: "ort" plans the graph ONNX Runtime runs after its fusions
                                  ("ort-disabled", "ort-transformers"); "none" */
    const char *const *dims;   /* --dim: "NAME=VALUE" bindings of symbolic dimensions, NULL-terminated, or NULL */
    uint64_t budget_work;      /* --budget-work: search nodes the time-bounded strategies may spend (the same plan
                                  on any machine); 0: 20,000 for "best" when no seconds are given */
    double budget_seconds;     /* --budget: seconds they may spend instead; 0: the default (10) */
    uint64_t align;            /* --align: every buffer's offset alignment, a power of two; 64 */
    int verify;                /* nonzero: check that no two buffers live at once overlap (the default); zero is
                                  --no-verify */
    int run;                   /* --run: a plan to run (arenasim_plan_run): a Transpose is planned as a copy, as
                                  `sim --run` plans it (a dense kernel cannot read a transposed view) */
    const char *const *bounds; /* --bound: "NAME=MAX", NULL-terminated: the most a data-dependent dimension may be */
    const char *const *pins;   /* --pin: "NAME=OFFSET", NULL-terminated: tensors pre-allocated at offsets */
    const char *bins;          /* --bins: a bins file (memory bins by name or size), or NULL */
    const char *inputs;        /* --inputs: a model-zoo data set whose inputs bind dims and feed runs, or NULL */
    const char *weights;       /* --weights: "arena" or "outside" (the default) */
    const char *io;            /* --io: "arena" (the default), "outside" or "inputs-outside" */
    const char *transpose;     /* --transpose: "view" or "move" (the default: move when planned to run) */
    uint64_t pad_last;         /* --pad-last: the last dimension padded to a multiple; 1 */
    int strict_runtime;        /* --strict-runtime: a runtime op that cannot share is an error, not a copy */
    int scratch;               /* --scratch: the ops' single-step kernel workspace in the trace */
    int allow_unknown_ops;     /* --allow-unknown-ops: ops sim does not know planned from the file's value_info */
    uint64_t order_budget;     /* --order-budget: states the exact order may visit; 0: its default */
    double order_seconds;      /* --order-seconds: seconds it may spend; 0: its default */
    int64_t seed;              /* --seed: the randomised strategies' seed, 0 to 2^32-1; -1: the default */
    int64_t search_max;        /* --search-max: the search's largest problem, 0 to 2^32-1; -1: the default */
    const char *search_engines; /* --search-engines: "skyline", "sections", "guided" or "both" (the default) */
    int range_check;           /* --range-check: arenasim_range_file also loads and places every point on its own */
    int range_every;           /* --range-every: arenasim_range_file loads every point (none sized between) */
    int range_one_plan;        /* --range-one-plan: one plan moved to every point (its JSON report's "one_plan") */
    uint64_t kv_capacity;      /* --kv-capacity: each KV cache pair one buffer of this many tokens, live for the
                                  whole step; 0: none */
    const char *const *kv;     /* --kv: "PAST=PRESENT" cache pairs (one '*' each standing for the same text),
                                  NULL-terminated; NULL: every Concat of a graph input making a graph output */
    const char *tiers;         /* --tiers: memory tiers, fastest first, "NAME[=CAPACITY][:READ[/WRITE]],..." (e.g.
                                  "sram=256KiB,dram"): each buffer's tier is the plan's choice (strategy "tiered"
                                  when none is named); NULL: one arena */
    const char *pool;          /* --pool: with a structured problem (FILE.json), the pool (name or id) whose
                                  capacity-free projection arenasim_model_load reads as a trace; NULL: none (the
                                  problem itself is arenasim_structured_plan's) */
    uint64_t order_work;       /* --order-work: the default order's (best's) budget, plans made times the graph's
                                  nodes; 0: 1,000,000 */
} arenasim_options;

/* The defaults, as `sim` has them. */
void arenasim_options_init(arenasim_options *o);

/* Plans a file: a path ending in ".onnx" is a model (its shapes inferred), any other a trace (arenasim's
 * text format or MiniMalloc's CSV). NULL with *error set (a message naming the file and what is wrong)
 * when it cannot. The same as arenasim_model_load, arenasim_model_plan and arenasim_model_free. */
arenasim_plan *arenasim_plan_file(const char *path, const arenasim_options *o, char **error);
void arenasim_plan_free(arenasim_plan *p);

/* A model or trace loaded once and planned many times. A model's dims, bounds, inputs and fusions are fixed
 * when it loads; every plan takes its own strategy, budgets and verify, and its own order, sharing and layout
 * (the graph is traced again only when those differ from an earlier plan's). A plan keeps what it needs of
 * the model: free them in any order. */
arenasim_model *arenasim_model_load(const char *path, const arenasim_options *o, char **error);
arenasim_plan *arenasim_model_plan(arenasim_model *m, const arenasim_options *o, char **error);
void arenasim_model_free(arenasim_model *m);

/* A trace built in memory: buffers added one by one (each live from step first to step last, inclusive; align
 * 0: none), then planned with arenasim_model_plan (after which no buffer can be added). 0, or -1 with *error. */
arenasim_model *arenasim_trace_new(void);
int arenasim_trace_add(arenasim_model *t, const char *name, uint64_t size, uint32_t first, uint32_t last,
                       uint64_t align, char **error);

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

/* A tiered plan's tiers (options.tiers): each tier's arena and the bytes its buffers move; a buffer's bin is its
 * tier. */
typedef struct {
    const char *name;     /* lives as long as the plan */
    uint64_t capacity;    /* bytes; UINT64_MAX: none */
    uint64_t arena;       /* the tier's arena: its highest end, rounded up to its largest alignment */
    uint64_t buffers, reads, writes; /* its buffers, and the bytes they are read and written */
    double cost;          /* reads and writes times the tier's costs */
} arenasim_tier;

/* Tiers of the plan (0: an untiered plan); tier k into *out (0, or -1 when k is out of range). */
size_t arenasim_plan_tier_count(const arenasim_plan *p);
int arenasim_plan_tier(const arenasim_plan *p, size_t k, arenasim_tier *out);
/* The plan's cost of bytes moved over all tiers, and a cost no plan of its trace goes below (0 without tiers). */
double arenasim_plan_tier_cost(const arenasim_plan *p);
double arenasim_plan_tier_bound(const arenasim_plan *p);

size_t arenasim_plan_buffer_count(const arenasim_plan *p);
/* Buffer k (0 <= k < arenasim_plan_buffer_count) into *out; 0, or -1 when k is out of range. */
int arenasim_plan_buffer(const arenasim_plan *p, size_t k, arenasim_buffer *out);

/* Checks the plan again: 0, or -1 with *error naming the two buffers that overlap. */
int arenasim_plan_verify(const arenasim_plan *p, char **error);

/* Run options, one field per run flag of the `sim` command; NULL or 0 gives the command's default. */
typedef struct {
    size_t size;              /* sizeof(arenasim_run_options), set by arenasim_run_options_init */
    unsigned repeat;          /* --repeat: runs to take the median of; 1 */
    unsigned threads;         /* --threads: the kernels' threads; 1 */
    const char *kernels;      /* --kernels: "onednn" (the default) or "own" */
    const char *layouts;      /* --layouts: "blocked" (the default) or "plain" */
    const char *winograd;     /* --winograd: "auto" (the default) or "off" */
    const char *skinny;       /* --skinny: "auto" (the default) or "off" */
    int check;                /* --check: every output equal bit for bit to a run with nothing shared */
    int poison;               /* --poison: free bytes poisoned at every step */
    const char *expect;       /* --expect: a model-zoo folder of the outputs expected, or NULL */
    const char *dump_outputs; /* --dump-outputs: a folder to write the outputs to (new files only), or NULL */
    double rtol, atol;        /* --rtol, --atol: --expect's tolerance; negative: the default (1e-3, 1e-5) */
    int allow_degenerate;     /* --allow-degenerate: a check passes outputs it cannot tell from a right answer */
} arenasim_run_options;

void arenasim_run_options_init(arenasim_run_options *o);

/* What a run measured. */
typedef struct {
    size_t size;              /* set by the caller: sizeof(arenasim_run_result) */
    double median_seconds;    /* a whole run's median */
    uint64_t arena_bytes;     /* the arena it ran in */
    uint64_t checked_elements; /* with check: the output elements compared with the reference */
    double max_abs_error, max_rel_error; /* with expect: the largest errors over every element */
} arenasim_run_result;

/* Runs the model's kernels inside the planned arena (a model planned with options.run; weights the file lacks are
 * drawn at random, inputs from options.inputs or filled as `sim --run` fills them), as `sim --run` with these
 * flags runs and checks it: one check policy (a check never passes outputs that are NaN or one value everywhere,
 * or all empty, unless allowed). result may be NULL. 0, or -1 with *error saying why. */
int arenasim_plan_run_with(const arenasim_plan *p, const arenasim_run_options *o, arenasim_run_result *result,
                           char **error);
/* arenasim_plan_run_with with the defaults and, when check is nonzero, --check --poison. */
int arenasim_plan_run(const arenasim_plan *p, int check, char **error);

/* The plan's report row as `sim --format json` prints it (a JSON array of one object). */
char *arenasim_plan_report_json(const arenasim_plan *p);

/* A model planned over ranges of its dims (`sim --dim NAME=LO:HI`): options.dims holds at least one "NAME=LO:HI" or
 * "NAME=LO:HI:STEP" (up to four; the others "NAME=VALUE"). The arena and the lower bound at every point of the grid,
 * as exact functions of the dims, the same bytes as the command's report. NULL with *error set when it cannot. */
typedef struct arenasim_range arenasim_range;
arenasim_range *arenasim_range_file(const char *path, const arenasim_options *o, char **error);
void arenasim_range_free(arenasim_range *r);
/* The dims planned over a range, in the order given. */
size_t arenasim_range_dim_count(const arenasim_range *r);
const char *arenasim_range_dim_name(const arenasim_range *r, size_t k);
/* The arena and the lower bound at a point (values: one per range dim, in order): 0, or -1 when it is not a point of
 * the grid. */
int arenasim_range_arena_at(const arenasim_range *r, const int64_t *values, uint64_t *out);
int arenasim_range_lower_bound_at(const arenasim_range *r, const int64_t *values, uint64_t *out);
/* The report as `sim --dim NAME=LO:HI --format json` prints it: the pieces of both functions, the range plans, the
 * counts and the check. */
char *arenasim_range_report_json(const arenasim_range *r);

/* Models planned as entry points in one arena (`sim --graph A --graph B`): a prefill and a decode step, their KV
 * caches (options.kv_capacity) one buffer each for all of them, each model's other buffers in its own steps.
 * paths: 2 to 16, NULL-terminated, each named by its file's name without ".onnx"; options.dims may bind one entry's
 * dim as "ENTRY:NAME=VALUE". NULL with *error set when it cannot. */
typedef struct arenasim_entries arenasim_entries;
arenasim_entries *arenasim_entries_plan(const char *const *paths, const arenasim_options *o, char **error);
void arenasim_entries_free(arenasim_entries *e);
/* The one arena, its lower bound and the state's bytes (the caches, each at its largest size). */
uint64_t arenasim_entries_arena_bytes(const arenasim_entries *e);
uint64_t arenasim_entries_lower_bound_bytes(const arenasim_entries *e);
uint64_t arenasim_entries_state_bytes(const arenasim_entries *e);
/* The report as `sim --graph A --graph B --format json` prints it. */
char *arenasim_entries_report_json(const arenasim_entries *e);

/* A greedy generation run inside one plan (`sim --graph PREFILL --graph DECODE --kv-capacity C --generate N --inputs
 * DIR`): the prefill over the prompt (options.inputs, a model-zoo folder), then decode steps of one token each until
 * `tokens` are made, the caches (options.kv_capacity) kept in the arena from step to step. run (or NULL) gives the
 * kernels' choices, poison and `expect` (a folder whose output_0.pb holds the tokens expected). NULL with *error
 * set when it cannot run; tokens that differ from the expected ones are no error (arenasim_generation_matched). */
typedef struct arenasim_generation arenasim_generation;
arenasim_generation *arenasim_generate(const char *prefill, const char *decode, uint32_t tokens,
                                       const arenasim_options *o, const arenasim_run_options *run, char **error);
void arenasim_generation_free(arenasim_generation *g);
/* The tokens made, and how many of them, from the first, equal the expected ones. */
size_t arenasim_generation_token_count(const arenasim_generation *g);
int64_t arenasim_generation_token(const arenasim_generation *g, size_t k);
uint32_t arenasim_generation_matched(const arenasim_generation *g);
/* The one arena the generation ran in. */
uint64_t arenasim_generation_arena_bytes(const arenasim_generation *g);
/* The report as `sim ... --generate N --format json` prints it (the plan, the prompt, the tokens, the check). */
char *arenasim_generation_report_json(const arenasim_generation *g);

/* A structured placement problem (dsa-solver's schema-v1, FILE.json: pools with capacities, separations, reuse
 * penalties, ...; docs/structured.md) placed by o->strategy (arenasim_names(ARENASIM_STRUCTURED_STRATEGIES);
 * "search" when NULL) within o->budget_work of search work (0: 2,000,000) — or, with `solution`, that solution
 * envelope checked instead — and validated against every rule of the problem. NULL with *error set. */
typedef struct arenasim_structured arenasim_structured;
arenasim_structured *arenasim_structured_plan(const char *path, const arenasim_options *o, const char *solution,
                                              char **error);
void arenasim_structured_free(arenasim_structured *s);
/* An objective term by its schema-v1 name (capacity_overflow, total_peak, max_peak, reuse_cost); UINT64_MAX for
 * another name. */
uint64_t arenasim_structured_term(const arenasim_structured *s, const char *term);
/* 1 when every pool is within its capacity; 1 when the search proved the placement optimal. */
int arenasim_structured_fits(const arenasim_structured *s);
int arenasim_structured_proven(const arenasim_structured *s);
uint64_t arenasim_structured_work(const arenasim_structured *s);
/* The problem's fingerprint (16 hex digits), as its solution envelope carries it; lives as long as the handle. */
const char *arenasim_structured_fingerprint(const arenasim_structured *s);
/* Buffer k's id (the file's), pool id and offset; 0, or -1 past the last. */
size_t arenasim_structured_buffer_count(const arenasim_structured *s);
int arenasim_structured_buffer(const arenasim_structured *s, size_t k, uint32_t *id, uint32_t *pool,
                               uint64_t *offset);
/* Writes the placement as a solution envelope (a placement over capacity is refused). 0, or -1 with *error. */
int arenasim_structured_write_solution(const arenasim_structured *s, const char *path, char **error);

typedef enum { ARENASIM_STRATEGIES, ARENASIM_ORDERS, ARENASIM_ALIASES, ARENASIM_STRUCTURED_STRATEGIES } arenasim_list;
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
