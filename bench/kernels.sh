#!/usr/bin/env bash
# kernels.sh — the executor's time on GPT-2 small (seq 128) and resnet50, one thread: strategies (naive
# vs bestfit vs greedy-size, all sharing) and sharing on/off — does sharing save time (copies avoided) as
# well as bytes? — beside ONNX Runtime (npm onnxruntime-node, one intra-op thread) on the same files;
# then ours against ORT across the torch corpus (googlenet, squeezenet, mobilenet_v3_small, inception_v3,
# vit_b_16, swin_t, a causal TransformerDecoder, GPT-2 at seq 16: skinny products) and the bench's own exports
# (bench/export_models.py: a dilated segmentation model, a squeeze-excite CNN, an opset-13 HardSwish CNN, a
# 3-D video model, a CNN of grouped convolutions, a video model of separable (2+1)-D convolutions), three
# corpus models converted to half precision (bench/peers/to_float16.py), two to QDQ (bench/peers/to_qdq.py)
# and one dynamically quantized (bench/peers/to_dynamic.py), with our
# default kernels (oneDNN for the deep convolutions and the products), on the
# fused graph (--fuse ort), our own kernels (--kernels own), and both tools on two threads, each also checked
# bit for bit under poison.
# Two measurements: each tool's own median per inference run (`sim --run --repeat N`, ORT timed around
# session.run after a warm-up), and hyperfine over the whole commands in one run (load, plan and the runs
# included) so their ratios come from the same conditions. Writes results/exec-timing.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v hyperfine > /dev/null || { echo "kernels.sh: hyperfine is not installed (make deps installs it)" >&2; exit 1; }
make -s build/sim
[ -f graphs/models/torch/resnet50.onnx ] || { echo "kernels.sh: run make models first" >&2; exit 1; }
[ -d bench/peers/node_modules/onnxruntime-node ] || { echo "kernels.sh: ONNX Runtime for node is missing (make figures-deps installs it)" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1
# sim runs large models with malloc on transparent huge pages (sim/cli/huge-pages.c); ORT's process gets the
# same setting, so the arenas of both sides sit on the same kind of pages.
export GLIBC_TUNABLES=${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1
# OpenBLAS's kernels for the CPU: Debian's 0.3.21 runs its Haswell (AVX2) kernels on AMD CPUs with AVX-512
# (and this workplace's environment pins OPENBLAS_CORETYPE=Haswell); ORT's MLAS uses AVX-512 wherever it
# exists. So that both use the CPU's widest vectors, the SkylakeX kernels are chosen when the CPU has the
# AVX-512 subsets they need (CORETYPE=... overrides).
if [ -n "${CORETYPE:-}" ]; then
    export OPENBLAS_CORETYPE=$CORETYPE
elif grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
fi
repeat=${REPEAT:-5}
rounds=${ROUNDS:-3}
hf_runs=${HF_RUNS:-3} hf_warmup=${HF_WARMUP:-1} # hyperfine runs of each whole command, after warm-up runs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=results/exec-timing.md
machine=$(bench/machine.sh start) # where and when, before the first measurement
models=("gpt2-small-seq128 graphs/models/torch/gpt2-torch.onnx batch=1,seq=128" "resnet50 graphs/models/torch/resnet50.onnx batch=1")
configs=("naive none" "bestfit all" "greedy-size all" "greedy-size none")
ms() { /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[1]):.1f}')" "$1"; }
{
    echo "# Executor timings"
    echo
    echo "Made by \`bench/kernels.sh\` on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
    echo "one thread everywhere (\`OPENBLAS_NUM_THREADS=1\`; ORT \`intraOpNumThreads: 1\`), OpenBLAS kernels"
    echo "\`OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-default}\`. Ours: \`sim --run --repeat $repeat"
    echo "--transpose move\` (float32 kernels: oneDNN for the deep convolutions and the products, OpenBLAS and our own"
    echo "for the rest), the median of $repeat runs inside the planned arena;"
    echo "ORT: onnxruntime-node $(node -e "console.log(require('./bench/peers/node_modules/onnxruntime-node/package.json').version)"),"
    echo "the median of $repeat \`session.run\` calls after a warm-up; both on the same file, with deterministic random"
    echo "weights (bench/peers/fill_weights.py). Each figure is the best of $rounds rounds' medians, the configurations and ORT"
    echo "taking turns in every round: the machine is shared, and a neighbour's burst can add 30% to one measurement."
    echo
    echo "$machine"
    echo "## Median time per inference (ms)"
    echo
    echo "| model | naive, no sharing | bestfit, all sharing | greedy-size, all sharing | greedy-size, no sharing | ONNX Runtime | ours (greedy-size, all) / ORT |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
} > "$out"
hf_cmds=()
declare -A ours_best=() ort_best=()   # section 1's figures per model, reused by section 2
for m in "${models[@]}"; do
    set -- $m
    name=$1 file=$2 dims=$3
    dim_args=() ort_dims=()
    IFS=, read -r -a ds <<< "$dims"
    for d in "${ds[@]}"; do dim_args+=(--dim "$d"); ort_dims+=("$d"); done
    row="| $name "
    ours=""
    /usr/bin/python3 bench/peers/fill_weights.py "$file" "$work/$name.onnx" 2> /dev/null
    # Rounds: every configuration and ORT in turn, $rounds times; each keeps its best round's median (this
    # machine is shared, and a neighbour's burst lands on one configuration of one round, not on all).
    declare -A best=()
    for round in $(seq "$rounds"); do
        for c in "${configs[@]}" ort; do
            if [ "$c" = ort ]; then
                t=$(node bench/peers/ort-time.js "$work/$name.onnx" 1 "$repeat" "${ort_dims[@]}" | /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])")
            else
                set -- $c
                t=$(build/sim --graph "$work/$name.onnx" "${dim_args[@]}" --strategy "$1" --alias "$2" --transpose move --run \
                    --repeat "$repeat" | grep '^run ' | sed 's/.*median \([0-9.]*\) ms.*/\1/')
            fi
            best[$c]=$(/usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" "${best[$c]:-}")
        done
    done
    for c in "${configs[@]}"; do
        set -- $c
        row+="| $(ms "${best[$c]}") "
        [ "$1 $2" = "greedy-size all" ] && ours=${best[$c]}
        hf_cmds+=("build/sim --graph $work/$name.onnx ${dim_args[*]} --strategy $1 --alias $2 --transpose move --run")
    done
    ort=${best[ort]}
    ours_best[$name]=$ours ort_best[$name]=$ort
    unset best
    row+="| $(ms "$ort") | $(/usr/bin/python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}×')" "$ours" "$ort") |"
    echo "$row" >> "$out"
    hf_cmds+=("node bench/peers/ort-time.js $work/$name.onnx 1 1 ${ort_dims[*]}")
    echo "kernels.sh: $name" >&2
