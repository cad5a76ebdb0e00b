#!/usr/bin/env bash
# figures.sh — regenerates every published table in results/ and figure in plots/ (what `make figures`
# runs; results/README.md says which part made which file). Parts, all by default, or name some:
#   design-log   results/design-log-ordering.md                      (bench/design-log.sh)
#   gpt2-seq     results/gpt2-seq.{csv,md}, plots/gpt2-seq-arena.png: arena against sequence length
#   range        results/range-dims.md, plots/range-*.png: the arena as a function of the dims (bench/range.sh)
#   kv           results/kv-cache.md: a decoder's KV cache planned at capacity (bench/kv.sh)
#   kv-speed     results/kv-speed.md: the decode step's time beside ONNX Runtime's (bench/kv-speed.sh; timings)
#   tiers        results/tiers.md: memory tiers on the corpus, banked_greedy, ours and the bound (bench/tiers.sh)
#   order-best   results/order-best.md: the default plan (orders and sharing sets, each placed) beside the file's order
#                on the corpus (bench/order-best.sh)
#   order-exact  results/order-exact.md: the exact order on the corpus and random DAGs: at the bound, by a search, or
#                out of its budget with its gap (bench/order-exact.sh)
#   training     results/training.md: training steps of torchvision models planned against PyTorch's caching
#                allocator, the order chosen too (bench/training.sh; its last table is timings)
#   structured   results/structured.md: schema-v1 problems of the shared PyPTO corpus beside their published figures
#                (bench/structured.sh; reads ../shared/dsa-pypto or $DSA_PYPTO_DIR)
#   corpus       results/corpus-strategies.{csv,md}, plots/corpus-compare.png: strategies × corpus models
#   aliasing     results/corpus-aliasing.csv, results/aliasing-savings.md: bytes saved per sharing kind
#   pictures     plots/gpt2-timeline.png, plots/unet-layout.png: the README's pictures of one plan
#   peers        results/peers.{csv,md}, peers-exports.csv: our arena beside ONNX Runtime's (bench/peers.sh; npm onnxruntime-node)
#   conformance  results/conformance.md: the executor on the ONNX node tests (tests/test-conformance.c)
#   coverage     results/coverage.md: every model class exported from torch, run in its plans, against torch's outputs
#   exec-check   results/exec-check.md: every corpus plan (strategies x sharing) run under --check --poison
#   timing       results/exec-timing.md: the executor's time, strategies and sharing, beside ORT (bench/kernels.sh)
#   class-timing results/class-timing.md: each model class of coverage.md timed beside ORT (bench/class-timing.sh)
#   xnnpack      results/xnnpack.md: XNNPACK beside our depthwise kernel (bench/xnnpack.sh; timings)
#   winograd     results/winograd.md: oneDNN's Winograd variants and direct kernel per shape (bench/winograd.sh; timings)
#   skinny       results/skinny.md: our skinny-product kernel beside oneDNN's matmul per shape (bench/skinny.sh; timings)
#   search       results/search.md                                    (bench/search.sh; timings)
#   search-nodes results/search-nodes.md: the search's nodes per instance, tracked by tests/test-search
#   search-span  results/search-span.md: the search on traces past 2^26 buffer-steps (bench/search-span.sh;
#                nodes and arenas deterministic, seconds and memory timings)
#   scaling      results/plan-scaling.md                              (bench/plan-scaling.sh; timings, slow)
# Every table and figure is deterministic except the columns that are timings (search, search-span, scaling, timing,
# class-timing, winograd, skinny, kv-speed, peers' ORT timings, range's and training's last tables): the time-bounded
# strategies run on a work budget (WORK, search nodes: the same plan on an idle and on a busy machine), the sweeps
# start from an empty CSV each time, and tables.py sorts rows and drops plan_seconds. tests/test-tables.c runs a part
# twice, once beside busy processes, and compares.
# Each part is all or nothing: results/ and plots/ are saved before it runs and put back if it fails or
# the run is stopped (Ctrl-C), so a stopped run never leaves a table cut short. Nothing is installed here:
# `make figures` installs what the parts need first (make deps, make figures-deps).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make -s build/sim build/mkgraph
parts=${*:-"design-log gpt2-seq range kv tiers order-best order-exact training structured corpus aliasing pictures peers
            conformance coverage
            exec-check timing class-timing
            xnnpack
            winograd skinny kv-speed search search-nodes search-span scaling"}
work=$(mktemp -d)
running=""
restore() {
    rm -rf results plots
    cp -a "$work/saved/results" "$work/saved/plots" .
}
trap 'status=$?; if [ -n "$running" ]; then echo "figures.sh: $running did not finish: results/ and plots/ are as they were" >&2; restore; fi; rm -rf "$work"; exit $status' EXIT
trap 'exit 130' INT TERM
mkdir -p results plots
sim=build/sim
WORK=${WORK:-1000000} # the published work budget: 1,000,000 search nodes (a climb step costs one per buffer)
say() { echo "figures.sh: $*" >&2; }
tables() { /usr/bin/python3 bench/tables.py "$@"; }

# Every placement strategy but naive (whose arena is 5–15× the others and flattens every picture).
strategies=$("$sim" --list | awk '/^placement/{on=1; next} /^[a-z]/{on=0} on && $1 != "naive" {printf "%s%s", s, $1; s=","}')
gpt2=graphs/models/torch/gpt2-torch.onnx

need_models() {
    [ -f "$gpt2" ] || { say "the corpus is missing: run make models first"; exit 1; }
}

part_design_log() { bench/design-log.sh; }

part_gpt2_seq() {
    need_models
    bench/sweep.py --out "$work/gpt2-seq.csv" --graph "$gpt2:batch=1" --dim seq=16,32,64,128,256,512,1024 \
        --strategies "$strategies" --sim-args "--budget-work $WORK"
    tables canon "$work/gpt2-seq.csv" results/gpt2-seq.csv
    {
        echo "# GPT-2 small: arena against sequence length"
        echo
        echo "Made by \`bench/figures.sh gpt2-seq\` (deterministic). Graph: \`$gpt2\` (torch.onnx.export of GPT-2"
        echo "small, 12 layers, d = 768; \`make models\`), \`--dim batch=1 --dim seq=S\`, file order, all sharing"
        echo "(\`--alias all\`), work budget \`--budget-work $WORK\`. Arena per strategy; the last column is the lower"
        echo "bound (the most bytes live at one step). Raw rows: results/gpt2-seq.csv. Figure:"
        echo "plots/gpt2-seq-arena.png (the ratio has no figure: every strategy but the online two sits at 1.000)."
        echo
        echo "## Arena"
        echo
        tables pivot results/gpt2-seq.csv dims strategy arena
        echo
        echo "## Arena / lower bound"
        echo
        tables pivot results/gpt2-seq.csv dims strategy ratio
    } > results/gpt2-seq.md
    "$sim" --from results/gpt2-seq.csv --plot sweep --x seq --out plots/gpt2-seq-arena.png \
        --title "GPT-2 small (torch export, batch 1): arena against sequence length, all sharing, file order"
}

part_range() { need_models; bench/range.sh; }
part_kv() { bench/kv.sh; }
part_kv_speed() { bench/kv-speed.sh; }
part_tiers() { need_models; bench/tiers.sh; }
part_order_best() { need_models; bench/order-best.sh; }
part_order_exact() { need_models; bench/order-exact.sh; }
part_training() { bench/training.sh; }
part_structured() { bench/structured.sh; }

part_corpus() {
    need_models
    bench/sweep.py --out "$work/corpus.csv" --corpus --strategies "$strategies" --sim-args "--budget-work $WORK"
    tables canon "$work/corpus.csv" results/corpus-strategies.csv
    {
        echo "# Strategies × corpus models"
        echo
        echo "Made by \`bench/figures.sh corpus\` (deterministic). Every model of graphs/models/models.tsv with its"
        echo "dims, file order, all sharing, work budget \`--budget-work $WORK\`. Cells: arena / lower bound (1.000 = no"
        echo "placement can do better). Raw rows: results/corpus-strategies.csv. Figure: plots/corpus-compare.png."
        echo
        tables pivot results/corpus-strategies.csv graph strategy ratio
        echo
        echo "## Arena"
        echo
        tables pivot results/corpus-strategies.csv graph strategy arena
    } > results/corpus-strategies.md
    tables named results/corpus-strategies.csv "$work/corpus-named.csv" # the tables' model names in the picture
    "$sim" --from "$work/corpus-named.csv" --plot compare --out plots/corpus-compare.png \
        --title "Corpus models: arena / lower bound per strategy (all sharing, file order)"
}

part_aliasing() {
    need_models
    bench/sweep.py --out "$work/aliasing.csv" --corpus --strategies best --alias all --alias none --sim-args "--budget-work $WORK"
    tables canon "$work/aliasing.csv" results/corpus-aliasing.csv
    /usr/bin/python3 - results/corpus-aliasing.csv "$work/all.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["alias"] == "all"]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[0].keys()), lineterminator="\n")
w.writeheader(); w.writerows(rows)
PY
    {
        echo "# What sharing saves, by kind, per corpus model"
        echo
        echo "Made by \`bench/figures.sh aliasing\` (deterministic). Every model of graphs/models/models.tsv with its"
        echo "dims, file order, \`--alias all\`. *No sharing*: every tensor its own buffer (the sum of the activation"
        echo "bytes); *with sharing*: the bytes of the buffers left after sharing; then the bytes saved by each kind"
        echo "(docs/aliasing.md; · = none) and the number of ops an alias strategy had to copy (the reasons are in"
        echo "\`sim --graph MODEL\`'s report). The arenas with \`best\`, with and without sharing, follow."
        echo
        tables savings "$work/all.csv"
        echo
        echo "## Arena with \`best\`: all sharing against none"
        echo
        tables pivot results/corpus-aliasing.csv graph alias arena
    } > results/aliasing-savings.md
}

part_pictures() {
    need_models
    "$sim" --graph "$gpt2" --dim batch=1 --dim seq=64 --compare --plot timeline --out plots/gpt2-timeline.png \
        --budget-work "$WORK" > /dev/null
    "$sim" --graph graphs/unet.onnx --strategy firstfit --plot layout --out plots/unet-layout.png > /dev/null
}

part_peers() { need_models; bench/peers.sh; }
part_conformance() {
    make -s build/tests/test-conformance
    CONFORMANCE_MD=results/conformance.md SIM_SOURCE_DIR="$root" build/tests/test-conformance > /dev/null
}
part_coverage() { WORK=$WORK bench/coverage.sh; }
part_class_timing() { ROUNDS=2 bench/class-timing.sh; }
part_exec_check() { need_models; bench/exec-check.sh; }
# two rounds, and two whole-command runs without a warm-up (the rounds before warmed the files; kernels.sh
# alone takes three rounds, a warm-up and three runs), to keep make figures near 10 minutes
part_timing() { need_models; ROUNDS=2 HF_RUNS=2 HF_WARMUP=0 bench/kernels.sh; }
part_xnnpack() { bench/xnnpack.sh; }
part_winograd() { bench/winograd.sh; }
part_skinny() { bench/skinny.sh; }
part_search() { bench/search.sh; }
part_search_nodes() { bench/search-nodes.sh; }
part_search_span() { bench/search-span.sh; }
part_scaling() { bench/plan-scaling.sh; }

for p in $parts; do
    fn=part_${p//-/_}
    declare -F "$fn" > /dev/null || { say "unknown part '$p' (see the header of bench/figures.sh)"; exit 2; }
    say "$p"
    rm -rf "$work/saved" && mkdir -p "$work/saved" && cp -a results plots "$work/saved/"
    running=$p
    started=$SECONDS
    "$fn"
    running=""
    say "$p took $((SECONDS - started)) s"
done
say "done: $parts"
