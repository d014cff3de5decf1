// Puzzle: a row sum with a workgroup reduction.
//
// sum(x, dim): each output cell is the sum of the P.m elements of x that
// its group holds. Here a workgroup's 64 invocations compute its 64 output
// cells together, one after another: for each cell they load its elements
// 64 at a time into the shared array partial (invocation lid loads element
// base + lid, 0 past the group's end), and the 64 values must be summed
// into partial[0], which invocation 0 adds to the cell's total.
//
// Write the reduction: in log2(64) = 6 steps, invocation lid < s adds
// partial[lid + s] into partial[lid] for s = 32, 16, …, 1, with a
// workgroupBarrier() after each step so that the next step reads finished
// sums. Every invocation must reach every barrier: keep the loop the same
// for all of them and put the condition inside it.

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> P: Params;

var<workgroup> partial: array<f32, 64>;

// ---- your code ----
// Sum partial[0 .. 64) into partial[0]; called by all 64 invocations.
fn reduce_partial(lid: u32) {
}
// ---- end of your code ----

// The first element of output cell o's group, and its k-th element
// (x's row-major order over the reduced axes, as the CPU oracle adds).
fn base_of(o: u32) -> u32 {
    var rest = o;
    var base = 0u;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        base = base + (rest % P.keep[a]) * P.a_strides[a];
        rest = rest / P.keep[a];
    }
    return base;
}
fn elem_of(base: u32, k: u32) -> u32 {
    var r = k;
    var e = base;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {
        e = e + (r % P.red[a]) * P.a_strides[a];
        r = r / P.red[a];
    }
    return e;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    var mine = 0.0;                       // invocation lid's own cell, g * 64 + lid
    for (var k = 0u; k < WG; k = k + 1u) {
        let o = g * WG + k;               // the cell the workgroup sums now
        var total = 0.0;
        for (var start = 0u; start < P.m; start = start + WG) {
            var v = 0.0;
            if (o < P.n && start + lid < P.m) {
                v = bitcast<f32>(x[elem_of(base_of(o), start + lid)]);
            }
            partial[lid] = v;
            workgroupBarrier();
            reduce_partial(lid);
            total = total + partial[0];
            workgroupBarrier();           // partial is read before the next load
        }
        if (k == lid) {
            mine = total;
        }
    }
    let t = g * WG + lid;
    if (t < P.units) {
        out[t] = bitcast<u32>(mine);
    }
}
