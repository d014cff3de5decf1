package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

func pads(p ...int) []kernels.Pad {
	out := make([]kernels.Pad, len(p)/2)
	for i := range out {
		out[i] = kernels.Pad{Before: p[2*i], After: p[2*i+1]}
	}
	return out
}

// Both implementations, so every hand-worked case checks both.
var padImpls = []struct {
	name string
	fn   func(*tensor.Tensor, kernels.Mode, []kernels.Pad, []byte, ...*tensor.Tensor) (*tensor.Tensor, error)
}{{"fast", Pad}, {"ref", PadRef}}

func TestPadHandWorked(t *testing.T) {
	x1 := mk(tensor.F32, []int{4}, 1, 2, 3, 4)
	x2 := mk(tensor.F32, []int{2, 3}, 1, 2, 3, 4, 5, 6)
	nine := tensor.Encode(tensor.F32, 9)
	cases := []struct {
		name  string
		x     *tensor.Tensor
		mode  kernels.Mode
		pads  []kernels.Pad
		fill  []byte
		shape []int
		want  []float64
	}{
		// The seed's reflect: edge not repeated.
		{"reflect 1d", x1, kernels.Reflect, pads(2, 2), nil, []int{8}, []float64{3, 2, 1, 2, 3, 4, 3, 2}},
		{"replicate 1d", x1, kernels.Replicate, pads(2, 2), nil, []int{8}, []float64{1, 1, 1, 2, 3, 4, 4, 4}},
		{"constant 1d", x1, kernels.Constant, pads(2, 2), nil, []int{8}, []float64{0, 0, 1, 2, 3, 4, 0, 0}},
		{"constant 1d fill", x1, kernels.Constant, pads(1, 3), nine, []int{8}, []float64{9, 1, 2, 3, 4, 9, 9, 9}},
		{"reflect n-1", x1, kernels.Reflect, pads(3, 3), nil, []int{10}, []float64{4, 3, 2, 1, 2, 3, 4, 3, 2, 1}},
		{"replicate wider than n", x1, kernels.Replicate, pads(6, 5), nil, []int{15}, []float64{1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 4}},
		{"zero pads", x1, kernels.Reflect, pads(0, 0), nil, []int{4}, []float64{1, 2, 3, 4}},
		// np.pad([[1,2,3],[4,5,6]], ((1,1),(2,2)), mode)
		{"reflect 2d", x2, kernels.Reflect, pads(1, 1, 2, 2), nil, []int{4, 7}, []float64{
			6, 5, 4, 5, 6, 5, 4,
			3, 2, 1, 2, 3, 2, 1,
			6, 5, 4, 5, 6, 5, 4,
			3, 2, 1, 2, 3, 2, 1}},
		{"edge 2d", x2, kernels.Replicate, pads(1, 1, 2, 2), nil, []int{4, 7}, []float64{
			1, 1, 1, 2, 3, 3, 3,
			1, 1, 1, 2, 3, 3, 3,
			4, 4, 4, 5, 6, 6, 6,
			4, 4, 4, 5, 6, 6, 6}},
		{"constant 2d", x2, kernels.Constant, pads(1, 0, 0, 2), nine, []int{3, 5}, []float64{
			9, 9, 9, 9, 9,
			1, 2, 3, 9, 9,
			4, 5, 6, 9, 9}},
		{"rank 0", mk(tensor.F32, []int{}, 7), kernels.Constant, pads(), nine, []int{}, []float64{7}},
		{"empty axis constant", mk(tensor.F32, []int{0, 2}), kernels.Constant, pads(1, 1, 0, 1), nine, []int{2, 3}, []float64{9, 9, 9, 9, 9, 9}},
		{"n=1 replicate", mk(tensor.F32, []int{1}, 5), kernels.Replicate, pads(2, 1), nil, []int{4}, []float64{5, 5, 5, 5}},
	}
	for _, c := range cases {
		for _, impl := range padImpls {
			t.Run(c.name+"/"+impl.name, func(t *testing.T) {
				fill := c.fill
				if fill == nil {
					fill = tensor.Encode(tensor.F32, 0)
				}
				check := guard(t, c.x)
				got, err := impl.fn(c.x, c.mode, c.pads, fill)
				check()
				wantVals(t, got, err, c.shape, c.want...)
			})
		}
	}
}

