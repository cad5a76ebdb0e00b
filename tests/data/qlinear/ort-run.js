// ort-run.js DIR — runs DIR/model.onnx in ONNX Runtime (onnxruntime-node, CPU, one thread, the default graph
// optimisations) on DIR/test_data_set_0/input_0.pb's data, given as raw float32 bytes in DIR/x.f32 (make.py's
// reader writes them: `make.py --raw DIR`), and prints every output as JSON ({name: {type, dims, data}}), which
// `make.py --outputs DIR ORT.json` writes as output_K.pb. ORT_NODE_DIR: where node_modules/onnxruntime-node is
// (default bench/peers, where make figures-deps installs it).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_NODE_DIR || path.join(__dirname, '../../../bench/peers'), 'node_modules',
  'onnxruntime-node'));
(async () => {
  const dir = process.argv[2];
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'),
    { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const bytes = fs.readFileSync(path.join(dir, 'x.f32'));
  const x = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const out = await session.run({ x: new ort.Tensor('float32', x, session.inputMetadata[0].shape) });
  const json = {};
  for (const [name, t] of Object.entries(out)) json[name] = { type: t.type, dims: t.dims, data: Array.from(t.data) };
  console.log(JSON.stringify(json));
})().catch((e) => { console.error(String(e.message || e)); process.exit(1); });
