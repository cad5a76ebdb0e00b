#!/usr/bin/python3
"""export_training.py — one training step of a torch module (forward, loss, backward, and optionally the
optimizer's update) written as an ONNX graph the planner reads.

The step is traced with torch.fx's make_fx over fake tensors (nothing is computed, so batch 32 of vgg16 traces in
seconds): the forward with the parameters swapped in (torch.nn.utils.stateless), the loss, torch.autograd.grad over the
parameters. Every aten op of the trace becomes a node, in the order torch runs them (the file's order is eager
PyTorch's order):

- aten ops with an ONNX equivalent become that op (Conv, Relu, Add, Gemm, MaxPool with indices, Concat,
  LayerNormalization, ...), so sharing, in-place reuse and shape inference apply to them;
- the others (batch-norm and every backward op) become ops of the domain org.pytorch.aten with the aten name
  (`convolution_backward`), their output shapes in value_info (`sim --allow-unknown-ops` plans them from it);
- views take no bytes: a view that keeps the layout (view, reshape, unsqueeze, detach) is a Reshape or Identity;
  a view that does not (t, transpose, permute, expand, slice, select, split) is not a node at all, and whatever
  reads it reads the tensor it views (a Linear's t() feeding mm/addmm becomes Gemm's transA/transB);
- an in-place op (relu_, add_, a mutation through a view) writes a new version of the tensor it mutates, and
  later readers read that version; the planner's in-place reuse puts it back in the same bytes;
- nodes whose results nothing reads are left out (the batch-norm counters' add_, empty placeholders).

Parameters and the module's buffers are graph inputs named as in named_parameters()/named_buffers(), and graph
outputs too: the model's state lives through the whole step, as the next step reads it. Each parameter's gradient
is a graph output NAME.grad; the loss is the output `loss`. With --optimizer, each
parameter's update is one node of org.pytorch.aten (sgd_, momentum_, adam_) that reads the parameter, its
gradient and its state (momentum buffers, Adam's two moments: graph inputs NAME.momentum, NAME.exp_avg,
NAME.exp_avg_sq) and writes them in place, in torch's order (after the whole backward, as optimizer.step()); it
outputs a one-byte marker NAME.updated (a graph output) so the update is a node that must run. The optimizer's
own temporaries (Adam's denominator) are not modelled.

The roles are written as model metadata, one name per line, which `sim` reads to account for them separately:
arenasim.training.loss, .parameters, .buffers, .gradients, .optimizer_state.

With --checkpoint PATTERNS (comma-separated fnmatch patterns over module names, e.g. 'layer*'), each matching
module runs under torch.utils.checkpoint (use_reentrant=False): its activations are not saved but recomputed in
the backward, and the trace shows the recomputation.

Usage (Debian's python3 with python3-torch, python3-torchvision, python3-onnx):
  /usr/bin/python3 graphs/export_training.py MODEL OUT.onnx [--batch 32] [--size 224] [--classes 1000]
                    [--optimizer none|sgd|momentum|adam] [--checkpoint PATTERNS]
MODEL: a torchvision classifier's name (resnet18, vit_b_16, video.r3d_18, ...), one of the small modules of
this file (mlp, cnn), or FILE.py:FUNCTION where FUNCTION() returns (module, example_input, target).
From Python: export_training(module, example_input, target, path, optimizer=..., checkpoint=...).
"""
import argparse
import fnmatch
import importlib.util
import sys

import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils.stateless import _reparametrize_module
from torch.utils.checkpoint import checkpoint as torch_checkpoint

OPSET = 17
ATEN = "org.pytorch.aten"
OPTIMIZERS = {"none": (), "sgd": (), "momentum": ("momentum",), "adam": ("exp_avg", "exp_avg_sq")}

DTYPES = {
    torch.float32: TensorProto.FLOAT, torch.float16: TensorProto.FLOAT16, torch.bfloat16: TensorProto.BFLOAT16,
    torch.float64: TensorProto.DOUBLE, torch.int64: TensorProto.INT64, torch.int32: TensorProto.INT32,
    torch.int8: TensorProto.INT8, torch.uint8: TensorProto.UINT8, torch.bool: TensorProto.BOOL,
}

# views that keep the layout: the planner's Reshape/Identity (no bytes)
SAME_LAYOUT_VIEWS = {"view", "_reshape_alias", "_unsafe_view", "reshape", "unsqueeze", "squeeze", "flatten",
                     "detach", "alias", "lift_fresh", "lift_fresh_copy"}
