// ort-memory.js — runs one model in ONNX Runtime (onnxruntime-node, CPU, one thread) with its profiler on
// and prints, as one JSON line, the memory figures bench/peers.sh reports (see docs/peers.md):
//   baseline          bytes requested from the CPU arena before the first run's first kernel
//   first_run_peak    max over the first run's kernels of bytes requested in use, minus the baseline:
//                     activations allocated one by one (no memory pattern exists yet), ORT's reuse plan applied
//   pattern_bytes     the block the memory pattern reserves at the start of the second run (requested in use
//                     before its first kernel, minus the baseline): ORT's planned arena for that input shape
//   outside_pattern   bytes the second run still requests kernel by kernel (graph outputs, and tensors the
//                     pattern does not cover)
//   arena_held        the arena's reserved bytes at the end (chunks, including the baseline and rounding)
// Usage: node ort-memory.js MODEL.onnx PROFILE_PREFIX NAME=VALUE...   (symbolic dims of the inputs)
// ORT_OPT_LEVEL sets the graph optimisation level (disabled, basic, extended, all; default all); ORT_NODE_ORDER
// names a file to write the first run's nodes into, in the order ORT ran them.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_NODE_DIR || __dirname, 'node_modules', 'onnxruntime-node'));

const [model, prefix, ...dimArgs] = process.argv.slice(2);
const dims = Object.fromEntries(dimArgs.map((d) => [d.slice(0, d.lastIndexOf('=')), Number(d.slice(d.lastIndexOf('=') + 1))]));

const arrays = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array, int8: Int8Array,
  uint8: Uint8Array, bool: Uint8Array, float16: Uint16Array,
};

function feed(meta) {
  const shape = meta.shape.map((d) => {
    if (typeof d === 'number' && d >= 0) return d;
    if (!(d in dims)) throw new Error(`input '${meta.name}': dimension '${d}' is not bound (give ${d}=VALUE)`);
    return dims[d];
  });
  const count = shape.reduce((a, b) => a * b, 1);
  const Array_ = arrays[meta.type];
  if (!Array_) throw new Error(`input '${meta.name}': element type ${meta.type} is not supported here`);
  return new ort.Tensor(meta.type, new Array_(count), shape); // zeros
}

(async () => {
  const session = await ort.InferenceSession.create(model, {
    enableProfiling: true, profileFilePrefix: prefix, intraOpNumThreads: 1, interOpNumThreads: 1,
    executionMode: 'sequential', enableMemPattern: true, enableCpuMemArena: true, logSeverityLevel: 3,
    graphOptimizationLevel: process.env.ORT_OPT_LEVEL || 'all', // 'disabled': the file's graph, unfused
  });
  const feeds = {};
  for (const meta of session.inputMetadata) feeds[meta.name] = feed(meta);
  for (let run = 0; run < 3; run++) await session.run(feeds);
  session.endProfiling();
  const dir = path.dirname(prefix);
  const file = fs.readdirSync(dir).map((f) => path.join(dir, f)).filter((f) => f.startsWith(prefix) && f.endsWith('.json'))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  const events = JSON.parse(fs.readFileSync(file, 'utf8'));
  const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').sort((a, b) => a.ts - b.ts);
  const kernels = events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.args.mem_bytes_requested_in_use !== undefined);
  const n = (e, k) => Number(e.args[k]);
  const inRun = (r) => kernels.filter((e) => e.ts >= r.ts && e.ts <= r.ts + r.dur).sort((a, b) => a.ts - b.ts);
  const first = inRun(runs[0]), second = inRun(runs[1]);
  if (!first.length || !second.length) throw new Error('the profile has no kernel memory figures (onnxruntime-node too old?)');
  const before = (k) => n(k[0], 'mem_bytes_requested_in_use') - n(k[0], 'mem_requested_in_use_delta');
  const baseline = before(first);
  const result = {
    ort_version: require(path.join(process.env.ORT_NODE_DIR || __dirname, 'node_modules', 'onnxruntime-node', 'package.json')).version,
    kernels: first.length,
    baseline,
    first_run_peak: Math.max(...first.map((e) => n(e, 'mem_bytes_requested_in_use'))) - baseline,
    pattern_bytes: before(second) - baseline,
    outside_pattern: Math.max(...second.map((e) => n(e, 'mem_bytes_requested_in_use'))) - before(second),
    arena_held: Math.max(...kernels.map((e) => n(e, 'mem_arena_held'))),
  };
  if (process.env.ORT_NODE_ORDER) // the nodes of the first run in the order ORT ran them, one name a line
    fs.writeFileSync(process.env.ORT_NODE_ORDER, first.map((e) => e.name.replace(/_kernel_time$/, '')).join('\n') + '\n');
  fs.unlinkSync(file);
  console.log(JSON.stringify(result));
})().catch((e) => { console.error(String(e.message || e).split('\n')[0]); process.exit(1); });
