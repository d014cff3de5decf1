package ops

import (
	"fmt"
	"maps"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Resolve turns the conventions NumPy and PyTorch users bring into what the
// contracts take, once, where a call is checked (engine.Check, so the CLI,
// fkc.run and the page all get it): a negative dim counts from the end
// (-rank ≤ dim < rank, against the op's first operand), and an index
// operand of dtype I32 or I64 (NumPy's default integer is int64) becomes
// U32 once every value is checked in range. Kernels, contracts and
// `--kernel` see only the resolved call.
//
// It checks the operands (CheckInputs) and returns c itself when nothing
// needs resolving, else a copy (the caller's call, map and tensors are left
// as they were), with one note per change for the run's provenance line:
// "dim -1 → 1", "indices I64 → U32".
func (o *Op) Resolve(c *kernels.Call) (*kernels.Call, []string, error) {
	if err := o.CheckInputs(c); err != nil {
		return nil, nil, err
	}
	rc, notes := c, []string(nil)
	fork := func() {
		if rc == c {
			cp := *c
			cp.Inputs = maps.Clone(c.Inputs)
			rc = &cp
		}
	}
	if u, ok := o.use(DimFlag.Name); ok {
		switch {
		case c.Dim == kernels.NoDim && u.Required:
			return nil, nil, kernels.Usagef("%s needs --dim %s (this call has no dim)", o.Name, DimFlag.Arg)
		case c.Dim != kernels.NoDim:
			first := o.Inputs[0].Name
			d, err := kernels.ResolveDim(o.Name, first, c.Dim, c.Inputs[first].Rank())
			if err != nil {
				return nil, nil, err
			}
			if d != c.Dim {
				fork()
				rc.Dim = d
				notes = append(notes, fmt.Sprintf("dim %d → %d", c.Dim, d))
			}
		}
	}
	var convert []Operand
	for _, in := range o.Inputs {
		t := c.Inputs[in.Name]
		if in.Bound == nil || t.DType == tensor.U32 || t.DType.Size() == 0 {
			continue // not an index operand, already U32, or Out names the bad dtype
		}
		if !hasDType(kernels.ConvertedIndexDTypes, t.DType) {
			return nil, nil, kernels.Violatef(o.Name, "%s has dtype %s (contract: %s dtypes %s); %s %s are accepted too, converted to U32",
				in.Name, t.DType, in.Name, kernels.FormatDTypes(kernels.IndexDTypes), convertedNames, in.Name)
		}
		if err := kernels.CheckOperand(o.Name, in.Name, t, kernels.ConvertedIndexDTypes); err != nil {
			return nil, nil, err
		}
		if s := t.Storage(); s != nil {
			// converting reads the values on the host
			return nil, nil, kernels.Violatef(o.Name, "%s %s is on %s: only U32 indices are read in place there (contract: %s dtypes %s); convert them before the upload",
				in.Name, t, s, in.Name, kernels.FormatDTypes(kernels.IndexDTypes))
		}
		convert = append(convert, in)
	}
	if len(convert) == 0 {
		return rc, notes, nil
	}
	// The shapes first, as for U32 indices (the values come after them):
	// Out reads each operand through a U32 view of its leading bytes, whose
	// values it does not read; the bounds come from the checked shapes.
	fork()
	for _, in := range convert {
		t := c.Inputs[in.Name]
		rc.Inputs[in.Name] = &tensor.Tensor{DType: tensor.U32, Shape: t.Shape, Data: t.Data[:t.NumElems()*tensor.U32.Size()]}
	}
	if _, _, err := o.Out(rc); err != nil {
		return nil, nil, err
	}
	for _, in := range convert {
		t := c.Inputs[in.Name]
		bound, limit := in.Bound(rc)
		u, err := kernels.IndicesToU32(o.Name, in.Name, t, bound, limit)
		if err != nil {
			return nil, nil, err
		}
		rc.Inputs[in.Name] = u
		notes = append(notes, fmt.Sprintf("%s %s → U32", in.Name, t.DType))
	}
	return rc, notes, nil
}

// convertedNames lists kernels.ConvertedIndexDTypes for messages: "I32 and I64".
var convertedNames = func() string {
	names := make([]string, len(kernels.ConvertedIndexDTypes))
	for i, d := range kernels.ConvertedIndexDTypes {
		names[i] = d.String()
	}
	return strings.Join(names, " and ")
}()

// TraceCall traces a call as the engine runs it: resolved first (Resolve),
// so the picture shows the axis a negative dim names and the indices the
// kernel read.
func (o *Op) TraceCall(run Runner, c *kernels.Call) (*Trace, error) {
	rc, _, err := o.Resolve(c)
	if err != nil {
		return nil, err
	}
	return o.Trace(run, rc)
}
