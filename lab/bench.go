package lab

import (
	"fmt"
	"math/rand"
	"slices"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/judge"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
	"github.com/fkc-playground/fkc/verify"
)

// BenchOptions tune a lab bench.
type BenchOptions struct {
	Elems int          // about this many elements in the first operand (Op.Sized)
	Reps  int          // timed runs of each kernel (the median is reported)
	DType tensor.DType // Invalid: the kernel's first binding dtype
	Seed  int64
}

// BenchLine is one variant timed: the user's kernel beside the built-in.
type BenchLine struct {
	Variant kernels.Variant
	DType   tensor.DType
	Call    string // the call, as describe writes it
	// Op, Flags and Inputs are the same call as a request to fkc.bench or
	// `fkc bench` takes it: the op's flags and each operand's shape and dtype.
	Op     string
	Flags  []string
	Inputs map[string]BenchInput
	Bytes  float64
	// Clock says what the times are: "kernel" (GPU timestamps) or
	// "device" (submit to results mapped), the same for both kernels.
	Clock          string
	Mine, Builtin  time.Duration // medians
	MineGBps       float64
	BuiltinGBps    float64
	FloorNs        float64 // Bytes over the measured copy bandwidth (0: not measured)
	CopyGBps       float64
	MineCredible   bool // Mine is at or above the floor
	Recheck        *Verdict
	BuiltinRecheck string // the built-in's mismatch after timing ("" when right)
	Err            string // why this variant was not timed
}

// BenchInput is one operand of a bench call: its shape and dtype.
type BenchInput struct {
	Shape []int  `json:"shape"`
	DType string `json:"dtype"`
}

// Bench times the user's kernel beside the built-in kernel (dev must be
// the device attached to eng) with the Judge's method: the op's standard
// benchmark call, fresh inputs for every timed run, the median of Reps
// runs after an untimed one, GB/s from the tensors' bytes, the output
// checked again after timing, and a time below the physical floor — the
// bytes over the device's copy bandwidth — flagged as not credible.
func Bench(dev kernels.LabDevice, eng *engine.Engine, k *Kernel, user string, opt BenchOptions) []*BenchLine {
	dt := opt.DType
	if dt == tensor.Invalid {
		dt = k.DTypes()[0]
	}
	rng := rand.New(rand.NewSource(opt.Seed))
	copier, _ := dev.(interface {
		CopyTime(bytes uint64, copies ...int) ([]time.Duration, error)
	})
	var lines []*BenchLine
	for _, v := range k.Variants {
		o, _ := ops.Lookup(v.Op)
		line := &BenchLine{Variant: v, DType: dt}
		lines = append(lines, line)
		if !o.Accepts(dt) {
			line.Err = fmt.Sprintf("%s does not take %s", o.Name, dt)
			continue
		}
		c := o.Sized(rng, v.Form, dt, max(1, opt.Elems))
		c.Op = o.Name
		line.Call = describe(c)
		line.Op, line.Flags, line.Inputs = o.Name, ops.FormatFlags(c), map[string]BenchInput{}
		for n, t := range c.Inputs {
			line.Inputs[n] = BenchInput{Shape: t.Shape, DType: t.DType.String()}
		}
		if err := benchOne(dev, eng, k, o, c, user, opt, line, copier); err != nil {
			line.Err = err.Error()
		}
	}
	return lines
}

