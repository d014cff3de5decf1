// The benchmark page: one case at a time, the six columns interleaved
// (ours on cpu and webgpu through the playground's own fkc.bench, and
// TensorFlow.js and onnxruntime-web on their wasm and webgpu backends),
// each column timed in rounds that alternate their order, medians of the
// warm runs. The Go driver (main.go) calls window.peers.runCase and prints
// the table; a person can call it from the console too.
//
// What each column's time covers, per call (see README "Browser benchmarks"):
//   ours-cpu     fkc.bench backend "cpu": the engine call (Go, compiled to wasm, one thread),
//                its output allocated in the Go heap; inputs built once per fkc.bench call.
//   tfjs-wasm    the op on tensors already in the wasm heap, its output allocated there.
//   ort-wasm     session.run: the inputs copied from JS arrays into the wasm heap, the
//                kernel, the output copied back into a JS array (ORT-web has no other way).
//   ours-webgpu  fkc.bench backend "webgpu": Go-heap inputs uploaded, kernel, readback into
//                a new Go-heap tensor.
//   tfjs-webgpu  tf.tensor(JS array) + op + await y.data(): upload, kernel, readback.
//   ort-webgpu   session.run with CPU tensors in and out: upload, kernel, readback.
// Nobody's setup (session creation, pipeline compilation) is timed: every
// column runs once untimed before the rounds (fkc.bench does its own).

import * as ortW from "/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs";
import * as ortG from "/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs";
import { model, FLOAT, INT32, INT64 } from "./onnx.js";
import * as trace from "./trace.js";

const tf = window.tf;
tf.wasm.setWasmPaths("/node_modules/@tensorflow/tfjs-backend-wasm/dist/");
ortW.env.wasm.wasmPaths = "/node_modules/onnxruntime-web/dist/";
ortG.env.wasm.wasmPaths = "/node_modules/onnxruntime-web/dist/";

export const COLUMNS = ["ours-cpu", "tfjs-wasm", "ort-wasm", "ours-webgpu", "tfjs-webgpu", "ort-webgpu"];

const log = (...a) => {
  const s = a.join(" ");
  console.log("[peers] " + s);
  document.getElementById("log").textContent += s + "\n";
};

// ---------- the cases (the bench's shapes, as in bench.Cases) ----------

const P2 = [[0, 0], [0, 0], [2, 2], [2, 2]];
const P3 = [[3, 3], [3, 3]];
export const CASES = [
  { name: "pad constant f32[8,3,512,512] pad 2", kind: "pad", mode: "constant", shape: [8, 3, 512, 512], pads: P2 },
  { name: "pad reflect f32[8,3,512,512] pad 2", kind: "pad", mode: "reflect", shape: [8, 3, 512, 512], pads: P2 },
  { name: "pad replicate f32[8,3,512,512] pad 2", kind: "pad", mode: "replicate", shape: [8, 3, 512, 512], pads: P2 },
  { name: "pad constant f32[4096,4096] pad 3", kind: "pad", mode: "constant", shape: [4096, 4096], pads: P3 },
  { name: "pad_backward reflect f32[8,3,516,516] pad 2", kind: "pad_backward", mode: "reflect", shape: [8, 3, 516, 516], pads: P2 },
  { name: "sum_all f32[64Mi]", kind: "sum_all", shape: [64 << 20] },
  // ours through this project's contracted blocked order (the peers' sums
  // are the same as above: their order is their own)
  { name: "sum_all blocked f32[64Mi]", kind: "sum_all", shape: [64 << 20], kernel: "fkc-cpu-kernels/sum_all_blocked", cpuOnly: true },
  { name: "sum_dim 1 f32[4096,4096]", kind: "sum", shape: [4096, 4096] },
  { name: "max_dim 1 f32[4096,4096]", kind: "max", shape: [4096, 4096] },
  { name: "argmax_dim 1 f32[4096,4096]", kind: "argmax", shape: [4096, 4096] },
  { name: "index_select f32[100000,256] 50000 rows", kind: "index_select", shape: [100000, 256], n: 50000 },
  { name: "gather dim 1 f32[4096,4096]", kind: "gather", shape: [4096, 4096] },
  { name: "index_add dim 0 f32[100000,256] 50000 rows", kind: "index_add", shape: [100000, 256], n: 50000 },
  { name: "scatter_add dim 1 f32[4096,4096]", kind: "scatter_add", shape: [4096, 4096] },
];

