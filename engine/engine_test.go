package engine_test

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
	"github.com/fkc-playground/fkc/verify"
)

func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func f32(shape []int, vals ...float32) *tensor.Tensor {
	x := tensor.New(tensor.F32, shape)
	copy(x.F32(), vals)
	return x
}

func u32(shape []int, vals ...uint32) *tensor.Tensor {
	x := tensor.New(tensor.U32, shape)
	copy(x.U32(), vals)
	return x
}

// The registry is the table the tests walk: every registrable
// CPU binding of every contract must be linked, and every linked binding ×
// the op variants it serves must agree with the CPU oracle on random
// valid inputs.
func TestEveryCPUBindingAgainstOracle(t *testing.T) {
	e := newEngine(t)
	for _, b := range e.Reg.Bindings {
		if b.Backend != "Cpu" {
			continue
		}
		if _, ok := e.LinkFor(b.Kernel.EntryPoint); !ok {
			t.Errorf("%s (%s) is registrable on Cpu but its entry_point %s is not linked", b.Kernel.Name, b.Doc.Provider.Name, b.Kernel.EntryPoint)
		}
	}
	var log bytes.Buffer
	rep := verify.Run(e, engine.CPU, 7, 25, &log)
	if rep.Failed > 0 || rep.Passed < 60 {
		t.Errorf("verify cpu: %+v\n%s", rep, log.String())
	}
	t.Logf("verify cpu: %d passed, %d failed, %d skipped", rep.Passed, rep.Failed, rep.Skipped)
}

// Hand-worked cases from the seeds' prose, through the front door.
func TestRunHandWorked(t *testing.T) {
	e := newEngine(t)
	cases := []struct {
		op     string
		flags  []string
		inputs map[string]*tensor.Tensor
		want   []float64
		kernel string
	}{
		{"pad", []string{"--mode", "reflect", "--padding", "2:2"}, map[string]*tensor.Tensor{"x": f32([]int{4}, 1, 2, 3, 4)}, []float64{3, 2, 1, 2, 3, 4, 3, 2}, "pad"},
		{"pad", []string{"--mode", "replicate", "--padding", "2:2"}, map[string]*tensor.Tensor{"x": f32([]int{4}, 1, 2, 3, 4)}, []float64{1, 1, 1, 2, 3, 4, 4, 4}, "pad"},
		{"pad", []string{"--mode", "constant", "--padding", "1:2", "--value", "9"}, map[string]*tensor.Tensor{"x": f32([]int{2}, 1, 2)}, []float64{9, 1, 2, 9, 9}, "pad"},
		// Reflect backward of [a b c d] padded 2:2 folds out[0..7] = in[2,1,0,1,2,3,2,1].
		{"pad_backward", []string{"--mode", "reflect", "--padding", "2:2"}, map[string]*tensor.Tensor{"grad_out": f32([]int{8}, 1, 1, 1, 1, 1, 1, 1, 1)}, []float64{1, 3, 3, 1}, "pad_backward_f32"},
		{"sum", nil, map[string]*tensor.Tensor{"x": f32([]int{2, 2}, 1, 2, 3, 4)}, []float64{10}, "sum_all"},
		{"sum", []string{"--dim", "1"}, map[string]*tensor.Tensor{"x": f32([]int{2, 2}, 1, 2, 3, 4)}, []float64{3, 7}, "sum_dim"},
		{"argmax", []string{"--dim", "1"}, map[string]*tensor.Tensor{"x": f32([]int{2, 3}, 1, 5, 5, 2, 2, 0)}, []float64{1, 0}, "argmax_dim"},
		{"gather", []string{"--dim", "1"}, map[string]*tensor.Tensor{"data": f32([]int{2, 2}, 1, 2, 3, 4), "indices": u32([]int{2, 2}, 0, 0, 1, 0)}, []float64{1, 1, 4, 3}, "gather"},
		{"index_add", []string{"--dim", "0"}, map[string]*tensor.Tensor{"base": f32([]int{3}, 0, 0, 0), "indices": u32([]int{3}, 0, 2, 0), "src": f32([]int{3}, 1, 2, 3)}, []float64{4, 0, 2}, "index_add"},
		{"reduce_sum_to", []string{"--shape", "1,2"}, map[string]*tensor.Tensor{"x": f32([]int{2, 2}, 1, 2, 3, 4)}, []float64{4, 6}, "reduce_sum_to"},
	}
	for _, c := range cases {
		res, err := e.RunArgs(engine.CPU, c.op, c.flags, c.inputs)
		if err != nil {
			t.Errorf("%s %v: %v", c.op, c.flags, err)
			continue
		}
		if res.Kernel != c.kernel {
			t.Errorf("%s %v served by %s, want %s", c.op, c.flags, res.Kernel, c.kernel)
		}
		got := make([]float64, res.Out.NumElems())
		for i := range got {
			got[i] = res.Out.At(i)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s %v = %v, want %v", c.op, c.flags, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s %v = %v, want %v", c.op, c.flags, got, c.want)
				break
			}
		}
	}
}

