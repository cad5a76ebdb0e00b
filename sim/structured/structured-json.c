/* structured-json.c — schema-v1 problem documents and solution envelopes (structured-json.h). */
#include "structured/structured-json.h"

#include "base/error.h"
#include "base/files.h"
#include "base/json-text.h"
#include "base/version.h"

#include <json-glib/json-glib.h>
#include <string.h>

typedef struct {
    const char *file;
    GError **error;
    gboolean failed;
    const char *field; /* the member the next typed read is of (member() sets it; each read clears it) */
} Reader;

static gboolean fail(Reader *r, const char *where, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static gboolean fail(Reader *r, const char *where, const char *fmt, ...)
{
    if (r->failed)
        return FALSE;
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(r->error, SIM_ERROR, SIM_ERROR_FORMAT, "%s: %s%s%s", r->file, where ? where : "", where ? ": " : "",
                what);
    g_free(what);
    r->failed = TRUE;
    return FALSE;
}

/* A typed read failed: the path names the member it read (root.problem.buffers[3].size). */
static gboolean fail_typed(Reader *r, const char *path, const char *what)
{
    char *full = r->field ? g_strconcat(path, ".", r->field, NULL) : g_strdup(path);
    r->field = NULL;
    fail(r, full, "%s", what);
    g_free(full);
    return FALSE;
}

/* Every member of `o` is one of `allowed` (NULL-terminated); the first other one is named. */
static gboolean check_fields(Reader *r, JsonObject *o, const char *path, const char *const *allowed)
{
    GList *names = json_object_get_members(o);
    gboolean ok = TRUE;
    for (GList *l = names; l && ok; l = l->next) {
        gboolean known = FALSE;
        for (const char *const *a = allowed; *a && !known; a++)
            known = strcmp(*a, l->data) == 0;
        if (!known) {
            char *safe = g_utf8_make_valid(l->data, -1);
            ok = fail(r, path, "unknown field '%s' (schema-v1 has no such field here)", safe);
            g_free(safe);
        }
    }
    g_list_free(names);
    return ok;
}

static JsonObject *object_of(Reader *r, JsonNode *n, const char *path)
{
    if (!n || !JSON_NODE_HOLDS_OBJECT(n)) {
        if (n)
            fail_typed(r, path, "must be an object");
        return NULL;
    }
    r->field = NULL;
    return json_node_get_object(n);
}

static JsonNode *member(Reader *r, JsonObject *o, const char *name, const char *path)
{
    JsonNode *n = json_object_get_member(o, name);
    r->field = NULL;
    if (!n)
        fail(r, path, "is missing '%s'", name);
    else
        r->field = name;
    return n;
}

static JsonArray *array_of(Reader *r, JsonNode *n, const char *path)
{
    if (!n || !JSON_NODE_HOLDS_ARRAY(n)) {
        if (n)
            fail_typed(r, path, "must be an array");
        return NULL;
    }
    r->field = NULL;
    return json_node_get_array(n);
}

static gboolean integer_of(Reader *r, JsonNode *n, const char *path, gint64 *out)
{
    *out = 0;
    if (!n)
        return FALSE;
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64)
        return fail_typed(r, path, "must be an integer (at most 9223372036854775807)");
    *out = json_node_get_int(n);
    return TRUE;
}

static gboolean unsigned_of(Reader *r, JsonNode *n, const char *path, guint64 max, guint64 *out)
{
    gint64 v;
    *out = 0;
    if (!integer_of(r, n, path, &v))
        return FALSE;
    if (v < 0 || (guint64)v > max) {
        char *what = g_strdup_printf("must be an integer from 0 to %" G_GUINT64_FORMAT, max);
        fail_typed(r, path, what);
        g_free(what);
        return FALSE;
    }
    r->field = NULL;
    *out = (guint64)v;
    return TRUE;
}

static const char *string_of(Reader *r, JsonNode *n, const char *path)
{
    if (!n)
        return NULL;
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
        fail_typed(r, path, "must be a string");
        return NULL;
    }
    r->field = NULL;
    return json_node_get_string(n);
}

static gboolean one_of(Reader *r, const char *value, const char *path, const char *const *names, guint *index)
{
    for (guint i = 0; names[i]; i++)
        if (strcmp(value, names[i]) == 0) {
            *index = i;
            return TRUE;
        }
    char *safe = g_utf8_make_valid(value, -1);
    char *list = g_strjoinv(", ", (char **)names);
    fail(r, path, "'%s' is not one of %s", safe, list);
    g_free(list);
    g_free(safe);
    return FALSE;
}

/* ---- the canonical form the fingerprint is taken over: members sorted by name, no blanks ---- */

static void canonical(GString *s, JsonNode *n)
{
    if (JSON_NODE_HOLDS_OBJECT(n)) {
        JsonObject *o = json_node_get_object(n);
        GList *names = g_list_sort(json_object_get_members(o), (GCompareFunc)strcmp);
        g_string_append_c(s, '{');
        for (GList *l = names; l; l = l->next) {
            json_text_append(s, l->data);
            g_string_append_c(s, ':');
            canonical(s, json_object_get_member(o, l->data));
            if (l->next)
                g_string_append_c(s, ',');
        }
        g_string_append_c(s, '}');
        g_list_free(names);
    } else if (JSON_NODE_HOLDS_ARRAY(n)) {
        JsonArray *a = json_node_get_array(n);
        g_string_append_c(s, '[');
        for (guint i = 0; i < json_array_get_length(a); i++) {
            if (i)
                g_string_append_c(s, ',');
            canonical(s, json_array_get_element(a, i));
        }
        g_string_append_c(s, ']');
    } else if (JSON_NODE_HOLDS_NULL(n)) {
        g_string_append(s, "null");
    } else if (json_node_get_value_type(n) == G_TYPE_INT64) {
        g_string_append_printf(s, "%" G_GINT64_FORMAT, json_node_get_int(n));
    } else if (json_node_get_value_type(n) == G_TYPE_BOOLEAN) {
        g_string_append(s, json_node_get_boolean(n) ? "true" : "false");
    } else if (json_node_get_value_type(n) == G_TYPE_STRING) {
        json_text_append(s, json_node_get_string(n));
    } else {
        g_string_append_printf(s, "%.17g", json_node_get_double(n));
    }
}

