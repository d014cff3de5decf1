// Where a WebGPU call's time goes: wraps the WebGPU methods (and
// Uint8Array.prototype.set, through which Go's syscall/js copies bytes
// between the Go heap and JS) of one realm — the playground's frame for
// ours, this page for the peers — and sums, per method, calls, bytes and
// milliseconds. For a promise-returning method (mapAsync, popErrorScope,
// onSubmittedWorkDone) the time is from the call to the promise settling:
// for mapAsync that is the GPU's work (queued uploads, passes, copy to the
// staging buffer) seen from the page.

const ASYNC = new Set(["mapAsync", "popErrorScope", "onSubmittedWorkDone"]);

const METHODS = {
  GPUDevice: ["createBuffer", "createBindGroup", "createCommandEncoder", "createComputePipeline", "createComputePipelineAsync", "createShaderModule", "pushErrorScope", "popErrorScope"],
  GPUQueue: ["writeBuffer", "submit", "onSubmittedWorkDone"],
  GPUBuffer: ["mapAsync", "getMappedRange", "unmap", "destroy"],
  GPUCommandEncoder: ["beginComputePass", "copyBufferToBuffer", "finish"],
  GPUComputePassEncoder: ["dispatchWorkgroups", "setPipeline", "setBindGroup", "end"],
};

// bytesOf: the bytes a call moves, where it says.
function bytesOf(cls, name, args, self, mem) {
  switch (`${cls}.${name}`) {
    case "GPUDevice.createBuffer": return args[0] && args[0].mappedAtCreation ? args[0].size : 0;
    case "GPUQueue.writeBuffer": { const d = args[2]; return args[4] != null ? args[4] * (d.BYTES_PER_ELEMENT || 1) : d.byteLength - (args[3] || 0) * (d.BYTES_PER_ELEMENT || 1); }
    case "GPUCommandEncoder.copyBufferToBuffer": return args[4];
    case "GPUBuffer.mapAsync": return args[2] != null ? args[2] : self.size;
    case "Uint8Array.set": case "Uint8ClampedArray.set": return args[0] && args[0].length;
  }
  return 0;
}

// install wraps realm's prototypes; it returns {stats, uninstall}.
export function install(realm) {
  const stats = {};
  const undo = [];
  const mem = () => realm.wasm && realm.wasm.instance && realm.wasm.instance.exports.mem && realm.wasm.instance.exports.mem.buffer;
  const rec = (key, ms, bytes) => {
    const s = stats[key] || (stats[key] = { calls: 0, ms: 0, bytes: 0 });
    s.calls++; s.ms += ms; s.bytes += bytes || 0;
  };
  const wrap = (cls, proto, name, keyOf) => {
    const orig = proto[name];
    if (typeof orig !== "function") return;
    proto[name] = function (...args) {
      const key = keyOf ? keyOf(this, args) : `${cls}.${name}`;
      const bytes = bytesOf(cls, name, args, this, mem);
      const t0 = realm.performance.now();
      const r = orig.apply(this, args);
      if (ASYNC.has(name) && r && typeof r.then === "function") {
        return r.then((v) => { rec(key, realm.performance.now() - t0, bytes); return v; },
          (e) => { rec(key, realm.performance.now() - t0, bytes); throw e; });
      }
      rec(key, realm.performance.now() - t0, bytes);
      return r;
    };
    undo.push(() => { proto[name] = orig; });
  };
  for (const [cls, names] of Object.entries(METHODS)) {
    const C = realm[cls];
    if (!C) continue;
    for (const n of names) wrap(cls, C.prototype, n);
  }
  // Go's js.CopyBytesToJS / CopyBytesToGo are Uint8Array.prototype.set on
  // a view of (or into) the Go heap: tell the directions apart.
  // (The wgpu binding copies through Uint8ClampedArray views.)
  for (const A of ["Uint8Array", "Uint8ClampedArray"]) {
    wrap(A, realm[A].prototype, "set", (self, args) => {
      const m = mem();
      if (m && self.buffer === m) return "TypedArray.set (JS → Go heap)";
      if (m && args[0] && args[0].buffer === m) return "TypedArray.set (Go heap → JS)";
      return "TypedArray.set (other)";
    });
  }
  return { stats, uninstall: () => { for (const u of undo.reverse()) u(); } };
}

// summary divides the totals by calls and rounds them.
export function summary(stats, per) {
  const out = {};
  for (const [k, v] of Object.entries(stats).sort((a, b) => b[1].ms - a[1].ms)) {
    out[k] = { calls: +(v.calls / per).toFixed(1), ms: +(v.ms / per).toFixed(2), MB: +(v.bytes / per / 1e6).toFixed(2) };
  }
  return out;
}
