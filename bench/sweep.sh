#!/usr/bin/env bash
# sweep.sh — a parameter sweep: the cartesian product of graphs × swept --dim values × orders × alias
# sets × strategies, written as a job list (one `sim` run a line) and run by GNU parallel on one of three
# back ends: this machine; other hosts over ssh (parallel's --sshlogin, after `--`); or a Slurm job array
# (--slurm: chunks of the list per array task, parallel inside each allocation). Each run's output and
# messages are kept on this side (parallel's --results and --joblog), so a remote host needs no access to
# the caller's files; the finished runs' rows are appended to one CSV, in job-list order, whichever back end
# ran them. A rerun skips the rows already there, so an interrupted sweep resumes and a failed run is
# retried. Progress on stderr: a bar on a terminal, a line every few seconds otherwise.
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
#   bench/sweep.sh --out x.csv --graph ~/m.onnx -- --sshlogin 2/hostA,2/hostB --workdir /srv/arenasim
#   bench/sweep.sh --out x.csv --corpus --slurm --sbatch "--partition=cpu --time=1:00:00"
#
# A graph path must not hold ':' (it separates the path from its dims). Columns: docs/report-format.md, and
# after `dims` one column per dimension bound anywhere in the file (`dim_seq`: the row's value of seq, empty
# where the row does not bind it), remade after every sweep from the `dims` column. docs/sweeps.md has the
# back ends and what each host needs.
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
  --slurm                run the job list as a Slurm job array (sbatch), and wait for it
  --sbatch "ARGS"        more sbatch options with --slurm, e.g. "--partition=cpu --time=30"
  --runs-per-task N      runs per array task with --slurm (default 16)
  -- ARGS                the rest goes to GNU parallel: --sshlogin HOSTS (and --workdir, the repository's
                         folder there, built) runs on other hosts over ssh

Over ssh, each host needs the repository built at --workdir (build/sim; SWEEP_REMOTE_SIM names another),
GNU parallel's perl and rsync; graphs outside the repository are sent for the sweep and removed after.
With --slurm, the repository and the output's folder must be seen by every node (a shared home or project
folder), and the nodes need GNU parallel; with --jobs, each task runs that many at once (default: the CPUs
Slurm gives it).

When stderr is not a terminal (nohup, CI, a batch log), a progress line every SWEEP_PROGRESS_SECONDS
(default 10). Ctrl-C stops the sweep (with --slurm, it cancels the array): the rows finished are kept,
and the same command resumes it.
EOF
    exit 0
}
die() { echo "sweep.sh: $*" >&2; exit 2; }

out="" corpus=0 orders=file strategies="" sim_args="" jobs="" dry_run=0 slurm=0 runs_per_task=16
graphs=() dims=() aliases=() parallel_args=() sbatch_args=()
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
        --slurm) slurm=1; shift ;;
        --sbatch) read -r -a more <<< "${2:?}"; sbatch_args+=("${more[@]}"); shift 2 ;;
        --runs-per-task) runs_per_task=${2:?}; shift 2 ;;
        --) shift; parallel_args=("$@"); break ;;
        -h|--help) usage ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
[ -n "$out" ] || die "--out FILE.csv is required (see --help)"
# The back end: this machine, other hosts over ssh (an --sshlogin given to parallel), or a Slurm job array.
mode=local
for a in "${parallel_args[@]}"; do
    case $a in -S|--sshlogin|--sshlogin=*|-S?*|--slf|--sshloginfile|--slf=*|--sshloginfile=*) mode=ssh ;; esac
done
if [ "$slurm" = 1 ]; then
    [ "$mode" = local ] || die "--slurm runs on the cluster's nodes: give it no --sshlogin"
    mode=slurm
    case $runs_per_task in ''|*[!0-9]*|0*) die "--runs-per-task '$runs_per_task' is not a positive number" ;; esac
    if [ "$dry_run" = 0 ]; then
        for c in sbatch squeue scancel; do
            command -v "$c" > /dev/null || die "--slurm needs Slurm's $c on this machine (Debian's slurm-client)"
        done
    fi
