/* alias.h — which tensors share bytes. An alias map sends each tensor to a parent tensor and a byte
 * offset inside it (or to itself: its own buffer); following parents reaches the tensor's *root*, the one
 * buffer the trace gets. Alias strategies (strategies/alias/alias-*.c) fill the map before placement:
 * noop views and in-place reuse (docs/spec.md §1 and
 * §4.1), Gather/Slice/Concat/Split offsets and chained-concat nesting
 * (docs/spec.md §2). A root's buffer spans every member (offset + size) and lives from the
 * first member's birth to the last member's death — the seed's ownership transfer on free. */
#ifndef SIM_ALIAS_H
#define SIM_ALIAS_H

#include "model/graph.h"
#include "memory/liveness.h"

typedef enum {
    SHARE_OWN,     /* its own buffer */
    SHARE_NOOP,    /* Reshape, Transpose (as the seeds classify it), Squeeze, Unsqueeze, Flatten, Identity */
    SHARE_INPLACE, /* an elementwise op writing over a same-size input that dies there */
    SHARE_GATHER,  /* Gather in its data's buffer, sized max(data, output) */
    SHARE_SLICE,   /* a view at start x stride bytes into the input */
    SHARE_SPLIT,   /* consecutive views of the input */
    SHARE_CONCAT,  /* inputs laid out contiguously in the output */
    SHARE_DEDUP,   /* a concat output nested inside an outer concat */
    SHARE_KV,      /* a KV cache's past inside its present, planned at capacity (memory/kv.h) */
    SHARE_KIND_COUNT
} ShareKind;
const char *alias_share_kind_name(ShareKind k);

typedef struct {
    gint parent;     /* tensor id whose bytes this tensor lives in, or -1 */
    guint64 offset;  /* byte offset inside the parent */
    ShareKind kind;  /* why (for the report) */
} AliasLink;

/* A sharing an alias strategy refused: node `node` copies, for `why`. */
typedef struct {
    const Node *node;
    ShareKind kind;
    char *why;
} AliasFallback;

typedef struct {
    const Graph *g;
    const GPtrArray *schedule;
    LayoutOptions layout;
    gboolean strict_runtime; /* a runtime op that cannot alias is an error (the seed's texts), not a copy */
    GHashTable *keep_apart;  /* tensor names that stay in buffers of their own: alias_link never makes one a child
                                (a range's one plan, driver/range.h), or NULL */
    gint *step_of;           /* node index -> step */
    guint64 *bytes;          /* per tensor: physical bytes (0: no buffer) */
    guint *birth, *death;    /* per tensor: own lifetime [birth, death] in steps */
    guint *bin;              /* per tensor: memory bin */
    AliasLink *link;         /* per tensor */
    gboolean *structural;    /* per tensor: its link is graph-structural (not in-place) */
    gboolean *decided;       /* per node: an alias strategy has handled it (aliased or copied) */
    guint aliased_ops[SHARE_KIND_COUNT], copied_ops[SHARE_KIND_COUNT];
    guint64 outside_saved[SHARE_KIND_COUNT]; /* bytes of views that stay outside the arena (alias_view_outside) */
    GArray *fallbacks;       /* AliasFallback: each op a strategy had to copy, with its reason */
    GHashTable *pins;        /* tensor name -> gint64* offset (pre-allocated tensors), or NULL */
    gboolean scratch;        /* add the op table's single-step kernel workspace to the trace */
    /* Per tensor: the reuse class its buffer offers a runtime that reuses a freed buffer only for an equal one
     * (TraceBuffer.reuse), read at roots; NULL: none given (set by an alias strategy that knows the rule). */
    guint64 *reuse;
    /* Indexes kept by alias_link and alias_view_outside so that every query is near constant time on a
     * chain of 200,000 views (alias-index.h): roots through union-find, children through lists, and per
     * structural tree the count of members the caller owns. */
    struct AliasIndex *index;
    /* The KV cache planned at capacity (memory/kv.h): pairs, tokens and bytes of the cache buffers (0: none). */
    guint kv_pairs;
    guint64 kv_capacity, kv_bytes;
    guint64 *reserve;        /* per tensor: the least bytes the buffer it roots spans (a KV cache at its capacity,
                                memory/kv.h); such a tensor is never made a child. NULL: none reserved */
} AliasMap;

/* A map where every tensor has its own buffer. bins: per tensor id, or NULL (all bin 0); pins: tensor
 * name -> gint64* offset, or NULL (borrowed: it must outlive the map). */
AliasMap *alias_map_new(const Graph *g, const GPtrArray *schedule, const LayoutOptions *layout, const guint *bins,
                        GHashTable *pins, GError **error);
void alias_map_free(AliasMap *m);

/* Root of tensor t and t's byte offset in it. */
gint alias_root(const AliasMap *m, gint t, guint64 *offset);
/* Root when only graph-structural links are followed (not in-place): consumer counting uses it. */
gint alias_structural_root(const AliasMap *m, gint t);
/* Per tensor id: the last step any member of its structural tree is alive (indexed by structural
 * root; newly allocated). */
