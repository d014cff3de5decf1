package ops

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// Engine dispatches calls to contract bindings. It is not safe for
// concurrent use while links are being added.
type Engine struct {
	Reg *registry.Registry
	// Clocks, when a GPU is attached, time its last kernel call.
	Clocks  DeviceClocks
	links   map[string]Link // runnable implementations, by entry_point
	entries map[string]Link // every known link (runnable or not): status and docs
}

// DeviceClocks are a GPU device's clocks of its last kernel call; either may
// be nil.
type DeviceClocks struct {
	// EndToEnd: submit to results mapped on the host (queued uploads,
	// staging copies and the map included).
	EndToEnd func() time.Duration
	// Kernel: GPU timestamps around the compute passes alone; 0 when the
	// adapter has no timestamp queries.
	Kernel func() time.Duration
}

// Result is one served call.
type Result struct {
	Out      *tensor.Tensor
	Call     *Call
	Binding  *registry.Binding
	Kernel   string // contract kernel name, e.g. "pad_reflect_b4"
	Provider string // e.g. "fuel-vulkan-kernels"
	Backend  string // contract backend, e.g. "Vulkan"
}

// ServedBy is the stderr line of `fkc run` (SPEC §5).
func (r *Result) ServedBy() string {
	return fmt.Sprintf("kernel %s (%s, %s)", r.Kernel, r.Provider, r.Backend)
}

// NewEngine builds an engine over a registry with the CPU links installed.
func NewEngine(reg *registry.Registry) *Engine {
	e := &Engine{Reg: reg, links: map[string]Link{}, entries: map[string]Link{}}
	e.AddLinks(CPULinks())
	return e
}

// NewDefault loads the embedded contracts (the four seeds plus this
// project's own) and installs the CPU links.
func NewDefault() (*Engine, error) {
	docs, diags := contracts.LoadAll()
	for _, d := range diags {
		if d.Severity == "error" {
			return nil, fmt.Errorf("embedded contracts: %s", d)
		}
	}
	return NewEngine(registry.Build(docs)), nil
}

// AddLinks installs implementations (CPU links, or a GPU device's links).
func (e *Engine) AddLinks(links []Link) {
	for _, l := range links {
		e.links[l.EntryPoint] = l
		e.entries[l.EntryPoint] = l
	}
}

// AddEntries records links for link status and docs only, without making
// them runnable: a build's GPU entry points before (or without) a device,
// e.g. kernels/gpu.Links(nil). Their Impl is never called.
func (e *Engine) AddEntries(links []Link) {
	for _, l := range links {
		e.entries[l.EntryPoint] = l
	}
}

// Exercised says which op/variants run an entry point's binding ("pad/reflect",
// "sum/all", "argmax", …), whether or not its implementation is attached.
func (e *Engine) Exercised(entryPoint string) []string {
	return e.entries[entryPoint].Exercised()
}

// DispatchOps is the op/variants for which dispatch picks this entry point
// (Link.Ops; empty for kernels run only from their own page).
func (e *Engine) DispatchOps(entryPoint string) []string {
	return e.entries[entryPoint].Ops
}

// Runnable reports whether an entry point's implementation is attached now
// (GPU links only once a device is open).
func (e *Engine) Runnable(entryPoint string) bool {
	_, ok := e.links[entryPoint]
	return ok
}

// AddGPU installs a GPU device's links (kernels/gpu.Links(dev)).
func (e *Engine) AddGPU(links []Link) { e.AddLinks(links) }

// LinkFor says which implementation serves an entry_point.
func (e *Engine) LinkFor(entryPoint string) (where string, ok bool) {
	l, ok := e.entries[entryPoint]
	if !ok {
		return "not linked", false
	}
	return l.Where, true
}

// ContractBackend maps a user-facing backend name to the contracts' backend:
// the GPU kernels are WGSL, run by wgpu on Vulkan natively and by the
// browser's WebGPU in the playground.
func ContractBackend(backend string) (string, error) {
	switch strings.ToLower(backend) {
	case "", "cpu":
		return "Cpu", nil
	case "vulkan", "webgpu", "gpu":
		return "Vulkan", nil
	}
	return "", usagef("unknown backend %q (want cpu, vulkan or webgpu)", backend)
}

