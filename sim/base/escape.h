/* escape.h — the one rule for text that reaches a terminal: a name from a model, a trace or a table, or a
 * path, in an error line, a progress line or `--info`'s text. A terminal acts on control characters
 * (ESC sequences set the window title, write the clipboard, erase lines; a newline forges a second `sim:`
 * line) and a bidirectional override reorders what is read; none of them may pass. Each such byte is
 * written %XX, as the trace format and the text map write the bytes that would break their fields. */
#ifndef SIM_ESCAPE_H
#define SIM_ESCAPE_H

#include <glib.h>

/* text with every C0 control, DEL, C1 control (U+0080..U+009F), bidirectional control (U+202A..U+202E,
 * U+2066..U+2069) and byte of invalid UTF-8 written %XX byte by byte. Newly allocated. */
char *escape_terminal(const char *text);
/* The same, with '|' written '\|': a cell of a markdown table (a `--format md` report). Newly allocated. */
char *escape_md_cell(const char *text);

#endif
