#!/usr/bin/env bash
# order-best.sh — `--order best` beside the default plan on the corpus and the committed synthetic graphs: per model
# of graphs/models/models.tsv (with its dims), `sim --graph MODEL --format csv` (the file's order, all sharing,
# `best`) and `sim --graph MODEL --order best --format csv` (every order but `optimal`, under the default sharing and
# under `--alias noop,inplace`, traced and placed by `best`, the smallest arena kept). Writes results/order-best.md;
# deterministic (`best` on its work budget). Needs `make models`.
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
    "$sim" "${args[@]}" > "$work/$name-file.json"
    "$sim" "${args[@]}" --order best > "$work/$name-best.json"
    rows+=("$name")
done < graphs/models/models.tsv
for g in random inception unet; do
    "$sim" --graph "graphs/$g.onnx" --format json > "$work/graphs-$g-file.json"
    "$sim" --graph "graphs/$g.onnx" --format json --order best > "$work/graphs-$g-best.json"
    rows+=("graphs-$g")
done

/usr/bin/python3 - "$work" "${rows[@]}" > results/order-best.md <<'PY'
import datetime, json, os, platform, subprocess, sys

work, names = sys.argv[1], sys.argv[2:]
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
           platform.machine())
print("# `--order best` beside the file's order: the default strategy's arena on the corpus\n")
print(f"Made by `bench/order-best.sh` on {datetime.date.today()} at commit {commit} ({cpu}, {os.cpu_count()} "
      "cores): for each model of `graphs/models/models.tsv` with its dims, and the committed graphs "
      "`graphs/random.onnx`, `inception.onnx` and `unet.onnx`, `sim --graph MODEL` (file order, all sharing, "
      "`best`) and `sim --graph MODEL --order best` (every order but `optimal`, under all sharing and under "
      "`--alias noop,inplace`, traced and placed by `best`, the smallest arena kept). Arenas are deterministic "
      "(`best` on its work budget).\n")
print("| model | file order (B) | order kept by best | sharing kept | its arena (B) | change |")
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
print(f"\n`--order best` is below the default plan on {len(changed)} of {len(names)} graphs"
      + (f" ({', '.join(changed)})" if changed else "") + " and never above it.")
PY
echo "wrote results/order-best.md"
