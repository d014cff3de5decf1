// Package playground is the browser app's pure-Go core, kept out of the
// GOOS=js main package so that it is unit-tested natively: it maps a
// contract kernel to the `fkc run` op that exercises it, generates the
// Try-it inputs (arange / seeded random / typed values), traces where every
// output element came from, and diffs two backends' outputs bit by bit.
//
// Provenance uses the kernels themselves: a data mover (pad, masked_fill,
// gather, index_select, embedding) is run a second time on an index tensor
// (the flat index of every input element, as U32, or as F32 where the
// kernel takes no U32 — exact below 2^24) with an out-of-range sentinel as
// the fill value; what lands in each output slot is the index of the
// element it was copied from. So the picture shows what the kernel did,
// not what this package believes it should do. Arithmetic ops (reductions,
// index_add, scatter_add) are traced from the shape rules of SPEC §4.
package playground
