/* test-oracle.c — runs checked against an oracle (issue 39): torch exports of small models of each class —
 * a transformer encoder with a real padding mask, a small vision transformer, a recurrent speech stack (LSTM, GRU, RNN), a 3-D
 * convolutional video network, a segmentation head with large dilations, squeeze-excite and channel-last
 * blocks, a ResNet-style classifier (Winograd's convolutions), torchvision's four detectors — with their inputs and torch's own outputs in the model zoo's layout
 * (tests/data/oracle/export.py, Debian's python3). sim's run under the default options, in its plan, with
 * poison, must give torch's outputs within the backend tests' tolerance. A tolerance of nothing must fail
 * (the comparison can fail), --dump-outputs must read back exactly, and a degenerate output (one value
 * everywhere) must fail --check unless allowed. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static char *top;    /* every export's folder is under this one */
static char *folder; /* the encoder's */

static RunResult sim_in(const char *const *args)
{
    return test_run("SIM_BIN", args);
}

/* Where the exports go: ARENASIM_ORACLE_CACHE (make check's build/oracle-exports, which the sanitizer pass then
 * reads instead of exporting again), in a folder named after export.py's checksum so that a changed script
 * exports anew; else a folder of this run's, removed at the end (`top`). */
static const char *exports_folder(void)
{
    static char *dir;
    if (dir)
        return dir;
    const char *cache = g_getenv("ARENASIM_ORACLE_CACHE");
    if (!cache || !*cache) {
        top = g_dir_make_tmp("arenasim-oracle-XXXXXX", NULL);
        g_assert_nonnull(top);
        return dir = top;
    }
    char *script = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "tests", "data", "oracle", "export.py", NULL), *text;
    gsize len;
    g_assert_true(g_file_get_contents(script, &text, &len, NULL));
    char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text, len);
    dir = g_build_filename(cache, sum, NULL);
    g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
    g_free(sum);
    g_free(text);
    g_free(script);
    return dir;
}

/* The export of one KIND of export.py in its own folder (made once, then read), returned. Nothing writes into an
 * export: it may be shared. */
static char *export_kind(const char *kind)
{
    char *dir = g_build_filename(exports_folder(), kind, NULL);
    if (g_file_test(dir, G_FILE_TEST_IS_DIR))
        return dir;
    /* into a folder of its own first, renamed when whole: a run stopped halfway leaves no half export */
    char *making = g_strdup_printf("%s.making-%d", dir, (int)getpid());
    g_assert_cmpint(g_mkdir(making, 0700), ==, 0);
    char *script = g_build_filename(g_getenv("SIM_SOURCE_DIR"), "tests", "data", "oracle", "export.py", NULL);
    char *argv[] = {"/usr/bin/python3", script, (char *)kind, making, NULL};
    gchar *err = NULL;
    gint status = 0;
    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL))
        g_error("the %s export failed: %s", kind, err);
    if (g_rename(making, dir) != 0 && !g_file_test(dir, G_FILE_TEST_IS_DIR))
        g_error("cannot name the %s export %s", kind, dir);
    g_free(err);
    g_free(script);
    g_free(making);
    return dir;
}

static void export_encoder(void)
{
    if (!folder)
        folder = export_kind("encoder");
}

static char *in_folder(const char *name) { return g_build_filename(folder, name, NULL); }

/* The model of `kind`, run under the default options in its plan with poison, gives torch's outputs, and
 * so does every strategy's plan (bit for bit with the reference run). */
static void check_kind_matches_torch(const char *kind, int outputs)
{
    char *dir = export_kind(kind), *model = g_build_filename(dir, "model.onnx", NULL);
    RunResult r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--check", "--poison", "--expect",
                                          dir, NULL});
    if (r.status != 0)
        g_error("the %s model does not match torch: %s", kind, r.err);
    char *want = g_strdup_printf("expect         %d outputs within rtol 0.001 and atol 1e-05 of ", outputs);
    g_assert_nonnull(strstr(r.out, want));
    g_assert_nonnull(strstr(r.out, "bit for bit, with poison"));
    g_assert_null(strstr(r.out, "(degenerate)"));
    run_result_clear(&r);
    r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--check", "--poison", "--compare", NULL});
    if (r.status != 0)
        g_error("a plan of the %s model does not run bit for bit: %s", kind, r.err);
    run_result_clear(&r);
    g_free(want);
    g_free(model);
    g_free(dir);
}

