// The input coordinate that coordinate j (any value) of an axis of n >= 1
// elements copies from, in [0, n): circular when symmetric is false.
fn wrap_src(j: i32, n: i32, symmetric: bool) -> i32 {
    var period = u32(n);
    if (symmetric) {
        period = 2u * u32(n);
    }
    var m = u32(abs(j)) % period;      // the remainder in u32: j < 0 brought into range below
    if (j < 0 && m != 0u) {
        m = period - m;
    }
    if (!symmetric || m < u32(n)) {
        return i32(m);
    }
    return 2 * n - 1 - i32(m);
}
