// Package engine runs kernels: it takes a typed call (built with package
// ops, or parsed from `fkc run` flags), checks it against the op's rules and
// the contract, picks the registered contract binding for (op, backend,
// dtypes) and runs the implementation that binding's entry_point links to —
// a Go kernel on the CPU, or a WGSL kernel on a GPU device (Vulkan natively,
// WebGPU in the browser).
//
// It is where a Go program starts:
//
//	eng, _ := engine.New()
//	res, err := eng.Run(engine.CPU, ops.Pad(x, kernels.Reflect, kernels.Pad{Before: 2, After: 2}))
//
// and, with a GPU (kernels/gpu.OpenNative), eng.Attach(dev) then
// eng.Run(engine.Vulkan, …). The CLI, the browser app and the tests all go
// through it.
package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// Backend is where a call runs.
type Backend string

const (
	CPU    Backend = "cpu"
	Vulkan Backend = "vulkan" // the WGSL kernels through wgpu-native (native builds)
	WebGPU Backend = "webgpu" // the same WGSL kernels through the browser's WebGPU
)

// ParseBackend reads a backend name (a usage error names the choices).
func ParseBackend(s string) (Backend, error) {
	switch b := Backend(strings.ToLower(s)); b {
	case "", CPU:
		return CPU, nil
	case Vulkan, WebGPU:
		return b, nil
	case "gpu":
		return Vulkan, nil
	}
	return "", kernels.Usagef("unknown backend %q (want cpu, vulkan or webgpu)", s)
}

// valid refuses a Backend that is none of the constants (a Go caller's
// Backend("metal") was run as Vulkan and named it in its error); "" is
// the CPU, as ParseBackend reads it.
func (b Backend) valid() error {
	switch b {
	case "", CPU, Vulkan, WebGPU:
		return nil
	}
	return kernels.Usagef("unknown backend %q (want engine.CPU, engine.Vulkan or engine.WebGPU)", string(b))
}

// Contract is the contracts' name for the backend: the GPU kernels are
// WGSL whose contracts say Vulkan, run by wgpu natively and by the
// browser's WebGPU in the playground.
func (b Backend) Contract() string {
	if b == CPU || b == "" {
		return "Cpu"
	}
	return "Vulkan"
}

// Device is a GPU device whose kernels the engine can run: a
// kernels/gpu.Device, natively or in the browser.
type Device interface {
	Links() []kernels.Link
	// LastGPUTime: submit to results mapped, for the last call (uploads,
	// kernels and readback). LastKernelTime: GPU timestamps around the
	// compute passes alone, 0 without timestamp queries.
	LastGPUTime() time.Duration
	LastKernelTime() time.Duration
}

// Limits bound what a call may produce, checked from the shape rules before
// anything is allocated.
type Limits struct {
	// MaxElems caps every output's element count (0: tensor.MaxElems). A
	// browser tab sets it lower than a native process.
	MaxElems int
	// MaxOutputBytes caps one output's bytes (0: no cap beyond MaxElems).
	MaxOutputBytes int64
}

// Engine dispatches calls to contract bindings. It is safe for concurrent
// Run calls once set up (Attach and AddEntries are not concurrent-safe).
type Engine struct {
	Reg     *registry.Registry
	limits  Limits
	dev     Device
	links   map[string]kernels.Link // runnable implementations, by entry_point
	entries map[string]kernels.Link // every known link (runnable or not): status and docs
}

// New loads the embedded contracts (the four seeds plus this project's
// own) and installs the CPU links; limits, if given, bound its outputs.
func New(limits ...Limits) (*Engine, error) {
	docs, diags := contracts.LoadAll()
	for _, d := range diags {
		if d.Severity == "error" {
			return nil, fmt.Errorf("embedded contracts: %s", d)
		}
	}
	var l Limits
	if len(limits) > 0 {
		l = limits[0]
	}
	return NewWith(registry.Build(docs), l), nil
}

// NewWith builds an engine over a registry with the CPU links installed.
func NewWith(reg *registry.Registry, limits Limits) *Engine {
	e := &Engine{Reg: reg, limits: limits, links: map[string]kernels.Link{}, entries: map[string]kernels.Link{}}
	e.addLinks(cpu.Links(), true)
	return e
}

func (e *Engine) addLinks(links []kernels.Link, runnable bool) {
	for _, l := range links {
		if runnable {
			e.links[l.EntryPoint] = l
		}
		e.entries[l.EntryPoint] = l
	}
}

// Attach makes a GPU device's kernels runnable (the Vulkan and WebGPU
// backends).
func (e *Engine) Attach(d Device) {
	e.dev = d
	e.addLinks(d.Links(), true)
}

