#!/usr/bin/python3
"""fill_weights.py — gives every initializer that has a shape but no data (the corpus's torch exports keep
shapes only) deterministic pseudo-random values, so a runtime can load and run the model: floats from
N(0, 0.02) seeded by the initializer's name, integers zero. Initializers with data are kept as they are.

Usage: /usr/bin/python3 bench/peers/fill_weights.py IN.onnx OUT.onnx   (Debian's python3-onnx and numpy)
"""
import sys
import zlib

import numpy as np
import onnx
from onnx import mapping


def has_data(t):
    return bool(t.raw_data or t.float_data or t.int32_data or t.int64_data or t.double_data or t.uint64_data
                or t.string_data or t.external_data)


def main(src, dst):
    model = onnx.load(src)
    filled = 0
    for t in model.graph.initializer:
        count = int(np.prod(t.dims)) if len(t.dims) else 1
        if has_data(t) or count == 0:
            continue
        dtype = mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type]
        rng = np.random.default_rng(zlib.crc32(t.name.encode()))
        if np.issubdtype(dtype, np.floating):
            values = (rng.standard_normal(count) * 0.02).astype(dtype)
        else:
            values = np.zeros(count, dtype=dtype)
        t.raw_data = values.tobytes()
        filled += 1
    onnx.save(model, dst)
    print(f"fill_weights: {src}: {filled} initializers filled", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
