/* job.h — one `sim` invocation, resolved: what to do, every name looked up in the registry and every
 * default filled in once (options.c, before any file is read), then the state the pipeline builds as it
 * goes (pipeline.c). Nothing below the command line sees this struct. */
#ifndef SIM_CLI_JOB_H
#define SIM_CLI_JOB_H

#include "driver/run.h"
#include "exec/exec.h"
#include "fuse/fuse.h"
#include "memory/alias.h"
#include "memory/kv.h"
#include "memory/training.h"
#include "memory/order.h"
#include "ops/shape.h"
#include "plan/plan.h"
#include "report/plot-kinds.h"
#include "report/report.h"
#include "report/report-range.h"
#include "structured/structured-strategy.h"

typedef enum {
    JOB_VERSION,    /* --version */
    JOB_LIST_OPS,   /* --list-ops */
    JOB_LIST,       /* --list */
    JOB_TABLE_PLOT, /* --from TABLE --plot compare|sweep */
    JOB_INFO,       /* --graph --info */
    JOB_PLAN,       /* one strategy's plan (the default) */
    JOB_COMPARE,    /* --compare: every strategy */
    JOB_ORDERS,     /* --compare --orders: one strategy under each order */
    JOB_RANGE,      /* --dim NAME=LO:HI: every point of a range of dims planned, its functions reported */
    JOB_ENTRIES,    /* several --graph: entry points planned in one arena (driver/entries.h) */
    JOB_GENERATE,   /* --generate N: a greedy generation run inside one plan (driver/generate.h) */
    JOB_STRUCTURED, /* --trace FILE.json: a structured problem placed or a solution checked (driver-structured.h) */
} JobKind;

typedef struct {
    JobKind kind;
    /* inputs */
    char *graph_path, *trace_path, *bins_path, *table_path;
    const char *source;         /* graph_path or trace_path: what errors and reports name */
    ShapeOptions shape;         /* --dim bindings, --allow-unknown-ops */
    char *dims_text;            /* "seq=128,batch=1" or "-": the dims bound to one value */
    GArray *ranges;             /* ReportRangeDim: the dims planned over a range (--dim NAME=LO:HI[:STEP]) */
    gboolean range_check;       /* --range-check: every point of the range also loaded and placed on its own */
    gboolean range_every;       /* --range-every: every point loaded, none sized between loaded points */
    gboolean range_one_plan;    /* --range-one-plan: one plan moved to every point */
    guint generate;             /* JOB_GENERATE: the tokens to make */
    char **entry_paths;         /* JOB_ENTRIES: the models (NULL-terminated) */
    char **entry_names;         /* ... their names (entries_name), NULL-terminated */
    ShapeOptions *entry_shapes; /* ... and their dims (--dim ENTRY:NAME=VALUE and the shared ones), one each */
    char *unknown_ops;          /* ops planned from value_info, "GridSample (2), Foo (1)", or NULL */
    /* choices, resolved */
    const StructuredStrategy *structured; /* JOB_STRUCTURED: its strategy and options */
    StructuredOptions structured_options;
    char *check_solution;       /* JOB_STRUCTURED: a solution envelope to check instead of placing */
    gboolean structured_compare; /* JOB_STRUCTURED: every structured strategy, one table (--compare) */
    char *structured_pool;      /* --pool: the pool of a structured problem planned as an ordinary trace */
    const PlaceStrategy *strategy;
    gboolean strategy_named;    /* --strategy given (else a tiered trace file's plan takes the tiered default) */
    GArray *tiers;              /* --tiers: TraceTier (trace/trace-tiers.h), or NULL */
    const OrderStrategy *order;
    gboolean order_named;       /* --order given (else a file out of topological order is ordered topologically) */
    gboolean order_fell_back;   /* ... and this one was: the report says so */
    GPtrArray *orders;          /* JOB_ORDERS: OrderStrategy*, in the order given */
    char *alias;                /* the --alias list ("all" when not given; "none" for a trace in reports) */
    gboolean alias_named;       /* --alias was given (--order best keeps it; else it may keep another set) */
    char *fuse;                 /* --fuse: "ort" or "none" (the default) */
    FuseReport fused;           /* what --fuse did */
    LayoutOptions layout;
    GHashTable *pins;           /* tensor name -> offset text */
    gboolean strict_runtime, scratch, verify;
    KvRequest kv;               /* --kv-capacity and --kv (capacity 0: no cache planned) */
    char **kv_patterns;         /* --kv PAST=PRESENT (kv.patterns points here) */
    PlaceOptions place;
    guint64 order_budget_states; /* 0: order.c's default */
    guint64 order_work;         /* the default order's budget (driver_best_order); 0: its default */
    double order_seconds;        /* 0: order.c's default */
    /* outputs */
    ReportFormat format;
    gboolean map, ascii, wide, verbose;
    gboolean plot;               /* --plot given */
    const PlotKindRow *plot_kind;
    char *plot_out, *plot_x, *plot_y, *plot_title;
    char **plot_where;           /* --where COLUMN=VALUE filters of a table plot */
    LayoutWindow layout_window;  /* --steps, --addresses of --plot layout (zero: all of it) */
    char *plot_facet;            /* --facet COLUMN: a panel per value */
    char *chrome_trace, *trace_out, *solution_out, *phases_path;
    char *html_out;              /* --html: the plans as an HTML page (report/html-view.h) */
    gboolean run;
    RunOptions run_options;      /* --run's choices (driver/run.h); its paths and inputs point at the job's below */
    char *profile_path;
    char *inputs_dir, *expect_dir, *dump_dir; /* --inputs, --expect, --dump-outputs (driver/zoo.h) */
    GPtrArray *inputs;           /* TensorData* read from inputs_dir (zoo_read_inputs), or NULL */
    /* state the pipeline builds */
    Model *model;                /* the loaded graph (NULL for a trace file) */
    OrderProblem *order_problem;
    gboolean order_best;        /* --order best, or no --order on one model's plan: the order whose plan is smallest,
                                   chosen by the driver (with --order optimal, from it and the heuristic orders) */
    gboolean order_exact;       /* ... an exhaustive order (--order optimal) was named and is a candidate */
    GString *order_said;        /* ... and what each order gave (for the report), or NULL */
    guint order_made, order_skipped; /* ... the candidates made, and those its work budget left out */
    GPtrArray *schedule;         /* the order the trace was made in (the alias map points to it) */
    AliasMap *aliases;           /* what sharing the graph's trace has (NULL for a trace file) */
    TrainingRoles *training;     /* a training step's roles (memory/training.h), or NULL */
    guint64 no_alias_bytes;
} Job;

/* Parses the command line into *job. Returns -1 to go on, or the exit status to end with (0 after --help
 * output, 2 after a usage error, which it has printed). */
int job_from_args(Job *job, int argc, char **argv);
void job_clear(Job *job);

/* The pipeline (pipeline.c): the job's kind, run to its end; the exit status. */
int job_run(Job *job);

/* Errors a user can cause: `sim: MESSAGE (see sim --help)`, exit 2; `sim: FILE: what`, exit 1. */
/* One error line on stderr, 'sim: PATH: MESSAGESUFFIX' (no PATH when NULL), escaped for the terminal. */
void cli_error_line(const char *path, const char *message, const char *suffix);
int cli_usage_error(const char *message);
int cli_file_error(const char *path, const GError *error);

#endif
