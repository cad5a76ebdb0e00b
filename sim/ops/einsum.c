/* einsum.c — reading an Einsum equation against its operands (see einsum.h). */
#include "ops/einsum.h"

#include <string.h>

static gboolean fail(GError **error, const char *equation, const char *fmt, const char *what)
{
    char *message = g_strdup_printf(fmt, what);
    g_set_error(error, SIM_ERROR, SIM_ERROR_GRAPH, "equation '%s': %s", equation, message);
    g_free(message);
    return FALSE;
}

static int letter_index(char ch)
{
    return ch >= 'a' && ch <= 'z' ? ch - 'a' : ch >= 'A' && ch <= 'Z' ? 26 + ch - 'A' : -1;
}

/* One term: its letters (as letter indices, -1 marking where the ellipsis stands) into seq. */
static gboolean read_term(const char *eq, const char *term, int *seq, int *len, gboolean *ellipsis, GError **error)
{
    *len = 0;
    *ellipsis = FALSE;
    for (const char *p = term; *p;) {
        if (!strncmp(p, "...", 3)) {
            if (*ellipsis)
                return fail(error, eq, "'%s' has two ellipses", term);
            *ellipsis = TRUE;
            seq[(*len)++] = -1;
            p += 3;
        } else if (letter_index(*p) >= 0) {
            if (*len >= EINSUM_MAX_LABELS)
                return fail(error, eq, "'%s' is too long", term);
            seq[(*len)++] = letter_index(*p++);
        } else {
            char bad[2] = {*p, 0};
            return fail(error, eq, "'%s' is not a letter or '...'", bad);
        }
    }
    return TRUE;
}

gboolean einsum_parse(const char *equation, int n_inputs, const int *ranks, const gint64 *const *dims,
                      EinsumSpec *spec, GError **error)
{
    memset(spec, 0, sizeof *spec);
    if (n_inputs < 1 || n_inputs > EINSUM_MAX_OPERANDS)
        return fail(error, equation, "%s", "takes 1 to 8 operands");
    GString *flat = g_string_new(NULL);
    for (const char *p = equation; *p; p++)
        if (*p != ' ')
            g_string_append_c(flat, *p);
    char *arrow = strstr(flat->str, "->");
    char *rhs = arrow ? arrow + 2 : NULL;
    if (arrow)
        *arrow = 0;
    char **terms = g_strsplit(flat->str, ",", -1);
    gboolean ok = FALSE;
    int letter_label[52], count[52] = {0}, ellipsis_rank = 0;
    int seq[EINSUM_MAX_OPERANDS][EINSUM_MAX_LABELS], len[EINSUM_MAX_OPERANDS];
    gboolean has_ellipsis[EINSUM_MAX_OPERANDS];
    if ((int)g_strv_length(terms) != n_inputs) {
        char *n = g_strdup_printf("%u terms for %d operands", g_strv_length(terms), n_inputs);
        fail(error, equation, "has %s", n);
        g_free(n);
        goto out;
    }
    /* Letters and each operand's ellipsis dimensions. */
    for (int k = 0; k < n_inputs; k++) {
        if (!read_term(equation, terms[k], seq[k], &len[k], &has_ellipsis[k], error))
            goto out;
        int letters = len[k] - (has_ellipsis[k] ? 1 : 0), extra = ranks[k] - letters;
        if (extra < 0 || (!has_ellipsis[k] && extra) || ranks[k] > EINSUM_MAX_LABELS) {
            char *what = g_strdup_printf("'%s' does not match operand %d of rank %d", terms[k], k, ranks[k]);
            fail(error, equation, "%s", what);
            g_free(what);
            goto out;
        }
        ellipsis_rank = MAX(ellipsis_rank, extra);
    }
    /* Labels: the ellipsis' dimensions first, then letters in order of first use. */
    spec->n_inputs = n_inputs;
    spec->n_labels = ellipsis_rank;
    for (int l = 0; l < 52; l++)
        letter_label[l] = -1;
    for (int l = 0; l < EINSUM_MAX_LABELS; l++)
        spec->size[l] = -1;
    for (int k = 0; k < n_inputs; k++) {
        int extra = ranks[k] - (len[k] - (has_ellipsis[k] ? 1 : 0)), d = 0;
        spec->rank[k] = ranks[k];
        for (int j = 0; j < len[k]; j++) {
            if (seq[k][j] < 0) { /* right-aligned among the ellipsis labels */
                for (int e = 0; e < extra; e++)
                    spec->label[k][d++] = ellipsis_rank - extra + e;
                continue;
            }
            int letter = seq[k][j];
            if (letter_label[letter] < 0) {
                if (spec->n_labels >= EINSUM_MAX_LABELS) {
                    fail(error, equation, "%s", "has too many labels");
                    goto out;
                }
                letter_label[letter] = spec->n_labels++;
            }
            count[letter]++;
            spec->label[k][d++] = letter_label[letter];
        }
        for (d = 0; d < ranks[k]; d++) {
            int l = spec->label[k][d];
            gint64 n = dims[k][d];
            if (spec->size[l] < 0 || spec->size[l] == n)
                spec->size[l] = n;
            else if (l < ellipsis_rank && (n == 1 || spec->size[l] == 1))
                spec->size[l] = MAX(spec->size[l], n);
            else {
                char *what = g_strdup_printf("a label has sizes %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT, spec->size[l], n);
                fail(error, equation, "%s", what);
                g_free(what);
                goto out;
            }
        }
    }
    for (int l = 0; l < ellipsis_rank; l++)
        if (spec->size[l] < 0)
            spec->size[l] = 1;
    /* The output. */
    if (rhs) {
        /* an output without "..." sums over the ellipsis' dimensions, as numpy does */
        int out_seq[EINSUM_MAX_LABELS], out_len;
        gboolean out_ellipsis, used[52] = {FALSE};
        if (!read_term(equation, rhs, out_seq, &out_len, &out_ellipsis, error))
            goto out;
        for (int j = 0; j < out_len; j++) {
            if (out_seq[j] < 0) {
                for (int e = 0; e < ellipsis_rank; e++)
                    spec->out_label[spec->out_rank++] = e;
                continue;
            }
            int letter = out_seq[j];
            if (letter_label[letter] < 0 || used[letter]) {
                char ch[2] = {letter < 26 ? 'a' + letter : 'A' + letter - 26, 0};
                fail(error, equation, used[letter] ? "output label '%s' appears twice" : "output label '%s' is in no input", ch);
                goto out;
            }
            used[letter] = TRUE;
            spec->out_label[spec->out_rank++] = letter_label[letter];
        }
    } else {
        for (int e = 0; e < ellipsis_rank; e++)
            spec->out_label[spec->out_rank++] = e;
        for (int j = 0; j < 52; j++) { /* alphabetical as ASCII sorts: 'A'-'Z' (26..51), then 'a'-'z' */
            int letter = (j + 26) % 52;
            if (count[letter] == 1)
                spec->out_label[spec->out_rank++] = letter_label[letter];
        }
    }
    ok = TRUE;
out:
    g_strfreev(terms);
    g_string_free(flat, TRUE);
    return ok;
}