// Reflect/replicate ignore fill entirely, even a nil or wrong-width one.
func TestPadFillIgnoredUnlessConstant(t *testing.T) {
	x := mk(tensor.F64, []int{3}, 1, 2, 3)
	for _, m := range []kernels.Mode{kernels.Reflect, kernels.Replicate} {
		if _, err := Pad(x, m, pads(1, 1), nil); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPadErrors(t *testing.T) {
	x := mk(tensor.F32, []int{4}, 1, 2, 3, 4)
	f := tensor.Encode(tensor.F32, 0)
	cases := []struct {
		name string
		x    *tensor.Tensor
		mode kernels.Mode
		pads []kernels.Pad
		fill []byte
		frag []string
	}{
		{"reflect before = n", x, kernels.Reflect, pads(4, 0), f, []string{"pad: reflect padding (4, 0) on axis 0 exceeds in_shape[0]-1 = 3", "before <= in_shape[i]-1 AND after <= in_shape[i]-1"}},
		{"reflect after = n", x, kernels.Reflect, pads(0, 4), f, []string{"reflect padding (0, 4) on axis 0 exceeds in_shape[0]-1 = 3"}},
		{"reflect second axis", mk(tensor.F32, []int{3, 2}, 1, 2, 3, 4, 5, 6), kernels.Reflect, pads(2, 2, 0, 2), f, []string{"on axis 1 exceeds in_shape[1]-1 = 1"}},
		{"reflect n=1", mk(tensor.F32, []int{1}, 1), kernels.Reflect, pads(1, 0), f, []string{"exceeds in_shape[0]-1 = 0"}},
		{"rank mismatch", x, kernels.Constant, pads(1, 1, 1, 1), f, []string{"padding has 2 axes but the input has rank 1", "padding len == in_shape.len()"}},
		{"negative", x, kernels.Constant, pads(-1, 0), f, []string{"axis 0: padding (-1, 0) is negative", "before, after >= 0"}},
		{"replicate empty", mk(tensor.F32, []int{0}), kernels.Replicate, pads(1, 0), f, []string{"replicate padding (1, 0) on empty axis 0"}},
		{"fill width", x, kernels.Constant, pads(1, 1), []byte{1, 2}, []string{"fill value has 2 bytes but F32 elements have 4", "fill_bytes len == dtype_size"}},
		{"bad mode", x, kernels.Mode(7), pads(1, 1), f, []string{"mode_tag 7 is not a pad mode"}},
		{"nil input", nil, kernels.Constant, pads(), f, []string{"input is missing"}},
		{"short data", &tensor.Tensor{DType: tensor.F32, Shape: []int{4}, Data: make([]byte, 12)}, kernels.Constant, pads(0, 0), f, []string{"holds 12 bytes, want 16", "contiguous, offset 0"}},
		{"output too large", mk(tensor.U8, []int{1}, 1), kernels.Constant, pads(0, 1<<35), []byte{0}, []string{"pad: output: shape [34359738369]: more than"}},
		{"negative shape", &tensor.Tensor{DType: tensor.F32, Shape: []int{-1}}, kernels.Constant, pads(0, 0), f, []string{"negative size"}},
	}
	for _, c := range cases {
		for _, impl := range padImpls {
			t.Run(c.name+"/"+impl.name, func(t *testing.T) {
				_, err := impl.fn(c.x, c.mode, c.pads, c.fill)
				wantErr(t, err, c.frag...)
			})
		}
	}
}

// randPads draws valid pads for the mode: within its MaxPad (reflect
// 0..n-1), else 0..2n+2 where it reads the input (none on an empty axis),
// and 0..3 for constant.
func randPads(rng *rand.Rand, mode kernels.Mode, shape []int) ([]kernels.Pad, bool) {
	pm := kernels.ModeOf(mode)
	p := make([]kernels.Pad, len(shape))
	for i, n := range shape {
		switch {
		case pm.MaxPad != nil:
			if pm.MaxPad(n) < 0 {
				return nil, false
			}
			p[i] = kernels.Pad{Before: rng.Intn(pm.MaxPad(n) + 1), After: rng.Intn(pm.MaxPad(n) + 1)}
		case mode != kernels.Constant:
			if n > 0 {
				p[i] = kernels.Pad{Before: rng.Intn(2*n + 3), After: rng.Intn(2*n + 3)}
			}
		default:
			p[i] = kernels.Pad{Before: rng.Intn(4), After: rng.Intn(4)}
		}
	}
	return p, true
}

// The fast pad is bitwise the reference walk, for every element width,
// rank 0..4, dims 0..7, every mode, with the row interiors copied in the
// row loop (native) and first, plane by plane (WASM).
func TestPadFastMatchesRef(t *testing.T) {
	defer func(v bool) { padInteriorsFirst = v }(padInteriorsFirst)
	for _, first := range []bool{false, true} {
		padInteriorsFirst = first
		t.Run(fmt.Sprintf("interiorsFirst=%v", first), func(t *testing.T) { atThreads(t, testPadFastMatchesRef) })
	}
}

func testPadFastMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 3000; iter++ {
		dt := tensor.All[rng.Intn(len(tensor.All))]
		shape := randShape(rng, rng.Intn(5), 7)
		mode := kernels.Mode(rng.Intn(len(kernels.PadModes)))
		p, ok := randPads(rng, mode, shape)
		if !ok {
			continue
		}
		x := randTensor(rng, dt, shape)
		fill := make([]byte, dt.Size())
		rng.Read(fill)
		check := guard(t, x)
		fast, err1 := Pad(x, mode, p, fill)
		ref, err2 := PadRef(x, mode, p, fill)
		check()
		if err1 != nil || err2 != nil {
			t.Fatalf("%s %v %v %v: %v / %v", dt, shape, mode, p, err1, err2)
		}
		if !bitwise(fast, ref) {
			t.Fatalf("%s %v %v pads %v: fast != ref", dt, shape, mode, p)
		}
	}
}

// Reflect on an empty axis is rejected even with zero padding: the
// contract's before <= in_shape[i]-1 cannot hold when in_shape[i] == 0.
func TestPadReflectEmptyAxis(t *testing.T) {
	_, err := Pad(mk(tensor.F32, []int{0}), kernels.Reflect, pads(0, 0), nil)
	wantErr(t, err, "exceeds in_shape[0]-1 = -1")
}

// ---- pad backward ----

var padBackwardImpls = []struct {
	name string
	fn   func(*tensor.Tensor, kernels.Mode, []kernels.Pad) (*tensor.Tensor, error)
}{{"fast", func(g *tensor.Tensor, m kernels.Mode, p []kernels.Pad) (*tensor.Tensor, error) {
	return PadBackward(g, m, p)
}}, {"ref", PadBackwardRef}}

func TestPadBackwardHandWorked(t *testing.T) {
	ones := mk(tensor.F32, []int{8}, 1, 1, 1, 1, 1, 1, 1, 1)
	g2 := mk(tensor.F64, []int{4, 7},
		1, 2, 3, 4, 5, 6, 7,
		8, 9, 10, 11, 12, 13, 14,
		15, 16, 17, 18, 19, 20, 21,
		22, 23, 24, 25, 26, 27, 28)
	cases := []struct {
		name  string
		g     *tensor.Tensor
		mode  kernels.Mode
		pads  []kernels.Pad
		shape []int
		want  []float64
	}{
		// reflect [1,2,3,4] by 2 reads inputs 2,1,0,1,2,3,2,1
		{"reflect", ones, kernels.Reflect, pads(2, 2), []int{4}, []float64{1, 3, 3, 1}},
		{"replicate", ones, kernels.Replicate, pads(2, 2), []int{4}, []float64{3, 1, 1, 3}},
		{"constant", ones, kernels.Constant, pads(2, 2), []int{4}, []float64{1, 1, 1, 1}},
		// 2-D reflect ((1,1),(2,2)) from [2,3]: out rows read in rows 1,0,1,0,
		// out cols read in cols 2,1,0,1,2,1,0.
		// 2-D reflect ((1,1),(2,2)) from [2,3]: out rows read in rows 1,0,1,0,
		// out cols read in cols 2,1,0,1,2,1,0; in (0,0) collects out (1,2),
		// (1,6), (3,2), (3,6) = 10+14+24+28.
		{"reflect 2d", g2, kernels.Reflect, pads(1, 1, 2, 2), []int{2, 3}, []float64{76, 108, 68, 48, 66, 40}},
	}
	for _, c := range cases {
		for _, impl := range padBackwardImpls {
			t.Run(c.name+"/"+impl.name, func(t *testing.T) {
				check := guard(t, c.g)
				got, err := impl.fn(c.g, c.mode, c.pads)
				check()
				wantVals(t, got, err, c.shape, c.want...)
			})
		}
	}
}

// bruteBackward sums grad_out into grad_in in f64 using the forward pad of
// an index tensor to learn which input each output position read.
func bruteBackward(t *testing.T, g *tensor.Tensor, mode kernels.Mode, p []kernels.Pad) []float64 {
	t.Helper()
	inShape, err := kernels.PadBackwardInShape("pad_backward", mode, g.Shape, p)
	if err != nil {
		t.Fatal(err)
	}
	n := tensor.NumElems(inShape)
	ids := tensor.New(tensor.I64, inShape)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(ids.Data[8*i:], uint64(i))
	}
	src, err := PadRef(ids, mode, p, tensor.Encode(tensor.I64, -1))
	if err != nil {
		t.Fatal(err)
	}
	acc := make([]float64, n)
	for o := 0; o < src.NumElems(); o++ {
		if j := int64(binary.LittleEndian.Uint64(src.Data[8*o:])); j >= 0 {
			acc[j] += g.At(o)
		}
	}
	out := make([]float64, n)
	for i, v := range acc { // narrow as the contract does, then read back
		tt := tensor.New(g.DType, []int{})
		switch g.DType {
		case tensor.F32:
			tt.Set(0, float64(float32(v)))
		case tensor.F64:
			tt.Set(0, v)
		default:
			binary.LittleEndian.PutUint16(tt.Data, tensor.HalfFromF64(g.DType, v))
		}
		out[i] = tt.At(0)
	}
	return out
}

