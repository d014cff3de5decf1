// common.wgsl — prepended to every module by kernels/gpu.
//
// Conventions shared by every kernel of this project:
//  * Tensors travel as array<u32>: a 1-byte element is a lane of a word
//    (byte e%4 of word e/4, little-endian), a 2-byte element is a half-word,
//    an 8-byte element is a u32 pair (lo, hi).
//  * Output buffers carry GUARD poisoned words before and after the payload;
//    kernels index outputs as dst[GUARD + w]. The host checks the guards and
//    the unused tail lanes of the last word on every readback.
//  * The grid may be 2-D (when more than maxComputeWorkgroupsPerDimension
//    workgroups are needed): flat workgroup g = wid.y * nwg.x + wid.x.
//  * A thread never writes a word that another thread writes: sub-word
//    outputs are produced one thread per output word, or through CAS.

const W: u32 = 256u;       // workgroup size (every kernel)
const GUARD: u32 = 16u;    // guard words at each end of an output buffer
const NONE: u32 = 0xffffffffu;

fn group_id(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

fn thread_id(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return group_id(wid, nwg) * W + lid;
}

// Replace lane `lane` (of width `bits`) of word w by v.
fn put_lane(w: u32, lane: u32, bits: u32, v: u32) -> u32 {
    let sh = lane * bits;
    let m = ((1u << bits) - 1u) << sh;
    return (w & ~m) | ((v << sh) & m);
}

// ---- half <-> f32, written out in integer ops (no reliance on the
// implementation's pack/unpack rounding or denormal handling) ----

// f16 bits -> f32 bits (exact).
fn f16_bits_to_f32_bits(h: u32) -> u32 {
    let s = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0x1fu) {
        return s | 0x7f800000u | (m << 13u);           // inf / NaN (payload kept)
    }
    if (e == 0u) {
        if (m == 0u) {
            return s;                                   // ±0
        }
        // subnormal m·2^-24: normalise with one shift (no loop: lavapipe
        // stops an invocation after 65,535 loop iterations in all, and a
        // fold of many subnormal halves would spend them here)
        let sh = countLeadingZeros(m) - 21u;            // 1..10: brings bit 10 up
        return s | ((113u - sh) << 23u) | (((m << sh) & 0x3ffu) << 13u);
    }
    return s | ((e + 112u) << 23u) | (m << 13u);
}

// f32 bits -> f16 bits, round to nearest even; NaN stays NaN (quiet).
fn f32_bits_to_f16_bits(b: u32) -> u32 {
    let s = (b >> 16u) & 0x8000u;
    let a = b & 0x7fffffffu;
    if (a > 0x7f800000u) {
        return s | 0x7e00u | ((a >> 13u) & 0x3ffu);
    }
    if (a >= 0x477ff000u) {                              // >= 65520 rounds to inf
        return s | 0x7c00u;
    }
    if (a >= 0x38800000u) {                              // normal f16 (>= 2^-14)
        let r = a + 0x0fffu + ((a >> 13u) & 1u);
        return s | ((r - 0x38000000u) >> 13u);
    }
    if (a < 0x33000000u) {                               // < 2^-25 (tie at 2^-25 -> 0, even)
        return s;
    }
    let e = a >> 23u;                                   // subnormal result, unit 2^-24
    let m = (a & 0x7fffffu) | 0x800000u;
    let shift = 126u - e;                               // 14..24
    let q = m >> shift;
    let rem = m & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    var out = q;
    if (rem > half || (rem == half && (q & 1u) == 1u)) {
        out = q + 1u;
    }
    return s | out;
}

// bf16 bits -> f32 bits (exact).
fn bf16_bits_to_f32_bits(h: u32) -> u32 {
    return (h & 0xffffu) << 16u;
}

// f32 bits -> bf16 bits, round to nearest even; NaN forced quiet so a NaN
// with a low-only payload cannot round to inf.
fn f32_bits_to_bf16_bits(b: u32) -> u32 {
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return ((b >> 16u) | 0x0040u) & 0xffffu;
    }
    return ((b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u) & 0xffffu;
}

// ---- IEEE comparisons on f32 bit patterns (integer only, so subnormals
// and signed zeros compare exactly as on the CPU) ----

fn isnan32(b: u32) -> bool {
    return (b & 0x7fffffffu) > 0x7f800000u;
}

fn fkey(b: u32) -> u32 {
    if ((b & 0x80000000u) != 0u) {
        return ~b;
    }
    return b | 0x80000000u;
}

// IEEE a > b for non-NaN a, b (+0 and -0 are equal).
fn gt32(a: u32, b: u32) -> bool {
    if (((a | b) & 0x7fffffffu) == 0u) {
        return false;
    }
    return fkey(a) > fkey(b);
}

// IEEE a == b (NaN equals nothing; +0 == -0).
fn eq32(a: u32, b: u32) -> bool {
    if (isnan32(a) || isnan32(b)) {
        return false;
    }
    return a == b || ((a | b) & 0x7fffffffu) == 0u;
}
