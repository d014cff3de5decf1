package bench

import (
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// ChainCase is a sequence of calls, each taking the results of those
// before it: what a program that keeps its tensors on the GPU runs.
type ChainCase struct {
	Name   string
	Inputs func(rng *rand.Rand) []*tensor.Tensor
	// Steps build the calls in order; v holds the inputs, then the result
	// of every step before.
	Steps []func(v []*tensor.Tensor) *kernels.Call
}

// The ways a chain is timed (ChainModes):
//   - ChainDevice: the inputs uploaded once, untimed; each run records the
//     calls into one chain and submits it (the results stay on the GPU, as
//     tensors already on the device do for PyTorch);
//   - ChainHost: from Go memory to Go memory: each run records the calls
//     on the inputs in Go memory (each call uploads those it takes), submits
//     the chain and reads the last result back (torch.from_numpy(x).cuda(),
//     the ops, .cpu());
//   - ChainEach: each call on its own from Go memory, its result read
//     back and uploaded again by the next (engine.Run of host tensors).
const (
	ChainDevice = "on device"
	ChainHost   = "host to host"
	ChainEach   = "one by one"
)

// ChainModes lists the modes in the order bench runs them.
var ChainModes = []string{ChainDevice, ChainHost, ChainEach}

// ChainCases are the chained calls of `fkc bench` on a GPU.
var ChainCases = []ChainCase{
	{
		Name: "chain pad reflect 2 > sum dim 3 > argmax dim 2 f32[8,3,512,512]",
		Inputs: func(r *rand.Rand) []*tensor.Tensor {
			return []*tensor.Tensor{f32(r, 8, 3, 512, 512)}
		},
		Steps: []func(v []*tensor.Tensor) *kernels.Call{
			func(v []*tensor.Tensor) *kernels.Call { return ops.Pad(v[0], kernels.Reflect, pads(2, 4)...) },
			func(v []*tensor.Tensor) *kernels.Call { return ops.Sum(v[1], 3) },
			func(v []*tensor.Tensor) *kernels.Call { return ops.ArgMax(v[2], 2) },
		},
	},
	{
		Name: "chain gather dim 1 > index_add dim 1 f32[4096,4096]",
		Inputs: func(r *rand.Rand) []*tensor.Tensor {
			return []*tensor.Tensor{f32(r, 4096, 4096), ops.RandIndices(r, []int{4096, 4096}, 4096),
				f32(r, 4096, 4096), ops.RandIndices(r, []int{4096}, 4096)}
		},
		Steps: []func(v []*tensor.Tensor) *kernels.Call{
			func(v []*tensor.Tensor) *kernels.Call { return ops.Gather(v[0], v[1], 1) },
			func(v []*tensor.Tensor) *kernels.Call { return ops.AddCall("index_add", v[2], v[3], v[4], 1) },
		},
	},
}

// chainName is a chain case's line name in one mode.
func chainName(cc ChainCase, mode string) string { return cc.Name + " (" + mode + ")" }

// chainSettle: untimed runs after the first (which builds the pipelines).
const chainSettle = 2

// MeasureChain times reps warm runs of a chain case in one mode on a GPU
// backend. The wall time is the whole run; the device time the chain's
// submission to its control words mapped (ChainEach: the sum over its
// calls, each end to end), the kernel time the GPU's own for the chain's
// compute pass (the sum over the calls, one by one). The tensor bytes (of
// which the GB/s) and bytes_moved are the sums over the calls.
func MeasureChain(e *engine.Engine, b engine.Backend, cc ChainCase, mode string, reps int) Result {
	r := Result{Case: chainName(cc, mode), Reps: reps}
	if reps < 1 {
		r.Error = fmt.Sprintf("reps %d: want at least 1", reps)
		return r
	}
	in := cc.Inputs(rand.New(rand.NewSource(1)))
	var dev []*tensor.Tensor // the inputs on the device (ChainDevice)
	defer func() {
		for _, t := range dev {
			t.Release()
		}
	}()
	if mode == ChainDevice {
		for _, t := range in {
			dt, err := e.Upload(b, t)
			if err != nil {
				return r.failed(err)
			}
			dev = append(dev, dt)
		}
	}
	var kerns, provs []string
	run := func(first bool) (device, kernel time.Duration, err error) {
		switch mode {
		case ChainEach:
			v := append([]*tensor.Tensor{}, in...)
			for _, step := range cc.Steps {
				res, err := e.Run(b, step(v))
				if err != nil {
					return 0, 0, err
				}
				d, k := e.LastDeviceTimes()
				device, kernel = device+d, kernel+k
				v = append(v, res.Out)
				if first {
					r.BytesMoved += bytesMoved(res)
					r.TensorBytes += engine.TensorBytes(res)
					kerns, provs = append(kerns, res.Kernel), append(provs, res.Provider)
				}
			}
			for _, t := range v[len(in):] {
				t.Release()
			}
			return device, kernel, nil
		case ChainDevice, ChainHost:
			v := dev
			if mode == ChainHost {
				v = append([]*tensor.Tensor{}, in...) // uploaded by the calls that take them
			}
			n := len(v)
			ch, err := e.Chain(b)
			if err != nil {
				return 0, 0, err
			}
			for _, step := range cc.Steps {
				res, err := ch.Run(step(v))
				if err != nil {
					ch.Discard()
					return 0, 0, err
				}
				v = append(v, res.Out)
				if first {
					r.BytesMoved += bytesMoved(res)
					r.TensorBytes += engine.TensorBytes(res)
					kerns, provs = append(kerns, res.Kernel), append(provs, res.Provider)
				}
			}
			if err := ch.Submit(); err != nil {
				return 0, 0, err
			}
			device, kernel = e.LastDeviceTimes()
			if mode == ChainHost {
				last, err := v[len(v)-1].Host()
				if err != nil {
					return 0, 0, err
				}
				last.Release()
			}
			for _, t := range v[n:] {
				t.Release()
			}
			return device, kernel, nil
		}
		return 0, 0, fmt.Errorf("chain mode %q: want %s", mode, strings.Join(ChainModes, ", "))
	}
	if _, _, err := run(true); err != nil {
		return r.failed(err)
	}
	r.Kernel, r.Provider, r.Backend = strings.Join(kerns, "+"), strings.Join(uniq(provs), "+"), b.Contract()
	for range chainSettle {
		if _, _, err := run(false); err != nil {
			return r.failed(err)
		}
		r.Settle++
	}
	var times, devs, ks []time.Duration
	for range reps {
		runtime.GC()
		t0 := time.Now()
		d, k, err := run(false)
		if err != nil {
			return r.failed(err)
		}
		times = append(times, time.Since(t0))
		if d > 0 {
			devs = append(devs, d)
		}
		if k > 0 {
			ks = append(ks, k)
		}
	}
	for _, t := range times {
		r.TimesNs = append(r.TimesNs, t.Nanoseconds())
	}
	r.MedianNs, r.GBps = rate(times, r.TensorBytes)
	r.DeviceNs, r.DeviceGBps = rate(devs, r.TensorBytes)
	r.KernelNs, r.KernelGBps = rate(ks, r.TensorBytes)
	return r
}

// failed records err as the result's error, or as skipped for a case this
// adapter cannot run.
func (r Result) failed(err error) Result {
	if u := (*kernels.Unavailable)(nil); errors.As(err, &u) {
		r.Skipped = err.Error()
	} else {
		r.Error = err.Error()
	}
	return r
}

func bytesMoved(res *engine.Result) float64 {
	v, err := engine.BytesMoved(res)
	if err != nil {
		return 0
	}
	return v
}

func uniq(s []string) []string {
	var out []string
	for _, x := range s {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}