// AddEntries records links for link status and docs only, without making
// them runnable: a build's GPU entry points before (or without) a device,
// e.g. kernels/gpu.Links(nil). Their Impl is never called.
func (e *Engine) AddEntries(links []kernels.Link) { e.addLinks(links, false) }

// LastDeviceTimes are the attached device's clocks of its last call
// (zero without a device).
func (e *Engine) LastDeviceTimes() (endToEnd, kernel time.Duration) {
	if e.dev == nil {
		return 0, 0
	}
	return e.dev.LastGPUTime(), e.dev.LastKernelTime()
}

// SteadyClocks asks the attached device, where it can, to keep its clocks
// at a busy GPU's before each call that follows a second of idling
// (gpu.Device.SetSteadyClocks): a timing mode for benchmarks. It reports
// whether the device took it.
func (e *Engine) SteadyClocks(d time.Duration) bool {
	s, ok := e.dev.(interface{ SetSteadyClocks(time.Duration) })
	if ok {
		s.SetSteadyClocks(d)
	}
	return ok
}

// Exercised says which variants run an entry point's binding, whether or
// not its implementation is attached.
func (e *Engine) Exercised(entryPoint string) []kernels.Variant {
	return e.entries[entryPoint].Exercised()
}

// OwnOrder says whether an entry point adds in an order of its own
// contract rather than the oracle's (kernels.Link.OwnOrder).
func (e *Engine) OwnOrder(entryPoint string) bool {
	return e.entries[entryPoint].OwnOrder
}

// DispatchVariants is the variants for which dispatch picks this entry
// point (empty for kernels run only from their own page).
func (e *Engine) DispatchVariants(entryPoint string) []kernels.Variant {
	return e.entries[entryPoint].Serves
}

// Runnable reports whether an entry point's implementation is attached now
// (GPU links only once a device is open).
func (e *Engine) Runnable(entryPoint string) bool {
	_, ok := e.links[entryPoint]
	return ok
}

// UnavailableHere says why the attached device cannot run an entry point
// ("" when it can, or when no device is attached).
func (e *Engine) UnavailableHere(entryPoint string) string {
	if l, ok := e.links[entryPoint]; ok {
		return l.Unavailable
	}
	return ""
}

// LinkFor says which implementation serves an entry_point.
func (e *Engine) LinkFor(entryPoint string) (where string, ok bool) {
	l, ok := e.entries[entryPoint]
	if !ok {
		return "not linked", false
	}
	return l.Where, true
}

// Result is one served call.
type Result struct {
	Out      *tensor.Tensor
	Call     *kernels.Call // the call as it ran: resolved (ops.Op.Resolve)
	Binding  *registry.Binding
	Kernel   string // contract kernel name, e.g. "pad_reflect_b4"
	Provider string // e.g. "fuel-vulkan-kernels"
	Backend  string // contract backend, e.g. "Vulkan"
	// Resolved says what resolving the call changed, e.g. "dim -1 → 1",
	// "indices I64 → U32"; empty when it ran as given.
	Resolved []string
}

// ServedBy is the stderr line of `fkc run` (SPEC §5), followed by what
// resolving the call changed: "kernel gather (fuel-reference-indexing,
// Cpu); indices I64 → U32".
func (r *Result) ServedBy() string {
	s := fmt.Sprintf("kernel %s (%s, %s)", r.Kernel, r.Provider, r.Backend)
	for _, n := range r.Resolved {
		s += "; " + n
	}
	return s
}

// checked is a call that passed Check: its op, the call resolved (a
// negative dim counted from the end, I32/I64 indices converted to U32),
// what resolving changed, and the output's shape and dtype.
type checked struct {
	op    *ops.Op
	call  *kernels.Call
	notes []string
	shape []int
	dt    tensor.DType
}

// Check validates a call before anything runs: its operands are the op's,
// its params satisfy the op's shape rules (on the call resolved, as it
// runs: ops.Op.Resolve), and its output fits the limits. It returns the
// output's shape and dtype.
func (e *Engine) Check(c *kernels.Call) (*ops.Op, []int, tensor.DType, error) {
	ck, err := e.check(c)
	if err != nil {
		return nil, nil, 0, err
	}
	return ck.op, ck.shape, ck.dt, nil
}

