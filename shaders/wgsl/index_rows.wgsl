// index_rows.wgsl — index_select (and embedding) when every selected slice
// is a whole number of 16-byte units (inner · element bytes % 16 == 0):
// UPT 16-byte units of the output per thread (vec4 loads and stores), any
// dtype (a byte mover: bit-exact).
//
// Output unit t belongs to slice r = t / R (R units per slice) at unit
// u = t % R; the slice is (outer o, position k) = (r / m, r % m) and copies
// data slice (o, idx[k]). An index >= D is never used: its position k goes
// to err[0] (atomicMin: the first bad one, as the CPU reports it).
// P: [n_units, R, m, D]; RSH and ONE (Go-prepended): see main.

@group(0) @binding(0) var<storage, read> P: array<u32>;
@group(0) @binding(1) var<storage, read> idx: array<u32>;
@group(0) @binding(2) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> err: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    // UPT units per thread (Go-prepended), W apart: all loads first.
    let t0 = group_id(wid, nwg) * (UPT * W) + lid;
    let R = P[1];
    var v: array<vec4<u32>, UPT>;
    var ok = 0u;                              // bit i: unit i loaded
    for (var i = 0u; i < UPT; i = i + 1u) {
        let t = t0 + i * W;
        if (t < P[0]) {
            // RSH = log2 R when R is a power of two (32 when not), ONE = 1
            // when there is one outer slice (dim 0): Go-prepended, so the
            // divisions fold. The shift is masked: a constant shift by 32,
            // even in the branch never taken, is a compile error in Tint
            // (Chrome's WGSL compiler; naga takes it).
            var r = 0u;
            if (RSH < 32u) { r = t >> (RSH & 31u); } else { r = t / R; }
            var o = 0u;
            if (ONE == 0u) { o = r / P[2]; }
            let k = r - o * P[2];
            let x = idx[k];
            if (x >= P[3]) {
                atomicMin(&err[0], k);
            } else {
                v[i] = data[(o * P[3] + x) * R + (t - r * R)];
                ok = ok | (1u << i);
            }
        }
    }
    for (var i = 0u; i < UPT; i = i + 1u) {
        if ((ok & (1u << i)) != 0u) {
            dst[GUARD / 4u + t0 + i * W] = v[i];
        }
    }
}
