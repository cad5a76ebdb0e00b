#!/usr/bin/python3
"""to_dynamic.py — a dynamically quantized copy of a float32 model, in the form ONNX Runtime's quantize_dynamic
writes for its MatMuls (op_types_to_quantize=['MatMul'], weight_type QInt8, per tensor): each MatMul whose second
input is a constant matrix reads its first input through a DynamicQuantizeLinear (uint8, the scale and zero point
of each run's own values), multiplies it by the weight as an int8 initializer (symmetric, zero point 0) with
MatMulInteger, casts the int32 product to float and scales it by the product of the two scales. ORT fuses each group
into DynamicQuantizeMatMul when it optimizes. Weights must have data (bench/peers/fill_weights.py first).

Usage: /usr/bin/python3 bench/peers/to_dynamic.py IN.onnx OUT.onnx   (Debian's python3-onnx and numpy)
"""
import sys

import numpy as np
import onnx
from graph_edit import save_with
from onnx import TensorProto, helper, numpy_helper


def main(src, dst):
    model = onnx.load(src)
    g = model.graph
    weights = {t.name: t for t in g.initializer}
    added, nodes = [], []
    for k, n in enumerate(g.node):
        w = weights.get(n.input[1]) if n.op_type == "MatMul" else None
        if w is None or len(w.dims) != 2:
            nodes.append(n)
            continue
        b = numpy_helper.to_array(w).astype(np.float32)
        scale = np.float32(np.abs(b).max() / 127 + 1e-12)
        tag = f"dq{k}"
        added += [numpy_helper.from_array(np.clip(np.round(b / scale), -127, 127).astype(np.int8), tag + "_w"),
                  numpy_helper.from_array(np.array(scale, np.float32), tag + "_w_scale"),
                  numpy_helper.from_array(np.array(0, np.int8), tag + "_w_zero")]
        nodes += [helper.make_node("DynamicQuantizeLinear", [n.input[0]], [tag + "_a", tag + "_a_scale", tag + "_a_zero"]),
                  helper.make_node("MatMulInteger", [tag + "_a", tag + "_w", tag + "_a_zero", tag + "_w_zero"],
                                   [tag + "_i"]),
                  helper.make_node("Cast", [tag + "_i"], [tag + "_f"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", [tag + "_a_scale", tag + "_w_scale"], [tag + "_s"]),
                  helper.make_node("Mul", [tag + "_f", tag + "_s"], [n.output[0]])]
    save_with(model, nodes, added, dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