// Run parses flags, checks the inputs against the op's spec and dispatches.
func (e *Engine) Run(backend, op string, flags []string, inputs map[string]*tensor.Tensor) (*Result, error) {
	c, err := ParseFlags(op, flags)
	if err != nil {
		return nil, err
	}
	spec, _ := SpecFor(op)
	for _, name := range spec.Inputs {
		if inputs[name] == nil {
			return nil, usagef("%s needs input %s (-i %s=FILE.npy); its inputs: %s", op, name, name, strings.Join(spec.Inputs, ", "))
		}
	}
	for name := range inputs {
		if !contains(spec.Inputs, name) {
			return nil, usagef("%s has no input %q; its inputs: %s", op, name, strings.Join(spec.Inputs, ", "))
		}
	}
	c.Inputs = inputs
	return e.Dispatch(backend, c)
}

// Dispatch picks the binding for (op/variant, backend, dtypes) and runs it.
func (e *Engine) Dispatch(backend string, c *Call) (*Result, error) {
	cb, err := ContractBackend(backend)
	if err != nil {
		return nil, err
	}
	b, err := e.Select(cb, c)
	if err != nil {
		return nil, err
	}
	return e.RunBinding(b, c)
}

// serves reports whether binding b is linked to an implementation that
// serves the call's op/variant.
func (e *Engine) serves(b *registry.Binding, variant string) bool {
	l, ok := e.links[b.Kernel.EntryPoint]
	return ok && contains(l.Ops, variant)
}

// Select finds the binding on contract backend cb for the call. Bindings
// that share a registry key (DuplicateKernelRef: sum_all and sum_dim, the
// per-mode Vulkan pads, …) are told apart by the op/variant their link
// serves; dtypes are matched positionally against the contract's inputs.
func (e *Engine) Select(cb string, c *Call) (*registry.Binding, error) {
	spec, _ := SpecFor(c.Op)
	variant := c.Variant()
	primary := c.Inputs[spec.Inputs[0]]
	if err := spec.checkDType(primary); err != nil {
		return nil, err
	}
	var sameOp, dtypeOK []*registry.Binding
	for _, b := range e.Reg.Bindings {
		if !e.serves(b, variant) {
			continue
		}
		if b.Backend == cb {
			sameOp = append(sameOp, b)
		}
		if b.Backend == cb && len(b.InputDTypes) > 0 && b.InputDTypes[0] == primary.DType {
			dtypeOK = append(dtypeOK, b)
		}
	}
	if len(dtypeOK) == 0 {
		return nil, e.noBinding(cb, c, variant, primary.DType, sameOp)
	}
	// The link table makes the choice unique (TestDispatchIsUnambiguous);
	// secondary operands (indices, mask, src, upstream) must then have the
	// contract's dtypes too.
	b := dtypeOK[0]
	if err := checkOperandDTypes(b, spec, c); err != nil {
		return nil, err
	}
	return b, nil
}

func checkOperandDTypes(b *registry.Binding, spec Spec, c *Call) error {
	for i, in := range b.Kernel.Inputs {
		if i >= len(spec.Inputs) || i >= len(b.InputDTypes) {
			break
		}
		t := c.Inputs[spec.Inputs[i]]
		if t.DType != b.InputDTypes[i] {
			return kernels.Violatef(c.Op, "%s has dtype %s but %s %s takes %s (contract: %s.dtypes %v)",
				spec.Inputs[i], t.DType, b.Kernel.Name, in.Name, b.InputDTypes[i], in.Name, in.DTypeNames)
		}
	}
	return nil
}

