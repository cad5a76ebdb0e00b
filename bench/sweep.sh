#!/usr/bin/env bash
# sweep.sh — a parameter sweep: the cartesian product of graphs × swept --dim values × orders × alias
# sets × strategies, written as a job list (one `sim` run a line) and executed by GNU parallel. Every
# finished run appends its CSV row (sim --format csv) to one file; a rerun skips the rows already there,
# so an interrupted sweep resumes and a failed job is retried. A progress bar (jobs done / total, ETA) on
# stderr when it is a terminal. The same job list runs across machines with parallel's --sshlogin (after
# `--`; every host needs the repository, built, at the path given with --workdir).
#
#   bench/sweep.sh --out results/sweep-gpt2-seq.csv --graph graphs/models/torch/gpt2-torch.onnx:batch=1 \
#       --dim seq=16,32,64,128,256,512,1024 --strategies firstfit,bestfit,greedy-size,best
#   bench/sweep.sh --out results/corpus.csv --corpus --alias all --alias none
#   bench/sweep.sh --out x.csv --graph graphs/gpt2.onnx -- --sshlogin 2/hostA,2/: --workdir /srv/arenasim
#
# Paths must not hold whitespace (a job line is split on it). Columns: docs/report-format.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    cat >&2 <<'EOF'
Options:
  --out FILE.csv         where rows go (created with its header when missing)          (required)
  --graph FILE[:DIMS]    a model, with dims to bind (DIMS: a=1,b=2); repeatable
  --corpus               every model of graphs/models/models.tsv present here, with its dims
  --dim NAME=V1,V2,...   sweep a symbolic dimension over values; repeatable (cartesian product)
  --orders LIST          comma list of orders (default file)
  --alias SET            an alias set, e.g. all, none, noop,inplace; repeatable (default all)
  --strategies LIST      comma list of placement strategies (default every one but naive)
  --sim-args "ARGS"      more sim flags for every run, e.g. "--budget 2"
  --jobs N               runs at once (default: one per core)
  --dry-run              print the job list (what is left to run) and stop
  -- ARGS                the rest goes to GNU parallel (e.g. --sshlogin, --workdir)
EOF
    exit 2
}
die() { echo "sweep.sh: $*" >&2; exit 2; }

out="" corpus=0 orders=file strategies="" sim_args="" jobs="" dry_run=0
graphs=() dims=() aliases=() parallel_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --out) out=${2:?}; shift 2 ;;
        --graph) graphs+=("${2:?}"); shift 2 ;;
        --corpus) corpus=1; shift ;;
        --dim) dims+=("${2:?}"); shift 2 ;;
        --orders) orders=${2:?}; shift 2 ;;
        --alias) aliases+=("${2:?}"); shift 2 ;;
        --strategies) strategies=${2:?}; shift 2 ;;
        --sim-args) sim_args=${2:?}; shift 2 ;;
        --jobs) jobs=${2:?}; shift 2 ;;
        --dry-run) dry_run=1; shift ;;
        --) shift; parallel_args=("$@"); break ;;
        -h|--help) usage ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
[ -n "$out" ] || die "--out FILE.csv is required (see --help)"
command -v parallel > /dev/null || die "GNU parallel is not installed (make deps installs it)"
# SIM_BIN: a sim built elsewhere (the tests pass the sanitizer build); otherwise build/sim, made here.
sim=${SIM_BIN:-build/sim}
[ -n "${SIM_BIN:-}" ] || make -s build/sim

if [ "$corpus" = 1 ]; then
    while IFS=$'\t' read -r name file dimset; do
        case $name in ''|'#'*) continue ;; esac
        path=graphs/models/$file
        [ -f "$path" ] || { echo "sweep.sh: $path is missing (make models); skipped" >&2; continue; }
        graphs+=("$(realpath --relative-to=. "$path")${dimset:+:$dimset}")
    done < graphs/models/models.tsv
    for k in "${!graphs[@]}"; do graphs[$k]=${graphs[$k]%:-}; done
