package lab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/shaders/wgsl"
	"github.com/fkc-playground/fkc/tensor"
	"github.com/fkc-playground/fkc/verify"
)

// Kernel is a contract kernel the lab can stand in for: its bindings (one
// per dtype), the variants (op × form) its link runs, and its op family's
// plain kernel.
type Kernel struct {
	ID       string // PROVIDER/NAME
	Ref      registry.KernelRef
	Bindings []*registry.Binding
	Variants []kernels.Variant
	family   *family
	// Match is how results compare with the oracle: the contract's
	// precision (bitwise, or the any-order bound), or the kernel's own
	// contracted order.
	Match verify.Match
}

// Find looks a contract kernel up by PROVIDER/NAME. The engine must know
// its link (a GPU kernel's: engine.AddEntries with kernels/gpu.Links(nil)).
func Find(eng *engine.Engine, id string) (*Kernel, error) {
	ref, ok := eng.FindKernel(id)
	if !ok {
		return nil, eng.NoSuchKernel(id, "fuel-vulkan-kernels/pad_reflect_b4")
	}
	k := &Kernel{ID: id, Ref: ref, Bindings: eng.Reg.Of(ref.Kernel)}
	if !ref.Kernel.Registrable || len(k.Bindings) == 0 {
		return nil, kernels.Usagef("lab: kernel %s is describe-only (registrable: false): it has no bindings to check a kernel against", id)
	}
	vs := eng.Exercised(ref.Kernel.EntryPoint)
	if len(vs) == 0 {
		return nil, kernels.Usagef("lab: kernel %s (entry point %s) is not linked in this build: its variants are unknown", id, ref.Kernel.EntryPoint)
	}
	for _, v := range vs {
		f, ok := familyOf(v.Op)
		if !ok {
			return nil, kernels.Usagef("lab: kernel %s runs %s, which has no plain kernel (the lab's families: %s)", id, v.Op, familyList())
		}
		if k.family != nil && k.family != f {
			return nil, fmt.Errorf("lab: kernel %s runs ops of two families (%s, %s)", id, k.family.file, f.file)
		}
		k.family = f
		k.Variants = append(k.Variants, v)
	}
	if eng.OwnOrder(ref.Kernel.EntryPoint) {
		k.Match = verify.OwnOrder
	}
	return k, nil
}

func familyList() string {
	var names []string
	for _, f := range families {
		names = append(names, strings.Join(f.ops, "/"))
	}
	return strings.Join(names, ", ")
}

// Template is the kernel's plain WGSL: its op family's (shaders/wgsl/lab).
func (k *Kernel) Template() (string, error) { return wgsl.Lab(k.family.file) }

// TemplateName is the plain kernel's file name.
func (k *Kernel) TemplateName() string { return "shaders/wgsl/lab/" + k.family.file }

// DTypes lists the primary operand's dtypes of the kernel's bindings.
func (k *Kernel) DTypes() []tensor.DType {
	var out []tensor.DType
	for _, b := range k.Bindings {
		if !slices.Contains(out, b.InputDTypes[0]) {
			out = append(out, b.InputDTypes[0])
		}
	}
	return out
}

// rankRange is the primary input's declared rank: "N", "A..=B" or "any"
// (0..=MaxRank), capped at the interface's MaxRank.
func (k *Kernel) rankRange() (lo, hi int) {
	in := k.Ref.Kernel.Inputs
	lo, hi = 0, MaxRank
	if len(in) == 0 {
		return lo, hi
	}
	s := strings.TrimSpace(in[0].Rank)
	a, b, isRange := strings.Cut(s, "..=")
	var x, y int
	if _, err := fmt.Sscanf(a, "%d", &x); err != nil {
		return lo, hi
	}
	if !isRange {
		return min(x, MaxRank), min(x, MaxRank)
	}
	if _, err := fmt.Sscanf(b, "%d", &y); err != nil || y < x {
		return lo, hi
	}
	return min(x, MaxRank), min(y, MaxRank)
}
