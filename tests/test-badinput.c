/* test-badinput.c — the bad-input corpus (tests/data/bad/, made by make_cases.py): every case runs the sim
 * binary and must end with its exit status (1, or 2 for usage), exactly one line on stderr — the expected
 * one — nothing on stdout, and no output file left behind. Fuzzer reproducers join the corpus as cases. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    char *file, *args, *expected;
    int status;
} BadCase;

/* {} is the case's file, {out} a scratch output, {strategies} and {aliases} the registry's placement and alias
 * strategy names (so that a new strategy changes no expected text). */
static char *expand(const char *text, const char *file, const char *out)
{
    char *path = g_strconcat("tests/data/bad/", file, NULL);
    char *strategies = registry_place_names(), *aliases = registry_alias_names();
    GString *s = g_string_new(NULL);
    for (const char *p = text; *p; p++) {
        if (!strncmp(p, "{out}", 5)) {
            g_string_append(s, out);
            p += 4;
        } else if (!strncmp(p, "{strategies}", 12)) {
            g_string_append(s, strategies);
            p += 11;
        } else if (!strncmp(p, "{aliases}", 9)) {
            g_string_append(s, aliases);
            p += 8;
        } else if (!strncmp(p, "{}", 2)) {
            g_string_append(s, path);
            p += 1;
        } else {
            g_string_append_c(s, *p);
        }
    }
    g_free(path);
    g_free(strategies);
    g_free(aliases);
    return g_string_free(s, FALSE);
}

static void run_case(gconstpointer data)
{
    const BadCase *c = data;
    char *out = test_scratch_path("output.trace");
    g_remove(out);
    char *args = expand(c->args, c->file, out);
    char **argv = g_strsplit(args, " ", -1);
    RunResult r = test_run("SIM_BIN", (const char *const *)argv);
    char *expected = expand(c->expected, c->file, out);
    char *line = g_strconcat(expected, "\n", NULL);
    g_assert_cmpstr(r.err, ==, line);
    g_assert_cmpint(r.status, ==, c->status);
    g_assert_cmpstr(r.out, ==, "");
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
    run_result_clear(&r);
    g_free(line);
    g_free(expected);
    g_strfreev(argv);
    g_free(args);
    g_free(out);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_assert_true(chdir(g_getenv("SIM_SOURCE_DIR")) == 0); /* the cases name files relative to the repository */
    gchar *text;
    g_assert_true(g_file_get_contents("tests/data/bad/cases.tsv", &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    GPtrArray *cases = g_ptr_array_new();
    for (char **l = lines; *l; l++) {
        if (!**l || **l == '#')
            continue;
        char **f = g_strsplit(*l, "\t", 4);
        g_assert_cmpuint(g_strv_length(f), ==, 4);
        BadCase *c = g_new0(BadCase, 1);
        c->file = g_strdup(f[0]);
        c->args = g_strdup(f[1]);
        c->status = atoi(f[2]);
        c->expected = g_strdup(f[3]);
        /* ARENASIM_BAD_SAMPLE=N: every Nth case (make valgrind's pass, where a sim run costs a second more; the
         * native and ASan passes run them all) */
        if (test_sampled_by("ARENASIM_BAD_SAMPLE", cases->len)) {
            char *path = g_strdup_printf("/badinput/%s", f[0]);
            g_test_add_data_func(path, c, run_case);
            g_free(path);
        }
        g_ptr_array_add(cases, c);
        g_strfreev(f);
    }
    g_assert_cmpuint(cases->len, >=, 40);
    int status = g_test_run();
    for (guint k = 0; k < cases->len; k++) {
        BadCase *c = cases->pdata[k];
        g_free(c->file);
        g_free(c->args);
        g_free(c->expected);
        g_free(c);
    }
    g_ptr_array_unref(cases);
    g_strfreev(lines);
    g_free(text);
    return status;
}
