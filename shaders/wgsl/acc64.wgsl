// acc64.wgsl — an f64 accumulator (ACC) for adapters with shader-f64, with
// the exact conversions the CPU contracts use: f32 -> f64 widening and
// f64 -> f32 narrowing with round-to-nearest-even (Go's float32(x)). Both
// are written so that no f32 subnormal ever passes through an f32 register
// or a float conversion (GPUs may flush them): subnormal f32 values are
// built from, and narrowed to, their integer mantissa.

alias ACC = f64;

// f32 bits -> f64, exact (subnormals included).
fn acc_from_f32_bits(b: u32) -> f64 {
    if (((b >> 23u) & 0xffu) == 0u) {
        var v = f64(b & 0x7fffffu) * 0x1p-149lf;     // m · 2^-149, exact
        if ((b & 0x80000000u) != 0u) {
            v = -v;
        }
        return v;
    }
    return f64(bitcast<f32>(b));                     // normal, inf, NaN: exact
}

// |x| as f32 bits for a finite x in [2^-126, max f32]: the conversion's
// result corrected to the nearer neighbour, ties to even (so the result
// does not depend on the conversion's rounding, only on it being within an
// ulp). Differences of neighbouring values are exact in f64.
fn f32_bits_normal(a: f64) -> u32 {
    let b = bitcast<u32>(f32(a));
    let err = a - f64(bitcast<f32>(b));
    if (err == 0.0lf) {
        return b;
    }
    var c = b + 1u;                                  // the neighbour on err's side
    if (err < 0.0lf) {
        c = b - 1u;
    }
    if (c < 0x00800000u || c >= 0x7f800000u) {
        return b;                                    // no finite normal neighbour there
    }
    let d = abs(f64(bitcast<f32>(c)) - a);
    let e = abs(err);
    if (d < e || (d == e && (c & 1u) == 0u)) {
        return c;
    }
    return b;
}

// f64 -> f32 bits, round to nearest even; a NaN gives the quiet NaN
// 0x7fc00000 (its payload is not kept).
fn acc_to_f32_bits(x: f64) -> u32 {
    if (!(x == x)) {                                 // NaN (written so: some compilers
        return 0x7fc00000u;                          // treat x != x as false)
    }
    if (x == 0.0lf) {
        return bitcast<u32>(f32(x));                 // ±0: the conversion keeps the sign
    }
    var s = 0u;
    var a = x;
    if (x < 0.0lf) {
        s = 0x80000000u;
        a = -x;
    }
    if (a >= 0x1.ffffffp127lf) {                     // >= max + half an ulp: inf
        return s | 0x7f800000u;
    }
    if (a < 0x1p-126lf) {                            // subnormal (or zero) result
        let q = a * 0x1p149lf;                       // in units of 2^-149, < 2^23
        let fl = floor(q);
        let r = q - fl;
        var m = u32(fl);
        if (r > 0.5lf || (r == 0.5lf && (m & 1u) == 1u)) {
            m = m + 1u;                              // may carry into 2^-126: still right
        }
        return s | m;
    }
    if (a > 0x1.fffffep127lf) {
        return s | 0x7f7fffffu;                      // above max, below the inf threshold
    }
    return s | f32_bits_normal(a);
}