const numel = (s) => s.reduce((a, b) => a * b, 1);

// ---------- inputs (the distribution fkc.bench's "random" fill uses) ----------

function rng(seed) { // mulberry32
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function floats(r, n) { // quarter steps in [-8, 8)
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = (Math.floor(r() * 64) - 32) / 4;
  return a;
}
function indices(r, n, bound) {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.floor(r() * bound);
  return a;
}
const i64 = (a) => BigInt64Array.from(a, (v) => BigInt(v));

// The inputs of a case, as {name: {shape, data}} in fkc's operand names.
function inputsOf(c) {
  const r = rng(1);
  const [n0, n1] = c.shape;
  switch (c.kind) {
    case "pad": case "sum_all": case "sum": case "max": case "argmax":
      return { x: { shape: c.shape, data: floats(r, numel(c.shape)) } };
    case "pad_backward":
      return { grad_out: { shape: c.shape, data: floats(r, numel(c.shape)) } };
    case "index_select":
      return { data: { shape: c.shape, data: floats(r, numel(c.shape)) }, indices: { shape: [c.n], data: indices(r, c.n, n0) } };
    case "gather":
      return { data: { shape: c.shape, data: floats(r, numel(c.shape)) }, indices: { shape: c.shape, data: indices(r, numel(c.shape), n1) } };
    case "index_add":
      return { base: { shape: c.shape, data: floats(r, numel(c.shape)) }, indices: { shape: [c.n], data: indices(r, c.n, n0) },
        src: { shape: [c.n, n1], data: floats(r, c.n * n1) } };
    case "scatter_add":
      return { base: { shape: c.shape, data: floats(r, numel(c.shape)) }, indices: { shape: c.shape, data: indices(r, numel(c.shape), n1) },
        src: { shape: c.shape, data: floats(r, numel(c.shape)) } };
  }
  throw new Error("unknown case kind " + c.kind);
}

class Lacks extends Error {}

// ---------- ours: the playground's fkc.bench, in the frame ----------

function oursRequest(c, backend, reps) {
  const padFlag = (p) => p.map(([b, a]) => `${b}:${a}`).join(",");
  const f32 = (shape) => ({ shape, dtype: "F32", fill: "random" });
  const idx = (shape, bound) => ({ shape, dtype: "U32", fill: `indices:${bound}` });
  const [n0, n1] = c.shape;
  const q = { backend, reps, kernel: c.kernel || "" };
  switch (c.kind) {
    case "pad": return { ...q, op: "pad", flags: ["--mode", c.mode, "--padding", padFlag(c.pads)], inputs: { x: f32(c.shape) } };
    case "pad_backward": return { ...q, op: "pad_backward", flags: ["--mode", c.mode, "--padding", padFlag(c.pads)], inputs: { grad_out: f32(c.shape) } };
    case "sum_all": return { ...q, op: "sum", flags: [], inputs: { x: f32(c.shape) } };
    case "sum": case "max": case "argmax": return { ...q, op: c.kind, flags: ["--dim", "1"], inputs: { x: f32(c.shape) } };
    case "index_select": return { ...q, op: "index_select", flags: ["--dim", "0"], inputs: { data: f32(c.shape), indices: idx([c.n], n0) } };
    case "gather": return { ...q, op: "gather", flags: ["--dim", "1"], inputs: { data: f32(c.shape), indices: idx(c.shape, n1) } };
    case "index_add": return { ...q, op: "index_add", flags: ["--dim", "0"], inputs: { base: f32(c.shape), indices: idx([c.n], n0), src: f32([c.n, n1]) } };
    case "scatter_add": return { ...q, op: "scatter_add", flags: ["--dim", "1"], inputs: { base: f32(c.shape), indices: idx(c.shape, n1), src: f32(c.shape) } };
  }
}

function fkc() { return document.getElementById("app").contentWindow.fkc; }

// fkc.bench builds new inputs and runs once untimed on every call, then
// untimed again while a run still grows the tab's memory (its settle_runs:
// the first touches of fresh wasm memory are slow on a VM; see
// docs/perf/bench-and-judge.md), so every time it returns is a warm run.
function oursColumn(backend) {
  return async (c) => {
    if (c.cpuOnly && backend !== "cpu") throw new Lacks("a CPU kernel: " + c.kernel);
    return {
      warm: async () => {},
      time: async (reps) => {
        const r = await fkc().bench(oursRequest(c, backend, reps));
        return { times: r.times_ms, settle_runs: r.settle_runs,
          note: r.kernel + (r.provider ? " (" + r.provider + ")" : ""), bytes_moved: r.bytes_moved };
      },
      dispose: () => {},
    };
  };
}

// ---------- TensorFlow.js ----------

// tfjsOp returns the op on tensors named as fkc's operands, or throws Lacks.
function tfjsOp(c) {
  switch (c.kind) {
    case "pad":
      if (c.mode === "constant") return (t) => tf.pad(t.x, c.pads, 0);
      if (c.mode === "reflect") return (t) => tf.mirrorPad(t.x, c.pads, "reflect");
      throw new Lacks("no replicate/edge pad (tf.mirrorPad has reflect and symmetric only)");
    case "pad_backward":
      throw new Lacks("no reflect-pad backward (the gradient registered for MirrorPad is a slice: it drops the reflected contributions)");
    case "sum_all": return (t) => tf.sum(t.x);
    case "sum": return (t) => tf.sum(t.x, 1);
    case "max": return (t) => tf.max(t.x, 1);
    case "argmax": return (t) => tf.argMax(t.x, 1);
    case "index_select": return (t) => tf.gather(t.data, t.indices, 0);
    case "gather": throw new Lacks("no gather along an axis with full-rank indices (GatherElements); tf.gather takes 1-D indices, tf.gatherND coordinates");
    case "index_add": throw new Lacks("no index_add (tf.scatterND scatters into zeros, tf.tensorScatterUpdate overwrites)");
    case "scatter_add": throw new Lacks("no scatter_add / ScatterElements(add)");
  }
}

function tfjsTensors(ins) {
  const t = {};
  for (const [k, v] of Object.entries(ins)) t[k] = tf.tensor(v.data, v.shape, v.data instanceof Int32Array ? "int32" : "float32");
  return t;
}

async function tfjsWasm(c, ins) {
  const op = tfjsOp(c);
  await tf.setBackend("wasm");
  const t = tfjsTensors(ins); // in the wasm heap from here on
  const once = () => {
    const t0 = performance.now();
    const y = op(t);
    const dt = performance.now() - t0;
    y.dispose();
    return dt;
  };
  return {
    warm: async () => { await tf.setBackend("wasm"); once(); },
    time: async (reps) => {
      await tf.setBackend("wasm");
      const times = [];
      for (let i = 0; i < reps; i++) times.push(once());
      return { times };
    },
    dispose: () => { for (const v of Object.values(t)) v.dispose(); },
  };
}

async function tfjsWebGPU(c, ins) {
  const op = tfjsOp(c);
  await tf.setBackend("webgpu");
  const once = async () => {
    const t0 = performance.now();
    const t = tfjsTensors(ins); // uploaded when the op first reads them
    const y = op(t);
    await y.data(); // readback
    const dt = performance.now() - t0;
    y.dispose();
    for (const v of Object.values(t)) v.dispose();
    return dt;
  };
  return {
    warm: async () => { await tf.setBackend("webgpu"); await once(); },
    time: async (reps) => {
      await tf.setBackend("webgpu");
      const times = [];
      for (let i = 0; i < reps; i++) times.push(await once());
      return { times };
    },
    dispose: () => {},
  };
}

// ---------- onnxruntime-web ----------

// ortModel describes the one-node model of a case, or throws Lacks.
function ortModel(c, ins) {
  const f = (name, v) => ({ name, dtype: FLOAT, dims: v.shape });
  const i32 = (name, v) => ({ name, dtype: INT32, dims: v.shape });
  const y = (dtype = FLOAT) => [{ name: "y", dtype }];
  const axes1 = { name: "axes", dtype: INT64, dims: [1], data: BigInt64Array.of(1n) };
  switch (c.kind) {
    case "pad": {
      const mode = { constant: "constant", reflect: "reflect", replicate: "edge" }[c.mode];
      const pads = BigInt64Array.from([...c.pads.map((p) => p[0]), ...c.pads.map((p) => p[1])], BigInt);
      const inits = [{ name: "pads", dtype: INT64, dims: [pads.length], data: pads }];
      const nodeInputs = ["x", "pads"];
      if (mode === "constant") {
        inits.push({ name: "value", dtype: FLOAT, dims: [], data: Float32Array.of(0) });
        nodeInputs.push("value");
      }
      return { op: { type: "Pad", opset: 13, attrs: { mode } }, inputs: [f("x", ins.x)], inits, nodeInputs, outputs: y() };
    }
    case "pad_backward": throw new Lacks("no pad backward op in ONNX");
    case "sum_all":
      return { op: { type: "ReduceSum", opset: 13, attrs: { keepdims: 0 } }, inputs: [f("x", ins.x)], nodeInputs: ["x"], outputs: y() };
    case "sum":
      return { op: { type: "ReduceSum", opset: 13, attrs: { keepdims: 0 } }, inputs: [f("x", ins.x)], inits: [axes1], nodeInputs: ["x", "axes"], outputs: y() };
    case "max":
      return { op: { type: "ReduceMax", opset: 13, attrs: { axes: [1], keepdims: 0 } }, inputs: [f("x", ins.x)], nodeInputs: ["x"], outputs: y() };
    case "argmax":
      return { op: { type: "ArgMax", opset: 13, attrs: { axis: 1, keepdims: 0 } }, inputs: [f("x", ins.x)], nodeInputs: ["x"], outputs: y(INT64) };
    case "index_select":
      return { op: { type: "Gather", opset: 13, attrs: { axis: 0 } }, inputs: [f("data", ins.data), i32("indices", ins.indices)], nodeInputs: ["data", "indices"], outputs: y() };
    case "gather":
      return { op: { type: "GatherElements", opset: 13, attrs: { axis: 1 } }, inputs: [f("data", ins.data), i32("indices", ins.indices)], nodeInputs: ["data", "indices"], outputs: y() };
    case "index_add": // ScatterND(add) with [n, 1] int64 coordinates: out[idx[i], :] += src[i, :]
      return { op: { type: "ScatterND", opset: 16, attrs: { reduction: "add" } },
        inputs: [f("base", ins.base), { name: "indices", dtype: INT64, dims: [c.n, 1] }, f("src", ins.src)],
        nodeInputs: ["base", "indices", "src"], outputs: y(), feedAs: { indices: (v) => ({ type: "int64", data: i64(v.data), dims: [c.n, 1] }) } };
    case "scatter_add":
      return { op: { type: "ScatterElements", opset: 16, attrs: { axis: 1, reduction: "add" } },
        inputs: [f("base", ins.base), i32("indices", ins.indices), f("src", ins.src)], nodeInputs: ["base", "indices", "src"], outputs: y() };
  }
}

function ortColumn(ort, ep) {
  return async (c, ins) => {
    const m = ortModel(c, ins);
    const opts = { executionProviders: [ep], graphOptimizationLevel: "all" };
    if (ep === "webgpu") opts.extra = { session: { disable_cpu_ep_fallback: "1" } }; // a node the EP lacks fails here, not silently on the CPU
    let session;
    try {
      session = await ort.InferenceSession.create(model(m), opts);
    } catch (e) {
      throw new Lacks(`${m.op.type}-${m.op.opset}: ${String(e.message || e).slice(0, 300)}`);
    }
    const feeds = {};
    for (const i of m.inputs) {
      const v = ins[i.name];
      const conv = m.feedAs && m.feedAs[i.name];
      if (conv) { const f = conv(v); feeds[i.name] = new ort.Tensor(f.type, f.data, f.dims); }
      else feeds[i.name] = new ort.Tensor(v.data instanceof Int32Array ? "int32" : "float32", v.data, v.shape);
    }
    const once = async () => {
      const t0 = performance.now();
      const out = await session.run(feeds);
      const dt = performance.now() - t0;
      if (!out.y || !out.y.data) throw new Error("no output");
      return dt;
    };
    return {
      warm: async () => { await once(); },
      time: async (reps) => {
        const times = [];
        for (let i = 0; i < reps; i++) times.push(await once());
        return { times, note: `${m.op.type}-${m.op.opset}` };
      },
      dispose: () => session.release(),
    };
  };
}

const PREPARE = {
  "ours-cpu": oursColumn("cpu"),
  "tfjs-wasm": tfjsWasm,
  "ort-wasm": ortColumn(ortW, "wasm"),
  "ours-webgpu": oursColumn("webgpu"),
  "tfjs-webgpu": tfjsWebGPU,
  "ort-webgpu": ortColumn(ortG, "webgpu"),
};

const median = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : null; };