// noBinding explains that no binding serves the call, and where the op is
// available instead.
func (e *Engine) noBinding(cb string, c *Call, variant string, dt tensor.DType, sameOp []*registry.Binding) error {
	var have []string
	for _, b := range sameOp {
		have = append(have, b.InputDTypes[0].String())
	}
	have = uniq(have)
	var msg strings.Builder
	fmt.Fprintf(&msg, "no %s binding for %s with dtype %s", cb, variant, dt)
	if len(have) > 0 {
		fmt.Fprintf(&msg, " (%s %s is registered for %s only)", cb, variant, strings.Join(have, ", "))
	} else {
		fmt.Fprintf(&msg, " (%s has no linked %s kernel)", cb, variant)
	}
	var elsewhere []string
	for _, b := range e.Reg.Bindings {
		if b.Backend != cb && len(b.InputDTypes) > 0 && b.InputDTypes[0] == dt && e.serves(b, variant) {
			elsewhere = append(elsewhere, fmt.Sprintf("%s via %s", b.Backend, b.Kernel.Name))
		}
	}
	if len(elsewhere) > 0 {
		fmt.Fprintf(&msg, "; %s with %s runs on %s", variant, dt, strings.Join(elsewhere, ", "))
	} else {
		// Not linked on any loaded backend (e.g. no GPU device attached):
		// say which contracts declare it anyway.
		var declared []string
		for _, b := range e.Reg.Bindings {
			if b.Backend != cb && len(b.InputDTypes) > 0 && b.InputDTypes[0] == dt && declares(b, variant) {
				declared = append(declared, fmt.Sprintf("%s via %s", b.Backend, b.Kernel.Name))
			}
		}
		if len(declared) > 0 {
			fmt.Fprintf(&msg, "; contracts declare it on %s", strings.Join(uniq(declared), ", "))
		}
	}
	return &kernels.Violation{Op: c.Op, Msg: msg.String()}
}

// declares guesses from the kernel's name whether it is for op/variant,
// without needing a link (used for hints only, when the backend that would
// serve the call is not attached).
func declares(b *registry.Binding, variant string) bool {
	k := b.Kernel.Name
	op, sub, _ := cutSlash(variant)
	mode := map[string]string{"constant": "const", "reflect": "reflect", "replicate": "replicate"}[sub]
	switch op {
	case "pad":
		return k == "pad" || strings.HasPrefix(k, "pad_") && !strings.HasPrefix(k, "pad_backward") && strings.Contains(k, mode)
	case "pad_backward":
		return strings.HasPrefix(k, "pad_backward") && strings.Contains(k, mode)
	}
	return strings.HasPrefix(k, op) && (sub == "" || strings.HasSuffix(k, "_"+sub))
}

// RunBinding runs a specific binding (the playground's "Try it" on a
// kernel page does this too, so kernels that are not the default target
// of an op — e.g. argindex_dim — stay reachable).
func (e *Engine) RunBinding(b *registry.Binding, c *Call) (res *Result, err error) {
	l, ok := e.links[b.Kernel.EntryPoint]
	if !ok {
		if _, known := e.entries[b.Kernel.EntryPoint]; known {
			return nil, fmt.Errorf("%s: its %s implementation is not attached (no GPU device is open)", b.Kernel.Name, b.Backend)
		}
		return nil, fmt.Errorf("%s: entry_point %s is not linked to an implementation in this build", b.Kernel.Name, b.Kernel.EntryPoint)
	}
	spec, _ := SpecFor(c.Op)
	if err := spec.checkDType(c.Inputs[spec.Inputs[0]]); err != nil {
		return nil, err
	}
	if err := checkOperandDTypes(b, spec, c); err != nil {
		return nil, err
	}
	defer func() {
		// A panic in a kernel is a bug, but the user gets an error, not a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: internal error: %v", b.Kernel.Name, r)
		}
	}()
	out, err := l.Impl(c)
	if err != nil {
		return nil, err
	}
	return &Result{Out: out, Call: c, Binding: b, Kernel: b.Kernel.Name, Provider: b.Doc.Provider.Name, Backend: b.Backend}, nil
}

