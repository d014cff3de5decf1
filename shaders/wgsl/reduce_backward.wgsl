//! uses: dtype.wgsl cells.wgsl
// reduce_backward.wgsl — the gradient passes of reduce_max_to_backward.
// (The forward max per target cell comes from reduce.wgsl with OP = 1, FIN
// = 2 — `seq` or `rows` in one pass, or the levels and `finalize` — in its
// output layout: guarded, two cells a word for halves.)
//
// Specialisation: DT (0 f32, 1 f16, 2 bf16).
//
// `count`: one thread per input element; mask = x == y (IEEE ==, NaN never
// equal, +0 == -0); ties are counted with an integer atomicAdd per target
// cell (exact, order-independent).
// `grad`: one thread per output word; grad = mask ? s : s·0 with
// s = narrow(f32(upstream) / f32(max(count, 1))) (s·0 written out in bits:
// ±0 with s's sign, NaN for inf/NaN s). Deterministic. The division is
// quot_bits from a fragment: exact (round to nearest even) with
// shader-f64 (quot64.wgsl), the adapter's f32 division otherwise.

@group(0) @binding(0) var<storage, read> P: array<u32>;   // [n_in, rank, shape[8], ostride[8]]
@group(0) @binding(1) var<storage, read> x: array<u32>;
@group(0) @binding(2) var<storage, read> ymaxw: array<u32>; // the cells' maxima (reduce_max_to's output)
@group(0) @binding(3) var<storage, read> up: array<u32>;
@group(0) @binding(4) var<storage, read_write> cnt: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> dst: array<u32>;

fn load_bits(e: u32) -> u32 {
    if (DT == 0u) {
        return x[e];
    }
    return (x[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu;
}

fn load_up(e: u32) -> u32 {
    if (DT == 0u) {
        return up[e];
    }
    return (up[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu;
}

// The max of cell o, widened (a cell without a candidate holds the -inf
// seed, as reduce_max_to gives it).
fn ymax(o: u32) -> u32 {
    if (DT == 0u) {
        return ymaxw[GUARD + o];
    }
    return wide((ymaxw[GUARD + (o >> 1u)] >> ((o & 1u) * 16u)) & 0xffffu);
}

@compute @workgroup_size(256)
fn count(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = thread_id(wid, nwg, lid);
    if (i >= P[0]) { return; }
    let o = cell_of(i);
    if (eq32(wide(load_bits(i)), ymax(o))) {
        atomicAdd(&cnt[o], 1u);
    }
}

fn grad_of(i: u32) -> u32 {
    let o = cell_of(i);
    let c = max(atomicLoad(&cnt[o]), 1u);
    let s = narrow(bitcast<f32>(quot_bits(wide(load_up(o)), c)));
    if (eq32(wide(load_bits(i)), ymax(o))) {
        return s;
    }
    // s · 0
    if (DT == 0u) {
        if ((s & 0x7f800000u) == 0x7f800000u) { return 0x7fc00000u; }
        return s & 0x80000000u;
    }
    if (DT == 1u) {
        if ((s & 0x7c00u) == 0x7c00u) { return 0x7e00u; }
        return s & 0x8000u;
    }
    if ((s & 0x7f80u) == 0x7f80u) { return 0x7fc0u; }
    return s & 0x8000u;
}

@compute @workgroup_size(256)
fn grad(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    let n = P[0];
    if (DT == 0u) {
        if (t >= n) { return; }
        dst[GUARD + t] = grad_of(t);
        return;
    }
    let first = 2u * t;
    if (first >= n) { return; }
    var word = 0u;
    if (first + 2u > n) {
        word = dst[GUARD + t];
    }
    for (var l = 0u; l < 2u; l = l + 1u) {
        let e = first + l;
        if (e >= n) { break; }
        word = put_lane(word, l, 16u, grad_of(e));
    }
    dst[GUARD + t] = word;
}
