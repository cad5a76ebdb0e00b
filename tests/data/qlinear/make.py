#!/usr/bin/python3
"""make.py — quantized graphs in ONNX Runtime's QOperator form (its contrib ops of domain com.microsoft, as its
static quantizer writes them), each with one input in the ONNX model zoo's layout (DIR/test_data_set_0/input_0.pb):
  ops/  QLinearLeakyRelu, QLinearSigmoid, QLinearAdd, QLinearMul with a broadcast weight, QLinearConcat of three
        inputs at other scales, QLinearGlobalAveragePool in NCHW and channels_last; the element-wise ops on int8;
  cnn/  a small classifier: QLinearConv (int8 weights, int32 bias), MaxPool on uint8, a residual QLinearAdd,
        QLinearAveragePool, QLinearGlobalAveragePool, Reshape, QGemm quantized out and QGemm to float.
  dynamic/  a dynamically quantized model as ONNX Runtime's quantize_dynamic writes it (no com.microsoft op): each
        activation quantized when it runs (DynamicQuantizeLinear: its own scale and zero point), a ConvInteger with
        uint8 weights and a weight zero point, then two MatMulInteger layers (int8 weights per tensor, then per
        output column), each product Cast to float and scaled by the product of the two scales, the float bias
        added, ReLU between.
  convs/  QLinearConv's geometries on both kinds of 8-bit input: int8 x (zero point -3) by int8 weights per output
        channel in 2 groups, stride 2, padding 1, an int32 bias; uint8 x by uint8 weights with zero point 100,
        depthwise (4 groups), dilation 2, padding 1.
  softmax/  QLinearSoftmax as ORT's quantizer writes it for a Softmax: uint8 along the last axis (opset 13), over every
        axis from 1 (opset 12), along a middle axis to another scale and zero point; int8 along the channels, and with a
        zero point of 100, where the largest values are held to 127.
  where/  QLinearWhere: uint8 x and y (broadcast along the first two axes) requantized to a third scale; the same scale
        on all three; int8 under a condition broadcast along the first and last axes.
  products/  the integer products at sizes the library's integer GEMM runs (4 or more output channels a group):
        QLinearConv on int8 x (zero point -3) by int8 weights per channel, 2 groups, stride 2, padding 1, a bias,
        and one tap; on uint8 x (zero point 120) dilated 2 and padded 2, and one tap; ConvInteger by uint8
        weights at zero point 7; MatMulInteger of int8 x by int8 weights and of uint8 x by uint8 weights at zero
        point 3; QLinearMatMul of uint8 x by int8 weights; the two again on one row of each image (8 rows: the
        skinny kernel), uint8 by uint8 and int8 by int8: ten outputs of every 8-bit type and int32.
  qdqnet/  a QDQ classifier as ONNX Runtime's static quantizer writes QDQ format (every activation between a
        QuantizeLinear and its DequantizeLinear, int8 weights per channel as initializers): Conv, Relu, MaxPool, Conv,
        a residual Add, GlobalAveragePool, Reshape, Gemm, MatMul; three 8-bit or float outputs.
  dynshared/  one DynamicQuantizeLinear read by two MatMulIntegers, each product Cast to float and scaled (the first
        per output column, plus a bias), at opset 14: ORT fuses each into MatMulIntegerToFloat, and not the
        quantization into them (--fuse ort does the same).
  qdqs8/  QDQ with int8 activations: x and a Relu'd Conv output each quantized for one reader (ORT's x86 build makes
        such a pair uint8 and fuses the Conv), a second Conv's output dequantized for two readers (it stays int8,
        so that Conv and the 1x1 Conv after it stay float), a GlobalAveragePool; float and int8 outputs.
  blocked/  opset 21's blocked quantization (block_size): the input quantized to uint8 in blocks of 4 along axis 1
        (a scale and zero point per block and row) and dequantized again (axis -1), int8 weights dequantized in
        blocks of 5 along axis 0 (12 rows: the last block of 2), a Relu and a MatMul of the two; the 8-bit
        tensor, both dequantized ones and the product as outputs. (ORT fuses a DequantizeLinear of the input
        straight into the MatMul as MatMulIntegerToFloat, then refuses the blocked zero point: the Relu keeps them
        apart.) Written at IR version 10, past Debian's onnx 1.12, whose checker is not run on it.
  qdq/  a QDQ model as torch.onnx.export writes quantization-aware training (ONNX Runtime fuses it; --fuse ort
        does the same): the image quantized and dequantized (uint8), each weight quantized per output channel to
        int8 by a QuantizeLinear node of the float weight and dequantized, Conv with a float bias, a Relu, a
        QuantizeLinear whose zero point is 0 (the Relu folds into it), a second Conv quantized at zero point 128
        (its Relu stays), and a third whose output is dequantized to float: the three 8-bit outputs and the float.

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


def dynamic_model():
    rng = np.random.default_rng(5)
    w0 = rng.integers(0, 256, (6, 3, 3, 3)).astype(np.uint8)
    w1 = rng.integers(-127, 128, (6 * 8 * 8 // 4, 32)).astype(np.int8)
    w2 = rng.integers(-127, 128, (32, 10)).astype(np.int8)
    inits = [nh.from_array(w0, "w0"), scalar("w0_scale", 0.004, np.float32), scalar("w0_zero", 131, np.uint8),
             nh.from_array(rng.standard_normal((1, 6, 1, 1)).astype(np.float32) * 0.1, "b0"),
             nh.from_array(w1, "w1"), scalar("w1_scale", 0.003, np.float32), scalar("w1_zero", 0, np.int8),
             nh.from_array(rng.standard_normal(32).astype(np.float32) * 0.1, "b1"),
             nh.from_array(w2, "w2"), nh.from_array((rng.random(10) * 0.004 + 0.001).astype(np.float32), "w2_scale"),
             nh.from_array(np.zeros(10, dtype=np.int8), "w2_zero"),
             nh.from_array(rng.standard_normal(10).astype(np.float32) * 0.1, "b2"),
             nh.from_array(np.array([4, -1], dtype=np.int64), "rows")]

    def dynamic(x, w, w_scale, w_zero, out, op="MatMulInteger", **attrs):
        """x -> DynamicQuantizeLinear -> OP(xq, w, x_zero, w_zero) -> Cast -> * (x_scale * w_scale)"""
        return [h.make_node("DynamicQuantizeLinear", [x], [x + "_q", x + "_scale", x + "_zero"]),
                h.make_node(op, [x + "_q", w, x + "_zero", w_zero], [out + "_int"], **attrs),
                h.make_node("Cast", [out + "_int"], [out + "_float"], to=T.FLOAT),
                h.make_node("Mul", [x + "_scale", w_scale], [out + "_scale"]),
                h.make_node("Mul", [out + "_float", out + "_scale"], [out])]

    nodes = (dynamic("x", "w0", "w0_scale", "w0_zero", "c0", op="ConvInteger", pads=[1, 1, 1, 1], strides=[2, 2])
             + [h.make_node("Add", ["c0", "b0"], ["c0b"]), h.make_node("Relu", ["c0b"], ["r0"]),
                h.make_node("Reshape", ["r0", "rows"], ["f"])]
             + dynamic("f", "w1", "w1_scale", "w1_zero", "m1")
             + [h.make_node("Add", ["m1", "b1"], ["h1"]), h.make_node("Relu", ["h1"], ["r1"])]
             + dynamic("r1", "w2", "w2_scale", "w2_zero", "m2")
             + [h.make_node("Add", ["m2", "b2"], ["y"])])
    outputs = [h.make_tensor_value_info("y", T.FLOAT, [4, 10]), h.make_tensor_value_info("r1", T.FLOAT, [4, 32]),
               h.make_tensor_value_info("x_q", T.UINT8, [1, 3, 16, 16])]
    graph = h.make_graph(nodes, "qdynamic", [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 16, 16])], outputs, inits)
    return finish(graph)


def convs_model():
    rng = np.random.default_rng(4)
    inits = [scalar("sx", 0.05, np.float32), scalar("zx", -3, np.int8), scalar("sy", 0.2, np.float32),
             scalar("zy", 5, np.int8), nh.from_array(rng.integers(-127, 128, (6, 2, 3, 3)).astype(np.int8), "w"),
             nh.from_array((rng.random(6) * 0.01 + 0.005).astype(np.float32), "sw"),
             nh.from_array(np.zeros(6, np.int8), "zw"),
             nh.from_array(rng.integers(-2000, 2000, (6,)).astype(np.int32), "b"),
             scalar("sx2", 0.04, np.float32), scalar("zx2", 128, np.uint8), scalar("sy2", 0.1, np.float32),
             scalar("zy2", 120, np.uint8), nh.from_array(rng.integers(0, 256, (4, 1, 3, 3)).astype(np.uint8), "w2"),
             scalar("sw2", 0.01, np.float32), scalar("zw2", 100, np.uint8)]
    nodes = [h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
             h.make_node("QLinearConv", ["xq", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b"], ["y"], group=2,
                         strides=[2, 2], pads=[1, 1, 1, 1]),
             h.make_node("QuantizeLinear", ["x", "sx2", "zx2"], ["xu"]),
             h.make_node("QLinearConv", ["xu", "sx2", "zx2", "w2", "sw2", "zw2", "sy2", "zy2"], ["y2"], group=4,
                         pads=[1, 1, 1, 1], dilations=[2, 2])]
    outputs = [h.make_tensor_value_info("y", T.INT8, [1, 6, 6, 5]),
               h.make_tensor_value_info("y2", T.UINT8, [1, 4, 9, 7])]
    graph = h.make_graph(nodes, "convs", [h.make_tensor_value_info("x", T.FLOAT, [1, 4, 11, 9])], outputs, inits)
    return finish(graph)


def products_model():
    rng = np.random.default_rng(5)

    def ints(name, low, high, shape, dtype):
        return nh.from_array(rng.integers(low, high, shape).astype(dtype), name)

    def scales(name, n):
        return nh.from_array((rng.random(n) * 0.004 + 0.002).astype(np.float32), name)

    inits = [scalar("sx", 0.05, np.float32), scalar("zx", -3, np.int8), scalar("sx2", 0.04, np.float32),
             scalar("zx2", 120, np.uint8), scalar("sy", 0.3, np.float32), scalar("zy", 5, np.int8),
             scalar("sy2", 0.2, np.float32), scalar("zy2", 110, np.uint8),
             ints("w1", -127, 128, (8, 4, 3, 3), np.int8), scales("sw1", 8), nh.from_array(np.zeros(8, np.int8), "zw1"),
             ints("b1", -3000, 3000, (8,), np.int32),
             ints("w2", -127, 128, (6, 8, 1, 1), np.int8), scalar("sw2", 0.003, np.float32), scalar("zw2", 0, np.int8),
             ints("w3", -127, 128, (5, 8, 3, 3), np.int8), scalar("sw3", 0.002, np.float32), scalar("zw3", 0, np.int8),
             ints("w4", -127, 128, (4, 8, 1, 1), np.int8), scalar("sw4", 0.004, np.float32), scalar("zw4", 0, np.int8),
             ints("w5", 0, 256, (6, 8, 3, 3), np.uint8), scalar("zw5", 7, np.uint8),
             ints("m6", -127, 128, (11, 5), np.int8), ints("m7", 0, 256, (11, 7), np.uint8), scalar("zm7", 3, np.uint8),
             ints("m8", -127, 128, (11, 6), np.int8), scalar("sm8", 0.003, np.float32), scalar("zm8", 0, np.int8),
             ints("m9", 0, 256, (11, 20), np.uint8), scalar("zm9", 9, np.uint8),
             ints("m10", -127, 128, (11, 17), np.int8), scalar("sm10", 0.002, np.float32), scalar("zm10", 0, np.int8),
             nh.from_array(np.array([4], np.int64), "row_from"), nh.from_array(np.array([5], np.int64), "row_to"),
             nh.from_array(np.array([2], np.int64), "row_axis")]
    nodes = [h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
             h.make_node("QuantizeLinear", ["x", "sx2", "zx2"], ["xu"]),
             h.make_node("QLinearConv", ["xq", "sx", "zx", "w1", "sw1", "zw1", "sy", "zy", "b1"], ["y1"], group=2,
                         strides=[2, 2], pads=[1, 1, 1, 1]),
             h.make_node("QLinearConv", ["xq", "sx", "zx", "w2", "sw2", "zw2", "sy", "zy"], ["y2"]),
             h.make_node("QLinearConv", ["xu", "sx2", "zx2", "w3", "sw3", "zw3", "sy2", "zy2"], ["y3"],
                         dilations=[2, 2], pads=[2, 2, 2, 2]),
             h.make_node("QLinearConv", ["xu", "sx2", "zx2", "w4", "sw4", "zw4", "sy2", "zy2"], ["y4"]),
             h.make_node("ConvInteger", ["xu", "w5", "zx2", "zw5"], ["y5"], pads=[1, 1, 1, 1]),
             h.make_node("MatMulInteger", ["xq", "m6", "zx"], ["y6"]),
             h.make_node("MatMulInteger", ["xu", "m7", "zx2", "zm7"], ["y7"]),
             h.make_node("QLinearMatMul", ["xu", "sx2", "zx2", "m8", "sm8", "zm8", "sy2", "zy2"], ["y8"]),
             h.make_node("Slice", ["xu", "row_from", "row_to", "row_axis"], ["xu_row"]),
             h.make_node("Slice", ["xq", "row_from", "row_to", "row_axis"], ["xq_row"]),
             h.make_node("MatMulInteger", ["xu_row", "m9", "zx2", "zm9"], ["y9"]),
             h.make_node("QLinearMatMul", ["xq_row", "sx", "zx", "m10", "sm10", "zm10", "sy", "zy"], ["y10"])]
    shapes = {"y1": (T.INT8, [1, 8, 5, 6]), "y2": (T.INT8, [1, 6, 9, 11]), "y3": (T.UINT8, [1, 5, 9, 11]),
              "y4": (T.UINT8, [1, 4, 9, 11]), "y5": (T.INT32, [1, 6, 9, 11]), "y6": (T.INT32, [1, 8, 9, 5]),
              "y7": (T.INT32, [1, 8, 9, 7]), "y8": (T.UINT8, [1, 8, 9, 6]), "y9": (T.INT32, [1, 8, 1, 20]),
              "y10": (T.INT8, [1, 8, 1, 17])}
    outputs = [h.make_tensor_value_info(name, kind, dims) for name, (kind, dims) in shapes.items()]
    graph = h.make_graph(nodes, "products", [h.make_tensor_value_info("x", T.FLOAT, [1, 8, 9, 11])], outputs, inits)
    return finish(graph)


def qdq_model():
    rng = np.random.default_rng(9)

    def weight(name, shape):
        w = rng.standard_normal(shape).astype(np.float32) * 0.3
        scale = (np.abs(w).reshape(shape[0], -1).max(1) / 127).astype(np.float32)
        return [nh.from_array(w, name), nh.from_array(scale, name + "_scale"),
                nh.from_array(np.zeros(shape[0], dtype=np.int8), name + "_zero"),
                nh.from_array(rng.standard_normal(shape[0]).astype(np.float32) * 0.2, name + "_bias")]

    inits = (weight("w1", (8, 3, 3, 3)) + weight("w2", (8, 8, 3, 3)) + weight("w3", (4, 8, 1, 1))
             + [scalar("sx", 0.03, np.float32), scalar("zx", 128, np.uint8), scalar("s1", 0.02, np.float32),
                scalar("z1", 0, np.uint8), scalar("s2", 0.025, np.float32), scalar("z2", 128, np.uint8),
                scalar("s3", 0.04, np.float32), scalar("z3", 100, np.uint8)])

    def conv(x, w, out, pads):
        return [h.make_node("QuantizeLinear", [w, w + "_scale", w + "_zero"], [w + "_q"], axis=0),
                h.make_node("DequantizeLinear", [w + "_q", w + "_scale", w + "_zero"], [w + "_dq"], axis=0),
                h.make_node("Conv", [x, w + "_dq", w + "_bias"], [out], pads=pads)]

    nodes = ([h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
              h.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xdq"])]
             + conv("xdq", "w1", "c1", [1, 1, 1, 1])
             + [h.make_node("Relu", ["c1"], ["r1"]), h.make_node("QuantizeLinear", ["r1", "s1", "z1"], ["q1"]),
                h.make_node("DequantizeLinear", ["q1", "s1", "z1"], ["d1"])]
             + conv("d1", "w2", "c2", [1, 1, 1, 1])
             + [h.make_node("Relu", ["c2"], ["r2"]), h.make_node("QuantizeLinear", ["r2", "s2", "z2"], ["q2"]),
                h.make_node("DequantizeLinear", ["q2", "s2", "z2"], ["d2"])]
             + conv("d2", "w3", "c3", [0, 0, 0, 0])
             + [h.make_node("QuantizeLinear", ["c3", "s3", "z3"], ["q3"]),
                h.make_node("DequantizeLinear", ["q3", "s3", "z3"], ["y"])])
    outputs = [h.make_tensor_value_info("q1", T.UINT8, [1, 8, 12, 12]),
               h.make_tensor_value_info("q2", T.UINT8, [1, 8, 12, 12]),
               h.make_tensor_value_info("q3", T.UINT8, [1, 4, 12, 12]),
               h.make_tensor_value_info("y", T.FLOAT, [1, 4, 12, 12])]
    graph = h.make_graph(nodes, "qdq", [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 12, 12])], outputs, inits)
    return finish(graph)


def qdqnet_model():
    """A QDQ ResNet-style classifier as ORT's static quantizer writes QDQ format: every activation between a
    QuantizeLinear and a DequantizeLinear, int8 weights per channel as initializers with their DequantizeLinear."""
    rng = np.random.default_rng(21)
    inits = [scalar("sx", 0.03, np.float32), scalar("zx", 128, np.uint8)]
    nodes = [h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["x_q"])]
    act = {"x": ("sx", "zx")}

    def q(name, scale, zero):  # a QuantizeLinear after the float op `name`, then its DequantizeLinear for readers
        inits.extend([scalar(name + "_s", scale, np.float32), scalar(name + "_z", zero, np.uint8)])
        nodes.append(h.make_node("QuantizeLinear", [name, name + "_s", name + "_z"], [name + "_q"]))
        act[name] = (name + "_s", name + "_z")

    def dq(name):  # a DequantizeLinear of the quantized `name`, one per reader (as the quantizer writes them)
        out = name + "_dq%d" % len(nodes)
        s, z = act[name]
        nodes.append(h.make_node("DequantizeLinear", [name + "_q", s, z], [out]))
        return out

    def weight(name, shape, axis=0):
        w = rng.integers(-127, 128, shape).astype(np.int8)
        scale = (rng.random(shape[axis]) * 0.004 + 0.002).astype(np.float32)
        inits.extend([nh.from_array(w, name), nh.from_array(scale, name + "_s"),
                      nh.from_array(np.zeros(shape[axis], dtype=np.int8), name + "_z"),
                      nh.from_array(rng.standard_normal(shape[0 if axis == 0 else 1]).astype(np.float32) * 0.1,
                                    name + "_b")])
        out = name + "_dq"
        nodes.append(h.make_node("DequantizeLinear", [name, name + "_s", name + "_z"], [out], axis=axis))
        return out

    nodes.append(h.make_node("Conv", [dq("x"), weight("w1", (8, 3, 3, 3)), "w1_b"], ["c1"], pads=[1, 1, 1, 1]))
    nodes.append(h.make_node("Relu", ["c1"], ["r1"]))
    q("r1", 0.02, 0)
    nodes.append(h.make_node("MaxPool", [dq("r1")], ["p1"], kernel_shape=[2, 2], strides=[2, 2]))
    q("p1", 0.02, 0)
    nodes.append(h.make_node("Conv", [dq("p1"), weight("w2", (8, 8, 3, 3)), "w2_b"], ["c2"], pads=[1, 1, 1, 1]))
    q("c2", 0.03, 128)
    nodes.append(h.make_node("Add", [dq("c2"), dq("p1")], ["a2"]))
    q("a2", 0.035, 120)
    nodes.append(h.make_node("GlobalAveragePool", [dq("a2")], ["g"]))
    q("g", 0.01, 128)
    inits.append(nh.from_array(np.array([1, 8], dtype=np.int64), "shape"))
    nodes.append(h.make_node("Reshape", [dq("g"), "shape"], ["f"]))
    q("f", 0.01, 128)
    nodes.append(h.make_node("Gemm", [dq("f"), weight("wg", (10, 8)), "wg_b"], ["logits"], transB=1))
    q("logits", 0.05, 128)
    nodes.append(h.make_node("MatMul", [dq("logits"), weight("wm", (10, 6), axis=1)], ["m"]))
    q("m", 0.04, 128)
    nodes.append(h.make_node("DequantizeLinear", ["m_q", "m_s", "m_z"], ["y"]))
    outputs = [h.make_tensor_value_info("y", T.FLOAT, [1, 6]), h.make_tensor_value_info("a2_q", T.UINT8, [1, 8, 6, 6]),
               h.make_tensor_value_info("logits_q", T.UINT8, [1, 10])]
    graph = h.make_graph(nodes, "qdqnet", [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 12, 12])], outputs, inits)
    return finish(graph)


def qdqs8_model():
    """QDQ with int8 activations, which ONNX Runtime's x86 build fuses only once its QDQS8ToU8Transformer has made a
    QuantizeLinear read by one DequantizeLinear alone uint8 (zero point plus 128): x and the first Conv's Relu'd
    output are such pairs (that Conv fuses, its Relu into the zero point, -128 then 0); the second Conv's output has
    two readers, so it stays int8 and neither the second Conv nor the third (its output a graph output) fuses."""
    rng = np.random.default_rng(53)
    inits = [scalar("sx", 0.03, np.float32), scalar("zx", 0, np.int8), scalar("s1", 0.02, np.float32),
             scalar("z1", -128, np.int8), scalar("s2", 0.03, np.float32), scalar("z2", 5, np.int8),
             scalar("s3", 0.04, np.float32), scalar("z3", -3, np.int8), scalar("sg", 0.01, np.float32),
             scalar("zg", 2, np.int8)]
    for name, shape in (("w1", (8, 3, 3, 3)), ("w2", (8, 8, 3, 3)), ("w3", (6, 8, 1, 1))):
        w = rng.integers(-127, 128, shape).astype(np.int8)
        scale = (rng.random(shape[0]) * 0.004 + 0.002).astype(np.float32)
        inits.extend([nh.from_array(w, name), nh.from_array(scale, name + "_s"),
                      nh.from_array(np.zeros(shape[0], dtype=np.int8), name + "_z"),
                      nh.from_array(rng.standard_normal(shape[0]).astype(np.float32) * 0.1, name + "_b")])
    nodes = [h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["x_q"]),
             h.make_node("DequantizeLinear", ["x_q", "sx", "zx"], ["x_dq"])]
    for name in ("w1", "w2", "w3"):
        nodes.append(h.make_node("DequantizeLinear", [name, name + "_s", name + "_z"], [name + "_dq"], axis=0))
    nodes += [h.make_node("Conv", ["x_dq", "w1_dq", "w1_b"], ["c1"], pads=[1, 1, 1, 1]),
              h.make_node("Relu", ["c1"], ["r1"]),
              h.make_node("QuantizeLinear", ["r1", "s1", "z1"], ["r1_q"]),
              h.make_node("DequantizeLinear", ["r1_q", "s1", "z1"], ["r1_dq"]),
              h.make_node("Conv", ["r1_dq", "w2_dq", "w2_b"], ["c2"], pads=[1, 1, 1, 1]),
              h.make_node("QuantizeLinear", ["c2", "s2", "z2"], ["c2_q"]),
              h.make_node("DequantizeLinear", ["c2_q", "s2", "z2"], ["c2_dq"]),
              h.make_node("DequantizeLinear", ["c2_q", "s2", "z2"], ["c2_dq2"]),
              h.make_node("Conv", ["c2_dq", "w3_dq", "w3_b"], ["c3"]),
              h.make_node("QuantizeLinear", ["c3", "s3", "z3"], ["c3_q"]),
              h.make_node("DequantizeLinear", ["c3_q", "s3", "z3"], ["y"]),
              h.make_node("GlobalAveragePool", ["c2_dq2"], ["g"]),
              h.make_node("QuantizeLinear", ["g", "sg", "zg"], ["g_q"]),
              h.make_node("DequantizeLinear", ["g_q", "sg", "zg"], ["y2"])]
    outputs = [h.make_tensor_value_info("y", T.FLOAT, [1, 6, 10, 10]),
               h.make_tensor_value_info("c3_q", T.INT8, [1, 6, 10, 10]),
               h.make_tensor_value_info("y2", T.FLOAT, [1, 8, 1, 1])]
    graph = h.make_graph(nodes, "qdqs8", [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 10, 10])], outputs, inits)
    return finish(graph)


def softmax_model():
    inits = [scalar("sx", 0.06, np.float32), scalar("zx", 128, np.uint8), scalar("sy", 1 / 256, np.float32),
             scalar("zy", 0, np.uint8), scalar("s8", 0.07, np.float32), scalar("z8", -5, np.int8),
             scalar("zy8", -128, np.int8), scalar("zw8", 100, np.int8), scalar("sw", 0.01, np.float32),
             scalar("zw", 10, np.uint8)]
    nodes = [
        h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["q"]),
        h.make_node("QuantizeLinear", ["x", "s8", "z8"], ["q8"]),
        h.make_node("QLinearSoftmax", ["q", "sx", "zx", "sy", "zy"], ["last"], domain=MS, opset=13, axis=-1),
        h.make_node("QLinearSoftmax", ["q", "sx", "zx", "sy", "zy"], ["flat"], domain=MS, opset=12, axis=1),
        h.make_node("QLinearSoftmax", ["q", "sx", "zx", "sw", "zw"], ["mid"], domain=MS, opset=13, axis=2),
        h.make_node("QLinearSoftmax", ["q8", "s8", "z8", "sy", "zy8"], ["chan8"], domain=MS, opset=13, axis=1),
        h.make_node("QLinearSoftmax", ["q8", "s8", "z8", "sy", "zw8"], ["wrap8"], domain=MS, opset=13, axis=-1),
    ]
    outputs = [h.make_tensor_value_info(name, kind, [2, 4, 6, 6]) for name, kind in
               (("last", T.UINT8), ("flat", T.UINT8), ("mid", T.UINT8), ("chan8", T.INT8), ("wrap8", T.INT8))]
    graph = h.make_graph(nodes, "qsoftmax", [h.make_tensor_value_info("x", T.FLOAT, [2, 4, 6, 6])], outputs, inits)
    return finish(graph)


def where_model():
    inits = [scalar("sx", 0.05, np.float32), scalar("zx", 120, np.uint8), scalar("sy", 0.02, np.float32),
             scalar("zy", 140, np.uint8), scalar("sz", 0.04, np.float32), scalar("zz", 128, np.uint8),
             scalar("s8", 0.05, np.float32), scalar("z8", -3, np.int8), scalar("t8", 0.03, np.float32),
             scalar("u8", 9, np.int8), scalar("edge", 0.3, np.float32)]
    nodes = [
        h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["q"]),
        h.make_node("ReduceMean", ["x"], ["row"], axes=[0, 1], keepdims=1),
        h.make_node("QuantizeLinear", ["row", "sy", "zy"], ["qr"]),
        h.make_node("Greater", ["x", "edge"], ["c"]),
        h.make_node("QLinearWhere", ["c", "q", "sx", "zx", "qr", "sy", "zy", "sz", "zz"], ["w"], domain=MS),
        h.make_node("QLinearWhere", ["c", "q", "sx", "zx", "q", "sx", "zx", "sx", "zx"], ["same"], domain=MS),
        h.make_node("QuantizeLinear", ["x", "s8", "z8"], ["q8"]),
        h.make_node("ReduceMax", ["x"], ["colmax"], axes=[0, 2], keepdims=1),
        h.make_node("Greater", ["colmax", "edge"], ["c8"]),
        h.make_node("QLinearWhere", ["c8", "q8", "s8", "z8", "q8", "t8", "u8", "t8", "u8"], ["w8"], domain=MS),
    ]
    outputs = [h.make_tensor_value_info("w", T.UINT8, [2, 3, 4]), h.make_tensor_value_info("same", T.UINT8, [2, 3, 4]),
               h.make_tensor_value_info("w8", T.INT8, [2, 3, 4])]
    graph = h.make_graph(nodes, "qwhere", [h.make_tensor_value_info("x", T.FLOAT, [2, 3, 4])], outputs, inits)
    return finish(graph)


def dynshared_model():
    """One DynamicQuantizeLinear read by two MatMulIntegers (opset 14): ORT fuses each into MatMulIntegerToFloat
    (the first with its bias, its weight scale per column), not into DynamicQuantizeMatMul (the quantized input
    has two readers)."""
    rng = np.random.default_rng(8)
    inits = [nh.from_array(rng.integers(-127, 128, (24, 16)).astype(np.int8), "w1"),
             nh.from_array((rng.random(16) * 0.004 + 0.001).astype(np.float32), "s1"),
             nh.from_array(np.zeros(16, dtype=np.int8), "z1"),
             nh.from_array(rng.standard_normal(16).astype(np.float32) * 0.1, "b1"),
             nh.from_array(rng.integers(0, 256, (24, 8)).astype(np.uint8), "w2"), scalar("s2", 0.002, np.float32),
             scalar("z2", 128, np.uint8)]
    nodes = [h.make_node("DynamicQuantizeLinear", ["x"], ["q", "q_scale", "q_zero"]),
             h.make_node("MatMulInteger", ["q", "w1", "q_zero", "z1"], ["i1"]),
             h.make_node("Cast", ["i1"], ["f1"], to=T.FLOAT), h.make_node("Mul", ["q_scale", "s1"], ["m1"]),
             h.make_node("Mul", ["f1", "m1"], ["y1"]), h.make_node("Add", ["y1", "b1"], ["o1"]),
             h.make_node("MatMulInteger", ["q", "w2", "q_zero", "z2"], ["i2"]),
             h.make_node("Cast", ["i2"], ["f2"], to=T.FLOAT), h.make_node("Mul", ["q_scale", "s2"], ["m2"]),
             h.make_node("Mul", ["f2", "m2"], ["o2"])]
    outputs = [h.make_tensor_value_info("o1", T.FLOAT, [2, 5, 16]), h.make_tensor_value_info("o2", T.FLOAT, [2, 5, 8])]
    graph = h.make_graph(nodes, "dynshared", [h.make_tensor_value_info("x", T.FLOAT, [2, 5, 24])], outputs, inits)
    return finish(graph, 14)


def blocked_model():
    """Opset 21's blocked QuantizeLinear and DequantizeLinear (see the docstring)."""
    rng = np.random.default_rng(61)
    inits = [nh.from_array((rng.random((2, 3)) * 0.05 + 0.02).astype(np.float32), "qs"),
             nh.from_array(rng.integers(100, 156, (2, 3)).astype(np.uint8), "qz"),
             nh.from_array(rng.integers(-128, 128, (12, 6)).astype(np.int8), "w"),
             nh.from_array((rng.random((3, 6)) * 0.01 + 0.002).astype(np.float32), "ws"),
             nh.from_array(rng.integers(-5, 6, (3, 6)).astype(np.int8), "wz")]
    nodes = [h.make_node("QuantizeLinear", ["x", "qs", "qz"], ["q"], axis=1, block_size=4),
             h.make_node("DequantizeLinear", ["q", "qs", "qz"], ["d"], axis=-1, block_size=4),
             h.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], axis=0, block_size=5),
             h.make_node("Relu", ["d"], ["r"]), h.make_node("MatMul", ["r", "wf"], ["y"])]
    outputs = [h.make_tensor_value_info("q", T.UINT8, [2, 12]), h.make_tensor_value_info("d", T.FLOAT, [2, 12]),
               h.make_tensor_value_info("wf", T.FLOAT, [12, 6]), h.make_tensor_value_info("y", T.FLOAT, [2, 6])]
    graph = h.make_graph(nodes, "blocked", [h.make_tensor_value_info("x", T.FLOAT, [2, 12])], outputs, inits)
    return finish(graph, 21, ir_version=10)


