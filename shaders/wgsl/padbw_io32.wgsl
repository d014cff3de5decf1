// padbw_io32.wgsl — pad_backward_gather's element access for F32, F16 and
// BF16 (DT 0, 1, 2): grads and outputs as u32 words, halves as lanes.
// Needs ACC (acc32.wgsl or acc64.wgsl) and dtype.wgsl.

alias GW = u32;
alias OW = u32;

// grad_out element i's bits (a half in the low 16 bits).
fn graw(i: u32) -> u32 {
    if (DT == 0u) {
        return gout[i];
    }
    return (gout[i >> 1u] >> ((i & 1u) * 16u)) & 0xffffu;
}

// grad_out element i, widened exactly to the accumulator.
fn gload(i: u32) -> ACC {
    return acc_from_f32_bits(wide(graw(i)));
}

// Grad bits g as a sole contribution's result: g itself, a zero as +0.
fn sole_bits(g: u32) -> u32 {
    if ((g & select(0x7fffu, 0x7fffffffu, DT == 0u)) == 0u) {
        return 0u;
    }
    return g;
}

// Slot e's element bits: its sole contribution's own bits, or its sum
// narrowed.
fn slot_bits(e: u32) -> u32 {
    let s = sole(e);
    if (s == NONE) {
        return out_bits(settle(e));
    }
    return sole_bits(graw(s));
}

// A slot's sum as element bits: f32 (RNE), then RNE to the half, as the CPU
// narrows (f64 -> f32 -> half). A zero sum stores +0, as the CPU's does.
fn out_bits(a: ACC) -> u32 {
    var b = 0u;
    if (!(a == ACC())) {                             // not `a != 0`: NaN must get here
        b = acc_to_f32_bits(a);
    }
    if (DT == 1u) {
        return f32_bits_to_f16_bits(b);
    }
    if (DT == 2u) {
        return f32_bits_to_bf16_bits(b);
    }
    return b;
}

// Word t when each of its slots is a sole contribution (as emit writes
// it); nothing otherwise (pad_backward_gather.wgsl's `listed` writes it).
fn emit_sole(t: u32) {
    let n = P[0];
    if (DT == 0u) {
        if (t >= n) { return; }
        let s = sole(t);
        if (s != NONE) {
            dst[GUARD + t] = sole_bits(graw(s));
        }
        return;
    }
    let e = 2u * t;
    if (e >= n) { return; }
    let s0 = sole(e);
    if (s0 == NONE) { return; }
    if (e + 1u >= n) {                               // the last word: keep the lane past the end
        dst[GUARD + t] = put_lane(dst[GUARD + t], 0u, 16u, sole_bits(graw(s0)));
        return;
    }
    let s1 = sole(e + 1u);
    if (s1 != NONE) {
        dst[GUARD + t] = sole_bits(graw(s0)) | (sole_bits(graw(s1)) << 16u);
    }
}

// Words t0 + i·W, i < GU. F32: every slot's table lookups first, then
// the sole slots' grad loads, then the stores (all of a stage's loads
// issued before any is used; the sums, rare, as emit does them): the same
// bits as emit on each word. Halves: emit on each word.
fn emit_many(t0: u32) {
    if (DT != 0u) {
        for (var i = 0u; i < GU; i = i + 1u) {
            emit(t0 + i * W);
        }
        return;
    }
    let n = P[0];
    var s: array<u32, GU>;
    for (var i = 0u; i < GU; i = i + 1u) {
        s[i] = NONE;
        if (t0 + i * W < n) {
            s[i] = sole(t0 + i * W);
        }
    }
    var g: array<u32, GU>;
    for (var i = 0u; i < GU; i = i + 1u) {
        if (s[i] != NONE) {
            g[i] = gout[s[i]];
        }
    }
    for (var i = 0u; i < GU; i = i + 1u) {
        let e = t0 + i * W;
        if (e < n) {
            if (s[i] != NONE) {
                dst[GUARD + e] = sole_bits(g[i]);
            } else {
                dst[GUARD + e] = out_bits(settle(e));
            }
        }
    }
}

// Thread t writes slot t (f32) or the two slots of output word t (halves).
// (Copying the sole slots in a pass of their own, with few registers, was
// slower on the H200; docs/perf/gpu-pad.md.)
fn emit(t: u32) {
    let n = P[0];
    if (DT == 0u) {
        if (t >= n) { return; }
        dst[GUARD + t] = slot_bits(t);
        return;
    }
    let e = 2u * t;
    if (e >= n) { return; }
    if (e + 1u < n) {
        dst[GUARD + t] = slot_bits(e) | (slot_bits(e + 1u) << 16u);
    } else {                                         // the last word: keep the lane past the end
        dst[GUARD + t] = put_lane(dst[GUARD + t], 0u, 16u, slot_bits(e));
    }
}
