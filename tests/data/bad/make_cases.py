#!/usr/bin/env python3
"""make_cases.py — writes the bad-input corpus of tests/data/bad/: ONNX files broken in every way the
robustness issue lists (truncated at every field boundary of a small model, wrong wire types, oversized,
negative and zero dims, NaN attributes, duplicate names, an empty graph, missing outputs, ...), traces
and bins files, plus cases.tsv: one line per case with the sim arguments, the exit status and the one
stderr line expected. Protobuf is written by hand (plain python, no onnx module) so every byte is
deliberate. Regenerate with: python3 tests/data/bad/make_cases.py (from the repository root)."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, wire, payload):
    tag = varint(num << 3 | wire)
    if wire == 0:
        return tag + varint(payload)
    if wire == 5:
        return tag + struct.pack("<f", payload)
    return tag + varint(len(payload)) + payload


def s(num, text):
    return field(num, 2, text.encode() if isinstance(text, str) else text)


def dim(value=None, param=None):
    return field(1, 0, value) if value is not None else s(2, param)


def tensor_type(elem, dims):
    shape = b"".join(field(1, 2, d) for d in dims)
    return field(1, 2, field(1, 0, elem) + field(2, 2, shape))  # TypeProto.tensor_type


def value_info(name, elem=1, dims=(dim(2), dim(3))):
    return s(1, name) + field(2, 2, tensor_type(elem, dims))


def attr_int(name, v):
    return s(1, name) + field(3, 0, v) + field(20, 0, 2)


def attr_ints(name, vals):
    return s(1, name) + b"".join(field(8, 0, v) for v in vals) + field(20, 0, 7)


def initializer(name, dims, values):
    return (b"".join(field(1, 0, d) for d in dims) + field(2, 0, 1) + b"".join(field(4, 5, v) for v in values)
            + s(8, name))


def initializer_raw(name, dims, elem, raw):
    """A TensorProto of any element type, its values as raw little-endian bytes."""
    return b"".join(field(1, 0, d) for d in dims) + field(2, 0, elem) + s(8, name) + s(9, raw)


def attr_floats(name, vals):
    return s(1, name) + b"".join(field(7, 5, v) for v in vals) + field(20, 0, 6)


def node(op, inputs, outputs, attrs=(), name="", domain=""):
    return (b"".join(s(1, i) for i in inputs) + b"".join(s(2, o) for o in outputs) + (s(3, name) if name else b"")
            + s(4, op) + b"".join(field(5, 2, a) for a in attrs) + (s(7, domain) if domain else b""))


def graph(nodes, inputs, outputs, extra=b""):
    return (b"".join(field(1, 2, n) for n in nodes) + s(2, "g") + b"".join(field(11, 2, i) for i in inputs)
            + b"".join(field(12, 2, o) for o in outputs) + extra)


def model(g, opset=13, microsoft=False):
    ms = field(8, 2, s(1, "com.microsoft") + field(2, 0, 1)) if microsoft else b""
    return field(1, 0, 8) + s(2, "make_cases") + field(7, 2, g) + field(8, 2, s(1, "") + field(2, 0, opset)) + ms


def relu_model():
    return model(graph([node("Relu", ["x"], ["y"], name="r")], [value_info("x")], [value_info("y")]))


cases = []  # (file, args, exit, stderr with {} for the file)


def add(name, data, args, status, err):
    path = os.path.join(HERE, name)
    with open(path, "wb") as f:
        f.write(data)
    cases.append((name, args, status, err))


def main():
    good = relu_model()
    # Truncated at every field boundary of a small model: walk the top-level fields and the graph's fields.
    boundaries, pos = [], 0
    top_level, seen_graph = {}, False
    while pos < len(good):
        tag_start = pos
        key = 0
        shift = 0
        while True:
            b = good[pos]
            pos += 1
            key |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        wire = key & 7
        if wire == 0:
            while good[pos] & 0x80:
                pos += 1
            pos += 1
        elif wire == 2:
            n, shift = 0, 0
            while True:
                b = good[pos]
                pos += 1
                n |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
            if key >> 3 == 7:  # the graph: its own field boundaries lie inside
                inner = pos
                while inner < pos + n:
                    boundaries.append(inner + 1)  # one byte into each graph field
                    ikey = good[inner]
                    inner += 1
                    if ikey & 7 == 2:
                        m, sh = 0, 0
                        while True:
                            b = good[inner]
                            inner += 1
                            m |= (b & 0x7F) << sh
                            sh += 7
                            if not b & 0x80:
                                break
                        inner += m
                    else:
                        while good[inner] & 0x80:
                            inner += 1
                        inner += 1
            pos += n
        top_level[tag_start] = seen_graph  # a cut here leaves whole fields: valid once the graph is in
        if key >> 3 == 7:
            seen_graph = True
        boundaries.append(tag_start)
    for cut in sorted(set(b for b in boundaries if 0 < b < len(good))):
        data = good[:cut]
        if cut in top_level:
            if top_level[cut]:
                continue  # only fields after the graph are lost: a valid model, not a bad case
            add(f"onnx-truncated-{cut:03d}.onnx", data, "--graph {}", 1, "sim: {}: not an ONNX model: it has no graph")
        else:
            add(f"onnx-truncated-{cut:03d}.onnx", data, "--graph {}", 1,
                f"sim: {{}}: not a valid ONNX protobuf (truncated or corrupt, {cut} bytes)")
    # A complete model minus its opset import: the oldest semantics, still fine: not a bad case. Others:
    wrong_wire = bytearray(good)
    wrong_wire[wrong_wire.index(0x3A)] = 0x38  # graph (field 7) declared a varint instead of bytes
    add("onnx-wrong-wire-type.onnx", bytes(wrong_wire), "--graph {}", 1,
        f"sim: {{}}: not a valid ONNX protobuf (truncated or corrupt, {len(wrong_wire)} bytes)")
    add("onnx-not-protobuf.onnx", b"ONNX? no, just text\n", "--graph {}", 1,
        "sim: {}: not a valid ONNX protobuf (truncated or corrupt, 20 bytes)")
    add("onnx-empty.onnx", b"", "--graph {}", 1, "sim: {}: file is empty, not an ONNX model")
    huge = model(graph([node("Relu", ["x"], ["y"])], [value_info("x", dims=(dim(1 << 62), dim(1 << 62)))], [value_info("y")]))
    add("onnx-oversized-dims.onnx", huge, "--graph {}", 1,
        "sim: {}: tensor 'x' [4611686018427387904,4611686018427387904] of FLOAT: byte size overflows 64 bits")
    neg = model(graph([node("Relu", ["x"], ["y"])], [value_info("x", dims=(dim(-3), dim(3)))], [value_info("y")]))
    add("onnx-negative-dim.onnx", neg, "--graph {}", 1, "sim: {}: graph input 'x': dimension 0 is -3 (negative)")
    zero = model(graph([node("Relu", ["x"], ["y"])], [value_info("x", dims=(dim(0), dim(3)))], [value_info("y")]))
    add("onnx-zero-dim.onnx", zero, "--graph {}", 1,
        "sim: {}: graph input 'x' dimension 0 is 0 (empty inputs are not planned)")
    nan = model(graph([node("Upsample", ["x"], ["y"], [attr_floats("scales", [1.0, float("nan")])], name="up")],
                      [value_info("x")], [value_info("y")]), opset=7)
    add("onnx-nan-attribute.onnx", nan, "--graph {}", 1, "sim: {}: node 'up' (Upsample): scale nan on axis 1 is not usable")
    dup = model(graph([node("Relu", ["x"], ["y"])], [value_info("x"), value_info("x")], [value_info("y")]))
    add("onnx-duplicate-input.onnx", dup, "--graph {}", 1, "sim: {}: graph input 'x' is listed twice")
    twice = model(graph([node("Relu", ["x"], ["y"], name="a"), node("Neg", ["x"], ["y"], name="b")], [value_info("x")],
                        [value_info("y")]))
    add("onnx-produced-twice.onnx", twice, "--graph {}", 1,
        "sim: {}: tensor 'y' is produced twice: by node 'a' (Relu) and by node 'b' (Neg)")
    add("onnx-empty-graph.onnx", model(graph([], [], [])), "--graph {}", 1,
        "sim: {}: the graph has no outputs (0 nodes): nothing to compute")
    missing = model(graph([node("Relu", ["x"], ["y"])], [value_info("x")], [value_info("z")]))
    add("onnx-missing-output.onnx", missing, "--graph {}", 1,
        "sim: {}: graph output 'z' is not produced by any node and is not a graph input or initializer")
    undefined = model(graph([node("Add", ["x", "ghost"], ["y"], name="add")], [value_info("x")], [value_info("y")]))
    add("onnx-undefined-input.onnx", undefined, "--graph {}", 1,
        "sim: {}: node 'add' (Add): input 'ghost' is not produced by any node and is not a graph input or initializer")
    cycle = model(graph([node("Add", ["x", "b"], ["a"], name="p"), node("Relu", ["a"], ["b"], name="q")], [value_info("x")],
                        [value_info("a")]))
    add("onnx-cycle.onnx", cycle, "--graph {}", 1,
        "sim: {}: graph has a cycle: node 'p' (Add) reads 'b', which depends on the node's own output")
    unknown = model(graph([node("Frobnicate", ["x"], ["y"], name="f")], [value_info("x")], [value_info("y")]))
    add("onnx-unknown-op.onnx", unknown, "--graph {}", 1,
        "sim: {}: node 'f' (Frobnicate): unknown op 'Frobnicate' (--allow-unknown-ops takes its output shapes from value_info)")
    sym = model(graph([node("Relu", ["x"], ["y"])], [value_info("x", dims=(dim(param="batch"), dim(3)))], [value_info("y")]))
    add("onnx-unbound-dim.onnx", sym, "--graph {}", 1,
        "sim: {}: unbound symbolic dimensions: batch (input 'x' dim 0); bind each with --dim NAME=VALUE")
    badattr = model(graph([node("Concat", ["x", "x"], ["y"], [s(1, "axis") + s(4, "1") + field(20, 0, 3)], name="c")],
                          [value_info("x")], [value_info("y")]))
    add("onnx-attribute-type.onnx", badattr, "--graph {}", 1,
        "sim: {}: node 'c' (Concat): attribute 'axis' must be INT, not STRING (ONNX's Concat, opset 13)")
    badtype = model(graph([node("Relu", ["x"], ["y"])], [value_info("x", elem=99)], [value_info("y")]))
    add("onnx-invalid-elem-type.onnx", badtype, "--graph {}", 1,
        "sim: {}: graph input 'x': element type 99 is not a valid ONNX type")
    # Traces (text and MiniMalloc CSV).
    t = "arenasim-trace 1\n"
    add("trace-negative-size.trace", (t + "0 a -5 0 1\n").encode(), "--trace {}", 1, "sim: {}:2: size '-5' is not a positive integer")
    add("trace-upper-le-lower.csv", b"id,lower,upper,size\nb1,4,4,8\n", "--trace {}", 1,
        "sim: {}:2: upper 4 must be greater than lower 4 (lifetimes are half-open [lower, upper))")
    add("trace-non-numeric.trace", (t + "0 a ten 0 1\n").encode(), "--trace {}", 1, "sim: {}:2: size 'ten' is not a positive integer")
    add("trace-duplicate-id.csv", b"id,lower,upper,size\nb1,0,2,8\nb1,1,3,8\n", "--trace {}", 1, "sim: {}:3: id 'b1' appears twice")
    add("trace-huge-size.trace", (t + "0 a 18446744073709551615 0 1\n").encode(), "--trace {}", 1,
        "sim: {}: buffer 0 'a': size or alignment is beyond 2^56 bytes")
    add("trace-number-overflow.trace", (t + "0 a 99999999999999999999999 0 1\n").encode(), "--trace {}", 1,
        "sim: {}:2: size '99999999999999999999999' is not a positive integer")
    add("trace-overlapping-pins.trace", (t + "0 a 100 0 3 fixed=0\n1 b 100 2 5 fixed=64\n").encode(), "--trace {}", 1,
        "sim: {}: the trace pins two buffers onto the same bytes: buffers 0 'a' [0, 100) steps 0..3 and 1 'b' [64, 164) steps 2..5 "
        "share bytes [64, 100) at step 2")
    add("trace-group-overlap.trace", (t + "0 a 100 0 3 group=1:0\n1 b 100 2 5 group=1:64\n").encode(), "--trace {}", 1,
        "sim: {}: group 1 lays two live members on the same bytes: buffers 0 'a' [0, 100) steps 0..3 and 1 'b' [64, 164) steps "
        "2..5 share bytes [64, 100) at step 2")
    add("trace-group-pins-disagree.trace", (t + "0 a 10 0 1 group=1:0 fixed=0\n1 b 10 0 1 group=1:16 fixed=64\n").encode(),
        "--trace {}", 1, "sim: {}: buffer 1 'b': two members of its group are fixed at offsets that disagree")
    add("trace-bad-header.trace", b"trace v2\n0 a 1 0 0\n", "--trace {}", 1,
        "sim: {}:1: not an arenasim trace (the first line must be 'arenasim-trace 1')")
    add("trace-nul-bytes.trace", (t + "0 a\0 1 0 0\n").encode(), "--trace {}", 1, "sim: {}:1: the file holds NUL bytes: not a text trace")
    add("trace-unknown-key.trace", (t + "0 a 1 0 0 colour=red\n").encode(), "--trace {}", 1,
        "sim: {}:2: unknown key 'colour=red' (align, fixed, group, bin, reuse, reads, writes, tier)")
    add("trace-tier-before-tiers.trace", (t + "0 a 1 0 0 tier=sram\n").encode(), "--trace {}", 1,
        "sim: {}:2: 'tier=sram' names a tier before a 'tiers SPEC' line declared any")
    add("trace-tiers-unbounded-first.trace", (t + "tiers dram,sram=1K\n0 a 1 0 0\n").encode(), "--trace {}", 1,
        "sim: {}:2: tier 'dram' has no capacity but is not the last: nothing would reach 'sram'")
    add("trace-tier-fits-nowhere.trace", (t + "tiers sram=8:0,dram=16:1\n0 a 100 0 0\n").encode(), "--trace {}", 1,
        "sim: {}: buffer 0 'a' (100 bytes) is larger than every tier it may use: sram (8 bytes), dram (16 bytes)")
    add("trace-csv-gaps.csv", b"id,lower,upper,size,gaps\nb1,0,9,4,2-3\n", "--trace {}", 1,
        "sim: {}:2: buffers with gaps in their lifetime are not supported")
    add("trace-csv-missing-column.csv", b"id,lower,size\nb1,0,4\n", "--trace {}", 1,
        "sim: {}:1: the header must name id, lower, upper and size")
    # Structured problems (schema-v1 JSON, docs/structured.md): every field honoured or refused with one line.
    import json as _json

    def problem(**edits):
        d = {"schema_version": 1, "profile": "pypto_research_v1", "instance": "bad",
             "metadata": {"lifetime_ordering": "pypto_read_before_write", "solver_input": "pre_memory_reuse"},
             "problem": {"pools": [{"id": 0, "name": "Vec", "capacity": 256, "reserved_ranges": []}],
                         "buffers": [{"id": 0, "name": "a", "size": 64, "alignment": 32,
                                      "live_intervals": [{"lower": 0, "upper": 4}], "allowed_pools": [0]},
                                     {"id": 1, "name": "b", "size": 64, "alignment": 32,
                                      "live_intervals": [{"lower": 2, "upper": 6}], "allowed_pools": [0]}],
                         "constraints": {"colocations": [], "separations": [], "temporal_exclusions": [],
                                         "pinned_allocations": []},
                         "objective": {"aggregation": "lexicographic", "terms": ["total_peak", "max_peak"]}}}
        for path, value in edits.items():
            node = d
            keys = path.split(".")
            for k in keys[:-1]:
                node = node[int(k)] if isinstance(node, list) else node[k]
            last = keys[-1]
            if value is None:
                del node[last]
            elif isinstance(node, list):
                node[int(last)] = value
            else:
                node[last] = value
        return _json.dumps(d).encode()

    add("structured-not-json.json", b"{\"schema_version\": 1,", "--trace {}", 1,
        "sim: {}: not JSON: <data>:1:21: Parse error: unexpected character `,', expected string constant")
    add("structured-unknown-field.json", problem(**{"problem.buffers.0.colour": "red"}), "--trace {}", 1,
        "sim: {}: root.problem.buffers[0]: unknown field 'colour' (schema-v1 has no such field here)")
    add("structured-version-2.json", problem(schema_version=2), "--trace {}", 1,
        "sim: {}: root.schema_version: is 2; only schema version 1 is read")
    add("structured-bank-geometry.json",
        problem(**{"problem.pools.0.bank_geometry": {"bank_size": 64, "num_banks": 4}}), "--trace {}", 1,
        "sim: {}: root.problem.pools[0]: bank_geometry: banked pools (and the bank_cost term) are not supported")
    add("structured-negative-size.json", problem(**{"problem.buffers.0.size": -64}), "--trace {}", 1,
        "sim: {}: root.problem.buffers[0].size: must be an integer from 0 to 9223372036854775807")
    add("structured-huge-size.json", problem(**{"problem.buffers.0.size": 18446744073709551615}), "--trace {}", 1,
        "sim: {}: root.problem.buffers[0].size: must be an integer from 0 to 9223372036854775807")
    add("structured-fraction.json", problem(**{"problem.pools.0.capacity": 25.5}), "--trace {}", 1,
        "sim: {}: root.problem.pools[0].capacity: must be an integer (at most 9223372036854775807)")
    add("structured-duplicate-id.json", problem(**{"problem.buffers.1.id": 0}), "--trace {}", 1,
        "sim: {}: root.problem.buffers[1]: buffer id 0 appears twice")
    add("structured-unknown-pool.json", problem(**{"problem.buffers.1.allowed_pools": [7]}), "--trace {}", 1,
        "sim: {}: root.problem.buffers[1].allowed_pools[0]: names pool 7, which the problem does not have")
    add("structured-inverted-interval.json",
        problem(**{"problem.buffers.0.live_intervals": [{"lower": 4, "upper": 4}]}), "--trace {}", 1,
        "sim: {}: root.problem.buffers[0].live_intervals[0]: is empty or inverted (lower 4 >= upper 4)")
    add("structured-separated-colocated.json",
        problem(**{"problem.constraints.colocations": [{"first": 0, "second": 1}],
                   "problem.constraints.separations": [{"first": 1, "second": 0}]}),
        "--trace {}", 1,
        "sim: {}: root.problem.constraints.separations: buffers 1 and 0 are both colocated and separated")
    add("structured-misaligned-pin.json",
        problem(**{"problem.constraints.pinned_allocations": [{"buffer": 0, "pool": 0, "offset": 16,
                                                               "exclusive_for_all_time": False}]}), "--trace {}", 1,
        "sim: {}: root.problem.constraints.pinned_allocations[0]: offset 16 is not a multiple of the buffer's "
        "alignment 32")
    add("structured-pins-clash.json",
        problem(**{"problem.constraints.pinned_allocations": [
            {"buffer": 0, "pool": 0, "offset": 0, "exclusive_for_all_time": False},
            {"buffer": 1, "pool": 0, "offset": 32, "exclusive_for_all_time": False}]}), "--trace {}", 1,
        "sim: {}: pinned buffers share bytes they may not share (or a reserved range): no placement exists")
    add("structured-bank-cost.json", problem(**{"problem.objective.terms": ["bank_cost"]}), "--trace {}", 1,
        "sim: {}: root.problem.objective: the bank_cost term is not supported")
    add("structured-hard-with-costs.json",
        problem(profile="pypto_hard_v1", **{"problem.cost_model": {"reuse_penalties": []}}), "--trace {}", 1,
        "sim: {}: root.profile: pypto_hard_v1 allows one interval and one pool per buffer, separations only, "
        "no cost model, and the objective [total_peak, max_peak]")
    add("structured-reason.json",
        problem(**{"problem.constraints.separations": [{"first": 0, "second": 1, "reasons": ["vibes"]}]}),
        "--trace {}", 1, "sim: {}: root.problem.constraints.separations[0]: 'vibes' is not one of generic, "
        "pipeline_stage, target_hazard, semantic_no_alias, cross_pipe")
    # found by fuzz-structured: two buffers of nearly 2^63 bytes live at once in one pool (the live-bytes bound once
    # overflowed, and the greedy found no offset for the second)
    add("structured-past-2-63.json", problem(**{"problem.buffers.0.size": 9223372036854775000,
                                                "problem.buffers.1.size": 9223372036854775000,
                                                "problem.buffers.0.alignment": 1, "problem.buffers.1.alignment": 1}),
        "--trace {}", 1, "sim: {}: buffer 1 fits in none of its pools below 2^63 bytes (what must lie apart from it "
        "is that large): no placement exists")
    add("structured-escape-name.json", problem(**{"problem.buffers.1.allowed_pools": [0], "problem.pools.0.name":
                                                  "Vec\x1b]0;owned\x07"}), "--trace {} --pool Mat", 1,
        "sim: {}: no pool is named 'Mat' (the pools: Vec%1B]0;owned%07)")
    # Bins files (with a committed graph) and the command line.
    add("bins-bad-rule.bins", b"1 colour=red\n", "--graph graphs/noop-chain.onnx --bins {}", 1,
        "sim: graphs/noop-chain.onnx: {}:1: rule 'colour=red' is neither name=GLOB nor size>=BYTES")
    add("bins-bad-number.bins", b"2000 name=x\n", "--graph graphs/noop-chain.onnx --bins {}", 1,
        "sim: graphs/noop-chain.onnx: {}:1: expected 'BIN RULE' with BIN a number below 1024 or a tier's name")
    # Hostile models that plan: an empty name for a required output (ONNX's "omitted optional output"),
    # which used to plan and then crash the kernel under --run; Conv window arithmetic past 64 bits.
    add("onnx-empty-output.onnx",
        model(graph([node("Relu", ["x"], [""], name="r1"), node("Relu", ["x"], ["y"], name="r2")],
                    [value_info("x")], [value_info("y")])), "--graph {} --run", 1,
        "sim: {}: node 'r1' (Relu): required output 0 is empty (an empty name omits an optional output)")
    conv_x = value_info("x", dims=(dim(1), dim(1), dim(8), dim(8)))
    add("onnx-conv-dilation-overflow.onnx",
        model(graph([node("Conv", ["x", "w"], ["y"], [attr_ints("dilations", [1 << 62, 1 << 62])], name="c")],
                    [conv_x], [s(1, "y")], field(5, 2, initializer("w", [1, 1, 3, 3], [1.0] * 9)))), "--graph {}", 1,
        "sim: {}: node 'c' (Conv): the window arithmetic on spatial axis 0 overflows 64 bits (kernel, dilation, stride "
        "or pads too large)")
    # Quantization: opset 21's blocked form with a scale that is not of x's rank is refused with one line; a scale
    # that is neither one value nor one per element of the axis too.
    quant_in = [value_info("x", dims=(dim(2), dim(4)))]
    scale = field(5, 2, initializer("s", [], [0.5]))
    add("onnx-quantize-blocked.onnx",
        model(graph([node("QuantizeLinear", ["x", "s"], ["y"], [attr_int("block_size", 2)], name="q")],
                    quant_in, [s(1, "y")], scale), opset=21), "--graph {}", 1,
        "sim: {}: node 'q' (QuantizeLinear): block_size 2: the scale 's' has rank 0, not the rank 2 of 'x'")
    add("onnx-quantize-scale-length.onnx",
        model(graph([node("QuantizeLinear", ["x", "s3"], ["y"], [attr_int("axis", 1)], name="q")],
                    quant_in, [s(1, "y")], field(5, 2, initializer("s3", [3], [0.5, 0.25, 1.0]))), opset=13),
        "--graph {}", 1, "sim: {}: node 'q' (QuantizeLinear): the scale 's3' has 3 values where axis 1 of 'x' has 4")
    # ONNX Runtime's QLinear contrib ops (com.microsoft): a scale per tensor only, their inputs in threes, 8-bit data.
    q_in = [value_info("a", elem=2, dims=(dim(1), dim(4))), value_info("b", elem=2, dims=(dim(1), dim(4)))]
    qparams = (field(5, 2, initializer("s", [], [0.5])) + field(5, 2, initializer("s4", [4], [0.5] * 4))
               + field(5, 2, initializer_raw("z", [], 2, bytes([128]))))
    add("onnx-qlinear-add-per-axis.onnx",
        model(graph([node("QLinearAdd", ["a", "s4", "z", "b", "s", "z", "s", "z"], ["c"], name="qa",
                          domain="com.microsoft")], q_in, [s(1, "c")], qparams), microsoft=True), "--graph {}", 1,
        "sim: {}: node 'qa' (QLinearAdd): the scale 's4' is not one float value (ONNX Runtime's QLinear ops quantize "
        "per tensor)")
    add("onnx-qlinear-concat-inputs.onnx",
        model(graph([node("QLinearConcat", ["s", "z", "a", "s", "z", "b"], ["c"], [attr_int("axis", 1)], name="qc",
                          domain="com.microsoft")], q_in, [s(1, "c")], qparams), microsoft=True), "--graph {}", 1,
        "sim: {}: node 'qc' (QLinearConcat): 6 inputs: Y_scale, Y_zero_point, then X, X_scale, X_zero_point per input")
    add("onnx-qlinear-float.onnx",
        model(graph([node("QLinearSigmoid", ["x", "s", "z", "s", "z"], ["y"], name="qs", domain="com.microsoft")],
                    [value_info("x")], [s(1, "y")], qparams), microsoft=True), "--graph {}", 1,
        "sim: {}: node 'qs' (QLinearSigmoid): 'x' is FLOAT: ONNX Runtime's QLinear ops take uint8 or int8")
    add("onnx-qlinear-pool-nhwc.onnx",
        model(graph([node("QLinearAveragePool", ["x", "s", "z", "s", "z"], ["y"],
                          [attr_int("channels_last", 1), attr_ints("kernel_shape", [2, 2])], name="qp",
                          domain="com.microsoft")],
                    [value_info("x", elem=2, dims=(dim(1), dim(4), dim(4), dim(2)))], [s(1, "y")], qparams),
              microsoft=True), "--graph {}", 1,
        "sim: {}: node 'qp' (QLinearAveragePool): channels_last: only NCHW is supported (ONNX Runtime's quantizer "
        "writes NCHW)")
    add("onnx-qlinear-softmax-opset.onnx",
        model(graph([node("QLinearSoftmax", ["x", "s", "z", "s", "z"], ["y"], [attr_int("axis", -1)], name="qs",
                          domain="com.microsoft")],
                    [value_info("x", elem=2, dims=(dim(1), dim(4)))], [s(1, "y")], qparams),
              microsoft=True), "--graph {}", 1,
        "sim: {}: node 'qs' (QLinearSoftmax): attribute 'opset' (the Softmax it stands for) is missing or below 1")
    add("onnx-qgemm-zero-points.onnx",
        model(graph([node("QGemm", ["a", "s", "z", "w", "s", "z3"], ["y"], [attr_int("transB", 1)], name="qg",
                          domain="com.microsoft")],
                    [value_info("a", elem=2, dims=(dim(1), dim(4)))], [s(1, "y")],
                    qparams + field(5, 2, initializer_raw("w", [2, 4], 2, bytes(8)))
                    + field(5, 2, initializer_raw("z3", [3], 2, bytes(3)))), microsoft=True), "--graph {}", 1,
        "sim: {}: node 'qg' (QGemm): b_zero_point is neither one value nor one per output column")
    # Sequences: planned only when the model builds them with every element known before running.
    seq_type = field(4, 2, field(1, 2, tensor_type(1, (dim(2), dim(3)))))  # TypeProto.sequence_type
    add("onnx-sequence-input.onnx",
        model(graph([node("SequenceAt", ["s", "p"], ["y"], name="at")], [s(1, "s") + field(2, 2, seq_type)],
                    [s(1, "y")], field(5, 2, initializer_raw("p", [], 7, bytes(8))))), "--graph {}", 1,
        "sim: {}: graph input 's' is a sequence: its length and elements are known only to the caller (a sequence is "
        "planned when the model builds it, its elements known before running)")
    add("onnx-sequence-position.onnx",
        model(graph([node("SequenceConstruct", ["x", "x"], ["s"], name="make"),
                     node("SequenceAt", ["s", "p"], ["y"], name="at")],
                    [value_info("x"), value_info("p", elem=7, dims=())], [s(1, "y")])), "--graph {}", 1,
        "sim: {}: node 'at' (SequenceAt): input 'p' (position) must be a constant the planner can compute, and it is "
        "not (a sequence is planned when its elements are known before running: its positions constants and the "
        "Loop that builds it of a trip count known at plan time)")
    add("onnx-sequence-position-range.onnx",
        model(graph([node("SequenceConstruct", ["x", "x"], ["s"], name="make"),
                     node("SequenceAt", ["s", "p"], ["y"], name="at")], [value_info("x")], [s(1, "y")],
                    field(5, 2, initializer_raw("p", [], 7, struct.pack("<q", 2))))), "--graph {}", 1,
        "sim: {}: node 'at' (SequenceAt): position 2 is outside [-2, 1] for a sequence of 2 tensors")
    add("onnx-sequence-read.onnx",
        model(graph([node("SequenceConstruct", ["x"], ["s"], name="make"), node("Relu", ["s"], ["y"], name="r")],
                    [value_info("x")], [s(1, "y")])), "--graph {}", 1,
        "sim: {}: node 'r' (Relu): reads 's', a sequence of 1 tensors: only the sequence ops read sequences, and an "
        "If or a Loop decided before running (this one is not)")
    add("onnx-sequence-output.onnx",
        model(graph([node("SequenceConstruct", ["x"], ["s"], name="make")], [value_info("x")], [s(1, "s")])),
        "--graph {}", 1,
        "sim: {}: node 'make' (SequenceConstruct): graph output 's' is a sequence: a graph's outputs are planned as "
        "tensors")
    add("onnx-sequence-concat-empty.onnx",
        model(graph([node("SequenceEmpty", [], ["s"], name="none"),
                     node("ConcatFromSequence", ["s"], ["y"], [attr_int("axis", 0)], name="cat")], [],
                    [s(1, "y")])), "--graph {}", 1,
        "sim: {}: node 'cat' (ConcatFromSequence): the sequence 's' is empty: ONNX defines no concatenation of no "
        "tensor")
    add("onnx-sequence-insert-type.onnx",
        model(graph([node("SequenceEmpty", [], ["s"], [attr_int("dtype", 7)], name="none"),
                     node("SequenceInsert", ["s", "x"], ["t"], name="ins"),
                     node("ConcatFromSequence", ["t"], ["y"], [attr_int("axis", 0)], name="cat")],
                    [value_info("x")], [s(1, "y")])), "--graph {}", 1,
        "sim: {}: node 'ins' (SequenceInsert): tensor 'x' is FLOAT, but the sequence holds INT64")
    # Round two of hostile input: nesting that overflowed protobuf-c's recursive unpacking, a blocksize whose
    # square overflowed, Loops each unrolled to the old per-Loop cap, a name that would drive the terminal.
    def attr_graph(name, g):
        return s(1, name) + field(6, 2, g) + field(20, 0, 5)
    inner = graph([node("Identity", ["x"], ["y"])], [], [s(1, "y")])
    for _ in range(3000):
        inner = graph([node("If", ["c"], ["y"], [attr_graph("then_branch", inner)])], [], [s(1, "y")])
    add("onnx-nested-if-3000.onnx", model(graph([node("If", ["c"], ["y"], [attr_graph("then_branch", inner)])],
                                                [value_info("c", elem=9, dims=()), value_info("x")], [value_info("y")])),
        "--graph {}", 1, "sim: {}: messages nest more than 112 levels deep (subgraphs inside subgraphs more than 32 deep)")
    d2s_x = value_info("x", dims=(dim(1), dim(16), dim(2), dim(2)))
    add("onnx-depth-to-space-huge-block.onnx",
        model(graph([node("DepthToSpace", ["x"], ["y"], [attr_int("blocksize", 1 << 32)], name="d")], [d2s_x], [s(1, "y")])),
        "--graph {}", 1, "sim: {}: node 'd' (DepthToSpace): blocksize 4294967296 does not fit the input's channels "
        "(blocksize^2 must divide them)")
    body = graph([node("Identity", ["cond"], ["cond_out"])] + [node("Relu", ["x" if k == 0 else f"b{k - 1}"], [f"b{k}"])
                                                              for k in range(9)],
                 [value_info("iter", elem=7, dims=()), value_info("cond", elem=9, dims=()), value_info("x")],
                 [s(1, "cond_out"), s(1, "b8")])
    trip = field(5, 2, field(2, 0, 7) + s(8, "M") + s(9, struct.pack("<q", 10000)))
    loops = [node("Loop", ["M", "", "x" if k == 0 else f"l{k - 1}"], [f"l{k}"], [attr_graph("body", body)], name=f"loop{k}")
             for k in range(20)]
    add("onnx-loops-past-total.onnx", model(graph(loops, [value_info("x")], [value_info("l19")], trip)), "--graph {}", 1,
        "sim: {}: node 'loop1' (Loop): output 'l1' needs a static shape in value_info (subgraph ops are planned as one "
        "compute op and their shapes are not inferred)")
    # One Loop of 50,000 trips of a 6,000-input Sum: 50,000 nodes, but 3*10^8 inputs (4.1 GB unrolled); the total
    # counts slots, not only nodes.
    wide = graph([node("Identity", ["cond"], ["cond_out"]), node("Sum", ["x"] * 6000, ["s"])],
                 [value_info("iter", elem=7, dims=()), value_info("cond", elem=9, dims=()), value_info("x")],
                 [s(1, "cond_out"), s(1, "s")])
    trips = field(5, 2, field(2, 0, 7) + s(8, "M") + s(9, struct.pack("<q", 50000)))
    add("onnx-loop-wide-body.onnx",
        model(graph([node("Loop", ["M", "", "x"], ["l"], [attr_graph("body", wide)], name="loop")], [value_info("x")],
                    [s(1, "l")], trips)), "--graph {}", 1,
        "sim: {}: node 'loop' (Loop): output 'l' needs a static shape in value_info (subgraph ops are planned as one "
        "compute op and their shapes are not inferred)")
    # 40,000 trips of an Add over 2^20 floats from a 253-byte model: each step fits memory, all together read and
    # write 5*10^11 bytes (minutes of a core); the run's total refuses it before a byte is allocated.
    busy = graph([node("Identity", ["cond"], ["cond_out"]), node("Add", ["x", "x"], ["y"])],
                 [value_info("iter", elem=7, dims=()), value_info("cond", elem=9, dims=()),
                  value_info("x", dims=(dim(1 << 20),))], [s(1, "cond_out"), s(1, "y")])
    busy_inits = (field(5, 2, field(2, 0, 7) + s(8, "M") + s(9, struct.pack("<q", 40000)))
                  + field(5, 2, field(1, 0, 1) + field(2, 0, 7) + s(8, "n") + s(9, struct.pack("<q", 1 << 20))))
    add("onnx-loop-busy-run.onnx",
        model(graph([node("ConstantOfShape", ["n"], ["x"], name="zeros"),
                     node("Loop", ["M", "", "x"], ["l"], [attr_graph("body", busy)], name="loop")], [],
                    [s(1, "l")], busy_inits)), "--graph {} --run", 1,
        "sim: {}: node 'loop/21844/#1' (Add): --run would read and write more than 274,877,906,944 B (256.0 GiB) by "
        "this step, 43691 of 80001 (ARENASIM_RUN_WORK=BYTES sets another total)")
    add("trace-escape-in-key.trace", (t + "0 a 1 0 0 colour\x1b]0;owned\x07\x1b[2J=red\n").encode(), "--trace {}", 1,
        "sim: {}:2: unknown key 'colour%1B]0;owned%07%1B[2J=red' (align, fixed, group, bin, reuse, reads, writes, tier)")
    # An unknown op whose output has no value_info entry at all (as torch exports them): said so.
    no_vi = model(graph([node("Frobnicate", ["x"], ["h"], name="f"), node("Relu", ["h"], ["y"], name="r")],
                        [value_info("x")], [value_info("y")]))
    add("onnx-unknown-op-no-value-info.onnx", no_vi, "--graph {} --allow-unknown-ops", 1,
        "sim: {}: node 'f' (Frobnicate): unknown op 'Frobnicate': output 'h' has no value_info entry at all, so its "
        "shape cannot be taken from the file (add one, e.g. with onnx.shape_inference, or leave the op out)")
    # Recurrent and data-dependent ops given the wrong shapes, and sim's own op (its domain is open to files).
    add("onnx-lstm-rank.onnx",
        model(graph([node("LSTM", ["x", "w", "r"], ["y"], [attr_int("hidden_size", 2)], name="l")], [value_info("x")],
                    [s(1, "y")], field(5, 2, initializer("w", [1, 8, 3], [0.5] * 24)) +
                    field(5, 2, initializer("r", [1, 8, 2], [0.5] * 16)))), "--graph {}", 1,
        "sim: {}: node 'l' (LSTM): input X 'x' must have rank 3, but has rank 2")
    add("onnx-nms-boxes-shape.onnx",
        model(graph([node("NonMaxSuppression", ["x", "x"], ["k"], name="n")], [value_info("x")], [s(1, "k")])),
        "--graph {}", 1, "sim: {}: node 'n' (NonMaxSuppression): boxes 'x' must be [batch, boxes, 4] and scores 'x' "
        "[batch, classes, boxes]")
    add("onnx-ifselect-arity.onnx",
        model(graph([node("IfSelect", ["x"], ["y"], name="i") + s(7, "arenasim.internal")], [value_info("x")],
                    [s(1, "y")])), "--graph {}", 1,
        "sim: {}: node 'i' (IfSelect): has 1 inputs for 1 outputs (a condition, then two per output)")
    # Round three: ONNX's own rules at the door (its operator schemas, generated at build time from Debian's
    # onnx: sim/ops/op-schema.h), and the shape rules its specification states. Each of these read neighbouring
    # heap bytes, crashed or ran for ever under --run before.
    where = model(graph([node("Where", ["c", "x", "y"], ["z"], name="w")],
                        [value_info("c", elem=9), value_info("x"), value_info("y", elem=3)], [s(1, "z")]), opset=16)
    add("onnx-where-mixed-types.onnx", where, "--graph {} --run --check", 1,
        "sim: {}: node 'w' (Where): input 2 'y' (Y) is INT8 but input 1 'x' (X) is FLOAT: Where takes one element "
        "type T for both (ONNX's Where, opset 16)")
    conv_in = value_info("x", dims=(dim(1), dim(4), dim(8), dim(8)))
    w4 = initializer("w", [4, 4, 1, 1], [0.5] * 16)

    def conv_case(name, inits, attrs=(), inputs=("x", "w", "b"), x=conv_in, opset=13):
        return model(graph([node("Conv", list(inputs), ["y"], list(attrs), name="c")], [x], [s(1, "y")],
                           b"".join(field(5, 2, i) for i in inits)), opset=opset)
    add("onnx-conv-bias-int8.onnx", conv_case("b", [w4, initializer_raw("b", [4], 3, b"\x01\x02\x03\x04")]),
        "--graph {} --run --check", 1,
        "sim: {}: node 'c' (Conv): input 2 'b' (B) is INT8, but Conv takes T in {FLOAT, FLOAT16, DOUBLE} (ONNX's Conv, "
        "opset 11)")
    add("onnx-conv-bias-short.onnx", conv_case("b", [w4, initializer("b", [3], [1.0] * 3)]), "--graph {} --run --check", 1,
        "sim: {}: node 'c' (Conv): bias 'b' is [3], but ONNX's Conv takes a bias of one value per output channel: [4]")
    add("onnx-conv-group-not-dividing.onnx",
        conv_case("g", [initializer("w", [4, 1, 1, 1], [0.5] * 4)], [attr_int("group", 3)], inputs=("x", "w"),
                  x=value_info("x", dims=(dim(1), dim(3), dim(8), dim(8)))), "--graph {} --run --check", 1,
        "sim: {}: node 'c' (Conv): group 3 does not divide the weight's 4 output channels (ONNX's Conv: M is a "
        "multiple of group)")
    add("onnx-conv-group-huge.onnx",
        conv_case("g", [initializer("w", [4, 4, 1, 1], [0.5] * 16)], [attr_int("group", (1 << 62) + 1)],
                  inputs=("x", "w")), "--graph {} --run", 1,
        "sim: {}: node 'c' (Conv): input channels 4 != weight channels 4 x group 4611686018427387905")
    ln_x = value_info("x", dims=(dim(2), dim(8)))
    for elem, tname, raw in ((3, "INT8", b"\x01" * 8), (11, "DOUBLE", struct.pack("<8d", *[1.0] * 8))):
        add(f"onnx-layernorm-scale-{tname.lower()}.onnx",
            model(graph([node("LayerNormalization", ["x", "scale"], ["y"], name="ln")], [ln_x], [s(1, "y")],
                        field(5, 2, initializer_raw("scale", [8], elem, raw))), opset=17), "--graph {} --run --check", 1,
            f"sim: {{}}: node 'ln' (LayerNormalization): input 1 'scale' (Scale) is {tname}" +
            (", but LayerNormalization takes T in {FLOAT, FLOAT16, DOUBLE, BFLOAT16}" if elem == 3 else
             " but input 0 'x' (X) is FLOAT: LayerNormalization takes one element type T for both") +
            " (ONNX's LayerNormalization, opset 17)")
    add("onnx-layernorm-before-17.onnx",
        model(graph([node("LayerNormalization", ["x", "scale"], ["y"], name="ln")], [ln_x], [s(1, "y")],
                    field(5, 2, initializer("scale", [8], [1.0] * 8))), opset=13), "--graph {}", 1,
        "sim: {}: node 'ln' (LayerNormalization): ONNX has no LayerNormalization before opset 17, and the model imports "
        "opset 13")
    add("onnx-unknown-attribute.onnx",
        model(graph([node("Relu", ["x"], ["y"], [attr_int("alpha", 2)], name="r")], [value_info("x")], [value_info("y")])),
        "--graph {}", 1, "sim: {}: node 'r' (Relu): attribute 'alpha' is not one of Relu's (it has none) (ONNX's Relu, "
        "opset 13)")
    # LayerNorm written out with a scale of UINT32 (the fused LayerNormalization of --fuse ort read it as floats, past
    # its bytes, where the unfused Mul read it through its element type): the Mul's types are refused at the door.
    ln_nodes = [node("ReduceMean", ["x"], ["mean"], [attr_ints("axes", [-1])]), node("Sub", ["x", "mean"], ["d"]),
                node("Pow", ["d", "two"], ["p"]), node("ReduceMean", ["p"], ["v"], [attr_ints("axes", [-1])]),
                node("Add", ["v", "eps"], ["a"]), node("Sqrt", ["a"], ["sd"]), node("Div", ["d", "sd"], ["q"]),
                node("Mul", ["q", "gamma"], ["m"], name="scale"), node("Add", ["m", "beta"], ["y"])]
    ln_inits = (field(5, 2, initializer("two", [], [2.0])) + field(5, 2, initializer("eps", [], [1e-5])) +
                field(5, 2, initializer_raw("gamma", [8], 12, b"\x01\x00\x00\x00" * 8)) + field(5, 2, initializer("beta", [8], [0.0] * 8)))
    add("onnx-layernorm-pattern-uint32-scale.onnx", model(graph(ln_nodes, [ln_x], [s(1, "y")], ln_inits)),
        "--graph {} --fuse ort-transformers --run", 1,
        "sim: {}: node 'scale' (Mul): input 1 'gamma' (B) is UINT32 but input 0 'q' (A) is FLOAT: Mul takes one element "
        "type T for both (ONNX's Mul, opset 13)")
    # sim's own ops are open to files and have no ONNX schema: the kernel table's .reads column holds them when
    # the executor binds the step.
    add("onnx-biasgelu-bias-int8.onnx",
        model(graph([node("BiasGelu", ["x", "b"], ["y"], name="g") + s(7, "arenasim.internal")], [ln_x], [s(1, "y")],
                    field(5, 2, initializer_raw("b", [8], 3, b"\x01" * 8)))), "--graph {} --run", 1,
        "sim: {}: node 'g' (BiasGelu): input 1 'b': its kernel reads FLOAT elements, not INT8")
    add("onnx-batchnorm-short-scale.onnx",
        model(graph([node("BatchNormalization", ["x", "sc", "sc", "sc", "sc"], ["y"], name="bn")],
                    [value_info("x", dims=(dim(1), dim(4), dim(2), dim(2)))], [s(1, "y")],
                    field(5, 2, initializer("sc", [3], [1.0] * 3)))), "--graph {} --run", 1,
        "sim: {}: node 'bn' (BatchNormalization): input 1 'sc': its kernel reads one value per channel: 4 elements, "
        "not [3]")
    # Typed fields of a kind ONNX does not store the element type in, and values past the type: reinterpreted as
    # bit patterns (int32_data for a FLOAT) or wrapped (-1 for a UINT32) before.
    def init_typed(name, dims, elem, field_num, wire, values):
        return (b"".join(field(1, 0, d) for d in dims) + field(2, 0, elem) + s(8, name)
                + b"".join(field(field_num, wire, v) for v in values))
    add_x = value_info("x", dims=(dim(2),))
    add("onnx-float-in-int32-data.onnx",
        model(graph([node("Add", ["x", "w"], ["y"], name="a")], [add_x], [s(1, "y")],
                    field(5, 2, init_typed("w", [2], 1, 5, 0, [1065353216, 1073741824])))), "--graph {}", 1,
        "sim: {}: initializer 'w': int32_data holds values, but ONNX stores FLOAT elsewhere")
    add("onnx-uint32-out-of-range.onnx",
        model(graph([node("Add", ["x", "w"], ["y"], name="a")], [value_info("x", elem=12, dims=(dim(2),))], [s(1, "y")],
                    field(5, 2, init_typed("w", [2], 12, 11, 0, [1, (1 << 64) - 1])))), "--graph {}", 1,
        "sim: {}: initializer 'w': uint64_data value 18446744073709551615 at 1 is not a value of UINT32")
    add("onnx-int8-out-of-range.onnx",
        model(graph([node("Add", ["x", "w"], ["y"], name="a")], [value_info("x", elem=3, dims=(dim(2),))], [s(1, "y")],
                    field(5, 2, init_typed("w", [2], 3, 5, 0, [1, 300])))), "--graph {}", 1,
        "sim: {}: initializer 'w': int32_data value 300 at 1 is not a value of INT8")
    # Models that plan but stress a kernel, seeds of fuzz-onnx (tests/fuzz/seeds/onnx/): a depthwise Conv of stride
    # 2^62 and pads of 2^20 (the phased path wrote past its workspace), and ReduceMax over UINT8 [2^24, 1], whose
    # 24 B of accumulators per output are in the run's memory account (tests/test-trust.c runs it under a limit).
    seeds = os.path.join(HERE, "..", "..", "fuzz", "seeds", "onnx")
    dw_x = value_info("x", dims=(dim(1), dim(2), dim(8), dim(8)))
    dw = graph([node("Conv", ["x", "w"], ["y"], [attr_int("group", 2), attr_ints("strides", [1 << 62, 1]),
                                                 attr_ints("pads", [1 << 20, 0, 1 << 20, 0])], name="c")],
               [dw_x], [s(1, "y")], field(5, 2, initializer("w", [2, 1, 1, 1], [0.5, 0.25])))
    reduce_x = value_info("x", elem=2, dims=(dim(1 << 24), dim(1)))
    reduce = graph([node("ReduceMax", ["x"], ["y"], [attr_ints("axes", [1])], name="r")], [reduce_x], [s(1, "y")])
    for name, g in (("depthwise-huge-stride.onnx", dw), ("reduce-accumulators.onnx", reduce)):
        with open(os.path.join(seeds, name), "wb") as f:
            f.write(model(g))
    # A graph input's dimension with neither a size nor a name (valid ONNX: unknown) is named INPUT.AXIS, to be bound
    add("anonymous-dim.onnx", model(graph([node("Relu", ["x"], ["y"], name="r")],
                                          [value_info("x", dims=(b"", dim(3)))], [value_info("y")])),
        "--graph {}", 1, "sim: {}: unbound symbolic dimensions: x.0 (input 'x' dim 0); bind each with --dim NAME=VALUE")
    # A training step's roles in the model's metadata (sim/memory/training.h): each mistake one line.
    relu_graph = graph([node("Relu", ["x"], ["y"], name="r")], [value_info("x")], [value_info("y")])

    def with_roles(**roles):
        props = b"".join(field(14, 2, s(1, "arenasim.training." + k) + s(2, v)) for k, v in roles.items())
        return model(relu_graph) + props

    for name, roles, err in (
            ("training-no-loss.onnx", {"parameters": "x"},
             "model metadata 'arenasim.training.loss': missing, and the other training roles need it"),
            ("training-loss-unknown.onnx", {"loss": "z"},
             "model metadata 'arenasim.training.loss': 'z' is not a tensor of the graph"),
            ("training-parameter-not-input.onnx", {"loss": "y", "parameters": "y"},
             "model metadata 'arenasim.training.parameters': 'y' is not a graph input"),
            ("training-gradient-unknown.onnx", {"loss": "y", "gradients": "x\n\x1b[31mred"},
             "model metadata 'arenasim.training.gradients': '\\033[31mred' is not a tensor of the graph"),
            ("training-named-twice.onnx", {"loss": "y", "parameters": "x", "buffers": "x"},
             "model metadata 'arenasim.training.buffers': 'x' is named twice in the training roles"),
            ("training-unknown-role.onnx", {"loss": "y", "colour": "x"},
             "model metadata 'arenasim.training.colour': not a training role (loss, parameters, buffers, "
             "optimizer_state, gradients)")):
        add(name, with_roles(**roles), "--graph {}", 1, "sim: {}: " + err)
    # Reproducers the fuzzers found (tests/fuzz/run.sh), committed as they were found.
    cases.append(("fuzz-bins-invalid-utf8.bins", "--graph graphs/noop-chain.onnx --bins {}", 1,
                  "sim: graphs/noop-chain.onnx: {}:2: the line is not valid UTF-8"))
    cases.append(("fuzz-onnx-split-overflow.onnx", "--graph {}", 1,
                  "sim: {}: node 'Split_n0' (Split): split sizes sum past 200, the size of axis 0 of 'input'"))
    cli = [
        ("--graph graphs/gpt2.onnx --strategy magic", 2, "sim: unknown strategy 'magic' (one of: {strategies}) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --trace graphs/gpt2.onnx", 2,
         "sim: --graph and --trace exclude each other: plan a model or a trace (see sim --help)"),
        ("--trace tests/data/bad/trace-negative-size.trace --info", 2, "sim: --info summarises a model: use it with --graph (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim batch", 2, "sim: --dim 'batch' is not NAME=VALUE (see sim --help)"),
        ("--graph graphs/gpt2.onnx --bound x", 2, "sim: --bound 'x' is not NAME=MAX (see sim --help)"),
        ("--graph graphs/gpt2.onnx --bound nothing=4", 1,
         "sim: graphs/gpt2.onnx: --bound 'nothing': the graph has no data-dependent tensor of that name (it has none)"),
        ("--graph graphs/gpt2.onnx --pin x=-4", 2, "sim: --pin 'x=-4' is not NAME=OFFSET (a non-negative byte offset) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --alias everything", 2,
         "sim: unknown alias strategy 'everything' (all, none, or of: {aliases}) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --compare --orders file,sideways", 2,
         "sim: unknown order 'sideways' in --orders (see sim --help)"),
        ("--graph graphs/gpt2.onnx --orders all", 2, "sim: --orders lists the orders --compare runs: add --compare (see sim --help)"),
        ("--graph graphs/gpt2.onnx --pin nothing=64", 1, "sim: graphs/gpt2.onnx: --pin names 'nothing', which is not a tensor of the graph"),
        ("--graph graphs/pinned.onnx --pin input=4096 --pin reshape1=8192 --trace-out {out}", 1,
         "sim: graphs/pinned.onnx: pins 'input' and 'reshape1' disagree: both live in buffer 'input', which they put at 4096 and 8192"),
        ("--graph graphs/gpt2.onnx --format yaml", 2, "sim: --format takes text, md, csv or json (see sim --help)"),
        # An option given twice, a number that is not one, an explicit zero that used to mean the default.
        ("--trace graphs/solution.csv --trace graphs/solution.csv", 2,
         "sim: --trace is given twice: it takes one value (see sim --help)"),
        ("--graph graphs/gpt2.onnx --graph graphs/block.onnx", 1,
         "sim: the entries share no state: plan them together with their KV caches at a capacity (--kv-capacity N), "
         "or each on its own"),
        ("--graph graphs/gpt2.onnx --budget nan", 2, "sim: --budget takes a finite number, not 'nan' (see sim --help)"),
        ("--graph graphs/gpt2.onnx --budget inf", 2, "sim: --budget takes a finite number, not 'inf' (see sim --help)"),
        ("--graph graphs/gpt2.onnx --budget 0", 2, "sim: --budget takes a positive number of seconds (see sim --help)"),
        ("--graph graphs/gpt2.onnx --align 0", 2, "sim: --align takes a power of two (see sim --help)"),
        ("--graph graphs/gpt2.onnx --pad-last 0", 2, "sim: --pad-last takes a positive multiple (1 for no padding) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --run --repeat 0", 2, "sim: --repeat takes a count from 1 to 100,000 (see sim --help)"),
        ("--graph graphs/gpt2.onnx --order optimal --order-seconds 0", 2,
         "sim: --order-budget, --order-work and --order-seconds take positive numbers (see sim --help)"),
        ("--graph graphs/gpt2.onnx --order-work -1", 2,
         "sim: --order-budget, --order-work and --order-seconds take positive numbers (see sim --help)"),
        ("--trace tests/data/perfect/perfect-150.csv --order-work 10", 2,
         "sim: --order-work bounds the orders the default (best) tries on a model: not with --trace, --order NAME, "
         "--orders, --tiers, a range of dims or several --graph (see sim --help)"),
        ("--graph graphs/gpt2.onnx --seed 12x", 2, "sim: --seed takes a whole number, not '12x' (see sim --help)"),
        ("--graph graphs/gpt2.onnx --budget 1e13", 2,
         "sim: --budget and --order-seconds take at most 31,536,000 seconds (a year) (see sim --help)"),
        ("--graph graphs/pinned.onnx --pin input=4096 --pin input=64", 2, "sim: --pin names 'input' twice (see sim --help)"),
        # Files that are not regular files: refused before a byte is read (no hang on a FIFO, no 18 GB of /dev/zero).
        ("--graph /dev/zero", 1, "sim: /dev/zero: cannot read: not a regular file (a device, FIFO or socket)"),
        ("--trace /dev/zero", 1, "sim: /dev/zero: cannot read: not a regular file (a device, FIFO or socket)"),
        ("--graph graphs", 1, "sim: graphs: cannot read: is a directory"),
        ("--graph graphs/noop-chain.onnx --bins /dev/zero", 1,
         "sim: graphs/noop-chain.onnx: /dev/zero: cannot read: not a regular file (a device, FIFO or socket)"),
        # Ranges of dims (--dim NAME=LO:HI[:STEP]): refused before any point is loaded.
        ("--graph graphs/gpt2.onnx --dim seq=0:4", 2,
         "sim: --dim 'seq=0:4' is not NAME=LO:HI or NAME=LO:HI:STEP with positive integers (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=8:4", 2, "sim: --dim 'seq=8:4': HI is below LO (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=1:10:4", 2,
         "sim: --dim 'seq=1:10:4': HI is not LO plus a multiple of STEP (the last point would be 9) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=1:4:2:1", 2,
         "sim: --dim 'seq=1:4:2:1' is not NAME=LO:HI or NAME=LO:HI:STEP with positive integers (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=4 --dim seq=1:8", 2,
         "sim: --dim 'seq' is given both a value and a range (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=1:8 --dim seq=1:4", 2,
         "sim: --dim 'seq' is given two ranges (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=1:4 --run", 2,
         "sim: --dim NAME=LO:HI plans every point of a range and reports its functions: --info, --compare, --orders, "
         "--run, --map, --ascii, --html, --chrome-trace, --trace-out, --solution-out, --inputs, --no-verify and "
         "--wide are for one binding (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=1:4 --plot timeline --out never-written.png", 2,
         "sim: a range of dims is drawn by --plot range (see sim --help)"),
        ("--graph graphs/gpt2.onnx --plot range --out never-written.png", 2,
         "sim: --plot range draws a range of dims: give one with --dim NAME=LO:HI (see sim --help)"),
        ("--graph graphs/gpt2.onnx --range-check", 2,
         "sim: --range-check, --range-every and --range-one-plan shape a range of dims: give one with --dim NAME=LO:HI "
         "(see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=1:4 --order best", 2,
         "sim: --order best chooses an order for one binding: with a range of dims, name one order (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim a=1:1000000 --dim b=1:10", 2,
         "sim: the range has more than 1,048,576 points in all: narrow it or give a STEP (see sim --help)"),
        ("--graph graphs/gpt2.onnx --dim seq=1:4", 1,
         "sim: graphs/gpt2.onnx: at seq=1: --dim seq: the graph has no symbolic dimension of that name (it has none)"),
        ("--graph graphs/gpt2.onnx --kv past.*=present.*", 2,
         "sim: --kv names the cache pairs that --kv-capacity N plans: give both (see sim --help)"),
        ("--graph graphs/gpt2.onnx --kv-capacity 0", 2,
         "sim: --kv-capacity takes a positive number of tokens (see sim --help)"),
        ("--graph graphs/gpt2.onnx --kv-capacity 1024", 1,
         "sim: graphs/gpt2.onnx: --kv-capacity: the graph has no KV cache pair (a Concat of a graph input with a new "
         "slice, making a graph output); name them with --kv PAST=PRESENT"),
        ("--graph graphs/gpt2.onnx --kv-capacity 1024 --kv x*=y", 1,
         "sim: graphs/gpt2.onnx: --kv takes PAST=PRESENT, each with one '*' or none, both alike "
         "(\"past_key_values.*=present.*\"), not 'x*=y'"),
        ("--graph graphs/gpt2.onnx --kv-capacity 1024 --kv past.*=present.*", 1,
         "sim: graphs/gpt2.onnx: --kv past.*=present.* matches no graph input"),
        ("--graph graphs/gpt2.onnx --generate 4 --kv-capacity 8", 2,
         "sim: --generate N runs a greedy generation: 1 to 4,096 tokens, two --graph (the prefill, then the decode "
         "step), --kv-capacity and --inputs DIR (the prompt) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --graph graphs/block.onnx --generate 4 --kv-capacity 8", 2,
         "sim: --generate N runs a greedy generation: 1 to 4,096 tokens, two --graph (the prefill, then the decode "
         "step), --kv-capacity and --inputs DIR (the prompt) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --graph graphs/block.onnx --generate 0 --kv-capacity 8 --inputs graphs", 2,
         "sim: --generate N runs a greedy generation: 1 to 4,096 tokens, two --graph (the prefill, then the decode "
         "step), --kv-capacity and --inputs DIR (the prompt) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --tiers sram=0,dram", 2,
         "sim: --tiers: '0' is not a capacity (bytes > 0: 262144, 256K, 256KiB, 1MiB) (see sim --help)"),
        ("--graph graphs/gpt2.onnx --tiers sram=1MiB,dram --strategy bestfit", 2,
         "sim: --tiers leaves each buffer's tier to the strategy: name one that chooses tiers (banked-greedy, tiered) "
         "(see sim --help)"),
        ("--graph graphs/gpt2.onnx --tiers sram=1MiB,dram --bins graphs/bins.txt", 1,
         "sim: graphs/gpt2.onnx: graphs/bins.txt: with --tiers a bins file names tiers ('sram name=GLOB'), not bin "
         "numbers"),
        ("--graph graphs/gpt2.onnx --kv-capacity 1024 --io outside", 1,
         "sim: graphs/gpt2.onnx: --kv-capacity plans the cache in the arena: it cannot be used with --io outside or "
         "inputs-outside"),
    ]
    for k, (args, status, err) in enumerate(cli):
        cases.append((f"-cli-{k}", args, status, err))
    with open(os.path.join(HERE, "cases.tsv"), "w") as f:
        f.write("# file\targs ({} = the file, {out} = a scratch output that must not be left behind)\texit\tstderr\n")
        for name, args, status, err in cases:
            f.write(f"{name}\t{args}\t{status}\t{err}\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