# views that change the layout: no node; readers read the viewed tensor
STRIDED_VIEWS = {"t", "transpose", "permute", "expand", "slice", "select", "split", "split_with_sizes", "narrow",
                 "as_strided", "unbind", "diagonal", "chunk", "numpy_T", "unfold"}
# ops that allocate without reading anything
CREATIONS = {"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "zeros", "zeros_like",
             "ones", "ones_like", "full", "full_like", "new_zeros", "new_ones", "scalar_tensor", "arange"}
UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "neg": "Neg", "sqrt": "Sqrt",
         "abs": "Abs", "reciprocal": "Reciprocal", "log": "Log", "erf": "Erf"}
BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow"}


def aten_name(target):
    """('relu_', 'default') from aten.relu_.default."""
    s = str(target)
    if not s.startswith("aten."):
        return s, ""
    parts = s[5:].split(".")
    return parts[0], parts[1] if len(parts) > 1 else ""


class Storage:
    """One block of bytes: a tensor the step allocates, its current version's ONNX name."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype


class Value:
    """An fx value: its storage, and the ONNX tensor holding exactly it (None for a strided view)."""

    def __init__(self, storage, name, shape, dtype, version, view=None):
        self.storage, self.name, self.shape, self.dtype, self.version, self.view = \
            storage, name, tuple(shape), dtype, version, view


class Writer:
    def __init__(self):
        self.nodes, self.value_info, self.inits, self.used = [], [], [], set()
        self.n_consts = 0

    def unique(self, name):
        base, k = name, 1
        while name in self.used:
            name, k = "%s/%d" % (base, k), k + 1
        self.used.add(name)
        return name

    def info(self, name, shape, dtype):
        self.value_info.append(helper.make_tensor_value_info(name, DTYPES[dtype], list(shape)))

    def const(self, values, dtype=TensorProto.INT64, dims=None):
        self.n_consts += 1
        name = self.unique("const.%d" % self.n_consts)
        vals = values if isinstance(values, list) else [values]
        self.inits.append(helper.make_tensor(name, dtype, dims if dims is not None else [len(vals)], vals))
        return name

    def node(self, op, inputs, outputs, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0] if outputs else op, domain=domain,
                                           **{k: v for k, v in attrs.items() if v is not None}))


def meta_list(n):
    """The fake values of a node's results; a node of several results has them on its getitem users."""
    if "val" in n.meta:
        v = n.meta["val"]
        return list(v) if isinstance(v, (list, tuple)) else [v]
    got = {u.args[1]: u.meta.get("val") for u in n.users if getattr(u.target, "__name__", "") == "getitem"}
    return [got.get(k) for k in range(max(got) + 1)] if got else [None]


def multiple(n):
    return "val" not in n.meta or isinstance(n.meta["val"], (list, tuple))


