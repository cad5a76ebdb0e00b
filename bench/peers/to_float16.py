#!/usr/bin/python3
"""to_float16.py — a half-precision copy of a float32 model, as ONNX's float16 converter writes one with
keep_io_types (onnxconverter-common's convert_float_to_float16): every FLOAT initializer, Constant, value type and
Cast target becomes FLOAT16; the graph's inputs and outputs stay FLOAT, each input cast to FLOAT16 and each output
cast back, those Casts appended after the nodes (so the file's order is not topological, as the converter's is not).
Weights must have data (bench/peers/fill_weights.py first).

Usage: /usr/bin/python3 bench/peers/to_float16.py IN.onnx OUT.onnx   (Debian's python3-onnx and numpy)
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper


def half(t):
    return numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name)


def rename(g, old, new, outputs):
    """Every node input (and, with outputs, output) named old is named new."""
    for n in g.node:
        for names in (n.input, n.output) if outputs else (n.input,):
            for k, x in enumerate(names):
                if x == old:
                    names[k] = new


def main(src, dst):
    model = onnx.load(src)
    g = model.graph
    for k, t in enumerate(g.initializer):
        if t.data_type == T.FLOAT:
            g.initializer[k].CopyFrom(half(t))
    for v in g.value_info:
        if v.type.tensor_type.elem_type == T.FLOAT:
            v.type.tensor_type.elem_type = T.FLOAT16
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == T.FLOAT:
                a.t.CopyFrom(half(a.t))
            if n.op_type == "Cast" and a.name == "to" and a.i == T.FLOAT:
                a.i = T.FLOAT16
    casts = []
    for v in g.input:
        if v.type.tensor_type.elem_type != T.FLOAT:
            continue
        inner = v.name + "_float16"
        rename(g, v.name, inner, False)
        casts.append(helper.make_node("Cast", [v.name], [inner], name=inner + "_cast", to=T.FLOAT16))
    for v in g.output:
        if v.type.tensor_type.elem_type != T.FLOAT:
            continue
        inner = v.name + "_float16"
        rename(g, v.name, inner, True)
        casts.append(helper.make_node("Cast", [inner], [v.name], name=inner + "_cast", to=T.FLOAT))
    g.node.extend(casts)
    onnx.save(model, dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
