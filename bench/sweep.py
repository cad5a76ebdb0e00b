#!/usr/bin/python3
"""sweep.py — a parameter sweep that loses nothing: the cartesian product of graphs x swept --dim values x orders
x alias sets x strategies, one `sim --format csv` run each, on one of three back ends (a class each below): this
machine, other hosts over ssh, or a Slurm job array. GNU parallel and Slurm are the engines; this program only
makes the job list, watches the runs end and keeps their rows.

  bench/sweep.py --out results/sweep-gpt2-seq.csv --graph graphs/models/torch/gpt2-torch.onnx:batch=1 \\
      --dim seq=16,32,64,128,256,512,1024 --strategies firstfit,bestfit,greedy-size,best
  bench/sweep.py --out results/corpus.csv --corpus --alias all --alias none --timeout 600 --retries 1
  bench/sweep.py --out x.csv --graph ~/m.onnx -- --sshlogin 2/hostA,2/hostB --workdir /srv/arenasim
  bench/sweep.py --out x.csv --corpus --slurm --detach --sbatch "--partition=cpu --time=1:00:00"
  bench/sweep.py --status x.csv          bench/sweep.py --collect x.csv

Every run's row is durable when the run ends: the runs write their output, a framed record each, into the
sweep's state folder beside the table (OUT.sweep/), and this program appends each finished run's row to a
journal there (OUT.sweep/journal, fsync'd) within a fraction of a second; the table is rebuilt from the journal
(keyed by graph, dims, order, alias, strategy; written beside itself and renamed over it) when the sweep ends or
is stopped, and by the next sweep on the same table if this one was killed. A rerun runs only the runs without a
row. INT, TERM and HUP stop the sweep, keep every finished row and exit 128 + the signal. Nothing here runs a name
through a shell unquoted. docs/sweeps.md has the back ends, the fault table and the detach/collect flow.
"""
import base64
import csv
import ctypes
import fcntl
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

PROG = "sweep"
KEYS = ("graph", "dims", "order", "alias", "strategy")
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SIGNAL_EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}

OPTIONS = """Options:
  --out FILE.csv         where rows go (created with its header when missing)          (required)
  --graph FILE[:DIMS]    a model, with dims to bind (DIMS: a=1,b=2); repeatable
  --corpus               every model of graphs/models/models.tsv present here, with its dims
  --dim NAME=V1,V2,...   sweep a symbolic dimension over values; repeatable (cartesian product)
  --orders LIST          comma list of orders (default file)
  --alias SET            an alias set, e.g. all, none, noop,inplace; repeatable (default all)
  --strategies LIST      comma list of placement strategies (default every one but naive)
  --sim-args "ARGS"      more sim flags for every run, e.g. "--budget-work 200000"
  --jobs N               runs at once (default: one per core; with --slurm, per array task)
  --timeout S            a run still going after S seconds is stopped and counted failed (default: none)
  --retries N            a run that ended by a signal, a time limit or a lost host is run again up to N times
  --max-running K        at most K at once: array tasks on Slurm (%K), runs per host over ssh
  --dry-run              print the job list (what is left to run) and stop
  --slurm                run the job list as Slurm job arrays (sbatch), and wait for them
  --detach               with --slurm: submit, say how to follow it, and exit
  --keep-array           with --slurm: on INT or TERM leave the arrays running (HUP always does)
  --sbatch "ARGS"        more sbatch options with --slurm, e.g. "--partition=cpu --time=30"
  --runs-per-task N      runs per array task with --slurm (default 16)
  --status OUT           what the table's sweep has in flight: Slurm tasks pending, running, done, failed
  --collect OUT          gather the rows of the table's finished Slurm tasks (and of a killed sweep)
  -- ARGS                the rest goes to GNU parallel: --sshlogin HOSTS (and --workdir, the repository's
                         folder there, built) runs on other hosts over ssh

Exit status: 0 every run has its row; 1 some runs failed (their messages are printed, a rerun retries them) or
a file could not be written; 2 a usage error or a precondition (nothing ran); 129, 130, 143 stopped by HUP, INT,
TERM (the finished rows kept; the same command runs the rest). Progress on stderr: a bar on a terminal, else a
line every SWEEP_PROGRESS_SECONDS (default 10). SIM_BIN names the sim to run (default build/sim, built here).
"""


class Stop(Exception):
    """Ends the program with a message and an exit status."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status


def say(text):
    """A line on stderr; a closed terminal (after HUP) or pipe loses the line, never the sweep."""
    try:
        sys.stderr.write(f"{PROG}: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


# ---- quoting: every argument of a run reaches sim as text -------------------------------------------------------

SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/=,:+-@%")


def bash_quote(text):
    """Bash's $'...' form with every byte outside a safe set written \\xHH: one line, any bytes, no expansion."""
    raw = os.fsencode(text)
    if raw and all(b in SAFE for b in raw):
        return text
    return "$'" + "".join(chr(b) if b in SAFE else f"\\x{b:02x}" for b in raw) + "'"


# The worker: runs one chunk of the job list (run number TAB quoted sim arguments, one run a line: base64 in its
# last argument, or the lines of DEST/runs that sed script S prints when that argument is @S, as this machine's
# long chunks are) and
# writes one framed record a run, "\036run N STATUS TRIES OUT_BYTES ERR_BYTES HOST\n" + its stdout + its stderr,
# to DEST/stream.K (a folder this side reads: this machine, a Slurm node) or to stdout (ssh: parallel brings it
# back), in one write. One line of bash, so parallel sends it to any host as it is; nothing but sim is started
# per run (the outputs are read by bash's own `read`, their lengths counted in bytes under LC_ALL=C, a shell
# variable sim does not inherit; a NUL byte, which sim never writes, would be dropped; its scratch files are in
# /dev/shm where there is one, away from the journal's fsyncs). A run that ends by
# sim's own status (0, 1, 2) is done; a time limit (124, 137) or a signal is run again up to RETRIES times.
# With a seventh argument other than -, base64 of graph files or + for none (ssh), the chunk first looks at its
# host: record run 0 holds `sim --version` (or "no sim at PATH") and a line "missing G" per graph not there, and
# the chunk runs nothing when anything is missing (its host cannot run any of it; the sweep stops on reading that).
WORKER = "; ".join([
    "k=$1 sim=$2 limit=$3 retries=$4 dest=$5 runs=$6 probe=${7:--} LC_ALL=C",
    "t=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d) || exit 1",
    "trap 'rm -rf -- \"$t\"' EXIT",
    "if [ \"$dest\" = - ]; then exec 3>&1; else exec 3>> \"$dest/stream.$k\" || exit 1; fi",
    "host=${PARALLEL_SSHLOGIN:-:}; [ \"$host\" = : ] && host=$(hostname 2> /dev/null || echo unknown)",
    "if [ \"$probe\" != - ]; then "
    "a=$(if [ -x \"$sim\" ]; then \"$sim\" --version; else echo \"no sim at $PWD/$sim\"; fi; "
    "[ \"$probe\" = + ] || printf %s \"$probe\" | base64 -d | "
    "while IFS= read -r g; do [ -f \"$g\" ] || echo \"missing $g\"; done); "
    "printf '\\036run 0 0 0 %s 0 %s\\n%s' \"${#a}\" \"$host\" \"$a\" >&3 || exit 1; "
    "case $a in \"no sim at \"*|missing\\ *|*$'\\n'missing\\ *) exit 0 ;; esac; fi",
    "case $runs in @*) sed -n \"${runs#@}\" \"$dest/runs\" ;; *) printf %s \"$runs\" | base64 -d ;; esac > \"$t/list\" "
    "|| exit 1",
    "while IFS=$'\\t' read -r n args; do eval \"set -- $args\"; try=0; while :; do "
    "if [ \"$limit\" = 0 ]; then \"$sim\" --format csv \"$@\" < /dev/null > \"$t/o\" 2> \"$t/e\"; st=$?; "
    "else timeout -k 5 \"$limit\" \"$sim\" --format csv \"$@\" < /dev/null > \"$t/o\" 2> \"$t/e\"; st=$?; fi; "
    "case $st in 0|1|2) break ;; esac; [ \"$try\" -ge \"$retries\" ] && break; try=$((try + 1)); done; "
    "IFS= read -r -d '' o < \"$t/o\"; IFS= read -r -d '' e < \"$t/e\"; "
    "printf '\\036run %s %s %s %s %s %s\\n%s%s' \"$n\" \"$st\" \"$try\" \"${#o}\" \"${#e}\" \"$host\" \"$o\" \"$e\" >&3 "
    "|| exit 1; done < \"$t/list\"",
])

