// Package bench times kernels the way `fkc bench`, the browser's fkc.bench
// and the Judge do: warm runs of one call through the engine, the median,
// and the effective bandwidth: the call's tensor bytes (inputs read, output
// written: engine.TensorBytes, the same on every backend) per second, with
// the serving contract's own bytes_moved beside it.
// Cases lists the standard shapes, which each op declares (ops.Op.Bench):
// the ones compared with NumPy, PyTorch and the browser peers.
package bench

import (
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// Case is one standard benchmark call.
type Case struct {
	Name  string
	Build func(rng *rand.Rand) *kernels.Call
	// Kernel, when set, is the kernel (PROVIDER/NAME) that serves the
	// call instead of dispatch's choice; the case runs only on its backend.
	Kernel string
}

// Fill is a float tensor of quarter steps in [-8, 8) (exact in every float
// dtype, so sums stay meaningful); other dtypes stay zero.
func Fill(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Tensor {
	t := tensor.New(dt, shape)
	if dt == tensor.F32 {
		f := t.F32()
		for i := range f {
			f[i] = float32(rng.Intn(64)-32) / 4
		}
	} else if dt.IsFloat() {
		for i := 0; i < t.NumElems(); i++ {
			t.Set(i, float64(rng.Intn(64)-32)/4)
		}
	}
	return t
}

func pads(n int, rank int) []kernels.Pad {
	p := make([]kernels.Pad, rank)
	p[rank-1], p[rank-2] = kernels.Pad{Before: n, After: n}, kernels.Pad{Before: n, After: n}
	return p
}

func f32(r *rand.Rand, shape ...int) *tensor.Tensor { return Fill(r, tensor.F32, shape...) }

// Cases are the standard cases of `fkc bench`: every op's own
// (ops.Op.Bench), in table order.
var Cases = cases()

func cases() []Case {
	var out []Case
	for _, o := range ops.Table {
		for _, b := range o.Bench {
			build := b.Call
			if build == nil {
				build = func(r *rand.Rand) *kernels.Call { return o.Sized(r, b.Form, tensor.F32, b.N) }
			}
			out = append(out, Case{b.Name, build, b.Kernel})
		}
	}
	return out
}

// Result is one line of `fkc bench` (and the answer of fkc.bench).
type Result struct {
	Case     string `json:"case"`
	Kernel   string `json:"kernel"`
	Provider string `json:"provider"`
	Backend  string `json:"backend"`
	// TensorBytes: the inputs' and the output's bytes (engine.TensorBytes),
	// which every GB/s figure here divides by time; BytesMoved: what the
	// serving contract's bytes_moved formula counts, which differs between
	// contracts for the same call (shown beside, not divided).
	TensorBytes float64 `json:"tensor_bytes"`
	BytesMoved  float64 `json:"bytes_moved"`
	MedianNs    int64   `json:"median_ns"` // wall time of the call, host↔device copies included
	GBps        float64 `json:"gb_per_s"`
	TimesNs     []int64 `json:"times_ns"`
	// DeviceNs / DeviceGBps: GPU bindings only, end to end on the device
	// (submit to results mapped: queued uploads and readback included).
	DeviceNs   int64   `json:"device_median_ns,omitempty"`
	DeviceGBps float64 `json:"device_gb_per_s,omitempty"`
	// KernelNs / KernelGBps: GPU bindings on adapters with timestamp
	// queries, the compute passes alone: the figure to compare with other
	// GPU code's kernel times.
	KernelNs   int64   `json:"kernel_median_ns,omitempty"`
	KernelGBps float64 `json:"kernel_gb_per_s,omitempty"`
	Reps       int     `json:"reps"`
	// Settle: untimed runs after the first, made while the process's
	// memory still grew (see settle).
	Settle int    `json:"settle_runs"`
	Error  string `json:"error,omitempty"`
	// Skipped: the case cannot run on this adapter (a *kernels.Unavailable:
	// a missing feature or a binding limit, e.g. lavapipe's 128 MiB storage
	// bindings against sum_all's 256 MiB input). Not a failure of fkc
	// bench; a single call (fkc.bench) still answers it as an error.
	Skipped string `json:"skipped,omitempty"`
}

// settle bounds the untimed runs that let a process's memory reach its
// steady size before the timed ones. A run that allocates its output grows
// the Go heap until the collector's goal settles (about twice the live
// inputs); until then each run also pays first touches of fresh memory.
// Those are cheap on bare metal but can cost many times the kernel on a VM
// and in a browser's wasm memory, and the heap grows over the first few runs
// of a call (docs/perf/bench-and-judge.md). A run can leave the memory as it
// found it and the next grow it again (the collector ran between them), so
// timing starts after settleQuiet runs in a row that left it as they found
// it, after settleMax settle runs, or once the first run and the settle runs
// have taken settleBudget (a browser GPU run can take a second).
const (
	settleQuiet  = 3
	settleMax    = 10
	settleGrow   = 1 << 20 // bytes of growth that count
	settleBudget = 3 * time.Second
)

// mappedBytes is the memory the Go runtime holds from the system (the
// tensors are in the Go heap on every platform); a variable for the tests.
var mappedBytes = runtimeBytes

func runtimeBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Measure times reps warm runs of one call on backend b, served by kernel
// (PROVIDER/NAME) or, when that is empty, by dispatch: after one untimed
// run that compiles pipelines and faults pages in, and the settle runs.
// Before each run it collects the garbage, untimed: the peers free each
// output outside their timings (tfjs dispose, onnxruntime release), and Go
// can only collect. Without it the 64 MB outputs of the 4096² pad, in the
// browser, left the Go heap fragmented enough that every run grew the wasm
// memory and paid its first touches (docs/perf/bench-and-judge.md).
func Measure(e *engine.Engine, b engine.Backend, name, kernel string, c *kernels.Call, reps int) Result {
	r := Result{Case: name, Reps: reps}
	if reps < 1 {
		r.Error = fmt.Sprintf("reps %d: want at least 1", reps)
		return r
	}
	start, before := time.Now(), mappedBytes()
	var res *engine.Result
	var err error
	if kernel != "" {
		res, err = e.RunKernel(b, kernel, c)
	} else {
		res, err = e.Run(b, c)
	}
	if err != nil {
		if u := (*kernels.Unavailable)(nil); errors.As(err, &u) {
			r.Skipped = err.Error()
		} else {
			r.Error = err.Error()
		}
		return r
	}
	r.Kernel, r.Provider, r.Backend = res.Kernel, res.Provider, res.Backend
	if r.BytesMoved, err = engine.BytesMoved(res); err != nil {
		r.Error = fmt.Sprintf("%s: %v", res.Kernel, err)
		return r
	}
	// The timed runs take the call as it ran, resolved (a negative dim
	// counted, I64 indices converted to U32): the conversion is not the
	// kernel's time.
	r.TensorBytes = engine.TensorBytes(res)
	bind, c := res.Binding, res.Call
	res = nil // the first run's output is garbage from here on
	quiet := 0
	if mappedBytes() < before+settleGrow {
		quiet = settleQuiet // the first run left the memory as it was
	}
	for ; quiet < settleQuiet && r.Settle < settleMax && time.Since(start) < settleBudget; r.Settle++ {
		runtime.GC()
		before = mappedBytes()
		if _, err := e.RunBinding(bind, c); err != nil {
			r.Error = err.Error()
			return r
		}
		if quiet++; mappedBytes() >= before+settleGrow {
			quiet = 0
		}
	}
	var times, dev, kern []time.Duration
	for i := 0; i < reps; i++ {
		runtime.GC()
		t0 := time.Now()
		if _, err := e.RunBinding(bind, c); err != nil {
			r.Error = err.Error()
			return r
		}
		times = append(times, time.Since(t0))
		if b != engine.CPU {
			d, k := e.LastDeviceTimes()
			if d > 0 {
				dev = append(dev, d)
			}
			if k > 0 {
				kern = append(kern, k)
			}
		}
	}
	for _, t := range times {
		r.TimesNs = append(r.TimesNs, t.Nanoseconds())
	}
	r.MedianNs, r.GBps = rate(times, r.TensorBytes)
	r.DeviceNs, r.DeviceGBps = rate(dev, r.TensorBytes)
	r.KernelNs, r.KernelGBps = rate(kern, r.TensorBytes)
	return r
}

// rate is the median of ts and bytes/median in GB/s (zeros when empty).
func rate(ts []time.Duration, bytes float64) (int64, float64) {
	if len(ts) == 0 {
		return 0, 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	med := s[len(s)/2].Nanoseconds()
	if med <= 0 {
		return med, 0
	}
	return med, bytes / float64(med)
}

// Run times each standard case whose name starts with filter, and on a GPU
// each chain case in every mode (ChainModes).
func Run(e *engine.Engine, b engine.Backend, reps int, filter string) []Result {
	var out []Result
	rng := rand.New(rand.NewSource(1))
	for _, bc := range Cases {
		if !strings.HasPrefix(bc.Name, filter) {
			continue
		}
		if ref, ok := e.FindKernel(bc.Kernel); bc.Kernel != "" && (!ok || ref.Kernel.Backend != b.Contract()) {
			continue // another backend's kernel
		}
		out = append(out, Measure(e, b, bc.Name, bc.Kernel, bc.Build(rng), reps))
	}
	if b == engine.CPU || b == "" {
		return out // a chain keeps its tensors on a GPU
	}
	for _, cc := range ChainCases {
		if !strings.HasPrefix(cc.Name, filter) {
			continue
		}
		for _, mode := range ChainModes {
			out = append(out, MeasureChain(e, b, cc, mode, reps))
		}
	}
	return out
}

// Names lists the case names (for --help and a usage error).
func Names() []string {
	n := make([]string, len(Cases))
	for i, c := range Cases {
		n[i] = c.Name
	}
	for _, c := range ChainCases {
		n = append(n, c.Name)
	}
	return n
}

// String formats one result line.
func (r Result) String() string {
	if r.Error != "" {
		return fmt.Sprintf("%-44s error: %s", r.Case, r.Error)
	}
	if r.Skipped != "" {
		return fmt.Sprintf("%-44s skipped: %s", r.Case, r.Skipped)
	}
	dev := ""
	if r.DeviceNs > 0 {
		dev = fmt.Sprintf("  device %8.3f ms %8.2f GB/s", float64(r.DeviceNs)/1e6, r.DeviceGBps)
	}
	if r.KernelNs > 0 {
		dev += fmt.Sprintf("  kernel %8.3f ms %8.2f GB/s", float64(r.KernelNs)/1e6, r.KernelGBps)
	}
	return fmt.Sprintf("%-44s %-26s %8.3f ms %8.2f GB/s%s  (%s; tensors %.0f B; contract's bytes_moved %.0f; median of %d)", r.Case, r.Kernel, float64(r.MedianNs)/1e6, r.GBps, dev, r.Provider, r.TensorBytes, r.BytesMoved, r.Reps)
}