// Every contract violation and usage error of the front door, with its words.
func TestRunErrors(t *testing.T) {
	e := newEngine(t)
	// A GPU build's link table, without a device: dispatch names it as
	// where an op runs instead.
	e.AddEntries([]kernels.Link{{EntryPoint: "fuel_vulkan_backend::fkc::pad_const_b4", Serves: kernels.Variants("pad", kernels.FormConstant)}})
	x4 := f32([]int{4}, 1, 2, 3, 4)
	i32 := tensor.New(tensor.I32, []int{4})
	cases := []struct {
		op     string
		flags  []string
		inputs map[string]*tensor.Tensor
		want   string
		usage  bool
	}{
		{"pad", []string{"--mode", "reflect", "--padding", "4:0"}, map[string]*tensor.Tensor{"x": x4}, "reflect padding (4, 0) on axis 0 exceeds in_shape[0]-1 = 3", false},
		{"pad", []string{"--mode", "reflect", "--padding", "1:1,1:1"}, map[string]*tensor.Tensor{"x": x4}, "padding has 2 axes but the input has rank 1", false},
		{"pad", []string{"--mode", "constant", "--padding", "1:1"}, map[string]*tensor.Tensor{"x": i32}, "Cpu pad/constant is registered for U8, U32, BF16, F16, F32, F64 only", false},
		{"pad", []string{"--mode", "constant", "--padding", "1:1"}, map[string]*tensor.Tensor{"x": i32}, "Vulkan via pad_const_b4", false},
		{"pad", []string{"--mode", "mirror", "--padding", "1:1"}, map[string]*tensor.Tensor{"x": x4}, "is not a pad mode", true},
		// A pad width that would need tens of GB is refused, not attempted.
		{"pad", []string{"--mode", "constant", "--padding", "0:3000000000"}, map[string]*tensor.Tensor{"x": x4}, "output: shape [3000000004]: more than", false},
		{"pad", []string{"--padding", "1:1"}, map[string]*tensor.Tensor{"x": x4}, "needs --mode", true},
		{"pad", []string{"--mode", "reflect", "--padding", "1"}, map[string]*tensor.Tensor{"x": x4}, "is not B:A", true},
		{"sum", []string{"--dim", "3"}, map[string]*tensor.Tensor{"x": x4}, "dim 3 is out of range", false},
		{"sum", []string{"--mode", "reflect"}, map[string]*tensor.Tensor{"x": x4}, "sum does not take --mode", true},
		{"argmax", nil, map[string]*tensor.Tensor{"x": x4}, "needs --dim", true},
		{"gather", []string{"--dim", "0"}, map[string]*tensor.Tensor{"data": x4, "indices": u32([]int{2}, 1, 4)}, "indices[1] = 4 is out of range", false},
		{"gather", []string{"--dim", "0"}, map[string]*tensor.Tensor{"data": x4, "indices": tensor.New(tensor.U8, []int{1})},
			"indices has dtype U8 (contract: indices dtypes [U32]); I32 and I64 indices are accepted too, converted to U32", false},
		{"index_select", []string{"--dim", "0"}, map[string]*tensor.Tensor{"data": x4, "indices": u32([]int{1, 1}, 0)}, "rank-1", false},
		{"masked_fill", []string{"--value", "1"}, map[string]*tensor.Tensor{"x": x4, "mask": tensor.New(tensor.BOOL, []int{3})}, "shape", false},
		{"masked_fill", []string{"--value", "1"}, map[string]*tensor.Tensor{"x": x4}, "needs input mask", true},
		{"reduce_sum_to", []string{"--shape", "3"}, map[string]*tensor.Tensor{"x": x4}, "each axis == input size OR 1", false},
		{"frobnicate", nil, nil, "unknown op", true},
	}
	for _, c := range cases {
		_, err := e.RunArgs(engine.CPU, c.op, c.flags, c.inputs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: err = %v, want it to contain %q", c.op, c.flags, err, c.want)
			continue
		}
		var u *kernels.Usage
		if isUsage := errors.As(err, &u); isUsage != c.usage {
			t.Errorf("%s %v: usage error = %v, want %v (%v)", c.op, c.flags, isUsage, c.usage, err)
		}
	}
	// The Go API's own mistakes: a dim below -1 (ops.All) summed every
	// element; a nil call panicked; a Backend that is none of the
	// constants ran as Vulkan and said so.
	for name, run := range map[string]func() (*engine.Result, error){
		"sum dim -2":      func() (*engine.Result, error) { return e.Run(engine.CPU, ops.Sum(x4, -2)) },
		"max dim -5":      func() (*engine.Result, error) { return e.Run(engine.CPU, ops.Max(x4, -5)) },
		"nil call":        func() (*engine.Result, error) { return e.Run(engine.CPU, nil) },
		"nil call, named": func() (*engine.Result, error) { return e.RunKernel(engine.CPU, "fuel-cpu-backend/pad", nil) },
		"metal":           func() (*engine.Result, error) { return e.Run(engine.Backend("metal"), ops.Sum(x4, ops.All)) },
	} {
		want := map[string]string{"sum dim -2": "dim -2 is out of range", "max dim -5": "dim -5 is out of range", "nil call": "no call",
			"nil call, named": "no call", "metal": `unknown backend "metal"`}[name]
		if r, err := run(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, %v; want an error containing %q", name, r, err, want)
		}
	}
	if r, err := e.Run(engine.CPU, ops.Sum(x4, ops.All)); err != nil || r.Out.At(0) != 10 {
		t.Errorf("sum over all: %v, %v", r, err)
	}
	// The zero Backend is the CPU, as ParseBackend("") and Contract say.
	if r, err := e.Run("", ops.Sum(x4, ops.All)); err != nil || r.Out.At(0) != 10 {
		t.Errorf("sum over all on Backend(\"\"): %v, %v", r, err)
	}
	// A GPU backend with no device attached is unavailable, said so: it
	// was "no Vulkan binding for pad/reflect" (Run) and "not linked to an
	// implementation in this build" (RunKernel).
	for name, run := range map[string]func() (*engine.Result, error){
		"Run": func() (*engine.Result, error) {
			return e.Run(engine.Vulkan, ops.Pad(x4, kernels.Reflect, kernels.Pad{Before: 1, After: 1}))
		},
		"RunKernel": func() (*engine.Result, error) {
			return e.RunKernel(engine.Vulkan, "fuel-vulkan-kernels/pad_reflect_b4", ops.Pad(x4, kernels.Reflect, kernels.Pad{Before: 1, After: 1}))
		},
	} {
		var un *kernels.Unavailable
		if _, err := run(); !errors.As(err, &un) || !strings.Contains(err.Error(), "no GPU device is attached") {
			t.Errorf("%s on Vulkan without a device: %v", name, err)
		}
	}
	// A kernel named without its provider, or under another one, is
	// suggested by its PROVIDER/NAME.
	for id, want := range map[string]string{
		"pad_reflect_b4":                  `--kernel "pad_reflect_b4": no such kernel (it wants PROVIDER/NAME); did you mean fuel-vulkan-kernels/pad_reflect_b4?`,
		"fuel-cpu-backend/pad_reflect_b4": `--kernel "fuel-cpu-backend/pad_reflect_b4": no such kernel (PROVIDER/NAME); did you mean fuel-vulkan-kernels/pad_reflect_b4?`,
		"nope":                            `--kernel "nope": no such kernel in the loaded contracts (it wants PROVIDER/NAME, e.g. fuel-vulkan-kernels/pad_reflect_b4;`,
	} {
		if _, err := e.RunKernel(engine.CPU, id, ops.Sum(x4, ops.All)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("--kernel %s: %v\nwant %s", id, err, want)
		}
	}
}

