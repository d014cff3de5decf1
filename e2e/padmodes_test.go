package e2e

import (
	"fmt"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// This project's own pad modes (kernels.OwnPadModes) run in the page, on
// the CPU (Go in WASM) and on WebGPU, bitwise equal to the native CPU:
// forward on every pad dtype, backward on the float dtypes the page's
// adapter takes, at widths past n (2n+1, unequal, a length-1 axis), and by
// the contract kernels of this project. The gradients are small integers,
// so that the browser's f32 accumulation (no shader-f64) is exact too.
func TestPadModesMatchNativeCPU(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	gpuOK := eval[bool](t, ctx, `fkc.gpu().available`)
	if !gpuOK {
		t.Errorf("WebGPU is not available in the test browser: %s", eval[string](t, ctx, `fkc.gpu().reason`))
	}
	const padding = "3:5,7:2,0:1" // axis 0 of 2: wider than 2n+1 before; axis 1 of 1; axis 2 of 3
	shape := []int{2, 1, 3}
	type call struct {
		op, input string
		dt        tensor.DType
		shape     []int
		kernel    string // the serving kernel's name, on both backends
	}
	for _, m := range kernels.OwnPadModes {
		var calls []call
		for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16, tensor.U8, tensor.U32, tensor.F64} {
			calls = append(calls, call{"pad", "x", dt, shape, "pad_" + m.String()})
		}
		out, err := kernels.PadOutShape("pad", m, shape, []kernels.Pad{{Before: 3, After: 5}, {Before: 7, After: 2}, {Before: 0, After: 1}})
		if err != nil {
			t.Fatal(err)
		}
		for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
			calls = append(calls, call{"pad_backward", "grad_out", dt, out, ""})
		}
		for _, c := range calls {
			t.Run(fmt.Sprintf("%s/%s/%s", c.op, m, c.dt), func(t *testing.T) {
				in := map[string]*tensor.Tensor{c.input: tensorOf(t, c.dt, c.shape, 3, -1, 4, 1, -5, 9, 2, -6, 5)}
				if c.dt == tensor.U8 || c.dt == tensor.U32 {
					in[c.input] = tensorOf(t, c.dt, c.shape)
				}
				flags := []string{"--mode", m.String(), "--padding", padding}
				want, err := eng.RunArgs(engine.CPU, c.op, flags, in)
				if err != nil {
					t.Fatalf("native: %v", err)
				}
				if c.kernel != "" && want.Kernel != c.kernel {
					t.Errorf("native served by %s, want %s", want.Kernel, c.kernel)
				}
				for _, backend := range []string{"cpu", "webgpu"} {
					if backend == "webgpu" && !gpuOK {
						continue
					}
					pageFlags := flags
					if c.dt == tensor.BF16 { // .npy has no bf16: <u2 bit patterns
						pageFlags = append([]string{"--dtype", "bf16"}, flags...)
					}
					r := fkcRun(t, ctx, backend, c.op, pageFlags, in)
					if r.Err != "" {
						t.Errorf("%s: %s", backend, r.Err)
						continue
					}
					got, err := tensor.ReadNpyBytes(decodeRaw(t, r.NPY), c.dt == tensor.BF16)
					if err != nil {
						t.Fatal(err)
					}
					if d := sameTensor(got, want.Out); d != "" {
						t.Errorf("%s (kernel %s, %s): differs from native %s: %s", backend, r.Kernel, r.Provider, want.Kernel, d)
					}
					wantProvider := map[string]string{"cpu": "fkc-cpu-kernels", "webgpu": "fkc-wgsl-kernels"}[backend]
					if r.Provider != wantProvider || (c.kernel != "" && r.Kernel != c.kernel) {
						t.Errorf("%s served by %s (%s), want %s (%s)", backend, r.Kernel, r.Provider, c.kernel, wantProvider)
					}
				}
			})
		}
	}
}
