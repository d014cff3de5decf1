// Plain masked_fill — the kernel lab's reference kernel, written for
// reading, not speed. The lab interface (docs/lab.md) appends its prelude:
// WG, EB, OUT_EB, PER, DT, struct Params and the helpers of common.wgsl.
//
//   out[i] = mask[i] != 0 ? fill : x[i]     (mask: BOOL, x's shape)
//
// One invocation per output word: PER = 4 / EB elements of 1 or 2 bytes
// share a word, which has one writer.

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read> mask: array<u32>;   // BOOL: 4 bytes a word
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<storage, read> P: Params;

// Element e of x as bits: (lo, hi); hi is the upper word of an 8-byte element.
fn x_bits(e: u32) -> vec2<u32> {
    if (EB == 8u) {
        return vec2<u32>(x[2u * e], x[2u * e + 1u]);
    }
    if (EB == 4u) {
        return vec2<u32>(x[e], 0u);
    }
    let per = 4u / EB;
    let shift = (e % per) * EB * 8u;
    return vec2<u32>((x[e / per] >> shift) & (0xffffffffu >> ((4u - min(EB, 4u)) * 8u)), 0u);
}

fn elem(i: u32) -> vec2<u32> {
    let m = (mask[i / 4u] >> ((i % 4u) * 8u)) & 0xffu;
    if (m != 0u) {
        return P.fill;
    }
    return x_bits(i);
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
    var w = 0u;
    for (var k = 0u; k < PER; k = k + 1u) {
        let e = t * PER + k;
        if (e < P.n) {
            w = w | (elem(e).x << (k * OUT_EB * 8u));
        }
    }
    out[t] = w;
}
