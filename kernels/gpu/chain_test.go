//go:build !js

package gpu_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// Device tensors and chains, through the engine as a Go program uses them.

var (
	chainOnce sync.Once
	chainDev  *gpu.Device
	chainEng  *engine.Engine
	chainErr  error
)

// onDevice is an engine with the test's Vulkan device attached, or a skip
// with the reason when the machine has none.
func onDevice(t *testing.T) (*engine.Engine, *gpu.Device) {
	t.Helper()
	chainOnce.Do(func() {
		if chainDev, chainErr = gpu.OpenNative(); chainErr != nil {
			return
		}
		if chainEng, chainErr = engine.New(); chainErr == nil {
			chainEng.Attach(chainDev)
		}
	})
	if chainErr != nil {
		if strings.HasPrefix(chainErr.Error(), "no Vulkan adapter found") {
			t.Skipf("GPU tests skipped: %v", chainErr)
		}
		t.Fatal(chainErr)
	}
	return chainEng, chainDev
}

func upload(t *testing.T, d *gpu.Device, x *tensor.Tensor) *tensor.Tensor {
	t.Helper()
	dx, err := d.Upload(x)
	if err != nil {
		t.Fatalf("upload %s: %v", x, err)
	}
	return dx
}

func host(t *testing.T, what string, x *tensor.Tensor) *tensor.Tensor {
	t.Helper()
	h, err := x.Host()
	if err != nil {
		t.Fatalf("%s: read back: %v", what, err)
	}
	return h
}

func bitwise(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	if got.DType != want.DType || !slices.Equal(got.Shape, want.Shape) || !bytes.Equal(got.Data, want.Data) {
		t.Errorf("%s: got %s % x, want %s % x", what, got, head(got.Data), want, head(want.Data))
	}
}

func head(b []byte) []byte { return b[:min(len(b), 32)] }

var allDTypes = []tensor.DType{tensor.BOOL, tensor.U8, tensor.I8, tensor.I16, tensor.U32, tensor.I32, tensor.I64,
	tensor.F16, tensor.BF16, tensor.F32, tensor.F64}

