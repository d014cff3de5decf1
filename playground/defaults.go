package playground

// Case is one Try-it setup: the op's flags and a generator per input.
type Case struct {
	Op     string         `json:"op"`
	Flags  []string       `json:"flags"`
	Inputs map[string]Gen `json:"inputs"`
	// Order lists the input names in the op's order (SPEC §5).
	Order []string `json:"order"`
}

// DefaultCase is the small, readable example a kernel page opens with:
// shapes that fit on screen, values that are easy to follow (arange, or
// small integers so that sums are exact in every dtype), and parameters
// that satisfy the contract. dtype is the primary input's dtype; mode is
// fixed by the kernel's name ("" → constant); allDims picks sum_all over
// sum_dim.
func DefaultCase(op, mode, dtype string, allDims bool) Case {
	if mode == "" {
		mode = "constant"
	}
	ar := func(shape string) Gen { return Gen{Shape: shape, DType: dtype, Kind: "arange"} }
	rnd := func(shape string, lo, hi float64) Gen {
		return Gen{Shape: shape, DType: dtype, Kind: "random", Seed: 1, Lo: lo, Hi: hi}
	}
	idx := func(shape, values string) Gen { return Gen{Shape: shape, DType: "U32", Kind: "values", Values: values} }
	c := Case{Op: op, Inputs: map[string]Gen{}}
	switch op {
	case "pad":
		c.Flags = []string{"--mode", mode, "--padding", "2:2,2:2"}
		if mode == "constant" {
			c.Flags = append(c.Flags, "--value", "0")
		}
		c.Inputs["x"], c.Order = ar("4,5"), []string{"x"}
	case "pad_backward":
		// grad_out of ones: grad_in then shows how many outputs fold into each input.
		c.Flags = []string{"--mode", mode, "--padding", "2:2,2:2"}
		c.Inputs["grad_out"] = Gen{Shape: "8,9", DType: dtype, Kind: "values", Values: "1"}
		c.Order = []string{"grad_out"}
	case "masked_fill":
		c.Flags = []string{"--value", "-1"}
		c.Inputs["x"] = ar("4,5")
		c.Inputs["mask"] = Gen{Shape: "4,5", DType: "BOOL", Kind: "random", Seed: 3, Lo: 0, Hi: 1}
		c.Order = []string{"x", "mask"}
	case "sum", "max", "min", "mean":
		if !allDims {
			c.Flags = []string{"--dim", "1"}
		}
		c.Inputs["x"], c.Order = rnd("3,5", -9, 9), []string{"x"}
	case "argmax", "argmin":
		c.Flags = []string{"--dim", "1"}
		c.Inputs["x"], c.Order = rnd("3,5", -9, 9), []string{"x"}
	case "reduce_sum_to", "reduce_max_to":
		c.Flags = []string{"--shape", "1,5"}
		c.Inputs["x"], c.Order = rnd("3,5", -9, 9), []string{"x"}
	case "reduce_max_to_backward":
		c.Flags = []string{"--shape", "1,5"}
		c.Inputs["x"] = rnd("3,5", 0, 3) // a narrow range: ties share the gradient
		c.Inputs["upstream"] = Gen{Shape: "1,5", DType: dtype, Kind: "values", Values: "1 2 3 4 6"}
		c.Order = []string{"x", "upstream"}
	case "index_select":
		c.Flags = []string{"--dim", "0"}
		c.Inputs["data"], c.Inputs["indices"] = ar("4,5"), idx("3", "2 0 2")
		c.Order = []string{"data", "indices"}
	case "gather":
		c.Flags = []string{"--dim", "1"}
		c.Inputs["data"] = ar("4,5")
		c.Inputs["indices"] = Gen{Shape: "4,3", DType: "U32", Kind: "random", Seed: 2, Lo: 0, Hi: 4}
		c.Order = []string{"data", "indices"}
	case "index_add":
		c.Flags = []string{"--dim", "0"}
		c.Inputs["base"] = Gen{Shape: "4,5", DType: dtype, Kind: "values", Values: "0"}
		c.Inputs["indices"] = idx("3", "0 2 0")
		c.Inputs["src"] = ar("3,5")
		c.Order = []string{"base", "indices", "src"}
	case "scatter_add":
		c.Flags = []string{"--dim", "0"}
		c.Inputs["base"] = Gen{Shape: "4,5", DType: dtype, Kind: "values", Values: "0"}
		c.Inputs["indices"] = Gen{Shape: "2,5", DType: "U32", Kind: "random", Seed: 2, Lo: 0, Hi: 3}
		c.Inputs["src"] = ar("2,5")
		c.Order = []string{"base", "indices", "src"}
	case "embedding":
		c.Inputs["table"], c.Inputs["ids"] = ar("6,4"), idx("3", "4 1 4")
		c.Order = []string{"table", "ids"}
	}
	if c.Flags == nil {
		c.Flags = []string{}
	}
	return c
}
