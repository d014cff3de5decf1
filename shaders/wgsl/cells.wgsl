// cells.wgsl — reduce_max_to_backward's map from an input element to its
// target cell (reduce_backward.wgsl, reduce_backward64.wgsl).
// P: [n_in, rank, shape[8], ostride[8]]: ostride is 0 on collapsed axes.

fn cell_of(i: u32) -> u32 {
    let rank = P[1];
    var r = i;
    var o = 0u;
    for (var a = i32(rank) - 1; a >= 0; a = a - 1) {
        let s = P[2u + u32(a)];
        o = o + (r % s) * P[10u + u32(a)];
        r = r / s;
    }
    return o;
}
