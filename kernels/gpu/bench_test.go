//go:build !js

package gpu

import (
	"testing"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Benchmarks report MB/s over the contract's bytes_moved and, as gpu-GB/s,
// the same bytes over LastGPUTime (submit -> results mapped), and as
// kernel-GB/s over LastKernelTime (GPU timestamps; when available).
func benchOp(b *testing.B, bytesMoved int64, run func() error) {
	d := device(b)
	if err := run(); err != nil { // warm: pipeline build, first allocation
		b.Skipf("%v", err)
	}
	b.SetBytes(bytesMoved)
	b.ResetTimer()
	var gpu, kern time.Duration
	for range b.N {
		if err := run(); err != nil {
			b.Fatal(err)
		}
		gpu += d.LastGPUTime()
		kern += d.LastKernelTime()
	}
	b.ReportMetric(float64(bytesMoved)*float64(b.N)/gpu.Seconds()/1e9, "gpu-GB/s")
	if kern > 0 {
		b.ReportMetric(float64(bytesMoved)*float64(b.N)/kern.Seconds()/1e9, "kernel-GB/s")
	}
}

// pad_reflect_b4: bytes_moved = (n_out + n_in) * 4.
func BenchmarkPadReflectF32(b *testing.B) {
	for _, sh := range [][]int{{8, 3, 128, 128}, {8, 3, 512, 512}} {
		x := tensor.New(tensor.F32, sh)
		pads := pp(0, 0, 0, 0, 2, 2, 2, 2)
		out, _ := kernels.PadOutShape("pad", kernels.Reflect, sh, pads)
		n := int64(tensor.NumElems(out) + x.NumElems())
		b.Run(x.String(), func(b *testing.B) {
			d := device(b)
			benchOp(b, 4*n, func() error { _, err := d.Pad(x, kernels.Reflect, pads, nil); return err })
		})
	}
}

// sum_all: bytes_moved = (n + 1) * 4.
func BenchmarkSumAllF32(b *testing.B) {
	for _, n := range []int{1 << 20, 1 << 24, 1 << 26} {
		x := tensor.New(tensor.F32, []int{n})
		b.Run(x.String(), func(b *testing.B) {
			d := device(b)
			benchOp(b, 4*int64(n+1), func() error { _, err := d.SumAll(x); return err })
		})
	}
}
