// The element of data that output element o (a flat, row-major index)
// copies.
fn src_of(o: u32) -> u32 {
    var rest = o;
    var src = 0u;
    for (var a = i32(P.rank) - 1; a >= 0; a = a - 1) {   // last axis first
        var c = rest % P.out_shape[a];
        rest = rest / P.out_shape[a];
        if (u32(a) == P.dim) {
            c = indices[o];
        }
        src = src + c * P.a_strides[a];
    }
    return src;
}
