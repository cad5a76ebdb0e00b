// ort-run.js — runs tests/data/qlinear/model.onnx in ONNX Runtime (onnxruntime-node, CPU, one thread, the default
// graph optimisations) on test_data_set_0/input_0.pb and prints every output as JSON ({name: {type, dims, data}}),
// which make.py --outputs writes as output_K.pb. The input is read from the .pb by make.py's reader: this script
// takes it as the raw float32 bytes of x in a file (ort-run.js MODEL X.f32).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_NODE_DIR || path.join(__dirname, '../../../bench/peers'), 'node_modules',
  'onnxruntime-node'));
(async () => {
  const [model, raw] = process.argv.slice(2);
  const bytes = fs.readFileSync(raw);
  const x = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const out = await session.run({ x: new ort.Tensor('float32', x, [1, 4, 6, 6]) });
  const json = {};
  for (const [name, t] of Object.entries(out)) json[name] = { type: t.type, dims: t.dims, data: Array.from(t.data) };
  console.log(JSON.stringify(json));
})().catch((e) => { console.error(String(e.message || e)); process.exit(1); });