// runCase times case i (an index into CASES, or a case object) on the
// columns asked for: rounds × reps warm runs each, the columns in forward
// order on even rounds and reversed on odd ones.
async function runCase(i, { rounds = 3, reps = 3, columns = COLUMNS, shape = null } = {}) {
  const c = { ...(typeof i === "number" ? CASES[i] : i) };
  if (shape) { c.shape = shape; c.name += ` (run at [${shape}])`; }
  const t0 = performance.now();
  const ins = inputsOf(c);
  const res = { case: c.name, shape: c.shape, columns: {} };
  const cols = {};
  for (const col of columns) {
    try {
      const run = await PREPARE[col](c, ins);
      await run.warm();
      cols[col] = run;
      res.columns[col] = { times: [] };
    } catch (e) {
      res.columns[col] = e instanceof Lacks ? { lacks: e.message } : { error: String(e && e.message || e).slice(0, 400) };
      log(`${c.name}: ${col}: ${res.columns[col].lacks ? "lacks" : "error"}: ${res.columns[col].lacks || res.columns[col].error}`);
    }
  }
  for (let r = 0; r < rounds; r++) {
    const order = Object.keys(cols);
    if (r % 2) order.reverse();
    for (const col of order) {
      try {
        const t = await cols[col].time(reps);
        res.columns[col].times.push(...t.times);
        if (t.settle_runs != null) (res.columns[col].settle_runs = res.columns[col].settle_runs || []).push(t.settle_runs);
        if (t.note) res.columns[col].note = t.note;
        if (t.bytes_moved) res.columns[col].bytes_moved = t.bytes_moved;
      } catch (e) {
        res.columns[col].error = String(e && e.message || e).slice(0, 400);
        log(`${c.name}: ${col}: error: ${res.columns[col].error}`);
        delete cols[col];
      }
    }
  }
  for (const run of Object.values(cols)) { try { run.dispose(); } catch (e) { /* best effort */ } }
  for (const v of Object.values(res.columns)) {
    if (v.times && v.times.length) v.median_ms = median(v.times);
  }
  res.wall_s = (performance.now() - t0) / 1000;
  log(`${c.name}: ` + Object.entries(res.columns).map(([k, v]) => `${k} ${v.median_ms != null ? v.median_ms.toFixed(2) : "–"}`).join(", ") + ` (${res.wall_s.toFixed(0)} s)`);
  return res;
}

