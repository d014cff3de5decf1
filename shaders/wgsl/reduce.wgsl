//! uses: dtype.wgsl segs.wgsl
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
// `bulk` replaces the first sum level of a long contiguous segment (below;
// `bulk_seq` computes its partials without workgroup memory).
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
// pout: partials as atomics (`bulk_last` reads other workgroups' partials
// and counts them at pout[C]); the other entries only store theirs.
@group(0) @binding(3) var<storage, read_write> pout: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> dst: array<u32>;
// x as 16-byte units (the `rows` kernel's loads); the same buffer as x.
@group(0) @binding(5) var<storage, read> x4: array<vec4<u32>>;

var<workgroup> shs: array<f32, 256>;
var<workgroup> shv: array<u32, 256>;
var<workgroup> shi: array<u32, 256>;

// The workgroup's 256 values v summed by the shared-memory tree (call in
// uniform control flow; every thread returns the total). Four barriers
// instead of eight: each step adds four values as two levels of the
// binary tree that pairs lid with lid + 128, then lid + 64, …, 1 —
// (a + c) + (b + d) for the quarter-strided a, b, c, d — so the sum is
// that tree's, bit for bit, depth 8.
fn tree_sum(lid: u32, v: f32) -> f32 {
    sum_steps(lid, v);
    workgroupBarrier();
    let total = shs[0];
    workgroupBarrier();
    return total;
}

// The tree's steps: the total ends in shs[0], written by thread 0.
fn sum_steps(lid: u32, v: f32) {
    shs[lid] = v;
    for (var q = W / 4u; q > 0u; q = q / 4u) {
        workgroupBarrier();
        if (lid < q) {
            shs[lid] = (shs[lid] + shs[lid + 2u * q]) + (shs[lid + q] + shs[lid + 3u * q]);
        }
    }
}

// tree_sum's total in thread 0 alone (other threads return 0), without
// its closing barriers: for a workgroup's last tree, whose result only
// thread 0 writes. The same adds in the same order. (LB = 0, Go-prepended:
// tree_sum itself, for side-by-side measurement.)
fn tree_sum0(lid: u32, v: f32) -> f32 {
    if (LB == 0u) {
        return tree_sum(lid, v);
    }
    sum_steps(lid, v);
    var total = 0.0;
    if (lid == 0u) {
        total = shs[0];                       // thread 0's own last write
    }
    return total;
}

// The tree's steps: the winner ends in shv[0] / shi[0], written by thread
// 0.
fn pick_steps(lid: u32, c: vec2<u32>, keyed: bool) {
    shv[lid] = c.x;
    shi[lid] = c.y;
    for (var q = W / 4u; q > 0u; q = q / 4u) {
        workgroupBarrier();
        if (lid < q) {
            let c0 = vec2<u32>(shv[lid], shi[lid]);
            let c1 = vec2<u32>(shv[lid + q], shi[lid + q]);
            let c2 = vec2<u32>(shv[lid + 2u * q], shi[lid + 2u * q]);
            let c3 = vec2<u32>(shv[lid + 3u * q], shi[lid + 3u * q]);
            var a = pick(pick(c0, c1), pick(c2, c3));
            if (keyed) {
                a = kbest(kbest(c0, c1), kbest(c2, c3));
            }
            shv[lid] = a.x;
            shi[lid] = a.y;
        }
    }
}

// The best of the workgroup's 256 candidates, by the same four-step tree
// (either combine is associative and commutative): (value bits, index)
// pairs by `pick`, or with keyed set (key, index) pairs by `kbest`. It
// returns the winner's value (or key), known uniform, and leaves its index
// in tree_index: WGSL's uniformity analysis (Tint's, in browsers) tracks a
// returned vector as one value, and callers branch on the value between
// trees — a barrier after such a branch needs it uniform.
var<private> tree_index: u32;

