// Package registry fans the loaded contracts out into dispatchable bindings,
// one per (op_kind, dtypes, backend) key: the table that dispatch, the docs
// and the tests all walk. It knows nothing about implementations (the link
// table lives in ops).
package registry

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/tensor"
)

// Key identifies a registration: the op kind, the operand dtypes (inputs in
// contract order, then outputs) and the contract backend.
type Key struct {
	OpKind  string // "Pad", "SumReduce", …
	DTypes  string // "F32,F32"; "F32,U32,F32,F32" for index_add
	Backend string // "Cpu", "Vulkan"
}

func (k Key) String() string {
	return fmt.Sprintf("(%s, [%s], %s)", k.OpKind, strings.ReplaceAll(k.DTypes, ",", ", "), k.Backend)
}

// Binding is one dtype instance of a registrable kernel section.
type Binding struct {
	Key         Key
	Kernel      *contract.Kernel
	Doc         *contract.Document
	InputDTypes []tensor.DType // per contract input, in order
	OutDType    tensor.DType   // of the first output (from its dtype_rule)
	OutDTypes   []tensor.DType // per contract output, in order
	Backend     string         // the kernel's backend ("Cpu", "Vulkan")
}

// Name is "provider/kernel[F32,U32]" for messages.
func (b *Binding) Name() string {
	ds := make([]string, len(b.InputDTypes))
	for i, d := range b.InputDTypes {
		ds[i] = d.String()
	}
	return fmt.Sprintf("%s/%s[%s]", b.Doc.Provider.Name, b.Kernel.Name, strings.Join(ds, ","))
}

// KernelRef is one kernel section with its document.
type KernelRef struct {
	Doc         *contract.Document
	Kernel      *contract.Kernel
	Registrable bool
}

// Registry is the fanned-out contract table.
type Registry struct {
	// Bindings lists every binding of every registrable kernel, in document
	// and dtype order. Keys may repeat (DuplicateKernelRef): all bindings
	// are kept, and dispatch tells them apart by the CLI op/variant their
	// link serves.
	Bindings []*Binding
	// DescribeOnly lists the `registrable: false` sections: documented,
	// never dispatched.
	DescribeOnly []KernelRef
	// Diags holds the registry's findings: DuplicateKernelRef warnings, and
	// errors for kernels that cannot be fanned out.
	Diags []contract.Diagnostic

	kernels  []KernelRef
	byKey    map[Key][]*Binding
	byKernel map[*contract.Kernel][]*Binding
	byName   map[string][]*Binding // kernel name → bindings, any provider
}

// Build fans every registrable kernel out to one binding per dtype. Inputs
// whose dtype list has more than one entry vary jointly by position (the
// kernel's "T"); single-entry lists (U32 indices, a BOOL mask) stay fixed.
// Two registrable bindings on one key are reported once per key as a
// DuplicateKernelRef warning naming every kernel and its file:line.
func Build(docs []*contract.Document) *Registry {
	r := &Registry{byKey: map[Key][]*Binding{}, byKernel: map[*contract.Kernel][]*Binding{}, byName: map[string][]*Binding{}}
	for _, d := range docs {
		if d == nil {
			continue
		}
		for _, k := range d.Kernels {
			r.kernels = append(r.kernels, KernelRef{d, k, k.Registrable})
			if !k.Registrable {
				r.DescribeOnly = append(r.DescribeOnly, KernelRef{d, k, false})
				continue
			}
			for _, b := range r.fanOut(d, k) {
				r.Bindings = append(r.Bindings, b)
				r.byKey[b.Key] = append(r.byKey[b.Key], b)
				r.byKernel[k] = append(r.byKernel[k], b)
				r.byName[k.Name] = append(r.byName[k.Name], b)
			}
		}
	}
	r.collisions()
	return r
}

// errf reports that kernel k cannot be fanned out, at the line of the
// block's key at path (contract.Kernel.KeyLine).
func (r *Registry) errf(d *contract.Document, k *contract.Kernel, path, format string, args ...any) {
	r.Diags = append(r.Diags, contract.Diagnostic{File: d.File, Line: k.KeyLine(path), Severity: "error",
		Code: "FanOut", Msg: fmt.Sprintf(format, args...), Kernels: []contract.KernelID{d.KernelID(k)}})
}

