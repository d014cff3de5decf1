// Plain pad_backward — the kernel lab's reference kernel, written for
// reading, not speed. The lab interface (docs/lab.md) appends its prelude:
// WG, EB, OUT_EB, PER, DT, FLOAT, ACC, struct Params, the f64 views and
// the helpers of common.wgsl.
//
// grad_in[i] is the sum of every grad_out cell that pad copied from input
// cell i. Per axis (input size n, pads b and f, input coordinate c) those
// cells' grad_out coordinates are, in increasing order:
//   constant:  c + b
//   reflect:   b - c (when 1 <= c <= b), c + b, b + 2(n-1) - c (when n-1-f <= c <= n-2)
//   replicate: c + b, widened to 0 .. b at c = 0 and to b+n-1 .. b+n-1+f at c = n-1
//   circular, symmetric: every p in 0 .. b+n+f-1 whose source wrap_src(p - b) is c
//     (any width: a cell gathers one per period that covers it)
// and the cells of grad_out are every combination of them (walked in
// grad_out's flat order). Float dtypes add from +0 in ACC (f32, or f64 for
// F64) and round once; the constant mode, one source a cell, moves bits.
// One invocation per output word.

@group(0) @binding(0) var<storage, read> grad_out: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> P: Params;

fn g_val(e: u32) -> ACC {
    if (EB == 8u) {
        return ACC(in_f64_0[e]);
    }
    if (EB == 2u) {
        return ACC(half_to_f32((grad_out[e / 2u] >> (16u * (e % 2u))) & 0xffffu));
    }
    return ACC(bitcast<f32>(grad_out[e]));
}

fn g_bits(e: u32) -> vec2<u32> {
    if (EB == 8u) {
        return vec2<u32>(grad_out[2u * e], grad_out[2u * e + 1u]);
    }
    if (EB == 4u) {
        return vec2<u32>(grad_out[e], 0u);
    }
    let per = 4u / EB;
    let shift = (e % per) * EB * 8u;
    return vec2<u32>((grad_out[e / per] >> shift) & (0xffffffffu >> ((4u - min(EB, 4u)) * 8u)), 0u);
}

// Circular's and symmetric's source on an axis of n >= 1 elements, any j
// (as in the forward kernel).
// The remainder is taken in u32 (a negative j is brought into range
// first): the H200's Vulkan driver gave wrong sources for i32 % of a
// negative j where lavapipe did not.
fn wrap_src(j: i32, n: i32) -> i32 {
    var period = u32(n);                      // circular
    if (P.op == 4u) {
        period = 2u * u32(n);                 // symmetric
    }
    var m = u32(abs(j)) % period;
    if (j < 0 && m != 0u) {
        m = period - m;
    }
    if (P.op == 3u || m < u32(n)) {
        return i32(m);
    }
    return 2 * n - 1 - i32(m);
}

// The k-th grad_out coordinate (in increasing order) of axis a whose
// circular or symmetric source is c; k = 0xffffffff counts them instead.
fn wrap_walk(a: u32, c: u32, k: u32) -> u32 {
    let n = P.out_shape[a];
    let b = P.pad_before[a];
    var seen = 0u;
    for (var p = 0u; p < b + n + P.pad_after[a]; p = p + 1u) {
        if (u32(wrap_src(i32(p) - i32(b), i32(n))) == c) {
            if (seen == k) {
                return p;
            }
            seen = seen + 1u;
        }
    }
    return seen;
}

// How many grad_out coordinates on axis a fold into input coordinate c.
fn sources(a: u32, c: u32) -> u32 {
    let n = P.out_shape[a];
    let b = P.pad_before[a];
    let f = P.pad_after[a];
    if (P.op >= 3u) {                                   // circular, symmetric
        return wrap_walk(a, c, 0xffffffffu);
    }
    if (P.op == 1u) {                                   // reflect
        var k = 1u;
        if (c >= 1u && c <= b) {
            k = k + 1u;
        }
        if (c + 1u + f >= n && c + 2u <= n) {
            k = k + 1u;
        }
        return k;
    }
    if (P.op == 2u) {                                   // replicate
        var lo = c + b;
        var hi = c + b;
        if (c == 0u) {
            lo = 0u;
        }
        if (c + 1u == n) {
            hi = b + n - 1u + f;
        }
        return hi - lo + 1u;
    }
    return 1u;                                          // constant
}

