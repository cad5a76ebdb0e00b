/* peak.c — the peak witness (see peak.h): one pass over the trace for each bin's live bytes per step, one over
 * its buffers for those live at the peak, sorted largest first; the graph gives each buffer's producer and
 * readers by its root tensor's name, the alias map the fallbacks and the nodes they belong to. */
#include "report/peak.h"
#include "base/escape.h"
#include "base/json-text.h"
#include "base/units.h"

#include <string.h>

static gint by_size_then_name(gconstpointer a, gconstpointer b, gpointer trace)
{
    const TraceBuffer *x = trace_buffer(trace, ((const PeakBuffer *)a)->buffer);
    const TraceBuffer *y = trace_buffer(trace, ((const PeakBuffer *)b)->buffer);
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : (((const PeakBuffer *)a)->buffer < ((const PeakBuffer *)b)->buffer ? -1 : 1);
}

/* The trace buffer of a fallback's node: the buffer named after one of its outputs (a root), live at `step` in
 * `bin`; G_MAXUINT when none is. */
static guint refusal_buffer(const Node *n, GHashTable *by_name, const Trace *t, guint bin, guint step)
{
    for (guint k = 0; n && k < n->outputs->len; k++) {
        const Tensor *out = n->outputs->pdata[k];
        gpointer id;
        if (!out || !g_hash_table_lookup_extended(by_name, out->name, NULL, &id))
            continue;
        const TraceBuffer *b = trace_buffer(t, GPOINTER_TO_UINT(id));
        if (b->bin == bin && b->first <= step && step <= b->last)
            return GPOINTER_TO_UINT(id);
    }
    return G_MAXUINT;
}

PeakWitness *peak_witness_new(const Trace *t, const Graph *g, const GPtrArray *schedule, const AliasMap *aliases)
{
    PeakWitness *w = g_new0(PeakWitness, 1);
    w->bins = g_array_new(FALSE, TRUE, sizeof(PeakBin));
    /* buffer name -> id (the first of a name), for the sharing refused: none on a trace read from a file, whose
     * million names would cost more than the rest of the witness */
    GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint k = aliases && aliases->fallbacks->len ? trace_count(t) : 0; k-- > 0;)
        g_hash_table_insert(by_name, trace_buffer(t, k)->name, GUINT_TO_POINTER(k));
    guint bins = trace_bins(t);
    for (guint bin = 0; bin < bins && t->steps; bin++) {
        guint64 *live = trace_live_bytes(t, (gint)bin);
        PeakBin p = {.bin = bin};
        for (guint s = 0; s < t->steps; s++)
            if (live[s] > p.live) {
                p.live = live[s];
                p.step = s;
            }
        g_free(live);
        if (!p.live)
            continue;
        p.node = schedule && p.step < schedule->len ? schedule->pdata[p.step] : NULL;
        p.buffers = g_array_new(FALSE, TRUE, sizeof(PeakBuffer));
        p.refused = g_array_new(FALSE, TRUE, sizeof(PeakRefusal));
        for (guint k = 0; k < trace_count(t); k++) {
            const TraceBuffer *b = trace_buffer(t, k);
            if (b->bin != bin || b->first > p.step || p.step > b->last)
                continue;
            PeakBuffer pb = {.buffer = k};
            const Tensor *tensor = g ? graph_tensor((Graph *)g, b->name) : NULL;
            if (tensor) {
                pb.producer = tensor->producer;
                pb.readers = tensor->consumers;
            }
            g_array_append_val(p.buffers, pb);
        }
        g_array_sort_with_data(p.buffers, by_size_then_name, (gpointer)t);
        for (guint k = 0; aliases && k < aliases->fallbacks->len; k++) {
            const AliasFallback *f = &g_array_index(aliases->fallbacks, AliasFallback, k);
            guint id = refusal_buffer(f->node, by_name, t, bin, p.step);
            if (id == G_MAXUINT)
                continue;
            PeakRefusal r = {.fallback = f, .buffer = id,
                             .live_without = p.live - trace_buffer(t, id)->size};
            g_array_append_val(p.refused, r);
        }
        g_array_append_val(w->bins, p);
    }
    g_hash_table_unref(by_name);
    return w;
}

void peak_witness_free(PeakWitness *w)
{
    if (!w)
        return;
    for (guint k = 0; k < w->bins->len; k++) {
        PeakBin *p = &g_array_index(w->bins, PeakBin, k);
        g_array_unref(p->buffers);
        g_array_unref(p->refused);
    }
    g_array_unref(w->bins);
    g_free(w);
}

/* "Conv 'name'" (or "Conv #12" for a node without a name), escaped for the terminal. */
static char *node_text(const Node *n)
{
    char *who = n->name && *n->name ? g_strdup_printf("%s '%s'", n->op_type, n->name)
                                    : g_strdup_printf("%s #%u", n->op_type, n->index);
    char *safe = escape_terminal(who);
    g_free(who);
    return safe;
}

