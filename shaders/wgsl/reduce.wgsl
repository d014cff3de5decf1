//! uses: dtype.wgsl
// reduce.wgsl — this project's reductions (contracts/project/fkc-wgsl-kernels.fkc.md):
// sum/max/min/mean over all elements or one dim, argmax/argmin along a dim,
// reduce_sum_to / reduce_max_to, and the max pass of reduce_max_to_backward.
//
// Specialisation: DT (0 f32, 1 f16, 2 bf16), OP (0 sum, 1 max, 2 min),
// FIN (0 sum, 1 mean, 2 extremum value, 3 arg index).
//
// Every reduction is a segmented one: output `seg` folds the K input elements
// x[base(seg) + off(k)], k = 0..K-1, where base walks the kept axes and off
// the reduced ("collapsed") axes, both row-major, so k increases with the
// input flat index inside a segment (the host merges contiguous axes).
//
// `level` (one workgroup per chunk of CH = 16·W elements of one segment):
// each thread loads 16 elements W apart (coalesced, all loads independent)
// and combines them pairwise (depth 4), then a shared-memory tree; the
// host repeats levels over the partials until one partial per segment is
// left, then `finalize` (one thread per output word) writes the result.
// `bulk` replaces the first sum level of a long contiguous segment (below).
// `seq` is the short-segment path: one thread folds a whole segment in k order.
//
// Sums accumulate in f32 (halves widened exactly, narrowed once at the end).
// Max/min/arg work on (value bits, k) pairs compared with integer IEEE
// compares: the strictly greater (smaller) value wins, equal values -> the
// smaller k, NaN never enters. That combine is associative and commutative
// and reproduces the oracle's sequential strict-compare scan exactly (signed
// zeros included): the result is the first element equal to the extremum;
// no candidate (empty / all-NaN) -> the ∓inf seed.

const CH: u32 = 4096u;   // elements per workgroup per level (16 per thread)

@group(0) @binding(0) var<storage, read> P: array<u32>;
// P: [n_seg, K, Kcur, C, level0, nk, nc, 0, ksize[8], kstride[8], csize[8], cstride[8]]
@group(0) @binding(1) var<storage, read> x: array<u32>;
@group(0) @binding(2) var<storage, read> pin: array<u32>;
@group(0) @binding(3) var<storage, read_write> pout: array<u32>;
@group(0) @binding(4) var<storage, read_write> dst: array<u32>;
// x as 16-byte units (the `rows` kernel's loads); the same buffer as x.
@group(0) @binding(5) var<storage, read> x4: array<vec4<u32>>;

var<workgroup> shs: array<f32, 256>;
var<workgroup> shv: array<u32, 256>;
var<workgroup> shi: array<u32, 256>;

fn seg_base(seg: u32) -> u32 {
    var off = 0u;
    var r = seg;
    for (var a = i32(P[5]) - 1; a >= 0; a = a - 1) {
        let s = P[8u + u32(a)];
        off = off + (r % s) * P[16u + u32(a)];
        r = r / s;
    }
    return off;
}

fn seg_off(k: u32) -> u32 {
    let nc = P[6];
    if (nc == 1u) {
        return k * P[32];
    }
    var off = 0u;
    var q = k;
    for (var a = i32(nc) - 1; a >= 0; a = a - 1) {
        let s = P[24u + u32(a)];
        off = off + (q % s) * P[32u + u32(a)];
        q = q / s;
    }
    return off;
}