static void fingerprint(JsonNode *root, char out[17])
{
    GString *s = g_string_new(NULL);
    canonical(s, root);
    guint64 h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits */
    for (gsize i = 0; i < s->len; i++) {
        h ^= (guchar)s->str[i];
        h *= 0x100000001b3ull;
    }
    g_snprintf(out, 17, "%016" G_GINT64_MODIFIER "x", h);
    g_string_free(s, TRUE);
}

/* ---- the problem ---- */

static const char *const PROFILES[] = {
    "standard_dsa",          "dsa_rp_v1", "pypto_structured", "pypto_hard_v1", "pypto_research_v1",
    "pypto_core_relaxation", NULL};
enum { P_STANDARD, P_RP, P_LEGACY, P_HARD, P_RESEARCH, P_CORE };
static const char *const SEPARATION_REASONS[] = {"generic",           "pipeline_stage", "target_hazard",
                                                 "semantic_no_alias", "cross_pipe",     NULL};
static const char *const PENALTY_REASONS[] = {
    "generic", "pipeline_serialization", "load_motion_serialization", "cross_pipe", "cross_core", "event_budget", NULL};

typedef struct {
    Reader r;
    StructuredProblem *p;
    GHashTable *buffer_ids, *pool_ids; /* file id -> index + 1 */
} Doc;

static gboolean buffer_ref(Doc *d, JsonNode *n, const char *path, guint *index)
{
    guint64 id;
    *index = 0;
    if (!unsigned_of(&d->r, n, path, G_MAXUINT32, &id))
        return FALSE;
    guint at = GPOINTER_TO_UINT(g_hash_table_lookup(d->buffer_ids, GUINT_TO_POINTER((guint)id)));
    if (!at)
        return fail(&d->r, path, "names buffer %" G_GUINT64_FORMAT ", which the problem does not have", id);
    *index = at - 1;
    return TRUE;
}

static gboolean pool_ref(Doc *d, JsonNode *n, const char *path, guint *index)
{
    guint64 id;
    *index = 0;
    if (!unsigned_of(&d->r, n, path, G_MAXUINT32, &id))
        return FALSE;
    guint at = GPOINTER_TO_UINT(g_hash_table_lookup(d->pool_ids, GUINT_TO_POINTER((guint)id)));
    if (!at)
        return fail(&d->r, path, "names pool %" G_GUINT64_FORMAT ", which the problem does not have", id);
    *index = at - 1;
    return TRUE;
}

static gboolean read_pools(Doc *d, JsonArray *pools)
{
    static const char *const fields[] = {"id", "name", "capacity", "reserved_ranges", "bank_geometry", NULL};
    if (!json_array_get_length(pools))
        return fail(&d->r, "root.problem.pools", "has no pools");
    for (guint i = 0; i < json_array_get_length(pools); i++) {
        char *path = g_strdup_printf("root.problem.pools[%u]", i);
        JsonObject *o = object_of(&d->r, json_array_get_element(pools, i), path);
        StructuredPool pool = {0};
        guint64 id = 0;
        const char *name = NULL;
        JsonNode *cap = NULL;
        JsonArray *reserved = NULL;
        if (o && check_fields(&d->r, o, path, fields) &&
            unsigned_of(&d->r, member(&d->r, o, "id", path), path, G_MAXUINT32, &id) &&
            (name = string_of(&d->r, member(&d->r, o, "name", path), path)) &&
            (cap = member(&d->r, o, "capacity", path)) &&
            (reserved = array_of(&d->r, member(&d->r, o, "reserved_ranges", path), path))) {
            if (json_object_has_member(o, "bank_geometry"))
                fail(&d->r, path, "bank_geometry: banked pools (and the bank_cost term) are not supported");
            else if (g_hash_table_contains(d->pool_ids, GUINT_TO_POINTER((guint)id)))
                fail(&d->r, path, "pool id %" G_GUINT64_FORMAT " appears twice", id);
            if (!d->r.failed && !JSON_NODE_HOLDS_NULL(cap)) {
                d->r.field = "capacity";
                pool.bounded = unsigned_of(&d->r, cap, path, G_MAXINT64, &pool.capacity);
            }
        }
        if (!d->r.failed) {
            pool.id = (guint32)id;
            pool.name = g_strdup(name);
            pool.reserved = g_array_new(FALSE, FALSE, sizeof(StructuredRange));
            for (guint k = 0; k < json_array_get_length(reserved) && !d->r.failed; k++) {
                char *rp = g_strdup_printf("%s.reserved_ranges[%u]", path, k);
                static const char *const rf[] = {"begin", "end", NULL};
                JsonObject *ro = object_of(&d->r, json_array_get_element(reserved, k), rp);
                StructuredRange range;
                if (ro && check_fields(&d->r, ro, rp, rf) &&
                    unsigned_of(&d->r, member(&d->r, ro, "begin", rp), rp, G_MAXINT64, &range.begin) &&
                    unsigned_of(&d->r, member(&d->r, ro, "end", rp), rp, G_MAXINT64, &range.end)) {
                    if (range.begin >= range.end)
                        fail(&d->r, rp,
                             "is empty or inverted (begin %" G_GUINT64_FORMAT " >= end %" G_GUINT64_FORMAT ")",
                             range.begin, range.end);
                    else if (pool.bounded && range.end > pool.capacity)
                        fail(&d->r, rp, "ends past the pool's capacity");
                    else
                        g_array_append_val(pool.reserved, range);
                }
                g_free(rp);
            }
            g_array_append_val(d->p->pools, pool);
            g_hash_table_insert(d->pool_ids, GUINT_TO_POINTER(pool.id), GUINT_TO_POINTER(d->p->pools->len));
        }
        g_free(path);
        if (d->r.failed)
            return FALSE;
    }
    return TRUE;
}

