//! uses: cells.wgsl
// reduce_backward64.wgsl — the gradient passes of reduce_max_to_backward on
// F64 (adapters with shader-f64); reduce_backward.wgsl's passes, one element
// per thread. The max per target cell comes from reduce64.wgsl (`level`
// with OP 1, then `finalize` into ymax, read here as words).
//
// `count`: mask = x == y, compared as bits (NaN never equal, +0 == -0);
// ties counted with an integer atomicAdd per cell (exact, order-free).
// `grad`: grad = mask ? s : s·0 with s = upstream / f64(max(count, 1))
// rounded to nearest even: the f64 quotient corrected once by its exact
// residual (fma), as the CPU's division rounds. s·0 is taken from the
// host table (±0 with upstream's sign, NaN for an inf or NaN upstream),
// never computed: a compiler may fold a product with zero.

@group(0) @binding(0) var<storage, read> P: array<u32>;    // [n_in, rank, shape[8], ostride[8]]
@group(0) @binding(1) var<storage, read> x: array<u32>;    // x as words
@group(0) @binding(2) var<storage, read> ymax: array<u32>; // the cells' maxima as words (guarded)
@group(0) @binding(3) var<storage, read> up: array<u32>;   // upstream as words
@group(0) @binding(4) var<storage, read_write> cnt: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> dst: array<f64>;
@group(0) @binding(6) var<storage, read> upv: array<f64>;  // upstream as f64 (the same buffer)
@group(0) @binding(7) var<storage, read> cst: array<f64>;  // [+0, NaN, -inf, +inf, -0]

fn is_nan64(lo: u32, hi: u32) -> bool {
    let a = hi & 0x7fffffffu;
    return a > 0x7ff00000u || (a == 0x7ff00000u && lo != 0u);
}

// x[i] == the max of cell o, as IEEE ==.
fn at_max(i: u32, o: u32) -> bool {
    let lo = x[2u * i];
    let hi = x[2u * i + 1u];
    let ylo = ymax[GUARD + 2u * o];
    let yhi = ymax[GUARD + 2u * o + 1u];
    if (is_nan64(lo, hi) || is_nan64(ylo, yhi)) {
        return false;
    }
    return (lo == ylo && hi == yhi) || (lo == 0u && ylo == 0u && ((hi | yhi) & 0x7fffffffu) == 0u);
}

@compute @workgroup_size(256)
fn count(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = thread_id(wid, nwg, lid);
    if (i >= P[0]) { return; }
    let o = cell_of(i);
    if (at_max(i, o)) {
        atomicAdd(&cnt[o], 1u);
    }
}

// a / c rounded to nearest even, for a count c >= 1.
fn quot(a: f64, c: u32, hi: u32) -> f64 {
    let q0 = a / f64(c);
    if (c == 1u || (hi & 0x7ff00000u) == 0x7ff00000u || a == cst[0]) {
        return q0;                                   // exact, or inf / NaN / ±0
    }
    let cf = f64(c);
    let r = fma(-q0, cf, a);                         // exact residual
    return q0 + r / cf;
}

@compute @workgroup_size(256)
fn grad(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = thread_id(wid, nwg, lid);
    if (i >= P[0]) { return; }
    let o = cell_of(i);
    let hi = up[2u * o + 1u];
    if (at_max(i, o)) {
        dst[GUARD / 2u + i] = quot(upv[o], max(atomicLoad(&cnt[o]), 1u), hi);
        return;
    }
    if ((hi & 0x7ff00000u) == 0x7ff00000u) {
        dst[GUARD / 2u + i] = cst[1];                // inf · 0, NaN · 0
    } else if ((hi & 0x80000000u) != 0u) {
        dst[GUARD / 2u + i] = cst[4];                // -0
    } else {
        dst[GUARD / 2u + i] = cst[0];
    }
}
