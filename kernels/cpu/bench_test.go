package cpu

// Benchmarks for the bench cases (the shapes NumPy and PyTorch are
// timed on by scripts/cpu_peers.py), one line each per implementation:
//
//	fast   the kernel a caller gets (output allocated per call)
//	ref    its reference walk (slow: seconds at these shapes)
//	limit  the same process's memory limit for the case's bytes: a
//	       2-goroutine copy for data movers, a 2-goroutine streaming read
//	       for reductions
//	released  fast, its output given back each call (tensor.Release)
//	into   data movers only: fast writing into one caller's tensor
//	fresh  data movers only: the same copy into a new output each call
//	       (tensor.Empty, as a kernel's output is): the limit as a caller
//	       who keeps no buffers meets it
//
// b.SetBytes is the traffic a case cannot avoid — every input byte read
// once, every output byte written once — for all three lines, so their MB/s
// compare directly (fast/limit ≥ 0.85 is the memory-limit goal):
//
//	go test -run XXX -bench 'Cases/.*/(fast|limit|fresh)' -benchtime 15x ./kernels/cpu
//
// Each line also reports the median call (ms-median), which is what
// scripts/cpu_peers.py sets beside the peers' medians.

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/fkc-playground/fkc/internal/par"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// kernelFunc runs a case's kernel; a data mover writes into the optional
// output (the caller's, as engine.RunInto passes it), a reduction ignores it.
type kernelFunc = func(into ...*tensor.Tensor) (*tensor.Tensor, error)

type benchCase struct {
	name    string
	traffic int  // bytes read + written, at least
	read    bool // a reduction: its limit is a streaming read of traffic bytes
	// setup builds the inputs (only when the case is selected) and returns
	// the fast path and its reference walk (nil when there is none).
	setup func() (fast, ref kernelFunc)
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

const (
	img    = 8 * 3 * 512 * 512 // the [8,3,512,512] f32 input
	imgOut = 8 * 3 * 516 * 516 // padded by 2 on the last two axes
	sq     = 4096 * 4096
	f32B   = 4
)

func padCase(name string, mode kernels.Mode) benchCase {
	return benchCase{name, (img + imgOut) * f32B, false, func() (kernelFunc, kernelFunc) {
		x, p, fill := benchF32(8, 3, 512, 512), pads(0, 0, 0, 0, 2, 2, 2, 2), tensor.Encode(tensor.F32, 0)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return Pad(x, mode, p, fill, into...) },
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return PadRef(x, mode, p, fill) }
	}}
}

func dimCase(name string, fast, ref func(*tensor.Tensor, int) (*tensor.Tensor, error)) benchCase {
	return benchCase{name, sq * f32B, true, func() (kernelFunc, kernelFunc) {
		x := benchF32(4096, 4096)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return fast(x, 1) },
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return ref(x, 1) }
	}}
}

func padBackwardCase(name string, mode kernels.Mode) benchCase {
	return benchCase{name, (imgOut + img) * f32B, false, func() (kernelFunc, kernelFunc) {
		g, p := benchF32(8, 3, 516, 516), pads(0, 0, 0, 0, 2, 2, 2, 2)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return PadBackward(g, mode, p, into...) },
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return PadBackwardRef(g, mode, p) }
	}}
}

// padCases: every mode of the mode table forward on the image shape, the
// large constant pad, and the backward of every mode but constant's crop.
func padCases() []benchCase {
	var fwd, bwd []benchCase
	for _, pm := range kernels.PadModes {
		fwd = append(fwd, padCase("pad_"+pm.Name+"_8x3x512x512", pm.Mode))
		if pm.Mode != kernels.Constant {
			bwd = append(bwd, padBackwardCase("pad_backward_"+pm.Name+"_8x3x512x512", pm.Mode))
		}
	}
	fwd = append(fwd, benchCase{"pad_constant_4096x4096_p3", (sq + 4102*4102) * f32B, false, func() (kernelFunc, kernelFunc) {
		x, p, fill := benchF32(4096, 4096), pads(3, 3, 3, 3), tensor.Encode(tensor.F32, 0)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) {
				return Pad(x, kernels.Constant, p, fill, into...)
			},
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return PadRef(x, kernels.Constant, p, fill) }
	}})
	return append(fwd, bwd...)
}

