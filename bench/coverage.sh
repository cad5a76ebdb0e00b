#!/usr/bin/env bash
# coverage.sh — results/coverage.md: every model class, exported from torch here (tests/data/oracle/export.py,
# Debian's python3 with python3-torch and python3-onnx), planned with `best` on a work budget, run in its
# plan under every strategy with --check --poison, and checked against torch's own outputs (--inputs,
# --expect, the ONNX backend tests' tolerance). Deterministic: seeded weights and inputs, a work budget.
# Usage: bench/coverage.sh [OUT.md] (default results/coverage.md); WORK sets the budget (search nodes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-results/coverage.md}
sim=build/sim
WORK=${WORK:-1000000}
make -s build/sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the classes (kind | class | what the export holds | plan options): bench/classes.sh
source bench/classes.sh

{
    echo "# Model classes: planned, run in their plans, and checked against torch"
    echo
    echo "Made by \`bench/coverage.sh\` (\`make figures FIGURES=coverage\`). Each class is a model exported here"
    echo "with \`torch.onnx.export\` (\`tests/data/oracle/export.py KIND DIR\`: seeded weights and inputs, torch's own"
    echo "outputs saved in the ONNX model zoo's layout; the detectors are torchvision's own classes on a"
    echo "two-convolution backbone and a 64 x 64 image). Then, under the default options:"
    echo
    echo "- *plan*: \`sim --graph DIR/model.onnx --budget-work $WORK\` (strategy \`best\`): steps, the lower bound and"
    echo "  the arena; *data-dependent*: the tensors planned at an upper bound (docs/DESIGN.md, \"Data-dependent sizes\");"
    echo "- *every plan bit for bit*: \`--run --check --poison --compare --inputs DIR\`: every strategy's plan computes"
    echo "  what the run with nothing shared computes, with dead buffers poisoned;"
    echo "- *torch's outputs*: \`--run --inputs DIR --expect DIR\`: every output within rtol 1e-3, atol 1e-7 of torch's."
    echo
    echo "| class | export | steps | data-dependent | lower bound (B) | arena (B) | every plan bit for bit | torch's outputs |"
    echo "|---|---|---:|---:|---:|---:|---|---|"
    for row in "${classes[@]}"; do
        IFS='|' read -r kind class holds plan_args <<< "$row"
        read -r -a plan_args <<< "$plan_args"
        dir="$work/$kind"
        class_export "$kind" "$dir"
        json=$("$sim" --graph "$dir/model.onnx" --format json --budget-work "$WORK" "${plan_args[@]}")
        read -r steps bounded lb arena < <(/usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
print(r["steps"], r.get("data_dependent_tensors", 0), r["lower_bound_bytes"], r["arena_bytes"])' <<< "$json")
        check=no
        "$sim" --graph "$dir/model.onnx" --inputs "$dir" --run --check --poison --compare --budget-work 100000 \
            > /dev/null 2>&1 && check=yes
        expect=no
        "$sim" --graph "$dir/model.onnx" --inputs "$dir" --run --expect "$dir" > /dev/null 2>&1 && expect=yes
        echo "| $class | \`$kind\`: $holds | $steps | $bounded | $lb | $arena | $check | $expect |"
    done
    echo
    echo "Beyond these: every corpus model the executor covers (CNNs, vision transformers, GPT-2, a decoder with"
    echo "a causal mask) runs bit for bit under every strategy ([exec-check.md](exec-check.md)), and the kernels"
    echo "pass the ONNX node tests of every op they run, LSTM, GRU, RNN, 3-D pools, NonZero, NonMaxSuppression,"
    echo "RoiAlign and GatherND included ([conformance.md](conformance.md)). ONNX Runtime's QOperator form (its"
    echo "com.microsoft QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QLinearWhere,"
    echo "QLinearConcat, QLinearAveragePool, QLinearGlobalAveragePool and QGemm, uint8 and int8, and a small"
    echo "classifier with QLinearConv and MaxPool on uint8; tests/data/qlinear) runs bit for bit in every plan"
    echo "and gives"
    echo "ORT 1.30's own outputs exactly (tests/test-oracle, /oracle/qlinear-matches-ort; ORT's outputs kept beside"
    echo "the model); so do a dynamically quantized model as ORT's quantize_dynamic writes it (DynamicQuantizeLinear,"
    echo "ConvInteger, MatMulInteger) and two QDQ models under \`--fuse ort\` (ORT's bias quantization and QDQ fusions"
    echo "into QLinearConv, QLinearMatMul, QGemm, QLinearAdd and QLinearGlobalAveragePool, its dropped pairs around"
    echo "MaxPool and Reshape). ONNX's own sequence models (libonnx-testdata's simple/test_sequence_model1 to 8:"
    echo "every sequence op, SplitToSequence by ones, by a chunk and by sizes) are folded at plan time and give their"
    echo "expected outputs (tests/test-conformance, /conformance/sequence-models). Silero VAD v5 and v6 as npm's"
    echo "@ricky0123/vad-web ships them (an If on the sample rate whose 8 kHz branch cannot run at the 16 kHz window:"
    echo "planned as never taken) give ORT 1.30's outputs at 16 and 8 kHz (tests/test-oracle,"
    echo "/oracle/silero-matches-ort)."
    echo
    echo "Not covered: torchvision's full-size detectors plan and run (\`fasterrcnn_mobilenet_v3_large_320_fpn\`: 1,446"
    echo "steps, 10 data-dependent tensors), but with random weights every score is the same number, so their"
    echo "detections are ties in any order and no check against torch means anything; the small exports above"
    echo "draw weights that make boxes, scores and labels differ. Sequence lengths (\`sequence_lens\`) are run by"
    echo "the node tests, not by an export (torch's exports do not use them)."
} > "$work/coverage.md"
mv "$work/coverage.md" "$out"
