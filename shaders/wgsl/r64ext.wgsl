// r64ext.wgsl — reduce64.wgsl's extrema (OP 1 max, 2 min): a fold is
// (key hi, key lo, k), k = NONE for no candidate; a stored partial is the
// candidate's k alone (its key is read again from x). The key orders the
// element's bits as IEEE values (integer compares only, so subnormals and
// signed zeros compare exactly): larger is better for OP, -0 ties +0, NaN
// is no candidate. Equal keys -> the smaller k: the first element equal to
// the extremum, as the CPU's strict scan finds it.

alias R = vec3<u32>;
alias PW = u32;

fn r_none() -> R {
    return vec3<u32>(0u, 0u, NONE);
}

// Element e (the segment's k-th) as a candidate.
fn r_elem(e: u32, k: u32) -> R {
    let lo = x[2u * e];
    let hi = x[2u * e + 1u];
    let a = hi & 0x7fffffffu;
    if (a > 0x7ff00000u || (a == 0x7ff00000u && lo != 0u)) {
        return r_none();                             // NaN
    }
    var kh = hi;
    var kl = lo;
    if (a == 0u && lo == 0u) {
        kh = 0u;                                     // -0 as +0
    }
    if ((kh & 0x80000000u) != 0u) {
        kh = ~kh;
        kl = ~kl;
    } else {
        kh = kh | 0x80000000u;
    }
    if (OP == 2u) {
        kh = ~kh;
        kl = ~kl;
    }
    return vec3<u32>(kh, kl, k);
}

fn r_part(seg: u32, base: u32, i: u32) -> R {
    let k = pin[i];
    if (k == NONE) {
        return r_none();
    }
    return r_elem(base + seg_off(k), k);
}

fn r_comb(a: R, b: R) -> R {
    if (b.z == NONE) { return a; }
    if (a.z == NONE) { return b; }
    if (b.x > a.x || (b.x == a.x && (b.y > a.y || (b.y == a.y && b.z < a.z)))) {
        return b;
    }
    return a;
}

fn r_store(g: u32, v: R) {
    pout[g] = v.z;
}
