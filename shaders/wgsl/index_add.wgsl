//! uses: split3.wgsl
// index_add.wgsl — this project's deterministic adds (contracts/project/
// fkc-wgsl-kernels.fkc.md): index_add and scatter_add, general and along
// the last axis. The bounds check runs first, from index.wgsl (`check`).
//
// Specialisation: DT (0 f32, 1 f16, 2 bf16, 3 f64), PER (elements per
// output unit), SCT (scatter_add_rows' tile), SQ (its contributions per
// thread per chunk), and the element access fragment: addio32.wgsl (u32
// words) or addio64.wgsl (f64, adapters with shader-f64), which defines
// EW (a word of data, src, dst), AV (a value), load_data / load_src /
// staged_src, add (one add in the dtype) and the unit_* output helpers.
//
// Every output element receives its contributions in ascending src flat
// order, one add at a time in the dtype: the oracle's order and rounding.
//
// Loop budget: lavapipe stops an invocation after 65,535 loop iterations in
// all, silently. No invocation here loops longer than the host's budget
// (kernels/gpu loopBudget): a long chain of contributions is continued by
// further passes that carry the accumulator exactly (`state`, in AV), and
// the rows kernels take a bounded share of a row per pass.

@group(0) @binding(0) var<storage, read> P: array<u32>;
// P: [n_out, rank, dim, n_idx, bound, len, I, J, ..., @32: pass words]
@group(0) @binding(1) var<storage, read> data: array<EW>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read> src: array<EW>;
@group(0) @binding(4) var<storage, read_write> dst: array<EW>;
@group(0) @binding(5) var<storage, read_write> err: array<atomic<u32>>;
// off (general adds): bucket b is order[off[b]..off[b+1]], order in `idx`;
// the continuation passes' list of output units follows at P[35].
@group(0) @binding(6) var<storage, read> off: array<u32>;
@group(0) @binding(7) var<storage, read_write> state: array<AV>;

fn bad(pos: u32) {
    atomicMin(&err[0], pos);
}

// ---- general adds: one thread per output unit, a host bucket table ----
//
// index_add buckets src slices by index value (bucket c lists the i with
// idx[i] == c, ascending); scatter_add buckets src flat positions by their
// target element (bucket e lists them ascending). Pass words: P[32] = k0,
// P[33] = chain (a pass adds contributions k0 .. k0+chain-1 of each
// bucket), P[34] = 1 on a continuation pass, P[35] / P[36] = offset in
// `off` / length of the continuation passes' unit list (the units with a
// bucket longer than the chain).

fn bucket_of(e: u32, scatter: bool) -> u32 {
    if (scatter) { return e; }
    return split3(e).y;
}

// The src element of element e's contribution at table position q.
fn source_of(e: u32, q: u32, scatter: bool) -> u32 {
    if (scatter) { return idx[q]; }
    let s = split3(e);
    return (s.x * P[5] + idx[q]) * P[6] + s.z;
}

fn add_unit(t: u32, scatter: bool) {
    let n = P[0];
    let cont = P[34] == 1u;
    var w = t;
    if (cont) {
        if (t >= P[36]) { return; }
        w = off[P[35] + t];
    }
    let first = w * PER;
    if (first >= n) { return; }
    let k0 = P[32];
    let k1 = k0 + P[33];
    var u = EW();
    if (cont || first + PER > n) {
        u = unit_read(w);                    // lanes done earlier, or past the end
    }
    for (var l = 0u; l < PER; l = l + 1u) {
        let e = first + l;
        if (e >= n) { break; }
        let b = bucket_of(e, scatter);
        let b0 = off[b];
        let len = off[b + 1u] - b0;
        if (cont && len <= k0) { continue; }  // finished in an earlier pass
        var acc = AV();
        if (cont) {
            acc = state[e];
        } else {
            acc = load_data(e);
        }
        let end = b0 + min(len, k1);
        for (var q = b0 + k0; q < end; q = q + 1u) {
            acc = add(acc, load_src(source_of(e, q, scatter)));
        }
        if (len > k1) {
            state[e] = acc;                  // carried to the next pass, exactly
        }
        u = unit_set(u, l, acc);
    }
    unit_write(w, u);
}

@compute @workgroup_size(256)
fn index_add(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    add_unit(thread_id(wid, nwg, lid), false);
}

@compute @workgroup_size(256)
fn scatter_add(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    add_unit(thread_id(wid, nwg, lid), true);
}

// ---- index_add along the last axis: the src row staged ----
//
// One workgroup per output row copies its src row (at most 16 KiB, taken
// by the host only then) into workgroup memory with coalesced loads, then
// one thread per output unit folds its columns' buckets from it. A thread
// loops at most m + C/(PER·W) + SROWN/W times (the buckets of its columns
// are disjoint): the host takes this kernel only within the budget.

var<workgroup> srow: array<EW, SROWN>;

