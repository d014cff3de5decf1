// Puzzle: gather's address.
//
// gather(data, indices, dim): the output has indices' shape, and
//
//     out[p] = data[p with p[dim] replaced by indices[p]]
//
// e.g. dim 1, data 2x3, indices [[2, 0], [1, 1]]: out = [[d02, d00], [d11, d11]].
// Every tensor is row-major: element (c0, …, c(r-1)) of data is word
// sum(c_a * P.a_strides[a]); P.out_shape is the output's (and indices')
// shape, P.rank its rank, P.dim the axis. The kernel around your function
// is complete (F32: one invocation per element); write src_of.

@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read> indices: array<u32>;  // U32, the output's shape
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<storage, read> P: Params;

// ---- your code ----
// The element of data that output element o (a flat, row-major index)
// copies.
fn src_of(o: u32) -> u32 {
    return o;
}
// ---- end of your code ----

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = (wid.y * nwg.x + wid.x) * WG + lid;
    if (t >= P.units) {
        return;
    }
    out[t] = data[src_of(t)];
}
