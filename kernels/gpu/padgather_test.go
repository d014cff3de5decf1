//go:build !js

package gpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// allModes is every mode of the mode table.
var allModes = func() (ms []kernels.Mode) {
	for _, pm := range kernels.PadModes {
		ms = append(ms, pm.Mode)
	}
	return ms
}()

// specialGrads sets some elements of a float grad to values that make the
// f64 -> f32 -> half narrowing matter: subnormals, halfway cases, huge
// values whose sums overflow, signed zeros.
func specialGrads(r *rand.Rand, g *tensor.Tensor) {
	specials := []float64{
		0x1p-149, -0x1p-149, 0x1.8p-148, 0x1p-130, 0x1.fffffcp-127, // f32 subnormals
		0x1p-25, 0x1.0000018p0, 1 + 0x1p-24, 1 + 0x1p-23, // ties for f32 and halves
		3e38, -3e38, 65504, 60000, 0x1p-24, // overflow in sums (f32, f16)
		math.Copysign(0, -1), 0, 1e-300,
	}
	n := g.NumElems()
	for range min(n, 1+n/4) {
		g.Set(r.Intn(n), specials[r.Intn(len(specials))])
	}
}

// sameBitsOrNaN is sameBits where a NaN matches any NaN: a NaN sum's sign
// and payload are not kept (x86's inf + -inf is a negative NaN, a GPU's
// need not be).
func sameBitsOrNaN(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	g, w := got.Clone(), want.Clone()
	if g.DType == w.DType && g.NumElems() == w.NumElems() {
		for i := range g.NumElems() {
			if math.IsNaN(g.At(i)) && math.IsNaN(w.At(i)) {
				g.Set(i, 0)
				w.Set(i, 0)
			}
		}
	}
	sameBits(t, what, g, w)
}

// The deterministic pad backward equals the CPU contract bit for bit where
// the adapter has shader-f64, on every mode, dtype and shape class (rank
// 0-8, sizes around the workgroup, pads 0, n-1, >= n), and gives the same
// bits on a second run.
func TestPadBackwardGatherBitwise(t *testing.T) {
	d := device(t)
	if !d.Info().ShaderF64 {
		t.Skip("adapter has no shader-f64: the f32-accumulate variant is tested in TestPadBackwardGatherF32Acc")
	}
	r := rand.New(rand.NewSource(40))
	cases := append(padCases(),
		padCase{[]int{2}, pp(5000, 5000)},        // replicate: 5000 contributions per slot
		padCase{[]int{2, 2}, pp(40, 40, 40, 40)}, // replicate: corner slots gather 41·41
		padCase{[]int{1, 1}, pp(0, 0, 0, 0)},
		padCase{[]int{4, 1, 3}, pp(0, 3, 2, 2, 1, 0)},
	)
	defer func() { d.forceThreads = false }()
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16, tensor.F64} {
		for _, mode := range allModes {
			for i := range 2 * len(cases) {
				c := cases[i/2]
				if mode == kernels.Reflect && !reflectOK(c) {
					continue
				}
				// Each case twice, the second time as threadsOverTrees
				// adapters take it (`soles`, then the listed words).
				d.forceThreads = i%2 == 1
				outShape, err := kernels.PadOutShape("pad", mode, c.shape, c.pads)
				if err != nil {
					continue // replicate of an empty axis etc.
				}
				g := randFloat(r, dt, outShape, 1)
				specialGrads(r, g)
				name := fmt.Sprintf("%v/%v/%v/%v threads %v", dt, mode, c.shape, c.pads, d.forceThreads)
				want, err := cpu.PadBackward(g, mode, c.pads)
				if err != nil {
					t.Fatalf("%s: cpu: %v", name, err)
				}
				before := g.Clone()
				got, err := d.PadBackwardGather(g, mode, c.pads)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				sameBitsOrNaN(t, name, got, want)
				sameBits(t, name+" (input unchanged)", g, before)
				again, err := d.PadBackwardGather(g, mode, c.pads)
				if err != nil {
					t.Fatalf("%s: second run: %v", name, err)
				}
				sameBits(t, name+" (run to run)", again, got)
			}
		}
	}
}

