/* plan.c — arenasim from a C program: the arena one strategy plans for a model, in bytes.
 *   cc examples/plan.c $(pkg-config --cflags --libs arenasim) -o plan
 *   ./plan graphs/gpt2.onnx bestfit          prints 26519040 */
#include <arenasim.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: plan MODEL STRATEGY\n");
        return 2;
    }
    arenasim_options o;
    arenasim_options_init(&o);
    o.strategy = argv[2];
    char *error = NULL;
    arenasim_plan *p = arenasim_plan_file(argv[1], &o, &error);
    if (!p) {
        fprintf(stderr, "plan: %s\n", error);
        arenasim_free(error);
        return 1;
    }
    printf("%llu\n", (unsigned long long)arenasim_plan_arena_bytes(p));
    arenasim_plan_free(p);
    return 0;
}