fn tree_pick(lid: u32, c: vec2<u32>, keyed: bool) -> u32 {
    pick_steps(lid, c, keyed);
    let best = workgroupUniformLoad(&shv[0]);  // a barrier, then the load
    tree_index = shi[0];
    workgroupBarrier();
    return best;
}

// tree_pick's winner (and tree_index) in thread 0 alone (other threads
// return 0 and NONE), without its closing barriers, as tree_sum0.
fn tree_pick0(lid: u32, c: vec2<u32>, keyed: bool) -> u32 {
    if (LB == 0u) {
        return tree_pick(lid, c, keyed);
    }
    pick_steps(lid, c, keyed);
    var best = 0u;
    tree_index = NONE;
    if (lid == 0u) {
        best = shv[0];                        // thread 0's own last write
        tree_index = shi[0];
    }
    return best;
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
        let total = tree_sum0(lid, a + b);
        if (lid == 0u) {
            if (P[7] == 1u) {
                write_fused(seg, result_of(seg, total, vec2<u32>(0u, NONE)));
            } else {
                atomicStore(&pout[g], bitcast<u32>(total));
            }
        }
    } else {
        let a = pick(pick4(seg, base, k0), pick4(seg, base, k0 + 4u * W));
        let b = pick(pick4(seg, base, k0 + 8u * W), pick4(seg, base, k0 + 12u * W));
        let best = vec2<u32>(tree_pick0(lid, pick(a, b), false), tree_index);
        if (lid == 0u) {
            if (P[7] == 1u) {
                write_fused(seg, result_of(seg, 0.0, best));
            } else {
                atomicStore(&pout[2u * g], best.x);
                atomicStore(&pout[2u * g + 1u], best.y);
            }
        }
    }
}

// The last level writes the output itself (P[7] = 1; the host sets it when
// one workgroup is left per segment and no other segment shares its output
// word: f32 and index outputs, or a single half output).
fn write_fused(seg: u32, v: u32) {
    if (DT != 0u && FIN != 3u) {
        dst[GUARD] = put_lane(dst[GUARD], 0u, 16u, v);   // the one half: keep the lane past the end
        return;
    }
    dst[GUARD + seg] = v;
}

// `bulk`: the first sum level of a long contiguous segment (the host takes
// it when the reduced elements are contiguous, start on a 16-byte unit and
// K is large). One workgroup folds BCH = RB·CH elements: thread lid loads
// the BU = BCH/(LU·W) units c0 + lid + j·W (LU elements each, 16-byte
// loads, all issued before any is used: units_sum, RE = BU for this entry)
// and adds them as a perfect pairwise tree (lanes, then j: depth
// log2(BCH/W) = 7 + log2 RB), then the shared-memory tree (depth 8): each
// element goes through 15 additions for RB = 8, one partial per BCH
// elements. RB (a power of two) is Go-prepended.
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
    if (OP == 0u) {
        let total = tree_sum0(lid, units_sum(b, u, K));
        if (lid == 0u) {
            atomicStore(&pout[g], bitcast<u32>(total));
        }
        return;
    }
    // Extrema: the best (key, k) of the thread's units, the keyed tree,
    // then the winner's own bits as the (value bits, index) partial the
    // next level picks from (a chunk of NaNs only: no candidate).
    let best = tree_pick0(lid, units_pick(b, u, K), true);
    if (lid == 0u) {
        var v = vec2<u32>(0u, NONE);
        if (best != 0u) {
            v = vec2<u32>(load_bits(seg_base(seg) + tree_index), tree_index);
        }
        atomicStore(&pout[2u * g], v.x);
        atomicStore(&pout[2u * g + 1u], v.y);
    }
}

// `bulk_seq`: `bulk`'s partials (sums and extrema), each computed by one
// invocation (taken where a workgroup is SIMD lanes of a few host cores: the
// browser's SwiftShader, threadsOverTrees). Invocation g does what
// workgroup g of `bulk` does — the units_sum (units_pick) of each of the W
// threads, then sum_steps' (pick_steps' keyed) tree over them — with the
// same operations in the same order, in private arrays instead of
// workgroup memory: no barriers, which there cost more than the loads.
// Measurements: docs/perf/gpu-reductions.md.
const SW: u32 = 16u;     // invocations per `bulk_seq` workgroup

