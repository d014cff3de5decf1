package engine_test

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"unsafe"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// RunInto writes every op's result into the caller's tensor, bitwise what
// Run returns, for random valid calls of every form and dtype, on the CPU
// and (where this machine has an adapter) on Vulkan; the same output
// tensor is reused across calls.
func TestRunIntoEveryOp(t *testing.T) {
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	backends := []engine.Backend{engine.CPU}
	if dev, err := gpu.OpenNative(); err == nil {
		defer dev.Close()
		eng.Attach(dev)
		backends = append(backends, engine.Vulkan)
	} else {
		t.Logf("Vulkan not checked: %v", err)
	}
	for _, b := range backends {
		runIntoEveryOp(t, eng, b)
	}
}

func runIntoEveryOp(t *testing.T, eng *engine.Engine, b engine.Backend) {
	rng := rand.New(rand.NewSource(5))
	for _, o := range ops.Table {
		forms := o.Forms
		if forms == nil {
			forms = []kernels.Form{kernels.FormOnly}
		}
		for _, f := range forms {
			for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16, tensor.F64, tensor.U32, tensor.I8} {
				c := o.Random(rng, f, dt, 3)
				if c == nil {
					continue
				}
				want, err := eng.Run(b, c)
				if err != nil {
					continue // a dtype this op does not take on b
				}
				out := tensor.New(want.Out.DType, want.Out.Shape)
				block := unsafe.SliceData(out.Data)
				for rep := range 2 { // the same tensor, twice
					got, err := eng.RunInto(b, c, out)
					if err != nil {
						t.Fatalf("%s %s %s on %s: %v", o.Name, f, dt, b, err)
					}
					if got.Out != out || unsafe.SliceData(out.Data) != block {
						t.Fatalf("%s %s %s: the result is not the caller's tensor", o.Name, f, dt)
					}
					if !bytes.Equal(out.Data, want.Out.Data) {
						t.Fatalf("%s %s %s (call %d): RunInto differs from Run", o.Name, f, dt, rep)
					}
					if c.Out != nil {
						t.Fatalf("%s: RunInto changed the caller's call", o.Name)
					}
				}
			}
		}
	}
}

// A caller's output is checked before anything runs: its shape and dtype
// are the call's, it holds its bytes, and no input shares them.
func TestRunIntoRefusals(t *testing.T) {
	eng, _ := engine.New()
	x := tensor.New(tensor.F32, []int{4, 4})
	mask := tensor.New(tensor.BOOL, []int{4, 4})
	call := ops.MaskedFill(x, mask, tensor.FloatScalar(1))
	released := tensor.New(tensor.F32, []int{4, 4})
	released.Release()
	for _, c := range []struct {
		name string
		out  *tensor.Tensor
		want string
	}{
		{"nil", nil, "RunInto needs an output tensor"},
		{"shape", tensor.New(tensor.F32, []int{4, 5}), "the output tensor is F32[4 5]; this call's output is F32[4 4]"},
		{"dtype", tensor.New(tensor.F64, []int{4, 4}), "the output tensor is F64[4 4]; this call's output is F32[4 4]"},
		{"alias", x, "shares bytes with input x"},
		{"released", released, "released"},
		{"short", &tensor.Tensor{DType: tensor.F32, Shape: []int{4, 4}, Data: make([]byte, 4)}, "holds 4 data bytes"},
	} {
		_, err := eng.RunInto(engine.CPU, call, c.out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// an output that overlaps part of an input is refused as well
	big := tensor.New(tensor.F32, []int{8, 4})
	view := &tensor.Tensor{DType: tensor.F32, Shape: []int{4, 4}, Data: big.Data[32:96]}
	_, err := eng.RunInto(engine.CPU, ops.MaskedFill(&tensor.Tensor{DType: tensor.F32, Shape: []int{4, 4}, Data: big.Data[:64]}, mask, tensor.FloatScalar(1)), view)
	if err == nil || !strings.Contains(err.Error(), "shares bytes with input x") {
		t.Errorf("a partly overlapping output: %v", err)
	}
}
