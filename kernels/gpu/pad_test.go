//go:build !js

package gpu

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/internal/padref"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// refPad is the reference walk of SPEC §4 (byte copy, any dtype).
func refPad(x *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, fill []byte) (*tensor.Tensor, error) {
	outShape, err := kernels.PadOutShape("pad", mode, x.Shape, pads)
	if err != nil {
		return nil, err
	}
	out := tensor.New(x.DType, outShape)
	eb := x.DType.Size()
	ist := tensor.Strides(x.Shape)
	if fill == nil {
		fill = make([]byte, eb)
	}
	for o := range out.NumElems() {
		rem, src, inside := o, 0, true
		for a := len(outShape) - 1; a >= 0; a-- {
			c := rem % outShape[a]
			rem /= outShape[a]
			j, n := c-pads[a].Before, x.Shape[a]
			if j = padref.Source(mode, j, n); j < 0 {
				inside = false
			}
			src += j * ist[a]
		}
		if inside {
			copy(out.Data[o*eb:], x.Data[src*eb:(src+1)*eb])
		} else {
			copy(out.Data[o*eb:], fill)
		}
	}
	return out, nil
}

// refPadBackwardConst: grad_in[c] = grad_out[c + before].
func refPadBackwardConst(g *tensor.Tensor, pads []kernels.Pad) (*tensor.Tensor, error) {
	inShape, err := kernels.PadBackwardInShape("pad_backward", kernels.Constant, g.Shape, pads)
	if err != nil {
		return nil, err
	}
	out := tensor.New(g.DType, inShape)
	eb := g.DType.Size()
	ost := tensor.Strides(g.Shape)
	for i := range out.NumElems() {
		rem, src := i, 0
		for a := len(inShape) - 1; a >= 0; a-- {
			c := rem % inShape[a]
			rem /= inShape[a]
			src += (c + pads[a].Before) * ost[a]
		}
		copy(out.Data[i*eb:], g.Data[src*eb:(src+1)*eb])
	}
	return out, nil
}

type padCase struct {
	shape []int
	pads  []kernels.Pad
}

func pp(p ...int) []kernels.Pad {
	out := make([]kernels.Pad, len(p)/2)
	for i := range out {
		out[i] = kernels.Pad{Before: p[2*i], After: p[2*i+1]}
	}
	return out
}

// padCases: rank 0..8, sizes around the workgroup (W = 256 threads; for
// b1 a thread covers 4 elements, b2 2), odd sizes so words are shared,
// pads of 0, n-1 (the reflect limit) and many workgroups.
func padCases() []padCase {
	cs := []padCase{
		{[]int{}, nil},
		{[]int{1}, pp(0, 0)},
		{[]int{5}, pp(4, 4)},
		{[]int{3}, pp(2, 1)},
		{[]int{251}, pp(2, 2)},  // out 255
		{[]int{252}, pp(2, 2)},  // out 256
		{[]int{253}, pp(2, 2)},  // out 257
		{[]int{1019}, pp(2, 2)}, // out 1023 (b1: W words - 1)
		{[]int{1020}, pp(2, 2)}, // 1024
		{[]int{1021}, pp(2, 2)}, // 1025
		{[]int{509}, pp(1, 1)},  // 511 (b2 around W words)
		{[]int{3, 7}, pp(1, 2, 3, 3)},
		{[]int{2, 3, 5}, pp(1, 1, 2, 0, 0, 4)},
		{[]int{2, 2, 2, 3}, pp(1, 1, 0, 1, 1, 0, 2, 2)},
		{[]int{2, 1, 3, 2, 3}, pp(0, 1, 0, 0, 1, 2, 1, 1, 2, 0)},
		{[]int{2, 2, 1, 2, 3, 2}, pp(1, 0, 0, 1, 0, 0, 1, 1, 2, 1, 0, 1)},
		{[]int{1, 2, 2, 2, 2, 2, 3}, pp(0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 2, 2)},
		{[]int{2, 2, 2, 2, 1, 2, 2, 3}, pp(1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 2)},
		{[]int{3, 97, 131}, pp(1, 2, 5, 7, 3, 11)}, // ~45k outputs: many workgroups
		// wider than n (the modes of any width): 2n+1, unequal, several periods
		{[]int{3}, pp(7, 1)},
		{[]int{2, 3}, pp(5, 0, 1, 7)},
		{[]int{1, 4}, pp(3, 0, 9, 4)}, // a length-1 axis padded
		{[]int{2, 3, 2}, pp(0, 5, 7, 3, 2, 9)},
	}
	return cs
}

// reflectOK reports whether the case satisfies reflect's pad <= n-1.
func reflectOK(c padCase) bool { return takes(kernels.Reflect, c) }

// takes reports whether the mode takes the case (its width rule).
func takes(m kernels.Mode, c padCase) bool {
	_, err := kernels.PadOutShape("pad", m, c.shape, c.pads)
	return err == nil
}