FRAME = re.compile(rb"\x1erun (\d+) (\d+) (\d+) (\d+) (\d+) ([^\n]*)\n")


class Frames:
    """Parses a growing byte stream of worker records; an incomplete last record waits for its bytes."""

    def __init__(self):
        self.buf = b""
        self.offset = 0  # bytes of the file already consumed (for streams read from files)

    def feed(self, data):
        self.buf += data
        done = []
        while True:
            at = self.buf.find(b"\x1erun ")
            if at < 0:
                self.buf = self.buf[-5:] if len(self.buf) > 5 else self.buf
                return done
            m = FRAME.match(self.buf, at)
            if not m:
                if b"\n" in self.buf[at:] or len(self.buf) - at > 200:
                    self.buf = self.buf[at + 1:]  # not a record head: look for the next one
                    continue
                self.buf = self.buf[at:]
                return done
            n, st, tries, olen, elen = (int(g) for g in m.groups()[:5])
            end = m.end() + olen + elen
            if len(self.buf) < end:
                self.buf = self.buf[at:]
                return done
            out, err = self.buf[m.end():m.end() + olen], self.buf[m.end() + olen:end]
            done.append((n, st, tries, out, err, m.group(6).decode("utf-8", "replace")))
            self.buf = self.buf[end:]


# ---- the table, its journal and its state folder ---------------------------------------------------------------

def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_text(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def csv_text(rows):
    buf = io.StringIO(newline="")
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def write_replacing(path, text, mode=None):
    """Writes text beside path and renames it over path: a stop at any moment leaves the old file or the new."""
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".sweep-", dir=folder)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode if mode is not None else 0o644)
        os.replace(tmp, path)
        fsync_dir(folder)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class Table:
    """The CSV the user named: sim's columns, with one dim_NAME column per bound dimension after `dims`."""

    def __init__(self, path):
        self.path = path
        self.header = None  # sim's columns (dim_ columns taken out)
        self.rows = []  # rows in file order, sim's columns
        self.keys = {}  # key -> row
        self.rejected = []  # (line number, text, why)

    def load(self):
        if not os.path.exists(self.path):
            return self
        text = read_text(self.path)
        lines = text.splitlines(keepends=True)
        records, reader, start = [], csv.reader(io.StringIO(text, newline="")), 1
        try:
            for record in reader:
                records.append((start, record, "".join(lines[start - 1:reader.line_num])))
                start = reader.line_num + 1
        except csv.Error:  # a quote left open at the end: the rest is one cut-off record
            records.append((start, None, "".join(lines[start - 1:])))
        if records and (records[-1][1] is None or not text.endswith("\n")):
            number, _, raw = records.pop()
            self.rejected.append((number, raw, "the line is cut off (a write stopped midway)"))
        if not records:
            return self
        full = records[0][1]
        if "dims" not in full or any(k not in full for k in KEYS):
            raise Stop(f"{self.path} is not a sweep table (its header lacks "
                       f"{', '.join(k for k in ('dims',) + KEYS if k not in full)})")
        keep = [i for i, c in enumerate(full) if not c.startswith("dim_")]
        self.header = [full[i] for i in keep]
        at = [self.header.index(k) for k in KEYS]
        for number, record, raw in records[1:]:
            if len(record) != len(full):
                self.rejected.append((number, raw, f"{len(record)} fields, the header has {len(full)}"))
                continue
            row = [record[i] for i in keep]
            key = tuple(row[i] for i in at)
            if key not in self.keys:  # a second row of one run: the first stays
                self.keys[key] = row
                self.rows.append(row)
        return self

    def text(self):
        """The table with its dim_ columns made from the `dims` column of every row."""
        at = self.header.index("dims") + 1
        bound = [dict(kv.split("=", 1) for kv in r[at - 1].split(",") if "=" in kv) for r in self.rows]
        names = list(dict.fromkeys(n for b in bound for n in b))
        header = self.header[:at] + ["dim_" + n for n in names] + self.header[at:]
        body = [r[:at] + [b.get(n, "") for n in names] + r[at:] for r, b in zip(self.rows, bound)]
        return csv_text([header] + body)


class State:
    """OUT.sweep/: the lock, the journal of finished rows, and one folder per engine run (run-PID, slurm-JOB)."""

    def __init__(self, out):
        self.out = out
        self.dir = out + ".sweep"
        self.journal = os.path.join(self.dir, "journal")
        self.lock_fd = None

    def lock(self):
        """Takes the table's lock; a lock left by a sweep that died is taken over, with a line saying so."""
        os.makedirs(self.dir, exist_ok=True)
        path = os.path.join(self.dir, "lock")
        for _ in range(5):
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
                os.close(fd)
                raise Stop(f"another sweep (pid {holder or '?'}) is writing {self.out}; wait for it, or use another --out")
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the folder was removed by the sweep that held it: lock the new one
                os.close(fd)
                continue
            previous = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            if previous:
                say(f"taking over {self.out} from sweep pid {previous}, which ended without finishing (killed?)")
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            os.fsync(fd)
            self.lock_fd = fd
            return
        raise Stop(f"could not lock {self.out}: its state folder {self.dir} keeps changing")

    def unlock(self, remove):
        """Releases the lock; with remove, the state folder goes too when nothing of a sweep is left in it."""
        if self.lock_fd is None:
            return
        if remove:
            try:
                os.unlink(os.path.join(self.dir, "lock"))
                os.rmdir(self.dir)
            except OSError:
                pass
        else:
            os.ftruncate(self.lock_fd, 0)  # a clean stop: the next sweep has nothing to take over
        os.close(self.lock_fd)
        self.lock_fd = None

    def engines(self):
        if not os.path.isdir(self.dir):
            return []
        return sorted(os.path.join(self.dir, n) for n in os.listdir(self.dir)
                      if (n.startswith("run-") or n.startswith("slurm-")) and os.path.isdir(os.path.join(self.dir, n)))


class Journal:
    """Finished rows, one JSON line each, appended and fsync'd as runs end; merged into the table, then emptied."""

    def __init__(self, path, header):
        self.path = path
        self.header = header
        self.fd = None

    def open(self):
        new = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        if new:
            self._write([{"header": self.header}])

    def _write(self, records):
        data = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8", "surrogatepass")
        while data:
            n = os.write(self.fd, data)
            data = data[n:]
        os.fsync(self.fd)

    def append(self, rows):
        if rows:
            self._write([{"key": list(k), "row": r} for k, r in rows])

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    @staticmethod
    def read(path):
        """The rows of a journal: (key, row) list, and its malformed lines (number, text, why)."""
        rows, bad, header = [], [], None
        if not os.path.exists(path):
            return None, rows, bad
        with open(path, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        elif lines:
            bad.append((len(lines), lines.pop().decode("utf-8", "replace"), "cut off (a write stopped midway)"))
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line.decode("utf-8", "surrogatepass"))
                if number == 1 and isinstance(record, dict) and "header" in record:
                    header = record["header"]
                    continue
                key, row = record["key"], record["row"]
                if len(key) != len(KEYS) or not isinstance(row, list) or (header and len(row) != len(header)):
                    raise ValueError("wrong field count")
                rows.append((tuple(key), row))
            except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
                bad.append((number, line.decode("utf-8", "replace") + "\n", f"not a journal record ({e})"))
        return header, rows, bad