@compute @workgroup_size(256)
fn index_add_rows(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let o = group_id(wid, nwg);               // output row
    let C = P[7];
    let m = P[5];
    if (o * C >= P[0]) { return; }            // uniform
    let w0 = o * (m / PER);
    for (var w = lid; w < m / PER; w = w + W) {
        srow[w] = src[w0 + w];
    }
    workgroupBarrier();
    for (var w = lid; w < C / PER; w = w + W) {
        var u = EW();
        for (var l = 0u; l < PER; l = l + 1u) {
            let c = w * PER + l;
            var acc = load_data(o * C + c);
            let end = off[c + 1u];
            for (var q = off[c]; q < end; q = q + 1u) {
                acc = add(acc, staged_src(idx[q]));
            }
            u = unit_set(u, l, acc);
        }
        unit_write(o * (C / PER) + w, u);
    }
}

// ---- scatter_add along the last axis, one workgroup per row ----
//
// out[o, c] = base[o, c] + Σ src[o, j] over j with idx[o, j] == c, j
// ascending. The row's sums live in workgroup memory (sacc, a tile of SCT
// columns). The row's contributions go by in chunks of CHK = SQ·W in j
// order, SQ consecutive j per thread. Within a chunk the contributions to
// one column take turns, smallest j first: each round every pending
// contribution bids its j for its column (atomicMin), the winners add, the
// rest bid again. A column still contended after ROUNDS rounds has had
// exactly its ROUNDS smallest j added (one winner a round), so its pending
// contributions are all of its contributions from the smallest pending j
// on: the thread holding that one adds them in one ordered sweep of the
// rest of the chunk, read again from idx and src (just loaded: cached).
// A thread so loops at most about ROUNDS + CHK times a chunk. No host
// table, no global atomics; an index >= C is never used (its position goes
// to err[0]). Slower on the H200 and not kept: never-cleared bids taken
// with atomicMax, and counting-sorting each row by column in workgroup
// memory. Measurements: docs/perf/index-add.md.
//
// Pass words: P[32] .. P[33] the columns (whole tiles) and P[34] .. P[35]
// the j range (whole chunks) of this pass; a pass after the first j range
// starts from dst, where the previous one left the sums (exact: values of
// the dtype).

const CHK: u32 = SQ * W;
const STW: u32 = SCT / W;                   // a tile's columns per thread
const ROUNDS: u32 = 8u;

var<workgroup> sacc: array<AV, SCT>;
var<workgroup> sown: array<atomic<u32>, SCT>;
// "Contributions still pending" after bidding round r is sleft[r & 1]:
// set by every thread that has one (the same value, so the plain stores
// may race), read back uniformly; thread 0 clears the other flag during
// the round, when no thread reads or writes it.
var<workgroup> sleft: array<u32, 2>;

// A chunk's indices and values (j from j0, before je).
struct Chunk {
    iv: array<u32, SQ>,
    sv: array<AV, SQ>,
}

fn chunk_loads(o: u32, J: u32, j0: u32, je: u32, lid: u32) -> Chunk {
    var ch: Chunk;
    for (var q = 0u; q < SQ; q = q + 1u) {
        let j = j0 + lid * SQ + q;
        if (j < je) {
            ch.iv[q] = idx[o * J + j];
            ch.sv[q] = load_src(o * J + j);
        }
    }
    return ch;
}

