//! uses: dtype.wgsl
// pad_backward_gather.wgsl — this project's deterministic pad backward
// (contracts/project/fkc-wgsl-kernels.fkc.md, `pad_backward`): reflect,
// replicate and constant, F32 / F16 / BF16 / F64.
//
// Specialisation: DT (0 f32, 1 f16, 2 bf16, 3 f64), GU (output words per
// thread of `main`) and two fragments: the
// accumulator (acc64.wgsl: f64, exact conversions, on adapters with
// shader-f64; acc32.wgsl: f32 elsewhere) and the element access
// (padbw_io32.wgsl for u32 words, padbw_io64.wgsl for f64 data).
//
// No atomics and no retry loop: one thread per grad_in slot (per output
// word for halves) gathers every grad_out element that the forward pad
// read from that slot, in grad_out's flat order, into one accumulator,
// and narrows once on store. With the f64 accumulator this is the CPU
// contract's walk (visit grad_out in flat order, add into an f64
// accumulator per slot, narrow on store) restricted to one slot, so the
// result equals the CPU's bit for bit; with either accumulator it is the
// same bits on every run.
//
// Which grad_out elements a slot gathers comes from host-built tables in T
// (CSR): the slot's input row (its coordinates on every axis but the last)
// lists the output rows that read it, ascending (the product of per-axis
// coordinate lists in row-major order); its column lists the output
// columns that read it, ascending. Output rows ascending, then columns
// ascending, is the flat order.
//
// Long chains are split across passes, still in order: a slot's k-th
// contribution (k = row_index · n_cols + col_index) is added by the pass
// whose [k0, k1) holds k; between passes the accumulator waits in `state`
// (exactly, in ACC). This bounds the work of one invocation (lavapipe
// silently stops any invocation after 65,535 loop iterations; GPU
// watchdogs stop long dispatches) without changing the order of the adds.
// P: [n_in, n (input last axis), L (output last axis), 0,
//     row_off, row_list, col_off, col_list (word offsets into T),
//     k0, k1, first pass (1/0), last pass (1/0), row_sole, col_sole,
//     listed words (offset into T, count: `listed` only)]

@group(0) @binding(0) var<storage, read> P: array<u32>;
@group(0) @binding(1) var<storage, read> T: array<u32>;
@group(0) @binding(2) var<storage, read> gout: array<GW>;
@group(0) @binding(3) var<storage, read_write> dst: array<OW>;
@group(0) @binding(4) var<storage, read_write> state: array<ACC>;

// Slot e's sum of the grad_out elements read from it, in flat order: all
// of them (one pass), or this pass's share added to the carried state.
fn fold(e: u32) -> ACC {
    let n = P[1];
    let L = P[2];
    let row = e / n;
    let col = e - row * n;
    let r0 = T[P[4] + row];
    let r1 = T[P[4] + row + 1u];
    let c0 = T[P[6] + col];
    let c1 = T[P[6] + col + 1u];
    var acc = ACC();
    if (P[10] == 1u && P[11] == 1u) {                // one pass: every contribution
        for (var q = r0; q < r1; q = q + 1u) {
            let base = T[P[5] + q] * L;
            for (var p = c0; p < c1; p = p + 1u) {
                acc = acc + gload(base + T[P[7] + p]);
            }
        }
        return acc;
    }
    if (P[10] == 0u) {
        acc = state[e];
    }
    let nc = c1 - c0;
    let k0 = P[8];
    let k1 = min(P[9], (r1 - r0) * nc);
    if (k0 >= k1) {
        return acc;
    }
    var q = r0 + k0 / nc;
    var p = c0 + k0 % nc;
    var base = T[P[5] + q] * L;
    for (var k = k0; k < k1; k = k + 1u) {
        acc = acc + gload(base + T[P[7] + p]);
        p = p + 1u;
        if (p == c1) {
            p = c0;
            q = q + 1u;
            if (q < r1) {
                base = T[P[5] + q] * L;
            }
        }
    }
    return acc;
}

// The grad_out element that is slot e's only contribution, or NONE: most
// slots of a pad have one (the interior), and their value needs no
// arithmetic (0 + g, narrowed, is g itself, but for -0 -> +0). From the
// sole tables: per input row the start of the one output row that reads
// it, per column the one output column (NONE where there are more, or none).
fn sole(e: u32) -> u32 {
    let row = e / P[1];
    let col = e - row * P[1];
    let rs = T[P[12] + row];
    let cs = T[P[13] + col];
    if (rs == NONE || cs == NONE) {
        return NONE;
    }
    return rs + cs;
}

// Slot e's value: stored as the result on the last pass, else carried.
fn settle(e: u32) -> ACC {
    let a = fold(e);
    if (P[11] == 0u) {
        state[e] = a;
    }
    return a;
}

// Each thread writes GU output words W apart (GU Go-prepended: the
// element access fragment's emit_many).
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    emit_many(group_id(wid, nwg) * (GU * W) + lid);
}

// `soles` then `listed`: main's work split in two, for an adapter that
// runs every branch for every SIMD lane (the browser's SwiftShader), where
// the sum path cost every slot its price although few slots take it.
// `soles` writes each output word whose slots are all sole (emit_sole);
// `listed` runs emit on the other words, listed ascending in T at P[14]
// (P[15] of them), in as many passes as `main` would take. Every word is
// written by one of the two, with the bits `main` gives it. Measurements:
// docs/perf/gpu-pad.md.
@compute @workgroup_size(256)
fn soles(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    emit_sole(thread_id(wid, nwg, lid));
}

@compute @workgroup_size(256)
fn listed(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = thread_id(wid, nwg, lid);
    if (i >= P[15]) { return; }
    emit(T[P[14] + i]);
}
