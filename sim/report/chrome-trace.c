/* chrome-trace.c — writes plans as Chrome trace event JSON (see chrome-trace.h), as text, event by event. */
#include "report/chrome-trace.h"
#include "base/files.h"
#include "base/json-text.h"
#include "base/units.h"
#include "plan/profile.h"

#include <stdlib.h>
#include <string.h>

#define STEP_MICROSECONDS 1000 /* one schedule step shown as 1 ms */

/* The document is written as text into one string, event by event: a json-glib tree of a large plan took
 * many times the file's size in memory (results/history.md). Every name goes through json_text_append. */
static void event_start(GString *s, const char *name, const char *phase, guint64 ts, guint pid, guint tid)
{
    g_string_append(s, s->str[s->len - 1] == '[' ? "\n{\"name\":" : ",\n{\"name\":");
    json_text_append(s, name);
    g_string_append_printf(s, ",\"ph\":\"%s\",\"ts\":%" G_GUINT64_FORMAT ",\"pid\":%u,\"tid\":%u", phase, ts, pid, tid);
}

static void add_metadata_on(GString *s, const char *kind, const char *value, guint pid, guint tid)
{
    event_start(s, kind, "M", 0, pid, tid);
    g_string_append(s, ",\"args\":{\"name\":");
    json_text_append(s, value);
    g_string_append(s, "}}");
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

/* Plan k's buffers as process 2 + k: a slice per buffer over its lifetime, on lanes (assign_lanes), its
 * offset, size and steps in its args, so Perfetto can show which buffer sits where when; with several
 * plans, the process also carries the plan's own spanned-bytes and arena counter. */
static void add_plan_buffers(GString *s, const Trace *t, const Plan *plan, guint pid, const guint64 *start,
                             const MemoryProfile *profile, gboolean several)
{
    guint *lane = g_new0(guint, trace_count(t) + 1), lanes = assign_lanes(t, plan, lane);
    char *arena = several ? sim_format_bytes(plan->arena) : NULL;
    char *process = several ? g_strdup_printf("%s: arena %s, buffers (a lane holds buffers that are never live at once)",
                                              plan->strategy->name, arena)
                            : g_strdup("buffers (a lane holds buffers that are never live at once)");
    add_metadata_on(s, "process_name", process, pid, 1);
    g_free(process);
    g_free(arena);
    for (guint l = 0; l < lanes; l++) {
        char name[32];
        g_snprintf(name, sizeof name, "lane %u", l);
        add_metadata_on(s, "thread_name", name, pid, l + 1);
    }
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *buf = trace_buffer(t, k);
        guint last = MIN(buf->last, t->steps ? t->steps - 1 : 0);
        event_start(s, buf->name, "X", start[MIN(buf->first, t->steps)], pid, lane[k] + 1);
        g_string_append_printf(s, ",\"cat\":\"buffer\",\"dur\":%" G_GUINT64_FORMAT ",\"args\":{\"offset\":%" G_GUINT64_FORMAT
                               ",\"size\":%" G_GUINT64_FORMAT ",\"end\":%" G_GUINT64_FORMAT ",\"first_step\":%u,"
                               "\"last_step\":%u,\"bin\":%u}}",
                               start[last + 1] - start[MIN(buf->first, last)], plan->offsets[k], buf->size,
                               plan->offsets[k] + buf->size, buf->first, buf->last, buf->bin);
    }
    g_free(lane);
    for (guint step = 0; several && step <= t->steps; step++) {
        event_start(s, "memory", "C", start[step], pid, 1);
        g_string_append_printf(s, ",\"args\":{\"spanned_bytes\":%" G_GUINT64_FORMAT ",\"arena_bytes\":%" G_GUINT64_FORMAT "}}",
                               step < t->steps ? profile->spanned[step] : 0, plan->arena);
    }
}

