// Package verify checks kernels against the CPU oracle: Compare judges one
// result (bit for bit, or within the bound that holds for any summation
// order), and Run walks every linked binding of a backend on random valid
// calls — `fkc verify` and the registry-walking tests.
package verify

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"slices"
	"strings"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// unitRoundoff is u = 2^-p for a float dtype with p significand bits.
var unitRoundoff = map[tensor.DType]float64{tensor.F32: 0x1p-24, tensor.F16: 0x1p-11, tensor.BF16: 0x1p-8, tensor.F64: 0x1p-53}

// Match is how Compare holds a result to the oracle's.
type Match int

const (
	Contract Match = iota // bitwise where the op's tolerance says so, else the any-order bound
	Bitwise               // bit for bit
	OwnOrder              // the any-order bound with in-dtype adds (a kernel's own contracted order)
)

// Compare checks got against the CPU oracle for the call. Bitwise ops must
// match exactly. Arithmetic ops that a backend may legitimately order
// differently (tree sums, atomic accumulation, f32 accumulation of halves)
// are checked per output slot against an f64 reference within the bound
// that holds for ANY summation order of m terms:
//
//	|got − ref| ≤ m·u_acc·Σ|terms| + u_out·|ref|
//
// where m is the number of terms folding into that slot (the op run on
// all-ones inputs), Σ|terms| is the op run on |inputs| in f64, u_acc is the
// unit roundoff of the accumulator (f32 for the GPU sums; the element dtype
// where each add is stored) and u_out that of the output dtype. Bitwise
// forces a bitwise comparison (the CPU bindings are the oracle's own code
// paths); OwnOrder is the bound with in-dtype adds, f64 included, for a
// kernel whose contract fixes an order of its own. It returns a
// description of the first few mismatches, or "".
func Compare(c *kernels.Call, got *tensor.Tensor, m Match) (string, error) {
	d, err := Cells(c, got, m, 4)
	if err != nil || d == nil {
		return "", err
	}
	if d.Shape != "" {
		return d.Shape, nil
	}
	bad := make([]string, len(d.Cells))
	for i, b := range d.Cells {
		if d.Bitwise {
			bad[i] = fmt.Sprintf("[%d] got %v (%x), oracle %v (%x)", b.Index, b.Got, b.GotBits, b.Want, b.WantBits)
		} else {
			bad[i] = fmt.Sprintf("[%d] got %v, f64 reference %v (tolerance %.3g)", b.Index, b.Got, b.Ref, b.Tol)
		}
	}
	return strings.Join(bad, "; "), nil
}

// Diff is how a result differs from the oracle's: nil when it matches.
type Diff struct {
	Shape   string // the result's dtype or shape is not the oracle's
	Bitwise bool   // compared bit for bit (else within the any-order bound)
	Want    *tensor.Tensor
	Cells   []Cell // the first wrong cells, in flat order
	Total   int    // every wrong cell
}

// Cell is one wrong output element.
type Cell struct {
	Index             int
	Got, Want         float64 // the result's and the oracle's values
	GotBits, WantBits []byte  // their bytes
	Ref, Tol          float64 // the f64 reference and the bound (any-order comparisons)
}

