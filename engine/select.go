package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// serves reports whether binding b is linked to an implementation that
// serves variant v.
func (e *Engine) serves(b *registry.Binding, v kernels.Variant) bool {
	l, ok := e.links[b.Kernel.EntryPoint]
	return ok && slices.Contains(l.Serves, v)
}

// Select finds the binding on backend bk that serves the call. Bindings
// that share a registry key (DuplicateKernelRef: sum_all and sum_dim, the
// per-mode Vulkan pads, …) are told apart by the variant their link
// serves; dtypes are matched positionally against the contract's inputs,
// of the call as it runs (resolved: I32/I64 indices are U32 there).
func (e *Engine) Select(bk Backend, c *kernels.Call) (*registry.Binding, error) {
	ck, err := e.check(c)
	if err != nil {
		return nil, err
	}
	return e.selectChecked(bk, ck)
}

func (e *Engine) selectChecked(bk Backend, ck *checked) (*registry.Binding, error) {
	o, c := ck.op, ck.call
	cb := bk.Contract()
	v := o.Variant(&c.Params)
	primary := o.Primary(c)
	var sameOp []*registry.Binding
	for _, b := range e.Reg.Bindings {
		if b.Backend != cb || !e.serves(b, v) {
			continue
		}
		sameOp = append(sameOp, b)
		if len(b.InputDTypes) > 0 && b.InputDTypes[0] == primary.DType {
			// The link table makes the choice unique (a test checks it);
			// the secondary operands (indices, mask, src, upstream) must
			// then have the contract's dtypes too.
			return b, checkOperandDTypes(b, o, c)
		}
	}
	return nil, e.noBinding(cb, c, v, primary.DType, sameOp)
}

func checkOperandDTypes(b *registry.Binding, o *ops.Op, c *kernels.Call) error {
	for i, in := range b.Kernel.Inputs {
		if i >= len(o.Inputs) || i >= len(b.InputDTypes) {
			break
		}
		name := o.Inputs[i].Name
		t := c.Inputs[name]
		if t.DType != b.InputDTypes[i] {
			return kernels.Violatef(c.Op, "%s has dtype %s but %s %s takes %s (contract: %s.dtypes %v)%s",
				name, t.DType, b.Kernel.Name, in.Name, b.InputDTypes[i], in.Name, in.DTypeNames, remedy(t.DType, b.InputDTypes[i]))
		}
		if lo, hi, ok := rankRange(in.Rank); ok && (t.Rank() < lo || t.Rank() > hi) {
			return kernels.Violatef(c.Op, "%s has rank %d but %s takes rank %s (contract: %s.rank %s)",
				name, t.Rank(), b.Kernel.Name, in.Rank, in.Name, in.Rank)
		}
	}
	return nil
}

// rankRange reads an input's declared rank: "N" or "A..=B"; ok is false
// for "any", an empty rank and forms it does not know (no check).
func rankRange(s string) (lo, hi int, ok bool) {
	a, b, isRange := strings.Cut(strings.TrimSpace(s), "..=")
	lo, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	if !isRange {
		return lo, lo, true
	}
	if hi, err = strconv.Atoi(b); err != nil || hi < lo {
		return 0, 0, false
	}
	return lo, hi, true
}

// remedy is the one-line fix a NumPy or PyTorch user needs when an operand
// has the wrong dtype. (Indices of NumPy's int64 or PyTorch's int32 never
// get here: they are converted to U32 first, ops.Op.Resolve.)
func remedy(got, want tensor.DType) string {
	if want == tensor.U32 && !got.IsFloat() {
		return "; convert it: a.astype(np.uint32) (indices may also be I32 or I64, converted to U32)"
	}
	if np, ok := numpyName[want]; ok {
		return fmt.Sprintf("; convert it: a.astype(np.%s)", np)
	}
	return ""
}

var numpyName = map[tensor.DType]string{tensor.F32: "float32", tensor.F64: "float64", tensor.F16: "float16", tensor.U8: "uint8",
	tensor.I32: "int32", tensor.BOOL: "bool_"}

