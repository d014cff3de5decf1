// Plain reductions — sum, max, min, mean (over every element or one dim),
// argmax, argmin, reduce_sum_to, reduce_max_to, reduce_min_to: the kernel
// lab's reference kernel, written for reading, not speed. The lab
// interface (docs/lab.md) appends its prelude: WG, EB, OUT_EB, PER, DT,
// ACC, struct Params, the f64 views and the helpers of common.wgsl.
//
// Output o folds a group of x: the elements that agree with o on the kept
// axes (P.keep: x's rank, reduced axes 1), walked in x's flat order over
// P.red (the reduced axes' sizes; P.m elements in all), as the oracle does:
//   sum  (P.op 0): from +0 in ACC (f32; f64 for F64), rounded once to the
//        dtype, as the GPU contract's sums (the oracle rounds each add:
//        within the contract's bound either way)
//   max  (1) / min (2): seed -inf / +inf, a strictly greater / smaller
//        element wins (NaN never does, the first of a tie does); its bits
//   mean (3): the sum divided by P.m, rounded once
//   argmax (4) / argmin (5): seed element 0, strict compare; its index
// One invocation per output word (two half outputs share one).

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> P: Params;

// Element e of x as a value of the accumulator type (f32; f64 for F64).
fn x_val(e: u32) -> ACC {
    if (EB == 8u) {
        return ACC(in_f64_0[e]);                    // the f64 view of x
    }
    if (EB == 2u) {
        return ACC(half_to_f32((x[e / 2u] >> (16u * (e % 2u))) & 0xffffu));
    }
    return ACC(bitcast<f32>(x[e]));
}

// Element e of x as bits (lo, hi).
fn x_bits(e: u32) -> vec2<u32> {
    if (EB == 8u) {
        return vec2<u32>(x[2u * e], x[2u * e + 1u]);
    }
    if (EB == 2u) {
        return vec2<u32>((x[e / 2u] >> (16u * (e % 2u))) & 0xffffu, 0u);
    }
    return vec2<u32>(x[e], 0u);
}

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

// The bits of -inf (neg) or +inf in the element dtype.
fn inf_bits(neg: bool) -> vec2<u32> {
    var s = 0u;
    if (neg) {
        s = 1u;
    }
    if (EB == 8u) {
        return vec2<u32>(0u, 0x7ff00000u | (s << 31u));
    }
    if (DT == DT_F16) {
        return vec2<u32>(0x7c00u | (s << 15u), 0u);
    }
    if (DT == DT_BF16) {
        return vec2<u32>(0x7f80u | (s << 15u), 0u);
    }
    return vec2<u32>(0x7f800000u | (s << 31u), 0u);
}

// The fold of output o.
struct Fold {
    value: ACC,          // sum, mean
    bits: vec2<u32>,     // max, min: the winner's bits
    index: u32,          // argmax, argmin: the winner's position in the group
}

fn fold(o: u32) -> Fold {
    // o's coordinates on the kept axes give the group's first element.
    var rest = o;
    var base = 0u;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        base = base + (rest % P.keep[a]) * P.a_strides[a];
        rest = rest / P.keep[a];
    }
    var f: Fold;
    f.value = ACC(0.0);
    f.bits = inf_bits(P.op == 1u);
    f.index = 0u;
    // the seed of max (-inf) or min (+inf), as an f32 widened to ACC
    var best = ACC(bitcast<f32>(0x7f800000u | (select(0u, 1u, P.op == 1u) << 31u)));
    for (var j = 0u; j < P.m; j = j + 1u) {
        // member j: its coordinates on the reduced axes
        var r = j;
        var e = base;
        for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
            e = e + (r % P.red[a]) * P.a_strides[a];
            r = r / P.red[a];
        }
        let v = x_val(e);
        if (P.op == 0u || P.op == 3u) {
            f.value = f.value + v;
        } else if (P.op == 4u || P.op == 5u) {
            if (j == 0u || (P.op == 4u && acc_gt(v, best)) || (P.op == 5u && acc_gt(best, v))) {
                best = v;
                f.index = j;
            }
        } else if ((P.op == 1u && acc_gt(v, best)) || (P.op == 2u && acc_gt(best, v))) {
            best = v;
            f.bits = x_bits(e);
        }
    }
    if (P.op == 3u) {
        f.value = f.value / ACC(f32(P.m));
    }
    return f;
}

// The bits an output element gets (not for F64 sums: see main).
fn elem(o: u32) -> u32 {
    let f = fold(o);
    if (P.op == 4u || P.op == 5u) {
        return f.index;
    }
    if (P.op == 1u || P.op == 2u) {
        return f.bits.x;
    }
    if (EB == 2u) {
        return f32_to_half(f32(f.value));
    }
    return bitcast<u32>(f32(f.value));
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = (wid.y * nwg.x + wid.x) * WG + lid;   // this invocation's unit
    if (t >= P.units) {
        return;
    }
    if (OUT_EB == 8u) {                            // F64: values through the f64 view
        let f = fold(t);
        if (P.op == 1u || P.op == 2u) {
            out[2u * t] = f.bits.x;
            out[2u * t + 1u] = f.bits.y;
        } else {
            out_f64[t] = F64V(f.value);
        }
        return;
    }
    if (OUT_EB == 4u) {
        out[t] = elem(t);
        return;
    }
    var w = 0u;                                    // two halves a word
    for (var k = 0u; k < PER; k = k + 1u) {
        let e = t * PER + k;
        if (e < P.n) {
            w = w | (elem(e) << (16u * k));
        }
    }
    out[t] = w;
}