char *chrome_trace_to_json(const Trace *t, const Plan *const *plans, guint count, const ChromeTraceLabels *labels)
{
    g_return_val_if_fail(count >= 1, NULL);
    gboolean several = count > 1;
    MemoryProfile *profiles = g_new0(MemoryProfile, count);
    profile_compute_all(t, plans, count, profiles);
    const guint64 *live = profiles[0].live, *spanned = profiles[0].spanned;
    /* When each step starts and how long it lasts, in microseconds (at least 1, so every span shows). */
    guint64 *start = g_new0(guint64, t->steps + 1), *dur = g_new0(guint64, t->steps + 1);
    for (guint step = 0; step < t->steps; step++) {
        dur[step] = labels && labels->seconds ? MAX((guint64)(labels->seconds[step] * 1e6 + 0.5), 1) : STEP_MICROSECONDS;
        start[step + 1] = start[step] + dur[step];
    }
    /* about 150 bytes per event */
    GString *s = g_string_sized_new(4096 + 150 * ((gsize)t->steps * 2 + (gsize)trace_count(t) * count));
    g_string_append(s, "{\"traceEvents\":[");
    add_metadata_on(s, "process_name", labels && labels->title ? labels->title : "arenasim", 1, 1);
    add_metadata_on(s, "thread_name", "schedule", 1, 1);
    for (guint step = 0; step < t->steps; step++) {
        const char *name = labels && labels->op_names ? labels->op_names[step] : NULL;
        const char *op = labels && labels->op_types ? labels->op_types[step] : NULL;
        char fallback[32];
        g_snprintf(fallback, sizeof fallback, "step %u", step);
        event_start(s, name ? name : fallback, "X", start[step], 1, 1);
        g_string_append(s, ",\"cat\":");
        json_text_append(s, op ? op : "step");
        g_string_append_printf(s, ",\"dur\":%" G_GUINT64_FORMAT ",\"args\":{\"step\":%u,\"live_bytes\":%" G_GUINT64_FORMAT,
                               dur[step], step, live[step]);
        if (!several)
            g_string_append_printf(s, ",\"spanned_bytes\":%" G_GUINT64_FORMAT, spanned[step]);
        g_string_append(s, "}}");
    }
    for (guint k = 0; k < count; k++)
        add_plan_buffers(s, t, plans[k], 2 + k, start, &profiles[k], several);
    /* Counters: one sample per step, and a last one at the end so the final step has a width; the plan's
     * own counters sit with its buffers when there are several. */
    for (guint step = 0; step <= t->steps; step++) {
        event_start(s, "memory", "C", start[step], 1, 1);
        g_string_append_printf(s, ",\"args\":{\"live_bytes\":%" G_GUINT64_FORMAT, step < t->steps ? live[step] : 0);
        if (!several)
            g_string_append_printf(s, ",\"spanned_bytes\":%" G_GUINT64_FORMAT ",\"arena_bytes\":%" G_GUINT64_FORMAT,
                                   step < t->steps ? spanned[step] : 0, plans[0]->arena);
        g_string_append(s, "}}");
    }
    g_string_append(s, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{");
    if (!several) {
        g_string_append(s, "\"strategy\":");
        json_text_append(s, plans[0]->strategy->name);
        g_string_append_printf(s, ",\"arena_bytes\":%" G_GUINT64_FORMAT, plans[0]->arena);
    } else {
        g_string_append(s, "\"plans\":[");
        for (guint k = 0; k < count; k++) {
            g_string_append(s, k ? ",{\"strategy\":" : "{\"strategy\":");
            json_text_append(s, plans[k]->strategy->name);
            g_string_append_printf(s, ",\"arena_bytes\":%" G_GUINT64_FORMAT ",\"pid\":%u}", plans[k]->arena, 2 + k);
        }
        g_string_append_c(s, ']');
    }
    g_string_append_printf(s, ",\"lower_bound_bytes\":%" G_GUINT64_FORMAT ",\"buffers\":%u,\"steps\":%u,\"time_unit\":",
                           plans[0]->lower_bound, trace_count(t), t->steps);
    json_text_append(s, labels && labels->seconds ? "measured: each span is its node's median kernel time (sim --run)"
                                                  : "1 ms = 1 schedule step");
    g_string_append(s, "}}\n");
    for (guint k = 0; k < count; k++)
        profile_clear(&profiles[k]);
    g_free(profiles);
    g_free(start);
    g_free(dur);
    return g_string_free(s, FALSE);
}

gboolean chrome_trace_fits(guint buffers, guint plans, GError **error)
{
    if ((guint64)buffers * plans <= CHROME_TRACE_MAX_SLICES)
        return TRUE;
    g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "a Chrome trace of %u plan%s of %u buffers would hold more than "
                "%u buffer slices (about 220 bytes each)%s", plans, plans == 1 ? "" : "s", buffers, CHROME_TRACE_MAX_SLICES,
                plans > 1 ? ": give one --strategy" : "");
    return FALSE;
}

gboolean chrome_trace_write(const char *path, const Trace *t, const Plan *const *plans, guint count,
                            const ChromeTraceLabels *labels, GError **error)
{
    if (!chrome_trace_fits(trace_count(t), count, error))
        return FALSE;
    char *text = chrome_trace_to_json(t, plans, count, labels);
    gboolean ok = sim_write_file(path, text, strlen(text), error);
    g_free(text);
    return ok;
}
