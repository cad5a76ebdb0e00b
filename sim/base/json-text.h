/* json-text.h — a string value into a JSON document we write. JSON text is UTF-8, and json-glib copies
 * invalid bytes through, which makes the document unreadable; names from models and traces are any bytes,
 * so each one is made valid (invalid sequences become U+FFFD) on the way in. json-glib escapes the rest. */
#ifndef SIM_JSON_TEXT_H
#define SIM_JSON_TEXT_H

#include <json-glib/json-glib.h>

static inline void json_add_text(JsonBuilder *b, const char *text)
{
    char *valid = g_utf8_make_valid(text, -1);
    json_builder_add_string_value(b, valid);
    g_free(valid);
}

#endif
