// r64arg.wgsl — reduce64.wgsl's arg index (FIN 3): the winner's k as U32.
// As in the CPU's scan, seeded with element 0 and compared strictly, a
// NaN at k = 0 is never beaten, and no candidate at all also gives 0.

alias DW = u32;

fn r_emit(seg: u32, base: u32, v: R) {
    var k = v.z;
    if (k == NONE || r_elem(base, 0u).z == NONE) {
        k = 0u;
    }
    dst[GUARD + seg] = k;
}
