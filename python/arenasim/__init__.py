"""arenasim from Python: how big must a model's activation arena be, and where does each buffer go?

    import arenasim
    p = arenasim.plan("gpt2.onnx", strategy="bestfit", dims={"seq": 128})
    p.arena_bytes, p.lower_bound_bytes      # the plan's arena and the bound no plan goes below
    pandas.DataFrame(p.buffers)             # name, offset, size, first, last, bin: one row a buffer
    arenasim.compare("gpt2.onnx")           # one dict a strategy, as `sim --format json` writes them

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

__all__ = ["Error", "Buffer", "Plan", "plan", "compare", "names", "__version__"]


class Error(Exception):
    """A model, trace or option arenasim could not plan with: the message names the file and the fault."""


def _load():
    path = os.environ.get("ARENASIM_LIBRARY")
    if not path:
        # prefix/lib/python3/dist-packages/arenasim/__init__.py -> prefix/lib/libarenasim.so.1
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.normpath(os.path.join(here, "..", "..", "..", "libarenasim.so.1"))
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"arenasim: cannot load its library {path} ({e}); make install puts it there, "
                          "or name it with ARENASIM_LIBRARY") from None


class _Options(ctypes.Structure):
    _fields_ = [("strategy", ctypes.c_char_p), ("order", ctypes.c_char_p), ("alias", ctypes.c_char_p),
                ("fuse", ctypes.c_char_p), ("dims", ctypes.POINTER(ctypes.c_char_p)),
                ("budget_work", ctypes.c_uint64), ("budget_seconds", ctypes.c_double), ("align", ctypes.c_uint64),
                ("verify", ctypes.c_int), ("run", ctypes.c_int)]


class _Buffer(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_uint64), ("size", ctypes.c_uint64),
                ("first", ctypes.c_uint32), ("last", ctypes.c_uint32), ("bin", ctypes.c_uint32)]


_lib = _load()
_P = ctypes.c_void_p
for _name, _res, _args in [
        ("arenasim_options_init", None, [ctypes.POINTER(_Options)]),
        ("arenasim_plan_file", _P, [ctypes.c_char_p, ctypes.POINTER(_Options), ctypes.POINTER(ctypes.c_void_p)]),
        ("arenasim_plan_free", None, [_P]),
        ("arenasim_plan_arena_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_plan_lower_bound_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_plan_naive_bytes", ctypes.c_uint64, [_P]),
        ("arenasim_plan_strategy", ctypes.c_char_p, [_P]),
        ("arenasim_plan_detail", ctypes.c_char_p, [_P]),
        ("arenasim_plan_steps", ctypes.c_uint32, [_P]),
        ("arenasim_plan_buffer_count", ctypes.c_size_t, [_P]),
        ("arenasim_plan_buffer", ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(_Buffer)]),
        ("arenasim_plan_report_json", ctypes.c_void_p, [_P]),
        ("arenasim_plan_run", ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]),
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
class Plan:
    """A planned arena: its size, the lower bound, and every buffer's place (`buffers`, in trace order)."""
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


def _options(strategy, order, alias, fuse, dims, budget_work, budget_seconds, align, verify, run, keep):
    _check_numbers(budget_work, budget_seconds, align)
    o = _Options()
    _lib.arenasim_options_init(ctypes.byref(o))
    o.strategy, o.order, o.alias, o.fuse = (_bytes(v, w) for v, w in ((strategy, "strategy"), (order, "order"),
                                                                       (alias, "alias"), (fuse, "fuse")))
    if dims:
        items = dims.items() if isinstance(dims, dict) else (d.split("=", 1) for d in dims)
        bindings = [_bytes(f"{k}={v}", "dims") for k, v in items] + [None]  # the library checks them as --dim
        array = (ctypes.c_char_p * len(bindings))(*bindings)
        keep.append(array)
        o.dims = ctypes.cast(array, ctypes.POINTER(ctypes.c_char_p))
    o.budget_work = int(budget_work or 0)
    o.budget_seconds = float(budget_seconds or 0)
    o.align = int(align or 0)
    o.verify = 1 if verify else 0
    o.run = 1 if run else 0
    return o


def plan(path, strategy=None, *, order=None, alias=None, fuse=None, dims=None, budget_work=None, budget_seconds=None,
         align=None, verify=True, run=False, check=True):
    """Plans a model (a path ending in .onnx; dims binds its symbolic dimensions, {"seq": 128}) or a trace
    file with one placement strategy (default "best" on a work budget of 20,000, as `sim`). Options as sim's
    flags: order, alias ("all", "none" or a comma list), fuse ("ort"), budget_work (search nodes: the same
    plan on any machine), budget_seconds, align. With run=True the model's kernels run in the planned
    arena and, with check (the default), the run is checked as `sim --run --check --poison` checks it.
    Raises Error when it cannot."""
    keep = []
    o = _options(strategy, order, alias, fuse, dims, budget_work, budget_seconds, align, verify, run, keep)
    err = ctypes.c_void_p()
    p = _lib.arenasim_plan_file(_bytes(os.fspath(path), "the path"), ctypes.byref(o), ctypes.byref(err))
    if not p:
        raise Error(_owned_text(err.value) or "arenasim: unknown error")
    try:
        ran = ""
        if run:
            if _lib.arenasim_plan_run(p, 1 if check else 0, ctypes.byref(err)) != 0:
                raise Error(_owned_text(err.value) or "arenasim: unknown error")
            ran = "checked bit for bit, with poison" if check else "ran"
        buffers = []
        b = _Buffer()
        for k in range(_lib.arenasim_plan_buffer_count(p)):
            _lib.arenasim_plan_buffer(p, k, ctypes.byref(b))
            buffers.append(Buffer(_text(b.name), b.offset, b.size, b.first, b.last, b.bin))
        return Plan(path=os.fspath(path), strategy=_text(_lib.arenasim_plan_strategy(p)),
                    arena_bytes=_lib.arenasim_plan_arena_bytes(p), lower_bound_bytes=_lib.arenasim_plan_lower_bound_bytes(p),
                    naive_bytes=_lib.arenasim_plan_naive_bytes(p), steps=_lib.arenasim_plan_steps(p),
                    detail=_text(_lib.arenasim_plan_detail(p)), buffers=buffers,
                    report=json.loads(_owned_text(_lib.arenasim_plan_report_json(p)))[0], run=ran)
    finally:
        _lib.arenasim_plan_free(p)


def compare(path, strategies=None, **options):
    """Every placement strategy (or those named) on the same model or trace: a list of report rows, the dicts
    `sim --compare --format json` prints (pandas.DataFrame(rows) makes the table)."""
    return [plan(path, s, **options).report for s in (strategies or names("strategies"))]


def names(kind="strategies"):
    """The names of the placement strategies, operator orders or alias strategies, in the registry's order."""
    which = {"strategies": 0, "orders": 1, "aliases": 2}[kind]
    array = _lib.arenasim_names(which)
    out, k = [], 0
    while array[k] is not None:
        out.append(_text(array[k]))
        k += 1
    return out
