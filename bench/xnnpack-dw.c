/* xnnpack-dw.c — XNNPACK's depthwise convolution two ways, timed on one thread for the shapes
 * bench/xnnpack.sh passes: in NCHW (xnn_create_convolution2d_nchw_f32: 3x3 and 5x5, stride 1 or 2, "same"
 * padding; the layout of our arena, so nothing else to do), and in NHWC (its main kernels) together with
 * the two transposes our NCHW arena would need around it. Prints one line per shape: "C H W K S nchw_ms
 * nhwc_ms transposes_ms sum", medians of REPEAT runs; the sum of |output| (NCHW, equal in NHWC) shows a run
 * that computed nothing. Weights and inputs are deterministic values. Built by bench/xnnpack.sh against
 * Debian's libxnnpack-dev (the 2022 snapshot). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xnnpack.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 7 || (argc - 2) % 5) {
        fprintf(stderr, "usage: xnnpack-dw REPEAT C H W K S [C H W K S ...]\n");
        return 2;
    }
    if (xnn_initialize(NULL) != xnn_status_success) {
        fprintf(stderr, "xnnpack-dw: XNNPACK cannot initialise on this CPU\n");
        return 1;
    }
    int repeat = atoi(argv[1]);
    for (int a = 2; a + 4 < argc; a += 5) {
        size_t c = (size_t)atol(argv[a]), h = (size_t)atol(argv[a + 1]), w = (size_t)atol(argv[a + 2]);
        uint32_t k = (uint32_t)atoi(argv[a + 3]), s = (uint32_t)atoi(argv[a + 4]), pad = k / 2;
        size_t oh = (h + 2 * pad - k) / s + 1, ow = (w + 2 * pad - k) / s + 1;
        float *x = malloc(sizeof(float) * c * h * w), *y = malloc(sizeof(float) * c * oh * ow),
              *wt = malloc(sizeof(float) * c * k * k), *bias = calloc(c, sizeof(float));
        for (size_t i = 0; i < c * h * w; i++)
            x[i] = (float)((i * 7) % 11) - 5.0f;
        for (size_t i = 0; i < c * k * k; i++)
            wt[i] = (float)((i * 3) % 7) - 3.0f;
        xnn_operator_t op = NULL, nhwc = NULL;
        float *xt = malloc(sizeof(float) * c * h * w), *yt = malloc(sizeof(float) * c * oh * ow),
              *y2 = malloc(sizeof(float) * c * oh * ow);
        if (xnn_create_convolution2d_nchw_f32(pad, pad, pad, pad, k, k, s, s, 1, 1, (uint32_t)c, 1, 1, c, c, wt, bias,
                                              -INFINITY, INFINITY, 0, &op) !=
                xnn_status_success ||
            xnn_setup_convolution2d_nchw_f32(op, 1, h, w, x, y, NULL) != xnn_status_success ||
            xnn_create_convolution2d_nhwc_f32(pad, pad, pad, pad, k, k, s, s, 1, 1, (uint32_t)c, 1, 1, c, c, wt, bias,
                                              -INFINITY, INFINITY, 0, &nhwc) != xnn_status_success ||
            xnn_setup_convolution2d_nhwc_f32(nhwc, 1, h, w, xt, yt, NULL) != xnn_status_success) {
            fprintf(stderr, "xnnpack-dw: XNNPACK refuses %zu x %zu x %zu, %ux%u stride %u\n", c, h, w, k, k, s);
            return 1;
        }
        double *t = malloc(sizeof(double) * (size_t)(repeat + 1)), *tn = malloc(sizeof(double) * (size_t)(repeat + 1)),
               *tt = malloc(sizeof(double) * (size_t)(repeat + 1));
        xnn_run_operator(op, NULL); /* warm-up */
        xnn_run_operator(nhwc, NULL);
        for (int r = 0; r < repeat; r++) {
            double t0 = now();
            xnn_run_operator(op, NULL);
            double t1 = now();
            for (size_t ch = 0; ch < c; ch++) /* NCHW -> NHWC */
                for (size_t i = 0; i < h * w; i++)
                    xt[i * c + ch] = x[ch * h * w + i];
            double t2 = now();
            xnn_run_operator(nhwc, NULL);
            double t3 = now();
            for (size_t ch = 0; ch < c; ch++) /* NHWC -> NCHW */
                for (size_t i = 0; i < oh * ow; i++)
                    y2[ch * oh * ow + i] = yt[i * c + ch];
            double t4 = now();
            t[r] = t1 - t0;
            tn[r] = t3 - t2;
            tt[r] = (t2 - t1) + (t4 - t3);
        }
        qsort(t, (size_t)repeat, sizeof(double), cmp);
        qsort(tn, (size_t)repeat, sizeof(double), cmp);
        qsort(tt, (size_t)repeat, sizeof(double), cmp);
        double sum = 0, worst = 0;
        for (size_t i = 0; i < c * oh * ow; i++) {
            sum += fabs(y[i]);
            worst = fmax(worst, fabs(y[i] - y2[i]));
        }
        if (worst > 1e-3 * (1 + sum / (double)(c * oh * ow))) {
            fprintf(stderr, "xnnpack-dw: NCHW and NHWC differ by %g on %zu x %zu x %zu\n", worst, c, h, w);
            return 1;
        }
        printf("%zu %zu %zu %u %u %.6f %.6f %.6f %.1f\n", c, h, w, k, s, t[repeat / 2] * 1e3, tn[repeat / 2] * 1e3,
               tt[repeat / 2] * 1e3, sum);
        xnn_delete_operator(op);
        xnn_delete_operator(nhwc);
        free(x);
        free(y);
        free(y2);
        free(xt);
        free(yt);
        free(wt);
        free(bias);
        free(t);
        free(tn);
        free(tt);
    }
    return 0;
}
