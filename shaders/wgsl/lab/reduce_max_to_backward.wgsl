// Plain reduce_max_to_backward — the kernel lab's reference kernel,
// written for reading, not speed. The lab interface (docs/lab.md) appends
// its prelude: WG, EB, OUT_EB, PER, DT, ACC, struct Params, the f64 views
// and the helpers of common.wgsl.
//
// For x element i in group g (its cell of the target: P.keep, x's rank,
// reduced axes 1; the group's members walked over P.red), all in the dtype:
//   y = max of the group (seed -inf, strict >), mask = x[i] == y,
//   count = number of members equal to y,
//   out[i] = (upstream[g] / max(count, 1)) * mask
// The product with a mask of 0 is written as its bits (masked_bits), not
// multiplied: a compiler may fold x * 0 to +0, losing the -0 of a negative
// upstream and the NaN of an infinite one (the H200's Vulkan driver does
// for f64). One invocation per output word (two half outputs share one).

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read> upstream: array<u32>;  // the target's shape (P.b_*: aligned to x's rank)
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<storage, read> P: Params;


// a > b and a == b as IEEE compares on the f32 bits (F64: the f64 values):
// an adapter may flush f32 subnormals in float compares (SwiftShader
// does), which would tie a subnormal with 0 where the CPU oracle orders
// them. NaN compares false, +0 equals -0, as the float compares do.
fn acc_gt(a: ACC, b: ACC) -> bool {
    if (EB == 8u) {
        return a > b;
    }
    let x = bitcast<u32>(f32(a));
    let y = bitcast<u32>(f32(b));
    if (isnan32(x) || isnan32(y)) {
        return false;
    }
    return gt32(x, y);
}

fn acc_eq(a: ACC, b: ACC) -> bool {
    if (EB == 8u) {
        return a == b;
    }
    return eq32(bitcast<u32>(f32(a)), bitcast<u32>(f32(b)));
}

fn x_val(e: u32) -> ACC {
    if (EB == 8u) {
        return ACC(in_f64_0[e]);
    }
    if (EB == 2u) {
        return ACC(half_to_f32((x[e / 2u] >> (16u * (e % 2u))) & 0xffffu));
    }
    return ACC(bitcast<f32>(x[e]));
}

fn up_val(e: u32) -> ACC {
    if (EB == 8u) {
        return ACC(in_f64_1[e]);
    }
    if (EB == 2u) {
        return ACC(half_to_f32((upstream[e / 2u] >> (16u * (e % 2u))) & 0xffffu));
    }
    return ACC(bitcast<f32>(upstream[e]));
}

fn rnd(v: ACC) -> ACC {
    if (EB == 2u) {
        return ACC(half_to_f32(f32_to_half(f32(v))));
    }
    return v;
}

// An element's gradient: at_max, and then v = upstream[g] / max(count, 1);
// otherwise the element is masked out and g is its upstream cell.
struct Grad {
    at_max: bool,
    v: ACC,
    g: u32,
}

fn grad(i: u32) -> Grad {
    // i's cell of the target: its coordinates with the reduced axes at 0
    var rest = i;
    var base = 0u;      // the group's first element in x
    var g = 0u;         // the cell in upstream
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        let c = rest % P.a_shape[a];
        rest = rest / P.a_shape[a];
        if (P.keep[a] != 1u) {
            base = base + c * P.a_strides[a];
            g = g + c * P.b_strides[a];
        }
    }
    var ninf = 0xff800000u;                   // a var: Tint refuses -inf as a constant
    var y = ACC(bitcast<f32>(ninf));          // -inf
    for (var j = 0u; j < P.m; j = j + 1u) {
        var r = j;
        var e = base;
        for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
            e = e + (r % P.red[a]) * P.a_strides[a];
            r = r / P.red[a];
        }
        let v = x_val(e);
        if (acc_gt(v, y)) {
            y = v;
        }
    }
    var count = ACC(0.0);
    for (var j = 0u; j < P.m; j = j + 1u) {
        var r = j;
        var e = base;
        for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
            e = e + (r % P.red[a]) * P.a_strides[a];
            r = r / P.red[a];
        }
        if (acc_eq(x_val(e), y)) {
            count = rnd(count + ACC(1.0));
        }
    }
    if (count < ACC(1.0)) {
        count = ACC(1.0);
    }
    return Grad(acc_eq(x_val(i), y), rnd(up_val(g) / count), g);
}

// The bits of upstream[g] / count * 0, in the output's width (F64: the
// high word; its low word is 0): NaN for an infinite or NaN upstream,
// else a zero with upstream's sign (count is positive).
fn masked_bits(g: u32) -> u32 {
    if (EB == 8u) {
        let hi = upstream[2u * g + 1u];
        if ((hi & 0x7ff00000u) == 0x7ff00000u) {
            return 0x7ff80000u;
        }
        return hi & 0x80000000u;
    }
    if (EB == 2u) {
        let h = (upstream[g / 2u] >> (16u * (g % 2u))) & 0xffffu;
        var exp = 0x7c00u;  // F16
        var nan = 0x7e00u;
        if (DT == DT_BF16) {
            exp = 0x7f80u;
            nan = 0x7fc0u;
        }
        if ((h & exp) == exp) {
            return nan;
        }
        return h & 0x8000u;
    }
    let w = upstream[g];
    if ((w & 0x7f800000u) == 0x7f800000u) {
        return 0x7fc00000u;
    }
    return w & 0x80000000u;
}

fn bits(v: ACC) -> u32 {
    if (EB == 2u) {
        return f32_to_half(f32(v));
    }
    return bitcast<u32>(f32(v));
}

// Element e's output bits (4- and 2-byte outputs).
fn elem_bits(e: u32) -> u32 {
    let r = grad(e);
    if (r.at_max) {
        return bits(r.v);
    }
    return masked_bits(r.g);
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
        let r = grad(t);
        if (r.at_max) {
            out_f64[t] = F64V(r.v);
        } else {
            out[2u * t] = 0u;
            out[2u * t + 1u] = masked_bits(r.g);
        }
        return;
    }
    if (OUT_EB == 4u) {
        out[t] = elem_bits(t);
        return;
    }
    var w = 0u;
    for (var k = 0u; k < PER; k = k + 1u) {
        let e = t * PER + k;
        if (e < P.n) {
            w = w | (elem_bits(e) << (16u * k));
        }
    }
    out[t] = w;
}