/* ONNX Runtime's QOperator form (its com.microsoft QLinear ops, uint8 and int8, tests/data/qlinear/make.py), its
 * dynamic quantization and its QDQ fusions: in the twelve models (every op; a small classifier with QLinearConv,
 * MaxPool on uint8, QLinearAveragePool and QGemm; DynamicQuantizeLinear before a ConvInteger and two MatMulIntegers,
 * as written and under --fuse ort; one DynamicQuantizeLinear read by two MatMulIntegers, likewise; QLinearConv
 * grouped, strided, dilated and depthwise on int8 and uint8 with zero points; three QDQ models under --fuse ort (one
 * with int8 activations); opset 21's blocked QuantizeLinear and DequantizeLinear, as written and under --fuse ort
 * (no fusion takes a blocked one); the
 * integer products at sizes oneDNN's integer GEMM runs; QLinearSoftmax's axes and types; QLinearWhere) every plan
 * runs bit for bit, and the default plan's outputs equal ORT's own (onnxruntime-node 1.30, kept beside the models)
 * exactly, integers and floats alike; planned with one byte per quantized element. */
static void test_qlinear_matches_ort(void)
{
    const struct {
        const char *dir;
        int outputs;
        const char *fuse; /* the graph ORT runs: its QDQ fusions (qdq/), else the file's */
    } models[] = {{"tests/data/qlinear/ops", 5, "none"},
                  {"tests/data/qlinear/cnn", 3, "none"},
                  {"tests/data/qlinear/dynamic", 3, "none"},
                  {"tests/data/qlinear/dynamic", 3, "ort"},
                  {"tests/data/qlinear/dynshared", 2, "none"},
                  {"tests/data/qlinear/dynshared", 2, "ort"},
                  {"tests/data/qlinear/convs", 2, "none"},
                  {"tests/data/qlinear/qdq", 4, "ort"},
                  {"tests/data/qlinear/qdqnet", 3, "ort"},
                  {"tests/data/qlinear/qdqs8", 3, "ort"},
                  {"tests/data/qlinear/blocked", 4, "none"},
                  {"tests/data/qlinear/blocked", 4, "ort"},
                  {"tests/data/qlinear/products", 10, "none"},
                  {"tests/data/qlinear/softmax", 5, "none"},
                  {"tests/data/qlinear/where", 3, "none"}};
    for (gsize k = 0; k < G_N_ELEMENTS(models); k++) {
        char *rel = g_strdup_printf("%s/model.onnx", models[k].dir), *model = test_source_path(rel);
        char *data_rel = g_strdup_printf("%s/test_data_set_0", models[k].dir), *dir = test_source_path(data_rel);
        RunResult r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--check", "--poison",
                                              "--expect", dir, "--atol", "0", "--rtol", "0", "--fuse", models[k].fuse,
                                              NULL});
        if (r.status != 0)
            g_error("%s does not match ONNX Runtime: %s", models[k].dir, r.err);
        char *want = g_strdup_printf("expect         %d outputs within rtol 0 and atol 0 of ", models[k].outputs);
        g_assert_nonnull(strstr(r.out, want));
        g_assert_nonnull(strstr(r.out, "(largest error 0, 0 relative"));
        g_assert_null(strstr(r.out, "(degenerate)"));
        run_result_clear(&r);
        r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--check", "--poison", "--compare",
                                    "--fuse", models[k].fuse, NULL});
        if (r.status != 0)
            g_error("a plan of %s does not run bit for bit: %s", models[k].dir, r.err);
        run_result_clear(&r);
        g_free(want);
        g_free(dir);
        g_free(data_rel);
        g_free(model);
        g_free(rel);
    }
    /* The integer products on both kernels: the library's (on AVX-512 VNNI: oneDNN's integer GEMM, where it sums
     * exactly, runs five products of 9 rows an image; the three QLinearConvs of one group over int8 weights run on
     * our direct convolution, the two products of one row on our skinny kernel) and our own, each ORT's outputs
     * exactly. */
    char *model = test_source_path("tests/data/qlinear/products/model.onnx");
    char *data = test_source_path("tests/data/qlinear/products/test_data_set_0");
    char *cpu = NULL;
    gboolean vnni = g_file_get_contents("/proc/cpuinfo", &cpu, NULL, NULL) && strstr(cpu, " avx512_vnni");
    for (int own = 0; own < 2; own++) {
        RunResult r = sim_in((const char *[]){"--graph", model, "--inputs", data, "--run", "--expect", data, "--atol",
                                              "0", "--rtol", "0", "--kernels", own ? "own" : "onednn", NULL});
        if (r.status != 0)
            g_error("the integer products on %s kernels do not match ONNX Runtime: %s", own ? "our" : "oneDNN's",
                    r.err);
        g_assert_true(own || !vnni || strstr(r.out, "ran 5 of the 14 steps"));
        run_result_clear(&r);
    }
    g_free(cpu);
    g_free(data);
    g_free(model);
    model = test_source_path("tests/data/qlinear/ops/model.onnx");
    RunResult r = sim_in((const char *[]){"--graph", model, "--verbose", NULL}); /* 'cat' is 1 x 12 x 6 x 6 bytes */
    g_assert_nonnull(strstr(r.out, "432 B  'cat'"));
    run_result_clear(&r);
    g_free(model);
    /* Dynamic quantization as ORT runs it (its optimized file): dynamic/ as DynamicQuantizeLinear, Mul, ConvInteger,
     * Cast, Mul, Add, Relu, Reshape, DynamicQuantizeMatMul, Relu, DynamicQuantizeMatMul (each MatMulInteger with its
     * Cast, scale and bias fused, then with its quantization); dynshared/ as DynamicQuantizeLinear and two
     * MatMulIntegerToFloat (the quantized input has two readers, so it stays). */
    char *dynamic = test_source_path("tests/data/qlinear/dynamic/model.onnx");
    r = sim_in((const char *[]){"--graph", dynamic, "--fuse", "ort", NULL});
    g_assert_nonnull(strstr(r.out, "\nmatmul-integer-to-float      2 "));
    g_assert_nonnull(strstr(r.out, "\ndynamic-quantize-matmul      2 "));
    run_result_clear(&r);
    g_free(dynamic);
    dynamic = test_source_path("tests/data/qlinear/dynshared/model.onnx");
    r = sim_in((const char *[]){"--graph", dynamic, "--fuse", "ort", NULL});
    g_assert_nonnull(strstr(r.out, "\nmatmul-integer-to-float      2 "));
    g_assert_null(strstr(r.out, "dynamic-quantize-matmul"));
    run_result_clear(&r);
    g_free(dynamic);
    /* The QDQ model as ORT runs it: three biases put on the int32 grid, two Convs fused into QLinearConv (the
     * first with its Relu, folded into a QuantizeLinear at zero point 0; the second's Relu, before a zero point of
     * 128, stays a float Conv), and without the fusions ORT's outputs are not ours: one uint8 differs by one. */
    model = test_source_path("tests/data/qlinear/qdq/model.onnx");
    char *dir = test_source_path("tests/data/qlinear/qdq/test_data_set_0");
    r = sim_in((const char *[]){"--graph", model, "--fuse", "ort", NULL});
    g_assert_nonnull(strstr(r.out, "\nqdq-bias              3  0 B\n"));
    g_assert_nonnull(strstr(r.out, "\nqdq-conv              2  18,896 B (18.5 KiB)\n"));
    run_result_clear(&r);
    r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--expect", dir, "--atol", "0", NULL});
    g_assert_cmpint(r.status, !=, 0);
    g_assert_nonnull(strstr(r.err, "output 'q2' element 836 is 207, the expected 208"));
    run_result_clear(&r);
    g_free(dir);
    g_free(model);
    /* The QDQ classifier as ORT's static quantizer writes it: ORT's optimized file at level extended runs
     * QuantizeLinear, QLinearConv, MaxPool, QLinearConv, QLinearAdd, QLinearGlobalAveragePool, Reshape, QGemm,
     * QLinearMatMul, DequantizeLinear, and so does the fused graph (two Convs and the MatMul, the Gemm, the Add and
     * the pool, MaxPool's and Reshape's pairs dropped). */
    model = test_source_path("tests/data/qlinear/qdqnet/model.onnx");
    r = sim_in((const char *[]){"--graph", model, "--fuse", "ort", NULL});
    const char *sites[] = {"\nqdq-conv              3 ", "\nqdq-gemm              1 ", "\nqdq-qlinear           2 ",
                           "\nqdq-drop              2 "};
    for (gsize k = 0; k < G_N_ELEMENTS(sites); k++)
        g_assert_nonnull(strstr(r.out, sites[k]));
    run_result_clear(&r);
    g_free(model);
    /* int8 activations as ORT's x86 build runs them (its optimized file): the three QuantizeLinear read by one
     * DequantizeLinear alone made uint8, so the first Conv fuses (with its Relu) and nothing else does; without the
     * fusions one output is not ORT's. */
    model = test_source_path("tests/data/qlinear/qdqs8/model.onnx");
    dir = test_source_path("tests/data/qlinear/qdqs8/test_data_set_0");
    r = sim_in((const char *[]){"--graph", model, "--fuse", "ort", NULL});
    g_assert_nonnull(strstr(r.out, "\nqdq-s8-to-u8          3  0 B\n"));
    g_assert_nonnull(strstr(r.out, "\nqdq-conv              1 "));
    g_assert_null(strstr(r.out, "\nqdq-qlinear"));
    run_result_clear(&r);
    r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--expect", dir, "--atol", "0", NULL});
    g_assert_cmpint(r.status, !=, 0);
    g_assert_nonnull(strstr(r.err, "output 'y' element 64 is 0.359999985, the expected 0.319999993"));
    run_result_clear(&r);
    g_free(dir);
    g_free(model);
}

