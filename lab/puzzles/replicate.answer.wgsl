// The input coordinate that coordinate j (any value) of an axis of n >= 1
// elements copies from, in [0, n).
fn replicate_src(j: i32, n: i32) -> i32 {
    return clamp(j, 0, n - 1);
}