// Upload then Read gives back every dtype's bytes bit for bit, at sizes
// around the 16-byte unit and the word, empty and rank 0, and past the
// staged-upload size (256 KiB); the source may change after Upload.
func TestDeviceTensorRoundTrip(t *testing.T) {
	_, d := onDevice(t)
	rng := rand.New(rand.NewSource(1))
	shapes := [][]int{{}, {0}, {1}, {3}, {5}, {15}, {16}, {17}, {4, 0, 3}, {7, 9}, {3, 5, 7}, {70000}}
	for _, dt := range allDTypes {
		for _, sh := range shapes {
			x := tensor.New(dt, sh)
			rng.Read(x.Data)
			want := x.Clone()
			dx := upload(t, d, x)
			clear(x.Data) // Upload keeps no reference to it
			g, ok := gpu.Resident(dx)
			if !ok || dx.Data != nil || g.Device() != d || g.DType() != dt || !slices.Equal(g.Shape(), sh) {
				t.Fatalf("%v%v: Upload gave %v (resident %v)", dt, sh, dx, ok)
			}
			bitwise(t, fmt.Sprintf("%v%v via Host", dt, sh), host(t, "round trip", dx), want)
			r, err := g.Read()
			if err != nil {
				t.Fatal(err)
			}
			bitwise(t, fmt.Sprintf("%v%v via Read", dt, sh), r, want)
			if err := dx.Release(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A released device tensor is refused by every use, with an error that
// says so; a second Release is an error; a tensor of another device, one
// whose dtype or shape the call does not take, or one given to a CPU
// kernel is refused by name, without reading it back.
func TestDeviceTensorRefusals(t *testing.T) {
	eng, d := onDevice(t)
	x := ops.RandTensor(rand.New(rand.NewSource(2)), tensor.F32, []int{4, 6})
	dx := upload(t, d, x)
	if err := dx.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := dx.Host(); !errors.Is(err, tensor.ErrReleased) {
		t.Errorf("Host of a released tensor: %v, want ErrReleased", err)
	}
	if _, err := eng.Run(engine.Vulkan, ops.Sum(dx, 1)); err == nil || !strings.Contains(err.Error(), "released") {
		t.Errorf("a call on a released tensor: %v", err)
	}
	if err := dx.Release(); err == nil || !strings.Contains(err.Error(), "released already") {
		t.Errorf("a second Release: %v", err)
	}
	g, _ := gpu.Resident(upload(t, d, x))
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	if err := g.Release(); err == nil {
		t.Error("a second gpu.Tensor.Release: no error")
	}

	// another device's tensor
	d2, err := gpu.OpenNative()
	if err != nil {
		t.Fatal(err)
	}
	foreign := upload(t, d2, x)
	_, err = eng.Run(engine.Vulkan, ops.Sum(foreign, 1))
	if err == nil || !strings.Contains(err.Error(), "another device") {
		t.Errorf("a call on another device's tensor: %v", err)
	}
	bitwise(t, "the other device's tensor", host(t, "foreign", foreign), x)
	ch, _ := eng.Chain(engine.Vulkan)
	if _, err := ch.Run(ops.Sum(foreign, 1)); err == nil || !strings.Contains(err.Error(), "another device") {
		t.Errorf("a chain call on another device's tensor: %v", err)
	}
	ch.Discard()
	d2.Close()
	if _, err := foreign.Host(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Host of a tensor of a closed device: %v", err)
	}
	if err := foreign.Release(); err != nil {
		t.Errorf("Release of a tensor of a closed device: %v", err)
	}

	// wrong dtype, wrong shape, the CPU: refused from the dtype and shape
	dx = upload(t, d, x)
	defer dx.Release()
	di := upload(t, d, tensor.New(tensor.U32, []int{4, 6}))
	defer di.Release()
	var v *kernels.Violation
	if _, err := eng.Run(engine.Vulkan, ops.Sum(di, 1)); !errors.As(err, &v) || !strings.Contains(err.Error(), "U32") {
		t.Errorf("sum of a U32 device tensor: %v, want a violation naming the dtype", err)
	}
	if _, err := eng.Run(engine.Vulkan, ops.Gather(dx, upload(t, d, tensor.New(tensor.U32, []int{4})), 1)); !errors.As(err, &v) || !strings.Contains(err.Error(), "rank") {
		t.Errorf("gather with indices of the wrong rank: %v, want a violation naming the rank", err)
	}
	// I64 indices are converted to U32 on the host; on the device they are refused
	i64 := upload(t, d, tensor.New(tensor.I64, []int{4, 6}))
	defer i64.Release()
	if _, err := eng.Run(engine.Vulkan, ops.Gather(dx, i64, 1)); !errors.As(err, &v) || !strings.Contains(err.Error(), "only U32") {
		t.Errorf("gather with I64 indices on the device: %v, want a violation", err)
	}
	if _, err := eng.Run(engine.Vulkan, ops.Pad(dx, kernels.Reflect, kernels.Pad{Before: 4}, kernels.Pad{})); !errors.As(err, &v) {
		t.Errorf("a reflect pad past the edge of a device tensor: %v, want a violation", err)
	}
	var u *kernels.Usage
	if _, err := eng.Run(engine.CPU, ops.Sum(dx, 1)); !errors.As(err, &u) || !strings.Contains(err.Error(), "Go memory") {
		t.Errorf("a CPU call on a device tensor: %v", err)
	}
	if _, err := cpu.SumDim(dx, 1); err == nil || !strings.Contains(err.Error(), "Go memory") {
		t.Errorf("kernels/cpu on a device tensor: %v", err)
	}
	if err := dx.Check(); err == nil || !strings.Contains(err.Error(), "Host") {
		t.Errorf("Check of a device tensor: %v, want its bytes are not in Go memory", err)
	}
	if err := tensor.WriteNpy(new(bytes.Buffer), dx); err == nil {
		t.Error("a device tensor written as .npy without reading it back")
	}
}

// A call with device inputs runs on the device and leaves its result
// there; RunInto copies it into the caller's tensor; a bad index is the
// call's own violation, as on the host.
func TestRunOnDeviceTensors(t *testing.T) {
	eng, d := onDevice(t)
	rng := rand.New(rand.NewSource(3))
	x := ops.RandTensor(rng, tensor.F32, []int{5, 9})
	call := func(x *tensor.Tensor) *kernels.Call {
		return ops.Pad(x, kernels.Reflect, kernels.Pad{Before: 1, After: 2}, kernels.Pad{Before: 3, After: 3})
	}
	want, err := eng.Run(engine.Vulkan, call(x))
	if err != nil {
		t.Fatal(err)
	}
	dx := upload(t, d, x)
	res, err := eng.Run(engine.Vulkan, call(dx))
	if err != nil {
		t.Fatal(err)
	}
	if res.Out.Storage() == nil || res.ServedBy() != want.ServedBy() {
		t.Fatalf("the result of a call on a device tensor: %v, served by %q", res.Out, res.ServedBy())
	}
	bitwise(t, "pad on the device", host(t, "pad", res.Out), want.Out)
	if got, w := engine.TensorBytes(res), engine.TensorBytes(want); got != w {
		t.Errorf("tensor bytes of a call on the device: %v, want %v", got, w)
	}
	out := tensor.New(tensor.F32, want.Out.Shape)
	if _, err := eng.RunInto(engine.Vulkan, call(dx), out); err != nil {
		t.Fatal(err)
	}
	bitwise(t, "RunInto from the device", out, want.Out)

	idx := tensor.New(tensor.U32, []int{5, 2})
	idx.U32()[3] = 9
	_, werr := eng.Run(engine.CPU, ops.Gather(x, idx, 1))
	_, err = eng.Run(engine.Vulkan, ops.Gather(dx, upload(t, d, idx), 1))
	if err == nil || werr == nil || err.Error() != werr.Error() {
		t.Errorf("a bad index on the device: %v, want the CPU's %v", err, werr)
	}
}

// callOn is c with its inputs replaced.
func callOn(c *kernels.Call, in map[string]*tensor.Tensor) *kernels.Call {
	w := *c
	w.Inputs = in
	return &w
}

// runChain runs calls built by mk as one chain on device tensors and one
// by one on host tensors (each call's host result feeding the next), and
// checks every result bitwise.
func runChain(t *testing.T, what string, eng *engine.Engine, d *gpu.Device, inputs []*tensor.Tensor, mk func(in []*tensor.Tensor) []*kernels.Call) {
	t.Helper()
	// one by one, host to host: each step's inputs are the inputs given and
	// the results so far
	var want []*tensor.Tensor
	hostIn := append([]*tensor.Tensor{}, inputs...)
	for i := 0; ; i++ {
		cs := mk(hostIn)
		if i == len(cs) {
			break
		}
		res, err := eng.Run(engine.Vulkan, cs[i])
		if err != nil {
			t.Fatalf("%s: call %d one by one: %v", what, i, err)
		}
		want = append(want, res.Out)
		hostIn = append(hostIn, res.Out)
	}
	ch, err := eng.Chain(engine.Vulkan)
	if err != nil {
		t.Fatal(err)
	}
	var devIn []*tensor.Tensor
	for _, x := range inputs {
		devIn = append(devIn, upload(t, d, x))
	}
	var got []*tensor.Tensor
	for i := range want {
		res, err := ch.Run(mk(devIn)[i])
		if err != nil {
			t.Fatalf("%s: call %d in the chain: %v", what, i, err)
		}
		got = append(got, res.Out)
		devIn = append(devIn, res.Out)
	}
	if err := ch.Submit(); err != nil {
		t.Fatalf("%s: submit: %v", what, err)
	}
	for i := range want {
		bitwise(t, fmt.Sprintf("%s: call %d", what, i), host(t, what, got[i]), want[i])
	}
	for _, x := range devIn {
		if err := x.Release(); err != nil {
			t.Error(err)
		}
	}
}

// gpuFloats are the float dtypes this adapter's GPU reductions serve.
func gpuFloats(d *gpu.Device) []tensor.DType {
	dts := []tensor.DType{tensor.F32, tensor.F16, tensor.BF16}
	if d.Info().ShaderF64 {
		dts = append(dts, tensor.F64)
	}
	return dts
}

// The two chains of the benchmarks — pad reflect, sum along a dim, argmax;
// gather, index_add — in one submission, bitwise the calls one by one, on
// every float dtype the GPU serves and at sizes across the workgroup.
func TestChainBitwise(t *testing.T) {
	eng, d := onDevice(t)
	rng := rand.New(rand.NewSource(4))
	for _, dt := range gpuFloats(d) {
		for _, sh := range [][]int{{1, 3, 5, 6}, {2, 3, 17, 33}, {1, 2, 64, 257}} {
			x := ops.RandTensor(rng, dt, sh)
			runChain(t, fmt.Sprintf("pad-sum-argmax %v%v", dt, sh), eng, d, []*tensor.Tensor{x}, func(in []*tensor.Tensor) []*kernels.Call {
				cs := []*kernels.Call{ops.Pad(in[0], kernels.Reflect, kernels.Pad{}, kernels.Pad{}, kernels.Pad{Before: 2, After: 2}, kernels.Pad{Before: 2, After: 2})}
				if len(in) > 1 {
					cs = append(cs, ops.Sum(in[1], 3))
				}
				if len(in) > 2 {
					cs = append(cs, ops.ArgMax(in[2], 2))
				}
				return cs
			})
		}
		for _, sh := range [][]int{{3, 5}, {40, 300}, {257, 64}} {
			data := ops.RandTensor(rng, dt, sh)
			gi := tensor.New(tensor.U32, sh)
			for i := range gi.U32() {
				gi.U32()[i] = uint32(rng.Intn(sh[1]))
			}
			ai := tensor.New(tensor.U32, []int{sh[0]})
			for i := range ai.U32() {
				ai.U32()[i] = uint32(rng.Intn(sh[0]))
			}
			base := ops.RandTensor(rng, dt, sh)
			runChain(t, fmt.Sprintf("gather-index_add %v%v", dt, sh), eng, d, []*tensor.Tensor{data, gi, ai, base}, func(in []*tensor.Tensor) []*kernels.Call {
				cs := []*kernels.Call{ops.Gather(in[0], in[1], 1)}
				if len(in) > 4 {
					cs = append(cs, ops.AddCall("index_add", in[3], in[2], in[4], 0))
				}
				return cs
			})
		}
	}
}

// A random sequence of calls from the op table, each on random dtypes and
// shapes, its main operand an earlier result where the op's rules take
// it: one chain, bitwise the same calls one by one (where the GPU serves
// the call at all).
func TestChainRandomOps(t *testing.T) {
	eng, d := onDevice(t)
	for seed := int64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewSource(seed))
		ch, err := eng.Chain(engine.Vulkan)
		if err != nil {
			t.Fatal(err)
		}
		type step struct {
			name      string
			got, want *tensor.Tensor
		}
		var steps []step
		linked := 0
		for range 40 {
			o := ops.Table[rng.Intn(len(ops.Table))]
			f := kernels.FormOnly
			if len(o.Forms) > 0 {
				f = o.Forms[rng.Intn(len(o.Forms))]
			}
			dt := allDTypes[rng.Intn(len(allDTypes))]
			c := o.Random(rng, f, dt, 3)
			if c == nil {
				continue
			}
			hc, dc := callOn(c, map[string]*tensor.Tensor{}), callOn(c, map[string]*tensor.Tensor{})
			for name, x := range c.Inputs {
				hc.Inputs[name], dc.Inputs[name] = x, upload(t, d, x)
			}
			// the main operand: an earlier result, where the call's rules
			// take it
			primary := o.Inputs[0].Name
			if len(steps) > 0 {
				s := steps[rng.Intn(len(steps))]
				hc.Inputs[primary] = s.want
				if _, _, _, err := eng.Check(hc); err == nil {
					dc.Inputs[primary] = s.got
					linked++
				} else {
					hc.Inputs[primary] = c.Inputs[primary]
				}
			}
			name := fmt.Sprintf("seed %d call %d %s/%v %v", seed, len(steps), o.Name, f, dt)
			want, err := eng.Run(engine.Vulkan, hc)
			if err != nil {
				continue // not served on the GPU (a dtype, F64 without shader-f64)
			}
			got, err := ch.Run(dc)
			if err != nil {
				t.Fatalf("%s: one by one it ran, in the chain: %v", name, err)
			}
			steps = append(steps, step{name, got.Out, want.Out})
		}
		if err := ch.Submit(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, s := range steps {
			bitwise(t, s.name, host(t, s.name, s.got), s.want)
		}
		t.Logf("seed %d: %d calls in one chain, %d on an earlier result", seed, len(steps), linked)
	}
}

// A bad index found by a kernel in the middle of a chain fails the chain:
// Submit names the call (and its violation, the CPU's words), and no
// result of the chain can be read — not even those of the calls before it.
func TestChainErrorInTheMiddle(t *testing.T) {
	eng, d := onDevice(t)
	rng := rand.New(rand.NewSource(6))
	data := ops.RandTensor(rng, tensor.F32, []int{6, 8})
	gi := tensor.New(tensor.U32, []int{6, 8})
	bad := tensor.New(tensor.U32, []int{6})
	copy(bad.U32(), []uint32{0, 1, 2, 9, 4, 5})
	_, want := eng.Run(engine.CPU, ops.AddCall("index_add", data, bad, data, 0))
	for _, tc := range []struct {
		name string
		mk   func(prev *tensor.Tensor) *kernels.Call
		op   string
	}{
		{"index_add", func(p *tensor.Tensor) *kernels.Call { return ops.AddCall("index_add", p, upload(t, d, bad), p, 0) }, "index_add"},
		{"gather", func(p *tensor.Tensor) *kernels.Call {
			gb := tensor.New(tensor.U32, []int{6, 8})
			gb.U32()[13] = 8
			return ops.Gather(p, upload(t, d, gb), 1)
		}, "gather"},
	} {
		ch, err := eng.Chain(engine.Vulkan)
		if err != nil {
			t.Fatal(err)
		}
		first, err := ch.Run(ops.Gather(upload(t, d, data), upload(t, d, gi), 1))
		if err != nil {
			t.Fatal(err)
		}
		mid, err := ch.Run(tc.mk(first.Out))
		if err != nil {
			t.Fatal(err)
		}
		last, err := ch.Run(ops.Sum(mid.Out, 1))
		if err != nil {
			t.Fatal(err)
		}
		err = ch.Submit()
		var ce *gpu.ChainError
		var v *kernels.Violation
		if !errors.As(err, &ce) || ce.Call != 1 || ce.Op != tc.op || ce.Calls != 3 || !errors.As(err, &v) {
			t.Fatalf("%s: Submit: %v, want call 2 of 3 (%s) failed, a violation", tc.name, err, tc.op)
		}
		if tc.name == "index_add" && !strings.Contains(err.Error(), want.Error()) {
			t.Errorf("%s: %v, want the CPU's %q", tc.name, err, want)
		}
		for i, r := range []*engine.Result{first, mid, last} {
			if _, err := r.Out.Host(); err == nil || !strings.Contains(err.Error(), "not written") {
				t.Errorf("%s: result %d of the failed chain: read %v, want not written", tc.name, i, err)
			}
			if _, err := eng.Run(engine.Vulkan, ops.Sum(r.Out, ops.All)); err == nil {
				t.Errorf("%s: result %d of the failed chain taken as an input", tc.name, i)
			}
		}
		if err := ch.Submit(); err == nil {
			t.Errorf("%s: a second Submit: no error", tc.name)
		}
	}
}

// A chain's results are unreadable until it is submitted (and after it is
// discarded); a chain that reads a tensor keeps its buffer when the tensor
// is released before the submission.
func TestChainPendingAndRelease(t *testing.T) {
	eng, d := onDevice(t)
	x := ops.RandTensor(rand.New(rand.NewSource(7)), tensor.F32, []int{33, 65})
	want, err := eng.Run(engine.Vulkan, ops.Sum(x, 0))
	if err != nil {
		t.Fatal(err)
	}
	dx := upload(t, d, x)
	ch, _ := eng.Chain(engine.Vulkan)
	s, err := ch.Run(ops.Sum(dx, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Out.Host(); err == nil || !strings.Contains(err.Error(), "not submitted") {
		t.Errorf("a result read before Submit: %v", err)
	}
	if _, err := eng.Run(engine.Vulkan, ops.Sum(s.Out, 0)); err == nil || !strings.Contains(err.Error(), "not submitted") {
		t.Errorf("a pending result as another call's input: %v", err)
	}
	if err := dx.Release(); err != nil {
		t.Fatal(err)
	}
	// what overwrites a freed buffer, if the release freed it early
	for range 4 {
		y := upload(t, d, ops.RandTensor(rand.New(rand.NewSource(8)), tensor.F32, []int{33, 65}))
		defer y.Release()
	}
	if err := ch.Submit(); err != nil {
		t.Fatal(err)
	}
	bitwise(t, "a sum of a tensor released before Submit", host(t, "sum", s.Out), want.Out)

	ch, _ = eng.Chain(engine.Vulkan)
	s, err = ch.Run(ops.Sum(upload(t, d, x), 0))
	if err != nil {
		t.Fatal(err)
	}
	ch.Discard()
	if _, err := s.Out.Host(); err == nil || !strings.Contains(err.Error(), "discarded") {
		t.Errorf("a discarded chain's result: %v", err)
	}
	if _, err := ch.Run(ops.Sum(upload(t, d, x), 0)); err == nil {
		t.Error("a call recorded into a discarded chain")
	}
}