@compute @workgroup_size(16)
fn bulk_seq(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let g = group_id(wid, nwg) * SW + lid;
    let C = P[3];
    if (g >= P[0] * C) { return; }
    let seg = g / C;
    let K = P[1];
    let b = seg_base(seg) / LU;
    let u = (g % C) * (BCH / LU);
    if (OP == 0u) {
        var v: array<f32, W>;
        for (var t = 0u; t < W; t = t + 1u) {
            v[t] = units_sum(b, u + t, K);
        }
        for (var q = W / 4u; q > 0u; q = q / 4u) {
            for (var t = 0u; t < q; t = t + 1u) {
                v[t] = (v[t] + v[t + 2u * q]) + (v[t + q] + v[t + 3u * q]);
            }
        }
        atomicStore(&pout[g], bitcast<u32>(v[0]));
        return;
    }
    // Extrema: each thread's best (key, k), pick_steps' keyed tree, then
    // the winner's own bits, as `bulk` stores them.
    var kv: array<u32, W>;
    var ki: array<u32, W>;
    for (var t = 0u; t < W; t = t + 1u) {
        let c = units_pick(b, u + t, K);
        kv[t] = c.x;
        ki[t] = c.y;
    }
    for (var q = W / 4u; q > 0u; q = q / 4u) {
        for (var t = 0u; t < q; t = t + 1u) {
            let c0 = vec2<u32>(kv[t], ki[t]);
            let c1 = vec2<u32>(kv[t + q], ki[t + q]);
            let c2 = vec2<u32>(kv[t + 2u * q], ki[t + 2u * q]);
            let c3 = vec2<u32>(kv[t + 3u * q], ki[t + 3u * q]);
            let a = kbest(kbest(c0, c1), kbest(c2, c3));
            kv[t] = a.x;
            ki[t] = a.y;
        }
    }
    var w = vec2<u32>(0u, NONE);
    if (kv[0] != 0u) {
        w = vec2<u32>(load_bits(seg_base(seg) + ki[0]), ki[0]);
    }
    atomicStore(&pout[2u * g], w.x);
    atomicStore(&pout[2u * g + 1u], w.y);
}

// The best (key, k) candidate of the RE units u + j·W of the segment
// starting at unit b (elements at or past K skipped), as units_sum takes
// them: in BS groups, a group's loads all issued before any is used. The
// thread's k ascend, so a strictly larger key wins and a tie keeps the
// first (okey: NaN is 0, never better; -0 and +0 tie).
fn units_pick(b: u32, u: u32, K: u32) -> vec2<u32> {
    var bk = 0u;
    var bi = NONE;
    for (var g = 0u; g < BS; g = g + 1u) {
        var w = unit_group(b, u, K, g);
        for (var j = 0u; j < RES; j = j + 1u) {
            let k0 = (u + (g * RES + j) * W) * LU;
            for (var l = 0u; l < LU; l = l + 1u) {
                if (k0 + l < K) {
                    let key = okey(ulane(w[j], l));
                    if (key > bk) {
                        bk = key;
                        bi = k0 + l;
                    }
                }
            }
        }
    }
    return vec2<u32>(bk, bi);
}

// `bulk_last`: `bulk` for a single segment whose C partials one `level`
// workgroup folds (C <= CH), in one dispatch instead of two. Each
// workgroup stores its partial; the workgroup whose increment of the
// counter at pout[C] finds C - 1 (the last to finish) folds all C partials
// as that `level` workgroup would — the same adds in the same order — and
// writes the output as a fused level does, then resets the counter (so a
// timing repeat of the dispatch starts from 0 again). Partials and counter
// are atomics, and a storage barrier (device-scope acquire-release) stands
// between a workgroup's partial and its increment, and between the last
// increment and the reads of the partials.
var<workgroup> slast: u32;