func (e *Engine) check(c *kernels.Call) (*checked, error) {
	if c == nil {
		return nil, kernels.Usagef("no call (a nil *kernels.Call)")
	}
	o, err := ops.Of(c)
	if err != nil {
		return nil, err
	}
	rc, notes, err := o.Resolve(c)
	if err != nil {
		return nil, err
	}
	shape, dt, err := o.Out(rc)
	if err != nil {
		return nil, err
	}
	if err := e.checkSize(o.Name, shape, dt); err != nil {
		return nil, err
	}
	if rc.Out != nil {
		if err := checkOwned(o, rc, shape, dt); err != nil {
			return nil, err
		}
	}
	return &checked{op: o, call: rc, notes: notes, shape: shape, dt: dt}, nil
}

// RunInto is Run with the result written into out, a tensor the caller
// owns (NumPy's and PyTorch's out=): out must have the call's output shape
// and dtype and share no bytes with an input. The CPU kernels write there
// directly; any other implementation's result is copied in. On an error
// out's contents are unspecified (an index kernel may have begun).
func (e *Engine) RunInto(b Backend, c *kernels.Call, out *tensor.Tensor) (*Result, error) {
	if c == nil {
		return nil, kernels.Usagef("no call (a nil *kernels.Call)")
	}
	if out == nil {
		return nil, kernels.Usagef("%s: RunInto needs an output tensor (nil given; Run allocates one)", c.Op)
	}
	w := *c
	w.Out = out
	return e.Run(b, &w)
}

// checkOwned checks a caller's output tensor against the call's output.
func checkOwned(o *ops.Op, c *kernels.Call, shape []int, dt tensor.DType) error {
	out := c.Out
	if err := out.Check(); err != nil {
		return kernels.Usagef("%s: the output tensor: %v", o.Name, err)
	}
	if out.DType != dt || !slices.Equal(out.Shape, shape) {
		return kernels.Usagef("%s: the output tensor is %s%v; this call's output is %s%v", o.Name, out.DType, out.Shape, dt, shape)
	}
	for _, in := range o.Inputs {
		if t := c.Inputs[in.Name]; t != nil && overlaps(t.Data, out.Data) {
			return kernels.Usagef("%s: the output tensor shares bytes with input %s (a kernel reads an input while it writes the output; pass a separate tensor)", o.Name, in.Name)
		}
	}
	return nil
}

// overlaps reports whether two byte slices share memory.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

func (e *Engine) checkSize(op string, shape []int, dt tensor.DType) error {
	if err := tensor.CheckShape(shape); err != nil {
		return kernels.Violatef(op, "output: %v", err)
	}
	n := tensor.NumElems(shape)
	if e.limits.MaxElems > 0 && n > e.limits.MaxElems {
		return kernels.Violatef(op, "output %s%v has %d elements; this engine holds at most %d per tensor", dt, shape, n, e.limits.MaxElems)
	}
	b := int64(n) * int64(dt.Size())
	if e.limits.MaxOutputBytes > 0 && b > e.limits.MaxOutputBytes {
		return kernels.Violatef(op, "output %s%v needs %d bytes; this engine returns at most %d bytes per output", dt, shape, b, e.limits.MaxOutputBytes)
	}
	// Before any kernel allocates: an output bigger than this process may
	// use is an error that says so, not an out-of-memory abort.
	if err := tensor.CheckAlloc(fmt.Sprintf("%s: output %s%v", op, dt, shape), int(b)); err != nil {
		return err
	}
	return nil
}

// Run checks a call and dispatches it to the binding that serves it on
// backend b.
func (e *Engine) Run(b Backend, c *kernels.Call) (*Result, error) {
	if err := e.ready(b); err != nil {
		return nil, err
	}
	ck, err := e.check(c)
	if err != nil {
		return nil, err
	}
	bd, err := e.selectChecked(b, ck)
	if err != nil {
		return nil, err
	}
	return e.runChecked(bd, ck)
}

// RunKernel runs the call on one contract kernel, "PROVIDER/NAME" (`fkc run
// OP --kernel …`), instead of the one dispatch would choose: its binding for
// the call's dtypes, or an error saying why it cannot serve the call.
func (e *Engine) RunKernel(b Backend, id string, c *kernels.Call) (*Result, error) {
	if err := e.ready(b); err != nil {
		return nil, err
	}
	ck, err := e.check(c)
	if err != nil {
		return nil, err
	}
	ref, ok := e.FindKernel(id)
	if !ok {
		return nil, e.NoSuchKernel(id, "fuel-vulkan-kernels/pad_reflect_b4")
	}
	if kb := ref.Kernel.Backend; kb != b.Contract() {
		return nil, kernels.Usagef("--kernel %s is a %s kernel, and this run's backend is %s: add --backend %s", id, kb, b, map[string]Backend{"Cpu": CPU, "Vulkan": Vulkan}[kb])
	}
	o := ck.op
	primary := o.Primary(ck.call)
	var dts []string
	for _, bd := range e.Reg.Of(ref.Kernel) {
		if bd.InputDTypes[0] == primary.DType {
			return e.runChecked(bd, ck)
		}
		dts = append(dts, bd.InputDTypes[0].String())
	}
	if !ref.Kernel.Registrable {
		return nil, kernels.Violatef(c.Op, "kernel %s is describe-only (registrable: false): it has no binding to run", id)
	}
	return nil, kernels.Violatef(c.Op, "kernel %s cannot serve this call: %s has dtype %s, and it is registered for %s only",
		id, o.Inputs[0].Name, primary.DType, strings.Join(dts, ", "))
}