# ---- the runs ---------------------------------------------------------------------------------------------------

class Job:
    """A run: its number in the job list, its key (graph, dims, order, alias, strategy) and sim's arguments."""
    __slots__ = ("n", "key", "argv")

    def __init__(self, n, key, argv):
        self.n, self.key, self.argv = n, key, argv

    @property
    def graph_file(self):
        return self.key[0]


def run_name(key):
    graph, dims, order, alias, strategy = key
    return f"{graph}{'' if dims == '-' else ' ' + dims} order={order} alias={alias} strategy={strategy}"


def describe_status(status, tries, timeout):
    again = f" (after {tries + 1} tries)" if tries else ""
    if status in (124, 137) and timeout:
        return f"stopped at the time limit of {timeout} s{again}"
    if status > 128 and status - 128 < 65:
        try:
            name = signal.Signals(status - 128).name
        except ValueError:
            name = f"signal {status - 128}"
        return f"killed by {name}{again}"
    return f"exit status {status}{again}"


class Sweep:
    """What every back end shares: the jobs, the table and journal, the results of runs as they end."""

    def __init__(self, args, jobs, sim, header):
        self.args, self.jobs, self.sim, self.header = args, jobs, sim, header
        self.done = {}  # run key -> row, the runs this sweep finished
        self.failed = {}  # run key -> (message lines, where it ran)
        self.known = {}  # run key -> row, the table's rows (a record of one of those is not taken again)
        self.journal = None
        self.write_error = None
        self.fatal = None  # what stops the sweep as soon as it is known (a host that cannot run it), exit 2
        self.lock = threading.Lock()

    def take(self, results, jobs_by_n, where_of=None):
        """Records finished runs (jobs_by_n: their engine folder's numbering): rows to the journal (fsync'd),
        failures kept for the summary (by run key)."""
        rows = []
        with self.lock:
            for n, status, tries, out, err, host, stream in results:
                job = jobs_by_n.get(n)
                if job is None or job.key in self.done or job.key in self.known:
                    continue
                where = where_of(stream, host) if where_of else host
                if status == 0:
                    row, why = self.parse_row(out.decode("utf-8", "surrogateescape"), job)
                    if row is not None:
                        self.done[job.key] = row
                        self.failed.pop(job.key, None)
                        rows.append((job.key, row))
                    else:
                        self.failed[job.key] = ([why], where)
                    continue
                said = [s for s in err.decode("utf-8", "surrogateescape").splitlines() if s.strip()]
                if status in (1, 2) and said:
                    self.failed[job.key] = (said, where)
                else:
                    self.failed[job.key] = ([describe_status(status, tries, self.args.timeout)] + said[:3], where)
            if rows and self.journal is not None and self.write_error is None:
                try:
                    self.journal.append(rows)
                except OSError as e:
                    self.write_error = f"cannot write {self.journal.path}: {e.strerror}"
                    for key, _ in rows:  # not kept: these runs are done again
                        del self.done[key]
        return len(rows)

    def parse_row(self, text, job):
        records = list(csv.reader(io.StringIO(text, newline="")))
        if [] in records:  # a blank line ends the row's table (--run --repeat prints a profile after it)
            records = records[:records.index([])]
        if len(records) == 2 and records[0] == self.header and len(records[1]) == len(self.header):
            row = records[1]
            row[self.header.index("graph")] = job.key[0]  # the name the user gave, wherever the run read it
            return row, None
        if records and records[0] != self.header:
            return None, "its sim wrote other columns than this one's (another version?)"
        return None, "it printed no row"

    def journal_close(self):
        if self.journal is not None:
            self.journal.close()


# ---- the back ends: one class each -----------------------------------------------------------------------------

def set_pdeathsig():
    """In a child, before it runs the engine: SIGTERM when the sweep dies, however it dies (kill -9 included)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def chunk_body(jobs, argv_of):
    """A chunk's runs as the worker reads them: run number TAB quoted args NEWLINE, a run a line."""
    return "".join(f"{j.n}\t{' '.join(bash_quote(x) for x in argv_of(j))}\n" for j in jobs)


def chunk_lines(jobs, size, argv_of, prefix=""):
    """The engine's input: one chunk of runs a line, `ID TAB base64(chunk_body)`."""
    return [f"{prefix}{k // size}\t{base64.b64encode(os.fsencode(chunk_body(jobs[k:k + size], argv_of))).decode()}\n"
            for k in range(0, len(jobs), size)]


def parallel_command(sim, timeout, retries, dest, probe="-"):
    """The command GNU parallel runs per chunk line ({1} its id, {2} its runs): the worker."""
    return (f"bash -c {shlex.quote(WORKER)} sweep-worker {{1}} {bash_quote(sim)} {timeout or 0} {retries} "
            f"{bash_quote(dest)} {{2}} {probe}")


class Engine:
    """GNU parallel in its own session (a terminal's signals reach only the sweep, which stops it on purpose),
    told to stop when the sweep dies; its pid kept in the folder for a sweep that finds the folder left. What it
    and the workers say on stderr is kept in memory (the folder's disk may be the one that is full)."""

    def __init__(self, cmd, folder, stdout=subprocess.DEVNULL):
        self.said = []
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE,
                                     start_new_session=True, preexec_fn=set_pdeathsig,
                                     env=dict(os.environ, PARALLEL_SHELL="bash"))
        self.listener = threading.Thread(target=self.listen, daemon=True)
        self.listener.start()
        with open(os.path.join(folder, "engine"), "w") as f:
            f.write(f"{self.proc.pid}\n")

    def listen(self):
        for line in self.proc.stderr:
            self.said = (self.said + [line.decode("utf-8", "replace").rstrip()])[-20:]

    def running(self):
        return self.proc.poll() is None

    def stop(self):
        """parallel, on TERM, stops its runs (each in its own process group) and ends; KILL after ten seconds."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def last_words(self):
        self.listener.join(10)
        return [line for line in self.said if line.strip()][-3:]


FULL = ("No space left on device", "Disk quota exceeded", "File too large")


def full_disk(said, folder):
    """A write error the engine or a worker reported: the rows cannot be kept, so the sweep stops."""
    for line in said:
        for what in FULL:
            if what in line:
                return f"cannot write the runs' records into {folder}: {what}"
    return None


def write_jobs(folder, jobs, unit_of):
    """The runs of an engine folder (number, key, chunk or array task), so a later sweep can read its records."""
    with open(os.path.join(folder, "jobs.json"), "w", encoding="utf-8", errors="surrogatepass") as f:
        json.dump([[j.n, list(j.key), unit_of(j)] for j in jobs], f)
        f.flush()
        os.fsync(f.fileno())


def folder_jobs(folder):
    """An engine folder's runs: {number: (Job, chunk or task)}."""
    try:
        with open(os.path.join(folder, "jobs.json"), encoding="utf-8", errors="surrogatepass") as f:
            return {n: (Job(n, tuple(key), []), unit) for n, key, unit in json.load(f)}
    except (OSError, ValueError, TypeError):
        return {}