done
# Across the models of issue 21: ours (greedy-size, all sharing) and ORT on the same filled file (the same
# weights, so the same numbers flow), one thread, best of $rounds rounds' medians; and whether ours computes
# bit for bit what the nothing-shared run computes, with poison.
{
    echo
    echo "## Across models: ours (greedy-size, all sharing) and ONNX Runtime, one thread and two"
    echo
    echo "Both on the same file with the same filled weights; median ms per inference, best of $rounds rounds."
    echo "Six models are the bench's own exports (bench/export_models.py, torchvision 0.14): deeplabv3 on"
    echo "mobilenet_v3_large at 320 x 320 (ASPP at dilations 12, 24, 36 on a 20 x 20 map), efficientnet_b0"
    echo "(squeeze-excite, SiLU), mobilenet_v3_small at opset 13 (HardSwish written as x * HardSigmoid(x)), r3d_18 on"
    echo "4 frames of 112 x 112 (3-D convolutions), regnet_y_400mf (grouped 3 x 3 convolutions of 8 channels a group,"
    echo "squeeze-excite) and r2plus1d_18 on 4 frames of 112 x 112 (each 3-D convolution as a spatial 1 x 3 x 3 then a"
    echo "temporal 3 x 1 x 1 one). The *-float16* rows are corpus models converted to half precision"
    echo "as ONNX's float16 converter writes them with keep_io_types (bench/peers/to_float16.py: FLOAT16 weights and"
    echo "activations, a Cast at each input and output, appended after the nodes); both tools compute in float32 and"
    echo "round each op's result (docs/executor.md). *resnet50-qdq* is resnet50 in the QDQ form ORT's static quantizer"
    echo "writes for Convs (bench/peers/to_qdq.py: uint8 activations at one uncalibrated scale, int8 weights per"
    echo "channel): ORT fuses each group into QLinearConv and runs its int8 kernels; *fused* is ours on that graph"
    echo "(\`--fuse ort\`), *ours* the QDQ file's float Convs between QuantizeLinear and DequantizeLinear;"
    echo "*mobilenet-v3-small-qdq* the same of mobilenet_v3_small (its depthwise convolutions among them)."
    echo "*gpt2-small-seq16-dynamic* is GPT-2 at 16 tokens as ORT's quantize_dynamic writes it for MatMuls"
    echo "(bench/peers/to_dynamic.py: each activation quantized as it runs by DynamicQuantizeLinear, int8 weights,"
    echo "MatMulInteger, a Cast and the scales' product); ORT fuses each group into DynamicQuantizeMatMul."
    echo '*ours*: the default kernels (oneDNN for the deep convolutions and the products, our skinny kernel for'
    echo 'the products of at most 16 rows over constant weights, docs/executor.md); *own kernels*: `--kernels own`'
    echo '(im2col and OpenBLAS everywhere); *packed*: the weights packed once for those kernels, the executor'"'"'s'
    echo 'own memory beside the arena.'
    echo '*fused*: ours on the graph ORT runs (`--fuse ort`: its constant folding and fusions, docs/DESIGN.md), the'
    echo 'comparison with ORT at its default level;'
    echo '*check*: `sim --run --check --poison` — the planned run equals the nothing-shared run bit for bit (both'
    echo 'graphs).'
    echo
    echo "| model | ours (ms) | fused (ms) | own kernels (ms) | ONNX Runtime (ms) | ours / ORT | fused / ORT | own / ORT | ours, 2 threads (ms, speed-up) | ORT, 2 threads (ms, speed-up) | packed (MiB) | check |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
} >> "$out"
# The bench's own exports (bench/own-exports.sh: segmentation with large dilations, squeeze-excite with
# SiLU, HardSwish at opset 13, a 3-D video model, grouped convolutions, separable 3-D convolutions), cached
# outside the clone.
own=$(bench/own-exports.sh)
corpus=graphs/models/torch
wide=("gpt2-small-seq128 $corpus/gpt2-torch.onnx batch=1,seq=128" "resnet50 $corpus/resnet50.onnx batch=1"
      "googlenet $corpus/googlenet.onnx batch=1" "squeezenet $corpus/squeezenet1_0.onnx batch=1"
      "mobilenet-v3-small $corpus/mobilenet_v3_small.onnx batch=1" "inception-v3 $corpus/inception_v3.onnx batch=1"
      "vit-b-16 $corpus/vit_b_16.onnx batch=1" "swin-t $corpus/swin_t.onnx batch=1"
      "decoder-causal $corpus/decoder-torch.onnx batch=1,seq=64,mem=32"
      "gpt2-small-seq16 $corpus/gpt2-torch.onnx batch=1,seq=16"
      "deeplabv3-mobilenet $own/deeplabv3-mobilenet.onnx batch=1" "efficientnet-b0 $own/efficientnet-b0.onnx batch=1"
      "mobilenet-v3-small-opset13 $own/mobilenet-v3-small-opset13.onnx batch=1"
      "r3d-18 $own/r3d-18.onnx batch=1"
      "regnet-y-400mf $own/regnet-y-400mf.onnx batch=1" "r2plus1d-18 $own/r2plus1d-18.onnx batch=1"
      "resnet50-float16 $corpus/resnet50.onnx batch=1 float16"
      "squeezenet-float16 $corpus/squeezenet1_0.onnx batch=1 float16"
      "mobilenet-v3-small-float16 $corpus/mobilenet_v3_small.onnx batch=1 float16"
      "resnet50-qdq $corpus/resnet50.onnx batch=1 qdq"
      "mobilenet-v3-small-qdq $corpus/mobilenet_v3_small.onnx batch=1 qdq"
      "gpt2-small-seq16-dynamic $corpus/gpt2-torch.onnx batch=1,seq=16 dynamic")
