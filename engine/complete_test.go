package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// Every op of the table has all its parts (docs/adding-an-op.md): for each
// variant a contract kernel linked on the CPU, and one linked on the GPU
// unless the op says why it runs on the CPU only; an oracle, random and
// sized cases, bench cases, and a visual (its Try-it example traced).
func TestEveryOpIsComplete(t *testing.T) {
	for _, o := range ops.Table {
		for _, missing := range opGaps(o, cpu.Links(), gpu.Links(nil)) {
			t.Errorf("%s: %s", o.Name, missing)
		}
	}
}

// The test above fails when a part is taken away.
func TestOpGapsFindsMissingParts(t *testing.T) {
	o, _ := ops.Lookup("scatter_add")
	if gaps := opGaps(o, cpu.Links(), gpu.Links(nil)); len(gaps) != 0 {
		t.Fatalf("scatter_add: %v", gaps)
	}
	without := func(links []kernels.Link, op string) []kernels.Link {
		return slices.DeleteFunc(links, func(l kernels.Link) bool {
			return slices.ContainsFunc(l.Serves, func(v kernels.Variant) bool { return v.Op == op })
		})
	}
	noBench, noTrace, cpuOnly := *o, *o, *o
	noBench.Bench, noTrace.Trace, cpuOnly.CPUOnly = nil, nil, "a reason"
	for _, c := range []struct {
		name     string
		o        *ops.Op
		cpu, gpu []kernels.Link
	}{
		{"no CPU link", o, without(cpu.Links(), o.Name), gpu.Links(nil)},
		{"no GPU link", o, cpu.Links(), without(gpu.Links(nil), o.Name)},
		{"no bench cases", &noBench, cpu.Links(), gpu.Links(nil)},
		{"no trace", &noTrace, cpu.Links(), gpu.Links(nil)},
		{"a CPU-only reason beside a GPU link", &cpuOnly, cpu.Links(), gpu.Links(nil)},
	} {
		if gaps := opGaps(c.o, c.cpu, c.gpu); len(gaps) == 0 {
			t.Errorf("%s: no gap found", c.name)
		}
	}
	cpuOnly.Name = "not_in_any_contract"
	if gaps := opGaps(&cpuOnly, cpu.Links(), nil); len(gaps) == 0 {
		t.Error("an op no contract declares: no gap found")
	}
}

// contractRegistry is the embedded contracts' registry, built once.
var contractRegistry = sync.OnceValue(func() *registry.Registry {
	docs, _ := contracts.LoadAll()
	return registry.Build(docs)
})

// opGaps lists the parts op o lacks, given the CPU and GPU link tables.
func opGaps(o *ops.Op, cpuLinks, gpuLinks []kernels.Link) []string {
	reg := contractRegistry()
	var gaps []string
	// linked reports whether some link serves v with an entry point that a
	// contract kernel on backend declares and binds.
	linked := func(links []kernels.Link, v kernels.Variant, backend string) bool {
		for _, l := range links {
			if !slices.Contains(l.Serves, v) {
				continue
			}
			for _, b := range reg.Bindings {
				if b.Kernel.EntryPoint == l.EntryPoint && b.Backend == backend {
					return true
				}
			}
		}
		return false
	}
	gpuAny := false
	for _, v := range o.Variants() {
		if !linked(cpuLinks, v, "Cpu") {
			gaps = append(gaps, fmt.Sprintf("%s: no CPU contract kernel linked", v))
		}
		hasGPU := linked(gpuLinks, v, "Vulkan")
		gpuAny = gpuAny || hasGPU
		if !hasGPU && o.CPUOnly == "" {
			gaps = append(gaps, fmt.Sprintf("%s: no GPU contract kernel linked, and no reason why it runs on the CPU only (Op.CPUOnly)", v))
		}
	}
	if gpuAny && o.CPUOnly != "" {
		gaps = append(gaps, "says it runs on the CPU only ("+o.CPUOnly+") but has a GPU kernel")
	}
	for part, missing := range map[string]bool{
		"Out": o.Out == nil, "Oracle": o.Oracle == nil, "Tolerance": o.Tolerance == nil, "Random": o.Random == nil,
		"Sized": o.Sized == nil, "Bench": len(o.Bench) == 0, "Example": o.Example == nil, "Trace": o.Trace == nil,
	} {
		if missing {
			gaps = append(gaps, "no "+part)
		}
	}
	if o.Example == nil || o.Trace == nil {
		return gaps
	}
	// The visual: each form's Try-it example, traced on the oracle.
	for _, v := range o.Variants() {
		c, gens := o.Example(v.Form, tensor.F32)
		c.Op, c.Inputs = o.Name, map[string]*tensor.Tensor{}
		for i, g := range gens {
			x, err := g.Make()
			if err != nil {
				gaps = append(gaps, fmt.Sprintf("%s: example input %d: %v", v, i, err))
				continue
			}
			c.Inputs[o.Inputs[i].Name] = x
		}
		if tr, err := o.Trace(ops.Oracle, c); err != nil || tr == nil {
			gaps = append(gaps, fmt.Sprintf("%s: the example does not trace: %v", v, err))
		}
	}
	return gaps
}

// noLinks is a GPU device with no kernels linked.
type noLinks struct{}

func (noLinks) Links() []kernels.Link         { return nil }
func (noLinks) LastGPUTime() time.Duration    { return 0 }
func (noLinks) LastKernelTime() time.Duration { return 0 }

// An op's CPU-only reason is what a GPU call of it is told.
func TestCPUOnlyReasonIsSaid(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	e.Attach(noLinks{})
	o, _ := ops.Lookup("masked_fill")
	o.CPUOnly = "its mask is read a byte at a time"
	defer func() { o.CPUOnly = "" }()
	x := tensor.New(tensor.F32, []int{2})
	_, err = e.Run(engine.Vulkan, ops.MaskedFill(x, tensor.New(tensor.BOOL, []int{2}), tensor.IntScalar(1)))
	if err == nil || !strings.Contains(err.Error(), "masked_fill runs on the CPU only: its mask is read a byte at a time") {
		t.Errorf("masked_fill on a device without it: %v", err)
	}
}
