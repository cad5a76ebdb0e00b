#!/usr/bin/env bash
# training.sh — training steps planned (docs/training.md): torchvision models at batch 32 exported by
# graphs/export_training.py (Debian's torch; cached outside the clone, made again when the exporter changes), each in
# two forms: forward + loss + backward (the gradients returned), and the same with SGD's update of every parameter
# (`--optimizer sgd`, as optimizer.step() after the backward). Per model and form:
#   - `pytorch`: PyTorch's caching allocator replayed on the step in torch's own order (the file's);
#   - the plan in the file's order (`sim`, the default strategy);
#   - the plan with the order chosen too (`--order best`: every heuristic order and the local search, each placed);
# plus the order's gain on Inductor's two published cases (alexnet at batch 128, vgg16 at batch 64).
# Writes results/training.md: the arenas are deterministic (work budgets); the planning times of the last table
# are this machine's.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim
sim=build/sim
models=(alexnet resnet18 resnet50 video.r3d_18 mobilenet_v2 squeezenet1_0 vgg11 vgg16 mnasnet0_5 efficientnet_b0
        googlenet inception_v3 vit_b_16)
own="${ARENASIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arenasim}/training"
stamp="$own/.exported-$(sha256sum graphs/export_training.py | cut -c1-16)"
export_one() { # NAME MODEL BATCH [OPTIONS...]
    local name=$1 model=$2 batch=$3
    shift 3
    [ -f "$own/$name.onnx" ] && return 0
    /usr/bin/python3 graphs/export_training.py "$model" "$own/$name.tmp.onnx" --batch "$batch" "$@" \
        2>> "$own/.export-log" >&2
    mv -- "$own/$name.tmp.onnx" "$own/$name.onnx"
}
if [ ! -f "$stamp" ]; then
    rm -rf -- "$own"
    mkdir -p "$own"
fi
for m in "${models[@]}"; do
    export_one "$m" "$m" 32
    export_one "$m-sgd" "$m" 32 --optimizer sgd
done
export_one alexnet-b128 alexnet 128
export_one alexnet-b128-sgd alexnet 128 --optimizer sgd
export_one vgg16-b64 vgg16 64
export_one vgg16-b64-sgd vgg16 64 --optimizer sgd
touch "$stamp"

