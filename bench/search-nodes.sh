#!/usr/bin/env bash
# search-nodes.sh — the search's nodes per instance, kept so that a rise shows up: `search` on every instance of
# bench/search.sh but the large traces (the fixed perfect set, the staggered and packed sets of tests/data/, the
# further perfect instances and the hard family made by mkgraph) under the same work budget (WORK search nodes,
# default 5,000,000), each instance's arena, lower bound, nodes spent and whether the search proved its plan
# optimal. Work, not seconds: the same file on any machine, so a change of the search that needs more nodes to
# prove an instance changes a line of it. tests/test-search (/search/nodes-tracked) replans every proven
# instance of up to 200,000 nodes with its recorded nodes as the budget and fails when the proof no longer fits.
# Writes results/search-nodes.csv and results/search-nodes.md.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/sim build/mkgraph
WORK=${WORK:-5000000}
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT

# Every instance: its name, how it is made (a file of the repository, or mkgraph's arguments) and its file.
list=$work/list
: > "$list"
for f in tests/data/perfect/perfect-*.csv tests/data/staggered/staggered-*.csv tests/data/packed/packed-???.csv; do
    printf '%s\t%s\t%s\n' "$(basename "$f" .csv)" "$f" "$f" >> "$list"
done
make_trace() { # NAME ARGS...: an instance made by mkgraph
    local name=$1
    shift
    build/mkgraph trace "$@" -o "$work/$name.csv" > /dev/null
    printf '%s\t%s\t%s\n' "$name" "mkgraph trace $*" "$work/$name.csv" >> "$list"
}
for spec in 300:11:0 300:12:0 500:11:0 500:12:0 600:11:0 800:11:0 1000:11:0 150:5:10 150:5:30 300:5:10 300:5:30; do
    IFS=: read -r n seed drop <<< "$spec"
    make_trace "perfect-$n-seed$seed-drop$drop" --perfect 1 --buffers "$n" --seed "$seed" --drop "$drop"
done
for spec in 150:1:6 150:2:6 300:1:6 300:2:6 500:1:6 500:2:6 150:1:0 150:2:0 300:1:0 300:2:0 500:1:0 500:2:0; do
    IFS=: read -r n seed spanning <<< "$spec"
    make_trace "hard-$n-seed$seed-spanning$spanning" --staggered 3 --buffers "$n" --seed "$seed" --spanning "$spanning"
done

# Two at a time (each sim one thread); each row: name, how, arena, lower bound, nodes, proven.
PARALLEL_SHELL=bash parallel --will-cite --jobs 2 --keep-order --halt now,fail=1 --colsep '\t' \
    "set -o pipefail; build/sim --trace {3} --strategy search --budget-work $WORK --format csv | tail -1 |
     /usr/bin/python3 -c 'import csv, sys; r = next(csv.reader(sys.stdin)); print(\"\t\".join([sys.argv[1], sys.argv[2],
     r[6], r[7], r[-3], \"yes\" if r[15].startswith(\"optimal\") else \"no\"]))' {1} {2}" :::: "$list" > "$work/rows"

/usr/bin/python3 - "$work/rows" "$WORK" "$(git rev-parse --short HEAD)" <<'PY'
import csv, datetime, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
with open("results/search-nodes.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["instance", "made_by", "arena_bytes", "lower_bound_bytes", "nodes", "proven"])
    w.writerows(rows)
proven = [r for r in rows if r[5] == "yes"]
with open("results/search-nodes.md", "w") as f:
    f.write("# The search's nodes per instance (a rise shows up here)\n\n")
    f.write(f"Made by `bench/search-nodes.sh` on {datetime.date.today()} at commit {sys.argv[3]}: `sim --trace FILE "
            f"--strategy search --budget-work {int(sys.argv[2]):,}` on every instance of bench/search.sh but its "
            "large traces. Nodes are work, not time: the same on any machine. `proven`: the search showed its plan "
            "optimal within the budget (else it spent it). The numbers are in [search-nodes.csv](search-nodes.csv); "
            "tests/test-search replans each proven instance of up to 200,000 nodes with its recorded nodes as the "
            "budget, so a change that needs more nodes to prove one fails the tests.\n\n")
    f.write(f"{len(proven)} of {len(rows)} instances proven; {sum(int(r[4]) for r in proven):,} nodes for their "
            "proofs together.\n\n")
    f.write("| instance | made by | arena (B) | lower bound (B) | nodes | proven |\n|---|---|---:|---:|---:|---|\n")
    for r in rows:
        f.write(f"| {r[0]} | `{r[1]}` | {int(r[2]):,} | {int(r[3]):,} | {int(r[4]):,} | {r[5]} |\n")
PY
echo "wrote results/search-nodes.csv and results/search-nodes.md"
