// Package padref is the tests' independent reference of the pad modes:
// each rule written out from SPEC §4 as its own formula, sharing no code
// with the kernels' mode table (kernels.PadModes), so that a test comparing
// the two can fail.
package padref

import "github.com/fkc-playground/fkc/kernels"

// Source is the input coordinate that j = out_coord - before reads on an
// axis of n elements, or -1 for the constant mode's fill.
func Source(mode kernels.Mode, j, n int) int {
	switch mode {
	case kernels.Constant:
		if j < 0 || j >= n {
			return -1
		}
		return j
	case kernels.Reflect: // edge not repeated; valid for -(n-1) <= j <= 2(n-1)
		if j < 0 {
			return -j
		}
		if j >= n {
			return 2*(n-1) - j
		}
		return j
	case kernels.Replicate:
		return min(max(j, 0), n-1)
	case kernels.Circular: // i = j mod n, the non-negative modulo
		return ((j % n) + n) % n
	case kernels.Symmetric: // m = j mod 2n; i = m < n ? m : 2n-1-m
		m := ((j % (2 * n)) + 2*n) % (2 * n)
		if m < n {
			return m
		}
		return 2*n - 1 - m
	}
	panic("padref: no reference for " + mode.String())
}

// Pad pads the float64 values of an input of shape in by the rule
// (fill for the constant mode's padding), row-major.
func Pad(mode kernels.Mode, x []float64, in []int, pads []kernels.Pad, fill float64) ([]float64, []int) {
	out := make([]int, len(in))
	total := 1
	for a, n := range in {
		out[a] = n + pads[a].Before + pads[a].After
		total *= out[a]
	}
	y := make([]float64, total)
	for o := range y {
		src, stride, rem, inside := 0, 1, o, true
		for a := len(in) - 1; a >= 0; a-- {
			c := rem % out[a]
			rem /= out[a]
			j := Source(mode, c-pads[a].Before, in[a])
			if j < 0 {
				inside = false
			}
			src += j * stride
			stride *= in[a]
		}
		if inside {
			y[o] = x[src]
		} else {
			y[o] = fill
		}
	}
	return y, out
}