/* A quantization-aware model as torch exports it: QuantizeLinear/DequantizeLinear pairs per tensor (uint8) and per
 * output channel (int8, axis 0) around a Conv, a ReLU and a Gemm. */
static void test_qdq_matches_torch(void) { check_kind_matches_torch("qdq", 1); }

/* A speech conformer block: InstanceNorm1d, GLU, a depthwise Conv1d, GroupNorm, SiLU, self-attention; torch's
 * logits. */
static void test_conformer_matches_torch(void) { check_kind_matches_torch("conformer", 1); }

/* A half-precision CNN as ONNX's float16 converter writes it (its Casts after the nodes: ordered topologically):
 * torch's logits with every module's output rounded to FLOAT16, where the file rounds each op's. */
static void test_fp16_matches_torch(void) { check_kind_matches_torch("fp16", 1); }

/* torchvision's Keypoint R-CNN: real-valued heatmaps resized in a Loop over the detections to each box's size, the
 * sizes a Concat of the heatmap's known dims (Shape, then Slice) and the box's computed ones. Planned at upper
 * bounds, the known dims stay exact (a Slice of a shape vector keeps each element's range): the plan once bounded
 * them by the heatmap's side and refused the Reshape to [keypoints, -1]. Runs with torch's keypoints and scores. */