class Converter:
    def __init__(self, graph, input_names, roles):
        self.g, self.w, self.vals, self.roles = graph, Writer(), {}, roles
        self.input_names = input_names
        self.storage_current = {}  # Storage -> (onnx name, version)

    # --- values ---
    def new_storage(self, name, shape, dtype):
        s = Storage(name, shape, dtype)
        self.storage_current[s] = (name, 0)
        return s

    def read(self, v):
        """The ONNX tensor a reader of value v reads: v itself when current, else its storage's current version."""
        if v is None:
            return ""
        cur, version = self.storage_current[v.storage]
        if v.view is None and v.version == version and v.name is not None:
            return v.name
        if v.view is None and v.shape == v.storage.shape and cur is not None:
            return cur  # a same-layout view of the whole storage, taken before a mutation
        return cur if cur is not None else ""

    def plain(self, v):
        """v is exactly one ONNX tensor (not a strided view, not stale)."""
        return v is not None and v.view is None and v.name is not None and \
            self.storage_current[v.storage][1] == v.version

    def define(self, node, k, storage=None, view=None, name=None):
        """The k-th result of `node` as a new Value (a new storage unless given)."""
        m = meta_list(node)[k]
        shape, dtype = tuple(m.shape), m.dtype
        if storage is None:
            nm = self.w.unique(name or (node.name if k == 0 else "%s.%d" % (node.name, k)))
            storage = self.new_storage(nm, shape, dtype)
            self.w.info(nm, shape, dtype)
            return Value(storage, nm, shape, dtype, 0)
        if view is not None:
            return Value(storage, None, shape, dtype, self.storage_current[storage][1], view)
        nm = self.w.unique(name or node.name)
        self.w.info(nm, shape, dtype)
        return Value(storage, nm, shape, dtype, self.storage_current[storage][1])

    def mutated(self, v):
        """A new version of v's storage (an in-place op writes it): returns the ONNX name of the version."""
        s = v.storage
        version = self.storage_current[s][1]
        nm = self.w.unique("%s.v%d" % (s.name, version + 1))
        self.storage_current[s] = (nm, version + 1)
        self.w.info(nm, s.shape, s.dtype)
        return nm

    # --- conversion ---
    def arg_value(self, a):
        return self.vals.get(a) if isinstance(a, torch.fx.Node) else None

    def opaque(self, node, op, outs, reads=None):
        ins = []
        for a in (reads if reads is not None else self.tensor_args(node)):
            ins.append(self.read(self.vals[a]) if isinstance(a, torch.fx.Node) else "")
        while ins and ins[-1] == "":
            ins.pop()
        self.w.node(op, ins, outs, domain=ATEN)

    def tensor_args(self, node):
        flat = []
        for a in list(node.args) + list(node.kwargs.values()):
            if isinstance(a, (list, tuple)):
                flat.extend(x for x in a if isinstance(x, torch.fx.Node))
            elif isinstance(a, torch.fx.Node):
                flat.append(a)
        return [a for a in flat if a in self.vals and self.vals[a] is not None]

    def convert(self):
        g = self.g
        users = {n: len(n.users) for n in g.nodes}
        placeholders = [n for n in g.nodes if n.op == "placeholder"]
        for n, name in zip(placeholders, self.input_names):
            m = n.meta.get("val")
            if name is None or m is None:
                self.vals[n] = None
                continue
            s = self.new_storage(name, m.shape, m.dtype)
            self.vals[n] = Value(s, name, m.shape, m.dtype, 0)
            self.w.used.add(name)
        for n in g.nodes:
            if n.op == "call_function":
                self.call(n, users)
            elif n.op == "output":
                self.output = n.args[0]

    def call(self, n, users):
        if getattr(n.target, "__name__", "") == "getitem":
            src, k = n.args
            self.vals[n] = self.vals[src][k] if isinstance(self.vals.get(src), list) else None
            return
        op, overload = aten_name(n.target)
        mutates = op.endswith("_") and not op.startswith("_") or op in ("copy_",)
        args = n.args
        a0 = self.arg_value(args[0]) if args else None
        if users[n] == 0 and not (mutates and a0 is not None):
            self.vals[n] = None  # nothing reads it (a mutation matters even then: its tensor may be read later)
            return
        if op in SAME_LAYOUT_VIEWS and a0 is not None:
            if self.plain(a0):
                shape = tuple(meta_list(n)[0].shape)
                v = self.define(n, 0, storage=a0.storage)
                if shape == a0.shape:
                    self.w.node("Identity", [a0.name], [v.name])
                else:
                    self.w.node("Reshape", [a0.name, self.w.const(list(shape))], [v.name])
                self.vals[n] = v
            else:
                self.vals[n] = self.define(n, 0, storage=a0.storage, view=(op, a0))
            return
        if op in STRIDED_VIEWS and a0 is not None:
            metas = meta_list(n)
            if op in ("split", "split_with_sizes", "unbind", "chunk"):
                self.vals[n] = [Value(a0.storage, None, m.shape, m.dtype, self.storage_current[a0.storage][1],
                                      (op, a0)) for m in metas]
            elif op in ("t", "transpose") and len(a0.shape) == 2 and a0.view and a0.view[0] in ("t", "transpose") \
                    and a0.view[1].view is None:
                self.vals[n] = a0.view[1]  # the transpose of a transpose: the tensor itself
            else:
                self.vals[n] = self.define(n, 0, storage=a0.storage, view=(op, a0, args[1:]))
            return
        if op in CREATIONS:
            # bytes allocated, nothing written yet: the storage gets its first version from whoever writes it
            m = meta_list(n)[0]
            s = Storage(self.w.unique(n.name), m.shape, m.dtype)
            self.storage_current[s] = (None, -1)
            if op in ("empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided"):
                self.vals[n] = Value(s, None, m.shape, m.dtype, -1)
                return
            self.w.info(s.name, m.shape, m.dtype)
            self.storage_current[s] = (s.name, 0)
            # ones_like(loss) starts the backward: the tensor it is made like stays its input, so the backward
            # depends on the loss as it does in torch
            like = [a for a in n.args[:1] if isinstance(a, torch.fx.Node) and self.vals.get(a) is not None]
            self.opaque(n, op, [s.name], reads=like if op.endswith("_like") else [])
            self.vals[n] = Value(s, s.name, m.shape, m.dtype, 0)
            return
        if mutates and a0 is not None:
            self.mutation(n, op, a0)
            return
        self.compute(n, op)

    def is_input(self, v):
        return v.storage.name in self.roles["inputs"]

    def mutation(self, n, op, a0):
        base = op[:-1]
        s = a0.storage
        first_write = self.storage_current[s][0] is None
        old = None if first_write else self.read(a0)
        if self.is_input(a0):
            # a graph input (a counter, a running statistic) written in place: the planner never writes over a
            # graph input, and nothing in the step reads it again; left out
            self.vals[n] = a0
            return
        whole = (self.plain(a0) or first_write and a0.view is None) and a0.shape == s.shape
        others = [self.read(self.vals[a]) for a in n.args[1:] if isinstance(a, torch.fx.Node)]
        nm = self.mutated(a0)
        if whole and base in UNARY and not others and old:
            self.w.node(UNARY[base], [old], [nm])
        elif whole and base in BINARY and old and len(n.args) >= 2 and n.kwargs.get("alpha", 1) == 1:
            b = n.args[1]
            bn = self.read(self.vals[b]) if isinstance(b, torch.fx.Node) else self.w.const(
                float(b), TensorProto.FLOAT, [])
            if isinstance(b, torch.fx.Node) and not self.plain(self.vals[b]):
                self.w.node(base + "_", [old, bn], [nm], domain=ATEN)
            else:
                self.w.node(BINARY[base], [old, bn], [nm])
        elif whole and base == "hardtanh" and old:
            lo = n.args[1] if len(n.args) > 1 else -1.0
            hi = n.args[2] if len(n.args) > 2 else 1.0
            self.w.node("Clip", [old, self.w.const(float(lo), TensorProto.FLOAT, []),
                                 self.w.const(float(hi), TensorProto.FLOAT, [])], [nm])
        else:
            self.w.node(op, ([old] if old else [""]) + others, [nm], domain=ATEN)
            if self.w.nodes[-1].input and self.w.nodes[-1].input[0] == "":
                del self.w.nodes[-1].input[0]
        if a0.view is None:
            self.vals[n] = Value(s, nm, a0.shape, a0.dtype, self.storage_current[s][1]) \
                if a0.shape == s.shape else Value(s, None, a0.shape, a0.dtype, self.storage_current[s][1], ("view",))
        else:
            self.vals[n] = Value(s, None, a0.shape, a0.dtype, self.storage_current[s][1], a0.view)

    def transposed(self, a):
        """(ONNX name, transposed) for a 2-D matrix argument: itself, or the tensor a t()/transpose views."""
        v = self.vals[a]
        if self.plain(v) and len(v.shape) == 2:
            return v.name, 0
        if v.view and v.view[0] in ("t", "transpose") and len(v.shape) == 2 and self.plain(v.view[1]) \
                and len(v.view[1].shape) == 2:
            return v.view[1].name, 1
        return None, 0

    def compute(self, n, op):
        metas = meta_list(n)
        args = n.args
        all_plain = all(self.plain(self.vals[a]) for a in self.tensor_args(n))
        outs = []

        def out(k=0, name=None):
            v = self.define(n, k, name=name)
            outs.append(v)
            return v.name

        def done():
            self.vals[n] = outs if multiple(n) else outs[0]

        if op in ("mm", "addmm"):
            a, b = (args[0], args[1]) if op == "mm" else (args[1], args[2])
            an, ta = self.transposed(a)
            bn, tb = self.transposed(b)
            c = self.vals[args[0]] if op == "addmm" else None
            if an and bn and (c is None or self.plain(c)) and not n.kwargs:
                self.w.node("Gemm", [an, bn] + ([c.name] if c else []), [out()], transA=ta or None, transB=tb or None)
                return done()
        if all_plain and all(m is not None for m in metas):
            if self.known(n, op, out):
                return done()
        # everything else: an op of the aten domain reading the tensors (or the tensors their views view)
        names = []
        for k, m in enumerate(metas):
            if m is None or not hasattr(m, "shape"):
                outs.append(None)
                names.append("")
            else:
                names.append(out(k))
        while names and names[-1] == "":
            names.pop()
        self.opaque(n, op, names)
        self.vals[n] = outs if multiple(n) else outs[0]

    def known(self, n, op, out):
        args = n.args
        w = self.w

        def nm(a):
            return self.vals[a].name

        if op in UNARY and len(args) == 1:
            w.node(UNARY[op], [nm(args[0])], [out()])
        elif op in BINARY and len(args) == 2 and n.kwargs.get("alpha", 1) == 1 and \
                not isinstance(args[0], (int, float)):
            b = args[1]
            bn = nm(b) if isinstance(b, torch.fx.Node) else w.const(float(b), TensorProto.FLOAT, [])
            w.node(BINARY[op], [nm(args[0]), bn], [out()])
        elif op == "clone":
            w.node("Identity", [nm(args[0])], [out()])
        elif op == "convolution":
            x, wt, b, stride, pad, dil, transposed, outpad, groups = args
            if transposed or any(outpad):
                return False
            ins = [nm(x), nm(wt)] + ([nm(b)] if b is not None else [])
            w.node("Conv", ins, [out()], strides=list(stride), pads=list(pad) * 2, dilations=list(dil),
                   group=groups)
        elif op == "max_pool2d_with_indices":
            x, k = args[0], args[1]
            stride = args[2] if len(args) > 2 and args[2] else k
            pad = args[3] if len(args) > 3 else [0, 0]
            dil = args[4] if len(args) > 4 else [1, 1]
            ceil = args[5] if len(args) > 5 else False
            k, stride, pad, dil = [list(v) * (2 if len(v) == 1 else 1) for v in (k, stride, pad, dil)]
            w.node("MaxPool", [nm(x)], [out(0), out(1)], kernel_shape=k, strides=stride, pads=pad * 2,
                   dilations=dil, ceil_mode=int(bool(ceil)))
        elif op == "avg_pool2d" and len(args) <= 5 and not n.kwargs:
            x, k = args[0], args[1]
            stride = args[2] if len(args) > 2 and args[2] else k
            pad = args[3] if len(args) > 3 else [0, 0]
            ceil = args[4] if len(args) > 4 else False
            k, stride, pad = [list(v) * (2 if len(v) == 1 else 1) for v in (k, stride, pad)]
            w.node("AveragePool", [nm(args[0])], [out()], kernel_shape=k, strides=stride, pads=pad * 2,
                   ceil_mode=int(bool(ceil)), count_include_pad=1)
        elif op == "_adaptive_avg_pool2d" and tuple(args[1]) == (1, 1):
            w.node("GlobalAveragePool", [nm(args[0])], [out()])
        elif op == "mean" and overload_is(n, "dim") and len(args) >= 2:
            keep = int(bool(args[2])) if len(args) > 2 else 0
            w.node("ReduceMean", [nm(args[0])], [out()], axes=list(args[1]), keepdims=keep)
        elif op == "cat":
            axis = args[1] if len(args) > 1 else 0
            w.node("Concat", [nm(a) for a in args[0]], [out()], axis=axis)
        elif op in ("_softmax", "_log_softmax"):
            w.node("Softmax" if op == "_softmax" else "LogSoftmax", [nm(args[0])], [out()], axis=args[1])
        elif op == "native_layer_norm" and len(args[1]) >= 1:
            x, shape, wt, b, eps = args
            axis = len(self.vals[x].shape) - len(shape)
            if wt is None or b is None:
                return False
            w.node("LayerNormalization", [nm(x), nm(wt), nm(b)], [out(0), out(1), out(2)], axis=axis,
                   epsilon=float(eps))
        elif op == "bmm":
            w.node("MatMul", [nm(args[0]), nm(args[1])], [out()])
        else:
            return False
        return True


