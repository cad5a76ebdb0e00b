// ort-time.js — ONNX Runtime's time for one model (onnxruntime-node, CPU, THREADS intra-op threads,
// sequential): one warm-up run, then REPEAT runs; prints the median milliseconds per run as JSON.
// Usage: node ort-time.js MODEL.onnx THREADS REPEAT NAME=VALUE...   (symbolic dims of the inputs; inputs made up)
//        node ort-time.js MODEL.onnx THREADS REPEAT --raw DIR        (the inputs raw_inputs.py wrote into DIR)
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_NODE_DIR || __dirname, 'node_modules', 'onnxruntime-node'));

const [model, threads, repeat, ...dimArgs] = process.argv.slice(2);
const dims = Object.fromEntries(dimArgs.map((d) => [d.slice(0, d.lastIndexOf('=')), Number(d.slice(d.lastIndexOf('=') + 1))]));
const arrays = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, bool: Uint8Array, uint8: Uint8Array,
  int8: Int8Array };
const raw = dimArgs[0] === '--raw' ? dimArgs[1] : null;

// The feeds from raw_inputs.py's files: each input's bytes as its typed array.
function rawFeeds(dir) {
  const feeds = {};
  for (const i of JSON.parse(fs.readFileSync(path.join(dir, 'inputs.json'), 'utf8'))) {
    const bytes = fs.readFileSync(path.join(dir, i.file));
    const A = arrays[i.type];
    const data = new A(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    feeds[i.name] = new ort.Tensor(i.type, data, i.dims);
  }
  return feeds;
}

(async () => {
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 3,
  });
  const feeds = raw ? rawFeeds(raw) : {};
  for (const meta of raw ? [] : session.inputMetadata) {
    const shape = meta.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : dims[d]));
    if (shape.some((d) => d === undefined)) throw new Error(`input '${meta.name}': bind its dimensions`);
    const A = arrays[meta.type];
    if (!A) throw new Error(`input '${meta.name}': type ${meta.type}`);
    const data = new A(shape.reduce((a, b) => a * b, 1));
    if (meta.type === 'float32') for (let k = 0; k < data.length; k++) data[k] = ((k * 2654435761) % 2000) / 1000 - 1;
    feeds[meta.name] = new ort.Tensor(meta.type, data, shape);
  }
  await session.run(feeds);
  const times = [];
  for (let r = 0; r < Number(repeat); r++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  console.log(JSON.stringify({ median_ms: times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2, runs: times.length }));
})().catch((e) => { console.error(String(e.message || e).split('\n')[0]); process.exit(1); });
