// padbw_io64.wgsl — pad_backward_gather's element access for F64 (DT 3):
// grads and outputs bound as f64 arrays (adapters with shader-f64 only;
// needs acc64.wgsl). The output's guard words are GUARD u32 = GUARD/2 f64.

alias GW = f64;
alias OW = f64;

fn gload(i: u32) -> ACC {
    return gout[i];
}

// Slots t0 + i·W, i < GU.
fn emit_many(t0: u32) {
    for (var i = 0u; i < GU; i = i + 1u) {
        emit(t0 + i * W);
    }
}

// Slot t: a sole contribution copied, else the sum; a zero stores +0, as
// the CPU's.
fn emit(t: u32) {
    if (t >= P[0]) { return; }
    var a: f64;
    let s = sole(t);
    if (s != NONE) {
        a = gout[s];
    } else {
        a = settle(t);
    }
    if (a == 0.0lf) {
        a = 0.0lf;
    }
    dst[GUARD / 2u + t] = a;
}

// Slot t when it is a sole contribution (as emit writes it); nothing
// otherwise (pad_backward_gather.wgsl's `listed` writes it).
fn emit_sole(t: u32) {
    if (t >= P[0]) { return; }
    let s = sole(t);
    if (s == NONE) { return; }
    var a = gout[s];
    if (a == 0.0lf) {
        a = 0.0lf;
    }
    dst[GUARD / 2u + t] = a;
}
