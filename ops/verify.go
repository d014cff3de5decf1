package ops

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"slices"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// bitwiseOps are the ops whose every binding must equal the CPU oracle bit
// for bit: pure data movement and exact extrema (SPEC §4, issue 4).
var bitwiseOps = map[string]bool{
	"pad": true, "pad_backward/constant": true, "masked_fill": true,
	"max": true, "min": true, "argmax": true, "argmin": true, "reduce_max_to": true,
	"index_select": true, "gather": true, "embedding": true,
}

// Bitwise reports whether a call's result must match the oracle bitwise.
func Bitwise(c *Call) bool { return bitwiseOps[c.Op] || bitwiseOps[c.Variant()] }

// unitRoundoff is u = 2^-p for a float dtype with p significand bits.
var unitRoundoff = map[tensor.DType]float64{tensor.F32: 0x1p-24, tensor.F16: 0x1p-11, tensor.BF16: 0x1p-8, tensor.F64: 0x1p-53}

// f32Accumulated are the ops whose GPU kernels accumulate in f32 whatever the
// element dtype (and narrow once).
var f32Accumulated = map[string]bool{"sum": true, "mean": true, "reduce_sum_to": true}

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
// unit roundoff of the accumulator (f32 for sums; the element dtype where each
// add is stored, e.g. half CAS accumulation) and u_out that of the output
// dtype (the final narrowing). exact forces a bitwise comparison (the CPU
// bindings are the oracle's own code paths). It returns a description of
// the first few mismatches, or "".
func Compare(c *Call, got *tensor.Tensor, exact bool) (string, error) {
	want, err := Oracle(c)
	if err != nil {
		return "", fmt.Errorf("oracle: %v", err)
	}
	if got.DType != want.DType || !slices.Equal(got.Shape, want.Shape) {
		return fmt.Sprintf("got %s, oracle %s", got, want), nil
	}
	if exact || Bitwise(c) || c.Inputs[firstInput(c)].DType == tensor.F64 {
		return diffBits(got, want), nil
	}
	ref, err := wideOracle(c, func(v float64) float64 { return v })
	if err != nil {
		return "", err
	}
	abs, err := wideOracle(c, math.Abs)
	if err != nil {
		return "", err
	}
	ones := *c
	if ones.Op == "mean" {
		ones.Op = "sum" // m counts the terms of the sum before the divide
	}
	count, err := wideOracle(&ones, func(float64) float64 { return 1 })
	if err != nil {
		return "", err
	}
	uOut := unitRoundoff[got.DType]
	uAcc := math.Max(uOut, unitRoundoff[tensor.F32])
	if f32Accumulated[c.Op] {
		uAcc = unitRoundoff[tensor.F32]
	}
	var bad []string
	for i := 0; i < got.NumElems(); i++ {
		g, r := got.At(i), ref.At(i)
		if math.IsNaN(r) && math.IsNaN(g) || g == r {
			continue
		}
		tol := count.At(i)*uAcc*abs.At(i) + 2*uOut*math.Abs(r)
		if !(math.Abs(g-r) <= tol) {
			bad = append(bad, fmt.Sprintf("[%d] got %v, f64 reference %v (tolerance %.3g)", i, g, r, tol))
			if len(bad) == 4 {
				break
			}
		}
	}
	return strings.Join(bad, "; "), nil
}

// wideOracle runs the oracle on the float inputs widened to f64 and mapped
// through f (identity, |·|, or constant 1 to count terms).
func wideOracle(c *Call, f func(float64) float64) (*tensor.Tensor, error) {
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
	return Oracle(&w)
}

func diffBits(got, want *tensor.Tensor) string {
	var bad []string
	sz := got.DType.Size()
	for i := 0; i < got.NumElems(); i++ {
		g, w := got.Data[i*sz:(i+1)*sz], want.Data[i*sz:(i+1)*sz]
		if string(g) != string(w) {
			bad = append(bad, fmt.Sprintf("[%d] got %v (%x), oracle %v (%x)", i, got.At(i), g, want.At(i), w))
			if len(bad) == 4 {
				break
			}
		}
	}
	return strings.Join(bad, "; ")
}