fi
[ ${#sbatch_args[@]} = 0 ] || [ "$slurm" = 1 ] || die "--sbatch goes with --slurm"
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

# From here until the end the file has sim's columns only, so the runs' rows can be appended as they are.
[ "$dry_run" = 1 ] || [ ! -s "$out" ] || dim_columns strip "$out"
# This run's own folder of parts: the job list, each run's output and messages (parallel's --results) and
# the job logs. On Slurm it lies beside the table (the nodes must see it); otherwise in the temporary folder.
if [ "$mode" = slurm ] && [ "$dry_run" = 0 ]; then
    parts=$(mktemp -d "$(dirname "$out")/.sweep-parts.XXXXXX")
else
    parts=$(mktemp -d)
fi
joblist=$parts/jobs
progress_pid="" slurm_job="" staged_id=""
# At exit: the parts folder goes; so do a table this run made that holds no row yet (a sweep stopped before
# its first row leaves no empty CSV behind), a lock file this run made, and the inputs it put on the hosts.
cleanup() {
    [ -z "$progress_pid" ] || kill "$progress_pid" 2> /dev/null || true
    [ -z "$slurm_job" ] || scancel "$slurm_job" 2> /dev/null || true
    if [ -n "$staged_id" ]; then
        PARALLEL_SHELL=bash parallel --will-cite --nonall "${parallel_args[@]}" rm -rf -- ".arenasim-inputs-$staged_id" \
            > /dev/null 2>&1 || true
    fi
    rm -rf -- "$parts"
    if [ "$made_out" = 1 ] && [ -f "$out" ] && [ "$(wc -l < "$out")" -le 1 ]; then
        rm -f -- "$out"
    fi
    [ "$made_lock" = 0 ] || rm -f -- "$out.lock"
}
trap cleanup EXIT

# Over ssh, a graph outside the repository is not on the other host: it is sent to each host's --workdir
# (parallel's --basefile, a folder of this run's own, removed at the end) and the job names it there; its
# rows are given back the name the user gave.
declare -A run_path=()
transfer=()
renames=$parts/renames
: > "$renames"
if [ "$mode" = ssh ]; then
    staged_id=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
    k=0
    for g in "${graphs[@]}"; do
        file=${g%%:*}
        case $file in /*|../*) ;; *) continue ;; esac
        [ -n "${run_path["$file"]:-}" ] && continue
        [ -f "$file" ] || die "'$file' does not exist"
        k=$((k + 1))
        rel=.arenasim-inputs-$staged_id/$k/$(basename -- "$file")
        run_path["$file"]=$rel
        printf '%s\0%s\0' "$rel" "$file" >> "$renames"
        if [ "$dry_run" = 0 ]; then
            mkdir -p "$parts/stage/${rel%/*}"
            ln -- "$file" "$parts/stage/$rel" 2> /dev/null || cp -- "$file" "$parts/stage/$rel"
            transfer+=(--basefile "$parts/stage/./$rel")
        fi
    done
    [ ${#transfer[@]} = 0 ] && staged_id="" || transfer+=(--cleanup)
    [ "$dry_run" = 1 ] && staged_id=""
fi

# The job list: one run a line, its number, a tab, then sim's arguments, each quoted for the shell parallel
# hands it to.
total=0 skipped=0
read -r -a extra_args <<< "$sim_args" # split on blanks only: no globbing, no expansion
IFS=, read -r -a order_list <<< "$orders"
IFS=, read -r -a strategy_list <<< "$strategies"
for g in "${graphs[@]}"; do
    file=${g%%:*} fixed=""
    [ "$file" != "$g" ] && fixed=${g#*:}
    [ -f "$file" ] || die "'$file' does not exist"
    runs=${run_path["$file"]:-$file}
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
                    job=(--graph "$runs" "${dim_args[@]}" --order "$o" --alias "$a" --strategy "$s" "${extra_args[@]}")
                    printf '%d\t' "$((total - skipped))" >> "$joblist"
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
    cut -f2- "$joblist"
    exit 0
fi
if [ "$left" = 0 ]; then
    [ ! -s "$out" ] || dim_columns add "$out"
    exit 0
fi

# Over ssh, every host is asked first for the sim it will run: a host without one is named before anything
# runs, and a host whose sim is another version is said (its rows would not be this machine's).
remote_sim=${SWEEP_REMOTE_SIM:-build/sim}
if [ "$mode" = ssh ]; then
    q=$(printf '%q' "$remote_sim")
    answers=$(PARALLEL_SHELL=bash parallel --will-cite --nonall --tag "${parallel_args[@]}" \
        "if [ -x $q ]; then $q --version; else echo \"no sim at \$PWD/\"$q; fi" 2>&1) ||
        die "could not run on every host:"$'\n'"$(sed 's/^/  /; s/\t/: /' <<< "$answers")"
    here=$("$sim" --version)
    while IFS=$'\t' read -r host answer; do
        case $answer in
            "no sim at "*) die "host $host has no built sim at ${answer#no sim at }: clone the repository there, build it (make) and give its folder with --workdir" ;;
            "$here") ;;
            *) echo "sweep.sh: warning: host $host runs '$answer', this machine '$here'" >&2 ;;
        esac
    done <<< "$answers"
fi

if [ ! -s "$out" ]; then
    [ -e "$out" ] || made_out=1
    "$sim" --graph graphs/noop-chain.onnx --format csv | head -1 >> "$out"
fi
errors=$parts/messages

runs_done() { # the runs that ended, by the job logs
    awk 'FNR > 1' "$parts"/*.joblog 2> /dev/null | wc -l
}
# Ctrl-C reaches parallel and its jobs too (one process group); once they have stopped, the rows that
# finished are kept and the sweep says how to go on.
interrupted=0
trap 'interrupted=1' INT TERM
every=${SWEEP_PROGRESS_SECONDS:-10}
status=0
if [ "$mode" = slurm ]; then
    # The job list in chunks, one per array task; each task runs its chunk with GNU parallel on the
    # allocation's CPUs, writing its runs' outputs into this run's parts folder (which the nodes see).
    per=$runs_per_task
    [ $(((left + per - 1) / per)) -le 1000 ] || per=$(((left + 999) / 1000)) # Slurm's default MaxArraySize
    ntasks=$(((left + per - 1) / per))
    awk -v per="$per" -v dir="$parts" '{ print > (dir "/jobs." int((NR - 1) / per)) }' "$joblist"
    {
        echo '#!/bin/bash'
        echo '# bench/sweep.sh: one array task runs its share of the sweep'
        echo "parts=$(printf '%q' "$parts") root=$(printf '%q' "$root") sim=$(printf '%q' "$sim")"
        cat <<'TASK'
t=${SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}
exec > "$parts/task-$t.log" 2>&1
cd "$root" || exit 1
command -v parallel > /dev/null || { echo "GNU parallel is not installed on $(hostname)"; exit 1; }
[ -x "$sim" ] || { echo "$(hostname) has no built sim at $root/$sim (the repository must be on a folder every node sees)"; exit 1; }
# parallel's --results is a template: it is given a name of safe characters, a link to the parts folder.
link=$(mktemp -d)
trap 'rm -rf -- "$link"' EXIT
ln -s "$parts" "$link/p"
mkdir -p "$parts/$t"
hostname > "$parts/$t.host"
PARALLEL_SHELL=bash parallel --will-cite --halt never --colsep '\t' \
    --jobs "${SWEEP_JOBS:-${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}}" \
    --results "$link/p/$t/{1}" --joblog "$parts/$t.joblog" "$(printf '%q' "$sim") --format csv {=2 uq()=}" \
    :::: "$parts/jobs.$t"
TASK
    } > "$parts/task.sh"
    chmod +x "$parts/task.sh"
    submitted=$(sbatch --parsable --array="0-$((ntasks - 1))" --job-name=arenasim-sweep --chdir="$root" \
        --output=/dev/null ${jobs:+--export=ALL,SWEEP_JOBS="$jobs"} "${sbatch_args[@]}" "$parts/task.sh" 2>&1) ||
        die "sbatch refused the sweep: $submitted"
    slurm_job=${submitted%%;*}
    echo "sweep.sh: Slurm job $slurm_job, an array of $ntasks tasks of at most $per runs" >&2
    last=$SECONDS
    while :; do
        queue=$(squeue -h -j "$slurm_job" -o %i 2>&1) && [ -z "$queue" ] && break
        case $queue in *"Invalid job id"*) break ;; esac
        if [ "$interrupted" = 1 ]; then
            scancel "$slurm_job" 2> /dev/null || true
            for _ in $(seq 60); do
                queue=$(squeue -h -j "$slurm_job" -o %i 2>&1) && [ -z "$queue" ] && break
                case $queue in *"Invalid job id"*) break ;; esac
                sleep 0.5
            done
            break
        fi
        if [ $((SECONDS - last)) -ge "$every" ]; then
            echo "sweep.sh: $(runs_done) of $left runs done" >&2
            last=$SECONDS
        fi
        sleep 1
    done
    slurm_job=""
    pairs=()
    for ((t = 0; t < ntasks; t++)); do pairs+=("$parts/$t" "$parts/$t.joblog"); done
else
    bar=()
    if [ -t 2 ]; then
        bar=(--bar)
    else # no terminal to draw a bar on (nohup, CI, a batch log): a line every few seconds instead
        ( # its sleep holds no pipe of the caller's: a caller reading stderr to the end is not kept waiting
            trap 'kill "$nap" 2> /dev/null; exit 0' TERM
            while :; do
                echo "sweep.sh: $(runs_done) of $left runs done" >&2
                sleep "$every" < /dev/null > /dev/null 2>&1 &
                nap=$!
                wait "$nap"
            done
        ) &
        progress_pid=$!
    fi
    command=$(printf '%q' "$sim")
    [ "$mode" = local ] || command=$(printf '%q' "$remote_sim")
    mkdir "$parts/0"
    PARALLEL_SHELL=bash parallel --will-cite --halt never --colsep '\t' ${jobs:+--jobs "$jobs"} "${bar[@]}" \
        --results "$parts/0/{1}" --joblog "$parts/0.joblog" "${transfer[@]}" "${parallel_args[@]}" \
        "$command --format csv {=2 uq()=}" :::: "$joblist" || status=$?
    [ -z "$progress_pid" ] || { kill "$progress_pid" 2> /dev/null || true; wait "$progress_pid" 2> /dev/null || true; progress_pid=""; }
    pairs=("$parts/0" "$parts/0.joblog")
fi

# The runs that ended well give their rows, in job-list order, whichever host ran them; the others their
# messages, each with the host that ran it.
read -r done_rows failed_runs < <(/usr/bin/python3 - "$out" "$renames" "$errors" "$parts" "${pairs[@]}" <<'PY'
import csv, glob, io, os, sys
out, renames_path, errors_path, parts = sys.argv[1:5]
pairs = sys.argv[5:]
def text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return ""
names = text(renames_path).split("\0")
renames = dict(zip(names[0:-1:2], names[1::2]))
with open(out, newline="", encoding="utf-8", errors="surrogateescape") as f:
    header = next(csv.reader(f))
graph = header.index("graph")
rows, messages, ran = [], [], set()
for folder, joblog in zip(pairs[0::2], pairs[1::2]):
    by_seq = {}
    for p in glob.glob(os.path.join(glob.escape(folder), "*.seq")):
        by_seq[text(p).strip()] = int(os.path.basename(p)[:-4])
    for line in text(joblog).splitlines()[1:]:
        f = line.split("\t", 8)
        if len(f) < 9 or f[0] not in by_seq:
            continue
        job, host, exitval, signal = by_seq[f[0]], f[1], f[6], f[7]
        ran.add(job)
        base = os.path.join(folder, str(job))
        where = "" if host == ":" else f"[{host}] "
        if host == ":" and os.path.exists(folder + ".host"):  # a Slurm array task's node
            where = f"[array task {os.path.basename(folder)} on {text(folder + '.host').strip()}] "
        if exitval == "0" and signal == "0":
            records = list(csv.reader(io.StringIO(text(base), newline="")))
            if [] in records:  # a blank line ends the row's table (--run --repeat prints a profile after it)
                records = records[:records.index([])]
            if len(records) == 2 and records[0] == header and len(records[1]) == len(header):
                row = records[1]
                row[graph] = renames.get(row[graph], row[graph])
                rows.append((job, row))
                continue
            why = "its sim wrote other columns than this one's (another version?)" if records and records[0] != header \
                else "it printed no row"
            messages.append((job, [where + "run " + str(job) + ": " + why]))
            continue
        said = text(base + ".err").splitlines()
        if not said:
            said = [f"exit status {exitval}" + (f", signal {signal}" if signal != "0" else "")]
        messages.append((job, [where + s for s in said]))
# An array task that never started its runs (a node without parallel or sim) says why in its log.
for log in sorted(glob.glob(os.path.join(glob.escape(parts), "task-*.log"))):
    said = text(log).splitlines()
    if said and not os.path.exists(os.path.join(parts, os.path.basename(log)[5:-4] + ".joblog")):
        messages.append((10**12, ["Slurm array task " + os.path.basename(log)[5:-4] + ": " + s for s in said]))
rows.sort(key=lambda r: r[0])
buf = io.StringIO(newline="")
csv.writer(buf, lineterminator="\n").writerows(r for _, r in rows)
with open(out, "a", newline="", encoding="utf-8", errors="surrogateescape") as f:
    f.write(buf.getvalue())
    f.flush()
    os.fsync(f.fileno())
with open(errors_path, "w", encoding="utf-8", errors="surrogateescape") as f:
    for _, lines in sorted(messages, key=lambda m: m[0]):
        f.writelines(l + "\n" for l in lines)
print(len(rows), len(messages))
PY
)
dim_columns add "$out"
if [ "$interrupted" = 1 ]; then
    if [ "$done_rows" = 0 ]; then
        echo "sweep.sh: interrupted before any of the $left runs finished; run the same command again to run them" >&2
    else
        echo "sweep.sh: interrupted: $done_rows of $left runs finished, their rows kept in $out; run the same" \
            "command again to run the other $((left - done_rows))" >&2
    fi
    exit 130
fi
if [ "$done_rows" != "$left" ]; then
    echo "sweep.sh: $((left - done_rows)) of $left runs failed; their rows are missing (a rerun retries them). Messages:" >&2
    sed 's/^/  /' "$errors" >&2
    exit 1
fi
echo "sweep.sh: $left rows appended to $out" >&2