// Fast == reference bitwise, and both == the brute-force f64 sum, over
// random shapes, modes and float dtypes.
func TestPadBackwardRandom(t *testing.T) { atThreads(t, testPadBackwardRandom) }

func testPadBackwardRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for iter := 0; iter < 1500; iter++ {
		dt := floatDTypes[rng.Intn(4)]
		inShape := randShape(rng, rng.Intn(5), 6)
		mode := kernels.Mode(rng.Intn(len(kernels.PadModes)))
		p, ok := randPads(rng, mode, inShape)
		if !ok {
			continue
		}
		outShape, err := kernels.PadOutShape("pad", mode, inShape, p)
		if err != nil {
			t.Fatal(err)
		}
		g := randTensor(rng, dt, outShape)
		check := guard(t, g)
		fast, err1 := PadBackward(g, mode, p)
		ref, err2 := PadBackwardRef(g, mode, p)
		check()
		name := fmt.Sprintf("%s in %v %v pads %v", dt, inShape, mode, p)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v / %v", name, err1, err2)
		}
		if ok, i := sameFloats(fast, ref); !ok {
			t.Fatalf("%s: fast != ref at %d: %v vs %v", name, i, fast.At(i), ref.At(i))
		}
		want := bruteBackward(t, g, mode, p)
		for i, w := range want {
			v := ref.At(i)
			if !(v == w || math.IsNaN(v) && math.IsNaN(w)) || math.Signbit(v) != math.Signbit(w) && !math.IsNaN(w) {
				t.Fatalf("%s: grad_in[%d] = %v, brute force %v", name, i, v, w)
			}
		}
	}
}

