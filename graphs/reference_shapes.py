#!/usr/bin/python3
"""reference_shapes.py — independent reference shapes for the corpus, from the ONNX project's own
shape inference (onnx.shape_inference.infer_shapes with data propagation), so that our inference is
checked against code nobody here wrote. For every model in a list it binds the symbolic input dims,
infers, and writes one fixture: every tensor whose shape ONNX inferred fully static, as
`name<TAB>ELEMTYPE<TAB>[d0,d1,...]`, sorted by name. Tensors ONNX leaves unknown are not written
(our test then checks only what the reference knows).

Usage: /usr/bin/python3 graphs/reference_shapes.py LIST OUTDIR
  LIST: lines `name<TAB>path<TAB>dims` (dims `a=1,b=2` or `-`), paths relative to the list's folder
  or absolute; `#` lines are comments. Models whose file is missing are skipped with a note.
"""
import os
import sys

import onnx
from onnx import shape_inference


def bind_inputs(model, dims):
    for value in model.graph.input:
        for d in value.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = dims[d.dim_param]


def static_shape(value):
    t = value.type.tensor_type
    if not t.HasField("shape") or t.elem_type == 0:
        return None
    out = []
    for d in t.shape.dim:
        if not d.HasField("dim_value"):
            return None
        out.append(d.dim_value)
    return onnx.TensorProto.DataType.Name(t.elem_type), out


def main():
    list_path, outdir = sys.argv[1], sys.argv[2]
    base = os.path.dirname(os.path.abspath(list_path))
    os.makedirs(outdir, exist_ok=True)
    for line in open(list_path):
        if not line.strip() or line.startswith("#"):
            continue
        name, path, dim_spec = line.rstrip("\n").split("\t")
        path = path if os.path.isabs(path) else os.path.join(base, path)
        if not os.path.exists(path):
            print(f"skip {name}: {path} is missing (run make models)")
            continue
        dims = {} if dim_spec == "-" else {k: int(v) for k, v in (p.split("=") for p in dim_spec.split(","))}
        model = onnx.load(path, load_external_data=False)
        bind_inputs(model, dims)
        inferred = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
        rows = {}
        for value in list(inferred.graph.value_info) + list(inferred.graph.output):
            shape = static_shape(value)
            if shape:
                rows[value.name] = shape
        with open(os.path.join(outdir, f"{name}.tsv"), "w") as f:
            f.write(f"# onnx {onnx.__version__} shape_inference (data_prop) of {os.path.basename(path)}, dims {dim_spec}\n")
            for tensor in sorted(rows):
                elem, shape = rows[tensor]
                f.write(f"{tensor}\t{elem}\t[{','.join(str(d) for d in shape)}]\n")
        print(f"wrote {name}: {len(rows)} tensors")


if __name__ == "__main__":
    main()
