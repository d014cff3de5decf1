package playground

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
	"github.com/fkc-playground/fkc/verify"
)

// Clock times a Try-it run: time.Now in the page; a fixed clock in the
// golden tests, so a rendered run page does not change between runs.
type Clock interface {
	Now() time.Time
	Since(time.Time) time.Duration
	Resolution() time.Duration
}

// TryResult is one Try it: the inputs, each backend's run, the diff of two
// outputs and the trace of the first.
type TryResult struct {
	Row        KernelRow
	Case       ops.Case
	Call       *kernels.Call
	Inputs     map[string]*tensor.Tensor
	Runs       []RunResult
	Diff       *Diff
	Trace      *ops.Trace
	TraceError string
	Err        string // the inputs could not be built or the flags parsed
	ErrField   string // the Try-it field Err is about ("x.shape", "x.seed"), if one
	OutName    string // the page kernel's output, as its contract names it
}

// RunResult is one backend's run.
type RunResult struct {
	Backend                string // as asked: cpu / webgpu
	Error, Cite            string
	Violation, Unavailable bool
	Reps                   int
	Ms, ResolutionUs       float64
	Kernel, KernelID       string
	Resolved               []string // what resolving the call changed: "dim -1 → 1", "indices I64 → U32"
	Href                   string   // the serving kernel's page
	Provider, Contract     string
	// TensorBytes (inputs read + output written, engine.TensorBytes) over
	// the time is GBps, the same figure for the same call on every backend;
	// BytesMoved is the serving contract's own count, shown beside.
	TensorBytes, BytesMoved, GBps float64
	Field                         string      // the Try-it field (a flag, "x.shape") Error is about, if one
	Costs                         []CostValue // the serving kernel's
	PageCosts                     []CostValue // the page kernel's, when another kernel served the run
	Out                           *tensor.Tensor
}

// CostValue is one cost formula evaluated for a run.
type CostValue struct {
	Name, Formula, Error string
	Value                float64
}

// Try builds the inputs of case cs, runs it on each backend asked for (the
// page's own kernel where it can serve the call, else what dispatch picks),
// diffs two outputs and traces the first. run serialises engine use (the
// page shares one engine with the scripting API).
func (s *Site) Try(row KernelRow, cs ops.Case, backends []string, clock Clock, lock func() func()) *TryResult {
	r := &TryResult{Row: row, Case: cs, Inputs: map[string]*tensor.Tensor{}}
	if ref, ok := s.Eng.FindKernel(row.ID); ok && len(ref.Kernel.Outputs) > 0 {
		r.OutName = ref.Kernel.Outputs[0].Name
	}
	o, err := ops.Get(cs.Op)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	for _, n := range o.InputNames() {
		t, err := cs.Inputs[n].Make()
		if err != nil {
			r.Err = fmt.Sprintf("input %s: %v", n, err)
			r.ErrField = genField(n, err.Error())
			return r
		}
		r.Inputs[n] = t
	}
	call, perr := o.Parse(cs.Flags)
	for _, b := range backends {
		var x RunResult
		if perr != nil {
			x = failed(b, perr)
		} else {
			c := *call
			c.Inputs = r.Inputs
			x = s.runOne(row.ID, b, &c, clock, lock)
		}
		if x.Error != "" {
			x.Field = errField(o, x.Error)
		}
		r.Runs = append(r.Runs, x)
	}
	if perr != nil {
		return r
	}
	r.Call = call
	var ok []RunResult
	for _, x := range r.Runs {
		if x.Error == "" {
			ok = append(ok, x)
		}
	}
	if len(ok) == 2 {
		d := Compare(ok[0].Out, ok[1].Out)
		if a, b := ok[0].Out, ok[1].Out; a.DType == b.DType && slices.Equal(a.Shape, b.Shape) {
			c := *call
			c.Inputs = r.Inputs
			d.Verdict, d.Within = s.verdict(&c, ok)
		}
		r.Diff = &d
	}
	if len(ok) > 0 && ok[0].Out.NumElems() <= maxDraw {
		// Trace on the backend that produced the first output, so the
		// picture shows what that kernel did.
		b, _ := engine.ParseBackend(ok[0].Backend)
		run := func(c *kernels.Call) (*tensor.Tensor, error) {
			defer lock()()
			res, err := s.Eng.Run(b, c)
			if err != nil {
				return nil, err
			}
			return res.Out, nil
		}
		c := *call
		c.Inputs = r.Inputs
		if tr, err := o.TraceCall(run, &c); err != nil {
			r.TraceError = err.Error()
		} else {
			r.Trace = tr
		}
	}
	return r
}