// The k-th of them (in increasing order).
fn source(a: u32, c: u32, k: u32) -> u32 {
    let n = P.out_shape[a];
    let b = P.pad_before[a];
    if (P.op >= 3u) {
        return wrap_walk(a, c, k);
    }
    if (P.op == 1u) {
        var list = array<u32, 3>(c + b, 0u, 0u);
        var m = 0u;
        if (c >= 1u && c <= b) {
            list[0] = b - c;
            list[1] = c + b;
            m = 1u;
        }
        list[m + 1u] = b + 2u * (n - 1u) - c;           // read only when it exists
        return list[k];
    }
    if (P.op == 2u && c == 0u) {
        return k;
    }
    return c + b + k;
}

// Output element i as a sum (float dtypes).
fn grad(i: u32) -> ACC {
    var c: array<u32, 8>;       // i's coordinates in grad_in
    var count: array<u32, 8>;   // sources per axis
    var total = 1u;
    var rest = i;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        c[a] = rest % P.out_shape[a];
        rest = rest / P.out_shape[a];
        count[a] = sources(u32(a), c[a]);
        total = total * count[a];
    }
    var acc = ACC(0.0);
    for (var s = 0u; s < total; s = s + 1u) {   // every combination, last axis fastest
        var r = s;
        var e = 0u;
        for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
            e = e + source(u32(a), c[a], r % count[a]) * P.a_strides[a];
            r = r / count[a];
        }
        acc = acc + g_val(e);
    }
    return acc;
}

// Output element i's bits: the float sum narrowed, or (constant mode,
// integer dtypes) grad_out's interior cell.
// The constant mode's one source (grad_out's interior cell) as bits: what
// adding it to +0 gives, without arithmetic — the same bits, but -0 becomes
// +0 and a signalling NaN comes out quiet — so a NaN keeps its payload and
// a subnormal stays, whatever the adapter's float rules.
fn interior_bits(i: u32) -> vec2<u32> {
    var rest = i;
    var e = 0u;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        e = e + (rest % P.out_shape[a] + P.pad_before[a]) * P.a_strides[a];
        rest = rest / P.out_shape[a];
    }
    var v = g_bits(e);
    if (!FLOAT) {
        return v;
    }
    // the word holding the sign and exponent, and its NaN layout
    var hi = v.x;
    var expo = 0x7f800000u;                   // F32
    var quiet = 0x00400000u;
    if (EB == 8u) {
        hi = v.y;
        expo = 0x7ff00000u;
        quiet = 0x00080000u;
    } else if (EB == 2u && DT == DT_BF16) {
        expo = 0x7f80u;
        quiet = 0x0040u;
    } else if (EB == 2u) {
        expo = 0x7c00u;
        quiet = 0x0200u;
    }
    let sign = 1u << (min(EB, 4u) * 8u - 1u);
    let mant = sign - 1u - expo;              // the mantissa bits of hi
    if (hi == sign && (EB < 8u || v.x == 0u)) {
        hi = 0u;                              // -0 + +0 = +0
    } else if ((hi & expo) == expo && ((hi & mant) != 0u || (EB == 8u && v.x != 0u))) {
        hi = hi | quiet;                      // a NaN comes out of the add quiet
    }
    if (EB == 8u) {
        v.y = hi;
    } else {
        v.x = hi;
    }
    return v;
}

fn elem(i: u32) -> u32 {
    if (!FLOAT || P.op == 0u) {
        return interior_bits(i).x;
    }
    if (EB == 2u) {
        return f32_to_half(f32(grad(i)));
    }
    return bitcast<u32>(f32(grad(i)));
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
        if (FLOAT && P.op != 0u) {
            out_f64[t] = F64V(grad(t));                  // F64: through the f64 view
        } else {
            let v = interior_bits(t);
            out[2u * t] = v.x;
            out[2u * t + 1u] = v.y;
        }
        return;
    }
    if (OUT_EB == 4u) {
        out[t] = elem(t);
        return;
    }
    var w = 0u;
    for (var k = 0u; k < PER; k = k + 1u) {
        let e = t * PER + k;
        if (e < P.n) {
            w = w | (elem(e) << (k * OUT_EB * 8u));
        }
    }
    out[t] = w;
}
