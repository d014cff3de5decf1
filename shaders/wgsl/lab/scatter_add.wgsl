// Plain scatter_add — the kernel lab's reference kernel, written for
// reading, not speed. The lab interface (docs/lab.md) appends its prelude:
// WG, EB, OUT_EB, PER, DT, ACC, struct Params, the f64 views and the
// helpers of common.wgsl.
//
//   out = base; out[q with q[dim] <- indices[q]] += src[q]   for every q of src
//
// Each output cell p adds, in increasing k (src's flat order, the
// oracle's), the src cells q = p with q[dim] = k whose index is p[dim],
// each add rounded to the dtype: no atomics, the oracle's own order. A
// cell outside src's extent on another axis is a copy of base. One invocation per output
// word (two half outputs share one).

@group(0) @binding(0) var<storage, read> base: array<u32>;
@group(0) @binding(1) var<storage, read> indices: array<u32>;  // U32, src's shape
@group(0) @binding(2) var<storage, read> src: array<u32>;      // P.b_*: no larger than base off axis dim
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var<storage, read> P: Params;

fn base_val(e: u32) -> ACC {
    if (EB == 8u) {
        return ACC(in_f64_0[e]);
    }
    if (EB == 2u) {
        return ACC(half_to_f32((base[e / 2u] >> (16u * (e % 2u))) & 0xffffu));
    }
    return ACC(bitcast<f32>(base[e]));
}

fn src_val(e: u32) -> ACC {
    if (EB == 8u) {
        return ACC(in_f64_2[e]);
    }
    if (EB == 2u) {
        return ACC(half_to_f32((src[e / 2u] >> (16u * (e % 2u))) & 0xffffu));
    }
    return ACC(bitcast<f32>(src[e]));
}

fn rnd(v: ACC) -> ACC {
    if (EB == 2u) {
        return ACC(half_to_f32(f32_to_half(f32(v))));
    }
    return v;
}

fn value(o: u32) -> ACC {
    var rest = o;
    var row = 0u;       // o's coordinate on axis dim
    var q0 = 0u;        // src's cell with o's coordinates, at k = 0
    var inside = true;  // o lies within src's extent off axis dim
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        let c = rest % P.out_shape[a];
        rest = rest / P.out_shape[a];
        if (u32(a) == P.dim) {
            row = c;
        } else {
            inside = inside && c < P.b_shape[a];
            q0 = q0 + c * P.b_strides[a];
        }
    }
    var acc = base_val(o);
    if (!inside) {
        return acc;
    }
    for (var k = 0u; k < P.b_shape[P.dim]; k = k + 1u) {
        let q = q0 + k * P.b_strides[P.dim];
        if (indices[q] == row) {
            acc = rnd(acc + src_val(q));
        }
    }
    return acc;
}

fn bits(v: ACC) -> u32 {
    if (EB == 2u) {
        return f32_to_half(f32(v));
    }
    return bitcast<u32>(f32(v));
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = (wid.y * nwg.x + wid.x) * WG + lid;
    if (t >= P.units) {
        return;
    }
    if (OUT_EB == 8u) {
        out_f64[t] = F64V(value(t));
        return;
    }
    if (OUT_EB == 4u) {
        out[t] = bits(value(t));
        return;
    }
    var w = 0u;
    for (var k = 0u; k < PER; k = k + 1u) {
        let e = t * PER + k;
        if (e < P.n) {
            w = w | (bits(value(e)) << (16u * k));
        }
    }
    out[t] = w;
}