static int interval_cmp(gconstpointer a, gconstpointer b)
{
    const StructuredInterval *x = a, *y = b;
    return x->lower < y->lower ? -1 : x->lower > y->lower;
}

static gboolean read_buffer(Doc *d, JsonObject *o, const char *path, GHashTable *names)
{
    static const char *const fields[] = {"id", "name", "size", "alignment", "live_intervals", "allowed_pools", NULL};
    guint64 id;
    const char *name;
    StructuredBuffer b = {0};
    JsonArray *iv, *pools;
    if (!check_fields(&d->r, o, path, fields) ||
        !unsigned_of(&d->r, member(&d->r, o, "id", path), path, G_MAXUINT32, &id) ||
        !(name = string_of(&d->r, member(&d->r, o, "name", path), path)) ||
        !unsigned_of(&d->r, member(&d->r, o, "size", path), path, G_MAXINT64, &b.size) ||
        !unsigned_of(&d->r, member(&d->r, o, "alignment", path), path, G_MAXINT64, &b.align) ||
        !(iv = array_of(&d->r, member(&d->r, o, "live_intervals", path), path)) ||
        !(pools = array_of(&d->r, member(&d->r, o, "allowed_pools", path), path)))
        return FALSE;
    if (g_hash_table_contains(d->buffer_ids, GUINT_TO_POINTER((guint)id)))
        return fail(&d->r, path, "buffer id %" G_GUINT64_FORMAT " appears twice", id);
    if (*name && g_hash_table_contains(names, name))
        return fail(&d->r, path, "buffer name appears twice");
    if (!b.size)
        return fail(&d->r, path, "size is 0");
    if (!b.align)
        return fail(&d->r, path, "alignment is 0");
    if (!json_array_get_length(iv))
        return fail(&d->r, path, "has no live interval");
    if (!json_array_get_length(pools))
        return fail(&d->r, path, "has no allowed pool");
    b.id = (guint32)id;
    b.intervals = g_array_new(FALSE, FALSE, sizeof(StructuredInterval));
    b.pools = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint k = 0; k < json_array_get_length(iv) && !d->r.failed; k++) {
        char *ip = g_strdup_printf("%s.live_intervals[%u]", path, k);
        static const char *const vf[] = {"lower", "upper", NULL};
        JsonObject *vo = object_of(&d->r, json_array_get_element(iv, k), ip);
        StructuredInterval v;
        if (vo && check_fields(&d->r, vo, ip, vf) && integer_of(&d->r, member(&d->r, vo, "lower", ip), ip, &v.lower) &&
            integer_of(&d->r, member(&d->r, vo, "upper", ip), ip, &v.upper)) {
            if (v.lower >= v.upper)
                fail(&d->r, ip, "is empty or inverted (lower %" G_GINT64_FORMAT " >= upper %" G_GINT64_FORMAT ")",
                     v.lower, v.upper);
            else
                g_array_append_val(b.intervals, v);
        }
        g_free(ip);
    }
    for (guint k = 0; k < json_array_get_length(pools) && !d->r.failed; k++) {
        char *pp = g_strdup_printf("%s.allowed_pools[%u]", path, k);
        guint pool;
        if (pool_ref(d, json_array_get_element(pools, k), pp, &pool)) {
            for (guint j = 0; j < b.pools->len; j++)
                if (g_array_index(b.pools, guint, j) == pool)
                    fail(&d->r, pp, "repeats a pool");
            g_array_append_val(b.pools, pool);
        }
        g_free(pp);
    }
    /* one buffer's intervals: sorted, and merged where they overlap or touch (it is one buffer either way) */
    g_array_sort(b.intervals, interval_cmp);
    guint kept = 0;
    for (guint k = 0; k < b.intervals->len; k++) {
        StructuredInterval *v = &g_array_index(b.intervals, StructuredInterval, k);
        StructuredInterval *last = kept ? &g_array_index(b.intervals, StructuredInterval, kept - 1) : NULL;
        if (last && v->lower <= last->upper)
            last->upper = MAX(last->upper, v->upper);
        else
            g_array_index(b.intervals, StructuredInterval, kept++) = *v;
    }
    g_array_set_size(b.intervals, kept);
    b.name = g_strdup(name);
    g_array_append_val(d->p->buffers, b);
    g_hash_table_insert(d->buffer_ids, GUINT_TO_POINTER(b.id), GUINT_TO_POINTER(d->p->buffers->len));
    if (*name)
        g_hash_table_add(names, b.name);
    return !d->r.failed;
}

