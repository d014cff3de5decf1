// Plain pad — the kernel lab's reference kernel for pad (constant, reflect,
// replicate), written for reading, not speed. The lab interface
// (docs/lab.md) appends its prelude to this file: WG, EB, OUT_EB, PER, DT,
// struct Params and the helpers of common.wgsl.
//
//   out[o] = x[src(o)]   where, per axis, j = coord - before and
//     constant:  j outside [0, n) -> the fill value
//     reflect:   j < 0 -> -j;  j >= n -> 2(n-1) - j   (the edge is not repeated)
//     replicate: j clamped into [0, n-1]
//     circular:  j mod n
//     symmetric: m = j mod 2n; m < n ? m : 2n-1-m   (the edge repeats)
//
// One invocation per output word: PER = 4 / EB elements of 1 or 2 bytes
// share a word, which has one writer; 4- and 8-byte elements take one
// invocation each.

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> P: Params;

// Element e of x as bits: (lo, hi); hi is the upper word of an 8-byte element.
fn x_bits(e: u32) -> vec2<u32> {
    if (EB == 8u) {
        return vec2<u32>(x[2u * e], x[2u * e + 1u]);
    }
    if (EB == 4u) {
        return vec2<u32>(x[e], 0u);
    }
    let per = 4u / EB;                        // elements per word
    let shift = (e % per) * EB * 8u;
    return vec2<u32>((x[e / per] >> shift) & (0xffffffffu >> ((4u - min(EB, 4u)) * 8u)), 0u);
}

// Circular's and symmetric's source on an axis of n >= 1 elements, any j:
//   circular:  j mod n
//   symmetric: m = j mod 2n; m < n ? m : 2n - 1 - m   (the edge repeats)
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

// The bits of output element o.
fn elem(o: u32) -> vec2<u32> {
    var rest = o;
    var src = 0u;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {   // last axis first
        let c = rest % P.out_shape[a];
        rest = rest / P.out_shape[a];
        let n = i32(P.a_shape[a]);
        var j = i32(c) - i32(P.pad_before[a]);
        if (j < 0 || j >= n) {
            if (P.op == 0u) {                  // constant
                return P.fill;
            } else if (P.op == 1u) {           // reflect
                if (j < 0) {
                    j = -j;
                } else {
                    j = 2 * (n - 1) - j;
                }
            } else if (P.op == 2u) {           // replicate
                j = clamp(j, 0, n - 1);
            } else {                           // circular (3), symmetric (4)
                j = wrap_src(j, n);
            }
        }
        src = src + u32(j) * P.a_strides[a];
    }
    return x_bits(src);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = (wid.y * nwg.x + wid.x) * WG + lid;   // this invocation's unit
    if (t >= P.units) {
        return;
    }
    if (OUT_EB == 8u) {
        let v = elem(t);
        out[2u * t] = v.x;
        out[2u * t + 1u] = v.y;
        return;
    }
    if (OUT_EB == 4u) {
        out[t] = elem(t).x;
        return;
    }
    var w = 0u;                                // PER narrow elements packed in one word
    for (var k = 0u; k < PER; k = k + 1u) {
        let e = t * PER + k;
        if (e < P.n) {
            w = w | (elem(e).x << (k * OUT_EB * 8u));
        }
    }
    out[t] = w;
}