var widthTypes = []tensor.DType{tensor.U8, tensor.F16, tensor.F32, tensor.F64}

func TestPadForward(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(1))
	for _, dt := range widthTypes {
		for _, mode := range allModes {
			for _, c := range padCases() {
				if !takes(mode, c) {
					continue
				}
				name := fmt.Sprintf("%s/%v/%v/%v", PadKernel(dt, mode), dt, c.shape, c.pads)
				x := randTensor(r, dt, c.shape)
				fill := make([]byte, dt.Size())
				r.Read(fill)
				want, err := refPad(x, mode, c.pads, fill)
				if err != nil {
					t.Fatalf("%s: reference: %v", name, err)
				}
				before := x.Clone()
				got, err := d.Pad(x, mode, c.pads, fill)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				sameBits(t, name, got, want)
				sameBits(t, name+" (input unchanged)", x, before)
			}
		}
	}
}

// The own modes' GPU forward (fkc-wgsl-kernels pad_MODE) on every dtype its
// contract lists, bitwise against the CPU reference walk: the table path
// (innermost output >= 4) and the per-axis path, widths 0, n-1, n, 2n+1 and
// unequal, rank 8, a length-1 axis.
func TestOwnPadModesEveryDType(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(11))
	dts := []tensor.DType{tensor.U8, tensor.I8, tensor.F16, tensor.BF16, tensor.I16, tensor.F32, tensor.I32, tensor.U32, tensor.F64, tensor.I64}
	cases := []padCase{
		{[]int{5}, pp(0, 0)}, {[]int{5}, pp(4, 4)}, {[]int{5}, pp(5, 5)}, {[]int{5}, pp(11, 11)}, {[]int{5}, pp(1, 13)},
		// innermost output < 4: the per-axis path (pad.wgsl axis_source)
		{[]int{1}, pp(2, 0)}, {[]int{2}, pp(0, 1)}, {[]int{3, 2}, pp(4, 3, 1, 0)}, {[]int{2, 1}, pp(5, 0, 2, 0)},
		{[]int{2, 3, 1}, pp(3, 4, 7, 2, 1, 1)},
		{[]int{2, 3}, pp(5, 0, 1, 7)}, {[]int{1, 1}, pp(2, 1, 0, 1)},
		{[]int{2, 1, 2, 2, 1, 2, 1, 3}, pp(1, 2, 3, 0, 0, 4, 2, 1, 1, 1, 0, 2, 3, 1, 2, 7)},
	}
	for _, m := range kernels.OwnPadModes {
		for _, dt := range dts {
			for _, c := range cases {
				name := fmt.Sprintf("%s/%v/%v/%v", PadKernel(dt, m), dt, c.shape, c.pads)
				x := randTensor(r, dt, c.shape)
				want, err := cpu.PadRef(x, m, c.pads, nil)
				if err != nil {
					t.Fatalf("%s: cpu: %v", name, err)
				}
				ref, _ := refPad(x, m, c.pads, nil)
				sameBits(t, name+" (cpu vs formula)", want, ref)
				got, err := d.Pad(x, m, c.pads, nil)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				sameBits(t, name, got, want)
			}
		}
		// a padded empty axis: the CPU's error, before anything runs
		_, err := d.Pad(tensor.New(tensor.F32, []int{2, 0}), m, pp(0, 0, 1, 0), nil)
		if err == nil || !strings.Contains(err.Error(), "on empty axis 1") {
			t.Errorf("%s on an empty axis: %v", m, err)
		}
	}
}

func TestPadBackwardConst(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(2))
	for _, dt := range widthTypes {
		for _, c := range padCases() {
			outShape, _ := kernels.PadOutShape("pad", kernels.Constant, c.shape, c.pads)
			g := randTensor(r, dt, outShape)
			name := fmt.Sprintf("%s/%v/%v", PadBackwardKernel(dt, kernels.Constant), c.shape, c.pads)
			want, err := refPadBackwardConst(g, c.pads)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.PadBackward(g, kernels.Constant, c.pads)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			sameBits(t, name, got, want)
		}
	}
}

