// quot64.wgsl — f32(a) / f32(c) for an integer c, rounded to nearest even,
// exactly, for adapters with shader-f64 (needs acc64.wgsl): the oracle's
// `upstream / count` in f32. WGSL lets an f32 division be off by 2.5 ulp
// (NVIDIA's is, by one ulp at times). Here c is rounded to f32 in integer
// code, the f64 quotient gives a candidate, and exact f64 residuals pick
// the nearest of it and its neighbours: a candidate times f32(c) has at
// most 24 + 24 bits, so it and its difference with a are exact.

// f32(c) (round to nearest even) as an f64.
fn count_f32(c: u32) -> f64 {
    if (c < (1u << 24u)) {
        return f64(c);
    }
    let sh = 8u - countLeadingZeros(c);                  // bits below the 24 kept
    let q = c >> sh;
    let rem = c & ((1u << sh) - 1u);
    let half = 1u << (sh - 1u);
    var m = q;
    if (rem > half || (rem == half && (q & 1u) == 1u)) {
        m = m + 1u;                                      // may carry to 2^24: still exact
    }
    return f64(m) * f64(1u << sh);
}

fn quot_bits(a: u32, c: u32) -> u32 {
    if ((a & 0x7fffffffu) == 0u) {
        return a;                                        // ±0 / c = ±0
    }
    let av = acc_from_f32_bits(a);
    let cv = count_f32(c);
    let x = acc_to_f32_bits(av / cv);
    if ((a & 0x7f800000u) == 0x7f800000u || (x & 0x7fffffffu) == 0u) {
        return x;                                        // NaN, inf, zero: nothing to correct
    }
    var best = x;
    var bestd = abs(acc_from_f32_bits(x) * cv - av);
    for (var k = 0u; k < 2u; k = k + 1u) {
        let y = select(x + 1u, x - 1u, k == 0u);         // the neighbours, same sign
        if ((y & 0x7f800000u) == 0x7f800000u || (y ^ x) >= 0x80000000u) { continue; }
        let d = abs(acc_from_f32_bits(y) * cv - av);
        if (d < bestd || (d == bestd && (y & 1u) == 0u)) {
            best = y;
            bestd = d;
        }
    }
    return best;
}