void peak_witness_print(FILE *out, const char *block, const Trace *t, const PeakWitness *w, guint limit)
{
    for (guint k = 0; k < w->bins->len; k++) {
        const PeakBin *p = &g_array_index(w->bins, PeakBin, k);
        char *live = sim_format_bytes(p->live);
        char *key = w->bins->len > 1 || p->bin ? g_strdup_printf("peak (bin %u)", p->bin) : g_strdup("peak");
        fprintf(out, "\n%s%-14s step %u of %u", block, key, p->step, t->steps);
        if (p->node) {
            char *who = node_text(p->node);
            fprintf(out, " (%s)", who);
            g_free(who);
        }
        fprintf(out, ": %s live in %u buffer%s, largest first\n", live, p->buffers->len,
                p->buffers->len == 1 ? "" : "s");
        guint shown = limit && p->buffers->len > limit ? limit : p->buffers->len;
        guint64 rest = 0;
        for (guint j = 0; j < p->buffers->len; j++) {
            const PeakBuffer *pb = &g_array_index(p->buffers, PeakBuffer, j);
            const TraceBuffer *b = trace_buffer(t, pb->buffer);
            if (j >= shown) {
                rest += b->size;
                continue;
            }
            char *size = sim_format_bytes(b->size), *name = escape_terminal(b->name);
            fprintf(out, "%s  %s  '%s', steps %u-%u", block, size, name, b->first, b->last);
            if (pb->producer) {
                char *who = node_text(pb->producer);
                fprintf(out, ", made by %s", who);
                g_free(who);
            }
            if (pb->readers && pb->readers->len == 1) {
                char *who = node_text(pb->readers->pdata[0]);
                fprintf(out, ", read by %s", who);
                g_free(who);
            } else if (pb->readers && pb->readers->len) {
                char *first = node_text(pb->readers->pdata[0]);
                fprintf(out, ", read by %u nodes (%s, ...)", pb->readers->len, first);
                g_free(first);
            }
            fputc('\n', out);
            g_free(size);
            g_free(name);
        }
        if (shown < p->buffers->len) {
            char *bytes = sim_format_bytes(rest);
            fprintf(out, "%s  ... and %u more buffers, %s (--verbose lists them)\n", block, p->buffers->len - shown,
                    bytes);
            g_free(bytes);
        }
        for (guint j = 0; j < p->refused->len; j++) {
            const PeakRefusal *r = &g_array_index(p->refused, PeakRefusal, j);
            char *line = alias_fallback_note(r->fallback), *note = escape_terminal(line);
            char *without = sim_format_bytes(r->live_without);
            g_free(line);
            fprintf(out, "%s  refused here: %s (shared, this step would hold %s", block, note, without);
            if (r->arena_shared) {
                char *arena = sim_format_bytes(r->arena_shared);
                fprintf(out, " and the arena be %s", arena);
                g_free(arena);
            }
            fputs(")\n", out);
            g_free(note);
            g_free(without);
        }
        g_free(live);
        g_free(key);
    }
}

static void json_node(JsonBuilder *b, const char *name_member, const char *op_member, const Node *n)
{
    json_builder_set_member_name(b, name_member);
    if (n)
        json_add_text(b, n->name && *n->name ? n->name : n->label);
    else
        json_builder_add_null_value(b);
    json_builder_set_member_name(b, op_member);
    if (n)
        json_add_text(b, n->op_type);
    else
        json_builder_add_null_value(b);
}

void peak_witness_json(JsonBuilder *b, const Trace *t, const PeakWitness *w)
{
    json_builder_set_member_name(b, "peak");
    json_builder_begin_array(b);
    for (guint k = 0; k < w->bins->len; k++) {
        const PeakBin *p = &g_array_index(w->bins, PeakBin, k);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "bin");
        json_builder_add_int_value(b, p->bin);
        json_builder_set_member_name(b, "step");
        json_builder_add_int_value(b, p->step);
        json_node(b, "node", "op", p->node);
        json_builder_set_member_name(b, "live_bytes");
        json_builder_add_int_value(b, (gint64)p->live);
        json_builder_set_member_name(b, "buffers");
        json_builder_begin_array(b);
        for (guint j = 0; j < p->buffers->len; j++) {
            const PeakBuffer *pb = &g_array_index(p->buffers, PeakBuffer, j);
            const TraceBuffer *tb = trace_buffer(t, pb->buffer);
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "name");
            json_add_text(b, tb->name);
            json_builder_set_member_name(b, "bytes");
            json_builder_add_int_value(b, (gint64)tb->size);
            json_builder_set_member_name(b, "first");
            json_builder_add_int_value(b, tb->first);
            json_builder_set_member_name(b, "last");
            json_builder_add_int_value(b, tb->last);
            json_node(b, "producer", "producer_op", pb->producer);
            json_builder_set_member_name(b, "readers");
            json_builder_begin_array(b);
            for (guint r = 0; pb->readers && r < pb->readers->len; r++) {
                const Node *n = pb->readers->pdata[r];
                json_add_text(b, n->name && *n->name ? n->name : n->label);
            }
            json_builder_end_array(b);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_set_member_name(b, "refused");
        json_builder_begin_array(b);
        for (guint j = 0; j < p->refused->len; j++) {
            const PeakRefusal *r = &g_array_index(p->refused, PeakRefusal, j);
            json_builder_begin_object(b);
            char *note = alias_fallback_note(r->fallback);
            json_builder_set_member_name(b, "note");
            json_add_text(b, note);
            g_free(note);
            json_builder_set_member_name(b, "buffer");
            json_add_text(b, trace_buffer(t, r->buffer)->name);
            json_builder_set_member_name(b, "live_without_bytes");
            json_builder_add_int_value(b, (gint64)r->live_without);
            json_builder_set_member_name(b, "arena_shared_bytes");
            if (r->arena_shared)
                json_builder_add_int_value(b, (gint64)r->arena_shared);
            else
                json_builder_add_null_value(b);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}
