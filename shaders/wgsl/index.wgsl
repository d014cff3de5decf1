//! uses: split3.wgsl
// index.wgsl — this project's data movers: index_select (and embedding,
// which is index_select along dim 0) and gather, and the bounds check that
// every index kernel runs first (the adds are index_add.wgsl).
//
// Specialisation: EB (element bytes 2|4|8), GB (gather_rows' words per
// thread per round), EPT (the movers' elements per thread).
//
// Bounds: `check` (one thread per index element) records the smallest flat
// position p with idx[p] >= bound in err[0] (atomicMin), which is the first
// bad index in flat order, the one the CPU path reports. The kernels also
// re-check every index they use and never read with a bad one (no clamping,
// no zero reads): the host turns err[0] into the CPU path's error.
//
// Movers write one element per thread (one word per thread for 2-byte
// elements).

// Fast path (P[6] = I != 0): the shapes agree on every axis but dim, and
// split3.wgsl gives an output element's (outer, along dim, inner).

@group(0) @binding(0) var<storage, read> P: array<u32>;
// P: [n_out, rank, dim, n_idx, bound, len, I (fast path) or 0, J, A[8] (data/base shape), B[8] (indices/src shape), O[8] (out shape)]
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;
@group(0) @binding(4) var<storage, read_write> err: array<atomic<u32>>;

fn bad(pos: u32) {
    atomicMin(&err[0], pos);
}

@compute @workgroup_size(256)
fn check(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let p = thread_id(wid, nwg, lid);
    if (p >= P[3]) { return; }
    if (idx[p] >= P[4]) {
        bad(p);
    }
}

// Flat offset in a tensor of shape S (at P[s0..]) of the coordinates of e
// in shape O (at P[o0..]), with axis `dim` replaced by v.
fn remap(e: u32, o0: u32, s0: u32, v: u32) -> u32 {
    let rank = P[1];
    let dim = P[2];
    var r = e;
    var off = 0u;
    var stride = 1u;
    for (var a = i32(rank) - 1; a >= 0; a = a - 1) {
        let ax = u32(a);
        let n = P[o0 + ax];
        var c = r % n;
        r = r / n;
        if (ax == dim) {
            c = v;
        }
        off = off + c * stride;
        stride = stride * P[s0 + ax];
    }
    return off;
}

// Coordinate of e along `dim` in shape O (at P[o0..]).
fn coord_dim(e: u32, o0: u32) -> u32 {
    let rank = P[1];
    let dim = P[2];
    var r = e;
    for (var a = i32(rank) - 1; a > i32(dim); a = a - 1) {
        r = r / P[o0 + u32(a)];
    }
    return r % P[o0 + dim];
}


// Data element index feeding output element e (NONE after a bad index).
fn mover_source(e: u32, gather: bool) -> u32 {
    if (P[6] != 0u) {
        let s = split3(e);
        var pos = s.y;                        // index_select: rank-1 indices
        if (gather) {
            pos = e;                          // indices has the output's shape
        }
        let v = idx[pos];
        if (v >= P[4]) {
            bad(pos);
            return NONE;
        }
        return (s.x * P[4] + v) * P[6] + s.z;
    }
    var pos = 0u;
    if (gather) {
        pos = e;                              // indices has the output's shape
    } else {
        pos = coord_dim(e, 24u);              // index_select: rank-1 indices
    }
    let v = idx[pos];
    if (v >= P[4]) {
        bad(pos);
        return NONE;
    }
    return remap(e, 24u, 8u, v);
}

