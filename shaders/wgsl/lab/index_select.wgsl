// Plain index_select (and embedding, index_select along dim 0 of a [V, D]
// table) — the kernel lab's reference kernel, written for reading, not
// speed. The lab interface (docs/lab.md) appends its prelude: WG, EB,
// OUT_EB, PER, DT, struct Params and the helpers of common.wgsl.
//
//   out[.., k, ..] = data[.., indices[k], ..]     (k on axis P.dim)
//
// The lab passes indices below data.shape[dim] (the engine refuses the
// others before any kernel runs). One invocation per output word.

@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read> indices: array<u32>;  // U32, rank 1
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<storage, read> P: Params;

fn data_bits(e: u32) -> vec2<u32> {
    if (EB == 8u) {
        return vec2<u32>(data[2u * e], data[2u * e + 1u]);
    }
    if (EB == 4u) {
        return vec2<u32>(data[e], 0u);
    }
    let per = 4u / EB;
    let shift = (e % per) * EB * 8u;
    return vec2<u32>((data[e / per] >> shift) & (0xffffffffu >> ((4u - min(EB, 4u)) * 8u)), 0u);
}

fn elem(o: u32) -> vec2<u32> {
    var rest = o;
    var src = 0u;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        var c = rest % P.out_shape[a];
        rest = rest / P.out_shape[a];
        if (u32(a) == P.dim) {
            c = indices[c];
        }
        src = src + c * P.a_strides[a];
    }
    return data_bits(src);
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