@compute @workgroup_size(256)
fn bulk_last(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let g = group_id(wid, nwg);
    let C = P[3];
    if (g >= C) { return; }                  // uniform: the whole workgroup leaves
    let K = P[1];
    let total = tree_sum0(lid, units_sum(seg_base(0u) / LU, g * (BCH / LU) + lid, K));
    if (lid == 0u) {
        atomicStore(&pout[g], bitcast<u32>(total));
    }
    storageBarrier();
    if (lid == 0u) {
        slast = select(0u, 1u, atomicAdd(&pout[C], 1u) == C - 1u);
    }
    if (workgroupUniformLoad(&slast) == 0u) {
        return;
    }
    storageBarrier();
    let a = last4(lid, C) + last4(lid + 4u * W, C);
    let b = last4(lid + 8u * W, C) + last4(lid + 12u * W, C);
    let sum = tree_sum0(lid, a + b);
    if (lid == 0u) {
        write_fused(0u, result_of(0u, sum, vec2<u32>(0u, NONE)));
        atomicStore(&pout[C], 0u);
    }
}

// Partial k of bulk_last's C, or an exact zero past them (as sum_item).
fn last_item(k: u32, C: u32) -> f32 {
    if (k >= C) { return 0.0; }
    return bitcast<f32>(atomicLoad(&pout[k]));
}