func TestCostSymbolsAndBytesMoved(t *testing.T) {
	e := newEngine(t)
	res, err := e.RunArgs(engine.CPU, "pad", []string{"--mode", "reflect", "--padding", "1:1,2:2"}, map[string]*tensor.Tensor{"x": tensor.New(tensor.F32, []int{3, 4})})
	if err != nil {
		t.Fatal(err)
	}
	// seed 001 pad: bytes_moved "(2 * out_elem + 2 * in_elem) * dtype_bytes" = (2*40 + 2*12) * 4
	got, err := engine.BytesMoved(res)
	if err != nil || got != 416 {
		t.Errorf("bytes_moved = %v, %v; want 416", got, err)
	}
	if math.IsNaN(got) {
		t.Fatal("NaN")
	}
}

// A call is resolved once, where it is checked, whichever door it comes
// in by (Run, RunKernel, RunBinding): the kernel runs, and the result
// records, the axis a negative dim names and U32 indices converted from
// I64; the served-by line says so; the cost symbols are the U32 call's;
// the caller's call is left as it was.
func TestResolvedOnce(t *testing.T) {
	e := newEngine(t)
	data := f32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	i64 := tensor.New(tensor.I64, []int{2, 2})
	copy(i64.I64(), []int64{2, 0, 1, 1})
	want, err := e.Run(engine.CPU, ops.Gather(data, u32([]int{2, 2}, 2, 0, 1, 1), 1))
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := e.FindKernel("fuel-reference-backend/gather")
	runs := map[string]func(*kernels.Call) (*engine.Result, error){
		"Run": func(c *kernels.Call) (*engine.Result, error) { return e.Run(engine.CPU, c) },
		"RunKernel": func(c *kernels.Call) (*engine.Result, error) {
			return e.RunKernel(engine.CPU, "fuel-reference-backend/gather", c)
		},
		"RunBinding": func(c *kernels.Call) (*engine.Result, error) {
			return e.RunBinding(e.Reg.Of(ref.Kernel)[0], c)
		},
	}
	for name, run := range runs {
		c := ops.Gather(data, i64, -1)
		res, err := run(c)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !slices.Equal(res.Out.F32(), want.Out.F32()) {
			t.Errorf("%s: %v, want %v", name, res.Out.F32(), want.Out.F32())
		}
		if got := res.ServedBy(); got != "kernel gather (fuel-reference-backend, Cpu); dim -1 → 1; indices I64 → U32" {
			t.Errorf("%s: served by %q", name, got)
		}
		if res.Call.Dim != 1 || res.Call.In("indices").DType != tensor.U32 || c.Dim != -1 || c.In("indices") != i64 {
			t.Errorf("%s: ran dim %d on %s; the caller's call is now dim %d on %s", name, res.Call.Dim, res.Call.In("indices"), c.Dim, c.In("indices"))
		}
		got, err1 := engine.BytesMoved(res)
		u32b, err2 := engine.BytesMoved(want)
		if err1 != nil || err2 != nil || got != u32b {
			t.Errorf("%s: bytes_moved %v (%v), the U32 call's %v (%v)", name, got, err1, u32b, err2)
		}
	}
}