// verdict holds each output to the contract as fkc verify does
// (verify.Compare against the CPU oracle: bit for bit, or the any-order
// bound) and says so in words, with the bound and the serving kernels'
// determinism.
func (s *Site) verdict(c *kernels.Call, runs []RunResult) (string, bool) {
	var bound string
	var outside, dets []string
	for _, x := range runs {
		m := verify.Contract
		det := ""
		if ref, ok := s.Eng.FindKernel(x.KernelID); ok {
			if s.Eng.OwnOrder(ref.Kernel.EntryPoint) {
				m = verify.OwnOrder
			}
			det = ref.Kernel.Determinism
		}
		if det != "" {
			dets = append(dets, fmt.Sprintf("%s's %s: %s", x.Backend, x.Kernel, det))
		}
		b, _ := verify.Bound(c, x.Out.DType, m)
		if bound == "" {
			bound = b
		} else if b != bound {
			bound += "; " + x.Backend + ": " + b
		}
		msg, err := verify.Compare(c, x.Out, m)
		if err != nil {
			msg = err.Error()
		}
		if msg != "" {
			outside = append(outside, x.Backend+": "+msg)
		}
	}
	det := ""
	if len(dets) > 0 {
		det = " Determinism, as the contracts state it: " + strings.Join(dets, "; ") + "."
	}
	if len(outside) > 0 {
		return "Outside the contract: each output must be " + bound + ". " + strings.Join(outside, "; ") + "." + det, false
	}
	return "Within the contract: both outputs are " + bound + "." + det, true
}

// errField is the Try-it field an op's error is about: a flag the message
// names (--padding, or "padding has 1 axes …"), else an operand it starts
// with (its dtype control when it speaks of dtypes, else its shape); ""
// when it names none. The page marks that field and puts the message
// beside it.
func errField(o *ops.Op, msg string) string {
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "fkc: "), o.Name+": ")
	best, at := "", len(msg)
	for _, u := range o.Flags { // the flag named first: a hint may name another at the end
		if loc := regexp.MustCompile(`(^|[^\w.-])(--)?` + regexp.QuoteMeta(u.Name) + `\b`).FindStringIndex(msg); loc != nil && loc[0] < at {
			best, at = u.Name, loc[0]
		}
	}
	if best != "" {
		return best
	}
	for _, in := range o.Inputs {
		if regexp.MustCompile(`^` + regexp.QuoteMeta(in.Name) + `\b`).MatchString(msg) {
			if strings.Contains(msg, "dtype") {
				return in.Name + ".dtype"
			}
			return in.Name + ".shape"
		}
	}
	return ""
}

// genField is the field of input n's generator an error is about.
func genField(n, msg string) string {
	for _, k := range []string{"seed", "lo", "hi"} {
		if strings.HasPrefix(msg, n+" "+k+" ") || strings.HasPrefix(msg, k+" ") {
			return n + "." + k
		}
	}
	switch {
	case strings.HasPrefix(msg, "file"):
		return n + ".file"
	case strings.HasPrefix(msg, "values"):
		return n + ".values"
	case strings.HasPrefix(msg, "random") || strings.HasPrefix(msg, "uniform"):
		return n + ".lo"
	case strings.Contains(msg, "dtype"):
		return n + ".dtype"
	}
	return n + ".shape"
}

// failed is a run that could not start, with its error classified.
func failed(backend string, err error) RunResult {
	r := RunResult{Backend: backend, Error: "fkc: " + err.Error()}
	var u *kernels.Unavailable
	var us *kernels.Usage
	r.Unavailable = errors.As(err, &u)
	r.Violation = !errors.As(err, &us) && !r.Unavailable
	r.Cite = cite(err)
	return r
}

// cite is the contract's words a violation quotes.
func cite(err error) string {
	var v *kernels.Violation
	if errors.As(err, &v) {
		return v.Constraint
	}
	return ""
}

