// copy.wgsl — the Judge's copy ceiling on a GPU (Device.CopyTime): dst = src,
// 16 bytes a load and a store, CP vec4s a thread, consecutive threads on
// consecutive vec4s. It is the memory-bound kernel every other kernel is
// compared with: the same kind of work (a compute dispatch reading and
// writing storage buffers), without index arithmetic.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

const CP: u32 = 4u;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let n = arrayLength(&dst);
    let base = group_id(wid, nwg) * (W * CP) + lid;
    for (var k = 0u; k < CP; k = k + 1u) {
        let i = base + k * W;
        if (i < n) {
            dst[i] = src[i];
        }
    }
}