/* A VAD-style model with nested Ifs whose conditions are values of the inputs (a sample rate, the features' mean),
 * as torch.jit.script exports Python ifs: both branches planned, guarded, the taken one run; torch's outputs and
 * recurrent state. Its 8 kHz branch cuts the window into frames only 256 samples fill, as Silero VAD v5's does: at
 * the 16 kHz window of 512 its shapes are invalid, so it is planned as never taken (the plan was refused before);
 * the same inputs at 8 kHz stop with one line naming the branch and why. */
static void test_vad_matches_torch(void)
{
    check_kind_matches_torch("vad", 3);
    char *dir = export_kind("vad"), *model = g_build_filename(dir, "model.onnx", NULL);
    char *other = g_build_filename(dir, "test_data_set_8k", NULL);
    RunResult r = sim_in((const char *[]){"--graph", model, "--inputs", other, "--run", NULL});
    g_assert_cmpint(r.status, ==, 1);
    assert_contains(r.err, "(IfSelect): the condition chose the else branch, which was planned as never taken: at "
                           "these dims node '/If_1/else//Reshape' (Reshape): cannot reshape 'x' [1,512] (512 elements) "
                           "to [1,2,128] (256 elements): element counts differ\n");
    run_result_clear(&r);
    g_free(other);
    g_free(model);
    g_free(dir);
}

/* Silero VAD v5 and v6 as @ricky0123/vad-web ships them (`make models`: graphs/models/silero/): an If on the sample
 * rate whose branches hold the STFT (a Conv by a 66,048-float Constant basis), the encoder and an LSTM decoder;
 * each at 16 kHz (512 samples: the 8 kHz branch's shapes are invalid there, so it is planned as never taken) and at
 * 8 kHz (256 samples), the default plan's probability and state within the default tolerance of ONNX Runtime's
 * (tests/data/silero/make.py, ORT 1.30's outputs kept there), every plan bit for bit. They were refused (the 8 kHz
 * branch's LSTM input of rank 5), then ran on made-up STFT weights. */
static void test_silero_matches_ort(void)
{
    const char *cases[] = {"v5-16k", "v6-16k", "v5-8k", "v6-8k"};
    for (gsize k = 0; k < G_N_ELEMENTS(cases); k++) {
        char *rel = g_strdup_printf("graphs/models/silero/silero_vad_%.2s.onnx", cases[k]);
        char *data_rel = g_strdup_printf("tests/data/silero/%s/test_data_set_0", cases[k]);
        char *model = test_source_path(rel), *dir = test_source_path(data_rel);
        const char *window = strstr(cases[k], "16k") ? "input.1=512" : "input.1=256";
        RunResult r = sim_in((const char *[]){"--graph", model, "--dim", "input.0=1", "--dim", window, "--dim",
                                              "state.1=1", "--inputs", dir, "--run", "--check", "--poison", "--expect",
                                              dir, NULL});
        if (r.status != 0)
            g_error("Silero %s does not match ONNX Runtime: %s", cases[k], r.err);
        g_assert_nonnull(strstr(r.out, "expect         2 outputs within rtol 0.001 and atol 1e-05 of "));
        g_assert_null(strstr(r.out, "(degenerate)"));
        run_result_clear(&r);
        r = sim_in((const char *[]){"--graph", model, "--dim", "input.0=1", "--dim", window, "--dim", "state.1=1",
                                    "--inputs", dir, "--run", "--check", "--poison", "--compare", NULL});
        if (r.status != 0)
            g_error("a plan of Silero %s does not run bit for bit: %s", cases[k], r.err);
        run_result_clear(&r);
        g_free(dir);
        g_free(data_rel);
        g_free(model);
        g_free(rel);
    }
}

