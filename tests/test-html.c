/* test-html.c — the HTML view (--html) in a real browser: Debian's Chromium, headless, loads the page of
 * gpt2's plan (and of every strategy's, side by side) and of the torch export of GPT-2 from the file alone;
 * the DOM it builds holds one rectangle per buffer carrying the buffer's name, size, offset, steps and what
 * it holds (the node that makes it, the tensors sharing it and how), the page draws (a screenshot), and
 * names built to break out of HTML or to run script stay text. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static char *chromium(void)
{
    char *path = g_find_program_in_path("chromium");
    if (!path)
        g_error("chromium is not installed (make test-deps installs Debian's chromium)");
    return path;
}

/* Runs headless Chromium on file:// path with extra arguments; returns its stdout (the DOM with --dump-dom). */
static char *browse(const char *page, const char *extra)
{
    char *browser = chromium(), *profile = test_scratch_path("chromium-profile"), *profile_arg = g_strconcat("--user-data-dir=", profile, NULL);
    char *url = g_strconcat("file://", page, NULL);
    char *argv[] = {"timeout", "120", browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync", profile_arg,
                    "--window-size=1300,1000", (char *)extra, url, NULL};
    gchar *out = NULL, *err = NULL;
    gint status = 0;
    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL))
        g_error("chromium failed on %s: %s", page, err);
    g_free(err);
    g_free(url);
    g_free(profile_arg);
    g_free(profile);
    g_free(browser);
    return out;
}

static guint count_of(const char *text, const char *what)
{
    guint n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static void test_gpt2_page(void)
{
    char *gpt2 = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "gpt2.onnx", NULL);
    char *page = test_scratch_path("gpt2.html");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", gpt2, "--strategy", "greedy-size", "--html", page, NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_nonnull(strstr(r.out, "buffers        175\n"));
    run_result_clear(&r);
    char *dom = browse(page, "--dump-dom");
    g_assert_cmpuint(count_of(dom, "<rect class=\"buffer"), ==, 175); /* one element per buffer, with its data */
    g_assert_nonnull(strstr(dom, "data-strategy=\"greedy-size\""));
    g_assert_nonnull(strstr(dom, "data-size=\"")); /* the tooltip's source */
    g_assert_nonnull(strstr(dom, "<div id=\"tip\""));
    /* and what each holds: the node that makes it, the tensors sharing it and how */
    g_assert_cmpuint(count_of(dom, " data-about=\""), ==, 175);
    g_assert_nonnull(strstr(dom, "data-about=\"a graph input\""));
    g_assert_nonnull(strstr(dom, "data-about=\"made by 'Shape_n3' (Shape); shared by 1 tensor: Gather_5 (gather)\""));
    g_assert_nonnull(strstr(dom, " (inplace)"));
    g_assert_nonnull(strstr(dom, " (noop)"));
    g_free(dom);
    char *shot = test_scratch_path("gpt2.png"), *shot_arg = g_strconcat("--screenshot=", shot, NULL);
    g_free(browse(page, shot_arg));
    gchar *png = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(shot, &png, &len, NULL));
    g_assert_cmpuint(len, >, 10000); /* a drawn page, not a blank one */
    g_assert_true(!memcmp(png, "\x89PNG", 4));
    g_free(png);
    g_free(shot_arg);
    g_free(shot);
    /* every strategy side by side, each on its own byte scale (the naive plan's does not squash the others),
     * the peak's step marked where the json report's witness puts it; the page measures its own axes: tick
     * labels on both axes, none overlapping another or leaving its plan's box, on the plans' own scales and on
     * the shared one */
    r = test_run("SIM_BIN", (const char *[]){"--graph", gpt2, "--compare", "--html", page, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = test_run("SIM_BIN", (const char *[]){"--graph", gpt2, "--format", "json", NULL});
    g_assert_cmpint(r.status, ==, 0);
    const char *step_at = strstr(r.out, "\"step\" : ");
    g_assert_nonnull(step_at);
    char *band = g_strdup_printf("<rect class=\"peak\" data-step=\"%d\"", atoi(step_at + strlen("\"step\" : ")));
    run_result_clear(&r);
    char *checked = g_strconcat(page, "#check", NULL);
    dom = browse(checked, "--dump-dom");
    guint sections = count_of(dom, "<section class=\"plan\"");
    g_assert_cmpuint(sections, >=, 9);
    g_assert_cmpuint(count_of(dom, band), ==, sections);
    g_assert_cmpuint(count_of(dom, "<rect class=\"buffer at-peak\""), ==, 2 * sections); /* gpt2's peak: 2 buffers */
    assert_contains(dom, "data-strategy=\"naive\" data-top=\"144878144\"");
    assert_contains(dom, "data-strategy=\"greedy-size\" data-top=\"26124800\"");
    const char *check = strstr(dom, "data-check=\"ticks=");
    g_assert_nonnull(check);
    g_assert_cmpuint(strtoul(check + strlen("data-check=\"ticks="), NULL, 10), >=, 4 * sections);
    assert_contains(check, " overlaps=0 outside=0; shared ticks=");
    assert_contains(check, "; shared ticks=");
    g_assert_nonnull(strstr(strstr(check, "shared"), " overlaps=0 outside=0\""));
    g_free(dom);
    g_free(checked);
    g_free(band);
    g_free(page);
    g_free(gpt2);
}

/* The model the issue names: the torch export of GPT-2 (make models), every buffer drawn and described. */
static void test_gpt2_torch_page(void)
{
    char *model = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "graphs", "models", "torch", "gpt2-torch.onnx", NULL);
    if (!g_file_test(model, G_FILE_TEST_EXISTS)) {
        g_test_fail_printf("%s is missing: make models", model);
        g_free(model);
        return;
    }
    char *page = test_scratch_path("gpt2-torch.html");
    RunResult r = test_run("SIM_BIN", (const char *[]){"--graph", model, "--dim", "batch=1", "--dim", "seq=64", "--html", page, NULL});
    g_assert_cmpint(r.status, ==, 0);
    const char *line = strstr(r.out, "buffers        ");
    g_assert_nonnull(line);
    guint buffers = (guint)g_ascii_strtoull(line + 15, NULL, 10);
    g_assert_cmpuint(buffers, >, 100);
    run_result_clear(&r);
    char *dom = browse(page, "--dump-dom");
    g_assert_cmpuint(count_of(dom, "<rect class=\"buffer"), ==, buffers);
    g_assert_cmpuint(count_of(dom, " data-about=\""), ==, buffers);
    g_assert_nonnull(strstr(dom, "data-about=\"made by '/"));  /* the exporter's node names, as it wrote them */
    g_assert_nonnull(strstr(dom, "class=\"live-bytes\""));
    g_free(dom);
    g_free(page);
    g_free(model);
}

