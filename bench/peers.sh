#!/usr/bin/env bash
# peers.sh — our best arena beside ONNX Runtime's memory figures, for every corpus model at its dims.
# ORT is the npm package onnxruntime-node (pinned in bench/peers/package.json, installed with
# ONNXRUNTIME_NODE_INSTALL=skip: the package carries the CPU library, nothing else is downloaded), run on
# one thread with its profiler on; bench/peers/ort-memory.js reads the per-kernel memory figures out of
# the profile. Models whose weights were stripped (the torch exports) get deterministic random weights
# first (bench/peers/fill_weights.py). The models run side by side under GNU parallel. How each figure is
# derived: docs/peers.md.
# Writes results/peers.csv (the corpus), results/peers-exports.csv (the bench's own exports) and
# results/peers.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make -s build/sim
[ -f graphs/models/models.tsv ] && [ -f graphs/models/torch/resnet50.onnx ] || { echo "peers.sh: run make models first" >&2; exit 1; }
command -v node > /dev/null || { echo "peers.sh: node is not installed (Debian's nodejs)" >&2; exit 1; }
[ -d bench/peers/node_modules/onnxruntime-node ] || { echo "peers.sh: ONNX Runtime for node is missing (make figures-deps installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
csv=results/peers.csv
header="model,dims,our_arena_bytes,our_lower_bound_bytes,ort_first_run_peak_bytes,ort_pattern_bytes,ort_outside_pattern_bytes,ort_arena_held_bytes,ort_baseline_bytes,ort_kernels,our_steps,ort_note,our_fused_arena_bytes,our_fused_lower_bound_bytes,our_ort_bytes,our_pytorch_reserved_bytes,ort_disabled_first_run_peak_bytes,ort_disabled_pattern_bytes,ort_order_nodes_same,our_transformers_arena_bytes,our_transformers_lower_bound_bytes"
echo "$header" > "$csv"
# peer_row NAME FILE DIMS: one model's row (ours, then ORT on a copy with filled weights) on stdout.
peer_row() {
    set -euo pipefail
    local name=$1 file=$2 dims=$3 scratch
    local model=graphs/models/$file
    [[ $file == /* ]] && model=$file # the bench's own exports, cached outside the clone
    [ -f "$model" ] || { echo "peers.sh: $model missing; skipped" >&2; return 0; }
    scratch=$(mktemp -d "$work/row.XXXXXX")
    local dim_args=() ort_dims=() ds d
    if [ "$dims" != "-" ]; then
        IFS=, read -r -a ds <<< "$dims"
        for d in "${ds[@]}"; do dim_args+=(--dim "$d"); ort_dims+=("$d"); done
    fi
    local ours arena our_arena our_bound our_steps ort fields note fused transformers runtimes disabled
    ours=$(build/sim --graph "$model" "${dim_args[@]}" --strategy best --budget-work "${WORK:-1000000}" --alias all --io inputs-outside --format csv | tail -1)
    arena=$(echo "$ours" | /usr/bin/python3 -c "import csv,sys; r=next(csv.reader(sys.stdin)); print(r[6], r[7], r[5])")
    read -r our_arena our_bound our_steps <<< "$arena"
    # the graph ORT runs (--fuse ort), beside its default level; its rule and PyTorch's on the file's graph,
    # beside ORT with its graph optimisations disabled (ORT's sharing: views and in-place; outputs outside)
    fused=$(build/sim --graph "$model" "${dim_args[@]}" --strategy best --budget-work "${WORK:-1000000}" --alias all \
        --io inputs-outside --fuse ort --format csv | tail -1 | /usr/bin/python3 -c "import csv,sys; r=next(csv.reader(sys.stdin)); print(f'{r[6]},{r[7]}')")
    # ... and after its transformer optimizer (--fuse ort-transformers)
    transformers=$(build/sim --graph "$model" "${dim_args[@]}" --strategy best --budget-work "${WORK:-1000000}" --alias all \
        --io inputs-outside --fuse ort-transformers --format csv | tail -1 | /usr/bin/python3 -c "import csv,sys; r=next(csv.reader(sys.stdin)); print(f'{r[6]},{r[7]}')")
    # ORT's whole rule: the graph it runs at level disabled (HardSwish expanded), its execution order, its views,
    # its CPU in-place kernels and reuse classes, Transpose a copy
    runtimes=$( (build/sim --graph "$model" "${dim_args[@]}" --strategy ort --order ort --alias noop,ort --transpose move --fuse ort-disabled --align 256 \
        --io outside --chrome-trace "$scratch/ort-plan.json" --format csv | tail -1
        build/sim --graph "$model" "${dim_args[@]}" --strategy pytorch --order file --alias noop,inplace \
        --io outside --format csv | tail -1) | /usr/bin/python3 -c "
import csv, re, sys
rows = list(csv.reader(sys.stdin))
print(f'{rows[0][6]},' + re.search(r'reserves (\\d+) B', rows[1][15]).group(1))")
    /usr/bin/python3 bench/peers/fill_weights.py "$model" "$scratch/model.onnx" 2> /dev/null
    disabled=","
    local order=""
    if ort=$(ORT_OPT_LEVEL=disabled ORT_NODE_ORDER="$scratch/ort-order.txt" node bench/peers/ort-memory.js "$scratch/model.onnx" \
            "$scratch/plain" "${ort_dims[@]}" 2> /dev/null); then
        disabled=$(echo "$ort" | /usr/bin/python3 -c "import json,sys; j=json.load(sys.stdin); print(f\"{j['first_run_peak']},{j['pattern_bytes']}\")")
        # --order ort against the order ORT ran the nodes in: the nodes both run, in the same order?
        order=$(/usr/bin/python3 - "$scratch/ort-plan.json" "$scratch/ort-order.txt" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
ours = [e["name"] for e in sorted((e for e in events if e.get("ph") == "X" and e.get("pid") == 1 and e.get("cat") != "buffer"),
                                  key=lambda e: e["args"]["step"])]
theirs = [line.rstrip("\n") for line in open(sys.argv[2]) if line.strip()]
both = set(ours) & set(theirs)
a, b = [n for n in ours if n in both], [n for n in theirs if n in both]
print(f"{len(a)} of {len(theirs)}" if a == b else f"differs at node {next(k for k, (x, y) in enumerate(zip(a, b)) if x != y)}")
PY
)
    fi
    if ort=$(node bench/peers/ort-memory.js "$scratch/model.onnx" "$scratch/profile" "${ort_dims[@]}" 2> "$scratch/err"); then
        fields=$(echo "$ort" | /usr/bin/python3 -c "import json,sys; j=json.load(sys.stdin); print(','.join(str(j[k]) for k in ('first_run_peak','pattern_bytes','outside_pattern','arena_held','baseline','kernels')))")
        echo "$name,\"$dims\",$our_arena,$our_bound,$fields,$our_steps,,$fused,$runtimes,$disabled,$order,$transformers"
    else
        note=$(tr '",' "' " < "$scratch/err" | head -c 200)
        echo "$name,\"$dims\",$our_arena,$our_bound,,,,,,,$our_steps,\"$note\",$fused,$runtimes,$disabled,$order,$transformers"
    fi
    rm -rf "$scratch"
    echo "peers.sh: $name" >&2
}
export -f peer_row
export work
# One model per core at a time (each side runs one thread, and the figures are bytes, not time), rows in
# file order; a failing row stops the run (figures.sh then puts the old tables back).
grep -v -e '^#' -e '^$' graphs/models/models.tsv > "$work/models.tsv"
PARALLEL_SHELL=bash parallel --will-cite --keep-order --halt now,fail=1 --colsep '\t' \
    peer_row {1} {2} {3} :::: "$work/models.tsv" >> "$csv"
# The bench's own torchvision exports (bench/export_models.py, as bench/kernels.sh makes them): the "every
# export you try" rows, kept apart from the corpus's.
own=$(bench/own-exports.sh)
exports_csv=results/peers-exports.csv
echo "$header" > "$exports_csv"
for m in deeplabv3-mobilenet efficientnet-b0 mobilenet-v3-small-opset13 r3d-18; do
    printf '%s\t%s\t%s\n' "$m" "$own/$m.onnx" batch=1
done > "$work/exports.tsv"
PARALLEL_SHELL=bash parallel --will-cite --keep-order --halt now,fail=1 --colsep '\t' \
    peer_row {1} {2} {3} :::: "$work/exports.tsv" >> "$exports_csv"
ort_version=$(node -e "console.log(require('./bench/peers/node_modules/onnxruntime-node/package.json').version)")
# ORT's figures depend on the CPU as well as its version (its kernels and layout transforms are chosen by the CPU's
# features: shufflenet-v2's first-run peak was 1.63 MiB at 3f9235f and is 2.68 MiB on an EPYC with AVX-512), so the
# table names the CPU and whether it has AVX-512
vector=$(grep -qw avx512f /proc/cpuinfo && echo "with AVX-512" || echo "without AVX-512")
machine="$(bench/machine.sh made), $vector"
/usr/bin/python3 - "$csv" "$ort_version" "$exports_csv" "$machine" > results/peers.md <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
exports = list(csv.DictReader(open(sys.argv[3], newline="")))
def h(b):
    if b == "":
        return "—"
    b = int(b)
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= scale:
            return f"{b / scale:,.2f} {unit}"
    return f"{b} B"
print(f"""# Our arena beside ONNX Runtime's

Made by `bench/peers.sh` on {sys.argv[4]}: deterministic for one ORT version on one kind of CPU (ORT's
figures change with the CPU's features). Here onnxruntime-node {sys.argv[2]}, CPU, one thread, memory pattern and CPU arena on, the default graph optimisations. Every corpus model at the dims of
graphs/models/models.tsv; torch exports with deterministic random weights. **Ours**: `sim --strategy best
--budget-work 1000000 --alias all --io inputs-outside` (the corpus tables' work budget; graph inputs are the caller's buffers, as ORT takes them; outputs are in
the arena, as ORT allocates them) and its lower bound. **ORT**, from its profiler's per-kernel memory
figures (docs/peers.md says exactly how):
*first run* = the most activation bytes requested at once in the first run (allocated one by one, ORT's
reuse plan applied, graph outputs included); *pattern* = the block ORT's memory pattern reserves from the
second run on (its planned arena); *outside* = what the second run still allocates kernel by kernel
(graph outputs, and tensors the pattern does not cover, e.g. with symbolic shapes); *held* = the CPU
arena's reserved bytes at the end minus what it held before the first run (weights, prepacked kernels).
ORT plans its own optimised graph (fused Conv+Add+Relu, NCHWc layouts, fused attention), so the tensors
differ from ours; the comparison is of totals.

| model | ours: best | ours: lower bound | ORT first run | ORT pattern | ORT outside | ORT pattern + outside | ORT held | ours / (ORT pattern + outside) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|""")
for r in rows:
    if r["ort_pattern_bytes"]:
        total = int(r["ort_pattern_bytes"]) + int(r["ort_outside_pattern_bytes"])
        held = int(r["ort_arena_held_bytes"]) - int(r["ort_baseline_bytes"])
        ratio = f"{int(r['our_arena_bytes']) / total:.2f}" if total else "—"
        cells = [h(r["ort_first_run_peak_bytes"]), h(r["ort_pattern_bytes"]), h(r["ort_outside_pattern_bytes"]), h(total), h(held), ratio]
    else:
        cells = ["ORT failed: " + r["ort_note"], "", "", "", "", ""]
    print(f"| {r['model']} | {h(r['our_arena_bytes'])} | {h(r['our_lower_bound_bytes'])} | " + " | ".join(cells) + " |")
print("""
## The graph ORT runs: `--fuse ort`

The same models planned after ORT's fusions (`sim --strategy best --budget-work 1000000 --alias all --io
inputs-outside --fuse ort`: a Conv accumulating into its residual, HardSwish, SiLU, GELU, LayerNorm, MatMul+Add;
docs/DESIGN.md, "Fusion"), beside ORT's first run at its default level, which runs its own fused graph.
The last column plans what ORT's offline transformer optimizer would write on top (`--fuse ort-transformers`:
SkipLayerNormalization, and attention with no mask as one op that never writes its scores); ORT's own figure
for that file is not measured here (Debian has no Python onnxruntime to run the optimizer).
""")
def fused_table(rows):
    print("| model | ours: best | ours --fuse ort: best | ours --fuse ort: lower bound | ORT first run | fused / ORT first run | ours --fuse ort-transformers: best |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["ort_first_run_peak_bytes"] and r["our_fused_arena_bytes"]:
            first = int(r["ort_first_run_peak_bytes"])
            ratio = f"{int(r['our_fused_arena_bytes']) / first:.2f}" if first else "—"
            print(f"| {r['model']} | {h(r['our_arena_bytes'])} | {h(r['our_fused_arena_bytes'])} | {h(r['our_fused_lower_bound_bytes'])} | {h(r['ort_first_run_peak_bytes'])} | {ratio} | {h(r['our_transformers_arena_bytes'])} |")
fused_table(rows)
print("""
The bench's own torchvision 0.14 exports (bench/export_models.py, batch 1: deeplabv3 on mobilenet_v3_large at
320 × 320 with ASPP rates 12/24/36, efficientnet_b0, mobilenet_v3_small at opset 13 with HardSwish written as
x·HardSigmoid(x), r3d_18 on 4 frames; results/peers-exports.csv), the same way:
""")
fused_table(exports)
print("""
## ORT's rule and PyTorch's on the file's graph

The runtimes' own planners rebuilt as strategies, on the graph as the file has it, with graph outputs outside
the arena (`--io outside`), beside ORT with its graph optimisations disabled (`ORT_OPT_LEVEL=disabled`: it plans
the file's graph too). `ort` is ONNX Runtime's whole rule (`--fuse ort-disabled --order ort --alias noop,ort
--transpose move --align 256`: the graph it runs at that level, its execution order, its views, in place only
where its CPU kernels allow it, reuse only between equal static shapes, then its memory pattern in 256 B
blocks; docs/peers.md), against ORT's pattern block, in bytes, and its order against the order ORT ran the
nodes in, from its profile (of the nodes ORT ran, how many we run, all in ORT's order, or where the orders part:
the nodes both run are compared, as ORT drops Constants, runs an If's branch nodes as its own and names the nodes
of an op it expands its own way); `pytorch` the CUDA caching allocator's rules on
our views and in-place sharing (`--alias noop,inplace`; the bytes it reserves).

| model | ours: ort (B) | ORT disabled: pattern (B) | ort − ORT pattern | ORT's nodes in ORT's order | ours: pytorch reserves | ORT disabled: first run |
|---|---:|---:|---:|---:|---:|---:|""")
same = listed = 0
for r in rows:
    if r["ort_disabled_pattern_bytes"] and r["our_ort_bytes"]:
        pattern, ours = int(r["ort_disabled_pattern_bytes"]), int(r["our_ort_bytes"])
        listed += 1
        same += ours == pattern
        diff = "0" if ours == pattern else f"{ours - pattern:+,} B ({100.0 * (ours - pattern) / pattern:+.3f}%)"
        print(f"| {r['model']} | {ours:,} | {pattern:,} | {diff} | {r['ort_order_nodes_same'] or '—'} | {h(r['our_pytorch_reserved_bytes'])} | {h(r['ort_disabled_first_run_peak_bytes'])} |")
print(f"\n`ort` is ORT's pattern block to the byte on {same} of {listed} models.")
PY
echo "peers.sh: wrote $csv, $exports_csv and results/peers.md" >&2
