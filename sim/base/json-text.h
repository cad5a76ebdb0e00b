/* json-text.h — a string value into a JSON document we write (a json-glib tree, or text). JSON text is UTF-8, and json-glib copies
 * invalid bytes through, which makes the document unreadable; names from models and traces are any bytes,
 * so each one is made valid (invalid sequences become U+FFFD) on the way in. json-glib escapes the rest. */
#ifndef SIM_JSON_TEXT_H
#define SIM_JSON_TEXT_H

#include <json-glib/json-glib.h>
#include <stdio.h>

static inline void json_add_text(JsonBuilder *b, const char *text)
{
    char *valid = g_utf8_make_valid(text, -1);
    json_builder_add_string_value(b, valid);
    g_free(valid);
}

/* The same rule for a document written as text (too large for a json-glib tree): text as a JSON string,
 * quotes included, appended to s. */
static inline void json_text_append(GString *s, const char *text)
{
    char *valid = g_utf8_make_valid(text, -1);
    g_string_append_c(s, '"');
    for (const guchar *c = (const guchar *)valid; *c; c++) {
        if (*c == '"' || *c == '\\') {
            g_string_append_c(s, '\\');
            g_string_append_c(s, (char)*c);
        } else if (*c < 0x20) {
            g_string_append_printf(s, "\\u%04x", *c);
        } else {
            g_string_append_c(s, (char)*c);
        }
    }
    g_string_append_c(s, '"');
    g_free(valid);
}

/* The builder's document, pretty, with a newline, as text (newly allocated); the builder is freed. */
static inline char *json_document_text(JsonBuilder *b)
{
    JsonGenerator *g = json_generator_new();
    JsonNode *root = json_builder_get_root(b);
    json_generator_set_root(g, root);
    json_generator_set_pretty(g, TRUE);
    char *text = json_generator_to_data(g, NULL), *out = g_strconcat(text, "\n", NULL);
    g_free(text);
    json_node_unref(root);
    g_object_unref(g);
    g_object_unref(b);
    return out;
}

/* The same into out. */
static inline void json_document_print(FILE *out, JsonBuilder *b)
{
    char *text = json_document_text(b);
    fputs(text, out);
    g_free(text);
}

#endif
