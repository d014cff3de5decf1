// addio64.wgsl — the adds' element access (index_add.wgsl) for F64, on
// adapters with shader-f64: data, src and dst bound as f64 arrays, one
// element per output unit (PER = 1), adds in f64 (IEEE, as the CPU's).
// The output's guard words are GUARD u32 = GUARD/2 f64.

alias EW = f64;
alias AV = f64;
const SROWN: u32 = 2048u;                   // f64 of a staged row: 16 KiB

fn load_data(e: u32) -> AV {
    return data[e];
}

fn load_src(e: u32) -> AV {
    return src[e];
}

fn staged_src(k: u32) -> AV {
    return srow[k];
}

fn add(acc: AV, v: AV) -> AV {
    return acc + v;
}

fn unit_read(w: u32) -> EW {
    return dst[GUARD / 2u + w];
}

fn unit_lane(u: EW, l: u32) -> AV {
    return u;
}

fn unit_set(u: EW, l: u32, v: AV) -> EW {
    return v;
}

fn unit_write(w: u32, u: EW) {
    dst[GUARD / 2u + w] = u;
}