@compute @workgroup_size(256)
fn scatter_add_rows(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let o = group_id(wid, nwg);               // output row
    let C = P[4];
    let J = P[5];
    if (o * C >= P[0]) { return; }            // uniform
    let jb = P[34];
    let je = min(P[35], J);
    if (lid == 0u) {
        sleft[0] = 0u;
        sleft[1] = 0u;
    }
    var round = 0u;                           // bidding rounds so far (flag parity)
    for (var c0 = P[32]; c0 < min(P[33], C); c0 = c0 + SCT) {
        let tile = min(SCT, C - c0);
        // The first chunks' indices and values, then the tile's sums from
        // base (or from dst, where an earlier pass left them): all loads
        // issued before any is used.
        var next = chunk_loads(o, J, jb, je, lid);
        var next2: Chunk;
        if (PF == 2u) {
            next2 = chunk_loads(o, J, jb + CHK, je, lid);
        }
        var t: array<AV, STW>;
        for (var i = 0u; i < STW; i = i + 1u) {
            let c = lid + i * W;
            if (c < tile) {
                let e = o * C + c0 + c;
                if (jb == 0u) {
                    t[i] = load_data(e);
                } else {
                    t[i] = unit_lane(unit_read(e / PER), e % PER);
                }
            }
        }
        for (var i = 0u; i < STW; i = i + 1u) {
            let c = lid + i * W;
            if (c < tile) {
                sacc[c] = t[i];
                atomicStore(&sown[c], NONE);
            }
        }
        workgroupBarrier();
        for (var j0 = jb; j0 < je; j0 = j0 + CHK) {
            // The chunk's indices and values, loaded during the rounds of
            // the PF chunks before it (PF = 1 or 2), or now (PF = 0); all
            // of a chunk's loads are issued before any is used.
            var ch = next;
            if (PF == 2u) {
                next = next2;
                next2 = chunk_loads(o, J, j0 + 2u * CHK, je, lid);
            } else if (PF == 1u) {
                next = chunk_loads(o, J, j0 + CHK, je, lid);
            } else if (j0 > jb) {
                ch = chunk_loads(o, J, j0, je, lid);
            }
            var iv = ch.iv;
            var sv = ch.sv;
            var col = array<u32, SQ>();
            var val = array<AV, SQ>();
            var pend = 0u;                        // bit q: contribution q pending
            for (var q = 0u; q < SQ; q = q + 1u) {
                let j = j0 + lid * SQ + q;
                let v = iv[q];
                if (j < je) {
                    if (v >= C) {
                        bad(o * J + j);
                    } else if (v >= c0 && v < c0 + tile) {
                        pend = pend | (1u << q);
                        col[q] = v - c0;
                        val[q] = sv[q];
                    }
                }
            }
            var rounds = 0u;
            var contended = false;
            loop {
                for (var q = 0u; q < SQ; q = q + 1u) {
                    if ((pend & (1u << q)) != 0u) {
                        atomicMin(&sown[col[q]], lid * SQ + q);
                    }
                }
                workgroupBarrier();
                // A winner adds and clears its column's bid at once: a
                // loser that reads the cleared bid still sees it lost.
                for (var q = 0u; q < SQ; q = q + 1u) {
                    if ((pend & (1u << q)) != 0u && atomicLoad(&sown[col[q]]) == lid * SQ + q) {
                        sacc[col[q]] = add(sacc[col[q]], val[q]);
                        atomicStore(&sown[col[q]], NONE);
                        pend = pend & ~(1u << q);
                    }
                }
                round = round + 1u;
                rounds = rounds + 1u;
                if (pend != 0u) {
                    sleft[round & 1u] = 1u;
                }
                if (lid == 0u) {
                    sleft[(round + 1u) & 1u] = 0u;
                }
                if (workgroupUniformLoad(&sleft[round & 1u]) == 0u) {
                    break;
                }
                if (rounds == ROUNDS) {
                    contended = true;
                    break;
                }
            }
            if (contended) {                      // one ordered sweep per contended column
                for (var q = 0u; q < SQ; q = q + 1u) {
                    if ((pend & (1u << q)) != 0u) {
                        atomicMin(&sown[col[q]], lid * SQ + q);
                    }
                }
                workgroupBarrier();
                for (var q = 0u; q < SQ; q = q + 1u) {
                    let i = lid * SQ + q;
                    if ((pend & (1u << q)) != 0u && atomicLoad(&sown[col[q]]) == i) {
                        var acc = sacc[col[q]];
                        let c = col[q] + c0;
                        let end = min(j0 + CHK, je);
                        for (var j = j0 + i; j < end; j = j + 1u) {
                            if (idx[o * J + j] == c) {
                                acc = add(acc, load_src(o * J + j));
                            }
                        }
                        sacc[col[q]] = acc;
                    }
                }
                workgroupBarrier();
                for (var q = 0u; q < SQ; q = q + 1u) {
                    if ((pend & (1u << q)) != 0u) {
                        atomicStore(&sown[col[q]], NONE);
                    }
                }
                workgroupBarrier();
            }
        }
        workgroupBarrier();
        for (var w = lid; w < tile / PER; w = w + W) {
            var u = EW();
            for (var l = 0u; l < PER; l = l + 1u) {
                u = unit_set(u, l, sacc[w * PER + l]);
            }
            unit_write((o * C + c0) / PER + w, u);
        }
        workgroupBarrier();
    }
}

// ---- scatter_add along the last axis, one thread per row ----
//
// For adapters that run a workgroup as SIMD lanes of a few host cores
// (SwiftShader; kernels/gpu threadsOverTrees), where the bidding rounds'
// barriers and workgroup atomics cost their emulation: thread o copies base
// row o (on the first pass), then adds src[o, j] onto out[o, idx[o, j]]
// for j ascending — the oracle's own walk of the row, so every element
// receives its contributions in ascending j, one add at a time in the
// dtype. A row's words belong to its thread alone: no table, no atomics
// but the error word. An index >= C is never used (its flat position goes
// to err[0]). Pass words: P[34] .. P[35] the j range of this pass; a pass
// after the first starts from dst, where the previous one left the sums.

@compute @workgroup_size(256)
fn scatter_add_seq(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let o = thread_id(wid, nwg, lid);         // output row
    let C = P[4];
    let J = P[5];
    if (o * C >= P[0]) { return; }
    let jb = P[34];
    let je = min(P[35], J);
    if (jb == 0u) {
        for (var w = o * C / PER; w < (o + 1u) * C / PER; w = w + 1u) {
            unit_write(w, data[w]);
        }
    }
    for (var j = jb; j < je; j = j + 1u) {
        let c = idx[o * J + j];
        if (c >= C) {
            bad(o * J + j);
            continue;
        }
        let e = o * C + c;
        let l = e % PER;
        let u = unit_read(e / PER);
        unit_write(e / PER, unit_set(u, l, add(unit_lane(u, l), load_src(o * J + j))));
    }
}
