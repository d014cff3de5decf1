// masked_fill.wgsl — masked_fill_b{1,2,4,8}: out[i] = mask[i] != 0 ? fill : in[i].
//
// Specialisation: EB (element bytes). The mask is BOOL, one byte per element,
// packed 4 per u32 word (byte i%4 of word i/4). One thread per element for
// 4- and 8-byte elements, one thread per output word for 1- and 2-byte ones.
// A pure select between raw bits: bit-exact for every dtype of the width.

@group(0) @binding(0) var<storage, read> P: array<u32>;       // [n, fill_lo, fill_hi]
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

fn masked(i: u32) -> bool {
    return ((mask[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu) != 0u;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    let n = P[0];
    if (EB == 4u) {
        if (t >= n) { return; }
        dst[GUARD + t] = select(src[t], P[1], masked(t));
    } else if (EB == 8u) {
        if (t >= n) { return; }
        let m = masked(t);
        dst[GUARD + 2u * t] = select(src[2u * t], P[1], m);
        dst[GUARD + 2u * t + 1u] = select(src[2u * t + 1u], P[2], m);
    } else {
        let per = 4u / EB;
        let bits = EB * 8u;
        let first = t * per;
        if (first >= n) { return; }
        var word = src[t];
        if (first + per > n) {
            word = dst[GUARD + t];          // last, partial word: keep the lanes past n
        }
        for (var l = 0u; l < per; l = l + 1u) {
            let e = first + l;
            if (e >= n) { break; }
            var v = (src[t] >> (l * bits)) & ((1u << bits) - 1u);
            if (masked(e)) {
                v = P[1];
            }
            word = put_lane(word, l, bits, v);
        }
        dst[GUARD + t] = word;
    }
}