work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
mkdir -p results
bench/machine.sh start > "$work/machine-start"
for f in "$own"/*.onnx; do
    name=$(basename "$f" .onnx)
    run=(--graph "$f" --allow-unknown-ops --format json)
    "$sim" "${run[@]}" --strategy pytorch --order file > "$work/$name-pytorch.json"
    "$sim" "${run[@]}" --order file > "$work/$name-file.json"
    start=$(date +%s.%N)
    "$sim" "${run[@]}" --order best > "$work/$name-best.json"
    awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }' > "$work/$name-best.seconds"
done
bench/machine.sh end > "$work/machine-end"

/usr/bin/python3 - "$work" "$(bench/machine.sh made)" "${models[@]}" > results/training.md <<'PY'
import json, statistics, sys

work, made, models = sys.argv[1], sys.argv[2], sys.argv[3:]


def row(name, kind):
    return json.load(open(f"{work}/{name}-{kind}.json"))[0]


def floor(t):
    """What no order goes below: the bytes live just after the loss is made, the outputs at the end, or what every
    order holds while one node runs."""
    return max(t["loss_floor_bytes"], t["end_floor_bytes"], t["step_floor_bytes"])


def mib(b):
    return f"{b / 2**20:,.1f}"


print("# Training steps: the plan against PyTorch's caching allocator\n")
print(f"Made by `bench/training.sh` on {made}. "
      "Each model is one training step of a torchvision classifier at batch 32 (224 × 224; inception_v3 299 × 299; "
      "r3d_18 16 × 112 × 112 frames), random weights, exported by "
      "`graphs/export_training.py MODEL OUT.onnx --batch 32 [--optimizer sgd]` and planned with "
      "`sim --graph OUT.onnx --allow-unknown-ops`. Every byte of the step is in the "
      "arena: parameters, the module's buffers, the batch, gradients, saved activations and transients. `pytorch` is "
      "PyTorch's caching allocator replayed on the step in torch's own order (`--strategy pytorch`: what it reserves); "
      "`file order` is the plan (default strategy) in that order; `plan` chooses the order too (`--order best`: every "
      "heuristic order and the local search, each traced and placed, the smallest kept). `floor` is the largest of "
      "three bounds no order and no placement goes below, under the sharing the plan kept: the fewest bytes any "
      "order holds just after the loss is made (the parameters and the module's buffers, the batch and every "
      "activation the forward keeps for the backward, found as a minimum cut: the report's `at the loss`), the "
      "outputs every order holds at its end (the parameters and their gradients: `at the end`), and the most every "
      "order holds while one node runs (`at a step`). The arenas are deterministic (work budgets).\n")
for form, suffix, what in (("forward + loss + backward", "", "the gradients returned, as `torch.autograd.grad`"),
                           ("with SGD's update", "-sgd", "then every parameter updated in place, as `optimizer.step()` "
                            "after the backward; the plan may run an update as soon as its gradient exists")):
    print(f"## {form}\n")
    print(f"{what[0].upper() + what[1:]}. MiB = 2^20 bytes.\n")
    print("| model | nodes | parameters | saved activations | floor | pytorch | file order | plan | order kept "
          "| plan / pytorch | plan / floor |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    ratios, floors = [], []
    for m in models:
        p, f, b = row(m + suffix, "pytorch"), row(m + suffix, "file"), row(m + suffix, "best")
        t = b["training"]
        ratio = b["arena_bytes"] / p["arena_bytes"]
        ratios.append(ratio)
        floors.append(floor(t) / p["arena_bytes"])
        assert b["arena_bytes"] <= f["arena_bytes"], m
        print(f"| {m.replace('video.', '')} | {b['steps']} | {mib(t['parameters']['bytes'])} "
              f"| {mib(t['saved_activations']['bytes'])} | {mib(floor(t))} | {mib(p['arena_bytes'])} "
              f"| {mib(f['arena_bytes'])} | {mib(b['arena_bytes'])} | {b['order']} | {ratio:.3f} "
              f"| {b['arena_bytes'] / floor(t):.3f} |")
    print(f"\nMean plan / pytorch over the {len(models)} models: **{statistics.mean(ratios):.3f}** "
          f"(median {statistics.median(ratios):.3f}, worst {max(ratios):.3f}); the plan is never above the file "
          f"order's. The floor over pytorch, which no order or placement of these graphs goes below (the plan's "
          f"sharing): mean "
          f"{statistics.mean(floors):.3f}, median {statistics.median(floors):.3f}.\n")
print("## The order's gain on Inductor's published cases\n")
print("PyTorch Inductor's peak-memory reordering reported 1.19× on alexnet at batch 128 and 1.15× on vgg16 at batch "
      "64. Here: the plan in the file's order (torch's) over the plan with the order chosen, the same strategy; "
      "`most possible` is the file order's plan over the floor, the gain no order can pass.\n")
print("| model | batch | form | file order | plan | order kept | gain | most possible | Inductor's |")
print("|---|---:|---|---:|---:|---|---:|---:|---:|")
for m, batch, inductor in (("alexnet", 128, 1.19), ("vgg16", 64, 1.15)):
    for form, suffix in (("forward + backward", ""), ("with SGD's update", "-sgd")):
        name = f"{m}-b{batch}{suffix}"
        f, b = row(name, "file"), row(name, "best")
        least = floor(b["training"])
        print(f"| {m} | {batch} | {form} | {mib(f['arena_bytes'])} | {mib(b['arena_bytes'])} | {b['order']} "
              f"| {f['arena_bytes'] / b['arena_bytes']:.3f}× | {f['arena_bytes'] / least:.3f}× | {inductor}× |")
print("\n## Planning time (this machine; not deterministic)\n")
print("`sim --graph OUT.onnx --allow-unknown-ops --order best` from start to end (reading the model, every order "
      "traced and placed, the report), batch 32, one thread. "
      + open(f"{work}/machine-start").read().strip() + " " + open(f"{work}/machine-end").read().strip() + "\n")
print("| model | forward + backward, s | with SGD's update, s |")
print("|---|---:|---:|")
for m in models:
    secs = [float(open(f"{work}/{n}-best.seconds").read()) for n in (m, m + "-sgd")]
    print(f"| {m.replace('video.', '')} | {secs[0]:.2f} | {secs[1]:.2f} |")
PY
echo "wrote results/training.md"