// Four partials W apart, combined pairwise (as sum4).
fn last4(k: u32, C: u32) -> f32 {
    return (last_item(k, C) + last_item(k + W, C)) + (last_item(k + 2u * W, C) + last_item(k + 3u * W, C));
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
    // One collapsed axis (the common case): element k is at base + k·st,
    // walked by adding st rather than by seg_off(k) per element. The loops
    // are written twice on purpose: one loop choosing its address per
    // element was slower on SwiftShader (docs/perf/gpu-reductions.md).
    let one = P[6] == 1u;
    let st = P[32];
    // A contiguous segment starting on a 16-byte unit is read a unit at a
    // time (x4), its lanes taken in k order, which is faster on
    // SwiftShader (docs/perf/gpu-reductions.md).
    let units = one && st == 1u && base % LU == 0u;
    let ku = select(0u, K / LU, units);
    if (OP == 0u) {
        var acc = 0.0;
        if (units) {
            for (var i = 0u; i < ku; i = i + 1u) {
                let w = x4[base / LU + i];
                for (var l = 0u; l < LU; l = l + 1u) {
                    acc = acc + widen(ulane(w, l));
                }
            }
            for (var k = ku * LU; k < K; k = k + 1u) {
                acc = acc + widen(load_bits(base + k));
            }
        } else if (one) {
            var e = base;
            for (var k = 0u; k < K; k = k + 1u) {
                acc = acc + bitcast<f32>(wide(load_bits(e)));
                e = e + st;
            }
        } else {
            for (var k = 0u; k < K; k = k + 1u) {
                acc = acc + bitcast<f32>(wide(load_bits(base + seg_off(k))));
            }
        }
        return result_of(seg, acc, vec2<u32>(0u, NONE));
    }
    // Extrema on integer keys (okey: NaN never better, -0 and +0 tie): a
    // strictly larger key wins, so on a tie the first k keeps it, and the
    // winner's own bits (a -0 stays -0) are read back once at the end.
    var bk = 0u;
    var bi = NONE;
    if (units) {
        for (var i = 0u; i < ku; i = i + 1u) {
            let w = x4[base / LU + i];
            for (var l = 0u; l < LU; l = l + 1u) {
                let key = okey(ulane(w, l));
                if (key > bk) {
                    bk = key;
                    bi = i * LU + l;
                }
            }
        }
        for (var k = ku * LU; k < K; k = k + 1u) {
            let key = okey(load_bits(base + k));
            if (key > bk) {
                bk = key;
                bi = k;
            }
        }
    } else if (one) {
        var e = base;
        for (var k = 0u; k < K; k = k + 1u) {
            let key = okey(load_bits(e));
            if (key > bk) {
                bk = key;
                bi = k;
            }
            e = e + st;
        }
    } else {
        for (var k = 0u; k < K; k = k + 1u) {
            let key = okey(load_bits(base + seg_off(k)));
            if (key > bk) {
                bk = key;
                bi = k;
            }
        }
    }
    if (bi == NONE) {
        return result_of(seg, 0.0, vec2<u32>(0u, NONE));
    }
    return result_of(seg, 0.0, vec2<u32>(load_bits(base + seg_off(bi)), bi));
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
// folds the units lid + j·W, j < RE: sums pairwise over the lanes of a unit
// (depth log2 LU), then over j (depth log2 RE), then the shared-memory tree
// (depth 8). Units past the segment are exact zeros, and adding an exact
// zero rounds nothing, so an element takes part in at most
// log2(LU·RE·W) = ceil(log2 K) rounded additions, RE the smallest power of
// two with RE·W units covering K. Extrema compare integer keys (NaN: 0,
// never better; -0 as +0): a strictly larger key wins and, on equal keys,
// the smaller k — the first element equal to the extremum, whose own bits
// (a -0 stays -0) are then read back from x. Tried and slower on the
// H200: fewer workgroups each taking every G-th row and loading the next
// row while folding the current one, and smaller workgroups whose threads
// each stand for several of this fold's. Measurements:
// docs/perf/gpu-reductions.md.

// Unit w of x (a vec4 of words, already loaded) as LU summands, added
// pairwise; elements at or past K (k0 = the unit's first k) are exact zeros.
fn unit_sum(w: vec4<u32>, k0: u32, K: u32) -> f32 {
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

// The RE units u + j·W of the segment starting at unit b, each added over
// its lanes, then pairwise over j (depth log2 RE); elements at or past K
// are exact zeros. They go in BS groups of RE/BS consecutive j (BS a
// power of two, Go-prepended), each a subtree of that pairwise tree: a
// group's loads are all issued before any is used.
const RES: u32 = RE / BS;

// Group g of those units, j = g·RES .. g·RES + RES - 1, all loads issued
// before any is used; a unit at or past K stays zero.
fn unit_group(b: u32, u: u32, K: u32, g: u32) -> array<vec4<u32>, RES> {
    var w: array<vec4<u32>, RES>;
    for (var j = 0u; j < RES; j = j + 1u) {
        if ((u + (g * RES + j) * W) * LU < K) {
            w[j] = x4[b + u + (g * RES + j) * W];
        }
    }
    return w;
}

fn units_sum(b: u32, u: u32, K: u32) -> f32 {
    var parts: array<f32, BS>;
    for (var g = 0u; g < BS; g = g + 1u) {
        var w = unit_group(b, u, K, g);
        var v: array<f32, RES>;
        for (var j = 0u; j < RES; j = j + 1u) {
            v[j] = unit_sum(w[j], (u + (g * RES + j) * W) * LU, K);
        }
        for (var h = 1u; h < RES; h = h * 2u) {
            for (var j = 0u; j < RES; j = j + 2u * h) {
                v[j] = v[j] + v[j + h];
            }
        }
        parts[g] = v[0];
    }
    for (var h = 1u; h < BS; h = h * 2u) {
        for (var g = 0u; g < BS; g = g + 2u * h) {
            parts[g] = parts[g] + parts[g + h];
        }
    }
    return parts[0];
}

// The two halves of a word, added.
fn hsum(v: u32) -> f32 {
    return widen(v & 0xffffu) + widen(v >> 16u);
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

// The better of two (key, k) candidates: the larger key, on equal keys the
// smaller k.
fn kbest(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (b.x > a.x || (b.x == a.x && b.y < a.y)) { return b; }
    return a;
}

// Segment seg folded by the whole workgroup (call in uniform control
// flow); every thread returns the result bits. Thread lid loads its RE
// units lid + j·W (RE Go-prepended: the smallest power of two with RE·W
// units covering K), all issued before any is used.
fn fold_row(seg: u32, lid: u32, last: bool) -> u32 {
    let K = P[1];
    let KU = K / LU;
    let b = seg_base(seg) / LU;
    if (OP == 0u) {
        var sum = 0.0;
        if (last) {
            sum = tree_sum0(lid, units_sum(b, lid, K));
        } else {
            sum = tree_sum(lid, units_sum(b, lid, K));
        }
        return result_of(seg, sum, vec2<u32>(0u, NONE));
    }
    var w: array<vec4<u32>, RE>;
    for (var j = 0u; j < RE; j = j + 1u) {
        if (lid + j * W < KU) {
            w[j] = x4[b + lid + j * W];
        }
    }
    if (FIN == 2u) {
        // The extremum's value needs no index: the largest key (an integer
        // max per element), inverted, unless it is a zero's (whose sign
        // the key does not hold) — then the first zero's own bits.
        var mk = 0u;
        for (var j = 0u; j < RE; j = j + 1u) {
            if (lid + j * W < KU) {
                for (var l = 0u; l < LU; l = l + 1u) {
                    mk = max(mk, okey(ulane(w[j], l)));
                }
            }
        }
        let best = tree_pick(lid, vec2<u32>(mk, 0u), true);
        if (best == 0u) {
            return result_of(seg, 0.0, vec2<u32>(0u, NONE));
        }
        if (best != okey(0u)) {
            if (DT == 0u) {
                return unkey(best);
            }
            return narrow(bitcast<f32>(unkey(best)));  // exact: a value of the dtype
        }
    }
    var bk = 0u;
    var bi = NONE;
    for (var j = 0u; j < RE; j = j + 1u) {
        let u = lid + j * W;
        if (u < KU) {
            for (var l = 0u; l < LU; l = l + 1u) {
                let k = okey(ulane(w[j], l));
                if (k > bk) {
                    bk = k;
                    bi = u * LU + l;
                }
            }
        }
    }
    var bestk = 0u;
    if (last) {
        bestk = tree_pick0(lid, vec2<u32>(bk, bi), true);
    } else {
        bestk = tree_pick(lid, vec2<u32>(bk, bi), true);
    }
    let besti = tree_index;
    if (bestk == 0u) {
        return result_of(seg, 0.0, vec2<u32>(0u, NONE));
    }
    return result_of(seg, 0.0, vec2<u32>(load_bits(seg_base(seg) + besti), besti));
}

// The wide f32 bits of a non-NaN, nonzero value's key (okey inverted); a
// zero's sign is not in its key.
fn unkey(k: u32) -> u32 {
    var f = k;
    if (OP != 1u) { f = ~k; }
    if ((f & 0x80000000u) != 0u) { return f & 0x7fffffffu; }
    return ~f;
}

// Also slower on the H200, at full and at lowered clocks: a workgroup
// folding 2, 4 or 8 consecutive segments, the next one's loads issued
// before the current one's tree (docs/perf/gpu-reductions.md).
@compute @workgroup_size(256)
fn rows(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = group_id(wid, nwg);                       // output word
    let n = P[0];
    let half_out = DT != 0u && FIN != 3u;
    if (!half_out) {
        if (g >= n) { return; }                      // uniform
        let v = fold_row(g, lid, true);
        if (lid == 0u) {
            dst[GUARD + g] = v;
        }
        return;
    }
    let first = 2u * g;
    if (first >= n) { return; }                      // uniform
    if (first + 1u < n) {                            // uniform
        let lo = fold_row(first, lid, false);
        let hi = fold_row(first + 1u, lid, true);
        if (lid == 0u) {
            dst[GUARD + g] = lo | (hi << 16u);
        }
    } else {
        let lo = fold_row(first, lid, true);
        if (lid == 0u) {
            dst[GUARD + g] = put_lane(dst[GUARD + g], 0u, 16u, lo);  // keep the lane past the end
        }
    }
}