// ready refuses a backend that is none of the constants, and a GPU backend
// with no device attached (a Go caller's engine.New without Attach): the
// call would otherwise be refused as if no kernel served it.
func (e *Engine) ready(b Backend) error {
	if err := b.valid(); err != nil {
		return err
	}
	if b != CPU && b != "" && e.dev == nil { // "" is the CPU (valid, Contract)
		return &kernels.Unavailable{Kernel: "backend " + string(b), Msg: "no GPU device is attached to this engine (open one, e.g. gpu.OpenNative, and call Attach)"}
	}
	return nil
}

// NoSuchKernel is the error for a kernel id that FindKernel does not find:
// it wants PROVIDER/NAME, and names the kernels the id may have meant — a
// bare NAME's providers, or NAME under other providers. example is a
// PROVIDER/NAME for the message when there is nothing to suggest.
func (e *Engine) NoSuchKernel(id, example string) error {
	name := id
	if _, n, ok := strings.Cut(id, "/"); ok {
		name = n
	}
	var near []string
	for _, r := range e.Reg.Kernels() {
		if r.Kernel.Name == name {
			near = append(near, KernelID(r.Doc, r.Kernel))
		}
	}
	form := "PROVIDER/NAME"
	if !strings.Contains(id, "/") {
		form = "it wants PROVIDER/NAME"
	}
	if len(near) > 0 {
		return kernels.Usagef("--kernel %q: no such kernel (%s); did you mean %s?", id, form, strings.Join(near, " or "))
	}
	return kernels.Usagef("--kernel %q: no such kernel in the loaded contracts (%s, e.g. %s; `fkc contracts` lists them)", id, form, example)
}

// FindKernel finds a kernel section by "PROVIDER/NAME".
func (e *Engine) FindKernel(id string) (registry.KernelRef, bool) {
	for _, r := range e.Reg.Kernels() {
		if KernelID(r.Doc, r.Kernel) == id {
			return r, true
		}
	}
	return registry.KernelRef{}, false
}

// KernelID is a kernel's "PROVIDER/NAME" (names repeat across providers).
func KernelID(d *contract.Document, k *contract.Kernel) string { return d.KernelID(k).String() }

// RunBinding runs a specific binding (the playground's Try it on a kernel
// page does this too, so kernels that are not the default target of an op
// — e.g. argindex_dim — stay reachable).
func (e *Engine) RunBinding(b *registry.Binding, c *kernels.Call) (*Result, error) {
	if err := e.linked(b); err != nil {
		return nil, err
	}
	ck, err := e.check(c)
	if err != nil {
		return nil, err
	}
	return e.runChecked(b, ck)
}

// linked refuses a binding whose implementation is not attached or not
// linked in this build.
func (e *Engine) linked(b *registry.Binding) error {
	if _, ok := e.links[b.Kernel.EntryPoint]; ok {
		return nil
	}
	if _, known := e.entries[b.Kernel.EntryPoint]; known {
		return &kernels.Unavailable{Kernel: b.Kernel.Name, Msg: fmt.Sprintf("its %s implementation is not attached (no GPU device is open)", b.Backend)}
	}
	return fmt.Errorf("%s: entry_point %s is not linked to an implementation in this build", b.Kernel.Name, b.Kernel.EntryPoint)
}

// runChecked runs binding b on a checked call. A call with an input on the
// GPU (tensor.OnStorage: gpu.Device.Upload, a chain's result) runs there
// as a chain of one, and its result stays there too — unless the call has
// an output tensor in Go memory (RunInto), which receives it.
func (e *Engine) runChecked(b *registry.Binding, ck *checked) (res *Result, err error) {
	if err := e.linked(b); err != nil {
		return nil, err
	}
	if b.Backend != CPU.Contract() && onDevice(ck.call) {
		return e.runOnDevice(b, ck)
	}
	return e.runLink(b, ck, e.links[b.Kernel.EntryPoint])
}