func (r *Registry) fanOut(d *contract.Document, k *contract.Kernel) []*Binding {
	if len(k.Inputs) == 0 {
		r.errf(d, k, "accept.inputs", "kernel %s has no inputs; it cannot be registered", k.Name)
		return nil
	}
	n := 1
	var varying string
	for i, in := range k.Inputs {
		at := fmt.Sprintf("accept.inputs.%d.dtypes", i)
		switch m := len(in.DTypes); {
		case m == 0:
			r.errf(d, k, at, "kernel %s: input %s has no valid dtypes; it cannot be registered", k.Name, in.Name)
			return nil
		case m > 1 && n == 1:
			n, varying = m, in.Name
		case m > 1 && m != n:
			r.errf(d, k, at, "kernel %s: inputs %s and %s list %d and %d dtypes; dtypes vary jointly by position, so the lists must have the same length",
				k.Name, varying, in.Name, n, m)
			return nil
		}
	}
	var out []*Binding
	for i := 0; i < n; i++ {
		b := &Binding{Kernel: k, Doc: d, Backend: k.Backend}
		for _, in := range k.Inputs {
			dt := in.DTypes[0]
			if len(in.DTypes) > 1 {
				dt = in.DTypes[i]
			}
			b.InputDTypes = append(b.InputDTypes, dt)
		}
		names := make([]string, 0, len(b.InputDTypes)+len(k.Outputs))
		for _, dt := range b.InputDTypes {
			names = append(names, dt.String())
		}
		for j, o := range k.Outputs {
			dt, err := o.DTypeRule.DType(k.Inputs, b.InputDTypes)
			if err != nil {
				r.errf(d, k, fmt.Sprintf("return.outputs.%d.dtype_rule", j), "kernel %s: output %s: %v", k.Name, o.Name, err)
				return nil
			}
			b.OutDTypes = append(b.OutDTypes, dt)
			names = append(names, dt.String())
		}
		if len(b.OutDTypes) > 0 {
			b.OutDType = b.OutDTypes[0]
		}
		b.Key = Key{OpKind: k.OpKind, DTypes: strings.Join(names, ","), Backend: k.Backend}
		out = append(out, b)
	}
	return out
}

func (r *Registry) collisions() {
	keys := make([]Key, 0)
	for k, bs := range r.byKey {
		if len(bs) > 1 {
			keys = append(keys, k)
		}
	}
	// report in binding order, so output is stable
	first := map[Key]int{}
	for i, b := range r.Bindings {
		if _, ok := first[b.Key]; !ok {
			first[b.Key] = i
		}
	}
	sort.Slice(keys, func(i, j int) bool { return first[keys[i]] < first[keys[j]] })
	for _, key := range keys {
		bs := r.byKey[key]
		var who []string
		var ids []contract.KernelID
		for _, b := range bs {
			who = append(who, fmt.Sprintf("%s (%s:%d)", b.Kernel.Name, b.Doc.File, b.Kernel.Line))
			if id := b.Doc.KernelID(b.Kernel); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		second := bs[1]
		r.Diags = append(r.Diags, contract.Diagnostic{
			File: second.Doc.File, Line: second.Kernel.Line, Severity: "error", Code: "DuplicateKernelRef",
			Msg: fmt.Sprintf("%d registrable kernels bind %s: %s; all are kept and dispatch tells them apart by the op/variant each link serves",
				len(bs), key, strings.Join(who, ", ")),
			Kernels: ids,
		})
	}
}

// Collisions lists the keys bound by more than one registrable kernel, with
// their bindings, in first-binding order.
func (r *Registry) Collisions() [][]*Binding {
	var out [][]*Binding
	seen := map[Key]bool{}
	for _, b := range r.Bindings {
		if bs := r.byKey[b.Key]; len(bs) > 1 && !seen[b.Key] {
			seen[b.Key] = true
			out = append(out, bs)
		}
	}
	return out
}

// Lookup lists the bindings of an op kind on a backend (case-insensitive
// backend), in registry order.
func (r *Registry) Lookup(opKind, backend string) []*Binding {
	var out []*Binding
	for _, b := range r.Bindings {
		if b.Key.OpKind == opKind && strings.EqualFold(b.Backend, backend) {
			out = append(out, b)
		}
	}
	return out
}

// LookupKey lists the bindings registered on exactly key.
func (r *Registry) LookupKey(key Key) []*Binding { return r.byKey[key] }

// Of lists the bindings of one kernel section, in dtype order: a
// document may hold several sections of one name (each its own bindings),
// so this, not ByKernel, is how a listing walks its sections.
func (r *Registry) Of(k *contract.Kernel) []*Binding { return slices.Clip(r.byKernel[k]) }

// ByKernel lists the bindings of every registrable section named kernel
// ("" provider matches any provider), in registry order. Names need not be
// unique: to list one section's bindings, use Of.
func (r *Registry) ByKernel(provider, kernel string) []*Binding {
	if provider == "" {
		return slices.Clip(r.byName[kernel])
	}
	var out []*Binding
	for _, b := range r.byName[kernel] {
		if b.Doc.Provider.Name == provider {
			out = append(out, b)
		}
	}
	return out
}

// Kernels lists every kernel section of every document, registrable or
// describe-only, in document order.
func (r *Registry) Kernels() []KernelRef { return r.kernels }