/* Names that would be markup or script on the page stay text: the page's title is its own, nothing ran. */
static void test_hostile_names(void)
{
    Trace *t = trace_new("hostile");
    const char *names[] = {"<script>document.title='pwned'</script>", "\"><img src=x onerror=\"document.title='pwned'\">",
                           "a&amp;b", "line\nbreak"};
    for (guint k = 0; k < G_N_ELEMENTS(names); k++)
        trace_add(t, names[k], 4096, 1, k, k + 1);
    char *path = test_scratch_path("hostile.trace"), *page = test_scratch_path("hostile.html");
    GError *error = NULL;
    g_assert_true(trace_write_file(t, NULL, path, &error));
    trace_free(t);
    RunResult r = test_run("SIM_BIN", (const char *[]){"--trace", path, "--html", page, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    char *dom = browse(page, "--dump-dom");
    g_assert_null(strstr(dom, "pwned</title>"));
    g_assert_null(strstr(dom, "<img"));
    g_assert_cmpuint(count_of(dom, "<rect class=\"buffer"), ==, G_N_ELEMENTS(names));
    g_assert_nonnull(strstr(dom, "data-name=\"&lt;script&gt;document.title='pwned'&lt;/script&gt;\""));
    g_free(dom);
    g_free(page);
    g_free(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/html/gpt2-page", test_gpt2_page);
    g_test_add_func("/html/gpt2-torch-page", test_gpt2_torch_page);
    g_test_add_func("/html/hostile-names", test_hostile_names);
    return g_test_run();
}