def read_streams(folder, streams):
    """New records from an engine folder's stream files, each read on from where the last read stopped."""
    results = []
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith("stream."))
    except FileNotFoundError:
        return results
    for name in names:
        frames = streams.setdefault(name, Frames())
        try:
            with open(os.path.join(folder, name), "rb") as f:
                f.seek(frames.offset)
                data = f.read()
        except FileNotFoundError:
            continue
        frames.offset += len(data)
        results += [r + (name,) for r in frames.feed(data)]
    return results


ENGINE_FILES = re.compile(r"stream\.[-\w]+|chunks(\.\d+)?|runs|jobs\.json|engine|task\.sh|task-\d+\.log|array|stage")


def remove_engine_folder(folder):
    """An engine folder of this program's: the files it makes there, then the folder (anything else stays)."""
    if not folder or not os.path.isdir(folder):
        return
    for name in os.listdir(folder):
        if ENGINE_FILES.fullmatch(name):
            path = os.path.join(folder, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def HERE(stream, host):
    return ""  # a run on this machine needs no place named


class Local:
    """This machine: GNU parallel runs chunks of the job list; each run's record lands in the engine folder."""

    def __init__(self, sweep, state):
        self.sweep, self.state = sweep, state
        self.engine, self.folder, self.streams, self.jobs = None, None, {}, {}

    def check(self):
        pass

    def start(self, jobs):
        a = self.sweep.args
        self.folder = os.path.join(self.state.dir, f"run-{os.getpid()}")
        os.makedirs(self.folder, exist_ok=True)
        slots = a.jobs or a.max_running or os.cpu_count() or 1
        # Cheap runs in chunks of up to 1,024: parallel takes ~40 ms between one chunk's end and the next one's
        # start here (perl forking the worker), 12% of 10,000 runs of a few milliseconds in chunks of 64; eight
        # chunks a slot keep the slots' last chunks ending close together. The runs lie in the engine folder's
        # `runs`, a chunk naming its lines (@A,Bp;Bq), as parallel takes no argument past 64 KiB.
        size = max(1, min(1024, len(jobs) // (slots * 8)))
        write_jobs(self.folder, jobs, lambda j: (j.n - jobs[0].n) // size)
        self.jobs = {j.n: j for j in jobs}
        with open(os.path.join(self.folder, "runs"), "wb") as f:
            f.write(os.fsencode(chunk_body(jobs, lambda j: j.argv)))
        chunks = os.path.join(self.folder, "chunks")
        with open(chunks, "w", encoding="utf-8") as f:
            for k in range(0, len(jobs), size):  # sed's script for the lines A to B: A,Bp;Bq
                f.write(f"{k // size}\t@{k + 1},{min(k + size, len(jobs))}p;{min(k + size, len(jobs))}q\n")
        self.engine = Engine(["parallel", "--will-cite", "--halt", "never", "--colsep", "\t", "--jobs", str(slots),
                              parallel_command(self.sweep.sim, a.timeout, a.retries, self.folder), "::::", chunks],
                             self.folder)

    def poll(self):
        self.sweep.take(read_streams(self.folder, self.streams), self.jobs, HERE)
        return self.engine.running()

    def stop(self, sig):
        self.engine.stop()

    def finish(self):
        self.sweep.take(read_streams(self.folder, self.streams), self.jobs, HERE)
        return self.engine.last_words()

    def cleanup(self, detached):
        remove_engine_folder(self.folder)


class Ssh:
    """Other hosts: GNU parallel logs in (--sshlogin, after --) and runs chunks of runs in the hosts' own clones;
    each chunk's records come back on parallel's output as the chunk ends and are journaled as they arrive."""

    def __init__(self, sweep, state):
        self.sweep, self.state = sweep, state
        self.engine = self.reader = self.folder = self.staged_id = None
        self.jobs, self.staged = {}, {}  # the user's path -> where it lies on the hosts
        self.remote_sim = os.environ.get("SWEEP_REMOTE_SIM", "build/sim")
        self.masters = None
        self.args = self.shared_logins(list(sweep.args.parallel_args))

    def shared_logins(self, args):
        """parallel's arguments with ssh told to share one login per host (OpenSSH's ControlMaster, its socket
        in a short folder of this sweep's, the master ending 5 s after its last session): a chunk's login
        costs a new session, not a new handshake. Left alone when the user's --ssh already sets a ControlPath."""
        ssh, at = "ssh", None
        for i, x in enumerate(args):
            if x == "--ssh" and i + 1 < len(args):
                ssh, at = args[i + 1], i
            elif x.startswith("--ssh="):
                ssh, at = x.split("=", 1)[1], i
        if "controlpath" in ssh.lower():
            return args
        self.masters = tempfile.mkdtemp(prefix="arenasim-ssh-", dir="/tmp")  # a socket path has 108 bytes
        shared = (f"{ssh} -o ControlMaster=auto -o ControlPath={shlex.quote(self.masters)}/%C "
                  "-o ControlPersist=5")
        if at is None:
            return ["--ssh", shared] + args
        return args[:at] + ["--ssh", shared] + args[at + (1 if args[at].startswith("--ssh=") else 2):]

    def hosts(self):
        hosts, args = [], list(self.sweep.args.parallel_args)
        for i, x in enumerate(args):
            value = None
            if x in ("-S", "--sshlogin") and i + 1 < len(args):
                value = args[i + 1]
            elif x.startswith("--sshlogin="):
                value = x.split("=", 1)[1]
            elif x.startswith("-S") and len(x) > 2:
                value = x[2:]
            hosts += [h for h in (value or "").split(",") if h]
        return hosts or ["(sshloginfile)"]

    def parallel(self, *more, timeout=None):
        return subprocess.run(["parallel", "--will-cite"] + list(more), env=dict(os.environ, PARALLEL_SHELL="bash"),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)

    def check(self):
        """Every host is looked at by each chunk before its runs (the worker's run 0, read by answer()): a
        separate `parallel --nonall` before the sweep cost 0.6 s, a third of 348 small runs over ssh."""
        self.here = subprocess.run([self.sweep.sim, "--version"], capture_output=True, text=True).stdout.strip()
        self.answered = set()

    def answer(self, host, text):
        """A chunk's look at its host: its sim (built, the same version) and the repository's graphs. A host
        that lacks either ran nothing of the chunk, and the sweep stops, naming it (exit 2)."""
        lines = text.decode("utf-8", "replace").splitlines()
        missing = [line[8:] for line in lines if line.startswith("missing ")]
        if lines and lines[0].startswith("no sim at "):
            fatal = (f"host {host} has no built sim at {lines[0][10:]}: clone the repository there, build it "
                     "(make) and give its folder with --workdir")
        elif missing:
            fatal = (f"host {host} lacks {len(missing)} of the sweep's graphs (first: {missing[0]}): run make models "
                     "there, or leave those graphs out")
        else:
            fatal = None
            if host not in self.answered and lines and lines[0] != self.here:
                say(f"warning: host {host} runs '{lines[0]}', this machine '{self.here}'")
        self.answered.add(host)
        if fatal and self.sweep.fatal is None:
            self.sweep.fatal = fatal

    def start(self, jobs):
        a = self.sweep.args
        self.folder = os.path.join(self.state.dir, f"run-{os.getpid()}")
        os.makedirs(self.folder, exist_ok=True)
        transfer = []
        outside = sorted({j.graph_file for j in jobs if j.graph_file.startswith(("/", "../"))})
        if outside:  # sent to each host's --workdir for the sweep (parallel's --basefile), removed at the end
            self.staged_id = os.urandom(8).hex()
            for k, path in enumerate(outside, 1):
                rel = f".arenasim-inputs-{self.staged_id}/{k}/{os.path.basename(path)}"
                self.staged[path] = rel
                local = os.path.join(self.folder, "stage", rel)
                os.makedirs(os.path.dirname(local), exist_ok=True)
                try:
                    os.link(path, local)
                except OSError:
                    shutil.copyfile(path, local)
                transfer += ["--basefile", os.path.join(self.folder, "stage", ".", rel)]
            transfer.append("--cleanup")

        def argv_of(job):
            if job.graph_file not in self.staged:
                return job.argv
            argv = list(job.argv)
            argv[argv.index("--graph") + 1] = self.staged[job.graph_file]
            return argv
        slots = a.max_running or a.jobs
        size = max(1, min(16, len(jobs) // ((slots or 2) * 4 * len(self.hosts()))))  # runs per login
        write_jobs(self.folder, jobs, lambda j: (j.n - jobs[0].n) // size)
        self.jobs = {j.n: j for j in jobs}
        chunks = os.path.join(self.folder, "chunks")
        with open(chunks, "w", encoding="utf-8") as f:
            f.writelines(chunk_lines(jobs, size, argv_of))
        cmd = ["parallel", "--will-cite", "--halt", "never", "--colsep", "\t", "--retries", str(a.retries + 1)]
        cmd += (["--jobs", str(slots)] if slots else []) + transfer + self.args
        inside = sorted({j.graph_file for j in self.sweep.jobs if not j.graph_file.startswith(("/", "../"))})
        listing = base64.b64encode(os.fsencode("".join(g + "\n" for g in inside))).decode() or "+"  # sim alone
        cmd += [parallel_command(self.remote_sim, a.timeout, a.retries, "-", listing), "::::", chunks]
        self.engine = Engine(cmd, self.folder, stdout=subprocess.PIPE)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        frames = Frames()
        while True:
            data = self.engine.proc.stdout.read1(65536)
            if not data:
                return
            got = frames.feed(data)
            for n, _, _, out, _, host in got:
                if n == 0:  # a chunk's look at its host
                    self.answer(host, out)
            got = [r + ("",) for r in got if r[0] != 0]
            if got:
                self.sweep.take(got, self.jobs)

    def poll(self):
        return self.engine.running() or self.reader.is_alive()

    def stop(self, sig):
        self.engine.stop()

    def finish(self):
        if self.reader:
            self.reader.join(30)
        return self.engine.last_words() if self.engine else []

    def cleanup(self, detached):
        if self.staged_id:
            try:
                self.parallel("--nonall", *self.args, "rm", "-rf", "--", f".arenasim-inputs-{self.staged_id}",
                              timeout=60)
            except subprocess.TimeoutExpired:
                say(f"could not remove .arenasim-inputs-{self.staged_id} from every host (no answer in 60 s)")
        remove_engine_folder(self.folder)
        if self.masters:
            shutil.rmtree(self.masters, ignore_errors=True)


TASK = r"""t=${SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}
command -v parallel > /dev/null || { echo "GNU parallel is not installed on $(hostname)"; exit 1; }
[ -x "$sim" ] || { echo "$(hostname) has no built sim at $sim (the repository must be on a folder every node sees)"; exit 1; }
echo "started on $(hostname)"
PARALLEL_SHELL=bash exec parallel --will-cite --halt never --colsep '\t' \
    --jobs "${SWEEP_JOBS:-${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}}" @COMMAND@ :::: "$folder/chunks.$t"
"""


def array_id(folder):
    try:
        return read_text(os.path.join(folder, "array")).split()[0]
    except (OSError, IndexError):
        return None


def squeue(job):
    """The array's tasks still in the queue: {task: (state, reason)}; None when Slurm does not answer."""
    try:
        r = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%K|%T|%r"], capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        return None
    if r.returncode != 0:
        return {} if "Invalid job id" in r.stderr else None
    tasks = {}
    for line in r.stdout.splitlines():
        task, state, reason = (line.split("|") + ["", ""])[:3]
        tasks[task] = (state, reason)
    return tasks


def array_live(folder):
    job = array_id(folder)
    if not job:
        return False
    q = squeue(job)
    return q is None or bool(q)


def task_causes(folder):
    """Why each array task ended without all its records, from what Slurm wrote into its log."""
    causes = {}
    for name in os.listdir(folder):
        m = re.fullmatch(r"task-(\d+)\.log", name)
        if not m:
            continue
        text = read_text(os.path.join(folder, name))
        if "DUE TO TIME LIMIT" in text:
            causes[int(m.group(1))] = "its array task reached the Slurm time limit"
        elif "CANCELLED" in text:
            causes[int(m.group(1))] = "its array task was cancelled by Slurm (scancel)"
        elif "started on" not in text and text.strip():
            causes[int(m.group(1))] = "its array task did not start its runs: " + text.strip().splitlines()[-1]
    return causes


def slurm_where(folder):
    job = array_id(folder)
    return lambda stream, host: f"array task {stream[len('stream.'):].split('-')[0]} of Slurm job {job} on {host}"


def unreported(folder, sweep):
    """The runs of an ended array without a record: failed, with the cause Slurm gave their task."""
    causes = task_causes(folder)
    for n, (job, task) in folder_jobs(folder).items():
        if job.key in sweep.done or job.key in sweep.failed or job.key in sweep.known:
            continue
        cause = causes.get(task, "its array task ended without running it (cancelled before it started?)")
        sweep.failed[job.key] = ([cause], f"array task {task} of Slurm job {array_id(folder)}")


class Slurm:
    """A Slurm cluster: the job list as job arrays, each task running its runs with GNU parallel on its
    allocation and writing records into a folder beside the table that every node sees. The arrays are recorded
    in the state folder: a rerun or --collect gathers them, --status shows them, and a run in a live array is
    never submitted again."""

    def __init__(self, sweep, state):
        self.sweep, self.state = sweep, state
        self.folders, self.streams, self.jobs = [], {}, {}
        self.live, self.asked = set(), 0.0

    def check(self):
        for c in ("sbatch", "squeue", "scancel", "scontrol"):
            if shutil.which(c) is None:
                raise Stop(f"--slurm needs Slurm's {c} on this machine (Debian's slurm-client)")

    def adopt(self, folder):
        self.folders.append(folder)
        self.jobs[folder] = {n: job for n, (job, _) in folder_jobs(folder).items()}
        self.live.add(folder)

    def start(self, jobs):
        a = self.sweep.args
        r = subprocess.run(["scontrol", "show", "config"], capture_output=True, text=True)
        m = re.search(r"^MaxArraySize\s*=\s*(\d+)", r.stdout, re.M)
        limit = max(1, (int(m.group(1)) if m else 1001) - 1)  # task ids 0 .. MaxArraySize - 1
        per = a.runs_per_task
        tasks = [jobs[k:k + per] for k in range(0, len(jobs), per)]
        for first in range(0, len(tasks), limit):
            part = tasks[first:first + limit]
            folder = tempfile.mkdtemp(prefix="slurm-", dir=self.state.dir)  # named before its job id is known
            task_of = {j.n: t for t, task in enumerate(part) for j in task}
            write_jobs(folder, [j for task in part for j in task], lambda j: task_of[j.n])
            for t, task in enumerate(part):
                with open(os.path.join(folder, f"chunks.{t}"), "w", encoding="utf-8") as f:
                    f.writelines(chunk_lines(task, 1, lambda j: j.argv, prefix=f"{t}-"))
            script = os.path.join(folder, "task.sh")
            with open(script, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("#!/bin/bash\n# bench/sweep.py: one array task runs its share of the sweep\n")
                f.write(f"folder={bash_quote(folder)} sim={bash_quote(self.sweep.sim)}\n")
                f.write(TASK.replace("@COMMAND@", shlex.quote(parallel_command(self.sweep.sim, a.timeout, a.retries,
                                                                                folder))))
            os.chmod(script, 0o755)
            spec = f"0-{len(part) - 1}" + (f"%{a.max_running}" if a.max_running else "")
            env = dict(os.environ, **({"SWEEP_JOBS": str(a.jobs)} if a.jobs else {}))
            r = subprocess.run(["sbatch", "--parsable", f"--array={spec}", "--job-name=arenasim-sweep",
                                f"--chdir={ROOT}", f"--output={folder}/task-%a.log"] + a.sbatch + [script],
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                remove_engine_folder(folder)
                said = (r.stderr or r.stdout).strip()
                if self.folders:
                    said += f" (the arrays submitted before it run on: {', '.join(map(array_id, self.folders))})"
                raise Stop(f"sbatch refused the sweep: {said}")
            job = r.stdout.strip().split(";")[0]
            with open(os.path.join(folder, "array"), "w") as f:
                f.write(f"{job} {len(part)}\n")
            self.adopt(folder)
            cut = f" (one of {(len(tasks) + limit - 1) // limit}: the cluster's MaxArraySize is {limit + 1})" \
                if len(tasks) > limit else ""
            say(f"Slurm job {job}, an array of {len(part)} tasks of at most {per} runs{cut}")

    def harvest(self):
        for folder in self.folders:
            self.sweep.take(read_streams(folder, self.streams.setdefault(folder, {})), self.jobs[folder],
                            slurm_where(folder))

    def poll(self):
        self.harvest()
        if time.time() - self.asked >= 2:  # the queue every two seconds, not at every look at the records
            self.asked = time.time()
            self.live = {f for f in self.live if array_live(f)}
        return bool(self.live)

    def stop(self, sig):
        if self.sweep.args.keep_array or sig == signal.SIGHUP:
            return  # closing a terminal is no request to cancel a cluster's work
        for folder in self.folders:
            subprocess.run(["scancel", array_id(folder)], capture_output=True)
        deadline = time.time() + 60
        while time.time() < deadline and any(array_live(f) for f in self.folders):
            time.sleep(0.5)
        self.live = {f for f in self.folders if array_live(f)}

    def finish(self):
        self.harvest()
        self.live = {f for f in self.folders if array_live(f)}
        for folder in self.folders:
            if folder not in self.live:
                unreported(folder, self.sweep)
        return []

    def cleanup(self, detached):
        if not detached:
            for folder in self.folders:
                if folder not in self.live:
                    remove_engine_folder(folder)


BACKENDS = {"local": Local, "ssh": Ssh, "slurm": Slurm}


# ---- the driver -------------------------------------------------------------------------------------------------

VALUE_OPTIONS = {"--out": "out", "--graph": "graphs", "--dim": "dims", "--orders": "orders", "--alias": "aliases",
                 "--strategies": "strategies", "--sim-args": "sim_args", "--jobs": "jobs", "--sbatch": "sbatch",
                 "--runs-per-task": "runs_per_task", "--timeout": "timeout", "--retries": "retries",
                 "--max-running": "max_running", "--status": "status", "--collect": "collect"}
FLAGS = {"--corpus": "corpus", "--dry-run": "dry_run", "--slurm": "slurm", "--detach": "detach",
         "--keep-array": "keep_array"}
NUMBERS = {"jobs": 1, "runs_per_task": 1, "timeout": 1, "max_running": 1, "retries": 0}


class Args:
    def __init__(self):
        self.out = self.strategies = self.jobs = self.max_running = self.timeout = self.status = self.collect = None
        self.graphs, self.dims, self.aliases, self.sbatch, self.parallel_args = [], [], [], [], []
        self.corpus = self.dry_run = self.slurm = self.detach = self.keep_array = False
        self.orders, self.sim_args, self.retries, self.runs_per_task, self.mode = "file", "", 0, 16, "local"


def parse(argv):
    a = Args()
    i = 0
    while i < len(argv):
        o = argv[i]
        i += 1
        if o in VALUE_OPTIONS:
            if i >= len(argv):
                raise Stop(f"{o} needs a value (see --help)")
            name, v = VALUE_OPTIONS[o], argv[i]
            i += 1
            if name in NUMBERS:
                if not re.fullmatch(r"[0-9]{1,9}", v) or int(v) < NUMBERS[name]:
                    raise Stop(f"{o} '{v}' is not a {'positive ' if NUMBERS[name] else ''}whole number")
                setattr(a, name, int(v))
            elif name == "sbatch":
                a.sbatch += shlex.split(v)
            elif isinstance(getattr(a, name), list):
                getattr(a, name).append(v)
            else:
                setattr(a, name, v)
        elif o in FLAGS:
            setattr(a, FLAGS[o], True)
        elif o == "--":
            a.parallel_args = argv[i:]
            break
        elif o in ("-h", "--help"):
            print((__doc__ or "").strip() + "\n\n" + OPTIONS, end="")
            raise Stop("", 0)
        else:
            raise Stop(f"unknown option '{o}' (see --help)")
    if any(re.fullmatch(r"-S.*|--sshlogin(=.*)?|--slf(=.*)?|--sshloginfile(=.*)?", p) for p in a.parallel_args):
        a.mode = "ssh"
    if a.slurm:
        if a.mode != "local":
            raise Stop("--slurm runs on the cluster's nodes: give it no --sshlogin")
        a.mode = "slurm"
    if a.sbatch and not a.slurm:
        raise Stop("--sbatch goes with --slurm")
    if any(re.fullmatch(r"(--array|-a)(=.*)?|-a.+", x) for x in a.sbatch):
        raise Stop("--sbatch may not set --array: the sweep makes its arrays (--max-running K gives their %K)")
    if (a.detach or a.keep_array) and not a.slurm:
        raise Stop("--detach and --keep-array go with --slurm")
    return a


def listed(sim, section):
    """The names sim --list gives under a section heading."""
    text = subprocess.run([sim, "--list"], capture_output=True, text=True, check=True).stdout
    names, on = [], False
    for line in text.splitlines():
        if line[:1].isalpha():
            on = line.startswith(section)
        elif on and line.strip():
            names.append(line.split()[0])
    return names


def make_jobs(a, sim, caller):
    """The product, in a fixed order (the table's order for a fresh sweep, whatever the back end)."""
    graphs = []
    for g in a.graphs:
        file, sep, dims = g.partition(":")
        if not file.startswith("/"):  # relative to the caller; written relative to the repository
            file = os.path.relpath(os.path.normpath(os.path.join(caller, file)), ROOT)
        graphs.append((file, dims))
    if a.corpus:
        with open(os.path.join(ROOT, "graphs/models/models.tsv"), encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if not parts[0] or parts[0].startswith("#") or len(parts) < 3:
                    continue
                path = os.path.normpath(os.path.join("graphs/models", parts[1]))
                if not os.path.isfile(path):
                    say(f"{path} is missing (make models); skipped")
                    continue
                graphs.append((path, "" if parts[2] == "-" else parts[2]))
    if not graphs:
        raise Stop("no graphs: give --graph or --corpus")
    combos = [""]
    for spec in a.dims:
        name, eq, values = spec.partition("=")
        if not eq or not name or not values:
            raise Stop(f"--dim '{spec}' is not NAME=V1,V2,...")
        combos = [f"{c},{name}={v}" if c else f"{name}={v}" for c in combos for v in values.split(",")]
    for file, _ in graphs:
        if not os.path.isfile(file):
            raise Stop(f"'{file}' does not exist")
    known = listed(sim, "placement") if os.access(sim, os.X_OK) else None
    strategies = a.strategies.split(",") if a.strategies else [s for s in known if s != "naive"]
    orders, aliases = a.orders.split(","), a.aliases or ["all"]
    if known is not None:  # every name against sim's own lists: a typo is one message, not a sweep of failures
        def check(kind, given, names):
            for name in given:
                if name not in names:
                    raise Stop(f"unknown {kind} '{name}' (one of: {', '.join(names)})")
        check("strategy", strategies, known)
        check("order", orders, listed(sim, "operator orders"))
        alias_names = listed(sim, "alias strategies")
        for s in aliases:
            if s not in ("all", "none"):
                check("alias strategy", s.split(","), alias_names)
    extra = a.sim_args.split()
    jobs = []
    for file, fixed in graphs:
        for c in combos:
            dimset = ",".join(x for x in (fixed, c) if x)
            dim_args = [x for d in dimset.split(",") if d for x in ("--dim", d)]
            for o in orders:
                for al in aliases:
                    for s in strategies:
                        argv = ["--graph", file] + dim_args + ["--order", o, "--alias", al, "--strategy", s] + extra
                        jobs.append(Job(len(jobs) + 1, (file, dimset or "-", o, al, s), argv))
    return jobs


def keep_aside(out, lines, source):
    """Malformed lines go to OUT.rejected (appended) and are said; they are never dropped silently."""
    if not lines:
        return
    lines = sorted(lines, key=lambda line: line[0])
    path = out + ".rejected"
    with open(path, "a", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(text if text.endswith("\n") else text + "\n" for _, text, _ in lines)
        f.flush()
        os.fsync(f.fileno())
    for number, _, why in lines[:5]:
        say(f"{source} line {number}: {why}: kept aside in {path}; its run is done again")
    if len(lines) > 5:
        say(f"... and {len(lines) - 5} more lines of {source}, also in {path}")


def merge(out, table, state, order, header):
    """The journal's rows into the table, rewritten whole beside itself; then the journal goes."""
    jheader, rows, bad = Journal.read(state.journal)
    keep_aside(out, bad, state.journal)
    if jheader is not None and header is not None and jheader != header:
        keep_aside(out, [(0, json.dumps({"key": list(k), "row": r}), "written by a sim with other columns")
                         for k, r in rows], state.journal)
        rows = []
    position = {k: i for i, k in enumerate(order)}
    added = 0
    for k, r in sorted(rows, key=lambda kr: position.get(kr[0], len(position))):
        if k not in table.keys:
            table.keys[k] = r
            table.rows.append(r)
            added += 1
    table.header = table.header or header
    if added or (table.rejected and os.path.exists(out)):
        write_replacing(out, table.text(), os.stat(out).st_mode & 0o777 if os.path.exists(out) else 0o644)
    keep_aside(out, table.rejected, out)
    table.rejected = []
    if os.path.exists(state.journal):
        os.unlink(state.journal)
    return added


def harvest_left(state, sweep):
    """Engine folders a sweep left (killed, or detached): its runs stopped, their records journaled. Returns
    the arrays still in Slurm's queue and those that ended; other folders are removed once read."""
    live, ended = [], []
    for folder in state.engines():
        engine = os.path.join(folder, "engine")
        try:
            pid = int(read_text(engine).split()[0])
            if b"parallel" not in open(f"/proc/{pid}/cmdline", "rb").read():
                raise ProcessLookupError  # the engine is gone (its pid now names another program)
            os.killpg(pid, signal.SIGTERM)
            say(f"stopped the runs a killed sweep left running (process group {pid})")
            for _ in range(100):
                time.sleep(0.1)
                os.killpg(pid, 0)
            os.killpg(pid, signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass
        jobs = folder_jobs(folder)
        is_array = os.path.basename(folder).startswith("slurm-")
        sweep.take(read_streams(folder, {}), {n: j for n, (j, _) in jobs.items()},
                   slurm_where(folder) if is_array else HERE)
        if not is_array:
            remove_engine_folder(folder)
        elif array_live(folder):
            live.append(folder)
        else:
            ended.append(folder)
    return live, ended


class Progress:
    """A bar on a terminal; otherwise a line at the start and every SWEEP_PROGRESS_SECONDS."""

    def __init__(self, total):
        self.total, self.tty, self.last, self.shown = total, sys.stderr.isatty(), 0.0, -1
        try:
            self.every = float(os.environ.get("SWEEP_PROGRESS_SECONDS") or 10)
        except ValueError:
            self.every = 10.0

    def show(self, done, force=False):
        if self.tty:
            if done != self.shown:
                fill = 40 * done // max(1, self.total)
                try:
                    sys.stderr.write(f"\r{PROG}: [{'#' * fill}{' ' * (40 - fill)}] {done}/{self.total}")
                    sys.stderr.flush()
                except (OSError, ValueError):
                    pass
                self.shown = done
        elif force or time.time() - self.last >= self.every:
            say(f"{done} of {self.total} runs done")
            self.last = time.time()

    def end(self):
        if self.tty and self.shown >= 0:
            try:
                sys.stderr.write("\n")
            except (OSError, ValueError):
                pass


def report_failures(sweep, total):
    """Failures once per distinct message, with a count, each naming the first run it came from."""
    groups = {}
    position = {j.key: j.n for j in sweep.jobs}
    for key, (lines, where) in sorted(sweep.failed.items(), key=lambda kv: position.get(kv[0], 1 << 62)):
        groups.setdefault(tuple(lines), []).append((key, where))
    say(f"{len(sweep.failed)} of {total} runs failed; their rows are missing (a rerun retries them). Messages:")
    text = []
    for lines, runs in groups.items():
        key, where = runs[0]
        text.append(f"  {f'{len(runs)} runs, the first ' if len(runs) > 1 else ''}{run_name(key)}"
                    f"{f' [{where}]' if where else ''}:")
        text += [f"    {line}" for line in lines]
    try:
        sys.stderr.write("".join(t + "\n" for t in text))
    except (OSError, ValueError):
        pass


def status_command(out):
    """--status: the table's sweep in flight: each array's tasks (Slurm's state and reason) and their runs."""
    state = State(out)
    folders = state.engines()
    if not folders:
        print(f"{out}: nothing in flight" + ("" if os.path.exists(out) else " (no table yet)"))
        return 0
    for folder in folders:
        jobs = folder_jobs(folder)
        results = {r[0]: r[1] for r in read_streams(folder, {})}
        ok = sum(1 for st in results.values() if st == 0)
        line = f"{len(jobs)} runs: {ok} done, {len(results) - ok} failed, {len(jobs) - len(results)} not ended"
        job = array_id(folder)
        if not job:
            print(f"{os.path.basename(folder)}: {line} (left by a sweep that ended without finishing: a rerun "
                  "or --collect gathers it)")
            continue
        q = squeue(job)
        print(f"Slurm job {job}: {line}")
        if q is None:
            print("  Slurm does not answer (squeue failed)")
        for task, (st, reason) in sorted((q or {}).items(), key=lambda t: int(t[0]) if t[0].isdigit() else 0):
            print(f"  task {task}: {st.lower()}" + (f" ({reason})" if reason and reason != "None" else ""))
        for task, cause in sorted(task_causes(folder).items()):
            print(f"  task {task}: {cause[len('its array task '):]}")
        if q == {}:
            print("  every task has ended: bench/sweep.py --collect gathers its rows")
    return 0


def sim_header(sim):
    r = subprocess.run([sim, "--graph", "graphs/noop-chain.onnx", "--format", "csv"], capture_output=True)
    header = next(csv.reader(io.StringIO(r.stdout.decode("utf-8", "surrogateescape"))), None)
    if r.returncode != 0 or not header:
        raise Stop(f"{sim} does not run here: {r.stderr.decode('utf-8', 'replace').strip()}")
    return header


def run(argv):
    a = parse(argv)
    caller = os.getcwd()
    os.chdir(ROOT)
    if a.status:
        return status_command(os.path.normpath(os.path.join(caller, a.status)))
    a.out = a.out or a.collect
    if not a.out:
        raise Stop("--out FILE.csv is required (see --help)")
    out = os.path.normpath(os.path.join(caller, a.out))
    if shutil.which("parallel") is None:
        raise Stop("GNU parallel is not installed (make deps installs it)")
    sim = os.environ.get("SIM_BIN") or "build/sim"
    if not os.environ.get("SIM_BIN") and not a.dry_run:
        subprocess.run(["make", "-s", "build/sim"], check=True)
    elif not a.strategies and not os.access(sim, os.X_OK) and not a.collect:
        raise Stop(f"--dry-run builds nothing: give --strategies, or build {sim} first (make)")
    sim = os.path.abspath(sim)
    jobs = [] if a.collect else make_jobs(a, sim, caller)
    header = sim_header(sim) if os.access(sim, os.X_OK) else None
    table = Table(out).load()
    if table.header is not None and header is not None and table.header != header:
        raise Stop(f"{out} has other columns than this sim writes (made by another version?): use another --out")
    state = State(out)
    sweep = Sweep(a, jobs, sim, header or table.header)
    sweep.known = table.keys
    if a.dry_run:
        _, journaled, _ = Journal.read(state.journal)
        have = set(table.keys) | {k for k, _ in journaled}
        left = [j for j in jobs if j.key not in have]
        say(f"{len(jobs)} runs, {len(jobs) - len(left)} already in {out}, {len(left)} to run")
        sys.stdout.write("".join(" ".join(shlex.quote(x) for x in j.argv) + "\n" for j in left))
        return 0
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    made_out = not os.path.exists(out)
    received = []
    for s in SIGNAL_EXIT:
        signal.signal(s, lambda sig, frame: received.append(sig))
    state.lock()
    status = 1
    try:
        status = drive(a, out, table, state, sweep, jobs, received)
        return status
    finally:
        sweep.journal_close()
        if made_out and os.path.exists(out) and not table.rows:
            os.unlink(out)  # a table this run made that holds no row: not left behind
        journal_left = os.path.exists(state.journal) and os.path.getsize(state.journal) > 0
        state.unlock(remove=not state.engines() and not journal_left)


def drive(a, out, table, state, sweep, jobs, received):
    order = [j.key for j in jobs]
    sweep.journal = Journal(state.journal, sweep.header)
    sweep.journal.open()
    live, ended = harvest_left(state, sweep)
    sweep.journal_close()
    recovered = merge(out, table, state, order, sweep.header)
    if recovered:
        say(f"{recovered} rows that a sweep killed before it could write them added to {out}")
    in_flight = {job.key for f in live for job, _ in folder_jobs(f).values()} - set(table.keys)
    if a.collect:
        return collect(a, out, table, state, sweep, live, ended)
    sweep.failed.clear()  # what failed before is run again
    for folder in ended:
        remove_engine_folder(folder)
    sweep.done.clear()
    left = [j for j in jobs if j.key not in table.keys and j.key not in in_flight]
    flying = sum(1 for j in jobs if j.key in in_flight)
    say(f"{len(jobs)} runs, {len(jobs) - len(left) - flying} already in {out}, {len(left)} to run")
    if flying:
        say(f"{flying} runs are in Slurm arrays still in the queue ({', '.join(map(array_id, live))}): "
            "not submitted again")
    if not left and not flying:
        return 0
    if live and a.mode != "slurm":
        raise Stop(f"{flying} runs of {out} are in Slurm arrays still in the queue: finish them with --slurm "
                   "(or --collect), or use another --out")
    backend = BACKENDS[a.mode](sweep, state)
    detached = False
    sweep.journal.open()
    try:
        if left:
            backend.check()
            try:
                backend.start(left)
            except OSError as e:  # the engine's files (a full disk): nothing ran
                raise Stop(f"cannot write {e.filename or state.dir}: {e.strerror}; nothing was run", 1)
        for folder in live:
            backend.adopt(folder)
        if a.detach:
            detached = True
            say(f"detached: Slurm job(s) {', '.join(map(array_id, backend.folders))} run the sweep; "
                f"bench/sweep.py --status {a.out} says where they are, bench/sweep.py --collect {a.out} gathers the rows")
            return 0
        total = len(left) + flying
        progress = Progress(total)
        progress.show(0, force=True)
        while not received and sweep.write_error is None and sweep.fatal is None:
            running = backend.poll()
            progress.show(len(sweep.done) + len(sweep.failed))
            if not running:
                break
            time.sleep(0.2)
        if received or sweep.write_error or sweep.fatal:
            backend.stop(received[0] if received else signal.SIGTERM)
        engine_said = backend.finish()
        sweep.write_error = sweep.write_error or full_disk(engine_said, state.dir)
        progress.end()
        sweep.journal_close()
        try:
            merge(out, table, state, order, sweep.header)
        except OSError as e:
            sweep.write_error = sweep.write_error or f"cannot rewrite {out}: {e.strerror}"
        finished = len(sweep.done)
        if sweep.fatal:
            say(sweep.fatal + (f" ({finished} runs finished elsewhere: their rows are in {out})" if finished else ""))
            return 2
        if sweep.write_error:
            say(f"{sweep.write_error}; stopped with {finished} of {total} runs finished: their rows are in {out} or "
                f"kept in {state.journal}; with space freed, the same command adds them and runs the rest")
            return 1
        kept = [array_id(f) for f in getattr(backend, "live", ())]
        if received:
            name = signal.Signals(received[0]).name
            if kept:
                say(f"stopped by {name}: {finished} of {total} runs finished, their rows kept in {out}; Slurm job(s) "
                    f"{', '.join(kept)} keep running: bench/sweep.py --collect {a.out} gathers them")
            elif finished == 0:
                say(f"stopped by {name} before any of the {total} runs finished; run the same command again to run them")
            else:
                say(f"stopped by {name}: {finished} of {total} runs finished, their rows kept in {out}; run the same "
                    f"command again to run the other {total - finished}")
            return SIGNAL_EXIT[received[0]]
        for j in left:
            if j.key not in sweep.done and j.key not in sweep.failed:
                sweep.failed[j.key] = (["it never reported back"] + engine_said, "")
        if sweep.failed:
            report_failures(sweep, total)
            return 1
        say(f"{finished} rows appended to {out}")
        return 0
    finally:
        backend.cleanup(detached)


def collect(a, out, table, state, sweep, live, ended):
    """--collect: the rows of every ended array into the table (already merged), their missing runs named."""
    for folder in ended:
        unreported(folder, sweep)
    gathered = len(sweep.done)
    for folder in ended:
        remove_engine_folder(folder)
    if live:
        say(f"{gathered} rows added to {out}; Slurm job(s) {', '.join(map(array_id, live))} still in the queue: "
            f"collect again later (bench/sweep.py --status {a.out} says where they are)")
    else:
        say(f"{gathered} rows added to {out}; nothing is left in flight")
    if sweep.failed:
        report_failures(sweep, len(sweep.failed) + gathered)
        return 1
    return 0


def main():
    try:
        return run(sys.argv[1:])
    except Stop as e:
        if str(e):
            say(str(e))
        return e.status
    except subprocess.CalledProcessError as e:
        say(f"{e.cmd[0]} failed (exit {e.returncode})")
        return 2


if __name__ == "__main__":
    sys.exit(main())
