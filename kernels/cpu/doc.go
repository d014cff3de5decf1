// Package cpu runs every kernel of the seeds' CPU contracts in pure Go, so
// the same code serves the native CLI, the tests and the WASM app.
//
// Each family keeps the straightforward reference walk that reads like its
// contract's prose (an unflatten per element, in the contract's flat order)
// beside the fast path that callers get; the fast path is bitwise the
// reference wherever the contract says bitwise or same_hardware_bitwise,
// and the tests hold it to that over random shapes. Where the fast path
// restructures loops around an accumulation (the sums along an axis, the
// pad backward, the index adds) every output slot still sees its additions
// in the reference order, which is what makes it bitwise.
//
// Every exported function validates its operands first and returns a
// *kernels.Violation naming the violated contract constraint; nothing
// panics on user input and nothing reads out of bounds. The error prefix
// (Violation.Op) is the contract kernel's name (the op's, or its form's:
// sum_all, sum_dim). The GPU path uses the same names and the same kernels
// helpers so that both backends reject bad input with the same words.
package cpu

import (
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Links is the CPU half of the link table: every Cpu entry_point of the
// seeds and of this project's own CPU contract, mapped to its Go
// implementation. Each family file registers its own entries (families);
// the GPU table is kernels/gpu.Links.
func Links() []kernels.Link {
	var links []kernels.Link
	for _, f := range families {
		links = append(links, f()...)
	}
	return links
}

// families holds each family file's link entries, added by its init.
var families []func() []kernels.Link

// refOracle prefixes the seed fuel-reference-backend's entry points.
const refOracle = "fuel_reference_backend::ops::"

func x(c *kernels.Call) *tensor.Tensor { return c.In("x") }
