// Puzzle: pad backward as a gather (no atomics).
//
// The gradient of pad(x, replicate): grad_in[i] is the sum of every
// grad_out cell that pad copied from input cell i. Instead of each
// grad_out cell adding itself into its source (a scatter, which needs
// atomics), each grad_in cell gathers its sources. On one axis of n input
// cells padded by b before and f after, input coordinate c is copied to
// the grad_out coordinates of one contiguous range [lo, hi]:
//
//     grad_out:  0 .. b-1 | b .. b+n-1 | b+n .. b+n+f-1
//     copies:    x[0]     | x[0 .. n-1]| x[n-1]
//
// and a cell's sources are every combination of its axes' ranges. Here
// P.out_shape is grad_in's shape (n per axis), P.a_strides grad_out's
// strides, P.pad_before and P.pad_after b and f. The kernel around your
// function is complete (F32: one invocation per element); write src_range.

@group(0) @binding(0) var<storage, read> grad_out: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> P: Params;

// ---- your code ----
// The grad_out coordinates [lo, hi] (x = lo, y = hi, inclusive) on axis a
// that pad(replicate) copied from input coordinate c.
fn src_range(a: u32, c: u32) -> vec2<u32> {
    let b = P.pad_before[a];
    return vec2<u32>(c + b, c + b);
}
// ---- end of your code ----

// grad_in element i: the sum of its sources, added from +0 in f32.
fn grad(i: u32) -> f32 {
    var lo: array<u32, 8>;
    var count: array<u32, 8>;
    var total = 1u;
    var rest = i;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        let c = rest % P.out_shape[a];
        rest = rest / P.out_shape[a];
        let r = src_range(u32(a), c);
        lo[a] = r.x;
        count[a] = r.y - r.x + 1u;
        total = total * count[a];
    }
    var acc = 0.0;
    for (var s = 0u; s < total; s = s + 1u) {   // every combination, last axis fastest
        var k = s;
        var e = 0u;
        for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
            e = e + (lo[a] + k % count[a]) * P.a_strides[a];
            k = k / count[a];
        }
        acc = acc + bitcast<f32>(grad_out[e]);
    }
    return acc;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = (wid.y * nwg.x + wid.x) * WG + lid;
    if (t >= P.units) {
        return;
    }
    out[t] = bitcast<u32>(grad(t));
}
