#!/usr/bin/env bash
# sweep.sh — a parameter sweep: the cartesian product of graphs × swept --dim values × orders × alias
# sets × strategies, written as a job list (one `sim` run a line) and executed by GNU parallel. Every
# finished run appends its CSV row (sim --format csv) to one file; a rerun skips the rows already there,
# so an interrupted sweep resumes and a failed job is retried. A progress bar (jobs done / total, ETA) on
# stderr when it is a terminal. The same job list runs across machines with parallel's --sshlogin (after
# `--`; every host needs the repository, built, at the path given with --workdir).
#
# Hostile names are normal: every argument of a job is shell-quoted (printf %q), so a graph named
# 'm$(touch X).onnx' or a --dim value holding a command is passed to sim as text, never run. One sweep
# at a time writes a file (a lock on it; a second one stops with a message). A row cut off mid-line by a
# stopped sweep is dropped when the sweep resumes, so it is run again instead of glued to the next row.
# --dry-run builds nothing and writes nothing.
#
#   bench/sweep.sh --out results/sweep-gpt2-seq.csv --graph graphs/models/torch/gpt2-torch.onnx:batch=1 \
#       --dim seq=16,32,64,128,256,512,1024 --strategies firstfit,bestfit,greedy-size,best
#   bench/sweep.sh --out results/corpus.csv --corpus --alias all --alias none
#   bench/sweep.sh --out x.csv --graph graphs/gpt2.onnx -- --sshlogin 2/hostA,2/: --workdir /srv/arenasim
#
# A graph path must not hold ':' (it separates the path from its dims). Columns: docs/report-format.md, and
# after `dims` one column per dimension bound anywhere in the file (`dim_seq`: the row's value of seq, empty
# where the row does not bind it), remade after every sweep from the `dims` column.
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd -P)
caller=$PWD # relative --out and --graph paths are the caller's; the sweep itself runs from the repository
cd "$root"

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    cat <<'EOF'
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

