#!/usr/bin/env bash
# order-best.sh — the default plan (its order and sharing chosen) beside the file's order on the corpus and the
# committed synthetic graphs: per model of graphs/models/models.tsv (with its dims), `sim --graph MODEL --order file`
# (the file's order, all sharing, `best`) and `sim --graph MODEL` (the default, `--order best`: every order but
# `optimal`, under all sharing and under `--alias noop,inplace`, traced and placed by `best`, the smallest arena
# kept). Writes results/order-best.md; deterministic (`best` and the order choice on work budgets). Needs
# `make models`.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim
sim=build/sim
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
mkdir -p results
rows=()
while IFS=$'\t' read -r name file dims; do
    case "$name" in '#'* | '') continue ;; esac
    path="graphs/models/$file"
    [ -f "$path" ] || { echo "order-best.sh: $path is missing (make models)" >&2; exit 1; }
    args=(--graph "$path" --format json)
    if [ "$dims" != "-" ]; then
        IFS=',' read -ra bound <<< "$dims"
        for d in "${bound[@]}"; do args+=(--dim "$d"); done
    fi
    "$sim" "${args[@]}" --order file > "$work/$name-file.json"
    "$sim" "${args[@]}" > "$work/$name-best.json"
    rows+=("$name")
done < graphs/models/models.tsv
for g in random inception unet; do
    "$sim" --graph "graphs/$g.onnx" --format json --order file > "$work/graphs-$g-file.json"
    "$sim" --graph "graphs/$g.onnx" --format json > "$work/graphs-$g-best.json"
    rows+=("graphs-$g")
done

/usr/bin/python3 - "$work" "$(bench/machine.sh made)" "${rows[@]}" > results/order-best.md <<'PY'
import json, sys

work, made, names = sys.argv[1], sys.argv[2], sys.argv[3:]
print("# The default plan (order and sharing chosen) beside the file's order: the default strategy's arena\n")
print(f"Made by `bench/order-best.sh` on {made}: for each model of `graphs/models/models.tsv` with its dims, "
      "and the committed graphs "
      "`graphs/random.onnx`, `inception.onnx` and `unet.onnx`, `sim --graph MODEL --order file` (file order, all "
      "sharing, `best`) and `sim --graph MODEL`, the default (`--order best`: every order but `optimal`, under all "
      "sharing and under `--alias noop,inplace`, traced and placed by `best`, the smallest arena kept). Arenas "
      "are deterministic (`best` and the order choice on work budgets).\n")
print("| model | file order (B) | order kept | sharing kept | default plan (B) | change |")
print("|---|---:|---|---|---:|---:|")
changed = []
for n in names:
    f = json.load(open(f"{work}/{n}-file.json"))[0]
    b = json.load(open(f"{work}/{n}-best.json"))[0]
    assert b["arena_bytes"] <= f["arena_bytes"], n
    change = (b["arena_bytes"] - f["arena_bytes"]) / f["arena_bytes"] * 100
    label = n.replace("graphs-", "graphs/") + (".onnx" if n.startswith("graphs-") else "")
    print(f"| {label} | {f['arena_bytes']:,} | {b['order']} | {b['alias']} | {b['arena_bytes']:,} | {change:+.2f}% |")
    if b["arena_bytes"] < f["arena_bytes"]:
        changed.append(label)
print(f"\nThe default plan is below the file's order on {len(changed)} of {len(names)} graphs"
      + (f" ({', '.join(changed)})" if changed else "") + " and never above it.")
PY
echo "wrote results/order-best.md"
