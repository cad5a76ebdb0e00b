#!/usr/bin/env bash
# range.sh — the arena as a function of the dims (`sim --dim NAME=LO:HI`, docs/usage.md "A range of dims") on the
# corpus's transformers and the bench's own exports (bench/export_range.py: a BERT-style encoder, a LLaMA-style
# prefill; cached outside the clone by bench/own-exports.sh, made again when the script or a module it imports
# changes), checked against every point planned on its own, and what a range costs beside one binding. Writes
# results/range-dims.md and plots/range-*.png.
#   - The functions (deterministic): GPT-2 (seq 1..1024), the encoder–decoder (seq 1..64 × mem 1..64), the
#     BERT-style encoder (batch 1..8 × seq 1..512) and the LLaMA-style prefill (seq 1..2048), with --range-check:
#     every point also loaded and placed by the default strategy alone, the arenas compared, and each point's trace
#     loaded anew beside the one it was planned with.
#   - The cost (timings): hyperfine, side by side in this one run, one thread: each range, GPT-2's with every point
#     loaded (--range-every), and one binding at the top of each range; the ratios to the one binding.
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
own=$(bench/own-exports.sh bench/export_range.py range graphs/export_torch.py)
bert=$own/bert.onnx llama=$own/llama.onnx

"$sim" --graph "$gpt2" --dim batch=1 --dim seq=1:1024 --range-check --range-one-plan --format json --plot range \
    --out plots/range-gpt2.png \
    --title "GPT-2 small (torch export, batch 1): arena against seq, each point also placed alone" > "$work/gpt2.json"
"$sim" --graph "$decoder" --dim batch=1 --dim seq=1:64 --dim mem=1:64 --range-check --range-one-plan --format json \
    --plot range \
    --out plots/range-decoder.png \
    --title "Encoder-decoder (torch export, batch 1): arena against the memory length mem, a line per seq" \
    > "$work/decoder.json"
"$sim" --graph "$bert" --dim batch=1:8 --dim seq=1:512 --range-check --range-one-plan --format json --plot range \
    --out plots/range-bert.png --title "BERT-style encoder (own export): arena against seq, a line per batch" \
    > "$work/bert.json"
"$sim" --graph "$llama" --dim batch=1 --dim seq=1:2048 --range-check --range-one-plan --format json --plot range \
    --out plots/range-llama.png --title "LLaMA-style prefill (own export, batch 1): arena against seq" \
    > "$work/llama.json"

export OPENBLAS_NUM_THREADS=1
machine=$(bench/machine.sh start)
hyperfine --style none --warmup 1 --runs 5 --export-json "$work/time.json" \
    -n gpt2-one "$sim --graph $gpt2 --dim batch=1 --dim seq=1024" \
    -n gpt2-range "$sim --graph $gpt2 --dim batch=1 --dim seq=1:1024" \
    -n gpt2-every "$sim --graph $gpt2 --dim batch=1 --dim seq=1:1024 --range-every" \
    -n bert-one "$sim --graph $bert --dim batch=8 --dim seq=512" \
    -n bert-range "$sim --graph $bert --dim batch=1:8 --dim seq=1:512" \
    -n llama-one "$sim --graph $llama --dim batch=1 --dim seq=2048" \
    -n llama-range "$sim --graph $llama --dim batch=1 --dim seq=1:2048" > /dev/null
machine_end=$(bench/machine.sh end)

/usr/bin/python3 - "$work" "$machine" "$machine_end" > results/range-dims.md <<'PY'
import json, sys
from math import prod
work, machine, machine_end = sys.argv[1:4]