for m in "${wide[@]}"; do
    set -- $m
    name=$1 file=$2 dims=$3 precision=${4:-float32}
    dim_args=() ort_dims=()
    IFS=, read -r -a ds <<< "$dims"
    for d in "${ds[@]}"; do dim_args+=(--dim "$d"); ort_dims+=("$d"); done
    filled="$work/$name.onnx"
    if [ ! -f "$filled" ] && [ "$precision" != float32 ]; then # filled, then converted (to_float16.py, to_qdq.py)
        /usr/bin/python3 bench/peers/fill_weights.py "$file" "$work/$name.float32.onnx" 2> /dev/null
        /usr/bin/python3 "bench/peers/to_$precision.py" "$work/$name.float32.onnx" "$filled"
    fi
    [ -f "$filled" ] || /usr/bin/python3 bench/peers/fill_weights.py "$file" "$filled" 2> /dev/null
    # (the whole report first: grep -q would close the pipe early, and pipefail would count sim's SIGPIPE)
    report=$(build/sim --graph "$filled" "${dim_args[@]}" --strategy greedy-size --transpose move --run --check --poison || true)
    fused_report=$(build/sim --graph "$filled" "${dim_args[@]}" --strategy greedy-size --transpose move --fuse ort --run --check \
                   --poison || true)
    case "$report$fused_report" in
        *"bit for bit, with poison"*"bit for bit, with poison"*) check="bit for bit" ;;
        *) check="DIFFERS" ;;
    esac
    packed=$(printf '%s\n' "$report" | sed -n 's/^packed  *\([0-9,]*\) B .*/\1/p' | tr -d ,)
    packed=$(/usr/bin/python3 -c "import sys; print(f'{int(sys.argv[1] or 0)/1048576:.1f}')" "$packed")
    # a model of section 1 (the same file, configuration and rounds) keeps its figures from there; our own
    # kernels, the fused graph and both tools on two threads take their turns in the same rounds
    ours=${ours_best[$name]:-} ort=${ort_best[$name]:-} own_k="" fused="" ours2="" ort2=""
    for round in $(seq "$rounds"); do
        if [ -z "${ours_best[$name]:-}" ]; then
            t=$(build/sim --graph "$filled" "${dim_args[@]}" --strategy greedy-size --transpose move --run --repeat "$repeat" \
                | grep '^run ' | sed 's/.*median \([0-9.]*\) ms.*/\1/')
            ours=$(/usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" "$ours")
            t=$(node bench/peers/ort-time.js "$filled" 1 "$repeat" "${ort_dims[@]}" | /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])")
            ort=$(/usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" "$ort")
        fi
        t=$(build/sim --graph "$filled" "${dim_args[@]}" --strategy greedy-size --transpose move --run --repeat "$repeat" \
            --kernels own | grep '^run ' | sed 's/.*median \([0-9.]*\) ms.*/\1/')
        own_k=$(/usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" "$own_k")
        t=$(build/sim --graph "$filled" "${dim_args[@]}" --strategy greedy-size --transpose move --fuse ort --run \
            --repeat "$repeat" | grep '^run ' | sed 's/.*median \([0-9.]*\) ms.*/\1/')
        fused=$(/usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" "$fused")
        t=$(build/sim --graph "$filled" "${dim_args[@]}" --strategy greedy-size --transpose move --run --repeat "$repeat" \
            --threads 2 | grep '^run ' | sed 's/.*median \([0-9.]*\) ms.*/\1/')
        ours2=$(/usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" "$ours2")
        t=$(node bench/peers/ort-time.js "$filled" 2 "$repeat" "${ort_dims[@]}" | /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])")
        ort2=$(/usr/bin/python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" "$ort2")
    done
    ratio() { /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}×')" "$1" "$2"; }
    echo "| $name | $(ms "$ours") | $(ms "$fused") | $(ms "$own_k") | $(ms "$ort") | $(ratio "$ours" "$ort") | $(ratio "$fused" "$ort") | $(ratio "$own_k" "$ort") | $(ms "$ours2") ($(ratio "$ours" "$ours2")) | $(ms "$ort2") ($(ratio "$ort" "$ort2")) | $packed | $check |" >> "$out"
    echo "kernels.sh: $name" >&2
done
{
    echo
    echo "## Whole commands (hyperfine, one run: $hf_warmup warm-up and $hf_runs runs each, mean ± σ)"
    echo
    echo "Each command loads the model, plans (ours) or builds a session (ORT), and runs once; so these include"
    echo "what a single inference costs end to end."
    echo
} >> "$out"
hyperfine --warmup "$hf_warmup" --runs "$hf_runs" --export-markdown "$work/hf.md" "${hf_cmds[@]}" > /dev/null
sed "s|$work/||g" "$work/hf.md" >> "$out"
{ echo; bench/machine.sh end; } >> "$out"
echo "kernels.sh: wrote $out" >&2
