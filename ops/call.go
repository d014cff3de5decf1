// Package ops is the one front door to every kernel: it parses an `fkc run`
// op with its flags (SPEC §5), validates the call against the contract,
// picks the registered contract binding for (op, backend, dtypes) and calls
// the implementation the link table names for that binding's entry_point.
// The CLI, the WASM app and the tests all go through it.
package ops

import (
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Call is one parsed, validated kernel invocation.
type Call struct {
	Op      string                    // CLI op name: "pad", "sum", "gather", …
	Inputs  map[string]*tensor.Tensor // by the CLI input name (x, mask, data, indices, …)
	Mode    kernels.Mode              // pad, pad_backward
	Padding []kernels.Pad             // pad, pad_backward
	Value   float64                   // pad (constant), masked_fill
	Dim     int                       // -1 when absent
	Shape   []int                     // reduce_*_to target
}

// Impl runs one linked kernel implementation.
type Impl func(c *Call) (*tensor.Tensor, error)

// Link ties a contract entry_point to an implementation in this project.
// Ops lists the CLI ops (and for ops with variants, "op/variant": e.g.
// "sum/all", "sum/dim", "pad/reflect") that the implementation serves: the
// dispatcher uses it to choose among bindings that share a registry key.
type Link struct {
	EntryPoint string
	Ops        []string
	// Runs lists the op/variants that exercise this entry point when its
	// binding is run directly (a kernel page's Try it), for entry points that
	// are no dispatch target: argindex_dim (the shared core behind argmax_dim
	// and argmin_dim), the host-slice index_select, the describe-only pad
	// branches. Empty means the same as Ops.
	Runs []string
	Impl Impl
	// Where names the implementation for docs ("kernels/cpu.Pad",
	// "shaders/wgsl/pad.wgsl:pad_reflect").
	Where string
}

// Exercised is the op/variants that run this link (Runs, else Ops).
func (l Link) Exercised() []string {
	if len(l.Runs) > 0 {
		return l.Runs
	}
	return l.Ops
}
