//go:build !js

package gpu

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/shaders/wgsl"
)

// runExact runs a one-binding-in, one-binding-out test module built from
// common.wgsl, acc64.wgsl, quot64.wgsl and body (which declares `inp` and
// `outp`), one thread per output word, and returns the output bytes.
func runExact(t *testing.T, d *Device, name, body string, in []byte, outBytes int) []byte {
	t.Helper()
	var src string
	for _, f := range []string{"common.wgsl", "acc64.wgsl", "quot64.wgsl"} {
		s, err := wgsl.Source(f)
		if err != nil {
			t.Fatal(err)
		}
		src += s + "\n"
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	p, err := d.pipeline(kernelSpec{name: name, entry: "main", src: src + body, rw: []bool{false, true}})
	if err != nil {
		t.Fatal(err)
	}
	j := d.begin(name)
	ib := j.input("in", in)
	o := j.output("out", outBytes, nil, true)
	j.dispatch(p, groupsFor(uint64(outBytes/4)), ib, o.buf)
	if err := j.run(); err != nil {
		t.Fatal(err)
	}
	return o.data
}

// The exact conversions and division the f64 paths rely on (acc64.wgsl,
// quot64.wgsl), checked against Go's float32 conversion and division (both
// round to nearest even) on values chosen to make rounding matter:
// neighbours of halfway points, subnormals, the overflow edge, counts past
// 2^24 (divided as f32(count), as the oracle does).
func TestExactConversionsAndQuotient(t *testing.T) {
	d := device(t)
	if !d.Info().ShaderF64 {
		t.Skip("adapter has no shader-f64")
	}
	r := rand.New(rand.NewSource(70))
	// f64 -> f32 bits.
	var vals []float64
	for range 3000 {
		x := math.Float32frombits(r.Uint32() & 0x7f7fffff) // finite, positive
		y := math.Nextafter32(x, float32(math.Inf(1)))
		mid := (float64(x) + float64(y)) / 2 // an exact f64 tie
		vals = append(vals, mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1)), -mid, float64(x)*(1+r.Float64()*0x1p-20))
	}
	vals = append(vals, 0x1p-149, 0x1p-150, 0x1.8p-150, 0x1.0000001p-150, 0x1p-126, 0x1.fffffep-127, 0x1.ffffffp-127,
		math.MaxFloat32, 0x1.ffffffp127, math.Nextafter(0x1.ffffffp127, 0), 1e300, -1e300, math.Inf(1), math.Inf(-1), 1e-300, 0)
	in := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(in[8*i:], math.Float64bits(v))
	}
	got := runExact(t, d, "test_f64_to_f32", `
@group(0) @binding(0) var<storage, read> inp: array<f64>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    if (t < arrayLength(&inp)) { outp[GUARD + t] = acc_to_f32_bits(inp[t]); }
}`, in, 4*len(vals))
	for i, v := range vals {
		want := math.Float32bits(float32(v))
		if g := binary.LittleEndian.Uint32(got[4*i:]); g != want {
			t.Errorf("f64 %v (%#x) -> f32: got %#x, want %#x", v, math.Float64bits(v), g, want)
		}
	}

	// f32 bits -> f64 (subnormals included), and a / c.
	var as []uint32
	var cs []uint32
	for range 4000 {
		a := r.Uint32() &^ 0x7f800000
		a |= uint32(r.Intn(255)) << 23 // finite, subnormals for exponent 0
		c := uint32(1 + r.Intn(1000))
		if r.Intn(4) == 0 {
			c = uint32(1 + r.Intn(1<<28-1))
		}
		as, cs = append(as, a), append(cs, c)
	}
	as, cs = append(as, 0, 0x80000000, 0x7f800000, 0x00000001, 0x00800000, 0x7f7fffff), append(cs, 3, 7, 3, 3, 3, 1)
	in = make([]byte, 8*len(as))
	for i := range as {
		binary.LittleEndian.PutUint32(in[8*i:], as[i])
		binary.LittleEndian.PutUint32(in[8*i+4:], cs[i])
	}
	got = runExact(t, d, "test_quot", `
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    if (2u * t < arrayLength(&inp)) {
        let w = acc_to_f32_bits(acc_from_f32_bits(inp[2u * t]));   // round trip: the identity
        outp[GUARD + t] = select(0xdeadbeefu, quot_bits(inp[2u * t], inp[2u * t + 1u]), w == inp[2u * t]);
    }
}`, in, 4*len(as))
	for i := range as {
		want := math.Float32bits(math.Float32frombits(as[i]) / float32(cs[i]))
		if g := binary.LittleEndian.Uint32(got[4*i:]); g != want {
			t.Errorf("%#x (%g) / %d: got %#x, want %#x", as[i], math.Float32frombits(as[i]), cs[i], g, want)
		}
	}
}
