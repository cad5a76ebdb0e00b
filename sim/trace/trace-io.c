/* trace-io.c — reading and writing traces: our text format (docs/trace-format.md) and MiniMalloc's
 * CSV. Every malformed line is an error `FILE:LINE: what is wrong`. Time points beyond what a dense
 * step array can hold are compressed (their order, and so every overlap, is kept). */
#include "base/files.h"
#include "trace/trace.h"
#include "trace/trace-tiers.h"

#include <stdlib.h>
#include <string.h>

#define TRACE_MAGIC "arenasim-trace 1"
/* Above this many steps per buffer the time axis is compressed to the distinct time points. */
#define SPARSE_STEPS_PER_BUFFER 16

static gboolean line_error(GError **error, const char *path, guint line, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static gboolean line_error(GError **error, const char *path, guint line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, SIM_ERROR, SIM_ERROR_FORMAT, "%s:%u: %s", path, line, msg);
    g_free(msg);
    return FALSE;
}

static gboolean parse_u64(const char *s, guint64 *out)
{
    /* Decimal digits only, checked against 2^64: the reader's hot path (four numbers a line). */
    if (!s || !*s)
        return FALSE;
    guint64 v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (G_MAXUINT64 - (guint64)(*s - '0')) / 10)
            return FALSE;
        v = v * 10 + (guint64)(*s - '0');
    }
    *out = v;
    return TRUE;
}
/* Names are written with %XX escapes for bytes that would break a field: whitespace, ',', '%', controls. */
char *trace_name_escape(const char *name)
{
    GString *s = g_string_new(NULL);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p <= ' ' || *p == ',' || *p == '%' || *p == 0x7f)
            g_string_append_printf(s, "%%%02X", *p);
        else
            g_string_append_c(s, (char)*p);
    }
    if (s->len == 0)
        g_string_append(s, "%00");
    return g_string_free(s, FALSE);
}

/* Undoes trace_name_escape in place (the text only shrinks). */
static char *unescape_in_place(char *text)
{
    char *to = strchr(text, '%');
    if (!to)
        return text;
    for (const char *p = to; *p; p++) {
        if (*p == '%' && g_ascii_isxdigit(p[1]) && g_ascii_isxdigit(p[2])) {
            int v = g_ascii_xdigit_value(p[1]) * 16 + g_ascii_xdigit_value(p[2]);
            if (v)
                *to++ = (char)v;
            p += 2;
        } else {
            *to++ = *p;
        }
    }
    *to = '\0';
    return text;
}

/* Fields of one line, split in place (reused from line to line). */
typedef struct {
    char **at;
    guint len, size;
} Fields;

static void fields_add(Fields *f, char *field)
{
    if (f->len == f->size) {
        f->size = f->size ? 2 * f->size : 16;
        f->at = g_renew(char *, f->at, f->size);
    }
    f->at[f->len++] = field;
}

/* Splits a line in place into `out` (NULL-terminated): at every ',' for CSV (empty fields kept, white space
 * around each field dropped), at runs of blanks otherwise. */
static void split_fields(char *line, gboolean csv, Fields *out)
{
    out->len = 0;
    char *c = line;
    if (csv) { /* each field stripped of surrounding white space here, where its end is known */
        for (;;) {
            while (g_ascii_isspace(*c))
                c++;
            char *comma = strchr(c, ','), *stop = comma ? comma : c + strlen(c);
            while (stop > c && g_ascii_isspace(stop[-1]))
                stop--;
            *stop = '\0';
            fields_add(out, c);
            if (!comma)
                break;
            c = comma + 1;
        }
    } else {
        while (*c) {
            fields_add(out, c);
            while (*c && *c != ' ' && *c != '\t')
                c++;
            if (!*c)
                break;
            *c++ = '\0';
            while (*c == ' ' || *c == '\t')
                c++;
        }
    }
    fields_add(out, NULL);
}

/* Raw time points as read, before compression. */
typedef struct {
    guint64 first, last;
} RawSpan;

static int cmp_u64(const void *a, const void *b)
{
    guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
    return x < y ? -1 : x > y;
}

