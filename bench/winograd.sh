#!/usr/bin/env bash
# winograd.sh — oneDNN's direct kernel and Winograd's F(2x2,3x3) and F(4x4,3x3) on each 3 x 3 stride-1
# convolution shape of the corpus's CNNs, one thread (bench/winograd-variants.c: each implementation alone,
# weights from memory), beside the one the executor chooses (sim --run on a one-Conv model of the shape: its
# report names the variant). Rounds take turns, each figure the best of ROUNDS rounds. Writes
# results/winograd.md; the choice's rule and reasons are in docs/executor.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f /usr/include/oneapi/dnnl/dnnl.h ] || { echo "winograd.sh: libdnnl-dev is missing (make deps installs it)" >&2; exit 1; }
make -s build/sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror bench/winograd-variants.c -ldnnl -o "$work/winograd-variants"
export OPENBLAS_NUM_THREADS=1
rounds=${ROUNDS:-3}
machine=$(bench/machine.sh start)
# input channels, output channels, input side, padding, where
shapes=("32 32 149 0 inception_v3" "32 64 147 1 inception_v3" "80 192 73 0 inception_v3" "64 96 35 1 inception_v3"
        "96 96 35 1 inception_v3" "448 384 8 1 inception_v3" "64 64 56 1 resnet50" "128 128 28 1 resnet50"
        "256 256 14 1 resnet50" "512 512 7 1 resnet50" "64 192 56 1 googlenet" "96 128 28 1 googlenet"
        "16 32 28 1 googlenet" "32 96 28 1 googlenet" "96 208 14 1 googlenet" "112 224 14 1 googlenet"
        "16 48 14 1 googlenet" "160 320 14 1 googlenet" "192 384 7 1 googlenet" "16 64 54 1 squeezenet"
        "32 128 27 1 squeezenet" "48 192 13 1 squeezenet" "64 256 13 1 squeezenet" "256 256 20 1 deeplabv3")
for s in "${shapes[@]}"; do
    set -- $s
    /usr/bin/python3 - "$work/conv-$1-$2-$3-$4.onnx" "$@" <<'EOF'
import sys
import onnx
from onnx import TensorProto, helper
path, c_in, c_out, side, pad = sys.argv[1], *map(int, sys.argv[2:6])
conv = helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[pad] * 4)
relu = helper.make_node("Relu", ["c"], ["y"])
graph = helper.make_graph([conv, relu], "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c_in, side, side])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [helper.make_tensor("w", TensorProto.FLOAT, [c_out, c_in, 3, 3],
                                              [((i * 7) % 11) / 11.0 - 0.5 for i in range(c_out * c_in * 9)])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
EOF
done
declare -A direct=() f2=() f4=() chosen=()
best() { /usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$@"; }
for round in $(seq "$rounds"); do
    for s in "${shapes[@]}"; do
        set -- $s
        key="$1 $2 $3 $4"
        OMP_NUM_THREADS=1 "$work/winograd-variants" "$1" "$2" "$3" "$4" > "$work/times"
        t=$(awk '$1 ~ /^jit:/ {print $2; exit}' "$work/times")
        direct[$key]=$(best "$t" "${direct[$key]:-}")
        t=$(awk '/wino_2x3/ {print $2}' "$work/times")
        [ -z "$t" ] || f2[$key]=$(best "$t" "${f2[$key]:-}")
        t=$(awk '/wino_4x3/ {print $2}' "$work/times")
        [ -z "$t" ] || f4[$key]=$(best "$t" "${f4[$key]:-}")
        if [ "$round" = 1 ]; then
            line=$(build/sim --graph "$work/conv-$1-$2-$3-$4.onnx" --run | grep '^winograd ' || true)
            case "$line" in
                *"F(2x2,3x3)"*) chosen[$key]="F(2×2)" ;;
                *"F(4x4,3x3)"*) chosen[$key]="F(4×4)" ;;
                *) chosen[$key]="direct" ;;
            esac
        fi
    done
done
ms() { [ -n "$1" ] && /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[1]):.3f}')" "$1" || echo "—"; }
{
    echo "# Winograd's variants beside the direct convolution"
    echo
    echo "Made by \`bench/winograd.sh\`: each 3 × 3 stride-1 convolution shape of the corpus's CNNs (batch 1, ReLU"
    echo "after it), one thread, milliseconds, the best of $rounds rounds of 15 calls each (bench/winograd-variants.c:"
    echo "oneDNN's implementation alone, source and output channel-blocked, weights packed once and read from"
    echo "memory at each call). — where oneDNN declines the variant for that shape. *Chosen*: what \`sim --run\`"
    echo "runs it by (sim/exec/kernels/onednn.c, winograd_variant; docs/executor.md has the rule and its reasons)."
    echo
    echo "$machine"
    echo
    echo "| in → out | map | in | direct | F(2×2) | F(4×4) | fastest | chosen |"
    echo "|---|---:|---|---:|---:|---:|---|---|"
    for s in "${shapes[@]}"; do
        set -- $s
        key="$1 $2 $3 $4"
        fastest=$(/usr/bin/python3 -c "
import sys
t = {n: float(v) for n, v in zip(['direct', 'F(2×2)', 'F(4×4)'], sys.argv[1:]) if v}
print(min(t, key=t.get))" "${direct[$key]}" "${f2[$key]:-}" "${f4[$key]:-}")
        echo "| $1 → $2 | $3 × $3 | $5 | $(ms "${direct[$key]}") | $(ms "${f2[$key]:-}") | $(ms "${f4[$key]:-}") | $fastest | ${chosen[$key]} |"
    done
    echo
    bench/machine.sh end
} > results/winograd.md
echo "winograd.sh: wrote results/winograd.md" >&2
