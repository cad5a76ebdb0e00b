/* mkgraph.c — `mkgraph FAMILY [--param value ...] -o FILE.onnx`: writes a synthetic graph family as
 * an ONNX file (the `trace` family writes a trace file), deterministically for the same parameters.
 * A trace built as a placement (`mkgraph trace --staggered 2`) also writes that placement as a MiniMalloc
 * solution with `--solution-out FILE.csv`. `mkgraph --list` describes the families.
 * The registry below is the one list of families. */
#include "graphs/mkgraph.h"
#include "model/onnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MkFamily *const families[] = {
    &mk_gpt2, &mk_block, &mk_mlp, &mk_noop_chain, &mk_branches, &mk_pinned, &mk_gather, &mk_slice,
    &mk_concat, &mk_split, &mk_chained_concat, &mk_densenet, &mk_unet, &mk_inception, &mk_random, &mk_trace,
    &mk_identity_chain, &mk_relu_chain,
};

static void list_families(void)
{
    for (gsize k = 0; k < G_N_ELEMENTS(families); k++) {
        const MkFamily *f = families[k];
        printf("%s — %s\n", f->name, f->summary);
        for (const MkParam *p = f->params; p->name; p++)
            printf("    --%-14s %s (default %s)\n", p->name, p->help, p->dflt);
    }
}

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "mkgraph: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (usage: mkgraph FAMILY [--param value ...] -o FILE.onnx [--solution-out FILE.csv]; mkgraph --list)\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--list") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        list_families();
        return 0;
    }
    if (argc < 2)
        return usage("%sno family given", "");
    const MkFamily *family = NULL;
    for (gsize k = 0; k < G_N_ELEMENTS(families); k++)
        if (!strcmp(families[k]->name, argv[1]))
            family = families[k];
    if (!family)
        return usage("unknown family '%s'", argv[1]);
    MkParams params = {g_hash_table_new(g_str_hash, g_str_equal)};
    for (const MkParam *p = family->params; p->name; p++)
        g_hash_table_insert(params.values, (gpointer)p->name, (gpointer)p->dflt);
    const char *out = NULL, *solution_out = NULL;
    int status = 0;
    for (int k = 2; k < argc && !status; k++) {
        if (!strcmp(argv[k], "-o") && k + 1 < argc) {
            out = argv[++k];
            continue;
        }
        if (!strcmp(argv[k], "--solution-out") && k + 1 < argc && family->build_trace) {
            solution_out = argv[++k];
            continue;
        }
        const char *name = !strncmp(argv[k], "--", 2) ? argv[k] + 2 : NULL;
        if (!name || !g_hash_table_contains(params.values, name)) {
            status = usage("unknown option '%s'", argv[k]);
            break;
        }
        if (k + 1 >= argc) {
            status = usage("option '%s' needs a value", argv[k]);
            break;
        }
        g_hash_table_insert(params.values, (gpointer)name, argv[++k]);
    }
    if (!status && !out)
        status = usage("%sno output file: use -o FILE.onnx", "");
    if (!status) {
        GError *error = NULL;
        gboolean ok;
        if (family->build_trace) {
            GArray *construction = NULL;
            Trace *t = family->build_trace(&params, &construction, &error);
            if (t && solution_out && !construction) {
                g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE, "--solution-out: this trace is not built as a placement "
                                                                "(use --staggered 2)");
                ok = FALSE;
            } else {
                ok = t && trace_write_file(t, NULL, out, &error);
            }
            if (ok && solution_out) {
                ok = trace_write_file(t, (const guint64 *)construction->data, solution_out, &error);
                out = solution_out; /* for the error message */
            }
            if (construction)
                g_array_unref(construction);
            trace_free(t);
        } else {
            Model *m = family->build(&params, &error);
            ok = m && onnx_write_file(m, out, &error);
            model_free(m);
        }
        if (!ok) {
            fprintf(stderr, "mkgraph: %s: %s\n", out, error->message);
            g_error_free(error);
            status = 1;
        }
    }
    g_hash_table_unref(params.values);
    return status;
}
