/* escape.c — text made safe for a terminal (see escape.h). */
#include "base/escape.h"

/* Whether the code point c (of a valid UTF-8 sequence) is one a terminal acts on. */
static gboolean acts_on_terminal(gunichar c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

char *escape_terminal(const char *text)
{
    GString *s = g_string_new(NULL);
    const char *p = text ? text : "";
    while (*p) {
        const char *next = g_utf8_find_next_char(p, NULL);
        gsize len = (gsize)(next - p);
        gunichar c = g_utf8_get_char_validated(p, (gssize)len);
        if (c == (gunichar)-1 || c == (gunichar)-2) {
            g_string_append_printf(s, "%%%02X", (guchar)*p); /* an invalid byte: alone, then on from the next */
            p++;
        } else if (acts_on_terminal(c)) {
            for (gsize k = 0; k < len; k++)
                g_string_append_printf(s, "%%%02X", (guchar)p[k]);
            p = next;
        } else {
            g_string_append_len(s, p, (gssize)len);
            p = next;
        }
    }
    return g_string_free(s, FALSE);
}

char *escape_md_cell(const char *text)
{
    char *safe = escape_terminal(text);
    GString *s = g_string_new(NULL);
    for (const char *c = safe; *c; c++) {
        if (*c == '|')
            g_string_append(s, "\\|");
        else
            g_string_append_c(s, *c);
    }
    g_free(safe);
    return g_string_free(s, FALSE);
}
