#!/usr/bin/python3
"""make.py — a quantized graph in ONNX Runtime's QOperator form (its contrib ops of domain com.microsoft, as its
static quantizer writes them: QLinearLeakyRelu, QLinearSigmoid, QLinearAdd, QLinearMul with a broadcast weight,
QLinearConcat of three inputs at other scales, QLinearGlobalAveragePool in NCHW and channels_last; and the same
element-wise ops on int8), with one input in the ONNX model zoo's layout (test_data_set_0/input_0.pb).

  make.py                      writes model.onnx and test_data_set_0/input_0.pb (Debian's python3-onnx)
  make.py --outputs ORT.json   writes test_data_set_0/output_K.pb from ONNX Runtime's outputs (ort-run.js)

The expected outputs are ONNX Runtime's own (onnxruntime-node 1.30, ort-run.js), kept beside the model: ORT is
not a test dependency. tests/test-oracle (/oracle/qlinear-matches-ort) runs the model in its plans and holds
every output to them."""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "test_data_set_0")
MS = "com.microsoft"


def scalar(name, value, dtype):
    return nh.from_array(np.array(value, dtype=dtype), name)


def model():
    inits = [scalar("sx", 0.04, np.float32), scalar("zx", 128, np.uint8),
             scalar("s1", 0.03, np.float32), scalar("z1", 110, np.uint8),
             scalar("s2", 1 / 256, np.float32), scalar("z2", 0, np.uint8),
             scalar("s3", 0.035, np.float32), scalar("z3", 121, np.uint8),
             scalar("sw", 0.02, np.float32), scalar("zw", 100, np.uint8),
             scalar("s4", 0.05, np.float32), scalar("z4", 125, np.uint8),
             scalar("s5", 0.045, np.float32), scalar("z5", 127, np.uint8),
             scalar("s6", 0.02, np.float32), scalar("z6", 129, np.uint8),
             scalar("s8", 0.05, np.float32), scalar("z8", 3, np.int8),
             scalar("s9", 0.02, np.float32), scalar("z9", -7, np.int8),
             nh.from_array(np.array([90, 140, 255, 7], dtype=np.uint8).reshape(1, 4, 1, 1), "w")]
    nodes = [
        h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["q"]),
        h.make_node("QLinearLeakyRelu", ["q", "sx", "zx", "s1", "z1"], ["b1"], domain=MS, alpha=0.1),
        h.make_node("QLinearSigmoid", ["q", "sx", "zx", "s2", "z2"], ["b2"], domain=MS),
        h.make_node("QLinearAdd", ["b1", "s1", "z1", "b2", "s2", "z2", "s3", "z3"], ["sum"], domain=MS),
        h.make_node("QLinearMul", ["sum", "s3", "z3", "w", "sw", "zw", "s4", "z4"], ["prod"], domain=MS),
        h.make_node("QLinearConcat", ["s5", "z5", "prod", "s4", "z4", "sum", "s3", "z3", "b1", "s1", "z1"], ["cat"],
                    domain=MS, axis=1),
        h.make_node("QLinearGlobalAveragePool", ["cat", "s5", "z5", "s6", "z6"], ["gap"], domain=MS),
        h.make_node("Transpose", ["cat"], ["nhwc"], perm=[0, 2, 3, 1]),
        h.make_node("QLinearGlobalAveragePool", ["nhwc", "s5", "z5", "s6", "z6"], ["gap_last"], domain=MS,
                    channels_last=1),
        h.make_node("DequantizeLinear", ["gap", "s6", "z6"], ["mean"]),
        h.make_node("QuantizeLinear", ["x", "s8", "z8"], ["q8"]),
        h.make_node("QLinearLeakyRelu", ["q8", "s8", "z8", "s9", "z9"], ["l8"], domain=MS, alpha=0.2),
        h.make_node("QLinearSigmoid", ["q8", "s8", "z8", "s9", "z9"], ["g8"], domain=MS),
        h.make_node("QLinearMul", ["l8", "s9", "z9", "g8", "s9", "z9", "s8", "z8"], ["m8"], domain=MS),
        h.make_node("QLinearAdd", ["m8", "s8", "z8", "q8", "s8", "z8", "s9", "z9"], ["a8"], domain=MS),
    ]
    outputs = [h.make_tensor_value_info("cat", T.UINT8, [1, 12, 6, 6]),
               h.make_tensor_value_info("gap", T.UINT8, [1, 12, 1, 1]),
               h.make_tensor_value_info("gap_last", T.UINT8, [1, 1, 1, 12]),
               h.make_tensor_value_info("mean", T.FLOAT, [1, 12, 1, 1]),
               h.make_tensor_value_info("a8", T.INT8, [1, 4, 6, 6])]
    graph = h.make_graph(nodes, "qoperator", [h.make_tensor_value_info("x", T.FLOAT, [1, 4, 6, 6])], outputs, inits)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 13), h.make_opsetid(MS, 1)],
                     producer_name="arenasim tests/data/qlinear/make.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    os.makedirs(DATA, exist_ok=True)
    if sys.argv[1:2] == ["--outputs"]:
        got = json.load(open(sys.argv[2]))
        names = [o.name for o in onnx.load(os.path.join(HERE, "model.onnx")).graph.output]
        kinds = {"uint8": np.uint8, "int8": np.int8, "float32": np.float32}
        for k, name in enumerate(names):
            o = got[name]
            arr = np.array(o["data"], dtype=kinds[o["type"]]).reshape(o["dims"])
            onnx.save_tensor(nh.from_array(arr, name), os.path.join(DATA, f"output_{k}.pb"))
        return
    onnx.save(model(), os.path.join(HERE, "model.onnx"))
    x = (np.random.default_rng(7).standard_normal((1, 4, 6, 6)) * 2.5).astype(np.float32)
    onnx.save_tensor(nh.from_array(x, "x"), os.path.join(DATA, "input_0.pb"))


main()