// Cells compares got with the oracle as Compare does and lists up to
// limit wrong cells (all of them when limit <= 0). In an arithmetic op (a
// tolerance other than Bitwise) a NaN matches any NaN: IEEE leaves the
// payload of a NaN that arithmetic produces to the implementation.
func Cells(c *kernels.Call, got *tensor.Tensor, m Match, limit int) (*Diff, error) {
	o, err := ops.Of(c)
	if err != nil {
		return nil, err
	}
	want, err := o.Oracle(c)
	if err != nil {
		return nil, fmt.Errorf("oracle: %v", err)
	}
	if got.DType != want.DType || !slices.Equal(got.Shape, want.Shape) {
		return &Diff{Shape: fmt.Sprintf("got %s, oracle %s", got, want), Want: want}, nil
	}
	d := &Diff{Want: want}
	sz := got.DType.Size()
	add := func(i int, cl Cell) {
		d.Total++
		if limit <= 0 || len(d.Cells) < limit {
			cl.Index, cl.Got, cl.Want = i, got.At(i), want.At(i)
			cl.GotBits, cl.WantBits = got.Data[i*sz:(i+1)*sz], want.Data[i*sz:(i+1)*sz]
			d.Cells = append(d.Cells, cl)
		}
	}
	done := func() *Diff {
		if d.Total == 0 {
			return nil
		}
		return d
	}
	tol := o.Tolerance(o.Variant(&c.Params).Form)
	if m == Bitwise || (m == Contract && (tol == ops.Bitwise || o.Primary(c).DType == tensor.F64)) {
		d.Bitwise = true
		anyNaN := tol != ops.Bitwise && got.DType.IsFloat()
		for i := 0; i < got.NumElems(); i++ {
			if string(got.Data[i*sz:(i+1)*sz]) == string(want.Data[i*sz:(i+1)*sz]) ||
				anyNaN && math.IsNaN(got.At(i)) && math.IsNaN(want.At(i)) {
				continue
			}
			add(i, Cell{})
		}
		return done(), nil
	}
	ref, err := wideOracle(o, c, func(v float64) float64 { return v })
	if err != nil {
		return nil, err
	}
	abs, err := wideOracle(o, c, math.Abs)
	if err != nil {
		return nil, err
	}
	terms := o
	if o.Terms != "" {
		if terms, err = ops.Get(o.Terms); err != nil {
			return nil, err
		}
	}
	ones := *c
	ones.Op = terms.Name
	count, err := wideOracle(terms, &ones, func(float64) float64 { return 1 })
	if err != nil {
		return nil, err
	}
	uOut := unitRoundoff[got.DType]
	uAcc := math.Max(uOut, unitRoundoff[tensor.F32])
	switch {
	case m == OwnOrder:
		uAcc = uOut
	case tol == ops.AnyOrderF32:
		uAcc = unitRoundoff[tensor.F32]
	}
	for i := 0; i < got.NumElems(); i++ {
		g, r := got.At(i), ref.At(i)
		if math.IsNaN(r) && math.IsNaN(g) || g == r || string(got.Data[i*sz:(i+1)*sz]) == string(want.Data[i*sz:(i+1)*sz]) {
			continue // the oracle's own bits are right by definition (its rounding may leave the bound near underflow)
		}
		// An adapter may flush f32 subnormals in arithmetic (WebGPU lets
		// it; the H200's driver does, lavapipe does not): each term may be
		// off by up to the smallest normal f32, which the bound admits.
		// It widens nothing in the normal range the relative bound covers.
		// (At least one: a quotient or a product may flush as well.)
		t := count.At(i)*uAcc*abs.At(i) + 2*uOut*math.Abs(r) + math.Max(count.At(i), 1)*0x1p-126
		if !(math.Abs(g-r) <= t) {
			add(i, Cell{Ref: r, Tol: t})
		}
	}
	return done(), nil
}

// Bound says, in words, what Compare holds a result of the call (output
// dtype dt) to under match m: bit for bit, or the any-order bound with its
// unit roundoffs. bitwise reports which.
func Bound(c *kernels.Call, dt tensor.DType, m Match) (desc string, bitwise bool) {
	o, err := ops.Of(c)
	if err != nil {
		return err.Error(), false
	}
	tol := o.Tolerance(o.Variant(&c.Params).Form)
	if m == Bitwise || (m == Contract && (tol == ops.Bitwise || o.Primary(c).DType == tensor.F64)) {
		why := "moves data or picks an exact extremum"
		switch {
		case tol == ops.Bitwise:
		case m == Bitwise:
			why = "is the oracle's own code on the CPU"
		default:
			why = "adds F64 in the oracle's order"
		}
		return fmt.Sprintf("equal to the CPU oracle's bit for bit (%s %s)", o.Name, why), true
	}
	uOut := unitRoundoff[dt]
	uAcc, acc := math.Max(uOut, unitRoundoff[tensor.F32]), "at least f32"
	switch {
	case m == OwnOrder:
		uAcc, acc = uOut, dt.String()+", in the kernel's own contracted order"
	case tol == ops.AnyOrderF32:
		uAcc, acc = unitRoundoff[tensor.F32], "f32"
	}
	return fmt.Sprintf("within |got − ref| ≤ m·%s·Σ|terms| + 2·%s·|ref| of the f64 reference, m the terms folded into an element (%s may add in any order, accumulating in %s)",
		pow2(uAcc), pow2(uOut), o.Name, acc), false
}

// pow2 writes a unit roundoff as 2^-p.
func pow2(u float64) string {
	_, e := math.Frexp(u)
	return fmt.Sprintf("2^%d", e-1)
}

// wideOracle runs the oracle on the float inputs widened to f64 and mapped
// through f (identity, |·|, or constant 1 to count terms).
func wideOracle(o *ops.Op, c *kernels.Call, f func(float64) float64) (*tensor.Tensor, error) {
	w := *c
	w.Inputs = map[string]*tensor.Tensor{}
	for n, t := range c.Inputs {
		if !t.DType.IsFloat() {
			w.Inputs[n] = t
			continue
		}
		x := tensor.New(tensor.F64, t.Shape)
		for i := 0; i < t.NumElems(); i++ {
			x.Set(i, f(t.At(i)))
		}
		w.Inputs[n] = x
	}
	return o.Oracle(&w)
}