/* A pair list: colocations, separations (with reasons), temporal exclusions, reuse penalties (cost, reason). */
static gboolean read_pairs(Doc *d, JsonArray *a, const char *path, GArray *into, const char *kind)
{
    gboolean separation = strcmp(kind, "separation") == 0, penalty = strcmp(kind, "penalty") == 0;
    static const char *const plain[] = {"first", "second", NULL};
    static const char *const sep[] = {"first", "second", "reasons", NULL};
    static const char *const pen[] = {"first", "second", "cost", "reason", NULL};
    for (guint i = 0; i < json_array_get_length(a); i++) {
        char *ip = g_strdup_printf("%s[%u]", path, i);
        JsonObject *o = object_of(&d->r, json_array_get_element(a, i), ip);
        StructuredPair pair = {0};
        if (o &&
            check_fields(&d->r, o, ip,
                         separation ? sep
                         : penalty  ? pen
                                    : plain) &&
            buffer_ref(d, member(&d->r, o, "first", ip), ip, &pair.a) &&
            buffer_ref(d, member(&d->r, o, "second", ip), ip, &pair.b)) {
            if (pair.a == pair.b)
                fail(&d->r, ip, "names the same buffer twice");
            if (separation && json_object_has_member(o, "reasons")) {
                JsonArray *reasons = array_of(&d->r, json_object_get_member(o, "reasons"), ip);
                guint seen = 0;
                for (guint k = 0; reasons && k < json_array_get_length(reasons) && !d->r.failed; k++) {
                    const char *s = string_of(&d->r, json_array_get_element(reasons, k), ip);
                    guint which;
                    if (s && one_of(&d->r, s, ip, SEPARATION_REASONS, &which)) {
                        if (seen & (1u << which))
                            fail(&d->r, ip, "repeats the reason '%s'", s);
                        seen |= 1u << which;
                    }
                }
                if (reasons && !json_array_get_length(reasons))
                    fail(&d->r, ip, "reasons is empty");
            }
            if (penalty) {
                const char *s;
                guint which;
                if (unsigned_of(&d->r, member(&d->r, o, "cost", ip), ip, G_MAXUINT32, &pair.cost) &&
                    (s = string_of(&d->r, member(&d->r, o, "reason", ip), ip)))
                    one_of(&d->r, s, ip, PENALTY_REASONS, &which);
            }
            if (!d->r.failed)
                g_array_append_val(into, pair);
        }
        g_free(ip);
        if (d->r.failed)
            return FALSE;
    }
    return TRUE;
}

static gboolean read_pins(Doc *d, JsonArray *a)
{
    static const char *const fields[] = {"buffer", "pool", "offset", "exclusive_for_all_time", NULL};
    for (guint i = 0; i < json_array_get_length(a) && !d->r.failed; i++) {
        char *ip = g_strdup_printf("root.problem.constraints.pinned_allocations[%u]", i);
        JsonObject *o = object_of(&d->r, json_array_get_element(a, i), ip);
        StructuredPin pin = {0};
        JsonNode *ex;
        if (o && check_fields(&d->r, o, ip, fields) && buffer_ref(d, member(&d->r, o, "buffer", ip), ip, &pin.buffer) &&
            pool_ref(d, member(&d->r, o, "pool", ip), ip, &pin.pool) &&
            unsigned_of(&d->r, member(&d->r, o, "offset", ip), ip, G_MAXINT64, &pin.offset) &&
            (ex = member(&d->r, o, "exclusive_for_all_time", ip))) {
            if (!JSON_NODE_HOLDS_VALUE(ex) || json_node_get_value_type(ex) != G_TYPE_BOOLEAN)
                fail(&d->r, ip, "exclusive_for_all_time must be true or false");
            else {
                pin.exclusive = json_node_get_boolean(ex);
                g_array_append_val(d->p->pins, pin);
            }
        }
        g_free(ip);
    }
    return !d->r.failed;
}

/* pypto_structure is provenance (alias classes, pipeline groups): it changes nothing placed, but what it
 * names must exist. */
static gboolean read_provenance(Doc *d, JsonObject *o)
{
    const char *path = "root.problem.pypto_structure";
    static const char *const fields[] = {"alias_classes", "pipeline_groups", NULL};
    JsonArray *classes, *groups;
    if (!check_fields(&d->r, o, path, fields) ||
        !(classes = array_of(&d->r, member(&d->r, o, "alias_classes", path), path)) ||
        !(groups = array_of(&d->r, member(&d->r, o, "pipeline_groups", path), path)))
        return FALSE;
    for (guint i = 0; i < json_array_get_length(classes) && !d->r.failed; i++) {
        char *ip = g_strdup_printf("%s.alias_classes[%u]", path, i);
        static const char *const cf[] = {"buffer", "members", NULL};
        JsonObject *c = object_of(&d->r, json_array_get_element(classes, i), ip);
        guint b;
        JsonArray *members;
        if (c && check_fields(&d->r, c, ip, cf) && buffer_ref(d, member(&d->r, c, "buffer", ip), ip, &b) &&
            (members = array_of(&d->r, member(&d->r, c, "members", ip), ip)))
            for (guint k = 0; k < json_array_get_length(members) && !d->r.failed; k++)
                string_of(&d->r, json_array_get_element(members, k), ip);
        g_free(ip);
    }
    for (guint i = 0; i < json_array_get_length(groups) && !d->r.failed; i++) {
        char *ip = g_strdup_printf("%s.pipeline_groups[%u]", path, i);
        static const char *const gf[] = {"group", "pool", "slot_size", "depth", "effective_depth", "members", NULL};
        static const char *const mf[] = {"buffer", "stage", "residue", NULL};
        JsonObject *g = object_of(&d->r, json_array_get_element(groups, i), ip);
        guint pool, b;
        guint64 v;
        JsonArray *members;
        if (g && check_fields(&d->r, g, ip, gf) &&
            unsigned_of(&d->r, member(&d->r, g, "group", ip), ip, G_MAXINT32, &v) &&
            pool_ref(d, member(&d->r, g, "pool", ip), ip, &pool) &&
            unsigned_of(&d->r, member(&d->r, g, "slot_size", ip), ip, G_MAXINT64, &v) &&
            unsigned_of(&d->r, member(&d->r, g, "depth", ip), ip, G_MAXUINT32, &v) &&
            unsigned_of(&d->r, member(&d->r, g, "effective_depth", ip), ip, G_MAXUINT32, &v) &&
            (members = array_of(&d->r, member(&d->r, g, "members", ip), ip)))
            for (guint k = 0; k < json_array_get_length(members) && !d->r.failed; k++) {
                JsonObject *m = object_of(&d->r, json_array_get_element(members, k), ip);
                if (m && check_fields(&d->r, m, ip, mf) && buffer_ref(d, member(&d->r, m, "buffer", ip), ip, &b) &&
                    unsigned_of(&d->r, member(&d->r, m, "stage", ip), ip, G_MAXINT32, &v))
                    unsigned_of(&d->r, member(&d->r, m, "residue", ip), ip, G_MAXUINT32, &v);
            }
        g_free(ip);
    }
    return !d->r.failed;
}