fn move_elems(t: u32, gather: bool) {
    let n = P[0];
    if (EB == 4u) {
        if (t >= n) { return; }
        let s = mover_source(t, gather);
        if (s != NONE) { dst[GUARD + t] = data[s]; }
    } else if (EB == 8u) {
        if (t >= n) { return; }
        let s = mover_source(t, gather);
        if (s != NONE) {
            dst[GUARD + 2u * t] = data[2u * s];
            dst[GUARD + 2u * t + 1u] = data[2u * s + 1u];
        }
    } else {
        let first = 2u * t;
        if (first >= n) { return; }
        var word = 0u;
        if (first + 2u > n) {
            word = dst[GUARD + t];
        }
        for (var l = 0u; l < 2u; l = l + 1u) {
            let e = first + l;
            if (e >= n) { break; }
            let s = mover_source(e, gather);
            if (s != NONE) {
                word = put_lane(word, l, 16u, (data[s >> 1u] >> ((s & 1u) * 16u)) & 0xffffu);
            }
        }
        dst[GUARD + t] = word;
    }
}

// A thread moves EPT consecutive elements (words for 2-byte elements).
// EPT is Go-prepended: 1 on a GPU (neighbouring threads, neighbouring
// addresses); more where a workgroup is SIMD lanes of a few host cores
// (threadsOverTrees), to spread each invocation's fixed cost.
@compute @workgroup_size(256)
fn index_select(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid) * EPT;
    for (var k = 0u; k < EPT; k = k + 1u) {
        move_elems(t + k, false);
    }
}

@compute @workgroup_size(256)
fn gather(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid) * EPT;
    for (var k = 0u; k < EPT; k = k + 1u) {
        move_elems(t + k, true);
    }
}

// ---- rows staged in workgroup memory (dim last, I = 1) ----
//
// gather along the last axis reads its row of data at random positions:
// one workgroup per output row first copies that row into workgroup memory
// with coalesced loads, then gathers from it. Taken when a row is at most
// SROW words and starts on a word, and J/(W·per) within the loop budget
// (the host checks).
// Indices are checked as everywhere: a bad one is never used, its position
// goes to err[0].

const SROW: u32 = 4096u;                    // words: 16 KiB, WebGPU's default limit
var<workgroup> srow: array<u32, SROW>;

// Element k of the staged row (a half in the low 16 bits when half).
fn staged(k: u32, half: bool) -> u32 {
    if (!half) { return srow[k]; }
    return (srow[k >> 1u] >> ((k & 1u) * 16u)) & 0xffffu;
}

// A thread moves GB words per round, all loads issued before any is used
// (a load followed at once by its use would wait out the memory latency
// once per word).
// GB is Go-prepended.
const GB2: u32 = 2u * GB;                   // the indices of GB words of halves

// Copies `words` words of data, starting at word w0, into srow; ends
// with a barrier.
fn stage(w0: u32, words: u32, lid: u32) {
    for (var r = lid; r < words; r = r + GB * W) {
        var t: array<u32, GB>;
        for (var i = 0u; i < GB; i = i + 1u) {
            if (r + i * W < words) {
                t[i] = data[w0 + r + i * W];
            }
        }
        for (var i = 0u; i < GB; i = i + 1u) {
            if (r + i * W < words) {
                srow[r + i * W] = t[i];
            }
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(256)
fn gather_rows(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let o = group_id(wid, nwg);               // output row
    let J = P[7];
    let D = P[4];
    if (o * J >= P[0]) { return; }            // uniform
    let per = 4u / EB;                        // elements per word (EB 2 or 4)
    stage(o * (D / per), D / per, lid);
    let words = J / per;
    for (var r = lid; r < words; r = r + GB * W) {
        var iv: array<u32, GB2>;               // the round's indices, per per word
        for (var i = 0u; i < GB; i = i + 1u) {
            if (r + i * W < words) {
                for (var l = 0u; l < per; l = l + 1u) {
                    iv[i * per + l] = idx[o * J + (r + i * W) * per + l];
                }
            }
        }
        for (var i = 0u; i < GB; i = i + 1u) {
            let w = r + i * W;
            if (w < words) {
                var word = 0u;
                for (var l = 0u; l < per; l = l + 1u) {
                    let v = iv[i * per + l];
                    if (v >= D) {
                        bad(o * J + w * per + l);
                    } else {
                        word = word | (staged(v, EB == 2u) << (l * 16u));
                    }
                }
                dst[GUARD + o * words + w] = word;
            }
        }
    }
}