static guint64 find_point(const guint64 *points, gsize n, guint64 v)
{
    gsize lo = 0, hi = n;
    while (lo < hi) {
        gsize mid = (lo + hi) / 2;
        if (points[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Sets first/last of every buffer from the raw spans, compressing time when it is sparse. */
static gboolean set_lifetimes(Trace *t, const GArray *spans, guint64 declared_steps, const char *path, GError **error)
{
    guint64 max_last = 0;
    for (guint k = 0; k < spans->len; k++)
        max_last = MAX(max_last, g_array_index(spans, RawSpan, k).last);
    guint64 steps = MAX(declared_steps, spans->len ? max_last + 1 : 0);
    if (steps <= (guint64)SPARSE_STEPS_PER_BUFFER * spans->len + 1024) {
        for (guint k = 0; k < spans->len; k++) {
            RawSpan s = g_array_index(spans, RawSpan, k);
            trace_buffer(t, k)->first = (guint)s.first;
            trace_buffer(t, k)->last = (guint)s.last;
        }
        t->steps = (guint)steps;
        return TRUE;
    }
    /* Sparse: keep only the distinct time points (first and last of each buffer), in order. */
    gsize n = 2 * (gsize)spans->len;
    guint64 *points = g_new(guint64, n ? n : 1);
    for (guint k = 0; k < spans->len; k++) {
        points[2 * k] = g_array_index(spans, RawSpan, k).first;
        points[2 * k + 1] = g_array_index(spans, RawSpan, k).last;
    }
    qsort(points, n, sizeof(guint64), cmp_u64);
    gsize unique = 0;
    for (gsize k = 0; k < n; k++)
        if (unique == 0 || points[unique - 1] != points[k])
            points[unique++] = points[k];
    for (guint k = 0; k < spans->len; k++) {
        RawSpan s = g_array_index(spans, RawSpan, k);
        trace_buffer(t, k)->first = (guint)find_point(points, unique, s.first);
        trace_buffer(t, k)->last = (guint)find_point(points, unique, s.last);
    }
    t->steps = (guint)unique;
    t->time_points = g_renew(guint64, points, unique ? unique : 1); /* written back by trace_to_csv */
    (void)path;
    (void)error;
    return TRUE;
}

/* ---------- our text format ---------- */

static gboolean parse_text_line(Trace *t, GArray *spans, char **fields, guint nf, const char *path, guint line,
                                GError **error)
{
    guint64 id, size, first, last;
    if (nf < 5)
        return line_error(error, path, line, "expected 'id name size first last [key=value ...]', got %u fields", nf);
    if (!parse_u64(fields[0], &id))
        return line_error(error, path, line, "id '%s' is not a non-negative integer", fields[0]);
    if (id != trace_count(t))
        return line_error(error, path, line, "id %s out of sequence (ids count up from 0; expected %u)", fields[0],
                          trace_count(t));
    if (!parse_u64(fields[2], &size) || size == 0)
        return line_error(error, path, line, "size '%s' is not a positive integer", fields[2]);
    if (!parse_u64(fields[3], &first) || !parse_u64(fields[4], &last))
        return line_error(error, path, line, "first '%s' and last '%s' must be non-negative integers", fields[3],
                          fields[4]);
    if (last < first)
        return line_error(error, path, line, "last step %s is before first step %s", fields[4], fields[3]);
    trace_add(t, unescape_in_place(fields[1]), size, 1, 0, 0);
    RawSpan span = {first, last};
    g_array_append_val(spans, span);
    TraceBuffer *b = trace_buffer(t, trace_count(t) - 1);
    for (guint k = 5; k < nf; k++) {
        const char *eq = strchr(fields[k], '=');
        guint64 v = 0;
        if (!eq)
            return line_error(error, path, line, "'%s' is not key=value", fields[k]);
        /* the key compared where it stands: no copy per line (most lines of a large trace carry align=) */
        gsize key_len = (gsize)(eq - fields[k]);
#define KEY_IS(name) (key_len == sizeof(name) - 1 && !memcmp(fields[k], name, key_len))
        const char *val = eq + 1;
        gboolean ok = TRUE;
        if (KEY_IS("align")) {
            ok = parse_u64(val, &v) && v > 0 && !(v & (v - 1));
            b->align = v;
        } else if (KEY_IS("fixed")) {
            ok = parse_u64(val, &v) && v <= G_MAXINT64;
            b->fixed = (gint64)v;
        } else if (KEY_IS("bin")) {
            ok = parse_u64(val, &v) && v < 1024;
            b->bin = (guint)v;
        } else if (KEY_IS("reads") || KEY_IS("writes")) {
            ok = parse_u64(val, &v);
            *(KEY_IS("reads") ? &b->reads : &b->writes) = v;
        } else if (KEY_IS("tier")) {
            GError *why = NULL;
            if (!t->tiers)
                return line_error(error, path, line, "'%s' names a tier before a 'tiers SPEC' line declared any",
                                  fields[k]);
            if (!trace_tiers_mask_parse(t->tiers, val, &b->tiers, &why)) {
                line_error(error, path, line, "'%s': %s", fields[k], why->message);
                g_error_free(why);
                return FALSE;
            }
        } else if (KEY_IS("reuse")) {
            ok = !strcmp(val, "none") || (parse_u64(val, &v) && v > 0 && v < TRACE_REUSE_NONE);
            b->reuse = !strcmp(val, "none") ? TRACE_REUSE_NONE : v;
        } else if (KEY_IS("group")) {
            const char *colon = strchr(val, ':');
            char *gid = colon ? g_strndup(val, colon - val) : NULL;
            guint64 off = 0;
            ok = colon && parse_u64(gid, &v) && v <= G_MAXINT64 && parse_u64(colon + 1, &off);
            b->group = (gint64)v;
            b->group_offset = off;
            g_free(gid);
        } else {
            return line_error(error, path, line,
                              "unknown key '%s' (align, fixed, group, bin, reuse, reads, writes, tier)", fields[k]);
        }
#undef KEY_IS
        if (!ok)
            return line_error(error, path, line, "bad value in '%s'", fields[k]);
    }
    return TRUE;
}

/* ---------- MiniMalloc CSV ---------- */

typedef struct {
    int id, lower, upper, size, alignment, offset, gaps, reads, writes, tier;
    gboolean inclusive_end; /* the header says `end` (inclusive) rather than `upper` (exclusive) */
    guint columns;
} CsvColumns;

static gboolean parse_csv_header(char **fields, guint nf, CsvColumns *c, const char *path, guint line, GError **error)
{
    memset(c, -1, sizeof(*c));
    c->inclusive_end = FALSE;
    c->columns = nf;
    for (guint k = 0; k < nf; k++) {
        const char *f = fields[k];
        int *slot = NULL;
        if (!strcmp(f, "id") || !strcmp(f, "buffer") || !strcmp(f, "buffer_id"))
            slot = &c->id;
        else if (!strcmp(f, "lower") || !strcmp(f, "start") || !strcmp(f, "begin"))
            slot = &c->lower;
        else if (!strcmp(f, "upper") || !strcmp(f, "end")) {
            slot = &c->upper;
            c->inclusive_end = !strcmp(f, "end");
        } else if (!strcmp(f, "size"))
            slot = &c->size;
        else if (!strcmp(f, "alignment"))
            slot = &c->alignment;
        else if (!strcmp(f, "offset"))
            slot = &c->offset;
        else if (!strcmp(f, "gaps"))
            slot = &c->gaps;
        else if (!strcmp(f, "reads"))
            slot = &c->reads;
        else if (!strcmp(f, "writes"))
            slot = &c->writes;
        else if (!strcmp(f, "tier"))
            slot = &c->tier;
        else
            return line_error(error, path, line, "unknown column '%s'", f);
        if (*slot >= 0)
            return line_error(error, path, line, "column '%s' appears twice", f);
        *slot = (int)k;
    }
    if (c->id < 0 || c->lower < 0 || c->upper < 0 || c->size < 0)
        return line_error(error, path, line, "the header must name id, lower, upper and size");
    return TRUE;
}

static gboolean parse_csv_line(Trace *t, GArray *spans, GHashTable *ids, const CsvColumns *c, char **fields, guint nf,
                               const char *path, guint line, GError **error)
{
    if (nf != c->columns)
        return line_error(error, path, line, "%u fields, the header has %u", nf, c->columns);
    guint64 lower, upper, size, align = 1, offset;
    if (!*fields[c->id])
        return line_error(error, path, line, "empty id");
    const char *id = unescape_in_place(fields[c->id]); /* what trace_to_csv escaped (%XX) comes back as it was */
    if (g_hash_table_contains(ids, id))
        return line_error(error, path, line, "id '%s' appears twice", id);
    if (!parse_u64(fields[c->lower], &lower) || !parse_u64(fields[c->upper], &upper))
        return line_error(error, path, line, "lower '%s' and upper '%s' must be non-negative integers", fields[c->lower],
                          fields[c->upper]);
    if (c->inclusive_end) {
        if (upper == G_MAXUINT64)
            return line_error(error, path, line, "end %s is too large", fields[c->upper]);
        upper++;
    }
    if (upper <= lower)
        return line_error(error, path, line, "upper %" G_GUINT64_FORMAT " must be greater than lower %" G_GUINT64_FORMAT
                          " (lifetimes are half-open [lower, upper))", upper, lower);
    if (!parse_u64(fields[c->size], &size) || size == 0)
        return line_error(error, path, line, "size '%s' is not a positive integer", fields[c->size]);
    if (c->alignment >= 0 && (!parse_u64(fields[c->alignment], &align) || align == 0 || (align & (align - 1))))
        return line_error(error, path, line, "alignment '%s' is not a power of two", fields[c->alignment]);
    if (c->gaps >= 0 && *fields[c->gaps])
        return line_error(error, path, line, "buffers with gaps in their lifetime are not supported");
    guint nid = trace_add(t, id, size, align, 0, 0);
    g_hash_table_add(ids, trace_buffer(t, nid)->name);
    if (c->offset >= 0 && *fields[c->offset]) { /* an empty offset: not fixed */
        if (!parse_u64(fields[c->offset], &offset) || offset > G_MAXINT64)
            return line_error(error, path, line, "offset '%s' is not a non-negative integer", fields[c->offset]);
        trace_buffer(t, nid)->fixed = (gint64)offset;
    }
    TraceBuffer *b = trace_buffer(t, nid);
    if (c->reads >= 0 && !parse_u64(fields[c->reads], &b->reads))
        return line_error(error, path, line, "reads '%s' is not a non-negative integer", fields[c->reads]);
    if (c->writes >= 0 && !parse_u64(fields[c->writes], &b->writes))
        return line_error(error, path, line, "writes '%s' is not a non-negative integer", fields[c->writes]);
    if (c->tier >= 0 && *fields[c->tier]) { /* a tier by its position in --tiers: the buffer goes there */
        guint64 tier;
        if (!parse_u64(fields[c->tier], &tier) || tier >= TRACE_TIERS_MAX)
            return line_error(error, path, line, "tier '%s' is not a tier's position (0 to %u)", fields[c->tier],
                              TRACE_TIERS_MAX - 1);
        b->tiers = 1u << tier;
    }
    RawSpan span = {lower, upper - 1};
    g_array_append_val(spans, span);
    return TRUE;
}

Trace *trace_parse(const char *text, gsize len, const char *path, gboolean csv, GError **error)
{
    Trace *t = trace_new(path);
    guint lines = 0; /* an upper bound on the buffers: arrays sized once */
    for (const char *c = text; c && (c = memchr(c, '\n', len - (gsize)(c - text))); c++)
        lines++;
    lines = (guint)MIN((gsize)lines + 1, MIN(len / 9 + 1, (gsize)1 << 24)); /* a buffer line has 9 bytes or more */
    trace_reserve(t, lines);
    GArray *spans = g_array_sized_new(FALSE, FALSE, sizeof(RawSpan), lines);
    GHashTable *ids = g_hash_table_new(g_str_hash, g_str_equal);
    CsvColumns cols;
    gboolean have_header = FALSE, ok = TRUE;
    guint64 declared_steps = 0;
    if (memchr(text, '\0', len)) {
        ok = line_error(error, path, 1, "the file holds NUL bytes: not a text trace");
        len = 0;
    }
    guint line = 0;
    const char *p = text, *end = text + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) /* a UTF-8 byte-order mark, as spreadsheets write it */
        p += 3;
    /* One line at a time in a reused buffer, split in place: a million-line trace allocates nothing per
     * field (g_strsplit's allocations were most of the reading time). */
    GString *buf = g_string_new(NULL);
    Fields split = {0};
    while (ok && p < end) {
        const char *nl = memchr(p, '\n', end - p);
        g_string_truncate(buf, 0);
        g_string_append_len(buf, p, (nl ? nl : end) - p);
        p = nl ? nl + 1 : end;
        line++;
        gsize kept = buf->len; /* trailing white space dropped (g_strchomp, without measuring the line again) */
        while (kept && g_ascii_isspace(buf->str[kept - 1]))
            kept--;
        g_string_truncate(buf, kept);
        char *body = buf->str;
        while (*body == ' ' || *body == '\t')
            body++;
        if (!*body || *body == '#')
            continue;
        if (!csv && !have_header) {
            if (strcmp(body, TRACE_MAGIC))
                ok = line_error(error, path, line, "not an arenasim trace (the first line must be '%s')", TRACE_MAGIC);
            have_header = TRUE;
            continue;
        }
        split_fields(body, csv, &split);
        char **fields = split.at;
        guint nf = split.len - 1;
        if (csv && !have_header)
            ok = have_header = parse_csv_header(fields, nf, &cols, path, line, error);
        else if (csv)
            ok = parse_csv_line(t, spans, ids, &cols, fields, nf, path, line, error);
        else if (!strcmp(fields[0], "steps")) {
            if (nf != 2 || !parse_u64(fields[1], &declared_steps))
                ok = line_error(error, path, line, "expected 'steps N'");
        } else if (!strcmp(fields[0], "tiers")) {
            GError *why = NULL;
            if (nf != 2 || t->tiers || trace_count(t))
                ok = line_error(error, path, line, "expected one 'tiers SPEC' line before the buffers");
            else if (!(t->tiers = trace_tiers_parse(fields[1], &why))) {
                ok = line_error(error, path, line, "%s", why->message + strlen("--tiers: "));
                g_error_free(why);
            }
        } else {
            ok = parse_text_line(t, spans, fields, nf, path, line, error);
        }
    }
    g_string_free(buf, TRUE);
    g_free(split.at);
    if (ok && !have_header)
        ok = line_error(error, path, line ? line : 1, "empty trace: no header");
    if (ok && spans->len > G_MAXUINT32 / 4)
        ok = line_error(error, path, line, "more than %u buffers", G_MAXUINT32 / 4);
    if (ok && declared_steps > (guint64)G_MAXUINT32 / 2 && declared_steps > (guint64)SPARSE_STEPS_PER_BUFFER * spans->len + 1024)
        declared_steps = 0; /* a huge empty tail carries no information: dropped */
    if (ok)
        ok = set_lifetimes(t, spans, declared_steps, path, error);
    if (ok && !trace_validate(t, error)) {
        g_prefix_error(error, "%s: ", path);
        ok = FALSE;
    }
    g_hash_table_unref(ids);
    g_array_unref(spans);
    if (!ok) {
        trace_free(t);
        return NULL;
    }
    return t;
}

Trace *trace_read_file(const char *path, GError **error)
{
    gchar *text;
    gsize len;
    if (!sim_read_file(path, SIM_TEXT_MAX_BYTES, &text, &len, error)) {
        g_prefix_error(error, "%s: ", path);
        return NULL;
    }
    Trace *t = trace_parse(text, len, path, g_str_has_suffix(path, ".csv"), error);
    g_free(text);
    return t;
}

char *trace_to_text(const Trace *t)
{
    GString *s = g_string_new(TRACE_MAGIC "\n");
    char *source = g_strdup(t->source);
    for (char *c = source; *c; c++) /* a comment line: a newline in the source's name must not end it */
        if ((guchar)*c < ' ' || *c == 0x7f)
            *c = '?';
    g_string_append_printf(s, "# source: %s\n# id name size first last [align=A] [fixed=OFFSET] [group=G:OFFSET] "
                           "[bin=B] [reuse=C] [reads=R] [writes=W] [tier=NAME|...]\n", source);
    g_free(source);
    g_string_append_printf(s, "steps %u\n", t->steps);
    if (t->tiers) {
        char *spec = trace_tiers_format(t->tiers);
        g_string_append_printf(s, "tiers %s\n", spec);
        g_free(spec);
    }
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        char *name = trace_name_escape(b->name);
        g_string_append_printf(s, "%u %s %" G_GUINT64_FORMAT " %u %u", k, name, b->size, b->first, b->last);
        if (b->align != 1)
            g_string_append_printf(s, " align=%" G_GUINT64_FORMAT, b->align);
        if (b->fixed != TRACE_NONE)
            g_string_append_printf(s, " fixed=%" G_GINT64_FORMAT, b->fixed);
        if (b->group != TRACE_NONE)
            g_string_append_printf(s, " group=%" G_GINT64_FORMAT ":%" G_GUINT64_FORMAT, b->group, b->group_offset);
        if (b->bin)
            g_string_append_printf(s, " bin=%u", b->bin);
        if (b->reuse == TRACE_REUSE_NONE)
            g_string_append(s, " reuse=none");
        else if (b->reuse)
            g_string_append_printf(s, " reuse=%" G_GUINT64_FORMAT, b->reuse);
        if (b->reads != b->size)
            g_string_append_printf(s, " reads=%" G_GUINT64_FORMAT, b->reads);
        if (b->writes != b->size)
            g_string_append_printf(s, " writes=%" G_GUINT64_FORMAT, b->writes);
        if (t->tiers && b->tiers) {
            char *mask = trace_tiers_mask_format(t->tiers, b->tiers);
            g_string_append_printf(s, " tier=%s", mask);
            g_free(mask);
        }
        g_string_append_c(s, '\n');
        g_free(name);
    }
    return g_string_free(s, FALSE);
}

char *trace_to_csv(const Trace *t, const guint64 *offsets, GError **error)
{
    gboolean any_align = FALSE, any_fixed = FALSE, any_traffic = FALSE;
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        if (b->bin && !t->tiers) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                        "MiniMalloc CSV has one arena and cannot express bins (buffer '%s' is in bin %u); write the "
                        "text format instead", b->name, b->bin);
            return NULL;
        }
        if (t->tiers && !offsets && b->tiers & (b->tiers - 1)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "the CSV's tier column names one tier, and buffer "
                        "'%s' may go in several; write the text format instead", b->name);
            return NULL;
        }
        if (b->group != TRACE_NONE && !offsets) { /* a solution fixes every offset: the group holds by itself */
            g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                        "MiniMalloc CSV cannot express rigid groups (buffer '%s'); write the text format instead",
                        b->name);
            return NULL;
        }
        any_align |= b->align != 1;
        any_fixed |= b->fixed != TRACE_NONE;
        any_traffic |= b->reads != b->size || b->writes != b->size;
    }
    GString *s = g_string_new("id,lower,upper,size");
    if (any_align)
        g_string_append(s, ",alignment");
    if (offsets || any_fixed)
        g_string_append(s, ",offset");
    if (t->tiers) /* a plan's tier (bin k: tier k), or the one tier a buffer is held to */
        g_string_append(s, any_traffic ? ",tier,reads,writes" : ",tier");
    g_string_append_c(s, '\n');
    for (guint k = 0; k < trace_count(t); k++) {
        const TraceBuffer *b = trace_buffer(t, k);
        char *name = trace_name_escape(b->name);
        guint64 lower = t->time_points ? t->time_points[b->first] : b->first,
                upper = (t->time_points ? t->time_points[b->last] : b->last) + 1; /* half-open, as read */
        g_string_append_printf(s, "%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, name, lower, upper,
                               b->size);
        if (any_align)
            g_string_append_printf(s, ",%" G_GUINT64_FORMAT, b->align);
        if (offsets)
            g_string_append_printf(s, ",%" G_GUINT64_FORMAT, offsets[k]);
        else if (any_fixed && b->fixed != TRACE_NONE)
            g_string_append_printf(s, ",%" G_GINT64_FORMAT, b->fixed);
        else if (any_fixed)
            g_string_append(s, ",");
        if (t->tiers && offsets)
            g_string_append_printf(s, ",%u", b->bin);
        else if (t->tiers && b->tiers)
            g_string_append_printf(s, ",%d", g_bit_nth_lsf(b->tiers, -1));
        else if (t->tiers)
            g_string_append(s, ",");
        if (t->tiers && any_traffic)
            g_string_append_printf(s, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, b->reads, b->writes);
        g_string_append_c(s, '\n');
        g_free(name);
    }
    return g_string_free(s, FALSE);
}

gboolean trace_write_file(const Trace *t, const guint64 *offsets, const char *path, GError **error)
{
    char *text = g_str_has_suffix(path, ".csv") ? trace_to_csv(t, offsets, error) : trace_to_text(t);
    if (!text)
        return FALSE;
    gboolean ok = sim_write_file(path, text, strlen(text), error);
    if (!ok)
        g_prefix_error(error, "%s: ", path);
    g_free(text);
    return ok;
}
