#!/usr/bin/env bash
# search-span.sh — the exact search on traces whose lifetimes add up past 2^26 buffer-steps, where its index of
# the buffers live at each step goes by tree (strategies/search/search-live.c; before, it refused them): staggered
# traces of 60,000 buffers (`mkgraph trace --staggered 1|3 --buffers 60000 --seed 1`, hard like production
# accelerator traces) and a staircase of 12,000 (buffer k
# lives from step k to the end, 64 B aligned to 64). Each: its buffer-steps, `sim --strategy search
# --budget-work WORK` (default 100,000 nodes: the same outcome on any machine), the arena it ends with against
# the lower bound, what it says, and this machine's seconds and peak resident set. Writes results/search-span.md.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim build/mkgraph
WORK=${WORK:-100000}
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
for s in 1 3; do
    build/mkgraph trace --staggered "$s" --buffers 60000 --seed 1 -o "$work/staggered-$s.trace" > /dev/null
done
/usr/bin/python3 - "$work/staircase.trace" <<'PY'
import sys
n = 12000
with open(sys.argv[1], "w") as f:
    f.write(f"arenasim-trace 1\nsteps {n + 1}\n")
    for k in range(n):
        f.write(f"{k} b{k} 64 {k} {n} align=64\n")
PY
rows=$work/rows
: > "$rows"
machine=$(bench/machine.sh start)
for name in staggered-1 staggered-3 staircase; do
    f=$work/$name.trace
    /usr/bin/time -f '%e %M' -o "$work/time" build/sim --trace "$f" --strategy search --budget-work "$WORK" \
        --format csv | tail -1 > "$work/row"
    printf '%s\t%s\t%s\t%s\n' "$name" "$f" "$(cat "$work/time")" "$(cat "$work/row")" >> "$rows"
done
end=$(bench/machine.sh end)
/usr/bin/python3 - "$rows" "$WORK" "$machine" "$end" > results/search-span.md <<'PY'
import csv, sys
rows, work, machine, end = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
print("# The exact search past 2^26 buffer-steps\n")
print("Made by `bench/search-span.sh`. " + machine + " " + end + "\n")
print("Traces whose buffers' lifetimes add up to more than 2^26 (67,108,864) buffer-steps, where `search` and "
      "`minimalloc` used to keep the heuristics' plan unsearched (\"not searched: the lifetimes add up to N "
      "buffer-steps\"): their index of the buffers live at each step now goes by a tree over the steps past that "
      "size. `mkgraph trace --staggered S --buffers 60000 --seed 1` (1: hard like production accelerator traces; "
      "3: harder, each section its own sizes), and a staircase of 12,000 "
      f"buffers (buffer k from step k to the end, 64 B aligned to 64). `sim --trace FILE --strategy search "
      f"--budget-work {work:,}`: the nodes are the same on any machine; the seconds and the peak resident set are "
      "this machine's.\n")
print("| trace | buffers | buffer-steps | lower bound (B) | arena (B) | nodes | search says | seconds "
      "| peak RSS (MiB) |")
print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
for line in open(rows):
    name, path, timing, row = line.rstrip("\n").split("\t", 3)
    seconds, rss = timing.split()
    spans = 0
    for text in open(path):
        p = text.split()
        if p and p[0].isdigit():
            spans += int(p[4]) - int(p[3]) + 1
    r = next(csv.reader([row]))
    print(f"| {name} | {int(r[4]):,} | {spans:,} | {int(r[7]):,} | {int(r[6]):,} | {int(r[-3]):,} | {r[15]} | "
          f"{float(seconds):.1f} | {int(rss) / 1024:.0f} |")
PY
echo "wrote results/search-span.md"
