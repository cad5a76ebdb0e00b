/* generate.h — a decoder's greedy generation run inside one plan (`sim --graph PREFILL --graph DECODE --kv-capacity
 * C --generate N --inputs PROMPT`): the prefill over the prompt, then decode steps of one token each, every token
 * the argmax of the last logits, until N are made. The plan is the entry points' (entries.h): the prefill and the
 * longest decode step in one arena, the KV caches one buffer each; a shorter step is traced at its own length and
 * its buffers take the longest step's places (the same buffers and lifetimes, none larger: else an error), so one
 * arena serves the whole generation. The caches stay in the arena from step to step: the prefill writes them, each
 * step grows them in place, and no step fills its past inputs (they are the arena's). The tokens are checked against
 * the ones expected (torch's greedy generation, saved in the model zoo's layout), token by token. */
#ifndef SIM_DRIVER_GENERATE_H
#define SIM_DRIVER_GENERATE_H

#include "driver/entries.h"
#include "exec/exec.h"

/* The most tokens one run makes. */
#define GENERATE_MAX_TOKENS 4096u

typedef struct {
    EntrySpec prefill, decode;      /* the decode's dims: its token input's length is 1, the batch the prompt's,
                                       the cache length each step's; the shapes may bind others */
    guint tokens;                   /* tokens to make, 1 to GENERATE_MAX_TOKENS */
    const char *inputs_dir;         /* the prompt: the prefill's inputs in the model zoo's layout (zoo.h) */
    const char *expect_dir;         /* the tokens expected: output_0.pb, int64 [1, tokens] (or more), or NULL */
    const char *fuse;
    const PipelineRecipe *recipe;   /* its kv sizes the caches (a capacity is needed) */
    const char *alias, *bins_path;
    const PlaceStrategy *strategy;
    const PlaceOptions *place;
    ExecOptions exec;
    gboolean poison;                /* dying buffers poisoned after each step (the arena never whole: it holds the
                                       caches) */
} GenerateJob;

typedef struct {
    ReportEntries plan;             /* the prefill and the longest decode step in one arena */
    GArray *prompt;                 /* gint64: the prompt's ids */
    GArray *tokens;                 /* gint64: the tokens made */
    GArray *expected;               /* gint64: those expected (empty without expect_dir) */
    guint matched;                  /* leading tokens equal to the expected */
    char *past_dim;                 /* the decode step's cache length dim */
    double seconds;                 /* the steps' runs, loading and binding aside */
} GenerateResult;

void generate_result_init(GenerateResult *r);
/* The result as its report (report-entries.h), pointing into it. */
ReportGenerate generate_report(const GenerateResult *r);
void generate_result_clear(GenerateResult *r);
/* Plans and runs the generation. FALSE with *error naming the step and file when one fails; a token that differs
 * from the expected one is no error (the result says how many matched). */
gboolean generate_run(const GenerateJob *job, GenerateResult *out, GError **error);

#endif