// `main` with 1, 3 and 8 output words a thread (gatherUnits) gives the
// bits of 2 words (and, with shader-f64, the CPU's): sole slots and
// sums mixed, a word count that is no multiple of the units, and chains
// long enough for several passes (more, the more units).
func TestPadBackwardGatherUnits(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(42))
	defer func(u, v int) { gatherUnits, gatherUnitsSoftware = u, v }(gatherUnits, gatherUnitsSoftware)
	cases := []struct {
		shape []int
		pads  []kernels.Pad
		mode  kernels.Mode
	}{
		{[]int{3, 70, 61}, pp(0, 0, 2, 3, 1, 2), kernels.Reflect},
		{[]int{5, 33}, pp(4, 1, 0, 7), kernels.Replicate},
		{[]int{2}, pp(20000, 20000), kernels.Replicate}, // 40,001 contributions: 3 to 20 passes
		{[]int{9, 130}, pp(1, 1, 3, 3), kernels.Constant},
	}
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16} {
		for _, c := range cases {
			outShape, err := kernels.PadOutShape("pad", c.mode, c.shape, c.pads)
			if err != nil {
				t.Fatal(err)
			}
			g := randFloat(r, dt, outShape, 1)
			specialGrads(r, g)
			gatherUnits, gatherUnitsSoftware = 2, 2
			want, err := d.PadBackwardGather(g, c.mode, c.pads)
			if err != nil {
				t.Fatal(err)
			}
			if d.Info().ShaderF64 {
				cw, err := cpu.PadBackward(g, c.mode, c.pads)
				if err != nil {
					t.Fatal(err)
				}
				sameBitsOrNaN(t, fmt.Sprintf("%v %v %v units 2 vs cpu", dt, c.mode, c.shape), want, cw)
			}
			for _, u := range []int{1, 3, 8} {
				gatherUnits, gatherUnitsSoftware = u, u
				got, err := d.PadBackwardGather(g, c.mode, c.pads)
				if err != nil {
					t.Fatal(err)
				}
				sameBitsOrNaN(t, fmt.Sprintf("%v %v %v units %d", dt, c.mode, c.shape, u), got, want)
			}
		}
	}
}

// 524,176 gradients folding onto the 4 slots of a 2×2
// input (replicate 361 on both axes) — the CAS kernel's retry limit on the
// H200 — come out exact here, equal to the CPU.
func TestPadBackwardGatherContended(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(41))
	pads := pp(361, 361, 361, 361)
	g := randFloat(r, tensor.F32, []int{724, 724}, 1)
	got, err := d.PadBackwardGather(g, kernels.Replicate, pads)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Info().ShaderF64 {
		return
	}
	want, err := cpu.PadBackward(g, kernels.Replicate, pads)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "replicate 361 onto 2x2", got, want)
}

// NaN sums are NaN (their payload is not kept).
func TestPadBackwardGatherNaN(t *testing.T) {
	d := device(t)
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16, tensor.F64} {
		if dt == tensor.F64 && !d.Info().ShaderF64 {
			continue
		}
		g := tensor.New(dt, []int{5})
		for i, v := range []float64{1, math.NaN(), 2, math.Inf(1), math.Inf(-1)} {
			g.Set(i, v)
		}
		got, err := d.PadBackwardGather(g, kernels.Replicate, pp(1, 1))
		if err != nil {
			t.Fatal(err)
		}
		// slots: [1+NaN, 2, inf + -inf]
		if !math.IsNaN(got.At(0)) || got.At(1) != 2 || !math.IsNaN(got.At(2)) {
			t.Errorf("%v: got %v %v %v, want NaN 2 NaN", dt, got.At(0), got.At(1), got.At(2))
		}
	}
}

// Without shader-f64 the kernel accumulates in f32: same bits run to run,
// within the f32 bound of the exact sum; F64 is unavailable, a typed error.
func TestPadBackwardGatherF32Acc(t *testing.T) {
	d := device(t)
	saved := d.info.ShaderF64
	d.info.ShaderF64 = false
	defer func() { d.info.ShaderF64 = saved }()
	r := rand.New(rand.NewSource(42))
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
		for _, mode := range allModes[1:] { // the modes that fold
			for _, c := range append(padCases(), padCase{[]int{2}, pp(3000, 3000)}) {
				if len(c.shape) == 0 || !takes(mode, c) {
					continue
				}
				outShape, _ := kernels.PadOutShape("pad", mode, c.shape, c.pads)
				g := randFloat(r, dt, outShape, 1)
				name := fmt.Sprintf("%v/%v/%v/%v", dt, mode, c.shape, c.pads)
				got, err := d.PadBackwardGather(g, mode, c.pads)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				again, _ := d.PadBackwardGather(g, mode, c.pads)
				sameBits(t, name+" (run to run)", again, got)
				_, sum, cnt, mag := refPadBackwardAcc(g, mode, c.pads)
				u := unitRoundoff(dt)
				for i := range sum {
					tol := float64(cnt[i]+1) * 0x1p-24 * mag[i]
					tol += u * math.Abs(sum[i]) // the one narrowing to a half
					if diff := math.Abs(got.At(i) - sum[i]); !(diff <= tol) {
						t.Errorf("%s: slot %d: got %g, want %g ± %g", name, i, got.At(i), sum[i], tol)
						break
					}
				}
			}
		}
	}
	_, err := d.PadBackwardGather(tensor.New(tensor.F64, []int{4}), kernels.Reflect, pp(1, 1))
	var u *kernels.Unavailable
	if !errors.As(err, &u) || u.Need != "shader-f64" {
		t.Errorf("f64 without shader-f64: got %v, want *kernels.Unavailable needing shader-f64", err)
	}
}

