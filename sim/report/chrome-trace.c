/* chrome-trace.c — writes a plan as Chrome trace event JSON (see chrome-trace.h), with json-glib. */
#include "report/chrome-trace.h"
#include "base/files.h"
#include "base/json-text.h"
#include "base/units.h"
#include "plan/profile.h"

#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#define STEP_MICROSECONDS 1000 /* one schedule step shown as 1 ms */

static void begin_event_on(JsonBuilder *b, const char *name, const char *phase, guint64 ts, guint pid, guint tid)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_add_text(b, name);
    json_builder_set_member_name(b, "ph");
    json_add_text(b, phase);
    json_builder_set_member_name(b, "ts");
    json_builder_add_int_value(b, (gint64)ts);
    json_builder_set_member_name(b, "pid");
    json_builder_add_int_value(b, pid);
    json_builder_set_member_name(b, "tid");
    json_builder_add_int_value(b, tid);
}

static void begin_event(JsonBuilder *b, const char *name, const char *phase, guint64 ts)
{
    begin_event_on(b, name, phase, ts, 1, 1);
}

static void add_int_member(JsonBuilder *b, const char *name, guint64 value)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, (gint64)value);
}

static void add_metadata_on(JsonBuilder *b, const char *kind, const char *value, guint pid, guint tid)
{
    begin_event_on(b, kind, "M", 0, pid, tid);
    json_builder_set_member_name(b, "args");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_add_text(b, value);
    json_builder_end_object(b);
    json_builder_end_object(b);
}

/* Buffers in lanes: sorted by first step (then offset), each into the lowest-numbered lane free by then
 * (a lane is free once its last buffer has died), so a lane's buffers never live at once and the lanes
 * number the most buffers ever live together. lane[b] receives buffer b's; returns the lane count. */
typedef struct {
    guint first;
    guint64 offset;
    guint id;
} Start;

static gint by_start(gconstpointer a, gconstpointer b)
{
    const Start *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static guint assign_lanes(const Trace *t, const Plan *plan, guint *lane)
{
    guint n = trace_count(t), lanes = 0;
    Start *order = g_new(Start, n + 1);
    for (guint k = 0; k < n; k++)
        order[k] = (Start){trace_buffer(t, k)->first, plan->offsets[k], k};
    qsort(order, n, sizeof(Start), (int (*)(const void *, const void *))by_start);
    /* free lanes: a min-heap of (free from step, lane) */
    guint64 *heap = g_new(guint64, n + 1);
    guint size = 0;
    for (guint k = 0; k < n; k++) {
        const TraceBuffer *b = trace_buffer(t, order[k].id);
        guint chosen;
        if (size && (heap[0] >> 32) <= b->first) { /* the lane freed earliest is free now */
            chosen = (guint)(heap[0] & 0xffffffffu);
            heap[0] = heap[--size];
            for (guint i = 0;;) { /* sift down */
                guint l = 2 * i + 1, r = l + 1, m = i;
                if (l < size && heap[l] < heap[m])
                    m = l;
                if (r < size && heap[r] < heap[m])
                    m = r;
                if (m == i)
                    break;
                guint64 x = heap[i];
                heap[i] = heap[m];
                heap[m] = x;
                i = m;
            }
        } else {
            chosen = lanes++;
        }
        lane[order[k].id] = chosen;
        heap[size] = ((guint64)b->last + 1) << 32 | chosen; /* free from the step after its last */
        for (guint i = size++; i > 0 && heap[(i - 1) / 2] > heap[i]; i = (i - 1) / 2) { /* sift up */
            guint64 x = heap[i];
            heap[i] = heap[(i - 1) / 2];
            heap[(i - 1) / 2] = x;
        }
    }
    g_free(heap);
    g_free(order);
    return lanes;
}

static void add_metadata(JsonBuilder *b, const char *kind, const char *value)
{
    begin_event(b, kind, "M", 0);
    json_builder_set_member_name(b, "args");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_add_text(b, value);
    json_builder_end_object(b);
    json_builder_end_object(b);
}

/* Plan k's buffers as process 2 + k: a slice per buffer over its lifetime, on lanes (assign_lanes), its
 * offset, size and steps in its args, so Perfetto can show which buffer sits where when; with several
 * plans, the process also carries the plan's own spanned-bytes and arena counter. */
static void add_plan_buffers(JsonBuilder *b, const Trace *t, const Plan *plan, guint pid, const guint64 *start,
                             const MemoryProfile *profile, gboolean several)
{
    guint *lane = g_new0(guint, trace_count(t) + 1), lanes = assign_lanes(t, plan, lane);
    char *arena = several ? format_bytes(plan->arena) : NULL;
    char *process = several ? g_strdup_printf("%s: arena %s, buffers (a lane holds buffers that are never live at once)",
                                              plan->strategy->name, arena)
                            : g_strdup("buffers (a lane holds buffers that are never live at once)");
    add_metadata_on(b, "process_name", process, pid, 1);
    g_free(process);
    g_free(arena);
    for (guint l = 0; l < lanes; l++) {
        char *name = g_strdup_printf("lane %u", l);
        add_metadata_on(b, "thread_name", name, pid, l + 1);
        g_free(name);
    }
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *buf = trace_buffer(t, k);
        guint last = MIN(buf->last, t->steps ? t->steps - 1 : 0);
        begin_event_on(b, buf->name, "X", start[MIN(buf->first, t->steps)], pid, lane[k] + 1);
        json_builder_set_member_name(b, "cat");
        json_add_text(b, "buffer");
        add_int_member(b, "dur", start[last + 1] - start[MIN(buf->first, last)]);
        json_builder_set_member_name(b, "args");
        json_builder_begin_object(b);
        add_int_member(b, "offset", plan->offsets[k]);
        add_int_member(b, "size", buf->size);
        add_int_member(b, "end", plan->offsets[k] + buf->size);
        add_int_member(b, "first_step", buf->first);
        add_int_member(b, "last_step", buf->last);
        add_int_member(b, "bin", buf->bin);
        json_builder_end_object(b);
        json_builder_end_object(b);
    }
    g_free(lane);
    for (guint s = 0; several && s <= t->steps; s++) {
        begin_event_on(b, "memory", "C", start[s], pid, 1);
        json_builder_set_member_name(b, "args");
        json_builder_begin_object(b);
        add_int_member(b, "spanned_bytes", s < t->steps ? profile->spanned[s] : 0);
        add_int_member(b, "arena_bytes", plan->arena);
        json_builder_end_object(b);
        json_builder_end_object(b);
    }
}

