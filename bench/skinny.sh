#!/usr/bin/env bash
# skinny.sh — the products of at most 16 rows over constant weights in the corpus's models (a decoder's step at
# seq 16, the classifiers' heads), one thread, on the executor's skinny kernel and on oneDNN's matmul
# (bench/skinny-products.c: each alone, weights packed once and read from memory). Rounds take turns, each
# figure the best of ROUNDS rounds. Writes results/skinny.md; the choice and its reasons are in
# docs/executor.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f /usr/include/oneapi/dnnl/dnnl.h ] || { echo "skinny.sh: libdnnl-dev is missing (make deps installs it)" >&2; exit 1; }
make -s build/libsim.a
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -Isim bench/skinny-products.c build/libsim.a \
    $(pkg-config --cflags --libs glib-2.0) -ldnnl -lm -ldl -o "$work/skinny-products"
rounds=${ROUNDS:-3}
machine=$(bench/machine.sh start)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# rows, depth, columns, where
shapes=("16 768 2304 gpt2-seq16-qkv" "16 768 768 gpt2-seq16-attn-proj" "16 768 3072 gpt2-seq16-fc"
        "16 3072 768 gpt2-seq16-proj" "16 768 50257 gpt2-seq16-head" "8 768 3072 gpt2-seq8-fc"
        "4 768 3072 gpt2-seq4-fc" "1 768 3072 gpt2-seq1-fc" "1 2048 1000 resnet50-fc"
        "1 1280 1000 efficientnet_b0-fc" "1 768 1000 vit_b_16-head" "1 1024 1000 mobilenet_v3_small-fc2"
        "1 576 1024 mobilenet_v3_small-fc1")
# best KEY: keeps the smaller of the round's time and the best so far, with its GB/s, for ours and oneDNN's
# (keys "M K N" and "M K N avx2")
declare -A ours=() theirs=() ours_gb=() theirs_gb=() impl=()
best() {
    local key=$1 t g i
    read -r _ t g < <(grep '^skinny ' "$work/times")
    if [ -z "${ours[$key]:-}" ] || awk -v a="$t" -v b="${ours[$key]}" 'BEGIN {exit !(a < b)}'; then
        ours[$key]=$t ours_gb[$key]=$g
    fi
    read -r _ t g i < <(grep '^onednn ' "$work/times")
    if [ -z "${theirs[$key]:-}" ] || awk -v a="$t" -v b="${theirs[$key]}" 'BEGIN {exit !(a < b)}'; then
        theirs[$key]=$t theirs_gb[$key]=$g
    fi
    impl[$key]=$i
}
for round in $(seq "$rounds"); do
    for s in "${shapes[@]}"; do
        set -- $s
        "$work/skinny-products" "$1" "$2" "$3" > "$work/times"
        best "$1 $2 $3"
        "$work/skinny-products" "$1" "$2" "$3" avx2 > "$work/times"
        best "$1 $2 $3 avx2"
    done
done
{
    echo "# Skinny products: our kernel beside oneDNN's"
    echo
    echo "Made by \`bench/skinny.sh\`: each product of at most 16 rows over constant weights in the corpus's models,"
    echo "one thread, milliseconds per call, the best of $rounds rounds of 5 passes (bench/skinny-products.c: each kernel"
    echo "alone over weights packed once; at least 1 GiB of distinct copies cycled, so every call reads its weights from"
    echo "memory, as in a model's run). GB/s: the weights' bytes per second. *skinny*: sim/exec/kernels/skinny.c, what"
    echo "\`sim --run\` runs these on (\`--skinny auto\`, on CPUs with AVX-512 or AVX2); *oneDNN*: its matmul primitive with"
    echo "the weights in the layout it chose (\`--skinny off\`). *AVX2*: both as on a CPU without AVX-512, on this"
    echo "machine: our AVX2 kernel (rows in passes of 6 through each panel) and oneDNN held to AVX2"
    echo "(\`dnnl_set_max_cpu_isa\`). docs/executor.md has the choice and its reasons."
    echo
    echo "$machine"
    echo
    echo "| rows × depth → columns | where | skinny (ms) | GB/s | oneDNN (ms) | GB/s | oneDNN / skinny | AVX2: skinny (ms) | oneDNN (ms) | oneDNN / skinny |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
    for s in "${shapes[@]}"; do
        set -- $s
        key="$1 $2 $3" k2="$1 $2 $3 avx2"
        echo "| $1 × $2 → $3 | $4 | ${ours[$key]} | ${ours_gb[$key]} | ${theirs[$key]} (${impl[$key]}) | ${theirs_gb[$key]} |" \
             "$(ratio "${theirs[$key]}" "${ours[$key]}")× | ${ours[$k2]} | ${theirs[$k2]} (${impl[$k2]}) |" \
             "$(ratio "${theirs[$k2]}" "${ours[$k2]}")× |"
    done
    echo
    bench/machine.sh end
} > results/skinny.md
echo "skinny.sh: wrote results/skinny.md" >&2
