//go:build !js

package gpu

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// A device tensor's buffer as Upload lays it out: poison, the payload,
// zeros to the 16-byte unit, poison — at every payload length mod 16.
func TestResidentLayout(t *testing.T) {
	d := device(t)
	for n := range 40 {
		x := tensor.New(tensor.U8, []int{n})
		for i := range x.Data {
			x.Data[i] = byte(i + 1)
		}
		dx, err := d.Upload(x)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := Resident(dx)
		whole := tensor.New(tensor.U8, []int{int(residentSize(n))})
		d.mu.Lock()
		j := d.transfer("read")
		j.outs = append(j.outs, &outBuf{buf: &buffer{b: g.buf.b, size: residentSize(n)}, payload: len(whole.Data), size: residentSize(n), into: whole.Data})
		err = j.run()
		d.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		want := slicesConcat(bytes.Repeat([]byte{poison}, devGuardBytes), x.Data, make([]byte, int(inBytes(n))-n), bytes.Repeat([]byte{poison}, devGuardBytes))
		if !bytes.Equal(whole.Data, want) {
			t.Errorf("n=%d: buffer % x\nwant % x", n, whole.Data, want)
		}
		from := devGuardBytes + n&^15
		if err := g.checkGuards(whole.Data[:devGuardBytes], whole.Data[from:]); err != nil {
			t.Errorf("n=%d: the layout fails its own check: %v", n, err)
		}
		dx.Release()
	}
}

func slicesConcat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// checkGuards refuses a changed byte anywhere outside the payload: the
// guard before, the zero tail, the guard after.
func TestResidentGuardCheck(t *testing.T) {
	for _, n := range []int{0, 1, 5, 16, 21, 33} {
		g := &Tensor{n: n}
		head := bytes.Repeat([]byte{poison}, devGuardBytes)
		from := n &^ 15
		tail := slicesConcat(make([]byte, n-from), make([]byte, int(inBytes(n))-n), bytes.Repeat([]byte{poison}, devGuardBytes))
		if err := g.checkGuards(head, tail); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for k := range len(head) + len(tail) {
			if k >= devGuardBytes && k < devGuardBytes+n-from {
				continue // the payload
			}
			h, tl := bytes.Clone(head), bytes.Clone(tail)
			if k < devGuardBytes {
				h[k] ^= 1
			} else {
				tl[k-devGuardBytes] ^= 1
			}
			if err := g.checkGuards(h, tl); err == nil {
				t.Errorf("n=%d: byte %d changed, not seen", n, k)
			}
		}
	}
}

// An output of a chain whose guard was overwritten fails the chain at the
// call that made it (the bytes come back with the chain's control words).
func TestChainSeesOverwrittenGuard(t *testing.T) {
	d := device(t)
	x := tensor.New(tensor.F32, []int{3, 7})
	dx, err := d.Upload(x)
	if err != nil {
		t.Fatal(err)
	}
	defer dx.Release()
	for _, at := range []string{"head", "tail", "zero tail"} {
		rec := d.Record().(*chain)
		links := map[string]kernels.Link{}
		for _, l := range rec.Links() {
			links[l.EntryPoint] = l
		}
		pad := &kernels.Call{Op: "pad", Inputs: map[string]*tensor.Tensor{"x": dx}, Params: kernels.Params{Mode: kernels.Replicate, Padding: []kernels.Pad{{}, {Before: 1, After: 1}}}}
		sum := func(x *tensor.Tensor) *kernels.Call {
			return &kernels.Call{Op: "sum", Inputs: map[string]*tensor.Tensor{"x": x}, Params: kernels.Params{Dim: 1}}
		}
		s1, err := links[wgslEP+"sum"].Impl(sum(dx))
		if err != nil {
			t.Fatal(err)
		}
		p, err := links[vulkanEP+"pad_replicate_b4"].Impl(pad)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := Resident(p)
		off := map[string]uint64{"head": 8, "tail": residentSize(g.n) - 4, "zero tail": devGuardBytes + uint64(g.n)}[at]
		if _, err := links[wgslEP+"sum"].Impl(sum(p)); err != nil {
			t.Fatal(err)
		}
		d.queue.WriteBuffer(g.buf.b, off&^3, []byte{1, 2, 3, 4})
		err = rec.Submit()
		if err == nil || !strings.Contains(err.Error(), "call 2 of 3 in the chain (pad)") || !strings.Contains(err.Error(), "overwritten") {
			t.Errorf("%s overwritten: %v", at, err)
		}
		if _, err := s1.Host(); err == nil {
			t.Errorf("%s overwritten: the chain's first result can be read", at)
		}
	}
}

// A tensor released while a recorded chain reads it keeps its buffer until
// the chain ends, then leaves the device's live set; a chain's failed or
// discarded results leave it at once.
func TestResidentFreedWhenChainEnds(t *testing.T) {
	d := device(t)
	live := func(g *Tensor) bool {
		d.tmu.Lock()
		defer d.tmu.Unlock()
		_, ok := d.live[g]
		return ok && g.buf != nil
	}
	dx, err := d.Upload(tensor.New(tensor.F32, []int{64}))
	if err != nil {
		t.Fatal(err)
	}
	g, _ := Resident(dx)
	rec := d.Record()
	var sum kernels.Link
	for _, l := range rec.Links() {
		if l.EntryPoint == wgslEP+"sum" {
			sum = l
		}
	}
	s, err := sum.Impl(&kernels.Call{Op: "sum", Inputs: map[string]*tensor.Tensor{"x": dx}, Params: kernels.Params{Dim: -1}})
	if err != nil {
		t.Fatal(err)
	}
	dx.Release()
	if !live(g) {
		t.Fatal("released while a recorded chain reads it: freed at once")
	}
	if err := rec.Submit(); err != nil {
		t.Fatal(err)
	}
	if live(g) {
		t.Error("released, its chain ended: still live")
	}
	gs, _ := Resident(s)
	if !live(gs) {
		t.Error("a chain's result is not live")
	}
	s.Release()
	if live(gs) {
		t.Error("a released result is still live")
	}
	rec = d.Record()
	for _, l := range rec.Links() {
		if l.EntryPoint == wgslEP+"sum" {
			sum = l
		}
	}
	dy, _ := d.Upload(tensor.New(tensor.F32, []int{64}))
	defer dy.Release()
	s, err = sum.Impl(&kernels.Call{Op: "sum", Inputs: map[string]*tensor.Tensor{"x": dy}, Params: kernels.Params{Dim: -1}})
	if err != nil {
		t.Fatal(err)
	}
	gs, _ = Resident(s)
	rec.Discard()
	if live(gs) {
		t.Error("a discarded chain's result is still live")
	}
}
