/* gnuplot-check.h — is a gnuplot script we wrote inert? Shared by the plot fuzzer and test-hostile.c.
 * gnuplot runs `cmd` in backquotes (even inside double quotes), expands @macros, and reads every line that
 * is not inside a datablock as a command. A script is inert when: no backquote and no '@' anywhere; no
 * control or non-ASCII byte (user text arrives as \ooo escapes); no '$' inside a string and, outside one,
 * only before a datablock name or a column number; every string closed on its line; and datablock lines
 * (between `$name << EOD` and `EOD`) holding numbers only; and in tic labels (`set xtics ("..." 0, ...)`, which
 * gnuplot reads as printf formats for the position) every '%' doubled. Returns NULL, or what is wrong and
 * where. */
#ifndef GNUPLOT_CHECK_H
#define GNUPLOT_CHECK_H

#include <glib.h>
#include <string.h>

static inline char *gnuplot_script_problem(const char *script, gsize len)
{
    gboolean in_block = FALSE;
    guint line_no = 0;
    for (const char *p = script, *end = script + len; p < end;) {
        const char *nl = memchr(p, '\n', (gsize)(end - p));
        const char *stop = nl ? nl : end;
        gsize n = (gsize)(stop - p);
        line_no++;
        if (in_block) {
            if (n == 3 && !memcmp(p, "EOD", 3))
                in_block = FALSE;
            else
                for (const char *c = p; c < stop; c++)
                    if (!strchr("0123456789.-+eE ?", *c) || !*c)
                        return g_strdup_printf("line %u: a datablock line holds more than numbers", line_no);
        } else {
            char quote = 0;
            gboolean tics = n > 6 && (!memcmp(p, "set xtics (", MIN(n, 11)) || !memcmp(p, "set ytics (", MIN(n, 11)));
            for (const char *c = p; c < stop; c++) {
                guchar b = (guchar)*c;
                if (tics && quote && b == '%') {
                    if (!(c + 1 < stop && c[1] == '%'))
                        return g_strdup_printf("line %u: a tic label holds a lone '%%' (a printf format)", line_no);
                    c++;
                    continue;
                }
                if (b < 0x20 || b >= 0x7f)
                    return g_strdup_printf("line %u: raw byte 0x%02x", line_no, b);
                if (b == '`' || b == '@')
                    return g_strdup_printf("line %u: '%c' reaches gnuplot", line_no, b);
                if (quote == '"' && b == '\\') {
                    c++; /* an escape: the next byte is taken as it is (\ooo digits are plain) */
                    continue;
                }
                if (quote && b == '$')
                    return g_strdup_printf("line %u: '$' inside a string", line_no);
                if (!quote && b == '$' && !(c + 1 < stop && (g_ascii_isalnum(c[1]) || c[1] == '_')))
                    return g_strdup_printf("line %u: '$' not naming a datablock or column", line_no);
                if (quote && b == (guchar)quote)
                    quote = 0;
                else if (!quote && (b == '"' || b == '\''))
                    quote = (char)b;
            }
            if (quote)
                return g_strdup_printf("line %u: a string is not closed", line_no);
            if (n > 8 && p[0] == '$' && !memcmp(stop - 6, "<< EOD", 6))
                in_block = TRUE;
        }
        p = nl ? nl + 1 : end;
    }
    return in_block ? g_strdup("a datablock is not closed") : NULL;
}

#endif