static void test_keypoint_matches_torch(void)
{
    check_kind_matches_torch("keypoint", 5);
}

/* A spatial transformer (affine_grid, GridSample bilinear with zeros padding) and a flow warp (GridSample bicubic,
 * border padding, align_corners) by a predicted offset field. */
static void test_warp_matches_torch(void) { check_kind_matches_torch("warp", 1); }

/* A Python list in a loop, as torch.jit.script exports it: a Loop over the clip's frames (a named dimension the
 * inputs bind) builds a sequence (SequenceEmpty, SequenceInsert), read by ConcatFromSequence (new axis), SequenceAt
 * and SequenceLength; torch.split's list (SplitToSequence) summed in a second Loop. Every sequence op is folded at
 * plan time into moves of its elements: no sequence is left in the plan, and the outputs are torch's. */
static void test_listloop_matches_torch(void)
{
    check_kind_matches_torch("listloop", 3);
    /* The list's length follows the clip's: each frame adds 6 steps (the body's Gather, Conv, Relu, ReduceMean and
     * its condition's Identity, the stack's Unsqueeze; the SequenceInsert takes none), the rest of the graph 45. */
    char *dir = export_kind("listloop"), *model = g_build_filename(dir, "model.onnx", NULL);
    for (int frames = 1; frames <= 5; frames += 2) {
        char *dims = g_strdup_printf("frames=%d", frames), *want = g_strdup_printf(",%d,", 45 + 6 * frames);
        RunResult r = sim_in((const char *[]){"--graph", model, "--dim", dims, "--format", "csv", "--order", "file",
                                              NULL});
        g_assert_cmpint(r.status, ==, 0);
        g_assert_nonnull(strstr(r.out, want));
        run_result_clear(&r);
        g_free(want);
        g_free(dims);
    }
    g_free(model);
    g_free(dir);
}

/* LSTM (two bidirectional layers, batch first), GRU with an initial state and a reversed RNN: every output. */
static void test_speech_matches_torch(void) { check_kind_matches_torch("speech", 4); }

/* Conv3d, BatchNorm3d, MaxPool3d, AvgPool3d and ConvTranspose3d. */
static void test_video_matches_torch(void) { check_kind_matches_torch("video", 1); }

/* A segmentation head whose dilated taps (12, 24, 36 on an 8 x 8 map) read only padding; squeeze-excite and
 * channel-last (NHWC LayerNorm and linears) blocks with opset 13's HardSwish. */
static void test_segment_and_squeeze_match_torch(void)
{
    check_kind_matches_torch("segment", 1);
    check_kind_matches_torch("squeeze", 1);
}

/* --fuse ort: a masked encoder's LayerNorms, a video network's residual Conv+Adds, HardSwish, GELU and a
 * LayerNorm of the squeeze-excite and channel-last blocks, fused; --fuse ort-transformers: the masked
 * encoder's post-norm residual sums and a small ViT's unmasked attention (three layers) run as
 * SkipLayerNormalization and Attention. Every fused plan runs bit for bit with the fused graph's
 * nothing-shared run, and the fused arithmetic stays within the tolerance of torch's outputs (it rounds
 * differently from the unfused ops). */
static void test_fused_match_torch(void)
{
    static const struct {
        const char *kind, *fuse, *sites;
    } cases[] = {
        {"encoder", "ort", "layer-norm            4"}, {"video", "ort", "conv-add              2"},
        {"squeeze", "ort", "hard-swish            3"}, {"encoder", "ort-transformers", "skip-layer-norm       4"},
        {"vit", "ort-transformers", "attention             3"},
    };
    for (gsize k = 0; k < G_N_ELEMENTS(cases); k++) {
        char *dir = export_kind(cases[k].kind), *model = g_build_filename(dir, "model.onnx", NULL);
        RunResult r = sim_in((const char *[]){"--graph", model, "--fuse", cases[k].fuse, "--inputs", dir, "--run",
                                              "--check", "--poison", "--expect", dir, NULL});
        if (r.status != 0)
            g_error("the fused %s model does not match torch: %s", cases[k].kind, r.err);
        if (!strstr(r.out, cases[k].sites))
            g_error("the %s model under --fuse %s lacks '%s': %s", cases[k].kind, cases[k].fuse, cases[k].sites, r.out);
        g_assert_nonnull(strstr(r.out, "bit for bit, with poison"));
        run_result_clear(&r);
        r = sim_in((const char *[]){"--graph", model, "--fuse", cases[k].fuse, "--inputs", dir, "--run", "--check",
                                    "--poison", "--compare", NULL});
        if (r.status != 0)
            g_error("a fused plan of the %s model does not run bit for bit: %s", cases[k].kind, r.err);
        run_result_clear(&r);
        g_free(model);
        g_free(dir);
    }
}

