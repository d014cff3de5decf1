// Puzzle: circular and symmetric.
//
// Two pad modes whose padding may be wider than the input: circular
// repeats the input periodically, symmetric mirrors it about its border,
// repeating the edge element, and keeps mirroring further out:
//
//     j:         -4 -3 -2 -1 | 0  1  2 | 3  4  5  6     (n = 3)
//     circular:   2  0  1  2 | 0  1  2 | 0  1  2  0
//     symmetric:  2  2  1  0 | 0  1  2 | 2  1  0  0
//
// P.op says which: 3 circular, 4 symmetric. The kernel around your
// function is complete (F32: one invocation per element); write wrap_src.
// Mind a negative j: in WGSL, i32 % keeps the dividend's sign.

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> P: Params;

// ---- your code ----
// The input coordinate that coordinate j (any value) of an axis of n >= 1
// elements copies from, in [0, n): circular when symmetric is false.
fn wrap_src(j: i32, n: i32, symmetric: bool) -> i32 {
    return clamp(j, 0, n - 1);
}
// ---- end of your code ----

// Output element o's source element in x (row-major, last axis fastest).
fn src_of(o: u32) -> u32 {
    var rest = o;
    var src = 0u;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        let c = rest % P.out_shape[a];
        rest = rest / P.out_shape[a];
        let n = i32(P.a_shape[a]);
        var j = i32(c) - i32(P.pad_before[a]);
        if (j < 0 || j >= n) {
            j = wrap_src(j, n, P.op == 4u);
        }
        src = src + u32(j) * P.a_strides[a];
    }
    return src;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = (wid.y * nwg.x + wid.x) * WG + lid;
    if (t >= P.units) {
        return;
    }
    out[t] = x[src_of(t)];
}
