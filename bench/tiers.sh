#!/usr/bin/env bash
# tiers.sh — memory tiers (`sim --tiers`, docs/tiers.md) on every corpus model (graphs/models/models.tsv with its
# dims): a fast tier of 25%, 50% and 75% of the model's `best` arena (the default strategy on its work budget) and
# an unbounded slow one, default costs (0 per byte in the fast tier, 1 in the slow: a plan's cost is the bytes it
# moves through the slow tier). Each plan by ExecuTorch's banked_greedy (`banked-greedy`) and by ours (`tiered`),
# verified (capacities too), beside the bound no plan goes below; then every plan run inside its tiers' arenas and
# checked bit for bit against a run with nothing shared (`--run --check --poison`).
# Writes results/tiers.md (deterministic: no strategy here is bounded by time).
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim
sim=build/sim
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
mkdir -p results
[ -f graphs/models/torch/gpt2-torch.onnx ] ||
    { echo "tiers.sh: the corpus is missing: run make models first" >&2; exit 1; }

while IFS=$'\t' read -r name file dims; do
    case "$name" in ''|'#'*) continue ;; esac
    args=(--graph "graphs/models/$file")
    if [ "$dims" != "-" ]; then
        IFS=, read -ra bind <<< "$dims"
        for d in "${bind[@]}"; do args+=(--dim "$d"); done
    fi
    "$sim" "${args[@]}" --order file --format json > "$work/$name-best.json" # the order the tiers plan in
    arena=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["arena_bytes"])' \
        "$work/$name-best.json")
    for pct in 25 50 75; do
        cap=$((arena * pct / 100))
        for s in banked-greedy tiered; do
            out="$work/$name-$pct-$s"
            if "$sim" "${args[@]}" --tiers "sram=$cap,dram" --strategy "$s" --format json > "$out.json" 2> "$out.err"
            then
                if "$sim" "${args[@]}" --tiers "sram=$cap,dram" --strategy "$s" --run --check --poison \
                    > "$out.run" 2>&1; then echo pass > "$out.check"
                elif grep -q "the executor has no kernel for" "$out.run"; then # not the plan's doing: no run at all
                    sed -n 's/.*the executor has no kernel for \([A-Za-z]*\).*/no kernel for \1/p' "$out.run" \
                        | head -n 1 > "$out.check"
                else echo fail > "$out.check"; fi
            fi
        done
    done
    echo "$name" >> "$work/models"
done < graphs/models/models.tsv

/usr/bin/python3 - "$work" > results/tiers.md <<'PY'
import json, statistics, sys
work = sys.argv[1]
models = open(f"{work}/models").read().split()


def row(name, pct, strategy):
    try:
        r = json.load(open(f"{work}/{name}-{pct}-{strategy}.json"))[0]
    except (OSError, ValueError):
        return None
    try:
        r["check"] = open(f"{work}/{name}-{pct}-{strategy}.check").read().strip()
    except OSError:
        r["check"] = "not run"
    return r


def cell(n):
    return f"{n:,}"


print("# Memory tiers: bytes moved through the slow tier\n")
print("Made by `bench/tiers.sh` (`make figures FIGURES=tiers`; deterministic: no strategy here is bounded by time).")
print("Every corpus model (graphs/models/models.tsv, its dims, file order, all sharing) with a fast tier of 25%,")
print("50% and 75% of its `best` arena and an unbounded slow one:")
print("`sim --graph MODEL --tiers sram=C,dram --strategy S`,")
print("default costs (a byte read or written costs 0 in `sram`, 1 in `dram`), so a plan's cost is the bytes its")
print("buffers are read and written in the slow tier (reads per consumer, one write per producer: docs/tiers.md).")
print("*banked*: ExecuTorch's banked_greedy rebuilt (`banked-greedy`); *ours*: `tiered`; *bound*: no plan moves fewer")
print("(the min-cost flow relaxation with branch and bound, docs/tiers.md); *ours / bound*: 1.000 = optimal.")
print("Every plan is verified (overlaps, alignments, each tier's capacity) and run inside its tiers' arenas with")
print("`--run --check --poison`; *runs* counts the plans of a row that ran bit for bit against a run with nothing")
print("shared (*not run*: the executor has no kernel for one of the model's ops, whatever the plan). A plan that")
print("finds no room (a buffer larger than every tier it may use) is *none*.\n")
summary = {}
for pct in (25, 50, 75):
    print(f"## Fast tier at {pct}% of the `best` arena\n")
    print("| model | fast tier (B) | banked (B) | ours (B) | bound (B) | ours / bound | banked / ours | runs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    fewer = same = more = optimal = 0
    ratios = []
    for name in models:
        b, o = row(name, pct, "banked-greedy"), row(name, pct, "tiered")
        if not o:
            print(f"| {name} | | none | none | | | | |")
            continue
        cap = o["tiers"][0]["capacity"]
        bound = round(o["tier_bound"])
        ours = o["slow_tier_bytes"]
        banked = b["slow_tier_bytes"] if b else None
        ratio = ours / bound if bound else 1.0
        ratios.append(ratio)
        runs = sum(1 for r in (b, o) if r and r["check"] == "pass")
        planned = sum(1 for r in (b, o) if r)
        unrun = {r["check"] for r in (b, o) if r and r["check"].startswith("no kernel")}
        if banked is None or ours < banked:
            fewer += 1
        elif ours == banked:
            same += 1
            optimal += ours == bound
        else:
            more += 1
        vs = f"{banked / ours:.3f}" if banked is not None and ours else ("none" if banked is None else "1.000")
        print(f"| {name} | {cell(cap)} | {cell(banked) if banked is not None else 'none'} | {cell(ours)} | "
              f"{cell(bound)} | {ratio:.3f} | {vs} | {f'not run: {unrun.pop()}' if unrun else f'{runs}/{planned}'} |")
    summary[pct] = (fewer, same, optimal, more, statistics.median(ratios) if ratios else 0)
    print()
print("## Summary\n")
print("*the same, both at the bound*: banked_greedy's plan already moves the fewest bytes any plan can.\n")
print("| fast tier | ours fewer than banked | the same | the same, both at the bound | more | median ours / bound |")
print("|---|---:|---:|---:|---:|---:|")
for pct, (fewer, same, optimal, more, median) in summary.items():
    print(f"| {pct}% | {fewer} | {same} | {optimal} | {more} | {median:.3f} |")
PY
echo "tiers.sh: wrote results/tiers.md" >&2
