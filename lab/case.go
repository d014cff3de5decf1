package lab

import (
	"encoding/binary"
	"math/rand"
	"slices"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// Case is one derived call: what it tests, and how the dispatch is laid out.
type Case struct {
	N       int // its number in the check, from 1
	Call    *kernels.Call
	DType   tensor.DType
	Variant kernels.Variant
	Note    string // how it was derived: "edge: rank 3", "random", …
	// RowGroups: the grid's rows hold at most this many workgroups (0:
	// the adapter's limit).
	RowGroups uint32
}

// The case derivation. For every dtype of the kernel's bindings and every
// variant its link runs, the cases are
//   - edges: every rank the contract's input takes (up to MaxRank), axis
//     sizes 0, 1, 2 and the workgroup's width in elements ± 1, pads of 0,
//     1, n−1, n and 2n+1, every dim, every reduce-to target of small
//     ranks, index lengths 0 and 1, indices at 0 and at the bound − 1:
//     each candidate built with the op's own constructor and kept only
//     when the op's shape rules (ops.Op.Out: the contract's constraints)
//     and the contract's rank accept it — so "empty where allowed" and
//     "wider pads where the mode allows" come from the contract, not from
//     this file;
//   - specials: the edge cases' float inputs again with NaN payloads
//     (quiet, negative, signalling), −0, the smallest and largest
//     subnormals and ±inf;
//   (a candidate is kept only when the op's shape rules, its oracle — index
//   values, fills — and the contract's rank take it);
//   - random: the op's own random valid calls (ops.Op.Random), seeded.
// Every second case lays the grid out one workgroup per row, so a kernel
// that ignores the grid's y fails a small case.

// Derive lists the check's cases. f64 says whether the adapter has
// shader-f64 (without it F64 cases of computing families are skipped by
// the check, with the reason).
func (k *Kernel) Derive(seed int64, random int) []*Case {
	rng := rand.New(rand.NewSource(seed))
	lo, hi := k.rankRange()
	var out []*Case
	for _, dt := range k.DTypes() {
		for _, v := range k.Variants {
			o, _ := ops.Lookup(v.Op)
			if !o.Accepts(dt) {
				continue
			}
			var edges []*kernels.Call
			for _, c := range edgeCalls(o, v.Form, dt, rng, lo, hi) {
				if k.accepts(o, c, lo, hi) {
					edges = append(edges, c)
				}
			}
			add := func(c *kernels.Call, note string) {
				out = append(out, &Case{Call: c, DType: dt, Variant: v, Note: note})
			}
			for _, c := range edges {
				add(c, "edge")
			}
			if dt.IsFloat() {
				for i, c := range edges {
					if i%2 == 0 && floatCells(o, c) > 0 {
						add(withSpecials(o, c, rng), "specials: NaN payloads, -0, subnormals, ±inf")
					}
				}
			}
			for range random {
				c := o.Random(rng, v.Form, dt, hi)
				c.Op = o.Name
				if k.accepts(o, c, lo, hi) {
					add(c, "random")
				}
			}
		}
	}
	for i, c := range out {
		c.N = i + 1
		if i%2 == 1 {
			c.RowGroups = 1
		}
	}
	return out
}

// accepts: the op's shape rules and the contract's rank take the call.
func (k *Kernel) accepts(o *ops.Op, c *kernels.Call, lo, hi int) bool {
	if _, _, err := o.Out(c); err != nil {
		return false
	}
	if _, err := o.Oracle(c); err != nil { // index values, fills: the rest of the contract
		return false
	}
	if r := o.Primary(c).Rank(); r < lo || r > hi {
		return false
	}
	for _, t := range c.Inputs {
		if t.Rank() > MaxRank || t.NumElems() > maxCaseElems {
			return false
		}
	}
	return true
}

// maxCaseElems bounds a derived operand: the plain kernels loop over
// their inputs within the loop budget.
const maxCaseElems = 4096

// shapes lists the operand shapes the edges try: every rank from lo to
// hi on a small grid, then the sizes around the workgroup's width on the
// last axis of ranks 1 and 2. per is the output elements an invocation
// writes.
func shapes(lo, hi, per int) [][]int {
	var out [][]int
	lead := []int{2, 1, 3}
	for r := lo; r <= hi; r++ {
		s := make([]int, r)
		for i := range s {
			s[i] = lead[i%len(lead)]
		}
		out = append(out, s)
	}
	w := WG * per
	for _, n := range []int{0, 1, 2, w - 1, w, w + 1} {
		for _, r := range []int{1, 2} {
			if r < lo || r > hi {
				continue
			}
			s := []int{n}
			if r == 2 {
				s = []int{3, n}
			}
			out = append(out, s)
		}
	}
	return out
}

// edgeCalls builds the edge candidates of one op and form; the caller
// keeps those the op's shape rules accept.
func edgeCalls(o *ops.Op, f kernels.Form, dt tensor.DType, rng *rand.Rand, lo, hi int) []*kernels.Call {
	per := max(1, 4/dt.Size())
	var out []*kernels.Call
	data := func(s []int) *tensor.Tensor { return ops.RandTensor(rng, dt, s) }
	switch o.Name {
	case "pad", "pad_backward":
		for _, s := range shapes(lo, hi, per) {
			if len(s) == 0 {
				continue
			}
			n := s[len(s)-1]
			for _, w := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {n - 1, n - 1}, {n, 0}, {0, n}, {2*n + 1, 1}} {
				p := kernels.Pad{Before: w[0], After: w[1]}
				if p.Before < 0 || p.After < 0 {
					continue
				}
				pads := make([]kernels.Pad, len(s))
				for a := range pads {
					pads[a] = kernels.Pad{Before: min(1, s[a]-1+boolInt(f.Mode() != kernels.Reflect)), After: 0}
				}
				pads[len(s)-1] = p
				if o.Name == "pad" {
					c := ops.Pad(data(s), f.Mode(), pads...)
					if f.Mode() == kernels.Constant {
						c.Fill = tensor.IntScalar(int64(3 + rng.Intn(3)))
					}
					out = append(out, c)
					continue
				}
				padded, err := kernels.PadOutShape("pad", f.Mode(), s, pads)
				if err != nil {
					continue
				}
				out = append(out, ops.PadBackward(data(padded), f.Mode(), pads...))
			}
		}
	case "masked_fill":
		for _, s := range append(shapes(max(lo, 0), hi, per), []int{}) {
			out = append(out, ops.MaskedFill(data(s), ops.RandTensor(rng, tensor.BOOL, s), tensor.IntScalar(int64(1+rng.Intn(5)))))
		}
	case "sum", "max", "min", "mean", "argmax", "argmin":
		for _, s := range shapes(lo, hi, 1) {
			if f == kernels.FormAll {
				out = append(out, &kernels.Call{Op: o.Name, Inputs: map[string]*tensor.Tensor{"x": data(s)}, Params: kernels.Params{Dim: ops.All}})
				continue
			}
			for d := range s {
				out = append(out, &kernels.Call{Op: o.Name, Inputs: map[string]*tensor.Tensor{"x": data(s)}, Params: kernels.Params{Dim: d}})
			}
		}
		if f == kernels.FormAll && lo == 0 {
			out = append(out, &kernels.Call{Op: o.Name, Inputs: map[string]*tensor.Tensor{"x": data([]int{})}, Params: kernels.Params{Dim: ops.All}})
		}
	case "reduce_sum_to", "reduce_max_to", "reduce_min_to", "reduce_max_to_backward":
		for _, s := range shapes(max(lo, 1), min(hi, 4), 1) {
			for _, t := range targets(s) {
				x := data(s)
				if o.Name != "reduce_max_to_backward" {
					out = append(out, ops.ReduceTo(o.Name, x, t))
					continue
				}
				for i := range x.NumElems() { // few distinct values: ties share the gradient
					x.Set(i, float64(rng.Intn(3)))
				}
				out = append(out, ops.ReduceMaxToBackward(x, data(t), t))
			}
		}
	case "index_select", "embedding":
		for _, s := range shapes(max(lo, 1), hi, per) {
			if o.Name == "embedding" && len(s) != 2 {
				continue
			}
			for d := range s {
				if o.Name == "embedding" && d != 0 {
					continue
				}
				for _, m := range []int{0, 1, 5} {
					idx := boundIndices(rng, []int{m}, s[d])
					if o.Name == "embedding" {
						out = append(out, ops.Embedding(data(s), idx))
					} else {
						out = append(out, ops.IndexSelect(data(s), idx, d))
					}
				}
			}
		}
	case "gather", "scatter_add":
		for _, s := range shapes(max(lo, 1), hi, per) {
			for d := range s {
				for _, m := range []int{0, 1, 3} {
					is := slices.Clone(s)
					is[d] = m
					if len(is) > 1 && is[0] > 1 {
						is[0]-- // smaller than data off axis dim
					}
					idx := boundIndices(rng, is, s[d])
					if o.Name == "gather" {
						out = append(out, ops.Gather(data(s), idx, d))
					} else {
						out = append(out, ops.AddCall(o.Name, data(s), idx, data(is), d))
					}
				}
			}
		}
	case "index_add":
		for _, s := range shapes(max(lo, 1), hi, per) {
			for d := range s {
				for _, m := range []int{0, 1, 4} {
					ss := slices.Clone(s)
					ss[d] = m
					out = append(out, ops.AddCall(o.Name, data(s), boundIndices(rng, []int{m}, s[d]), data(ss), d))
				}
			}
		}
	}
	for _, c := range out {
		c.Op = o.Name
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// targets lists reduce-to targets of shape s: each axis kept or reduced
// to 1, and with the leading axis dropped.
func targets(s []int) [][]int {
	var out [][]int
	for mask := 0; mask < 1<<len(s); mask++ {
		t := make([]int, len(s))
		for a := range s {
			t[a] = 1
			if mask&(1<<a) != 0 {
				t[a] = s[a]
			}
		}
		out = append(out, t)
		if mask == 1<<len(s)-1 && len(s) > 1 {
			out = append(out, t[1:])
		}
	}
	return out
}

// boundIndices is a U32 tensor of indices below bound whose first and
// last values are the bounds, 0 and bound − 1.
func boundIndices(rng *rand.Rand, shape []int, bound int) *tensor.Tensor {
	t := ops.RandIndices(rng, shape, max(1, bound))
	if u := t.U32(); len(u) > 0 && bound > 0 {
		u[0], u[len(u)-1] = 0, uint32(bound-1)
	}
	return t
}

// floatCells counts the float input elements of a call.
func floatCells(o *ops.Op, c *kernels.Call) int {
	n := 0
	for _, in := range o.Inputs {
		if t := c.In(in.Name); t.DType.IsFloat() {
			n += t.NumElems()
		}
	}
	return n
}

// specialBits are the special values the specials cases put into float
// inputs, as bits: a quiet NaN with a payload, a negative one, a
// signalling one, −0, the smallest and (negated) largest subnormals, ±inf.
var specialBits = map[tensor.DType][]uint64{
	tensor.F32:  {0x7fc00001, 0xffc12345, 0x7f800001, 0x80000000, 0x00000001, 0x807fffff, 0x7f800000, 0xff800000},
	tensor.F64:  {0x7ff8000000000001, 0xfff8000012345678, 0x7ff0000000000001, 1 << 63, 1, 0x800fffffffffffff, 0x7ff0000000000000, 0xfff0000000000000},
	tensor.F16:  {0x7e01, 0xfe55, 0x7c01, 0x8000, 0x0001, 0x83ff, 0x7c00, 0xfc00},
	tensor.BF16: {0x7fc1, 0xffc5, 0x7f81, 0x8000, 0x0001, 0x807f, 0x7f80, 0xff80},
}

// withSpecials copies a call and writes special values over about a
// third of its float inputs' elements (every one of them at least once
// where there is room).
func withSpecials(o *ops.Op, c *kernels.Call, rng *rand.Rand) *kernels.Call {
	s := *c
	s.Inputs = map[string]*tensor.Tensor{}
	k := 0
	for _, in := range o.Inputs {
		t := c.In(in.Name)
		if !t.DType.IsFloat() {
			s.Inputs[in.Name] = t
			continue
		}
		u := &tensor.Tensor{DType: t.DType, Shape: t.Shape, Data: slices.Clone(t.Data)}
		bits, es := specialBits[t.DType], t.DType.Size()
		for i := range u.NumElems() {
			if k < len(bits) && i%2 == 0 || rng.Intn(3) == 0 {
				var b [8]byte
				binary.LittleEndian.PutUint64(b[:], bits[k%len(bits)])
				copy(u.Data[i*es:(i+1)*es], b[:es])
				k++
			}
		}
		s.Inputs[in.Name] = u
	}
	return &s
}
