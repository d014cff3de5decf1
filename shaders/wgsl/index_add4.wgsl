//! uses: split3.wgsl
// index_add4.wgsl — index_add (contracts/project/fkc-wgsl-kernels.fkc.md)
// for F32 when the slices after dim hold a multiple of 4 elements (I % 4
// == 0): index_add.wgsl's general add with 16-byte units. The 4 elements of
// a unit are consecutive in one slice, so they share their bucket (the src
// slices whose index is the unit's position along dim); each lane is an
// element of its own, added in the same ascending order as the scalar
// kernel, one f32 add at a time: bitwise its result (and the oracle's).
// The bounds check runs first (index.wgsl `check`); the host's bucket
// table, pass words and continuation list are index_add.wgsl's, in units
// of 4 elements (P[35]/P[36]: the units with a bucket past the chain).

@group(0) @binding(0) var<storage, read> P: array<u32>;
@group(0) @binding(1) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> err: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read> off: array<u32>;
@group(0) @binding(7) var<storage, read_write> state: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    let cont = P[34] == 1u;
    var w = t;
    if (cont) {
        if (t >= P[36]) { return; }
        w = off[P[35] + t];
    }
    let first = 4u * w;
    if (first >= P[0]) { return; }
    let s = split3(first);
    let b0 = off[s.y];
    let len = off[s.y + 1u] - b0;
    let k0 = P[32];
    let k1 = k0 + P[33];
    if (cont && len <= k0) { return; }       // finished in an earlier pass
    var acc: vec4<f32>;
    if (cont) {
        acc = state[w];
    } else {
        acc = bitcast<vec4<f32>>(data[w]);
    }
    let end = b0 + min(len, k1);
    let row = s.x * P[5];
    for (var q = b0 + k0; q < end; q = q + 1u) {
        acc = acc + bitcast<vec4<f32>>(src[((row + idx[q]) * P[6] + s.z) / 4u]);
    }
    if (len > k1) {
        state[w] = acc;                      // carried to the next pass, exactly
    }
    dst[GUARD / 4u + w] = bitcast<vec4<u32>>(acc);
}
