// Package cpu runs every kernel of the seeds' CPU contracts in pure Go, so
// the same code serves the native CLI, the tests and the WASM app.
//
// Each family keeps the straightforward reference walk that reads like its
// contract's prose (an unflatten per element, in the contract's flat order)
// beside the fast path that callers get; the fast path is bitwise the
// reference wherever the contract says bitwise or same_hardware_bitwise,
// and the tests hold it to that over random shapes. Where the fast path
// restructures loops around an accumulation (sum_dim, pad_backward,
// index_add, scatter_add) every output slot still sees its additions in
// the reference order, which is what makes it bitwise.
//
// Every exported function validates its operands first and returns a
// *kernels.Violation naming the violated contract constraint; nothing
// panics on user input and nothing reads out of bounds. The error prefix
// (Violation.Op) is the contract kernel's name: pad, pad_backward,
// masked_fill, sum_all, max_all, min_all, mean_all, sum_dim, max_dim,
// min_dim, mean_dim, argmax_dim, argmin_dim, reduce_sum_to, reduce_max_to,
// reduce_max_to_backward, index_select, gather, index_add, scatter_add,
// embedding. The GPU path uses the same names and the same kernels helpers
// so that both backends reject bad input with the same words.
package cpu
