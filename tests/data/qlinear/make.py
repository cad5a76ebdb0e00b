#!/usr/bin/python3
"""make.py — quantized graphs in ONNX Runtime's QOperator form (its contrib ops of domain com.microsoft, as its
static quantizer writes them), each with one input in the ONNX model zoo's layout (DIR/test_data_set_0/input_0.pb):
  ops/  QLinearLeakyRelu, QLinearSigmoid, QLinearAdd, QLinearMul with a broadcast weight, QLinearConcat of three
        inputs at other scales, QLinearGlobalAveragePool in NCHW and channels_last; the element-wise ops on int8;
  cnn/  a small classifier: QLinearConv (int8 weights, int32 bias), MaxPool on uint8, a residual QLinearAdd,
        QLinearAveragePool, QLinearGlobalAveragePool, Reshape, QGemm quantized out and QGemm to float.

  make.py                           writes DIR/model.onnx and DIR/test_data_set_0/input_0.pb (Debian's python3-onnx)
  make.py --raw DIR                 writes DIR/x.f32, the input as raw float32 bytes (ort-run.js reads them)
  make.py --outputs DIR ORT.json    writes DIR/test_data_set_0/output_K.pb from ONNX Runtime's outputs (ort-run.js)

The expected outputs are ONNX Runtime's own (onnxruntime-node 1.30, ort-run.js), kept beside the models: ORT is
not a test dependency. tests/test-oracle (/oracle/qlinear-matches-ort) runs each model in its plans and holds
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
MS = "com.microsoft"


def scalar(name, value, dtype):
    return nh.from_array(np.array(value, dtype=dtype), name)


def ops_model():
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
    return finish(graph)


def cnn_model():
    rng = np.random.default_rng(3)
    inits = [scalar("sx", 0.05, np.float32), scalar("zx", 128, np.uint8), scalar("sw", 0.01, np.float32),
             scalar("zw", 0, np.int8), scalar("s1", 0.06, np.float32), scalar("z1", 120, np.uint8),
             scalar("s2", 0.08, np.float32), scalar("z2", 130, np.uint8), scalar("s3", 0.07, np.float32),
             scalar("z3", 125, np.uint8), scalar("s4", 0.03, np.float32), scalar("z4", 128, np.uint8),
             scalar("sg", 0.1, np.float32), scalar("zg", 128, np.uint8),
             nh.from_array(rng.integers(-100, 100, (8, 3, 3, 3)).astype(np.int8), "w1"),
             nh.from_array(rng.integers(-500, 500, (8,)).astype(np.int32), "b1"),
             nh.from_array(rng.integers(-100, 100, (8, 8, 3, 3)).astype(np.int8), "w2"),
             nh.from_array(rng.integers(-100, 100, (10, 8)).astype(np.int8), "wg"),
             nh.from_array(rng.integers(-300, 300, (10,)).astype(np.int32), "bg"),
             nh.from_array(np.array([1, 8], dtype=np.int64), "shape")]
    nodes = [
        h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["q"]),
        h.make_node("QLinearConv", ["q", "sx", "zx", "w1", "sw", "zw", "s1", "z1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        h.make_node("MaxPool", ["c1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("QLinearConv", ["p1", "s1", "z1", "w2", "sw", "zw", "s2", "z2"], ["c2"], pads=[1, 1, 1, 1]),
        h.make_node("QLinearAdd", ["c2", "s2", "z2", "p1", "s1", "z1", "s3", "z3"], ["r"], domain=MS),
        h.make_node("QLinearAveragePool", ["r", "s3", "z3", "s4", "z4"], ["ap"], domain=MS, kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1], strides=[1, 1], count_include_pad=0),
        h.make_node("QLinearGlobalAveragePool", ["ap", "s4", "z4", "s4", "z4"], ["g"], domain=MS),
        h.make_node("Reshape", ["g", "shape"], ["f"]),
        h.make_node("QGemm", ["f", "s4", "z4", "wg", "sw", "zw", "bg", "sg", "zg"], ["y"], domain=MS, transB=1),
        h.make_node("DequantizeLinear", ["y", "sg", "zg"], ["out"]),
        h.make_node("QGemm", ["f", "s4", "z4", "wg", "sw", "zw", "bg"], ["logits"], domain=MS, transB=1, alpha=0.5),
    ]
    outputs = [h.make_tensor_value_info("out", T.FLOAT, [1, 10]), h.make_tensor_value_info("ap", T.UINT8, [1, 8, 8, 8]),
               h.make_tensor_value_info("logits", T.FLOAT, [1, 10])]
    graph = h.make_graph(nodes, "qcnn", [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 16, 16])], outputs, inits)
    return finish(graph)


def finish(graph):
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 13), h.make_opsetid(MS, 1)],
                     producer_name="arenasim tests/data/qlinear/make.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


MODELS = {"ops": (ops_model, (1, 4, 6, 6), 7, 2.5), "cnn": (cnn_model, (1, 3, 16, 16), 11, 2.0)}


def main():
    if sys.argv[1:2] == ["--raw"]:  # the input as raw float32 bytes, for ort-run.js
        folder = os.path.join(HERE, sys.argv[2])
        nh.to_array(onnx.load_tensor(os.path.join(folder, "test_data_set_0", "input_0.pb"))).astype(np.float32).tofile(
            os.path.join(folder, "x.f32"))
        return
    if sys.argv[1:2] == ["--outputs"]:
        folder = os.path.join(HERE, sys.argv[2])
        got = json.load(open(sys.argv[3]))
        names = [o.name for o in onnx.load(os.path.join(folder, "model.onnx")).graph.output]
        kinds = {"uint8": np.uint8, "int8": np.int8, "float32": np.float32}
        for k, name in enumerate(names):
            o = got[name]
            arr = np.array(o["data"], dtype=kinds[o["type"]]).reshape(o["dims"])
            onnx.save_tensor(nh.from_array(arr, name), os.path.join(folder, "test_data_set_0", f"output_{k}.pb"))
        return
    for name, (build, dims, seed, spread) in MODELS.items():
        os.makedirs(os.path.join(HERE, name, "test_data_set_0"), exist_ok=True)
        onnx.save(build(), os.path.join(HERE, name, "model.onnx"))
        x = (np.random.default_rng(seed).standard_normal(dims) * spread).astype(np.float32)
        onnx.save_tensor(nh.from_array(x, "x"), os.path.join(HERE, name, "test_data_set_0", "input_0.pb"))


main()
