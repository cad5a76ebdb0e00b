/* chrome-trace.c — writes a plan as Chrome trace event JSON (see chrome-trace.h), with json-glib. */
#include "report/chrome-trace.h"
#include "base/files.h"
#include "base/json-text.h"
#include "plan/profile.h"

#include <json-glib/json-glib.h>
#include <string.h>

#define STEP_MICROSECONDS 1000 /* one schedule step shown as 1 ms */

static void begin_event(JsonBuilder *b, const char *name, const char *phase, guint64 ts)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_add_text(b, name);
    json_builder_set_member_name(b, "ph");
    json_add_text(b, phase);
    json_builder_set_member_name(b, "ts");
    json_builder_add_int_value(b, (gint64)ts);
    json_builder_set_member_name(b, "pid");
    json_builder_add_int_value(b, 1);
    json_builder_set_member_name(b, "tid");
    json_builder_add_int_value(b, 1);
}

static void add_int_member(JsonBuilder *b, const char *name, guint64 value)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, (gint64)value);
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

char *chrome_trace_to_json(const Trace *t, const Plan *plan, const ChromeTraceLabels *labels)
{
    MemoryProfile profile;
    memory_profile_compute(t, plan, &profile);
    const guint64 *live = profile.live, *spanned = profile.spanned;
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
        add_int_member(b, "spanned_bytes", spanned[s]);
        json_builder_end_object(b);
        json_builder_end_object(b);
        g_free(fallback);
    }
    /* Counters: one sample per step, and a last one at the end so the final step has a width. */
    for (guint s = 0; s <= t->steps; s++) {
        begin_event(b, "memory", "C", start[s]);
        json_builder_set_member_name(b, "args");
        json_builder_begin_object(b);
        add_int_member(b, "live_bytes", s < t->steps ? live[s] : 0);
        add_int_member(b, "spanned_bytes", s < t->steps ? spanned[s] : 0);
        add_int_member(b, "arena_bytes", plan->arena);
        json_builder_end_object(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "displayTimeUnit");
    json_add_text(b, "ms");
    json_builder_set_member_name(b, "otherData");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "strategy");
    json_add_text(b, plan->strategy->name);
    add_int_member(b, "arena_bytes", plan->arena);
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
    memory_profile_clear(&profile);
    g_free(start);
    g_free(dur);
    return text;
}

gboolean chrome_trace_write(const char *path, const Trace *t, const Plan *plan, const ChromeTraceLabels *labels,
                            GError **error)
{
    char *text = chrome_trace_to_json(t, plan, labels);
    gboolean ok = sim_write_file(path, text, strlen(text), error);
    g_free(text);
    return ok;
}
