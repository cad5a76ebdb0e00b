#!/usr/bin/env bash
# kv.sh — a decoder's KV cache planned at capacity (`sim --kv-capacity N`, docs/usage.md "A KV cache at
# capacity") on the bench's own exports (bench/export_decode.py: a GPT-2-style and a LLaMA-style decoder with grouped-
# query attention, past as inputs, present as outputs; cached outside the clone by bench/own-exports.sh, made again
# when the script or a module it imports changes).
# Writes results/kv-cache.md (deterministic: the default strategy on its work budget):
#   - the decode step (seq 1) at the last token a capacity holds (past_seq = N - 1), for capacities 128..2048: the
#     arena with the cache planned at capacity, beside the step without it as a runtime runs it in a loop (the past
#     the caller's, held through the step, and the present in the arena: `--io inputs-outside` plus the pasts'
#     bytes) and as the planner alone would plan one step (the past in the arena, freed after its last read);
#   - the arena at every cache length 1..N-1 at capacity 2048 (`--dim past_seq=1:2047`), as a formula;
#   - the prefill of 128 tokens and the decode step at capacity 1024 planned in one arena (`--graph` twice) beside
#     each planned alone;
#   - the step at capacity 1024 run inside its plan and checked bit for bit against a run with nothing shared;
#   - a greedy generation of 32 tokens after a prompt of 16 run inside one plan at capacity 1024 (`--generate 32`),
#     checked token for token against torch's own generation with its KV cache.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim
sim=build/sim
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
mkdir -p results
own=$(bench/own-exports.sh bench/export_decode.py kv bench/export_range.py graphs/export_torch.py)

for model in gpt2 llama; do
    for cap in 128 256 512 1024 2048; do
        past=$((cap - 1))
        step=(--graph "$own/$model-kv.onnx" --dim batch=1 --dim seq=1 --dim "past_seq=$past" --format json)
        "$sim" "${step[@]}" --kv-capacity "$cap" > "$work/$model-$cap-kv.json"
        "$sim" "${step[@]}" --io inputs-outside > "$work/$model-$cap-outside.json"
        "$sim" "${step[@]}" > "$work/$model-$cap-step.json"
        "$sim" "${step[@]}" --kv-capacity "$cap" --fuse ort-transformers > "$work/$model-$cap-kv-fused.json"
        "$sim" "${step[@]}" --io inputs-outside --fuse ort-transformers > "$work/$model-$cap-outside-fused.json"
    done
    "$sim" --graph "$own/$model-kv.onnx" --dim batch=1 --dim seq=1 --dim past_seq=1:2047 --kv-capacity 2048 \
        --format json > "$work/$model-range.json"
    "$sim" --graph "$own/$model-prefill.onnx" --graph "$own/$model-kv.onnx" --kv-capacity 1024 --dim batch=1 \
        --dim "$model-prefill:seq=128" --dim "$model-kv:seq=1" --dim "$model-kv:past_seq=1023" --format json \
        > "$work/$model-entries.json"
    "$sim" --graph "$own/$model-kv.onnx" --dim batch=1 --dim seq=1 --dim past_seq=1023 --kv-capacity 1024 --run \
        --check --poison > "$work/$model-run.txt"
    "$sim" --graph "$own/$model-prefill.onnx" --graph "$own/$model-kv.onnx" --kv-capacity 1024 --generate 32 \
        --inputs "$own/$model-generate" --expect "$own/$model-generate" --poison --format json > "$work/$model-gen.json"
done

/usr/bin/python3 - "$work" "$own" > results/kv-cache.md <<'PY'
import json, sys
from math import prod
import onnx
work, own = sys.argv[1:3]


def arena(name):
    return json.load(open(f"{work}/{name}.json"))[0]["arena_bytes"]


def loop_bytes(model, cap, fused=""):
    """What a runtime holds in a loop without sharing: the present in its arena (`--io inputs-outside`), the
    caller's past (cap - 1 tokens) beside it."""
    graph = onnx.load(f"{own}/{model}-kv.onnx", load_external_data=False).graph
    bind = {"batch": 1, "past_seq": cap - 1}
    return arena(f"{model}-{cap}-outside{fused}") + sum(
        4 * prod(d.dim_value or bind[d.dim_param] for d in i.type.tensor_type.shape.dim)
        for i in graph.input if i.name.startswith("past_key_values."))


