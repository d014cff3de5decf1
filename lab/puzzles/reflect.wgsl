// Puzzle: reflect's source index.
//
// pad(x, reflect) copies every output cell from an input cell. On each
// axis the output coordinate c sits at j = c - before relative to the
// input's start; inside [0, n) it is the input's own, outside it mirrors
// about the edge element without repeating it:
//
//     j:    -3 -2 -1 | 0  1  2  3 | 4  5  6        (n = 4)
//     src:   3  2  1 | 0  1  2  3 | 2  1  0
//
// The kernel around your function is complete (F32: one invocation per
// element); write reflect_src.

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> P: Params;

// ---- your code ----
// The input coordinate that coordinate j (-(n-1) <= j <= 2(n-1)) of an
// axis of n elements copies from, in [0, n).
fn reflect_src(j: i32, n: i32) -> i32 {
    return j;
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
            j = reflect_src(j, n);
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