def overload_is(n, name):
    return aten_name(n.target)[1] == name


def trace_step(module, example, target, loss_fn, optimizer):
    module.train()
    pnames = [k for k, p in module.named_parameters() if p.requires_grad]
    params = [p.detach().clone().requires_grad_() for k, p in module.named_parameters() if p.requires_grad]
    bnames = [k for k, _ in module.named_buffers()]
    bvals = [b.detach().clone() for _, b in module.named_buffers()]

    def step(params, bufs, x, y):
        state = dict(zip(pnames, params))
        state.update(zip(bnames, bufs))
        # the backward inside the parametrization too: a checkpointed module recomputes its forward there
        with _reparametrize_module(module, state):
            loss = loss_fn(module(x), y)
            grads = torch.autograd.grad(loss, params, allow_unused=True)
        return [loss] + list(grads)

    gm = make_fx(step, tracing_mode="fake")(params, bvals, example, target)
    return gm, pnames, bnames


def write_onnx(gm, pnames, bnames, path, optimizer, graph_name):
    state_names = [(p, "%s.%s" % (p, s)) for p in pnames for s in OPTIMIZERS[optimizer]]
    input_names = list(pnames) + list(bnames) + ["input", "target"]
    roles = {"inputs": set(input_names)}
    conv = Converter(gm.graph, input_names, roles)
    conv.convert()
    w = conv.w
    outs = conv.output
    loss = conv.vals[outs[0]]
    w.node("Identity", [conv.read(loss)], ["loss"])
    w.info("loss", loss.shape, loss.dtype)
    graph_outputs = [helper.make_tensor_value_info("loss", DTYPES[loss.dtype], list(loss.shape))]
    gradients = []
    updates = []
    for pname, gnode in zip(pnames, outs[1:]):
        if gnode is None:
            continue
        v = conv.vals[gnode]
        gname = pname + ".grad"
        w.node("Identity", [conv.read(v)], [gname])
        w.info(gname, v.shape, v.dtype)
        gradients.append(gname)
        if optimizer == "none":
            graph_outputs.append(helper.make_tensor_value_info(gname, DTYPES[v.dtype], list(v.shape)))
        else:
            updates.append((pname, gname))
    extra_inputs = []
    for pname, gname in updates:
        marker = pname + ".updated"
        states = ["%s.%s" % (pname, s) for s in OPTIMIZERS[optimizer]]
        w.node({"sgd": "sgd_", "momentum": "momentum_", "adam": "adam_"}[optimizer], [pname, gname] + states,
               [marker], domain=ATEN)
        graph_outputs.append(helper.make_tensor_value_info(marker, TensorProto.BOOL, []))
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    graph_inputs = []
    for n, name in zip(placeholders, input_names):
        m = n.meta.get("val")
        if m is not None:
            graph_inputs.append(helper.make_tensor_value_info(name, DTYPES[m.dtype], list(m.shape)))
    pshape = {name: tuple(n.meta["val"].shape) for n, name in zip(placeholders, input_names) if name in pnames}
    for p, s in state_names:
        graph_inputs.append(helper.make_tensor_value_info(s, TensorProto.FLOAT, list(pshape[p])))
        extra_inputs.append(s)
    # the model's state lives through the whole step (the next step reads it): each of its inputs is an output too
    persistent = set(pnames) | set(bnames) | set(extra_inputs)
    graph_outputs += [vi for vi in graph_inputs if vi.name in persistent]
    declared = {i.name for i in graph_inputs} | {o.name for o in graph_outputs}
    value_info = [vi for vi in w.value_info if vi.name not in declared]
    graph = helper.make_graph(w.nodes, graph_name, graph_inputs, graph_outputs, w.inits, value_info=value_info)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(ATEN, 1)],
                              producer_name="arenasim export_training.py")
    meta = {
        "arenasim.training.loss": "loss",
        "arenasim.training.parameters": "\n".join(pnames),
        "arenasim.training.buffers": "\n".join(bnames),
        "arenasim.training.gradients": "\n".join(gradients),
        "arenasim.training.optimizer_state": "\n".join(extra_inputs),
    }
    onnx.helper.set_model_props(model, {k: v for k, v in meta.items()})
    onnx.save(model, path)
    return model