print("# A KV cache planned at capacity\n")
print("Made by `bench/kv.sh` (`make figures FIGURES=kv`; deterministic: the default strategy `best` on its work")
print("budget). Models: bench/export_decode.py's own torch exports, past as inputs and present as outputs (a Concat")
print("along the sequence axis), random weights. What the options mean: docs/usage.md, \"A KV cache at capacity\".\n")
print("## The decode step at the last token a capacity holds\n")
print("`sim --graph MODEL --dim batch=1 --dim seq=1 --dim past_seq=N-1 --kv-capacity N` (cache at capacity) beside")
print("the same step without it: as a runtime runs it in a loop (`--io inputs-outside`: the present in the arena, the")
print("past the caller's, held through the step, its bytes added) and as the planner plans one step alone (the past")
print("in the arena, freed after its Concat: not a loop, whose next past is this present).\n")
print("| model | capacity | cache (B) | at capacity (B) | runtime loop without (B) | ratio | one step alone (B) "
      "| ratio |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for model in ("gpt2", "llama"):
    for cap in (128, 256, 512, 1024, 2048):
        kv = json.load(open(f"{work}/{model}-{cap}-kv.json"))[0]
        a, loop, step = kv["arena_bytes"], loop_bytes(model, cap), arena(f"{model}-{cap}-step")
        print(f"| {model} | {cap:,} | {kv['kv']['cache_bytes']:,} | {a:,} | {loop:,} | {a / loop:.3f} | {step:,} | "
              f"{a / step:.3f} |")
print()
print("The same on the graph ONNX Runtime runs after its transformer optimizer (`--fuse ort-transformers`: "
      "grouped-query")
print("attention reads the cache's key/value heads where they lie, `repeat-kv`; GPT-2-style's K read transposed):\n")
print("| model | capacity | at capacity (B) | runtime loop without (B) | ratio |")
print("|---|---:|---:|---:|---:|")
for model in ("gpt2", "llama"):
    for cap in (128, 256, 512, 1024, 2048):
        a, loop = arena(f"{model}-{cap}-kv-fused"), loop_bytes(model, cap, "-fused")
        print(f"| {model} | {cap:,} | {a:,} | {loop:,} | {a / loop:.3f} |")
print()
print("## The arena at every cache length, at capacity 2048\n")
print("`sim --graph MODEL --dim batch=1 --dim seq=1 --dim past_seq=1:2047 --kv-capacity 2048`\n")
print("| model | where | arena (B) |\n|---|---|---|")
for model in ("gpt2", "llama"):
    r = json.load(open(f"{work}/{model}-range.json"))
    for p in r["arena_by_dims"]:
        box = ", ".join(f"{d} {p['from'][d]}..{p['to'][d]}" if p["from"][d] != p["to"][d] else f"{d}={p['from'][d]}"
                        for d in p["from"])
        print(f"| {model} | {box} | {p['text']} |")
print()
print("## A prefill and the decode step in one arena\n")
print("`sim --graph MODEL-prefill.onnx --graph MODEL-kv.onnx --kv-capacity 1024 --dim batch=1 --dim")
print("MODEL-prefill:seq=128 --dim MODEL-kv:seq=1 --dim MODEL-kv:past_seq=1023`: the caches one buffer each for both")
print("entries. Alone: each entry planned on its own with the caches at capacity.\n")
print("| model | state (B) | prefill alone (B) | decode alone (B) | sum − state (B) | one arena (B) "
      "| lower bound (B) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for model in ("gpt2", "llama"):
    e = json.load(open(f"{work}/{model}-entries.json"))
    pre, dec = (x["alone_arena_bytes"] for x in e["entries"])
    print(f"| {model} | {e['state_bytes']:,} | {pre:,} | {dec:,} | {pre + dec - e['state_bytes']:,} | "
          f"{e['arena_bytes']:,} | {e['lower_bound_bytes']:,} |")
print()
print("## Run inside the plan\n")
print("`sim --graph MODEL --dim batch=1 --dim seq=1 --dim past_seq=1023 --kv-capacity 1024 --run --check --poison`\n")
print("| model | arena | check |\n|---|---|---|")
for model in ("gpt2", "llama"):
    lines = open(f"{work}/{model}-run.txt").read().splitlines()
    arena = next(l for l in lines if l.startswith("arena ")).split(None, 1)[1]
    check = next(l for l in lines if l.startswith("check ")).split(None, 1)[1]
    print(f"| {model} | {arena} | {check} |")
print()
print("## A greedy generation inside one plan\n")
print("`sim --graph MODEL-prefill.onnx --graph MODEL-kv.onnx --kv-capacity 1024 --generate 32 --inputs DIR --expect")
print("DIR --poison`: the prefill over a prompt of 16 ids, then 31 decode steps, the caches kept in the arena from "
      "step to")
print("step, each token the argmax of the last logits; DIR holds torch's own greedy generation with its KV cache")
print("(bench/export_decode.py).\n")
print("| model | prompt | tokens | equal to torch's | one arena (B) | state (B) |")
print("|---|---:|---:|---:|---:|---:|")
for model in ("gpt2", "llama"):
    g = json.load(open(f"{work}/{model}-gen.json"))
    print(f"| {model} | {len(g['prompt'])} | {len(g['tokens'])} | {g['matched']} | {g['plan']['arena_bytes']:,} | "
          f"{g['plan']['state_bytes']:,} |")
PY
echo "kv.sh: wrote results/kv-cache.md" >&2
