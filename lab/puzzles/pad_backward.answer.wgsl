// The grad_out coordinates [lo, hi] (x = lo, y = hi, inclusive) on axis a
// that pad(replicate) copied from input coordinate c.
fn src_range(a: u32, c: u32) -> vec2<u32> {
    let n = P.out_shape[a];
    let b = P.pad_before[a];
    var lo = c + b;
    var hi = c + b;
    if (c == 0u) {
        lo = 0u;                                  // the before padding copies x[0]
    }
    if (c + 1u == n) {
        hi = b + n - 1u + P.pad_after[a];         // the after padding copies x[n-1]
    }
    return vec2<u32>(lo, hi);
}
