// clock.wgsl — a busy kernel for Device.WarmClocks: every thread runs a
// chain of dependent multiply-adds (1024 per launch, far below lavapipe's
// 65,535 loop iterations), so a few launches in a row keep every SM busy
// for milliseconds. The result is written only if it is impossible, so the
// chain cannot be optimised away and nothing is written.

@group(0) @binding(0) var<storage, read_write> sink: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    var a = f32(thread_id(wid, nwg, lid) & 1023u) * 0.001;
    for (var i = 0u; i < 1024u; i = i + 1u) {
        a = a * 0.9999 + 0.0001;
    }
    if (a > 1.0e30) {
        sink[0] = bitcast<u32>(a);
    }
}