def export_training(module, example, target, path, loss_fn=None, optimizer="none", checkpoint=""):
    """Trace one training step of `module` on (example, target) and write it to `path` (see the module's doc)."""
    if optimizer not in OPTIMIZERS:
        raise ValueError("optimizer '%s' is not one of %s" % (optimizer, ", ".join(OPTIMIZERS)))
    loss_fn = loss_fn or classification_loss
    patterns = [p for p in checkpoint.split(",") if p]
    wrapped = []
    for name, sub in module.named_modules():
        if name and any(fnmatch.fnmatchcase(name, p) for p in patterns):
            if any(name.startswith(w + ".") for w in wrapped):
                continue
            wrapped.append(name)
            sub.forward = checkpointed(sub.forward)
    if patterns and not wrapped:
        raise ValueError("--checkpoint '%s' matches no module" % checkpoint)
    gm, pnames, bnames = trace_step(module, example, target, loss_fn, optimizer)
    return write_onnx(gm, pnames, bnames, path, optimizer, type(module).__name__)


def checkpointed(forward):
    def run(*args, **kwargs):
        return torch_checkpoint(forward, *args, use_reentrant=False, **kwargs)
    return run


def classification_loss(out, y):
    """Cross-entropy on the logits; a model with auxiliary heads (googlenet, inception_v3 in training) adds
    theirs at 0.3 as torchvision's reference training does."""
    if isinstance(out, tuple):
        main = out[0]
        aux = [o for o in out[1:] if isinstance(o, torch.Tensor)]
        return nn.functional.cross_entropy(main, y) + sum(0.3 * nn.functional.cross_entropy(a, y) for a in aux)
    return nn.functional.cross_entropy(out, y)


