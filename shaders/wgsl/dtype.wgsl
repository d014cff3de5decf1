// dtype.wgsl — element-dtype helpers for the families that compute in f32 on
// F32/F16/BF16 data (reduce, reduce_backward, pad_backward). Included by a
// family's `//! uses: dtype.wgsl` line; needs the specialisation constant
// DT (0 f32, 1 f16, 2 bf16). Halves widen exactly and narrow with
// round-to-nearest-even in integer code (common.wgsl), never through
// pack2x16float, whose rounding WGSL leaves to the implementation.

// Element bits (16-bit halves in the low bits) widened exactly to f32 bits.
fn wide(b: u32) -> u32 {
    if (DT == 1u) {
        return f16_bits_to_f32_bits(b);
    }
    if (DT == 2u) {
        return bf16_bits_to_f32_bits(b);
    }
    return b;
}

// widen is wide as an f32 value.
fn widen(b: u32) -> f32 {
    return bitcast<f32>(wide(b));
}

// An f32 narrowed to the element dtype's bits (RNE for halves).
fn narrow(f: f32) -> u32 {
    if (DT == 1u) {
        return f32_bits_to_f16_bits(bitcast<u32>(f));
    }
    if (DT == 2u) {
        return f32_bits_to_bf16_bits(bitcast<u32>(f));
    }
    return bitcast<u32>(f);
}