func (s *Site) runOne(pageID, backendName string, call *kernels.Call, clock Clock, lock func() func()) (r RunResult) {
	b, err := engine.ParseBackend(backendName)
	if err == nil && b != engine.CPU && !s.GPU.Available {
		why := s.GPU.Reason
		if !s.GPU.Done {
			why = "WebGPU is still starting"
		}
		err = &kernels.Unavailable{Kernel: "backend webgpu", Msg: fmt.Sprintf("WebGPU is not available in this browser (%s); the cpu backend works", why)}
	}
	if err != nil {
		return failed(backendName, err)
	}
	if b == engine.Vulkan {
		b = engine.WebGPU
	}
	r = RunResult{Backend: backendName}
	defer lock()()
	o, _ := ops.Of(call)
	var bd *registry.Binding
	ref, onPage := s.Eng.FindKernel(pageID)
	if onPage && ref.Kernel.Registrable && ref.Kernel.Backend == b.Contract() && s.Eng.Runnable(ref.Kernel.EntryPoint) {
		if p := o.Primary(call); p != nil {
			for _, cand := range s.Eng.Reg.Of(ref.Kernel) {
				if cand.InputDTypes[0] == p.DType {
					bd = cand
				}
			}
		}
	}
	once := func(c *kernels.Call) (*engine.Result, error) {
		if bd != nil {
			return s.Eng.RunBinding(bd, c)
		}
		return s.Eng.Run(b, c)
	}
	res, err := once(call) // the first call also compiles a GPU pipeline: not timed
	if err != nil {
		return failed(backendName, err)
	}
	// The timed runs take the call as it ran, resolved: converting I64
	// indices is not the kernel's time.
	call, r.Resolved = res.Call, res.Resolved
	// A batch of warm repetitions: a browser's clock is coarse (the wasm
	// browserClock's Resolution), so one run of a small kernel reads 0.
	// The mean per run is reported.
	budget, maxReps := 5*time.Millisecond, 2000
	if b != engine.CPU {
		budget, maxReps = 30*time.Millisecond, 50
	}
	reps := 0
	start := clock.Now()
	var elapsed time.Duration
	for reps < 3 || (elapsed < budget && reps < maxReps) {
		res2, err2 := once(call)
		if err2 != nil {
			break
		}
		res = res2
		reps++
		elapsed = clock.Since(start)
	}
	r.Reps = reps
	if reps > 0 {
		elapsed /= time.Duration(reps)
	}
	r.Ms = float64(elapsed.Nanoseconds()) / 1e6
	r.ResolutionUs = float64(clock.Resolution().Nanoseconds()) / 1e3
	r.Kernel, r.Provider, r.Contract = res.Kernel, res.Provider, res.Backend
	r.KernelID = res.Provider + "/" + res.Kernel
	r.Href = s.KernelHref(res.Provider, res.Kernel)
	r.Out = res.Out
	syms := engine.CostSymbols(res)
	r.Costs = EvalCosts(res.Binding.Kernel.Cost, syms)
	r.TensorBytes = engine.TensorBytes(res)
	if elapsed > 0 {
		r.GBps = r.TensorBytes / elapsed.Seconds() / 1e9
	}
	for _, c := range r.Costs {
		if c.Name == "bytes_moved" && c.Error == "" {
			r.BytesMoved = c.Value
		}
	}
	if onPage && ref.Kernel != res.Binding.Kernel {
		r.PageCosts = EvalCosts(ref.Kernel.Cost, syms)
	}
	return r
}

// EvalCosts evaluates a contract's cost formulas with a call's symbols.
func EvalCosts(cost contract.Cost, syms map[string]float64) []CostValue {
	var out []CostValue
	for _, f := range contract.CostFields {
		formula := f.Get(cost)
		if strings.TrimSpace(formula) == "" {
			continue
		}
		cv := CostValue{Name: f.Name, Formula: formula}
		if ex, err := contract.ParseExpr(formula); err != nil {
			cv.Error = err.Error()
		} else if cv.Value, err = ex.Eval(syms); err != nil {
			cv.Error = err.Error()
		}
		out = append(out, cv)
	}
	return out
}

// PageCosts are the costs to show in the page kernel's table: its own
// formulas evaluated for the first successful run.
func (r *TryResult) PageCosts() []CostValue {
	for _, x := range r.Runs {
		if x.Error != "" {
			continue
		}
		if x.KernelID == r.Row.ID {
			return x.Costs
		}
		return x.PageCosts
	}
	return nil
}

// Visual is the picture of a run: input grids → output grids.
type Visual struct {
	Explain, Method string
	Inputs, Outs    []Grid
	Notes           []string
	Legend          []LegendItem
	Heat            *HeatScale // the fold counts' scale, shared by every output grid (pad backward)
}

// LegendItem is one entry of the picture's legend.
type LegendItem struct{ Class, Mark, Text string }

// Slices says which slice each grid shows ("x", "out:0" for the first
// output); missing grids show their default slice.
type Slices map[string]Slice