// CostSymbols are the values of the contracts' cost-formula symbols for a
// served call: n, n_in, n_out, in_elem(s), out_elem(s), dtype_bytes, and for
// the index family base_n, src_n, data_n, m (indices length), ids_len, v, d.
func CostSymbols(r *Result) map[string]float64 {
	c := r.Call
	spec, _ := SpecFor(c.Op)
	x := c.Inputs[spec.Inputs[0]]
	nx, no := float64(x.NumElems()), float64(r.Out.NumElems())
	s := map[string]float64{"dtype_bytes": float64(x.DType.Size())}
	in, out := nx, no
	if c.Op == "pad_backward" { // the forward's input is grad_in, its output grad_out
		in, out = no, nx
	}
	for _, k := range []string{"n_in", "in_elem", "in_elems"} {
		s[k] = in
	}
	for _, k := range []string{"n_out", "out_elem", "out_elems"} {
		s[k] = out
	}
	s["n"] = nx
	switch c.Op {
	case "index_select", "gather", "embedding":
		s["n"] = no
	case "index_add", "scatter_add":
		s["base_n"] = nx
		s["src_n"] = float64(c.Inputs["src"].NumElems())
	}
	if idx := c.Inputs["indices"]; idx != nil {
		s["m"] = float64(idx.NumElems())
	}
	if d := c.Inputs["data"]; d != nil {
		s["data_n"] = float64(d.NumElems())
	}
	if c.Op == "embedding" {
		s["ids_len"] = float64(c.Inputs["ids"].NumElems())
		s["m"] = s["ids_len"]
		if len(x.Shape) == 2 {
			s["v"], s["d"] = float64(x.Shape[0]), float64(x.Shape[1])
		}
	}
	return s
}

// BytesMoved evaluates the served kernel's bytes_moved formula.
func BytesMoved(r *Result) (float64, error) {
	f := r.Binding.Kernel.Cost.BytesMoved
	if f == "" {
		return 0, errors.New("no bytes_moved formula")
	}
	ex, err := contract.ParseExpr(f)
	if err != nil {
		return 0, err
	}
	return ex.Eval(CostSymbols(r))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// VariantCommand renders an op/variant as the command that reaches it:
// "pad/reflect" → "fkc run pad --mode reflect", "sum/all" → "fkc run sum"
// (no --dim), "sum/dim" → "fkc run sum --dim D".
func VariantCommand(variant string) string {
	op, sub, _ := cutSlash(variant)
	switch sub {
	case "":
		return "fkc run " + op
	case "all":
		return "fkc run " + op + " (no --dim)"
	case "dim":
		return "fkc run " + op + " --dim D"
	}
	return "fkc run " + op + " --mode " + sub
}

// DispatchNote says, for a kernel's doc, how dispatch reaches it — and, where
// its registry key is shared (DuplicateKernelRef), how the collision is
// resolved: the link table tells the kernels apart by the op/variant each
// serves, and a kernel that is no dispatch target runs from its own page.
func (e *Engine) DispatchNote(k *contract.Kernel, provider string) string {
	l, known := e.entries[k.EntryPoint]
	if !known {
		return "Not linked: no implementation in this project serves entry_point " + k.EntryPoint + "."
	}
	var cmds []string
	for _, v := range l.Exercised() {
		cmds = append(cmds, "`"+VariantCommand(v)+"`")
	}
	if !k.Registrable {
		return fmt.Sprintf("Describe-only (registrable: false): never dispatched; its Try it runs %s through %s.", strings.Join(cmds, ", "), l.Where)
	}
	// Kernels sharing a key with this one.
	shared := map[string]bool{}
	for _, b := range e.Reg.ByKernel(provider, k.Name) {
		for _, o := range e.Reg.LookupKey(b.Key) {
			if o.Kernel != k {
				shared[o.Kernel.Name] = true
			}
		}
	}
	var others []string
	for _, b := range e.Reg.Bindings { // document order
		if shared[b.Kernel.Name] {
			others = append(others, b.Kernel.Name)
			delete(shared, b.Kernel.Name)
		}
	}
	var note string
	if len(l.Ops) > 0 {
		var ops []string
		for _, v := range l.Ops {
			ops = append(ops, "`"+VariantCommand(v)+"`")
		}
		note = fmt.Sprintf("Dispatch target of %s on %s.", strings.Join(ops, ", "), k.Backend)
		if len(others) > 0 {
			note += fmt.Sprintf(" Its registry key is shared with %s (DuplicateKernelRef); the link table tells them apart by the op/variant each serves, so every one stays reachable.", strings.Join(others, ", "))
		}
		return note
	}
	note = fmt.Sprintf("Not a dispatch target: the contract's prose makes it no entry point of its own, so %s picks another kernel", strings.Join(cmds, " / "))
	if len(others) > 0 {
		note += " (" + strings.Join(others, ", ") + ", which shares its registry key — DuplicateKernelRef)"
	}
	return note + "; this kernel runs from its own page (Try it) through " + l.Where + "."
}