fi
[ ${#graphs[@]} -gt 0 ] || die "no graphs: give --graph or --corpus"
[ ${#aliases[@]} -gt 0 ] || aliases=(all)
if [ -z "$strategies" ]; then
    strategies=$("$sim" --list | awk '/^placement/{on=1; next} /^[a-z]/{on=0} on && $1 != "naive" {printf "%s%s", s, $1; s=","}')
fi

# The swept dims, expanded into every combination: "seq=16" "seq=32" ... (or one empty combination).
combos=("")
for spec in "${dims[@]}"; do
    name=${spec%%=*} values=${spec#*=}
    [ "$name" != "$spec" ] && [ -n "$values" ] || die "--dim '$spec' is not NAME=V1,V2,..."
    next=()
    for c in "${combos[@]}"; do
        IFS=, read -r -a vs <<< "$values"
        for v in "${vs[@]}"; do next+=("${c:+$c,}$name=$v"); done
    done
    combos=("${next[@]}")
done

# Rows already in the file, by what they measured: graph, dims, order, alias, strategy.
declare -A finished=()
if [ -s "$out" ]; then
    while IFS= read -r key; do finished["$key"]=1; done < <(/usr/bin/python3 - "$out" <<'PY'
import csv, sys
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        print("\t".join(row[c] for c in ("graph", "dims", "order", "alias", "strategy")))
PY
)
fi

joblist=$(mktemp)
trap 'rm -f "$joblist"' EXIT
total=0 skipped=0
IFS=, read -r -a order_list <<< "$orders"
IFS=, read -r -a strategy_list <<< "$strategies"
for g in "${graphs[@]}"; do
    file=${g%%:*} fixed=""
    [ "$file" != "$g" ] && fixed=${g#*:}
    case $file in *[[:space:]]*) die "'$file': paths with whitespace are not supported" ;; esac
    [ -f "$file" ] || die "'$file' does not exist"
    for c in "${combos[@]}"; do
        dimset=$fixed
        [ -n "$c" ] && dimset=${dimset:+$dimset,}$c
        dim_args=""
        IFS=, read -r -a ds <<< "$dimset"
        for d in "${ds[@]}"; do dim_args+=" --dim $d"; done
        for o in "${order_list[@]}"; do
            for a in "${aliases[@]}"; do
                for s in "${strategy_list[@]}"; do
                    total=$((total + 1))
                    if [ -n "${finished["$file"$'\t'"${dimset:--}"$'\t'"$o"$'\t'"$a"$'\t'"$s"]:-}" ]; then
                        skipped=$((skipped + 1))
                        continue
                    fi
                    echo "--graph $file$dim_args --order $o --alias $a --strategy $s $sim_args" >> "$joblist"
                done
            done
        done
    done
done
left=$((total - skipped))
echo "sweep.sh: $total runs, $skipped already in $out, $left to run" >&2
if [ "$dry_run" = 1 ]; then
    cat "$joblist"
    exit 0
fi
[ "$left" -gt 0 ] || exit 0

mkdir -p "$(dirname "$out")"
[ -s "$out" ] || "$sim" --graph graphs/noop-chain.onnx --format csv | head -1 > "$out"
errors=$out.errors
: > "$errors"
bar=()
[ -t 2 ] && bar=(--bar)
# Each run prints its header and one row; the header goes. pipefail keeps sim's exit status, so a failed
# run is counted (and, having printed nothing, retried next time). --keep-order: rows follow the job list.
status=0
PARALLEL_SHELL=bash parallel --will-cite --keep-order --halt never ${jobs:+--jobs "$jobs"} "${bar[@]}" "${parallel_args[@]}" \
    "set -o pipefail; $sim --format csv {=uq()=} 2>> $errors | tail -n +2" :::: "$joblist" >> "$out" || status=$?
if [ "$status" != 0 ]; then
    echo "sweep.sh: $status of $left runs failed; their rows are missing (a rerun retries them). Messages:" >&2
    sed 's/^/  /' "$errors" >&2
    exit 1
fi
rm -f "$errors"
echo "sweep.sh: $left rows appended to $out" >&2
