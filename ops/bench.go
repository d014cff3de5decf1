package ops

import (
	"fmt"
	"math/rand"
	"sort"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// BenchCase is one standard benchmark shape (the sizes of issue 3/4).
type BenchCase struct {
	Name  string
	Build func(rng *rand.Rand) *Call
}

func fill(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Tensor {
	t := tensor.New(dt, shape)
	if dt == tensor.F32 {
		f := t.F32()
		for i := range f {
			f[i] = float32(rng.Intn(64)-32) / 4
		}
	}
	return t
}

func idx(rng *rand.Rand, bound int, shape ...int) *tensor.Tensor {
	return randIndices(rng, shape, bound)
}

var pad2 = []kernels.Pad{{}, {}, {Before: 2, After: 2}, {Before: 2, After: 2}}

// BenchCases are the standard cases of `fkc bench`.
var BenchCases = []BenchCase{
	{"pad constant f32[8,3,512,512] pad 2", func(r *rand.Rand) *Call {
		return &Call{Op: "pad", Mode: kernels.Constant, Padding: pad2, Dim: -1, Inputs: map[string]*tensor.Tensor{"x": fill(r, tensor.F32, 8, 3, 512, 512)}}
	}},
	{"pad reflect f32[8,3,512,512] pad 2", func(r *rand.Rand) *Call {
		return &Call{Op: "pad", Mode: kernels.Reflect, Padding: pad2, Dim: -1, Inputs: map[string]*tensor.Tensor{"x": fill(r, tensor.F32, 8, 3, 512, 512)}}
	}},
	{"pad replicate f32[8,3,512,512] pad 2", func(r *rand.Rand) *Call {
		return &Call{Op: "pad", Mode: kernels.Replicate, Padding: pad2, Dim: -1, Inputs: map[string]*tensor.Tensor{"x": fill(r, tensor.F32, 8, 3, 512, 512)}}
	}},
	{"pad_backward reflect f32[8,3,516,516] pad 2", func(r *rand.Rand) *Call {
		return &Call{Op: "pad_backward", Mode: kernels.Reflect, Padding: pad2, Dim: -1, Inputs: map[string]*tensor.Tensor{"grad_out": fill(r, tensor.F32, 8, 3, 516, 516)}}
	}},
	{"sum_all f32[64Mi]", func(r *rand.Rand) *Call {
		return &Call{Op: "sum", Dim: -1, Inputs: map[string]*tensor.Tensor{"x": fill(r, tensor.F32, 64<<20)}}
	}},
	{"sum_dim 1 f32[4096,4096]", func(r *rand.Rand) *Call {
		return &Call{Op: "sum", Dim: 1, Inputs: map[string]*tensor.Tensor{"x": fill(r, tensor.F32, 4096, 4096)}}
	}},
	{"max_dim 1 f32[4096,4096]", func(r *rand.Rand) *Call {
		return &Call{Op: "max", Dim: 1, Inputs: map[string]*tensor.Tensor{"x": fill(r, tensor.F32, 4096, 4096)}}
	}},
	{"argmax_dim 1 f32[4096,4096]", func(r *rand.Rand) *Call {
		return &Call{Op: "argmax", Dim: 1, Inputs: map[string]*tensor.Tensor{"x": fill(r, tensor.F32, 4096, 4096)}}
	}},
	{"index_select f32[100000,256] 50000 rows", func(r *rand.Rand) *Call {
		return &Call{Op: "index_select", Dim: 0, Inputs: map[string]*tensor.Tensor{"data": fill(r, tensor.F32, 100000, 256), "indices": idx(r, 100000, 50000)}}
	}},
	{"gather dim 1 f32[4096,4096]", func(r *rand.Rand) *Call {
		return &Call{Op: "gather", Dim: 1, Inputs: map[string]*tensor.Tensor{"data": fill(r, tensor.F32, 4096, 4096), "indices": idx(r, 4096, 4096, 4096)}}
	}},
	{"index_add dim 1 f32[4096,4096]", func(r *rand.Rand) *Call {
		return &Call{Op: "index_add", Dim: 1, Inputs: map[string]*tensor.Tensor{"base": fill(r, tensor.F32, 4096, 4096), "indices": idx(r, 4096, 4096), "src": fill(r, tensor.F32, 4096, 4096)}}
	}},
	{"scatter_add dim 1 f32[4096,4096]", func(r *rand.Rand) *Call {
		return &Call{Op: "scatter_add", Dim: 1, Inputs: map[string]*tensor.Tensor{"base": fill(r, tensor.F32, 4096, 4096), "indices": idx(r, 4096, 4096, 4096), "src": fill(r, tensor.F32, 4096, 4096)}}
	}},
}

// BenchResult is one line of `fkc bench`.
type BenchResult struct {
	Case       string  `json:"case"`
	Kernel     string  `json:"kernel"`
	Provider   string  `json:"provider"`
	Backend    string  `json:"backend"`
	BytesMoved float64 `json:"bytes_moved"`
	MedianNs   int64   `json:"median_ns"` // wall time of the call, host↔device copies included
	GBps       float64 `json:"gb_per_s"`
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
	Error      string  `json:"error,omitempty"`
}

// Bench times each standard case (median of reps after one warm-up) and
// divides the contract's bytes_moved by it. filter selects cases by prefix.
func (e *Engine) Bench(backend string, reps int, filter string) []BenchResult {
	var out []BenchResult
	rng := rand.New(rand.NewSource(1))
	for _, bc := range BenchCases {
		if filter != "" && !hasPrefix(bc.Name, filter) {
			continue
		}
		c := bc.Build(rng)
		r := BenchResult{Case: bc.Name, Reps: reps}
		res, err := e.Dispatch(backend, c) // warm-up (pipelines, page faults)
		if err != nil {
			r.Error = err.Error()
			out = append(out, r)
			continue
		}
		r.Kernel, r.Provider, r.Backend = res.Kernel, res.Provider, res.Backend
		if r.BytesMoved, err = BytesMoved(res); err != nil {
			r.Error = fmt.Sprintf("%s bytes_moved: %v", res.Kernel, err)
			out = append(out, r)
			continue
		}
		var times, dev, kern []time.Duration
		for i := 0; i < reps; i++ {
			t0 := time.Now()
			if _, err := e.RunBinding(res.Binding, c); err != nil {
				r.Error = err.Error()
				break
			}
			times = append(times, time.Since(t0))
			if res.Backend != "Cpu" {
				if e.Clocks.EndToEnd != nil {
					dev = append(dev, e.Clocks.EndToEnd())
				}
				if e.Clocks.Kernel != nil {
					if k := e.Clocks.Kernel(); k > 0 {
						kern = append(kern, k)
					}
				}
			}
		}
		if len(times) > 0 {
			med := median(times)
			r.MedianNs = med.Nanoseconds()
			r.GBps = r.BytesMoved / float64(med.Nanoseconds())
		}
		if len(dev) > 0 {
			med := median(dev)
			r.DeviceNs = med.Nanoseconds()
			r.DeviceGBps = r.BytesMoved / float64(med.Nanoseconds())
		}
		if len(kern) > 0 {
			med := median(kern)
			r.KernelNs = med.Nanoseconds()
			r.KernelGBps = r.BytesMoved / float64(med.Nanoseconds())
		}
		out = append(out, r)
	}
	return out
}

func median(t []time.Duration) time.Duration {
	sort.Slice(t, func(i, j int) bool { return t[i] < t[j] })
	return t[len(t)/2]
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// String formats one result line.
func (r BenchResult) String() string {
	if r.Error != "" {
		return fmt.Sprintf("%-44s error: %s", r.Case, r.Error)
	}
	dev := ""
	if r.DeviceNs > 0 {
		dev = fmt.Sprintf("  device %8.3f ms %8.2f GB/s", float64(r.DeviceNs)/1e6, r.DeviceGBps)
	}
	if r.KernelNs > 0 {
		dev += fmt.Sprintf("  kernel %8.3f ms %8.2f GB/s", float64(r.KernelNs)/1e6, r.KernelGBps)
	}
	return fmt.Sprintf("%-44s %-26s %8.3f ms %8.2f GB/s%s  (%s, bytes_moved %.0f, median of %d)", r.Case, r.Kernel, float64(r.MedianNs)/1e6, r.GBps, dev, r.Provider, r.BytesMoved, r.Reps)
}
