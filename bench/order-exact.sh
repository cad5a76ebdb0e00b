#!/usr/bin/env bash
# order-exact.sh — the exact order (`--order optimal`) on the corpus and on irregular graphs: for each model of
# graphs/models/models.tsv (with its dims), the committed graphs/inception.onnx and graphs/random.onnx, and random
# DAGs of 100 to 1,000 nodes (mkgraph random, seeds 1 to 5): how it ended — at the bound every order needs (the best
# heuristic order reaches it: no search), by a search of N states, or out of its budget of 2,000,000 states with
# the best heuristic order's gap to that bound — and the whole command's wall time. The budget is counted in states
# (the time budget raised out of the way), so the outcome column is the same on any machine; the seconds are this
# machine's. Writes results/order-exact.md. Needs `make models`.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim build/mkgraph
sim=build/sim
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
mkdir -p results
rows="$work/rows.tsv"
: > "$rows"
# nodes_of ARGS...: the graph's node count (sim --info)
nodes_of() { "$sim" "$@" --info | sed -n 's/^nodes *\([0-9]*\).*/\1/p' | head -1; }
# one_graph NAME NODES ARGS...: one exact order, its outcome and seconds appended to the rows
one_graph() {
    local name=$1 nodes=$2
    shift 2
    local start end out status=0
    start=$(date +%s.%N)
    out=$("$sim" "$@" --order optimal --order-budget 2000000 --order-seconds 1000 2>&1) || status=$?
    end=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$nodes" "$status" "$(awk "BEGIN {print $end - $start}")" \
        "$(printf '%s' "$out" | grep -E '^order proof|gave up' | head -1)" >> "$rows"
}
while IFS=$'\t' read -r name file dims; do
    case "$name" in '#'* | '') continue ;; esac
    path="graphs/models/$file"
    [ -f "$path" ] || { echo "order-exact.sh: $path is missing (make models)" >&2; exit 1; }
    args=(--graph "$path")
    if [ "$dims" != "-" ]; then
        IFS=',' read -ra bound <<< "$dims"
        for d in "${bound[@]}"; do args+=(--dim "$d"); done
    fi
    one_graph "$name" "$(nodes_of "${args[@]}")" "${args[@]}"
done < graphs/models/models.tsv
for g in inception random; do
    one_graph "graphs/$g.onnx" "$(nodes_of --graph "graphs/$g.onnx")" --graph "graphs/$g.onnx"
done
for n in 100 200 500 1000; do
    for seed in 1 2 3 4 5; do
        build/mkgraph random --nodes "$n" --seed "$seed" -o "$work/random.onnx" > /dev/null
        one_graph "random $n nodes, seed $seed" "$n" --graph "$work/random.onnx"
    done
done
/usr/bin/python3 - "$rows" "$(bench/machine.sh made)" > results/order-exact.md <<'PY'
import re, sys

rows, made = sys.argv[1], sys.argv[2]
print("# The exact order: proven at the bound, found by a search, or out of its budget\n")
print(f"Made by `bench/order-exact.sh` on {made}: `sim --graph MODEL [--dim ...] --order optimal --order-budget "
      "2000000 --order-seconds 1000` on each model of `graphs/models/models.tsv` (its dims), the committed "
      "graphs/inception.onnx and graphs/random.onnx, and random DAGs (`mkgraph random --nodes N --seed S`). "
      "*At the bound*: the best heuristic order holds no more than every order must at some step, so it is optimal "
      "and no search runs; *search*: the dynamic program over downsets, part by part, found the optimum (or proved "
      "the heuristic's) in that many states; *gave up*: 2,000,000 states were not enough, and the gap is how far the "
      "best heuristic order is above the bound. The outcome is counted in states (the same on any machine); the "
      "seconds are the whole command's on this machine.\n")
print("| graph | nodes | outcome | peak live (B) | bound (B) | seconds |")
print("|---|---:|---|---:|---:|---:|")
counts = {"bound": 0, "search": 0, "gave up": 0}
for line in open(rows):
    name, nodes, status, seconds, said = line.rstrip("\n").split("\t")
    numbers = [int(x.replace(",", "")) for x in re.findall(r"(\d[\d,]*) B", said)]
    if "no search" in said:
        outcome, peak, bound = "at the bound", numbers[0], numbers[0]
        counts["bound"] += 1
    elif "states found no order" in said:
        states = re.search(r"a search of (\d+) states", said).group(1)
        outcome, peak, bound = f"search, {int(states):,} states", numbers[0], numbers[-1]
        counts["search"] += 1
    elif "gave up" in said:
        gap = re.search(r"is ([\d.]+)% above the (\d+) B", said)
        best = re.search(r"peak, (\d+) B", said)
        outcome, peak, bound = f"gave up: the best heuristic order {gap.group(1)}% above the bound", \
            int(best.group(1)), int(gap.group(2))
        counts["gave up"] += 1
    else:
        sys.exit(f"order-exact.sh: {name}: neither an order nor its give-up (status {status}): {said}")
    print(f"| {name} | {int(nodes):,} | {outcome} | {peak:,} | {bound:,} | {float(seconds):.2f} |")
total = sum(counts.values())
print(f"\nOf {total} graphs: {counts['bound']} at the bound, {counts['search']} by a search, "
      f"{counts['gave up']} out of the budget (each with its gap to the bound).")
PY
echo "wrote results/order-exact.md"