func TestPadErrors(t *testing.T) {
	d := device(t)
	x := tensor.New(tensor.F32, []int{2, 3})
	f4 := make([]byte, 4)
	cases := []struct {
		name string
		g, c func() error
	}{
		{"reflect too wide", func() error { _, e := d.Pad(x, kernels.Reflect, pp(0, 0, 3, 0), f4); return e }, func() error { _, e := cpu.Pad(x, kernels.Reflect, pp(0, 0, 3, 0), f4); return e }},
		{"negative pad", func() error { _, e := d.Pad(x, kernels.Constant, pp(0, 0, -1, 0), f4); return e }, func() error { _, e := cpu.Pad(x, kernels.Constant, pp(0, 0, -1, 0), f4); return e }},
		{"padding rank", func() error { _, e := d.Pad(x, kernels.Constant, pp(0, 0), f4); return e }, func() error { _, e := cpu.Pad(x, kernels.Constant, pp(0, 0), f4); return e }},
		{"short fill", func() error { _, e := d.Pad(x, kernels.Constant, pp(0, 0, 1, 1), []byte{1, 2}); return e }, func() error { _, e := cpu.Pad(x, kernels.Constant, pp(0, 0, 1, 1), []byte{1, 2}); return e }},
		{"replicate empty axis", func() error {
			_, e := d.Pad(tensor.New(tensor.F32, []int{0}), kernels.Replicate, pp(1, 0), f4)
			return e
		}, func() error {
			_, e := cpu.Pad(tensor.New(tensor.F32, []int{0}), kernels.Replicate, pp(1, 0), f4)
			return e
		}},
		{"bad mode", func() error { _, e := d.Pad(x, kernels.Mode(7), pp(0, 0, 1, 1), f4); return e }, func() error { _, e := cpu.Pad(x, kernels.Mode(7), pp(0, 0, 1, 1), f4); return e }},
		{"backward too small", func() error { _, e := d.PadBackward(x, kernels.Reflect, pp(0, 0, 2, 2)); return e }, func() error { _, e := cpu.PadBackward(x, kernels.Reflect, pp(0, 0, 2, 2)); return e }},
		{"masked_fill mask dtype", func() error { _, e := d.MaskedFill(x, tensor.New(tensor.U8, []int{2, 3}), f4); return e }, func() error {
			_, e := cpu.MaskedFill(x, tensor.New(tensor.U8, []int{2, 3}), f4)
			return e
		}},
		{"masked_fill mask shape", func() error { _, e := d.MaskedFill(x, tensor.New(tensor.BOOL, []int{3, 2}), f4); return e }, func() error {
			_, e := cpu.MaskedFill(x, tensor.New(tensor.BOOL, []int{3, 2}), f4)
			return e
		}},
	}
	for _, c := range cases {
		ge, ce := c.g(), c.c()
		if ge == nil || ce == nil || ge.Error() != ce.Error() {
			t.Errorf("%s: gpu %v, cpu %v", c.name, ge, ce)
		}
	}
	if _, err := d.Pad(x, kernels.Reflect, pp(0, 0, 3, 0), f4); err == nil || !strings.Contains(err.Error(), "axis 1") {
		t.Errorf("reflect error does not name the axis: %v", err)
	}
	nine := tensor.New(tensor.F32, []int{1, 1, 1, 1, 1, 1, 1, 1, 1})
	if _, err := d.Pad(nine, kernels.Constant, make([]kernels.Pad, 9), f4); err == nil || !strings.Contains(err.Error(), "rank <= 8") {
		t.Errorf("rank 9: got %v", err)
	}
	_, err := d.PadBackward(tensor.New(tensor.F64, []int{4}), kernels.Reflect, pp(1, 1))
	if err == nil || err.Error() != "pad_backward_reflect_f64: not available on this adapter (needs 64-bit atomics); runs on CPU" {
		t.Errorf("f64 reflect backward: got %v", err)
	}
}

// The forward pad's kept tables are padTables' words for their own call
// shape: a second call of a shape gets the same bytes, and calls that differ
// only in a pad width, the mode or the input shape get their own.
func TestPadForwardTablesKept(t *testing.T) {
	d := &Device{core: &core{}}
	want := func(in, out []int, pads []kernels.Pad, mode kernels.Mode) []byte {
		rt, ct := padTables(in, out, pads, mode)
		b := make([]byte, 0, 4*(len(rt)+len(ct)))
		for _, v := range append(rt, ct...) {
			b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
		return b
	}
	type call struct {
		in, out []int
		pads    []kernels.Pad
		mode    kernels.Mode
	}
	calls := []call{
		{[]int{3, 5}, []int{5, 9}, []kernels.Pad{{Before: 1, After: 1}, {Before: 2, After: 2}}, kernels.Reflect},
		{[]int{3, 5}, []int{5, 9}, []kernels.Pad{{Before: 0, After: 2}, {Before: 2, After: 2}}, kernels.Reflect},
		{[]int{3, 5}, []int{5, 9}, []kernels.Pad{{Before: 1, After: 1}, {Before: 2, After: 2}}, kernels.Replicate},
		{[]int{3, 6}, []int{5, 10}, []kernels.Pad{{Before: 1, After: 1}, {Before: 2, After: 2}}, kernels.Reflect},
	}
	for round := range 2 {
		for i, c := range calls {
			rows, got := d.padForwardTables(c.in, c.out, c.pads, c.mode)
			if w := want(c.in, c.out, c.pads, c.mode); string(got) != string(w) || rows != c.out[0] {
				t.Errorf("round %d, call %d: %d rows, %d bytes; want %d rows, %d bytes as padTables builds them", round, i, rows, len(got), c.out[0], len(w))
			}
		}
	}
	if len(d.padFwdTabs) != len(calls) {
		t.Errorf("%d call shapes kept, want %d", len(d.padFwdTabs), len(calls))
	}
}