func firstInput(c *Call) string {
	s, _ := SpecFor(c.Op)
	return s.Inputs[0]
}

// VerifyReport counts `fkc verify` outcomes.
type VerifyReport struct{ Passed, Failed, Skipped int }

// Verify runs every linked binding of a backend (each kernel × dtype × the
// op variants its link serves) on `cases` random valid calls and compares
// with the CPU oracle. A binding whose implementation says it is not
// available on this adapter (f64 atomics) is counted as skipped, with the
// reason printed.
func (e *Engine) Verify(backend string, seed int64, cases int, w io.Writer) (VerifyReport, error) {
	var rep VerifyReport
	cb, err := ContractBackend(backend)
	if err != nil {
		return rep, err
	}
	rng := rand.New(rand.NewSource(seed))
	for _, b := range e.Reg.Bindings {
		l, ok := e.links[b.Kernel.EntryPoint]
		if b.Backend != cb || !ok {
			continue
		}
		for _, variant := range l.Ops {
			op, _, _ := cutSlash(variant)
			if spec, _ := SpecFor(op); !spec.Accepts(b.InputDTypes[0]) {
				continue // e.g. a U32 index_select binding does not serve (float-only) embedding
			}
			name := fmt.Sprintf("%s %s [%s]", b.Kernel.Name, variant, b.InputDTypes[0])
			maxRank := 4
			if strings.HasPrefix(b.Kernel.Inputs[0].Rank, "1..=") {
				maxRank = 8
			}
			var fails []string
			skipped := ""
			for i := 0; i < cases; i++ {
				c := RandomCall(rng, variant, b.InputDTypes[0], maxRank)
				res, err := e.RunBinding(b, c)
				if err != nil {
					if IsUnavailable(err) {
						skipped = err.Error()
						break
					}
					fails = append(fails, fmt.Sprintf("case %d: %v", i, err))
					continue
				}
				if _, err := BytesMoved(res); err != nil {
					fails = append(fails, fmt.Sprintf("case %d: cost formula bytes_moved %q: %v", i, b.Kernel.Cost.BytesMoved, err))
					continue
				}
				msg, err := Compare(c, res.Out, cb == "Cpu")
				if err != nil {
					fails = append(fails, fmt.Sprintf("case %d: %v", i, err))
				} else if msg != "" {
					fails = append(fails, fmt.Sprintf("case %d (%s %v): %s", i, describeInputs(c), c.Flags(), msg))
				}
			}
			switch {
			case skipped != "":
				rep.Skipped++
				fmt.Fprintf(w, "SKIP %s: %s\n", name, skipped)
			case len(fails) > 0:
				rep.Failed++
				fmt.Fprintf(w, "FAIL %s: %d/%d cases: %s\n", name, len(fails), cases, fails[0])
			default:
				rep.Passed++
				fmt.Fprintf(w, "ok   %s: %d cases\n", name, cases)
			}
		}
	}
	return rep, nil
}

func describeInputs(c *Call) string {
	s, _ := SpecFor(c.Op)
	parts := make([]string, 0, len(s.Inputs))
	for _, n := range s.Inputs {
		parts = append(parts, n+"="+c.Inputs[n].String())
	}
	return strings.Join(parts, " ")
}

// IsUnavailable reports whether err says the kernel is not available on this
// adapter (a *kernels.Unavailable anywhere in its chain).
func IsUnavailable(err error) bool {
	var u *kernels.Unavailable
	return errors.As(err, &u)
}

// BindingsOn lists the linked bindings of a backend (for tests and docs).
func (e *Engine) BindingsOn(backend string) []*registry.Binding {
	cb, _ := ContractBackend(backend)
	var out []*registry.Binding
	for _, b := range e.Reg.Bindings {
		if _, ok := e.links[b.Kernel.EntryPoint]; ok && b.Backend == cb {
			out = append(out, b)
		}
	}
	return out
}
