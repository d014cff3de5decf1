//go:build !js

package gpu_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// BenchmarkChainDevice: pad reflect → sum → argmax on a device tensor, one
// submission per iteration, results released: the fixed cost of a chain
// (small) and its cost at a size where kernels dominate (large).
func BenchmarkChainDevice(b *testing.B) {
	for _, sh := range [][]int{{1, 3, 8, 8}, {2, 3, 128, 128}, {8, 3, 512, 512}} {
		b.Run(fmt.Sprint(sh), func(b *testing.B) {
			t := &testing.T{}
			eng, d := onDevice(t)
			if eng == nil {
				b.Skip("no device")
			}
			x, err := d.Upload(ops.RandTensor(rand.New(rand.NewSource(1)), tensor.F32, sh))
			if err != nil {
				b.Fatal(err)
			}
			defer x.Release()
			run := func() {
				ch, err := eng.Chain(engine.Vulkan)
				if err != nil {
					b.Fatal(err)
				}
				p, err := ch.Run(ops.Pad(x, kernels.Reflect, kernels.Pad{}, kernels.Pad{}, kernels.Pad{Before: 2, After: 2}, kernels.Pad{Before: 2, After: 2}))
				if err != nil {
					b.Fatal(err)
				}
				s, err := ch.Run(ops.Sum(p.Out, 3))
				if err != nil {
					b.Fatal(err)
				}
				a, err := ch.Run(ops.ArgMax(s.Out, 2))
				if err != nil {
					b.Fatal(err)
				}
				if err := ch.Submit(); err != nil {
					b.Fatal(err)
				}
				p.Out.Release()
				s.Out.Release()
				a.Out.Release()
			}
			run()
			b.ResetTimer()
			for range b.N {
				run()
			}
		})
	}
}