def finish(graph, opset=13, ir_version=8):
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset), h.make_opsetid(MS, 1)],
                     producer_name="arenasim tests/data/qlinear/make.py")
    m.ir_version = ir_version
    if ir_version <= 8:  # (Debian's onnx 1.12 checks up to IR version 8, opset 17)
        onnx.checker.check_model(m)
    return m


MODELS = {"ops": (ops_model, (1, 4, 6, 6), 7, 2.5), "cnn": (cnn_model, (1, 3, 16, 16), 11, 2.0),
          "dynamic": (dynamic_model, (1, 3, 16, 16), 13, 1.5), "qdq": (qdq_model, (1, 3, 12, 12), 17, 1.0),
          "qdqnet": (qdqnet_model, (1, 3, 12, 12), 23, 1.0), "convs": (convs_model, (1, 4, 11, 9), 31, 2.0),
          "products": (products_model, (1, 8, 9, 11), 37, 2.0), "softmax": (softmax_model, (2, 4, 6, 6), 41, 2.0),
          "where": (where_model, (2, 3, 4), 43, 2.0), "dynshared": (dynshared_model, (2, 5, 24), 47, 1.5),
          "qdqs8": (qdqs8_model, (1, 3, 10, 10), 59, 1.0), "blocked": (blocked_model, (2, 12), 67, 2.0)}


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
        kinds = {"uint8": np.uint8, "int8": np.int8, "int32": np.int32, "float32": np.float32}
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
