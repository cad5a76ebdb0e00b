#!/usr/bin/python3
"""onnx-schemas.py — writes the C table of ONNX's own operator schemas (ops/op-schema.h) from the onnx
package Debian ships (python3-onnx's onnx.defs): one row per operator version of the default domain, with its
input and output counts, its formal parameters and the type variable each takes, every type variable's allowed
element types, and its attributes with their types and whether they are required. The build runs it
(Makefile: $(BUILD)/gen/onnx-schemas.c); nothing in it is written by hand.

Usage: /usr/bin/python3 sim/ops/onnx-schemas.py OUT.c"""
import sys

import onnx
import onnx.defs

# TensorProto.DataType numbers by the names ONNX's type strings use ("tensor(float)" -> 1).
ELEM = {name.lower(): number for name, number in onnx.TensorProto.DataType.items()}
NOT_A_TENSOR_BIT = 31  # seq(...), optional(...), map(...): op-schema.h's OP_SCHEMA_NOT_A_TENSOR
OPTION = {"Single": "OP_PARAM_SINGLE", "Optional": "OP_PARAM_OPTIONAL", "Variadic": "OP_PARAM_VARIADIC"}


def mask_of(type_strs):
    mask = 0
    for t in type_strs:
        if t.startswith("tensor(") and t.endswith(")"):
            mask |= 1 << ELEM[t[len("tensor("):-1]]
        else:
            mask |= 1 << NOT_A_TENSOR_BIT
    return mask


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    out_path = sys.argv[1]
    schemas = sorted((s for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""),
                     key=lambda s: (s.name, s.since_version))
    lines = ["/* onnx-schemas.c — generated at build time by sim/ops/onnx-schemas.py from ONNX %s (Debian's "
             "python3-onnx): do not edit. */" % onnx.__version__, '#include "ops/op-schema.h"', ""]
    rows = []
    for k, s in enumerate(schemas):
        names = [t.type_param_str for t in s.type_constraints]
        variables = [(t.type_param_str, mask_of(t.allowed_type_strs)) for t in s.type_constraints]

        def var_of(param):
            if param.typeStr in names:
                return names.index(param.typeStr)
            variables.append((param.typeStr, mask_of([param.typeStr])))  # a fixed type: a variable of its own
            return len(variables) - 1

        params_in = [(p.name, var_of(p), OPTION[p.option.name], p.isHomogeneous) for p in s.inputs]
        params_out = [(p.name, var_of(p), OPTION[p.option.name], p.isHomogeneous) for p in s.outputs]
        uses = {}
        for _, v, option, homogeneous in params_in + params_out:
            uses[v] = uses.get(v, 0) + (2 if option == "OP_PARAM_VARIADIC" and homogeneous else 1)
        for tag, params in (("in", params_in), ("out", params_out)):
            if params:
                lines.append("static const OpSchemaParam %s%d[] = {%s};" % (tag, k, ", ".join(
                    "{%s, %d, %s, %s}" % (c_string(n), v, o, "TRUE" if h else "FALSE") for n, v, o, h in params)))
        if variables:
            lines.append("static const OpSchemaVar var%d[] = {%s};" % (k, ", ".join(
                "{%s, 0x%xu, %s}" % (c_string(n), m, "TRUE" if uses.get(v, 0) > 1 else "FALSE")
                for v, (n, m) in enumerate(variables))))
        attrs = sorted(s.attributes.values(), key=lambda a: a.name)
        if attrs:
            lines.append("static const OpSchemaAttr attr%d[] = {%s};" % (k, ", ".join(
                "{%s, %d, %s}" % (c_string(a.name), int(a.type.value), "TRUE" if a.required else "FALSE")
                for a in attrs)))

        def ref(tag, items):
            return ("%s%d, %d" % (tag, k, len(items))) if items else "NULL, 0"

        rows.append("    {%s, %d, %d, %d, %d, %d, %s, %s, %s, %s, %s},"
                    % (c_string(s.name), s.since_version, s.min_input, s.max_input, s.min_output, s.max_output,
                       ref("in", params_in), ref("out", params_out), ref("var", variables), ref("attr", attrs),
                       "TRUE" if s.deprecated else "FALSE"))
    lines.append("")
    lines.append("const OpSchema op_schema_rows[] = {")
    lines.extend(rows)
    lines.append("};")
    lines.append("const gsize op_schema_row_count = G_N_ELEMENTS(op_schema_rows);")
    lines.append("const gint64 op_schema_newest_opset = %d;" % onnx.defs.onnx_opset_version())
    lines.append("const char op_schema_onnx_version[] = %s;" % c_string(onnx.__version__))
    with open(out_path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    import os
    os.replace(out_path + ".tmp", out_path)


if __name__ == "__main__":
    main()
