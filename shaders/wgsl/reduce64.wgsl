//! uses: segs.wgsl
// reduce64.wgsl — the reductions on F64, for adapters with shader-f64
// (contracts/project/fkc-wgsl-kernels.fkc.md): sum/max/min/mean over all
// elements or one dim, argmax/argmin, reduce_sum_to / reduce_max_to and
// the max pass of reduce_max_to_backward. The segment walk, the levels and
// the passes are reduce.wgsl's (segs.wgsl; `level`: a workgroup folds a
// chunk of CH = 16·W elements of one segment, 16 per thread combined
// pairwise, then a shared-memory tree; `finalize` writes one output per
// thread from the last partials; `seq`: one thread folds a segment of at
// most 32 elements in k order).
//
// Specialisation: OP (0 sum, 1 max, 2 min), FIN (0 sum, 1 mean, 2 value,
// 3 arg index) and fragments: r64sum.wgsl (sums: f64 adds), or
// r64ext.wgsl (extrema: 64-bit integer keys) with r64val.wgsl (the value)
// or r64arg.wgsl (the index). A fragment defines R (a fold in a thread),
// PW (a stored partial), DW (an output element), r_none, r_elem, r_part,
// r_comb, r_store and r_emit.
//
// Sums accumulate in f64 (the CPU's precision, a fixed tree order); a
// segment of at most 32 elements is added in k order from +0, exactly the
// CPU's sum. Extrema compare integer keys of the elements' bits (NaN never
// enters, -0 ties +0, equal keys -> the smaller k) and move the winner's
// own bits: bit-identical to the CPU's strict scan. Special values (+0,
// ±inf) come from the host table `cst`, so no constant goes through
// float arithmetic that a compiler may fold.

const CH: u32 = 4096u;

@group(0) @binding(0) var<storage, read> P: array<u32>;
@group(0) @binding(1) var<storage, read> x: array<u32>;      // x as words: (lo, hi) per element
@group(0) @binding(2) var<storage, read> pin: array<PW>;
@group(0) @binding(3) var<storage, read_write> pout: array<PW>;
@group(0) @binding(4) var<storage, read_write> dst: array<DW>;
@group(0) @binding(5) var<storage, read> x8: array<f64>;     // x as f64 (the same buffer)
@group(0) @binding(6) var<storage, read> cst: array<f64>;    // [+0, NaN, -inf, +inf, -0]

var<workgroup> sh: array<R, 256>;

// Input k of this level (Kcur = P[2] of them per segment) as a fold.
fn item(seg: u32, base: u32, k: u32) -> R {
    if (k >= P[2]) { return r_none(); }
    if (P[4] == 1u) { return r_elem(base + seg_off(k), k); }
    return r_part(seg, base, seg * P[2] + k);
}

// Four inputs W apart, combined pairwise.
fn item4(seg: u32, base: u32, k: u32) -> R {
    return r_comb(r_comb(item(seg, base, k), item(seg, base, k + W)),
                  r_comb(item(seg, base, k + 2u * W), item(seg, base, k + 3u * W)));
}

@compute @workgroup_size(256)
fn level(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let g = group_id(wid, nwg);
    let C = P[3];
    if (g >= P[0] * C) { return; }          // uniform: the whole workgroup leaves
    let seg = g / C;
    let k0 = (g % C) * CH + lid;
    let base = seg_base(seg);
    let a = r_comb(item4(seg, base, k0), item4(seg, base, k0 + 4u * W));
    let b = r_comb(item4(seg, base, k0 + 8u * W), item4(seg, base, k0 + 12u * W));
    sh[lid] = r_comb(a, b);
    for (var s = W / 2u; s > 0u; s = s >> 1u) {
        workgroupBarrier();
        if (lid < s) {
            sh[lid] = r_comb(sh[lid], sh[lid + s]);
        }
    }
    if (lid == 0u) {
        r_store(g, sh[0]);
    }
}

@compute @workgroup_size(256)
fn finalize(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let seg = thread_id(wid, nwg, lid);
    if (seg >= P[0]) { return; }
    let base = seg_base(seg);
    r_emit(seg, base, r_part(seg, base, seg));
}

@compute @workgroup_size(256)
fn seq(@builtin(workgroup_id) wid: vec3<u32>,
       @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let seg = thread_id(wid, nwg, lid);
    if (seg >= P[0]) { return; }
    let base = seg_base(seg);
    var acc = r_none();
    for (var k = 0u; k < P[1]; k = k + 1u) {
        acc = r_comb(acc, r_elem(base + seg_off(k), k));
    }
    r_emit(seg, base, acc);
}
