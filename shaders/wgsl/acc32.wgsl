// acc32.wgsl — an f32 accumulator (ACC) for families that fold in a fixed
// order: the fallback where the adapter has no shader-f64 (browsers).
// Included as a specialisation fragment (kernels/gpu picks acc32 or acc64).

alias ACC = f32;

// f32 bits as an accumulator value.
fn acc_from_f32_bits(b: u32) -> ACC {
    return bitcast<f32>(b);
}

// An accumulator narrowed to f32 bits (here: its own bits).
fn acc_to_f32_bits(x: ACC) -> u32 {
    return bitcast<u32>(x);
}