// runLink runs a checked call on one linked implementation (runChecked, a
// chain's).
func (e *Engine) runLink(b *registry.Binding, ck *checked, l kernels.Link) (res *Result, err error) {
	o, c := ck.op, ck.call
	if v := o.Variant(&c.Params); !slices.Contains(l.Serves, v) && !slices.Contains(l.Runs, v) {
		return nil, kernels.Violatef(c.Op, "kernel %s does not run %s: it serves %s", b.Kernel.Name, ops.Command(v), strings.Join(commands(l.Exercised()), ", "))
	}
	if err := checkOperandDTypes(b, o, c); err != nil {
		return nil, err
	}
	defer func() {
		// A panic in a kernel is a bug, but the user gets an error, not a crash.
		if r := recover(); r != nil {
			// A scratch buffer past the memory limit is the input's size,
			// not a bug (tensor.New panics with a *tensor.MemoryError).
			var me *tensor.MemoryError
			if re, ok := r.(error); ok && errors.As(re, &me) {
				err = fmt.Errorf("%s: %w", b.Kernel.Name, me)
				return
			}
			err = fmt.Errorf("%s: internal error: %v", b.Kernel.Name, r)
		}
	}()
	out, err := l.Impl(c)
	if err != nil {
		return nil, err
	}
	if c.Out != nil && out != c.Out {
		// an implementation that allocates its own result (a GPU read-back,
		// a reference walk): the caller's tensor receives it
		copy(c.Out.Data, out.Data)
		out = c.Out
	}
	return &Result{Out: out, Call: c, Binding: b, Kernel: b.Kernel.Name, Provider: b.Doc.Provider.Name, Backend: b.Backend, Resolved: ck.notes}, nil
}

// CostSymbols are the values of the contracts' cost-formula symbols for a
// served call.
func CostSymbols(r *Result) map[string]float64 {
	s, _ := ops.CostSymbols(r.Call, r.Out.Shape)
	return s
}

// EvalCost evaluates one of the served kernel's cost formulas (a
// contract.CostField's value) for the call.
func EvalCost(r *Result, formula string) (float64, error) {
	if strings.TrimSpace(formula) == "" {
		return 0, fmt.Errorf("no formula")
	}
	ex, err := contract.ParseExpr(formula)
	if err != nil {
		return 0, err
	}
	return ex.Eval(CostSymbols(r))
}

// TensorBytes is the bytes of a call's tensors: every input read once and
// the output written once. It is the same for the same call on every
// backend and kernel, so a bandwidth computed from it compares across them;
// a contract's bytes_moved counts what its own kernel moves (a constant
// pad's two output passes on the CPU, one on the GPU) and does not.
// fkc bench, fkc.bench and Try it divide it by time.
func TensorBytes(r *Result) float64 {
	var n float64
	if r.Call != nil {
		for _, t := range r.Call.Inputs {
			if t != nil {
				n += bytesOf(t)
			}
		}
	}
	if r.Out != nil {
		n += bytesOf(r.Out)
	}
	return n
}

// bytesOf is a tensor's bytes, wherever they are (a device tensor's Data
// is nil).
func bytesOf(t *tensor.Tensor) float64 { return float64(t.NumElems() * t.DType.Size()) }

// BytesMoved evaluates the served kernel's bytes_moved formula.
func BytesMoved(r *Result) (float64, error) {
	v, err := EvalCost(r, r.Binding.Kernel.Cost.BytesMoved)
	if err != nil {
		return 0, fmt.Errorf("bytes_moved %q: %v", r.Binding.Kernel.Cost.BytesMoved, err)
	}
	return v, nil
}

// BindingsOn lists the linked bindings of a backend (for tests and docs).
func (e *Engine) BindingsOn(b Backend) []*registry.Binding {
	var out []*registry.Binding
	for _, bd := range e.Reg.Bindings {
		if _, ok := e.links[bd.Kernel.EntryPoint]; ok && bd.Backend == b.Contract() {
			out = append(out, bd)
		}
	}
	return out
}

// RunArgs parses an op's `fkc run` flags (ops.Parse) and runs the call with
// these inputs on backend b: the command line's path, for callers that hold
// flag strings.
func (e *Engine) RunArgs(b Backend, op string, flags []string, inputs map[string]*tensor.Tensor) (*Result, error) {
	c, err := ops.Parse(op, flags)
	if err != nil {
		return nil, err
	}
	c.Inputs = inputs
	return e.Run(b, c)
}
