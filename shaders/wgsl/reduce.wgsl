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
// it when the reduced elements are contiguous and K is large). One
// workgroup folds BCH = RB·CH elements: thread lid loads 16·RB elements W
// apart, k = c0 + lid + j·W, j = 0..16·RB-1, all loads independent, and
// adds them as a perfect pairwise tree over j (depth 4 + log2 RB), then the
// shared-memory tree (depth 8): each element goes through 12 + log2 RB
// additions, one partial per BCH elements. RB (a power of two) is
// Go-prepended.
const BCH: u32 = CH * RB;

fn bsum1(base: u32, k: u32, K: u32) -> f32 {
    if (k >= K) { return 0.0; }
    return bitcast<f32>(wide(load_bits(base + k)));
}

fn bsum4(base: u32, k: u32, K: u32) -> f32 {
    return (bsum1(base, k, K) + bsum1(base, k + W, K)) +
           (bsum1(base, k + 2u * W, K) + bsum1(base, k + 3u * W, K));
}

// 16 elements W apart (one "round", CH elements per workgroup).
fn bsum16(base: u32, k: u32, K: u32) -> f32 {
    return (bsum4(base, k, K) + bsum4(base, k + 4u * W, K)) +
           (bsum4(base, k + 8u * W, K) + bsum4(base, k + 12u * W, K));
}

fn bsum32(base: u32, k: u32, K: u32) -> f32 {
    return bsum16(base, k, K) + bsum16(base, k + CH, K);
}

fn bsum64(base: u32, k: u32, K: u32) -> f32 {
    return bsum32(base, k, K) + bsum32(base, k + 2u * CH, K);
}

fn bsum128(base: u32, k: u32, K: u32) -> f32 {
    return bsum64(base, k, K) + bsum64(base, k + 4u * CH, K);
}

fn bsum256(base: u32, k: u32, K: u32) -> f32 {
    return bsum128(base, k, K) + bsum128(base, k + 8u * CH, K);
}

fn bsum(base: u32, k: u32, K: u32) -> f32 {
    if (RB == 2u) { return bsum32(base, k, K); }
    if (RB == 4u) { return bsum64(base, k, K); }
    if (RB == 8u) { return bsum128(base, k, K); }
    if (RB == 16u) { return bsum256(base, k, K); }
    return bsum16(base, k, K);
}

@compute @workgroup_size(256)
fn bulk(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = group_id(wid, nwg);
    let C = P[3];
    if (g >= P[0] * C) { return; }          // uniform: the whole workgroup leaves
    let seg = g / C;
    let K = P[1];
    shs[lid] = bsum(seg_base(seg), (g % C) * BCH + lid, K);
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