guint *alias_structural_deaths(const AliasMap *m);
/* TRUE when t's structural tree holds a graph output or a pinned tensor (or, with `inputs`, a graph
 * input): bytes the caller owns, which no op may write over. */
gboolean alias_structural_protected(const AliasMap *m, gint t, gboolean inputs);
/* Places root `child` inside `parent` at `offset` bytes from parent's start. FALSE (no change) when the
 * child is not a root, is kept apart or roots a reserved buffer, the two are in different bins or would form a
 * cycle. */
/* Whether n reads or writes a data-dependent tensor (sizes and offsets known only when it runs): such a node
 * shares bytes only as a metadata view (alias_link refuses the rest). */
gboolean alias_node_dynamic(const Node *n);
gboolean alias_link(AliasMap *m, gint child, gint parent, guint64 offset, ShareKind kind);
/* Tensor t is a view of bytes outside the arena (a weight, a constant, a caller's input): it gets no buffer
 * either, and its bytes count as saved by `kind`. FALSE (nothing changed) when t must be in the arena: a
 * graph output the caller reads from the arena, a pinned tensor, or one another tensor already lives in. */
gboolean alias_view_outside(AliasMap *m, gint t, ShareKind kind);
/* A fallback as a line: "KIND: node LABEL copies: why" (newly allocated); every fallback's, in order (newly
 * allocated strings). */
char *alias_fallback_note(const AliasFallback *f);
GPtrArray *alias_fallback_notes(const AliasMap *m);
/* The fallbacks for a reader, in the order of their first: those of one kind and one reason (the names it quotes
 * masked as '...') as one line ("noop: 96 nodes copy: '...' and '...' already live in two other buffers ('a'
 * (Unsqueeze), 'b' (Unsqueeze), 'c' (Unsqueeze), ...)"), a fallback alone as its note. Newly allocated strings. */
GPtrArray *alias_fallback_summary(const AliasMap *m);
/* Records that node n handled by strategy `kind` had to copy, and why. */
void alias_note_copy(AliasMap *m, const Node *n, ShareKind kind, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
/* Why a tensor has no buffer in the arena, for a fallback's reason: "a weight or constant outside the
 * arena", a graph input/output under --io outside, or a view of one of those. */
const char *alias_outside_reason(const Tensor *t);
void alias_note_shared(AliasMap *m, const Node *n, ShareKind kind);
/* Physical stride in bytes of one step along `axis` (product of later dims, last dim padded). */
guint64 alias_axis_stride(const AliasMap *m, const Tensor *t, int axis);
/* TRUE when every dimension before `axis` is 1 (the seeds' condition for offset aliasing). */
gboolean alias_leading_ones(const Tensor *t, int axis);

/* Parses "NAME=OFFSET" into pins (name -> gint64*). */
gboolean alias_pins_parse(GHashTable *pins, const char *spec, GError **error);

/* The trace: one buffer per root (extent, union lifetime, bin; a pinned member pins its root, which then
 * lives for the whole run, as pre-allocated tensors do) plus single-step scratch buffers for nodes whose
 * op row asks for workspace. */
Trace *alias_map_to_trace(const AliasMap *m, GHashTable *pins, GError **error);
/* What each buffer of the map's trace (t, from alias_map_to_trace) holds, for a reader exploring a plan:
 * the node that makes its root tensor (or what the tensor is: a graph input, a weight), then the tensors
 * sharing its bytes and how (noop, inplace, concat, ...), the first ALIAS_ABOUT_MEMBERS of them; a scratch
 * buffer names its node. A NULL-terminated string array (g_strfreev), or NULL when t is not this map's
 * trace (its buffers do not match the map's roots by name). */
#define ALIAS_ABOUT_MEMBERS 8u
char **alias_buffer_about(const AliasMap *m, const Trace *t);

/* An alias strategy (strategies/alias/alias-*.c): decides, for the nodes it knows, which tensors share bytes. */
typedef struct AliasStrategy {
    const char *name;
    const char *summary;
    gboolean (*apply)(AliasMap *m, GError **error);
    /* A runtime's own rule (what ONNX Runtime shares), to plan as that runtime does: applied only when named,
     * never as part of `all` (which is every sharing opportunity there is). */
    gboolean runtime_rule;
    /* Lays tensors inside another's bytes (a Concat's layout, a Split or Slice view), which can keep the larger
     * buffer alive past its own last read: --order best tries the sharing without these too. */
    gboolean lengthens;
} AliasStrategy;

/* Concat layout shared by the runtime and concat-dedup strategies: inputs laid out contiguously in the
 * output, in a reverse topological pass (the seed's "reverse split"). With `nest`, inputs that are
 * concat outputs are nested too (SHARE_DEDUP). */
gboolean alias_concat_pass(AliasMap *m, gboolean nest, GError **error);

/* Bytes each kind of sharing saved against every tensor having its own buffer. */
void alias_savings(const AliasMap *m, guint64 saved[SHARE_KIND_COUNT]);

#endif
