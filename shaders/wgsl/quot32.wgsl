// quot32.wgsl — f32 a / integer c with the adapter's f32 division (WGSL
// allows 2.5 ulp), where there is no shader-f64 for quot64.wgsl.
fn quot_bits(a: u32, c: u32) -> u32 {
    return bitcast<u32>(bitcast<f32>(a) / f32(c));
}