// Report counts `fkc verify` outcomes.
type Report struct{ Passed, Failed, Skipped int }

// Run runs every linked binding of a backend (each kernel × dtype × the
// variants that exercise it: those dispatch picks it for, or for a kernel
// run only by name, those it runs) on `cases` random valid calls and compares
// with the CPU oracle. A binding whose implementation says it is not
// available on this adapter is counted as skipped, with the reason printed.
func Run(e *engine.Engine, backend engine.Backend, seed int64, cases int, w io.Writer) Report {
	return RunProgress(e, backend, seed, cases, w, nil)
}

// RunProgress is Run, calling progress (when not nil) after each binding
// and variant with how many of them are done, of how many, and the line
// it wrote: a run on WebGPU takes long enough to need a sign of progress.
func RunProgress(e *engine.Engine, backend engine.Backend, seed int64, cases int, w io.Writer, progress func(done, total int, line string)) Report {
	total := 0
	for _, b := range e.BindingsOn(backend) {
		for _, v := range e.Exercised(b.Kernel.EntryPoint) {
			if o, _ := ops.Lookup(v.Op); o.Accepts(b.InputDTypes[0]) {
				total++
			}
		}
	}
	done := 0
	report := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		fmt.Fprintln(w, line)
		if done++; progress != nil {
			progress(done, total, line)
		}
	}
	var rep Report
	rng := rand.New(rand.NewSource(seed))
	for _, b := range e.BindingsOn(backend) {
		match := Contract
		switch {
		case e.OwnOrder(b.Kernel.EntryPoint):
			match = OwnOrder
		case backend == engine.CPU:
			match = Bitwise
		}
		for _, v := range e.Exercised(b.Kernel.EntryPoint) {
			o, _ := ops.Lookup(v.Op)
			if !o.Accepts(b.InputDTypes[0]) {
				continue // e.g. a U32 index_select binding does not serve (float-only) embedding
			}
			name := fmt.Sprintf("%s %s [%s]", b.Kernel.Name, v, b.InputDTypes[0])
			maxRank := 4
			if strings.HasPrefix(b.Kernel.Inputs[0].Rank, "1..=") {
				maxRank = 8
			}
			var fails []string
			skipped := ""
			for i := 0; i < cases; i++ {
				c := o.Random(rng, v.Form, b.InputDTypes[0], maxRank)
				res, err := e.RunBinding(b, c)
				if err != nil {
					var u *kernels.Unavailable
					if errors.As(err, &u) {
						skipped = err.Error()
						break
					}
					fails = append(fails, fmt.Sprintf("case %d: %v", i, err))
					continue
				}
				// Every cost formula evaluates for the call: a symbol the
				// op does not provide is a contract bug, found here.
				if f, err := costsEvaluate(res); err != nil {
					fails = append(fails, fmt.Sprintf("case %d: cost formula %s %q: %v", i, f.Name, f.Get(res.Binding.Kernel.Cost), err))
					continue
				}
				msg, err := Compare(c, res.Out, match)
				if err != nil {
					fails = append(fails, fmt.Sprintf("case %d: %v", i, err))
				} else if msg != "" {
					fails = append(fails, fmt.Sprintf("case %d (%s %v): %s", i, describeInputs(o, c), ops.FormatFlags(c), msg))
				}
			}
			switch {
			case skipped != "":
				rep.Skipped++
				report("SKIP %s: %s", name, skipped)
			case len(fails) > 0:
				rep.Failed++
				report("FAIL %s: %d/%d cases: %s", name, len(fails), cases, fails[0])
			default:
				rep.Passed++
				report("ok   %s: %d cases", name, cases)
			}
		}
	}
	return rep
}

// costsEvaluate evaluates every non-empty cost formula of the serving
// kernel for its call, and names the first that fails.
func costsEvaluate(res *engine.Result) (contract.CostField, error) {
	for _, f := range contract.CostFields {
		if strings.TrimSpace(f.Get(res.Binding.Kernel.Cost)) == "" {
			continue
		}
		if _, err := engine.EvalCost(res, f.Get(res.Binding.Kernel.Cost)); err != nil {
			return f, err
		}
	}
	return contract.CostField{}, nil
}

func describeInputs(o *ops.Op, c *kernels.Call) string {
	parts := make([]string, 0, len(o.Inputs))
	for _, in := range o.Inputs {
		parts = append(parts, in.Name+"="+c.Inputs[in.Name].String())
	}
	return strings.Join(parts, " ")
}