def last_arena(r):
    """The function's arena at the grid's last point, from the CSV-equivalent pieces: the last piece holds it."""
    x = {d["name"]: d["hi"] for d in r["ranges"]}
    for p in r["arena_by_dims"]:
        if all(p["from"][k] <= v <= p["to"][k] for k, v in x.items()):
            poly = p
            if "classes" in p:
                v = x[r["ranges"][-1]["name"]] % p["cycle"]
                poly = next(c for c in p["classes"] if v in c["residues"])
            total = sum(t["coef"] * prod(x[k] ** e for k, e in t["pow"].items()) for t in poly["terms"])
            if p.get("floor"):
                f = p["floor"]
                total += f["coef"] * ((x[f["var"]] - f["origin"]) // f["period"])
            return total // poly["den"]
    raise SystemExit("range.sh: no piece holds the last point")


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
    o = r["one_plan"]
    top = ", ".join(f"{k}={v}" for k, v in o["top"].items())
    print(f"One plan (`--range-one-plan`): the plan made at {top}, moved to every point, verified at "
          f"{o['points']:,} of {r['points']:,} ({o['kept_apart']:,} of them of another structure, loaded with its "
          "buffers kept apart); "
          f"its arena at the last point {o['arena_at_last_point']:,} B, the function's there "
          f"{last_arena(r):,} B.\n")
    print(f"Check (`--range-check`: every point loaded anew and placed by `{r['strategy']}` alone): the same arena at "
          f"{c['equal']:,} of {r['points']:,} points, the function smaller at {c['function_smaller']:,}, larger at "
          f"{c['function_larger']:,}; the trace a point was planned with differs from the one loaded at "
          f"{c['traces_differ']:,}.\n")

print("# The arena as a function of the dims\n")
print("Made by `bench/range.sh` (`make figures FIGURES=range`). The functions and the checks are deterministic (the")
print("default strategy `best` on its work budget); the last table is timings. Models: `make models`. What the")
print("report means: docs/usage.md, \"A range of dims\"; figures: plots/range-gpt2.png, range-decoder.png,")
print("range-bert.png, range-llama.png. The BERT-style encoder and the LLaMA-style prefill are bench/export_range.py's")
print("own exports.\n")
report("gpt2", "GPT-2 small (torch export), seq 1..1024",
       "sim --graph graphs/models/torch/gpt2-torch.onnx --dim batch=1 --dim seq=1:1024 --range-check "
       "--range-one-plan")
report("decoder", "Encoder–decoder (torch export), seq 1..64 × mem 1..64",
       "sim --graph graphs/models/torch/decoder-torch.onnx --dim batch=1 --dim seq=1:64 --dim mem=1:64 --range-check "
       "--range-one-plan")
report("bert", "BERT-style encoder (own export), batch 1..8 × seq 1..512",
       "sim --graph bert.onnx --dim batch=1:8 --dim seq=1:512 --range-check --range-one-plan   # bench/export_range.py")
report("llama", "LLaMA-style prefill (own export), seq 1..2048",
       "sim --graph llama.onnx --dim batch=1 --dim seq=1:2048 --range-check --range-one-plan   # bench/export_range.py")
t = {r["command"]: r for r in json.load(open(f"{work}/time.json"))["results"]}
print("## What a range costs beside one binding (timings)\n")
print(machine + "\n")
print("| model | run | median (s) | × one binding |\n|---|---|---:|---:|")
for model, one, runs in (("GPT-2", "seq=1024", (("range", "seq 1..1024 (1,024 points)"),
                                                 ("every", "seq 1..1024, every point loaded (`--range-every`)"))),
                         ("BERT-style", "batch=8, seq=512", (("range", "batch 1..8 × seq 1..512 (4,096 points)"),)),
                         ("LLaMA-style", "seq=2048", (("range", "seq 1..2048 (2,048 points)"),))):
    key = {"GPT-2": "gpt2", "BERT-style": "bert", "LLaMA-style": "llama"}[model]
    base = t[f"{key}-one"]["median"]
    print(f"| {model} | one binding, {one} | {base:.3f} | 1.0 |")
    for name, what in runs:
        m = t[f"{key}-{name}"]["median"]
        print(f"| {model} | {what} | {m:.3f} | {m / base:.1f} |")
print(f"\nhyperfine, 5 runs after 1 warm-up each, side by side in one run; one thread. {machine_end}")
PY
echo "range.sh: wrote results/range-dims.md and plots/range-{gpt2,decoder,bert,llama}.png" >&2
