/* mkgraph.c — `mkgraph FAMILY [--param value ...] -o FILE.onnx`: writes a synthetic graph family as
 * an ONNX file, deterministically for the same parameters. `mkgraph --list` describes the families.
 * The registry below is the one list of families. */
#include "mkgraph.h"
#include "onnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MkFamily *const families[] = {
    &mk_gpt2,
};

gint64 mk_param(const MkParams *p, const char *name)
{
    const gint64 *v = g_hash_table_lookup(p->values, name);
    g_assert(v); /* families only ask for params they declare */
    return *v;
}

static void list_families(void)
{
    for (gsize k = 0; k < G_N_ELEMENTS(families); k++) {
        const MkFamily *f = families[k];
        printf("%s — %s\n", f->name, f->summary);
        for (const MkParam *p = f->params; p->name; p++)
            printf("    --%-12s %s (default %" G_GINT64_FORMAT ")\n", p->name, p->help, p->dflt);
    }
}

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "mkgraph: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (usage: mkgraph FAMILY [--param value ...] -o FILE.onnx; mkgraph --list)\n");
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
    MkParams params = {g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free)};
    for (const MkParam *p = family->params; p->name; p++) {
        gint64 *v = g_new(gint64, 1);
        *v = p->dflt;
        g_hash_table_insert(params.values, (gpointer)p->name, v);
    }
    const char *out = NULL;
    int status = 0;
    for (int k = 2; k < argc && !status; k++) {
        if (!strcmp(argv[k], "-o") && k + 1 < argc) {
            out = argv[++k];
            continue;
        }
        gint64 *slot = !strncmp(argv[k], "--", 2) ? g_hash_table_lookup(params.values, argv[k] + 2) : NULL;
        if (!slot) {
            status = usage("unknown option '%s'", argv[k]);
            break;
        }
        if (k + 1 >= argc) {
            status = usage("option '%s' needs a value", argv[k]);
            break;
        }
        char *end;
        errno = 0;
        long long v = strtoll(argv[++k], &end, 10);
        if (*end || errno || v < 0)
            status = usage("'%s' is not a non-negative integer", argv[k]);
        *slot = v;
    }
    if (!status && !out)
        status = usage("%sno output file: use -o FILE.onnx", "");
    if (!status) {
        GError *error = NULL;
        Model *m = family->build(&params, &error);
        if (!m || !onnx_write_file(m, out, &error)) {
            fprintf(stderr, "mkgraph: %s: %s\n", out, error->message);
            g_error_free(error);
            status = 1;
        }
        model_free(m);
    }
    g_hash_table_unref(params.values);
    return status;
}
