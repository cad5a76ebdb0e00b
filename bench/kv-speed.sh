#!/usr/bin/env bash
# kv-speed.sh — the decode step's time beside ONNX Runtime's, one thread (timings: results/kv-speed.md). The bench's
# own decoders (bench/export_decode.py, cached by bench/own-exports.sh), one token after a cache of 1,023: ours on the
# file's graph, with the cache planned at capacity 1,024 (--kv-capacity), and with it on the graph ORT runs at its
# default level (--fuse ort) and after its transformer optimizer (--fuse ort-transformers); ORT (npm
# onnxruntime-node, one intra-op thread) on the file. Each tool's own median
# per run (`sim --run --repeat N`; ORT timed around session.run), every configuration in turn for a few rounds,
# each keeping its best round's median (a shared machine's burst lands on one round of one configuration).
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim
if [ ! -d bench/peers/node_modules/onnxruntime-node ]; then
    echo "kv-speed.sh: ONNX Runtime for node is missing (make figures-deps installs it)" >&2
    exit 1
fi
own=$(bench/own-exports.sh bench/export_decode.py kv bench/export_range.py graphs/export_torch.py)
export OPENBLAS_NUM_THREADS=1
repeat=${REPEAT:-50} rounds=${ROUNDS:-3}
step=(--dim batch=1 --dim seq=1 --dim past_seq=1023)
configs=("file" "kv:--kv-capacity 1024" "kv-ort:--kv-capacity 1024 --fuse ort"
         "kv-fused:--kv-capacity 1024 --fuse ort-transformers")
machine=$(bench/machine.sh start)
declare -A best=()
for round in $(seq "$rounds"); do
    for model in gpt2 llama; do
        for c in "${configs[@]}" ort; do
            if [ "$c" = ort ]; then
                t=$(node bench/peers/ort-time.js "$own/$model-kv.onnx" 1 "$repeat" batch=1 seq=1 past_seq=1023 |
                    /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])")
            else
                read -r -a extra <<< "${c#*:}"
                [ "$c" = file ] && extra=()
                t=$(build/sim --graph "$own/$model-kv.onnx" "${step[@]}" "${extra[@]}" --run --repeat "$repeat" |
                    grep '^run ' | sed 's/.*median \([0-9.]*\) ms.*/\1/')
            fi
            key="$model ${c%%:*}"
            best[$key]=$(/usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" \
                "${best[$key]:-}")
        done
    done
done
machine_end=$(bench/machine.sh end)
{
    echo "# The decode step's time beside ONNX Runtime's"
    echo
    echo "Made by \`bench/kv-speed.sh\` (\`make figures FIGURES=kv-speed\`; timings). The bench's own decoders"
    echo "(bench/export_decode.py), one token after a cache of 1,023 tokens (\`--dim batch=1 --dim seq=1 --dim"
    echo "past_seq=1023\`), one thread: ours on the file's graph, with the cache planned at capacity 1,024"
    echo "(\`--kv-capacity 1024\`: the Concat grows it in place), and with it on the graph ONNX Runtime runs from this"
    echo "file at its default level (\`--fuse ort\`) and after its transformer optimizer (\`--fuse ort-transformers\`:"
    echo "grouped-query attention reading the cache's key/value heads);"
    ort=$(node -e "console.log(require('./bench/peers/node_modules/onnxruntime-node/package.json').version)")
    echo "ONNX Runtime (onnxruntime-node $ort, one intra-op thread) on the file, writing a fresh present beside the"
    echo "past."
    echo "Each figure is the best of $rounds rounds' medians of $repeat runs, every configuration in turn."
    echo
    echo "$machine"
    echo
    echo "| model | ours, file (ms) | cache at capacity (ms) | ... --fuse ort (ms) |" \
        "... --fuse ort-transformers (ms) | ONNX Runtime (ms) | ort / ORT | ort-transformers / ORT |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for model in gpt2 llama; do
        /usr/bin/python3 -c "
import sys
f, k, r, x, o = map(float, sys.argv[2:])
print(f'| {sys.argv[1]} | {f:.2f} | {k:.2f} | {r:.2f} | {x:.2f} | {o:.2f} | {r / o:.2f}× | {x / o:.2f}× |')" \
            "$model" "${best[$model file]}" "${best[$model kv]}" "${best[$model kv-ort]}" "${best[$model kv-fused]}" \
            "${best[$model ort]}"
    done
    echo
    echo "$machine_end"
} > results/kv-speed.md
echo "kv-speed.sh: wrote results/kv-speed.md" >&2
