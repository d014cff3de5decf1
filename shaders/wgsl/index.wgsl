// index.wgsl — this project's indexing kernels: index_select (and embedding,
// which is index_select along dim 0), gather, index_add, scatter_add, and the
// bounds check every one of them runs first.
//
// Specialisation: EB (element bytes 2|4|8, data movers), DT (0 f32, 1 f16,
// 2 bf16; the adds).
//
// Bounds: `check` (one thread per index element) records the smallest flat
// position p with idx[p] >= bound in err[0] (atomicMin), which is the first
// bad index in flat order, the one the CPU path reports. The kernels also
// re-check every index they use and never read with a bad one (no clamping,
// no zero reads): the host turns err[0] into the CPU path's error.
//
// Movers write one element per thread (one word per thread for 2-byte
// elements). The adds are deterministic: one thread per output element
// folds its contributions in src flat order, in the dtype (halves: widen,
// add at f32, narrow with RNE after every add = the half-precision add),
// so they reproduce the oracle's sequential order exactly. Which src
// elements contribute to which output comes from a table, a stable counting
// sort of the indices built by the host (O(n), ascending src order in each
// bucket): index_add buckets src slices i by idx[i] (off[c]..off[c+1] over
// order = i ascending), scatter_add buckets src flat positions p by their
// target output element (off[e]..off[e+1] over order = p ascending). The
// add pass gets `off` at binding 6 and `order` in the `idx` slot (it reads
// no index itself: the `check` pass, bound to the real indices, does).

// Fast path (P[6] = I != 0): when the shapes agree on every axis but dim,
// an element is (outer o, coordinate c along dim, inner i) of the output,
// e = (o·J + c)·I + i with J = P[7] the output's dim length and I the
// product of the axes after dim: one or two divisions instead of a div/mod
// per axis.

@group(0) @binding(0) var<storage, read> P: array<u32>;
// P: [n_out, rank, dim, n_idx, bound, len, I (fast path) or 0, J, A[8] (data/base shape), B[8] (indices/src shape), O[8] (out shape)]
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read> src: array<u32>;
@group(0) @binding(4) var<storage, read_write> dst: array<u32>;
@group(0) @binding(5) var<storage, read_write> err: array<atomic<u32>>;
// off (adds only): bucket b is order[off[b]..off[b+1]], order in `idx`.
@group(0) @binding(6) var<storage, read> off: array<u32>;

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