// Half gradients accumulate in f64, not in the half type: 4096 f16 ones
// folding onto one replicate corner give 4096, not 2048.
func TestPadBackwardWideAccumulator(t *testing.T) {
	g := tensor.New(tensor.F16, []int{3000})
	for i := range g.U16() { // 3000: representable in f16, past the 2048 stall
		g.Set(i, 1)
	}
	for _, impl := range padBackwardImpls {
		got, err := impl.fn(g, kernels.Replicate, pads(2999, 0))
		wantVals(t, got, err, []int{1}, 3000)
	}
	// The accumulator starts at +0.0: a lone -0.0 gradient stores +0.0.
	nz := mk(tensor.F32, []int{3}, 1, negZero, 2)
	for _, impl := range padBackwardImpls {
		got, err := impl.fn(nz, kernels.Constant, pads(1, 1))
		wantVals(t, got, err, []int{1}, 0)
	}
}

func TestPadBackwardErrors(t *testing.T) {
	g := mk(tensor.F32, []int{4}, 1, 2, 3, 4)
	cases := []struct {
		name string
		g    *tensor.Tensor
		mode kernels.Mode
		pads []kernels.Pad
		frag []string
	}{
		{"dtype", mk(tensor.I32, []int{2}, 1, 2), kernels.Constant, pads(0, 0), []string{"pad_backward: grad_out has dtype I32 (contract: grad_out dtypes [F32, F64, BF16, F16])"}},
		{"too small", g, kernels.Constant, pads(3, 2), []string{"grad_out size 4 is smaller than its padding 3+2"}},
		{"reflect too wide", g, kernels.Reflect, pads(2, 0), []string{"reflect padding (2, 0) on axis 0 exceeds in_shape[0]-1 = 1"}},
		{"rank", g, kernels.Reflect, pads(), []string{"padding has 0 axes but grad_out has rank 1"}},
		{"negative", g, kernels.Reflect, pads(0, -1), []string{"is negative"}},
		{"mode", g, kernels.Mode(-1), pads(0, 0), []string{"mode_tag -1 is not a pad mode"}},
		{"nil", nil, kernels.Constant, pads(), []string{"grad_out is missing"}},
	}
	for _, c := range cases {
		for _, impl := range padBackwardImpls {
			t.Run(c.name+"/"+impl.name, func(t *testing.T) {
				_, err := impl.fn(c.g, c.mode, c.pads)
				wantErr(t, err, c.frag...)
			})
		}
	}
}
