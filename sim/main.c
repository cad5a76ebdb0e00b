/* main.c — the `sim` command: parse options, load a model, infer shapes, and run the requested job.
 * Errors a user can cause end as one line `sim: FILE: what is wrong` and exit 1; usage errors exit 2. */
#include "graph.h"
#include "info.h"
#include "onnx.h"
#include "ops.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    char *graph_path;
    char **dims;
    gboolean info;
    gboolean allow_unknown_ops;
    gboolean list_ops;
    gboolean version;
} CliOptions;

static int usage_error(const char *message)
{
    fprintf(stderr, "sim: %s (see sim --help)\n", message);
    return 2;
}

static int file_error(const char *path, const GError *error)
{
    fprintf(stderr, "sim: %s: %s\n", path, error->message);
    return 1;
}

static void list_ops(void)
{
    gsize count;
    const OpInfo *ops = op_table(&count);
    for (gsize k = 0; k < count; k++)
        printf("%-24s %s\n", ops[k].name, op_class_name(ops[k].op_class));
}

static Model *load_model(const char *path, const ShapeOptions *shape_options, GError **error)
{
    Model *m = onnx_read_file(path, error);
    if (m && !shape_infer(m, shape_options, error)) {
        model_free(m);
        m = NULL;
    }
    return m;
}

int main(int argc, char **argv)
{
    CliOptions o = {0};
    GOptionEntry entries[] = {
        {"graph", 'g', 0, G_OPTION_ARG_FILENAME, &o.graph_path, "The ONNX model to load", "FILE"},
        {"dim", 'd', 0, G_OPTION_ARG_STRING_ARRAY, &o.dims,
         "Bind a symbolic dimension (repeatable), e.g. --dim batch=1 --dim seq=128", "NAME=VALUE"},
        {"info", 'i', 0, G_OPTION_ARG_NONE, &o.info,
         "Print the graph summary: opsets, nodes by op type, tensors by kind, weight and activation bytes, "
         "the largest tensor (the default job)", NULL},
        {"allow-unknown-ops", 0, 0, G_OPTION_ARG_NONE, &o.allow_unknown_ops,
         "Accept ops missing from the op table when the file's value_info gives their output shapes", NULL},
        {"list-ops", 0, 0, G_OPTION_ARG_NONE, &o.list_ops, "List the op table: every known op and its class", NULL},
        {"version", 0, 0, G_OPTION_ARG_NONE, &o.version, "Print the version", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("— memory-arena planning simulator for ML inference graphs");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(
        ctx, "Loads an ONNX model, infers every tensor's shape and reports on it.\n"
             "Errors: one line 'sim: FILE: what is wrong' on stderr, exit 1; usage errors exit 2.\n"
             "Example: sim --graph graphs/gpt2.onnx --info\n");
    GError *error = NULL;
    int status = 0;
    Model *m = NULL;
    ShapeOptions shape_options;
    shape_options_init(&shape_options);
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        status = usage_error(error->message);
        goto out;
    }
    if (argc > 1) {
        char *msg = g_strdup_printf("unexpected argument '%s'", argv[1]);
        status = usage_error(msg);
        g_free(msg);
        goto out;
    }
    if (o.version) {
        printf("sim (arenasim) 0.1\n");
        goto out;
    }
    if (o.list_ops) {
        list_ops();
        goto out;
    }
    if (!o.graph_path) {
        status = usage_error("no graph given: use --graph FILE");
        goto out;
    }
    shape_options.allow_unknown_ops = o.allow_unknown_ops;
    for (char **d = o.dims; d && *d; d++) {
        if (!shape_options_add_dim(&shape_options, *d, &error)) {
            status = usage_error(error->message);
            goto out;
        }
    }
    m = load_model(o.graph_path, &shape_options, &error);
    if (!m) {
        status = file_error(o.graph_path, error);
        goto out;
    }
    info_print(stdout, m, o.graph_path);
out:
    shape_options_clear(&shape_options);
    if (error)
        g_error_free(error);
    model_free(m);
    g_free(o.graph_path);
    g_strfreev(o.dims);
    g_option_context_free(ctx);
    return status;
}