// noBinding explains that no binding serves the call, and where the op is
// available instead.
func (e *Engine) noBinding(cb string, c *kernels.Call, v kernels.Variant, dt tensor.DType, sameOp []*registry.Binding) error {
	var have []string
	for _, b := range sameOp {
		if s := b.InputDTypes[0].String(); !slices.Contains(have, s) {
			have = append(have, s)
		}
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "no %s binding for %s with dtype %s", cb, v, dt)
	if len(have) > 0 {
		fmt.Fprintf(&msg, " (%s %s is registered for %s only)", cb, v, strings.Join(have, ", "))
	} else if o, ok := ops.Lookup(c.Op); ok && o.CPUOnly != "" && cb != CPU.Contract() {
		fmt.Fprintf(&msg, " (%s runs on the CPU only: %s)", c.Op, o.CPUOnly)
	} else {
		fmt.Fprintf(&msg, " (%s has no linked %s kernel)", cb, v)
	}
	var elsewhere, declared []string
	for _, b := range e.Reg.Bindings {
		if b.Backend == cb || len(b.InputDTypes) == 0 || b.InputDTypes[0] != dt {
			continue
		}
		where := fmt.Sprintf("%s via %s", b.Backend, b.Kernel.Name)
		if e.serves(b, v) {
			elsewhere = append(elsewhere, where)
		} else if l, ok := e.entries[b.Kernel.EntryPoint]; ok && slices.Contains(l.Serves, v) && !slices.Contains(declared, where) {
			declared = append(declared, where) // linked in this build, no device attached
		}
	}
	switch {
	case len(elsewhere) > 0:
		fmt.Fprintf(&msg, "; %s with %s runs on %s", v, dt, strings.Join(elsewhere, ", "))
	case len(declared) > 0:
		fmt.Fprintf(&msg, "; contracts declare it on %s", strings.Join(declared, ", "))
	}
	return &kernels.Violation{Op: c.Op, Msg: msg.String()}
}

// DispatchNote says, for a kernel's doc, how dispatch reaches it — and, where
// its registry key is shared (DuplicateKernelRef), how the collision is
// resolved: the link table tells the kernels apart by the variant each
// serves, and a kernel that is no dispatch target runs from its own page.
func (e *Engine) DispatchNote(k *contract.Kernel, provider string) string {
	l, known := e.entries[k.EntryPoint]
	if !known {
		return "Not linked: no implementation in this project serves entry_point " + k.EntryPoint + "."
	}
	cmds := commands(l.Exercised())
	if !k.Registrable {
		return fmt.Sprintf("Describe-only (registrable: false): never dispatched; its Try it runs %s through %s.", strings.Join(cmds, ", "), l.Where)
	}
	// Kernels sharing a key with this one, in document order.
	shared := map[string]bool{}
	for _, b := range e.Reg.Of(k) {
		for _, o := range e.Reg.LookupKey(b.Key) {
			if o.Kernel != k {
				shared[o.Kernel.Name] = true
			}
		}
	}
	var others []string
	for _, b := range e.Reg.Bindings {
		if shared[b.Kernel.Name] {
			others = append(others, b.Kernel.Name)
			delete(shared, b.Kernel.Name)
		}
	}
	if len(l.Serves) > 0 {
		note := fmt.Sprintf("Dispatch target of %s on %s.", strings.Join(commands(l.Serves), ", "), k.Backend)
		if len(others) > 0 {
			note += fmt.Sprintf(" Its registry key is shared with %s (DuplicateKernelRef); the link table tells them apart by the op/variant each serves, so every one stays reachable.", strings.Join(others, ", "))
		}
		return note
	}
	note := fmt.Sprintf("Not a dispatch target: the contract's prose makes it no entry point of its own, so %s picks another kernel", strings.Join(cmds, " / "))
	if len(others) > 0 {
		note += " (" + strings.Join(others, ", ") + ", which shares its registry key — DuplicateKernelRef)"
	}
	return note + "; this kernel runs from its own page (Try it) through " + l.Where + "."
}

func commands(vs []kernels.Variant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = "`" + ops.Command(v) + "`"
	}
	return out
}
