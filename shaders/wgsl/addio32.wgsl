// addio32.wgsl — the adds' element access (index_add.wgsl) for F32, F16
// and BF16 (DT 0, 1, 2): data, src and dst as u32 words, halves as lanes;
// a value is an f32 holding a value of the dtype (halves widen exactly).
// PER (elements per output unit: 1, or 2 for halves) is Go-prepended.

alias EW = u32;                             // one word of data, src, dst
alias AV = f32;                             // a value, as the adds hold it
const SROWN: u32 = 4096u;                   // words of a staged row: 16 KiB

// Element k of a word array (a half in the low 16 bits).
fn lane_bits(w: u32, k: u32) -> u32 {
    if (DT == 0u) { return w; }
    return (w >> ((k & 1u) * 16u)) & 0xffffu;
}

fn value_of(b: u32) -> AV {
    if (DT == 1u) { return bitcast<f32>(f16_bits_to_f32_bits(b)); }
    if (DT == 2u) { return bitcast<f32>(bf16_bits_to_f32_bits(b)); }
    return bitcast<f32>(b);
}

fn bits_of(v: AV) -> u32 {
    if (DT == 1u) { return f32_bits_to_f16_bits(bitcast<u32>(v)); }
    if (DT == 2u) { return f32_bits_to_bf16_bits(bitcast<u32>(v)); }
    return bitcast<u32>(v);
}

fn load_data(e: u32) -> AV {
    return value_of(lane_bits(data[e / PER], e));
}

fn load_src(e: u32) -> AV {
    return value_of(lane_bits(src[e / PER], e));
}

// Element k of the staged src row (index_add_rows).
fn staged_src(k: u32) -> AV {
    return value_of(lane_bits(srow[k / PER], k));
}

// One add in the dtype (halves: add at f32, narrow with RNE, widen back =
// the half-precision add).
fn add(acc: AV, v: AV) -> AV {
    if (DT == 0u) { return acc + v; }
    return value_of(bits_of(acc + v));
}

// Output unit w (PER elements) of dst, lane l of a unit, a unit with lane
// l set to v.
fn unit_read(w: u32) -> EW {
    return dst[GUARD + w];
}

fn unit_lane(u: EW, l: u32) -> AV {
    return value_of(lane_bits(u, l));
}

fn unit_set(u: EW, l: u32, v: AV) -> EW {
    if (DT == 0u) { return bitcast<u32>(v); }
    return put_lane(u, l, 16u, bits_of(v));
}

fn unit_write(w: u32, u: EW) {
    dst[GUARD + w] = u;
}
