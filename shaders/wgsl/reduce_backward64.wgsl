//! uses: cells.wgsl
// reduce_backward64.wgsl — the gradient passes of reduce_max_to_backward on
// F64 (adapters with shader-f64); reduce_backward.wgsl's passes, one element
// per thread. The max per target cell comes from reduce64.wgsl (`level`
// with OP 1, then `finalize` into ymax, read here as words).
//
// `count`: mask = x == y, compared as bits (NaN never equal, +0 == -0);
// ties counted with an integer atomicAdd per cell (exact, order-free).
// `grad`: grad = mask ? s : s·0 with s = upstream / f64(max(count, 1))
// rounded to nearest even, as the CPU's division rounds: the mantissa
// divided in integers (quot, div_mant). s·0 is taken from the
// host table (±0 with upstream's sign, NaN for an inf or NaN upstream),
// never computed: a compiler may fold a product with zero.

@group(0) @binding(0) var<storage, read> P: array<u32>;    // [n_in, rank, shape[8], ostride[8]]
@group(0) @binding(1) var<storage, read> x: array<u32>;    // x as words
@group(0) @binding(2) var<storage, read> ymax: array<u32>; // the cells' maxima as words (guarded)
@group(0) @binding(3) var<storage, read> up: array<u32>;   // upstream as words
@group(0) @binding(4) var<storage, read_write> cnt: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> dst: array<f64>;
@group(0) @binding(6) var<storage, read> upv: array<f64>;  // upstream as f64 (the same buffer)
// [+0, NaN, -inf, +inf, -0, 2^(2^k) for k = 0..9, 2^-(2^k) for k = 0..9]
@group(0) @binding(7) var<storage, read> cst: array<f64>;

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

// a / c rounded to nearest even, for a count c >= 1, as the CPU's IEEE
// division gives it: lo, hi are a's words. A GPU's f64 division may be off
// by ulps (Vulkan allows 2.5), and its fma need not be fused ("inherited
// from OpFMul followed by OpFAdd"): the quotient corrected by an fma
// residual was 1 ulp off for many upstream values with 7 to 1000 ties on
// lavapipe. So the mantissa is divided in integers (div_mant), rounded
// to nearest even once, and scaled by exact powers of two. inf, NaN, ±0
// and a quotient below the normal range keep the hardware's division (the
// contract's exemption for subnormal quotients).
fn quot(a: f64, c: u32, lo: u32, hi: u32) -> f64 {
    let ea = (hi >> 20u) & 0x7ffu;
    if (c == 1u) {
        return a;
    }
    if (ea == 0x7ffu || ea == 0u) {
        return a / f64(c);                           // inf / NaN, or ±0 and subnormal a
    }
    let q = div_mant(0x100000u | (hi & 0xfffffu), lo, c);
    // q = (mantissa high word, low word, z): a / c = M · 2^(ea - 1074 - z).
    let e = i32(ea) - 1074 - i32(q.z);
    if (e < -1074) {
        return a / f64(c);                           // a subnormal quotient
    }
    var v = f64(q.x) * cst[10] + f64(q.y);          // cst[10] = 2^32: exact, M < 2^54
    // v · 2^e by exact powers of two, the intermediates between v and the
    // (normal) result; 2^-1024 is subnormal, so 2^-512 twice.
    var m = u32(abs(e));
    for (var k = 0u; k < 11u; k = k + 1u) {
        if (((m >> k) & 1u) != 0u) {
            if (e > 0) {
                v = v * cst[5u + k];
            } else if (k == 10u) {
                v = v * cst[24u] * cst[24u];
            } else {
                v = v * cst[15u + k];
            }
        }
    }
    if ((hi & 0x80000000u) != 0u) {
        v = -v;
    }
    return v;
}

// The 53-bit mantissa (mh: its top 21 bits, implicit 1 included; ml: the
// low 32) divided by c >= 2 in integers: restoring division, a dividend
// bit at a time (the mantissa's, then z zeros), until the quotient has 54
// significant bits; then rounded to 53 at its last bit, to nearest even
// (the remainder is the sticky bit). Returns (M's high 22 bits, its low 32
// bits, z).
fn div_mant(mh: u32, ml: u32, c: u32) -> vec3<u32> {
    var r = 0u;
    var qh = 0u;
    var ql = 0u;
    var nsig = 0u;
    var z = 0u;
    var i = 53u;                                     // mantissa bits left
    for (var it = 0u; it < 96u; it = it + 1u) {      // 54 + at most 33 zeros
        var bit = 0u;
        if (i > 0u) {
            i = i - 1u;
            if (i >= 32u) {
                bit = (mh >> (i - 32u)) & 1u;
            } else {
                bit = (ml >> i) & 1u;
            }
        } else {
            z = z + 1u;
        }
        // 2r + bit may pass 2^32 (r < c < 2^32): it is then >= c, and the
        // wrapped difference is the true one (< c).
        let top = r >> 31u;
        let r2 = (r << 1u) | bit;
        var qb = 0u;
        if (top == 1u || r2 >= c) {
            r = r2 - c;
            qb = 1u;
        } else {
            r = r2;
        }
        qh = (qh << 1u) | (ql >> 31u);
        ql = (ql << 1u) | qb;
        if (nsig > 0u || qb == 1u) {
            nsig = nsig + 1u;
        }
        if (nsig == 54u) {
            break;
        }
    }
    // 54 bits: drop the round bit, round to nearest even.
    let round = ql & 1u;
    var mlo = (ql >> 1u) | (qh << 31u);
    var mhi = qh >> 1u;
    if (round == 1u && (r != 0u || (mlo & 1u) == 1u)) {
        mlo = mlo + 1u;
        if (mlo == 0u) {
            mhi = mhi + 1u;                          // up to 2^53: still exact
        }
    }
    return vec3<u32>(mhi, mlo, z);
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
        dst[GUARD / 2u + i] = quot(upv[o], max(atomicLoad(&cnt[o]), 1u), up[2u * o], hi);
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