// traceCase runs one column of case i under trace.js's wrappers (the
// playground's frame for ours, this page for the peers) and returns the
// per-call breakdown. fkc.bench runs one untimed call of its own before its
// reps, so ours' totals are divided by reps + 1 (after an untraced call
// that compiles the pipelines).
async function traceCase(i, column, { reps = 2, shape = null } = {}) {
  const c = { ...(typeof i === "number" ? CASES[i] : i) };
  if (shape) c.shape = shape;
  const ours = column.startsWith("ours");
  const ins = ours ? null : inputsOf(c);
  const run = await PREPARE[column](c, ins);
  await run.warm();
  if (ours) await run.time(1);
  const realm = ours ? document.getElementById("app").contentWindow : window;
  const tr = trace.install(realm);
  const t0 = performance.now();
  let t;
  try { t = await run.time(reps); } finally { tr.uninstall(); }
  const wall = performance.now() - t0;
  run.dispose();
  const per = ours ? reps + 1 : reps;
  return { case: c.name, column, reps, median_ms: median(t.times), times: t.times, wall_ms_per_call: +(wall / per).toFixed(2), per_call: trace.summary(tr.stats, per) };
}

// traceBrief condenses traceCase: the page's waits on the GPU process
// (mapAsync + popErrorScope + onSubmittedWorkDone), bytes uploaded
// (buffers mapped at creation + writeBuffer) and read back (mapAsync),
// dispatches, and the time in TypedArray.set (Go heap ↔ JS copies, or a
// peer's own copies).
async function traceBrief(i, column, opts) {
  const r = await traceCase(i, column, opts);
  const p = r.per_call, g = (k, f) => (p[k] ? p[k][f] : 0);
  const sets = Object.entries(p).filter(([k]) => k.startsWith("TypedArray.set"));
  return {
    case: r.case, column, median_ms: +r.median_ms.toFixed(1), wall_ms_per_call: r.wall_ms_per_call,
    gpu_wait_ms: +(g("GPUBuffer.mapAsync", "ms") + g("GPUDevice.popErrorScope", "ms") + g("GPUQueue.onSubmittedWorkDone", "ms")).toFixed(1),
    of_which_popErrorScope_ms: g("GPUDevice.popErrorScope", "ms"),
    upload_MB: +(g("GPUDevice.createBuffer", "MB") + g("GPUQueue.writeBuffer", "MB")).toFixed(1),
    readback_MB: g("GPUBuffer.mapAsync", "MB"),
    dispatches: g("GPUComputePassEncoder.dispatchWorkgroups", "calls"),
    buffers_created: g("GPUDevice.createBuffer", "calls"),
    typedarray_set_ms: +sets.reduce((a, [, v]) => a + v.ms, 0).toFixed(1),
    typedarray_set_MB: +sets.reduce((a, [, v]) => a + v.MB, 0).toFixed(1),
  };
}