func benchOne(dev kernels.LabDevice, eng *engine.Engine, k *Kernel, o *ops.Op, c *kernels.Call, user string, opt BenchOptions, line *BenchLine,
	copier interface {
		CopyTime(bytes uint64, copies ...int) ([]time.Duration, error)
	}) error {
	l, err := Plan(c, dev.LabAdapter().ShaderF64)
	if err != nil {
		return err
	}
	m, err := Build(user, l)
	if err != nil {
		return err
	}
	var bytes int
	for _, in := range o.Inputs {
		bytes += len(c.In(in.Name).Data)
	}
	bytes += tensor.NumElems(l.OutShape) * l.Out.Size()
	line.Bytes = float64(bytes)
	// A plain kernel may loop over a whole group in one invocation: the
	// budget grows with the call (the untimed run below still catches a
	// kernel that never stops, through the device's timeout).
	maxIn := 0
	for _, t := range c.Inputs {
		maxIn = max(maxIn, t.NumElems())
	}
	opts := Options{Budget: uint32(min(1<<31, Budget+16*maxIn))}
	fresh := func() *kernels.Call {
		f := *c
		f.Inputs = map[string]*tensor.Tensor{}
		for n, t := range c.Inputs {
			f.Inputs[n] = &tensor.Tensor{DType: t.DType, Shape: t.Shape, Data: slices.Clone(t.Data)}
		}
		return &f
	}
	// Untimed: both kernels once; the user's must be right before it is timed.
	first, err := m.Run(dev, fresh(), l, opts)
	if err != nil {
		return err
	}
	if v := Judge(&Case{N: 1, Call: c, DType: line.DType, Variant: line.Variant, Note: "bench"}, first, k.Match); v.Status != Pass {
		line.Recheck = v
		return fmt.Errorf("the kernel is wrong on the bench call: %s", v.Why)
	}
	bk := engine.Vulkan
	if k.Ref.Kernel.Backend == "Cpu" {
		bk = engine.CPU // a CPU contract's kernel: its wall time
	}
	if _, err := eng.RunKernel(bk, k.ID, fresh()); err != nil {
		return fmt.Errorf("built-in %s: %v", k.ID, err)
	}
	var mine, builtin, mineK, builtinK []time.Duration
	var last *Outcome
	var lastBuiltin *tensor.Tensor
	for range max(1, opt.Reps) {
		res, err := m.Run(dev, fresh(), l, opts)
		if err != nil {
			return err
		}
		last = res
		mine, mineK = append(mine, res.Wall), append(mineK, res.Kernel)
		in := fresh()
		t0 := time.Now()
		r, err := eng.RunKernel(bk, k.ID, in)
		if err != nil {
			return fmt.Errorf("built-in %s: %v", k.ID, err)
		}
		e2e, kt := eng.LastDeviceTimes()
		if bk == engine.CPU {
			e2e, kt = time.Since(t0), 0
		}
		lastBuiltin = r.Out
		builtin, builtinK = append(builtin, e2e), append(builtinK, kt)
	}
	line.Clock = "device"
	if slices.Min(mineK) > 0 && slices.Min(builtinK) > 0 {
		line.Clock, mine, builtin = "kernel", mineK, builtinK
	}
	line.Mine, line.Builtin = medianDur(mine), medianDur(builtin)
	line.MineGBps = line.Bytes / float64(line.Mine.Nanoseconds())
	line.BuiltinGBps = line.Bytes / float64(line.Builtin.Nanoseconds())
	line.MineCredible = true
	if copier != nil {
		n := uint64(max(16, bytes/2)) // read + write of half the bytes: the call's traffic
		// on the clock the kernels were timed by (timestamps of one call's
		// passes, or submit to results mapped), right after them: the
		// rechecks below keep the GPU idle for seconds, and an idle GPU
		// lowers its clocks (measurements: docs/perf/bench-and-judge.md)
		if gbps, err := judge.DeviceCopyGBps(copier, n, line.Clock == "kernel"); err == nil {
			line.CopyGBps = gbps
			line.FloorNs = line.Bytes / gbps
			line.MineCredible = float64(line.Mine.Nanoseconds()) >= line.FloorNs
		}
	}
	line.Recheck = Judge(&Case{N: 1, Call: c, DType: line.DType, Variant: line.Variant, Note: "after timing"}, last, k.Match)
	if d, err := verify.Cells(c, lastBuiltin, k.Match, 4); err != nil {
		line.BuiltinRecheck = err.Error()
	} else if d != nil {
		line.BuiltinRecheck = fmt.Sprintf("%d wrong cells", d.Total)
	}
	return nil
}

func medianDur(ts []time.Duration) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// String is the bench line for people.
func (b *BenchLine) String() string {
	head := fmt.Sprintf("%s [%s] %s", b.Variant, b.DType, b.Call)
	if b.Err != "" {
		return head + ": " + b.Err
	}
	s := fmt.Sprintf("%s\n  yours    %10.3f ms  %8.2f GB/s\n  built-in %10.3f ms  %8.2f GB/s  (%s time, median; %.0f bytes)",
		head, float64(b.Mine.Nanoseconds())/1e6, b.MineGBps, float64(b.Builtin.Nanoseconds())/1e6, b.BuiltinGBps, b.Clock, b.Bytes)
	if b.CopyGBps > 0 {
		s += fmt.Sprintf("\n  floor    %10.3f ms  (the bytes at the device's copy bandwidth, %.2f GB/s)", b.FloorNs/1e6, b.CopyGBps)
		if !b.MineCredible {
			s += "\n  NOT CREDIBLE: your time is below the physical floor"
		}
	}
	if b.Recheck != nil && b.Recheck.Status != Pass {
		s += "\n  after timing, your output is wrong: " + b.Recheck.Why
	}
	if b.BuiltinRecheck != "" {
		s += "\n  after timing, the built-in's output is wrong: " + b.BuiltinRecheck
	}
	return s
}

// OK reports whether the line was timed and its output held after timing.
func (b *BenchLine) OK() bool {
	return b.Err == "" && b.Recheck != nil && b.Recheck.Status == Pass && b.BuiltinRecheck == ""
}
