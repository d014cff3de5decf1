// The input coordinate that coordinate j (-(n-1) <= j <= 2(n-1)) of an
// axis of n elements copies from, in [0, n).
fn reflect_src(j: i32, n: i32) -> i32 {
    if (j < 0) {
        return -j;
    }
    if (j >= n) {
        return 2 * (n - 1) - j;
    }
    return j;
}
