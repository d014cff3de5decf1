package playground

import "strings"

// OpFor maps a contract kernel to the `fkc run` op (SPEC §5) that exercises
// it, and the pad mode its name fixes ("" when the kernel serves every mode
// or is not a pad). ok is false for kernels no CLI op reaches.
func OpFor(kernel, opKind string) (op, mode string, ok bool) {
	name := strings.ToLower(kernel)
	switch {
	case strings.Contains(name, "reflect"):
		mode = "reflect"
	case strings.Contains(name, "replicate"):
		mode = "replicate"
	case strings.Contains(name, "const"):
		mode = "constant"
	}
	switch strings.ToLower(opKind) {
	case "pad":
		return "pad", mode, true
	case "padbackward":
		return "pad_backward", mode, true
	case "maskedfill":
		return "masked_fill", "", true
	case "sumreduce":
		return "sum", "", true
	case "maxreduce":
		return "max", "", true
	case "minreduce":
		return "min", "", true
	case "meanreduce":
		return "mean", "", true
	case "argmaxdim":
		if strings.Contains(name, "argmin") {
			return "argmin", "", true
		}
		return "argmax", "", true
	case "argmindim":
		return "argmin", "", true
	case "reducesumto":
		return "reduce_sum_to", "", true
	case "reducemaxto":
		return "reduce_max_to", "", true
	case "reducemaxtobackward":
		return "reduce_max_to_backward", "", true
	case "indexselect":
		if strings.Contains(name, "embedding") {
			return "embedding", "", true
		}
		return "index_select", "", true
	case "gather":
		return "gather", "", true
	case "indexadd":
		return "index_add", "", true
	case "scatteradd":
		return "scatter_add", "", true
	}
	return "", "", false
}

// AllDims reports whether a reduction kernel is the all-elements variant
// (sum_all …) rather than the one-axis one (sum_dim …).
func AllDims(kernel string) bool { return strings.HasSuffix(strings.ToLower(kernel), "_all") }
