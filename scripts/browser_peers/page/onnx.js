// A minimal ONNX model writer: just enough protobuf (ModelProto, GraphProto,
// NodeProto, AttributeProto, TensorProto, ValueInfoProto) to build the
// one-node models the benchmark gives onnxruntime-web. Field numbers are
// those of onnx/onnx.proto.

const enc = new TextEncoder();

class W {
  constructor() { this.parts = []; this.n = 0; }
  bytes(b) { this.parts.push(b); this.n += b.length; }
  varint(v) { // v: a non-negative Number or BigInt (int64 fields)
    let x = BigInt.asUintN(64, BigInt(v));
    const out = [];
    do {
      let b = Number(x & 0x7fn);
      x >>= 7n;
      if (x) b |= 0x80;
      out.push(b);
    } while (x);
    this.bytes(Uint8Array.from(out));
  }
  tag(field, wire) { this.varint((field << 3) | wire); }
  int(field, v) { this.tag(field, 0); this.varint(v); }
  float(field, v) { this.tag(field, 5); const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, v, true); this.bytes(b); }
  len(field, b) { this.tag(field, 2); this.varint(b.length); this.bytes(b); }
  str(field, s) { this.len(field, enc.encode(s)); }
  msg(field, fn) { const w = new W(); fn(w); this.len(field, w.done()); }
  done() {
    const out = new Uint8Array(this.n);
    let o = 0;
    for (const p of this.parts) { out.set(p, o); o += p.length; }
    return out;
  }
}

export const FLOAT = 1, INT32 = 6, INT64 = 7;

// tensorProto writes a TensorProto: dims (1), data_type (2), name (8), raw_data (9).
function tensorProto(w, name, dtype, dims, data) {
  for (const d of dims) w.int(1, d);
  w.int(2, dtype);
  w.str(8, name);
  w.len(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

// valueInfo writes a ValueInfoProto with a static tensor type.
function valueInfo(w, name, dtype, dims) {
  w.str(1, name);
  w.msg(2, t => t.msg(1, tt => { // TypeProto.tensor_type
    tt.int(1, dtype);
    if (dims) tt.msg(2, s => { for (const d of dims) s.msg(1, dd => dd.int(1, d)); });
  }));
}

// attribute writes an AttributeProto: name (1), f (2), i (3), s (4), ints (8), type (20).
function attribute(w, name, v) {
  w.str(1, name);
  if (typeof v === "string") { w.str(4, v); w.int(20, 3); }
  else if (Array.isArray(v)) { for (const x of v) w.int(8, x); w.int(20, 7); }
  else if (Number.isInteger(v)) { w.int(3, v); w.int(20, 2); }
  else { w.float(2, v); w.int(20, 1); }
}

// model returns the bytes of a one-node ONNX model.
//   op: {type, attrs: {name: value}, opset}
//   inputs: [{name, dtype, dims}]          graph inputs (fed at run time)
//   inits:  [{name, dtype, dims, data}]    initializers (constants)
//   nodeInputs: names in the node's input order ("" for an omitted optional input)
//   outputs: [{name, dtype}]               (shape left to inference)
export function model({ op, inputs, inits = [], nodeInputs, outputs }) {
  const w = new W();
  w.int(1, 8); // ir_version
  w.str(2, "fkc-browser-peers"); // producer_name
  w.msg(8, o => { o.str(1, ""); o.int(2, op.opset); }); // opset_import
  w.msg(7, g => {
    g.msg(1, n => { // node
      for (const i of nodeInputs) n.str(1, i);
      for (const o of outputs) n.str(2, o.name);
      n.str(3, op.type);
      n.str(4, op.type);
      for (const [k, v] of Object.entries(op.attrs || {})) n.msg(5, a => attribute(a, k, v));
    });
    g.str(2, "g");
    for (const t of inits) g.msg(5, tp => tensorProto(tp, t.name, t.dtype, t.dims, t.data));
    for (const i of inputs) g.msg(11, v => valueInfo(v, i.name, i.dtype, i.dims));
    for (const o of outputs) g.msg(12, v => valueInfo(v, o.name, o.dtype, null));
  });
  return w.done();
}
