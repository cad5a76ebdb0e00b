#!/usr/bin/python3
"""tables.py — turns sweep CSVs (sim --format csv rows, as bench/sweep.py appends them) into the
deterministic files of results/: a canonical CSV (rows sorted, the timing column dropped, so a rerun on a
work budget writes the same bytes) and markdown tables. Standard library only.

Usage:
  tables.py canon IN.csv OUT.csv                 sort rows (strategies keep their order), drop plan_seconds
  tables.py pivot IN.csv ROW COL VALUE           markdown: one row per ROW value, one column per COL value
                                                 (VALUE: a column, ratio = arena / lower bound, or
                                                 arena in B/KiB/MiB/GiB); first column order follows the file
  tables.py savings IN.csv                       markdown: bytes saved per sharing kind, per graph
  tables.py named IN.csv OUT.csv                 the table with graphs named as the markdown names them
"""
import csv
import os
import sys

KEY = ("graph", "dims", "order", "alias", "strategy")
KINDS = ("noop", "inplace", "gather", "slice", "split", "concat", "concat_dedup")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def corpus_names():
    """File (as sweep.py --corpus names it) -> (corpus name, its dims), from graphs/models/models.tsv."""
    names = {}
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graphs", "models")
    with open(os.path.join(here, "models.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, file, dims = line.rstrip("\n").split("\t")
            path = os.path.relpath(os.path.normpath(os.path.join(here, file)), os.path.join(here, "..", ".."))
            names[path] = (name, dims)
    return names


CORPUS = corpus_names()


def graph_name(row):
    """The corpus name when the row is a corpus model at its usual dims, else file name and dims."""
    known = CORPUS.get(row["graph"])
    if known and known[1] == row["dims"]:
        return known[0]
    name = os.path.basename(row["graph"])
    name = name[:-5] if name.endswith(".onnx") else name
    return name if row["dims"] == "-" else f"{name} ({row['dims']})"


def natural(value):
    """Sort key: numbers by value (seq=16 before seq=128), text by text."""
    parts = []
    for piece in value.replace("=", ",").split(","):
        parts.append((0, int(piece), "") if piece.isdigit() else (1, 0, piece))
    return parts


def canon(src, dst):
    rows = read(src)
    fields = [c for c in rows[0].keys() if c != "plan_seconds"] if rows else []
    # Stable: within one graph/dims/order/alias the strategies keep the file's order (the registry's, as
    # bench/sweep.py runs them).
    rows.sort(key=lambda r: [natural(r[k]) for k in KEY if k != "strategy"])
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def human(b):
    """Bytes in the unit that keeps the number between 1 and 1024 (B, KiB, MiB, GiB)."""
    b = int(b)
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= scale:
            return f"{b / scale:,.2f} {unit}"
    return f"{b} B"


def value_of(row, what):
    if what == "ratio":
        return f"{int(row['arena_bytes']) / int(row['lower_bound_bytes']):.3f}"
    if what == "arena":
        return human(row["arena_bytes"])
    return row[what]


def label(row, column):
    return graph_name(row) if column == "graph" else row[column]


def pivot(src, row_col, col_col, what):
    rows = read(src)
    row_keys, col_keys, cells, bounds = [], [], {}, {}
    for r in rows:
        rk, ck = label(r, row_col), label(r, col_col)
        if rk not in row_keys:
            row_keys.append(rk)
        if ck not in col_keys:
            col_keys.append(ck)
        cells[rk, ck] = value_of(r, what)
        bounds[rk] = r["lower_bound_bytes"]
    if row_col != "graph":
        row_keys.sort(key=natural)
    # The bound is a property of the row only when every column of the row shares it (not across alias sets).
    row_bounds = {}
    for r in rows:
        row_bounds.setdefault(label(r, row_col), set()).add(r["lower_bound_bytes"])
    show_bound = what in ("arena", "ratio") and all(len(b) == 1 for b in row_bounds.values())
    head = [row_col] + col_keys + (["lower bound"] if show_bound else [])
    print("| " + " | ".join(head) + " |")
    print("|---" + "|---:" * (len(head) - 1) + "|")
    for rk in row_keys:
        line = [rk] + [cells.get((rk, ck), "—") for ck in col_keys]
        if show_bound:
            line.append(human(bounds[rk]))
        print("| " + " | ".join(line) + " |")


def savings(src):
    rows = read(src)
    head = ["graph", "no sharing", "with sharing", "saved"] + list(KINDS) + ["fallbacks"]
    print("| " + " | ".join(head) + " |")
    print("|---" + "|---:" * (len(head) - 1) + "|")
    for r in rows:
        no_alias, traced = int(r["no_alias_bytes"]), int(r["trace_bytes"])
        saved = f"{100 * (no_alias - traced) / no_alias:.1f}%" if no_alias else "—"
        kinds = [human(r[f"saved_{k}_bytes"]) if int(r[f"saved_{k}_bytes"]) else "·" for k in KINDS]
        print("| " + " | ".join([graph_name(r), human(no_alias), human(traced), saved] + kinds + [r["fallbacks"]]) + " |")


def named(src, dst):
    """The table with each graph named as the markdown tables name it (the corpus name), so a picture of it
    (sim --from DST --plot compare) says what the tables say."""
    rows = read(src)
    for r in rows:
        r["graph"] = graph_name(r)
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else [], lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main(argv):
    if len(argv) >= 4 and argv[1] == "canon":
        canon(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "named":
        named(argv[2], argv[3])
    elif len(argv) == 6 and argv[1] == "pivot":
        pivot(argv[2], argv[3], argv[4], argv[5])
    elif len(argv) == 3 and argv[1] == "savings":
        savings(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
