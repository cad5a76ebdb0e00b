#!/usr/bin/env bash
# xnnpack.sh — XNNPACK (Debian's libxnnpack-dev, the 2022 snapshot) beside our depthwise kernel on the
# depthwise convolutions of mobilenet_v3_small, one thread: XNNPACK's NCHW operator (our arena's layout),
# its NHWC operator alone, and the NHWC operator with the two transposes an NCHW arena needs around it
# (bench/xnnpack-dw.c); ours is `sim --run --profile` on a one-Conv model of the same shape. Rounds take
# turns, each figure the best of ROUNDS rounds' medians. Writes results/xnnpack.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f /usr/include/xnnpack.h ] || { echo "xnnpack.sh: libxnnpack-dev is missing (make figures-deps installs it)" >&2; exit 1; }
make -s build/sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror bench/xnnpack-dw.c -lXNNPACK -lm -o "$work/xnnpack-dw"
export OPENBLAS_NUM_THREADS=1
repeat=${REPEAT:-50}
rounds=${ROUNDS:-3}
machine=$(bench/machine.sh start)
# channels, height, width, kernel, stride: mobilenet_v3_small's depthwise convolutions at 224 x 224
shapes=("16 112 112 3 2" "72 56 56 3 2" "88 28 28 3 1" "96 28 28 5 2" "240 14 14 5 1" "120 14 14 5 1"
        "144 14 14 5 1" "288 14 14 5 2" "576 7 7 5 1")
for s in "${shapes[@]}"; do
    set -- $s
    /usr/bin/python3 - "$work/dw-$1-$2-$4-$5.onnx" "$@" <<'EOF'
import sys
import onnx
from onnx import TensorProto, helper
path, c, h, w, k, s = sys.argv[1], *map(int, sys.argv[2:])
p = k // 2
conv = helper.make_node("Conv", ["x", "w"], ["y"], group=c, kernel_shape=[k, k], strides=[s, s], pads=[p] * 4)
graph = helper.make_graph([conv], "dw", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, w])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [helper.make_tensor("w", TensorProto.FLOAT, [c, 1, k, k], [((i * 3) % 7) - 3.0 for i in range(c * k * k)])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
EOF
done
declare -A ours=() nchw=() nhwc=() moves=()
best() { /usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$@"; }
for round in $(seq "$rounds"); do
    for s in "${shapes[@]}"; do
        set -- $s
        key="$1 $2 $3 $4 $5"
        build/sim --graph "$work/dw-$1-$2-$4-$5.onnx" --strategy greedy-size --run --repeat "$repeat" \
            --profile "$work/profile.csv" > /dev/null
        t=$(awk -F, '$3 == "Conv" {printf "%.6f", $4 * 1000}' "$work/profile.csv")
        ours[$key]=$(best "$t" "${ours[$key]:-}")
        read -r _ _ _ _ _ a b m _ < <("$work/xnnpack-dw" "$repeat" $key)
        nchw[$key]=$(best "$a" "${nchw[$key]:-}")
        nhwc[$key]=$(best "$b" "${nhwc[$key]:-}")
        moves[$key]=$(best "$m" "${moves[$key]:-}")
    done
done
ms() { /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[1]):.3f}')" "$1"; }
{
    echo "# XNNPACK beside our depthwise kernel"
    echo
    echo "Made by \`bench/xnnpack.sh\`: mobilenet_v3_small's depthwise convolutions (224 × 224 input), one thread,"
    echo "milliseconds, the best of $rounds rounds' medians of $repeat runs, the tools taking turns. *Ours*: \`sim --run"
    echo "--profile\` on a one-Conv model of the shape (the phase-split direct kernel, docs/executor.md). *XNNPACK"
    echo "NCHW*: \`xnn_create_convolution2d_nchw_f32\`, which reads and writes our arena's layout as it is. *XNNPACK"
    echo "NHWC*: its main operator, alone and with the two transposes (input to NHWC, output back) an NCHW arena"
    echo "needs around it. bench/xnnpack-dw.c checks that its NCHW and NHWC outputs agree."
    echo
    echo "$machine"
    echo
    echo "| channels | map | window | stride | ours | XNNPACK NCHW | XNNPACK NHWC | NHWC + transposes | best in our arena |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for s in "${shapes[@]}"; do
        set -- $s
        key="$1 $2 $3 $4 $5"
        with=$(/usr/bin/python3 -c "import sys; print(float(sys.argv[1]) + float(sys.argv[2]))" "${nhwc[$key]}" "${moves[$key]}")
        winner=$(/usr/bin/python3 -c "import sys; o, a, b = map(float, sys.argv[1:]); print('ours' if o <= min(a, b) else 'XNNPACK NCHW' if a <= b else 'XNNPACK NHWC + transposes')" \
                 "${ours[$key]}" "${nchw[$key]}" "$with")
        echo "| $1 | $2 × $3 | $4 × $4 | $5 | $(ms "${ours[$key]}") | $(ms "${nchw[$key]}") | $(ms "${nhwc[$key]}") | $(ms "$with") | $winner |"
    done
    echo
    bench/machine.sh end
} > results/xnnpack.md
echo "xnnpack.sh: wrote results/xnnpack.md" >&2