var benchCases = append(padCases(), []benchCase{
	// The oracle's flat fold (sum_all) and the contracted fast sum.
	{"sum_all_64Mi", 64 << 20 * f32B, true, func() (kernelFunc, kernelFunc) {
		x := benchF32(64 << 20)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return SumAll(x) }, nil
	}},
	{"sum_all_blocked_64Mi", 64 << 20 * f32B, true, func() (kernelFunc, kernelFunc) {
		x := benchF32(64 << 20)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return SumAllBlocked(x) },
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return SumAllBlockedRef(x) }
	}},
	dimCase("sum_dim1_4096x4096", SumDim, SumDimRef),
	dimCase("max_dim1_4096x4096", MaxDim, MaxDimRef),
	dimCase("argmax_dim1_4096x4096", ArgMaxDim, ArgMaxDimRef),
	{"index_select_dim0_100000x256_50000", 2*50000*256*f32B + 50000*4, false, func() (kernelFunc, kernelFunc) {
		data, idx := benchF32(100000, 256), benchIdx(100000, 50000)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return IndexSelect(data, idx, 0, into...) },
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return IndexSelectRef(data, idx, 0) }
	}},
	{"gather_dim1_4096x4096", 3 * sq * f32B, false, func() (kernelFunc, kernelFunc) {
		data, idx := benchF32(4096, 4096), benchIdx(4096, 4096, 4096)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return Gather(data, idx, 1, into...) },
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return GatherRef(data, idx, 1) }
	}},
	{"index_add_dim0_100000x256_50000", (2*100000+50000)*256*f32B + 50000*4, false, func() (kernelFunc, kernelFunc) {
		base, idx, src := benchF32(100000, 256), benchIdx(100000, 50000), benchF32(50000, 256)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return IndexAdd(base, idx, src, 0, into...) },
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return IndexAddRef(base, idx, src, 0) }
	}},
	{"scatter_add_dim1_4096x4096", 4 * sq * f32B, false, func() (kernelFunc, kernelFunc) {
		base, idx, src := benchF32(4096, 4096), benchIdx(4096, 4096, 4096), benchF32(4096, 4096)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return ScatterAdd(base, idx, src, 1, into...) },
			func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return ScatterAddRef(base, idx, src, 1) }
	}},
	// 256 MiB copied into a new tensor (what every kernel output costs) and
	// into an existing one.
	{"copy_256MiB_new", 512 << 20, false, func() (kernelFunc, kernelFunc) {
		x := benchF32(64 << 20)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return x.Clone(), nil }, nil
	}},
	{"copy_256MiB_existing", 512 << 20, false, func() (kernelFunc, kernelFunc) {
		x, dst := benchF32(64<<20), benchF32(64<<20)
		return func(into ...*tensor.Tensor) (*tensor.Tensor, error) { par.Copy(dst.Data, x.Data); return dst, nil }, nil
	}},
}...)

func BenchmarkCases(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			var fast, ref kernelFunc
			b.Run("fast", func(b *testing.B) {
				if fast == nil {
					fast, ref = c.setup()
				}
				benchRun(b, c.traffic, fast)
			})
			b.Run("ref", func(b *testing.B) {
				if fast == nil {
					fast, ref = c.setup()
				}
				if ref == nil {
					b.Skip("no separate reference walk")
				}
				benchRun(b, c.traffic, ref)
			})
			// released: the result given back each call (tensor.Release), as
			// a Go loop that drops its results would; into: written into the
			// caller's tensor (engine.RunInto), data movers only.
			b.Run("released", func(b *testing.B) {
				if strings.HasSuffix(c.name, "_existing") {
					b.Skip("its output is one kept tensor")
				}
				if fast == nil {
					fast, ref = c.setup()
				}
				benchRun(b, c.traffic, func(...*tensor.Tensor) (*tensor.Tensor, error) {
					out, err := fast()
					if err == nil {
						out.Release()
					}
					return out, err
				})
			})
			if !c.read {
				b.Run("into", func(b *testing.B) {
					if fast == nil {
						fast, ref = c.setup()
					}
					dst, err := fast()
					if err != nil {
						b.Fatal(err)
					}
					benchRun(b, c.traffic, func(...*tensor.Tensor) (*tensor.Tensor, error) { return fast(dst) })
				})
			}
			b.Run("limit", func(b *testing.B) { benchLimit(b, c.traffic, c.read) })
			if !c.read {
				b.Run("fresh", func(b *testing.B) { benchFresh(b, c.traffic) })
			}
		})
	}
}