When stderr is not a terminal (nohup, CI, a batch log), a progress line every SWEEP_PROGRESS_SECONDS
(default 10). Ctrl-C stops the sweep: the rows finished are kept, and the same command resumes it.
EOF
    exit 0
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
case $out in /*) ;; *) out=$caller/$out ;; esac
# A graph named relative to the caller, written relative to the repository when it lies inside it (so the
# rows of committed tables read graphs/... wherever the sweep was started).
for k in "${!graphs[@]}"; do
    g=${graphs[$k]} file=${graphs[$k]%%:*}
    rest=${g#"$file"} # ":DIMS" or nothing
    case $file in /*) ;; *) file=$(realpath -m --relative-to="$root" -- "$caller/$file") ;; esac
    graphs[$k]=$file$rest
done
command -v parallel > /dev/null || die "GNU parallel is not installed (make deps installs it)"
# SIM_BIN: a sim built elsewhere (the tests pass the sanitizer build); otherwise build/sim, made here
# (not for --dry-run, which builds nothing: it needs --strategies, or a sim already built, for the list).
sim=${SIM_BIN:-build/sim}
if [ -z "${SIM_BIN:-}" ] && [ "$dry_run" = 0 ]; then
    make -s build/sim
elif [ -z "$strategies" ] && [ ! -x "$sim" ]; then
    die "--dry-run builds nothing: give --strategies, or build $sim first (make)"
fi

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
# Every name against sim's own lists before anything runs: a typo is one message, not a sweep of failures.
if [ -x "$sim" ]; then
    listed() { "$sim" --list | awk -v section="$1" '$0 ~ "^"section {on=1; next} /^[a-z]/{on=0} on {print $1}'; }
    check_names() { # KIND, the names given (comma list), the names sim knows (one a line)
        local kind=$1 given=$2 known=$3 name
        IFS=, read -r -a names <<< "$given"
        for name in "${names[@]}"; do
            grep -qxF -- "$name" <<< "$known" || die "unknown $kind '$name' (one of: $(paste -sd, <<< "$known" | sed 's/,/, /g'))"
        done
    }
    check_names strategy "$strategies" "$(listed placement)"
    check_names order "$orders" "$(listed 'operator orders')"
    for a in "${aliases[@]}"; do
        [ "$a" = all ] || [ "$a" = none ] || check_names "alias strategy" "$a" "$(listed 'alias strategies')"
    done
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

# One sweep at a time per file: the lock lives as long as this shell (fd 9), on OUT.lock beside the table
# (the table itself is replaced by a rename when its columns change, and a lock on a replaced file would
# guard nothing). A dry run only reads.
made_lock=0 made_out=0 # what this run creates, and only that, it may remove at the end
if [ "$dry_run" = 0 ]; then
    mkdir -p "$(dirname "$out")"
    [ -e "$out.lock" ] || made_lock=1
    exec 9>> "$out.lock"
    flock -n 9 || { made_lock=0; die "another sweep is writing $out (it holds $out.lock); wait for it, or use another --out"; }
fi

# The per-dimension columns: `strip` takes them out (new rows come from sim without them), `add` puts them
# back after `dims` for every name any row binds. The new table is written beside the old one and renamed
# over it (under the lock), so a sweep stopped at any moment leaves the old table or the new one, whole.
dim_columns() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import csv, io, os, sys, tempfile
mode, path = sys.argv[1], os.path.realpath(sys.argv[2])
with open(path, "r", newline="", encoding="utf-8", errors="surrogateescape") as f:
    rows = list(csv.reader(f))
if not rows or "dims" not in rows[0]:
    sys.exit(0)
header, body = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
keep = [k for k, c in enumerate(header) if not c.startswith("dim_")]
if mode == "strip" and len(keep) == len(header):
    sys.exit(0)  # nothing to take out: the file stays as it is
header, body = [header[k] for k in keep], [[r[k] for k in keep] for r in body]
if mode == "add":
    at = header.index("dims") + 1
    bound = [dict(kv.split("=", 1) for kv in r[at - 1].split(",") if "=" in kv) for r in body]
    names = list(dict.fromkeys(n for b in bound for n in b))
    header = header[:at] + ["dim_" + n for n in names] + header[at:]
    body = [r[:at] + [b.get(n, "") for n in names] + r[at:] for r, b in zip(body, bound)]
out = io.StringIO(newline="")
csv.writer(out, lineterminator="\n").writerows([header] + body)
fd, tmp = tempfile.mkstemp(prefix=".sweep-", dir=os.path.dirname(path))
try:
    with os.fdopen(fd, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
        f.write(out.getvalue())
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, os.stat(path).st_mode & 0o777)
    os.replace(tmp, path)
except BaseException:
    os.unlink(tmp)
    raise
PY
}

# Rows already in the file, by what they measured: graph, dims, order, alias, strategy. A last row cut off
# mid-line (a sweep stopped while writing) is dropped from the file first, so it is run again.
declare -A finished=()
if [ -s "$out" ]; then
    while IFS= read -r -d '' key; do finished["$key"]=1; done < <(/usr/bin/python3 - "$out" "$dry_run" <<'PY'
import csv, io, os, sys
path, dry_run = sys.argv[1], sys.argv[2] == "1"
with open(path, "rb") as f:
    data = f.read()
if data and not data.endswith(b"\n"):
    cut = data.rfind(b"\n") + 1
    data = data[:cut]
    if not dry_run:
        os.truncate(path, cut)
        print(f"sweep.sh: dropped a row cut off mid-line at the end of {path}; it is run again", file=sys.stderr)
keys = ("graph", "dims", "order", "alias", "strategy")
for row in csv.DictReader(io.StringIO(data.decode("utf-8", "surrogateescape"), newline="")):
    if None in row or any(row.get(k) is None for k in keys):
        continue  # a malformed row measures nothing: its run is done again
    sys.stdout.write("\t".join(row[k] for k in keys) + "\0")
PY
)
fi

# From here until the end the file has sim's columns only, so rows can be appended as sim prints them.
[ "$dry_run" = 1 ] || [ ! -s "$out" ] || dim_columns strip "$out"
joblist=$(mktemp)
progress_pid=""
# At exit: the job list goes; so do a table this run made that holds no row yet (a sweep stopped before its
# first row leaves no empty CSV behind) and a lock file this run made.
cleanup() {
    rm -f "$joblist"
    [ -z "$progress_pid" ] || kill "$progress_pid" 2> /dev/null || true
    if [ "$made_out" = 1 ] && [ -f "$out" ] && [ "$(wc -l < "$out")" -le 1 ]; then
        rm -f "$out"
    fi
    [ "$made_lock" = 0 ] || rm -f "$out.lock"
}
trap cleanup EXIT
total=0 skipped=0
read -r -a extra_args <<< "$sim_args" # split on blanks only: no globbing, no expansion
IFS=, read -r -a order_list <<< "$orders"
IFS=, read -r -a strategy_list <<< "$strategies"
for g in "${graphs[@]}"; do
    file=${g%%:*} fixed=""
    [ "$file" != "$g" ] && fixed=${g#*:}
    [ -f "$file" ] || die "'$file' does not exist"
    for c in "${combos[@]}"; do
        dimset=$fixed
        [ -n "$c" ] && dimset=${dimset:+$dimset,}$c
        dim_args=()
        IFS=, read -r -a ds <<< "$dimset"
        for d in "${ds[@]}"; do dim_args+=(--dim "$d"); done
        for o in "${order_list[@]}"; do
            for a in "${aliases[@]}"; do
                for s in "${strategy_list[@]}"; do
                    total=$((total + 1))
                    if [ -n "${finished["$file"$'\t'"${dimset:--}"$'\t'"$o"$'\t'"$a"$'\t'"$s"]:-}" ]; then
                        skipped=$((skipped + 1))
                        continue
                    fi
                    # One job a line, every argument quoted for the shell parallel hands it to.
                    job=(--graph "$file" "${dim_args[@]}" --order "$o" --alias "$a" --strategy "$s" "${extra_args[@]}")
                    printf '%q ' "${job[@]}" >> "$joblist"
                    echo >> "$joblist"
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
if [ "$left" = 0 ]; then
    [ ! -s "$out" ] || dim_columns add "$out"
    exit 0
fi

if [ ! -s "$out" ]; then
    [ -e "$out" ] || made_out=1
    "$sim" --graph graphs/noop-chain.onnx --format csv | head -1 >> "$out"
fi
rows_before=$(wc -l < "$out")
errors=$out.errors
: > "$errors"
bar=()
if [ -t 2 ]; then
    bar=(--bar)
else # no terminal to draw a bar on (nohup, CI, a batch log): a line every few seconds instead
    every=${SWEEP_PROGRESS_SECONDS:-10}
    (
        while :; do
            echo "sweep.sh: $(($(wc -l < "$out") - rows_before)) of $left runs done" >&2
            sleep "$every"
        done
    ) &
    progress_pid=$!
fi
# Ctrl-C reaches parallel and its jobs too (one process group); once parallel has stopped, the rows that
# finished are kept and the sweep says how to go on.
interrupted=0
trap 'interrupted=1' INT TERM
# Each run prints its header and one row; the header goes. pipefail keeps sim's exit status, so a failed
# run is counted (and, having printed nothing, retried next time). --keep-order: rows follow the job list.
status=0
command="set -o pipefail; $(printf '%q' "$sim") --format csv {=uq()=} 2>> $(printf '%q' "$errors") | tail -n +2"
PARALLEL_SHELL=bash parallel --will-cite --keep-order --halt never ${jobs:+--jobs "$jobs"} "${bar[@]}" "${parallel_args[@]}" \
    "$command" :::: "$joblist" >> "$out" || status=$?
[ -z "$progress_pid" ] || { kill "$progress_pid" 2> /dev/null || true; wait "$progress_pid" 2> /dev/null || true; progress_pid=""; }
done_rows=$(($(wc -l < "$out") - rows_before))
dim_columns add "$out"
if [ "$interrupted" = 1 ]; then
    if [ "$done_rows" = 0 ]; then
        echo "sweep.sh: interrupted before any of the $left runs finished; run the same command again to run them" >&2
    else
        echo "sweep.sh: interrupted: $done_rows of $left runs finished, their rows kept in $out; run the same" \
            "command again to run the other $((left - done_rows))" >&2
    fi
    rm -f "$errors"
    exit 130
fi
if [ "$status" != 0 ]; then
    echo "sweep.sh: $((left - done_rows)) of $left runs failed; their rows are missing (a rerun retries them). Messages:" >&2
    sed 's/^/  /' "$errors" >&2
    exit 1
fi
rm -f "$errors"
echo "sweep.sh: $left rows appended to $out" >&2