/* A ResNet-style classifier of dense 3 x 3 stride-1 convolutions: with AVX-512 oneDNN runs them by Winograd's
 * algorithm (the report counts them), which rounds differently from torch's direct sums and must stay within
 * the tolerance; with --winograd off none is, and the run matches torch too. */
static void test_residual_matches_torch(void)
{
    check_kind_matches_torch("residual", 1);
    char *dir = export_kind("residual"), *model = g_build_filename(dir, "model.onnx", NULL);
    const char *modes[] = {"auto", "off"};
    for (gsize k = 0; k < G_N_ELEMENTS(modes); k++) {
        RunResult r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--check", "--poison",
                                              "--expect", dir, "--winograd", modes[k], NULL});
        if (r.status != 0)
            g_error("--winograd %s: the residual model does not match torch: %s", modes[k], r.err);
        /* both convolutions of each block but the strided one, by F(4x4) (the last blocks' 16 x 16 maps would take
         * F(2x2), which oneDNN declines at this batch); the stem's 3 input channels run direct */
        const char *counted = strstr(r.out, "winograd       7 of its convolutions by Winograd's minimal filtering: 7 by "
                                            "F(4x4,3x3) (--winograd)");
        if (k == 0 && test_cpu_has_avx512_core() ? !counted : strstr(r.out, "winograd ") != NULL)
            g_error("--winograd %s: %s", modes[k], r.out);
        run_result_clear(&r);
    }
    g_free(model);
    g_free(dir);
}

/* torchvision's detectors: NonZero, TopK with a computed K, NonMaxSuppression, RoiAlign, GatherND, Ifs whose
 * condition only running decides, a Loop whose trip count does (Mask R-CNN's paste), sizes that follow box
 * coordinates (planned at the top of their value range); planned at upper bounds (the report says so), run
 * with the real sizes. */
