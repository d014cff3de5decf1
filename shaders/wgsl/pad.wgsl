// pad.wgsl — the fuel-vulkan-kernels byte movers: pad_{const,reflect,replicate}_b{1,2,4,8}
// (DIR = 0) and pad_backward_const_b{1,2,4,8} (DIR = 1, MODE = 0), and this
// project's own modes' pad_MODE (fkc-wgsl-kernels).
//
// Specialisation: EB (element bytes 1|2|4|8), MODE (the kernels.Mode number:
// 0 constant, 1 reflect, 2 replicate, 3 circular, 4 symmetric), DIR (0
// forward pad, 1 constant-pad backward = gather).
//
// One thread per output element; for 1- and 2-byte elements one thread per
// output u32 word (it assembles its 4 or 2 lanes), so no word has two writers.
// No arithmetic on the data: bit-exact for every dtype of the width.
//
// Forward (per axis, j = out_coord - left_pad, n = in_dim):
//   constant: 0 <= j < n ? in[j] : fill;  reflect: j<0 -> -j, j>=n -> 2(n-1)-j;
//   replicate: clamp(j, 0, n-1); circular: j mod n; symmetric: m = j mod 2n,
//   m < n ? m : 2n-1-m. The reflect precondition
//   (pads <= n-1) and the empty-axis rules are checked by the host before
//   dispatch (kernels.PadOutShape).
// Backward constant: grad_in[c] = grad_out[c + left_pad] (one read per input slot).
//
// TAB = 1 (forward, rank >= 1, innermost output axis >= 4): shape_buf holds
// host-built tables instead of the shapes: rowtab[r] = source element offset
// of output row r (its outer coordinates mapped through the mode, NONE for a
// constant-fill row), then coltab[col] = mapped innermost coordinate (NONE:
// fill), at word P[1]. Output element e = (row e / n_last, col e % n_last)
// costs one division and two cached table reads instead of a div/mod chain
// over every axis; P: [n_elems, rows, fill_lo, fill_hi, n_last].

@group(0) @binding(0) var<storage, read> P: array<u32>;          // [n_elems, rank, fill_lo, fill_hi]
@group(0) @binding(1) var<storage, read> shape_buf: array<u32>;  // [in_shape, out_shape, left_pad] (rank each)
@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

// The input coordinate that output coordinate c of an axis (n_in inputs,
// lp padded before) reads by MODE's rule (kernels.PadModes' Source), or
// NONE for a constant-fill slot.
fn axis_source(c: u32, lp: u32, n_in: u32) -> u32 {
    if (MODE >= 3u) {
        // The periodic modes, in u32 (no i32 wrap at any size): j = c - lp
        // = k·n_in + r with 0 <= r < n_in; circular reads r, symmetric r
        // in the even copies k and n_in - 1 - r in the odd (mirrored) ones.
        var r = 0u;
        var odd = false;
        if (c >= lp) {
            let d = c - lp;
            let q = d / n_in;
            r = d - q * n_in;
            odd = (q & 1u) == 1u;
        } else {
            // j = -(d + 1), d = q·n_in + r': k = -(q + 1), r = n_in - 1 - r'
            let d = lp - c - 1u;
            let q = d / n_in;
            r = n_in - 1u - (d - q * n_in);
            odd = (q & 1u) == 0u;
        }
        if (MODE == 4u && odd) {
            r = n_in - 1u - r;
        }
        return r;
    }
    var j = i32(c) - i32(lp);
    let n = i32(n_in);
    if (MODE == 0u) {
        if (j < 0 || j >= n) {
            return NONE;
        }
    } else if (MODE == 1u) {
        if (j < 0) { j = -j; }
        if (j >= n) { j = 2 * (n - 1) - j; }
    } else {
        j = clamp(j, 0, n - 1);
    }
    return u32(j);
}

// Flat source element index of destination element e, or NONE for a
// constant-fill slot.
fn source_index(e: u32) -> u32 {
    let rank = P[1];
    var rem = e;
    var s = 0u;
    var stride = 1u;
    for (var a = i32(rank) - 1; a >= 0; a = a - 1) {
        let ax = u32(a);
        let n_in = shape_buf[ax];
        let n_out = shape_buf[rank + ax];
        let lp = shape_buf[2u * rank + ax];
        if (DIR == 0u) {
            let c = rem % n_out;
            rem = rem / n_out;
            let i = axis_source(c, lp, n_in);
            if (i == NONE) {
                return NONE;
            }
            s = s + i * stride;
            stride = stride * n_in;
        } else {
            let c = rem % n_in;
            rem = rem / n_in;
            s = s + (c + lp) * stride;
            stride = stride * n_out;
        }
    }
    return s;
}

fn source_index_tab(e: u32) -> u32 {
    let nl = P[4];
    let row = e / nl;
    let rs = shape_buf[row];
    let cs = shape_buf[P[1] + (e - row * nl)];
    if (rs == NONE || cs == NONE) {
        return NONE;
    }
    return rs + cs;
}

fn source_of(e: u32) -> u32 {
    if (TAB == 1u) {
        return source_index_tab(e);
    }
    return source_index(e);
}

fn load_lane(s: u32) -> u32 {
    if (EB == 1u) {
        return (src[s >> 2u] >> ((s & 3u) * 8u)) & 0xffu;
    }
    return (src[s >> 1u] >> ((s & 1u) * 16u)) & 0xffffu;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    let n = P[0];
    if (EB == 4u) {
        if (t >= n) { return; }
        let s = source_of(t);
        if (s == NONE) {
            dst[GUARD + t] = P[2];
        } else {
            dst[GUARD + t] = src[s];
        }
    } else if (EB == 8u) {
        if (t >= n) { return; }
        let s = source_of(t);
        if (s == NONE) {
            dst[GUARD + 2u * t] = P[2];
            dst[GUARD + 2u * t + 1u] = P[3];
        } else {
            dst[GUARD + 2u * t] = src[2u * s];
            dst[GUARD + 2u * t + 1u] = src[2u * s + 1u];
        }
    } else {
        let per = 4u / EB;
        let bits = EB * 8u;
        let first = t * per;
        if (first >= n) { return; }
        var word = 0u;
        if (first + per > n) {
            word = dst[GUARD + t];          // last, partial word: keep the lanes past n
        }
        for (var l = 0u; l < per; l = l + 1u) {
            let e = first + l;
            if (e >= n) { break; }
            let s = source_of(e);
            var v = 0u;
            if (s == NONE) {
                v = P[2];
            } else {
                v = load_lane(s);
            }
            word = put_lane(word, l, bits, v);
        }
        dst[GUARD + t] = word;
    }
}