// Raw element bits (16-bit halves in the low bits).
fn load_bits(e: u32) -> u32 {
    if (DT == 0u) {
        return x[e];
    }
    return (x[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu;
}

fn seed_bits() -> u32 {
    // OP 1 (max): -inf; OP 2 (min): +inf, in the dtype.
    if (DT == 0u) {
        return select(0x7f800000u, 0xff800000u, OP == 1u);
    }
    if (DT == 1u) {
        return select(0x7c00u, 0xfc00u, OP == 1u);
    }
    return select(0x7f80u, 0xff80u, OP == 1u);
}

// Is candidate b better than a? (NONE index = no candidate.)
fn better(va: u32, ia: u32, vb: u32, ib: u32) -> bool {
    if (ib == NONE) { return false; }
    if (ia == NONE) { return true; }
    let wa = wide(va);
    let wb = wide(vb);
    if (OP == 1u) {
        if (gt32(wb, wa)) { return true; }
        if (gt32(wa, wb)) { return false; }
    } else {
        if (gt32(wa, wb)) { return true; }
        if (gt32(wb, wa)) { return false; }
    }
    return ib < ia;
}

// One input of this level as an f32 summand.
fn sum_item(seg: u32, base: u32, k: u32) -> f32 {
    if (k >= P[2]) { return 0.0; }
    if (P[4] == 1u) {
        return bitcast<f32>(wide(load_bits(base + seg_off(k))));
    }
    return bitcast<f32>(pin[seg * P[2] + k]);
}

// One input of this level as a (value bits, index) candidate.
fn pair_item(seg: u32, base: u32, k: u32) -> vec2<u32> {
    if (k >= P[2]) { return vec2<u32>(0u, NONE); }
    if (P[4] == 1u) {
        let b = load_bits(base + seg_off(k));
        if (isnan32(wide(b))) { return vec2<u32>(0u, NONE); }
        return vec2<u32>(b, k);
    }
    let j = 2u * (seg * P[2] + k);
    return vec2<u32>(pin[j], pin[j + 1u]);
}

fn pick(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (better(a.x, a.y, b.x, b.y)) { return b; }
    return a;
}

// Four inputs W apart, combined pairwise.
fn sum4(seg: u32, base: u32, k: u32) -> f32 {
    return (sum_item(seg, base, k) + sum_item(seg, base, k + W)) +
           (sum_item(seg, base, k + 2u * W) + sum_item(seg, base, k + 3u * W));
}

fn pick4(seg: u32, base: u32, k: u32) -> vec2<u32> {
    return pick(pick(pair_item(seg, base, k), pair_item(seg, base, k + W)),
                pick(pair_item(seg, base, k + 2u * W), pair_item(seg, base, k + 3u * W)));
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
    var base = 0u;
    if (P[4] == 1u) {
        base = seg_base(seg);
    }
    if (OP == 0u) {
        let a = sum4(seg, base, k0) + sum4(seg, base, k0 + 4u * W);
        let b = sum4(seg, base, k0 + 8u * W) + sum4(seg, base, k0 + 12u * W);
        shs[lid] = a + b;
        for (var s = W / 2u; s > 0u; s = s >> 1u) {
            workgroupBarrier();
            if (lid < s) {
                shs[lid] = shs[lid] + shs[lid + s];
            }
        }
        if (lid == 0u) {
            pout[g] = bitcast<u32>(shs[0]);
        }
    } else {
        let a = pick(pick4(seg, base, k0), pick4(seg, base, k0 + 4u * W));
        let b = pick(pick4(seg, base, k0 + 8u * W), pick4(seg, base, k0 + 12u * W));
        let c = pick(a, b);
        shv[lid] = c.x;
        shi[lid] = c.y;
        for (var s = W / 2u; s > 0u; s = s >> 1u) {
            workgroupBarrier();
            if (lid < s) {
                if (better(shv[lid], shi[lid], shv[lid + s], shi[lid + s])) {
                    shv[lid] = shv[lid + s];
                    shi[lid] = shi[lid + s];
                }
            }
        }
        if (lid == 0u) {
            pout[2u * g] = shv[0];
            pout[2u * g + 1u] = shi[0];
        }
    }
}

// `bulk`: the first sum level of a long contiguous segment (the host takes
// it when the reduced elements are contiguous, start on a 16-byte unit and
// K is large). One workgroup folds BCH = RB·CH elements: thread lid loads
// the BCH/(LU·W) units c0 + lid + j·W (LU elements each, all loads
// independent and 16 bytes wide) and adds them as a perfect pairwise tree
// (lanes, then j: depth log2(BCH/W) = 7 + log2 RB), then the shared-memory
// tree (depth 8): each element goes through 15 additions for RB = 8, one
// partial per BCH elements. RB (a power of two) is Go-prepended.
const BCH: u32 = CH * RB;

@compute @workgroup_size(256)
fn bulk(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = group_id(wid, nwg);
    let C = P[3];
    if (g >= P[0] * C) { return; }          // uniform: the whole workgroup leaves
    let seg = g / C;
    let K = P[1];
    let b = seg_base(seg) / LU;
    let u = (g % C) * (BCH / LU) + lid;
    var v = 0.0;
    if (LU == 4u) {
        v = rs16(b, u, K) + rs16(b, u + 16u * W, K);   // 32 units: RB = 8, f32
    } else {
        v = rs16(b, u, K);                             // 16 units: RB = 8, halves
    }
    shs[lid] = v;
    for (var s = W / 2u; s > 0u; s = s >> 1u) {
        workgroupBarrier();
        if (lid < s) {
            shs[lid] = shs[lid] + shs[lid + s];
        }
    }
    if (lid == 0u) {
        pout[g] = bitcast<u32>(shs[0]);
    }
}

// The output element for segment seg from its reduced f32 sum or pair.
fn result_of(seg: u32, sum: f32, pr: vec2<u32>) -> u32 {
    let K = P[1];
    if (FIN == 0u) {
        return narrow(sum);
    }
    if (FIN == 1u) {
        if (K == 0u) {
            // Mean of nothing: a quiet NaN, written as bits in the dtype (a
            // bitcast of NaN is a constant expression that browsers' WGSL
            // compilers reject: "value nan cannot be represented as 'f32'").
            return select(select(0x7fc00000u, 0x7e00u, DT == 1u), 0x7fc0u, DT == 2u);
        }
        return narrow(sum / f32(K));
    }
    if (FIN == 2u) {
        if (pr.y == NONE) { return seed_bits(); }
        return pr.x;
    }
    // arg: the oracle seeds with element 0 and compares strictly, so a NaN
    // at k = 0 is never beaten, and no candidate at all also means 0.
    if (pr.y == NONE) { return 0u; }
    if (isnan32(wide(load_bits(seg_base(seg) + seg_off(0u))))) { return 0u; }
    return pr.y;
}

fn reduced_from_partials(seg: u32) -> u32 {
    if (OP == 0u) {
        return result_of(seg, bitcast<f32>(pin[seg]), vec2<u32>(0u, NONE));
    }
    return result_of(seg, 0.0, vec2<u32>(pin[2u * seg], pin[2u * seg + 1u]));
}

// Sequential fold of a whole segment in k order (short segments).
fn reduced_seq(seg: u32) -> u32 {
    let K = P[1];
    let base = seg_base(seg);
    if (OP == 0u) {
        var acc = 0.0;
        for (var k = 0u; k < K; k = k + 1u) {
            acc = acc + bitcast<f32>(wide(load_bits(base + seg_off(k))));
        }
        return result_of(seg, acc, vec2<u32>(0u, NONE));
    }
    var best = vec2<u32>(0u, NONE);
    for (var k = 0u; k < K; k = k + 1u) {
        let b = load_bits(base + seg_off(k));
        if (!isnan32(wide(b))) {
            best = pick(best, vec2<u32>(b, k));
        }
    }
    return result_of(seg, 0.0, best);
}

// Output writers: one thread per output word (2 half outputs per word).
fn write_out(t: u32, from_partials: bool) {
    let n = P[0];
    let half_out = DT != 0u && FIN != 3u;
    if (!half_out) {
        if (t >= n) { return; }
        if (from_partials) {
            dst[GUARD + t] = reduced_from_partials(t);
        } else {
            dst[GUARD + t] = reduced_seq(t);
        }
        return;
    }
    let first = 2u * t;
    if (first >= n) { return; }
    var word = 0u;
    if (first + 2u > n) {
        word = dst[GUARD + t];               // keep the lane past the end
    }
    for (var l = 0u; l < 2u; l = l + 1u) {
        let seg = first + l;
        if (seg >= n) { break; }
        var v = 0u;
        if (from_partials) {
            v = reduced_from_partials(seg);
        } else {
            v = reduced_seq(seg);
        }
        word = put_lane(word, l, 16u, v);
    }
    dst[GUARD + t] = word;
}

@compute @workgroup_size(256)
fn finalize(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    write_out(thread_id(wid, nwg, lid), true);
}

@compute @workgroup_size(256)
fn seq(@builtin(workgroup_id) wid: vec3<u32>,
       @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    write_out(thread_id(wid, nwg, lid), false);
}

// ---- `rows`: contiguous segments in one pass ----
//
// Taken when a segment's K reduced elements are consecutive in x and K is a
// whole number of 16-byte units (LU = 4 f32 or 8 halves per unit, Go-
// prepended), at most 16·W units, with many segments. One workgroup per
// output word (two segments for half outputs, folded one after the other)
// writes its result directly: no partials, no second pass. Thread lid
// folds the units lid + j·W, j < 16: sums pairwise over the lanes of a unit
// (depth log2 LU), then over j (depth 4), then the shared-memory tree
// (depth 8). Units past the segment are exact zeros, and adding an exact
// zero rounds nothing, so an element takes part in at most
// log2(LU·RE·W) = ceil(log2 K) rounded additions, RE the smallest power of
// two with RE·W units covering K. Extrema compare integer keys (NaN: 0,
// never better; -0 as +0): a strictly larger key wins and, on equal keys,
// the smaller k — the first element equal to the extremum, whose own bits
// (a -0 stays -0) are then read back from x.

// Unit u of x (a vec4 of words) as LU summands, added pairwise; elements
// at or past K (of the segment starting at unit b) are exact zeros.
fn usum(b: u32, u: u32, K: u32) -> f32 {
    let k0 = u * LU;
    if (k0 >= K) { return 0.0; }
    let w = x4[b + u];
    if (k0 + LU <= K) {
        if (DT == 0u) {
            return (bitcast<f32>(w.x) + bitcast<f32>(w.y)) + (bitcast<f32>(w.z) + bitcast<f32>(w.w));
        }
        return (hsum(w.x) + hsum(w.y)) + (hsum(w.z) + hsum(w.w));
    }
    var v = array<f32, 8>();                         // the segment's last, partial unit
    for (var l = 0u; l < LU; l = l + 1u) {
        if (k0 + l < K) {
            v[l] = widen(ulane(w, l));
        }
    }
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

// The two halves of a word, added.
fn hsum(v: u32) -> f32 {
    return widen(v & 0xffffu) + widen(v >> 16u);
}

// Units u, u + W, … (2, 4, 8, 16 of them) added pairwise.
fn rs2(b: u32, u: u32, K: u32) -> f32 {
    return usum(b, u, K) + usum(b, u + W, K);
}

fn rs4(b: u32, u: u32, K: u32) -> f32 {
    return rs2(b, u, K) + rs2(b, u + 2u * W, K);
}

fn rs8(b: u32, u: u32, K: u32) -> f32 {
    return rs4(b, u, K) + rs4(b, u + 4u * W, K);
}

fn rs16(b: u32, u: u32, K: u32) -> f32 {
    return rs8(b, u, K) + rs8(b, u + 8u * W, K);
}

// The ordering key of element bits (wide f32 bits): larger is better for
// OP (max: larger values; min: smaller values); 0 for NaN.
fn okey(bits: u32) -> u32 {
    var b = wide(bits);
    if (isnan32(b)) { return 0u; }
    if ((b & 0x7fffffffu) == 0u) { b = 0u; }          // -0 and +0 tie
    if (OP == 1u) { return fkey(b); }                  // -inf -> 0x007fffff > 0
    return ~fkey(b);                                   // +inf -> 0x007fffff > 0
}

// Lane l of a unit as element bits.
fn ulane(w: vec4<u32>, l: u32) -> u32 {
    if (DT == 0u) { return w[l]; }
    return (w[l >> 1u] >> ((l & 1u) * 16u)) & 0xffffu;
}

var<workgroup> shk: array<u32, 256>;

// Segment seg folded by the whole workgroup (call in uniform control
// flow); every thread returns the result bits.
fn fold_row(seg: u32, lid: u32) -> u32 {
    let K = P[1];
    let KU = K / LU;
    let b = seg_base(seg) / LU;
    if (OP == 0u) {
        shs[lid] = rs16(b, lid, K);
        for (var s = W / 2u; s > 0u; s = s >> 1u) {
            workgroupBarrier();
            if (lid < s) {
                shs[lid] = shs[lid] + shs[lid + s];
            }
        }
        workgroupBarrier();
        let sum = shs[0];
        workgroupBarrier();
        return result_of(seg, sum, vec2<u32>(0u, NONE));
    }
    var bk = 0u;
    var bi = NONE;
    for (var u = lid; u < KU; u = u + W) {
        let w = x4[b + u];
        for (var l = 0u; l < LU; l = l + 1u) {
            let k = okey(ulane(w, l));
            if (k > bk) {
                bk = k;
                bi = u * LU + l;
            }
        }
    }
    shk[lid] = bk;
    shi[lid] = bi;
    for (var s = W / 2u; s > 0u; s = s >> 1u) {
        workgroupBarrier();
        if (lid < s) {
            let k2 = shk[lid + s];
            let i2 = shi[lid + s];
            if (k2 > shk[lid] || (k2 == shk[lid] && i2 < shi[lid])) {
                shk[lid] = k2;
                shi[lid] = i2;
            }
        }
    }
    workgroupBarrier();
    let bestk = shk[0];
    let besti = shi[0];
    workgroupBarrier();
    if (bestk == 0u) {
        return result_of(seg, 0.0, vec2<u32>(0u, NONE));
    }
    return result_of(seg, 0.0, vec2<u32>(load_bits(seg_base(seg) + besti), besti));
}

@compute @workgroup_size(256)
fn rows(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = group_id(wid, nwg);                       // output word
    let n = P[0];
    let half_out = DT != 0u && FIN != 3u;
    if (!half_out) {
        if (g >= n) { return; }                      // uniform
        let v = fold_row(g, lid);
        if (lid == 0u) {
            dst[GUARD + g] = v;
        }
        return;
    }
    let first = 2u * g;
    if (first >= n) { return; }                      // uniform
    let lo = fold_row(first, lid);
    if (first + 1u < n) {                            // uniform
        let hi = fold_row(first + 1u, lid);
        if (lid == 0u) {
            dst[GUARD + g] = lo | (hi << 16u);
        }
    } else if (lid == 0u) {
        dst[GUARD + g] = put_lane(dst[GUARD + g], 0u, 16u, lo);  // keep the lane past the end
    }
}