// Every collision's resolution is stated in the kernel's doc.
func TestDispatchNotes(t *testing.T) {
	e := newEngine(t)
	note := func(provider, kernel string) string {
		for _, r := range e.Reg.Kernels() {
			if r.Doc.Provider.Name == provider && r.Kernel.Name == kernel {
				return e.DispatchNote(r.Kernel, provider)
			}
		}
		t.Fatalf("no kernel %s/%s", provider, kernel)
		return ""
	}
	for _, c := range []struct{ provider, kernel, want string }{
		{"fuel-reference-backend", "sum_all", "Dispatch target of `fkc run sum (no --dim)` on Cpu. Its registry key is shared with sum_dim"},
		{"fuel-reference-backend", "sum_dim", "Dispatch target of `fkc run sum --dim D`"},
		{"fuel-reference-backend", "argindex_dim", "Not a dispatch target"},
		{"fuel-reference-backend", "argindex_dim", "argmax_dim, which shares its registry key"},
		{"fuel-reference-backend", "index_select", "Not a dispatch target"},
		{"fuel-reference-backend", "embedding", "Dispatch target of `fkc run embedding`"},
		{"fuel-cpu-backend", "pad_reflect_cpu", "Describe-only (registrable: false): never dispatched; its Try it runs `fkc run pad --mode reflect`"},
		{"fkc-cpu-kernels", "masked_fill", "Dispatch target of `fkc run masked_fill` on Cpu."},
	} {
		if got := note(c.provider, c.kernel); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q lacks %q", c.kernel, got, c.want)
		}
	}
}

// For every backend, op/variant and dtype at most one linked binding
// serves a call: shared registry keys (DuplicateKernelRef) never leave
// dispatch a choice to make.
func TestDispatchIsUnambiguous(t *testing.T) {
	e := newEngine(t)
	type key struct {
		backend string
		variant kernels.Variant
		dtype   tensor.DType
	}
	served := map[key][]string{}
	for _, b := range e.Reg.Bindings {
		if !e.Runnable(b.Kernel.EntryPoint) {
			continue
		}
		for _, v := range e.DispatchVariants(b.Kernel.EntryPoint) {
			k := key{b.Backend, v, b.InputDTypes[0]}
			served[k] = append(served[k], b.Kernel.Name)
		}
	}
	if len(served) < 60 {
		t.Fatalf("only %d (backend, op/variant, dtype) cells are served", len(served))
	}
	for k, ks := range served {
		if len(ks) > 1 {
			t.Errorf("%v is served by %v", k, ks)
		}
	}
}
