#!/usr/bin/python3
"""to_qdq.py — a QDQ copy of a float32 model, in the form ONNX Runtime's static quantizer writes for its Convs
(quantize_static with op_types_to_quantize=['Conv'], QuantFormat.QDQ): each Conv reads its input through a
QuantizeLinear and DequantizeLinear pair (uint8), its weight as an int8 initializer per output channel (symmetric,
zero point 0) through a DequantizeLinear, and its output goes through another pair before its readers; the float
bias stays (ORT quantizes it to int32 when it fuses). The activations' scale is one fixed value (0.05, zero point
128), not calibrated: the file is for timing the quantized kernels, not for its outputs. Weights must have data
(bench/peers/fill_weights.py first).

Usage: /usr/bin/python3 bench/peers/to_qdq.py IN.onnx OUT.onnx   (Debian's python3-onnx and numpy)
"""
import sys

import numpy as np
import onnx
from graph_edit import save_with
from onnx import helper, numpy_helper


def main(src, dst):
    model = onnx.load(src)
    g = model.graph
    weights = {t.name: t for t in g.initializer}
    added = [numpy_helper.from_array(np.array(0.05, np.float32), "qdq_scale"),
             numpy_helper.from_array(np.array(128, np.uint8), "qdq_zero")]
    pair = ["qdq_scale", "qdq_zero"]
    nodes = []
    for k, n in enumerate(g.node):
        if n.op_type != "Conv" or n.input[1] not in weights:
            nodes.append(n)
            continue
        w = numpy_helper.to_array(weights[n.input[1]]).astype(np.float32)
        scale = (np.abs(w).reshape(w.shape[0], -1).max(1) / 127 + 1e-12).astype(np.float32)
        wq = np.clip(np.round(w / scale.reshape(-1, *[1] * (w.ndim - 1))), -127, 127).astype(np.int8)
        tag = f"qdq{k}"
        added += [numpy_helper.from_array(wq, tag + "_w"), numpy_helper.from_array(scale, tag + "_w_scale"),
                  numpy_helper.from_array(np.zeros(w.shape[0], np.int8), tag + "_w_zero")]
        nodes += [helper.make_node("DequantizeLinear", [tag + "_w", tag + "_w_scale", tag + "_w_zero"], [tag + "_wf"],
                                   axis=0),
                  helper.make_node("QuantizeLinear", [n.input[0]] + pair, [tag + "_xq"]),
                  helper.make_node("DequantizeLinear", [tag + "_xq"] + pair, [tag + "_x"])]
        y = n.output[0]
        n.input[0], n.input[1], n.output[0] = tag + "_x", tag + "_wf", tag + "_y"
        nodes += [n, helper.make_node("QuantizeLinear", [tag + "_y"] + pair, [tag + "_yq"]),
                  helper.make_node("DequantizeLinear", [tag + "_yq"] + pair, [y])]
    save_with(model, nodes, added, dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
