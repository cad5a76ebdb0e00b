"""arenasim from Python: how big must a model's activation arena be, and where does each buffer go?

    import arenasim
    p = arenasim.plan("gpt2.onnx", strategy="bestfit", dims={"seq": 128})
    p.arena_bytes, p.lower_bound_bytes      # the plan's arena and the bound no plan goes below
    pandas.DataFrame(p.buffers)             # name, offset, size, first, last, bin: one row a buffer
    arenasim.compare("gpt2.onnx")           # one dict a strategy, as `sim --format json` writes them
    r = arenasim.plan_range("gpt2.onnx", dims={"batch": 1, "seq": range(1, 1025)})
    r.arena_at(seq=512), r.formula()        # the arena at one point, and as a formula of the dims

A thin client of the shared library libarenasim (arenasim.h), through ctypes: the same pipeline, defaults
and bytes as the `sim` command. Errors raise arenasim.Error with the library's message. The library is
looked for beside this package (make install puts both under one prefix), or where ARENASIM_LIBRARY
names it.
"""
import ctypes
import json
import math
import os
from dataclasses import dataclass, field

__all__ = ["Error", "Buffer", "Plan", "Model", "Range", "Structured", "plan", "plan_range", "plan_structured",
           "compare", "load", "trace", "names", "__version__"]


class Error(Exception):
    """A model, trace or option arenasim could not plan with: the message names the file and the fault."""


def _load():
    path = os.environ.get("ARENASIM_LIBRARY")
    if not path:
        # prefix/lib/python3/dist-packages/arenasim/__init__.py -> prefix/lib/libarenasim.so.2
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.normpath(os.path.join(here, "..", "..", "..", "libarenasim.so.2"))
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"arenasim: cannot load its library {path} ({e}); make install puts it there, "
                          "or name it with ARENASIM_LIBRARY") from None


_STRS = ctypes.POINTER(ctypes.c_char_p)


class _Options(ctypes.Structure):  # arenasim_options (arenasim.h), field for field
    _fields_ = [("size", ctypes.c_size_t), ("strategy", ctypes.c_char_p), ("order", ctypes.c_char_p),
                ("alias", ctypes.c_char_p), ("fuse", ctypes.c_char_p), ("dims", _STRS),
                ("budget_work", ctypes.c_uint64), ("budget_seconds", ctypes.c_double), ("align", ctypes.c_uint64),
                ("verify", ctypes.c_int), ("run", ctypes.c_int), ("bounds", _STRS), ("pins", _STRS),
                ("bins", ctypes.c_char_p), ("inputs", ctypes.c_char_p), ("weights", ctypes.c_char_p),
                ("io", ctypes.c_char_p), ("transpose", ctypes.c_char_p), ("pad_last", ctypes.c_uint64),
                ("strict_runtime", ctypes.c_int), ("scratch", ctypes.c_int), ("allow_unknown_ops", ctypes.c_int),
                ("order_budget", ctypes.c_uint64), ("order_seconds", ctypes.c_double), ("seed", ctypes.c_int64),
                ("search_max", ctypes.c_int64), ("search_engines", ctypes.c_char_p), ("range_check", ctypes.c_int),
                ("range_every", ctypes.c_int), ("range_one_plan", ctypes.c_int), ("kv_capacity", ctypes.c_uint64),
                ("kv", _STRS), ("tiers", ctypes.c_char_p), ("pool", ctypes.c_char_p), ("order_work", ctypes.c_uint64)]


class _RunOptions(ctypes.Structure):  # arenasim_run_options
    _fields_ = [("size", ctypes.c_size_t), ("repeat", ctypes.c_uint), ("threads", ctypes.c_uint),
                ("kernels", ctypes.c_char_p), ("layouts", ctypes.c_char_p), ("winograd", ctypes.c_char_p),
                ("skinny", ctypes.c_char_p), ("check", ctypes.c_int), ("poison", ctypes.c_int),
                ("expect", ctypes.c_char_p), ("dump_outputs", ctypes.c_char_p), ("rtol", ctypes.c_double),
                ("atol", ctypes.c_double), ("allow_degenerate", ctypes.c_int)]