// transferFloor times, with raw WebGPU on this page's own device and no
// compute pass, the host↔GPU traffic of one call in two patterns:
//   "fkc":  what kernels/gpu does in the browser — every buffer created
//           mappedAtCreation and filled (inputs, and the output at its full
//           size), a pushed/popped pair of error scopes around the submit,
//           a copy to a staging buffer, mapAsync, getMappedRange copied out;
//   "tfjs": queue.writeBuffer of the inputs into buffers, the output copied to
//           a staging buffer, mapAsync, getMappedRange copied out.
// in_MB / out_MB are what a case moves; the result is the median of reps.
async function transferFloor({ in_MB = 25.2, out_MB = 25.6, pattern = "fkc", reps = 3 } = {}) {
  const dev = await (await navigator.gpu.requestAdapter()).requestDevice({ requiredLimits: { maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 30 } });
  const inBytes = Math.round(in_MB * 1e6 / 16) * 16, outBytes = Math.round(out_MB * 1e6 / 16) * 16;
  const src = new Uint8Array(inBytes).fill(7), host = new Uint8Array(outBytes);
  const U = GPUBufferUsage;
  const once = async () => {
    const t0 = performance.now();
    let inBuf, outBuf;
    if (pattern === "fkc") {
      dev.pushErrorScope("out-of-memory"); dev.pushErrorScope("validation");
      inBuf = dev.createBuffer({ size: inBytes, usage: U.STORAGE | U.COPY_DST, mappedAtCreation: true });
      new Uint8Array(inBuf.getMappedRange()).set(src); inBuf.unmap();
      outBuf = dev.createBuffer({ size: outBytes, usage: U.STORAGE | U.COPY_SRC | U.COPY_DST, mappedAtCreation: true });
      new Uint8Array(outBuf.getMappedRange()).set(host); outBuf.unmap();
    } else if (pattern === "write-scoped") {
      // error scopes around a plain writeBuffer of the caller's array
      dev.pushErrorScope("out-of-memory"); dev.pushErrorScope("validation");
      inBuf = dev.createBuffer({ size: inBytes, usage: U.STORAGE | U.COPY_DST });
      dev.queue.writeBuffer(inBuf, 0, src);
      outBuf = dev.createBuffer({ size: outBytes, usage: U.STORAGE | U.COPY_SRC });
    } else if (pattern === "noscope-mapped") {
      inBuf = dev.createBuffer({ size: inBytes, usage: U.STORAGE | U.COPY_DST, mappedAtCreation: true });
      new Uint8Array(inBuf.getMappedRange()).set(src); inBuf.unmap();
      outBuf = dev.createBuffer({ size: outBytes, usage: U.STORAGE | U.COPY_SRC });
    } else if (pattern === "mapped-in" || pattern === "write-in" || pattern === "map-first") {
      // fkc since its sparse outputs: error scopes, the input mapped at
      // creation (or written), a plain output.
      dev.pushErrorScope("out-of-memory"); dev.pushErrorScope("validation");
      if (pattern === "mapped-in") {
        inBuf = dev.createBuffer({ size: inBytes, usage: U.STORAGE | U.COPY_DST, mappedAtCreation: true });
        new Uint8Array(inBuf.getMappedRange()).set(src); inBuf.unmap();
      } else {
        inBuf = dev.createBuffer({ size: inBytes, usage: U.STORAGE | U.COPY_DST });
        dev.queue.writeBuffer(inBuf, 0, src.slice());
      }
      outBuf = dev.createBuffer({ size: outBytes, usage: U.STORAGE | U.COPY_SRC });
    } else {
      inBuf = dev.createBuffer({ size: inBytes, usage: U.STORAGE | U.COPY_DST });
      dev.queue.writeBuffer(inBuf, 0, src);
      outBuf = dev.createBuffer({ size: outBytes, usage: U.STORAGE | U.COPY_SRC });
    }
    const stage = dev.createBuffer({ size: outBytes, usage: U.MAP_READ | U.COPY_DST });
    const enc = dev.createCommandEncoder();
    enc.copyBufferToBuffer(outBuf, 0, stage, 0, outBytes);
    dev.queue.submit([enc.finish()]);
    if (pattern === "map-first" || pattern === "noscope-mapped" || pattern === "write-scoped") {
      // mapAsync issued before the scopes are popped (kernels/gpu's order),
      // or no scopes at all with the input mapped at creation.
      const mapped = stage.mapAsync(GPUMapMode.READ);
      if (pattern !== "noscope-mapped") { await dev.popErrorScope(); await dev.popErrorScope(); }
      await mapped;
    } else {
      if (pattern !== "tfjs") { await dev.popErrorScope(); await dev.popErrorScope(); }
      await stage.mapAsync(GPUMapMode.READ);
    }
    host.set(new Uint8Array(stage.getMappedRange()));
    stage.unmap();
    const dt = performance.now() - t0;
    inBuf.destroy(); outBuf.destroy(); stage.destroy();
    return dt;
  };
  await once();
  const times = [];
  for (let i = 0; i < reps; i++) times.push(await once());
  dev.destroy();
  return { pattern, in_MB, out_MB, median_ms: +median(times).toFixed(1), times: times.map((t) => +t.toFixed(1)) };
}