static void test_detectors_match_torch(void)
{
    static const char *const kinds[] = {"frcnn", "retinanet", "ssd", "maskrcnn"};
    for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++) /* Mask R-CNN: its masks too, pasted in a Loop over detections */
        check_kind_matches_torch(kinds[k], strcmp(kinds[k], "maskrcnn") ? 3 : 4);
    char *dir = export_kind("frcnn"), *model = g_build_filename(dir, "model.onnx", NULL);
    RunResult r = sim_in((const char *[]){"--graph", model, NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_nonnull(strstr(r.out, "sizes          an upper-bound plan: "));
    g_assert_nonnull(strstr(r.out, "'/m/rpn/NonZero_output_0' INT64 [1,60], dimension 1: NonZero: at most its input's elements"));
    run_result_clear(&r);
    /* a bound below what the run needs stops it, naming the tensor and the flag */
    r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--bound", "/m/rpn/NonZero_output_0=1", NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "above the 1 its planned bound holds (raise it with --bound '/m/rpn/NonZero_output_0=MAX')"));
    run_result_clear(&r);
    /* a bound that holds plans a smaller arena and runs the same */
    r = sim_in((const char *[]){"--graph", model, "--inputs", dir, "--run", "--check", "--poison", "--expect", dir,
                                "--bound", "/m/roi_heads/NonZero_output_0=60", NULL});
    if (r.status != 0)
        g_error("a bound that holds does not run: %s", r.err);
    g_assert_nonnull(strstr(r.out, "dimension 1: given with --bound"));
    run_result_clear(&r);
    /* a name that is not a data-dependent tensor */
    r = sim_in((const char *[]){"--graph", model, "--bound", "boxes=3", NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "--bound 'boxes': the graph has no data-dependent tensor of that name (it has: "));
    run_result_clear(&r);
    g_free(model);
    g_free(dir);
}

/* The default run (no --transpose, no --strategy) computes torch's values. */
static void test_encoder_matches_torch(void)
{
    export_encoder();
    char *model = in_folder("model.onnx");
    RunResult r = sim_in((const char *[]){"--graph", model, "--inputs", folder, "--run", "--check", "--poison",
                                          "--expect", folder, NULL});
    if (r.status != 0)
        g_error("the run does not match torch: %s", r.err);
    g_assert_nonnull(strstr(r.out, "expect         1 outputs within rtol 0.001 and atol 1e-05 of "));
    g_assert_nonnull(strstr(r.out, "bit for bit, with poison"));
    g_assert_null(strstr(r.out, "(degenerate)"));
    run_result_clear(&r);
    /* No tolerance at all: float arithmetic in another order differs in the last bits, and that is caught. */
    r = sim_in((const char *[]){"--graph", model, "--inputs", folder, "--run", "--expect", folder, "--rtol", "0",
                                "--atol", "0", NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "--expect: output 'y' element "));
    run_result_clear(&r);
    /* Every strategy's plan, on the same inputs, bit for bit with the reference. */
    r = sim_in((const char *[]){"--graph", model, "--inputs", folder, "--run", "--check", "--poison", "--compare", NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    /* The default tolerance fails a wrong kernel: the model with its first LayerNorm's deviation 0.1% off (a Mul
     * after its Sqrt, as an op computed slightly wrong would be) misses torch's outputs, and the failure says by
     * how much. */
    char *wrong = in_folder("wrong.onnx");
    const char *edit = "import onnx, sys, numpy as np\n"
                       "from onnx import helper, numpy_helper\n"
                       "m = onnx.load(sys.argv[1]); g = m.graph\n"
                       "i = next(k for k, n in enumerate(g.node) if n.op_type == 'Sqrt')\n"
                       "out = g.node[i].output[0]; g.node[i].output[0] = out + '_raw'\n"
                       "g.initializer.append(numpy_helper.from_array(np.array(1.001, dtype=np.float32), 'off'))\n"
                       "g.node.insert(i + 1, helper.make_node('Mul', [out + '_raw', 'off'], [out]))\n"
                       "onnx.save(m, sys.argv[2])\n";
    char *argv[] = {"/usr/bin/python3", "-c", (char *)edit, model, wrong, NULL};
    gint status = 0;
    gchar *err = NULL;
    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL))
        g_error("the edit failed: %s", err);
    g_free(err);
    r = sim_in((const char *[]){"--graph", wrong, "--inputs", folder, "--run", "--expect", folder, NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "is beyond rtol 0.001 and atol 1e-05; over all of it the largest error is "));
    run_result_clear(&r);
    g_free(wrong);
    g_free(model);
}

/* --dump-outputs writes the run's outputs in the same layout, and they read back exactly. */
static void test_dump_reads_back(void)
{
    export_encoder();
    char *model = in_folder("model.onnx"), *dump = test_scratch_path("dumped");
    RunResult r = sim_in((const char *[]){"--graph", model, "--inputs", folder, "--run", "--dump-outputs", dump, NULL});
    g_assert_cmpint(r.status, ==, 0);
    run_result_clear(&r);
    r = sim_in((const char *[]){"--graph", model, "--inputs", folder, "--run", "--expect", dump, "--rtol", "0", "--atol",
                                "0", NULL});
    if (r.status != 0)
        g_error("dumped outputs do not read back: %s", r.err);
    run_result_clear(&r);
    g_free(model);
    g_free(dump);
}

/* Inputs whose shapes disagree with a --dim are refused; a missing data set is one clear error. */
static void test_inputs_errors(void)
{
    export_encoder();
    char *model = in_folder("model.onnx"), *nowhere = in_folder("no-such-set");
    RunResult r = sim_in((const char *[]){"--graph", model, "--inputs", nowhere, "--run", NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "input_0.pb"));
    g_assert_true(strchr(r.err, '\n') == r.err + strlen(r.err) - 1); /* one line */
    run_result_clear(&r);
    r = sim_in((const char *[]){"--graph", model, "--inputs", folder, NULL});
    g_assert_cmpint(r.status, ==, 2);
    run_result_clear(&r);
    g_free(model);
    g_free(nowhere);
}

/* An output that is one value everywhere passes any bit-for-bit check: --check refuses it. */
static void test_degenerate_output(void)
{
    Builder *b = builder_new("degenerate", 13);
    const char *x = builder_input(b, "x", DT_FLOAT, 2, (const gint64[]){4, 4});
    const char *zero = builder_float_scalar(b, "zero", 0.0f);
    builder_output(b, B_OP(b, "Mul", B_OP(b, "Relu", x), zero));
    GError *error = NULL;
    Model *m = builder_finish(b, &error);
    g_assert_no_error(error);
    char *path = test_scratch_path("degenerate.onnx");
    g_assert_true(onnx_write_file(m, path, &error));
    model_free(m);
    RunResult r = sim_in((const char *[]){"--graph", path, "--run", "--check", NULL});
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "is one value everywhere, which a check cannot tell from a right answer"));
    run_result_clear(&r);
    r = sim_in((const char *[]){"--graph", path, "--run", "--check", "--allow-degenerate", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_nonnull(strstr(r.out, "(degenerate)"));
    run_result_clear(&r);
    g_free(path);
}

/* Generated inputs follow the graph: token ids index inside their table (out of range, the Gather fails),
 * so the encoder runs and checks without --inputs, its output neither NaN nor constant. */
static void test_generated_inputs(void)
{
    export_encoder();
    char *model = in_folder("model.onnx");
    RunResult r = sim_in((const char *[]){"--graph", model, "--run", "--check", "--poison", NULL});
    if (r.status != 0)
        g_error("the encoder does not run on generated inputs: %s", r.err);
    g_assert_nonnull(strstr(r.out, "outputs        'y' FLOAT: 192 elements, 0 NaN, 0 infinite, from "));
    run_result_clear(&r);
    g_free(model);
}

/* The library runs the same oracle check as the command: the installed Python module plans the squeeze export
 * with its data set's inputs and passes --expect's default tolerance; at no tolerance it fails with the words
 * sim's run gives. Only with the installed library (not in the sanitizer builds). */
static void test_library_expect(void)
{
    const char *prefix = g_getenv("ARENASIM_PREFIX");
    if (!prefix) {
        g_test_skip("ARENASIM_PREFIX is not set: make check installs the library there");
        return;
    }
    char *dir = export_kind("squeeze"), *model = g_build_filename(dir, "model.onnx", NULL),
         *data = g_build_filename(dir, "test_data_set_0", NULL);
    RunResult sim = test_run("SIM_BIN", (const char *[]){"--graph", model, "--inputs", data, "--run", "--expect", data,
                                                          "--atol", "0", "--rtol", "0", NULL});
    g_assert_cmpint(sim.status, ==, 1);
    const char *words = strstr(sim.err, "--expect: output 'logits'");
    g_assert_nonnull(words);
    char *pypath = g_strdup_printf("%s/lib/python3/dist-packages", prefix);
    g_setenv("PYTHONPATH", pypath, TRUE);
    const char *script =
        "import arenasim, sys\n"
        "model, data, words = sys.argv[1:]\n"
        "p = arenasim.plan(model, run=True, inputs=data, run_options={'expect': data})\n"
        "assert p.run == 'checked bit for bit, with poison', p\n"
        "try:\n"
        "    arenasim.plan(model, run=True, inputs=data, run_options={'expect': data, 'atol': 0, 'rtol': 0})\n"
        "    sys.exit('no tolerance passed')\n"
        "except arenasim.Error as e:\n"
        "    assert words in str(e), (words, str(e))\n";
    char *first_line = g_strndup(words, strcspn(words, "\n"));
    char *argv[] = {"/usr/bin/python3", "-c", (char *)script, model, data, first_line, NULL};
    gchar *out = NULL, *err = NULL;
    gint status = 0;
    g_assert_true(g_spawn_sync(NULL, argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
    g_unsetenv("PYTHONPATH");
    if (!g_spawn_check_wait_status(status, NULL))
        g_error("python3: %s%s", out, err);
    g_free(out);
    g_free(err);
    g_free(first_line);
    g_free(pypath);
    run_result_clear(&sim);
    g_free(data);
    g_free(model);
    g_free(dir);
}

static void remove_folder(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *name; d && (name = g_dir_read_name(d));) {
        char *path = g_build_filename(dir, name, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_DIR))
            remove_folder(path);
        else
            g_unlink(path);
        g_free(path);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/oracle/encoder-matches-torch", test_encoder_matches_torch);
    g_test_add_func("/oracle/dump-reads-back", test_dump_reads_back);
    g_test_add_func("/oracle/inputs-errors", test_inputs_errors);
    g_test_add_func("/oracle/degenerate-output", test_degenerate_output);
    g_test_add_func("/oracle/generated-inputs", test_generated_inputs);
    g_test_add_func("/oracle/speech-matches-torch", test_speech_matches_torch);
    g_test_add_func("/oracle/video-matches-torch", test_video_matches_torch);
    g_test_add_func("/oracle/segment-and-squeeze-match-torch", test_segment_and_squeeze_match_torch);
    g_test_add_func("/oracle/fused-match-torch", test_fused_match_torch);
    g_test_add_func("/oracle/detectors-match-torch", test_detectors_match_torch);
    g_test_add_func("/oracle/residual-matches-torch", test_residual_matches_torch);
    g_test_add_func("/oracle/qdq-matches-torch", test_qdq_matches_torch);
    g_test_add_func("/oracle/qlinear-matches-ort", test_qlinear_matches_ort);
    g_test_add_func("/oracle/keypoint-matches-torch", test_keypoint_matches_torch);
    g_test_add_func("/oracle/vad-matches-torch", test_vad_matches_torch);
    g_test_add_func("/oracle/silero-matches-ort", test_silero_matches_ort);
    g_test_add_func("/oracle/warp-matches-torch", test_warp_matches_torch);
    g_test_add_func("/oracle/listloop-matches-torch", test_listloop_matches_torch);
    g_test_add_func("/oracle/conformer-matches-torch", test_conformer_matches_torch);
    g_test_add_func("/oracle/fp16-matches-torch", test_fp16_matches_torch);
    g_test_add_func("/oracle/library-expect", test_library_expect);
    int status = g_test_run();
    if (top)
        remove_folder(top);
    g_free(folder);
    g_free(top);
    return status;
}