class MLP(nn.Module):
    """The small module of the tests: two Linear layers with a ReLU."""

    def __init__(self, d=64, hidden=128, classes=10):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, hidden), nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class CNN(nn.Module):
    """The other small module: two conv blocks (Conv, BatchNorm, ReLU in place, a residual add), pooling, a head."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.block = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                                   nn.ReLU(inplace=True))
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.block(x)
        x = nn.functional.max_pool2d(x, 2)
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def example_batch(name, batch, size, classes):
    """(module, example input, target) for a name of the command line."""
    g = torch.Generator().manual_seed(0)
    if name == "mlp":
        return MLP(classes=classes), torch.randn(batch, 64, generator=g), torch.randint(0, classes, (batch,),
                                                                                         generator=g)
    if name == "cnn":
        return CNN(classes=classes), torch.randn(batch, 3, size, size, generator=g), \
            torch.randint(0, classes, (batch,), generator=g)
    if ":" in name and name.split(":")[0].endswith(".py"):
        path, func = name.rsplit(":", 1)
        spec = importlib.util.spec_from_file_location("user_module", path)
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
        except OSError as e:
            raise ValueError("cannot read %s: %s" % (path, e.strerror or e)) from e
        if not callable(getattr(mod, func, None)):
            raise ValueError("%s defines no function '%s'" % (path, func))
        made = getattr(mod, func)()
        if not (isinstance(made, tuple) and len(made) == 3 and isinstance(made[0], nn.Module)):
            raise ValueError("%s() must return (module, example_input, target)" % func)
        return made
    import torchvision
    space = torchvision.models
    for part in name.split(".")[:-1]:
        space = getattr(space, part)
    factory = getattr(space, name.split(".")[-1], None)
    if factory is None:
        raise ValueError("'%s' is not a torchvision model, mlp, cnn or FILE.py:FUNCTION" % name)
    kwargs = {"num_classes": classes}
    if name in ("googlenet", "inception_v3"):
        kwargs["init_weights"] = False
    module = factory(**kwargs)
    shape = (batch, 3, 16, 112, 112) if name.startswith("video.") else (batch, 3, size, size)
    return module, torch.randn(*shape, generator=g), torch.randint(0, classes, (batch,), generator=g)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=0, help="image side (default 224; inception_v3 299)")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--optimizer", choices=sorted(OPTIMIZERS), default="none")
    ap.add_argument("--checkpoint", default="", help="fnmatch patterns of module names run under checkpoint")
    o = ap.parse_args(argv)
    size = o.size or (299 if o.model == "inception_v3" else 224)
    if o.batch < 1 or size < 1 or o.classes < 1:
        ap.error("--batch, --size and --classes must be positive")
    try:
        module, x, y = example_batch(o.model, o.batch, size, o.classes)
        model = export_training(module, x, y, o.out, optimizer=o.optimizer, checkpoint=o.checkpoint)
    except (ValueError, RuntimeError) as e:
        print("export_training.py: %s: %s" % (o.model, e), file=sys.stderr)
        return 1
    params = [p for p in model.metadata_props if p.key == "arenasim.training.parameters"][0].value.split("\n")
    print("%s: %d nodes, %d parameters -> %s" % (o.model, len(model.graph.node), len(params), o.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