class _RunResult(ctypes.Structure):  # arenasim_run_result
    _fields_ = [("size", ctypes.c_size_t), ("median_seconds", ctypes.c_double), ("arena_bytes", ctypes.c_uint64),
                ("checked_elements", ctypes.c_uint64), ("max_abs_error", ctypes.c_double),
                ("max_rel_error", ctypes.c_double)]


class _Buffer(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_uint64), ("size", ctypes.c_uint64),
                ("first", ctypes.c_uint32), ("last", ctypes.c_uint32), ("bin", ctypes.c_uint32)]


class _Tier(ctypes.Structure):  # arenasim_tier
    _fields_ = [("name", ctypes.c_char_p), ("capacity", ctypes.c_uint64), ("arena", ctypes.c_uint64),
                ("buffers", ctypes.c_uint64), ("reads", ctypes.c_uint64), ("writes", ctypes.c_uint64),
                ("cost", ctypes.c_double)]


_lib = _load()
_P = ctypes.c_void_p
for _name, _res, _args in [
        ("arenasim_options_init", None, [ctypes.POINTER(_Options)]),
        ("arenasim_plan_file", _P, [ctypes.c_char_p, ctypes.POINTER(_Options), ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_model_load", _P, [ctypes.c_char_p, ctypes.POINTER(_Options), ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_model_plan", _P, [_P, ctypes.POINTER(_Options), ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_model_free", None, [_P]),
        ("arenasim_trace_new", _P, []),
        ("arenasim_trace_add", ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint32,
                                              ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_run_options_init", None, [ctypes.POINTER(_RunOptions)]),
        ("arenasim_plan_run_with", ctypes.c_int, [_P, ctypes.POINTER(_RunOptions), ctypes.POINTER(_RunResult),
                                                  ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_plan_free", None, [_P]),
        ("arenasim_plan_arena_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_plan_lower_bound_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_plan_naive_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_plan_strategy", ctypes.c_char_p, [_P]),
        ("arenasim_plan_detail", ctypes.c_char_p, [_P]),
        ("arenasim_plan_steps", ctypes.c_uint32, [_P]),
        ("arenasim_plan_buffer_count", ctypes.c_size_t, [_P]),
        ("arenasim_plan_buffer", ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(_Buffer)]),
        ("arenasim_plan_tier_count", ctypes.c_size_t, [_P]),
        ("arenasim_plan_tier", ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(_Tier)]),
        ("arenasim_plan_tier_cost", ctypes.c_double, [_P]),
        ("arenasim_plan_tier_bound", ctypes.c_double, [_P]),
        ("arenasim_plan_report_json", ctypes.c_void_p, [_P]),
        ("arenasim_plan_run", ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_range_file", _P, [ctypes.c_char_p, ctypes.POINTER(_Options), ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_range_free", None, [_P]),
        ("arenasim_range_dim_count", ctypes.c_size_t, [_P]),
        ("arenasim_range_dim_name", ctypes.c_char_p, [_P, ctypes.c_size_t]),
        ("arenasim_range_arena_at", ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_int64),
                                                   ctypes.POINTER(ctypes.c_uint64)]),
        ("arenasim_range_lower_bound_at", ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_int64),
                                                         ctypes.POINTER(ctypes.c_uint64)]),
        ("arenasim_range_report_json", ctypes.c_void_p, [_P]),
        ("arenasim_entries_plan", _P, [_STRS, ctypes.POINTER(_Options), ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_entries_free", None, [_P]),
        ("arenasim_entries_arena_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_entries_lower_bound_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_entries_state_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_entries_report_json", ctypes.c_void_p, [_P]),
        ("arenasim_generate", _P, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.POINTER(_Options),
                                   ctypes.POINTER(_RunOptions), ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_generation_free", None, [_P]),
        ("arenasim_generation_token_count", ctypes.c_size_t, [_P]),
        ("arenasim_generation_token", ctypes.c_int64, [_P, ctypes.c_size_t]),
        ("arenasim_generation_matched", ctypes.c_uint32, [_P]),
        ("arenasim_generation_arena_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_generation_report_json", ctypes.c_void_p, [_P]),
        ("arenasim_structured_plan", _P, [ctypes.c_char_p, ctypes.POINTER(_Options), ctypes.c_char_p,
                                          ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_structured_free", None, [_P]),
        ("arenasim_structured_term", ctypes.c_uint64, [_P, ctypes.c_char_p]),
        ("arenasim_structured_fits", ctypes.c_int, [_P]),
        ("arenasim_structured_proven", ctypes.c_int, [_P]),
        ("arenasim_structured_work", ctypes.c_uint64, [_P]),
        ("arenasim_structured_fingerprint", ctypes.c_char_p, [_P]),
        ("arenasim_structured_buffer_count", ctypes.c_size_t, [_P]),
        ("arenasim_structured_buffer", ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint32),
                                                      ctypes.POINTER(ctypes.c_uint32),
                                                      ctypes.POINTER(ctypes.c_uint64)]),
        ("arenasim_structured_write_solution", ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_names", ctypes.POINTER(ctypes.c_char_p), [ctypes.c_int]),
        ("arenasim_version", ctypes.c_char_p, []),
        ("arenasim_free", None, [ctypes.c_void_p])]:
    _f = getattr(_lib, _name)
    _f.restype, _f.argtypes = _res, _args

__version__ = _lib.arenasim_version().decode()


def _text(raw):
    return raw.decode("utf-8", "surrogateescape") if raw is not None else None


def _owned_text(ptr):
    """A string the library allocated: read, then freed."""
    try:
        return _text(ctypes.string_at(ptr)) if ptr else None
    finally:
        if ptr:
            _lib.arenasim_free(ptr)


def _bytes(s, what="a name"):
    if s is None:
        return None
    b = os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode("utf-8", "surrogateescape")
    if b"\0" in b:  # C would cut the text there: another file or name than the one given
        raise Error(f"{what} holds a NUL byte, which no file name or option of sim can hold: {s!r}")
    return b


# The checks sim's options make (sim/cli/options.c), with its words, so that the module refuses what the command
# refuses: ctypes would otherwise wrap a negative or huge integer into an unsigned field (budget_work=-1 a year-long
# search, align=2**64 the default) and pass a NaN through.
_U64 = 1 << 64
_YEAR = 31536000


def _whole(name, v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise Error(f"{name} takes a whole number, not {v!r}")
    if v >= _U64:
        raise Error(f"{name} takes a whole number, not '{v}'")
    return v


def _check_numbers(budget_work, budget_seconds, align):
    if budget_work is not None and _whole("budget_work", budget_work) <= 0:
        raise Error("budget_work takes a positive number (search nodes; a climb step costs one per buffer)")
    if align is not None:
        a = _whole("align", align)
        if a <= 0 or a & (a - 1):
            raise Error("align takes a power of two")
    if budget_seconds is not None:
        if isinstance(budget_seconds, bool) or not isinstance(budget_seconds, (int, float)):
            raise Error(f"budget_seconds takes a finite number, not {budget_seconds!r}")
        if not math.isfinite(budget_seconds):
            raise Error(f"budget_seconds takes a finite number, not '{budget_seconds}'")
        if budget_seconds <= 0:
            raise Error("budget_seconds takes a positive number of seconds")
        if budget_seconds > _YEAR:
            raise Error("budget_seconds takes at most 31,536,000 seconds (a year)")


@dataclass(frozen=True)
class Buffer:
    """One buffer of a plan: the tensor it holds, where it goes, and the steps it lives (inclusive)."""
    name: str
    offset: int
    size: int
    first: int
    last: int
    bin: int


@dataclass(frozen=True)
class Tier:
    """One memory tier of a tiered plan (tiers="sram=256KiB,dram"): its arena, its capacity (None: none), its
    buffers and the bytes they are read and written, and their cost there."""
    name: str
    capacity: object
    arena: int
    buffers: int
    reads: int
    writes: int
    cost: float


@dataclass(frozen=True)
class Plan:
    """A planned arena: its size, the lower bound, and every buffer's place (`buffers`, in trace order); with
    tiers, each tier (`tiers`; a buffer's bin is its tier), the plan's cost of bytes moved and the least any plan
    moves (`tier_cost`, `tier_bound`)."""
    path: str
    strategy: str
    arena_bytes: int
    lower_bound_bytes: int
    naive_bytes: int
    steps: int
    detail: str
    buffers: list = field(repr=False)
    report: dict = field(repr=False)  # the row `sim --format json` prints for this plan
    run: str = ""  # with run=True: "checked bit for bit, with poison" (check=True) or "ran"
    tiers: list = field(default_factory=list, repr=False)
    tier_cost: float = 0.0
    tier_bound: float = 0.0


def _list(name, values, keep):
    items = values.items() if isinstance(values, dict) else (str(v).split("=", 1) for v in values)
    texts = [_bytes(f"{k}={v}", name) for k, v in items] + [None]  # the library checks them as the flags
    array = (ctypes.c_char_p * len(texts))(*texts)
    keep.append(array)
    return ctypes.cast(array, _STRS)


def _options(options, keep):
    """arenasim_options from keyword options named as its fields (the command's flags), each checked as its C
    type asks: text, a NAME=VALUE list, a positive whole number, a flag, a seed (0 to 2^32 - 1), seconds."""
    fields = dict(_Options._fields_)
    unknown = sorted(set(options) - set(fields) | ({"size"} & set(options)))
    if unknown:
        raise Error(f"unknown option {unknown[0]!r} (the options are arenasim_options' fields)")
    _check_numbers(options.get("budget_work"), options.get("budget_seconds"), options.get("align"))
    o = _Options()
    _lib.arenasim_options_init(ctypes.byref(o))
    for name, value in options.items():
        kind = fields[name]
        if value is None:
            continue
        if kind is ctypes.c_char_p:
            setattr(o, name, _bytes(value, name))
        elif kind is _STRS:
            setattr(o, name, _list(name, value, keep))
        elif kind is ctypes.c_uint64:
            if _whole(name, value) <= 0:
                raise Error(f"{name} takes a positive number")
            setattr(o, name, value)
        elif kind is ctypes.c_int:
            setattr(o, name, 1 if value else 0)
        elif kind is ctypes.c_int64:
            if not 0 <= _whole(name, value) < 1 << 32:
                raise Error(f"{name} takes a number from 0 to 4,294,967,295")
            setattr(o, name, value)
        elif name == "order_seconds":  # budget_seconds: _check_numbers above
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= _YEAR:
                raise Error("order_seconds takes a positive number of seconds, at most 31,536,000 (a year)")
            o.order_seconds = float(value)
        else:
            o.budget_seconds = float(value)
    return o


def _raise(err):
    raise Error(_owned_text(err.value) or "arenasim: unknown error")


def _read_plan(p, path, ran):
    buffers = []
    b = _Buffer()
    for k in range(_lib.arenasim_plan_buffer_count(p)):
        _lib.arenasim_plan_buffer(p, k, ctypes.byref(b))
        buffers.append(Buffer(_text(b.name), b.offset, b.size, b.first, b.last, b.bin))
    tiers = []
    t = _Tier()
    for k in range(_lib.arenasim_plan_tier_count(p)):
        _lib.arenasim_plan_tier(p, k, ctypes.byref(t))
        tiers.append(Tier(_text(t.name), None if t.capacity == _U64 - 1 else t.capacity, t.arena, t.buffers, t.reads,
                          t.writes, t.cost))
    return Plan(path=path, tiers=tiers, tier_cost=_lib.arenasim_plan_tier_cost(p),
                tier_bound=_lib.arenasim_plan_tier_bound(p), strategy=_text(_lib.arenasim_plan_strategy(p)),
                arena_bytes=_lib.arenasim_plan_arena_bytes(p),
                lower_bound_bytes=_lib.arenasim_plan_lower_bound_bytes(p),
                naive_bytes=_lib.arenasim_plan_naive_bytes(p), steps=_lib.arenasim_plan_steps(p),
                detail=_text(_lib.arenasim_plan_detail(p)), buffers=buffers,
                report=json.loads(_owned_text(_lib.arenasim_plan_report_json(p)))[0], run=ran)


def _run(p, check, run_options):
    """arenasim_plan_run_with: check as `sim --run --check --poison`, run_options named as its fields."""
    o = _run_options(run_options, check)
    result = _RunResult(size=ctypes.sizeof(_RunResult))
    err = ctypes.c_void_p()
    if _lib.arenasim_plan_run_with(p, ctypes.byref(o), ctypes.byref(result), ctypes.byref(err)) != 0:
        _raise(err)
    return "checked bit for bit, with poison" if check else "ran"


def _run_options(run_options, check=False):
    """arenasim_run_options from keyword options named as its fields; check sets check and poison."""
    o = _RunOptions()
    _lib.arenasim_run_options_init(ctypes.byref(o))
    o.check = o.poison = 1 if check else 0
    for name, value in (run_options or {}).items():
        if name not in dict(_RunOptions._fields_) or name == "size":
            raise Error(f"unknown run option {name!r} (the run options are arenasim_run_options' fields)")
        if name in ("repeat", "threads") and not 0 < _whole(name, value) <= 100000:
            raise Error(f"{name} takes a count from 1 to 100,000")
        if name in ("rtol", "atol") and (isinstance(value, bool) or not isinstance(value, (int, float))
                                         or not math.isfinite(value) or value < 0):
            raise Error(f"{name} takes a finite number, 0 or more")
        field_type = dict(_RunOptions._fields_)[name]
        setattr(o, name, _bytes(value, name) if field_type is ctypes.c_char_p else value)
    return o


class _Handle:
    """A library handle freed by `_free` on close, at the end of a with block, or when collected."""
    _free = None

    def close(self):
        if self._handle:
            type(self)._free(self._handle)
            self._handle = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Model(_Handle):
    """A model or trace loaded once (arenasim_model_load) and planned many times: each plan takes its own
    strategy, budgets, order, sharing and layout; the dims, bounds, inputs and fusions are fixed at load."""

    def __init__(self, handle, path, options):
        self._handle, self.path, self._options = handle, path, options

    def plan(self, strategy=None, *, run_options=None, check=True, **options):
        """A Plan with these options over the load's; with run=True the kernels run in the arena, checked as
        `sim --run --check --poison` checks them unless check=False; run_options as arenasim_run_options'
        fields (threads, expect, rtol, ...)."""
        merged = dict(self._options, strategy=strategy, **options)
        keep = []
        o = _options(merged, keep)
        err = ctypes.c_void_p()
        p = _lib.arenasim_model_plan(self._handle, ctypes.byref(o), ctypes.byref(err))
        if not p:
            _raise(err)
        try:
            ran = _run(p, check, run_options) if merged.get("run") else ""
            return _read_plan(p, self.path, ran)
        finally:
            _lib.arenasim_plan_free(p)

    def compare(self, strategies=None, **options):
        """Every placement strategy (or those named) on this model: the report rows, as `sim --compare
        --format json` prints them (pandas.DataFrame(rows) makes the table)."""
        return [self.plan(s, **options).report for s in (strategies or names("strategies"))]



def load(path, **options):
    """Loads a model (a path ending in .onnx) or a trace file once: a Model to plan many times."""
    keep = []
    o = _options(options, keep)
    err = ctypes.c_void_p()
    m = _lib.arenasim_model_load(_bytes(os.fspath(path), "the path"), ctypes.byref(o), ctypes.byref(err))
    if not m:
        _raise(err)
    load_only = {k: v for k, v in options.items() if k not in ("dims", "bounds", "inputs", "fuse",
                                                                  "allow_unknown_ops")}
    return Model(m, os.fspath(path), load_only)


def trace(buffers):
    """A trace built in memory: buffers as (name, size, first, last[, align]) tuples or dicts with those keys,
    each live from step first to step last inclusive; a Model to plan."""
    m = _lib.arenasim_trace_new()
    err = ctypes.c_void_p()
    for b in buffers:
        name, size, first, last, align = ((b["name"], b["size"], b["first"], b["last"], b.get("align", 0))
                                          if isinstance(b, dict) else (tuple(b) + (0,))[:5])
        for what, v in (("size", size), ("first", first), ("last", last), ("align", align)):
            if _whole(what, v) < 0 or v >= (1 << 64 if what in ("size", "align") else 1 << 32):
                raise Error(f"trace: buffer {name!r}: {what} is out of range: {v}")
        if _lib.arenasim_trace_add(m, _bytes(name, "a buffer name"), size, first, last, align, ctypes.byref(err)):
            _lib.arenasim_model_free(m)
            _raise(err)
    return Model(m, "trace", {})


def plan(path, strategy=None, *, run=False, check=True, run_options=None, **options):
    """Plans a model (a path ending in .onnx; dims binds its symbolic dimensions, {"seq": 128}) or a trace
    file with one placement strategy (default "best" on a work budget of 20,000, as `sim`). Options are
    arenasim_options' fields, each a flag of sim's: order, alias ("all", "none" or a comma list), fuse ("ort"),
    budget_work (search nodes: the same plan on any machine), budget_seconds, align, pins, bins, tiers
    ("sram=256KiB,dram": memory tiers, each buffer's tier the plan's choice; Plan.tiers), ... With
    run=True the model's kernels run in the planned arena and, with check (the default), the run is checked as
    `sim --run --check --poison` checks it. Raises Error when it cannot."""
    with load(path, **options, run=run) as m:
        return m.plan(strategy, check=check, run_options=run_options)


def compare(path, strategies=None, **options):
    """Every placement strategy (or those named) on the same model or trace, loaded once: a list of report rows,
    the dicts `sim --compare --format json` prints (pandas.DataFrame(rows) makes the table)."""
    with load(path, **options) as m:
        return m.compare(strategies)


class Range(_Handle):
    """A model planned over ranges of its dims (arenasim_range_file, `sim --dim NAME=LO:HI`): the arena and the
    lower bound at every point of the grid, and as exact functions of the dims (`report["arena_by_dims"]`: pieces,
    each a box and a polynomial; `formula()` as text)."""

    def __init__(self, handle, path):
        self._handle, self.path = handle, path
        count = _lib.arenasim_range_dim_count(handle)
        self.dims = [_text(_lib.arenasim_range_dim_name(handle, k)) for k in range(count)]
        self.report = json.loads(_owned_text(_lib.arenasim_range_report_json(handle)))

    def _at(self, getter, values):
        missing = [d for d in self.dims if d not in values]
        extra = sorted(set(values) - set(self.dims))
        if missing or extra:
            raise Error(f"give a value for each dim of the range ({', '.join(self.dims)})" +
                        (f", not {extra[0]!r}" if extra else ""))
        point = (ctypes.c_int64 * len(self.dims))(*[_whole(d, values[d]) for d in self.dims])
        out = ctypes.c_uint64()
        if getter(self._handle, point, ctypes.byref(out)):
            raise Error(f"{values} is not a point of the range")
        return out.value

    def arena_at(self, **values):
        """The arena at one point of the grid, e.g. arena_at(seq=512)."""
        return self._at(_lib.arenasim_range_arena_at, values)

    def lower_bound_at(self, **values):
        """The lower bound at one point of the grid."""
        return self._at(_lib.arenasim_range_lower_bound_at, values)

    def pieces(self, function="arena"):
        """The pieces of the arena ("arena") or of the lower bound ("lower_bound"), as the JSON report has them."""
        return self.report[f"{function}_by_dims"]

    def formula(self, function="arena"):
        """The function as text, one piece a line: "seq 1..1024: 3,072·seq + 2,555,904"."""
        lines = []
        for p in self.pieces(function):
            box = ", ".join(f"{d} {p['from'][d]}..{p['to'][d]}" if p["from"][d] != p["to"][d] else f"{d}={p['from'][d]}"
                            for d in self.dims)
            lines.append(f"{box}: {p['text']}")
        return "\n".join(lines)



Model._free = staticmethod(lambda h: _lib.arenasim_model_free(h))
Range._free = staticmethod(lambda h: _lib.arenasim_range_free(h))


def _range_spec(name, value):
    """A dim's value as --dim takes it: a whole number, "LO:HI[:STEP]", (lo, hi[, step]) inclusive, or a range."""
    if isinstance(value, range):
        if len(value) == 0 or value.step <= 0:
            raise Error(f"dims: {name} is an empty or falling range")
        return f"{value.start}:{value[-1]}:{value.step}"
    if isinstance(value, tuple):
        if not 2 <= len(value) <= 3:
            raise Error(f"dims: {name} takes (lo, hi) or (lo, hi, step)")
        return ":".join(str(_whole(name, v)) for v in value)
    return value


def plan_range(path, dims, strategy=None, *, check=False, every=False, one_plan=False, **options):
    """Plans a model over ranges of its dims: dims maps each name to a value or to a range of them (range(1, 1025),
    (1, 1024), (16, 1024, 16) or "1:1024"), as `sim --dim NAME=LO:HI`; check=True loads and places every point on
    its own too (report["check"]), every=True loads every point, one_plan=True moves one plan to every point
    (report["one_plan"]). Other options as plan(). Raises Error."""
    keep = []
    given = {k: _range_spec(k, v) for k, v in (dims.items() if isinstance(dims, dict) else
                                                (str(d).split("=", 1) for d in dims))}
    o = _options(dict(options, dims=given, strategy=strategy, range_check=check, range_every=every,
                      range_one_plan=one_plan), keep)
    err = ctypes.c_void_p()
    r = _lib.arenasim_range_file(_bytes(os.fspath(path), "the path"), ctypes.byref(o), ctypes.byref(err))
    if not r:
        _raise(err)
    return Range(r, os.fspath(path))


@dataclass(frozen=True)
class Entries:
    """Models planned as entry points in one arena (arenasim_entries_plan, `sim --graph A --graph B`): the one
    arena, its lower bound, the state's bytes (the KV caches) and the report (per entry: alone_arena_bytes,
    transient_peak_bytes, state_bytes)."""
    paths: list
    arena_bytes: int
    lower_bound_bytes: int
    state_bytes: int
    report: dict


def plan_entries(paths, strategy=None, **options):
    """Plans models as entry points in one arena, a prefill and a decode step: their KV caches
    (kv_capacity=N) one buffer each for all of them. dims may bind one entry's dim as {"ENTRY:NAME": VALUE}, ENTRY
    the file's name without .onnx. Other options as plan(). Raises Error."""
    keep = []
    paths = [os.fspath(p) for p in paths]
    texts = [_bytes(p, "the path") for p in paths] + [None]
    array = (ctypes.c_char_p * len(texts))(*texts)
    o = _options(dict(options, strategy=strategy), keep)
    err = ctypes.c_void_p()
    e = _lib.arenasim_entries_plan(ctypes.cast(array, _STRS), ctypes.byref(o), ctypes.byref(err))
    if not e:
        _raise(err)
    try:
        return Entries(paths, _lib.arenasim_entries_arena_bytes(e), _lib.arenasim_entries_lower_bound_bytes(e),
                       _lib.arenasim_entries_state_bytes(e),
                       json.loads(_owned_text(_lib.arenasim_entries_report_json(e))))
    finally:
        _lib.arenasim_entries_free(e)


@dataclass(frozen=True)
class Generation:
    """A greedy generation run inside one plan (arenasim_generate, `sim ... --generate N`): the tokens made, how many
    of them from the first equal the expected ones, the one arena and the report (the plan, the prompt, the tokens)."""
    tokens: list
    matched: int
    arena_bytes: int
    report: dict


def generate(prefill, decode, tokens, strategy=None, *, run_options=None, **options):
    """Runs a greedy generation of `tokens` tokens inside one plan: the prefill over the prompt (inputs=DIR, a model
    zoo folder), then decode steps, the caches (kv_capacity=N) kept in the arena from step to step. run_options may
    give expect=DIR (torch's tokens in DIR/output_0.pb), poison and the kernels' choices. Raises Error."""
    keep = []
    o = _options(dict(options, strategy=strategy), keep)
    ro = _run_options(run_options)
    err = ctypes.c_void_p()
    g = _lib.arenasim_generate(_bytes(os.fspath(prefill), "the path"), _bytes(os.fspath(decode), "the path"),
                               _whole("tokens", tokens), ctypes.byref(o), ctypes.byref(ro), ctypes.byref(err))
    if not g:
        _raise(err)
    try:
        made = [_lib.arenasim_generation_token(g, k) for k in range(_lib.arenasim_generation_token_count(g))]
        return Generation(made, _lib.arenasim_generation_matched(g), _lib.arenasim_generation_arena_bytes(g),
                          json.loads(_owned_text(_lib.arenasim_generation_report_json(g))))
    finally:
        _lib.arenasim_generation_free(g)


_TERMS = ("capacity_overflow", "total_peak", "max_peak", "reuse_cost")


@dataclass(frozen=True)
class Structured:
    """A structured problem (schema-v1, docs/structured.md) placed and validated: every objective term
    (`objective`, by its schema-v1 name), whether every pool is within its capacity (`fits`) and whether the search
    proved the placement optimal (`proven`), the work it took, the problem's fingerprint, and each buffer's place
    (`placements`: one dict per buffer, its id, pool id and offset)."""
    path: str
    objective: dict
    fits: bool
    proven: bool
    work: int
    fingerprint: str
    placements: list = field(repr=False)


def plan_structured(path, strategy=None, *, solution=None, solution_out=None, budget_work=None):
    """A structured problem (FILE.json) placed by `strategy` (names("structured"); "search" by default) on a work
    budget of search nodes, or — with `solution` — that solution envelope checked instead; the placement is
    validated against every rule. With `solution_out`, the placement is written as a solution envelope (refused when
    it is over a capacity)."""
    keep = []
    o = _options(dict(strategy=strategy, budget_work=budget_work), keep)
    err = ctypes.c_void_p()
    s = _lib.arenasim_structured_plan(_bytes(path, "a path"), ctypes.byref(o), _bytes(solution, "a path"),
                                      ctypes.byref(err))
    if not s:
        _raise(err)
    try:
        if solution_out is not None and _lib.arenasim_structured_write_solution(
                s, _bytes(solution_out, "a path"), ctypes.byref(err)) != 0:
            _raise(err)
        ident, pool, offset = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_uint64()
        placements = []
        for k in range(_lib.arenasim_structured_buffer_count(s)):
            _lib.arenasim_structured_buffer(s, k, ctypes.byref(ident), ctypes.byref(pool), ctypes.byref(offset))
            placements.append({"buffer": ident.value, "pool": pool.value, "offset": offset.value})
        return Structured(str(path), {t: _lib.arenasim_structured_term(s, t.encode()) for t in _TERMS},
                          bool(_lib.arenasim_structured_fits(s)), bool(_lib.arenasim_structured_proven(s)),
                          _lib.arenasim_structured_work(s), _text(_lib.arenasim_structured_fingerprint(s)), placements)
    finally:
        _lib.arenasim_structured_free(s)


def names(kind="strategies"):
    """The names of the placement strategies, operator orders, alias strategies or structured problems' strategies
    ("structured"), in the registry's order."""
    which = {"strategies": 0, "orders": 1, "aliases": 2, "structured": 3}[kind]
    array = _lib.arenasim_names(which)
    out, k = [], 0
    while array[k] is not None:
        out.append(_text(array[k]))
        k += 1
    return out