static gboolean read_objective(Doc *d, JsonObject *o)
{
    const char *path = "root.problem.objective";
    static const char *const fields[] = {"aggregation", "terms", NULL};
    static const char *const terms[] = {"capacity_overflow", "total_peak", "max_peak", "reuse_cost", "bank_cost", NULL};
    const char *agg;
    JsonArray *a;
    if (!check_fields(&d->r, o, path, fields) ||
        !(agg = string_of(&d->r, member(&d->r, o, "aggregation", path), path)) ||
        !(a = array_of(&d->r, member(&d->r, o, "terms", path), path)))
        return FALSE;
    if (strcmp(agg, "lexicographic") != 0)
        return fail(&d->r, path, "aggregation must be \"lexicographic\"");
    if (!json_array_get_length(a))
        return fail(&d->r, path, "has no terms");
    for (guint i = 0; i < json_array_get_length(a); i++) {
        const char *s = string_of(&d->r, json_array_get_element(a, i), path);
        guint which;
        if (!s || !one_of(&d->r, s, path, terms, &which))
            return FALSE;
        if (which == 4)
            return fail(&d->r, path, "the bank_cost term is not supported");
        for (guint k = 0; k < d->p->n_terms; k++)
            if (d->p->terms[k] == (StructuredTerm)which)
                return fail(&d->r, path, "repeats the term '%s'", s);
        d->p->terms[d->p->n_terms++] = (StructuredTerm)which;
    }
    return TRUE;
}

/* The rules between fields: pins, pairs against colocations, and each profile's contract. */
static gboolean check_rules(Doc *d, guint profile, JsonObject *root)
{
    StructuredProblem *p = d->p;
    Reader *r = &d->r;
    guint *pinned = g_new0(guint, p->buffers->len ? p->buffers->len : 1);
    for (guint i = 0; i < p->pins->len && !r->failed; i++) {
        const StructuredPin *pin = &g_array_index(p->pins, StructuredPin, i);
        const StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, pin->buffer);
        const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, pin->pool);
        char *ip = g_strdup_printf("root.problem.constraints.pinned_allocations[%u]", i);
        gboolean allowed = FALSE;
        for (guint k = 0; k < b->pools->len; k++)
            allowed |= g_array_index(b->pools, guint, k) == pin->pool;
        if (pinned[pin->buffer]++)
            fail(r, ip, "buffer %u is pinned twice", b->id);
        else if (!allowed)
            fail(r, ip, "pins buffer %u to pool %u, which it may not use", b->id, pool->id);
        else if (pin->offset % b->align)
            fail(r, ip, "offset %" G_GUINT64_FORMAT " is not a multiple of the buffer's alignment %" G_GUINT64_FORMAT,
                 pin->offset, b->align);
        else if (pin->offset > G_MAXINT64 - b->size || (pool->bounded && pin->offset + b->size > pool->capacity))
            fail(r, ip, "ends past the pool's capacity");
        for (guint k = 0; k < pool->reserved->len && !r->failed; k++) {
            const StructuredRange *range = &g_array_index(pool->reserved, StructuredRange, k);
            if (structured_bytes_overlap(pin->offset, b->size, range->begin, range->end - range->begin))
                fail(r, ip, "overlaps a reserved range of pool %u", pool->id);
        }
        g_free(ip);
    }
    g_free(pinned);
    if (!r->failed) {
        guint *classes = structured_colocation_classes(p);
        for (guint i = 0; i < p->separations->len && !r->failed; i++) {
            const StructuredPair *s = &g_array_index(p->separations, StructuredPair, i);
            if (classes[s->a] == classes[s->b])
                fail(r, "root.problem.constraints.separations", "buffers %u and %u are both colocated and separated",
                     g_array_index(p->buffers, StructuredBuffer, s->a).id,
                     g_array_index(p->buffers, StructuredBuffer, s->b).id);
        }
        g_free(classes);
    }
    if (r->failed)
        return FALSE;
    gboolean one_interval = TRUE, fixed_pools = TRUE, unit_align = TRUE;
    for (guint i = 0; i < p->buffers->len; i++) {
        const StructuredBuffer *b = &g_array_index(p->buffers, StructuredBuffer, i);
        one_interval &= b->intervals->len == 1;
        fixed_pools &= b->pools->len == 1;
        unit_align &= b->align == 1;
    }
    gboolean costs = json_object_has_member(json_object_get_object_member(root, "problem"), "cost_model");
    gboolean provenance = json_object_has_member(json_object_get_object_member(root, "problem"), "pypto_structure");
    gboolean constraints = p->colocations->len || p->separations->len || p->exclusions->len || p->pins->len;
    gboolean peak = p->n_terms == 2 && p->terms[0] == STRUCTURED_TOTAL_PEAK && p->terms[1] == STRUCTURED_MAX_PEAK;
    if (profile == P_STANDARD || profile == P_CORE) {
        const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, 0);
        if (p->pools->len != 1 || pool->reserved->len || !one_interval || !unit_align || constraints || costs ||
            provenance)
            return fail(r, "root.profile",
                        "%s allows one pool without reserved ranges, one interval per buffer, "
                        "alignment 1, and no constraints, costs or provenance",
                        p->profile);
        for (guint i = 0; i < p->n_terms; i++)
            if (p->terms[i] == STRUCTURED_REUSE_COST)
                return fail(r, "root.profile", "%s has no reuse_cost term", p->profile);
    }
    if (profile == P_RP) {
        const StructuredPool *pool = &g_array_index(p->pools, StructuredPool, 0);
        gboolean rp_terms =
            p->n_terms == 2 && p->terms[0] == STRUCTURED_OVERFLOW && p->terms[1] == STRUCTURED_REUSE_COST;
        if (p->pools->len != 1 || !pool->bounded || pool->reserved->len || !one_interval || !unit_align ||
            constraints || provenance || !rp_terms)
            return fail(r, "root.profile",
                        "dsa_rp_v1 is one pool with a capacity, one interval per buffer, alignment 1, "
                        "reuse penalties and the objective [capacity_overflow, reuse_cost]");
    }
    if (profile == P_HARD) {
        if (!one_interval || !fixed_pools || p->colocations->len || p->exclusions->len || p->pins->len || costs ||
            !peak)
            return fail(r, "root.profile",
                        "pypto_hard_v1 allows one interval and one pool per buffer, separations only, "
                        "no cost model, and the objective [total_peak, max_peak]");
    }
    if (profile == P_HARD || profile == P_RESEARCH || profile == P_LEGACY) {
        JsonObject *meta =
            json_object_has_member(root, "metadata") ? json_object_get_object_member(root, "metadata") : NULL;
        const char *need[][2] = {{"lifetime_ordering", "pypto_read_before_write"},
                                 {"solver_input", "pre_memory_reuse"}};
        for (guint i = 0; i < G_N_ELEMENTS(need) && profile != P_LEGACY; i++) {
            const char *v = meta && json_object_has_member(meta, need[i][0])
                                ? json_object_get_string_member_with_default(meta, need[i][0], "")
                                : "";
            if (strcmp(v, need[i][1]) != 0)
                return fail(r, "root.metadata", "%s requires %s = \"%s\"", p->profile, need[i][0], need[i][1]);
        }
    }
    if (json_object_has_member(root, "relaxed_from") != (profile == P_CORE) ||
        (json_object_has_member(root, "relaxed_features") && profile != P_CORE))
        return fail(r, "root",
                    "relaxed_from (and relaxed_features) belong to pypto_core_relaxation, which needs "
                    "relaxed_from");
    return TRUE;
}

