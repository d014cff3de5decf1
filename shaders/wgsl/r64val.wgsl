// r64val.wgsl — reduce64.wgsl's extremum value (FIN 2): the winner's own
// f64 moved from x (its bits kept), or the ∓inf seed when there is no
// candidate (empty, all NaN).

alias DW = f64;

fn r_emit(seg: u32, base: u32, v: R) {
    if (v.z == NONE) {
        dst[GUARD / 2u + seg] = cst[select(3u, 2u, OP == 1u)];
        return;
    }
    dst[GUARD / 2u + seg] = x8[base + seg_off(v.z)];
}