// (o, c, i) of output element e on the fast path (module comment).
fn split3(e: u32) -> vec3<u32> {
    let I = P[6];
    var r = e;
    var i = 0u;
    if (I != 1u) {
        r = e / I;
        i = e - r * I;
    }
    let o = r / P[7];
    return vec3<u32>(o, r - o * P[7], i);
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

@compute @workgroup_size(256)
fn index_select(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    move_elems(thread_id(wid, nwg, lid), false);
}

@compute @workgroup_size(256)
fn gather(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    move_elems(thread_id(wid, nwg, lid), true);
}

// ---- adds ----

fn load_f(buf_is_src: bool, e: u32) -> f32 {
    var w = 0u;
    if (DT == 0u) {
        if (buf_is_src) { w = src[e]; } else { w = data[e]; }
        return bitcast<f32>(w);
    }
    if (buf_is_src) { w = src[e >> 1u]; } else { w = data[e >> 1u]; }
    let h = (w >> ((e & 1u) * 16u)) & 0xffffu;
    if (DT == 1u) {
        return bitcast<f32>(f16_bits_to_f32_bits(h));
    }
    return bitcast<f32>(bf16_bits_to_f32_bits(h));
}

fn to_bits(f: f32) -> u32 {
    if (DT == 1u) {
        return f32_bits_to_f16_bits(bitcast<u32>(f));
    }
    if (DT == 2u) {
        return f32_bits_to_bf16_bits(bitcast<u32>(f));
    }
    return bitcast<u32>(f);
}

// One add in the dtype.
fn add(acc: f32, v: f32) -> f32 {
    if (DT == 0u) {
        return acc + v;
    }
    let b = to_bits(acc + v);
    if (DT == 1u) {
        return bitcast<f32>(f16_bits_to_f32_bits(b));
    }
    return bitcast<f32>(bf16_bits_to_f32_bits(b));
}

// index_add: out[e] = base[e] + Σ_{i: idx[i] == c} src[e with dim <- i], i
// ascending: bucket c of the table lists exactly those i, in ascending order.
fn index_add_one(e: u32) -> u32 {
    var acc = load_f(false, e);
    if (P[6] != 0u) {                         // fast path: src element (o, j, i)
        let s = split3(e);
        let row = s.x * P[5];
        let end = off[s.y + 1u];
        for (var q = off[s.y]; q < end; q = q + 1u) {
            acc = add(acc, load_f(true, (row + idx[q]) * P[6] + s.z));
        }
        return to_bits(acc);
    }
    let c = coord_dim(e, 8u);
    let end = off[c + 1u];
    for (var q = off[c]; q < end; q = q + 1u) {
        acc = add(acc, load_f(true, remap(e, 8u, 16u, idx[q])));
    }
    return to_bits(acc);
}

// scatter_add: out[e] = base[e] + Σ src[p] over the src positions p whose
// target (p with dim <- idx[p]) is e, p ascending (= src flat order): bucket e
// of the table lists exactly those p, in ascending order.
fn scatter_add_one(e: u32) -> u32 {
    var acc = load_f(false, e);
    let end = off[e + 1u];
    for (var q = off[e]; q < end; q = q + 1u) {
        acc = add(acc, load_f(true, idx[q]));
    }
    return to_bits(acc);
}

fn add_elems(t: u32, scatter: bool) {
    let n = P[0];
    if (DT == 0u) {
        if (t >= n) { return; }
        if (scatter) {
            dst[GUARD + t] = scatter_add_one(t);
        } else {
            dst[GUARD + t] = index_add_one(t);
        }
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
        var v = 0u;
        if (scatter) {
            v = scatter_add_one(e);
        } else {
            v = index_add_one(e);
        }
        word = put_lane(word, l, 16u, v);
    }
    dst[GUARD + t] = word;
}

@compute @workgroup_size(256)
fn index_add(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    add_elems(thread_id(wid, nwg, lid), false);
}

@compute @workgroup_size(256)
fn scatter_add(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    add_elems(thread_id(wid, nwg, lid), true);
}

// ---- rows staged in workgroup memory (dim last, I = 1) ----
//
// gather / index_add along the last axis read their row of data (src)
// at random positions: one workgroup per output row first copies that row
// into workgroup memory with coalesced loads, then gathers from it. Taken
// when a row is at most SROW words and starts on a word (the host checks).
// Indices are checked as everywhere: a bad one is never used, its position
// goes to err[0].

const SROW: u32 = 4096u;                    // words: 16 KiB, WebGPU's default limit
var<workgroup> srow: array<u32, SROW>;

// Element k of the staged row (a half in the low 16 bits when half).
fn staged(k: u32, half: bool) -> u32 {
    if (!half) { return srow[k]; }
    return (srow[k >> 1u] >> ((k & 1u) * 16u)) & 0xffffu;
}

// Copies `words` words of buf (data if from_src is false, else src),
// starting at word w0, into srow; ends with a barrier.
fn stage(from_src: bool, w0: u32, words: u32, lid: u32) {
    for (var w = lid; w < words; w = w + W) {
        if (from_src) { srow[w] = src[w0 + w]; } else { srow[w] = data[w0 + w]; }
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
    stage(false, o * (D / per), D / per, lid);
    for (var w = lid; w < J / per; w = w + W) {
        var word = 0u;
        for (var l = 0u; l < per; l = l + 1u) {
            let e = o * J + w * per + l;
            let v = idx[e];
            if (v >= D) {
                bad(e);
            } else {
                word = word | (staged(v, EB == 2u) << (l * 16u));
            }
        }
        dst[GUARD + o * (J / per) + w] = word;
    }
}

// The staged src element k as an f32 (halves widened).
fn staged_f(k: u32) -> f32 {
    let b = staged(k, DT != 0u);
    if (DT == 1u) { return bitcast<f32>(f16_bits_to_f32_bits(b)); }
    if (DT == 2u) { return bitcast<f32>(bf16_bits_to_f32_bits(b)); }
    return bitcast<f32>(b);
}

@compute @workgroup_size(256)
fn index_add_rows(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let o = group_id(wid, nwg);               // output row
    let C = P[7];
    let m = P[5];
    if (o * C >= P[0]) { return; }            // uniform
    let per = select(2u, 1u, DT == 0u);       // elements per word
    stage(true, o * (m / per), m / per, lid);
    for (var w = lid; w < C / per; w = w + W) {
        var word = 0u;
        for (var l = 0u; l < per; l = l + 1u) {
            let c = w * per + l;
            var acc = load_f(false, o * C + c);
            let end = off[c + 1u];
            for (var q = off[c]; q < end; q = q + 1u) {
                acc = add(acc, staged_f(idx[q]));
            }
            word = word | (to_bits(acc) << (l * 16u));
        }
        dst[GUARD + o * (C / per) + w] = word;
    }
}

// ---- scatter_add along the last axis, one workgroup per row ----
//
// out[o, c] = base[o, c] + Σ src[o, j] over j with idx[o, j] == c, j
// ascending (the oracle's order, in the dtype). The row's sums live in
// workgroup memory (sacc, a tile of SCT columns at a time; SCT is Go-
// prepended from the adapter's limit). The row's contributions go by in
// chunks of SQ·W in j order, SQ consecutive j per thread; within a chunk
// the contributions to one column take turns, smallest j first: each round
// every pending contribution bids its j for its column (atomicMin), the
// winners add, the rest bid again — a column sees its adds in ascending j,
// and the rounds per chunk are the most contributions one column gets in
// it. No host table, no global atomics; an index >= C is never used (its
// position goes to err[0]).

const SQ: u32 = 4u;                         // contributions per thread per chunk

var<workgroup> sacc: array<f32, SCT>;
var<workgroup> sown: array<atomic<u32>, SCT>;
var<workgroup> sleft: atomic<u32>;
var<workgroup> sleftp: u32;

@compute @workgroup_size(256)
fn scatter_add_rows(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let o = group_id(wid, nwg);               // output row
    let C = P[4];
    let J = P[5];
    if (o * C >= P[0]) { return; }            // uniform
    let per = select(2u, 1u, DT == 0u);       // elements per output word
    for (var c0 = 0u; c0 < C; c0 = c0 + SCT) {
        let tile = min(SCT, C - c0);
        for (var c = lid; c < tile; c = c + W) {
            sacc[c] = load_f(false, o * C + c0 + c);
            atomicStore(&sown[c], NONE);
        }
        workgroupBarrier();
        for (var j0 = 0u; j0 < J; j0 = j0 + SQ * W) {
            var col = array<u32, SQ>();
            var val = array<f32, SQ>();
            var pend = 0u;                        // bit q: contribution q pending
            for (var q = 0u; q < SQ; q = q + 1u) {
                let j = j0 + lid * SQ + q;
                if (j < J) {
                    let p = o * J + j;
                    let v = idx[p];
                    if (v >= C) {
                        bad(p);
                    } else if (v >= c0 && v < c0 + tile) {
                        pend = pend | (1u << q);
                        col[q] = v - c0;
                        val[q] = load_f(true, p);
                    }
                }
            }
            loop {
                for (var q = 0u; q < SQ; q = q + 1u) {
                    if ((pend & (1u << q)) != 0u) {
                        atomicMin(&sown[col[q]], lid * SQ + q);
                    }
                }
                workgroupBarrier();
                var won = 0u;
                for (var q = 0u; q < SQ; q = q + 1u) {
                    if ((pend & (1u << q)) != 0u && atomicLoad(&sown[col[q]]) == lid * SQ + q) {
                        won = won | (1u << q);
                    }
                }
                workgroupBarrier();
                for (var q = 0u; q < SQ; q = q + 1u) {
                    if ((won & (1u << q)) != 0u) {
                        sacc[col[q]] = add(sacc[col[q]], val[q]);
                        atomicStore(&sown[col[q]], NONE);
                    }
                }
                pend = pend & ~won;
                if (pend != 0u) {
                    atomicAdd(&sleft, 1u);
                }
                workgroupBarrier();
                if (lid == 0u) {
                    sleftp = atomicExchange(&sleft, 0u);
                }
                if (workgroupUniformLoad(&sleftp) == 0u) {
                    break;
                }
            }
        }
        workgroupBarrier();
        for (var w = lid; w < tile / per; w = w + W) {
            var word = 0u;
            for (var l = 0u; l < per; l = l + 1u) {
                word = word | (to_bits(sacc[w * per + l]) << (l * 16u));
            }
            dst[GUARD + (o * C + c0) / per + w] = word;
        }
        workgroupBarrier();
    }
}
