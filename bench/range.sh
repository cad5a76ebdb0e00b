#!/usr/bin/env bash
# range.sh — the arena as a function of the dims (`sim --dim NAME=LO:HI`, docs/usage.md "A range of dims") on the
# corpus's transformers, checked against every point planned on its own, and what a range costs beside one binding.
# Writes results/range-dims.md and plots/range-gpt2.png, plots/range-decoder.png.
#   - The functions (deterministic): GPT-2 (seq 1..1024) and the encoder–decoder (batch 1..4 × seq 1..64, mem 16)
#     with --range-check: every point also loaded and placed by the default strategy alone, the arenas compared,
#     and each point's trace loaded anew beside the one it was planned with.
#   - The cost (timings): hyperfine, side by side in this one run, one thread: the range, the range with every point
#     loaded (--range-every), and one binding at the top of the range; the ratios to the one binding.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim
sim=build/sim
gpt2=graphs/models/torch/gpt2-torch.onnx
decoder=graphs/models/torch/decoder-torch.onnx
[ -f "$gpt2" ] && [ -f "$decoder" ] || { echo "range.sh: the corpus is missing: run make models first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
mkdir -p results plots

"$sim" --graph "$gpt2" --dim batch=1 --dim seq=1:1024 --range-check --format json --plot range \
    --out plots/range-gpt2.png \
    --title "GPT-2 small (torch export, batch 1): arena against seq, each point also placed alone" > "$work/gpt2.json"
"$sim" --graph "$decoder" --dim batch=1:4 --dim seq=1:64 --dim mem=16 --range-check --format json --plot range \
    --out plots/range-decoder.png \
    --title "Encoder-decoder (torch export, mem 16): arena against seq, a line per batch" > "$work/decoder.json"

export OPENBLAS_NUM_THREADS=1
machine=$(bench/machine.sh start)
hyperfine --style none --warmup 1 --runs 5 --export-json "$work/time.json" \
    -n range "$sim --graph $gpt2 --dim batch=1 --dim seq=1:1024" \
    -n every "$sim --graph $gpt2 --dim batch=1 --dim seq=1:1024 --range-every" \
    -n one "$sim --graph $gpt2 --dim batch=1 --dim seq=1024" > /dev/null
machine_end=$(bench/machine.sh end)

/usr/bin/python3 - "$work" "$machine" "$machine_end" > results/range-dims.md <<'PY'
import json, sys
work, machine, machine_end = sys.argv[1:4]

def report(name, title, command):
    r = json.load(open(f"{work}/{name}.json"))
    c = r["check"]
    print(f"## {title}\n")
    print(f"`{command}`\n")
    print(f"{r['points']:,} points: {r['loaded_points']:,} loaded and traced, {r['interpolated_points']:,} sized "
          f"between them; {r['placed_points']:,} placed by `{r['strategy']}` on their own.\n")
    print("| function | where | bytes |\n|---|---|---|")
    for what in ("arena", "lower_bound"):
        for p in r[f"{what}_by_dims"]:
            box = ", ".join(f"{d} {p['from'][d]}..{p['to'][d]}" if p["from"][d] != p["to"][d] else f"{d}={p['from'][d]}"
                            for d in p["from"])
            print(f"| {what.replace('_', ' ')} | {box} | {p['text']} |")
    print()
    print("| range plan made at | points it was moved to and verified at | buffers | arena there (B) |")
    print("|---|---:|---:|---:|")
    for p in r["range_plans"]:
        top = ", ".join(f"{k}={v}" for k, v in p["top"].items())
        print(f"| {top} | {p['points']:,} | {p['buffers']} | {p['arena_at_top']:,} |")
    print()
    print(f"Check (`--range-check`: every point loaded anew and placed by `{r['strategy']}` alone): the same arena at "
          f"{c['equal']:,} of {r['points']:,} points, the function smaller at {c['function_smaller']:,}, larger at "
          f"{c['function_larger']:,}; the trace a point was planned with differs from the one loaded at "
          f"{c['traces_differ']:,}.\n")

print("# The arena as a function of the dims\n")
print("Made by `bench/range.sh` (`make figures FIGURES=range`). The functions and the checks are deterministic (the")
print("default strategy `best` on its work budget); the last table is timings. Models: `make models`. What the")
print("report means: docs/usage.md, \"A range of dims\"; figures: plots/range-gpt2.png, plots/range-decoder.png.\n")
report("gpt2", "GPT-2 small (torch export), seq 1..1024",
       "sim --graph graphs/models/torch/gpt2-torch.onnx --dim batch=1 --dim seq=1:1024 --range-check")
report("decoder", "Encoder–decoder (torch export), batch 1..4 × seq 1..64",
       "sim --graph graphs/models/torch/decoder-torch.onnx --dim batch=1:4 --dim seq=1:64 --dim mem=16 --range-check")
t = {r["command"]: r for r in json.load(open(f"{work}/time.json"))["results"]}
one = t["one"]["median"]
print("## What a range costs beside one binding (timings)\n")
print(machine + "\n")
print("| run | median (s) | × one binding |\n|---|---:|---:|")
for name, what in (("one", "one binding, seq=1024"), ("range", "seq 1..1024 (sized between loaded points)"),
                   ("every", "seq 1..1024, every point loaded (`--range-every`)")):
    print(f"| {what} | {t[name]['median']:.3f} | {t[name]['median'] / one:.1f} |")
print(f"\nhyperfine, 5 runs after 1 warm-up each, side by side in one run; one thread. {machine_end}")
PY
echo "range.sh: wrote results/range-dims.md, plots/range-gpt2.png, plots/range-decoder.png" >&2