char *chrome_trace_to_json(const Trace *t, const Plan *const *plans, guint count, const ChromeTraceLabels *labels)
{
    g_return_val_if_fail(count >= 1, NULL);
    gboolean several = count > 1;
    MemoryProfile *profiles = g_new0(MemoryProfile, count);
    for (guint k = 0; k < count; k++)
        memory_profile_compute(t, plans[k], &profiles[k]);
    const guint64 *live = profiles[0].live, *spanned = profiles[0].spanned;
    /* When each step starts and how long it lasts, in microseconds (at least 1, so every span shows). */
    guint64 *start = g_new0(guint64, t->steps + 1), *dur = g_new0(guint64, t->steps + 1);
    for (guint s = 0; s < t->steps; s++) {
        dur[s] = labels && labels->seconds ? MAX((guint64)(labels->seconds[s] * 1e6 + 0.5), 1) : STEP_MICROSECONDS;
        start[s + 1] = start[s] + dur[s];
    }
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "traceEvents");
    json_builder_begin_array(b);
    add_metadata(b, "process_name", labels && labels->title ? labels->title : "arenasim");
    add_metadata(b, "thread_name", "schedule");
    for (guint s = 0; s < t->steps; s++) {
        const char *name = labels && labels->op_names ? labels->op_names[s] : NULL;
        const char *op = labels && labels->op_types ? labels->op_types[s] : NULL;
        char *fallback = name ? NULL : g_strdup_printf("step %u", s);
        begin_event(b, name ? name : fallback, "X", start[s]);
        json_builder_set_member_name(b, "cat");
        json_add_text(b, op ? op : "step");
        add_int_member(b, "dur", dur[s]);
        json_builder_set_member_name(b, "args");
        json_builder_begin_object(b);
        add_int_member(b, "step", s);
        add_int_member(b, "live_bytes", live[s]);
        if (!several)
            add_int_member(b, "spanned_bytes", spanned[s]);
        json_builder_end_object(b);
        json_builder_end_object(b);
        g_free(fallback);
    }
    for (guint k = 0; k < count; k++)
        add_plan_buffers(b, t, plans[k], 2 + k, start, &profiles[k], several);
    /* Counters: one sample per step, and a last one at the end so the final step has a width; the plan's
     * own counters sit with its buffers when there are several. */
    for (guint s = 0; s <= t->steps; s++) {
        begin_event(b, "memory", "C", start[s]);
        json_builder_set_member_name(b, "args");
        json_builder_begin_object(b);
        add_int_member(b, "live_bytes", s < t->steps ? live[s] : 0);
        if (!several) {
            add_int_member(b, "spanned_bytes", s < t->steps ? spanned[s] : 0);
            add_int_member(b, "arena_bytes", plans[0]->arena);
        }
        json_builder_end_object(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "displayTimeUnit");
    json_add_text(b, "ms");
    json_builder_set_member_name(b, "otherData");
    json_builder_begin_object(b);
    if (!several) {
        json_builder_set_member_name(b, "strategy");
        json_add_text(b, plans[0]->strategy->name);
        add_int_member(b, "arena_bytes", plans[0]->arena);
    } else {
        json_builder_set_member_name(b, "plans");
        json_builder_begin_array(b);
        for (guint k = 0; k < count; k++) {
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "strategy");
            json_add_text(b, plans[k]->strategy->name);
            add_int_member(b, "arena_bytes", plans[k]->arena);
            add_int_member(b, "pid", 2 + k);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
    }
    add_int_member(b, "lower_bound_bytes", trace_lower_bound(t));
    add_int_member(b, "buffers", trace_count(t));
    add_int_member(b, "steps", t->steps);
    json_builder_set_member_name(b, "time_unit");
    json_add_text(b, labels && labels->seconds ? "measured: each span is its node's median kernel time (sim --run)"
                                                                : "1 ms = 1 schedule step");
    json_builder_end_object(b);
    json_builder_end_object(b);

    JsonGenerator *gen = json_generator_new();
    JsonNode *root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    char *text = json_generator_to_data(gen, NULL);
    json_node_unref(root);
    g_object_unref(gen);
    g_object_unref(b);
    for (guint k = 0; k < count; k++)
        memory_profile_clear(&profiles[k]);
    g_free(profiles);
    g_free(start);
    g_free(dur);
    return text;
}

gboolean chrome_trace_write(const char *path, const Trace *t, const Plan *const *plans, guint count,
                            const ChromeTraceLabels *labels, GError **error)
{
    char *text = chrome_trace_to_json(t, plans, count, labels);
    gboolean ok = sim_write_file(path, text, strlen(text), error);
    g_free(text);
    return ok;
}