// Bad calls get the CPU's words.
func TestPadBackwardGatherErrors(t *testing.T) {
	d := device(t)
	x := tensor.New(tensor.F32, []int{2, 3})
	for _, c := range []struct {
		name string
		g    *tensor.Tensor
		mode kernels.Mode
		pads []kernels.Pad
	}{
		{"backward too small", x, kernels.Reflect, pp(0, 0, 2, 2)},
		{"dtype", tensor.New(tensor.I32, []int{4}), kernels.Reflect, pp(1, 1)},
		{"padding rank", x, kernels.Replicate, pp(1, 1)},
		{"bad mode", x, kernels.Mode(9), pp(0, 0, 1, 1)},
	} {
		_, ge := d.PadBackwardGather(c.g, c.mode, c.pads)
		_, ce := cpu.PadBackward(c.g, c.mode, c.pads)
		if ge == nil || ce == nil || ge.Error() != ce.Error() {
			t.Errorf("%s: gpu %v, cpu %v", c.name, ge, ce)
		}
	}
}

// A one-pass pad backward needs no carried state: a gradient whose f64
// state (8 bytes a slot) would pass the adapter's binding limit still runs
// when no slot needs a second pass (the Judge's H200 sweep was refused at
// 2^26 half slots for a 512 MiB state it never uses).
func TestPadBackwardGatherNoStateInOnePass(t *testing.T) {
	d := device(t)
	limit := min(d.Info().MaxStorageBufferBindingSize, d.Info().MaxBufferSize)
	rows := int(limit/8/64) + 16 // input [rows, 64]: an f64 state past the limit, the F16 data within it
	g := tensor.New(tensor.F16, []int{rows + 2, 66})
	for i := range g.NumElems() {
		g.Set(i, float64(i%7)-3)
	}
	got, err := d.PadBackwardGather(g, kernels.Replicate, pp(1, 1, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu.PadBackward(g, kernels.Replicate, pp(1, 1, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "f16 replicate", got, want)
}

// padMostSources, from the shapes alone, never undercounts the tables'
// longest chain (the state it sizes must hold every carried slot), and is
// exact for replicate.
func TestPadMostSourcesBound(t *testing.T) {
	r := rand.New(rand.NewSource(43))
	for range 500 {
		rank := 1 + r.Intn(3)
		in := make([]int, rank)
		pads := make([]kernels.Pad, rank)
		for a := range in {
			in[a] = 1 + r.Intn(6)
			pads[a] = kernels.Pad{Before: r.Intn(in[a] + 3), After: r.Intn(in[a] + 3)}
		}
		for _, mode := range allModes {
			pads := slices.Clone(pads)
			if mode == kernels.Reflect {
				for a := range pads {
					pads[a].Before, pads[a].After = min(pads[a].Before, in[a]-1), min(pads[a].After, in[a]-1)
				}
			}
			out, err := kernels.PadOutShape("pad", mode, in, pads)
			if err != nil {
				continue
			}
			_, _, maxC := padGatherTables(in, out, pads, mode)
			got := padMostSources(in, pads, mode)
			if got < maxC || (mode == kernels.Replicate && got != maxC) {
				t.Fatalf("%v %v %v: bound %d, tables %d", mode, in, pads, got, maxC)
			}
		}
	}
}

// The device's cached tables (padTables) are handed out so that a call's
// own changes — its pass words, the listed words appended to T — never
// reach the cache: a later call of the shape gets the tables as built.
func TestPadTablesCached(t *testing.T) {
	d := device(t)
	in, out := []int{3, 5, 7}, []int{3, 9, 11}
	pads := pp(0, 0, 2, 2, 2, 2)
	wantP, wantT, _ := padGatherTables(in, out, pads, kernels.Reflect)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.padTabs = nil
	for range 3 {
		p, tw := d.padTables(in, out, pads, kernels.Reflect)
		if !slices.Equal(p, wantP) || !slices.Equal(tw, wantT) {
			t.Fatalf("cached tables differ from a fresh build")
		}
		p[8], p[14] = 77, 99
		tw = append(tw, 1, 2, 3)
		tw[0] = 12345
	}
	if len(d.padTabs) != 1 {
		t.Errorf("%d shapes cached, want 1", len(d.padTabs))
	}
}
