// split3.wgsl — the index families' fast path (index.wgsl, index_add.wgsl):
// when the shapes agree on every axis but dim, output element e is (outer
// o, coordinate c along dim, inner i), e = (o·J + c)·I + i, with I = P[6]
// (the product of the axes after dim) and J = P[7] (the output's dim
// length): one or two divisions instead of a div/mod per axis.

fn split3(e: u32) -> vec3<u32> {
    let I = P[6];
    var r = e;
    var i = 0u;
    if (I != 1u) {
        r = e / I;
        i = e - r * I;
    }
    let o = r / P[7];
    return vec3<u32>(o, r - o * P[7], i);
}
