package playground

import "strings"

// OpOf turns the op/variants that exercise a kernel — the link table's
// answer, ops.Engine.Exercised(entry_point): "pad/reflect", "sum/all",
// "argmax", … — into what its Try it runs: the `fkc run` op, the pad mode the
// kernel fixes ("" when it serves every mode), and whether a reduction is
// the all-elements variant (sum_all) rather than the one-axis one (sum_dim).
// ok is false when no op exercises the kernel (it is not linked).
func OpOf(variants []string) (op, mode string, allDims, ok bool) {
	if len(variants) == 0 {
		return "", "", false, false
	}
	op, sub, _ := strings.Cut(variants[0], "/")
	if len(variants) == 1 && (op == "pad" || op == "pad_backward") {
		mode = sub
	}
	return op, mode, sub == "all", true
}
