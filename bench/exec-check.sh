#!/usr/bin/env bash
# exec-check.sh — every corpus model the executor covers, run inside its plan under every placement
# strategy (all sharing and none) and under each alias strategy alone (greedy-size), with --check
# --poison --transpose move: does every plan compute exactly what the nothing-shared run computes?
# Every strategy's plans of one model and sharing set run in one process (`sim --compare --run --check`: one
# reference run checks them all). Runs the jobs with GNU parallel; writes results/exec-check.md (a table of passes per model) and exits 1
# when any run fails, listing it. The time-bounded strategies (climb, search, minimalloc, best) get a work budget
# of 100,000 (--budget-work): the question is whether their plans compute right, not how small they get (the
# corpus tables answer that), and on a work budget the plans checked are the same on any machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make -s build/sim
[ -f graphs/models/models.tsv ] && [ -f graphs/models/torch/resnet50.onnx ] || { echo "exec-check.sh: run make models first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strategies=$(build/sim --list | awk '/^placement/{on=1; next} /^[a-z]/{on=0} on {print $1}')
aliases=$(build/sim --list | awk '/^alias/{on=1; next} /^[a-z]/{on=0} on {print $1}')
jobs="$work/jobs"
: > "$jobs"
models=()
while IFS=$'\t' read -r name file dims; do
    case $name in ''|'#'*) continue ;; esac
    [ -f "graphs/models/$file" ] || continue
    dim_args=""
    if [ "$dims" != "-" ]; then
        IFS=, read -r -a ds <<< "$dims"
        for d in "${ds[@]}"; do dim_args+=" --dim $d"; done
    fi
    # a model the executor cannot run (an op without a kernel) is listed as such, once
    if ! build/sim --graph "graphs/models/$file" $dim_args --run --transpose move > /dev/null 2> "$work/err"; then
        echo "$name	-	-	not run: $(sed 's/^sim: [^:]*: //' "$work/err" | head -1)" >> "$work/results"
        continue
    fi
    models+=("$name")
    {
        # every strategy in one process (--compare --run: one reference run checks all their plans)
        for a in all none; do echo "$name	every	$a	--graph graphs/models/$file$dim_args --compare --alias $a"; done
        for a in $aliases; do
            echo "$name	greedy-size	$a	--graph graphs/models/$file$dim_args --strategy greedy-size --alias $a"
        done
    } >> "$jobs"
done < graphs/models/models.tsv
bar=()
[ -t 2 ] && bar=(--bar)
# One line per plan run: model, strategy, alias, pass/fail and sim's message when it failed. A job of every
# strategy (--compare) gives one line per strategy from its run table (CSV: strategy,runs,median_seconds,
# arena_bytes,check); when sim stops before that table, one FAIL line for the job.
export ROWS_PY='
import csv, io, sys
model, strategy, alias, status, out = sys.argv[1:6]
def row(s, result):
    print("\t".join((model, s, alias, result)))
blocks = [b for b in out.split("\n\n") if b.strip()]
table = [b for b in blocks if b.startswith("strategy,runs,median_seconds,arena_bytes,check")]
if table:
    for r in csv.DictReader(io.StringIO(table[-1])):
        row(r["strategy"], "pass" if r["check"].startswith("bit for bit") else "FAIL: " + " ".join(r["check"].split()))
elif status == "0":
    row(strategy, "pass")
else:
    why = [l for l in out.splitlines() if l.startswith("sim:")][:1]
    row(strategy, "FAIL: " + (why[0] if why else "exit status " + status))
'
PARALLEL_SHELL=bash parallel --will-cite --keep-order --colsep '\t' "${bar[@]}" \
    'out=$(OPENBLAS_NUM_THREADS=1 build/sim {=4 uq() =} --transpose move --run --check --poison --budget-work 100000 --format csv 2>&1); status=$?
     /usr/bin/python3 -c "$ROWS_PY" {1} {2} {3} "$status" "$out"' \
    :::: "$jobs" >> "$work/results"
total=$(awk -F'\t' '$2 != "-"' "$work/results" | grep -c . || true)
passed=$(grep -c '	pass$' "$work/results" || true)
{
    echo "# Every plan run: strategies × sharing on the corpus"
    echo
    echo "Made by \`bench/exec-check.sh\`. Each corpus model the executor covers, planned under every placement"
    echo "strategy with all sharing and with none, and under each alias strategy alone (greedy-size), then run with"
    echo "\`--run --check --poison --transpose move\` (climb, search, minimalloc and best with \`--budget-work 100000\`): the outputs must"
    echo "equal, bit for bit, the run with nothing shared."
    echo "$passed of $total runs pass."
    echo
    echo "| model | runs | pass | failing (strategy / alias) or why not run |"
    echo "|---|---:|---:|---|"
    cut -f1 "$work/results" | awk '!seen[$0]++' | while read -r m; do
        runs=$(awk -F'\t' -v m="$m" '$1 == m && $2 != "-"' "$work/results" | grep -c . || true)
        ok=$(awk -F'\t' -v m="$m" '$1 == m && $4 == "pass"' "$work/results" | grep -c . || true)
        notes=$(awk -F'\t' -v m="$m" '$1 == m && $4 != "pass" {print ($2 == "-" ? $4 : $2 " / " $3)}' "$work/results" | paste -sd';' | sed 's/;/; /g')
        echo "| $m | $runs | $ok | ${notes} |"
    done
} > results/exec-check.md
echo "exec-check.sh: $passed of $total runs pass; results/exec-check.md" >&2
if grep -q 'FAIL' "$work/results"; then
    grep 'FAIL' "$work/results" >&2
    exit 1
fi