static gboolean read_document(Doc *d, JsonNode *node)
{
    static const char *const root_fields[] = {"schema_version",   "profile",  "instance", "relaxed_from",
                                              "relaxed_features", "metadata", "problem",  NULL};
    static const char *const problem_fields[] = {"pools",           "buffers",   "constraints", "cost_model",
                                                 "pypto_structure", "objective", NULL};
    static const char *const constraint_fields[] = {"colocations", "separations", "temporal_exclusions",
                                                    "pinned_allocations", NULL};
    Reader *r = &d->r;
    JsonObject *root = object_of(r, node, "root");
    guint64 version;
    const char *profile, *instance;
    guint which;
    if (!root || !check_fields(r, root, "root", root_fields) ||
        !unsigned_of(r, member(r, root, "schema_version", "root"), "root.schema_version", G_MAXUINT32, &version))
        return FALSE;
    if (version != 1)
        return fail(r, "root.schema_version", "is %" G_GUINT64_FORMAT "; only schema version 1 is read", version);
    if (!(profile = string_of(r, member(r, root, "profile", "root"), "root.profile")) ||
        !one_of(r, profile, "root.profile", PROFILES, &which) ||
        !(instance = string_of(r, member(r, root, "instance", "root"), "root.instance")))
        return FALSE;
    if (!*instance)
        return fail(r, "root.instance", "is empty");
    d->p->profile = g_strdup(profile);
    d->p->instance = g_strdup(instance);
    if (json_object_has_member(root, "metadata")) {
        JsonObject *meta = object_of(r, json_object_get_member(root, "metadata"), "root.metadata");
        if (!meta)
            return FALSE;
        GList *names = json_object_get_members(meta);
        for (GList *l = names; l && !r->failed; l = l->next)
            string_of(r, json_object_get_member(meta, l->data), "root.metadata");
        g_list_free(names);
    }
    if (json_object_has_member(root, "relaxed_from"))
        string_of(r, json_object_get_member(root, "relaxed_from"), "root.relaxed_from");
    if (json_object_has_member(root, "relaxed_features")) {
        JsonArray *f = array_of(r, json_object_get_member(root, "relaxed_features"), "root.relaxed_features");
        for (guint i = 0; f && i < json_array_get_length(f) && !r->failed; i++)
            string_of(r, json_array_get_element(f, i), "root.relaxed_features");
    }
    if (r->failed)
        return FALSE;
    JsonObject *problem = object_of(r, member(r, root, "problem", "root"), "root.problem");
    JsonArray *pools, *buffers;
    JsonObject *constraints, *objective;
    if (!problem || !check_fields(r, problem, "root.problem", problem_fields) ||
        !(pools = array_of(r, member(r, problem, "pools", "root.problem"), "root.problem.pools")) ||
        !read_pools(d, pools) ||
        !(buffers = array_of(r, member(r, problem, "buffers", "root.problem"), "root.problem.buffers")))
        return FALSE;
    if (!json_array_get_length(buffers))
        return fail(r, "root.problem.buffers", "has no buffers");
    if (json_array_get_length(buffers) > STRUCTURED_MAX_BUFFERS)
        return fail(r, "root.problem.buffers", "holds %u buffers, more than the %u read",
                    json_array_get_length(buffers), STRUCTURED_MAX_BUFFERS);
    GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < json_array_get_length(buffers) && !r->failed; i++) {
        char *path = g_strdup_printf("root.problem.buffers[%u]", i);
        JsonObject *o = object_of(r, json_array_get_element(buffers, i), path);
        if (o)
            read_buffer(d, o, path, names);
        g_free(path);
    }
    g_hash_table_destroy(names);
    if (r->failed ||
        !(constraints = object_of(r, member(r, problem, "constraints", "root.problem"), "root.problem.constraints")) ||
        !check_fields(r, constraints, "root.problem.constraints", constraint_fields))
        return FALSE;
    const char *kinds[][2] = {
        {"colocations", "colocation"}, {"separations", "separation"}, {"temporal_exclusions", "exclusion"}};
    GArray *into[] = {d->p->colocations, d->p->separations, d->p->exclusions};
    guint64 pairs = 0;
    for (guint k = 0; k < G_N_ELEMENTS(kinds); k++) {
        char *path = g_strconcat("root.problem.constraints.", kinds[k][0], NULL);
        JsonArray *a = array_of(r, member(r, constraints, kinds[k][0], "root.problem.constraints"), path);
        if (a && (pairs += json_array_get_length(a)) > STRUCTURED_MAX_PAIRS)
            fail(r, path, "the problem holds more than %u pairs", STRUCTURED_MAX_PAIRS);
        if (a && !r->failed)
            read_pairs(d, a, path, into[k], kinds[k][1]);
        g_free(path);
        if (r->failed)
            return FALSE;
    }
    JsonArray *pins = array_of(r, member(r, constraints, "pinned_allocations", "root.problem.constraints"),
                               "root.problem.constraints.pinned_allocations");
    if (!pins || !read_pins(d, pins))
        return FALSE;
    if (json_object_has_member(problem, "cost_model")) {
        static const char *const cf[] = {"reuse_penalties", NULL};
        JsonObject *cm = object_of(r, json_object_get_member(problem, "cost_model"), "root.problem.cost_model");
        JsonArray *pen;
        if (!cm || !check_fields(r, cm, "root.problem.cost_model", cf) ||
            !(pen = array_of(r, member(r, cm, "reuse_penalties", "root.problem.cost_model"),
                             "root.problem.cost_model.reuse_penalties")))
            return FALSE;
        if ((pairs += json_array_get_length(pen)) > STRUCTURED_MAX_PAIRS)
            return fail(r, "root.problem.cost_model", "the problem holds more than %u pairs", STRUCTURED_MAX_PAIRS);
        if (!read_pairs(d, pen, "root.problem.cost_model.reuse_penalties", d->p->penalties, "penalty"))
            return FALSE;
    }
    if (json_object_has_member(problem, "pypto_structure")) {
        JsonObject *ps =
            object_of(r, json_object_get_member(problem, "pypto_structure"), "root.problem.pypto_structure");
        if (!ps || !read_provenance(d, ps))
            return FALSE;
    }
    if (!(objective = object_of(r, member(r, problem, "objective", "root.problem"), "root.problem.objective")) ||
        !read_objective(d, objective))
        return FALSE;
    return check_rules(d, which, root);
}

