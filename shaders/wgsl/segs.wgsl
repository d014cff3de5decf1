// segs.wgsl — the segment walk of the reductions (reduce.wgsl,
// reduce64.wgsl): output `seg` folds the K input elements
// x[seg_base(seg) + seg_off(k)], k = 0..K-1, where seg_base walks the kept
// axes and seg_off the reduced ("collapsed") axes, both row-major.
// P: [n_seg, K, Kcur, C, level0, nk, nc, 0, ksize[8], kstride[8],
//     csize[8], cstride[8]]

fn seg_base(seg: u32) -> u32 {
    var off = 0u;
    var r = seg;
    for (var a = i32(P[5]) - 1; a >= 0; a = a - 1) {
        let s = P[8u + u32(a)];
        off = off + (r % s) * P[16u + u32(a)];
        r = r / s;
    }
    return off;
}

fn seg_off(k: u32) -> u32 {
    let nc = P[6];
    if (nc == 1u) {
        return k * P[32];
    }
    var off = 0u;
    var q = k;
    for (var a = i32(nc) - 1; a >= 0; a = a - 1) {
        let s = P[24u + u32(a)];
        off = off + (q % s) * P[32u + u32(a)];
        q = q / s;
    }
    return off;
}
