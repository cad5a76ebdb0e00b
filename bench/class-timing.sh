#!/usr/bin/env bash
# class-timing.sh — results/class-timing.md: each model class of results/coverage.md (the same exports,
# tests/data/oracle/export.py, classes in bench/classes.sh) timed beside ONNX Runtime on the same file and the same
# inputs (the export's test_data_set_0, given to ORT as raw bytes: bench/peers/raw_inputs.py), one thread: ours
# under the default options, ours on the graph ORT runs (--fuse ort), and ORT (npm onnxruntime-node, its default
# optimisations). Each figure is the best of ROUNDS rounds' medians of REPEAT runs, the three taking turns in every
# round. Timings: they depend on the machine, which the table names (bench/machine.sh).
# Usage: bench/class-timing.sh [OUT.md] (default results/class-timing.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-results/class-timing.md}
sim=build/sim
repeat=${REPEAT:-20}
rounds=${ROUNDS:-3}
export OPENBLAS_NUM_THREADS=1
make -s build/sim
[ -d bench/peers/node_modules/onnxruntime-node ] || {
    echo "class-timing.sh: onnxruntime-node is missing (make figures-deps installs it)" >&2
    exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the classes (kind | class | what the export holds | plan options)
source bench/classes.sh
machine=$(bench/machine.sh start)

median() { sed -n 's/^run .*median \([0-9.]*\) ms.*/\1/p'; }
least() { /usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$@"; }
ratio() { /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}×')" "$1" "$2"; }
ms() { /usr/bin/python3 -c "import sys; v = float(sys.argv[1]); print(f'{v:.3f}' if v < 10 else f'{v:.1f}')" "$1"; }

{
    echo "# Model classes: time per inference beside ONNX Runtime"
    echo
    echo "Made by \`bench/class-timing.sh\` (\`make figures FIGURES=class-timing\`; timings). The exports of"
    echo "[coverage.md](coverage.md) (\`tests/data/oracle/export.py KIND DIR\`, torch's seeded weights and inputs), each"
    echo "run on its own inputs (\`--inputs DIR\`; ORT on the same values), one thread everywhere"
    echo "(\`OPENBLAS_NUM_THREADS=1\`, ORT \`intraOpNumThreads: 1\`): *ours* \`sim --graph DIR/model.onnx --inputs DIR"
    echo "--run --repeat $repeat\` (default options), *fused* the same with \`--fuse ort\` (the graph ORT runs: its"
    echo "constant folding and fusions, docs/DESIGN.md), *ORT* onnxruntime-node on the file at its default level"
    echo "(\`bench/peers/ort-time.js --raw\`); each the median of $repeat runs after a warm-up, the best of $rounds rounds,"
    echo "the three taking turns in every round. These are small models (milliseconds and less): the figures"
    echo "weigh each op's fixed cost as much as its arithmetic."
    echo
    echo "$machine"
    echo
    echo "| class | export | ours (ms) | fused (ms) | ORT (ms) | ours / ORT | fused / ORT |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    for row in "${classes[@]}"; do
        IFS='|' read -r kind class _holds plan_args <<< "$row"
        read -r -a plan_args <<< "$plan_args"
        dir="$work/$kind"
        class_export "$kind" "$dir"
        /usr/bin/python3 bench/peers/raw_inputs.py "$dir" "$dir/raw"
        ours="" fused="" ort=""
        for _ in $(seq "$rounds"); do
            t=$("$sim" --graph "$dir/model.onnx" --inputs "$dir" "${plan_args[@]}" --run --repeat "$repeat" | median)
            ours=$(least "$t" "$ours")
            t=$("$sim" --graph "$dir/model.onnx" --inputs "$dir" "${plan_args[@]}" --fuse ort --run --repeat "$repeat" |
                median)
            fused=$(least "$t" "$fused")
            t=$(node bench/peers/ort-time.js "$dir/model.onnx" 1 "$repeat" --raw "$dir/raw" |
                /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)['median_ms'])")
            ort=$(least "$t" "$ort")
        done
        echo "| $class | \`$kind\` | $(ms "$ours") | $(ms "$fused") | $(ms "$ort") | $(ratio "$ours" "$ort") |" \
             "$(ratio "$fused" "$ort") |"
        echo "class-timing.sh: $kind" >&2
    done
    echo
    bench/machine.sh end
} > "$work/class-timing.md"
mv "$work/class-timing.md" "$out"
