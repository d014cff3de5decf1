// Package playground is the browser app's pure-Go view code, kept out of
// the GOOS=js main package so that it is unit-tested natively: how a value
// is shown in a grid cell, and the bit-by-bit diff of two backends'
// outputs. (What an op is — its default Try-it case, its input generators,
// its provenance trace — lives with the op, in package ops.)
package playground
