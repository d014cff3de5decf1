package cpu

// Benchmarks for the shapes of issue 3. Each b.SetBytes is the contract's
// own bytes_moved formula, evaluated for the benchmark's shapes, so
// `go test -bench` reports MB/s in the contract's terms:
//
//	go test -run XXX -bench . -benchtime 3x ./kernels/cpu

import (
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

const f32Bytes = 4 // dtype_bytes for F32

func benchRun(b *testing.B, bytesMoved int, f func() (*tensor.Tensor, error)) {
	b.Helper()
	// The production allocator, not the tests' poisoning one (TestMain).
	defer func(poisoned func(tensor.DType, []int) *tensor.Tensor) { newOutput = poisoned }(newOutput)
	newOutput = tensor.Empty
	b.SetBytes(int64(bytesMoved))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchF32(shape ...int) *tensor.Tensor {
	rng := rand.New(rand.NewSource(1))
	t := tensor.New(tensor.F32, shape)
	for i, v := 0, t.F32(); i < len(v); i++ {
		v[i] = float32(rng.NormFloat64())
	}
	return t
}

func benchIdx(bound int, shape ...int) *tensor.Tensor {
	rng := rand.New(rand.NewSource(2))
	t := tensor.New(tensor.U32, shape)
	for i, v := 0, t.U32(); i < len(v); i++ {
		v[i] = uint32(rng.Intn(bound))
	}
	return t
}

// pad: f32 [8,3,512,512] padded 2 on the last two axes.
func BenchmarkPad(b *testing.B) {
	x := benchF32(8, 3, 512, 512)
	p := pads(0, 0, 0, 0, 2, 2, 2, 2)
	inElem, outElem := 8*3*512*512, 8*3*516*516
	fill := tensor.Encode(tensor.F32, 0)
	for _, m := range []kernels.Mode{kernels.Constant, kernels.Reflect, kernels.Replicate} {
		// fuel-cpu-backend: pad_const_cpu (and `## pad`, constant worst case)
		// bytes_moved "(2 * out_elem + 2 * in_elem) * dtype_bytes";
		// pad_reflect_cpu / pad_replicate_cpu "2 * out_elem * dtype_bytes".
		moved := (2*outElem + 2*inElem) * f32Bytes
		if m != kernels.Constant {
			moved = 2 * outElem * f32Bytes
		}
		b.Run(m.String()+"/fast", func(b *testing.B) {
			benchRun(b, moved, func() (*tensor.Tensor, error) { return Pad(x, m, p, fill) })
		})
		b.Run(m.String()+"/ref", func(b *testing.B) {
			benchRun(b, moved, func() (*tensor.Tensor, error) { return PadRef(x, m, p, fill) })
		})
	}
}

// pad_backward_f32, reflect: grad_out [8,3,516,516] → grad_in [8,3,512,512].
func BenchmarkPadBackward(b *testing.B) {
	g := benchF32(8, 3, 516, 516)
	p := pads(0, 0, 0, 0, 2, 2, 2, 2)
	// pad_backward_f32: bytes_moved "(out_elem + in_elem) * 4"
	moved := (8*3*516*516 + 8*3*512*512) * 4
	b.Run("reflect/fast", func(b *testing.B) {
		benchRun(b, moved, func() (*tensor.Tensor, error) { return PadBackward(g, kernels.Reflect, p) })
	})
	b.Run("reflect/ref", func(b *testing.B) {
		benchRun(b, moved, func() (*tensor.Tensor, error) { return PadBackwardRef(g, kernels.Reflect, p) })
	})
}

// masked_fill (fkc-cpu-kernels): bytes_moved "(2 * n * dtype_bytes) + n".
func BenchmarkMaskedFill(b *testing.B) {
	x := benchF32(8, 3, 512, 512)
	n := x.NumElems()
	mask := tensor.New(tensor.BOOL, x.Shape)
	for i := range mask.Data {
		mask.Data[i] = byte(i % 3 & 1)
	}
	fill := tensor.Encode(tensor.F32, -1)
	benchRun(b, 2*n*f32Bytes+n, func() (*tensor.Tensor, error) { return MaskedFill(x, mask, fill) })
}

// sum_all of 64 Mi f32: bytes_moved "(n + 1) * dtype_bytes".
func BenchmarkSumAll(b *testing.B) {
	n := 64 << 20
	x := benchF32(n)
	benchRun(b, (n+1)*f32Bytes, func() (*tensor.Tensor, error) { return SumAll(x) })
}

// sum_dim / max_dim / argmax_dim over dim 1 of [4096,4096].
func BenchmarkReduceDim(b *testing.B) {
	x := benchF32(4096, 4096)
	n, outElems := 4096*4096, 4096
	// sum_dim, max_dim: bytes_moved "(n + out_elems) * dtype_bytes"
	b.Run("sum_dim/fast", func(b *testing.B) {
		benchRun(b, (n+outElems)*f32Bytes, func() (*tensor.Tensor, error) { return SumDim(x, 1) })
	})
	b.Run("sum_dim/ref", func(b *testing.B) {
		benchRun(b, (n+outElems)*f32Bytes, func() (*tensor.Tensor, error) { return reduceDim("sum_dim", x, 1, foldSum, false, true) })
	})
	b.Run("max_dim/fast", func(b *testing.B) {
		benchRun(b, (n+outElems)*f32Bytes, func() (*tensor.Tensor, error) { return MaxDim(x, 1) })
	})
	b.Run("max_dim/ref", func(b *testing.B) {
		benchRun(b, (n+outElems)*f32Bytes, func() (*tensor.Tensor, error) { return reduceDim("max_dim", x, 1, foldMax, false, true) })
	})
	// argmax_dim: bytes_moved "n * dtype_bytes + out_elems * 4"
	b.Run("argmax_dim/fast", func(b *testing.B) {
		benchRun(b, n*f32Bytes+outElems*4, func() (*tensor.Tensor, error) { return ArgMaxDim(x, 1) })
	})
	b.Run("argmax_dim/ref", func(b *testing.B) {
		benchRun(b, n*f32Bytes+outElems*4, func() (*tensor.Tensor, error) { return argDim("argmax_dim", x, 1, true, true) })
	})
}

// index_select: data [100000,256], 50,000 rows along dim 0.
// index_select_tensor: bytes_moved "2 * n * dtype_bytes", n = output elements.
func BenchmarkIndexSelect(b *testing.B) {
	data := benchF32(100000, 256)
	idx := benchIdx(100000, 50000)
	n := 50000 * 256
	b.Run("fast", func(b *testing.B) {
		benchRun(b, 2*n*f32Bytes, func() (*tensor.Tensor, error) { return IndexSelect(data, idx, 0) })
	})
	b.Run("ref", func(b *testing.B) {
		benchRun(b, 2*n*f32Bytes, func() (*tensor.Tensor, error) { return IndexSelectRef(data, idx, 0) })
	})
}

// gather dim 1 of [4096,4096] with [4096,4096] indices.
// gather: bytes_moved "2 * n * dtype_bytes", n = output (== index) elements.
func BenchmarkGather(b *testing.B) {
	data := benchF32(4096, 4096)
	idx := benchIdx(4096, 4096, 4096)
	n := 4096 * 4096
	b.Run("fast", func(b *testing.B) {
		benchRun(b, 2*n*f32Bytes, func() (*tensor.Tensor, error) { return Gather(data, idx, 1) })
	})
	b.Run("ref", func(b *testing.B) {
		benchRun(b, 2*n*f32Bytes, func() (*tensor.Tensor, error) { return GatherRef(data, idx, 1) })
	})
}

// index_add on index_select's shapes (base [100000,256], 50,000 src rows,
// dim 0); scatter_add on gather's ([4096,4096], dim 1). Both contracts:
// bytes_moved "(2 * base_n + 2 * src_n) * dtype_bytes".
func BenchmarkIndexAdd(b *testing.B) {
	base := benchF32(100000, 256)
	src := benchF32(50000, 256)
	idx := benchIdx(100000, 50000)
	moved := (2*100000*256 + 2*50000*256) * f32Bytes
	b.Run("fast", func(b *testing.B) {
		benchRun(b, moved, func() (*tensor.Tensor, error) { return IndexAdd(base, idx, src, 0) })
	})
	b.Run("ref", func(b *testing.B) {
		benchRun(b, moved, func() (*tensor.Tensor, error) { return IndexAddRef(base, idx, src, 0) })
	})
}

func BenchmarkScatterAdd(b *testing.B) {
	base := benchF32(4096, 4096)
	src := benchF32(4096, 4096)
	idx := benchIdx(4096, 4096, 4096)
	moved := (2*4096*4096 + 2*4096*4096) * f32Bytes
	b.Run("fast", func(b *testing.B) {
		benchRun(b, moved, func() (*tensor.Tensor, error) { return ScatterAdd(base, idx, src, 1) })
	})
	b.Run("ref", func(b *testing.B) {
		benchRun(b, moved, func() (*tensor.Tensor, error) { return ScatterAddRef(base, idx, src, 1) })
	})
}
