//! uses: dtype.wgsl
// pad_backward.wgsl — pad_backward_{reflect,replicate}_{f32,f16,bf16}.
//
// Specialisation: DT (0 f32, 1 f16, 2 bf16), MODE (1 reflect, 2 replicate).
//
// One thread per grad_out element: map its coordinate to the grad_in slot
// (the forward's reflect / clamp map) and add grad_out into it with a
// compare-and-swap loop on the enclosing u32 word. grad_in is zero-filled by
// the host before dispatch. f32: CAS on the word's bits. f16/bf16: sub-word
// CAS — widen the lane to f32, add, narrow with round-to-nearest-even (integer
// code in common.wgsl), CAS the whole word, so the neighbouring lane is never
// raced. The loop is bounded (MAX_CAS tries); a contribution that could not be
// stored bumps fail[0] and the host reports an error — nothing is dropped
// silently. Accumulation order is scheduler-dependent: nondeterministic.

const MAX_CAS: u32 = 1000u;

@group(0) @binding(0) var<storage, read> P: array<u32>;          // [n_out, rank]
@group(0) @binding(1) var<storage, read> shape_buf: array<u32>;  // [in_shape, out_shape, left_pad]
@group(0) @binding(2) var<storage, read> gout: array<u32>;
@group(0) @binding(3) var<storage, read_write> gin: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> fail: array<atomic<u32>>;

fn target_index(e: u32) -> u32 {
    let rank = P[1];
    var rem = e;
    var s = 0u;
    var stride = 1u;
    for (var a = i32(rank) - 1; a >= 0; a = a - 1) {
        let ax = u32(a);
        let n_in = shape_buf[ax];
        let n_out = shape_buf[rank + ax];
        let lp = shape_buf[2u * rank + ax];
        let c = rem % n_out;
        rem = rem / n_out;
        var j = i32(c) - i32(lp);
        let n = i32(n_in);
        if (MODE == 1u) {
            if (j < 0) { j = -j; }
            if (j >= n) { j = 2 * (n - 1) - j; }
        } else {
            j = clamp(j, 0, n - 1);
        }
        s = s + u32(j) * stride;
        stride = stride * n_in;
    }
    return s;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    if (t >= P[0]) { return; }
    let slot = target_index(t);
    if (DT == 0u) {
        let g = bitcast<f32>(gout[t]);
        var old = atomicLoad(&gin[GUARD + slot]);
        for (var i = 0u; i < MAX_CAS; i = i + 1u) {
            let nv = bitcast<u32>(bitcast<f32>(old) + g);
            let r = atomicCompareExchangeWeak(&gin[GUARD + slot], old, nv);
            if (r.exchanged) { return; }
            old = r.old_value;
        }
    } else {
        let g = widen((gout[t >> 1u] >> ((t & 1u) * 16u)) & 0xffffu);
        let w = GUARD + (slot >> 1u);
        let lane = slot & 1u;
        var old = atomicLoad(&gin[w]);
        for (var i = 0u; i < MAX_CAS; i = i + 1u) {
            let h = (old >> (lane * 16u)) & 0xffffu;
            let nv = put_lane(old, lane, 16u, narrow(widen(h) + g));
            let r = atomicCompareExchangeWeak(&gin[w], old, nv);
            if (r.exchanged) { return; }
            old = r.old_value;
        }
    }
    atomicAdd(&fail[0], 1u);
}
