#!/usr/bin/python3
"""raw_inputs.py — a model's inputs in the ONNX model zoo's layout (DIR/test_data_set_0/input_K.pb, in the order of
the graph's inputs) as raw bytes ONNX Runtime's node binding can read without protobuf: OUT/K.bin and OUT/inputs.json
([{name, type, dims, file}], type as onnxruntime-node names it). bench/peers/ort-time.js --raw OUT times the model on
them.

Usage: /usr/bin/python3 bench/peers/raw_inputs.py DIR OUT   (Debian's python3-onnx and numpy)
"""
import json
import os
import sys

import onnx
from onnx import numpy_helper

TYPES = {"float32": "float32", "int64": "int64", "int32": "int32", "bool": "bool", "uint8": "uint8", "int8": "int8"}


def main(folder, out):
    model = onnx.load(os.path.join(folder, "model.onnx"), load_external_data=False)
    known = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in known]
    os.makedirs(out, exist_ok=True)
    inputs = []
    for k, name in enumerate(names):
        path = os.path.join(folder, "test_data_set_0", f"input_{k}.pb")
        array = numpy_helper.to_array(onnx.load_tensor(path))
        kind = TYPES.get(str(array.dtype))
        if kind is None:
            sys.exit(f"raw_inputs.py: {path}: element type {array.dtype} is not one ONNX Runtime's node binding takes")
        array.tofile(os.path.join(out, f"{k}.bin"))
        inputs.append({"name": name, "type": kind, "dims": list(array.shape), "file": f"{k}.bin"})
    with open(os.path.join(out, "inputs.json"), "w") as f:
        json.dump(inputs, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
