#!/usr/bin/python3
"""make.py — inputs for Silero VAD v5 and v6 (graphs/models/silero/, from `make models`) and ONNX Runtime's outputs
for them, in the ONNX model zoo's layout: DIR/test_data_set_0/input_K.pb (the window, the recurrent state, the
sample rate) and output_K.pb (the speech probability, the next state). Four cases, each its own DIR:
  v5-16k, v6-16k   a 512-sample window at 16 kHz (the 8 kHz branch cannot run there: planned as never taken)
  v5-8k, v6-8k     a 256-sample window at 8 kHz (the 16 kHz branch runs nowhere but at 512 samples)
The window is seeded noise at speech-like loudness, the state small seeded values.

  make.py                           writes every case's inputs
  make.py --outputs                 runs ONNX Runtime on them (onnxruntime-node, one thread, its default graph
                                    optimisations: bench/peers/ort-time.js's installation, `make figures-deps`) and
                                    writes output_K.pb

The expected outputs are ONNX Runtime's own (onnxruntime-node 1.30), kept here: ORT is not a test dependency.
tests/test-oracle (/oracle/silero-matches-ort) runs each case in its plans and holds both outputs to them."""
import json
import os
import subprocess
import sys

import numpy as np
from onnx import numpy_helper
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
CASES = {"v5-16k": ("v5", 16000, 512), "v6-16k": ("v6", 16000, 512), "v5-8k": ("v5", 8000, 256),
         "v6-8k": ("v6", 8000, 256)}
RUNNER = r"""
const fs = require('fs');
const ort = require(process.argv[1]);
(async () => {
  const [, , model, feeds_json] = process.argv;
  const s = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const feeds = {};
  for (const f of JSON.parse(fs.readFileSync(feeds_json, 'utf8'))) {
    const data = f.type === 'int64' ? BigInt64Array.from(f.data.map(BigInt)) : Float32Array.from(f.data);
    feeds[f.name] = new ort.Tensor(f.type, data, f.dims);
  }
  const out = await s.run(feeds);
  const json = {};
  for (const [name, t] of Object.entries(out)) json[name] = { dims: t.dims, data: Array.from(t.data, Number) };
  console.log(JSON.stringify(json));
})().catch((e) => { console.error(String(e.message || e)); process.exit(1); });
"""


def model_of(version):
    return os.path.join(ROOT, "graphs", "models", "silero", f"silero_vad_{version}.onnx")


def inputs(case):
    version, rate, samples = CASES[case]
    rng = np.random.default_rng(sum(map(ord, case)))
    window = (rng.standard_normal((1, samples)) * 0.3).astype(np.float32)
    state = (rng.standard_normal((2, 1, 128)) * 0.1).astype(np.float32)
    return [("input", window), ("state", state), ("sr", np.array(rate, dtype=np.int64))]


def main(args):
    for case in CASES:
        data = os.path.join(HERE, case, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        feeds = inputs(case)
        if not args:
            for k, (_, array) in enumerate(feeds):
                with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(array).SerializeToString())
            continue
        ort = os.path.join(ROOT, "bench", "peers", "node_modules", "onnxruntime-node")
        listed = os.path.join(data, "feeds.json")
        with open(listed, "w") as f:
            json.dump([{"name": n, "type": "int64" if a.dtype == np.int64 else "float32", "dims": list(a.shape),
                        "data": a.ravel().tolist()} for n, a in feeds], f)
        ran = subprocess.run(["node", "-e", RUNNER, ort, model_of(CASES[case][0]), listed], capture_output=True,
                             text=True, check=True)
        os.remove(listed)
        outputs = json.loads(ran.stdout)
        names = [o.name for o in onnx.load(model_of(CASES[case][0])).graph.output]
        for k, name in enumerate(names):
            array = np.array(outputs[name]["data"], dtype=np.float32).reshape(outputs[name]["dims"])
            with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(array, name).SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1:])
