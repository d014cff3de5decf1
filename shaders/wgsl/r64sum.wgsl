// r64sum.wgsl — reduce64.wgsl's sums (OP 0): a fold is an f64, added in
// f64; partials and outputs are f64. FIN 1 (mean) divides by K once (the
// host answers an empty axis itself).

alias R = f64;
alias PW = f64;
alias DW = f64;

fn r_none() -> R {
    return cst[0];                                   // +0, read at run time
}

fn r_elem(e: u32, k: u32) -> R {
    return x8[e];
}

fn r_part(seg: u32, base: u32, i: u32) -> R {
    return pin[i];
}

fn r_comb(a: R, b: R) -> R {
    return a + b;
}

fn r_store(g: u32, v: R) {
    pout[g] = v;
}

fn r_emit(seg: u32, base: u32, v: R) {
    var out = v;
    if (FIN == 1u) {
        out = v / f64(P[1]);
    }
    dst[GUARD / 2u + seg] = out;
}