// ---------- start-up ----------

async function setup() {
  const env = { userAgent: navigator.userAgent, crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency };
  await new Promise((res) => {
    const f = document.getElementById("app");
    if (f.contentWindow && f.contentWindow.fkc) return res();
    f.addEventListener("load", res, { once: true });
  });
  await fkc().ready;
  env.fkc_gpu = fkc().gpu();
  await tf.setBackend("wasm");
  env.tfjs = { version: tf.version_core, wasm_threads: tf.wasm.getThreadsCount(), wasm_simd: await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT") };
  await tf.setBackend("webgpu");
  env.tfjs.webgpu = tf.backend().adapterInfo ? JSON.stringify(tf.backend().adapterInfo) : "ok";
  // onnxruntime-web picks its threads when its first session starts: 1 unless cross-origin isolated.
  env.ort = { version: ortW.env.versions && ortW.env.versions.common };
  // Check that disable_cpu_ep_fallback takes: a node the WebGPU EP lacks
  // (Det) must fail the session instead of running on the CPU EP.
  try {
    const det = model({ op: { type: "Det", opset: 13 }, inputs: [{ name: "x", dtype: FLOAT, dims: [4, 4] }], nodeInputs: ["x"], outputs: [{ name: "y", dtype: FLOAT }] });
    const s = await ortG.InferenceSession.create(det, { executionProviders: ["webgpu"], extra: { session: { disable_cpu_ep_fallback: "1" } } });
    await s.release();
    env.ort.webgpu_cpu_fallback = "NOT disabled: a Det model loaded on webgpu (it may have run on the CPU EP)";
  } catch (e) {
    env.ort.webgpu_cpu_fallback = "disabled (a Det model is refused: " + String(e.message || e).slice(0, 120) + ")";
  }
  const a = await navigator.gpu.requestAdapter();
  env.adapter = a ? { vendor: a.info.vendor, architecture: a.info.architecture, description: a.info.description,
    maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize, maxBufferSize: a.limits.maxBufferSize } : null;
  log("ready: " + JSON.stringify(env));
  return env;
}

const ready = setup();
window.peers = {
  CASES, COLUMNS, ready,
  async runCase(i, opts) { await ready; return runCase(i, opts); },
  async traceCase(i, column, opts) { await ready; return traceCase(i, column, opts); },
  async traceBrief(i, column, opts) { await ready; return traceBrief(i, column, opts); },
  async transferFloor(opts) { await ready; return transferFloor(opts); },
  fkc,
  async env() { const e = await ready; e.ort.wasm_threads = ortW.env.wasm.numThreads; e.ort.webgpu_threads = ortG.env.wasm.numThreads; return e; },
};