func benchRun(b *testing.B, traffic int, f kernelFunc) {
	b.Helper()
	// The production allocator, not the tests' poisoning one (TestMain).
	defer func(poisoned func(tensor.DType, []int) *tensor.Tensor) { newOutput = poisoned }(newOutput)
	newOutput = tensor.Empty
	// Warm-up: the heap grows to its working size over the first calls
	// (each growth is fresh memory, paid in page faults).
	for range 3 {
		if _, err := f(); err != nil {
			b.Fatal(err)
		}
	}
	timed(b, traffic, func() {
		if _, err := f(); err != nil {
			b.Fatal(err)
		}
	})
}

// timed runs f b.N times and reports, besides the mean, the median call
// ("ms-median"): the figure set beside the peers' medians, and robust to
// the odd call that meets a page fault storm or a busy core.
func timed(b *testing.B, traffic int, f func()) {
	b.SetBytes(int64(traffic))
	ts := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		f()
		ts = append(ts, float64(time.Since(t0).Nanoseconds())/1e6)
	}
	b.StopTimer()
	slices.Sort(ts)
	b.ReportMetric(ts[len(ts)/2], "ms-median")
}

// benchLimit moves traffic bytes on exactly two goroutines, between
// buffers that already exist: a copy of traffic/2 bytes (read + write), or
// a streaming read of all of them through the 32-lane sum.
func benchLimit(b *testing.B, traffic int, read bool) {
	defer par.SetThreads(2)()
	n := traffic / 2
	if read {
		n = traffic
	}
	src, dst := make([]float32, n/4), make([]float32, n/4)
	for i := range src {
		src[i] = float32(i & 1023)
	}
	var sink atomic.Uint32
	run := func() {
		if !read {
			s, d := unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), n), unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), n)
			par.Copy(d, s)
			return
		}
		par.For(len(src)/lanes, lanes*4, func(lo, hi int) {
			var sums [lanes]float32
			sumLanesF32(src[lo*lanes:hi*lanes], &sums)
			sink.Add(math.Float32bits(sums[0]))
		})
	}
	run()
	timed(b, traffic, run)
}

// benchFresh is benchLimit's copy into a fresh output each call: the Go
// heap hands a kernel's output whichever span it finds, usually memory the
// cache has lost (a dropped output comes back only after a collection),
// where NumPy and PyTorch get the block glibc freed a moment ago. Measured
// on this 2-core VM, 200 copies of 25 MB into tensor.Empty (three runs):
// every second call starts a GC cycle (the live heap is about two such
// tensors, GOGC 100), and those calls took 1.49-1.83 ms against 1.04-1.22
// for the others and 0.72-0.74 for the copy into one existing buffer;
// gctrace shows 0.1-0.25 ms of stop-the-world a cycle and 0.3-1.0 ms of
// concurrent mark. Page faults were not it: 0-16 a call (2 MiB pages)
// with the huge-page advice, 65-322 without it and slower. GOGC 200
// halves the GC calls (medians 1.02-1.06 without a cycle).
func benchFresh(b *testing.B, traffic int) {
	defer par.SetThreads(2)()
	n := traffic / 2
	src := benchF32(n / 4)
	for range 3 {
		par.Copy(tensor.Empty(tensor.U8, []int{n}).Data, src.Data)
	}
	timed(b, traffic, func() { par.Copy(tensor.Empty(tensor.U8, []int{n}).Data, src.Data) })
}