gboolean structured_json_is_problem_path(const char *path)
{
    return path && g_str_has_suffix(path, ".json");
}

StructuredProblem *structured_json_parse(const char *text, gsize len, const char *path, GError **error)
{
    JsonParser *parser = json_parser_new();
    GError *e = NULL;
    if (!json_parser_load_from_data(parser, text, (gssize)len, &e)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s: not JSON: %s", path, e->message);
        g_error_free(e);
        g_object_unref(parser);
        return NULL;
    }
    Doc d = {.r = {path, error, FALSE, NULL}, .p = structured_new(path)};
    d.buffer_ids = g_hash_table_new(g_direct_hash, g_direct_equal);
    d.pool_ids = g_hash_table_new(g_direct_hash, g_direct_equal);
    JsonNode *root = json_parser_get_root(parser);
    gboolean ok = root && read_document(&d, root);
    if (!root)
        fail(&d.r, NULL, "the file holds no JSON document");
    if (ok)
        fingerprint(root, d.p->fingerprint);
    g_hash_table_destroy(d.buffer_ids);
    g_hash_table_destroy(d.pool_ids);
    g_object_unref(parser);
    if (!ok) {
        structured_free(d.p);
        return NULL;
    }
    return d.p;
}

StructuredProblem *structured_json_read(const char *path, GError **error)
{
    char *text;
    gsize len;
    GError *e = NULL;
    if (!sim_read_file(path, SIM_TEXT_MAX_BYTES, &text, &len, &e)) {
        g_set_error(error, SIM_ERROR, e->code, "%s: %s", path, e->message);
        g_error_free(e);
        return NULL;
    }
    StructuredProblem *p = structured_json_parse(text, len, path, error);
    g_free(text);
    return p;
}

/* ---- the solution envelope ---- */

char *structured_json_solution(const StructuredProblem *p, const StructuredPlace *place, const char *strategy)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "schema_version");
    json_builder_add_int_value(b, 1);
    json_builder_set_member_name(b, "profile");
    json_add_text(b, p->profile);
    json_builder_set_member_name(b, "instance");
    json_add_text(b, p->instance);
    json_builder_set_member_name(b, "problem_fingerprint");
    json_builder_add_string_value(b, p->fingerprint);
    json_builder_set_member_name(b, "metadata");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "producer");
    json_builder_add_string_value(b, "arenasim " SIM_VERSION);
    json_builder_set_member_name(b, "strategy");
    json_add_text(b, strategy ? strategy : "");
    json_builder_end_object(b);
    json_builder_set_member_name(b, "placements");
    json_builder_begin_array(b);
    for (guint i = 0; i < p->buffers->len; i++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "buffer");
        json_builder_add_int_value(b, g_array_index(p->buffers, StructuredBuffer, i).id);
        json_builder_set_member_name(b, "pool");
        json_builder_add_int_value(b, g_array_index(p->pools, StructuredPool, place[i].pool).id);
        json_builder_set_member_name(b, "offset");
        json_builder_add_int_value(b, (gint64)place[i].offset);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    return json_document_text(b);
}