// Visual draws the run (nil when nothing ran).
func (r *TryResult) Visual(sl Slices) *Visual {
	var ok []RunResult
	for _, x := range r.Runs {
		if x.Error == "" {
			ok = append(ok, x)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	v := &Visual{}
	tr := r.Trace
	if tr != nil {
		v.Explain, v.Method, v.Notes = tr.Explain, tr.Method, tr.Notes
	}
	o, _ := ops.Get(r.Case.Op)
	shapes := map[string][]int{}
	for n, t := range r.Inputs {
		shapes[n] = t.Shape
	}
	for _, n := range o.InputNames() {
		v.Inputs = append(v.Inputs, r.grid(n, -1, tr, shapes, sl))
	}
	for i := range ok {
		v.Outs = append(v.Outs, r.grid("out", i, tr, shapes, sl))
	}
	if tr != nil {
		seen := map[string]bool{}
		for _, role := range tr.Role {
			if role != "" && !seen[role] {
				seen[role] = true
				v.Legend = append(v.Legend, LegendItem{Class: "sw r-" + role, Text: ops.RoleLegend[role]})
			}
		}
		if tr.Winner != nil {
			v.Legend = append(v.Legend, LegendItem{Class: "sw win", Mark: "★", Text: "winning (arg) cell"})
		}
		if tr.Interior != nil {
			v.Legend = append(v.Legend, LegendItem{Class: "sw box", Text: "input region"})
		}
		if tr.FoldHeat {
			h := NewHeatScale(foldCounts(tr))
			v.Heat = &h
		}
	}
	if len(ok) > 1 {
		v.Legend = append(v.Legend, LegendItem{Class: "sw differs", Text: "bits differ from the first output"})
	}
	return v
}

// Grid draws one operand (out < 0) or the out-th successful output on
// slice sl[name].
func (r *TryResult) Grid(name string, out int, sl Slices) (Grid, bool) {
	shapes := map[string][]int{}
	for n, t := range r.Inputs {
		shapes[n] = t.Shape
	}
	if out < 0 && r.Inputs[name] == nil {
		return Grid{}, false
	}
	return r.grid(name, out, r.Trace, shapes, sl), true
}

func (r *TryResult) grid(name string, out int, tr *ops.Trace, shapes map[string][]int, sl Slices) Grid {
	o, _ := ops.Get(r.Case.Op)
	in := GridInput{Name: name, Title: name, Trace: tr, Shapes: shapes, Primary: o.Inputs[0].Name}
	key := name
	if out < 0 {
		in.T = r.Inputs[name]
	} else {
		var ok []RunResult
		for _, x := range r.Runs {
			if x.Error == "" {
				ok = append(ok, x)
			}
		}
		run := ok[out]
		in.T, in.Out, in.Backend = run.Out, true, run.Backend
		in.Title = outName(r) + " (" + run.Backend + ")"
		key = fmt.Sprintf("out:%d", out)
		if tr != nil && tr.FoldHeat {
			// Every output grid is drawn from the one trace, so its scale
			// is the legend's (Visual).
			in.Heat = foldCounts(tr)
			in.Scale = NewHeatScale(in.Heat)
		}
		if out == 1 && r.Diff != nil {
			in.Differs = map[int]bool{}
			a, b := ok[0].Out, ok[1].Out
			w := a.DType.Size()
			for i := 0; i < a.NumElems() && i < b.NumElems(); i++ {
				if !slices.Equal(a.Data[i*w:(i+1)*w], b.Data[i*w:(i+1)*w]) {
					in.Differs[i] = true
				}
			}
		}
	}
	if s, ok := sl[key]; ok {
		in.Slice = s
	}
	g := NewGrid(in)
	g.Key = key
	return g
}

// foldCounts is a fold trace's heat: how many sources fold into each
// output cell.
func foldCounts(tr *ops.Trace) []int {
	counts := make([]int, len(tr.Sources))
	for i, s := range tr.Sources {
		counts[i] = len(s)
	}
	return counts
}

// outName is the page kernel's output name (grad_in, out, …).
func outName(r *TryResult) string {
	if r.OutName != "" {
		return r.OutName
	}
	return "out"
}

// OutFile is what the download of a backend's output is called: out.npy,
// as the `fkc run` line writes it, or out-BACKEND.npy where two backends ran.
func (r *TryResult) OutFile(backend string) string {
	ok := 0
	for _, x := range r.Runs {
		if x.Error == "" {
			ok++
		}
	}
	if ok > 1 {
		return "out-" + backend + ".npy"
	}
	return "out.npy"
}

// InFiles are the run's operands (Key) and the .npy file each is read from
// on the `fkc run` line (Value): what downloading the inputs gives.
func (r *TryResult) InFiles() []KV {
	var out []KV
	for _, n := range r.Case.Order {
		if r.Inputs[n] != nil {
			out = append(out, KV{Key: n, Value: InputFile(r.Case, n)})
		}
	}
	return out
}

// FileOf is the .npy encoding of a run's tensor, written as `fkc run -o`
// writes it: operand in, or (in == "") the output of backend's run.
func (r *TryResult) FileOf(in, backend string) (name string, data []byte, err error) {
	var t *tensor.Tensor
	if in != "" {
		t, name = r.Inputs[in], InputFile(r.Case, in)
	} else {
		for _, x := range r.Runs {
			if x.Backend == backend && x.Error == "" {
				t, name = x.Out, r.OutFile(backend)
			}
		}
	}
	if t == nil {
		return "", nil, fmt.Errorf("this run has no %s to download", map[bool]string{true: "input " + in, false: backend + " output"}[in != ""])
	}
	data, err = tensor.NpyBytes(t)
	return name, data, err
}
