// pad4.wgsl — the forward pad's table path (pad.wgsl, TAB = 1) for 4-byte
// elements, four output elements per thread: one division for the four,
// and one 16-byte store. Every mode (the tables encode it), any 4-byte
// dtype (a byte mover: bit-exact). The output's GUARD words are GUARD/4
// vec4 units; the last unit keeps its lanes past n (poisoned guards).
// P: [n_elems, rows, fill_lo, fill_hi, n_last]; T: rowtab[rows], coltab[n_last]
// (pad.wgsl).

@group(0) @binding(0) var<storage, read> P: array<u32>;
@group(0) @binding(1) var<storage, read> T: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    let n = P[0];
    let e0 = 4u * t;
    if (e0 >= n) { return; }
    let nl = P[4];
    var row = e0 / nl;
    var col = e0 - row * nl;
    var out = vec4<u32>();
    if (e0 + 4u > n) {
        out = dst[GUARD / 4u + t];                    // the last unit: keep the lanes past n
    }
    for (var l = 0u; l < 4u; l = l + 1u) {
        if (e0 + l >= n) { break; }
        let rs = T[row];
        let cs = T[P[1] + col];
        if (rs == NONE || cs == NONE) {
            out[l] = P[2];
        } else {
            out[l] = src[rs + cs];
        }
        col = col + 1u;
        if (col == nl) {
            col = 0u;
            row = row + 1u;
        }
    }
    dst[GUARD / 4u + t] = out;
}