StructuredPlace *structured_json_read_solution(const StructuredProblem *p, const char *path, GError **error)
{
    char *text;
    gsize len;
    GError *e = NULL;
    if (!sim_read_file(path, SIM_TEXT_MAX_BYTES, &text, &len, &e)) {
        g_set_error(error, SIM_ERROR, e->code, "%s: %s", path, e->message);
        g_error_free(e);
        return NULL;
    }
    JsonParser *parser = json_parser_new();
    Reader r = {path, error, FALSE, NULL};
    StructuredPlace *place = NULL;
    if (!json_parser_load_from_data(parser, text, (gssize)len, &e)) {
        fail(&r, NULL, "not JSON: %s", e->message);
        g_error_free(e);
    } else {
        static const char *const fields[] = {"schema_version", "profile",    "instance", "problem_fingerprint",
                                             "metadata",       "placements", NULL};
        static const char *const pf[] = {"buffer", "pool", "offset", NULL};
        JsonObject *root = object_of(&r, json_parser_get_root(parser), "root");
        guint64 version;
        const char *profile, *instance, *fp;
        JsonArray *a;
        if (root && check_fields(&r, root, "root", fields) &&
            unsigned_of(&r, member(&r, root, "schema_version", "root"), "root.schema_version", G_MAXUINT32, &version) &&
            (profile = string_of(&r, member(&r, root, "profile", "root"), "root.profile")) &&
            (instance = string_of(&r, member(&r, root, "instance", "root"), "root.instance")) &&
            (fp = string_of(&r, member(&r, root, "problem_fingerprint", "root"), "root.problem_fingerprint")) &&
            object_of(&r, member(&r, root, "metadata", "root"), "root.metadata") &&
            (a = array_of(&r, member(&r, root, "placements", "root"), "root.placements"))) {
            if (version != 1)
                fail(&r, "root.schema_version", "is %" G_GUINT64_FORMAT ", not 1", version);
            else if (strcmp(profile, p->profile) != 0)
                fail(&r, "root.profile", "is not the problem's (%s)", p->profile);
            else if (strcmp(instance, p->instance) != 0)
                fail(&r, "root.instance", "is not the problem's instance");
            else if (strcmp(fp, p->fingerprint) != 0)
                fail(&r, "root.problem_fingerprint", "is not the problem's (%s): the solution is for another input",
                     p->fingerprint);
            GHashTable *ids = g_hash_table_new(g_direct_hash, g_direct_equal),
                       *pools = g_hash_table_new(g_direct_hash, g_direct_equal);
            for (guint i = 0; i < p->buffers->len; i++)
                g_hash_table_insert(ids, GUINT_TO_POINTER(g_array_index(p->buffers, StructuredBuffer, i).id),
                                    GUINT_TO_POINTER(i + 1));
            for (guint i = 0; i < p->pools->len; i++)
                g_hash_table_insert(pools, GUINT_TO_POINTER(g_array_index(p->pools, StructuredPool, i).id),
                                    GUINT_TO_POINTER(i + 1));
            place = g_new0(StructuredPlace, p->buffers->len);
            gboolean *seen = g_new0(gboolean, p->buffers->len);
            for (guint i = 0; i < json_array_get_length(a) && !r.failed; i++) {
                char *ip = g_strdup_printf("root.placements[%u]", i);
                JsonObject *o = object_of(&r, json_array_get_element(a, i), ip);
                guint64 b, pool, offset;
                if (o && check_fields(&r, o, ip, pf) &&
                    unsigned_of(&r, member(&r, o, "buffer", ip), ip, G_MAXUINT32, &b) &&
                    unsigned_of(&r, member(&r, o, "pool", ip), ip, G_MAXUINT32, &pool) &&
                    unsigned_of(&r, member(&r, o, "offset", ip), ip, G_MAXINT64, &offset)) {
                    guint bi = GPOINTER_TO_UINT(g_hash_table_lookup(ids, GUINT_TO_POINTER((guint)b)));
                    guint pi = GPOINTER_TO_UINT(g_hash_table_lookup(pools, GUINT_TO_POINTER((guint)pool)));
                    if (!bi)
                        fail(&r, ip, "places buffer %" G_GUINT64_FORMAT ", which the problem does not have", b);
                    else if (!pi)
                        fail(&r, ip, "names pool %" G_GUINT64_FORMAT ", which the problem does not have", pool);
                    else if (seen[bi - 1])
                        fail(&r, ip, "places buffer %" G_GUINT64_FORMAT " a second time", b);
                    else {
                        seen[bi - 1] = TRUE;
                        place[bi - 1] = (StructuredPlace){pi - 1, offset};
                    }
                }
                g_free(ip);
            }
            for (guint i = 0; i < p->buffers->len && !r.failed; i++)
                if (!seen[i])
                    fail(&r, "root.placements", "buffer %u has no placement",
                         g_array_index(p->buffers, StructuredBuffer, i).id);
            g_free(seen);
            g_hash_table_destroy(ids);
            g_hash_table_destroy(pools);
        }
    }
    g_object_unref(parser);
    g_free(text);
    if (r.failed) {
        g_free(place);
        return NULL;
    }
    return place;
}
